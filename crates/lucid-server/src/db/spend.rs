//! What tenants spend per day (`serve_spend`) and what the model calls going hold of it
//! (`serve_spend_holds`), in SQLite and PostgreSQL alike.
//!
//! A model call takes a [`Hold`] before it is made, in one transaction that reads the
//! day's spend and the holds not expired (PostgreSQL: with the day's row locked `FOR
//! UPDATE`, so instances take holds one after another), checks the limits, and counts the
//! call: calls going at once can never together pass a limit. The call's answer settles
//! its hold (the hold goes, what the call used is added); a failed call's hold is released,
//! and one nobody settles (a process gone) expires.

use lucid::agent::budget::Limits;
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

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

const ADD_SQLITE: &str = "INSERT INTO serve_spend (tenant, day, cost_nanos, unpriced, tokens, model_calls) \
     VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT (tenant, day) DO UPDATE SET \
     cost_nanos = cost_nanos + excluded.cost_nanos, unpriced = unpriced + excluded.unpriced, \
     tokens = tokens + excluded.tokens, model_calls = model_calls + excluded.model_calls";

fn spend_sqlite(c: &Connection, tenant: &str, day: i64) -> Result<DailySpend> {
    let row = c
        .query_row(
            "SELECT cost_nanos, unpriced, tokens, model_calls FROM serve_spend WHERE tenant = ?1 AND day = ?2",
            params![tenant, day],
            |r| {
                Ok(DailySpend { cost_nanos: r.get(0)?, unpriced: r.get(1)?, tokens: r.get(2)?, model_calls: r.get(3)? })
            },
        )
        .optional()?;
    Ok(row.unwrap_or_default())
}

/// What the tenant spent on `day` (SQLite).
pub fn sqlite_spend(c: &mut Connection, tenant: &str, day: i64) -> Result<DailySpend> {
    spend_sqlite(c, tenant, day)
}

/// Takes `hold` if it fits `limits` at `now` (SQLite): one immediate transaction, so no
/// other writer comes between the check and the hold.
pub fn sqlite_hold(c: &mut Connection, hold: &Hold, limits: Limits, now: i64) -> Result<Held> {
    let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
    tx.execute(
        "DELETE FROM serve_spend_holds WHERE tenant = ?1 AND day = ?2 AND expires_at <= ?3",
        params![hold.tenant, hold.day, now],
    )?;
    let spend = spend_sqlite(&tx, &hold.tenant, hold.day)?;
    let held = tx.query_row(
        "SELECT COALESCE(SUM(cost_nanos), 0), COALESCE(SUM(tokens), 0) FROM serve_spend_holds \
         WHERE tenant = ?1 AND day = ?2",
        params![hold.tenant, hold.day],
        |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)),
    )?;
    let total = with_holds(spend, held);
    if !fits(limits, &total, hold) {
        return Ok(Held::Refused(total));
    }
    tx.execute(
        "INSERT INTO serve_spend_holds (id, tenant, day, cost_nanos, tokens, expires_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![hold.id, hold.tenant, hold.day, hold.cost_nanos, hold.tokens, hold.expires_at],
    )?;
    tx.execute(ADD_SQLITE, params![hold.tenant, hold.day, 0, 0, 0, 1])?;
    tx.commit()?;
    Ok(Held::Taken)
}

/// Ends the hold `id` (SQLite); with `used`, adds what the call used to its day.
pub fn sqlite_settle(c: &mut Connection, tenant: &str, day: i64, id: &str, used: Option<DailySpend>) -> Result<()> {
    let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
    tx.execute("DELETE FROM serve_spend_holds WHERE id = ?1", params![id])?;
    if let Some(u) = used {
        tx.execute(ADD_SQLITE, params![tenant, day, u.cost_nanos, u.unpriced, u.tokens, u.model_calls])?;
    }
    tx.commit()?;
    Ok(())
}

#[cfg(feature = "postgres")]
mod pg {
    use super::{DailySpend, Held, Hold, Limits, Result, fits, with_holds};

