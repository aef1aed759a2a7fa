//! One team run's state: the call budget, the runs so far, the first limit error, and
//! running a member (and whoever it hands off to).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use futures::FutureExt;
use futures::future::BoxFuture;
use tokio_util::sync::CancellationToken;

use super::tools::{Delegate, HandoffSlot, Transfer};
use super::{AgentRun, MAX_HANDOFFS, Team, TeamEvent, TeamRun, Via};
use crate::agent::{AgentResult, Session};
use crate::error::{Error, Result};
use crate::message::{Message, Usage};

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
            return Err(self.fail(Error::TeamLimit(format!(
                "the team's budget of {limit} model calls is spent; raise it with Team::max_model_calls"
            ))));
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
    pub(super) fn fail(&self, e: Error) -> Error {
        let message = e.to_string();
        let mut fatal = self.fatal.lock().unwrap_or_else(|p| p.into_inner());
        if fatal.is_none() {
            *fatal = Some(e);
        }
        self.stop.cancel();
        Error::TeamLimit(message)
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

/// Who runs, on what, and how they came to.
pub(super) struct Start {
    pub(super) member: String,
    pub(super) task: String,
    pub(super) depth: usize,
    pub(super) parent: Option<String>,
    pub(super) via: Via,
}

/// Runs one member (and whoever it hands off to); returns who answered and the answer.
pub(super) fn run_member(
    shared: Arc<Shared>,
    start: Start,
    cancel: CancellationToken,
) -> BoxFuture<'static, Result<(String, String)>> {
    async move {
        let Start { mut member, task, depth, mut parent, mut via } = start;
        let mut history: Option<Vec<Message>> = None;
        for _ in 0..=MAX_HANDOFFS {
            let handoff = Arc::new(HandoffSlot::default());
            let (mut session, reserved) = prepare(&shared, &member, depth, &handoff, history.take())?;
            let _ = handoff.canceller.set(session.canceller());
            (shared.on_event)(TeamEvent::AgentStarted {
                agent: member.clone(),
                parent: parent.clone(),
                via,
                depth,
                task: task.clone(),
            });
            let started = Instant::now();
            let result =
                run_stoppable(&mut session, &shared.stop, &cancel, (via != Via::Handoff).then(|| task.clone())).await;
            // A failed run keeps its whole reservation: how many calls it made is unknown.
            let used = result.as_ref().map_or(reserved, |r| r.iterations);
            shared.refund(reserved.saturating_sub(used));
            let r = result?;
            (shared.on_event)(TeamEvent::AgentFinished {
                agent: member.clone(),
                depth,
                iterations: r.iterations,
                usage: r.usage,
                duration: started.elapsed(),
            });
            shared.record(AgentRun {
                agent: member.clone(),
                parent: parent.clone(),
                via,
                depth,
                task: task.clone(),
                content: r.content.clone(),
                stop_reason: r.stop_reason,
                iterations: r.iterations,
                tool_calls: r.tool_calls,
                usage: r.usage,
                duration: started.elapsed(),
            });
            if shared.stop.is_cancelled() {
                return Err(Error::Cancelled);
            }
            let target = handoff.target.lock().unwrap_or_else(|p| p.into_inner()).take();
            let Some(to) = target else { return Ok((member, r.content)) };
            (shared.on_event)(TeamEvent::HandedOff { from: member.clone(), to: to.clone() });
            history =
                Some(session.messages().iter().filter(|m| !matches!(m, Message::System { .. })).cloned().collect());
            parent = Some(std::mem::replace(&mut member, to));
            via = Via::Handoff;
        }
        Err(shared.fail(Error::TeamLimit(format!(
            "more than {MAX_HANDOFFS} hand-offs in a row; the members keep passing the conversation around"
        ))))
    }
    .boxed()
}

/// The member's agent with its delegation and hand-off tools, and the calls reserved.
fn prepare(
    shared: &Arc<Shared>,
    name: &str,
    depth: usize,
    handoff: &Arc<HandoffSlot>,
    history: Option<Vec<Message>>,
) -> Result<(Session, usize)> {
    let inner = &shared.team.inner;
    let member =
        inner.members.get(name).ok_or_else(|| Error::Config(format!("`{name}` is not a member of the team")))?;
    let reserved = shared.reserve(member.agent.max_iterations())?;
    let mut builder = member.agent.to_builder().max_iterations(reserved);
    for d in &member.delegates {
        let description = &inner.members[d].description;
        builder = builder.tool(Delegate::new(Arc::clone(shared), name, d, description, depth + 1));
    }
    for h in &member.handoffs {
        let description = &inner.members[h].description;
        builder = builder.tool(Transfer::new(h, description, Arc::clone(handoff)));
    }
    let agent = builder.build();
    let session = match history {
        Some(messages) => Session::with_messages(agent, messages),
        None => agent.session(),
    };
    Ok((session, reserved))
}

/// Runs (or resumes) the session, stopping it when the team stops or the caller cancels.
async fn run_stoppable(
    session: &mut Session,
    stop: &CancellationToken,
    cancel: &CancellationToken,
    prompt: Option<String>,
) -> Result<AgentResult> {
    let canceller = session.canceller();
    let run = async {
        match prompt {
            Some(p) => session.run(p).await,
            None => session.resume().await,
        }
    };
    tokio::pin!(run);
    tokio::select! {
        r = &mut run => r,
        _ = stop.cancelled() => { canceller.cancel_now(); run.await }
        _ = cancel.cancelled() => { canceller.cancel_now(); run.await }
    }
}
