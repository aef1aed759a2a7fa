//! What the server keeps besides the conversations: which tenant owns each session, the
//! runs with their status, result and lease, and every run's events (tables
//! `serve_sessions`, `serve_runs`, `serve_events`), in the database of the session store:
//! a SQLite file ([`sqlite`](mod@sqlite), one instance) or PostgreSQL
//! ([`postgres`](mod@postgres), any number of instances), each behind [`RunStore`].
//!
//! One run at a time per session is the database's rule, not the process's: a partial
//! unique index allows one `queued` or `running` run per session. A `running` run has an
//! owner (the instance working on it, `host:pid:nonce`) whose lease it renews; a run whose
//! lease expired, or whose owner was a process of this host that is gone, is claimed by
//! another instance (or the same one restarted), which continues it from the session's
//! last commit. Writes of a run's events and end are fenced: they only land while the
//! writer still owns the run.

mod attachments;
#[cfg(feature = "postgres")]
mod postgres;
mod query;
mod schema;
mod spend;
mod sql;
mod sqlite;
mod store;

pub use spend::{Held, Hold};

use std::collections::HashMap;
use std::sync::Arc;

use futures::future::BoxFuture;
use lucid::store::encoding::Blob;
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
    /// A run changed in a transaction was gone when the same transaction read it again.
    #[error("run {0} vanished from the server's database within one transaction")]
    Vanished(String),
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
    /// Tool calls wait for a person's approval; `POST /v1/runs/{id}/approvals` answers them.
    NeedsApproval,
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
            RunStatus::NeedsApproval => "needs_approval",
        }
    }

    fn parse(s: &str) -> RunStatus {
        match s {
            "queued" => RunStatus::Queued,
            "running" => RunStatus::Running,
            "completed" => RunStatus::Completed,
            "cancelled" => RunStatus::Cancelled,
            "needs_input" => RunStatus::NeedsInput,
            "needs_approval" => RunStatus::NeedsApproval,
            _ => RunStatus::Failed,
        }
    }

    /// Whether the agent is (about to be) working on it.
    pub fn is_active(self) -> bool {
        matches!(self, RunStatus::Queued | RunStatus::Running)
    }
}

/// What [`RunStore::delete_session`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Removal {
    /// The session, its runs and their events are gone.
    Deleted,
    /// The tenant has no such session.
    Missing,
    /// Kept: a run of it is queued or running.
    Busy,
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
    /// Its input as shown: the text, or the parts with each attachment described (media
    /// type, size, SHA-256) rather than its bytes.
    pub input: Option<Value>,
}

/// A turn's input as a run keeps it: its text and, when it has attachments, the user
/// message as stored JSON with each attachment as its SHA-256 and size (the bytes are in
/// the session store's blobs, once, kept in the transaction that stores the run).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunInput {
    /// The text (of every text part, joined).
    pub text: String,
    /// The stored user message, when the input has attachments.
    pub parts: Option<String>,
    /// The bytes it counts in the tenant's quota: its text, its parts and its attachments.
    pub bytes: i64,
    /// The attachments' bytes to keep, referred to by the run's session, in the same
    /// transaction as the run ([`RunStore::insert_run`], [`RunStore::continue_run`]): a
    /// stored run always finds them, and a refused one (409) leaves none behind. Empty
    /// when read back (the bytes are fetched by hash, [`RunStore::attachments`]).
    pub blobs: Vec<Blob>,
}

impl RunInput {
    /// The input as shown: the text, or the described parts.
    fn shown(text: Option<String>, parts: Option<String>) -> Result<Option<Value>> {
        Ok(match parts {
            Some(p) => Some(serde_json::from_str::<Value>(&p)?["parts"].take()),
            None => text.map(Value::String),
        })
    }
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

/// What a tenant spent on one day: its turns' cost, tokens and model calls.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DailySpend {
    /// Billionths of a dollar, over the turns whose cost was known.
    pub cost_nanos: i64,
    /// Turns whose cost was not known (a model without a price).
    pub unpriced: i64,
    /// Prompt and answer tokens.
    pub tokens: i64,
    /// Model calls.
    pub model_calls: i64,
}

/// What a tenant keeps in the server's tables, as its quotas count it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    /// Its sessions.
    pub sessions: u64,
    /// The bytes of its sessions' metadata and of its runs' inputs, results, errors and
    /// events (runs stored before these were counted count nothing).
    pub bytes: u64,
}

/// The bytes the events' data hold.
fn event_bytes(events: &[StoredEvent]) -> i64 {
    events.iter().map(|e| e.data.len() as i64).sum()
}

/// The bytes an optional JSON value holds once stored.
fn json_bytes(value: &Option<Value>) -> (Option<String>, i64) {
    let text = value.as_ref().map(Value::to_string);
    let n = text.as_ref().map_or(0, |t| t.len() as i64);
    (text, n)
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
    pub input: RunInput,
}

