//! The Anthropic Messages API codec (`POST /v1/messages`).
//!
//! System prompt as the top-level `system` field; `max_tokens` always sent; consecutive
//! same-role messages merged; all `tool_result` blocks answering one assistant turn in the
//! next single user message, before any text, with `is_error` for failed tools; thinking
//! and redacted thinking blocks sent back exactly as received. Streams follow
//! `message_start` → `content_block_*` → `message_delta` → `message_stop`, with `ping`
//! ignored and an `error` event inside an HTTP 200 stream turned into an error.

use std::collections::HashMap;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::{Map, Value, json};

use crate::message::{AssistantMessage, FinishReason, Message, Reasoning, ToolCall, Usage, content_parts};
use crate::model::ProviderError;
use crate::model::client::{Codec, HttpModel};
use crate::model::error::{ModelError, Result};
use crate::model::http::{StreamDecoder, insert_secret};
use crate::model::presets::QuotaRule;
use crate::model::sse::SseEvent;
use crate::model::stream::{Assembler, normalize_finish};
use crate::model::{ChatRequest, ChatResponse, ResponseFormat, StreamEvent, ToolChoice, wire_parts};

/// The API version sent in `anthropic-version`.
pub const API_VERSION: &str = "2023-06-01";

/// `max_tokens` when the caller set none: Anthropic requires the field.
///
/// ```
/// use lucid::model::anthropic::default_max_tokens;
/// assert_eq!(default_max_tokens("claude-3-haiku-20240307"), 4096);
/// assert_eq!(default_max_tokens("claude-sonnet-4-5"), 8192);
/// ```
pub fn default_max_tokens(model: &str) -> u32 {
    if model.starts_with("claude-3-") && !model.starts_with("claude-3-5") && !model.starts_with("claude-3-7") {
        4096
    } else {
        8192
    }
}

/// Maps Anthropic's `stop_reason`.
///
/// ```
/// use lucid::{FinishReason, model::anthropic::finish_reason};
/// assert_eq!(finish_reason("tool_use"), FinishReason::ToolCalls);
/// assert_eq!(finish_reason("refusal"), FinishReason::ContentFilter);
/// ```
pub fn finish_reason(raw: &str) -> FinishReason {
    match raw {
        "end_turn" | "stop_sequence" => FinishReason::Stop,
        "tool_use" => FinishReason::ToolCalls,
        "max_tokens" | "model_context_window_exceeded" => FinishReason::Length,
        "refusal" => FinishReason::ContentFilter,
        _ => FinishReason::Other,
    }
}

/// Encodes a request as the Messages API body.
///
/// ```
/// use lucid::model::{ChatOptions, ChatRequest, anthropic};
/// let msgs = [lucid::Message::system("Be brief."), lucid::Message::user("Hi")];
/// let body = anthropic::encode(&ChatRequest::new(&msgs, &[], &ChatOptions::default()), "claude-sonnet-4-5", false);
/// assert_eq!(body["system"][0]["text"], "Be brief.");
/// assert_eq!(body["system"][0]["cache_control"]["type"], "ephemeral");
/// assert_eq!(body["max_tokens"], 8192);
/// assert_eq!(body["messages"][0]["content"][0]["text"], "Hi");
/// ```
pub fn encode(req: &ChatRequest<'_>, model: &str, stream: bool) -> Value {
    encode_cached(req, model, stream, true)
}

