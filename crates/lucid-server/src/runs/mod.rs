//! Runs in this process: starting a turn of a session's agent on a task of its own,
//! recording its events (numbered, stored at every model reply and tool result, fenced by
//! the run's lease), the event streams clients read (live, or from the database after the
//! fact), cancellation, the per-tenant cap on runs going at once, and the lease keeper
//! that renews this instance's runs and continues those of instances that are gone.
//!
//! Here are the runs going and how a turn is driven and recorded; the event streams are
//! read in `reader` (with the cap on readers per run), and the leases kept (and gone
//! instances' runs continued) in `lease`.

mod lease;
mod reader;

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::{Stream, StreamExt};
use lucid::{AgentEvent, Canceller, Session};
use serde_json::Value;
use tokio::sync::watch;

use crate::db::{RunStatus, StoredEvent};
use crate::events::{self, Outcome};
use crate::{ApiError, AppState};
pub use lease::keep_leases;
pub use reader::events;

/// The runs going in this process, and each tenant's count of them.
#[derive(Default)]
pub struct Runs {
    live: Mutex<HashMap<String, Arc<LiveRun>>>,
    per_tenant: Arc<Mutex<HashMap<String, usize>>>,
    /// How many clients read each run's events here.
    readers: Arc<Mutex<HashMap<String, usize>>>,
    /// Set when the server stops: no new run starts.
    stopping: AtomicBool,
    /// Signalled whenever a run ends.
    ended: tokio::sync::Notify,
}

/// One of a tenant's runs going at once; given back when dropped.
pub struct Slot {
    tenant: String,
    counts: Arc<Mutex<HashMap<String, usize>>>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut counts = self.counts.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(n) = counts.get_mut(&self.tenant) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                counts.remove(&self.tenant);
            }
        }
    }
}

/// What a turn starts from.
pub enum Turn {
    /// A new user message (or the answers to the agent's questions): text, or text with
    /// attachments.
    Prompt(Vec<lucid::Part>),
    /// The session's history as stored: a run continued after its instance was gone.
    Resume,
}

/// A turn going in this process.
pub struct LiveRun {
    id: String,
    canceller: Canceller,
    cancel_asked: AtomicBool,
    /// The run's lease is gone (another instance claimed it): nothing more is written.
    lost: AtomicBool,
    /// The server is stopping and gives the run up: its end is not recorded, its lease is
    /// released for another instance to continue it.
    released: AtomicBool,
    log: Mutex<Log>,
    changed: watch::Sender<()>,
}

/// The events of the turn going, from `first_seq` on (earlier turns' are in the database).
/// Dense: the event numbered `seq` is at `seq - first_seq`.
struct Log {
    first_seq: u64,
    events: Vec<StoredEvent>,
    stored: usize,
    /// Set once the turn's end is in the database.
    outcome: Option<Outcome>,
}

impl Log {
    /// The events numbered after `seq`, found by position: a reader's wake-up costs what
    /// it reads, not the length of the log.
    fn after(&self, seq: u64) -> &[StoredEvent] {
        let from = seq.saturating_add(1).saturating_sub(self.first_seq);
        let from = usize::try_from(from).map_or(self.events.len(), |i| i.min(self.events.len()));
        &self.events[from..]
    }
}

impl LiveRun {
    fn push(&self, kind: &'static str, data: Value) {
        let mut log = self.log.lock().unwrap_or_else(|p| p.into_inner());
        let seq = log.first_seq + log.events.len() as u64;
        log.events.push(StoredEvent { seq, kind, data: data.to_string() });
        drop(log);
        self.changed.send_replace(());
    }

    /// The events not stored yet, and the log's length they reach.
    fn unstored(&self) -> (usize, Vec<StoredEvent>) {
        let log = self.log.lock().unwrap_or_else(|p| p.into_inner());
        (log.events.len(), log.events[log.stored..].to_vec())
    }

    /// Marks the events before `end` stored.
    fn stored_up_to(&self, end: usize) {
        let mut log = self.log.lock().unwrap_or_else(|p| p.into_inner());
        log.stored = log.stored.max(end);
    }

    fn is_over(&self) -> bool {
        self.log.lock().unwrap_or_else(|p| p.into_inner()).outcome.is_some()
    }

    fn finish(&self, outcome: Outcome) {
        self.log.lock().unwrap_or_else(|p| p.into_inner()).outcome = Some(outcome);
        self.changed.send_replace(());
    }
}

impl Runs {
    /// Takes one of `tenant`'s `cap` slots, or answers 429.
    pub fn reserve(&self, tenant: &str, cap: usize) -> Result<Slot, ApiError> {
        if self.stopping.load(Ordering::Relaxed) {
            return Err(ApiError::unavailable("the server is stopping"));
        }
        let mut counts = self.per_tenant.lock().unwrap_or_else(|p| p.into_inner());
        let n = counts.entry(tenant.to_string()).or_insert(0);
        if *n >= cap {
            return Err(ApiError::too_many_runs(cap));
        }
        *n += 1;
        Ok(Slot { tenant: tenant.to_string(), counts: Arc::clone(&self.per_tenant) })
    }

