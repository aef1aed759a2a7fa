//! The server's tables in the SQLite file of the session store: one instance. Work goes
//! through `spawn_blocking`, never on the runtime's threads.

use std::path::Path;
use std::sync::{Arc, Mutex};

use rusqlite::{Connection, OptionalExtension, params};
use serde_json::Value;

use super::{Claimed, Renewed, Result, RunRow, RunStatus, SessionRow, StoredEvent, StoredKey, json_or_null, kind};

/// The server's tables in one SQLite file.
#[derive(Clone)]
pub struct SqliteDb {
    conn: Arc<Mutex<Connection>>,
}

const SCHEMA: &str = "
PRAGMA journal_mode = WAL;
PRAGMA synchronous = NORMAL;
CREATE TABLE IF NOT EXISTS serve_sessions (
    id TEXT PRIMARY KEY, tenant TEXT NOT NULL, agent TEXT NOT NULL, metadata TEXT NOT NULL,
    created_at INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS serve_sessions_by_tenant ON serve_sessions (tenant, created_at DESC, id);
CREATE TABLE IF NOT EXISTS serve_runs (
    id TEXT PRIMARY KEY, tenant TEXT NOT NULL, session_id TEXT NOT NULL, status TEXT NOT NULL,
    result TEXT, error TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
    owner TEXT, lease_until INTEGER NOT NULL DEFAULT 0, generation INTEGER NOT NULL DEFAULT 0,
    cancel_requested INTEGER NOT NULL DEFAULT 0, input TEXT);
CREATE UNIQUE INDEX IF NOT EXISTS serve_runs_one_active ON serve_runs (session_id)
    WHERE status IN ('queued', 'running');
CREATE TABLE IF NOT EXISTS serve_keys (
    id TEXT PRIMARY KEY, tenant TEXT NOT NULL, hash TEXT NOT NULL UNIQUE, created_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS serve_events (
    run_id TEXT NOT NULL, seq INTEGER NOT NULL, kind TEXT NOT NULL, data TEXT NOT NULL,
    PRIMARY KEY (run_id, seq)) WITHOUT ROWID;
";

impl SqliteDb {
    /// Opens (or creates) the tables in the SQLite file at `path`.
    pub async fn open(path: &Path) -> Result<SqliteDb> {
        let path = path.to_path_buf();
        let conn = tokio::task::spawn_blocking(move || -> Result<Connection> {
            let conn = Connection::open(path)?;
            conn.busy_timeout(std::time::Duration::from_secs(5))?;
            conn.execute_batch(SCHEMA)?;
            add_lease_columns(&conn)?;
            Ok(conn)
        })
        .await??;
        Ok(SqliteDb { conn: Arc::new(Mutex::new(conn)) })
    }

    async fn with<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Connection) -> Result<T> + Send + 'static,
    ) -> Result<T> {
        let conn = Arc::clone(&self.conn);
        tokio::task::spawn_blocking(move || {
            let mut conn = conn.lock().unwrap_or_else(|p| p.into_inner());
            f(&mut conn)
        })
        .await?
    }

    /// Answers when the database does.
    pub async fn ping(&self) -> Result<()> {
        self.with(|c| Ok(c.query_row("SELECT 1", [], |_| Ok(()))?)).await
    }

    /// Records a new session of `tenant`.
    pub async fn create_session(&self, tenant: &str, row: &SessionRow) -> Result<()> {
        let (tenant, row) = (tenant.to_string(), row.clone());
        self.with(move |c| {
            c.execute(
                "INSERT INTO serve_sessions (id, tenant, agent, metadata, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![row.id, tenant, row.agent, row.metadata.to_string(), row.created_at],
            )?;
            Ok(())
        })
        .await
    }

    /// The session, if `tenant` owns it.
    pub async fn session(&self, tenant: &str, id: &str) -> Result<Option<SessionRow>> {
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
        .await
    }

    /// `tenant`'s sessions, newest first: `limit` of them after `offset`.
    pub async fn sessions(&self, tenant: &str, limit: usize, offset: usize) -> Result<Vec<SessionRow>> {
        let tenant = tenant.to_string();
        self.with(move |c| {
            let mut stmt = c.prepare(
                "SELECT id, agent, metadata, created_at FROM serve_sessions WHERE tenant = ?1 \
                 ORDER BY created_at DESC, id LIMIT ?2 OFFSET ?3",
            )?;
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
        .await
    }

    /// Deletes `tenant`'s session with its runs and their events; false when it had no
    /// such session.
    pub async fn delete_session(&self, tenant: &str, id: &str) -> Result<bool> {
        let (tenant, id) = (tenant.to_string(), id.to_string());
        self.with(move |c| {
            let tx = c.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
            let gone = tx.execute("DELETE FROM serve_sessions WHERE tenant = ?1 AND id = ?2", params![tenant, id])?;
            if gone > 0 {
                tx.execute(
                    "DELETE FROM serve_events WHERE run_id IN (SELECT id FROM serve_runs WHERE session_id = ?1)",
                    params![id],
                )?;
                tx.execute("DELETE FROM serve_runs WHERE session_id = ?1", params![id])?;
            }
            tx.commit()?;
            Ok(gone > 0)
        })
        .await
    }

    /// See [`super::Db::insert_run`].
    pub async fn insert_run(
        &self,
        tenant: &str,
        row: &RunRow,
        input: &str,
        owner: &str,
        lease_until: i64,
    ) -> Result<bool> {
        let (tenant, row, input, owner) = (tenant.to_string(), row.clone(), input.to_string(), owner.to_string());
        self.with(move |c| {
            let r = c.execute(
                "INSERT INTO serve_runs (id, tenant, session_id, status, created_at, updated_at, owner, lease_until, \
                 input) VALUES (?1, ?2, ?3, ?4, ?5, ?5, ?6, ?7, ?8)",
                params![row.id, tenant, row.session_id, row.status.as_str(), row.created_at, owner, lease_until, input],
            );
            not_unique(r)
        })
        .await
    }

    /// See [`super::Db::move_run`].
    pub async fn move_run(&self, id: &str, from: RunStatus, to: RunStatus, now: i64) -> Result<bool> {
        let id = id.to_string();
        self.with(move |c| {
            let r = c.execute(
                "UPDATE serve_runs SET status = ?1, updated_at = ?2 WHERE id = ?3 AND status = ?4",
                params![to.as_str(), now, id, from.as_str()],
            );
            not_unique(r)
        })
        .await
    }

    /// See [`super::Db::continue_run`].
    pub async fn continue_run(&self, id: &str, input: &str, owner: &str, lease_until: i64, now: i64) -> Result<bool> {
        let (id, input, owner) = (id.to_string(), input.to_string(), owner.to_string());
        self.with(move |c| {
            let r = c.execute(
                "UPDATE serve_runs SET status = 'running', owner = ?1, lease_until = ?2, cancel_requested = 0, \
                 updated_at = ?3, input = ?5 WHERE id = ?4 AND status = 'needs_input'",
                params![owner, lease_until, now, id, input],
            );
            not_unique(r)
        })
        .await
    }

    /// See [`super::Db::finish_run`].
    #[allow(clippy::too_many_arguments)]
    pub async fn finish_run(
        &self,
        id: &str,
        owner: &str,
        status: RunStatus,
        result: Option<Value>,
        error: Option<Value>,
        events: Vec<StoredEvent>,
        now: i64,
    ) -> Result<bool> {
        let (id, owner) = (id.to_string(), owner.to_string());
        self.with(move |c| {
            let tx = c.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
            let owned = tx.execute(
                "UPDATE serve_runs SET status = ?1, result = ?2, error = ?3, updated_at = ?4, owner = NULL, \
                 lease_until = 0 WHERE id = ?5 AND owner = ?6 AND status = 'running'",
                params![status.as_str(), result.map(|v| v.to_string()), error.map(|v| v.to_string()), now, id, owner],
            )?;
            if owned == 0 {
                return Ok(false);
            }
            insert_events(&tx, &id, &events)?;
            tx.commit()?;
            Ok(true)
        })
        .await
    }

    /// See [`super::Db::append_events`].
    pub async fn append_events(&self, id: &str, owner: &str, events: Vec<StoredEvent>) -> Result<bool> {
        let (id, owner) = (id.to_string(), owner.to_string());
        self.with(move |c| {
            let tx = c.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
            let owned: Option<i64> = tx
                .query_row(
                    "SELECT 1 FROM serve_runs WHERE id = ?1 AND owner = ?2 AND status = 'running'",
                    params![id, owner],
                    |r| r.get(0),
                )
                .optional()?;
            if owned.is_none() {
                return Ok(false);
            }
            insert_events(&tx, &id, &events)?;
            tx.commit()?;
            Ok(true)
        })
        .await
    }

    /// See [`super::Db::renew`].
    pub async fn renew(&self, owner: &str, lease_until: i64) -> Result<Vec<Renewed>> {
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
        .await
    }

    /// See [`super::Db::release`].
    pub async fn release(&self, owner: &str, ids: Vec<String>) -> Result<()> {
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
        .await
    }

    /// See [`super::Db::other_owners`].
    pub async fn other_owners(&self, owner: &str, now: i64) -> Result<Vec<String>> {
        let owner = owner.to_string();
        self.with(move |c| {
            let mut stmt = c.prepare(
                "SELECT DISTINCT owner FROM serve_runs WHERE status = 'running' AND owner IS NOT NULL \
                 AND owner <> ?1 AND lease_until >= ?2",
            )?;
            let rows = stmt.query_map(params![owner, now], |r| r.get::<_, String>(0))?;
            Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
        })
        .await
    }

    /// See [`super::Db::claim`].
    pub async fn claim(
        &self,
        owner: &str,
        lease_until: i64,
        now: i64,
        gone: Vec<String>,
        limit: usize,
    ) -> Result<Vec<Claimed>> {
        let owner = owner.to_string();
        self.with(move |c| {
            let tx = c.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
            let mut claimed = Vec::new();
            {
                let mut stmt = tx.prepare(
                    "SELECT r.id, r.tenant, r.session_id, s.agent, r.generation, r.cancel_requested, r.owner, \
                     r.lease_until, r.input FROM serve_runs r JOIN serve_sessions s ON s.id = r.session_id \
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
                            input: r.get(8)?,
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
        .await
    }

    /// See [`super::Db::insert_key`].
    pub async fn insert_key(&self, row: &StoredKey, hash: &str) -> Result<()> {
        let (row, hash) = (row.clone(), hash.to_string());
        self.with(move |c| {
            c.execute(
                "INSERT INTO serve_keys (id, tenant, hash, created_at) VALUES (?1, ?2, ?3, ?4)",
                params![row.id, row.tenant, hash, row.created_at],
            )?;
            Ok(())
        })
        .await
    }

    /// See [`super::Db::keys`].
    pub async fn keys(&self) -> Result<Vec<StoredKey>> {
        self.with(|c| {
            let mut stmt = c.prepare("SELECT id, tenant, created_at FROM serve_keys ORDER BY created_at, id")?;
            let rows =
                stmt.query_map([], |r| Ok(StoredKey { id: r.get(0)?, tenant: r.get(1)?, created_at: r.get(2)? }))?;
            Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
        })
        .await
    }

    /// See [`super::Db::revoke_key`].
    pub async fn revoke_key(&self, id: &str) -> Result<bool> {
        let id = id.to_string();
        self.with(move |c| Ok(c.execute("DELETE FROM serve_keys WHERE id = ?1", params![id])? > 0)).await
    }

    /// See [`super::Db::key_tenant`].
    pub async fn key_tenant(&self, hash: &str) -> Result<Option<String>> {
        let hash = hash.to_string();
        self.with(move |c| {
            Ok(c.query_row("SELECT tenant FROM serve_keys WHERE hash = ?1", params![hash], |r| r.get(0)).optional()?)
        })
        .await
    }

    /// See [`super::Db::request_cancel`].
    pub async fn request_cancel(&self, id: &str) -> Result<bool> {
        let id = id.to_string();
        self.with(move |c| {
            Ok(c.execute(
                "UPDATE serve_runs SET cancel_requested = 1 WHERE id = ?1 AND status = 'running'",
                params![id],
            )? > 0)
        })
        .await
    }

    /// The run, if `tenant` owns it.
    pub async fn run(&self, tenant: &str, id: &str) -> Result<Option<RunRow>> {
        let (tenant, id) = (tenant.to_string(), id.to_string());
        self.with(move |c| {
            let row = c
                .query_row(
                    "SELECT id, session_id, status, result, error, created_at, updated_at FROM serve_runs \
                     WHERE tenant = ?1 AND id = ?2",
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
                        ))
                    },
                )
                .optional()?;
            row.map(|(id, session_id, status, result, error, created_at, updated_at)| {
                Ok(RunRow {
                    id,
                    session_id,
                    status: RunStatus::parse(&status),
                    result: json_or_null(result)?,
                    error: json_or_null(error)?,
                    created_at,
                    updated_at,
                })
            })
            .transpose()
        })
        .await
    }

    /// The run's status, whoever owns it (for readers already allowed to see it).
    pub async fn run_status(&self, id: &str) -> Result<Option<RunStatus>> {
        let id = id.to_string();
        self.with(move |c| {
            let status = c
                .query_row("SELECT status FROM serve_runs WHERE id = ?1", params![id], |r| r.get::<_, String>(0))
                .optional()?;
            Ok(status.map(|s| RunStatus::parse(&s)))
        })
        .await
    }

    /// The run's stored events after number `after`, in order.
    pub async fn events_after(&self, id: &str, after: u64) -> Result<Vec<StoredEvent>> {
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
        .await
    }

    /// The number of the run's last stored event (0 without any).
    pub async fn last_event(&self, id: &str) -> Result<u64> {
        let id = id.to_string();
        self.with(move |c| {
            Ok(c.query_row("SELECT COALESCE(MAX(seq), 0) FROM serve_events WHERE run_id = ?1", params![id], |r| {
                r.get::<_, i64>(0)
            })? as u64)
        })
        .await
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

/// Adds the lease columns to a `serve_runs` table made before runs had owners.
fn add_lease_columns(conn: &Connection) -> rusqlite::Result<()> {
    let has_owner: bool =
        conn.query_row("SELECT COUNT(*) > 0 FROM pragma_table_info('serve_runs') WHERE name = 'owner'", [], |r| {
            r.get(0)
        })?;
    if !has_owner {
        conn.execute_batch(
            "ALTER TABLE serve_runs ADD COLUMN owner TEXT;
             ALTER TABLE serve_runs ADD COLUMN lease_until INTEGER NOT NULL DEFAULT 0;
             ALTER TABLE serve_runs ADD COLUMN generation INTEGER NOT NULL DEFAULT 0;
             ALTER TABLE serve_runs ADD COLUMN cancel_requested INTEGER NOT NULL DEFAULT 0;
             ALTER TABLE serve_runs ADD COLUMN input TEXT;",
        )?;
    }
    Ok(())
}