/// [`encode`], with prompt-cache breakpoints or without.
///
/// Agents resend the same system prompt and tool schemas on every call, so caching them
/// is most of the bill: with `cache` on, `cache_control` marks the end of the tools, of
/// the system prompt and of the latest turn — three of the four breakpoints Anthropic
/// allows — so each call reads what the one before it wrote.
///
/// ```
/// use lucid::model::{ChatOptions, ChatRequest, anthropic};
/// let msgs = [lucid::Message::system("Be brief."), lucid::Message::user("Hi")];
/// let body = anthropic::encode_cached(&ChatRequest::new(&msgs, &[], &ChatOptions::default()), "claude-sonnet-4-5", false, false);
/// assert_eq!(body["system"], "Be brief.");
/// assert!(!body.to_string().contains("cache_control"));
/// ```
pub fn encode_cached(req: &ChatRequest<'_>, model: &str, stream: bool, cache: bool) -> Value {
    let o = req.options;
    let mut body = Map::new();
    body.insert("model".into(), json!(model));
    body.insert("max_tokens".into(), json!(o.max_tokens.unwrap_or_else(|| default_max_tokens(model))));
    let system: Vec<&str> = req
        .messages
        .iter()
        .filter_map(|m| match m {
            Message::System { content } if !content.is_empty() => Some(content.as_str()),
            _ => None,
        })
        .collect();
    if !system.is_empty() {
        body.insert("system".into(), json!(system.join("\n\n")));
    }
    body.insert("messages".into(), Value::Array(encode_messages(req.messages)));
    if !req.tools.is_empty() {
        let tools = req
            .tools
            .iter()
            .map(|t| json!({"name": t.name(), "description": t.description(), "input_schema": t.parameters()}))
            .collect();
        body.insert("tools".into(), Value::Array(tools));
    }
    let mut choice = match &o.tool_choice {
        Some(ToolChoice::Auto) => Some(json!({"type": "auto"})),
        Some(ToolChoice::Required) => Some(json!({"type": "any"})),
        Some(ToolChoice::None) => Some(json!({"type": "none"})),
        Some(ToolChoice::Tool(name)) => Some(json!({"type": "tool", "name": name})),
        None => None,
    };
    if o.parallel_tool_calls == Some(false) && !req.tools.is_empty() {
        let c = choice.get_or_insert_with(|| json!({"type": "auto"}));
        if c["type"] != "none" {
            c["disable_parallel_tool_use"] = json!(true);
        }
    }
    // Anthropic has no response-format field: a schema becomes a tool whose input is the
    // answer (the agent loop reads it back as the answer text). Alone it is forced; beside
    // the agent's own tools the model must call one of them (`any`), so it can still use
    // its tools before answering through the schema's.
    let format_tool = match &o.response_format {
        Some(ResponseFormat::JsonSchema { name, schema, .. }) => Some((name.as_str(), schema.clone())),
        Some(ResponseFormat::JsonObject) => Some(("json_answer", json!({"type": "object"}))),
        _ => None,
    };
    if let Some((name, schema)) = format_tool {
        let tool =
            json!({"name": name, "description": "Give the final answer as this tool's input.", "input_schema": schema});
        match body.get_mut("tools").and_then(Value::as_array_mut) {
            Some(tools) => tools.push(tool),
            None => {
                body.insert("tools".into(), json!([tool]));
            }
        }
        let no_parallel = o.parallel_tool_calls == Some(false);
        choice = Some(if req.tools.is_empty() {
            json!({"type": "tool", "name": name})
        } else if no_parallel {
            json!({"type": "any", "disable_parallel_tool_use": true})
        } else {
            json!({"type": "any"})
        });
    }
    if let Some(c) = choice {
        body.insert("tool_choice".into(), c);
    }
    if cache {
        add_cache_breakpoints(&mut body);
    }
    if let Some(t) = o.temperature {
        body.insert("temperature".into(), json!(t));
    }
    if let Some(p) = o.top_p {
        body.insert("top_p".into(), json!(p));
    }
    if !o.stop.is_empty() {
        body.insert("stop_sequences".into(), json!(o.stop));
    }
    if stream {
        body.insert("stream".into(), json!(true));
    }
    if let Some(extra) = &o.extra {
        for (k, v) in extra {
            body.insert(k.clone(), v.clone());
        }
    }
    Value::Object(body)
}

