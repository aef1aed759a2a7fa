//! The one message model every provider codec translates to and from.
//!
//! A conversation is a list of [`Message`]s: an optional system prompt, user messages,
//! assistant messages (text, tool calls and optional reasoning) and tool results that
//! answer a call by its id. Codecs map this model to each provider's exact wire format;
//! nothing here knows about any provider.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::content::{Part, joined_text};

/// One message of a conversation.
///
/// ```
/// use lucid::Message;
/// let m = Message::user("What is 2 + 3?");
/// assert_eq!(m.role(), "user");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Message {
    /// The system prompt. The context keeps it pinned at the top.
    System {
        /// The instructions.
        content: String,
    },
    /// What the user said.
    User {
        /// The user's text (with parts: the text parts, joined by newlines).
        content: String,
        /// The whole content in order when it holds more than text (images, documents,
        /// audio); empty for a text-only message, which then serializes as it always did.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        parts: Vec<Part>,
    },
    /// What the model answered: text, tool calls, or both.
    Assistant(AssistantMessage),
    /// The result of one tool call, answering the call with the same id.
    Tool(ToolResult),
}

impl Message {
    /// A system message.
    pub fn system(content: impl Into<String>) -> Self {
        Message::System { content: content.into() }
    }

    /// A user message.
    pub fn user(content: impl Into<String>) -> Self {
        Message::User { content: content.into(), parts: Vec::new() }
    }

    /// A user message of content parts (text, images, documents, audio), in order. Its
    /// [`text`](Self::text) is the text parts joined; parts that are all text make a plain
    /// text message.
    ///
    /// ```
    /// use lucid::{Message, Part};
    /// let m = Message::user_parts(vec![Part::text("Describe it."), Part::image_url("https://example.com/cat.png")]);
    /// assert_eq!((m.text(), m.parts().len()), ("Describe it.", 2));
    /// assert_eq!(Message::user_parts(vec![Part::text("hi")]), Message::user("hi"));
    /// ```
    pub fn user_parts(parts: Vec<Part>) -> Self {
        let content = joined_text(&parts);
        let parts = if parts.iter().all(|p| matches!(p, Part::Text { .. })) { Vec::new() } else { parts };
        Message::User { content, parts }
    }

    /// An assistant message with text only.
    pub fn assistant(content: impl Into<String>) -> Self {
        Message::Assistant(AssistantMessage { content: content.into(), ..Default::default() })
    }

    /// A tool result answering `call_id`.
    ///
    /// ```
    /// use lucid::Message;
    /// let m = Message::tool_result("call_1", "add", "5", false);
    /// assert_eq!(m.role(), "tool");
    /// ```
    pub fn tool_result(
        call_id: impl Into<String>,
        name: impl Into<String>,
        content: impl Into<String>,
        is_error: bool,
    ) -> Self {
        Message::Tool(ToolResult {
            call_id: call_id.into(),
            name: name.into(),
            content: content.into(),
            parts: Vec::new(),
            is_error,
        })
    }

    /// The content parts of a user message or tool result: its `parts`, or its text as one
    /// text part when it has none (no part for an empty text). Other roles: their text.
    pub fn parts(&self) -> Vec<Part> {
        match self {
            Message::User { content, parts } => content_parts(content, parts),
            Message::Tool(t) => content_parts(&t.content, &t.parts),
            other if other.text().is_empty() => Vec::new(),
            other => vec![Part::text(other.text())],
        }
    }

    /// The non-text parts (images, documents, audio) of a user message or tool result.
    pub fn attachments(&self) -> impl Iterator<Item = &Part> {
        let parts: &[Part] = match self {
            Message::User { parts, .. } => parts,
            Message::Tool(t) => &t.parts,
            _ => &[],
        };
        parts.iter().filter(|p| !matches!(p, Part::Text { .. }))
    }

    /// The wire role name: `system`, `user`, `assistant` or `tool`.
    pub fn role(&self) -> &'static str {
        match self {
            Message::System { .. } => "system",
            Message::User { .. } => "user",
            Message::Assistant(_) => "assistant",
            Message::Tool(_) => "tool",
        }
    }

    /// The text of the message (the answer text for assistants, the output for tools).
    pub fn text(&self) -> &str {
        match self {
            Message::System { content } | Message::User { content, .. } => content,
            Message::Assistant(a) => &a.content,
            Message::Tool(t) => &t.content,
        }
    }
}

