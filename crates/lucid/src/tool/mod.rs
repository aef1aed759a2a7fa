//! Tools: plain Rust functions the model can call.
//!
//! A [`Tool`] has a [`ToolSpec`] (name, description, JSON Schema of its arguments) and an
//! `invoke` method. Write one with `#[tool]` on a function or `#[tools]` on an `impl`
//! block; the macros derive everything from the signature and doc comments:
//!
//! ```
//! use lucid::prelude::*;
//!
//! /// Adds two integers.
//! #[tool]
//! async fn add(
//!     /// first operand
//!     a: i64,
//!     /// second operand
//!     b: i64,
//! ) -> Result<i64, ToolError> {
//!     Ok(a + b)
//! }
//!
//! let spec = add.spec();
//! assert_eq!(spec.name(), "add");
//! assert_eq!(spec.description(), "Adds two integers.");
//! assert_eq!(spec.parameters()["properties"]["a"]["description"], "first operand");
//! assert_eq!(spec.parameters()["required"], serde_json::json!(["a", "b"]));
//! ```
//!
//! Methods sharing state, every `#[tool]` method of the block becoming a tool:
//!
//! ```
//! use lucid::prelude::*;
//! use std::sync::atomic::{AtomicU64, Ordering};
//!
//! #[derive(Default)]
//! struct Counter { n: AtomicU64 }
//!
//! #[tools]
//! impl Counter {
//!     /// Adds to the counter and returns the new value.
//!     #[tool]
//!     fn bump(&self, /// how much to add
//!             by: Option<u64>) -> u64 {
//!         self.n.fetch_add(by.unwrap_or(1), Ordering::SeqCst) + by.unwrap_or(1)
//!     }
//! }
//!
//! let tools = std::sync::Arc::new(Counter::default()).tools();
//! assert_eq!(tools[0].spec().name(), "bump");
//! ```
//!
//! Inside the agent loop nothing a tool does can crash the agent: an unknown tool,
//! arguments that are not JSON or do not match the schema, an `Err`, a panic and a timeout
//! each become a tool result marked `is_error` that the model reads and can recover from
//! (see [`ToolRegistry::execute`]).

mod ask;
pub mod catalogue;
mod elicit;
mod host;
pub mod permission;
mod registry;
pub mod validate;

use std::sync::Arc;

use futures::future::BoxFuture;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

pub use ask::{AskUser, Interviewer, answers_json};
pub use elicit::{ElicitFuture, Elicitation, Elicited, Elicitor, fill_defaults};
pub(crate) use host::trace_progress;
pub use host::{Host, Sampling, ToolHost};
pub use registry::run as run_tool;
pub use registry::{InvalidCall, ToolOutcome, ToolRegistry};