/// Marks the last tool, the system prompt and the last block of the latest message that
/// can carry a breakpoint (not a thinking block, not empty text).
fn add_cache_breakpoints(body: &mut Map<String, Value>) {
    let mark = || json!({"type": "ephemeral"});
    if let Some(tool) = body.get_mut("tools").and_then(Value::as_array_mut).and_then(|t| t.last_mut()) {
        tool["cache_control"] = mark();
    }
    if let Some(Value::String(system)) = body.get("system") {
        let block = json!([{"type": "text", "text": system, "cache_control": mark()}]);
        body.insert("system".into(), block);
    }
    let last = body
        .get_mut("messages")
        .and_then(Value::as_array_mut)
        .and_then(|m| m.last_mut())
        .and_then(|m| m["content"].as_array_mut());
    if let Some(block) = last.and_then(|blocks| {
        blocks.iter_mut().rev().find(|b| match b["type"].as_str() {
            Some("thinking" | "redacted_thinking") => false,
            Some("text") => b["text"].as_str().is_some_and(|t| !t.is_empty()),
            _ => true,
        })
    }) {
        block["cache_control"] = mark();
    }
}

/// Messages as Anthropic wants them: two roles alternating, tool results as user blocks
/// placed first, empty text left out.
fn encode_messages(messages: &[Message]) -> Vec<Value> {
    let mut out: Vec<(&'static str, Vec<Value>)> = Vec::new();
    let mut push = |role: &'static str, blocks: Vec<Value>| {
        if blocks.is_empty() {
            return;
        }
        match out.last_mut() {
            Some((r, existing)) if *r == role => {
                // Tool results must precede text within the user message.
                if role == "user" && blocks.iter().any(|b| b["type"] == "tool_result") {
                    let first_text = existing.iter().position(|b| b["type"] != "tool_result").unwrap_or(existing.len());
                    let results: Vec<Value> = blocks.iter().filter(|b| b["type"] == "tool_result").cloned().collect();
                    let others: Vec<Value> = blocks.into_iter().filter(|b| b["type"] != "tool_result").collect();
                    existing.splice(first_text..first_text, results);
                    existing.extend(others);
                } else {
                    existing.extend(blocks);
                }
            }
            _ => out.push((role, blocks)),
        }
    };
    for m in messages {
        match m {
            Message::System { .. } => {}
            Message::User { content, parts } => push(
                "user",
                content_parts(content, parts)
                    .iter()
                    .filter(|p| p.as_text() != Some(""))
                    .map(wire_parts::anthropic_block)
                    .collect(),
            ),
            Message::Tool(r) => {
                let content = if r.parts.is_empty() {
                    json!(r.content)
                } else {
                    Value::Array(r.parts.iter().map(wire_parts::anthropic_block).collect())
                };
                let mut block = json!({"type": "tool_result", "tool_use_id": r.call_id, "content": content});
                if r.is_error {
                    block["is_error"] = json!(true);
                }
                push("user", vec![block]);
            }
            Message::Assistant(a) => {
                // Only Anthropic's own blocks: another provider's items (a Responses reasoning
                // item) mean nothing here.
                let mut blocks: Vec<Value> = a
                    .reasoning
                    .iter()
                    .flat_map(|r| r.blocks.iter())
                    .filter(|b| matches!(b["type"].as_str(), Some("thinking" | "redacted_thinking")))
                    .cloned()
                    .collect();
                if !a.content.is_empty() {
                    blocks.push(json!({"type": "text", "text": a.content}));
                }
                for c in &a.tool_calls {
                    let input = match c.parse_arguments() {
                        Ok(v @ Value::Object(_)) => v,
                        _ => json!({}),
                    };
                    blocks.push(json!({"type": "tool_use", "id": c.id, "name": c.name, "input": input}));
                }
                push("assistant", blocks);
            }
        }
    }
    out.into_iter().map(|(role, content)| json!({"role": role, "content": content})).collect()
}

