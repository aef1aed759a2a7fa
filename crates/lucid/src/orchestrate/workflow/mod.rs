//! Workflows: fixed pipelines of named steps over JSON values.
//!
//! A [`Workflow`] is a sequence of [`Step`]s. A step is an agent prompt (a template over
//! earlier outputs, answered by a fresh session of any [`Agent`](crate::Agent), as text or
//! as validated structured output), a tool call, or a Rust closure; steps group into
//! parallel fan-outs (joined into one object), conditional branches, bounded loops and
//! `foreach` runs over a list (some items at a time).
//! Each step has its own retries and timeout. A run emits [`WorkflowEvent`]s and returns
//! every step's output ([`WorkflowRun`]).
//!
//! Values between steps are `serde_json::Value`s in one scope: `input` holds the
//! workflow's inputs and each finished step's output sits under its name, so a prompt can
//! say `Summarise {{ research }} for {{ input.audience }}`.
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use lucid::orchestrate::workflow::{Condition, Step, Workflow};
//! use serde_json::json;
//!
//! let flow = Workflow::new("numbers")
//!     .input("n")
//!     .step(Step::func("square", |i| async move {
//!         let n = i.input("n").and_then(|v| v.as_i64()).ok_or("n must be an integer")?;
//!         Ok(json!(n * n))
//!     }))
//!     .step(Step::parallel("both", vec![
//!         Step::func("plus_one", |i| async move { Ok(json!(i.get("square").unwrap().as_i64().unwrap() + 1)) }),
//!         Step::func("minus_one", |i| async move { Ok(json!(i.get("square").unwrap().as_i64().unwrap() - 1)) }),
//!     ]))
//!     .step(Step::branch("size", Condition::func(|s| s["square"].as_i64() > Some(10)),
//!         vec![Step::value("verdict", json!("big"))],
//!         vec![Step::value("verdict", json!("small"))]));
//! let run = flow.run(json!({"n": 4})).await.unwrap();
//! assert_eq!(run.outputs["both"], json!({"plus_one": 17, "minus_one": 15}));
//! assert_eq!(run.output, json!("big"));
//! # });
//! ```
//!
//! With the `workflow-files` feature, [`WorkflowFile`] reads the same shapes from TOML or
//! YAML (what `lucid workflow run FILE --input k=v` executes).

#[cfg(feature = "workflow-files")]
mod file;
mod foreach;
mod step;
mod template;

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::FutureExt;
use futures::future::BoxFuture;
use serde::Serialize;
use serde_json::{Map, Value};

#[cfg(feature = "workflow-files")]
pub use file::WorkflowFile;
pub use step::{Step, StepInput};
pub use template::{Condition, ScopeTest, lookup, render};

use crate::StopReason;
use crate::error::Error;
use crate::message::Usage;
use crate::orchestrate::OnEvent;
use crate::tool::ToolContext;
use step::Action;

/// Why a workflow failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WorkflowError {
    /// A declared input was not given and has no default.
    #[error("the workflow needs the input `{0}` (give it in the run's input, or a default in the workflow)")]
    MissingInput(String),
    /// The workflow itself is wrong (duplicate step names, an unknown agent or tool in a
    /// file, a file that does not parse…).
    #[error("invalid workflow: {0}")]
    Invalid(String),
    /// A step failed on its last attempt.
    #[error("step `{step}` failed after {attempts} attempt(s): {message}")]
    StepFailed {
        /// The step.
        step: String,
        /// Attempts made.
        attempts: usize,
        /// The last failure.
        message: String,
        /// The library error behind it, for agent steps.
        #[source]
        source: Option<Box<Error>>,
    },
    /// A step's last attempt took longer than its timeout.
    #[error("step `{step}` did not finish within {:.1} s ({attempts} attempt(s))", after.as_secs_f64())]
    StepTimedOut {
        /// The step.
        step: String,
        /// Attempts made.
        attempts: usize,
        /// The timeout.
        after: Duration,
    },
}