    /// A slot of `tenant` taken whatever the cap: for runs continued from an instance
    /// that is gone, which were admitted already.
    fn slot(&self, tenant: &str) -> Slot {
        *self.per_tenant.lock().unwrap_or_else(|p| p.into_inner()).entry(tenant.to_string()).or_insert(0) += 1;
        Slot { tenant: tenant.to_string(), counts: Arc::clone(&self.per_tenant) }
    }

    fn all(&self) -> Vec<Arc<LiveRun>> {
        self.live.lock().unwrap_or_else(|p| p.into_inner()).values().cloned().collect()
    }

    /// How many turns are going in this process.
    pub fn active(&self) -> usize {
        self.live.lock().unwrap_or_else(|p| p.into_inner()).len()
    }

    fn get(&self, id: &str) -> Option<Arc<LiveRun>> {
        self.live.lock().unwrap_or_else(|p| p.into_inner()).get(id).cloned()
    }

    /// Asks the run to stop now; false when no turn of it is going in this process.
    pub fn cancel(&self, id: &str) -> bool {
        match self.get(id) {
            Some(live) => {
                live.cancel_asked.store(true, Ordering::Relaxed);
                live.canceller.cancel_now();
                true
            }
            None => false,
        }
    }

    /// Stops taking runs; waits up to `grace` for those going to end, then stops the rest
    /// and gives up their leases (another instance, or this one restarted, continues them
    /// from their last commit), waiting a few seconds at most for that.
    pub async fn drain(&self, grace: Duration) {
        self.stopping.store(true, Ordering::Relaxed);
        let idle = async {
            loop {
                let ended = self.ended.notified();
                if self.active() == 0 {
                    return;
                }
                ended.await;
            }
        };
        if tokio::time::timeout(grace, idle).await.is_err() {
            let going = self.all();
            tracing::warn!(runs = going.len(), "grace period over: giving up the runs still going to other instances");
            for live in &going {
                live.released.store(true, Ordering::Relaxed);
                live.canceller.cancel_now();
            }
            let idle = async {
                while self.active() > 0 {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            };
            let _ = tokio::time::timeout(Duration::from_secs(5), idle).await;
        }
    }
}

/// Starts a turn of `session` as run `id`, its events numbered from `first_seq`; the
/// run's row must already say `running`, owned by this instance.
pub fn start(server: &Arc<AppState>, id: &str, session: Session, turn: Turn, first_seq: u64, slot: Slot) {
    let (changed, _) = watch::channel(());
    let live = Arc::new(LiveRun {
        id: id.to_string(),
        canceller: session.canceller(),
        cancel_asked: AtomicBool::new(false),
        lost: AtomicBool::new(false),
        released: AtomicBool::new(false),
        log: Mutex::new(Log { first_seq, events: Vec::new(), stored: 0, outcome: None }),
        changed,
    });
    server.runs.live.lock().unwrap_or_else(|p| p.into_inner()).insert(id.to_string(), Arc::clone(&live));
    let server = server.clone();
    tokio::spawn(async move {
        let _slot = slot;
        let started = Instant::now();
        let (steps, ended) = tokio::sync::mpsc::unbounded_channel();
        let writer = tokio::spawn(store_steps(server.clone(), Arc::clone(&live), ended));
        let outcome = drive(&server, &live, session, turn, steps).await;
        // The last step's events are stored before the run's end.
        let _ = writer.await;
        record_end(&server, &live, &outcome, started.elapsed()).await;
        live.finish(outcome);
        server.runs.live.lock().unwrap_or_else(|p| p.into_inner()).remove(&live.id);
        server.runs.ended.notify_waiters();
    });
}

/// Writes where the turn left the run: its end, or (given up at shutdown) its last events
/// and the lease released; nothing once the lease is lost.
async fn record_end(server: &AppState, live: &LiveRun, outcome: &Outcome, took: Duration) {
    let id = &live.id;
    if live.lost.load(Ordering::Relaxed) {
        tracing::warn!(run = %id, "the run's lease was lost: another instance continues it");
        return;
    }
    if live.released.load(Ordering::Relaxed) && outcome.status == RunStatus::Cancelled {
        let kept = server.db.append_events(id, &server.owner, live.unstored().1).await;
        if let Err(e) = &kept {
            tracing::error!(run = %id, "the run's last events could not be stored: {e}");
        }
        if let Err(e) = server.db.release(&server.owner, vec![id.clone()]).await {
            tracing::error!(run = %id, "the run's lease could not be released (it expires on its own): {e}");
        }
        tracing::info!(run = %id, "run given up for another instance to continue");
        return;
    }
    let stored = server
        .db
        .finish_run(
            id,
            &server.owner,
            outcome.status,
            outcome.result.clone(),
            outcome.error.clone(),
            live.unstored().1,
            crate::now_ms(),
        )
        .await;
    match stored {
        Ok(true) => server.metrics.turn_ended(outcome.status, took),
        Ok(false) => {
            tracing::warn!(run = %id, "the run's lease was lost before its end: another instance continues it")
        }
        Err(e) => tracing::error!(run = %id, "the run's end could not be stored: {e}"),
    }
}

/// Stores a run's events each time a step ends (a signal on `ended`; several pending are
/// one write), fenced by the lease, until the turn is over. A task of its own: the turn's
/// stream is polled without waiting for the database, so a store write of the agent's
/// (holding a pooled connection inside the stream) never waits behind one of these.
async fn store_steps(server: Arc<AppState>, live: Arc<LiveRun>, mut ended: tokio::sync::mpsc::UnboundedReceiver<()>) {
    while ended.recv().await.is_some() {
        while ended.try_recv().is_ok() {}
        let (end, batch) = live.unstored();
        if batch.is_empty() || live.lost.load(Ordering::Relaxed) {
            continue;
        }
        match server.db.append_events(&live.id, &server.owner, batch).await {
            Ok(true) => live.stored_up_to(end),
            Ok(false) => {
                live.lost.store(true, Ordering::Relaxed);
                live.canceller.cancel_now();
            }
            // Kept unstored: the next step's end tries them again.
            Err(e) => tracing::error!(run = %live.id, "the run's events could not be stored yet: {e}"),
        }
    }
}

/// Runs the turn, recording its events; signals `steps` at every model reply and tool
/// result, for [`store_steps`].
async fn drive(
    server: &AppState,
    live: &LiveRun,
    mut session: Session,
    turn: Turn,
    steps: tokio::sync::mpsc::UnboundedSender<()>,
) -> Outcome {
    let mut outcome = None;
    let mut cancel_sent = false;
    let mut waiting = None;
    let mut events: Pin<Box<dyn Stream<Item = AgentEvent> + Send + '_>> = match turn {
        Turn::Prompt(prompt) => Box::pin(session.run_stream_parts(prompt)),
        Turn::Resume => Box::pin(session.resume_stream()),
    };
    while let Some(event) = events.next().await {
        // A cancel that came before the loop took its token is sent again.
        if !cancel_sent && live.cancel_asked.load(Ordering::Relaxed) {
            live.canceller.cancel_now();
            cancel_sent = true;
        }
        match &event {
            AgentEvent::ToolCallFinished { is_error, duration, .. } => server.metrics.tool_call(*is_error, *duration),
            AgentEvent::Completed(r) => {
                crate::spend::record(server, r);
                outcome = Some(Outcome::of_result(r));
            }
            AgentEvent::Error(e) => outcome = Some(Outcome::of_error(e)),
            _ => {}
        }
        let (kind, data) = events::encode(&event);
        if kind == "cancelled" && live.released.load(Ordering::Relaxed) {
            // Given up, not cancelled: the instance that continues the run ends it.
            continue;
        }
        if kind == "needs_approval" {
            // Sent after the calls it waits on, read from the session once the turn is over.
            waiting = Some(data);
            continue;
        }
        live.push(kind, data);
        // Deltas wait for the next step's end; every other event is a step's end.
        if !matches!(kind, "text_delta" | "reasoning_delta") && !events::is_last(kind) {
            let _ = steps.send(());
        }
    }
    drop(events);
    drop(steps);
    if let Some(mut data) = waiting {
        let pending = session.pending_approvals();
        for call in pending.iter().filter(|c| !c.answered) {
            let mut event = events::pending_json(call, server.approval_timeout);
            event["type"] = "approval_requested".into();
            live.push("approval_requested", event);
        }
        data["pending_approvals"] =
            pending.iter().map(|c| events::pending_json(c, server.approval_timeout)).collect::<Value>();
        live.push("needs_approval", data);
    }
    outcome.unwrap_or_else(|| Outcome::of_error(&lucid::Error::Config("the run ended without a result".into())))
}

