//! A tool call's host in an agent's run: progress and logs to `tracing` (progress also an
//! event of a streamed run), questions to the agent's elicitor.

use std::sync::{Arc, PoisonError};

use futures::FutureExt;
use futures::future::BoxFuture;
use serde_json::Value;

use super::stream::EventQueue;
use crate::agent::AgentEvent;
use crate::tool::{Elicitation, Elicited, Elicitor, ToolError, ToolHost, fill_defaults, trace_progress};

/// The host of one call.
pub(super) struct RunHost {
    pub id: String,
    pub name: String,
    /// The streamed run's events, when it is streamed.
    pub events: Option<Arc<EventQueue>>,
    pub elicitor: Option<Arc<dyn Elicitor>>,
}

impl ToolHost for RunHost {
    fn progress<'a>(&'a self, done: f64, total: Option<f64>, message: Option<&'a str>) -> BoxFuture<'a, ()> {
        trace_progress(done, total, message);
        if let Some(queue) = &self.events {
            let event = AgentEvent::ToolProgress {
                id: self.id.clone(),
                name: self.name.clone(),
                done,
                total,
                message: message.map(str::to_string),
            };
            queue.lock().unwrap_or_else(PoisonError::into_inner).push_back(event);
        }
        async {}.boxed()
    }

    fn elicit(&self, message: String, schema: Value) -> BoxFuture<'_, Result<Elicited, ToolError>> {
        async move {
            let Some(elicitor) = &self.elicitor else { return Err(ToolError::needs_input(vec![message])) };
            match elicitor.elicit(Elicitation::new(self.name.clone(), message, schema.clone())).await {
                Elicited::Accept(mut content) => {
                    fill_defaults(&mut content, &schema);
                    Ok(Elicited::Accept(content))
                }
                other => Ok(other),
            }
        }
        .boxed()
    }
}
