//! Hooks: where code of your own takes part in every turn without a branch in the loop.
//!
//! A [`Hook`] has one method per point of the turn, each a no-op by default, so a hook
//! implements only the points it cares about. Hooks are attached with
//! [`AgentBuilder::hook`](crate::AgentBuilder::hook) and run in the order they were
//! attached; at a point that decides (before a model call, before a tool call) the first
//! hook that does not say "continue" decides. Every call sees a [`HookContext`]: the
//! session id, the iteration and the turn's usage so far.
//!
//! | point | may |
//! |---|---|
//! | [`Hook::before_turn`] | rewrite the window and keep state with the session ([`TurnStart`]): a memory |
//! | [`Hook::before_model_call`] | read or edit the request ([`ModelCall`]), or stop the turn |
//! | [`Hook::on_stream_delta`] | see each piece of a streamed answer as it arrives |
//! | [`Hook::after_model_response`] | read or edit the answer |
//! | [`Hook::on_invalid_tool_call`] | see a call of an unknown tool or with bad arguments, and edit what the model is told |
//! | [`Hook::before_tool_call`] | allow, deny with a message the model reads, replace the arguments, or defer the call |
//! | [`Hook::after_tool_result`] | read or edit the result |
//! | [`Hook::after_step`] | see each step once it is in the history (and committed, for a durable session) |
//! | [`Hook::turn_end`] | see the turn's result |
//! | [`Hook::on_model_error`] | see a model call's failure (the turn may go on) |
//! | [`Hook::on_error`] | see the error a turn failed with |
//! | [`Hook::span`] | give the span the turn, a model call or a tool call runs in (with the points that follow it) |
//!
//! The agent's [`PermissionPolicy`](crate::tool::permission::PermissionPolicy) is itself
//! the first hook of every agent, and its
//! [`ConversationMemory`](crate::memory::ConversationMemory) the next: both are hooks like
//! yours, through these points only. A memory, a budget ([`crate::agent::budget`]) or a
//! guardrail of your own is a hook too (`examples/hook_memory.rs` writes a memory). A turn with no hook of yours attached does no work for
//! them.
//!
//! Deferring a tool call ends the turn with
//! [`StopReason::Deferred`](crate::StopReason::Deferred): the model's message and its
//! calls stay in the history, unanswered, and [`AgentResult::deferred`] lists
//! them. The next [`Session::resume`](crate::Session::resume) (in this process or, for a
//! stored session, any other) asks the hooks again for those calls, runs the ones allowed
//! and goes on; what decides them (an approval kept somewhere) is the hook's business.
//!
//! ```
//! use std::sync::atomic::{AtomicUsize, Ordering};
//! use futures::future::BoxFuture;
//! use lucid::agent::hooks::{Hook, HookContext, ModelCall, ModelCallDecision, ToolCallDecision};
//! use lucid::ToolCall;
//!
//! /// Refuses `shell` commands that mention `rm`, and stops a turn after 5 model calls.
//! #[derive(Default)]
//! struct Guard { calls: AtomicUsize }
//!
//! impl Hook for Guard {
//!     fn before_model_call<'a>(&'a self, _cx: &'a HookContext<'a>, _call: &'a mut ModelCall<'_>) -> BoxFuture<'a, ModelCallDecision> {
//!         let n = self.calls.fetch_add(1, Ordering::Relaxed) + 1;
//!         Box::pin(async move {
//!             if n > 5 { ModelCallDecision::Stop("the budget of 5 model calls is spent".into()) } else { ModelCallDecision::Continue }
//!         })
//!     }
//!     fn before_tool_call<'a>(&'a self, _cx: &'a HookContext<'a>, call: &'a ToolCall) -> BoxFuture<'a, ToolCallDecision> {
//!         Box::pin(async move {
//!             if call.name == "shell" && call.arguments.contains("rm ") {
//!                 ToolCallDecision::Deny("Deleting files is not allowed here.".into())
//!             } else {
//!                 ToolCallDecision::Allow
//!             }
//!         })
//!     }
//! }
//! # let model = std::sync::Arc::new(lucid::model::OpenAiCompatible::new("http://127.0.0.1:9/v1", None, "m").unwrap());
//! let agent = lucid::Agent::builder(model).hook(Guard::default()).build();
//! ```

mod repeat;
mod state;

use std::borrow::Cow;
use std::sync::Arc;

