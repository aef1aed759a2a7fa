//! The `LLMJudge`: a model grades an output against a rubric, as pydantic-evals' `LLMJudge`
//! does, with its prompts word for word (its system prompt for the sections shown, then
//! `<Input>`, `<Output>`, `<ExpectedOutput>` and `<Rubric>` sections) and its answer,
//! `GradingOutput {reason, pass, score}`, asked for as structured output in one call.

use lucid::Message;
use lucid::model::{ChatOptions, ChatRequest, ResponseFormat};
use serde::Deserialize;
use serde_json::{Value, json};

use super::{Answer, JudgeEnv, JudgeError, Verdict};

const NAME: &str = "LLMJudge";

/// Appended to each system prompt, as pydantic-evals does.
const REASON_INSTRUCTION: &str = "\nThe \"reason\" field must be a concise 1-2 sentence justification. Do not include your reasoning process, self-corrections, or re-checking in the reason. State only the final justification.";

const OUTPUT_ONLY: &str = r#"You are grading output according to a user-specified rubric. If the statement in the rubric is true, then the output passes the test. You respond with a JSON object with this structure: {reason: string, pass: boolean, score: number}

Examples:

<Output>Hello world</Output>
<Rubric>Content contains a greeting</Rubric>
{"reason": "the content contains the word 'Hello'", "pass": true, "score": 1.0}

<Output>Avast ye swabs, repel the invaders!</Output>
<Rubric>Does not speak like a pirate</Rubric>
{"reason": "'avast ye' is a common pirate term", "pass": false, "score": 0.0}"#;

const WITH_INPUT: &str = r#"You are grading output according to a user-specified rubric. If the statement in the rubric is true for the provided input and output, then the output passes the test. You respond with a JSON object with this structure: {reason: string, pass: boolean, score: number}

Examples:

<Input>Hello world</Input>
<Output>Hello</Output>
<Rubric>Content contains a greeting word which is present in the input</Rubric>
{"reason": "the content contains the word 'Hello'", "pass": true, "score": 1.0}

<Input>Pirate</Input>
<Output>Avast ye swabs, repel the invaders!</Output>
<Rubric>Does not speak in the style described by the input</Rubric>
{"reason": "'avast ye' is a common pirate term", "pass": false, "score": 0.0}"#;

const WITH_INPUT_AND_EXPECTED: &str = r#"You are grading output according to a user-specified rubric. If the statement in the rubric is true for the provided input, expected output, and output, then the output passes the test. You respond with a JSON object with this structure: {reason: string, pass: boolean, score: number}

Examples:

<Input>What color is the sky?</Input>
<Output>Cerulean</Output>
<ExpectedOutput>Blue</ExpectedOutput>
<Rubric>The output is consistent with the expected output but doesn't have to match exactly</Rubric>
{"reason": "'Cerulean' is a shade of blue", "pass": true, "score": 1.0}

<Input>How many legs does a spider have?</Input>
<Output>Six</Output>
<ExpectedOutput>8</ExpectedOutput>
<Rubric>The output is factually consistent with the expected output</Rubric>
{"reason": "Spiders have 8 legs", "pass": false, "score": 0.0}"#;

const WITH_EXPECTED: &str = r#"You are grading output according to a user-specified rubric. If the statement in the rubric is true for the provided expected output and output, then the output passes the test. You respond with a JSON object with this structure: {reason: string, pass: boolean, score: number}

Examples:

<Output>Cerulean</Output>
<ExpectedOutput>Blue</ExpectedOutput>
<Rubric>The output should be a shade of the expected output color</Rubric>
{"reason": "'Cerulean' is a shade of blue", "pass": true, "score": 1.0}

<Output>Six</Output>
<ExpectedOutput>8</ExpectedOutput>
<Rubric>The output should be a number written in words which matches the number written in digits in the expected output</Rubric>
{"reason": "The output is 'Six' which is a different number than 8", "pass": false, "score": 0.0}"#;

/// The judge's answer, pydantic-evals' `GradingOutput`.
#[derive(Debug, Deserialize)]
struct Grading {
    reason: String,
    #[serde(rename = "pass")]
    passed: bool,
    score: f64,
}

/// The JSON Schema of [`Grading`], as pydantic-evals offers it to the model (closed, so a
/// provider's strict mode takes it).
fn grading_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "reason": {"type": "string", "description": "A concise 1-2 sentence justification for the verdict."},
            "pass": {"type": "boolean"},
            "score": {"type": "number"}
        },
        "required": ["reason", "pass", "score"],
        "additionalProperties": false
    })
}

/// One LLM judge's settings, borrowed from its [`JudgeSpec`](super::JudgeSpec).
pub(crate) struct Ask<'a> {
    pub rubric: &'a str,
    pub model: Option<&'a str>,
    pub include_input: bool,
    pub include_expected_output: bool,
}

