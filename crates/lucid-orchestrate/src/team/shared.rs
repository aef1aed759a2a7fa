//! What one team run shares between its member runs: the team, the event sink, the
//! model-call budget, the runs so far, and the first limit error (which stops them all).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use tokio_util::sync::CancellationToken;

use super::{AgentRun, Team, TeamEvent, TeamRun};
use crate::errors::TeamError;
use lucid::error::{Error, Result};
use lucid::message::Usage;

/// What one team run shares between its member runs.
pub(super) struct Shared {
    pub(super) team: Team,
    pub(super) on_event: Arc<dyn Fn(TeamEvent) + Send + Sync>,
    /// Model calls reserved by running members or made by finished ones.
    calls: AtomicUsize,
    runs: Mutex<Vec<AgentRun>>,
    /// A limit that stopped the run; it is what the run returns.
    fatal: Mutex<Option<Error>>,
    /// Cancelled when a limit is hit: every member run stops.
    pub(super) stop: CancellationToken,
}

impl Shared {
    pub(super) fn new(team: Team, on_event: Arc<dyn Fn(TeamEvent) + Send + Sync>) -> Arc<Self> {
        Arc::new(Shared {
            team,
            on_event,
            calls: AtomicUsize::new(0),
            runs: Mutex::new(Vec::new()),
            fatal: Mutex::new(None),
            stop: CancellationToken::new(),
        })
    }

    /// Takes up to `want` model calls from the budget; none left stops the team.
    pub(super) fn reserve(&self, want: usize) -> Result<usize> {
        let limit = self.team.inner.max_model_calls;
        let mut got = 0;
        let _ = self.calls.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |used| {
            got = want.min(limit.saturating_sub(used));
            Some(used + got)
        });
        if got == 0 {
            return Err(self.fail(TeamError::BudgetSpent { limit }));
        }
        Ok(got)
    }

    /// Counts `n` calls made outside a reservation (the router's).
    pub(super) fn spend(&self, n: usize) {
        self.calls.fetch_add(n, Ordering::SeqCst);
    }

    pub(super) fn refund(&self, n: usize) {
        self.calls.fetch_sub(n, Ordering::SeqCst);
    }

    /// Records a limit error (the first one wins), stops every member, returns a copy.
    pub(super) fn fail(&self, e: TeamError) -> Error {
        let mut fatal = self.fatal.lock().unwrap_or_else(|p| p.into_inner());
        if fatal.is_none() {
            *fatal = Some(e.clone().into());
        }
        self.stop.cancel();
        e.into()
    }

    pub(super) fn record(&self, run: AgentRun) {
        self.runs.lock().unwrap_or_else(|p| p.into_inner()).push(run);
    }

    pub(super) fn finish(&self, outcome: Result<(String, String)>) -> Result<TeamRun> {
        if let Some(e) = self.fatal.lock().unwrap_or_else(|p| p.into_inner()).take() {
            return Err(e);
        }
        let (final_agent, content) = outcome?;
        let runs = std::mem::take(&mut *self.runs.lock().unwrap_or_else(|p| p.into_inner()));
        let mut usage_by_agent: BTreeMap<String, Usage> = BTreeMap::new();
        let mut usage = Usage::default();
        let mut model_calls = 0;
        for r in &runs {
            *usage_by_agent.entry(r.agent.clone()).or_default() += r.usage;
            usage += r.usage;
            model_calls += r.iterations;
        }
        Ok(TeamRun { content, final_agent, runs, usage_by_agent, usage, model_calls })
    }
}
