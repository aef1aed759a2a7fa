//! What a run reports while it goes; its result is in [`super::result`].

use std::time::Duration;

use super::result::AgentResult;
use crate::error::Error;

/// What [`Session::run_stream`](crate::Session::run_stream) yields.
#[derive(Debug)]
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
    /// The run ended; this is the last event.
    Completed(AgentResult),
    /// The run failed; this is the last event. The session's history stays valid.
    Error(Error),
}
