//! Elicitation: a server asking Lucid's user for input in the middle of a request
//! (`elicitation/create`).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use rmcp::model::{ElicitRequestParams, ElicitResult, ElicitationAction, JsonObject};
use serde_json::Value;

/// What the user answered to a server's question.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Elicited {
    /// The user answered: the fields of the requested schema they filled in. Fields they
    /// left out that have a `default` in the schema are filled with it before the answer
    /// is sent (SEP-1034).
    Accept(JsonObject),
    /// The user refused to answer; the server's operation goes on without the answer.
    Decline,
    /// The user dismissed the question without choosing.
    Cancel,
}

/// A server's question: who asks, what, and the form of the expected answer.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Elicitation {
    /// The server's name.
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
    /// let q = lucid::mcp::Elicitation::new("files", "Which folder?", serde_json::json!({"type": "object"}));
    /// assert_eq!(q.server, "files");
    /// ```
    pub fn new(server: impl Into<String>, message: impl Into<String>, schema: Value) -> Self {
        Elicitation { server: server.into(), message: message.into(), schema }
    }
}

/// Answers servers' `elicitation/create` requests for the user, e.g. by asking at a
/// terminal. Given to [`McpServer::elicitation`](super::McpServer::elicitation), it makes
/// Lucid declare the `elicitation` capability; without one, Lucid declares none and
/// declines any request.
///
/// ```
/// use lucid::mcp::{Elicitation, Elicited, Elicitor};
///
/// /// Accepts every question with the schema's defaults.
/// struct Defaults;
///
/// impl Elicitor for Defaults {
///     fn elicit(&self, _question: Elicitation) -> lucid::mcp::ElicitFuture<'_> {
///         Box::pin(async { Elicited::Accept(Default::default()) })
///     }
/// }
/// let server = lucid::mcp::McpServer::http("http://127.0.0.1:3001/mcp").elicitation(Defaults);
/// # let _ = server;
/// ```
pub trait Elicitor: Send + Sync + 'static {
    /// Asks the user, and says what they answered.
    fn elicit(&self, question: Elicitation) -> ElicitFuture<'_>;
}

/// The future an [`Elicitor`] returns.
pub type ElicitFuture<'a> = Pin<Box<dyn Future<Output = Elicited> + Send + 'a>>;

/// An [`Elicitor`] shared by a server's connections.
#[derive(Clone)]
pub(crate) struct SharedElicitor(pub(crate) Arc<dyn Elicitor>);

impl std::fmt::Debug for SharedElicitor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Elicitor")
    }
}

/// Answers one `elicitation/create` request from server `server`: form requests go to the
/// elicitor (defaults filled in on accept); URL requests are declined (Lucid opens no page
/// for a server).
pub(crate) async fn answer(elicitor: &dyn Elicitor, server: &str, request: ElicitRequestParams) -> ElicitResult {
    let (message, schema) = match request {
        ElicitRequestParams::FormElicitationParams { message, requested_schema, .. } => {
            (message, serde_json::to_value(requested_schema).unwrap_or(Value::Null))
        }
        _ => {
            tracing::warn!(server, "declined a URL elicitation: Lucid opens no page for an MCP server");
            return ElicitResult::new(ElicitationAction::Decline);
        }
    };
    let question = Elicitation::new(server, message, schema);
    let schema = question.schema.clone();
    match elicitor.elicit(question).await {
        Elicited::Accept(mut content) => {
            fill_defaults(&mut content, &schema);
            ElicitResult::new(ElicitationAction::Accept).with_content(Value::Object(content))
        }
        Elicited::Decline => ElicitResult::new(ElicitationAction::Decline),
        Elicited::Cancel => ElicitResult::new(ElicitationAction::Cancel),
    }
}

/// Fills each property of `schema` missing from `content` with its `default`, when it has
/// one (SEP-1034).
pub fn fill_defaults(content: &mut JsonObject, schema: &Value) {
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
        let mut content = JsonObject::new();
        content.insert("age".into(), 41.into());
        fill_defaults(&mut content, &schema);
        assert_eq!(Value::Object(content), serde_json::json!({"name": "John Doe", "age": 41}));
    }
}
