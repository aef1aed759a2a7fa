//! Elicitation: someone (an MCP server, or a running tool through
//! [`ToolContext::elicit`](super::ToolContext::elicit)) asking the user for a few typed
//! values, and an [`Elicitor`] answering for the user.

use std::future::Future;
use std::pin::Pin;

use serde_json::{Map, Value};

/// What the user answered to a question.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Elicited {
    /// The user answered: the fields of the requested schema they filled in. Fields they
    /// left out that have a `default` in the schema are filled with it before the answer
    /// is used (SEP-1034).
    Accept(Map<String, Value>),
    /// The user refused to answer; the operation goes on without the answer.
    Decline,
    /// The user dismissed the question without choosing.
    Cancel,
}

/// A question: who asks, what, and the form of the expected answer.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Elicitation {
    /// Who asks: the MCP server's name, or the tool's name when a tool asks.
    pub server: String,
    /// The message to show the user.
    pub message: String,
    /// The requested schema: a JSON Schema object whose properties are strings, numbers,
    /// integers, booleans or enums, each maybe with a `title`, `description` and `default`.
    pub schema: Value,
}

impl Elicitation {
    /// A question from `server`, with its message and requested schema.
    ///
    /// ```
    /// let q = lucid::tool::Elicitation::new("files", "Which folder?", serde_json::json!({"type": "object"}));
    /// assert_eq!(q.server, "files");
    /// ```
    pub fn new(server: impl Into<String>, message: impl Into<String>, schema: Value) -> Self {
        Elicitation { server: server.into(), message: message.into(), schema }
    }
}

/// Answers questions for the user, e.g. by asking at a terminal: MCP servers'
/// `elicitation/create` requests (given to `McpServer::elicitation`, it makes Lucid
/// declare the `elicitation` capability; without one, Lucid declares none and declines),
/// and the questions an agent's tools ask ([`AgentBuilder::elicitor`]).
///
/// [`AgentBuilder::elicitor`]: crate::AgentBuilder::elicitor
///
/// ```
/// use lucid::tool::{Elicitation, Elicited, Elicitor};
///
/// /// Accepts every question with the schema's defaults.
/// struct Defaults;
///
/// impl Elicitor for Defaults {
///     fn elicit(&self, _question: Elicitation) -> lucid::tool::ElicitFuture<'_> {
///         Box::pin(async { Elicited::Accept(Default::default()) })
///     }
/// }
/// # let _ = Defaults;
/// ```
pub trait Elicitor: Send + Sync + 'static {
    /// Asks the user, and says what they answered.
    fn elicit(&self, question: Elicitation) -> ElicitFuture<'_>;
}

/// The future an [`Elicitor`] returns.
pub type ElicitFuture<'a> = Pin<Box<dyn Future<Output = Elicited> + Send + 'a>>;

/// Fills each property of `schema` missing from `content` with its `default`, when it has
/// one (SEP-1034).
///
/// ```
/// let schema = serde_json::json!({"properties": {"age": {"type": "integer", "default": 30}}});
/// let mut content = serde_json::Map::new();
/// lucid::tool::fill_defaults(&mut content, &schema);
/// assert_eq!(content["age"], 30);
/// ```
pub fn fill_defaults(content: &mut Map<String, Value>, schema: &Value) {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else { return };
    for (name, property) in properties {
        if let Some(default) = property.get("default")
            && !content.contains_key(name)
        {
            content.insert(name.clone(), default.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_fill_only_the_fields_left_out() {
        let schema = serde_json::json!({"type": "object", "properties": {
            "name": {"type": "string", "default": "John Doe"},
            "age": {"type": "integer", "default": 30},
            "nick": {"type": "string"}
        }});
        let mut content = Map::new();
        content.insert("age".into(), 41.into());
        fill_defaults(&mut content, &schema);
        assert_eq!(Value::Object(content), serde_json::json!({"name": "John Doe", "age": 41}));
    }
}
