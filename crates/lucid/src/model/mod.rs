//! Talking to models: the [`ChatModel`] trait, requests, responses and stream events.
//!
//! Each provider is an I/O-free codec (request → JSON, JSON → response, SSE events →
//! [`StreamEvent`]s) plus the one shared [`http`] transport. This module holds the types
//! they share; it does not hold the agent loop (see [`crate::agent`]). With the `test-kit`
//! feature, [`test_kit`] runs the conformance suite of a [`ChatModel`] or [`Codec`] written
//! outside this crate.
//!
//! A client is made from a provider's record, [`Preset::client`] ([`ModelBuilder`]), or by
//! a client's own constructor; those take their arguments in one order: the base URL first
//! where the provider has no default one, then the key, then the model
//! (`OpenAiCompatible::new(base_url, key, model)`, `Anthropic::new(key, model)`).

pub mod anthropic;
mod builder;
pub mod catalogue;
pub mod client;
pub(crate) mod error;
pub mod fallback;
pub mod gemini;
pub mod http;
pub mod openai;
pub mod openai_responses;
pub mod presets;
pub mod prices;
pub mod probe;
pub mod provider;
pub mod retry;
mod scripted;
pub mod sse;
pub mod stream;
#[cfg(feature = "test-kit")]
pub mod test_kit;
pub mod transcript;
mod wire_parts;

use std::time::Duration;

use futures::future::BoxFuture;
use futures::stream::BoxStream;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::message::{AssistantMessage, FinishReason, Message, Usage};
use crate::tool::ToolSpec;

pub use anthropic::Anthropic;
pub use builder::ModelBuilder;
pub use client::{Codec, HttpModel};
pub use error::{ModelError, ProviderError, ProviderErrorKind, Result};
pub use fallback::{Fallback, ModelSwitch};
pub use gemini::Gemini;
pub use openai::OpenAiCompatible;
pub use openai_responses::OpenAiResponses;
pub use presets::{Api, Preset, Protocol};
pub use provider::Provider;
pub use scripted::{ScriptedModel, SeenRequest};

/// A stream of [`StreamEvent`]s; the last item is [`StreamEvent::Done`] or an error.
pub type EventStream<'a> = BoxStream<'a, Result<StreamEvent>>;

/// A chat model: one request in, one assistant message out, streamed or not.
///
/// Implementations are shared by many sessions at once, so they take `&self`.
///
/// ```no_run
/// # async fn demo() -> lucid::Result<()> {
/// use lucid::model::{ChatModel, ChatOptions, ChatRequest};
/// let model = lucid::model::from_env("openai:gpt-4o-mini")?;
/// let messages = [lucid::Message::user("Say hi")];
/// let options = ChatOptions::default();
/// let answer = model.chat(ChatRequest::new(&messages, &[], &options)).await?;
/// println!("{}", answer.message.content);
/// # Ok(()) }
/// ```
pub trait ChatModel: Send + Sync + 'static {
    /// The provider's name, as used in errors and logs (`openai`, `deepseek`, …).
    fn provider(&self) -> &str;
    /// The provider's record, when the client was made from one ([`Provider::client`]):
    /// what its provider accepts, its quota codes, its telemetry and catalogue names.
    /// `None` (the default) for a client of its own kind; Lucid then knows the provider
    /// by [`provider`](ChatModel::provider) alone.
    ///
    /// ```
    /// use lucid::model::{ChatModel, Provider};
    /// let glm = Provider::find("zhipu").unwrap().client().key("k").build()?;
    /// assert_eq!(glm.record().map(|r| r.telemetry_name.as_str()), Some("zhipu"));
    /// # Ok::<(), lucid::Error>(())
    /// ```
    fn record(&self) -> Option<&Provider> {
        None
    }
    /// The name its models go by in the [catalogue] and the
    /// [price table](prices): its record's, else its provider's name.
    fn catalogue_name(&self) -> &str {
        self.record().map_or_else(|| self.provider(), |r| r.catalogue.as_str())
    }
    /// The default model name requests use when [`ChatOptions::model`] is unset.
    fn model_name(&self) -> &str;
    /// One non-streaming call.
    fn chat<'a>(&'a self, request: ChatRequest<'a>) -> BoxFuture<'a, Result<ChatResponse>>;
    /// One streaming call. Errors before the first byte of the answer (a 4xx, a refused
    /// connection) come from the future; errors after it come through the stream.
    fn chat_stream<'a>(&'a self, request: ChatRequest<'a>) -> BoxFuture<'a, Result<EventStream<'a>>>;
    /// Whether one call may carry tools and a JSON schema for the answer and still call
    /// the tools (OpenAI, Anthropic). When not (the default: servers that enforce the
    /// schema with a grammar, like llama.cpp, would force the answer at once), a structured
    /// run with tools calls them without the schema and asks for the answer in a last call
    /// without tools.
    fn format_with_tools(&self) -> bool {
        false
    }
    /// What content parts the model takes besides text, when known (the catalogue's row,
    /// or what the client was told); `None` when unknown.
    fn capabilities(&self) -> Option<catalogue::Capabilities> {
        None
    }
}