impl Ask<'_> {
    /// The system prompt pydantic-evals' judge agent for these sections has.
    fn system(&self) -> String {
        let body = match (self.include_input, self.include_expected_output) {
            (false, false) => OUTPUT_ONLY,
            (true, false) => WITH_INPUT,
            (true, true) => WITH_INPUT_AND_EXPECTED,
            (false, true) => WITH_EXPECTED,
        };
        format!("\n{body}\n{REASON_INSTRUCTION}")
    }

    /// The user prompt: the sections shown (a missing input or expected output is left out),
    /// the rubric last.
    fn prompt(&self, answer: &Answer<'_>) -> String {
        let given = |v: Option<&Value>| v.filter(|v| !v.is_null()).cloned();
        let mut lines = Vec::new();
        if self.include_input
            && let Some(inputs) = given(answer.inputs)
        {
            section(&mut lines, "Input", &inputs);
        }
        section(&mut lines, "Output", answer.output);
        if self.include_expected_output
            && let Some(expected) = given(answer.expected)
        {
            section(&mut lines, "ExpectedOutput", &expected);
        }
        section(&mut lines, "Rubric", &Value::String(self.rubric.to_string()));
        lines.join("\n")
    }

    /// Asks the model; a malformed answer is a failed verdict that says so.
    pub(crate) async fn judge(&self, answer: &Answer<'_>, env: &JudgeEnv<'_>) -> Result<Verdict, JudgeError> {
        let model =
            env.models.model(self.model).map_err(|message| JudgeError::NoModel { judge: NAME.into(), message })?;
        let schema = grading_schema();
        let messages = [Message::system(self.system()), Message::user(self.prompt(answer))];
        let options = ChatOptions {
            response_format: Some(ResponseFormat::JsonSchema {
                name: "GradingOutput".into(),
                schema: schema.clone(),
                strict: true,
            }),
            ..Default::default()
        };
        let response = model
            .chat(ChatRequest::new(&messages, &[], &options))
            .await
            .map_err(|source| JudgeError::Model { judge: NAME.into(), source })?;
        let tokens = response.usage.as_ref().map(|u| u.input_tokens + u.output_tokens);
        let cost = response.usage.as_ref().and_then(|usage| env.prices.price_for(&*model).and_then(|p| p.cost(usage)));
        tracing::debug!(model = model.model_name(), ?tokens, ?cost, "LLM judge answered");
        // Read as pydantic reads it: keys beyond the three are ignored.
        let mut open = schema;
        if let Some(m) = open.as_object_mut() {
            m.remove("additionalProperties");
        }
        let verdict = match lucid::structured::parse::<Grading>(&response.message.content, &open) {
            Ok(g) => Verdict::new(NAME, g.passed).reason(g.reason).score(g.score),
            Err(e) => {
                let said: String = response.message.content.chars().take(300).collect();
                Verdict::new(NAME, false)
                    .reason(format!("the judge's answer did not read as {{reason, pass, score}}: {e}; it said: {said}"))
            }
        };
        Ok(verdict.usage(tokens, cost))
    }
}

/// pydantic-evals' `_make_section`: the tag, each item of a list (or the value) on its own
/// line, text as it is and anything else as compact JSON, and the closing tag.
fn section(lines: &mut Vec<String>, tag: &str, content: &Value) {
    lines.push(format!("<{tag}>"));
    match content {
        Value::Array(items) => lines.extend(items.iter().map(stringify)),
        other => lines.push(stringify(other)),
    }
    lines.push(format!("</{tag}>"));
}