/// Reads a `usage` object. Anthropic reports `input_tokens` without the cached prompt;
/// [`prompt_total`] adds it back once the last report is in.
fn usage(u: &Value, into: &mut Usage) {
    let n = |k: &str| u.get(k).and_then(Value::as_u64);
    if let Some(v) = n("input_tokens") {
        into.input_tokens = v;
    }
    if let Some(v) = n("output_tokens") {
        into.output_tokens = v;
    }
    if let Some(v) = n("cache_read_input_tokens") {
        into.cache_read_input_tokens = v;
    }
    if let Some(v) = n("cache_creation_input_tokens") {
        into.cache_creation_input_tokens = v;
    }
}

/// Lucid's `input_tokens` is every prompt token, for every provider; Anthropic's excludes
/// the tokens read from and written to the prompt cache, so they are added here (they stay
/// readable on their own as parts of the total).
fn prompt_total(mut u: Usage) -> Usage {
    u.input_tokens += u.cache_read_input_tokens + u.cache_creation_input_tokens;
    u
}

fn decode_err(provider: &str, message: String) -> ModelError {
    ModelError::Decode { provider: provider.to_string(), message }
}

/// Decodes a non-streaming Messages response.
pub fn decode(provider: &str, body: &[u8]) -> Result<ChatResponse> {
    let v: Value = serde_json::from_slice(body).map_err(|e| decode_err(provider, e.to_string()))?;
    if v["type"] == "error" {
        return Err(error_from_value(provider, None, &v["error"]).into());
    }
    let blocks = v["content"].as_array().ok_or_else(|| decode_err(provider, "the response has no content".into()))?;
    let mut message = AssistantMessage::default();
    let mut reasoning = Reasoning::default();
    for b in blocks {
        match b["type"].as_str() {
            Some("text") => message.content.push_str(b["text"].as_str().unwrap_or_default()),
            Some("thinking") => {
                reasoning.text.push_str(b["thinking"].as_str().unwrap_or_default());
                reasoning.blocks.push(b.clone());
            }
            Some("redacted_thinking") => reasoning.blocks.push(b.clone()),
            Some("tool_use") => message.tool_calls.push(ToolCall {
                id: b["id"].as_str().unwrap_or_default().to_string(),
                name: b["name"].as_str().unwrap_or_default().to_string(),
                arguments: b.get("input").map_or_else(|| "{}".to_string(), Value::to_string),
                signature: None,
            }),
            _ => {}
        }
    }
    if !reasoning.blocks.is_empty() {
        message.reasoning = Some(reasoning);
    }
    let raw = v["stop_reason"].as_str().map(str::to_string);
    let mut u = Usage::default();
    let has_usage = v.get("usage").is_some_and(Value::is_object);
    usage(&v["usage"], &mut u);
    Ok(ChatResponse {
        finish_reason: normalize_finish(raw.as_deref().map(finish_reason), !message.tool_calls.is_empty()),
        raw_finish_reason: raw,
        usage: has_usage.then(|| prompt_total(u)),
        model: v["model"].as_str().map(str::to_string),
        incomplete_call_ids: Vec::new(),
        fallbacks: Vec::new(),
        message,
    })
}

/// Anthropic's quota table ([`presets::ANTHROPIC_QUOTA`](crate::model::presets::ANTHROPIC_QUOTA)).
pub use crate::model::presets::ANTHROPIC_QUOTA as QUOTA;

fn error_from_value(provider: &str, status: Option<u16>, err: &Value) -> ProviderError {
    let message = err["message"].as_str().map_or_else(|| err.to_string(), str::to_string);
    let mut e = ProviderError::new(provider, status, message);
    e.mid_stream = status.is_none();
    let e = match err["type"].as_str() {
        Some(t) => e.with_type(t),
        None => e,
    };
    QuotaRule::apply(QUOTA, e)
}

