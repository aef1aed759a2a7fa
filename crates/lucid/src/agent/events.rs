//! What a run reports while it goes; its result is in [`crate::outcome`].

use std::time::Duration;

use crate::error::Error;
use crate::outcome::AgentResult;

/// What [`Session::run_stream`](crate::Session::run_stream) yields.
#[derive(Debug)]
#[non_exhaustive]
pub enum AgentEvent {
    /// A model call is starting (1-based).
    Iteration(usize),
    /// A piece of the answer text.
    TextDelta(String),
    /// A piece of reasoning text.
    ReasoningDelta(String),
    /// The model asked for a tool call; it is about to run.
    ToolCallStarted {
        /// Call id.
        id: String,
        /// Tool name.
        name: String,
        /// Arguments as sent by the model.
        arguments: String,
    },
    /// A tool call finished.
    ToolCallFinished {
        /// Call id.
        id: String,
        /// Tool name.
        name: String,
        /// What the model will read.
        output: String,
        /// Whether it failed.
        is_error: bool,
        /// How long it took.
        duration: Duration,
    },
    /// A running tool reported progress ([`ToolContext::progress`]); events of a
    /// streamed run only, between the call's `ToolCallStarted` and `ToolCallFinished`.
    ///
    /// [`ToolContext::progress`]: crate::tool::ToolContext::progress
    ToolProgress {
        /// Call id.
        id: String,
        /// Tool name.
        name: String,
        /// How much is done.
        done: f64,
        /// Out of how much, when known.
        total: Option<f64>,
        /// What the tool says it is doing.
        message: Option<String>,
    },
    /// A model call failed for a reason worth switching for, and went to the next model of
    /// a [`Fallback`](crate::model::Fallback) with the same history; comes before the
    /// events of the model that answers.
    Fallback(crate::model::ModelSwitch),
    /// The run ended; this is the last event.
    Completed(AgentResult),
    /// The run failed; this is the last event. The session's history stays valid.
    Error(Error),
}

impl AgentEvent {
    /// The event, or the run's error as an `Err`, so `?` works on a stream's items.
    ///
    /// ```no_run
    /// # async fn demo(agent: lucid::Agent) -> lucid::Result<()> {
    /// use lucid::prelude::*;
    /// let mut session = agent.session();
    /// let mut events = session.run_stream("Hello");
    /// while let Some(event) = events.next().await {
    ///     if let AgentEvent::TextDelta(t) = event.into_result()? {
    ///         print!("{t}");
    ///     }
    /// }
    /// # Ok(()) }
    /// ```
    pub fn into_result(self) -> crate::error::Result<AgentEvent> {
        match self {
            AgentEvent::Error(e) => Err(e),
            other => Ok(other),
        }
    }
}
