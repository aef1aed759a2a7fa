//! `{{ path }}` templates and conditions over a workflow's values.
//!
//! The scope is one JSON object: `input` holds the workflow's inputs and every finished
//! step's output sits under the step's name. A path is dotted: `input.topic`,
//! `review.score`, `items.0`.

use std::sync::Arc;

use serde_json::{Map, Value};

/// The value at a dotted path, if there is one.
///
/// ```
/// let scope = serde_json::json!({"input": {"topic": "owls"}, "list": ["a", "b"]});
/// let scope = scope.as_object().unwrap();
/// assert_eq!(lucid_orchestrate::workflow::lookup(scope, "input.topic"), Some(&serde_json::json!("owls")));
/// assert_eq!(lucid_orchestrate::workflow::lookup(scope, "list.1"), Some(&serde_json::json!("b")));
/// assert_eq!(lucid_orchestrate::workflow::lookup(scope, "input.nope"), None);
/// ```
pub fn lookup<'a>(scope: &'a Map<String, Value>, path: &str) -> Option<&'a Value> {
    let mut parts = path.split('.');
    let mut at = scope.get(parts.next()?.trim())?;
    for part in parts {
        let part = part.trim();
        at = match at {
            Value::Object(m) => m.get(part)?,
            Value::Array(a) => a.get(part.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(at)
}

/// Fills every `{{ path }}` of `template` from the scope: strings as they are, other
/// values as JSON. A path that does not resolve is an error naming it.
///
/// ```
/// let scope = serde_json::json!({"input": {"topic": "owls"}, "outline": {"parts": 3}});
/// let text = lucid_orchestrate::workflow::render("Write {{input.topic}} in {{ outline.parts }} parts", scope.as_object().unwrap());
/// assert_eq!(text.unwrap(), "Write owls in 3 parts");
/// assert!(lucid_orchestrate::workflow::render("{{missing}}", scope.as_object().unwrap()).unwrap_err().contains("`missing`"));
/// ```
pub fn render(template: &str, scope: &Map<String, Value>) -> Result<String, String> {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let end = after.find("}}").ok_or_else(|| format!("unclosed `{{{{` in template: {template}"))?;
        let path = after[..end].trim();
        match lookup(scope, path) {
            Some(Value::String(s)) => out.push_str(s),
            Some(v) => out.push_str(&v.to_string()),
            None => return Err(unknown(path, scope)),
        }
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Renders every string inside `value`; a string that is exactly one `{{ path }}` takes
/// the value at the path as it is (a number stays a number).
pub(crate) fn render_value(value: &Value, scope: &Map<String, Value>) -> Result<Value, String> {
    Ok(match value {
        Value::String(s) => {
            let t = s.trim();
            match t.strip_prefix("{{").and_then(|x| x.strip_suffix("}}")) {
                Some(path) if !path.contains("{{") && !path.contains("}}") => {
                    lookup(scope, path.trim()).cloned().ok_or_else(|| unknown(path.trim(), scope))?
                }
                _ => Value::String(render(s, scope)?),
            }
        }
        Value::Array(a) => Value::Array(a.iter().map(|v| render_value(v, scope)).collect::<Result<_, _>>()?),
        Value::Object(m) => Value::Object(
            m.iter().map(|(k, v)| Ok((k.clone(), render_value(v, scope)?))).collect::<Result<_, String>>()?,
        ),
        other => other.clone(),
    })
}

fn unknown(path: &str, scope: &Map<String, Value>) -> String {
    let known: Vec<&str> = scope.keys().map(String::as_str).collect();
    format!("the template refers to `{path}`, which is not set (known: {})", known.join(", "))
}

/// A test over the workflow's values, for branches and loops.
///
/// ```
/// use lucid_orchestrate::workflow::Condition;
/// let scope = serde_json::json!({"review": "LGTM, APPROVED", "score": {"value": 8}});
/// let scope = scope.as_object().unwrap();
/// assert!(Condition::contains("review", "APPROVED").test(scope));
/// assert!(Condition::equals("score.value", 8).test(scope));
/// assert!(!Condition::truthy("missing").test(scope));
/// assert!(Condition::func(|s| s.contains_key("review")).test(scope));
/// assert!((!Condition::truthy("missing")).test(scope));
/// ```
#[derive(Clone)]
#[non_exhaustive]
pub enum Condition {
    /// The value at the path equals this value (strings compare trimmed and case-blind).
    Equals(String, Value),
    /// The value at the path, as text, contains this text (case-blind).
    Contains(String, String),
    /// The value at the path is set and not `false`, `null`, `0`, `""`, `[]` or `{}`.
    Truthy(String),
    /// The inner condition is false.
    Not(Box<Condition>),
    /// A Rust test.
    Func(ScopeTest),
}

/// A Rust test over the scope.
pub type ScopeTest = Arc<dyn Fn(&Map<String, Value>) -> bool + Send + Sync>;

/// `!condition` is true when `condition` is false.
impl std::ops::Not for Condition {
    type Output = Condition;

    fn not(self) -> Condition {
        Condition::Not(Box::new(self))
    }
}

impl std::fmt::Debug for Condition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Condition::Equals(p, v) => write!(f, "{p} == {v}"),
            Condition::Contains(p, t) => write!(f, "{p} contains {t:?}"),
            Condition::Truthy(p) => write!(f, "{p}"),
            Condition::Not(c) => write!(f, "not ({c:?})"),
            Condition::Func(_) => f.write_str("<closure>"),
        }
    }
}

