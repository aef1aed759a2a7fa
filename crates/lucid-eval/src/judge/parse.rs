//! Judges read from and written to dataset files, as pydantic-evals writes evaluators: a
//! bare name (`EqualsExpected`), the name with its first argument (`Contains: Paris`), or
//! the name with its keyword arguments (`Contains: {value: paris, case_sensitive: false}`);
//! and the JSON Schema of that form.

use std::time::Duration;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value, json};

use super::{CommandLine, JudgeSpec};
use crate::trajectory::Match;

/// Every judge's name, for the error naming an unknown one.
const NAMES: &str = "EqualsExpected, Equals, Contains, Regex, Numeric, JsonSchema, IsInstance, ToolTrajectory, MaxDuration, MaxTokens, MaxCost, Command, LLMJudge";

/// The time a `Command` gets when its file gives none.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(60);

impl JudgeSpec {
    /// The judge from its name and arguments (`args`: `None`, one positional value, or an
    /// object of keyword arguments).
    fn from_parts(name: &str, args: Option<Value>) -> Result<JudgeSpec, String> {
        // The first argument may be given alone, as pydantic-evals writes it.
        let kwargs = |first: &str| -> Map<String, Value> {
            match &args {
                Some(Value::Object(m)) if m.contains_key(first) => m.clone(),
                Some(v) => Map::from_iter([(first.to_string(), v.clone())]),
                None => Map::new(),
            }
        };
        // For a judge whose first argument is never an object, an object is its keyword
        // arguments (as pydantic-evals reads any object).
        let named = |first: &str| -> Map<String, Value> {
            match &args {
                Some(Value::Object(m)) => m.clone(),
                Some(v) => Map::from_iter([(first.to_string(), v.clone())]),
                None => Map::new(),
            }
        };
        let needs = |m: &Map<String, Value>, key: &str| -> Result<Value, String> {
            m.get(key).cloned().ok_or_else(|| format!("the judge `{name}` needs `{key}`"))
        };
        let flag = |m: &Map<String, Value>, key: &str, default: bool| -> Result<bool, String> {
            match m.get(key) {
                None => Ok(default),
                Some(Value::Bool(b)) => Ok(*b),
                Some(other) => Err(format!("`{key}` of `{name}` is true or false, not {other}")),
            }
        };
        let known = |m: &Map<String, Value>, keys: &[&str]| -> Result<(), String> {
            match m.keys().find(|k| !keys.contains(&k.as_str())) {
                Some(k) => Err(format!("the judge `{name}` takes no `{k}` (it takes {})", keys.join(", "))),
                None => Ok(()),
            }
        };
        let text = |m: &Map<String, Value>, key: &str| -> Result<String, String> {
            needs(m, key)?.as_str().map(str::to_string).ok_or_else(|| format!("`{key}` of `{name}` is text"))
        };
        let positive = |m: &Map<String, Value>, key: &str| -> Result<f64, String> {
            let n = needs(m, key)?.as_f64().filter(|n| *n >= 0.0 && n.is_finite());
            n.ok_or_else(|| format!("`{key}` of `{name}` is a number of zero or more"))
        };
        Ok(match name {
            "EqualsExpected" => {
                known(&kwargs(""), &["", "evaluation_name"])
                    .map_err(|_| format!("the judge `{name}` takes no arguments"))?;
                JudgeSpec::EqualsExpected
            }
            "Equals" => {
                let m = kwargs("value");
                known(&m, &["value", "evaluation_name"])?;
                JudgeSpec::Equals { value: needs(&m, "value")? }
            }
            "Contains" => {
                let m = kwargs("value");
                known(&m, &["value", "case_sensitive", "as_strings", "evaluation_name"])?;
                JudgeSpec::Contains {
                    value: needs(&m, "value")?,
                    case_sensitive: flag(&m, "case_sensitive", true)?,
                    as_strings: flag(&m, "as_strings", false)?,
                }
            }
            "Regex" => {
                let m = kwargs("pattern");
                known(&m, &["pattern"])?;
                let pattern = text(&m, "pattern")?;
                regex::Regex::new(&pattern).map_err(|e| format!("the pattern /{pattern}/ does not read: {e}"))?;
                JudgeSpec::Regex { pattern }
            }
            "Numeric" => {
                let m = kwargs("tolerance");
                known(&m, &["value", "tolerance"])?;
                let tolerance = positive(&m, "tolerance")?;
                let value = match m.get("value") {
                    None => None,
                    Some(v) => Some(v.as_f64().ok_or("`value` is a number")?),
                };
                JudgeSpec::Numeric { value, tolerance }
            }
            "JsonSchema" => {
                let m = kwargs("schema");
                known(&m, &["schema"])?;
                let schema = needs(&m, "schema")?;
                if !schema.is_object() && !schema.is_boolean() {
                    return Err("`schema` is a JSON Schema (an object)".into());
                }
                JudgeSpec::JsonSchema { schema }
            }
            "IsInstance" => {
                let m = kwargs("type_name");
                known(&m, &["type_name", "evaluation_name"])?;
                JudgeSpec::IsInstance { type_name: text(&m, "type_name")? }
            }
            "ToolTrajectory" => {
                let m = kwargs("calls");
                known(&m, &["calls", "match", "threshold"])?;
                let calls = serde_json::from_value(needs(&m, "calls")?).map_err(|e| format!("`calls`: {e}"))?;
                let how = match m.get("match") {
                    None => Match::default(),
                    Some(v) => serde_json::from_value(v.clone())
                        .map_err(|_| format!("`match` is exact, in_order, any_order or f1, not {v}"))?,
                };
                let threshold = match m.get("threshold") {
                    None => 1.0,
                    Some(v) => {
                        v.as_f64().filter(|t| (0.0..=1.0).contains(t)).ok_or("`threshold` is a number from 0 to 1")?
                    }
                };
                JudgeSpec::ToolTrajectory { calls, how, threshold }
            }
            "MaxDuration" => {
                let m = named("seconds");
                known(&m, &["seconds"])?;
                // pydantic-evals writes a `timedelta` as ISO 8601 (`PT1.5S`).
                let seconds = match needs(&m, "seconds")? {
                    Value::String(text) => iso_duration(&text)
                        .ok_or_else(|| format!("`seconds` of `{name}` is a number of zero or more, or an ISO 8601 duration (`PT1.5S`), not `{text}`"))?,
                    _ => positive(&m, "seconds")?,
                };
                JudgeSpec::MaxDuration { seconds }
            }
            "MaxTokens" => {
                let m = named("tokens");
                known(&m, &["tokens"])?;
                let tokens = needs(&m, "tokens")?.as_u64().ok_or("`tokens` is a whole number of zero or more")?;
                JudgeSpec::MaxTokens { tokens }
            }
            "MaxCost" => {
                let m = named("usd");
                known(&m, &["usd"])?;
                JudgeSpec::MaxCost { usd: positive(&m, "usd")? }
            }
            "Command" => {
                let m = named("run");
                known(&m, &["run", "timeout"])?;
                let run = match needs(&m, "run")? {
                    Value::String(line) if !line.trim().is_empty() => CommandLine::Shell(line),
                    Value::Array(items) if !items.is_empty() => CommandLine::Args(
                        items
                            .into_iter()
                            .map(|i| match i {
                                Value::String(s) => Ok(s),
                                other => Err(format!("each word of `run` is text, not {other}")),
                            })
                            .collect::<Result<_, _>>()?,
                    ),
                    _ => return Err("`run` is a command line, or a program and its arguments as a list".into()),
                };
                let timeout = match m.get("timeout") {
                    None => COMMAND_TIMEOUT,
                    Some(_) => {
                        let secs = positive(&m, "timeout")?.min(1e9);
                        if secs == 0.0 {
                            return Err("`timeout` of `Command` is a number of seconds above zero".into());
                        }
                        Duration::from_secs_f64(secs)
                    }
                };
                JudgeSpec::Command { run, timeout }
            }
            "LLMJudge" => {
                let m = named("rubric");
                known(&m, &["rubric", "model", "include_input", "include_expected_output"])?;
                let model = match m.get("model") {
                    None | Some(Value::Null) => None,
                    Some(_) => Some(text(&m, "model")?),
                };
                JudgeSpec::LlmJudge {
                    rubric: text(&m, "rubric")?,
                    model,
                    include_input: flag(&m, "include_input", false)?,
                    include_expected_output: flag(&m, "include_expected_output", false)?,
                }
            }
            other => return Err(format!("no judge is named `{other}` (there are {NAMES})")),
        })
    }

