//! Budgets: limits on what a run and a session may spend — dollars, model calls, tokens —
//! checked before each model call, as a [hook](super::hooks).
//!
//! Before a call the budget adds what the call would take to what was spent: one model
//! call, the request's prompt tokens as the context budget estimates them (scaled by what
//! the provider counted before), and their cost at the model's input price. If that passes
//! a limit, the call is not made: the turn ends with
//! [`StopReason::BudgetExceeded`](crate::StopReason::BudgetExceeded) and a
//! [`stop_message`](crate::AgentResult::stop_message) naming the limit and the spend; the
//! result carries the usage and cost so far. The answer's own tokens cannot be known
//! before it is written, so a run may end a little past a token or cost limit by its
//! last answer, never by a call started after the limit was reached.
//!
//! A cost limit needs the model's [price](crate::model::prices): with none known, the
//! first call is not made (the message says the price is unknown) rather than counting
//! the cost as zero.
//!
//! Session limits count what the session spent in earlier turns too: a stored session
//! keeps its spend in its store, so the limit holds across processes.
//!
//! ```
//! use lucid::agent::budget::{Budget, Limits};
//! let budget = Budget::default()
//!     .run(Limits::default().max_cost(0.50).max_model_calls(20))
//!     .session(Limits::default().max_total_tokens(2_000_000));
//! assert!(!budget.is_unlimited());
//! ```

use futures::future::BoxFuture;

use crate::hooks::{Hook, HookContext, ModelCall, ModelCallDecision};
use crate::outcome::Spend;

/// Limits on one scope (a run, a session). Unset limits do not apply.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
#[non_exhaustive]
pub struct Limits {
    /// The most dollars.
    pub max_cost: Option<f64>,
    /// The most model calls.
    pub max_model_calls: Option<u64>,
    /// The most tokens, prompt and answer.
    pub max_total_tokens: Option<u64>,
}

impl Limits {
    /// At most this many dollars.
    pub fn max_cost(mut self, dollars: f64) -> Self {
        self.max_cost = Some(dollars);
        self
    }

    /// At most this many model calls.
    pub fn max_model_calls(mut self, n: u64) -> Self {
        self.max_model_calls = Some(n);
        self
    }

    /// At most this many tokens, prompt and answer together.
    pub fn max_total_tokens(mut self, n: u64) -> Self {
        self.max_total_tokens = Some(n);
        self
    }

    /// Whether no limit is set.
    pub fn is_unlimited(&self) -> bool {
        self.max_cost.is_none() && self.max_model_calls.is_none() && self.max_total_tokens.is_none()
    }

    /// Why the next call, taking `next` on top of `spent`, would pass a limit; `None` when
    /// it would not.
    fn passed_by(&self, scope: &str, spent: &Spend, next: &Next) -> Option<String> {
        let spend = describe(spent);
        if let Some(max) = self.max_model_calls
            && spent.model_calls + 1 > max
        {
            return Some(format!("the {scope}'s max_model_calls ({max}) is reached: {spend}"));
        }
        if let Some(max) = self.max_total_tokens
            && spent.total_tokens() + next.tokens > max
        {
            return Some(format!(
                "the {scope}'s max_total_tokens ({max}) would be passed by the next model call \
                 (its prompt is about {} tokens): {spend}",
                next.tokens
            ));
        }
        if let Some(max) = self.max_cost {
            let (Some(so_far), Some(call)) = (spent.cost_usd, next.cost) else {
                return Some(format!(
                    "the {scope}'s max_cost (${max:.4}) cannot be kept: the price of the model is unknown \
                     (set it in the prices): {spend}"
                ));
            };
            if so_far + call > max {
                return Some(format!(
                    "the {scope}'s max_cost (${max:.4}) would be passed by the next model call \
                     (its prompt alone is about ${call:.4}): {spend}"
                ));
            }
        }
        None
    }
}

/// What the next call takes, as estimated before it.
struct Next {
    tokens: u64,
    cost: Option<f64>,
}

/// "spent $0.0123, 4,567 tokens in 3 model calls".
fn describe(s: &Spend) -> String {
    let cost = s.cost_usd.map_or_else(|| "an unknown cost".to_string(), |c| format!("${c:.4}"));
    format!("spent {cost}, {} tokens in {} model calls", s.total_tokens(), s.model_calls)
}

/// Limits per run and per session; see the [module docs](self). Attach it with
/// [`AgentBuilder::budget`](crate::AgentBuilder::budget).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
#[non_exhaustive]
pub struct Budget {
    /// Limits on one run (one `run`/`resume`).
    pub run: Limits,
    /// Limits on a session over all its turns.
    pub session: Limits,
}

impl Budget {
    /// With these run limits.
    pub fn run(mut self, limits: Limits) -> Self {
        self.run = limits;
        self
    }

    /// With these session limits.
    pub fn session(mut self, limits: Limits) -> Self {
        self.session = limits;
        self
    }

    /// Whether no limit is set (then attaching it does nothing).
    pub fn is_unlimited(&self) -> bool {
        self.run.is_unlimited() && self.session.is_unlimited()
    }

    /// Why a call now would pass a limit, given what the context says.
    fn check(&self, cx: &HookContext<'_>) -> Option<String> {
        let next = Next { tokens: cx.prompt_tokens.unwrap_or(0), cost: cx.prompt_cost_usd };
        // `iteration` counts the call about to be made.
        let mut run = Spend::default();
        run.add(cx.usage, cx.iteration.saturating_sub(1) as u64, cx.cost_usd);
        let mut session = cx.session;
        session.add(cx.usage, cx.iteration.saturating_sub(1) as u64, cx.cost_usd);
        self.run.passed_by("run", &run, &next).or_else(|| self.session.passed_by("session", &session, &next))
    }
}

impl Hook for Budget {
    fn before_model_call<'a>(
        &'a self,
        cx: &'a HookContext<'a>,
        _call: &'a mut ModelCall<'_>,
    ) -> BoxFuture<'a, ModelCallDecision> {
        let decision = match self.check(cx) {
            Some(why) => {
                tracing::info!(session = cx.session_id.unwrap_or_default(), "budget: {why}");
                ModelCallDecision::OverBudget(why)
            }
            None => ModelCallDecision::Continue,
        };
        Box::pin(std::future::ready(decision))
    }
}
