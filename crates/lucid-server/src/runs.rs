//! Runs in this process: starting a turn of a session's agent on a task of its own,
//! recording its events (numbered, stored at every model reply and tool result), the
//! event streams clients read (live, or from the database after the fact), cancellation,
//! and the per-tenant cap on runs going at once.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::{Stream, StreamExt};
use lucid::{AgentEvent, Canceller, Session};
use serde_json::Value;
use tokio::sync::watch;

use crate::db::{RunStatus, StoredEvent};
use crate::events::{self, Outcome};
use crate::{ApiError, Server};

/// How often a reader of a run going in no task of this process looks for new events.
const POLL: Duration = Duration::from_millis(100);

/// The runs going in this process, and each tenant's count of them.
#[derive(Default)]
pub struct Runs {
    live: Mutex<HashMap<String, Arc<LiveRun>>>,
    per_tenant: Arc<Mutex<HashMap<String, usize>>>,
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

/// A turn going in this process.
pub struct LiveRun {
    id: String,
    canceller: Canceller,
    cancel_asked: AtomicBool,
    log: Mutex<Log>,
    changed: watch::Sender<()>,
}

/// The events of the turn going, from `first_seq` on (earlier turns' are in the database).
struct Log {
    first_seq: u64,
    events: Vec<StoredEvent>,
    stored: usize,
    /// Set once the turn's end is in the database.
    outcome: Option<Outcome>,
}

impl LiveRun {
    fn push(&self, kind: &'static str, data: Value) {
        let mut log = self.log.lock().unwrap_or_else(|p| p.into_inner());
        let seq = log.first_seq + log.events.len() as u64;
        log.events.push(StoredEvent { seq, kind, data: data.to_string() });
        drop(log);
        self.changed.send_replace(());
    }

