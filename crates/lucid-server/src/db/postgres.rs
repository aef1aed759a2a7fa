//! The server's tables in the PostgreSQL database of the session store, shared by every
//! instance: created once under an advisory lock, runs claimed with
//! `FOR UPDATE SKIP LOCKED` so two instances never take the same one.

use deadpool_postgres::Pool;
use futures::future::BoxFuture;
use serde_json::Value;
use tokio_postgres::Row;
use tokio_postgres::error::SqlState;
use tokio_postgres::types::ToSql;

/// A statement's parameters.
type Params<'p> = &'p [&'p (dyn ToSql + Sync)];

use lucid::agent::budget::Limits;

use super::{
    Claimed, DailySpend, HashMap, Held, Hold, Removal, Renewed, Result, RunInput, RunRow, RunStatus, RunStore,
    SessionRow, StoredEvent, StoredKey, Usage, Waiting, attachments, event_bytes, json_bytes, json_or_null, kind,
};

/// An arbitrary constant naming the advisory lock that serializes the tables' creation.
const SCHEMA_LOCK: i64 = 0x6c75_6369_6473_7276; // "lucidsrv"

/// The server's tables in PostgreSQL.
#[derive(Clone)]
pub struct PostgresDb {
    pool: Pool,
}

/// Whether a write went through: false when the one-active-run-per-session index said no.
fn not_unique(r: std::result::Result<u64, tokio_postgres::Error>) -> Result<bool> {
    match r {
        Ok(n) => Ok(n > 0),
        Err(e) if e.code() == Some(&SqlState::UNIQUE_VIOLATION) => Ok(false),
        Err(e) => Err(e.into()),
    }
}

fn session_row(r: &Row) -> Result<SessionRow> {
    Ok(SessionRow {
        id: r.get(0),
        agent: r.get(1),
        metadata: serde_json::from_str(r.get::<_, &str>(2))?,
        created_at: r.get(3),
    })
}

fn stored_event(r: &Row) -> StoredEvent {
    StoredEvent { seq: r.get::<_, i64>(0) as u64, kind: kind(r.get::<_, &str>(1)), data: r.get(2) }
}

async fn insert_events(tx: &deadpool_postgres::Transaction<'_>, id: &str, events: &[StoredEvent]) -> Result<()> {
    if events.is_empty() {
        return Ok(());
    }
    let seqs: Vec<i64> = events.iter().map(|e| e.seq as i64).collect();
    let kinds: Vec<&str> = events.iter().map(|e| e.kind).collect();
    let data: Vec<&str> = events.iter().map(|e| e.data.as_str()).collect();
    tx.execute(
        "INSERT INTO serve_events (run_id, seq, kind, data) \
         SELECT $1, * FROM UNNEST($2::BIGINT[], $3::TEXT[], $4::TEXT[])",
        &[&id, &seqs, &kinds, &data],
    )
    .await?;
    Ok(())
}

impl PostgresDb {
    /// Creates the tables if missing.
    pub async fn open(pool: Pool) -> Result<PostgresDb> {
        let mut client = pool.get().await?;
        let tx = client.transaction().await?;
        tx.execute("SELECT pg_advisory_xact_lock($1)", &[&SCHEMA_LOCK]).await?;
        tx.batch_execute(super::schema::POSTGRES).await?;
        tx.commit().await?;
        Ok(PostgresDb { pool })
    }

    async fn client(&self) -> Result<deadpool_postgres::Object> {
        Ok(self.pool.get().await?)
    }

    /// One statement on a pooled connection: how many rows it changed.
    async fn execute(&self, sql: &str, params: Params<'_>) -> Result<u64> {
        Ok(self.client().await?.execute(sql, params).await?)
    }

    /// One query on a pooled connection: its rows.
    async fn query(&self, sql: &str, params: Params<'_>) -> Result<Vec<Row>> {
        Ok(self.client().await?.query(sql, params).await?)
    }

    /// One query on a pooled connection: its row, if any (an error for more than one).
    async fn query_opt(&self, sql: &str, params: Params<'_>) -> Result<Option<Row>> {
        Ok(self.client().await?.query_opt(sql, params).await?)
    }

    /// One query on a pooled connection: its one row (an error for none or more).
    async fn query_one(&self, sql: &str, params: Params<'_>) -> Result<Row> {
        Ok(self.client().await?.query_one(sql, params).await?)
    }
}

impl RunStore for PostgresDb {
    fn ping(&self) -> BoxFuture<'_, Result<()>> {
        Box::pin(async move {
            self.client().await?.simple_query("SELECT 1").await?;
            Ok(())
        })
    }

    fn create_session<'a>(&'a self, tenant: &'a str, row: &'a SessionRow) -> BoxFuture<'a, Result<()>> {
        Box::pin(async move {
            let metadata = row.metadata.to_string();
            self.execute(
                "INSERT INTO serve_sessions (id, tenant, agent, metadata, created_at, bytes) \
                     VALUES ($1, $2, $3, $4, $5, $6)",
                &[&row.id, &tenant, &row.agent, &metadata, &row.created_at, &(metadata.len() as i64)],
            )
            .await?;
            Ok(())
        })
    }

    fn session<'a>(&'a self, tenant: &'a str, id: &'a str) -> BoxFuture<'a, Result<Option<SessionRow>>> {
        Box::pin(async move {
            let row = self
                .query_opt(
                    "SELECT id, agent, metadata, created_at FROM serve_sessions WHERE tenant = $1 AND id = $2",
                    &[&tenant, &id],
                )
                .await?;
            row.as_ref().map(session_row).transpose()
        })
    }

    fn sessions<'a>(
        &'a self,
        tenant: &'a str,
        limit: usize,
        offset: usize,
        with_metadata: bool,
    ) -> BoxFuture<'a, Result<Vec<SessionRow>>> {
        Box::pin(async move {
            let metadata = if with_metadata { "metadata" } else { "'null'" };
            let rows = self
                .query(
                    &format!(
                        "SELECT id, agent, {metadata}, created_at FROM serve_sessions WHERE tenant = $1 \
                         ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3"
                    ),
                    &[&tenant, &(limit as i64), &(offset as i64)],
                )
                .await?;
            rows.iter().map(session_row).collect()
        })
    }

    fn usage<'a>(&'a self, tenant: &'a str) -> BoxFuture<'a, Result<Usage>> {
        Box::pin(async move {
            let row = self
                .query_one(
                    "SELECT (SELECT COUNT(*) FROM serve_sessions WHERE tenant = $1)::BIGINT, \
                     ((SELECT COALESCE(SUM(bytes), 0) FROM serve_sessions WHERE tenant = $1) \
                     + (SELECT COALESCE(SUM(bytes), 0) FROM serve_runs WHERE tenant = $1) \
                     + (SELECT COALESCE(SUM(bytes), 0) FROM serve_responses WHERE tenant = $1))::BIGINT",
                    &[&tenant],
                )
                .await?;
            let (sessions, bytes): (i64, i64) = (row.get(0), row.get(1));
            Ok(Usage { sessions: sessions.max(0) as u64, bytes: bytes.max(0) as u64 })
        })
    }

    fn insert_response<'a>(&'a self, tenant: &'a str, id: &'a str, bytes: i64, now: i64) -> BoxFuture<'a, Result<()>> {
        Box::pin(async move {
            self.execute(
                "INSERT INTO serve_responses (id, tenant, bytes, created_at) VALUES ($1, $2, $3, $4)",
                &[&id, &tenant, &bytes, &now],
            )
            .await?;
            Ok(())
        })
    }

    fn delete_response<'a>(&'a self, tenant: &'a str, id: &'a str) -> BoxFuture<'a, Result<bool>> {
        Box::pin(async move {
            let client = self.client().await?;
            Ok(client.execute("DELETE FROM serve_responses WHERE tenant = $1 AND id = $2", &[&tenant, &id]).await? > 0)
        })
    }

    fn delete_session<'a>(&'a self, tenant: &'a str, id: &'a str) -> BoxFuture<'a, Result<Removal>> {
        Box::pin(async move {
            let mut client = self.client().await?;
            let tx = client.transaction().await?;
            let gone = tx
                .execute(
                    "DELETE FROM serve_sessions WHERE tenant = $1 AND id = $2 AND NOT EXISTS \
                     (SELECT 1 FROM serve_runs WHERE session_id = $2 AND status IN ('queued', 'running'))",
                    &[&tenant, &id],
                )
                .await?;
            let removal = if gone > 0 {
                tx.execute(
                    "DELETE FROM serve_events WHERE run_id IN (SELECT id FROM serve_runs WHERE session_id = $1)",
                    &[&id],
                )
                .await?;
                tx.execute("DELETE FROM serve_runs WHERE session_id = $1", &[&id]).await?;
                Removal::Deleted
            } else {
                let kept =
                    tx.query_opt("SELECT 1 FROM serve_sessions WHERE tenant = $1 AND id = $2", &[&tenant, &id]).await?;
                if kept.is_some() { Removal::Busy } else { Removal::Missing }
            };
            tx.commit().await?;
            Ok(removal)
        })
    }

    fn insert_run<'a>(
        &'a self,
        tenant: &'a str,
        row: &'a RunRow,
        input: &'a RunInput,
        owner: &'a str,
        lease_until: i64,
    ) -> BoxFuture<'a, Result<bool>> {
        Box::pin(async move {
            let mut client = self.client().await?;
            let tx = client.transaction().await?;
            let r = tx
                .execute(
                    "INSERT INTO serve_runs (id, tenant, session_id, status, created_at, updated_at, owner, lease_until, \
                     input, bytes, input_parts) VALUES ($1, $2, $3, $4, $5, $5, $6, $7, $8, $9, $10)",
                    &[
                        &row.id,
                        &tenant,
                        &row.session_id,
                        &row.status.as_str(),
                        &row.created_at,
                        &owner,
                        &lease_until,
                        &input.text,
                        &input.bytes,
                        &input.parts,
                    ],
                )
                .await;
            // Refused: the transaction rolls back as it drops, keeping none of the blobs.
            if !not_unique(r)? {
                return Ok(false);
            }
            attachments::keep_postgres(&tx, &row.session_id, &input.blobs).await?;
            tx.commit().await?;
            Ok(true)
        })
    }

    fn attachments<'a>(&'a self, hashes: Vec<String>) -> BoxFuture<'a, Result<HashMap<String, Vec<u8>>>> {
        Box::pin(async move { attachments::fetch_postgres(&self.client().await?, &hashes).await })
    }

    fn move_run<'a>(&'a self, id: &'a str, from: RunStatus, to: RunStatus, now: i64) -> BoxFuture<'a, Result<bool>> {
        Box::pin(async move {
            let r = self
                .client()
                .await?
                .execute(
                    "UPDATE serve_runs SET status = $1, updated_at = $2 WHERE id = $3 AND status = $4",
                    &[&to.as_str(), &now, &id, &from.as_str()],
                )
                .await;
            not_unique(r)
        })
    }

    fn continue_run<'a>(
        &'a self,
        id: &'a str,
        from: RunStatus,
        input: Option<&'a RunInput>,
        owner: &'a str,
        lease_until: i64,
        now: i64,
    ) -> BoxFuture<'a, Result<bool>> {
        Box::pin(async move {
            let added = input.map_or(0, |i| i.bytes);
            let (text, parts) = input.map_or((None, None), |i| (Some(&i.text), i.parts.as_ref()));
            let mut client = self.client().await?;
            let tx = client.transaction().await?;
            let r = tx
                .execute(
                    "UPDATE serve_runs SET status = 'running', owner = $1, lease_until = $2, cancel_requested = FALSE, \
                     updated_at = $3, input = COALESCE($5, input), bytes = bytes + $6, \
                     input_parts = CASE WHEN $5::TEXT IS NULL THEN input_parts ELSE $8 END WHERE id = $4 AND status = $7",
                    &[&owner, &lease_until, &now, &id, &text, &added, &from.as_str(), &parts],
                )
                .await;
            if !not_unique(r)? {
                return Ok(false);
            }
            attachments::keep_postgres_for_run(&tx, id, input.map_or(&[], |i| &i.blobs)).await?;
            tx.commit().await?;
            Ok(true)
        })
    }

    fn waiting_since<'a>(&'a self, before: i64, limit: usize) -> BoxFuture<'a, Result<Vec<Waiting>>> {
        Box::pin(async move {
            let rows = self
                .query(
                    "SELECT r.id, r.tenant, r.session_id, s.agent FROM serve_runs r JOIN serve_sessions s \
                     ON s.id = r.session_id WHERE r.status = 'needs_approval' AND r.updated_at <= $1 \
                     ORDER BY r.updated_at LIMIT $2",
                    &[&before, &(limit as i64)],
                )
                .await?;
            Ok(rows
                .iter()
                .map(|r| Waiting { id: r.get(0), tenant: r.get(1), session_id: r.get(2), agent: r.get(3) })
                .collect())
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn finish_run<'a>(
        &'a self,
        id: &'a str,
        owner: &'a str,
        status: RunStatus,
        result: Option<Value>,
        error: Option<Value>,
        events: Vec<StoredEvent>,
        now: i64,
    ) -> BoxFuture<'a, Result<bool>> {
        Box::pin(async move {
            let mut client = self.client().await?;
            let tx = client.transaction().await?;
            let ((result, r), (error, e)) = (json_bytes(&result), json_bytes(&error));
            let owned = tx
                .execute(
                    "UPDATE serve_runs SET status = $1, result = $2, error = $3, updated_at = $4, owner = NULL, \
                     lease_until = 0, bytes = bytes + $7 WHERE id = $5 AND owner = $6 AND status = 'running'",
                    &[&status.as_str(), &result, &error, &now, &id, &owner, &(r + e + event_bytes(&events))],
                )
                .await?;
            if owned == 0 {
                return Ok(false);
            }
            insert_events(&tx, id, &events).await?;
            tx.commit().await?;
            Ok(true)
        })
    }

    fn append_events<'a>(
        &'a self,
        id: &'a str,
        owner: &'a str,
        events: Vec<StoredEvent>,
    ) -> BoxFuture<'a, Result<bool>> {
        Box::pin(async move {
            let mut client = self.client().await?;
            let tx = client.transaction().await?;
            // Locks the run's row: a claim waits for these events, and skips the run meanwhile.
            let owned = tx
                .execute(
                    "UPDATE serve_runs SET bytes = bytes + $3 WHERE id = $1 AND owner = $2 AND status = 'running'",
                    &[&id, &owner, &event_bytes(&events)],
                )
                .await?;
            if owned == 0 {
                return Ok(false);
            }
            insert_events(&tx, id, &events).await?;
            tx.commit().await?;
            Ok(true)
        })
    }

    fn renew<'a>(&'a self, owner: &'a str, lease_until: i64) -> BoxFuture<'a, Result<Vec<Renewed>>> {
        Box::pin(async move {
            let rows = self
                .query(
                    "UPDATE serve_runs SET lease_until = $1 WHERE owner = $2 AND status = 'running' \
                     RETURNING id, cancel_requested",
                    &[&lease_until, &owner],
                )
                .await?;
            Ok(rows.iter().map(|r| Renewed { id: r.get(0), cancel_requested: r.get(1) }).collect())
        })
    }

    fn release<'a>(&'a self, owner: &'a str, ids: Vec<String>) -> BoxFuture<'a, Result<()>> {
        Box::pin(async move {
            self.execute(
                "UPDATE serve_runs SET owner = NULL, lease_until = 0 WHERE id = ANY($1) AND owner = $2 \
                     AND status = 'running'",
                &[&ids, &owner],
            )
            .await?;
            Ok(())
        })
    }

    fn other_owners<'a>(&'a self, owner: &'a str, now: i64) -> BoxFuture<'a, Result<Vec<String>>> {
        Box::pin(async move {
            let rows = self
                .query(
                    "SELECT DISTINCT owner FROM serve_runs WHERE status = 'running' AND owner IS NOT NULL \
                     AND owner <> $1 AND lease_until >= $2",
                    &[&owner, &now],
                )
                .await?;
            Ok(rows.iter().map(|r| r.get(0)).collect())
        })
    }

    fn claim<'a>(
        &'a self,
        owner: &'a str,
        lease_until: i64,
        now: i64,
        gone: Vec<String>,
        limit: usize,
    ) -> BoxFuture<'a, Result<Vec<Claimed>>> {
        Box::pin(async move {
            let rows = self
                .query(
                    "WITH free AS (
                     SELECT id FROM serve_runs
                     WHERE status = 'running' AND (owner IS NULL OR owner <> $1)
                       AND (lease_until < $3 OR owner IS NULL OR owner = ANY($4))
                     ORDER BY lease_until LIMIT $5
                     FOR UPDATE SKIP LOCKED)
                 UPDATE serve_runs r SET owner = $1, lease_until = $2, generation = r.generation + 1
                 FROM free, serve_sessions s
                 WHERE r.id = free.id AND s.id = r.session_id
                 RETURNING r.id, r.tenant, r.session_id, s.agent, r.generation, r.cancel_requested, r.input, \
                 r.input_parts",
                    &[&owner, &lease_until, &now, &gone, &(limit as i64)],
                )
                .await?;
            Ok(rows
                .iter()
                .map(|r| Claimed {
                    id: r.get(0),
                    tenant: r.get(1),
                    session_id: r.get(2),
                    agent: r.get(3),
                    generation: r.get(4),
                    cancel_requested: r.get(5),
                    input: RunInput {
                        text: r.get::<_, Option<String>>(6).unwrap_or_default(),
                        parts: r.get(7),
                        bytes: 0,
                        blobs: Vec::new(),
                    },
                })
                .collect())
        })
    }

    fn insert_key<'a>(&'a self, row: &'a StoredKey, hash: &'a str) -> BoxFuture<'a, Result<()>> {
        Box::pin(async move {
            self.execute(
                "INSERT INTO serve_keys (id, tenant, hash, created_at) VALUES ($1, $2, $3, $4)",
                &[&row.id, &row.tenant, &hash, &row.created_at],
            )
            .await?;
            Ok(())
        })
    }

    fn keys(&self) -> BoxFuture<'_, Result<Vec<StoredKey>>> {
        Box::pin(async move {
            let rows = self.query("SELECT id, tenant, created_at FROM serve_keys ORDER BY created_at, id", &[]).await?;
            Ok(rows.iter().map(|r| StoredKey { id: r.get(0), tenant: r.get(1), created_at: r.get(2) }).collect())
        })
    }

    fn revoke_key<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool>> {
        Box::pin(async move { Ok(self.execute("DELETE FROM serve_keys WHERE id = $1", &[&id]).await? > 0) })
    }

    fn key_tenant<'a>(&'a self, hash: &'a str) -> BoxFuture<'a, Result<Option<String>>> {
        Box::pin(async move {
            let row = self.query_opt("SELECT tenant FROM serve_keys WHERE hash = $1", &[&hash]).await?;
            Ok(row.map(|r| r.get(0)))
        })
    }

    fn request_cancel<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool>> {
        Box::pin(async move {
            let n = self
                .execute("UPDATE serve_runs SET cancel_requested = TRUE WHERE id = $1 AND status = 'running'", &[&id])
                .await?;
            Ok(n > 0)
        })
    }

    fn run<'a>(&'a self, tenant: &'a str, id: &'a str) -> BoxFuture<'a, Result<Option<RunRow>>> {
        Box::pin(async move {
            let row = self
                .query_opt(
                    "SELECT id, session_id, status, result, error, created_at, updated_at, input, input_parts \
                     FROM serve_runs WHERE tenant = $1 AND id = $2",
                    &[&tenant, &id],
                )
                .await?;
            row.map(|r| {
                Ok(RunRow {
                    id: r.get(0),
                    session_id: r.get(1),
                    status: RunStatus::parse(r.get::<_, &str>(2)),
                    result: json_or_null(r.get(3))?,
                    error: json_or_null(r.get(4))?,
                    created_at: r.get(5),
                    updated_at: r.get(6),
                    input: RunInput::shown(r.get(7), r.get(8))?,
                })
            })
            .transpose()
        })
    }

    fn run_status<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<RunStatus>>> {
        Box::pin(async move {
            let row = self.query_opt("SELECT status FROM serve_runs WHERE id = $1", &[&id]).await?;
            Ok(row.map(|r| RunStatus::parse(r.get::<_, &str>(0))))
        })
    }

    fn events_after<'a>(&'a self, id: &'a str, after: u64) -> BoxFuture<'a, Result<Vec<StoredEvent>>> {
        Box::pin(async move {
            let rows = self
                .query(
                    "SELECT seq, kind, data FROM serve_events WHERE run_id = $1 AND seq > $2 ORDER BY seq",
                    &[&id, &(after.min(i64::MAX as u64) as i64)],
                )
                .await?;
            Ok(rows.iter().map(stored_event).collect())
        })
    }

    fn last_event<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<u64>> {
        Box::pin(async move {
            let row =
                self.query_one("SELECT COALESCE(MAX(seq), 0) FROM serve_events WHERE run_id = $1", &[&id]).await?;
            Ok(row.get::<_, i64>(0) as u64)
        })
    }

    fn spend<'a>(&'a self, tenant: &'a str, day: i64) -> BoxFuture<'a, Result<DailySpend>> {
        Box::pin(async move { super::spend::postgres_spend(&self.client().await?, tenant, day).await })
    }

    fn hold<'a>(&'a self, hold: &'a Hold, limits: Limits, now: i64) -> BoxFuture<'a, Result<Held>> {
        Box::pin(async move { super::spend::postgres_hold(&mut self.client().await?, hold, limits, now).await })
    }

    fn settle<'a>(
        &'a self,
        tenant: &'a str,
        day: i64,
        id: &'a str,
        used: Option<DailySpend>,
    ) -> BoxFuture<'a, Result<()>> {
        Box::pin(async move { super::spend::postgres_settle(&mut self.client().await?, tenant, day, id, used).await })
    }
}
