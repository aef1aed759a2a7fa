//! Where one turn stands, and the record of each call it made.

use std::time::Duration;

use serde_json::Value;

use crate::agent::hooks::HookContext;
use crate::agent::{AgentConfig, ToolCallRecord};
use crate::approval::Approvals;
use crate::message::{FinishReason, ToolCall, Usage};
use crate::model::ChatOptions;
use crate::tool::ToolOutcome;

/// Where one turn stands.
#[derive(Default)]
pub(super) struct RunState {
    pub content: String,
    pub records: Vec<ToolCallRecord>,
    pub iterations: usize,
    pub usage: Usage,
    pub finish_reason: Option<FinishReason>,
    /// Options for this run only (structured output).
    pub options: Option<ChatOptions>,
    /// A structured run with tools: the options of its report call, made once the model
    /// answers without calling a tool (until then, calls carry no format).
    pub report: Option<ChatOptions>,
    /// The report call is under way: no tools are offered.
    pub reporting: bool,
    /// A tighter token budget after the provider said the request was over its window
    /// (set once per run: a second such error is reported).
    pub cap: Option<usize>,
    /// Questions for the user from `ask_user` calls nobody could answer.
    pub questions: Vec<String>,
    /// Calls a hook deferred, waiting unanswered.
    pub deferred: Vec<ToolCall>,
    /// Why the turn stopped, in words.
    pub stop_message: Option<String>,
    /// The model that gave the last answer (`provider:model`).
    pub model: Option<String>,
    /// Usage per answering model.
    pub model_usage: std::collections::BTreeMap<String, Usage>,
}

impl RunState {
    pub fn hook_context<'a>(
        &self,
        config: &'a AgentConfig,
        session_id: Option<&'a str>,
        approvals: &'a Approvals,
    ) -> HookContext<'a> {
        HookContext {
            session_id,
            agent: config.name.as_deref(),
            iteration: self.iterations,
            usage: self.usage,
            approvals,
        }
    }
}

/// The record of a call; without an outcome, a call that did not run.
pub(super) fn record(c: &ToolCall, outcome: Option<&ToolOutcome>, elapsed: Option<Duration>) -> ToolCallRecord {
    ToolCallRecord {
        id: c.id.clone(),
        name: c.name.clone(),
        arguments: c.parse_arguments().unwrap_or_else(|_| Value::String(c.arguments.clone())),
        output: outcome.map(|o| o.content.clone()),
        is_error: outcome.is_some_and(|o| o.is_error),
        duration: elapsed,
    }
}