    /// The events not stored yet (marked stored).
    fn unstored(&self) -> Vec<StoredEvent> {
        let mut log = self.log.lock().unwrap_or_else(|p| p.into_inner());
        let out = log.events[log.stored..].to_vec();
        log.stored = log.events.len();
        out
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

    /// Stops taking runs; waits up to `grace` for those going to end, then cancels the
    /// rest and waits (a few seconds at most) for them to record that.
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
            let ids: Vec<String> = self.live.lock().unwrap_or_else(|p| p.into_inner()).keys().cloned().collect();
            tracing::warn!(runs = ids.len(), "grace period over: cancelling the runs still going");
            for id in &ids {
                self.cancel(id);
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

/// Starts a turn of `session` on `prompt` as run `id`, its events numbered from
/// `first_seq`; the run's row must already say `running`.
pub fn start(server: &Server, id: &str, session: Session, prompt: String, first_seq: u64, slot: Slot) {
    let (changed, _) = watch::channel(());
    let live = Arc::new(LiveRun {
        id: id.to_string(),
        canceller: session.canceller(),
        cancel_asked: AtomicBool::new(false),
        log: Mutex::new(Log { first_seq, events: Vec::new(), stored: 0, outcome: None }),
        changed,
    });
    server.runs.live.lock().unwrap_or_else(|p| p.into_inner()).insert(id.to_string(), Arc::clone(&live));
    let server = server.clone();
    tokio::spawn(async move {
        let _slot = slot;
        let started = Instant::now();
        let outcome = drive(&server, &live, session, prompt).await;
        let status = outcome.status;
        let stored = server
            .db
            .finish_run(
                &live.id,
                status,
                outcome.result.clone(),
                outcome.error.clone(),
                live.unstored(),
                crate::now_ms(),
            )
            .await;
        if let Err(e) = stored {
            tracing::error!(run = %live.id, "the run's end could not be stored: {e}");
        }
        server.metrics.turn_ended(status, started.elapsed());
        live.finish(outcome);
        server.runs.live.lock().unwrap_or_else(|p| p.into_inner()).remove(&live.id);
        server.runs.ended.notify_waiters();
    });
}

/// Runs the turn, recording its events; stores them at every model reply and tool result.
async fn drive(server: &Server, live: &LiveRun, mut session: Session, prompt: String) -> Outcome {
    let mut outcome = None;
    let mut cancel_sent = false;
    let mut events = session.run_stream(prompt);
    while let Some(event) = events.next().await {
        // A cancel that came before the loop took its token is sent again.
        if !cancel_sent && live.cancel_asked.load(Ordering::Relaxed) {
            live.canceller.cancel_now();
            cancel_sent = true;
        }
        match &event {
            AgentEvent::ToolCallFinished { is_error, duration, .. } => server.metrics.tool_call(*is_error, *duration),
            AgentEvent::Completed(r) => {
                server.metrics.model_calls(r.iterations, &r.usage);
                outcome = Some(Outcome::of_result(r));
            }
            AgentEvent::Error(e) => outcome = Some(Outcome::of_error(e)),
            _ => {}
        }
        let (kind, data) = events::encode(&event);
        live.push(kind, data);
        // Deltas wait for the next step's end; every other event is a step's end.
        if !matches!(kind, "text_delta" | "reasoning_delta") && !events::is_last(kind) {
            let batch = live.unstored();
            if let Err(e) = server.db.append_events(&live.id, batch).await {
                tracing::error!(run = %live.id, "the run's events could not be stored: {e}");
            }
        }
    }
    drop(events);
    outcome.unwrap_or_else(|| Outcome::of_error(&lucid::Error::Config("the run ended without a result".into())))
}

/// The run's events after number `after`, as they come: the stream ends after the last
/// event of a turn when nothing follows it.
pub fn events(server: &Server, id: &str, after: u64) -> impl Stream<Item = StoredEvent> + Send + 'static {
    let reader =
        Reader { server: server.clone(), id: id.to_string(), cursor: after, pending: VecDeque::new(), done: false };
    futures::stream::unfold(reader, |mut r| async move {
        let event = r.next().await?;
        Some((event, r))
    })
}

struct Reader {
    server: Server,
    id: String,
    cursor: u64,
    pending: VecDeque<StoredEvent>,
    done: bool,
}

impl Reader {
    async fn next(&mut self) -> Option<StoredEvent> {
        loop {
            if let Some(e) = self.pending.pop_front() {
                self.cursor = e.seq;
                if events::is_last(e.kind) && self.pending.is_empty() {
                    // The turn ended: go on only if another turn has events already.
                    self.fill(false).await;
                    self.done = self.pending.is_empty();
                }
                return Some(e);
            }
            if self.done {
                return None;
            }
            if !self.fill(true).await {
                return None;
            }
        }
    }

    /// Fetches the events after the cursor; with `wait`, waits until there are some or the
    /// run is going nowhere. False when there will be none.
    async fn fill(&mut self, wait: bool) -> bool {
        loop {
            if let Some(live) = self.server.runs.get(&self.id) {
                let mut changed = live.changed.subscribe();
                let (first_seq, fresh, ended) = {
                    let log = live.log.lock().unwrap_or_else(|p| p.into_inner());
                    let fresh: Vec<StoredEvent> = log.events.iter().filter(|e| e.seq > self.cursor).cloned().collect();
                    (log.first_seq, fresh, log.outcome.is_some())
                };
                if self.cursor + 1 < first_seq {
                    // Earlier turns' events are all stored.
                    match self.server.db.events_after(&self.id, self.cursor).await {
                        Ok(stored) => self.pending.extend(stored.into_iter().filter(|e| e.seq < first_seq)),
                        Err(e) => {
                            tracing::error!(run = %self.id, "reading the run's events: {e}");
                            return false;
                        }
                    }
                    self.pending.extend(fresh);
                    return true;
                }
                if !fresh.is_empty() {
                    self.pending.extend(fresh);
                    return true;
                }
                if ended || !wait {
                    return false;
                }
                // The sender lives as long as `live`: this returns on the next event.
                let _ = changed.changed().await;
                continue;
            }
            // Not going here: going elsewhere (or just starting), or over. The status is read
            // first: a run over then has all its events stored by the time they are read.
            let status = match self.server.db.run_status(&self.id).await {
                Ok(s) => s,
                Err(e) => {
                    tracing::error!(run = %self.id, "reading the run's status: {e}");
                    return false;
                }
            };
            let stored = match self.server.db.events_after(&self.id, self.cursor).await {
                Ok(s) => s,
                Err(e) => {
                    tracing::error!(run = %self.id, "reading the run's events: {e}");
                    return false;
                }
            };
            if !stored.is_empty() {
                self.pending.extend(stored);
                return true;
            }
            if !wait || !status.is_some_and(RunStatus::is_active) {
                return false;
            }
            tokio::time::sleep(POLL).await;
        }
    }
}

/// Waits until no turn of run `id` is going in this process.
pub async fn wait(server: &Server, id: &str) {
    while let Some(live) = server.runs.get(id) {
        let mut changed = live.changed.subscribe();
        if live.log.lock().unwrap_or_else(|p| p.into_inner()).outcome.is_some() {
            return;
        }
        let _ = changed.changed().await;
    }
}