use futures::future::BoxFuture;

pub use repeat::RepeatedCalls;
pub use state::{HookState, TurnStart};

use crate::approval::Approvals;
use crate::error::Error;
use crate::message::{Message, ToolCall, Usage};
use crate::model::{ChatOptions, ChatResponse};
use crate::outcome::AgentResult;
use crate::tool::{ToolOutcome, ToolSpec};

/// What every hook call knows of the turn.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct HookContext<'a> {
    /// The stored session's id ([`Agent::session_with_id`](crate::Agent::session_with_id)).
    pub session_id: Option<&'a str>,
    /// Who the session belongs to ([`Session::set_owner`](crate::Session::set_owner): a
    /// tenant of `lucid serve`), for hooks that count or bound per owner.
    pub owner: Option<&'a str>,
    /// The agent's name ([`AgentBuilder::name`](crate::AgentBuilder::name)).
    pub agent: Option<&'a str>,
    /// Model calls of this turn so far (the one about to be made included, before a model
    /// call).
    pub iteration: usize,
    /// What this turn has used so far.
    pub usage: Usage,
    /// The session's answers to calls waiting for approval, and the tools it allows for
    /// the rest of the session ([`crate::approval`]).
    pub approvals: &'a Approvals,
    /// What this turn has cost so far in dollars; `None` when a model it used has no known
    /// price.
    pub cost_usd: Option<f64>,
    /// Before a model call, when a [budget](crate::agent::budget) asked for it: the
    /// request's prompt tokens as estimated (scaled by what the provider counted before).
    pub prompt_tokens: Option<u64>,
    /// With [`HookContext::prompt_tokens`]: what that prompt costs at the model's input
    /// price (`None`: no known price).
    pub prompt_cost_usd: Option<f64>,
    /// What the session spent before this turn (its stored total, for a stored session).
    pub session: crate::outcome::Spend,
    /// The conversation so far, where the point has it: before a tool call, every message
    /// up to the model's message that made the call (a hook can see what was asked and
    /// answered before: [`RepeatedCalls`]); empty elsewhere (a model call's messages are
    /// its [`ModelCall::messages`]).
    pub messages: &'a [Message],
}

/// The request of one model call, as a hook may edit it. Each part is borrowed from the
/// session until a hook changes it ([`Cow::to_mut`]): an edit changes this request only,
/// never the stored history.
#[derive(Debug)]
#[non_exhaustive]
pub struct ModelCall<'r> {
    /// Every message the request sends, the system prompt first.
    pub messages: Cow<'r, [Message]>,
    /// The tools offered.
    pub tools: Cow<'r, [ToolSpec]>,
    /// Sampling and output options.
    pub options: Cow<'r, ChatOptions>,
}

/// A hook's word before a model call.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ModelCallDecision {
    /// Make the call.
    Continue,
    /// End the turn now with [`StopReason::Stopped`](crate::StopReason::Stopped); the
    /// text is [`AgentResult::stop_message`].
    Stop(String),
    /// End the turn now with [`StopReason::BudgetExceeded`](crate::StopReason::BudgetExceeded):
    /// the call would pass a limit the text names.
    OverBudget(String),
}

/// A hook's word before a tool call.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ToolCallDecision {
    /// Let the call run (the next hook may still say otherwise).
    Allow,
    /// Do not run it; the model reads this text as the call's failed result.
    Deny(String),
    /// Run it with these arguments (a JSON object as text) instead of the model's; the
    /// history keeps what the model asked for.
    Replace(String),
    /// Do not run it now: the turn ends with [`StopReason::Deferred`](crate::StopReason::Deferred)
    /// once the other calls of the step are done, and the call waits, unanswered, for the
    /// next `resume`.
    Defer,
}

