//! The OpenAI Chat Completions codec and the client for every compatible server.
//!
//! [`encode`], [`decode`], [`decode_error`] and [`OpenAiStreamDecoder`] are pure
//! translations with no I/O, tested against recorded real traffic; [`OpenAiCompatible`]
//! joins them to the shared [`HttpTransport`](crate::model::http::HttpTransport). Vendor
//! differences are data: see
//! [`super::presets`].

use std::sync::Arc;

use serde_json::{Map, Value, json};

use crate::content::Part;
use crate::message::Message;
use crate::model::ProviderError;
use crate::model::client::{Codec, HttpModel};
use crate::model::error::{ModelError, Result};
use crate::model::http::bearer_headers;
use crate::model::presets::Api;
use crate::model::provider::{ContentPolicy, Provider, Quirks, QuotaRule, ReasoningEcho};
use crate::model::{ChatRequest, ChatResponse, wire_parts};

mod decode;
pub(crate) mod options;

pub use crate::model::wire_parts::decode_chat_part as decode_content_part;
pub use decode::{OpenAiStreamDecoder, decode, decode_error};
pub(crate) use decode::{decode_error_with, error_from_value};

/// Encodes a request as the Chat Completions JSON body.
///
/// ```
/// use lucid::model::{ChatOptions, ChatRequest, openai, presets::Quirks};
/// let msgs = [lucid::Message::system("Be brief."), lucid::Message::user("Hi")];
/// let opts = ChatOptions::default();
/// let body = openai::encode(&ChatRequest::new(&msgs, &[], &opts), "gpt-4o-mini", &Quirks::OPENAI, false);
/// assert_eq!(body["messages"][1], serde_json::json!({"role": "user", "content": "Hi"}));
/// ```
pub fn encode(req: &ChatRequest<'_>, model: &str, quirks: &Quirks, stream: bool) -> Value {
    let o = req.options;
    let mut body = Map::new();
    body.insert("model".into(), Value::String(o.model.as_deref().unwrap_or(model).to_string()));
    let last_user = req.messages.iter().rposition(|m| matches!(m, Message::User { .. }));
    let mut messages = Vec::with_capacity(req.messages.len());
    // Chat Completions carries only text in a tool message: the images, documents and
    // audio of a run of tool results follow it in one user message, as OpenAI documents.
    let mut pending: Vec<Value> = Vec::new();
    for (i, m) in req.messages.iter().enumerate() {
        if !matches!(m, Message::Tool(_)) && !pending.is_empty() {
            messages.push(json!({"role": "user", "content": std::mem::take(&mut pending)}));
        }
        if let Message::Tool(r) = m
            && !r.parts.is_empty()
        {
            let attached: Vec<Value> =
                r.parts.iter().filter(|p| !matches!(p, Part::Text { .. })).map(wire_parts::chat_part).collect();
            if !attached.is_empty() {
                pending.push(json!({"type": "text", "text": format!("Attachments of tool call {}:", r.call_id)}));
                pending.extend(attached);
            }
        }
        messages.push(encode_message(m, quirks, last_user.is_none_or(|u| i > u)));
    }
    if !pending.is_empty() {
        messages.push(json!({"role": "user", "content": pending}));
    }
    body.insert("messages".into(), Value::Array(messages));
    options::insert_tools(&mut body, req, Api::Chat);
    options::insert_sampling(&mut body, o, quirks.max_tokens_field);
    if !o.stop.is_empty() {
        body.insert("stop".into(), json!(o.stop));
    }
    if let Some(s) = o.seed {
        body.insert("seed".into(), json!(s));
    }
    if let Some(e) = &o.reasoning_effort {
        body.insert("reasoning_effort".into(), json!(e));
    }
    if let Some(f) = &o.response_format {
        body.insert("response_format".into(), options::response_format(f, Api::Chat));
    }
    if stream {
        body.insert("stream".into(), Value::Bool(true));
        if quirks.stream_usage {
            body.insert("stream_options".into(), json!({"include_usage": true}));
        }
    }
    options::insert_extra(&mut body, o);
    Value::Object(body)
}