impl Condition {
    /// [`Condition::Equals`].
    pub fn equals(path: impl Into<String>, value: impl Into<Value>) -> Self {
        Condition::Equals(path.into(), value.into())
    }

    /// [`Condition::Contains`].
    pub fn contains(path: impl Into<String>, text: impl Into<String>) -> Self {
        Condition::Contains(path.into(), text.into())
    }

    /// [`Condition::Truthy`].
    pub fn truthy(path: impl Into<String>) -> Self {
        Condition::Truthy(path.into())
    }

    /// [`Condition::Func`].
    pub fn func(test: impl Fn(&Map<String, Value>) -> bool + Send + Sync + 'static) -> Self {
        Condition::Func(Arc::new(test))
    }

    /// Evaluates the condition.
    pub fn test(&self, scope: &Map<String, Value>) -> bool {
        match self {
            Condition::Equals(path, want) => match (lookup(scope, path), want) {
                (Some(Value::String(a)), Value::String(b)) => a.trim().eq_ignore_ascii_case(b.trim()),
                (Some(Value::Number(a)), Value::Number(b)) => a.as_f64() == b.as_f64(),
                (Some(a), b) => a == b,
                (None, b) => b.is_null(),
            },
            Condition::Contains(path, text) => {
                let text = text.to_lowercase();
                match lookup(scope, path) {
                    Some(Value::String(s)) => s.to_lowercase().contains(&text),
                    Some(v) => v.to_string().to_lowercase().contains(&text),
                    None => false,
                }
            }
            Condition::Truthy(path) => match lookup(scope, path) {
                None | Some(Value::Null) | Some(Value::Bool(false)) => false,
                Some(Value::Number(n)) => n.as_f64() != Some(0.0),
                Some(Value::String(s)) => !s.trim().is_empty(),
                Some(Value::Array(a)) => !a.is_empty(),
                Some(Value::Object(m)) => !m.is_empty(),
                Some(Value::Bool(true)) => true,
            },
            Condition::Not(c) => !c.test(scope),
            Condition::Func(f) => f(scope),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_whole_placeholder_keeps_the_value_type() {
        let scope = json!({"input": {"n": 3, "name": "x"}});
        let scope = scope.as_object().unwrap();
        let args = json!({"a": "{{ input.n }}", "b": "n={{input.n}}", "c": ["{{input.name}}"]});
        assert_eq!(render_value(&args, scope).unwrap(), json!({"a": 3, "b": "n=3", "c": ["x"]}));
    }

    #[test]
    fn an_unclosed_placeholder_is_an_error() {
        let scope = Map::new();
        assert!(render("hello {{ name", &scope).unwrap_err().contains("unclosed"));
    }

    #[test]
    fn truthiness_follows_json_emptiness() {
        let scope = json!({"z": 0, "e": "", "a": [1], "f": false});
        let scope = scope.as_object().unwrap();
        assert!(!Condition::truthy("z").test(scope));
        assert!(!Condition::truthy("e").test(scope));
        assert!(Condition::truthy("a").test(scope));
        assert!((!Condition::truthy("f")).test(scope));
    }
}
