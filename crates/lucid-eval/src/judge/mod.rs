//! The judges a dataset names ([`JudgeSpec`]) and their [`Verdict`]s, and the [`Judge`]
//! trait for judges written in Rust. The shared ones mean what pydantic-evals' evaluators of
//! the same name mean (`EqualsExpected`, `Equals`, `Contains`, `IsInstance`, `MaxDuration`,
//! `LLMJudge`), written the way its files write them: a bare name, or the name with one
//! argument or with its keyword arguments.
//!
//! Most judges answer at once ([`JudgeSpec::judge`]); `Command` runs a command and
//! `LLMJudge` asks a model, so they answer through [`Judge::judge`], given a [`JudgeEnv`]
//! that says where models come from.

mod command;
mod compare;
mod env;
mod llm;
mod parse;

use std::path::Path;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::trajectory::{self, Call, Match};
pub use command::CommandLine;
use compare::{as_text, contains, is_instance, number, py_repr, python_type, same, truncated};
pub use env::{FromEnv, Judge, JudgeEnv, JudgeError, JudgeModels};

/// One judge, as a dataset file names it.
///
/// ```
/// use lucid_eval::JudgeSpec;
/// let judges: Vec<JudgeSpec> = serde_norway::from_str("
/// - EqualsExpected
/// - Contains: Paris
/// - Contains: {value: paris, case_sensitive: false}
/// - Regex: '^[A-Z]'
/// - Numeric: {tolerance: 0.01}
/// - MaxDuration: 30
/// - Command: {run: pytest -q, timeout: 120}
/// - LLMJudge: {rubric: The answer names a city, include_input: true}
/// ").unwrap();
/// let out = serde_json::json!("Paris, France");
/// let answer = lucid_eval::Answer::new(&out);
/// let passed: Vec<Option<bool>> = judges[..6].iter().map(|j| j.judge(&answer).map(|v| v.passed)).collect();
/// assert_eq!(passed, [None, Some(true), Some(true), Some(true), None, Some(true)]);
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum JudgeSpec {
    /// The output equals the case's `expected_output` (no verdict without one).
    EqualsExpected,
    /// The output equals `value`.
    Equals {
        /// The value.
        value: Value,
    },
    /// The output contains `value`: a substring of a text, an item of a list, a key (or,
    /// for an object `value`, every key with its value) of an object.
    Contains {
        /// What it must contain.
        value: Value,
        /// Text compared as written (default) or folded to lower case.
        case_sensitive: bool,
        /// Compare both as text.
        as_strings: bool,
    },
    /// The output (as text) matches a regular expression.
    Regex {
        /// The expression (Rust `regex` syntax; checked when the dataset is read).
        pattern: String,
    },
    /// The output is a number within `tolerance` of `value` (or of `expected_output`).
    Numeric {
        /// The number; `None` takes the case's `expected_output`.
        value: Option<f64>,
        /// The largest difference allowed.
        tolerance: f64,
    },
    /// The output (JSON, or text holding JSON) matches a JSON Schema.
    JsonSchema {
        /// The schema.
        schema: Value,
    },
    /// The output is of a type, by its Python name as pydantic-evals reads it (`str`,
    /// `int`, `float`, `bool`, `list`, `dict`, `NoneType`, `object`).
    IsInstance {
        /// The type's name.
        type_name: String,
    },
    /// The tool calls made, against the calls expected ([`Match`]); the verdict's score
    /// is the match's (1 or 0, or F1), and it passes at `threshold` or above.
    ToolTrajectory {
        /// The calls expected.
        calls: Vec<Call>,
        /// How they are held against the calls made.
        how: Match,
        /// The least score that passes (default 1).
        threshold: f64,
    },
    /// The run took at most `seconds` ([`Spent::duration`]), as pydantic-evals'
    /// `MaxDuration`.
    MaxDuration {
        /// The longest run that passes, in seconds.
        seconds: f64,
    },
    /// The run used at most `tokens` tokens ([`Spent::tokens`]).
    MaxTokens {
        /// The most tokens that pass.
        tokens: u64,
    },
    /// The run cost at most `usd` dollars ([`Spent::cost_usd`]); a run whose price is
    /// unknown fails, saying so.
    MaxCost {
        /// The highest cost that passes, in US dollars.
        usd: f64,
    },
    /// A command run in the case's project folder after the agent ran
    /// ([`Answer::workdir`]): it passes when it exits with 0 within `timeout`. It answers
    /// through [`Judge::judge`] only.
    Command {
        /// The command: a line for `sh -c`, or a program and its arguments.
        run: CommandLine,
        /// How long it may run before its whole process group is killed.
        timeout: Duration,
    },
    /// A model grades the output against a rubric, as pydantic-evals' `LLMJudge` does
    /// (the same prompts, the same `{reason, pass, score}` answer). It answers through
    /// [`Judge::judge`] only.
    LlmJudge {
        /// What the output must satisfy.
        rubric: String,
        /// The grading model (`provider:model`); `None` takes the [`JudgeModels`]' default.
        model: Option<String>,
        /// Show the model the case's inputs too.
        include_input: bool,
        /// Show the model the case's expected output too.
        include_expected_output: bool,
    },
}

