//! Where one turn stands, and the record of each call it made.

use std::time::Duration;

use serde_json::Value;

use crate::agent::machine::TurnState;
use crate::agent::{AgentConfig, Spend, ToolCallRecord};
use crate::approval::Approvals;
use crate::hooks::HookContext;
use crate::message::{FinishReason, ToolCall, Usage};
use crate::tool::ToolOutcome;

/// Where one turn stands.
pub(super) struct RunState {
    /// The turn's state machine: every decision of the turn.
    pub turn: TurnState,
    pub content: String,
    pub records: Vec<ToolCallRecord>,
    pub usage: Usage,
    pub finish_reason: Option<FinishReason>,
    /// Questions for the user from `ask_user` calls nobody could answer.
    pub questions: Vec<String>,
    /// Calls a hook deferred, waiting unanswered.
    pub deferred: Vec<ToolCall>,
    /// The model that gave the last answer (`provider:model`).
    pub model: Option<String>,
    /// Usage per answering model.
    pub model_usage: std::collections::BTreeMap<String, Usage>,
    /// The turn's cost so far; `None` once a call of an unpriced model was made.
    pub cost: Option<f64>,
    /// What the session spent before this turn.
    pub session: Spend,
}

impl Default for RunState {
    fn default() -> Self {
        RunState {
            turn: TurnState::default(),
            content: String::new(),
            records: Vec::new(),
            usage: Usage::default(),
            finish_reason: None,
            questions: Vec::new(),
            deferred: Vec::new(),
            model: None,
            model_usage: Default::default(),
            cost: Some(0.0),
            session: Spend::default(),
        }
    }
}

impl RunState {
    pub fn hook_context<'a>(
        &self,
        config: &'a AgentConfig,
        session_id: Option<&'a str>,
        owner: Option<&'a str>,
        approvals: &'a Approvals,
    ) -> HookContext<'a> {
        HookContext {
            session_id,
            owner,
            agent: config.name.as_deref(),
            iteration: self.turn.iterations,
            usage: self.usage,
            approvals,
            cost_usd: self.cost,
            prompt_tokens: None,
            prompt_cost_usd: None,
            session: self.session,
            messages: &[],
        }
    }

    /// Counts `usage` of the model `label` in the turn's cost.
    pub fn add_cost(&mut self, config: &AgentConfig, label: &str, usage: &Usage) {
        self.cost = match (self.cost, config.prices.cost(label, usage)) {
            (Some(a), Some(b)) => Some(a + b),
            _ => None,
        };
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