    /// The keyword arguments, as files write them.
    fn arguments(&self) -> Option<Value> {
        match self {
            JudgeSpec::EqualsExpected => None,
            JudgeSpec::Equals { value } => Some(json!({ "value": value })),
            JudgeSpec::Contains { value, case_sensitive, as_strings } => {
                Some(json!({ "value": value, "case_sensitive": case_sensitive, "as_strings": as_strings }))
            }
            JudgeSpec::Regex { pattern } => Some(json!({ "pattern": pattern })),
            JudgeSpec::Numeric { value, tolerance } => Some(match value {
                Some(v) => json!({ "value": v, "tolerance": tolerance }),
                None => json!({ "tolerance": tolerance }),
            }),
            JudgeSpec::JsonSchema { schema } => Some(json!({ "schema": schema })),
            JudgeSpec::IsInstance { type_name } => Some(json!({ "type_name": type_name })),
            JudgeSpec::ToolTrajectory { calls, how, threshold } => {
                Some(json!({ "calls": calls, "match": how, "threshold": threshold }))
            }
            JudgeSpec::MaxDuration { seconds } => Some(json!({ "seconds": seconds })),
            JudgeSpec::MaxTokens { tokens } => Some(json!({ "tokens": tokens })),
            JudgeSpec::MaxCost { usd } => Some(json!({ "usd": usd })),
            JudgeSpec::Command { run, timeout } => {
                let run = match run {
                    CommandLine::Shell(line) => json!(line),
                    CommandLine::Args(args) => json!(args),
                };
                Some(json!({ "run": run, "timeout": timeout.as_secs_f64() }))
            }
            JudgeSpec::LlmJudge { rubric, model, include_input, include_expected_output } => {
                let mut args = json!({
                    "rubric": rubric,
                    "include_input": include_input,
                    "include_expected_output": include_expected_output,
                });
                if let (Some(model), Value::Object(m)) = (model, &mut args) {
                    m.insert("model".into(), json!(model));
                }
                Some(args)
            }
        }
    }
}