/// What a run of the agent spent on a case: the limit judges read it.
///
/// ```
/// use std::time::Duration;
/// let spent = lucid_eval::Spent { tokens: 1200, cost_usd: Some(0.002), duration: Duration::from_secs(3), model_calls: 2 };
/// assert_eq!(spent.duration.as_secs(), 3);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Spent {
    /// Tokens used, prompts and answers, across every model call.
    pub tokens: u64,
    /// What they cost in US dollars; `None` when a model's price is unknown.
    pub cost_usd: Option<f64>,
    /// How long the run took.
    pub duration: Duration,
    /// How many model calls it made.
    pub model_calls: u64,
}

/// What a judge looks at: an agent's answer to a case, and how it got there.
///
/// ```
/// use serde_json::json;
/// use std::time::Duration;
/// let (output, inputs) = (json!("4"), json!("What is 2 + 2?"));
/// let spent = lucid_eval::Spent { duration: Duration::from_millis(800), ..Default::default() };
/// let answer = lucid_eval::Answer::new(&output).inputs(Some(&inputs)).spent(spent).workdir(Some("/tmp".as_ref()));
/// assert_eq!(answer.spent.duration.as_millis(), 800);
/// ```
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct Answer<'a> {
    /// The answer: text as a JSON string, or the JSON of a structured answer.
    pub output: &'a Value,
    /// The case's `expected_output`.
    pub expected: Option<&'a Value>,
    /// The tool calls the agent made, in order.
    pub calls: &'a [Call],
    /// The case's `inputs`.
    pub inputs: Option<&'a Value>,
    /// The case's `metadata`.
    pub metadata: Option<&'a Value>,
    /// What the run spent.
    pub spent: Spent,
    /// The case's project folder after the agent ran (where `Command` runs).
    pub workdir: Option<&'a Path>,
    /// The dataset's folder (a `Command` finds it in `LUCID_EVAL_DATASET_DIR`: a checker
    /// kept there is out of the agent's reach).
    pub dataset_dir: Option<&'a Path>,
}

impl<'a> Answer<'a> {
    /// An answer with nothing expected, no tool calls, nothing spent.
    pub fn new(output: &'a Value) -> Self {
        Answer {
            output,
            expected: None,
            calls: &[],
            inputs: None,
            metadata: None,
            spent: Spent::default(),
            workdir: None,
            dataset_dir: None,
        }
    }

    /// With the case's expected output.
    pub fn expected(self, expected: Option<&'a Value>) -> Self {
        Answer { expected, ..self }
    }

    /// With the tool calls made.
    pub fn calls(self, calls: &'a [Call]) -> Self {
        Answer { calls, ..self }
    }

    /// With the case's inputs.
    pub fn inputs(self, inputs: Option<&'a Value>) -> Self {
        Answer { inputs, ..self }
    }

    /// With the case's metadata.
    pub fn metadata(self, metadata: Option<&'a Value>) -> Self {
        Answer { metadata, ..self }
    }

    /// With what the run spent.
    pub fn spent(self, spent: Spent) -> Self {
        Answer { spent, ..self }
    }

    /// With the case's project folder.
    pub fn workdir(self, workdir: Option<&'a Path>) -> Self {
        Answer { workdir, ..self }
    }

    /// With the dataset's folder.
    pub fn dataset_dir(self, dataset_dir: Option<&'a Path>) -> Self {
        Answer { dataset_dir, ..self }
    }
}