impl From<WorkflowError> for Error {
    /// ```
    /// use lucid::orchestrate::workflow::WorkflowError;
    /// fn run() -> lucid::Result<()> {
    ///     let failed: Result<(), WorkflowError> = Err(WorkflowError::MissingInput("topic".into()));
    ///     failed?;
    ///     Ok(())
    /// }
    /// let e = run().unwrap_err();
    /// let inner = std::error::Error::source(&e).unwrap().downcast_ref::<WorkflowError>();
    /// assert!(matches!(inner, Some(WorkflowError::MissingInput(name)) if name == "topic"));
    /// ```
    fn from(e: WorkflowError) -> Self {
        Error::Orchestration { source: Box::new(e) }
    }
}

impl WorkflowError {
    /// The step that failed, if a step did.
    pub fn step(&self) -> Option<&str> {
        match self {
            WorkflowError::StepFailed { step, .. } | WorkflowError::StepTimedOut { step, .. } => Some(step),
            _ => None,
        }
    }
}

/// What happens during a run, in order.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
#[non_exhaustive]
pub enum WorkflowEvent {
    /// An attempt of a step starts (1-based).
    StepStarted {
        /// The step.
        step: String,
        /// Which attempt.
        attempt: usize,
    },
    /// A step finished.
    StepFinished {
        /// The step.
        step: String,
        /// Which attempt succeeded.
        attempt: usize,
        /// How long that attempt took.
        #[serde(rename = "duration_ms", serialize_with = "crate::duration_ms::millis")]
        duration: Duration,
    },
    /// An attempt failed.
    StepFailed {
        /// The step.
        step: String,
        /// Which attempt.
        attempt: usize,
        /// Why.
        error: String,
        /// Whether another attempt follows.
        will_retry: bool,
        /// How long the attempt took.
        #[serde(rename = "duration_ms", serialize_with = "crate::duration_ms::millis")]
        duration: Duration,
    },
    /// A branch step chose its side.
    BranchTaken {
        /// The branch step.
        step: String,
        /// True for `then`, false for `otherwise`.
        then: bool,
    },
    /// A loop step starts an iteration (1-based).
    LoopIteration {
        /// The loop step.
        step: String,
        /// Which iteration.
        iteration: usize,
    },
    /// A `foreach` step starts its body for one item.
    ForEachItem {
        /// The `foreach` step.
        step: String,
        /// The item's place in the list (from 0).
        index: usize,
    },
}

/// One finished step of a run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StepRecord {
    /// The step.
    pub step: String,
    /// Attempts it took.
    pub attempts: usize,
    /// From the first attempt's start to the end.
    #[serde(rename = "duration_ms", serialize_with = "crate::duration_ms::millis")]
    pub duration: Duration,
    /// Model usage of agent steps (zero for others; a group's is its own, not its children's).
    pub usage: Usage,
}

/// The outcome of a run.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct WorkflowRun {
    /// The last top-level step's output.
    pub output: Value,
    /// Every step's output by name (a step run several times by a loop: its last one).
    pub outputs: Map<String, Value>,
    /// Finished steps in the order they finished.
    pub steps: Vec<StepRecord>,
    /// Model usage summed over every agent step.
    pub usage: Usage,
    /// The whole run.
    #[serde(rename = "duration_ms", serialize_with = "crate::duration_ms::millis")]
    pub duration: Duration,
}

/// A declared input.
#[derive(Debug, Clone)]
struct InputDecl {
    name: String,
    default: Option<Value>,
}

/// A named pipeline of steps. See the [module docs](self).
#[derive(Debug)]
pub struct Workflow {
    name: String,
    inputs: Vec<InputDecl>,
    steps: Vec<Step>,
}

/// Outputs a step produced: its children's (groups), then its own, by name.
type Delta = Vec<(String, Value)>;

type EventSink<'a> = &'a (dyn Fn(WorkflowEvent) + Send + Sync);

impl Workflow {
    /// An empty workflow.
    pub fn new(name: impl Into<String>) -> Self {
        Workflow { name: name.into(), inputs: Vec::new(), steps: Vec::new() }
    }

    /// Appends a step.
    pub fn step(mut self, step: Step) -> Self {
        self.steps.push(step);
        self
    }

    /// Declares a required input.
    pub fn input(mut self, name: impl Into<String>) -> Self {
        self.inputs.push(InputDecl { name: name.into(), default: None });
        self
    }

