//! The judges a dataset names ([`JudgeSpec`]) and their [`Verdict`]s. The shared ones mean
//! what pydantic-evals' evaluators of the same name mean (`EqualsExpected`, `Equals`,
//! `Contains`, `IsInstance`), written the way its files write them: a bare name, or the
//! name with one argument or with its keyword arguments.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value, json};

use crate::trajectory::{self, Call, Match};

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
/// ").unwrap();
/// let out = serde_json::json!("Paris, France");
/// let answer = lucid_eval::Answer::new(&out);
/// let passed: Vec<Option<bool>> = judges.iter().map(|j| j.judge(&answer).map(|v| v.passed)).collect();
/// assert_eq!(passed, [None, Some(true), Some(true), Some(true), None]);
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
    /// `int`, `float`, `bool`, `list`, `dict`, `NoneType`).
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
}

/// What a judge looks at: an agent's answer to a case, and how it got there.
#[derive(Debug, Clone, Copy)]
pub struct Answer<'a> {
    /// The answer: text as a JSON string, or the JSON of a structured answer.
    pub output: &'a Value,
    /// The case's `expected_output`.
    pub expected: Option<&'a Value>,
    /// The tool calls the agent made, in order.
    pub calls: &'a [Call],
}

impl<'a> Answer<'a> {
    /// An answer with nothing expected and no tool calls.
    pub fn new(output: &'a Value) -> Self {
        Answer { output, expected: None, calls: &[] }
    }

    /// With the case's expected output.
    pub fn expected(self, expected: Option<&'a Value>) -> Self {
        Answer { expected, ..self }
    }

    /// With the tool calls made.
    pub fn calls(self, calls: &'a [Call]) -> Self {
        Answer { calls, ..self }
    }
}

/// What a judge says of one output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    /// The judge's name (`Contains`, …).
    pub judge: String,
    /// Whether the output passes.
    pub passed: bool,
    /// Why not, when it fails (and the judge says).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// A score in [0, 1], for judges that give partial credit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
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
        }
    }

    /// The verdict on an answer; `None` when the judge has nothing to say (no expected
    /// output to compare with).
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
                    Ok(_) => Some(format!("Output {} does not match /{pattern}/", repr(&text))),
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
                    None => Some(format!("Output {} is not a number", repr(&as_text(output)))),
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
                let of = python_type(output);
                // As in Python, a bool is an int.
                let passes = of == type_name || (of == "bool" && type_name == "int");
                (!passes).then(|| format!("output is of type {of}"))
            }
            JudgeSpec::ToolTrajectory { calls, how, threshold } => {
                let (score, why) = trajectory::score(answer.calls, calls, *how);
                let failed = (score < *threshold).then(|| why.unwrap_or_default());
                return Some(Verdict { score: Some(score), ..self.verdict(failed) });
            }
        };
        Some(self.verdict(failed))
    }

    fn verdict(&self, failed: Option<String>) -> Verdict {
        Verdict {
            judge: self.name().to_string(),
            passed: failed.is_none(),
            reason: failed.filter(|r| !r.is_empty()),
            score: None,
        }
    }

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
        Ok(match name {
            "EqualsExpected" => {
                known(&kwargs(""), &[""]).map_err(|_| format!("the judge `{name}` takes no arguments"))?;
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
                let pattern = needs(&m, "pattern")?.as_str().map(str::to_string).ok_or("`pattern` is text")?;
                regex::Regex::new(&pattern).map_err(|e| format!("the pattern /{pattern}/ does not read: {e}"))?;
                JudgeSpec::Regex { pattern }
            }
            "Numeric" => {
                let m = kwargs("tolerance");
                known(&m, &["value", "tolerance"])?;
                let tolerance = needs(&m, "tolerance")?.as_f64().filter(|t| *t >= 0.0);
                let tolerance = tolerance.ok_or("`tolerance` is a number of zero or more")?;
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
                let type_name = needs(&m, "type_name")?.as_str().map(str::to_string).ok_or("`type_name` is text")?;
                JudgeSpec::IsInstance { type_name }
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
            other => {
                return Err(format!(
                    "no judge is named `{other}` (there are EqualsExpected, Equals, Contains, Regex, Numeric, JsonSchema, IsInstance, ToolTrajectory)"
                ));
            }
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
            ]
        })
    }
}

