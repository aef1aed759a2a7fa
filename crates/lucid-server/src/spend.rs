//! What tenants spend: each turn's cost, tokens and model calls counted in the metrics
//! and, with a daily budget ([`ServerConfig::tenant_daily_budget`](crate::ServerConfig::tenant_daily_budget)),
//! summed per tenant per day (UTC) in the database, where the next turn's start reads it.

use lucid::AgentResult;

use crate::AppState;
use crate::db::DailySpend;
use crate::error::ApiError;

/// Days since 1970, UTC.
fn today() -> i64 {
    crate::now_ms() / 86_400_000
}

/// Counts a turn's spend: in the metrics, and for `tenant`'s day when a daily budget is set.
pub(crate) async fn record(server: &AppState, tenant: Option<&str>, r: &AgentResult) {
    server.metrics.model_calls(r.iterations, &r.usage);
    server.metrics.cost(r.cost_usd);
    let (Some(tenant), false) = (tenant, server.quotas.daily.is_unlimited()) else { return };
    let spend = DailySpend {
        cost_nanos: r.cost_usd.map_or(0, |c| (c * 1e9).round() as i64),
        unpriced: i64::from(r.cost_usd.is_none()),
        tokens: (r.usage.input_tokens + r.usage.output_tokens) as i64,
        model_calls: r.iterations as i64,
    };
    if let Err(e) = server.db.add_spend(tenant, today(), spend).await {
        tracing::error!(tenant, "a turn's spend could not be counted: {e}");
    }
}

/// 429 `quota_exceeded` naming the limit once the tenant has spent a daily limit.
pub(crate) async fn within_daily_budget(server: &AppState, tenant: &str) -> Result<(), ApiError> {
    let limits = server.quotas.daily;
    if limits.is_unlimited() {
        return Ok(());
    }
    let s = server.db.spend(tenant, today()).await?;
    let cost = s.cost_nanos as f64 / 1e9;
    let spent = |what: &str, max: String, now: String| {
        ApiError::quota(&format!(
            "this key has spent {now} today, the limit of {what} per tenant per day ({max}); it resets at 00:00 UTC"
        ))
    };
    if let Some(max) = limits.max_cost {
        if s.unpriced > 0 {
            return Err(ApiError::quota(&format!(
                "this key's daily cost limit (${max:.2}) cannot be kept: {} turns today used a model without a \
                 known price (the server's prices need it)",
                s.unpriced
            )));
        }
        if cost >= max {
            return Err(spent("dollars", format!("${max:.2}"), format!("${cost:.4}")));
        }
    }
    if let Some(max) = limits.max_total_tokens
        && s.tokens as u64 >= max
    {
        return Err(spent("tokens", max.to_string(), format!("{} tokens", s.tokens)));
    }
    if let Some(max) = limits.max_model_calls
        && s.model_calls as u64 >= max
    {
        return Err(spent("model calls", max.to_string(), format!("{} model calls", s.model_calls)));
    }
    Ok(())
}
