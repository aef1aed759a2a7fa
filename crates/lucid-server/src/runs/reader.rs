//! The event streams clients read: a run's events after a number, live from this process
//! while its turn goes here, else from the database (polled while the run goes on
//! elsewhere), ending after the last event of a turn when nothing follows it.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use futures::Stream;

use super::wait;
use crate::AppState;
use crate::db::{RunStatus, StoredEvent};
use crate::events;

/// How often a reader of a run going in no task of this process looks for new events.
const POLL: Duration = Duration::from_millis(100);

/// The run's events after number `after`, as they come: the stream ends after the last
/// event of a turn when nothing follows it.
pub fn events(server: &Arc<AppState>, id: &str, after: u64) -> impl Stream<Item = StoredEvent> + Send + 'static {
    let reader = Reader {
        server: Arc::clone(server),
        id: id.to_string(),
        cursor: after,
        below: 0,
        pending: VecDeque::new(),
        done: false,
    };
    futures::stream::unfold(reader, |mut r| async move {
        let event = r.next().await?;
        Some((event, r))
    })
}

/// Where a client's stream of one run's events is.
struct Reader {
    server: Arc<AppState>,
    id: String,
    cursor: u64,
    /// The live log's first number whose earlier events were read from the database.
    below: u64,
    pending: VecDeque<StoredEvent>,
    done: bool,
}

impl Reader {
    async fn next(&mut self) -> Option<StoredEvent> {
        loop {
            if let Some(e) = self.pending.pop_front() {
                self.cursor = e.seq;
                if events::is_last(e.kind) {
                    // The turn's end is sent once the run's status says it: a client that
                    // reads the run next sees where it went.
                    wait(&self.server, &self.id).await;
                }
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
                if self.cursor + 1 < first_seq && self.below != first_seq {
                    // Earlier turns' (and earlier owners') events are all stored.
                    match self.server.db.events_after(&self.id, self.cursor).await {
                        Ok(stored) => self.pending.extend(stored.into_iter().filter(|e| e.seq < first_seq)),
                        Err(e) => {
                            tracing::error!(run = %self.id, "reading the run's events: {e}");
                            return false;
                        }
                    }
                    self.below = first_seq;
                    self.pending.extend(fresh);
                    if self.pending.is_empty() {
                        continue;
                    }
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
            // A stopping server ends the streams of runs it does not run (they go on
            // elsewhere, or after a restart): the client reattaches there.
            if !wait || !status.is_some_and(RunStatus::is_active) || self.server.runs.stopping.load(Ordering::Relaxed) {
                return false;
            }
            tokio::time::sleep(POLL).await;
        }
    }
}
