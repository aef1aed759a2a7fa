//! The server's tables in the SQLite file of the session store: one instance. Work goes
//! through `spawn_blocking`, never on the runtime's threads.

use std::path::Path;
use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use rusqlite::{Connection, OptionalExtension, params};
use serde_json::Value;

use lucid::agent::budget::Limits;

use super::{
    Claimed, DailySpend, HashMap, Held, Hold, Removal, Renewed, Result, RunInput, RunRow, RunStatus, RunStore,
    SessionRow, StoredEvent, StoredKey, Usage, Waiting, attachments, event_bytes, json_bytes, json_or_null, kind,
};

/// The server's tables in one SQLite file.
#[derive(Clone)]
pub struct SqliteDb {
    conn: Arc<Mutex<Connection>>,
}

impl SqliteDb {
    /// Opens (or creates) the tables in the SQLite file at `path`.
    pub async fn open(path: &Path) -> Result<SqliteDb> {
        let path = path.to_path_buf();
        let conn = tokio::task::spawn_blocking(move || -> Result<Connection> {
            let conn = Connection::open(path)?;
            conn.busy_timeout(std::time::Duration::from_secs(5))?;
            super::schema::sqlite(&conn)?;
            Ok(conn)
        })
        .await??;
        Ok(SqliteDb { conn: Arc::new(Mutex::new(conn)) })
    }

    /// Runs `f` on the connection on a blocking thread.
    fn with<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Connection) -> Result<T> + Send + 'static,
    ) -> BoxFuture<'static, Result<T>> {
        let conn = Arc::clone(&self.conn);
        Box::pin(async move {
            tokio::task::spawn_blocking(move || {
                let mut conn = conn.lock().unwrap_or_else(|p| p.into_inner());
                f(&mut conn)
            })
            .await?
        })
    }
}

