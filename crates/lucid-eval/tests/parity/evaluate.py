"""Judges the parity cases (cases.yaml) with pydantic-evals' own evaluators and prints, as
one JSON document, each case's verdicts and the prompts its LLM judge was sent.

Usage: python evaluate.py cases.yaml

The LLM judge runs on pydantic-ai's FunctionModel answering each case's scripted grading
(`metadata.grading`) through the output tool it is offered, as a model would.
"""

import asyncio
import json
import sys

from pydantic_ai.messages import ModelResponse, SystemPromptPart, ToolCallPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_evals import Dataset
from pydantic_evals.evaluators import EvaluationReason, EvaluatorContext
from pydantic_evals.evaluators.llm_as_a_judge import set_default_judge_model
from pydantic_evals.otel._errors import SpanTreeRecordingError

seen = []  # (system prompt, user prompt, output schema) of each judge call
grading = {}  # the scripted answer of the case being judged


def judge_model(messages, info: AgentInfo) -> ModelResponse:
    parts = [p for m in messages for p in getattr(m, 'parts', [])]
    system = '\n\n'.join(p.content for p in parts if isinstance(p, SystemPromptPart))
    user = '\n\n'.join(p.content for p in parts if isinstance(p, UserPromptPart))
    tool = info.output_tools[0]
    seen.append({'system': system, 'user': user, 'schema': tool.parameters_json_schema})
    return ModelResponse(parts=[ToolCallPart(tool.name, dict(grading['answer']))])


def verdicts(name: str, results) -> list:
    """Each verdict as {judge, passed, reason, score}; an LLM judge's score and pass come
    under one verdict, as lucid-eval gives them."""
    if isinstance(results, bool):
        return [{'judge': name, 'passed': results, 'reason': None, 'score': None}]
    if isinstance(results, EvaluationReason):
        return [{'judge': name, 'passed': results.value, 'reason': results.reason, 'score': None}]
    if isinstance(results, dict):
        if not results:
            return []  # nothing to say (no expected output)
        if name == 'LLMJudge':
            passed = results['LLMJudge_pass']
            return [{'judge': name, 'passed': passed.value, 'reason': passed.reason, 'score': results['LLMJudge_score']}]
    raise ValueError(f'{name} gave {results!r}')


async def main(path: str) -> None:
    dataset = Dataset[object, object, dict].from_file(path)
    set_default_judge_model(FunctionModel(judge_model, model_name='scripted'))
    out = []
    for case in dataset.cases:
        meta = case.metadata or {}
        grading['answer'] = meta.get('grading')
        ctx = EvaluatorContext(
            name=case.name,
            inputs=case.inputs,
            metadata=meta,
            expected_output=case.expected_output,
            output=meta.get('output'),
            duration=meta['duration'],
            _span_tree=SpanTreeRecordingError('not recorded'),
            attributes={},
            metrics={},
        )
        results = []
        for evaluator in [*case.evaluators, *dataset.evaluators]:
            name = type(evaluator).__name__
            if name == 'LLMJudge':
                # Both the score and the pass, as lucid-eval's verdict carries them.
                evaluator.score = {'include_reason': False}
                seen.clear()
            results.extend(verdicts(name, await evaluator.evaluate_async(ctx)))
            if name == 'LLMJudge':
                results[-1]['prompts'] = list(seen)
        out.append({'case': case.name, 'verdicts': results})
    print(json.dumps(out, indent=1, ensure_ascii=False))


if __name__ == '__main__':
    asyncio.run(main(sys.argv[1]))