    /// Declares an input with a default.
    pub fn input_default(mut self, name: impl Into<String>, default: Value) -> Self {
        self.inputs.push(InputDecl { name: name.into(), default: Some(default) });
        self
    }

    /// The workflow's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The declared inputs' names.
    pub fn input_names(&self) -> impl Iterator<Item = &str> {
        self.inputs.iter().map(|i| i.name.as_str())
    }

    /// Checks that step names are unique and none is called `input`.
    pub fn validate(&self) -> Result<(), WorkflowError> {
        fn walk<'a>(steps: &'a [Step], seen: &mut HashSet<&'a str>) -> Result<(), WorkflowError> {
            for s in steps {
                if s.name == "input" || s.name.is_empty() || s.name.contains('.') {
                    return Err(WorkflowError::Invalid(format!(
                        "`{}` cannot name a step (empty, `input`, or containing a dot)",
                        s.name
                    )));
                }
                if !seen.insert(&s.name) {
                    return Err(WorkflowError::Invalid(format!("two steps are named `{}`", s.name)));
                }
                if let Action::Branch { then, otherwise, .. } = &s.action {
                    // The two sides may reuse each other's names: only one of them runs.
                    let (mut a, mut b) = (seen.clone(), seen.clone());
                    walk(then, &mut a)?;
                    walk(otherwise, &mut b)?;
                    seen.extend(a);
                    seen.extend(b);
                } else {
                    for c in s.children() {
                        walk(std::slice::from_ref(c), seen)?;
                    }
                }
            }
            Ok(())
        }
        walk(&self.steps, &mut HashSet::new())
    }

    /// Runs the workflow on `input` (a JSON object).
    pub async fn run(&self, input: Value) -> Result<WorkflowRun, WorkflowError> {
        self.run_with_events(input, |_| {}).await
    }

    /// Runs the workflow, handing every [`WorkflowEvent`] to `on_event` as it happens.
    pub async fn run_with_events(
        &self,
        input: Value,
        on_event: impl OnEvent<WorkflowEvent>,
    ) -> Result<WorkflowRun, WorkflowError> {
        self.validate()?;
        let started = Instant::now();
        let mut given = match input {
            Value::Object(m) => m,
            Value::Null => Map::new(),
            other => return Err(WorkflowError::Invalid(format!("the input must be a JSON object, not {other}"))),
        };
        for decl in &self.inputs {
            if !given.contains_key(&decl.name) {
                match &decl.default {
                    Some(d) => {
                        given.insert(decl.name.clone(), d.clone());
                    }
                    None => return Err(WorkflowError::MissingInput(decl.name.clone())),
                }
            }
        }
        let mut scope = Map::new();
        scope.insert("input".into(), Value::Object(given));
        let runner = Runner { on_event: &on_event, records: Mutex::new(Vec::new()) };
        let (delta, output) = runner.run_sequence(&self.steps, Arc::new(scope)).await?;
        let mut outputs = Map::new();
        for (name, value) in delta {
            outputs.insert(name, value);
        }
        let steps = runner.records.into_inner().unwrap_or_else(|e| e.into_inner());
        let mut usage = Usage::default();
        for s in &steps {
            usage += s.usage;
        }
        Ok(WorkflowRun { output, outputs, steps, usage, duration: started.elapsed() })
    }
}

struct Runner<'a> {
    on_event: EventSink<'a>,
    records: Mutex<Vec<StepRecord>>,
}

