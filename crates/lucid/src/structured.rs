//! Structured output: a Rust type's JSON Schema in, a parsed and validated value out.

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::model::ResponseFormat;
use crate::tool::validate::validate;

/// The response format asking for `T`: its JSON Schema, named after the type, strict when
/// the schema meets OpenAI's strict-mode rules (every object closed, every property
/// required).
///
/// ```
/// #[derive(schemars::JsonSchema, serde::Deserialize)]
/// struct Point { x: i64, y: i64 }
/// match lucid::structured::response_format::<Point>() {
///     lucid::model::ResponseFormat::JsonSchema { name, strict, .. } => assert_eq!((name.as_str(), strict), ("Point", false)),
///     _ => unreachable!(),
/// }
/// ```
pub fn response_format<T: JsonSchema>() -> ResponseFormat {
    let mut schema = schemars::SchemaGenerator::default().into_root_schema_for::<T>().to_value();
    if let Value::Object(m) = &mut schema {
        m.remove("$schema");
        m.remove("title");
    }
    let name: String = T::schema_name()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' })
        .take(64)
        .collect();
    let strict = is_strict(&schema);
    ResponseFormat::JsonSchema { name, schema, strict }
}

/// Whether every object in the schema is closed and requires all its properties.
fn is_strict(v: &Value) -> bool {
    match v {
        Value::Object(m) => {
            if let Some(Value::Object(props)) = m.get("properties") {
                let closed = m.get("additionalProperties") == Some(&Value::Bool(false));
                let required: Vec<&str> = m
                    .get("required")
                    .and_then(Value::as_array)
                    .map(|r| r.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                if !closed || props.keys().any(|k| !required.contains(&k.as_str())) {
                    return false;
                }
            }
            m.values().all(is_strict)
        }
        Value::Array(a) => a.iter().all(is_strict),
        _ => true,
    }
}

/// Parses an answer as `T`: JSON (a Markdown code fence around it is accepted), checked
/// against `schema`. The error says what is wrong, for the model to fix.
///
/// ```
/// #[derive(schemars::JsonSchema, serde::Deserialize, Debug, PartialEq)]
/// struct Point { x: i64, y: i64 }
/// let f = lucid::structured::response_format::<Point>();
/// let lucid::model::ResponseFormat::JsonSchema { schema, .. } = f else { unreachable!() };
/// assert_eq!(lucid::structured::parse::<Point>("```json\n{\"x\": 1, \"y\": 2}\n```", &schema), Ok(Point { x: 1, y: 2 }));
/// assert!(lucid::structured::parse::<Point>("{\"x\": 1}", &schema).unwrap_err().contains("missing required property `y`"));
/// ```
pub fn parse<T: DeserializeOwned>(answer: &str, schema: &Value) -> Result<T, String> {
    let text = unfence(answer);
    let value: Value = serde_json::from_str(text).map_err(|e| format!("the answer is not valid JSON ({e})"))?;
    let problems = validate(schema, &value);
    if !problems.is_empty() {
        return Err(problems.join("; "));
    }
    serde_json::from_value(value).map_err(|e| e.to_string())
}

/// The answer's text without a Markdown code fence around it.
fn unfence(answer: &str) -> &str {
    let text = answer.trim();
    text.strip_prefix("```json")
        .or_else(|| text.strip_prefix("```"))
        .and_then(|t| t.trim_end().strip_suffix("```"))
        .unwrap_or(text)
        .trim()
}

/// How an answer in an application's own shape asks the user questions instead of
/// answering: the questions, or `None` for an answer ([`AgentBuilder::questions_in`](crate::AgentBuilder::questions_in)).
///
/// ```
/// let shape: lucid::structured::QuestionsOf = std::sync::Arc::new(|answer: &str| {
///     answer.strip_prefix("QUESTION: ").map(|q| vec![q.to_string()])
/// });
/// assert_eq!(shape("QUESTION: which table?"), Some(vec!["which table?".to_string()]));
/// ```
pub type QuestionsOf = std::sync::Arc<dyn Fn(&str) -> Option<Vec<String>> + Send + Sync>;

/// The questions `answer` asks instead of answering: the library's shape
/// ([`Interview::detect`]), else the application's (`questions`).
pub(crate) fn questions_in(answer: &str, questions: Option<&QuestionsOf>) -> Option<Vec<String>> {
    Interview::detect(answer).map(|i| i.questions).or_else(|| questions.and_then(|q| q(answer)))
}

/// The JSON protocol's way for a model to say it cannot answer yet:
/// `{"needs_interview": true, "questions": ["…", "…"]}`. Agents with tools use the
/// `ask_user` tool ([`crate::tool::AskUser`]) for the same purpose; this shape serves
/// prompts that ask for a JSON answer and allow this one instead.
///
/// ```
/// use lucid::structured::Interview;
/// let i = Interview::detect(r#"{"needs_interview": true, "questions": ["For whom?"]}"#).unwrap();
/// assert_eq!(i.questions, ["For whom?"]);
/// assert!(Interview::detect(r#"{"needs_interview": false, "questions": []}"#).is_none());
/// assert!(Interview::detect("Paris").is_none());
/// // An application's own shape is its own: `AgentBuilder::questions_in`.
/// let other = r#"{"text": "I need details.", "metadata": {"needsInterview": true, "questions": ["Which database?"]}}"#;
/// assert!(Interview::detect(other).is_none());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, JsonSchema)]
pub struct Interview {
    /// True when the model needs answers before it can do the task.
    pub needs_interview: bool,
    /// What to ask the user.
    #[serde(default)]
    pub questions: Vec<String>,
}

impl Interview {
    /// The interview an answer asks for, if it is one (`needs_interview: true` with at
    /// least one question; a Markdown code fence around it is accepted).
    pub fn detect(answer: &str) -> Option<Interview> {
        let text = unfence(answer);
        if !text.starts_with('{') {
            return None;
        }
        let v: Value = serde_json::from_str(text).ok()?;
        let flag = v.get("needs_interview")?.as_bool()?;
        let questions: Vec<String> = v
            .get("questions")?
            .as_array()?
            .iter()
            .filter_map(|q| q.as_str().map(str::trim).filter(|q| !q.is_empty()).map(str::to_string))
            .collect();
        (flag && !questions.is_empty()).then_some(Interview { needs_interview: true, questions })
    }
}