/// Waits until no turn of run `id` is going in this process.
pub async fn wait(server: &AppState, id: &str) {
    while let Some(live) = server.runs.get(id) {
        let mut changed = live.changed.subscribe();
        if live.is_over() {
            return;
        }
        let _ = changed.changed().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log(first_seq: u64, n: u64) -> Log {
        let events =
            (0..n).map(|i| StoredEvent { seq: first_seq + i, kind: "text_delta", data: i.to_string() }).collect();
        Log { first_seq, events, stored: 0, outcome: None }
    }

    #[test]
    fn a_reader_gets_the_events_after_its_number_by_position() {
        let log = log(5, 4); // events 5, 6, 7, 8
        let seqs = |after: u64| log.after(after).iter().map(|e| e.seq).collect::<Vec<_>>();
        assert_eq!(seqs(0), [5, 6, 7, 8], "from before the turn: all of it");
        assert_eq!(seqs(4), [5, 6, 7, 8]);
        assert_eq!(seqs(6), [7, 8]);
        assert_eq!(seqs(8), Vec::<u64>::new());
        assert_eq!(seqs(u64::MAX), Vec::<u64>::new());
        let second_owner = log_of_generation(1);
        assert_eq!(second_owner.after(3).len(), 2, "a new owner's numbers start high; earlier ones read all");
    }

    fn log_of_generation(generation: i64) -> Log {
        log(crate::db::first_seq_of_generation(generation), 2)
    }
}