/// Decodes an error body (`{"type": "error", "error": {"type", "message"}}`).
///
/// ```
/// let e = lucid::model::anthropic::decode_error("anthropic", 529,
///     br#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#);
/// assert!(e.retryable);
/// assert_eq!(e.to_string(), "anthropic returned 529 overloaded_error: Overloaded");
/// ```
pub fn decode_error(provider: &str, status: u16, body: &[u8]) -> ProviderError {
    match serde_json::from_slice::<Value>(body) {
        Ok(v) if v.get("error").is_some_and(Value::is_object) => error_from_value(provider, Some(status), &v["error"]),
        _ => ProviderError::new(provider, Some(status), String::from_utf8_lossy(body).trim().to_string()),
    }
}

/// Decodes a Messages SSE stream.
#[derive(Debug)]
pub struct AnthropicStreamDecoder {
    provider: String,
    asm: Assembler,
    usage: Usage,
    saw_usage: bool,
    /// Thinking blocks being streamed, by block index: (thinking text, signature).
    thinking: HashMap<u64, (String, String)>,
    blocks: Vec<Value>,
    done: bool,
}

impl AnthropicStreamDecoder {
    /// A decoder for one stream from `provider`.
    pub fn new(provider: &str) -> Self {
        AnthropicStreamDecoder {
            provider: provider.to_string(),
            asm: Assembler::default(),
            usage: Usage::default(),
            saw_usage: false,
            thinking: HashMap::new(),
            blocks: Vec::new(),
            done: false,
        }
    }
}

impl StreamDecoder for AnthropicStreamDecoder {
    fn event(&mut self, event: &SseEvent, out: &mut Vec<StreamEvent>) -> Result<()> {
        let v: Value = serde_json::from_str(&event.data)
            .map_err(|e| decode_err(&self.provider, format!("{e} in stream event {}", event.data)))?;
        let index = v["index"].as_u64();
        match v["type"].as_str().unwrap_or_default() {
            "message_start" => {
                let m = &v["message"];
                if let Some(model) = m["model"].as_str() {
                    self.asm.set_model(model);
                }
                if m["usage"].is_object() {
                    usage(&m["usage"], &mut self.usage);
                    self.saw_usage = true;
                }
            }
            "content_block_start" => {
                let b = &v["content_block"];
                match b["type"].as_str() {
                    Some("text") => self.asm.text(b["text"].as_str().unwrap_or_default(), out),
                    Some("thinking") => {
                        let text = b["thinking"].as_str().unwrap_or_default().to_string();
                        self.asm.reasoning(&text, out);
                        let sig = b["signature"].as_str().unwrap_or_default().to_string();
                        self.thinking.insert(index.unwrap_or(0), (text, sig));
                    }
                    Some("redacted_thinking") => self.blocks.push(b.clone()),
                    Some("tool_use") => {
                        let input = match &b["input"] {
                            Value::Object(m) if !m.is_empty() => Value::Object(m.clone()).to_string(),
                            _ => String::new(),
                        };
                        self.asm.tool_call(index, b["id"].as_str(), b["name"].as_str(), Some(&input), out);
                    }
                    _ => {}
                }
            }
            "content_block_delta" => {
                let d = &v["delta"];
                match d["type"].as_str() {
                    Some("text_delta") => self.asm.text(d["text"].as_str().unwrap_or_default(), out),
                    Some("thinking_delta") => {
                        let t = d["thinking"].as_str().unwrap_or_default();
                        self.asm.reasoning(t, out);
                        self.thinking.entry(index.unwrap_or(0)).or_default().0.push_str(t);
                    }
                    Some("signature_delta") => {
                        self.thinking
                            .entry(index.unwrap_or(0))
                            .or_default()
                            .1
                            .push_str(d["signature"].as_str().unwrap_or_default());
                    }
                    Some("input_json_delta") => {
                        self.asm.tool_call(index, None, None, d["partial_json"].as_str(), out);
                    }
                    _ => {}
                }
            }
            "content_block_stop" => {
                if let Some((text, sig)) = index.and_then(|i| self.thinking.remove(&i)) {
                    self.blocks.push(json!({"type": "thinking", "thinking": text, "signature": sig}));
                }
            }
            "message_delta" => {
                if let Some(r) = v["delta"]["stop_reason"].as_str() {
                    self.asm.set_finish(r);
                }
                if v["usage"].is_object() {
                    usage(&v["usage"], &mut self.usage);
                    self.saw_usage = true;
                }
            }
            "message_stop" => self.done = true,
            "error" => return Err(error_from_value(&self.provider, None, &v["error"]).into()),
            _ => {}
        }
        Ok(())
    }