/// A tool the model can call.
///
/// Most tools come from `#[tool]`; implement it by hand for tools whose schema is only
/// known at run time (e.g. tools served by another process):
///
/// ```
/// use futures::future::{BoxFuture, FutureExt};
/// use lucid::prelude::*;
/// use serde_json::{Value, json};
///
/// /// Looks a word up in a glossary loaded at start-up.
/// struct Glossary {
///     spec: ToolSpec,
///     entries: std::collections::HashMap<String, String>,
/// }
///
/// impl Glossary {
///     fn new(entries: std::collections::HashMap<String, String>) -> Result<Self, lucid::tool::InvalidToolName> {
///         let words: Vec<&String> = entries.keys().collect();
///         let spec = ToolSpec::new("define", "Defines a term of this project's glossary.", json!({
///             "type": "object",
///             "properties": {"term": {"type": "string", "enum": words}},
///             "required": ["term"],
///         }))?;
///         Ok(Glossary { spec, entries })
///     }
/// }
///
/// impl Tool for Glossary {
///     fn spec(&self) -> &ToolSpec {
///         &self.spec
///     }
///     fn invoke<'a>(&'a self, args: Value, _ctx: ToolContext) -> BoxFuture<'a, Result<String, ToolError>> {
///         // The arguments were validated against the schema: `term` is one of the words.
///         let term = args["term"].as_str().unwrap_or_default();
///         let found = self.entries.get(term).cloned().ok_or_else(|| ToolError::new(format!("no entry for {term}")));
///         async move { found }.boxed()
///     }
/// }
///
/// let glossary = Glossary::new([("turn".to_string(), "A user message and all it caused.".to_string())].into())?;
/// assert_eq!(glossary.spec().name(), "define");
/// # Ok::<(), lucid::tool::InvalidToolName>(())
/// ```
pub trait Tool: Send + Sync + 'static {
    /// Name, description and argument schema.
    fn spec(&self) -> &ToolSpec;
    /// Runs the tool with arguments already validated against the schema.
    /// `Ok` is the output text the model reads; `Err` is reported to it as a failure.
    fn invoke<'a>(&'a self, args: Value, ctx: ToolContext) -> BoxFuture<'a, Result<String, ToolError>>;
    /// Calling it again with the same arguments has no further effect; a call interrupted
    /// by a crash is run again on recovery instead of answered `interrupted` (see
    /// [`Agent::session_with_id`](crate::Agent::session_with_id)). False unless the tool
    /// says so: mark a tool with [`Idempotent`] or `#[tool(idempotent)]`.
    fn idempotent(&self) -> bool {
        false
    }
    /// What a person should read before approving a call with these arguments, beside
    /// the arguments themselves (a migration's rehearsal: what it changes, the data it
    /// loses, the lint): asked by the [permission policy](permission::PermissionPolicy)
    /// only for a call it asks about, and shown by its [`Approver`](permission::Approver)
    /// and in [`PendingCall::review`](crate::approval::PendingCall::review). An error
    /// refuses the call without asking (the model reads it). `Ok(None)` unless the tool
    /// says more.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// use lucid::prelude::*;
    ///
    /// /// Deletes a file.
    /// #[tool]
    /// fn delete(path: String) -> String { path }
    ///
    /// assert_eq!(delete.review(&serde_json::json!({"path": "x"})).await, Ok(None));
    /// # });
    /// ```
    fn review<'a>(&'a self, args: &'a Value) -> BoxFuture<'a, Result<Option<String>, ToolError>> {
        let _ = args;
        Box::pin(async { Ok(None) })
    }
}

/// A tool marked idempotent: calling it again with the same arguments has no further
/// effect, so a call a crash interrupted is run again when the session is recovered
/// (instead of answered "interrupted").
///
/// ```
/// use lucid::prelude::*;
/// use lucid::tool::{Idempotent, ToolRegistry};
///
/// /// Reads a setting.
/// #[tool]
/// fn read_setting(key: String) -> String { format!("{key}=on") }
///
/// let mut tools = ToolRegistry::new();
/// tools.add(Idempotent(read_setting));
/// assert!(tools.is_idempotent("read_setting"));
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct Idempotent<T: Tool>(pub T);

impl<T: Tool> Tool for Idempotent<T> {
    fn spec(&self) -> &ToolSpec {
        self.0.spec()
    }

    fn invoke<'a>(&'a self, args: Value, ctx: ToolContext) -> BoxFuture<'a, Result<String, ToolError>> {
        self.0.invoke(args, ctx)
    }

    fn idempotent(&self) -> bool {
        true
    }

    fn review<'a>(&'a self, args: &'a Value) -> BoxFuture<'a, Result<Option<String>, ToolError>> {
        self.0.review(args)
    }
}

/// A value holding several tools that share state (what `#[tools]` implements).
pub trait ToolSet: Send + Sync + 'static {
    /// The tools, each holding a reference to the shared value.
    fn tools(self: Arc<Self>) -> Vec<Arc<dyn Tool>>;
}

