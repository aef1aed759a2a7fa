"""The eval-bench cases through pydantic-evals, for benches/eval_compare.sh.

    python eval_pydantic.py --base-url URL [--n N] [--concurrency C]
    python eval_pydantic.py --no-agent [--n N] [--concurrency C]
    python eval_pydantic.py --print-cases [--n N]

The same cases as crates/lucid-bench/src/bin/eval_bench.rs (same formula; eval_compare.sh
diffs both `--print-cases`), the same dataset evaluators (EqualsExpected,
Contains('The answer is'), IsInstance('str')), and a task that runs a pydantic-ai Agent on
an OpenAI-compatible model at URL with the same `add` tool. `dataset.evaluate(task,
max_concurrency=C, progress=False)`; nothing printed but one JSON line with the same fields
as eval-bench's. `--no-agent` answers each case in-process from its prompt (no model, no
tool): what is left is the harness alone. pydantic-evals runs as installed by default: logfire-api without logfire
and opentelemetry-api without an SDK, so its spans are no-ops and no span tree is recorded.
"""

import argparse
import asyncio
import json
import re
import resource
import sys
import time

PROCESS_START = time.monotonic()

SYSTEM = "You are a calculator assistant. Use the provided tools."
ENDINGS = ["", " Use the add tool.", " Answer in one sentence.", " Please show the sum."]


def case(i):
    """Case i: its name, prompt and expected answer (eval_bench.rs's `case`)."""
    a = i * 37 % 1000 - 100
    b = i * 91 % 997
    prompt = f"What is {a} + {b}?{ENDINGS[i % len(ENDINGS)]}"
    total = a + b + 1 if i % 10 == 9 else a + b
    return f"case-{i:04}", prompt, f"The answer is {total}."


def rusage():
    """CPU seconds (user + system) of this process so far, and its peak RSS in MiB."""
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024.0


async def run(args):
    from pydantic_ai import Agent
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider
    from pydantic_evals import Case, Dataset
    from pydantic_evals.evaluators import Contains, EqualsExpected, IsInstance
    import importlib.metadata as md

    model = OpenAIChatModel("gpt-4o-mini", provider=OpenAIProvider(base_url=args.base_url, api_key="sk-mock"))
    agent = Agent(model, system_prompt=SYSTEM)

    @agent.tool_plain
    def add(a: int, b: int) -> int:
        """Adds two integers."""
        return a + b

    async def task(prompt: str) -> str:
        result = await agent.run(prompt)
        return result.output

    async def arithmetic(prompt: str) -> str:
        a, b = re.match(r"What is (-?\d+) \+ (-?\d+)\?", prompt).groups()
        return f"The answer is {int(a) + int(b)}."

    cases = []
    for i in range(args.n):
        name, prompt, expected = case(i)
        cases.append(Case(name=name, inputs=prompt, expected_output=expected))
    dataset = Dataset(
        name="eval-bench",
        cases=cases,
        evaluators=[EqualsExpected(), Contains(value="The answer is"), IsInstance(type_name="str")],
    )

    cpu_before, _ = rusage()
    started = time.monotonic()
    report = await dataset.evaluate(arithmetic if args.no_agent else task, max_concurrency=args.concurrency, progress=False)
    wall_s = time.monotonic() - started
    cpu_after, peak_rss_mib = rusage()

    judges = {}
    passed = 0
    for c in report.cases:
        ok = bool(c.assertions) and all(r.value is True for r in c.assertions.values())
        passed += ok
        for judge, r in c.assertions.items():
            judges[judge] = judges.get(judge, 0) + (r.value is True)
    finished = len(report.cases)
    first_error = report.failures[0].error_message if report.failures else None
    print(
        json.dumps(
            {
                "harness": "pydantic-evals",
                "version": f"pydantic-evals {md.version('pydantic-evals')}, pydantic-ai-slim {md.version('pydantic-ai-slim')}",
                "cases": len(cases),
                "concurrency": args.concurrency,
                "agent": not args.no_agent,
                "finished": finished,
                "passed": passed,
                "pass_rate": passed / finished if finished else 0.0,
                "judges_passed": judges,
                "first_error": first_error,
                "wall_s": wall_s,
                "cpu_s": cpu_after - cpu_before,
                "cpu_total_s": cpu_after,
                "peak_rss_mib": peak_rss_mib,
                "init_s": started - PROCESS_START,
            }
        )
    )


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--base-url")
    p.add_argument("--n", type=int, default=1000)
    p.add_argument("--concurrency", type=int, default=1)
    p.add_argument("--print-cases", action="store_true")
    p.add_argument("--no-agent", action="store_true")
    args = p.parse_args()
    if args.print_cases:
        for i in range(args.n):
            print("\t".join(case(i)))
        return
    if not args.base_url and not args.no_agent:
        sys.exit("--base-url is required (lucid-mock-server --eval prints one)")
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
