//! The steps a workflow is made of.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use futures::FutureExt;
use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde_json::{Map, Value};

use super::Condition;
use lucid::Agent;
use lucid::model::ResponseFormat;
use lucid::tool::Tool;

/// What a closure step receives: every value so far, and which attempt this is.
#[derive(Debug, Clone)]
pub struct StepInput {
    /// `input` (the workflow's inputs) and each finished step's output by name.
    pub scope: Arc<Map<String, Value>>,
    /// 1 for the first attempt, 2 for the first retry…
    pub attempt: usize,
}

impl StepInput {
    /// The value at a dotted path (`input.topic`, `outline.parts`).
    pub fn get(&self, path: &str) -> Option<&Value> {
        super::lookup(&self.scope, path)
    }

    /// The workflow input `name`.
    pub fn input(&self, name: &str) -> Option<&Value> {
        self.scope.get("input").and_then(|i| i.get(name))
    }
}

/// A closure step's body.
pub(crate) type StepFn = Arc<dyn Fn(StepInput) -> BoxFuture<'static, Result<Value, String>> + Send + Sync>;

pub(crate) enum Action {
    Agent { agent: Agent, prompt: String, format: Option<ResponseFormat> },
    Tool { tool: Arc<dyn Tool>, args: Value },
    Func(StepFn),
    Sequence(Vec<Step>),
    Parallel(Vec<Step>),
    Branch { condition: Condition, then: Vec<Step>, otherwise: Vec<Step> },
    Loop { body: Vec<Step>, until: Condition, max: usize },
    ForEach { over: String, body: Vec<Step>, concurrency: usize },
}

/// One named step: an agent prompt, a tool call, a closure, or a group of steps
/// (sequence, parallel fan-out, branch, bounded loop, one run per item of a list), with its own retries and timeout.
///
/// ```
/// use lucid_orchestrate::workflow::{Condition, Step};
/// use serde_json::json;
/// let double = Step::func("double", |input| async move {
///     let n = input.input("n").and_then(|v| v.as_i64()).ok_or("n must be an integer")?;
///     Ok(json!(n * 2))
/// })
/// .retries(2)
/// .timeout(std::time::Duration::from_secs(5));
/// let check = Step::branch(
///     "check",
///     Condition::equals("double", 8),
///     vec![Step::value("verdict", json!("eight"))],
///     vec![Step::value("verdict", json!("not eight"))],
/// );
/// assert_eq!(double.name(), "double");
/// # let _ = check;
/// ```
pub struct Step {
    pub(crate) name: String,
    pub(crate) action: Action,
    pub(crate) retries: usize,
    pub(crate) retry_delay: Duration,
    pub(crate) timeout: Option<Duration>,
}

impl std::fmt::Debug for Step {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match &self.action {
            Action::Agent { .. } => "agent",
            Action::Tool { .. } => "tool",
            Action::Func(_) => "func",
            Action::Sequence(_) => "sequence",
            Action::Parallel(_) => "parallel",
            Action::Branch { .. } => "branch",
            Action::Loop { .. } => "loop",
            Action::ForEach { .. } => "foreach",
        };
        f.debug_struct("Step").field("name", &self.name).field("kind", &kind).finish()
    }
}

impl Step {
    fn new(name: impl Into<String>, action: Action) -> Self {
        Step { name: name.into(), action, retries: 0, retry_delay: Duration::ZERO, timeout: None }
    }

    /// Runs `agent` on `prompt` (a `{{ path }}` template) in a fresh session; the output
    /// is the answer text.
    pub fn agent(name: impl Into<String>, agent: &Agent, prompt: impl Into<String>) -> Self {
        Step::new(name, Action::Agent { agent: agent.clone(), prompt: prompt.into(), format: None })
    }

    /// Makes an agent step's answer structured: JSON matching `T`'s schema, validated
    /// (see [`Session::extract`](lucid::Session::extract)); the output is that JSON.
    /// No effect on other steps.
    pub fn output<T: JsonSchema>(self) -> Self {
        self.output_format(lucid::structured::response_format::<T>())
    }

    /// [`Step::output`] with a format known at run time (a schema from a file).
    pub fn output_format(mut self, f: ResponseFormat) -> Self {
        if let Action::Agent { format, .. } = &mut self.action {
            *format = Some(f);
        }
        self
    }

    /// Calls `tool` with `args`, whose strings are templates (a string that is exactly one
    /// `{{ path }}` takes the value as it is). The output is the tool's text, parsed as
    /// JSON when it is JSON. A tool error fails the step.
    pub fn tool(name: impl Into<String>, tool: Arc<dyn Tool>, args: Value) -> Self {
        Step::new(name, Action::Tool { tool, args })
    }

