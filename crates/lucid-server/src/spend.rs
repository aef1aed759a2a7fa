//! What tenants spend: each turn's cost, tokens and model calls counted in the metrics
//! and, with a daily budget ([`ServerConfig::tenant_daily_budget`](crate::ServerConfig::tenant_daily_budget)),
//! per tenant per day (UTC) in the database by [`DailyBudget`], a hook on every agent.
//!
//! The day's bounds do not depend on what the provider reports. Before each model call
//! the hook takes a hold on the day in the database ([`Hold`]): the call is counted then,
//! whatever follows, and the tokens and cost it may take (its prompt as estimated, and the
//! answer's `max_tokens` when one is set) are held while it runs. The hold is taken in
//! one transaction that checks the day's spend and every hold of the calls going, so runs
//! at once (on any instance) cannot together pass a limit: the call that would is not
//! made, and its run stops cleanly, `budget_exceeded`. The answer settles the hold with
//! what the call used (the provider's usage, or the estimate of the prompt and the answer
//! when it reports none); a hold left by a call that failed is released at the session's
//! next call or turn's end, and any other lapses after [`HOLD_FOR`]. Without `max_tokens`
//! an answer's own tokens are known only once written, so the calls going may pass a
//! token or cost limit by their answers, never by a call started past it. A turn's start
//! is refused with 429 once the day is spent ([`within_daily_budget`]).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use futures::future::BoxFuture;
use lucid::agent::budget::Limits;
use lucid::agent::hooks::{Hook, HookContext, ModelCall, ModelCallDecision};
use lucid::model::ChatResponse;
use lucid::model::prices::Prices;
use lucid::{AgentResult, Usage};

use crate::AppState;
use crate::db::{DailySpend, Db, Held, Hold};
use crate::error::ApiError;

/// How long a model call's hold on its tenant's day lasts when nothing settles it (its
/// process died): longer than any model call should take.
pub(crate) const HOLD_FOR: Duration = Duration::from_secs(15 * 60);

/// Days since 1970, UTC.
fn today() -> i64 {
    crate::now_ms() / 86_400_000
}

/// Counts a turn's spend in the metrics (the tenant's day counts each call as it is
/// answered: [`DailyBudget`]).
pub(crate) fn record(server: &AppState, r: &AgentResult) {
    server.metrics.model_calls(r.iterations, &r.usage);
    server.metrics.cost(r.cost_usd);
}

/// The tenant's daily budget: a hold taken before each model call, settled after its
/// answer; see the [module docs](self). Attached to every agent when a daily budget is set.
pub(crate) struct DailyBudget {
    db: Db,
    limits: Limits,
    prices: Prices,
    /// The agent's model as `provider:model`, the price's key.
    model: String,
    /// Holds taken and not ended yet, by tenant and session (`None`: a completion's
    /// session, kept in memory only), oldest first.
    pending: Mutex<HashMap<Key, Vec<Pending>>>,
}

/// A hold of this process, as its call's answer settles it.
struct Pending {
    id: String,
    day: i64,
    expires_at: i64,
    /// The prompt's tokens as estimated: what the call used when the provider says nothing.
    prompt_tokens: u64,
}

type Key = (String, Option<String>);

impl DailyBudget {
    pub(crate) fn new(db: Db, limits: Limits, agent: &lucid::Agent) -> Self {
        let model = format!("{}:{}", agent.model().provider(), agent.model().model_name());
        DailyBudget { db, limits, prices: agent.prices().clone(), model, pending: Mutex::default() }
    }

    fn key(cx: &HookContext<'_>) -> Option<Key> {
        Some((cx.owner?.to_string(), cx.session_id.map(str::to_string)))
    }

    fn pending(&self) -> std::sync::MutexGuard<'_, HashMap<Key, Vec<Pending>>> {
        self.pending.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Releases every hold of a stored session's calls: its turn is over (or its next call
    /// is about to be made, so the last one ended, answered or not).
    async fn release_session(&self, key: &Key) {
        if key.1.is_none() {
            return;
        }
        let left = self.pending().remove(key).unwrap_or_default();
        for p in left {
            if let Err(e) = self.db.settle(&key.0, p.day, &p.id, None).await {
                tracing::warn!(tenant = %key.0, "a model call's hold could not be released (it lapses): {e}");
            }
        }
    }