/// What the agent passes to a running tool.
#[derive(Debug, Clone, Default)]
pub struct ToolContext {
    /// The id of the call being answered.
    pub call_id: String,
    /// Cancelled when the run is cancelled "now"; long tools should watch it.
    pub cancel: CancellationToken,
    /// The id of the session the call belongs to, when it has one: a tool that keeps
    /// state (the `python` interpreter) keeps one per session.
    pub session: Option<String>,
    /// Who the session belongs to, when the application says ([`Session::set_owner`]:
    /// `lucid serve` names the tenant): a tool that keeps state per session bounds what one
    /// owner may hold, so one owner's sessions never use up another's.
    ///
    /// [`Session::set_owner`]: crate::Session::set_owner
    pub owner: Option<String>,
    /// Where a tool puts images, documents or audio for the model to see beside its
    /// text output ([`Attachments::attach`]); parts the model cannot take are described
    /// to it instead. Served over MCP (`lucid mcp serve`), they are the result's image,
    /// audio and embedded-resource content (a document's name, when it is a URI, is the
    /// resource's URI).
    pub attachments: Attachments,
    /// What the model of the run takes besides text, when known: a tool can answer with
    /// a part only when the model can see it (`read_file` on an image).
    pub accepts: Option<crate::model::catalogue::Capabilities>,
    /// Whoever runs the call, where [`ToolContext::progress`], [`ToolContext::log`],
    /// [`ToolContext::sample`] and [`ToolContext::elicit`] go (none by default: see
    /// [`ToolHost`]).
    pub host: Host,
}

/// The content parts a tool call attaches to its result (shared by clones of one
/// [`ToolContext`]).
///
/// ```
/// use lucid::{Part, tool::ToolContext};
/// let ctx = ToolContext::default();
/// ctx.attachments.attach(Part::image_bytes("image/png", b"\x89PNG\r\n\x1a\n".to_vec()));
/// assert_eq!(ctx.attachments.take().len(), 1);
/// ```
#[derive(Debug, Clone, Default)]
pub struct Attachments(std::sync::Arc<std::sync::Mutex<Vec<crate::content::Part>>>);

impl Attachments {
    /// Adds a part to the call's result.
    pub fn attach(&self, part: crate::content::Part) {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).push(part);
    }

    /// The parts attached so far, taken out.
    pub fn take(&self) -> Vec<crate::content::Part> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

/// A failure the model should read. Any error type converts through its message.
///
/// ```
/// let e = lucid::ToolError::new("city not found");
/// assert_eq!(e.to_string(), "city not found");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ToolError {
    message: String,
    questions: Vec<String>,
}

impl ToolError {
    /// An error with this message.
    pub fn new(message: impl Into<String>) -> Self {
        ToolError { message: message.into(), questions: Vec::new() }
    }