into_shared! {
    /// Anything [`Agent::builder`](crate::Agent::builder) (and the other places that take a
    /// model) accepts: a client by value, or one already shared as an `Arc`.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use lucid::model::{ChatModel, IntoChatModel, OpenAiCompatible};
    /// let client = OpenAiCompatible::new("http://127.0.0.1:8080/v1", None, "local")?;
    /// let shared: Arc<dyn ChatModel> = client.clone().into_chat_model();
    /// let agent = lucid::Agent::builder(client).build();                 // by value
    /// let other = lucid::Agent::builder(Arc::clone(&shared)).build();     // shared
    /// assert_eq!(agent.model().model_name(), other.model().model_name());
    /// # Ok::<(), lucid::Error>(())
    /// ```
    IntoChatModel::into_chat_model => ChatModel
}

/// What one model call sends: borrowed, so a request costs no copy of the history.
#[derive(Debug, Clone, Copy)]
pub struct ChatRequest<'a> {
    /// The conversation, system prompt first.
    pub messages: &'a [Message],
    /// The tools the model may call.
    pub tools: &'a [ToolSpec],
    /// Sampling and provider options.
    pub options: &'a ChatOptions,
}

impl<'a> ChatRequest<'a> {
    /// A request over borrowed messages, tools and options.
    pub fn new(messages: &'a [Message], tools: &'a [ToolSpec], options: &'a ChatOptions) -> Self {
        ChatRequest { messages, tools, options }
    }
}

/// Options of a model call. Unset fields are not sent, so the provider's defaults apply.
///
/// ```
/// use lucid::model::{ChatOptions, ToolChoice};
/// let o = ChatOptions { temperature: Some(0.2), tool_choice: Some(ToolChoice::Required), ..Default::default() };
/// assert_eq!(o.max_tokens, None);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ChatOptions {
    /// Overrides the model's default name.
    pub model: Option<String>,
    /// Sampling temperature.
    pub temperature: Option<f64>,
    /// Nucleus sampling.
    pub top_p: Option<f64>,
    /// Upper bound on generated tokens.
    pub max_tokens: Option<u32>,
    /// Whether and which tool the model must call.
    pub tool_choice: Option<ToolChoice>,
    /// Whether the model may call several tools in one turn.
    pub parallel_tool_calls: Option<bool>,
    /// Stop sequences.
    #[serde(default)]
    pub stop: Vec<String>,
    /// Sampling seed.
    pub seed: Option<i64>,
    /// Text, JSON object or JSON-Schema-constrained output.
    pub response_format: Option<ResponseFormat>,
    /// How hard a reasoning model thinks (`none`, `minimal`, `low`, `medium`, `high`,
    /// `xhigh`): `reasoning.effort` in the Responses API, `reasoning_effort` in Chat
    /// Completions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_effort: Option<String>,
    /// Responses API: the reasoning summary asked for (`auto`, `concise`, `detailed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_summary: Option<String>,
    /// Provider-specific fields merged into the request body's top level as given
    /// (e.g. `{"thinking": {"type": "enabled"}}` for GLM).
    pub extra: Option<serde_json::Map<String, Value>>,
}

/// Tool choice, mapped to each provider's form.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ToolChoice {
    /// The model decides.
    Auto,
    /// No tool calls.
    None,
    /// At least one tool call.
    Required,
    /// This tool must be called.
    Tool(String),
}

/// The shape of the answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ResponseFormat {
    /// Free text.
    Text,
    /// Any JSON object.
    JsonObject,
    /// JSON matching a schema.
    JsonSchema {
        /// A name for the schema (OpenAI requires one).
        name: String,
        /// The JSON Schema.
        schema: Value,
        /// Whether the provider must enforce it strictly.
        strict: bool,
    },
}

