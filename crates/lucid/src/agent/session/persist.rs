//! What a stored session writes, and the turn lock that keeps one turn at a time.
//!
//! A turn holds its session's lock through a [`HeldLock`]: released when the turn ends,
//! and also when its future is dropped (a timeout, a dropped stream or request handler)
//! or panics, by a task of its own. A turn starting in this process waits for such a
//! release first, so dropping a turn never leaves its session busy.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Duration;

use tokio::sync::watch;

use super::Session;
use crate::error::Result;
use crate::store::{SessionStore, TurnLock};

/// Where a session stands with its store: what the next save must write, and what a
/// dropped turn left there.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct StoreSync {
    /// The history was edited (cleared, undone, compressed): the next save replaces it whole.
    pub edited: bool,
    /// Messages of the last turn (from its user message) the store already holds; what
    /// follows is written by the next save. Trimming only drops older turns, so this
    /// count stays true while the turn grows.
    pub turn_saved: usize,
    /// The stored history ended with unanswered tool calls: the next run answers them.
    pub recover: bool,
    /// The current turn wrote to the store.
    pub touched: bool,
    /// A dropped turn had written to the store: the next turn starts from what it holds.
    pub reload: bool,
}

impl Session {
    /// Writes the whole history to the store now, replacing what it held (each turn is
    /// saved on its own when it ends; call this after editing the history, e.g. `clear`).
    pub async fn save(&mut self) -> Result<()> {
        self.save_hook_state().await?;
        if let (Some(store), Some(id)) = (&self.agent.config.store, &self.id) {
            self.sync.touched = true;
            store.replace(id, self.context.history()).await?;
            self.sync.edited = false;
            self.sync.turn_saved = self.last_turn_len();
        }
        Ok(())
    }

    /// The messages of the last turn, from its user message.
    pub(super) fn last_turn_len(&self) -> usize {
        self.context.last_turn_start().map_or(0, |start| self.context.messages().len() - start)
    }

    /// Writes what the hooks changed of their state to the store's metadata (the memory's
    /// summaries among it). It goes before the messages it may replace: a failure in
    /// between leaves both, never neither.
    async fn save_hook_state(&mut self) -> Result<()> {
        let (Some(store), Some(id)) = (&self.agent.config.store, &self.id) else { return Ok(()) };
        if let Some(patch) = self.hook_state.changes() {
            self.sync.touched = true;
            store.merge_metadata(id, patch).await?;
            self.hook_state.saved();
        }
        Ok(())
    }

    /// A step is in the history: the turn's machine says whether it is committed now
    /// (durable steps).
    pub(super) async fn step_taken(&mut self, run: &mut super::run_state::RunState) {
        if run.turn.on(crate::agent::machine::Event::StepTaken) == crate::agent::machine::Action::Commit {
            self.commit().await;
        }
    }

    /// Saves the turn that just ended: what the store lacks of it appended, or the whole
    /// history after an edit.
    pub(super) async fn save_turn(&mut self) -> Result<()> {
        self.save_hook_state().await?;
        self.write_unsaved().await?;
        self.save_spend().await
    }

    /// Writes what the store lacks: the last turn's messages past those already written,
    /// or the whole history after an edit or when the written ones are no longer there.
    async fn write_unsaved(&mut self) -> Result<()> {
        let (Some(store), Some(id)) = (&self.agent.config.store, &self.id) else { return Ok(()) };
        let len = self.last_turn_len();
        if self.sync.edited || len < self.sync.turn_saved {
            self.sync.touched = true;
            store.replace(id, self.context.history()).await?;
            self.sync.edited = false;
        } else if len > self.sync.turn_saved {
            self.sync.touched = true;
            let end = self.context.messages().len();
            store.append(id, &self.context.messages()[end - (len - self.sync.turn_saved)..]).await?;
        }
        self.sync.turn_saved = len;
        Ok(())
    }

    /// Writes what the store lacks now. A failure does not stop the turn; the end-of-turn
    /// save writes the whole history.
    pub(super) async fn commit(&mut self) {
        if let Err(e) = self.write_unsaved().await {
            tracing::warn!(session = self.id.as_deref().unwrap_or_default(), error = %e, "could not commit a step of the turn; the end of the turn writes it");
            self.sync.edited = true;
        }
    }

    /// Takes the turn lock of a stored session (none for a session kept in memory).
    pub(super) async fn lock_turn(&self) -> Result<Option<HeldLock>> {
        let config = &self.agent.config;
        match (&config.store, &self.id) {
            (Some(store), Some(id)) => HeldLock::take(store, id, config.turn_lease).await.map(Some),
            _ => Ok(None),
        }
    }
}

/// A session's turn lock, held by this process until [`HeldLock::release`] or drop.
pub(super) struct HeldLock {
    store: Arc<dyn SessionStore>,
    lock: Option<TurnLock>,
}

impl HeldLock {
    /// Takes the lock, after any release a dropped turn of this process has under way.
    pub async fn take(store: &Arc<dyn SessionStore>, id: &str, lease: Duration) -> Result<Self> {
        let key = id.to_string();
        let pending = releases().lock().unwrap_or_else(PoisonError::into_inner).get(&key).cloned();
        if let Some(mut done) = pending {
            // A closed channel means the release task is gone (done or never run): go on.
            let _ = done.wait_for(|released| *released).await;
        }
        let lock = store.lock(id, lease).await?;
        Ok(HeldLock { store: Arc::clone(store), lock: Some(lock) })
    }

    /// Gives the lock back; a failure is logged (the lease ends it).
    pub async fn release(mut self) {
        if let Some(lock) = self.lock.take() {
            unlock(&*self.store, &lock).await;
        }
    }
}

impl Drop for HeldLock {
    fn drop(&mut self) {
        let Some(lock) = self.lock.take() else { return };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            tracing::warn!(session = %lock.session_id, "a turn was dropped outside a Tokio runtime; its lock ends with its lease");
            return;
        };
        let key = lock.session_id.clone();
        let (done, waiting) = watch::channel(false);
        releases().lock().unwrap_or_else(PoisonError::into_inner).insert(key.clone(), waiting);
        let store = Arc::clone(&self.store);
        tracing::debug!(session = %lock.session_id, "turn dropped; releasing its lock");
        runtime.spawn(async move {
            unlock(&*store, &lock).await;
            let mut pending = releases().lock().unwrap_or_else(PoisonError::into_inner);
            if pending.get(&key).is_some_and(|w| w.same_channel(&done.subscribe())) {
                pending.remove(&key);
            }
            drop(pending);
            let _ = done.send(true);
        });
    }
}

async fn unlock(store: &dyn SessionStore, lock: &TurnLock) {
    if let Err(e) = store.unlock(lock).await {
        tracing::warn!(session = %lock.session_id, error = %e, "could not release the turn lock");
    }
}

/// A session id. Two stores with the same id wait for each other's releases: a moment,
/// never a wrong answer, and a second store on the same database (a new `Agent` on the
/// same SQLite file) waits as it must.
type ReleaseKey = String;

/// Releases under way of locks whose turns were dropped, by session.
fn releases() -> &'static Mutex<HashMap<ReleaseKey, watch::Receiver<bool>>> {
    static RELEASES: OnceLock<Mutex<HashMap<ReleaseKey, watch::Receiver<bool>>>> = OnceLock::new();
    RELEASES.get_or_init(Mutex::default)
}
