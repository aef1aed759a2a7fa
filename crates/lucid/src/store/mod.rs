//! Where sessions live: the [`SessionStore`] trait and its stores.
//!
//! A [`SessionStore`] keeps each conversation (its messages, without the system prompt)
//! under an id: [`InMemoryStore`] (LRU-bounded, optionally in front of another store),
//! and, in crates of their own, `lucid_sqlite::SqliteStore` (the embedded default: one
//! file, WAL, one transaction per turn) and `lucid_postgres::PostgresStore` for many
//! processes sharing sessions. A store also hands out turn locks ([`lock`]), so one session never runs two
//! turns at once, even across processes.
//!
//! The helpers a store needs are public so a store written outside this crate can reuse
//! them: [`lock`] (owners, staleness), [`encoding`] (messages as stored JSON), [`title_of`]
//! and [`now_ms`]. With the `test-kit` feature, [`test_kit`] runs the conformance suite
//! every store in this crate passes against any other store.
//!
//! This module holds no context policy: the context window a request sends is derived from
//! the stored history by the same trimming and repair as always (see [`crate::context`]);
//! the store never holds a half-written turn. Long-term recall lives in [`crate::memory`].
//!
//! A session's metadata is free-form JSON: `create` sets it and
//! [`SessionStore::merge_metadata`] updates its top-level keys. The layered memory keeps
//! its summaries there, under [`SUMMARIES_KEY`], so they live and go with the session.
//!
//! A store of your own implements the trait's nine methods; they fail with the store
//! layer's own [`StoreError`] (`store::Result`), which a turn turns into a
//! [`lucid::Error`](crate::Error):
//!
//! ```
//! use std::collections::HashMap;
//! use std::sync::Mutex;
//! use std::time::Duration;
//! use futures::future::{BoxFuture, FutureExt};
//! use lucid::store::{Result, SessionInfo, SessionStore, StoredSession, TurnLock, lock, now_ms};
//! use lucid::Message;
//!
//! /// Sessions in a map, one process only.
//! #[derive(Default)]
//! struct MapStore(Mutex<HashMap<String, StoredSession>>);
//!
//! impl SessionStore for MapStore {
//!     fn kind(&self) -> &'static str { "map" }
//!     fn create<'a>(&'a self, id: &'a str, metadata: serde_json::Value) -> BoxFuture<'a, Result<SessionInfo>> {
//!         let mut map = self.0.lock().unwrap();
//!         let s = map.entry(id.to_string()).or_insert_with(|| StoredSession {
//!             info: SessionInfo { id: id.into(), title: None, created_at: now_ms(), updated_at: now_ms(),
//!                                 message_count: 0, metadata },
//!             messages: Vec::new(),
//!         });
//!         let info = s.info.clone();
//!         async move { Ok(info) }.boxed()
//!     }
//!     fn load<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<StoredSession>>> {
//!         let s = self.0.lock().unwrap().get(id).cloned();
//!         async move { Ok(s) }.boxed()
//!     }
//!     fn append<'a>(&'a self, id: &'a str, messages: &'a [Message]) -> BoxFuture<'a, Result<()>> {
//!         if let Some(s) = self.0.lock().unwrap().get_mut(id) {
//!             s.messages.extend_from_slice(messages);
//!             s.info.message_count = s.messages.len();
//!         }
//!         async { Ok(()) }.boxed()
//!     }
//!     fn replace<'a>(&'a self, id: &'a str, messages: &'a [Message]) -> BoxFuture<'a, Result<()>> {
//!         if let Some(s) = self.0.lock().unwrap().get_mut(id) {
//!             s.messages = messages.to_vec();
//!             s.info.message_count = s.messages.len();
//!         }
//!         async { Ok(()) }.boxed()
//!     }
//!     fn merge_metadata<'a>(&'a self, id: &'a str, patch: serde_json::Value) -> BoxFuture<'a, Result<()>> {
//!         if let Some(s) = self.0.lock().unwrap().get_mut(id) {
//!             lucid::store::merge_json(&mut s.info.metadata, patch);
//!         }
//!         async { Ok(()) }.boxed()
//!     }
//!     fn delete<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool>> {
//!         let gone = self.0.lock().unwrap().remove(id).is_some();
//!         async move { Ok(gone) }.boxed()
//!     }
//!     fn list(&self, limit: usize, offset: usize) -> BoxFuture<'_, Result<Vec<SessionInfo>>> {
//!         let mut all: Vec<_> = self.0.lock().unwrap().values().map(|s| s.info.clone()).collect();
//!         all.sort_by_key(|i| std::cmp::Reverse(i.updated_at));
//!         async move { Ok(all.into_iter().skip(offset).take(limit).collect()) }.boxed()
//!     }
//!     fn lock<'a>(&'a self, id: &'a str, _lease: Duration) -> BoxFuture<'a, Result<TurnLock>> {
//!         // One process: a real store records the owner and checks `lock::is_stale`.
//!         async move { Ok(TurnLock { session_id: id.into(), owner: lock::owner() }) }.boxed()
//!     }
//!     fn unlock<'a>(&'a self, _lock: &'a TurnLock) -> BoxFuture<'a, Result<()>> {
//!         async { Ok(()) }.boxed()
//!     }
//! }
//!
//! # async fn demo() -> lucid::Result<()> {
//! # let model = lucid::model::OpenAiCompatible::new("http://127.0.0.1:1/v1", None, "m")?;
//! let agent = lucid::Agent::builder(model).store(std::sync::Arc::new(MapStore::default())).build();
//! let mut session = agent.session_with_id("support-42").await?;
//! # Ok(()) }
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! // Without a `break_lock` of its own, a store says it cannot break turn locks.
//! assert!(MapStore::default().break_lock("support-42").await.is_err());
//! # });
//! ```