/// An assistant message.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AssistantMessage {
    /// Visible answer text (may be empty when the model only called tools).
    #[serde(default)]
    pub content: String,
    /// Tool calls, in the order the model made them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// Reasoning the provider returned (DeepSeek/GLM `reasoning_content`, Ollama `reasoning`,
    /// Anthropic thinking). Kept so it can be sent back where the provider requires it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<Reasoning>,
}

impl AssistantMessage {
    /// An answer of text only.
    ///
    /// ```
    /// use lucid::message::AssistantMessage;
    /// let a = AssistantMessage::text("Done.");
    /// assert_eq!((a.content.as_str(), a.tool_calls.len()), ("Done.", 0));
    /// ```
    pub fn text(content: impl Into<String>) -> Self {
        AssistantMessage { content: content.into(), ..Default::default() }
    }

    /// An answer that only calls tools, in this order.
    ///
    /// ```
    /// use lucid::message::AssistantMessage;
    /// use lucid::ToolCall;
    /// let a = AssistantMessage::calling([ToolCall::new("call_1", "add", serde_json::json!({"a": 1, "b": 2}))]);
    /// assert_eq!((a.content.as_str(), a.tool_calls[0].name.as_str()), ("", "add"));
    /// ```
    pub fn calling(tool_calls: impl IntoIterator<Item = ToolCall>) -> Self {
        AssistantMessage { tool_calls: tool_calls.into_iter().collect(), ..Default::default() }
    }

    /// True when the message carries neither text nor tool calls.
    pub fn is_empty(&self) -> bool {
        self.content.is_empty() && self.tool_calls.is_empty()
    }
}

/// Reasoning ("thinking") text and what the provider requires back with it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Reasoning {
    /// The reasoning text, for display (all thinking of the message, concatenated).
    pub text: String,
    /// An opaque signature to echo back unchanged (Gemini's signature of a text part).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
    /// The provider's reasoning blocks exactly as received (Anthropic `thinking` blocks
    /// with their signatures, `redacted_thinking` blocks), sent back verbatim to the same
    /// provider on the next request.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub blocks: Vec<Value>,
}

/// A tool call the model asked for.
///
/// `arguments` holds the arguments exactly as the model sent them (a JSON text), so the
/// assistant message is sent back byte for byte; [`ToolCall::parse_arguments`] parses it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The provider's call id, or one Lucid minted when the provider sent none.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments as JSON text, as received.
    pub arguments: String,
    /// Opaque provider data that must travel back with the call (Gemini's thought signature).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
}

impl ToolCall {
    /// A call with the given id, name and JSON arguments.
    ///
    /// ```
    /// use lucid::ToolCall;
    /// let c = ToolCall::new("call_1", "add", serde_json::json!({"a": 2, "b": 3}));
    /// assert_eq!(c.parse_arguments().unwrap()["a"], 2);
    /// ```
    pub fn new(id: impl Into<String>, name: impl Into<String>, arguments: Value) -> Self {
        ToolCall { id: id.into(), name: name.into(), arguments: arguments.to_string(), signature: None }
    }

    /// Parses the arguments. An empty or blank string means `{}` (providers send it for
    /// tools without parameters).
    pub fn parse_arguments(&self) -> Result<Value, serde_json::Error> {
        if self.arguments.trim().is_empty() {
            return Ok(Value::Object(Default::default()));
        }
        serde_json::from_str(&self.arguments)
    }
}

/// The result of one tool call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolResult {
    /// The id of the call this answers.
    pub call_id: String,
    /// The tool's name (Gemini needs it on the wire).
    pub name: String,
    /// The output text the model reads (with parts: the text parts, joined by newlines).
    pub content: String,
    /// The whole output in order when it holds more than text (an image a tool returned);
    /// empty for a text-only result.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<Part>,
    /// True when the call failed (unknown tool, bad arguments, error, panic, timeout).
    #[serde(default)]
    pub is_error: bool,
}

impl ToolResult {
    /// A result of content parts (text and images, documents, audio) answering `call_id`.
    ///
    /// ```
    /// use lucid::{Part, ToolResult};
    /// let r = ToolResult::with_parts("call_1", "screenshot", vec![Part::text("done"), Part::image_bytes("image/png", vec![0u8; 4])]);
    /// assert_eq!((r.content.as_str(), r.parts.len()), ("done", 2));
    /// ```
    pub fn with_parts(call_id: impl Into<String>, name: impl Into<String>, parts: Vec<Part>) -> Self {
        let content = joined_text(&parts);
        let parts = if parts.iter().all(|p| matches!(p, Part::Text { .. })) { Vec::new() } else { parts };
        ToolResult { call_id: call_id.into(), name: name.into(), content, parts, is_error: false }
    }
}

