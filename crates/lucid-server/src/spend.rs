//! What tenants spend: each turn's cost, tokens and model calls counted in the metrics
//! and, with a daily budget ([`ServerConfig::tenant_daily_budget`](crate::ServerConfig::tenant_daily_budget)),
//! summed per tenant per day (UTC) in the database by [`DailyBudget`], a hook on every
//! agent: each model call is counted as it is answered (so the calls of a run cancelled,
//! dropped with its client or failed count too), and checked against the day before it is
//! made (so a long run stops cleanly, `budget_exceeded`, once the day is spent); a turn's
//! start is refused with 429 once it is ([`within_daily_budget`]).

use futures::future::BoxFuture;
use lucid::AgentResult;
use lucid::agent::budget::Limits;
use lucid::agent::hooks::{Hook, HookContext, ModelCall, ModelCallDecision};
use lucid::model::ChatResponse;
use lucid::model::prices::Prices;

use crate::AppState;
use crate::db::{DailySpend, Db};
use crate::error::ApiError;

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

/// The tenant's daily budget, checked before each model call and counted after each
/// answer; see the [module docs](self). Attached to every agent when a daily budget is set.
pub(crate) struct DailyBudget {
    db: Db,
    limits: Limits,
    prices: Prices,
    /// The agent's model as `provider:model`, the price's key.
    model: String,
}

impl DailyBudget {
    pub(crate) fn new(db: Db, limits: Limits, agent: &lucid::Agent) -> Self {
        let model = format!("{}:{}", agent.model().provider(), agent.model().model_name());
        DailyBudget { db, limits, prices: agent.prices().clone(), model }
    }
}

impl Hook for DailyBudget {
    fn before_model_call<'a>(
        &'a self,
        cx: &'a HookContext<'a>,
        _call: &'a mut ModelCall<'_>,
    ) -> BoxFuture<'a, ModelCallDecision> {
        Box::pin(async move {
            let Some(tenant) = cx.owner else { return ModelCallDecision::Continue };
            let spent = match self.db.spend(tenant, today()).await {
                Ok(s) => s,
                Err(e) => {
                    // The turn's start read the day; a failing read now does not stop a run.
                    tracing::warn!(tenant, "the day's spend could not be read before a model call: {e}");
                    return ModelCallDecision::Continue;
                }
            };
            match spent_limit(self.limits, &spent) {
                Some(why) => {
                    tracing::info!(tenant, "daily budget: {why}");
                    ModelCallDecision::OverBudget(why)
                }
                None => ModelCallDecision::Continue,
            }
        })
    }

    fn after_model_response<'a>(
        &'a self,
        cx: &'a HookContext<'a>,
        response: &'a mut ChatResponse,
    ) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            let (Some(tenant), Some(usage)) = (cx.owner, response.usage) else { return };
            let label = response.fallbacks.last().map_or(self.model.as_str(), |s| s.to.as_str());
            let cost = self.prices.cost(label, &usage);
            let spend = DailySpend {
                cost_nanos: cost.map_or(0, |c| (c * 1e9).round() as i64),
                unpriced: i64::from(cost.is_none()),
                tokens: (usage.input_tokens + usage.output_tokens) as i64,
                model_calls: 1,
            };
            if let Err(e) = self.db.add_spend(tenant, today(), spend).await {
                tracing::error!(tenant, "a model call's spend could not be counted: {e}");
            }
        })
    }
}

/// Why the day is spent, when it is: the limit reached, and the spend.
fn spent_limit(limits: Limits, s: &DailySpend) -> Option<String> {
    let cost = s.cost_nanos as f64 / 1e9;
    let spent = |what: &str, max: String, now: String| {
        format!(
            "this key has spent {now} today, the limit of {what} per tenant per day ({max}); it resets at 00:00 UTC"
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
        if cost >= max {
            return Some(spent("dollars", format!("${max:.2}"), format!("${cost:.4}")));
        }
    }
    if let Some(max) = limits.max_total_tokens
        && s.tokens as u64 >= max
    {
        return Some(spent("tokens", max.to_string(), format!("{} tokens", s.tokens)));
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
    match spent_limit(limits, &s) {
        Some(why) => Err(ApiError::quota(&why)),
        None => Ok(()),
    }
}