/// What a judge says of one output.
///
/// ```
/// let v = lucid_eval::Verdict::new("MyJudge", false).reason("too long").score(0.4);
/// assert_eq!((v.passed, v.reason.as_deref(), v.score), (false, Some("too long"), Some(0.4)));
/// assert_eq!(serde_json::to_value(&v).unwrap()["judge"], "MyJudge");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Verdict {
    /// The judge's name (`Contains`, …).
    pub judge: String,
    /// Whether the output passes.
    pub passed: bool,
    /// Why (the judge's words): why not when it fails; an LLM judge's reason either way.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// A score in [0, 1], for judges that give partial credit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
    /// What judging cost in US dollars (an LLM judge's model call), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    /// Tokens judging used (an LLM judge's model call), when reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<u64>,
}

impl Verdict {
    /// A verdict of `judge`, passed or not, with nothing else said.
    pub fn new(judge: impl Into<String>, passed: bool) -> Self {
        Verdict { judge: judge.into(), passed, reason: None, score: None, cost_usd: None, tokens: None }
    }

    /// With a reason.
    pub fn reason(self, reason: impl Into<String>) -> Self {
        Verdict { reason: Some(reason.into()), ..self }
    }

    /// With a score.
    pub fn score(self, score: f64) -> Self {
        Verdict { score: Some(score), ..self }
    }

    /// With what judging used: tokens and their cost, each when known.
    pub fn usage(self, tokens: Option<u64>, cost_usd: Option<f64>) -> Self {
        Verdict { tokens, cost_usd, ..self }
    }
}

impl JudgeSpec {
    /// The judge's name, as files write it.
    pub fn name(&self) -> &'static str {
        match self {
            JudgeSpec::EqualsExpected => "EqualsExpected",
            JudgeSpec::Equals { .. } => "Equals",
            JudgeSpec::Contains { .. } => "Contains",
            JudgeSpec::Regex { .. } => "Regex",
            JudgeSpec::Numeric { .. } => "Numeric",
            JudgeSpec::JsonSchema { .. } => "JsonSchema",
            JudgeSpec::IsInstance { .. } => "IsInstance",
            JudgeSpec::ToolTrajectory { .. } => "ToolTrajectory",
            JudgeSpec::MaxDuration { .. } => "MaxDuration",
            JudgeSpec::MaxTokens { .. } => "MaxTokens",
            JudgeSpec::MaxCost { .. } => "MaxCost",
            JudgeSpec::Command { .. } => "Command",
            JudgeSpec::LlmJudge { .. } => "LLMJudge",
        }
    }

    /// Whether the judge answers at once ([`JudgeSpec::judge`]); `Command` and `LLMJudge`
    /// answer through [`Judge::judge`].
    pub fn is_sync(&self) -> bool {
        !matches!(self, JudgeSpec::Command { .. } | JudgeSpec::LlmJudge { .. })
    }

    /// The verdict on an answer; `None` when the judge has nothing to say (no expected
    /// output to compare with). `Command` and `LLMJudge` cannot answer here (they run a
    /// command or ask a model): they give a failed verdict saying so; run them through
    /// [`Judge::judge`].
    pub fn judge(&self, answer: &Answer<'_>) -> Option<Verdict> {
        let (output, expected) = (answer.output, answer.expected);
        let failed = match self {
            JudgeSpec::EqualsExpected => {
                let expected = expected?;
                (!same(output, expected)).then(String::new)
            }
            JudgeSpec::Equals { value } => (!same(output, value)).then(String::new),
            JudgeSpec::Contains { value, case_sensitive, as_strings } => {
                contains(output, value, *case_sensitive, *as_strings)
            }
            JudgeSpec::Regex { pattern } => {
                let text = as_text(output);
                // Checked when read; a pattern built in code may still be wrong.
                match regex::Regex::new(pattern) {
                    Ok(re) if re.is_match(&text) => None,
                    Ok(_) => Some(format!("Output {} does not match /{pattern}/", quoted(&text))),
                    Err(e) => Some(format!("the pattern /{pattern}/ is not a regular expression: {e}")),
                }
            }
            JudgeSpec::Numeric { value, tolerance } => {
                let target = match value {
                    Some(v) => *v,
                    None => number(expected?)?,
                };
                match number(output) {
                    Some(n) if (n - target).abs() <= *tolerance => None,
                    Some(n) => Some(format!("Output {n} is not within {tolerance} of {target}")),
                    None => Some(format!("Output {} is not a number", quoted(&as_text(output)))),
                }
            }
            JudgeSpec::JsonSchema { schema } => {
                let parsed;
                let value = match output {
                    Value::String(s) => match serde_json::from_str::<Value>(s) {
                        Ok(v) => {
                            parsed = v;
                            &parsed
                        }
                        Err(e) => return Some(self.verdict(Some(format!("Output is not JSON: {e}")))),
                    },
                    other => other,
                };
                let problems = lucid::tool::validate::validate(schema, value);
                (!problems.is_empty()).then(|| format!("Output does not match the schema: {}", problems.join("; ")))
            }
            JudgeSpec::IsInstance { type_name } => {
                (!is_instance(output, type_name)).then(|| format!("output is of type {}", python_type(output)))
            }
            JudgeSpec::ToolTrajectory { calls, how, threshold } => {
                let (score, why) = trajectory::score(answer.calls, calls, *how);
                let failed = (score < *threshold).then(|| why.unwrap_or_default());
                return Some(Verdict { score: Some(score), ..self.verdict(failed) });
            }
            JudgeSpec::MaxDuration { seconds } => {
                let took = answer.spent.duration.as_secs_f64();
                (took > *seconds).then(|| format!("the run took {took:.3} s, more than {seconds} s"))
            }
            JudgeSpec::MaxTokens { tokens } => {
                let used = answer.spent.tokens;
                (used > *tokens).then(|| format!("the run used {used} tokens, more than {tokens}"))
            }
            JudgeSpec::MaxCost { usd } => match answer.spent.cost_usd {
                Some(cost) if cost <= *usd => None,
                Some(cost) => Some(format!("the run cost ${cost:.6}, more than ${usd}")),
                None => Some(format!(
                    "the run's cost is unknown (a model it used has no known price), so it cannot be held under ${usd}"
                )),
            },
            JudgeSpec::Command { .. } | JudgeSpec::LlmJudge { .. } => Some(format!(
                "the judge `{}` runs a command or asks a model: it judges through `Judge::judge`, not at once",
                self.name()
            )),
        };
        Some(self.verdict(failed))
    }

    fn verdict(&self, failed: Option<String>) -> Verdict {
        let verdict = Verdict::new(self.name(), failed.is_none());
        match failed.filter(|r| !r.is_empty()) {
            Some(reason) => verdict.reason(reason),
            None => verdict,
        }
    }
}

