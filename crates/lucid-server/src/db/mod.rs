//! What the server keeps besides the conversations: which tenant owns each session, the
//! runs with their status, result and lease, and every run's events (tables
//! `serve_sessions`, `serve_runs`, `serve_events`), in the database of the session store:
//! a SQLite file ([`sqlite`], one instance) or PostgreSQL ([`postgres`], any number of
//! instances).
//!
//! One run at a time per session is the database's rule, not the process's: a partial
//! unique index allows one `queued` or `running` run per session. A `running` run has an
//! owner (the instance working on it, `host:pid:nonce`) whose lease it renews; a run whose
//! lease expired, or whose owner was a process of this host that is gone, is claimed by
//! another instance (or the same one restarted), which continues it from the session's
//! last commit. Writes of a run's events and end are fenced: they only land while the
//! writer still owns the run.

#[cfg(feature = "postgres")]
mod postgres;
mod sqlite;

use serde::Serialize;
use serde_json::Value;

/// A database failure.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    /// SQLite said no.
    #[error("the server's database failed: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// PostgreSQL said no.
    #[cfg(feature = "postgres")]
    #[error("the server's database failed: {0}")]
    Postgres(#[from] tokio_postgres::Error),
    /// No connection to PostgreSQL could be had from the pool.
    #[cfg(feature = "postgres")]
    #[error("the server's database is unreachable: {0}")]
    Pool(#[from] deadpool_postgres::PoolError),
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

/// One event of a run, numbered within the run (the numbers only grow; after a run
/// changed hands they jump, see [`first_seq_of_generation`]).
#[derive(Debug, Clone, PartialEq)]
pub struct StoredEvent {
    /// Its number (the SSE `id:`).
    pub seq: u64,
    /// Its type (the SSE `event:`).
    pub kind: &'static str,
    /// Its JSON (the SSE `data:`).
    pub data: String,
}

/// An API key kept in the database (its hash only), as `lucid serve keys list` shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct StoredKey {
    /// Its public id (`key_…`), to revoke it by.
    pub id: String,
    /// The tenant it is a key of.
    pub tenant: String,
    /// Creation time, milliseconds since the Unix epoch.
    pub created_at: i64,
}

/// A run this instance just took over from an owner that is gone.
#[derive(Debug, Clone, PartialEq)]
pub struct Claimed {
    /// The run.
    pub id: String,
    /// Its tenant.
    pub tenant: String,
    /// Its session.
    pub session_id: String,
    /// The session's agent.
    pub agent: String,
    /// How many times the run changed hands, this claim included.
    pub generation: i64,
    /// A client asked to cancel it.
    pub cancel_requested: bool,
    /// The input of its turn (the user's message, or the answers to the agent's questions).
    pub input: Option<String>,
}

/// A run of this instance whose lease was renewed.
#[derive(Debug, Clone, PartialEq)]
pub struct Renewed {
    /// The run.
    pub id: String,
    /// A client (on any instance) asked to cancel it.
    pub cancel_requested: bool,
}

/// The number of the first event a run's owner of `generation` emits: events of a run
/// that changed hands continue far above what the previous owner could have numbered,
/// so an event it streamed but never stored cannot share its number with a new one.
pub fn first_seq_of_generation(generation: i64) -> u64 {
    ((generation.max(0) as u64) << 32) + 1
}

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

/// The server's tables, in SQLite or PostgreSQL.
#[derive(Clone)]
pub enum Db {
    /// In the SQLite file of the session store.
    Sqlite(sqlite::SqliteDb),
    /// In the PostgreSQL database of the session store, shared by every instance.
    #[cfg(feature = "postgres")]
    Postgres(postgres::PostgresDb),
}

/// Calls the same method on whichever database this is.
macro_rules! each {
    ($self:ident.$method:ident($($arg:expr),*)) => {
        match $self {
            Db::Sqlite(db) => db.$method($($arg),*).await,
            #[cfg(feature = "postgres")]
            Db::Postgres(db) => db.$method($($arg),*).await,
        }
    };
}

impl Db {
    /// Opens (or creates) the tables in the SQLite file at `path`.
    pub async fn sqlite(path: &std::path::Path) -> Result<Db> {
        Ok(Db::Sqlite(sqlite::SqliteDb::open(path).await?))
    }

    /// Creates the tables if missing in the database of `pool` (concurrent instances
    /// create them once).
    #[cfg(feature = "postgres")]
    pub async fn postgres(pool: deadpool_postgres::Pool) -> Result<Db> {
        Ok(Db::Postgres(postgres::PostgresDb::open(pool).await?))
    }

    /// Answers when the database does.
    pub async fn ping(&self) -> Result<()> {
        each!(self.ping())
    }

    /// Records a new session of `tenant`.
    pub async fn create_session(&self, tenant: &str, row: &SessionRow) -> Result<()> {
        each!(self.create_session(tenant, row))
    }

    /// The session, if `tenant` owns it.
    pub async fn session(&self, tenant: &str, id: &str) -> Result<Option<SessionRow>> {
        each!(self.session(tenant, id))
    }

    /// `tenant`'s sessions, newest first: `limit` of them after `offset`.
    pub async fn sessions(&self, tenant: &str, limit: usize, offset: usize) -> Result<Vec<SessionRow>> {
        each!(self.sessions(tenant, limit, offset))
    }

    /// Deletes `tenant`'s session with its runs and their events; false when it had no
    /// such session.
    pub async fn delete_session(&self, tenant: &str, id: &str) -> Result<bool> {
        each!(self.delete_session(tenant, id))
    }

    /// Records a new `running` run owned by `owner` until `lease_until`; false (nothing
    /// written) when its session already has an active one.
    pub async fn insert_run(
        &self,
        tenant: &str,
        row: &RunRow,
        input: &str,
        owner: &str,
        lease_until: i64,
    ) -> Result<bool> {
        each!(self.insert_run(tenant, row, input, owner, lease_until))
    }

    /// Moves a run from `from` to `to`; false when it was not in `from`.
    pub async fn move_run(&self, id: &str, from: RunStatus, to: RunStatus, now: i64) -> Result<bool> {
        each!(self.move_run(id, from, to, now))
    }

    /// A run waiting for input goes on: `running` again, owned by `owner` until
    /// `lease_until`, no cancel asked; false when it was not waiting.
    pub async fn continue_run(&self, id: &str, input: &str, owner: &str, lease_until: i64, now: i64) -> Result<bool> {
        each!(self.continue_run(id, input, owner, lease_until, now))
    }

    /// Writes the run's new status with its events not yet stored, in one transaction,
    /// if `owner` still owns it (the lease is given up with it); false when it does not
    /// (nothing written).
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
        each!(self.finish_run(id, owner, status, result, error, events, now))
    }

    /// Stores events of a run that is still going, if `owner` still owns it; false when
    /// it does not (nothing written).
    pub async fn append_events(&self, id: &str, owner: &str, events: Vec<StoredEvent>) -> Result<bool> {
        each!(self.append_events(id, owner, events))
    }

    /// Extends the leases of `owner`'s running runs to `lease_until`; the runs it still
    /// owns, and whether a cancel was asked for each.
    pub async fn renew(&self, owner: &str, lease_until: i64) -> Result<Vec<Renewed>> {
        each!(self.renew(owner, lease_until))
    }

    /// Gives up `owner`'s lease on these running runs: another instance (or this one,
    /// restarted) claims them at once and continues them.
    pub async fn release(&self, owner: &str, ids: Vec<String>) -> Result<()> {
        each!(self.release(owner, ids))
    }

    /// The owners of running runs other than `owner` whose leases have not expired, so
    /// the caller can tell which of them are processes of this host that are gone.
    pub async fn other_owners(&self, owner: &str, now: i64) -> Result<Vec<String>> {
        each!(self.other_owners(owner, now))
    }

    /// Takes over up to `limit` running runs whose lease expired before `now` or whose
    /// owner is one of `gone`: owned by `owner` until `lease_until`, one generation
    /// more. Two instances never claim the same run.
    pub async fn claim(
        &self,
        owner: &str,
        lease_until: i64,
        now: i64,
        gone: Vec<String>,
        limit: usize,
    ) -> Result<Vec<Claimed>> {
        each!(self.claim(owner, lease_until, now, gone, limit))
    }

    /// Asks the owner of a running run to cancel it (it reads this when it renews its
    /// lease); false when the run is not running.
    pub async fn request_cancel(&self, id: &str) -> Result<bool> {
        each!(self.request_cancel(id))
    }

    /// Keeps a new API key of `tenant` by the SHA-256 of the key (hex).
    pub async fn insert_key(&self, row: &StoredKey, hash: &str) -> Result<()> {
        each!(self.insert_key(row, hash))
    }

    /// The stored keys, oldest first.
    pub async fn keys(&self) -> Result<Vec<StoredKey>> {
        each!(self.keys())
    }

    /// Removes the stored key `id`; false when there is none.
    pub async fn revoke_key(&self, id: &str) -> Result<bool> {
        each!(self.revoke_key(id))
    }

    /// The tenant of the stored key whose SHA-256 (hex) is `hash`.
    pub async fn key_tenant(&self, hash: &str) -> Result<Option<String>> {
        each!(self.key_tenant(hash))
    }

    /// The run, if `tenant` owns it.
    pub async fn run(&self, tenant: &str, id: &str) -> Result<Option<RunRow>> {
        each!(self.run(tenant, id))
    }

    /// The run's status, whoever owns it (for readers already allowed to see it).
    pub async fn run_status(&self, id: &str) -> Result<Option<RunStatus>> {
        each!(self.run_status(id))
    }

    /// The run's stored events after number `after`, in order.
    pub async fn events_after(&self, id: &str, after: u64) -> Result<Vec<StoredEvent>> {
        each!(self.events_after(id, after))
    }

    /// The number of the run's last stored event (0 without any).
    pub async fn last_event(&self, id: &str) -> Result<u64> {
        each!(self.last_event(id))
    }
}