impl Runner<'_> {
    fn emit(&self, event: WorkflowEvent) {
        (self.on_event)(event);
    }

    /// Runs steps in order over a scope that grows with their outputs.
    async fn run_sequence(
        &self,
        steps: &[Step],
        mut scope: Arc<Map<String, Value>>,
    ) -> Result<(Delta, Value), WorkflowError> {
        let mut delta = Delta::new();
        let mut last = Value::Null;
        for step in steps {
            let produced = self.run_step(step, &scope).await?;
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

    /// Runs one step with its retries and timeout.
    fn run_step<'s>(
        &'s self,
        step: &'s Step,
        scope: &'s Arc<Map<String, Value>>,
    ) -> BoxFuture<'s, Result<Delta, WorkflowError>> {
        async move {
            let started = Instant::now();
            let mut attempt = 0;
            loop {
                attempt += 1;
                self.emit(WorkflowEvent::StepStarted { step: step.name.clone(), attempt });
                let t = Instant::now();
                let work = self.attempt(step, scope, attempt);
                let result = match step.timeout {
                    Some(after) => tokio::time::timeout(after, work).await.unwrap_or_else(|_| {
                        Err(WorkflowError::StepTimedOut { step: step.name.clone(), attempts: attempt, after })
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
                        self.records.lock().unwrap_or_else(|e| e.into_inner()).push(record);
                        delta.push((step.name.clone(), output));
                        return Ok(delta);
                    }
                    Err(e) => {
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
                            return Err(e);
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
    ) -> Result<(Delta, Value, Usage), WorkflowError> {
        let fail = |message: String, source: Option<Error>| WorkflowError::StepFailed {
            step: step.name.clone(),
            attempts: attempt,
            message,
            source: source.map(Box::new),
        };
        match &step.action {
            Action::Func(f) => {
                let out = f(StepInput { scope: Arc::clone(scope), attempt }).await.map_err(|m| fail(m, None))?;
                Ok((Delta::new(), out, Usage::default()))
            }
            Action::Tool { tool, args } => {
                let args = template::render_value(args, scope).map_err(|m| fail(m, None))?;
                let outcome = crate::tool::run_tool(tool, args, ToolContext::default(), None).await;
                if outcome.is_error {
                    return Err(fail(outcome.content, None));
                }
                let out = serde_json::from_str(&outcome.content).unwrap_or(Value::String(outcome.content));
                Ok((Delta::new(), out, Usage::default()))
            }
            Action::Agent { agent, prompt, format } => {
                let prompt = render(prompt, scope).map_err(|m| fail(m, None))?;
                let mut session = agent.session();
                let out = match format {
                    Some(f) => {
                        session.extract_json(prompt, f.clone()).await.map_err(|e| fail(e.to_string(), Some(e)))?
                    }
                    None => {
                        let r = session.run(prompt).await.map_err(|e| fail(e.to_string(), Some(e)))?;
                        match r.stop_reason {
                            StopReason::Completed => Value::String(r.content),
                            StopReason::NeedsInput => {
                                let e = Error::NeedsInput { questions: r.questions };
                                return Err(fail(e.to_string(), Some(e)));
                            }
                            other => {
                                return Err(fail(
                                    format!("the agent stopped before answering ({})", other.as_str()),
                                    None,
                                ));
                            }
                        }
                    }
                };
                Ok((Delta::new(), out, session.usage()))
            }
            Action::Sequence(steps) => {
                let (delta, out) = self.run_sequence(steps, Arc::clone(scope)).await?;
                Ok((delta, out, Usage::default()))
            }
            Action::Parallel(steps) => {
                let results = futures::future::try_join_all(steps.iter().map(|s| self.run_step(s, scope))).await?;
                let mut joined = Map::new();
                let mut delta = Delta::new();
                for (s, produced) in steps.iter().zip(results) {
                    if let Some((_, v)) = produced.last() {
                        joined.insert(s.name.clone(), v.clone());
                    }
                    delta.extend(produced);
                }
                Ok((delta, Value::Object(joined), Usage::default()))
            }
            Action::Branch { condition, then, otherwise } => {
                let taken = condition.test(scope);
                self.emit(WorkflowEvent::BranchTaken { step: step.name.clone(), then: taken });
                let side = if taken { then } else { otherwise };
                let (delta, out) = self.run_sequence(side, Arc::clone(scope)).await?;
                Ok((delta, out, Usage::default()))
            }
            Action::Loop { body, until, max } => {
                let mut local = Arc::clone(scope);
                let mut delta = Delta::new();
                let mut out = Value::Null;
                for iteration in 1..=*max {
                    self.emit(WorkflowEvent::LoopIteration { step: step.name.clone(), iteration });
                    Arc::make_mut(&mut local).insert(step.name.clone(), serde_json::json!({ "iteration": iteration }));
                    let (produced, last) = self.run_sequence(body, Arc::clone(&local)).await?;
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
                let items = foreach::items(scope, over).map_err(|m| fail(m, None))?;
                let out = self.run_foreach(step, items, body, *concurrency, scope).await?;
                Ok((Delta::new(), out, Usage::default()))
            }
        }
    }
}