/// Equality as Python's `==` on JSON values: numbers by value (`1 == 1.0`).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x == y || x.as_f64().zip(y.as_f64()).is_some_and(|(x, y)| x == y),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// pydantic-evals' `Contains`: the reason it fails, `None` when it passes.
fn contains(output: &Value, value: &Value, case_sensitive: bool, as_strings: bool) -> Option<String> {
    if as_strings || (output.is_string() && value.is_string()) {
        let (mut out, mut want) = (as_text(output), as_text(value));
        if !case_sensitive {
            (out, want) = (out.to_lowercase(), want.to_lowercase());
        }
        return (!out.contains(&want))
            .then(|| format!("Output string {} does not contain expected string {}", repr(&out), repr(&want)));
    }
    match (output, value) {
        (Value::Object(out), Value::Object(want)) => want.iter().find_map(|(k, v)| match out.get(k) {
            None => Some(format!("Output dictionary does not contain expected key {}", repr(k))),
            Some(o) if !same(o, v) => Some(format!("Output dictionary has different value for key {}", repr(k))),
            Some(_) => None,
        }),
        (Value::Object(out), Value::String(k)) => {
            (!out.contains_key(k)).then(|| "Output does not contain provided value as a key".to_string())
        }
        (Value::Array(items), _) => {
            (!items.iter().any(|i| same(i, value))).then(|| "Output does not contain provided value".to_string())
        }
        _ => Some(format!(
            "Containment check failed: Output of type {} does not support containment",
            python_type(output)
        )),
    }
}

/// The output as text: a string as it is, anything else as JSON.
fn as_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A number, or text that reads as one.
fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// The Python type name of a JSON value, as pydantic-evals would see it.
fn python_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "NoneType",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_f64() => "float",
        Value::Number(_) => "int",
        Value::String(_) => "str",
        Value::Array(_) => "list",
        Value::Object(_) => "dict",
    }
}

/// Text quoted for a reason, cut at 100 characters.
fn repr(s: &str) -> String {
    let cut: String = s.chars().take(100).collect();
    if cut.len() < s.len() { format!("'{cut}…'") } else { format!("'{cut}'") }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(passes("Contains: Paris", json!("paris"), None), Some(false));
        assert_eq!(passes("Contains: {value: Paris, case_sensitive: false}", json!("in paris"), None), Some(true));
        assert_eq!(passes("Contains: {value: {a: 1}}", json!({"a": 1, "b": 2}), None), Some(true));
        assert_eq!(passes("Contains: {value: {a: 2}}", json!({"a": 1}), None), Some(false));
        assert_eq!(passes("Contains: a", json!({"a": 1}), None), Some(true), "a key");
        assert_eq!(passes("Contains: 2", json!([1, 2]), None), Some(true), "an item");
        assert_eq!(passes("Contains: 2", json!(12), None), Some(false), "an int holds nothing");
        assert_eq!(passes("Contains: {value: 2, as_strings: true}", json!(12), None), Some(true));
        assert_eq!(passes("IsInstance: int", json!(true), None), Some(true), "a bool is an int");
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

    #[test]
    fn a_judge_that_does_not_read_says_why() {
        let bad = |spec: &str| serde_norway::from_str::<JudgeSpec>(spec).unwrap_err().to_string();
        assert!(bad("Containz: a").contains("no judge is named `Containz`"));
        assert!(bad("Regex: '('").contains("does not read"));
        assert!(bad("Contains: {value: a, case_sensitive: maybe}").contains("true or false"));
        assert!(bad("Numeric: {tolerance: -1}").contains("zero or more"));
        assert!(bad("Equals: {value: 1, extra: 2}").contains("takes no `extra`"));
        assert!(bad("[1, 2]").contains("a judge is a name"));
    }

    #[test]
    fn judges_write_back_as_they_read() {
        for spec in
            ["EqualsExpected", "Contains: {value: a, case_sensitive: false}", "Numeric: {value: 1.5, tolerance: 0.1}"]
        {
            let j = judge(spec);
            let again: JudgeSpec = serde_json::from_value(serde_json::to_value(&j).unwrap()).unwrap();
            assert_eq!(again, j, "{spec}");
        }
    }
}
