//! The tools an agent can call, and the one place a call is executed.

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Duration;

use futures::FutureExt;

use super::validate::{self, Unchecked};
use super::{Tool, ToolContext, ToolSet, ToolSpec};
use crate::message::ToolCall;

/// The result of executing one call: the text the model reads and whether it failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolOutcome {
    /// The output, or an explanation of the failure the model can act on.
    pub content: String,
    /// True when the call failed.
    pub is_error: bool,
    /// Questions the user must answer before the run can go on (see
    /// [`ToolError::needs_input`](super::ToolError::needs_input)); empty otherwise.
    pub questions: Vec<String>,
}

impl ToolOutcome {
    /// A successful outcome.
    pub fn ok(content: String) -> Self {
        ToolOutcome { content, is_error: false, questions: Vec::new() }
    }

    /// A failed outcome.
    pub fn error(content: String) -> Self {
        ToolOutcome { content, is_error: true, questions: Vec::new() }
    }
}

/// What the model reads for a call that stopped the run to ask the user.
const WAITING_FOR_USER: &str =
    "The questions were shown to the user. Their answers will arrive as the next user message.";

/// Tools by name, with their specs ready to send.
///
/// ```
/// # tokio_test_block(async {
/// use lucid::prelude::*;
/// use lucid::tool::{ToolContext, ToolRegistry};
///
/// /// Adds two integers.
/// #[tool]
/// fn add(a: i64, b: i64) -> i64 { a + b }
///
/// let mut tools = ToolRegistry::new();
/// tools.add(add);
/// let ok = tools.execute(&ToolCall::new("c1", "add", serde_json::json!({"a": 2, "b": 3})), ToolContext::default(), None).await;
/// assert_eq!((ok.content.as_str(), ok.is_error), ("5", false));
/// let bad = tools.execute(&ToolCall::new("c2", "add", serde_json::json!({"a": "2"})), ToolContext::default(), None).await;
/// assert!(bad.is_error && bad.content.contains("missing required property `b`"));
/// # });
/// # fn tokio_test_block<F: std::future::Future>(f: F) -> F::Output {
/// #     tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(f)
/// # }
/// ```
#[derive(Clone, Default)]
pub struct ToolRegistry {
    tools: Vec<Arc<dyn Tool>>,
    specs: Vec<ToolSpec>,
    index: HashMap<String, usize>,
}

impl std::fmt::Debug for ToolRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.specs.iter().map(ToolSpec::name)).finish()
    }
}