pub mod encoding;
pub(crate) mod error;
mod in_memory;
pub mod lock;
#[cfg(feature = "test-kit")]
pub mod test_kit;

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::message::Message;

pub use error::{Result, StoreError};
pub use in_memory::InMemoryStore;

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
    /// Sets the top-level keys of `patch` (an object) in the session's metadata, keeping
    /// the others; a `null` value removes its key. Atomic; the session must exist.
    fn merge_metadata<'a>(&'a self, id: &'a str, patch: Value) -> BoxFuture<'a, Result<()>>;
    /// Deletes the session; false when it did not exist.
    fn delete<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool>>;
    /// Sessions, most recently updated first.
    fn list(&self, limit: usize, offset: usize) -> BoxFuture<'_, Result<Vec<SessionInfo>>>;
    /// Takes the session's turn lock, or fails with [`StoreError::Busy`] when another
    /// turn (in this process or another) holds it. A lock whose holder died or whose lease
    /// expired is taken over.
    fn lock<'a>(&'a self, id: &'a str, lease: Duration) -> BoxFuture<'a, Result<TurnLock>>;
    /// Releases a lock taken with [`SessionStore::lock`].
    fn unlock<'a>(&'a self, lock: &'a TurnLock) -> BoxFuture<'a, Result<()>>;

    /// Removes the session's turn lock whoever holds it; true when there was one. For a
    /// coordinator that knows the holder is gone (its lease in another table expired, its
    /// machine was lost) and hands the session to another process at once, without waiting
    /// for the turn lease. The holder, if it still runs, loses its guarantee: break only a
    /// lock whose holder is known dead. The default answers [`StoreError::Failed`] ("this store
    /// cannot break turn locks"), so stores written before it still compile.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// use std::time::Duration;
    /// use lucid::store::{InMemoryStore, SessionStore};
    /// let store = InMemoryStore::new(10);
    /// let _held = store.lock("s", Duration::from_secs(60)).await.unwrap();
    /// assert!(store.break_lock("s").await.unwrap());
    /// assert!(store.lock("s", Duration::from_secs(60)).await.is_ok(), "free again");
    /// # });
    /// ```
    fn break_lock<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool>> {
        let _ = id;
        Box::pin(async move { Err(StoreError::failed(self.kind(), "this store cannot break turn locks")) })
    }

    /// The session with every message that can still be read, and the positions of those
    /// that cannot (a corrupted row): what [`repair`] rebuilds from. Stores that keep
    /// messages as text override it; the default is [`SessionStore::load`], which has
    /// nothing unreadable to skip.
    fn salvage<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<Salvaged>>> {
        Box::pin(async move { Ok(self.load(id).await?.map(|session| Salvaged { session, unreadable: Vec::new() })) })
    }
}

/// What [`SessionStore::salvage`] could read of a session.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Salvaged {
    /// The session with its readable messages, in order.
    pub session: StoredSession,
    /// Positions (0-based, in stored order) of the messages that could not be read.
    pub unreadable: Vec<usize>,
}

impl Salvaged {
    /// What a store read of a session: its readable messages, and the positions of those
    /// it could not read (for a store written outside this crate).
    pub fn new(session: StoredSession, unreadable: Vec<usize>) -> Self {
        Salvaged { session, unreadable }
    }
}

