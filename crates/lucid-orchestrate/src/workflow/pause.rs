//! A workflow waiting for approval, as a value: what its finished steps produced and the
//! sessions of its agent steps whose tool calls wait for a person's word.
//!
//! An agent step whose agent [defers its asks](lucid::tool::permission::PermissionPolicy::defer_asks)
//! and whose model calls a tool marked `ask` stops the workflow: the run comes back with
//! [`WorkflowRun::paused`](super::WorkflowRun::paused) set. Steps running beside it (a
//! parallel group, `foreach` items) finish first. [`PausedWorkflow`] serializes (store it
//! anywhere), lists its waiting calls, records answers ([`PausedWorkflow::decide`]) and
//! goes on with [`Workflow::resume`](super::Workflow::resume): the finished steps are not
//! run again, the waiting step's session continues where it stopped.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::step::{Action, Step};
use super::{Delta, StepRecord, Workflow, WorkflowError};
use lucid::agent::SessionState;
use lucid::approval::{Answer, ApprovalError, PendingCall};
use lucid::error::Result;
use lucid::message::Usage;
use lucid::{Agent, Session};

/// A workflow stopped at agent steps whose tool calls wait for approval.
///
/// An agent step whose agent [defers its asks](lucid::tool::permission::PermissionPolicy::defer_asks)
/// and whose model calls a tool marked `ask` stops the workflow: the run comes back with
/// [`WorkflowRun::paused`](super::WorkflowRun::paused) set. Steps running beside it (a
/// parallel group, `foreach` items) finish first. A `PausedWorkflow` serializes (store it
/// anywhere), lists its waiting calls, records answers ([`PausedWorkflow::decide`]) and
/// goes on with [`Workflow::resume`](super::Workflow::resume): the finished steps are not
/// run again, the waiting step's session continues where it stopped.
///
/// ```no_run
/// # async fn demo(flow: lucid_orchestrate::workflow::Workflow) -> Result<(), Box<dyn std::error::Error>> {
/// use lucid::approval::Answer;
/// let run = flow.run(serde_json::json!({"topic": "tides"})).await?;
/// if let Some(mut paused) = run.paused {
///     let saved = serde_json::to_string(&paused)?; // keep it anywhere
///     for call in paused.pending_approvals() {
///         println!("step {} wants {} with {}", call.step, call.call.tool, call.call.arguments);
///         paused.decide(&flow, Answer::allow(&call.call.call_id)).await?;
///     }
///     let finished = flow.resume(paused).await?;
///     # let _ = (saved, finished);
/// }
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PausedWorkflow {
    /// The workflow's name (a resume checks it).
    workflow: String,
    /// The workflow's inputs, defaults applied.
    input: Map<String, Value>,
    /// Finished steps' outputs by path.
    done: BTreeMap<String, Delta>,
    /// Finished steps, in the order they finished.
    records: Vec<SavedRecord>,
    /// The agent steps waiting, by path.
    waiting: BTreeMap<String, PausedStep>,
}

/// A [`StepRecord`] as a paused workflow keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct SavedRecord {
    step: String,
    attempts: usize,
    duration_ms: u64,
    usage: Usage,
}

/// An agent step waiting for approval: its session and the calls waiting in it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct PausedStep {
    /// The step's name.
    step: String,
    /// The attempt that waits.
    pub(super) attempt: usize,
    /// What the step's model calls used so far.
    pub(super) usage: Usage,
    /// The step's session.
    pub(super) session: SessionState,
    /// The calls waiting, as the session lists them.
    pub(super) pending: Vec<PendingCall>,
}

impl PausedStep {
    pub(super) fn new(step: String, attempt: usize, usage: Usage, session: &mut Session) -> Self {
        PausedStep { step, attempt, usage, session: session.state(), pending: session.pending_approvals() }
    }
}

/// What a run starts from: the inputs, and for a resumed one the finished steps' outputs
/// and records and the waiting steps.
#[derive(Default)]
pub(super) struct Start {
    pub(super) input: Map<String, Value>,
    pub(super) done: BTreeMap<String, Delta>,
    pub(super) records: Vec<StepRecord>,
    pub(super) waiting: BTreeMap<String, PausedStep>,
}

/// A tool call waiting for approval in a paused workflow, with the step it waits in.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct StepApproval {
    /// The step's name.
    pub step: String,
    /// Where the step is: its name, under its groups' (`review.2.text` for the second
    /// iteration of the loop `review`, `each.0.fix` for the first item of a `foreach`).
    pub path: String,
    /// The call.
    #[serde(flatten)]
    pub call: PendingCall,
}

impl PausedWorkflow {
    pub(super) fn new(
        workflow: &str,
        input: Map<String, Value>,
        done: BTreeMap<String, Delta>,
        records: &[StepRecord],
        waiting: BTreeMap<String, PausedStep>,
    ) -> Self {
        let records = records
            .iter()
            .map(|r| SavedRecord {
                step: r.step.clone(),
                attempts: r.attempts,
                duration_ms: r.duration.as_millis() as u64,
                usage: r.usage,
            })
            .collect();
        PausedWorkflow { workflow: workflow.to_string(), input, done, records, waiting }
    }

    /// What a resumed run starts from.
    pub(super) fn into_start(self) -> Start {
        let records = self
            .records
            .into_iter()
            .map(|r| StepRecord {
                step: r.step,
                attempts: r.attempts,
                duration: Duration::from_millis(r.duration_ms),
                usage: r.usage,
            })
            .collect();
        Start { input: self.input, done: self.done, records, waiting: self.waiting }
    }