impl ToolRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a tool. A tool with the same name is replaced (with a warning).
    pub fn add(&mut self, tool: impl Tool) {
        self.add_arc(Arc::new(tool));
    }

    /// Adds a shared tool.
    pub fn add_arc(&mut self, tool: Arc<dyn Tool>) {
        let spec = tool.spec().clone();
        match self.index.get(spec.name()) {
            Some(&i) => {
                tracing::warn!(tool = spec.name(), "a tool with this name was already registered; replacing it");
                self.tools[i] = tool;
                self.specs[i] = spec;
            }
            None => {
                self.index.insert(spec.name().to_string(), self.tools.len());
                self.tools.push(tool);
                self.specs.push(spec);
            }
        }
    }

    /// Adds every tool of a `#[tools]` value.
    pub fn add_set<S: ToolSet>(&mut self, set: Arc<S>) {
        for t in set.tools() {
            self.add_arc(t);
        }
    }

    /// The specs, in registration order.
    pub fn specs(&self) -> &[ToolSpec] {
        &self.specs
    }

    /// The tool with this name.
    pub fn get(&self, name: &str) -> Option<&Arc<dyn Tool>> {
        self.index.get(name).map(|&i| &self.tools[i])
    }

    /// Whether the tool with this name is [idempotent](Tool::idempotent) (false for an
    /// unknown name).
    ///
    /// ```
    /// use lucid::prelude::*;
    /// use lucid::tool::{Idempotent, ToolRegistry};
    ///
    /// /// Adds two integers.
    /// #[tool]
    /// fn add(a: i64, b: i64) -> i64 { a + b }
    ///
    /// let mut tools = ToolRegistry::new();
    /// tools.add(add);
    /// assert!(!tools.is_idempotent("add"));
    /// tools.add(Idempotent(add));
    /// assert!(tools.is_idempotent("add") && !tools.is_idempotent("nope"));
    /// ```
    pub fn is_idempotent(&self, name: &str) -> bool {
        self.get(name).is_some_and(|t| t.idempotent())
    }

    /// True when no tool is registered.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// What is wrong with `call` before it could run, with the text the model reads for
    /// it: an unknown tool, arguments that are not JSON or do not match the schema.
    /// `None` when it can run (a schema too big to check here is checked when it runs).
    ///
    /// ```
    /// use lucid::prelude::*;
    /// use lucid::tool::{InvalidCall, ToolRegistry};
    ///
    /// /// Adds two integers.
    /// #[tool]
    /// fn add(a: i64, b: i64) -> i64 { a + b }
    ///
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let mut tools = ToolRegistry::new();
    /// tools.add(add);
    /// let call = |name: &str, args: &str| ToolCall { arguments: args.to_string(), ..ToolCall::new("c1", name, serde_json::json!({})) };
    /// assert!(tools.invalid(&call("add", r#"{"a": 1, "b": 2}"#)).await.is_none());
    /// let (problem, told) = tools.invalid(&call("sub", "{}")).await.unwrap();
    /// assert_eq!(problem, InvalidCall::UnknownTool);
    /// assert!(told.starts_with("Unknown tool `sub`. Available tools: add."));
    /// assert!(matches!(tools.invalid(&call("add", "{")).await, Some((InvalidCall::NotJson(_), _))));
    /// assert!(matches!(tools.invalid(&call("add", r#"{"a": "x"}"#)).await, Some((InvalidCall::Schema(_), _))));
    /// # });
    /// ```
    pub async fn invalid(&self, call: &ToolCall) -> Option<(InvalidCall, String)> {
        let Some(tool) = self.get(&call.name) else {
            let names: Vec<&str> = self.specs.iter().map(ToolSpec::name).collect();
            let told = format!(
                "Unknown tool `{}`. Available tools: {}.",
                call.name,
                if names.is_empty() { "none".to_string() } else { names.join(", ") }
            );
            return Some((InvalidCall::UnknownTool, told));
        };
        let args = match call.parse_arguments() {
            Ok(v) => v,
            Err(e) => {
                let told = format!(
                    "The arguments for `{}` are not valid JSON ({e}). Call it again with a JSON object matching its schema.",
                    call.name
                );
                return Some((InvalidCall::NotJson(e.to_string()), told));
            }
        };
        match validate::check_within(tool.spec().parameters(), &args, INLINE_STEPS) {
            Ok(problems) if !problems.is_empty() => {
                let told = invalid_arguments(&call.name, &problems);
                Some((InvalidCall::Schema(problems), told))
            }
            _ => None,
        }
    }

    /// Executes one call. Never fails: an unknown tool, arguments that are not JSON or do
    /// not match the schema, an error, a panic or a timeout each become an error outcome
    /// whose text tells the model what went wrong.
    pub async fn execute(&self, call: &ToolCall, ctx: ToolContext, timeout: Option<Duration>) -> ToolOutcome {
        let (Some(tool), Ok(args)) = (self.get(&call.name), call.parse_arguments()) else {
            let told = self.invalid(call).await.map(|(_, told)| told);
            return ToolOutcome::error(told.unwrap_or_else(|| format!("The call of `{}` cannot be made.", call.name)));
        };
        run(tool, args, ctx, timeout).await
    }
}

/// What is wrong with a tool call the model made ([`ToolRegistry::invalid`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum InvalidCall {
    /// No tool has the name the call gives.
    UnknownTool,
    /// The arguments are not a JSON value; the parser's complaint.
    NotJson(String),
    /// The arguments do not match the tool's schema; each problem found.
    Schema(Vec<String>),
}