fn encode_message(m: &Message, quirks: &Quirks, current_turn: bool) -> Value {
    match m {
        Message::System { content } => json!({"role": "system", "content": content}),
        Message::User { content, parts } if parts.is_empty() => json!({"role": "user", "content": content}),
        Message::User { parts, .. } => {
            json!({"role": "user", "content": parts.iter().map(wire_parts::chat_part).collect::<Vec<_>>()})
        }
        Message::Tool(r) => {
            json!({"role": "tool", "tool_call_id": r.call_id, "content": wire_parts::tool_text_with_notes(&r.content, &r.parts)})
        }
        Message::Assistant(a) => {
            let mut obj = Map::new();
            obj.insert("role".into(), json!("assistant"));
            if a.tool_calls.is_empty() || !a.content.is_empty() {
                obj.insert("content".into(), Value::String(a.content.clone()));
            } else {
                match quirks.content_policy {
                    ContentPolicy::Omit => {}
                    ContentPolicy::Null => {
                        obj.insert("content".into(), Value::Null);
                    }
                    ContentPolicy::Empty => {
                        obj.insert("content".into(), json!(""));
                    }
                    ContentPolicy::Placeholder(text) => {
                        obj.insert("content".into(), json!(text));
                    }
                }
            }
            if let (ReasoningEcho::CurrentTurn(field), Some(r), true) =
                (quirks.reasoning_echo, &a.reasoning, current_turn)
                && !r.text.is_empty()
            {
                obj.insert(field.into(), json!(r.text));
            }
            if !a.tool_calls.is_empty() {
                let calls = a
                    .tool_calls
                    .iter()
                    .map(|c| {
                        let mut call = json!({"id": c.id, "type": "function",
                            "function": {"name": c.name, "arguments": c.arguments}});
                        if let Some(sig) = &c.signature {
                            call["extra_content"] = json!({"google": {"thought_signature": sig}});
                        }
                        call
                    })
                    .collect();
                obj.insert("tool_calls".into(), Value::Array(calls));
            }
            Value::Object(obj)
        }
    }
}

pub use crate::model::provider::TOOL_CALL_PLACEHOLDER;

/// The Chat Completions codec of a provider's record: its quirks, its quota rules and what
/// it is resent when it refuses the `content` beside tool calls.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct OpenAiCodec {
    /// What the server accepts differently from OpenAI (the record's, unless replaced).
    pub quirks: Quirks,
    record: Arc<Provider>,
}

impl OpenAiCodec {
    /// A codec with these quirks and OpenAI's quota codes only, for a server known by its
    /// URL ([`Provider::compatible`]).
    ///
    /// ```
    /// use lucid::model::{openai::OpenAiCodec, presets::Quirks};
    /// assert!(OpenAiCodec::new(Quirks::COMPATIBLE).quota().is_empty());
    /// ```
    pub fn new(quirks: Quirks) -> Self {
        OpenAiCodec { quirks, record: Arc::new(Provider::compatible()) }
    }

    /// The codec of a provider's record: its quirks and its quota rules.
    pub fn for_preset(preset: &Provider) -> Self {
        OpenAiCodec::for_record(Arc::new(preset.clone()))
    }

    /// The codec of a provider's record, shared with its client.
    pub fn for_record(record: Arc<Provider>) -> Self {
        OpenAiCodec { quirks: record.quirks, record }
    }

    /// The provider's own errors meaning its money or quota ran out, beside OpenAI's
    /// codes (which every compatible server may forward).
    pub fn quota(&self) -> &[QuotaRule] {
        &self.record.quota
    }

    /// The record it encodes for.
    pub fn record(&self) -> &Arc<Provider> {
        &self.record
    }
}

impl Codec for OpenAiCodec {
    type Stream = OpenAiStreamDecoder;

    fn format_with_tools(&self) -> bool {
        self.quirks.format_with_tools
    }

    fn url(&self, base_url: &str, _model: &str, _stream: bool) -> String {
        format!("{base_url}/chat/completions")
    }

    fn encode(&self, request: &ChatRequest<'_>, model: &str, stream: bool) -> Value {
        encode(request, model, &self.quirks, stream)
    }