    /// The workflow's name.
    pub fn workflow(&self) -> &str {
        &self.workflow
    }

    /// The outputs of the top-level steps that finished, by name, in the workflow's order
    /// (with those of their inner steps).
    pub(super) fn outputs(&self, flow: &Workflow) -> Map<String, Value> {
        let mut outputs = Map::new();
        for step in &flow.steps {
            let Some(delta) = self.done.get(&step.name) else { continue };
            for (name, value) in delta {
                outputs.insert(name.clone(), value.clone());
            }
        }
        outputs
    }

    /// What the waiting steps' model calls used so far.
    pub(super) fn waiting_usage(&self) -> Usage {
        let mut usage = Usage::default();
        for w in self.waiting.values() {
            usage += w.usage;
        }
        usage
    }

    /// Every call waiting for approval, step by step in path order, each saying whether
    /// it is answered.
    pub fn pending_approvals(&self) -> Vec<StepApproval> {
        self.waiting
            .iter()
            .flat_map(|(path, w)| {
                w.pending.iter().map(|call| StepApproval {
                    step: w.step.clone(),
                    path: path.clone(),
                    call: call.clone(),
                })
            })
            .collect()
    }

    /// Records the answer to one waiting call, in the session of the step it waits in
    /// (edited arguments are checked against the tool's schema, as
    /// [`Session::decide`] does); the call runs, or is refused, when the workflow is
    /// [resumed](Workflow::resume). `flow` is the workflow that paused (its agents check
    /// the answer).
    ///
    /// Fails with [`Error::Approval`](lucid::Error::Approval) when no such call waits or
    /// the answer is refused, and with a [`WorkflowError::Invalid`] when `flow` is not the
    /// workflow that paused.
    pub async fn decide(&mut self, flow: &Workflow, answer: Answer) -> Result<()> {
        let Some(path) = self
            .waiting
            .iter()
            .find(|(_, w)| w.pending.iter().any(|p| p.call_id == answer.call_id))
            .map(|(p, _)| p.clone())
        else {
            return Err(ApprovalError::NotPending { call_id: answer.call_id }.into());
        };
        let agent = self.agent_at(flow, &path)?;
        let Some(waiting) = self.waiting.get_mut(&path) else { return Ok(()) };
        let mut session = Session::from_state(agent, waiting.session.clone());
        session.decide(answer).await?;
        waiting.session = session.state();
        waiting.pending = session.pending_approvals();
        Ok(())
    }

    /// Records these answers ([`PausedWorkflow::decide`], stopping at the first refused).
    pub async fn decide_all(&mut self, flow: &Workflow, answers: impl IntoIterator<Item = Answer>) -> Result<()> {
        for answer in answers {
            self.decide(flow, answer).await?;
        }
        Ok(())
    }

    /// Denies every waiting call without an answer once `ttl` has passed since its step
    /// paused (the model reads [`expired_denial`](lucid::approval::expired_denial)); the
    /// ids denied. Resume afterwards to go on.
    pub async fn expire_approvals(&mut self, flow: &Workflow, ttl: Duration) -> Result<Vec<String>> {
        let mut denied = Vec::new();
        let paths: Vec<String> = self.waiting.keys().cloned().collect();
        for path in paths {
            let agent = self.agent_at(flow, &path)?;
            let Some(waiting) = self.waiting.get_mut(&path) else { continue };
            let mut session = Session::from_state(agent, waiting.session.clone());
            denied.extend(session.expire_approvals(ttl).await?);
            waiting.session = session.state();
            waiting.pending = session.pending_approvals();
        }
        Ok(denied)
    }

    /// The agent of the step at `path` in `flow`.
    fn agent_at(&self, flow: &Workflow, path: &str) -> Result<Agent> {
        let mismatch = || -> lucid::Error {
            WorkflowError::Invalid(format!(
                "the paused workflow `{}` has no agent step `{path}` in the workflow `{}`: resume it with the \
                 workflow that paused",
                self.workflow, flow.name
            ))
            .into()
        };
        if flow.name != self.workflow {
            return Err(mismatch());
        }
        match find(&flow.steps, path).map(|s| &s.action) {
            Some(Action::Agent { agent, .. }) => Ok(agent.clone()),
            _ => Err(mismatch()),
        }
    }
}

/// The step at `path` (names, with a loop's iteration, a `foreach` item's index, a
/// branch's `then`/`else` after their step's name).
pub(super) fn find<'a>(steps: &'a [Step], path: &str) -> Option<&'a Step> {
    let mut parts = path.split('.');
    let mut level: Vec<&Step> = steps.iter().collect();
    let mut found = None;
    while let Some(name) = parts.next() {
        let step = *level.iter().find(|s| s.name == name)?;
        found = Some(step);
        level = match &step.action {
            Action::Loop { body, .. } | Action::ForEach { body, .. } => match parts.next() {
                Some(_) => body.iter().collect(),
                None => break,
            },
            Action::Branch { then, otherwise, .. } => match parts.next() {
                Some("then") => then.iter().collect(),
                Some("else") => otherwise.iter().collect(),
                Some(_) => return None,
                None => break,
            },
            _ => step.children().collect(),
        };
    }
    found
}
