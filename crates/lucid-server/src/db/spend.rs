//! What tenants spend per day (`serve_spend`) and what the model calls going hold of it
//! (`serve_spend_holds`), in SQLite and PostgreSQL alike.
//!
//! A model call takes a [`Hold`] before it is made, in one transaction that reads the
//! day's spend and the holds not expired (with the day's row locked: `FOR UPDATE` on
//! PostgreSQL, so instances take holds one after another; SQLite's transactions are
//! `IMMEDIATE`, one writer at a time), checks the limits, and counts the
//! call: calls going at once can never together pass a limit. The call's answer settles
//! its hold (the hold goes, what the call used is added); a failed call's hold is released,
//! and one nobody settles (a process gone) expires.

use lucid::agent::budget::Limits;

use super::query::{Cells, Conn, Sql, args, end, first};
use super::{DailySpend, Result};

/// A model call's claim on its tenant's day: the call itself (counted when the hold is
/// taken, whatever follows) and the tokens and cost it may take, until it is settled,
/// released or expires.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hold {
    /// Unique, made by the taker.
    pub id: String,
    /// The tenant.
    pub tenant: String,
    /// Days since 1970, UTC.
    pub day: i64,
    /// Billionths of a dollar the call may cost.
    pub cost_nanos: i64,
    /// Tokens the call may take, prompt and answer.
    pub tokens: i64,
    /// When the hold lapses (milliseconds since 1970) if nobody settles it.
    pub expires_at: i64,
}

/// Whether a hold was taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Held {
    /// Taken; the call is counted.
    Taken,
    /// Refused: the call would pass a limit. The day's spend with the holds of the calls
    /// going added to it, when it was refused.
    Refused(DailySpend),
}

/// Whether a call holding `hold` fits the `limits` of a day at `total` (spend and holds).
fn fits(limits: Limits, total: &DailySpend, hold: &Hold) -> bool {
    crate::spend::passed(limits, total, hold.cost_nanos, hold.tokens).is_none()
}

/// The day's spend and the holds not expired at `now`, added.
fn with_holds(spend: DailySpend, held: (i64, i64)) -> DailySpend {
    DailySpend { cost_nanos: spend.cost_nanos + held.0, tokens: spend.tokens + held.1, ..spend }
}

/// Adds what a call used to its day.
const ADD: Sql = Sql::Each {
    sqlite: "INSERT INTO serve_spend (tenant, day, cost_nanos, unpriced, tokens, model_calls) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT (tenant, day) DO UPDATE SET \
             cost_nanos = cost_nanos + excluded.cost_nanos, unpriced = unpriced + excluded.unpriced, \
             tokens = tokens + excluded.tokens, model_calls = model_calls + excluded.model_calls",
    postgres: "INSERT INTO serve_spend (tenant, day, cost_nanos, unpriced, tokens, model_calls) \
               VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (tenant, day) DO UPDATE SET \
               cost_nanos = serve_spend.cost_nanos + EXCLUDED.cost_nanos, \
               unpriced = serve_spend.unpriced + EXCLUDED.unpriced, \
               tokens = serve_spend.tokens + EXCLUDED.tokens, \
               model_calls = serve_spend.model_calls + EXCLUDED.model_calls",
};

const SPEND: Sql =
    Sql::Both("SELECT cost_nanos, unpriced, tokens, model_calls FROM serve_spend WHERE tenant = $1 AND day = $2");

/// [`SPEND`] with the day's row locked until the transaction ends (PostgreSQL).
const SPEND_LOCKED: Sql = Sql::Each {
    sqlite: "SELECT cost_nanos, unpriced, tokens, model_calls FROM serve_spend WHERE tenant = ?1 AND day = ?2",
    postgres: "SELECT cost_nanos, unpriced, tokens, model_calls FROM serve_spend WHERE tenant = $1 AND day = $2 \
               FOR UPDATE",
};

/// The day's row, so there is one to lock.
const DAY: Sql = Sql::Both(
    "INSERT INTO serve_spend (tenant, day, cost_nanos, unpriced, tokens, model_calls) \
     VALUES ($1, $2, 0, 0, 0, 0) ON CONFLICT (tenant, day) DO NOTHING",
);

