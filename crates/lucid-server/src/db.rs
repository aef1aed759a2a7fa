//! What the server keeps besides the conversations: which tenant owns each session, the
//! runs with their status and result, and every run's events, in the same SQLite file as
//! the session store (tables `serve_sessions`, `serve_runs`, `serve_events`).
//!
//! One run at a time per session is the database's rule, not the process's: a partial
//! unique index allows one `queued` or `running` run per session. Work goes through
//! `spawn_blocking`, never on the runtime's threads.

use std::path::Path;
use std::sync::{Arc, Mutex};

use rusqlite::{Connection, OptionalExtension, params};
use serde::Serialize;
use serde_json::Value;

/// A database failure.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    /// SQLite said no.
    #[error("the server's database failed: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// The blocking task did not finish (the runtime is shutting down).
    #[error("the server's database task stopped: {0}")]
    Task(#[from] tokio::task::JoinError),
    /// A stored JSON value does not parse.
    #[error("a stored value of the server's database is not JSON: {0}")]
    Json(#[from] serde_json::Error),
}

type Result<T> = std::result::Result<T, DbError>;

/// Where a run is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// Accepted, not started yet.
    Queued,
    /// The agent is working.
    Running,
    /// The agent answered.
    Completed,
    /// The run stopped on an error.
    Failed,
    /// Cancelled by a client.
    Cancelled,
    /// The agent asked questions (`ask_user`); `POST /v1/runs/{id}/input` answers them.
    NeedsInput,
}

impl RunStatus {
    /// The snake_case name, as stored and answered.
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Queued => "queued",
            RunStatus::Running => "running",
            RunStatus::Completed => "completed",
            RunStatus::Failed => "failed",
            RunStatus::Cancelled => "cancelled",
            RunStatus::NeedsInput => "needs_input",
        }
    }

    fn parse(s: &str) -> RunStatus {
        match s {
            "queued" => RunStatus::Queued,
            "running" => RunStatus::Running,
            "completed" => RunStatus::Completed,
            "cancelled" => RunStatus::Cancelled,
            "needs_input" => RunStatus::NeedsInput,
            _ => RunStatus::Failed,
        }
    }

    /// Whether the agent is (about to be) working on it.
    pub fn is_active(self) -> bool {
        matches!(self, RunStatus::Queued | RunStatus::Running)
    }

    /// Whether nothing more will happen to it (`needs_input` waits for an answer).
    pub fn is_final(self) -> bool {
        matches!(self, RunStatus::Completed | RunStatus::Failed | RunStatus::Cancelled)
    }
}

/// A session as the API shows it (its messages come from the session store).
#[derive(Debug, Clone, Serialize)]
pub struct SessionRow {
    /// Its id.
    pub id: String,
    /// The agent it talks to.
    pub agent: String,
    /// The client's metadata.
    pub metadata: Value,
    /// Creation time, milliseconds since the Unix epoch.
    pub created_at: i64,
}

/// A run as the API shows it.
#[derive(Debug, Clone, Serialize)]
pub struct RunRow {
    /// Its id.
    pub id: String,
    /// The session it belongs to.
    pub session_id: String,
    /// Where it is.
    pub status: RunStatus,
    /// The agent's result once it answered (or asked questions).
    pub result: Option<Value>,
    /// What failed, in the API's error shape, when it failed.
    pub error: Option<Value>,
    /// Creation time, milliseconds since the Unix epoch.
    pub created_at: i64,
    /// Time of the last change.
    pub updated_at: i64,
}

/// One event of a run, numbered from 1 within the run.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredEvent {
    /// Its number (the SSE `id:`).
    pub seq: u64,
    /// Its type (the SSE `event:`).
    pub kind: &'static str,
    /// Its JSON (the SSE `data:`).
    pub data: String,
}

/// The server's tables in one SQLite file.
#[derive(Clone)]
pub struct Db {
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
    result TEXT, error TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);
CREATE UNIQUE INDEX IF NOT EXISTS serve_runs_one_active ON serve_runs (session_id)
    WHERE status IN ('queued', 'running');
CREATE TABLE IF NOT EXISTS serve_events (
    run_id TEXT NOT NULL, seq INTEGER NOT NULL, kind TEXT NOT NULL, data TEXT NOT NULL,
    PRIMARY KEY (run_id, seq)) WITHOUT ROWID;
";

