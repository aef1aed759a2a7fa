//! What a running tool can ask of whoever runs it: report progress, log, have the
//! client's model answer a prompt (sampling), ask the user (elicitation).
//!
//! A tool calls [`ToolContext::progress`], [`ToolContext::log`], [`ToolContext::sample`]
//! and [`ToolContext::elicit`]; the [`ToolHost`] in [`ToolContext::host`] decides where
//! they go. In an agent's run, progress and logs are `tracing` events (progress also an
//! [`AgentEvent::ToolProgress`](crate::AgentEvent::ToolProgress) of a streamed run) and
//! questions go to the agent's [`Elicitor`](super::Elicitor); under `lucid mcp serve` they
//! are MCP notifications and requests to the connected client. With no host (a
//! `ToolContext::default()`) progress and logs are `tracing` events, sampling fails and a
//! question stops the run for the user's answer ([`ToolError::needs_input`]).

use std::sync::Arc;

use futures::FutureExt;
use futures::future::BoxFuture;
use serde_json::Value;

use super::{Elicited, ToolContext, ToolError};

/// Whoever runs a tool, as the tool's [`ToolContext`] methods reach it. Every method has
/// a default: `tracing` for progress and logs, an error for sampling, and for a question
/// [`ToolError::needs_input`] (the run stops with it; the user's next message answers).
///
/// ```
/// use futures::future::{BoxFuture, FutureExt};
/// use lucid::tool::{Host, ToolContext, ToolHost};
/// use std::sync::{Arc, Mutex};
///
/// /// Keeps the progress a tool reports.
/// #[derive(Default)]
/// struct Recorder(Mutex<Vec<f64>>);
///
/// impl ToolHost for Recorder {
///     fn progress<'a>(&'a self, done: f64, _total: Option<f64>, _message: Option<&'a str>) -> BoxFuture<'a, ()> {
///         self.0.lock().unwrap().push(done);
///         async {}.boxed()
///     }
/// }
///
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let recorder = Arc::new(Recorder::default());
/// let ctx = ToolContext { host: Host::from(recorder.clone() as Arc<dyn ToolHost>), ..Default::default() };
/// ctx.progress(1.0, Some(2.0), None).await;
/// assert_eq!(*recorder.0.lock().unwrap(), [1.0]);
/// # });
/// ```
pub trait ToolHost: Send + Sync + 'static {
    /// The call has done `done` of `total` (when known), with an optional message.
    fn progress<'a>(&'a self, done: f64, total: Option<f64>, message: Option<&'a str>) -> BoxFuture<'a, ()> {
        trace_progress(done, total, message);
        async {}.boxed()
    }

    /// A log line (a string, or any JSON) at `level`.
    fn log<'a>(&'a self, level: tracing::Level, data: &'a Value) -> BoxFuture<'a, ()> {
        trace_log(level, data);
        async {}.boxed()
    }

    /// Has the client's model answer `request`; its text.
    fn sample(&self, request: Sampling) -> BoxFuture<'_, Result<String, ToolError>> {
        let _ = request;
        async { Err(ToolError::new("sampling is not available here: no MCP client is connected to answer it")) }.boxed()
    }

    /// Asks the user `message`, the answer's form given by `schema` (see
    /// [`ToolContext::elicit`]).
    fn elicit(&self, message: String, schema: Value) -> BoxFuture<'_, Result<Elicited, ToolError>> {
        let _ = schema;
        async move { Err(ToolError::needs_input(vec![message])) }.boxed()
    }
}

/// A tool's [`ToolHost`], shared by clones of one [`ToolContext`]; none by default.
///
/// ```
/// use lucid::tool::{Host, ToolContext, ToolHost};
///
/// /// Every method's default: `tracing`, an error, a question for the user.
/// struct Quiet;
/// impl ToolHost for Quiet {}
///
/// let ctx = ToolContext { host: Host::new(Quiet), ..Default::default() };
/// assert_eq!(format!("{:?}", ctx.host), "Host(..)");
/// ```
#[derive(Clone, Default)]
pub struct Host(Option<Arc<dyn ToolHost>>);

impl std::fmt::Debug for Host {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() { "Host(..)" } else { "Host(none)" })
    }
}

impl From<Arc<dyn ToolHost>> for Host {
    fn from(host: Arc<dyn ToolHost>) -> Self {
        Host(Some(host))
    }
}

impl Host {
    /// A handle on `host`.
    pub fn new(host: impl ToolHost) -> Self {
        Host(Some(Arc::new(host)))
    }
}

/// The host of a context that has none: every method's default.
struct NoHost;

impl ToolHost for NoHost {}

