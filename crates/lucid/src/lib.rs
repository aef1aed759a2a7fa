//! # Lucid
//!
//! A lightweight, transparent LLM agent framework.
//!
//! An agent is a loop: send the conversation and the tool specs to a model, run the tool
//! calls it asks for, feed the results back, and stop when it answers without tool calls
//! or hits a limit. Everything in this crate serves that loop:
//!
//! * [`model`] talks to providers. Each provider is an I/O-free codec (exact wire JSON in
//!   and out, tested against recorded real traffic) over one shared HTTP transport with
//!   timeouts, retries that know a rate limit from an exhausted quota, and an optional
//!   JSONL transcript of every exchange ([`model::transcript`]).
//! * [`tool`](mod@tool) turns plain Rust functions into tools with `#[tool]` and `#[tools]`;
//!   arguments are validated against the derived schema before the call, and every
//!   failure (unknown tool, bad JSON, `Err`, panic, timeout) becomes a result the model
//!   reads instead of a crash. [`tool::catalogue`] lists ready-made tools (their crates:
//!   `lucid-tools`, `lucid-sandbox`, `lucid-code`, `lucid-sql`),
//!   [`tool::permission`] says which may run without asking.
//! * [`context`] and [`history`] keep the conversation valid: the system prompt is
//!   pinned, trimming drops whole turns, and a repair pass before every request makes
//!   sure every tool call has exactly one result; [`tokens`] counts what fits.
//! * [`agent`] is the loop: an [`Agent`] (model, prompt, tools, limits) shared by many
//!   [`Session`]s, each running one turn at a time, streamed or not, cancellable.
//! * [`store`] keeps sessions beyond the process (in memory, SQLite, Postgres), one turn
//!   per transaction, with turn locks across processes.
//! * [`memory`] is long-term recall: embeddings, vector indexes, and
//!   [`memory::ConversationMemory`], which summarises old turns and recalls them.
//! * [`structured`] asks for typed answers (`Session::extract::<T>`) in each provider's
//!   native form; the `lucid-orchestrate` crate arranges many turns: workflows, a
//!   planner, teams.
//! * [`redact`] keeps API keys out of logs, transcripts, errors, stored messages, run
//!   results and streamed events.
//! * [`message`] and [`error`] are the shared vocabulary: one message model for every
//!   provider, one error type that says what failed.
//!
//! ```no_run
//! use lucid::prelude::*;
//!
//! /// Adds two integers.
//! #[tool]
//! async fn add(/// first operand
//!              a: i64,
//!              /// second operand
//!              b: i64) -> Result<i64, ToolError> {
//!     Ok(a + b)
//! }
//!
//! # async fn demo() -> lucid::Result<()> {
//! let model = lucid::model::from_env("openai:gpt-4o-mini")?;
//! let agent = Agent::builder(model)
//!     .system("You are a careful assistant.")
//!     .tool(add)
//!     .max_iterations(8)
//!     .build();
//! let mut session = agent.session();
//! let result = session.run("What is 2 + 3?").await?;
//! assert_eq!(result.stop_reason, StopReason::Completed);
//! println!("{}", result.content);
//! # Ok(()) }
//! ```

#![warn(missing_docs)]

extern crate self as lucid;

/// A conversion a builder takes so a caller may pass a value, an `Arc` of one, or an
/// `Arc<dyn Trait>`: the trait `$into` with one method `$method` into `Arc<dyn $target>`.
macro_rules! into_shared {
    ($(#[$doc:meta])* $into:ident :: $method:ident => $target:ident) => {
        $(#[$doc])*
        pub trait $into {
            /// It, shared.
            fn $method(self) -> std::sync::Arc<dyn $target>;
        }

        impl<T: $target> $into for T {
            fn $method(self) -> std::sync::Arc<dyn $target> {
                std::sync::Arc::new(self)
            }
        }

        impl<T: $target> $into for std::sync::Arc<T> {
            fn $method(self) -> std::sync::Arc<dyn $target> {
                self
            }
        }

        impl $into for std::sync::Arc<dyn $target> {
            fn $method(self) -> std::sync::Arc<dyn $target> {
                self
            }
        }
    };
}

pub mod agent;
pub mod approval;
pub mod content;
pub mod context;
pub mod duration_ms;
pub mod error;
pub mod history;
pub mod hooks;
pub mod memory;
pub mod message;
pub mod model;
pub mod outcome;
pub mod redact;
pub mod store;
pub mod structured;
pub mod telemetry;
pub mod tokens;
pub mod tool;

pub use agent::{Agent, AgentBuilder, AgentEvent, AgentResult, Canceller, Session, Spend, StopReason, ToolCallRecord};
pub use content::Part;
pub use error::{Error, ProviderError, ProviderErrorKind, Result};
pub use message::{AssistantMessage, FinishReason, Message, Reasoning, ToolCall, ToolResult, Usage};
pub use tool::{Tool, ToolError, ToolSpec};

/// Turns a function into a tool. The name comes from the function (or
/// `#[tool(name = "...")]`), the description from its doc comment (or
/// `#[tool(description = "...")]`), the argument schema from the parameter types, with
/// parameter doc comments as descriptions; `Option<T>` parameters are not required.
/// A parameter of type [`tool::ToolContext`] receives the call's context instead.
/// `#[tool(idempotent)]` marks a tool that may run again with no further effect
/// ([`Tool::idempotent`]): a call a crash interrupted is then re-run on recovery.
///
/// The function becomes a unit value of the same name implementing [`Tool`]; the original
/// function stays callable as `name::call(..)`.
///
/// ```
/// use lucid::prelude::*;
///
/// /// Greets someone.
/// #[tool(name = "greet")]
/// fn hello(/// who to greet
///          name: String, excited: Option<bool>) -> String {
///     format!("Hello, {name}{}", if excited.unwrap_or(false) { "!" } else { "." })
/// }
///
/// assert_eq!(hello::call("Ada".into(), None), "Hello, Ada.");
/// assert_eq!(hello.spec().name(), "greet");
/// assert_eq!(hello.spec().parameters()["required"], serde_json::json!(["name"]));
/// assert!(!hello.idempotent());
///
/// /// Reads a file.
/// #[tool(idempotent)]
/// fn read(path: String) -> String { path }
/// assert!(read.idempotent());
/// ```
pub use lucid_macros::tool;

/// Turns every `#[tool]` method of an inherent `impl` block into a tool sharing `&self`,
/// and implements [`tool::ToolSet`] for the type. See [`tool`](mod@crate::tool) for an example.
pub use lucid_macros::tools;

/// What most programs need: `use lucid::prelude::*;`.
pub mod prelude {
    pub use crate::agent::hooks::Hook;
    pub use crate::agent::{Agent, AgentEvent, AgentResult, Session, StopReason};
    pub use crate::message::{Message, ToolCall, Usage};
    pub use crate::model::ChatModel;
    pub use crate::tool::{Tool, ToolContext, ToolError, ToolSet, ToolSpec};
    pub use crate::{tool, tools};
    /// `next()` on [`Session::run_stream`]'s events.
    pub use futures::StreamExt;
}

/// The JSON Schema crate the `#[tool]` macros derive argument schemas with (for
/// `#[schemars(..)]` attributes on argument types of your own).
pub use schemars;

#[doc(hidden)]
pub mod __private {
    pub use futures::future::BoxFuture;
    pub use schemars;
    pub use serde;
    pub use serde_json;
}