impl RunStore for SqliteDb {
    fn ping(&self) -> BoxFuture<'_, Result<()>> {
        self.with(|c| Ok(c.query_row("SELECT 1", [], |_| Ok(()))?))
    }

    fn create_session<'a>(&'a self, tenant: &'a str, row: &'a SessionRow) -> BoxFuture<'a, Result<()>> {
        let (tenant, row) = (tenant.to_string(), row.clone());
        self.with(move |c| {
            let metadata = row.metadata.to_string();
            c.execute(
                "INSERT INTO serve_sessions (id, tenant, agent, metadata, created_at, bytes) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![row.id, tenant, row.agent, metadata, row.created_at, metadata.len() as i64],
            )?;
            Ok(())
        })
    }

    fn session<'a>(&'a self, tenant: &'a str, id: &'a str) -> BoxFuture<'a, Result<Option<SessionRow>>> {
        let (tenant, id) = (tenant.to_string(), id.to_string());
        self.with(move |c| {
            let row = c
                .query_row(
                    "SELECT id, agent, metadata, created_at FROM serve_sessions WHERE tenant = ?1 AND id = ?2",
                    params![tenant, id],
                    |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?, r.get(3)?)),
                )
                .optional()?;
            row.map(|(id, agent, metadata, created_at)| {
                Ok(SessionRow { id, agent, metadata: serde_json::from_str(&metadata)?, created_at })
            })
            .transpose()
        })
    }

    fn sessions<'a>(
        &'a self,
        tenant: &'a str,
        limit: usize,
        offset: usize,
        with_metadata: bool,
    ) -> BoxFuture<'a, Result<Vec<SessionRow>>> {
        let tenant = tenant.to_string();
        self.with(move |c| {
            let metadata = if with_metadata { "metadata" } else { "'null'" };
            let mut stmt = c.prepare(&format!(
                "SELECT id, agent, {metadata}, created_at FROM serve_sessions WHERE tenant = ?1 \
                 ORDER BY created_at DESC, id DESC LIMIT ?2 OFFSET ?3"
            ))?;
            let rows = stmt.query_map(params![tenant, limit as i64, offset as i64], |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?, r.get(3)?))
            })?;
            let mut out = Vec::new();
            for row in rows {
                let (id, agent, metadata, created_at) = row?;
                out.push(SessionRow { id, agent, metadata: serde_json::from_str(&metadata)?, created_at });
            }
            Ok(out)
        })
    }

    fn usage<'a>(&'a self, tenant: &'a str) -> BoxFuture<'a, Result<Usage>> {
        let tenant = tenant.to_string();
        self.with(move |c| {
            let (sessions, bytes): (i64, i64) = c.query_row(
                "SELECT (SELECT COUNT(*) FROM serve_sessions WHERE tenant = ?1), \
                 (SELECT COALESCE(SUM(bytes), 0) FROM serve_sessions WHERE tenant = ?1) \
                 + (SELECT COALESCE(SUM(bytes), 0) FROM serve_runs WHERE tenant = ?1) \
                 + (SELECT COALESCE(SUM(bytes), 0) FROM serve_responses WHERE tenant = ?1)",
                params![tenant],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )?;
            Ok(Usage { sessions: sessions.max(0) as u64, bytes: bytes.max(0) as u64 })
        })
    }

    fn insert_response<'a>(&'a self, tenant: &'a str, id: &'a str, bytes: i64, now: i64) -> BoxFuture<'a, Result<()>> {
        let (tenant, id) = (tenant.to_string(), id.to_string());
        self.with(move |c| {
            c.execute(
                "INSERT INTO serve_responses (id, tenant, bytes, created_at) VALUES (?1, ?2, ?3, ?4)",
                params![id, tenant, bytes, now],
            )?;
            Ok(())
        })
    }

    fn delete_response<'a>(&'a self, tenant: &'a str, id: &'a str) -> BoxFuture<'a, Result<bool>> {
        let (tenant, id) = (tenant.to_string(), id.to_string());
        self.with(move |c| {
            Ok(c.execute("DELETE FROM serve_responses WHERE tenant = ?1 AND id = ?2", params![tenant, id])? > 0)
        })
    }

    fn delete_session<'a>(&'a self, tenant: &'a str, id: &'a str) -> BoxFuture<'a, Result<Removal>> {
        let (tenant, id) = (tenant.to_string(), id.to_string());
        self.with(move |c| {
            let tx = c.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
            let gone = tx.execute(
                "DELETE FROM serve_sessions WHERE tenant = ?1 AND id = ?2 AND NOT EXISTS \
                 (SELECT 1 FROM serve_runs WHERE session_id = ?2 AND status IN ('queued', 'running'))",
                params![tenant, id],
            )?;
            let removal = if gone > 0 {
                tx.execute(
                    "DELETE FROM serve_events WHERE run_id IN (SELECT id FROM serve_runs WHERE session_id = ?1)",
                    params![id],
                )?;
                tx.execute("DELETE FROM serve_runs WHERE session_id = ?1", params![id])?;
                Removal::Deleted
            } else {
                let kept: i64 = tx.query_row(
                    "SELECT COUNT(*) FROM serve_sessions WHERE tenant = ?1 AND id = ?2",
                    params![tenant, id],
                    |r| r.get(0),
                )?;
                if kept > 0 { Removal::Busy } else { Removal::Missing }
            };
            tx.commit()?;
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
        let (tenant, row, input, owner) = (tenant.to_string(), row.clone(), input.clone(), owner.to_string());
        self.with(move |c| {
            let tx = c.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
            let r = tx.execute(
                "INSERT INTO serve_runs (id, tenant, session_id, status, created_at, updated_at, owner, lease_until, \
                 input, bytes, input_parts) VALUES (?1, ?2, ?3, ?4, ?5, ?5, ?6, ?7, ?8, ?9, ?10)",
                params![
                    row.id,
                    tenant,
                    row.session_id,
                    row.status.as_str(),
                    row.created_at,
                    owner,
                    lease_until,
                    input.text,
                    input.bytes,
                    input.parts
                ],
            );
            // Refused: the transaction rolls back as it drops, keeping none of the blobs.
            if !not_unique(r)? {
                return Ok(false);
            }
            attachments::keep_sqlite(&tx, &row.session_id, &input.blobs)?;
            tx.commit()?;
            Ok(true)
        })
    }

    fn attachments<'a>(&'a self, hashes: Vec<String>) -> BoxFuture<'a, Result<HashMap<String, Vec<u8>>>> {
        self.with(move |c| attachments::fetch_sqlite(c, &hashes))
    }

    fn move_run<'a>(&'a self, id: &'a str, from: RunStatus, to: RunStatus, now: i64) -> BoxFuture<'a, Result<bool>> {
        let id = id.to_string();
        self.with(move |c| {
            let r = c.execute(
                "UPDATE serve_runs SET status = ?1, updated_at = ?2 WHERE id = ?3 AND status = ?4",
                params![to.as_str(), now, id, from.as_str()],
            );
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
        let (id, input, owner) = (id.to_string(), input.cloned(), owner.to_string());
        let added = input.as_ref().map_or(0, |i| i.bytes);
        let (text, parts, blobs) = input.map_or((None, None, Vec::new()), |i| (Some(i.text), i.parts, i.blobs));
        self.with(move |c| {
            let tx = c.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
            let r = tx.execute(
                "UPDATE serve_runs SET status = 'running', owner = ?1, lease_until = ?2, cancel_requested = 0, \
                 updated_at = ?3, input = COALESCE(?5, input), bytes = bytes + ?6, \
                 input_parts = CASE WHEN ?5 IS NULL THEN input_parts ELSE ?8 END WHERE id = ?4 AND status = ?7",
                params![owner, lease_until, now, id, text, added, from.as_str(), parts],
            );
            if !not_unique(r)? {
                return Ok(false);
            }
            attachments::keep_sqlite_for_run(&tx, &id, &blobs)?;
            tx.commit()?;
            Ok(true)
        })
    }

    fn waiting_since<'a>(&'a self, before: i64, limit: usize) -> BoxFuture<'a, Result<Vec<Waiting>>> {
        self.with(move |c| {
            let mut stmt = c.prepare(
                "SELECT r.id, r.tenant, r.session_id, s.agent FROM serve_runs r JOIN serve_sessions s \
                 ON s.id = r.session_id WHERE r.status = 'needs_approval' AND r.updated_at <= ?1 \
                 ORDER BY r.updated_at LIMIT ?2",
            )?;
            let rows = stmt.query_map(params![before, limit as i64], |r| {
                Ok(Waiting { id: r.get(0)?, tenant: r.get(1)?, session_id: r.get(2)?, agent: r.get(3)? })
            })?;
            Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
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
        let (id, owner) = (id.to_string(), owner.to_string());
        self.with(move |c| {
            let tx = c.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
            let ((result, r), (error, e)) = (json_bytes(&result), json_bytes(&error));
            let owned = tx.execute(
                "UPDATE serve_runs SET status = ?1, result = ?2, error = ?3, updated_at = ?4, owner = NULL, \
                 lease_until = 0, bytes = bytes + ?7 WHERE id = ?5 AND owner = ?6 AND status = 'running'",
                params![status.as_str(), result, error, now, id, owner, r + e + event_bytes(&events)],
            )?;
            if owned == 0 {
                return Ok(false);
            }
            insert_events(&tx, &id, &events)?;
            tx.commit()?;
            Ok(true)
        })
    }

    fn append_events<'a>(
        &'a self,
        id: &'a str,
        owner: &'a str,
        events: Vec<StoredEvent>,
    ) -> BoxFuture<'a, Result<bool>> {
        let (id, owner) = (id.to_string(), owner.to_string());
        self.with(move |c| {
            let tx = c.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
            let owned = tx.execute(
                "UPDATE serve_runs SET bytes = bytes + ?3 WHERE id = ?1 AND owner = ?2 AND status = 'running'",
                params![id, owner, event_bytes(&events)],
            )?;
            if owned == 0 {
                return Ok(false);
            }
            insert_events(&tx, &id, &events)?;
            tx.commit()?;
            Ok(true)
        })
    }

    fn renew<'a>(&'a self, owner: &'a str, lease_until: i64) -> BoxFuture<'a, Result<Vec<Renewed>>> {
        let owner = owner.to_string();
        self.with(move |c| {
            let mut stmt = c.prepare_cached(
                "UPDATE serve_runs SET lease_until = ?1 WHERE owner = ?2 AND status = 'running' \
                 RETURNING id, cancel_requested",
            )?;
            let rows = stmt.query_map(params![lease_until, owner], |r| {
                Ok(Renewed { id: r.get(0)?, cancel_requested: r.get::<_, i64>(1)? != 0 })
            })?;
            Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
        })
    }

    fn release<'a>(&'a self, owner: &'a str, ids: Vec<String>) -> BoxFuture<'a, Result<()>> {
        let owner = owner.to_string();
        self.with(move |c| {
            let tx = c.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
            for id in &ids {
                tx.execute(
                    "UPDATE serve_runs SET owner = NULL, lease_until = 0 WHERE id = ?1 AND owner = ?2 \
                     AND status = 'running'",
                    params![id, owner],
                )?;
            }
            tx.commit()?;
            Ok(())
        })
    }

    fn other_owners<'a>(&'a self, owner: &'a str, now: i64) -> BoxFuture<'a, Result<Vec<String>>> {
        let owner = owner.to_string();
        self.with(move |c| {
            let mut stmt = c.prepare(
                "SELECT DISTINCT owner FROM serve_runs WHERE status = 'running' AND owner IS NOT NULL \
                 AND owner <> ?1 AND lease_until >= ?2",
            )?;
            let rows = stmt.query_map(params![owner, now], |r| r.get::<_, String>(0))?;
            Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
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
        let owner = owner.to_string();
        self.with(move |c| {
            let tx = c.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
            let mut claimed = Vec::new();
            {
                let mut stmt = tx.prepare(
                    "SELECT r.id, r.tenant, r.session_id, s.agent, r.generation, r.cancel_requested, r.owner, \
                     r.lease_until, r.input, r.input_parts FROM serve_runs r JOIN serve_sessions s ON s.id = r.session_id \
                     WHERE r.status = 'running' AND (r.owner IS NULL OR r.owner <> ?1) ORDER BY r.lease_until",
                )?;
                let rows = stmt.query_map(params![owner], |r| {
                    Ok((
                        Claimed {
                            id: r.get(0)?,
                            tenant: r.get(1)?,
                            session_id: r.get(2)?,
                            agent: r.get(3)?,
                            generation: r.get::<_, i64>(4)? + 1,
                            cancel_requested: r.get::<_, i64>(5)? != 0,
                            input: RunInput {
                                text: r.get::<_, Option<String>>(8)?.unwrap_or_default(),
                                parts: r.get(9)?,
                                bytes: 0,
                                blobs: Vec::new(),
                            },
                        },
                        r.get::<_, Option<String>>(6)?,
                        r.get::<_, i64>(7)?,
                    ))
                })?;
                for row in rows {
                    let (run, holder, until) = row?;
                    let free = until < now || holder.as_ref().is_none_or(|h| gone.contains(h));
                    if free && claimed.len() < limit {
                        claimed.push(run);
                    }
                }
            }
            for run in &claimed {
                tx.execute(
                    "UPDATE serve_runs SET owner = ?1, lease_until = ?2, generation = ?3 WHERE id = ?4",
                    params![owner, lease_until, run.generation, run.id],
                )?;
            }
            tx.commit()?;
            Ok(claimed)
        })
    }

    fn insert_key<'a>(&'a self, row: &'a StoredKey, hash: &'a str) -> BoxFuture<'a, Result<()>> {
        let (row, hash) = (row.clone(), hash.to_string());
        self.with(move |c| {
            c.execute(
                "INSERT INTO serve_keys (id, tenant, hash, created_at) VALUES (?1, ?2, ?3, ?4)",
                params![row.id, row.tenant, hash, row.created_at],
            )?;
            Ok(())
        })
    }

    fn keys(&self) -> BoxFuture<'_, Result<Vec<StoredKey>>> {
        self.with(|c| {
            let mut stmt = c.prepare("SELECT id, tenant, created_at FROM serve_keys ORDER BY created_at, id")?;
            let rows =
                stmt.query_map([], |r| Ok(StoredKey { id: r.get(0)?, tenant: r.get(1)?, created_at: r.get(2)? }))?;
            Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
        })
    }

    fn revoke_key<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool>> {
        let id = id.to_string();
        self.with(move |c| Ok(c.execute("DELETE FROM serve_keys WHERE id = ?1", params![id])? > 0))
    }

    fn key_tenant<'a>(&'a self, hash: &'a str) -> BoxFuture<'a, Result<Option<String>>> {
        let hash = hash.to_string();
        self.with(move |c| {
            Ok(c.query_row("SELECT tenant FROM serve_keys WHERE hash = ?1", params![hash], |r| r.get(0)).optional()?)
        })
    }

    fn request_cancel<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool>> {
        let id = id.to_string();
        self.with(move |c| {
            Ok(c.execute(
                "UPDATE serve_runs SET cancel_requested = 1 WHERE id = ?1 AND status = 'running'",
                params![id],
            )? > 0)
        })
    }

    fn run<'a>(&'a self, tenant: &'a str, id: &'a str) -> BoxFuture<'a, Result<Option<RunRow>>> {
        let (tenant, id) = (tenant.to_string(), id.to_string());
        self.with(move |c| {
            let row = c
                .query_row(
                    "SELECT id, session_id, status, result, error, created_at, updated_at, input, input_parts \
                     FROM serve_runs WHERE tenant = ?1 AND id = ?2",
                    params![tenant, id],
                    |r| {
                        Ok((
                            r.get::<_, String>(0)?,
                            r.get::<_, String>(1)?,
                            r.get::<_, String>(2)?,
                            r.get::<_, Option<String>>(3)?,
                            r.get::<_, Option<String>>(4)?,
                            r.get(5)?,
                            r.get(6)?,
                            (r.get(7)?, r.get(8)?),
                        ))
                    },
                )
                .optional()?;
            row.map(|(id, session_id, status, result, error, created_at, updated_at, (text, parts))| {
                Ok(RunRow {
                    id,
                    session_id,
                    status: RunStatus::parse(&status),
                    result: json_or_null(result)?,
                    error: json_or_null(error)?,
                    created_at,
                    updated_at,
                    input: RunInput::shown(text, parts)?,
                })
            })
            .transpose()
        })
    }

    fn run_status<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<RunStatus>>> {
        let id = id.to_string();
        self.with(move |c| {
            let status = c
                .query_row("SELECT status FROM serve_runs WHERE id = ?1", params![id], |r| r.get::<_, String>(0))
                .optional()?;
            Ok(status.map(|s| RunStatus::parse(&s)))
        })
    }

    fn events_after<'a>(&'a self, id: &'a str, after: u64) -> BoxFuture<'a, Result<Vec<StoredEvent>>> {
        let id = id.to_string();
        self.with(move |c| {
            let mut stmt =
                c.prepare("SELECT seq, kind, data FROM serve_events WHERE run_id = ?1 AND seq > ?2 ORDER BY seq")?;
            let rows = stmt.query_map(params![id, after.min(i64::MAX as u64) as i64], |r| {
                Ok(StoredEvent {
                    seq: r.get::<_, i64>(0)? as u64,
                    kind: kind(&r.get::<_, String>(1)?),
                    data: r.get(2)?,
                })
            })?;
            Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
        })
    }

    fn last_event<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<u64>> {
        let id = id.to_string();
        self.with(move |c| {
            Ok(c.query_row("SELECT COALESCE(MAX(seq), 0) FROM serve_events WHERE run_id = ?1", params![id], |r| {
                r.get::<_, i64>(0)
            })? as u64)
        })
    }

    fn spend<'a>(&'a self, tenant: &'a str, day: i64) -> BoxFuture<'a, Result<DailySpend>> {
        let tenant = tenant.to_string();
        self.with(move |c| super::spend::sqlite_spend(c, &tenant, day))
    }

    fn hold<'a>(&'a self, hold: &'a Hold, limits: Limits, now: i64) -> BoxFuture<'a, Result<Held>> {
        let hold = hold.clone();
        self.with(move |c| super::spend::sqlite_hold(c, &hold, limits, now))
    }

    fn settle<'a>(
        &'a self,
        tenant: &'a str,
        day: i64,
        id: &'a str,
        used: Option<DailySpend>,
    ) -> BoxFuture<'a, Result<()>> {
        let (tenant, id) = (tenant.to_string(), id.to_string());
        self.with(move |c| super::spend::sqlite_settle(c, &tenant, day, &id, used))
    }
}

fn insert_events(tx: &rusqlite::Transaction<'_>, id: &str, events: &[StoredEvent]) -> Result<()> {
    let mut stmt = tx.prepare_cached("INSERT INTO serve_events (run_id, seq, kind, data) VALUES (?1, ?2, ?3, ?4)")?;
    for e in events {
        stmt.execute(params![id, e.seq as i64, e.kind, e.data])?;
    }
    Ok(())
}

/// Whether a write went through: false when the one-active-run-per-session index said no.
fn not_unique(r: rusqlite::Result<usize>) -> Result<bool> {
    match r {
        Ok(n) => Ok(n > 0),
        Err(rusqlite::Error::SqliteFailure(e, _)) if e.code == rusqlite::ErrorCode::ConstraintViolation => Ok(false),
        Err(e) => Err(e.into()),
    }
}
