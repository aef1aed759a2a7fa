//! Crash recovery and deferred calls: a history that ends with tool calls not all
//! answered, left by a process that died or by a hook that deferred them.

use std::collections::HashSet;

use tokio_util::sync::CancellationToken;

use super::Session;
use super::run_state::RunState;
use super::stream::Events;
use crate::error::{Error, Result};
use crate::message::Message;
use crate::store::DEFERRED_KEY;

impl Session {
    /// Answers the calls a stored history ended with, before anything else of the run:
    /// deferred calls go to the hooks again, idempotent tools run again, the others are
    /// answered "interrupted". The results are written at once. Returns true when
    /// cancelled.
    pub(super) async fn answer_open_calls(
        &mut self,
        token: &CancellationToken,
        events: Events<'_>,
        run: &mut RunState,
    ) -> bool {
        let Some((at, answered)) = open_calls(self.context.messages()) else { return false };
        let Message::Assistant(a) = &self.context.messages()[at] else { return false };
        let calls = a.tool_calls[answered..].to_vec();
        let config = std::sync::Arc::clone(&self.agent.config);
        let not_run: Vec<(String, &str)> = calls
            .iter()
            .filter(|c| !config.tools.is_idempotent(&c.name) && !self.deferred.contains(&c.id))
            .map(|c| (c.id.clone(), crate::history::INTERRUPTED))
            .collect();
        tracing::info!(
            session = self.id.as_deref().unwrap_or_default(),
            rerun = calls.len() - not_run.len(),
            interrupted = not_run.len(),
            "answering the tool calls an earlier run left open"
        );
        let cancelled = self.execute_tools(&config, token, events, &calls, &not_run, run).await;
        self.commit().await;
        cancelled
    }

    /// Keeps the ids of the calls left waiting (none once they are answered), in the
    /// store's metadata for a stored session.
    /// The answers of calls no longer waiting are forgotten, and the time the waiting ones
    /// were deferred kept.
    /// `reviews` are those of calls newly deferred ([`crate::tool::Tool::review`]).
    pub(super) async fn set_deferred(&mut self, ids: Vec<String>, reviews: Vec<(String, String)>) -> Result<()> {
        if ids == self.deferred && reviews.is_empty() {
            return Ok(());
        }
        let at = match (ids.is_empty(), self.deferred.is_empty()) {
            (true, _) => None,
            (false, true) => Some(crate::approval::now_ms()),
            (false, false) => self.approvals.deferred_at(),
        };
        let mut patch = self.approvals.settle(&ids, at);
        for (id, review) in reviews {
            let (key, value) = self.approvals.set_review(&id, review);
            patch.insert(key, value);
        }
        self.deferred = ids;
        let (Some(store), Some(id)) = (&self.agent.config.store, &self.id) else { return Ok(()) };
        self.sync.touched = true;
        patch.insert(DEFERRED_KEY.into(), serde_json::json!(self.deferred));
        store.merge_metadata(id, serde_json::Value::Object(patch)).await.map_err(|e| match e {
            crate::store::StoreError::Failed { store, message, source } => {
                Error::from(crate::store::StoreError::Failed {
                    store,
                    message: format!("the deferred calls of session `{id}` cannot be kept: {message}"),
                    source,
                })
            }
            other => other.into(),
        })
    }
}

/// The ids of deferred calls kept in a stored session's metadata.
pub(super) fn deferred_of(metadata: &serde_json::Value) -> Vec<String> {
    metadata.get(DEFERRED_KEY).and_then(|v| serde_json::from_value(v.clone()).ok()).unwrap_or_default()
}

/// The tool calls that end a history unanswered: the index of the last assistant message
/// and how many of its calls are answered, when fewer than all. Results are pushed in call
/// order, so the answered calls are a prefix; anything else is the repair pass's business.
pub(super) fn open_calls(messages: &[Message]) -> Option<(usize, usize)> {
    let at = messages.iter().rposition(|m| !matches!(m, Message::Tool(_)))?;
    let Message::Assistant(a) = &messages[at] else { return None };
    let results = &messages[at + 1..];
    let in_order = results.iter().zip(&a.tool_calls).all(|(r, c)| matches!(r, Message::Tool(t) if t.call_id == c.id));
    (results.len() < a.tool_calls.len() && in_order).then_some((at, results.len()))
}

/// Whether a history ends with open calls a run can answer as they are: the history
/// before them valid and holding the turn's user message, their ids fresh.
pub(super) fn recoverable(messages: &[Message]) -> bool {
    let Some((at, _)) = open_calls(messages) else { return false };
    let Message::Assistant(a) = &messages[at] else { return false };
    let head = &messages[..at];
    let mut ids = HashSet::new();
    let fresh = a.tool_calls.iter().all(|c| !c.id.is_empty() && ids.insert(c.id.as_str()))
        && !head
            .iter()
            .any(|m| matches!(m, Message::Assistant(h) if h.tool_calls.iter().any(|c| ids.contains(c.id.as_str()))));
    fresh && head.iter().any(|m| matches!(m, Message::User { .. })) && crate::history::validate(head).is_ok()
}
