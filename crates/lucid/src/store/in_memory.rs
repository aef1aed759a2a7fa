//! Sessions in memory, bounded by an LRU capacity, optionally in front of a backing store.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use futures::FutureExt;
use futures::future::BoxFuture;
use serde_json::Value;

use super::error::{Result, StoreError};
use super::lock::{self, busy};
use super::{SessionInfo, SessionStore, StoredSession, TurnLock, now_ms, title_of};
use crate::message::Message;

struct Entry {
    session: StoredSession,
    last_used: u64,
}

#[derive(Default)]
struct Inner {
    sessions: HashMap<String, Entry>,
    /// Turn locks: the holder and the end of its lease.
    locks: HashMap<String, (String, tokio::time::Instant)>,
    clock: u64,
}

/// Sessions held in memory, at most `capacity` of them.
///
/// When full, the least recently used session that is not running a turn is evicted. On
/// its own the store forgets an evicted session; in front of a backing store
/// ([`InMemoryStore::with_backing`]) it writes through, and an evicted session is read back
/// from the backing store when needed.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// use lucid::store::{InMemoryStore, SessionStore};
/// use lucid::Message;
/// let store = InMemoryStore::new(2);
/// for id in ["a", "b", "c"] {
///     store.create(id, serde_json::json!({})).await.unwrap();
///     store.append(id, &[Message::user(id)]).await.unwrap();
/// }
/// assert!(store.load("a").await.unwrap().is_none(), "the least recently used was evicted");
/// assert_eq!(store.load("c").await.unwrap().unwrap().messages, [Message::user("c")]);
/// # });
/// ```
pub struct InMemoryStore {
    inner: Mutex<Inner>,
    capacity: usize,
    backing: Option<Arc<dyn SessionStore>>,
}

impl std::fmt::Debug for InMemoryStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InMemoryStore")
            .field("capacity", &self.capacity)
            .field("backing", &self.backing.as_ref().map(|b| b.kind()))
            .finish()
    }
}

impl InMemoryStore {
    /// A store holding at most `capacity` sessions (at least 1).
    pub fn new(capacity: usize) -> Self {
        InMemoryStore { inner: Mutex::new(Inner::default()), capacity: capacity.max(1), backing: None }
    }

    /// Caches `backing`: writes go to both, evicted sessions are reloaded from it, and turn
    /// locks are taken there too so other processes see them.
    pub fn with_backing(mut self, backing: Arc<dyn SessionStore>) -> Self {
        self.backing = Some(backing);
        self
    }

    /// Sessions currently held in memory.
    pub fn cached(&self) -> usize {
        self.guard().sessions.len()
    }

    fn guard(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn insert(&self, session: StoredSession) {
        let mut inner = self.guard();
        inner.clock += 1;
        let now = inner.clock;
        inner.sessions.insert(session.info.id.clone(), Entry { session, last_used: now });
        while inner.sessions.len() > self.capacity {
            let victim = inner
                .sessions
                .iter()
                .filter(|(id, _)| !inner.locks.contains_key(*id))
                .min_by_key(|(_, e)| e.last_used)
                .map(|(id, _)| id.clone());
            match victim {
                Some(id) => {
                    inner.sessions.remove(&id);
                    tracing::debug!(session = %id, "evicted from the in-memory store");
                }
                None => break,
            }
        }
    }

    fn cached_copy(&self, id: &str) -> Option<StoredSession> {
        let mut inner = self.guard();
        inner.clock += 1;
        let now = inner.clock;
        inner.sessions.get_mut(id).map(|e| {
            e.last_used = now;
            e.session.clone()
        })
    }

    /// Makes sure `id` is cached (reading it from the backing store if needed).
    async fn ensure(&self, id: &str) -> Result<bool> {
        if self.guard().sessions.contains_key(id) {
            return Ok(true);
        }
        let Some(backing) = &self.backing else { return Ok(false) };
        match backing.load(id).await? {
            Some(s) => {
                self.insert(s);
                Ok(true)
            }
            None => Ok(false),
        }
    }

    fn missing(id: &str) -> StoreError {
        StoreError::failed("memory", format!("no session `{id}`"))
    }

    fn edit(&self, id: &str, f: impl FnOnce(&mut StoredSession)) -> Result<()> {
        let mut inner = self.guard();
        let entry = inner.sessions.get_mut(id).ok_or_else(|| Self::missing(id))?;
        f(&mut entry.session);
        entry.session.info.message_count = entry.session.messages.len();
        entry.session.info.updated_at = now_ms().max(entry.session.info.updated_at);
        Ok(())
    }
}

impl SessionStore for InMemoryStore {
    fn kind(&self) -> &'static str {
        "memory"
    }