/// The event types a run emits, so a stored one is a `&'static str` again.
const KINDS: &[&str] = &[
    "iteration",
    "text_delta",
    "reasoning_delta",
    "tool_call_started",
    "tool_call_finished",
    "needs_input",
    "completed",
    "cancelled",
    "error",
];

/// The stored kind as one of [`KINDS`] (`error` for anything else).
fn kind(s: &str) -> &'static str {
    KINDS.iter().find(|k| **k == s).copied().unwrap_or("error")
}

fn json_or_null(text: Option<String>) -> Result<Option<Value>> {
    Ok(match text {
        Some(t) => Some(serde_json::from_str(&t)?),
        None => None,
    })
}

impl Db {
    /// Opens (or creates) the tables in the SQLite file at `path`.
    pub async fn open(path: &Path) -> Result<Db> {
        let path = path.to_path_buf();
        let conn = tokio::task::spawn_blocking(move || -> Result<Connection> {
            let conn = Connection::open(path)?;
            conn.busy_timeout(std::time::Duration::from_secs(5))?;
            conn.execute_batch(SCHEMA)?;
            Ok(conn)
        })
        .await??;
        Ok(Db { conn: Arc::new(Mutex::new(conn)) })
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

    /// Runs a previous process left `queued` or `running` (it stopped mid-run) become
    /// `failed`, so their sessions take runs again. Returns how many.
    pub async fn fail_abandoned(&self, now: i64) -> Result<usize> {
        let error = crate::ApiError::unavailable("the server stopped during the run").body().to_string();
        self.with(move |c| {
            Ok(c.execute(
                "UPDATE serve_runs SET status = 'failed', error = ?1, updated_at = ?2 \
                 WHERE status IN ('queued', 'running')",
                params![error, now],
            )?)
        })
        .await
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
            let tx = c.transaction()?;
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

    /// Records a new `running` run; false (nothing written) when its session already has
    /// an active one.
    pub async fn insert_run(&self, tenant: &str, row: &RunRow) -> Result<bool> {
        let (tenant, row) = (tenant.to_string(), row.clone());
        self.with(move |c| {
            let r = c.execute(
                "INSERT INTO serve_runs (id, tenant, session_id, status, created_at, updated_at) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?5)",
                params![row.id, tenant, row.session_id, row.status.as_str(), row.created_at],
            );
            match r {
                Ok(_) => Ok(true),
                Err(rusqlite::Error::SqliteFailure(e, _)) if e.code == rusqlite::ErrorCode::ConstraintViolation => {
                    Ok(false)
                }
                Err(e) => Err(e.into()),
            }
        })
        .await
    }

    /// Moves a run from `from` to `to`; false when it was not in `from` (or another run of
    /// its session is active and `to` is active).
    pub async fn move_run(&self, id: &str, from: RunStatus, to: RunStatus, now: i64) -> Result<bool> {
        let id = id.to_string();
        self.with(move |c| {
            let r = c.execute(
                "UPDATE serve_runs SET status = ?1, updated_at = ?2 WHERE id = ?3 AND status = ?4",
                params![to.as_str(), now, id, from.as_str()],
            );
            match r {
                Ok(n) => Ok(n > 0),
                Err(rusqlite::Error::SqliteFailure(e, _)) if e.code == rusqlite::ErrorCode::ConstraintViolation => {
                    Ok(false)
                }
                Err(e) => Err(e.into()),
            }
        })
        .await
    }

    /// Writes the run's new status with its events not yet stored, in one transaction.
    pub async fn finish_run(
        &self,
        id: &str,
        status: RunStatus,
        result: Option<Value>,
        error: Option<Value>,
        events: Vec<StoredEvent>,
        now: i64,
    ) -> Result<()> {
        let id = id.to_string();
        self.with(move |c| {
            let tx = c.transaction()?;
            insert_events(&tx, &id, &events)?;
            tx.execute(
                "UPDATE serve_runs SET status = ?1, result = ?2, error = ?3, updated_at = ?4 WHERE id = ?5",
                params![status.as_str(), result.map(|v| v.to_string()), error.map(|v| v.to_string()), now, id],
            )?;
            tx.commit()?;
            Ok(())
        })
        .await
    }

    /// Stores events of a run that is still going.
    pub async fn append_events(&self, id: &str, events: Vec<StoredEvent>) -> Result<()> {
        let id = id.to_string();
        self.with(move |c| {
            let tx = c.transaction()?;
            insert_events(&tx, &id, &events)?;
            tx.commit()?;
            Ok(())
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
            let rows = stmt.query_map(params![id, after as i64], |r| {
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
