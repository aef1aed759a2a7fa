//! Sessions that outlive the process, and long-term recall.
//!
//! A [`SessionStore`] keeps each conversation (its messages, without the system prompt)
//! under an id: [`InMemoryStore`] (LRU-bounded, optionally in front of another store),
//! [`SqliteStore`] (the embedded default: one file, WAL, one transaction per turn) and,
//! behind the `postgres` feature, `PostgresStore` for many processes sharing sessions.
//! A store also hands out turn locks, so one session never runs two turns at once, even
//! across processes.
//!
//! The context window a request sends is derived from the stored history by the same
//! trimming and repair as always (see [`crate::context`]); the store never holds a
//! half-written turn.

mod conversation;
mod embed;
mod in_memory;
#[cfg(feature = "local-embeddings")]
mod local;
#[cfg(feature = "postgres")]
mod postgres;
#[cfg(feature = "sqlite")]
mod sqlite;
mod vector;
#[cfg(feature = "postgres")]
mod vector_pg;
#[cfg(feature = "sqlite")]
mod vector_sqlite;

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{Error, Result};
use crate::message::Message;

pub use conversation::{ConversationMemory, MemoryConfig, Prepared, RECALL_HEADER};
pub use embed::{Embedder, GeminiEmbedder, OpenAiEmbedder, normalize};
pub use in_memory::InMemoryStore;
#[cfg(feature = "local-embeddings")]
pub use local::LocalEmbedder;
#[cfg(feature = "postgres")]
pub use postgres::PostgresStore;
#[cfg(feature = "sqlite")]
pub use sqlite::SqliteStore;
pub use vector::{MemoryFilter, MemoryHit, MemoryRecord, VectorIndex, dot};
#[cfg(feature = "postgres")]
pub use vector_pg::PgVectorIndex;
#[cfg(feature = "sqlite")]
pub use vector_sqlite::SqliteVectorIndex;

/// What a store knows about a session without loading its messages.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionInfo {
    /// The session id.
    pub id: String,
    /// A title (the start of the first user message unless set otherwise).
    pub title: Option<String>,
    /// Creation time, milliseconds since the Unix epoch.
    pub created_at: i64,
    /// Time of the last change, milliseconds since the Unix epoch.
    pub updated_at: i64,
    /// Messages stored.
    pub message_count: usize,
    /// Free-form metadata (user id, tags…).
    pub metadata: Value,
}

/// A session with its messages.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredSession {
    /// What is known about it.
    pub info: SessionInfo,
    /// Its messages, oldest first, without the system prompt.
    pub messages: Vec<Message>,
}

/// Proof that this process holds a session's turn lock; give it back with
/// [`SessionStore::unlock`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnLock {
    /// The session.
    pub session_id: String,
    /// Who holds it: `host:pid:nonce`.
    pub owner: String,
}

/// Where sessions live.
///
/// Every method is one atomic operation: `append` writes a whole turn or nothing.
pub trait SessionStore: Send + Sync + 'static {
    /// A short name for errors (`memory`, `sqlite`, `postgres`).
    fn kind(&self) -> &'static str;
    /// Creates the session if it does not exist; returns its info either way.
    fn create<'a>(&'a self, id: &'a str, metadata: Value) -> BoxFuture<'a, Result<SessionInfo>>;
    /// The session and its messages, or `None`.
    fn load<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<StoredSession>>>;
    /// Appends the messages of one turn atomically (the session must exist).
    fn append<'a>(&'a self, id: &'a str, messages: &'a [Message]) -> BoxFuture<'a, Result<()>>;
    /// Replaces every message (after compression) atomically.
    fn replace<'a>(&'a self, id: &'a str, messages: &'a [Message]) -> BoxFuture<'a, Result<()>>;
    /// Deletes the session; false when it did not exist.
    fn delete<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool>>;
    /// Sessions, most recently updated first.
    fn list(&self, limit: usize, offset: usize) -> BoxFuture<'_, Result<Vec<SessionInfo>>>;
    /// Takes the session's turn lock, or fails with [`Error::SessionBusy`] when another
    /// turn (in this process or another) holds it. A lock whose holder died or whose lease
    /// expired is taken over.
    fn lock<'a>(&'a self, id: &'a str, lease: Duration) -> BoxFuture<'a, Result<TurnLock>>;
    /// Releases a lock taken with [`SessionStore::lock`].
    fn unlock<'a>(&'a self, lock: &'a TurnLock) -> BoxFuture<'a, Result<()>>;
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0)
}

/// A title from the first user message: its first line, at most 60 characters.
///
/// ```
/// use lucid::Message;
/// let t = lucid::memory::title_of(&[Message::user("Plan a trip to Kyoto\nin April")]);
/// assert_eq!(t.as_deref(), Some("Plan a trip to Kyoto"));
/// ```
pub fn title_of(messages: &[Message]) -> Option<String> {
    messages.iter().find_map(|m| match m {
        Message::User { content } => {
            let line = content.lines().find(|l| !l.trim().is_empty())?.trim();
            let mut t: String = line.chars().take(60).collect();
            if line.chars().count() > 60 {
                t.push('…');
            }
            Some(t)
        }
        _ => None,
    })
}

/// This process's identity for turn locks: `host:pid:nonce`.
pub fn lock_owner() -> String {
    format!("{}:{}:{:08x}", hostname(), std::process::id(), fastrand::u32(..))
}

fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .map(|h| h.trim().to_string())
        .unwrap_or_else(|_| "localhost".into())
}

/// Whether a lock held by `owner` may be taken over: its lease expired, or it was taken
/// by a process on this host that no longer runs.
pub fn lock_is_stale(owner: &str, expires_at: i64, now: i64) -> bool {
    if expires_at <= now {
        return true;
    }
    let mut parts = owner.split(':');
    let (Some(host), Some(pid)) = (parts.next(), parts.next().and_then(|p| p.parse::<u32>().ok())) else {
        return false;
    };
    host == hostname() && pid != std::process::id() && !process_alive(pid)
}

#[cfg(target_os = "linux")]
fn process_alive(pid: u32) -> bool {
    // A zombie still has a /proc entry; its state letter is Z.
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat.rsplit_once(')').is_some_and(|(_, rest)| !rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

#[cfg(not(target_os = "linux"))]
fn process_alive(_pid: u32) -> bool {
    true
}

pub(crate) fn busy(id: &str, owner: &str) -> Error {
    Error::SessionBusy { id: id.to_string(), owner: owner.to_string() }
}

pub(crate) fn encode_message(m: &Message) -> Result<String> {
    serde_json::to_string(m).map_err(|e| Error::Store { store: "encode", message: e.to_string() })
}

pub(crate) fn decode_message(store: &'static str, body: &str) -> Result<Message> {
    serde_json::from_str(body)
        .map_err(|e| Error::Store { store, message: format!("a stored message is unreadable: {e}") })
}