    /// The dollars of `usage` on the agent's model, in billionths; `None` without a price.
    fn cost_nanos(&self, label: &str, usage: &Usage) -> Option<i64> {
        self.prices.cost(label, usage).map(|c| (c * 1e9).round() as i64)
    }
}

impl Hook for DailyBudget {
    fn before_model_call<'a>(
        &'a self,
        cx: &'a HookContext<'a>,
        call: &'a mut ModelCall<'_>,
    ) -> BoxFuture<'a, ModelCallDecision> {
        Box::pin(async move {
            let Some(key) = Self::key(cx) else { return ModelCallDecision::Continue };
            self.release_session(&key).await;
            if self.limits.max_cost.is_some() && self.prices.price_of(&self.model).is_none() {
                let why = format!(
                    "this key's daily cost limit cannot be kept: the price of `{}` is not known (the server's \
                     prices need it)",
                    self.model
                );
                return ModelCallDecision::OverBudget(why);
            }
            let prompt_tokens = lucid::tokens::estimate_messages(&call.messages) as u64;
            let answer = call.options.max_tokens.map_or(0, u64::from);
            let most = Usage { input_tokens: prompt_tokens, output_tokens: answer, ..Usage::default() };
            let now = crate::now_ms();
            let hold = Hold {
                id: crate::new_id("hold"),
                tenant: key.0.clone(),
                day: today(),
                cost_nanos: self.cost_nanos(&self.model, &most).unwrap_or(0),
                tokens: (prompt_tokens + answer) as i64,
                expires_at: now + HOLD_FOR.as_millis() as i64,
            };
            match self.db.hold(&hold, self.limits, now).await {
                Ok(Held::Taken) => {
                    let Hold { id, day, expires_at, .. } = hold;
                    let mut pending = self.pending();
                    let held = pending.entry(key).or_default();
                    // A completion's call that failed leaves its hold here: gone from the
                    // database once lapsed, it goes from here too.
                    held.retain(|p| p.expires_at > now);
                    held.push(Pending { id, day, expires_at, prompt_tokens });
                    ModelCallDecision::Continue
                }
                Ok(Held::Refused(total)) => {
                    let why = passed(self.limits, &total, hold.cost_nanos, hold.tokens)
                        .unwrap_or_else(|| "the day's budget is spent".into());
                    tracing::info!(tenant = %key.0, "daily budget: {why}");
                    ModelCallDecision::OverBudget(why)
                }
                Err(e) => {
                    // The turn's start read the day; a database failing now does not stop a run.
                    tracing::warn!(tenant = %key.0, "the day's spend could not be held before a model call: {e}");
                    ModelCallDecision::Continue
                }
            }
        })
    }

    fn after_model_response<'a>(
        &'a self,
        cx: &'a HookContext<'a>,
        response: &'a mut ChatResponse,
    ) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            let Some(key) = Self::key(cx) else { return };
            let held = {
                let mut pending = self.pending();
                let held = pending.get_mut(&key).filter(|v| !v.is_empty()).map(|v| v.remove(0));
                if pending.get(&key).is_some_and(Vec::is_empty) {
                    pending.remove(&key);
                }
                held
            };
            // No hold (the database failed before the call): the call is counted now.
            let (id, day, prompt_tokens, calls) = match held {
                Some(p) => (p.id, p.day, p.prompt_tokens, 0),
                None => (String::new(), today(), 0, 1),
            };
            // A provider that reports no usage is counted by the estimate of what it read
            // and wrote.
            let usage = response.usage.unwrap_or_else(|| Usage {
                input_tokens: prompt_tokens,
                output_tokens: answer_tokens(&response.message),
                ..Usage::default()
            });
            let label = response.fallbacks.last().map_or(self.model.as_str(), |s| s.to.as_str());
            let cost = self.cost_nanos(label, &usage);
            let used = DailySpend {
                cost_nanos: cost.unwrap_or(0),
                unpriced: i64::from(cost.is_none()),
                tokens: (usage.input_tokens + usage.output_tokens) as i64,
                model_calls: calls,
            };
            if let Err(e) = self.db.settle(&key.0, day, &id, Some(used)).await {
                tracing::error!(tenant = %key.0, "a model call's spend could not be counted: {e}");
            }
        })
    }

    fn turn_end<'a>(&'a self, cx: &'a HookContext<'a>, _result: &'a AgentResult) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            if let Some(key) = Self::key(cx) {
                self.release_session(&key).await;
            }
        })
    }
}