/// A run waiting for approvals.
#[derive(Debug, Clone, PartialEq)]
pub struct Waiting {
    /// The run.
    pub id: String,
    /// Its tenant.
    pub tenant: String,
    /// Its session.
    pub session_id: String,
    /// The session's agent.
    pub agent: String,
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
    "fallback",
    "event",
    "needs_input",
    "approval_requested",
    "needs_approval",
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

/// The server's tables, in SQLite ([`sqlite::SqliteDb`]) or PostgreSQL
/// ([`postgres::PostgresDb`]): each method is written once ([`store::Store`]) over the
/// query layer ([`query`](mod@query)), with the statements per dialect side by side
/// ([`sql`](mod@sql)), and the routes hold whichever as a [`Db`]. Futures are boxed so
/// the trait is object-safe.
pub trait RunStore: Send + Sync {
    /// Answers when the database does.
    fn ping(&self) -> BoxFuture<'_, Result<()>>;

    /// Records a new session of `tenant`.
    fn create_session<'a>(&'a self, tenant: &'a str, row: &'a SessionRow) -> BoxFuture<'a, Result<()>>;

    /// The session, if `tenant` owns it.
    fn session<'a>(&'a self, tenant: &'a str, id: &'a str) -> BoxFuture<'a, Result<Option<SessionRow>>>;

    /// `tenant`'s sessions, newest first: `limit` of them after `offset`; their metadata
    /// read only `with_metadata` (`null` otherwise).
    fn sessions<'a>(
        &'a self,
        tenant: &'a str,
        limit: usize,
        offset: usize,
        with_metadata: bool,
    ) -> BoxFuture<'a, Result<Vec<SessionRow>>>;

    /// What `tenant` keeps: its sessions, and the bytes of their metadata, of its runs and
    /// of its stored responses.
    fn usage<'a>(&'a self, tenant: &'a str) -> BoxFuture<'a, Result<Usage>>;

    /// Counts `bytes` against `tenant` for its stored response `id` (the response itself is
    /// a conversation in the session store).
    fn insert_response<'a>(&'a self, tenant: &'a str, id: &'a str, bytes: i64, now: i64) -> BoxFuture<'a, Result<()>>;

    /// Stops counting `tenant`'s stored response `id`; false when it had none.
    fn delete_response<'a>(&'a self, tenant: &'a str, id: &'a str) -> BoxFuture<'a, Result<bool>>;

    /// Deletes `tenant`'s session with its runs and their events, unless one of its runs
    /// is `queued` or `running` (checked in the same statement, so a run inserted just
    /// before is seen even when its task has not taken the turn lock yet).
    fn delete_session<'a>(&'a self, tenant: &'a str, id: &'a str) -> BoxFuture<'a, Result<Removal>>;

    /// Records a new `running` run owned by `owner` until `lease_until`, and keeps its
    /// input's attachments (`input.blobs`, once by SHA-256, referred to by the run's
    /// session: they live as long as it does, as its messages' do), in one transaction;
    /// false (nothing written) when its session already has an active one.
    fn insert_run<'a>(
        &'a self,
        tenant: &'a str,
        row: &'a RunRow,
        input: &'a RunInput,
        owner: &'a str,
        lease_until: i64,
    ) -> BoxFuture<'a, Result<bool>>;

    /// The bytes of the stored attachments of these SHA-256s (those found).
    fn attachments<'a>(&'a self, hashes: Vec<String>) -> BoxFuture<'a, Result<HashMap<String, Vec<u8>>>>;

    /// Moves a run from `from` to `to`; false when it was not in `from`.
    fn move_run<'a>(&'a self, id: &'a str, from: RunStatus, to: RunStatus, now: i64) -> BoxFuture<'a, Result<bool>>;

    /// A run waiting in `from` (`needs_input`, `needs_approval`) goes on: `running` again,
    /// owned by `owner` until `lease_until`, no cancel asked, its input replaced when one
    /// is given (its attachments kept in the same transaction, as [`RunStore::insert_run`]
    /// keeps them); false when it was not waiting (another request took it on first).
    #[allow(clippy::too_many_arguments)]
    fn continue_run<'a>(
        &'a self,
        id: &'a str,
        from: RunStatus,
        input: Option<&'a RunInput>,
        owner: &'a str,
        lease_until: i64,
        now: i64,
    ) -> BoxFuture<'a, Result<bool>>;

    /// Up to `limit` runs waiting for approvals since `before` or earlier (their last
    /// change), oldest first.
    fn waiting_since<'a>(&'a self, before: i64, limit: usize) -> BoxFuture<'a, Result<Vec<Waiting>>>;

    /// Writes the run's new status with its events not yet stored, in one transaction,
    /// if `owner` still owns it (the lease is given up with it); false when it does not
    /// (nothing written).
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
    ) -> BoxFuture<'a, Result<bool>>;

    /// Stores events of a run that is still going, if `owner` still owns it; false when
    /// it does not (nothing written).
    fn append_events<'a>(
        &'a self,
        id: &'a str,
        owner: &'a str,
        events: Vec<StoredEvent>,
    ) -> BoxFuture<'a, Result<bool>>;

    /// Extends the leases of `owner`'s running runs to `lease_until`; the runs it still
    /// owns, and whether a cancel was asked for each.
    fn renew<'a>(&'a self, owner: &'a str, lease_until: i64) -> BoxFuture<'a, Result<Vec<Renewed>>>;

    /// Gives up `owner`'s lease on these running runs: another instance (or this one,
    /// restarted) claims them at once and continues them.
    fn release<'a>(&'a self, owner: &'a str, ids: Vec<String>) -> BoxFuture<'a, Result<()>>;

    /// The owners of running runs other than `owner` whose leases have not expired, so
    /// the caller can tell which of them are processes of this host that are gone.
    fn other_owners<'a>(&'a self, owner: &'a str, now: i64) -> BoxFuture<'a, Result<Vec<String>>>;

    /// Takes over up to `limit` running runs whose lease expired before `now` or whose
    /// owner is one of `gone`: owned by `owner` until `lease_until`, one generation
    /// more. Two instances never claim the same run.
    fn claim<'a>(
        &'a self,
        owner: &'a str,
        lease_until: i64,
        now: i64,
        gone: Vec<String>,
        limit: usize,
    ) -> BoxFuture<'a, Result<Vec<Claimed>>>;

    /// Asks the owner of a running run to cancel it (it reads this when it renews its
    /// lease); false when the run is not running.
    fn request_cancel<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool>>;

    /// Keeps a new API key of `tenant` by the SHA-256 of the key (hex).
    fn insert_key<'a>(&'a self, row: &'a StoredKey, hash: &'a str) -> BoxFuture<'a, Result<()>>;

    /// The stored keys, oldest first.
    fn keys(&self) -> BoxFuture<'_, Result<Vec<StoredKey>>>;

    /// Removes the stored key `id`; false when there is none.
    fn revoke_key<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool>>;

    /// The tenant of the stored key whose SHA-256 (hex) is `hash`.
    fn key_tenant<'a>(&'a self, hash: &'a str) -> BoxFuture<'a, Result<Option<String>>>;

    /// The run, if `tenant` owns it.
    fn run<'a>(&'a self, tenant: &'a str, id: &'a str) -> BoxFuture<'a, Result<Option<RunRow>>>;

    /// The run's status, whoever owns it (for readers already allowed to see it).
    fn run_status<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<RunStatus>>>;

    /// The run's stored events after number `after`, in order.
    fn events_after<'a>(&'a self, id: &'a str, after: u64) -> BoxFuture<'a, Result<Vec<StoredEvent>>>;

    /// The number of the run's last stored event (0 without any).
    fn last_event<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<u64>>;

    /// What the tenant spent on `day` (days since 1970, UTC).
    fn spend<'a>(&'a self, tenant: &'a str, day: i64) -> BoxFuture<'a, Result<DailySpend>>;

    /// Takes `hold` for a model call about to be made, and counts the call, if the day's
    /// spend and the holds not expired at `now`, with it, stay within `limits`; in one
    /// transaction ([module docs](mod@spend)).
    fn hold<'a>(
        &'a self,
        hold: &'a Hold,
        limits: lucid::agent::budget::Limits,
        now: i64,
    ) -> BoxFuture<'a, Result<Held>>;

    /// Ends the hold `id` of `tenant`'s `day`: with `used` (what the call used), settled;
    /// without, released.
    fn settle<'a>(
        &'a self,
        tenant: &'a str,
        day: i64,
        id: &'a str,
        used: Option<DailySpend>,
    ) -> BoxFuture<'a, Result<()>>;
}

/// The server's tables, in whichever database the session store is.
pub type Db = Arc<dyn RunStore>;

/// Opens (or creates) the tables in the SQLite file at `path`.
pub async fn sqlite(path: &std::path::Path) -> Result<Db> {
    Ok(Arc::new(store::Store(sqlite::SqliteDb::open(path).await?)))
}

/// Creates the tables if missing in the database of `pool` (concurrent instances create
/// them once).
#[cfg(feature = "postgres")]
pub async fn postgres(pool: deadpool_postgres::Pool) -> Result<Db> {
    Ok(Arc::new(store::Store(postgres::PostgresDb::open(pool).await?)))
}

#[cfg(test)]
mod tests;