/// The parts to send for a text and its (possibly empty) parts.
pub(crate) fn content_parts(content: &str, parts: &[Part]) -> Vec<Part> {
    if !parts.is_empty() {
        parts.to_vec()
    } else if content.is_empty() {
        Vec::new()
    } else {
        vec![Part::text(content)]
    }
}

/// Token usage of one model call, or summed over several.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Every prompt token of the call, cached ones included, for every provider (OpenAI
    /// `prompt_tokens`; Anthropic `input_tokens + cache_read_input_tokens +
    /// cache_creation_input_tokens`). Token calibration and the memory's triggers read it.
    pub input_tokens: u64,
    /// Generated tokens, reasoning included (OpenAI `completion_tokens`).
    pub output_tokens: u64,
    /// Reasoning tokens, a part of `output_tokens`.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub reasoning_tokens: u64,
    /// Prompt tokens served from the provider's cache, a part of `input_tokens` (OpenAI
    /// `cached_tokens`, Gemini `cachedContentTokenCount`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cached_input_tokens: u64,
    /// Anthropic: prompt tokens read from the cache, a part of `input_tokens`.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cache_read_input_tokens: u64,
    /// Anthropic: prompt tokens written to the cache, a part of `input_tokens`.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cache_creation_input_tokens: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl std::ops::AddAssign for Usage {
    fn add_assign(&mut self, o: Usage) {
        self.input_tokens += o.input_tokens;
        self.output_tokens += o.output_tokens;
        self.reasoning_tokens += o.reasoning_tokens;
        self.cached_input_tokens += o.cached_input_tokens;
        self.cache_read_input_tokens += o.cache_read_input_tokens;
        self.cache_creation_input_tokens += o.cache_creation_input_tokens;
    }
}

/// Why the model stopped generating, normalized across providers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum FinishReason {
    /// A natural end of the answer or a stop sequence.
    Stop,
    /// The model wants tool calls executed.
    ToolCalls,
    /// The output was cut by `max_tokens` or the context window.
    Length,
    /// A safety or content filter stopped it.
    ContentFilter,
    /// The provider reported an error.
    Error,
    /// Anything else.
    Other,
}

impl FinishReason {
    /// Maps an OpenAI-shaped `finish_reason` value.
    ///
    /// ```
    /// use lucid::FinishReason;
    /// assert_eq!(FinishReason::from_openai("tool_calls"), FinishReason::ToolCalls);
    /// assert_eq!(FinishReason::from_openai("sensitive"), FinishReason::ContentFilter);
    /// ```
    pub fn from_openai(raw: &str) -> Self {
        match raw {
            "stop" => FinishReason::Stop,
            "tool_calls" | "function_call" => FinishReason::ToolCalls,
            "length" => FinishReason::Length,
            "content_filter" | "sensitive" => FinishReason::ContentFilter,
            _ => FinishReason::Other,
        }
    }

    /// The snake_case name (`stop`, `tool_calls`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            FinishReason::Stop => "stop",
            FinishReason::ToolCalls => "tool_calls",
            FinishReason::Length => "length",
            FinishReason::ContentFilter => "content_filter",
            FinishReason::Error => "error",
            FinishReason::Other => "other",
        }
    }
}

/// The prefix of call ids Lucid minted itself.
pub const MINTED_PREFIX: &str = "call_lucid_";

/// Mints a call id for providers that send none (Gemini, Google's OpenAI endpoint).
///
/// ```
/// use lucid::message::{is_minted, mint_call_id};
/// let id = mint_call_id();
/// assert!(id.starts_with("call_") && is_minted(&id));
/// assert!(!is_minted("call_NS4iQj14cDFwc0BnrKqDHavt"));
/// ```
pub fn mint_call_id() -> String {
    format!("{MINTED_PREFIX}{:016x}", fastrand::u64(..))
}

/// Whether Lucid minted this id (so it must not be sent to a provider as the provider's).
pub fn is_minted(id: &str) -> bool {
    id.starts_with(MINTED_PREFIX)
}