    fn encode_fallback(&self, request: &ChatRequest<'_>, model: &str, stream: bool, step: u8) -> Option<Value> {
        let policy = *self
            .record
            .content_retry
            .forms
            .iter()
            .filter(|p| **p != self.quirks.content_policy)
            .nth(usize::from(step).checked_sub(1)?)?;
        Some(encode(request, model, &Quirks { content_policy: policy, ..self.quirks }, stream))
    }

    fn wants_fallback(&self, request: &ChatRequest<'_>, error: &ModelError) -> bool {
        let codes = &self.record.content_retry.codes;
        let refused = matches!(error, ModelError::Provider(p)
            if p.status == Some(400) && p.code.as_deref().is_some_and(|c| codes.iter().any(|r| r == c)));
        refused
            && request
                .messages
                .iter()
                .any(|m| matches!(m, Message::Assistant(a) if a.content.is_empty() && !a.tool_calls.is_empty()))
    }

    fn decode(&self, provider: &str, body: &[u8]) -> Result<ChatResponse> {
        decode::decode_with(provider, body, self.quota())
    }

    fn decode_error(&self, provider: &str, status: u16, body: &[u8]) -> ProviderError {
        decode_error_with(provider, status, body, self.quota())
    }

    fn stream_decoder(&self, provider: &str) -> OpenAiStreamDecoder {
        OpenAiStreamDecoder::with_record(provider, Arc::clone(&self.record))
    }
}

/// A client for OpenAI and every Chat-Completions-compatible server.
///
/// ```no_run
/// use lucid::model::{OpenAiCompatible, Preset};
/// // A preset: default base URL and quirks of the vendor.
/// let glm = OpenAiCompatible::from_preset(Preset::find("zhipu").unwrap(), "glm-4.6", Some("key".into())).unwrap();
/// // Or any server by URL (the path ends where the vendor's SDK puts it; `/chat/completions` is appended).
/// let local = OpenAiCompatible::new("http://127.0.0.1:8000/v1", None, "Qwen/Qwen3-8B").unwrap();
/// # let _ = (glm, local);
/// ```
pub type OpenAiCompatible = HttpModel<OpenAiCodec>;

/// A client for any OpenAI-protocol server at `base_url` with a bearer key (Chat
/// Completions or Responses), known as `openai`.
pub(crate) fn client_at<C: Codec>(
    base_url: &str,
    api_key: Option<String>,
    model: &str,
    codec: C,
) -> Result<HttpModel<C>> {
    HttpModel::with_codec("openai", base_url, model, bearer_headers(api_key.as_deref(), &[])?, codec)
}

/// A client for an OpenAI-protocol record's default base URL with a bearer key (Chat
/// Completions or Responses): the codec made from the record shares it with the client.
pub(crate) fn client_for_record<C: Codec>(
    record: &Provider,
    model: &str,
    api_key: Option<String>,
    codec: impl FnOnce(Arc<Provider>) -> C,
) -> Result<HttpModel<C>> {
    let record = Arc::new(record.clone());
    let headers = bearer_headers(api_key.as_deref(), &[])?;
    let codec = codec(Arc::clone(&record));
    Ok(HttpModel::with_codec(&record.name, &record.base_url, model, headers, codec)?.with_record(record))
}

impl HttpModel<OpenAiCodec> {
    /// A client for any compatible server at `base_url`, with [`Quirks::COMPATIBLE`].
    pub fn new(base_url: &str, api_key: Option<String>, model: &str) -> Result<Self> {
        client_at(base_url, api_key, model, OpenAiCodec::new(Quirks::COMPATIBLE)).map(|m| {
            let record = Arc::clone(m.codec().record());
            m.with_record(record)
        })
    }

    /// A client for an OpenAI-protocol preset's default base URL and quirks; it carries
    /// the record.
    pub fn from_preset(preset: &Provider, model: &str, api_key: Option<String>) -> Result<Self> {
        client_for_record(preset, model, api_key, OpenAiCodec::for_record)
    }

    /// Replaces the quirks (e.g. a different [`crate::model::presets::ContentPolicy`] for a gateway).
    pub fn with_quirks(mut self, quirks: Quirks) -> Self {
        self.codec_mut().quirks = quirks;
        self
    }

    /// The quirks in force.
    pub fn quirks(&self) -> &Quirks {
        &self.codec().quirks
    }
}