/// What a tool asks the client's model ([`ToolContext::sample`]): one user message, an
/// optional system prompt, a bound on the answer's length.
///
/// ```
/// let request = lucid::tool::Sampling::new("Name a colour.", 20).system("Answer in one word.");
/// assert_eq!(request.max_tokens, 20);
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Sampling {
    /// The user message.
    pub prompt: String,
    /// The system prompt, if any.
    pub system: Option<String>,
    /// The most tokens the answer may take.
    pub max_tokens: u32,
}

impl Sampling {
    /// A prompt whose answer takes at most `max_tokens`.
    pub fn new(prompt: impl Into<String>, max_tokens: u32) -> Self {
        Sampling { prompt: prompt.into(), system: None, max_tokens }
    }

    /// With a system prompt.
    pub fn system(mut self, system: impl Into<String>) -> Self {
        self.system = Some(system.into());
        self
    }
}

/// Progress as a `tracing` event (of the tool's span, in an agent's run).
pub(crate) fn trace_progress(done: f64, total: Option<f64>, message: Option<&str>) {
    tracing::info!(done, total, message, "tool progress");
}

/// A tool's log line as a `tracing` event at its level.
pub(crate) fn trace_log(level: tracing::Level, data: &Value) {
    let text = data.as_str().map_or_else(|| data.to_string(), str::to_string);
    match level {
        tracing::Level::ERROR => tracing::error!(target: "lucid::tool", "{text}"),
        tracing::Level::WARN => tracing::warn!(target: "lucid::tool", "{text}"),
        tracing::Level::INFO => tracing::info!(target: "lucid::tool", "{text}"),
        tracing::Level::DEBUG => tracing::debug!(target: "lucid::tool", "{text}"),
        tracing::Level::TRACE => tracing::trace!(target: "lucid::tool", "{text}"),
    }
}

impl ToolContext {
    fn host(&self) -> &dyn ToolHost {
        self.host.0.as_deref().unwrap_or(&NoHost)
    }

    /// Reports that the call has done `done` of `total` (when known): under `lucid mcp
    /// serve` a `notifications/progress` (when the client's request asked for progress),
    /// in an agent's run a `tracing` event and, streamed, an
    /// [`AgentEvent::ToolProgress`](crate::AgentEvent::ToolProgress).
    ///
    /// ```
    /// use lucid::prelude::*;
    ///
    /// /// Counts to three, slowly.
    /// #[tool]
    /// async fn count(ctx: ToolContext) -> String {
    ///     for i in 1..=3 {
    ///         ctx.progress(f64::from(i), Some(3.0), Some("counting")).await;
    ///     }
    ///     "done".into()
    /// }
    /// ```
    pub async fn progress(&self, done: f64, total: Option<f64>, message: Option<&str>) {
        self.host().progress(done, total, message).await;
    }

    /// Logs `data` (a string, or any JSON) at `level`: under `lucid mcp serve` a
    /// `notifications/message` when the client's `logging/setLevel` asked for that level,
    /// elsewhere a `tracing` event.
    ///
    /// ```
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let ctx = lucid::tool::ToolContext::default();
    /// ctx.log(tracing::Level::INFO, "starting").await;
    /// ctx.log(tracing::Level::DEBUG, serde_json::json!({"rows": 3})).await;
    /// # });
    /// ```
    pub async fn log(&self, level: tracing::Level, data: impl Into<Value>) {
        self.host().log(level, &data.into()).await;
    }

    /// Has the MCP client's model answer `request` (`sampling/createMessage`); its text.
    /// Fails when the client did not declare sampling, and outside `lucid mcp serve`.
    ///
    /// ```
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// use lucid::tool::{Sampling, ToolContext};
    /// let err = ToolContext::default().sample(Sampling::new("Hi", 10)).await.unwrap_err();
    /// assert!(err.message().contains("not available"));
    /// # });
    /// ```
    pub async fn sample(&self, request: Sampling) -> Result<String, ToolError> {
        self.host().sample(request).await
    }

    /// Asks the user `message`, the answer's form given by `schema` (an object of
    /// strings, numbers, integers, booleans and enums, as MCP elicitation takes): under
    /// `lucid mcp serve` an `elicitation/create` to the client (an error when it did not
    /// declare elicitation); in an agent's run its [`Elicitor`](super::Elicitor) (defaults
    /// filled in on accept), or, without one, [`ToolError::needs_input`]: `?` it and the
    /// run stops with the question for the user.
    ///
    /// ```
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let ctx = lucid::tool::ToolContext::default();
    /// let schema = serde_json::json!({"type": "object", "properties": {"city": {"type": "string"}}});
    /// let err = ctx.elicit("Which city?", schema).await.unwrap_err();
    /// assert_eq!(err.questions(), ["Which city?"]);
    /// # });
    /// ```
    pub async fn elicit(&self, message: impl Into<String>, schema: Value) -> Result<Elicited, ToolError> {
        self.host().elicit(message.into(), schema).await
    }
}