    const ADD: &str = "INSERT INTO serve_spend (tenant, day, cost_nanos, unpriced, tokens, model_calls) \
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (tenant, day) DO UPDATE SET \
         cost_nanos = serve_spend.cost_nanos + EXCLUDED.cost_nanos, \
         unpriced = serve_spend.unpriced + EXCLUDED.unpriced, \
         tokens = serve_spend.tokens + EXCLUDED.tokens, \
         model_calls = serve_spend.model_calls + EXCLUDED.model_calls";

    const SPEND: &str =
        "SELECT cost_nanos, unpriced, tokens, model_calls FROM serve_spend WHERE tenant = $1 AND day = $2";

    fn spend(row: Option<tokio_postgres::Row>) -> DailySpend {
        row.map_or_else(DailySpend::default, |r| DailySpend {
            cost_nanos: r.get(0),
            unpriced: r.get(1),
            tokens: r.get(2),
            model_calls: r.get(3),
        })
    }

    /// What the tenant spent on `day` (PostgreSQL).
    pub async fn postgres_spend(client: &deadpool_postgres::Object, tenant: &str, day: i64) -> Result<DailySpend> {
        Ok(spend(client.query_opt(SPEND, &[&tenant, &day]).await?))
    }

    /// Takes `hold` if it fits `limits` at `now` (PostgreSQL): the day's row is locked
    /// first, so holds of one tenant's day are taken one at a time, on every instance.
    pub async fn postgres_hold(
        client: &mut deadpool_postgres::Object,
        hold: &Hold,
        limits: Limits,
        now: i64,
    ) -> Result<Held> {
        let tx = client.transaction().await?;
        let (tenant, day) = (&hold.tenant, &hold.day);
        tx.execute(
            "INSERT INTO serve_spend (tenant, day, cost_nanos, unpriced, tokens, model_calls) \
             VALUES ($1, $2, 0, 0, 0, 0) ON CONFLICT (tenant, day) DO NOTHING",
            &[tenant, day],
        )
        .await?;
        let row = tx.query_opt(format!("{SPEND} FOR UPDATE").as_str(), &[tenant, day]).await?;
        tx.execute(
            "DELETE FROM serve_spend_holds WHERE tenant = $1 AND day = $2 AND expires_at <= $3",
            &[tenant, day, &now],
        )
        .await?;
        let held = tx
            .query_one(
                "SELECT COALESCE(SUM(cost_nanos), 0)::BIGINT, COALESCE(SUM(tokens), 0)::BIGINT \
                 FROM serve_spend_holds WHERE tenant = $1 AND day = $2",
                &[tenant, day],
            )
            .await?;
        let total = with_holds(spend(row), (held.get(0), held.get(1)));
        if !fits(limits, &total, hold) {
            return Ok(Held::Refused(total));
        }
        tx.execute(
            "INSERT INTO serve_spend_holds (id, tenant, day, cost_nanos, tokens, expires_at) \
             VALUES ($1, $2, $3, $4, $5, $6)",
            &[&hold.id, tenant, day, &hold.cost_nanos, &hold.tokens, &hold.expires_at],
        )
        .await?;
        tx.execute(
            "UPDATE serve_spend SET model_calls = model_calls + 1 WHERE tenant = $1 AND day = $2",
            &[tenant, day],
        )
        .await?;
        tx.commit().await?;
        Ok(Held::Taken)
    }

    /// Ends the hold `id` (PostgreSQL); with `used`, adds what the call used to its day.
    pub async fn postgres_settle(
        client: &mut deadpool_postgres::Object,
        tenant: &str,
        day: i64,
        id: &str,
        used: Option<DailySpend>,
    ) -> Result<()> {
        let tx = client.transaction().await?;
        tx.execute("DELETE FROM serve_spend_holds WHERE id = $1", &[&id]).await?;
        if let Some(u) = used {
            tx.execute(ADD, &[&tenant, &day, &u.cost_nanos, &u.unpriced, &u.tokens, &u.model_calls]).await?;
        }
        tx.commit().await?;
        Ok(())
    }
}

#[cfg(feature = "postgres")]
pub use pg::{postgres_hold, postgres_settle, postgres_spend};