/// The text the model reads for arguments that do not match the schema.
fn invalid_arguments(name: &str, problems: &[String]) -> String {
    format!(
        "Invalid arguments for `{}`: {}. Call it again with arguments matching its schema.",
        name,
        problems.join("; ")
    )
}

/// The steps an argument check may take on the runtime's own thread: a call to an ordinary
/// tool takes a few dozen, so it never leaves it; a bigger check moves to the blocking pool
/// (with [`validate::MAX_STEPS`]), where a hostile schema cannot hold up other tasks.
const INLINE_STEPS: usize = 2_000;

/// The problems of `args` against the tool's schema (empty when they conform).
async fn check_arguments(spec: &ToolSpec, args: &serde_json::Value) -> Result<Vec<String>, String> {
    match validate::check_within(spec.parameters(), args, INLINE_STEPS) {
        Err(Unchecked::TooManySteps(_)) => {
            let (schema, args) = (spec.parameters().clone(), args.clone());
            let checked =
                tokio::task::spawn_blocking(move || validate::check_within(&schema, &args, validate::MAX_STEPS)).await;
            match checked {
                Ok(result) => result.map_err(|e| e.to_string()),
                Err(e) => Err(format!("the argument check failed: {e}")),
            }
        }
        other => other.map_err(|e| e.to_string()),
    }
}

/// Validates `args` against the tool's schema and runs it, turning every failure (invalid
/// arguments, a schema that cannot be checked, `Err`, panic, timeout) into an error
/// outcome. The timeout covers the check too. This is how the agent loop runs a call,
/// without its permission policy and events: for code that runs a tool itself (a workflow
/// step, a test).
///
/// ```
/// use std::sync::Arc;
/// use lucid::prelude::*;
///
/// /// Halves a number.
/// #[tool]
/// fn half(n: i64) -> i64 { n / 2 }
///
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let tool: Arc<dyn Tool> = Arc::new(half);
/// let out = lucid::tool::run_tool(&tool, serde_json::json!({"n": 8}), ToolContext::default(), None).await;
/// assert_eq!((out.is_error, out.content.as_str()), (false, "4"));
/// let bad = lucid::tool::run_tool(&tool, serde_json::json!({"n": "x"}), ToolContext::default(), None).await;
/// assert!(bad.is_error && bad.content.starts_with("Invalid arguments"));
/// # });
/// ```
pub async fn run(
    tool: &Arc<dyn Tool>,
    args: serde_json::Value,
    ctx: ToolContext,
    timeout: Option<Duration>,
) -> ToolOutcome {
    let name = tool.spec().name();
    let work = async {
        match check_arguments(tool.spec(), &args).await {
            Ok(problems) if problems.is_empty() => {}
            Ok(problems) => {
                return Err(ToolOutcome::error(invalid_arguments(name, &problems)));
            }
            Err(why) => {
                return Err(ToolOutcome::error(format!(
                    "The arguments for `{name}` could not be checked: {why}. The call was not made."
                )));
            }
        }
        Ok(AssertUnwindSafe(tool.invoke(args, ctx)).catch_unwind().await)
    };
    let finished = match timeout {
        Some(limit) => match tokio::time::timeout(limit, work).await {
            Ok(r) => r,
            Err(_) => {
                return ToolOutcome::error(format!(
                    "The tool `{}` did not finish within {:.1} s and was stopped.",
                    name,
                    limit.as_secs_f64()
                ));
            }
        },
        None => work.await,
    };
    let finished = match finished {
        Ok(finished) => finished,
        Err(refused) => return refused,
    };
    match finished {
        Ok(Ok(content)) => ToolOutcome::ok(content),
        Ok(Err(e)) if !e.questions().is_empty() => {
            ToolOutcome { content: WAITING_FOR_USER.to_string(), is_error: false, questions: e.questions().to_vec() }
        }
        Ok(Err(e)) => ToolOutcome::error(format!("Error: {e}")),
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "no message".into());
            tracing::error!(tool = %name, panic = %what, "a tool panicked");
            ToolOutcome::error(format!("The tool `{}` crashed: {what}", name))
        }
    }
}