    /// Runs a Rust closure; `Err(message)` fails the step.
    pub fn func<F, Fut>(name: impl Into<String>, f: F) -> Self
    where
        F: Fn(StepInput) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Value, String>> + Send + 'static,
    {
        Step::new(name, Action::Func(Arc::new(move |input| f(input).boxed())))
    }

    /// A step whose output is a fixed value.
    pub fn value(name: impl Into<String>, value: Value) -> Self {
        Step::func(name, move |_| std::future::ready(Ok(value.clone())))
    }

    /// Runs `steps` one after another; the output is the last one's.
    pub fn sequence(name: impl Into<String>, steps: Vec<Step>) -> Self {
        Step::new(name, Action::Sequence(steps))
    }

    /// Runs `steps` at the same time and joins them: the output is an object of their
    /// outputs by name. One failure fails the group (the others are stopped).
    pub fn parallel(name: impl Into<String>, steps: Vec<Step>) -> Self {
        Step::new(name, Action::Parallel(steps))
    }

    /// Runs `then` when `condition` holds, else `otherwise`; the output is the last
    /// output of the branch taken (`null` for an empty one).
    pub fn branch(name: impl Into<String>, condition: Condition, then: Vec<Step>, otherwise: Vec<Step>) -> Self {
        Step::new(name, Action::Branch { condition, then, otherwise })
    }

    /// Runs `body` again and again until `until` holds after an iteration, at most `max`
    /// times (at least 1). The output is the last iteration's last output; while it runs,
    /// `{{ NAME.iteration }}` is the iteration number (1-based). Reaching `max` without
    /// the condition is not a failure: the last iteration's output stands.
    pub fn repeat(name: impl Into<String>, body: Vec<Step>, until: Condition, max: usize) -> Self {
        Step::new(name, Action::Loop { body, until, max: max.max(1) })
    }

    /// Runs `body` once for each item of the list at `over` (a dotted path: an input, or a
    /// step's output — an array, or a text holding a JSON array, as a tool answers), one
    /// item at a time unless [`concurrency`](Step::concurrency) says more. While a run
    /// goes, `{{ NAME.item }}` is its item and `{{ NAME.index }}` its place (from 0). The
    /// output is the list of each run's last output, in the items' order; the body's steps
    /// are not under their own names in the run's outputs (each item has its own). One
    /// failed run fails the step (the others are stopped). An empty list gives `[]`.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// use lucid_orchestrate::workflow::{Step, Workflow};
    /// use serde_json::json;
    /// let flow = Workflow::new("squares").input("numbers").step(
    ///     Step::foreach("each", "input.numbers", vec![Step::func("square", |i| async move {
    ///         let n = i.get("each.item").and_then(|v| v.as_i64()).ok_or("not a number")?;
    ///         Ok(json!(n * n))
    ///     })])
    ///     .concurrency(2),
    /// );
    /// let run = flow.run(json!({"numbers": [1, 2, 3]})).await.unwrap();
    /// assert_eq!(run.output, json!([1, 4, 9]));
    /// # });
    /// ```
    pub fn foreach(name: impl Into<String>, over: impl Into<String>, body: Vec<Step>) -> Self {
        Step::new(name, Action::ForEach { over: over.into(), body, concurrency: 1 })
    }

    /// How many items a [`foreach`](Step::foreach) step runs at the same time (at least
    /// 1). No effect on other steps.
    pub fn concurrency(mut self, n: usize) -> Self {
        if let Action::ForEach { concurrency, .. } = &mut self.action {
            *concurrency = n.max(1);
        }
        self
    }

    /// Tries the step again up to `n` more times when it fails or times out.
    pub fn retries(mut self, n: usize) -> Self {
        self.retries = n;
        self
    }

    /// Waits this long before each retry, doubled every time (default: no wait).
    pub fn retry_delay(mut self, d: Duration) -> Self {
        self.retry_delay = d;
        self
    }

    /// Fails an attempt that takes longer than this.
    pub fn timeout(mut self, d: Duration) -> Self {
        self.timeout = Some(d);
        self
    }

    /// The step's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The steps inside a group step.
    pub(crate) fn children(&self) -> Box<dyn Iterator<Item = &Step> + '_> {
        match &self.action {
            Action::Sequence(s)
            | Action::Parallel(s)
            | Action::Loop { body: s, .. }
            | Action::ForEach { body: s, .. } => Box::new(s.iter()),
            Action::Branch { then, otherwise, .. } => Box::new(then.iter().chain(otherwise)),
            _ => Box::new(std::iter::empty()),
        }
    }
}