    /// The tool cannot go on without the user's answers to these questions, and nobody
    /// can ask them now: the run stops with [`StopReason::NeedsInput`](crate::StopReason)
    /// and the questions in [`AgentResult::questions`](crate::AgentResult). The user's
    /// next message (their answers) continues the conversation.
    ///
    /// ```
    /// let e = lucid::ToolError::needs_input(vec!["Which city?".into()]);
    /// assert_eq!(e.questions(), ["Which city?"]);
    /// ```
    pub fn needs_input(questions: Vec<String>) -> Self {
        ToolError { message: "the user must answer first".into(), questions }
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The questions for the user, when the tool needs input ([`ToolError::needs_input`]).
    pub fn questions(&self) -> &[String] {
        &self.questions
    }
}

impl From<String> for ToolError {
    fn from(message: String) -> Self {
        ToolError::new(message)
    }
}

impl From<&str> for ToolError {
    fn from(message: &str) -> Self {
        ToolError::new(message)
    }
}

/// `?` on the standard errors a tool body meets, and on any error boxed as
/// `Box<dyn Error + Send + Sync>`: the model reads the error's message. (A blanket
/// `From<E: Error>` is impossible beside `From<String>`, which `Err("…".into())` needs.)
///
/// ```
/// use lucid::prelude::*;
///
/// /// Reads a number from a file.
/// #[tool]
/// async fn read_number(path: String) -> Result<i64, ToolError> {
///     let text = std::fs::read_to_string(&path)?;
///     Ok(text.trim().parse::<i64>()?)
/// }
/// ```
macro_rules! tool_error_from {
    ($($error:ty),* $(,)?) => {$(
        impl From<$error> for ToolError {
            fn from(e: $error) -> Self {
                ToolError::new(e.to_string())
            }
        }
    )*};
}

tool_error_from!(
    std::io::Error,
    std::fmt::Error,
    std::num::ParseIntError,
    std::num::ParseFloatError,
    std::str::ParseBoolError,
    std::str::Utf8Error,
    std::string::FromUtf8Error,
    serde_json::Error,
    crate::error::Error,
    Box<dyn std::error::Error + Send + Sync>,
);

/// Name, description and argument schema of a tool. The name is checked once, here.
///
/// ```
/// use lucid::ToolSpec;
/// let spec = ToolSpec::new("get_weather", "Weather for a city.",
///     serde_json::json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]})).unwrap();
/// assert_eq!(spec.name(), "get_weather");
/// assert!(ToolSpec::new("get weather!", "", serde_json::json!({})).is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolSpec {
    name: String,
    description: String,
    parameters: Value,
}

/// A tool name no provider would accept.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid tool name `{0}`: use 1 to 64 ASCII letters, digits, `_` or `-`")]
pub struct InvalidToolName(pub String);

impl ToolSpec {
    /// A spec from a name, a description and a JSON Schema (an object schema).
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        parameters: Value,
    ) -> Result<Self, InvalidToolName> {
        let name = name.into();
        let valid = !name.is_empty()
            && name.len() <= 64
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        if !valid {
            return Err(InvalidToolName(name));
        }
        Ok(ToolSpec { name, description: description.into(), parameters })
    }

    /// The spec of a tool whose arguments deserialize into `A` (used by the macros).
    ///
    /// # Panics
    /// When `name` is invalid; the macros check names at compile time.
    pub fn for_args<A: schemars::JsonSchema>(name: &str, description: &str) -> Self {
        let mut schema = schemars::SchemaGenerator::default().into_root_schema_for::<A>().to_value();
        if let Value::Object(map) = &mut schema {
            map.remove("$schema");
            map.remove("title");
            if !map.contains_key("properties") {
                map.insert("properties".into(), Value::Object(Default::default()));
            }
            if map.get("required").is_some_and(|r| r.as_array().is_some_and(Vec::is_empty)) {
                map.remove("required");
            }
        }
        ToolSpec::new(name, description, schema).expect("tool names are checked at compile time")
    }

    /// The name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The description (the function's doc comment).
    pub fn description(&self) -> &str {
        &self.description
    }

    /// The JSON Schema of the arguments.
    pub fn parameters(&self) -> &Value {
        &self.parameters
    }
}

/// Deserializes validated arguments (used by the macros).
pub fn parse_args<A: DeserializeOwned>(args: Value) -> Result<A, ToolError> {
    serde_json::from_value(args).map_err(|e| ToolError::new(format!("invalid arguments: {e}")))
}

/// The text the model reads for a tool's return value: strings as they are, anything
/// else as JSON (used by the macros).
///
/// ```
/// assert_eq!(lucid::tool::output_text(&5).unwrap(), "5");
/// assert_eq!(lucid::tool::output_text(&"sunny").unwrap(), "sunny");
/// ```
pub fn output_text<T: Serialize + ?Sized>(value: &T) -> Result<String, ToolError> {
    match serde_json::to_value(value) {
        Ok(Value::String(s)) => Ok(s),
        Ok(v) => Ok(v.to_string()),
        Err(e) => Err(ToolError::new(format!("the tool's output could not be serialized: {e}"))),
    }
}
