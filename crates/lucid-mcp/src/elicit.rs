//! Elicitation: a server asking Lucid's user for input in the middle of a request
//! (`elicitation/create`), answered by an [`Elicitor`] (the types live in [`lucid::tool`]).

use std::sync::Arc;

use rmcp::model::{ElicitRequestParams, ElicitResult, ElicitationAction};
use serde_json::Value;

pub use lucid::tool::{ElicitFuture, Elicitation, Elicited, Elicitor, fill_defaults};

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
        // An answer of a kind this version does not know is no consent.
        _ => ElicitResult::new(ElicitationAction::Decline),
    }
}
