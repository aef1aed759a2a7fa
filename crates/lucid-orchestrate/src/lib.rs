//! Orchestration: several agent turns arranged into a larger task.
//!
//! * [`workflow`]: a fixed graph of named steps (agent prompts, tool calls, closures;
//!   sequences, parallel fan-outs, branches, bounded loops), each with retries and a
//!   timeout, readable from TOML or YAML.
//! * [`planner`]: the model writes the graph — a plan of steps with dependencies — then the
//!   steps run as soon as their dependencies are done, with bounded re-planning.
//! * [`team`]: named agents that delegate to each other, hand a conversation over, or are
//!   picked by a router.
//!
//! None of them has a loop of its own: every model call is a [`Session`](lucid::Session)
//! turn, so retries, repair, cancellation and usage work as everywhere. All three report
//! progress the same way: `run_with_events` takes one callback, an [`OnEvent`] over the
//! orchestrator's event type ([`workflow::WorkflowEvent`], [`planner::PlanEvent`],
//! [`team::TeamEvent`]), called as each thing happens; `run` is the same with no callback.

mod errors;
pub mod planner;
pub mod team;
pub mod workflow;

pub use errors::{PlanError, TeamError};

/// The one way orchestrators report progress: a callback given each event as it happens.
///
/// Any `Fn(E) + Send + Sync + 'static` closure is one; it runs on the orchestrator's task,
/// so it should return quickly (send to a channel for slow work).
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use lucid_orchestrate::workflow::{Step, Workflow, WorkflowEvent};
///
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let seen = Arc::new(Mutex::new(Vec::new()));
/// let log = Arc::clone(&seen);
/// let flow = Workflow::new("numbers").step(Step::value("answer", serde_json::json!(42)));
/// flow.run_with_events(serde_json::json!({}), move |e: WorkflowEvent| {
///     log.lock().unwrap().push(e)
/// }).await.unwrap();
/// assert!(!seen.lock().unwrap().is_empty());
/// # });
/// ```
pub trait OnEvent<E>: Fn(E) + Send + Sync + 'static {}

impl<E, F: Fn(E) + Send + Sync + 'static> OnEvent<E> for F {}