    fn finish(self) -> Result<ChatResponse> {
        if !self.done && !self.asm.has_finish() {
            return Err(ModelError::StreamTruncated {
                provider: self.provider,
                message: "the body ended before message_stop".into(),
            });
        }
        let mut asm = self.asm;
        if self.saw_usage {
            asm.set_usage(prompt_total(self.usage));
        }
        let mut r = asm.finish(finish_reason);
        if !self.blocks.is_empty() {
            r.message.reasoning.get_or_insert_with(Reasoning::default).blocks = self.blocks;
        }
        Ok(r)
    }
}

/// The Messages codec.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AnthropicCodec {
    /// Whether requests carry prompt-cache breakpoints (see [`encode_cached`]); on unless
    /// turned off.
    pub prompt_cache: bool,
}

impl Default for AnthropicCodec {
    fn default() -> Self {
        AnthropicCodec { prompt_cache: true }
    }
}

impl Codec for AnthropicCodec {
    type Stream = AnthropicStreamDecoder;

    /// The schema is a forced tool offered beside the others (`tool_choice: any`).
    fn format_with_tools(&self) -> bool {
        true
    }

    fn url(&self, base_url: &str, _model: &str, _stream: bool) -> String {
        format!("{base_url}/v1/messages")
    }

    fn encode(&self, request: &ChatRequest<'_>, model: &str, stream: bool) -> Value {
        encode_cached(request, model, stream, self.prompt_cache)
    }

    fn decode(&self, provider: &str, body: &[u8]) -> Result<ChatResponse> {
        decode(provider, body)
    }

    fn decode_error(&self, provider: &str, status: u16, body: &[u8]) -> ProviderError {
        decode_error(provider, status, body)
    }

    fn stream_decoder(&self, provider: &str) -> AnthropicStreamDecoder {
        AnthropicStreamDecoder::new(provider)
    }
}

/// A client for the Anthropic Messages API.
///
/// ```
/// use lucid::model::{Anthropic, ChatModel};
/// let claude = Anthropic::new("sk-ant-…", "claude-sonnet-4-5").unwrap();
/// assert_eq!(claude.endpoint(false), "https://api.anthropic.com/v1/messages");
/// ```
pub type Anthropic = HttpModel<AnthropicCodec>;

impl HttpModel<AnthropicCodec> {
    /// A client for `https://api.anthropic.com` with this key.
    pub fn new(api_key: impl Into<String>, model: &str) -> Result<Self> {
        let mut headers = HeaderMap::new();
        insert_secret(&mut headers, HeaderName::from_static("x-api-key"), &api_key.into())?;
        headers.insert(HeaderName::from_static("anthropic-version"), HeaderValue::from_static(API_VERSION));
        HttpModel::with_codec("anthropic", "https://api.anthropic.com", model, headers, AnthropicCodec::default())
    }

    /// Turns the prompt-cache breakpoints on (the default) or off (`cache = "off"`).
    ///
    /// ```
    /// use lucid::model::Anthropic;
    /// let claude = Anthropic::new("sk-ant-…", "claude-sonnet-4-5")?.with_prompt_cache(false);
    /// assert!(!claude.codec().prompt_cache);
    /// # Ok::<(), lucid::Error>(())
    /// ```
    pub fn with_prompt_cache(mut self, on: bool) -> Self {
        self.codec_mut().prompt_cache = on;
        self
    }
}