/// Text quoted for a reason, as Python's `repr`, cut to 100 characters.
fn quoted(s: &str) -> String {
    truncated(&py_repr(&Value::String(s.to_string())), 100)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn judge(spec: &str) -> JudgeSpec {
        serde_norway::from_str(spec).unwrap()
    }

    fn passes(spec: &str, output: Value, expected: Option<Value>) -> Option<bool> {
        judge(spec).judge(&Answer::new(&output).expected(expected.as_ref())).map(|v| v.passed)
    }

    #[test]
    fn verdicts_as_pydantic_evals_gives_them() {
        assert_eq!(passes("EqualsExpected", json!(1), Some(json!(1.0))), Some(true), "1 == 1.0");
        assert_eq!(passes("EqualsExpected", json!("a"), None), None, "nothing expected, no verdict");
        assert_eq!(passes("Equals: {value: [1, 2]}", json!([1, 2]), None), Some(true));
        assert_eq!(passes("Equals: 1", json!(true), None), Some(true), "True == 1");
        assert_eq!(passes("Contains: Paris", json!("paris"), None), Some(false));
        assert_eq!(passes("Contains: {value: Paris, case_sensitive: false}", json!("in paris"), None), Some(true));
        assert_eq!(passes("Contains: {value: {a: 1}}", json!({"a": 1, "b": 2}), None), Some(true));
        assert_eq!(passes("Contains: {value: {a: 2}}", json!({"a": 1}), None), Some(false));
        assert_eq!(passes("Contains: a", json!({"a": 1}), None), Some(true), "a key");
        assert_eq!(passes("Contains: 2", json!([1, 2]), None), Some(true), "an item");
        assert_eq!(passes("Contains: 2", json!(12), None), Some(false), "an int holds nothing");
        assert_eq!(passes("Contains: {value: 2, as_strings: true}", json!(12), None), Some(true));
        assert_eq!(passes("IsInstance: int", json!(true), None), Some(true), "a bool is an int");
        assert_eq!(passes("IsInstance: object", json!(null), None), Some(true), "everything is an object");
        assert_eq!(passes("IsInstance: str", json!(3.5), None), Some(false));
        let v = judge("Contains: Tom").judge(&Answer::new(&json!("the cat is Felix"))).unwrap();
        assert_eq!(
            v.reason.as_deref(),
            Some("Output string 'the cat is Felix' does not contain expected string 'Tom'")
        );
    }

    #[test]
    fn lucids_own_judges() {
        assert_eq!(passes("Regex: '^\\d{3}$'", json!("123"), None), Some(true));
        assert_eq!(passes("Regex: '^\\d{3}$'", json!(1234), None), Some(false));
        assert_eq!(passes("Numeric: 0.1", json!("3.14"), Some(json!(3.1))), Some(true));
        assert_eq!(passes("Numeric: {value: 10, tolerance: 0.5}", json!(11), None), Some(false));
        assert_eq!(passes("Numeric: 0.1", json!("three"), Some(json!(3))), Some(false));
        let schema = "JsonSchema: {type: object, required: [name], properties: {name: {type: string}}}";
        assert_eq!(passes(schema, json!("{\"name\": \"Tom\"}"), None), Some(true), "text holding JSON");
        assert_eq!(passes(schema, json!({"name": 3}), None), Some(false));
        assert_eq!(passes(schema, json!("not json"), None), Some(false));
    }

    #[test]
    fn limits_read_what_the_run_spent() {
        let output = json!("done");
        let spent = Spent { tokens: 1500, cost_usd: Some(0.02), duration: Duration::from_millis(2500), model_calls: 3 };
        let answer = Answer::new(&output).spent(spent);
        let verdict = |spec: &str| judge(spec).judge(&answer).unwrap();
        assert!(verdict("MaxDuration: 2.5").passed, "at the limit passes, as pydantic-evals' <=");
        let v = verdict("MaxDuration: {seconds: 2}");
        assert!(!v.passed && v.reason.unwrap().contains("2.500 s"));
        assert!(verdict("MaxTokens: 1500").passed);
        assert!(!verdict("MaxTokens: {tokens: 1000}").passed);
        assert!(verdict("MaxCost: 0.05").passed);
        assert!(!verdict("MaxCost: {usd: 0.01}").passed);
        let unknown = Answer::new(&output).spent(Spent { cost_usd: None, ..spent });
        let v = judge("MaxCost: 100").judge(&unknown).unwrap();
        assert!(!v.passed && v.reason.unwrap().contains("cost is unknown"), "an unknown price never passes");
    }

    #[test]
    fn a_judge_that_needs_a_model_or_a_command_does_not_pass_at_once() {
        let output = json!("x");
        for spec in ["LLMJudge: be nice", "Command: 'true'"] {
            let j = judge(spec);
            assert!(!j.is_sync());
            let v = j.judge(&Answer::new(&output)).unwrap();
            assert!(!v.passed && v.reason.unwrap().contains("Judge::judge"), "{spec}");
        }
    }

    #[test]
    fn a_trajectory_is_scored_and_passes_at_its_threshold() {
        let made = [Call::new("search", json!({"q": "rust"})), Call::new("read", json!({"id": 1}))];
        let output = json!("done");
        let answer = Answer::new(&output).calls(&made);
        let spec =
            "ToolTrajectory: {calls: [{name: read}, {name: search, arguments: {q: go}}], match: f1, threshold: 0.7}";
        let v = judge(spec).judge(&answer).unwrap();
        assert_eq!((v.passed, v.score), (true, Some(0.75)), "{v:?}");
        let v = judge("ToolTrajectory: [{name: read}, {name: search}]").judge(&answer).unwrap();
        assert_eq!((v.passed, v.score), (true, Some(1.0)), "any order by default");
        let v =
            judge("ToolTrajectory: {calls: [{name: read}, {name: search}], match: in_order}").judge(&answer).unwrap();
        assert!(!v.passed && v.reason.unwrap().contains("in order"));
        assert!(serde_norway::from_str::<JudgeSpec>("ToolTrajectory: {calls: [], match: sideways}").is_err());
    }
}
