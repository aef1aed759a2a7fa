//! Running a workflow's steps: each with its retries and timeout, groups by their kind,
//! and the pause of an agent step whose calls wait for approval.
//!
//! Every step has a path (`draft`, `facts.history`, `review.2.text` for the second
//! iteration of a loop, `per_source.0.gist` for a `foreach` item, `check.then.verdict`
//! for a branch's side). A finished step's outputs are kept by path, and an agent step
//! that waits for approval stops the run ([`Halt::Paused`]) with its session kept by
//! path: a resumed run replays the workflow, taking finished steps' outputs as they were
//! and the waiting step's session where it stopped.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use futures::FutureExt;
use futures::future::BoxFuture;
use serde_json::{Map, Value};

use super::pause::PausedStep;
use super::step::{Action, Step, StepInput};
use super::{Delta, StepRecord, WorkflowError, WorkflowEvent, render, template};
use lucid::error::Error;
use lucid::message::Usage;
use lucid::tool::ToolContext;
use lucid::{Session, StopReason};

/// Why steps stopped short of an output.
pub(super) enum Halt {
    /// A step failed.
    Failed(WorkflowError),
    /// An agent step waits for approval (kept in [`Runner::paused`]).
    Paused,
}

impl From<WorkflowError> for Halt {
    fn from(e: WorkflowError) -> Self {
        Halt::Failed(e)
    }
}

/// An outcome of one of several steps run together: a pause does not stop the others.
pub(super) fn unless_paused<T>(r: Result<T, Halt>) -> Result<Option<T>, WorkflowError> {
    match r {
        Ok(v) => Ok(Some(v)),
        Err(Halt::Paused) => Ok(None),
        Err(Halt::Failed(e)) => Err(e),
    }
}

pub(super) type EventSink<'a> = &'a (dyn Fn(WorkflowEvent) + Send + Sync);

fn locked<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

pub(super) struct Runner<'a> {
    pub(super) on_event: EventSink<'a>,
    pub(super) records: Mutex<Vec<StepRecord>>,
    /// Finished steps' outputs by path (an earlier run's too).
    pub(super) done: Mutex<BTreeMap<String, Delta>>,
    /// Agent steps waiting for approval by path: an earlier run's, taken when they go on,
    /// and this run's.
    pub(super) paused: Mutex<BTreeMap<String, PausedStep>>,
}