impl<'de> Deserialize<'de> for JudgeSpec {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let (name, args) = match Value::deserialize(deserializer)? {
            Value::String(name) => (name, None),
            Value::Object(m) if m.len() == 1 => {
                let (name, args) = m.into_iter().next().unwrap_or_default();
                (name, Some(args))
            }
            other => {
                return Err(D::Error::custom(format!(
                    "a judge is a name (`EqualsExpected`) or a name with its arguments (`Contains: Paris`), not {other}"
                )));
            }
        };
        JudgeSpec::from_parts(&name, args).map_err(D::Error::custom)
    }
}

impl Serialize for JudgeSpec {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.arguments() {
            None => serializer.serialize_str(self.name()),
            Some(args) => Map::from_iter([(self.name().to_string(), args)]).serialize(serializer),
        }
    }
}

impl schemars::JsonSchema for JudgeSpec {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "JudgeSpec".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let one = |name: &str, args: Value| json!({"type": "object", "properties": {name: args}, "required": [name], "additionalProperties": false});
        schemars::json_schema!({
            "description": "A judge: its name, or its name with one argument or with its keyword arguments.",
            "oneOf": [
                {"const": "EqualsExpected"},
                one("Equals", json!({})),
                one("Contains", json!({"description": "the value, or {value, case_sensitive, as_strings}"})),
                one("Regex", json!({"description": "the pattern, or {pattern}"})),
                one("Numeric", json!({"description": "the tolerance, or {value, tolerance}"})),
                one("JsonSchema", json!({"description": "the schema, or {schema}"})),
                one("IsInstance", json!({"description": "the type name, or {type_name}"})),
                one("ToolTrajectory", json!({"description": "the calls expected ([{name, arguments}]), or {calls, match: exact | in_order | any_order | f1, threshold}"})),
                one("MaxDuration", json!({"description": "the longest run that passes in seconds, or {seconds}", "oneOf": [{"type": "number", "minimum": 0}, {"type": "string", "description": "an ISO 8601 duration, as pydantic writes a timedelta: PT1.5S"}, {"type": "object", "properties": {"seconds": {"type": ["number", "string"], "minimum": 0}}, "required": ["seconds"], "additionalProperties": false}]})),
                one("MaxTokens", json!({"description": "the most tokens that pass, or {tokens}", "oneOf": [{"type": "integer", "minimum": 0}, {"type": "object", "properties": {"tokens": {"type": "integer", "minimum": 0}}, "required": ["tokens"], "additionalProperties": false}]})),
                one("MaxCost", json!({"description": "the highest cost that passes in US dollars, or {usd}", "oneOf": [{"type": "number", "minimum": 0}, {"type": "object", "properties": {"usd": {"type": "number", "minimum": 0}}, "required": ["usd"], "additionalProperties": false}]})),
                one("Command", json!({
                    "description": "a command run in the case's project folder after the agent ran, passing on exit 0: a line for `sh -c`, a program and its arguments, or {run, timeout (seconds, default 60)}",
                    "oneOf": [
                        {"type": "string"},
                        {"type": "array", "items": {"type": "string"}, "minItems": 1},
                        {"type": "object", "properties": {
                            "run": {"oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}, "minItems": 1}]},
                            "timeout": {"type": "number", "exclusiveMinimum": 0}
                        }, "required": ["run"], "additionalProperties": false}
                    ]
                })),
                one("LLMJudge", json!({
                    "description": "a model grades the output against a rubric (pydantic-evals' LLMJudge): the rubric, or {rubric, model: provider:model, include_input, include_expected_output}",
                    "oneOf": [
                        {"type": "string"},
                        {"type": "object", "properties": {
                            "rubric": {"type": "string"},
                            "model": {"type": ["string", "null"]},
                            "include_input": {"type": "boolean"},
                            "include_expected_output": {"type": "boolean"}
                        }, "required": ["rubric"], "additionalProperties": false}
                    ]
                })),
            ]
        })
    }
}