/// One step the turn added to the history.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum Step<'a> {
    /// The user's message opened the turn.
    UserMessage(&'a Message),
    /// The model's message with its tool calls.
    ModelMessage(&'a Message),
    /// A tool call's result.
    ToolResult(&'a Message),
}

/// A piece of a streamed answer ([`Hook::on_stream_delta`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Delta<'a> {
    /// Text of the answer.
    Text(&'a str),
    /// Text of the model's reasoning, where the provider streams it.
    Reasoning(&'a str),
}

/// What is wrong with a tool call the model made ([`Hook::on_invalid_tool_call`]).
pub use crate::tool::InvalidCall as InvalidToolCall;

/// What a span is asked for ([`Hook::span`]).
#[derive(Clone, Copy)]
#[non_exhaustive]
pub enum SpanOf<'a> {
    /// The turn, of an agent with this model.
    Turn {
        /// The agent's model.
        model: &'a dyn crate::model::ChatModel,
    },
    /// One model call, with the request as the hooks left it.
    ModelCall {
        /// The agent's model.
        model: &'a dyn crate::model::ChatModel,
        /// What the call sends.
        call: &'a ModelCall<'a>,
    },
    /// One tool call.
    ToolCall(&'a ToolCall),
}

impl std::fmt::Debug for SpanOf<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SpanOf::Turn { model } => write!(f, "Turn({})", model.model_name()),
            SpanOf::ModelCall { model, .. } => write!(f, "ModelCall({})", model.model_name()),
            SpanOf::ToolCall(c) => write!(f, "ToolCall({})", c.name),
        }
    }
}

/// Code that takes part in every turn; see the [module docs](self). Every method has a
/// no-op default.
pub trait Hook: Send + Sync + 'static {
    /// The span a part of the turn runs in: the turn (and its `turn_end`, `on_error`), a
    /// model call (and its `on_stream_delta`, `after_model_response`, `on_model_error`),
    /// a tool call (and its `after_tool_result`). The first hook that gives one names it;
    /// Lucid's [telemetry](crate::telemetry) gives the OpenTelemetry GenAI spans, last,
    /// so a hook of yours may give its own instead.
    fn span(&self, cx: &HookContext<'_>, of: SpanOf<'_>) -> Option<tracing::Span> {
        let _ = (cx, of);
        None
    }

    /// When a user's message opens a turn (it is the window's last message), before the
    /// first model call: rewrite the window (summarise, trim, pin what to recall) and keep
    /// state with the session ([`TurnStart::state`]). The built-in
    /// [`ConversationMemory`](crate::memory::ConversationMemory) works here.
    fn before_turn<'a>(&'a self, cx: &'a HookContext<'a>, turn: &'a mut TurnStart<'_>) -> BoxFuture<'a, ()> {
        let _ = (cx, turn);
        Box::pin(std::future::ready(()))
    }

    /// Before each model call: read or edit the request, or stop the turn.
    fn before_model_call<'a>(
        &'a self,
        cx: &'a HookContext<'a>,
        call: &'a mut ModelCall<'_>,
    ) -> BoxFuture<'a, ModelCallDecision> {
        let _ = (cx, call);
        Box::pin(std::future::ready(ModelCallDecision::Continue))
    }

    /// Each piece of a streamed answer, as it arrives (a turn run with `run_stream`).
    fn on_stream_delta<'a>(&'a self, cx: &'a HookContext<'a>, delta: Delta<'a>) -> BoxFuture<'a, ()> {
        let _ = (cx, delta);
        Box::pin(std::future::ready(()))
    }

    /// After each model response, before anything acts on it: read or edit it.
    fn after_model_response<'a>(
        &'a self,
        cx: &'a HookContext<'a>,
        response: &'a mut ChatResponse,
    ) -> BoxFuture<'a, ()> {
        let _ = (cx, response);
        Box::pin(std::future::ready(()))
    }

    /// Before each tool call: allow, deny, replace its arguments or defer it.
    fn before_tool_call<'a>(&'a self, cx: &'a HookContext<'a>, call: &'a ToolCall) -> BoxFuture<'a, ToolCallDecision> {
        let _ = (cx, call);
        Box::pin(std::future::ready(ToolCallDecision::Allow))
    }

    /// A call the hooks allowed that the tools cannot take (an unknown name, arguments
    /// that are not JSON or do not match the schema): it does not run, and the model reads
    /// `message` as its failed result; edit it to tell the model more.
    fn on_invalid_tool_call<'a>(
        &'a self,
        cx: &'a HookContext<'a>,
        call: &'a ToolCall,
        problem: &'a InvalidToolCall,
        message: &'a mut String,
    ) -> BoxFuture<'a, ()> {
        let _ = (cx, call, problem, message);
        Box::pin(std::future::ready(()))
    }

    /// After each tool call (or refusal): read or edit the result the model will read.
    fn after_tool_result<'a>(
        &'a self,
        cx: &'a HookContext<'a>,
        call: &'a ToolCall,
        outcome: &'a mut ToolOutcome,
    ) -> BoxFuture<'a, ()> {
        let _ = (cx, call, outcome);
        Box::pin(std::future::ready(()))
    }

    /// After each step is in the history (and committed, for a durable stored session).
    fn after_step<'a>(&'a self, cx: &'a HookContext<'a>, step: Step<'a>) -> BoxFuture<'a, ()> {
        let _ = (cx, step);
        Box::pin(std::future::ready(()))
    }

    /// At the turn's end, with its result (not called when the turn fails).
    fn turn_end<'a>(&'a self, cx: &'a HookContext<'a>, result: &'a AgentResult) -> BoxFuture<'a, ()> {
        let _ = (cx, result);
        Box::pin(std::future::ready(()))
    }

    /// When a model call fails, in its span: the turn fails with the error, unless it is
    /// the first over-the-window error of the turn (the window is tightened and the call
    /// made again).
    fn on_model_error<'a>(&'a self, cx: &'a HookContext<'a>, error: &'a Error) -> BoxFuture<'a, ()> {
        let _ = (cx, error);
        Box::pin(std::future::ready(()))
    }

    /// When the turn fails (a provider error retries could not fix, a store that cannot
    /// save the turn…), with the error the caller gets.
    fn on_error<'a>(&'a self, cx: &'a HookContext<'a>, error: &'a Error) -> BoxFuture<'a, ()> {
        let _ = (cx, error);
        Box::pin(std::future::ready(()))
    }
}