/// The estimated tokens of an answer: its text and its calls.
fn answer_tokens(m: &lucid::AssistantMessage) -> u64 {
    let calls =
        m.tool_calls.iter().map(|c| lucid::tokens::estimate_text(&c.name) + lucid::tokens::estimate_text(&c.arguments));
    (lucid::tokens::estimate_text(&m.content) + calls.sum::<usize>()) as u64
}

/// Why the day is spent, or would be by a call taking `cost_nanos` and `tokens` more
/// (and one model call) on top of `s` (the spend, with the holds of the calls going): the
/// limit, and the spend. `None` when the call fits.
pub(crate) fn passed(limits: Limits, s: &DailySpend, cost_nanos: i64, tokens: i64) -> Option<String> {
    let cost = s.cost_nanos as f64 / 1e9;
    let spent = |what: &str, max: String, now: String| {
        format!(
            "this key has spent {now} today, the limit of {what} per tenant per day ({max}); it resets at 00:00 UTC"
        )
    };
    let would = |what: &str, max: String, now: String, next: String| {
        format!(
            "this key has spent {now} today (with the model calls going), and the next model call may take {next}: \
             past the limit of {what} per tenant per day ({max}); it resets at 00:00 UTC"
        )
    };
    if let Some(max) = limits.max_cost {
        if s.unpriced > 0 {
            return Some(format!(
                "this key's daily cost limit (${max:.2}) cannot be kept: {} model calls today used a model without a \
                 known price (the server's prices need it)",
                s.unpriced
            ));
        }
        // In billionths, as the database counts: no rounding of floats at the limit.
        let max_nanos = (max * 1e9).round() as i64;
        if s.cost_nanos >= max_nanos {
            return Some(spent("dollars", format!("${max:.2}"), format!("${cost:.4}")));
        }
        let next = cost_nanos as f64 / 1e9;
        if s.cost_nanos.saturating_add(cost_nanos) > max_nanos {
            return Some(would("dollars", format!("${max:.2}"), format!("${cost:.4}"), format!("${next:.4}")));
        }
    }
    if let Some(max) = limits.max_total_tokens {
        let max_i = i64::try_from(max).unwrap_or(i64::MAX);
        if s.tokens >= max_i {
            return Some(spent("tokens", max.to_string(), format!("{} tokens", s.tokens)));
        }
        if s.tokens.saturating_add(tokens) > max_i {
            return Some(would("tokens", max.to_string(), format!("{} tokens", s.tokens), format!("{tokens} tokens")));
        }
    }
    if let Some(max) = limits.max_model_calls
        && s.model_calls as u64 >= max
    {
        return Some(spent("model calls", max.to_string(), format!("{} model calls", s.model_calls)));
    }
    None
}

/// 429 `quota_exceeded` naming the limit once the tenant has spent a daily limit.
pub(crate) async fn within_daily_budget(server: &AppState, tenant: &str) -> Result<(), ApiError> {
    let limits = server.quotas.daily;
    if limits.is_unlimited() {
        return Ok(());
    }
    let s = server.db.spend(tenant, today()).await?;
    match passed(limits, &s, 0, 0) {
        Some(why) => Err(ApiError::quota(&why)),
        None => Ok(()),
    }
}