/// Seconds of an ISO 8601 duration as pydantic writes a `timedelta` (`PT1.5S`,
/// `P1DT2H3M4.5S`, `P2W`); `None` for anything else, a negative one included.
fn iso_duration(text: &str) -> Option<f64> {
    let rest = text.strip_prefix('P')?;
    let (date, time) = rest.split_once('T').unwrap_or((rest, ""));
    if rest.is_empty() || rest.ends_with('T') {
        return None;
    }
    let mut total = 0.0;
    for (part, units) in
        [(date, &[('W', 604_800.0), ('D', 86_400.0)][..]), (time, &[('H', 3600.0), ('M', 60.0), ('S', 1.0)][..])]
    {
        let mut part = part;
        for (unit, scale) in units {
            if let Some(at) = part.find(*unit) {
                let n: f64 = part[..at].parse().ok().filter(|n: &f64| n.is_finite() && *n >= 0.0)?;
                total += n * scale;
                part = &part[at + 1..];
            }
        }
        if !part.is_empty() {
            return None;
        }
    }
    Some(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judge(spec: &str) -> JudgeSpec {
        serde_norway::from_str(spec).unwrap()
    }

    #[test]
    fn a_judge_that_does_not_read_says_why() {
        let bad = |spec: &str| serde_norway::from_str::<JudgeSpec>(spec).unwrap_err().to_string();
        assert!(bad("Containz: a").contains("no judge is named `Containz`"));
        assert!(bad("Regex: '('").contains("does not read"));
        assert!(bad("Contains: {value: a, case_sensitive: maybe}").contains("true or false"));
        assert!(bad("Numeric: {tolerance: -1}").contains("zero or more"));
        assert!(bad("Equals: {value: 1, extra: 2}").contains("takes no `extra`"));
        assert!(bad("[1, 2]").contains("a judge is a name"));
        assert!(bad("MaxDuration: soon").contains("zero or more"));
        assert!(bad("MaxTokens: 1.5").contains("whole number"));
        assert!(bad("Command: []").contains("a command line"));
        assert!(bad("Command: {run: 'true', timeout: 0}").contains("above zero"));
        assert!(bad("LLMJudge: {rubric: x, score: false}").contains("takes no `score`"));
        assert!(bad("LLMJudge: {include_input: true}").contains("needs `rubric`"));
    }

    #[test]
    fn each_form_of_the_new_judges_reads() {
        assert_eq!(judge("MaxDuration: 1.5"), JudgeSpec::MaxDuration { seconds: 1.5 });
        assert_eq!(judge("MaxDuration: {seconds: 2}"), JudgeSpec::MaxDuration { seconds: 2.0 });
        // As pydantic-evals 2.62 writes `MaxDuration(seconds=timedelta(...))`.
        assert_eq!(judge("MaxDuration: PT1.5S"), JudgeSpec::MaxDuration { seconds: 1.5 });
        assert_eq!(judge("MaxDuration: PT2M0.005S"), JudgeSpec::MaxDuration { seconds: 120.005 });
        assert_eq!(judge("MaxDuration: {seconds: P1DT1H}"), JudgeSpec::MaxDuration { seconds: 90_000.0 });
        assert_eq!(judge("MaxDuration: P1W"), JudgeSpec::MaxDuration { seconds: 604_800.0 });
        for bad in ["PT", "P", "PT-1S", "PT1X", "1S", "PT1S2"] {
            let e = serde_norway::from_str::<JudgeSpec>(&format!("MaxDuration: {bad}")).unwrap_err().to_string();
            assert!(e.contains("ISO 8601"), "{bad}: {e}");
        }
        assert_eq!(judge("MaxTokens: 100"), JudgeSpec::MaxTokens { tokens: 100 });
        assert_eq!(judge("MaxCost: {usd: 0.5}"), JudgeSpec::MaxCost { usd: 0.5 });
        let shell = CommandLine::Shell("pytest -q".into());
        assert_eq!(judge("Command: pytest -q"), JudgeSpec::Command { run: shell.clone(), timeout: COMMAND_TIMEOUT });
        assert_eq!(
            judge("Command: {run: pytest -q, timeout: 5}"),
            JudgeSpec::Command { run: shell, timeout: Duration::from_secs(5) }
        );
        let args = CommandLine::Args(vec!["pytest".into(), "-q".into()]);
        assert_eq!(judge("Command: {run: [pytest, -q]}"), JudgeSpec::Command { run: args, timeout: COMMAND_TIMEOUT });
        assert_eq!(
            judge("LLMJudge: Is polite"),
            JudgeSpec::LlmJudge {
                rubric: "Is polite".into(),
                model: None,
                include_input: false,
                include_expected_output: false
            }
        );
        assert_eq!(
            judge("LLMJudge: {rubric: r, model: 'openai:gpt-4o', include_input: true}"),
            JudgeSpec::LlmJudge {
                rubric: "r".into(),
                model: Some("openai:gpt-4o".into()),
                include_input: true,
                include_expected_output: false
            }
        );
    }

    #[test]
    fn judges_write_back_as_they_read() {
        for spec in [
            "EqualsExpected",
            "Contains: {value: a, case_sensitive: false}",
            "Numeric: {value: 1.5, tolerance: 0.1}",
            "MaxDuration: 3",
            "MaxTokens: 10",
            "MaxCost: 0.25",
            "Command: {run: [make, test], timeout: 1.5}",
            "Command: make test",
            "LLMJudge: {rubric: r, model: 'openai:gpt-4o', include_expected_output: true}",
            "LLMJudge: r",
        ] {
            let j = judge(spec);
            let again: JudgeSpec = serde_json::from_value(serde_json::to_value(&j).unwrap()).unwrap();
            assert_eq!(again, j, "{spec}");
            let yaml = serde_norway::to_string(&j).unwrap();
            assert_eq!(serde_norway::from_str::<JudgeSpec>(&yaml).unwrap(), j, "{spec} as {yaml}");
        }
    }
}