fn stringify(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use lucid::message::Usage;
    use lucid::model::prices::{Price, Prices};
    use lucid::model::{ChatModel, ScriptedModel};

    use super::super::{Judge, JudgeSpec};
    use super::*;

    fn spec(yaml: &str) -> JudgeSpec {
        serde_norway::from_str(yaml).unwrap()
    }

    async fn verdict(judge: &JudgeSpec, model: &ScriptedModel, answer: &Answer<'_>, prices: &Prices) -> Verdict {
        let model = model.clone();
        let models = move |_: Option<&str>| -> Result<Arc<dyn ChatModel>, String> { Ok(Arc::new(model.clone())) };
        let env = JudgeEnv::new(&models).prices(prices);
        Judge::judge(judge, answer, &env).await.unwrap().unwrap()
    }

    #[tokio::test]
    async fn a_passing_grade_keeps_its_reason_and_score() {
        let model = ScriptedModel::new().text(r#"{"reason": "It greets.", "pass": true, "score": 0.9}"#);
        let (output, inputs) = (json!("Hello!"), json!("Greet me"));
        let answer = Answer::new(&output).inputs(Some(&inputs));
        let v = verdict(&spec("LLMJudge: {rubric: Greets, include_input: true}"), &model, &answer, &Prices::default())
            .await;
        assert_eq!((v.passed, v.reason.as_deref(), v.score), (true, Some("It greets."), Some(0.9)));
        let sent = &model.requests()[0];
        assert_eq!(
            sent.last_user_text().unwrap(),
            "<Input>\nGreet me\n</Input>\n<Output>\nHello!\n</Output>\n<Rubric>\nGreets\n</Rubric>"
        );
        assert!(matches!(sent.options.response_format, Some(ResponseFormat::JsonSchema { strict: true, .. })));
    }

    #[tokio::test]
    async fn a_failing_grade_fails() {
        let model = ScriptedModel::new().text(r#"{"reason": "Rude.", "pass": false, "score": 0.1}"#);
        let output = json!(["a", 1]);
        let v = verdict(&spec("LLMJudge: Is polite"), &model, &Answer::new(&output), &Prices::default()).await;
        assert_eq!((v.passed, v.score), (false, Some(0.1)));
        assert_eq!(
            model.requests()[0].last_user_text().unwrap(),
            "<Output>\na\n1\n</Output>\n<Rubric>\nIs polite\n</Rubric>"
        );
    }

    #[tokio::test]
    async fn a_malformed_answer_is_a_failed_verdict() {
        let output = json!("x");
        let model =
            ScriptedModel::new().text("```json\n{\"reason\": \"ok\", \"pass\": true, \"score\": 1, \"extra\": 2}\n```");
        let v = verdict(&spec("LLMJudge: r"), &model, &Answer::new(&output), &Prices::default()).await;
        assert_eq!((v.passed, v.score), (true, Some(1.0)), "a fence and an extra key read, as pydantic-ai reads them");
        for said in ["I think it passes.", r#"{"reason": "ok", "pass": "yes", "score": 1}"#, r#"{"pass": true}"#] {
            let model = ScriptedModel::new().text(said);
            let v = verdict(&spec("LLMJudge: r"), &model, &Answer::new(&output), &Prices::default()).await;
            let reason = v.reason.unwrap();
            assert!(!v.passed && reason.contains("did not read"), "{said}: {reason}");
        }
    }

    #[tokio::test]
    async fn its_tokens_and_cost_are_recorded() {
        let usage = Usage { input_tokens: 1_000, output_tokens: 200, ..Default::default() };
        let model = ScriptedModel::named("judge-1")
            .text(r#"{"reason": "fine", "pass": true, "score": 1.0}"#)
            .usage(usage)
            .text("not json")
            .usage(usage);
        let prices = Prices::default().set("judge-1", Price::new(1.0, 10.0));
        let output = json!("x");
        let v = verdict(&spec("LLMJudge: r"), &model, &Answer::new(&output), &prices).await;
        assert_eq!(v.tokens, Some(1_200));
        let cost = v.cost_usd.unwrap();
        assert!((cost - 0.003).abs() < 1e-12, "{cost}");
        let v = verdict(&spec("LLMJudge: r"), &model, &Answer::new(&output), &prices).await;
        assert_eq!((v.passed, v.tokens), (false, Some(1_200)), "a malformed answer still cost");
        let unpriced = ScriptedModel::new()
            .text(r#"{"reason": "fine", "pass": true, "score": 1.0}"#)
            .usage(Usage { input_tokens: 5, ..Default::default() });
        let v = verdict(&spec("LLMJudge: r"), &unpriced, &Answer::new(&output), &Prices::default()).await;
        assert_eq!((v.tokens, v.cost_usd), (Some(5), None), "no price, no cost");
    }

    #[tokio::test]
    async fn a_model_that_cannot_be_had_or_fails_is_an_error() {
        let models = |_: Option<&str>| -> Result<Arc<dyn ChatModel>, String> { Err("no key".into()) };
        let env = JudgeEnv::new(&models);
        let output = json!("x");
        let e = Judge::judge(&spec("LLMJudge: r"), &Answer::new(&output), &env).await.unwrap_err();
        assert!(matches!(e, JudgeError::NoModel { .. }) && e.to_string().contains("no key"), "{e}");
        let empty = ScriptedModel::new();
        let models = move |_: Option<&str>| -> Result<Arc<dyn ChatModel>, String> { Ok(Arc::new(empty.clone())) };
        let env = JudgeEnv::new(&models);
        let e = Judge::judge(&spec("LLMJudge: r"), &Answer::new(&output), &env).await.unwrap_err();
        assert!(matches!(e, JudgeError::Model { .. }), "{e}");
    }
}