/// What [`repair`] did to a session.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct SessionRepair {
    /// Messages kept.
    pub messages: usize,
    /// Unreadable messages dropped (their positions, 0-based).
    pub unreadable_dropped: Vec<usize>,
    /// What the history repair pass changed so the rest is a valid conversation.
    pub history: crate::history::RepairReport,
}

/// Rebuilds session `id` from what can be rebuilt: the readable messages, made a valid
/// history by the repair pass, written back whole (which also renumbers the rows and
/// rewrites the count). `Ok(None)` when there is no such session. Takes the session's turn
/// lock, so it never races a running turn.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// use lucid::store::{InMemoryStore, SessionStore, repair};
/// let store = InMemoryStore::new(10);
/// store.create("s", serde_json::json!({})).await.unwrap();
/// // A result whose call is gone: dropped by the repair pass.
/// store.append("s", &[lucid::Message::user("hi"), lucid::Message::tool_result("c9", "t", "x", false)]).await.unwrap();
/// let report = repair(&store, "s").await.unwrap().unwrap();
/// assert_eq!((report.messages, report.history.orphaned_results_dropped), (1, 1));
/// # });
/// ```
pub async fn repair(store: &dyn SessionStore, id: &str) -> Result<Option<SessionRepair>> {
    let lock = store.lock(id, Duration::from_secs(60)).await?;
    let outcome = async {
        let Some(Salvaged { session, unreadable }) = store.salvage(id).await? else { return Ok(None) };
        let mut messages = session.messages;
        let history = crate::history::repair(&mut messages);
        store.replace(id, &messages).await?;
        Ok(Some(SessionRepair { messages: messages.len(), unreadable_dropped: unreadable, history }))
    }
    .await;
    store.unlock(&lock).await?;
    outcome
}

into_shared! {
    /// Anything [`SessionStore`] can be taken as: a value, an `Arc` of one, or an
    /// `Arc<dyn SessionStore>`.
    ///
    /// ```
    /// # let model = std::sync::Arc::new(lucid::model::OpenAiCompatible::new("http://127.0.0.1:9/v1", None, "m").unwrap());
    /// use lucid::store::InMemoryStore;
    /// let by_value = lucid::Agent::builder(model.clone()).store(InMemoryStore::new(10)).build();
    /// let shared = std::sync::Arc::new(InMemoryStore::new(10));
    /// let by_arc = lucid::Agent::builder(model).store(shared.clone()).build();
    /// ```
    IntoSessionStore::into_shared => SessionStore
}

/// The metadata key under which a session's memory summaries are kept (see
/// [`crate::memory::Summary`]).
pub const SUMMARIES_KEY: &str = "summaries";

/// The metadata key under which a session keeps the ids of the tool calls a hook deferred
/// ([`crate::agent::hooks::ToolCallDecision::Defer`]): the next `resume`, in any process,
/// asks the hooks about them again instead of answering them "interrupted".
pub const DEFERRED_KEY: &str = "deferred_calls";

/// The metadata key under which a stored session keeps what it has spent
/// ([`Spend`](crate::Spend)): tokens, model calls and dollars over its turns.
pub const SPEND_KEY: &str = "spend";

/// Lays the top-level keys of `patch` over `metadata` (what
/// [`SessionStore::merge_metadata`] does): a `null` removes its key, and metadata that is
/// not an object becomes one.
///
/// ```
/// use serde_json::json;
/// let mut m = json!({"user": "ada", "tag": "x"});
/// lucid::store::merge_json(&mut m, json!({"tag": null, "summaries": []}));
/// assert_eq!(m, json!({"user": "ada", "summaries": []}));
/// ```
pub fn merge_json(metadata: &mut Value, patch: Value) {
    if !metadata.is_object() {
        *metadata = Value::Object(serde_json::Map::new());
    }
    let (Some(map), Value::Object(patch)) = (metadata.as_object_mut(), patch) else { return };
    for (k, v) in patch {
        if v.is_null() {
            map.remove(&k);
        } else {
            map.insert(k, v);
        }
    }
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0)
}

/// A title from the first user message: its first line, at most 60 characters.
///
/// ```
/// use lucid::Message;
/// let t = lucid::store::title_of(&[Message::user("Plan a trip to Kyoto\nin April")]);
/// assert_eq!(t.as_deref(), Some("Plan a trip to Kyoto"));
/// ```
pub fn title_of(messages: &[Message]) -> Option<String> {
    messages.iter().find_map(|m| match m {
        Message::User { content, .. } => {
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
