//! Running a member (and whoever it hands off to), and delegation: the `<name>` tool,
//! taking a `task`, through which a member runs one of its delegates. The two call each
//! other (a member's run gives it its delegate tools; a delegate tool runs a member), so
//! they live together.

use std::sync::Arc;
use std::time::Instant;

use futures::FutureExt;
use futures::future::BoxFuture;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::handoff::{HandoffSlot, Transfer};
use super::shared::Shared;
use super::{AgentRun, MAX_HANDOFFS, TeamEvent, Via};
use crate::errors::TeamError;
use lucid::agent::{AgentResult, Session};
use lucid::error::{Error, Result};
use lucid::message::Message;
use lucid::tool::{Tool, ToolContext, ToolError, ToolSpec};

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
        Err(shared.fail(TeamError::TooManyHandoffs { max: MAX_HANDOFFS }))
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

/// Delegation: a member as a tool of another.
pub(super) struct Delegate {
    spec: ToolSpec,
    shared: Arc<Shared>,
    from: String,
    to: String,
    depth: usize,
}

impl Delegate {
    pub(super) fn new(shared: Arc<Shared>, from: &str, to: &str, description: &str, depth: usize) -> Self {
        let spec = ToolSpec::new(
            to,
            format!("Delegate a task to the team member `{to}`: {description} Give it a complete, self-contained task; it answers with its result."),
            json!({
                "type": "object",
                "properties": {"task": {"type": "string", "description": "The task, with everything it needs to know."}},
                "required": ["task"],
                "additionalProperties": false
            }),
        )
        .expect("member names are checked by Team::validate");
        Delegate { spec, shared, from: from.to_string(), to: to.to_string(), depth }
    }
}

impl Tool for Delegate {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn invoke<'a>(&'a self, args: Value, ctx: ToolContext) -> BoxFuture<'a, std::result::Result<String, ToolError>> {
        async move {
            let task = args["task"].as_str().unwrap_or_default().to_string();
            let limit = self.shared.team.inner.max_depth;
            if self.depth > limit {
                let e = TeamError::TooDeep { from: self.from.clone(), to: self.to.clone(), depth: self.depth, limit };
                return Err(ToolError::new(self.shared.fail(e).to_string()));
            }
            let start = Start {
                member: self.to.clone(),
                task,
                depth: self.depth,
                parent: Some(self.from.clone()),
                via: Via::Delegation,
            };
            match run_member(Arc::clone(&self.shared), start, ctx.cancel).await {
                Ok((_, answer)) => Ok(answer),
                Err(e) => Err(ToolError::new(format!("`{}` could not finish: {e}", self.to))),
            }
        }
        .boxed()
    }
}
