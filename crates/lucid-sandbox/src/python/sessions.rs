//! One interpreter per session: a table of slots, each with its own lock (so one session's
//! long call never waits for another's), its own working folder, and the time it was last
//! used; idle slots are reaped by a background task, and the number of live slots is
//! capped, in all and per owner (the least recently used idle one makes room: the owner's
//! own when the owner is at its cap), so one owner's sessions never use up another's.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::{Duration, Instant};

use super::interpreter::Interpreter;
use lucid::tool::ToolError;

/// A working folder: removed with its slot when it was made for it.
#[derive(Debug)]
pub(super) struct Folder {
    pub path: PathBuf,
    pub owned: bool,
    /// The folder (beside `path`) through which the code sees `path` alone, when the
    /// folder is one session's among others.
    pub view: Option<PathBuf>,
}

impl Drop for Folder {
    fn drop(&mut self) {
        if self.owned {
            let _ = std::fs::remove_dir_all(&self.path);
        }
        if let Some(view) = &self.view {
            let _ = std::fs::remove_dir_all(view);
        }
    }
}

/// One session's interpreter (when running) and folder.
#[derive(Debug)]
pub(super) struct Slot {
    pub interpreter: tokio::sync::Mutex<Option<Interpreter>>,
    pub folder: Folder,
    used: Mutex<Instant>,
    /// Who the session belongs to ([`lucid::tool::ToolContext::owner`]).
    owner: Option<String>,
}

impl Slot {
    /// Marks the slot as used now.
    pub fn touch(&self) {
        *self.used.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
    }

    fn idle_for(&self) -> Duration {
        self.used.lock().unwrap_or_else(|e| e.into_inner()).elapsed()
    }

    /// Nobody holds or waits for the slot but the table.
    fn unused(self: &Arc<Self>) -> bool {
        Arc::strong_count(self) == 1 && self.interpreter.try_lock().is_ok()
    }
}

/// The sessions' slots.
#[derive(Debug)]
pub(super) struct Sessions {
    slots: Mutex<HashMap<String, Arc<Slot>>>,
    pub max_live: usize,
    /// Live slots one owner may hold (sessions without an owner have only `max_live`).
    pub max_per_owner: usize,
    pub idle: Duration,
    reaper: OnceLock<()>,
}

impl Sessions {
    pub fn new(max_live: usize, max_per_owner: usize, idle: Duration) -> Self {
        Sessions { slots: Mutex::new(HashMap::new()), max_live, max_per_owner, idle, reaper: OnceLock::new() }
    }

    /// The slot of `session` (belonging to `owner`), made (with the folder `folder` gives)
    /// when missing. When the owner holds its cap of slots, the least recently used of its
    /// own that nobody is using makes room; when the table is full, the least recently used
    /// of any owner's.
    pub fn slot(
        &self,
        session: &str,
        owner: Option<&str>,
        folder: impl FnOnce() -> std::io::Result<Folder>,
    ) -> Result<Arc<Slot>, ToolError> {
        let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(slot) = slots.get(session) {
            return Ok(Arc::clone(slot));
        }
        let owners = owner.map_or(0, |o| slots.values().filter(|s| s.owner.as_deref() == Some(o)).count());
        if owner.is_some() && owners >= self.max_per_owner.max(1) {
            let busy = format!(
                "the {owners} python interpreters `{}` may hold are busy with its other sessions; try again \
                 when one finishes",
                owner.unwrap_or_default()
            );
            make_room(&mut slots, |s| s.owner.as_deref() == owner, busy)?;
        } else if slots.len() >= self.max_live.max(1) {
            let busy = format!(
                "all {} python interpreters are busy with other sessions; try again when one finishes",
                slots.len()
            );
            make_room(&mut slots, |_| true, busy)?;
        }
        let folder = folder().map_err(|e| ToolError::new(format!("could not make the working folder: {e}")))?;
        let slot = Arc::new(Slot {
            interpreter: tokio::sync::Mutex::new(None),
            folder,
            used: Mutex::new(Instant::now()),
            owner: owner.map(str::to_string),
        });
        slots.insert(session.to_string(), Arc::clone(&slot));
        Ok(slot)
    }

    /// Starts the task that reaps idle slots (once; it ends with the table).
    pub fn reap_in_background(self: &Arc<Self>) {
        self.reaper.get_or_init(|| {
            let table: Weak<Sessions> = Arc::downgrade(self);
            let every = (self.idle / 2).max(Duration::from_millis(100));
            tokio::spawn(async move {
                loop {
                    tokio::time::sleep(every).await;
                    let Some(table) = table.upgrade() else { break };
                    table.reap();
                }
            });
        });
    }

    /// Drops the slots idle longer than the idle time (their interpreters are killed and
    /// the folders made for them removed).
    pub fn reap(&self) {
        let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        slots.retain(|session, s| {
            let keep = !s.unused() || s.idle_for() < self.idle;
            if !keep {
                tracing::debug!(%session, "idle python interpreter reaped");
            }
            keep
        });
    }
}

/// Stops the least recently used slot among those `which` picks that nobody is using, or
/// answers `busy` when every one of them is in use.
fn make_room(
    slots: &mut HashMap<String, Arc<Slot>>,
    which: impl Fn(&Slot) -> bool,
    busy: String,
) -> Result<(), ToolError> {
    let oldest =
        slots.iter().filter(|(_, s)| which(s) && s.unused()).max_by_key(|(_, s)| s.idle_for()).map(|(k, _)| k.clone());
    let Some(k) = oldest else { return Err(ToolError::new(busy)) };
    tracing::debug!(session = %k, "python interpreter stopped to make room");
    slots.remove(&k);
    Ok(())
}

/// The folder of `session` under `root`: a name made of the session id's safe characters
/// and a hash of the whole id.
pub(super) fn session_folder(root: &Path, session: &str) -> PathBuf {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    session.hash(&mut h);
    let safe: String =
        session.chars().filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_').take(40).collect();
    root.join(format!("session-{safe}-{:016x}", h.finish()))
}

/// The folder of `session`'s view (see [`View`](crate::sandbox::View)).
pub(super) fn view_folder(root: &Path, session: &str) -> PathBuf {
    let own = session_folder(root, session);
    root.join(format!(".view-{}", own.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()))
}