impl Runner<'_> {
    pub(super) fn emit(&self, event: WorkflowEvent) {
        (self.on_event)(event);
    }

    /// Runs steps in order over a scope that grows with their outputs; a step's path is
    /// `prefix` and its name.
    pub(super) async fn run_sequence(
        &self,
        steps: &[Step],
        mut scope: Arc<Map<String, Value>>,
        prefix: &str,
    ) -> Result<(Delta, Value), Halt> {
        let mut delta = Delta::new();
        let mut last = Value::Null;
        for step in steps {
            let produced = self.run_step(step, &scope, format!("{prefix}{}", step.name)).await?;
            let local = Arc::make_mut(&mut scope);
            for (name, value) in &produced {
                local.insert(name.clone(), value.clone());
            }
            if let Some((_, v)) = produced.last() {
                last = v.clone();
            }
            delta.extend(produced);
        }
        Ok((delta, last))
    }

    /// Runs one step with its retries and timeout; a step an earlier run finished gives
    /// its outputs again without running.
    pub(super) fn run_step<'s>(
        &'s self,
        step: &'s Step,
        scope: &'s Arc<Map<String, Value>>,
        path: String,
    ) -> BoxFuture<'s, Result<Delta, Halt>> {
        async move {
            if let Some(delta) = locked(&self.done).get(&path) {
                return Ok(delta.clone());
            }
            let started = Instant::now();
            // A step that waited goes on with the attempt it waited in.
            let mut attempt = locked(&self.paused).get(&path).map_or(0, |p| p.attempt - 1);
            loop {
                attempt += 1;
                self.emit(WorkflowEvent::StepStarted { step: step.name.clone(), attempt });
                let t = Instant::now();
                let work = self.attempt(step, scope, attempt, &path);
                let result = match step.timeout {
                    Some(after) => tokio::time::timeout(after, work).await.unwrap_or_else(|_| {
                        Err(WorkflowError::StepTimedOut { step: step.name.clone(), attempts: attempt, after }.into())
                    }),
                    None => work.await,
                };
                match result {
                    Ok((mut delta, output, usage)) => {
                        self.emit(WorkflowEvent::StepFinished {
                            step: step.name.clone(),
                            attempt,
                            duration: t.elapsed(),
                        });
                        let record = StepRecord {
                            step: step.name.clone(),
                            attempts: attempt,
                            duration: started.elapsed(),
                            usage,
                        };
                        locked(&self.records).push(record);
                        delta.push((step.name.clone(), output));
                        locked(&self.done).insert(path, delta.clone());
                        return Ok(delta);
                    }
                    Err(Halt::Paused) => return Err(Halt::Paused),
                    Err(Halt::Failed(e)) => {
                        // A retry runs the whole step again, its finished children too.
                        let inside = format!("{path}.");
                        locked(&self.done).retain(|p, _| !p.starts_with(&inside));
                        let will_retry = attempt <= step.retries;
                        tracing::debug!(step = %step.name, attempt, will_retry, error = %e, "workflow step failed");
                        self.emit(WorkflowEvent::StepFailed {
                            step: step.name.clone(),
                            attempt,
                            error: e.to_string(),
                            will_retry,
                            duration: t.elapsed(),
                        });
                        if !will_retry {
                            return Err(Halt::Failed(e));
                        }
                        if !step.retry_delay.is_zero() {
                            tokio::time::sleep(step.retry_delay * 2u32.saturating_pow(attempt as u32 - 1)).await;
                        }
                    }
                }
            }
        }
        .boxed()
    }

    /// One attempt: the children's outputs, the step's own output, its model usage.
    async fn attempt(
        &self,
        step: &Step,
        scope: &Arc<Map<String, Value>>,
        attempt: usize,
        path: &str,
    ) -> Result<(Delta, Value, Usage), Halt> {
        let fail = |message: String, source: Option<Error>| {
            Halt::Failed(WorkflowError::StepFailed {
                step: step.name.clone(),
                attempts: attempt,
                message,
                source: source.map(Box::new),
            })
        };
        match &step.action {
            Action::Func(f) => {
                let out = f(StepInput { scope: Arc::clone(scope), attempt }).await.map_err(|m| fail(m, None))?;
                Ok((Delta::new(), out, Usage::default()))
            }
            Action::Tool { tool, args } => {
                let args = template::render_value(args, scope).map_err(|m| fail(m, None))?;
                let outcome = lucid::tool::run_tool(tool, args, ToolContext::default(), None).await;
                if outcome.is_error {
                    return Err(fail(outcome.content, None));
                }
                let out = serde_json::from_str(&outcome.content).unwrap_or(Value::String(outcome.content));
                Ok((Delta::new(), out, Usage::default()))
            }
            Action::Agent { agent, prompt, format } => {
                let waited = locked(&self.paused).remove(path);
                let (mut session, mut usage, result) = match waited {
                    Some(p) => {
                        let mut session = Session::from_state(agent.clone(), p.session);
                        let result = session.resume().await;
                        (session, p.usage, result)
                    }
                    None => {
                        let prompt = render(prompt, scope).map_err(|m| fail(m, None))?;
                        let mut session = agent.session();
                        if let Some(f) = format {
                            let out = session
                                .extract_json(prompt, f.clone())
                                .await
                                .map_err(|e| fail(e.to_string(), Some(e)))?;
                            return Ok((Delta::new(), out, session.usage()));
                        }
                        let result = session.run(prompt).await;
                        (session, Usage::default(), result)
                    }
                };
                let r = result.map_err(|e| fail(e.to_string(), Some(e)))?;
                usage += session.usage();
                match r.stop_reason {
                    StopReason::Completed => Ok((Delta::new(), Value::String(r.content), usage)),
                    StopReason::NeedsInput => {
                        let e = Error::NeedsInput { questions: r.questions };
                        Err(fail(e.to_string(), Some(e)))
                    }
                    StopReason::Deferred => {
                        let waiting = PausedStep::new(step.name.clone(), attempt, usage, &mut session);
                        tracing::info!(step = %path, calls = waiting.pending.len(), "workflow step waits for approval");
                        locked(&self.paused).insert(path.to_string(), waiting);
                        Err(Halt::Paused)
                    }
                    other => Err(fail(format!("the agent stopped before answering ({})", other.as_str()), None)),
                }
            }
            Action::Sequence(steps) => {
                let (delta, out) = self.run_sequence(steps, Arc::clone(scope), &format!("{path}.")).await?;
                Ok((delta, out, Usage::default()))
            }
            Action::Parallel(steps) => {
                let runs =
                    steps.iter().map(|s| self.run_step(s, scope, format!("{path}.{}", s.name)).map(unless_paused));
                let results = futures::future::try_join_all(runs).await?;
                let mut joined = Map::new();
                let mut delta = Delta::new();
                let mut paused = false;
                for (s, produced) in steps.iter().zip(results) {
                    let Some(produced) = produced else {
                        paused = true;
                        continue;
                    };
                    if let Some((_, v)) = produced.last() {
                        joined.insert(s.name.clone(), v.clone());
                    }
                    delta.extend(produced);
                }
                if paused {
                    return Err(Halt::Paused);
                }
                Ok((delta, Value::Object(joined), Usage::default()))
            }
            Action::Branch { condition, then, otherwise } => {
                let taken = condition.test(scope);
                self.emit(WorkflowEvent::BranchTaken { step: step.name.clone(), then: taken });
                let (side, prefix) = if taken { (then, "then") } else { (otherwise, "else") };
                let (delta, out) = self.run_sequence(side, Arc::clone(scope), &format!("{path}.{prefix}.")).await?;
                Ok((delta, out, Usage::default()))
            }
            Action::Loop { body, until, max } => {
                let mut local = Arc::clone(scope);
                let mut delta = Delta::new();
                let mut out = Value::Null;
                for iteration in 1..=*max {
                    self.emit(WorkflowEvent::LoopIteration { step: step.name.clone(), iteration });
                    Arc::make_mut(&mut local).insert(step.name.clone(), serde_json::json!({ "iteration": iteration }));
                    let (produced, last) =
                        self.run_sequence(body, Arc::clone(&local), &format!("{path}.{iteration}.")).await?;
                    let m = Arc::make_mut(&mut local);
                    for (name, value) in &produced {
                        m.insert(name.clone(), value.clone());
                    }
                    delta.extend(produced);
                    out = last;
                    if until.test(&local) {
                        break;
                    }
                }
                Ok((delta, out, Usage::default()))
            }
            Action::ForEach { over, body, concurrency } => {
                let out = self.run_foreach(step, over, attempt, body, *concurrency, scope, path).await?;
                Ok((Delta::new(), out, Usage::default()))
            }
        }
    }
}