impl<H: Hook + ?Sized> Hook for Arc<H> {
    fn span(&self, cx: &HookContext<'_>, of: SpanOf<'_>) -> Option<tracing::Span> {
        (**self).span(cx, of)
    }
    fn on_model_error<'a>(&'a self, cx: &'a HookContext<'a>, error: &'a Error) -> BoxFuture<'a, ()> {
        (**self).on_model_error(cx, error)
    }
    fn before_turn<'a>(&'a self, cx: &'a HookContext<'a>, turn: &'a mut TurnStart<'_>) -> BoxFuture<'a, ()> {
        (**self).before_turn(cx, turn)
    }
    fn on_stream_delta<'a>(&'a self, cx: &'a HookContext<'a>, delta: Delta<'a>) -> BoxFuture<'a, ()> {
        (**self).on_stream_delta(cx, delta)
    }
    fn on_invalid_tool_call<'a>(
        &'a self,
        cx: &'a HookContext<'a>,
        call: &'a ToolCall,
        problem: &'a InvalidToolCall,
        message: &'a mut String,
    ) -> BoxFuture<'a, ()> {
        (**self).on_invalid_tool_call(cx, call, problem, message)
    }
    fn on_error<'a>(&'a self, cx: &'a HookContext<'a>, error: &'a Error) -> BoxFuture<'a, ()> {
        (**self).on_error(cx, error)
    }
    fn before_model_call<'a>(
        &'a self,
        cx: &'a HookContext<'a>,
        call: &'a mut ModelCall<'_>,
    ) -> BoxFuture<'a, ModelCallDecision> {
        (**self).before_model_call(cx, call)
    }
    fn after_model_response<'a>(
        &'a self,
        cx: &'a HookContext<'a>,
        response: &'a mut ChatResponse,
    ) -> BoxFuture<'a, ()> {
        (**self).after_model_response(cx, response)
    }
    fn before_tool_call<'a>(&'a self, cx: &'a HookContext<'a>, call: &'a ToolCall) -> BoxFuture<'a, ToolCallDecision> {
        (**self).before_tool_call(cx, call)
    }
    fn after_tool_result<'a>(
        &'a self,
        cx: &'a HookContext<'a>,
        call: &'a ToolCall,
        outcome: &'a mut ToolOutcome,
    ) -> BoxFuture<'a, ()> {
        (**self).after_tool_result(cx, call, outcome)
    }
    fn after_step<'a>(&'a self, cx: &'a HookContext<'a>, step: Step<'a>) -> BoxFuture<'a, ()> {
        (**self).after_step(cx, step)
    }
    fn turn_end<'a>(&'a self, cx: &'a HookContext<'a>, result: &'a AgentResult) -> BoxFuture<'a, ()> {
        (**self).turn_end(cx, result)
    }
}