const DELETE_EXPIRED: Sql =
    Sql::Both("DELETE FROM serve_spend_holds WHERE tenant = $1 AND day = $2 AND expires_at <= $3");

const HELD: Sql = Sql::Each {
    sqlite: "SELECT COALESCE(SUM(cost_nanos), 0), COALESCE(SUM(tokens), 0) FROM serve_spend_holds \
             WHERE tenant = ?1 AND day = ?2",
    postgres: "SELECT COALESCE(SUM(cost_nanos), 0)::BIGINT, COALESCE(SUM(tokens), 0)::BIGINT \
               FROM serve_spend_holds WHERE tenant = $1 AND day = $2",
};

const INSERT_HOLD: Sql = Sql::Both(
    "INSERT INTO serve_spend_holds (id, tenant, day, cost_nanos, tokens, expires_at) VALUES ($1, $2, $3, $4, $5, $6)",
);

const COUNT_CALL: Sql =
    Sql::Both("UPDATE serve_spend SET model_calls = model_calls + 1 WHERE tenant = $1 AND day = $2");

const DELETE_HOLD: Sql = Sql::Both("DELETE FROM serve_spend_holds WHERE id = $1");

fn spend_row(r: &dyn Cells) -> Result<DailySpend> {
    Ok(DailySpend { cost_nanos: r.int(0)?, unpriced: r.int(1)?, tokens: r.int(2)?, model_calls: r.int(3)? })
}

/// What the tenant spent on `day`.
pub async fn spend<C: Conn>(c: &mut C, tenant: &str, day: i64) -> Result<DailySpend> {
    Ok(first(c, &SPEND, args![tenant, day], spend_row).await?.unwrap_or_default())
}

/// Takes `hold` if it fits `limits` at `now`: in one transaction, the day's row locked
/// first, so holds of one tenant's day are taken one at a time (on every instance).
pub async fn hold<C: Conn>(c: &mut C, hold: &Hold, limits: Limits, now: i64) -> Result<Held> {
    c.begin().await?;
    let r = take(c, hold, limits, now).await;
    end(c, r, |held| *held == Held::Taken).await
}

async fn take<C: Conn>(c: &mut C, hold: &Hold, limits: Limits, now: i64) -> Result<Held> {
    let (tenant, day) = (hold.tenant.as_str(), hold.day);
    c.execute(&DAY, args![tenant, day]).await?;
    let spend = first(c, &SPEND_LOCKED, args![tenant, day], spend_row).await?.unwrap_or_default();
    c.execute(&DELETE_EXPIRED, args![tenant, day, now]).await?;
    let held = first(c, &HELD, args![tenant, day], |r| Ok((r.int(0)?, r.int(1)?))).await?.unwrap_or_default();
    let total = with_holds(spend, held);
    if !fits(limits, &total, hold) {
        return Ok(Held::Refused(total));
    }
    let a = args![&hold.id, tenant, day, hold.cost_nanos, hold.tokens, hold.expires_at];
    c.execute(&INSERT_HOLD, a).await?;
    c.execute(&COUNT_CALL, args![tenant, day]).await?;
    Ok(Held::Taken)
}

/// Ends the hold `id`; with `used`, adds what the call used to its day.
pub async fn settle<C: Conn>(c: &mut C, tenant: &str, day: i64, id: &str, used: Option<DailySpend>) -> Result<()> {
    c.begin().await?;
    let r = settled(c, tenant, day, id, used).await;
    end(c, r, |_| true).await
}

async fn settled<C: Conn>(c: &mut C, tenant: &str, day: i64, id: &str, used: Option<DailySpend>) -> Result<()> {
    c.execute(&DELETE_HOLD, args![id]).await?;
    if let Some(u) = used {
        c.execute(&ADD, args![tenant, day, u.cost_nanos, u.unpriced, u.tokens, u.model_calls]).await?;
    }
    Ok(())
}
