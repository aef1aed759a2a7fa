//! Workflows: fixed pipelines of named steps over JSON values.
//!
//! A [`Workflow`] is a sequence of [`Step`]s. A step is an agent prompt (a template over
//! earlier outputs, answered by a fresh session of any [`Agent`](lucid::Agent), as text or
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
//! use lucid_orchestrate::workflow::{Condition, Step, Workflow};
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

#[cfg(feature = "files")]
mod file;
mod foreach;
mod pause;
mod run;
mod step;
mod template;

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::{Map, Value};

#[cfg(feature = "files")]
pub use file::WorkflowFile;
pub use pause::{PausedWorkflow, StepApproval};
pub use step::{Step, StepInput};
pub use template::{Condition, ScopeTest, lookup, render};

use crate::OnEvent;
use lucid::error::Error;
use lucid::message::Usage;
use run::{Halt, Runner};
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
    /// use lucid_orchestrate::workflow::WorkflowError;
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
        #[serde(rename = "duration_ms", serialize_with = "lucid::duration_ms::millis")]
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
        #[serde(rename = "duration_ms", serialize_with = "lucid::duration_ms::millis")]
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
    #[serde(rename = "duration_ms", serialize_with = "lucid::duration_ms::millis")]
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
    /// The whole run (a resumed one: since it resumed).
    #[serde(rename = "duration_ms", serialize_with = "lucid::duration_ms::millis")]
    pub duration: Duration,
    /// Set when agent steps wait for approval (their agents
    /// [defer asks](lucid::tool::permission::PermissionPolicy::defer_asks)): the state to
    /// answer and [resume](Workflow::resume). Then `output` is `null`, `outputs` holds the
    /// top-level steps that finished, and `usage` counts the waiting steps' calls too.
    #[serde(skip)]
    pub paused: Option<PausedWorkflow>,
}

impl WorkflowRun {
    /// Whether steps wait for approval ([`WorkflowRun::paused`]).
    pub fn is_paused(&self) -> bool {
        self.paused.is_some()
    }
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
        self.execute(pause::Start { input: given, ..Default::default() }, &on_event).await
    }

    /// Goes on with a workflow that waited for approval ([`WorkflowRun::paused`], its
    /// answers recorded with [`PausedWorkflow::decide`]): the steps that finished are not
    /// run again (their outputs stand), each waiting step's session continues (the allowed
    /// calls run, the refused ones are answered with their messages), then the rest runs.
    /// A call still without an answer pauses the workflow again.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// use lucid_orchestrate::workflow::{Step, Workflow};
    /// let flow = Workflow::new("f").step(Step::value("a", serde_json::json!(1)));
    /// let run = flow.run(serde_json::json!({})).await.unwrap();
    /// assert!(!run.is_paused()); // no agent step asked: nothing to resume
    /// # });
    /// ```
    pub async fn resume(&self, paused: PausedWorkflow) -> Result<WorkflowRun, WorkflowError> {
        self.resume_with_events(paused, |_| {}).await
    }

    /// [`Workflow::resume`], handing every [`WorkflowEvent`] to `on_event` (the steps
    /// that finished before give none).
    pub async fn resume_with_events(
        &self,
        paused: PausedWorkflow,
        on_event: impl OnEvent<WorkflowEvent>,
    ) -> Result<WorkflowRun, WorkflowError> {
        self.validate()?;
        if paused.workflow() != self.name {
            return Err(WorkflowError::Invalid(format!(
                "the paused workflow is `{}`, not `{}`: resume it with the workflow that paused",
                paused.workflow(),
                self.name
            )));
        }
        self.execute(paused.into_start(), &on_event).await
    }

    /// Records `answers` ([`PausedWorkflow::decide`]) and [resumes](Workflow::resume).
    pub async fn resume_with(
        &self,
        mut paused: PausedWorkflow,
        answers: impl IntoIterator<Item = lucid::approval::Answer>,
    ) -> lucid::Result<WorkflowRun> {
        paused.decide_all(self, answers).await?;
        Ok(self.resume(paused).await?)
    }

    async fn execute(
        &self,
        start: pause::Start,
        on_event: &(dyn Fn(WorkflowEvent) + Send + Sync),
    ) -> Result<WorkflowRun, WorkflowError> {
        let pause::Start { input, done, records, waiting } = start;
        let started = Instant::now();
        let mut scope = Map::new();
        scope.insert("input".into(), Value::Object(input.clone()));
        let runner =
            Runner { on_event, records: Mutex::new(records), done: Mutex::new(done), paused: Mutex::new(waiting) };
        let outcome = runner.run_sequence(&self.steps, Arc::new(scope), "").await;
        let steps = runner.records.into_inner().unwrap_or_else(|e| e.into_inner());
        let mut usage = Usage::default();
        for s in &steps {
            usage += s.usage;
        }
        let (output, outputs, paused) = match outcome {
            Ok((delta, output)) => (output, delta.into_iter().collect(), None),
            Err(Halt::Failed(e)) => return Err(e),
            Err(Halt::Paused) => {
                let done = runner.done.into_inner().unwrap_or_else(|e| e.into_inner());
                let waiting = runner.paused.into_inner().unwrap_or_else(|e| e.into_inner());
                let paused = PausedWorkflow::new(&self.name, input, done, &steps, waiting);
                usage += paused.waiting_usage();
                (Value::Null, paused.outputs(self), Some(paused))
            }
        };
        Ok(WorkflowRun { output, outputs, steps, usage, duration: started.elapsed(), paused })
    }
}
