//! What a run returns: [`AgentResult`], its [`StopReason`] and a [`ToolCallRecord`] per
//! call (also at `lucid::` and `lucid::agent::`). Plain data beside the messages, at the
//! bottom of the library, so any layer may carry one (an error that keeps the turn's
//! result does).

use std::collections::BTreeMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::message::{FinishReason, Usage};

/// Why a run stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum StopReason {
    /// The model answered without asking for tools.
    Completed,
    /// The model asked for more tools after `max_iterations` model calls.
    MaxIterations,
    /// The run was cancelled.
    Cancelled,
    /// The agent asked the user questions nobody could answer during the run (see
    /// [`AgentResult::questions`]); the next user message should carry the answers.
    NeedsInput,
    /// A hook stopped the turn before a model call
    /// ([`ModelCallDecision::Stop`](crate::agent::hooks::ModelCallDecision::Stop));
    /// [`AgentResult::stop_message`] says why.
    Stopped,
    /// A hook deferred a tool call
    /// ([`ToolCallDecision::Defer`](crate::agent::hooks::ToolCallDecision::Defer)): the calls in
    /// [`AgentResult::deferred`] wait, unanswered, for the next `resume`.
    Deferred,
    /// The model's tool call was cut off by the output token limit; the turn ends rather
    /// than ask again (which usually hits the same limit). [`AgentResult::stop_message`]
    /// names the limit.
    OutputLimit,
    /// The next model call would have passed a [budget](crate::agent::budget) (cost, model
    /// calls, tokens; of the run or of the session), so it was not made.
    /// [`AgentResult::stop_message`] names the limit and what was spent.
    BudgetExceeded,
}

impl StopReason {
    /// The snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            StopReason::Completed => "completed",
            StopReason::MaxIterations => "max_iterations",
            StopReason::Cancelled => "cancelled",
            StopReason::NeedsInput => "needs_input",
            StopReason::Stopped => "stopped",
            StopReason::Deferred => "deferred",
            StopReason::OutputLimit => "output_limit",
            StopReason::BudgetExceeded => "budget_exceeded",
        }
    }
}

/// One tool call of a run, executed or not.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct ToolCallRecord {
    /// Call id.
    pub id: String,
    /// Tool name.
    pub name: String,
    /// Arguments as parsed JSON (a JSON string holding the raw text when it did not parse).
    pub arguments: Value,
    /// The output the model read; `None` when a limit or a cancellation left the call
    /// unexecuted.
    pub output: Option<String>,
    /// Whether the call failed.
    pub is_error: bool,
    /// How long the call took; `None` when it did not run.
    #[serde(rename = "duration_ms", serialize_with = "crate::duration_ms::optional_millis")]
    pub duration: Option<Duration>,
}

/// The outcome of one run.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct AgentResult {
    /// The final answer text (the last model message's text).
    pub content: String,
    /// Every tool call the model made, in order.
    pub tool_calls: Vec<ToolCallRecord>,
    /// Model calls made.
    pub iterations: usize,
    /// Usage summed over the model calls (each from its final report).
    pub usage: Usage,
    /// Why the run stopped.
    pub stop_reason: StopReason,
    /// Why the last model call ended (e.g. `content_filter` when a safety filter stopped
    /// the answer, `length` when it hit the token limit); `None` if no call completed.
    pub finish_reason: Option<FinishReason>,
    /// The questions the agent asked the user with `ask_user` when nobody could answer
    /// during the run ([`StopReason::NeedsInput`]); empty otherwise.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub questions: Vec<String>,
    /// Why the turn stopped, in words, when the stop reason needs them
    /// ([`StopReason::Stopped`], [`StopReason::OutputLimit`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop_message: Option<String>,
    /// The calls waiting for an outside decision ([`StopReason::Deferred`]), with their
    /// arguments; empty otherwise.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub deferred: Vec<crate::message::ToolCall>,
    /// The model that gave the run's last answer, as `provider:model`: the agent's model,
    /// or the backup that answered after a switch ([`crate::model::Fallback`]); `None` when
    /// no model call completed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The usage of the run's model calls per model (`provider:model`), for a run whose
    /// calls went to more than one model. Calls of the layered memory (summaries) are in
    /// [`AgentResult::usage`] only.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub model_usage: BTreeMap<String, Usage>,
    /// What the run cost in US dollars, from each model's [price](crate::model::prices);
    /// `None` (`null`) when a model it used has no known price: unknown, never zero.
    pub cost_usd: Option<f64>,
}

/// What a session has spent over its turns: kept with a stored session (in its metadata,
/// under [`SPEND_KEY`](crate::store::SPEND_KEY)) so a session [budget](crate::agent::budget)
/// holds across processes.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct Spend {
    /// Tokens, summed.
    pub usage: Usage,
    /// Model calls made.
    pub model_calls: u64,
    /// Dollars; `None` once a call of a model without a known price was made.
    pub cost_usd: Option<f64>,
}

impl Spend {
    /// Every prompt and generated token.
    pub fn total_tokens(&self) -> u64 {
        self.usage.input_tokens + self.usage.output_tokens
    }

    /// Adds a run's spend.
    pub fn add(&mut self, usage: Usage, model_calls: u64, cost_usd: Option<f64>) {
        self.usage += usage;
        self.model_calls += model_calls;
        self.cost_usd = match (self.cost_usd, cost_usd) {
            (Some(a), Some(b)) => Some(a + b),
            _ => None,
        };
    }
}

impl Default for Spend {
    fn default() -> Self {
        Spend { usage: Usage::default(), model_calls: 0, cost_usd: Some(0.0) }
    }
}

impl AgentResult {
    /// A result with this answer and stop reason, and nothing else (no calls, no usage).
    ///
    /// ```
    /// use lucid::{AgentResult, StopReason};
    /// let r = AgentResult::new("done", StopReason::Completed);
    /// assert!(r.tool_calls.is_empty() && r.iterations == 0);
    /// ```
    pub fn new(content: impl Into<String>, stop_reason: StopReason) -> Self {
        AgentResult {
            content: content.into(),
            tool_calls: Vec::new(),
            iterations: 0,
            usage: Usage::default(),
            stop_reason,
            finish_reason: None,
            questions: Vec::new(),
            stop_message: None,
            deferred: Vec::new(),
            model: None,
            model_usage: BTreeMap::new(),
            cost_usd: Some(0.0),
        }
    }
}