/// One complete model answer.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChatResponse {
    /// The assistant message: text, tool calls (ids minted where the provider sent none),
    /// reasoning.
    pub message: AssistantMessage,
    /// Normalized finish reason; a `stop` with tool calls is reported as `tool_calls`.
    pub finish_reason: Option<FinishReason>,
    /// The provider's finish reason as sent.
    pub raw_finish_reason: Option<String>,
    /// Usage from the provider's final report, when it sent one.
    pub usage: Option<Usage>,
    /// The model that answered, as the provider named it.
    pub model: Option<String>,
    /// Ids of tool calls the provider itself marked incomplete (a Responses
    /// `function_call` item cut by `max_output_tokens`); they must not be executed.
    pub incomplete_call_ids: Vec<String>,
    /// The switches to backup models made before this answer ([`Fallback`]); empty when
    /// the first model answered. The last one's `to` is the model that answered.
    pub fallbacks: Vec<ModelSwitch>,
}

impl ChatResponse {
    /// Tool calls cut off by the output limit: arguments that are not valid JSON after a
    /// `finish_reason: length`, or calls the provider marked incomplete. They must not be
    /// executed.
    ///
    /// ```
    /// use lucid::model::ChatResponse;
    /// use lucid::message::AssistantMessage;
    /// let r = ChatResponse {
    ///     message: AssistantMessage { tool_calls: vec![lucid::ToolCall::new("c1", "f", serde_json::json!({}))], ..Default::default() },
    ///     incomplete_call_ids: vec!["c1".into()],
    ///     ..Default::default()
    /// };
    /// assert_eq!(r.incomplete_tool_calls().count(), 1);
    /// ```
    pub fn incomplete_tool_calls(&self) -> impl Iterator<Item = &crate::ToolCall> {
        let cut = self.finish_reason == Some(FinishReason::Length);
        self.message
            .tool_calls
            .iter()
            .filter(move |c| (cut && c.parse_arguments().is_err()) || self.incomplete_call_ids.contains(&c.id))
    }
}

/// One event of a streamed answer.
// `Done` is large, but it comes once per stream and is moved out at once; boxing it would
// cost every caller a pattern change for nothing measurable.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum StreamEvent {
    /// A piece of answer text.
    TextDelta(String),
    /// A piece of reasoning text.
    ReasoningDelta(String),
    /// A tool call began (its position among this answer's calls, id and name).
    ToolCallStarted {
        /// Position among this answer's calls.
        index: usize,
        /// Call id (minted if the provider sent none).
        id: String,
        /// Tool name.
        name: String,
    },
    /// A fragment of a tool call's arguments.
    ToolCallDelta {
        /// Position among this answer's calls.
        index: usize,
        /// The fragment.
        arguments: String,
    },
    /// The complete answer, assembled from everything streamed.
    Done(ChatResponse),
    /// A model failed before its first event and the call went to the next model in line
    /// ([`Fallback`]); comes before any event of the model that answers.
    Fallback(ModelSwitch),
}

/// Builds a model from a `provider:model` string, reading the key from the provider's
/// environment variable (e.g. `OPENAI_API_KEY`). Local servers (`ollama`, `vllm`,
/// `llamacpp`) need no key.
///
/// ```no_run
/// let model = lucid::model::from_env("deepseek:deepseek-chat").unwrap();
/// assert_eq!(model.provider(), "deepseek");
/// # use lucid::model::ChatModel;
/// ```
pub fn from_env(spec: &str) -> Result<std::sync::Arc<dyn ChatModel>> {
    let (provider, model) = spec.split_once(':').unwrap_or((spec, ""));
    let preset = Preset::find(provider).ok_or_else(|| {
        ModelError::Config(format!(
            "unknown provider `{provider}`; known providers: {}",
            Preset::all().iter().map(|p| p.name.as_str()).collect::<Vec<_>>().join(", ")
        ))
    })?;
    let key = match preset.key_vars.as_slice() {
        [] => None,
        vars => Some(preset.key_from_env().ok_or_else(|| {
            ModelError::Config(format!("no API key for {provider}: set the environment variable {}", vars.join(" or ")))
        })?),
    };
    let model = if model.is_empty() { preset.default_model.as_str() } else { model };
    preset.client().api_key(key).model(model).build()
}

/// Default time allowed to open a connection.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// Default time allowed for one whole request (a long streamed answer included).
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(600);