    fn create<'a>(&'a self, id: &'a str, metadata: Value) -> BoxFuture<'a, Result<SessionInfo>> {
        async move {
            if self.ensure(id).await? {
                return self.cached_copy(id).map(|s| s.info).ok_or_else(|| Self::missing(id));
            }
            let info = match &self.backing {
                Some(b) => b.create(id, metadata).await?,
                None => {
                    let now = now_ms();
                    SessionInfo {
                        id: id.to_string(),
                        title: None,
                        created_at: now,
                        updated_at: now,
                        message_count: 0,
                        metadata,
                    }
                }
            };
            self.insert(StoredSession { info: info.clone(), messages: Vec::new() });
            Ok(info)
        }
        .boxed()
    }

    fn load<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<StoredSession>>> {
        async move {
            self.ensure(id).await?;
            Ok(self.cached_copy(id))
        }
        .boxed()
    }

    fn append<'a>(&'a self, id: &'a str, messages: &'a [Message]) -> BoxFuture<'a, Result<()>> {
        async move {
            if !self.ensure(id).await? {
                return Err(Self::missing(id));
            }
            if let Some(b) = &self.backing {
                b.append(id, messages).await?;
            }
            self.edit(id, |s| {
                if s.info.title.is_none() {
                    s.info.title = title_of(messages);
                }
                s.messages.extend_from_slice(messages);
            })
        }
        .boxed()
    }

    fn replace<'a>(&'a self, id: &'a str, messages: &'a [Message]) -> BoxFuture<'a, Result<()>> {
        async move {
            if !self.ensure(id).await? {
                return Err(Self::missing(id));
            }
            if let Some(b) = &self.backing {
                b.replace(id, messages).await?;
            }
            self.edit(id, |s| s.messages = messages.to_vec())
        }
        .boxed()
    }

    fn merge_metadata<'a>(&'a self, id: &'a str, patch: Value) -> BoxFuture<'a, Result<()>> {
        async move {
            if !self.ensure(id).await? {
                return Err(Self::missing(id));
            }
            if let Some(b) = &self.backing {
                b.merge_metadata(id, patch.clone()).await?;
            }
            self.edit(id, |s| super::merge_json(&mut s.info.metadata, patch))
        }
        .boxed()
    }

    fn delete<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool>> {
        async move {
            let here = self.guard().sessions.remove(id).is_some();
            let there = match &self.backing {
                Some(b) => b.delete(id).await?,
                None => false,
            };
            Ok(here || there)
        }
        .boxed()
    }

    fn list(&self, limit: usize, offset: usize) -> BoxFuture<'_, Result<Vec<SessionInfo>>> {
        async move {
            if let Some(b) = &self.backing {
                return b.list(limit, offset).await;
            }
            let mut all: Vec<SessionInfo> = self.guard().sessions.values().map(|e| e.session.info.clone()).collect();
            all.sort_by(|a, b| b.updated_at.cmp(&a.updated_at).then_with(|| a.id.cmp(&b.id)));
            Ok(all.into_iter().skip(offset).take(limit).collect())
        }
        .boxed()
    }

    fn lock<'a>(&'a self, id: &'a str, lease: Duration) -> BoxFuture<'a, Result<TurnLock>> {
        async move {
            let owner = lock::owner();
            {
                let mut inner = self.guard();
                let now = tokio::time::Instant::now();
                if let Some((holder, until)) = inner.locks.get(id)
                    && *until > now
                {
                    return Err(busy(id, holder));
                }
                inner.locks.insert(id.to_string(), (owner.clone(), now + lease));
            }
            if let Some(b) = &self.backing {
                match b.lock(id, lease).await {
                    Ok(remote) => {
                        self.guard()
                            .locks
                            .insert(id.to_string(), (remote.owner.clone(), tokio::time::Instant::now() + lease));
                        return Ok(remote);
                    }
                    Err(e) => {
                        self.guard().locks.remove(id);
                        return Err(e);
                    }
                }
            }
            Ok(TurnLock { session_id: id.to_string(), owner })
        }
        .boxed()
    }

    fn unlock<'a>(&'a self, lock: &'a TurnLock) -> BoxFuture<'a, Result<()>> {
        async move {
            {
                let mut inner = self.guard();
                if inner.locks.get(&lock.session_id).is_some_and(|(owner, _)| *owner == lock.owner) {
                    inner.locks.remove(&lock.session_id);
                }
            }
            match &self.backing {
                Some(b) => b.unlock(lock).await,
                None => Ok(()),
            }
        }
        .boxed()
    }

    fn break_lock<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool>> {
        async move {
            let here = self.guard().locks.remove(id).is_some();
            match &self.backing {
                Some(b) => Ok(b.break_lock(id).await? || here),
                None => Ok(here),
            }
        }
        .boxed()
    }
}
