//! Decoding Chat Completions answers: a whole body ([`decode`]), an error body
//! ([`decode_error`], with every quota code Lucid knows), and a stream
//! ([`OpenAiStreamDecoder`]).

use std::borrow::Cow;
use std::sync::Arc;

use serde::Deserialize;
use serde_json::Value;

use crate::message::{AssistantMessage, FinishReason, Reasoning, ToolCall, Usage};
use crate::model::ProviderError;
use crate::model::error::{ModelError, Result};
use crate::model::http::StreamDecoder;
use crate::model::presets::OPENAI_QUOTA;
use crate::model::provider::{Provider, QuotaRule};
use crate::model::sse::SseEvent;
use crate::model::stream::{Assembler, mint_call_id, normalize_finish};
use crate::model::{ChatResponse, StreamEvent};

#[derive(Deserialize)]
struct WireUsage {
    #[serde(default)]
    prompt_tokens: Option<u64>,
    #[serde(default)]
    completion_tokens: Option<u64>,
    #[serde(default)]
    prompt_tokens_details: Option<PromptDetails>,
    #[serde(default)]
    completion_tokens_details: Option<CompletionDetails>,
    #[serde(default)]
    prompt_cache_hit_tokens: Option<u64>,
}

#[derive(Deserialize)]
struct PromptDetails {
    #[serde(default)]
    cached_tokens: Option<u64>,
}

#[derive(Deserialize)]
struct CompletionDetails {
    #[serde(default)]
    reasoning_tokens: Option<u64>,
}

impl From<WireUsage> for Usage {
    fn from(u: WireUsage) -> Usage {
        Usage {
            input_tokens: u.prompt_tokens.unwrap_or(0),
            output_tokens: u.completion_tokens.unwrap_or(0),
            reasoning_tokens: u.completion_tokens_details.and_then(|d| d.reasoning_tokens).unwrap_or(0),
            cached_input_tokens: u
                .prompt_tokens_details
                .and_then(|d| d.cached_tokens)
                .or(u.prompt_cache_hit_tokens)
                .unwrap_or(0),
            ..Usage::default()
        }
    }
}

/// Tool-call arguments as text: a JSON text per the spec (a string, taken as it is), an
/// object from some servers (written back as JSON text). Read as a plain [`Value`] rather
/// than an untagged enum, which would buffer every fragment before matching it.
fn arguments_text(arguments: Value) -> String {
    match arguments {
        Value::String(t) => t,
        Value::Null => String::new(),
        v => v.to_string(),
    }
}

#[derive(Deserialize)]
struct WireFunction<'a> {
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(default)]
    arguments: Option<Value>,
}

#[derive(Deserialize)]
struct WireCall<'a> {
    #[serde(default)]
    index: Option<u64>,
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    function: Option<WireFunction<'a>>,
    #[serde(default)]
    extra_content: Option<Value>,
}

#[derive(Deserialize)]
struct WireMessage<'a> {
    #[serde(default)]
    content: Option<Value>,
    #[serde(borrow, default)]
    reasoning_content: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    reasoning: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    tool_calls: Option<Vec<WireCall<'a>>>,
    #[serde(default)]
    extra_content: Option<Value>,
}

#[derive(Deserialize)]
struct WireChoice<'a> {
    #[serde(borrow, default)]
    message: Option<WireMessage<'a>>,
    #[serde(borrow, default)]
    delta: Option<WireMessage<'a>>,
    #[serde(borrow, default)]
    finish_reason: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct WireCompletion<'a> {
    #[serde(borrow, default)]
    model: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    choices: Vec<WireChoice<'a>>,
    #[serde(default)]
    usage: Option<WireUsage>,
    #[serde(default)]
    error: Option<Value>,
}

fn google_signature(extra: &Option<Value>) -> Option<String> {
    extra.as_ref()?.get("google")?.get("thought_signature")?.as_str().map(str::to_string)
}

fn content_text(v: Option<Value>) -> String {
    match v {
        Some(Value::String(s)) => s,
        Some(Value::Array(parts)) => parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str)).collect(),
        _ => String::new(),
    }
}

/// Decodes a non-streaming Chat Completions body.
///
/// ```
/// let body = br#"{"choices":[{"message":{"role":"assistant","content":"Hi!"},"finish_reason":"stop"}],
///                 "usage":{"prompt_tokens":3,"completion_tokens":2}}"#;
/// let r = lucid::model::openai::decode("openai", body).unwrap();
/// assert_eq!(r.message.content, "Hi!");
/// assert_eq!(r.usage.unwrap().output_tokens, 2);
/// ```
pub fn decode(provider: &str, body: &[u8]) -> Result<ChatResponse> {
    decode_with(provider, body, &[])
}

/// [`decode`] with the provider's own quota rules for an error sent with a 2xx status.
pub(crate) fn decode_with(provider: &str, body: &[u8], quota: &[QuotaRule]) -> Result<ChatResponse> {
    let wire: WireCompletion<'_> = serde_json::from_slice(body).map_err(|e| ModelError::Decode {
        provider: provider.to_string(),
        message: format!("{e} in {}", preview(body)),
    })?;
    if let Some(err) = wire.error {
        return Err(error_with(provider, None, &err, quota).into());
    }
    let choice = wire.choices.into_iter().next().ok_or_else(|| ModelError::Decode {
        provider: provider.to_string(),
        message: format!("no choices in {}", preview(body)),
    })?;
    let msg = choice.message.ok_or_else(|| ModelError::Decode {
        provider: provider.to_string(),
        message: "the choice has no message".into(),
    })?;
    let message_signature = google_signature(&msg.extra_content);
    let mut tool_calls: Vec<ToolCall> = msg
        .tool_calls
        .unwrap_or_default()
        .into_iter()
        .filter_map(|c| {
            let f = c.function?;
            Some(ToolCall {
                id: c.id.filter(|i| !i.is_empty()).map_or_else(mint_call_id, Cow::into_owned),
                name: f.name?.into_owned(),
                arguments: f.arguments.map(arguments_text).unwrap_or_default(),
                signature: google_signature(&c.extra_content),
            })
        })
        .collect();
    if let (Some(sig), Some(first)) = (message_signature, tool_calls.first_mut()) {
        first.signature.get_or_insert(sig);
    }
    let reasoning = msg
        .reasoning_content
        .or(msg.reasoning)
        .filter(|r| !r.is_empty())
        .map(|r| Reasoning { text: r.into_owned(), ..Default::default() });
    let raw_finish = choice.finish_reason.map(Cow::into_owned);
    let finish_reason = normalize_finish(raw_finish.as_deref().map(FinishReason::from_openai), !tool_calls.is_empty());
    Ok(ChatResponse {
        message: AssistantMessage { content: content_text(msg.content), tool_calls, reasoning },
        finish_reason,
        raw_finish_reason: raw_finish,
        usage: wire.usage.map(Usage::from),
        model: wire.model.map(Cow::into_owned),
        incomplete_call_ids: Vec::new(),
        fallbacks: Vec::new(),
    })
}

/// Decodes an error body (`{"error": {"message", "type", "code", "param"}}` and the
/// variants compatible servers send; a non-JSON body becomes the message).
///
/// ```
/// let e = lucid::model::openai::decode_error("openai", 429,
///     br#"{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}"#);
/// assert!(!e.retryable);
/// ```
///
/// OpenAI's quota codes mark the errors that mean the money or quota ran out; a
/// provider's own codes are its record's, which its codec applies
/// ([`OpenAiCodec::decode_error`](super::OpenAiCodec)):
///
/// ```
/// use lucid::model::{Codec, Provider, openai::OpenAiCodec};
/// let glm = OpenAiCodec::for_preset(Provider::find("zhipu").unwrap());
/// let e = glm.decode_error("zhipu", 429,
///     br#"{"error":{"code":"1113","message":"Your account is in arrears, please recharge and try again"}}"#);
/// assert_eq!(e.kind, lucid::ProviderErrorKind::QuotaExhausted);
/// ```
pub fn decode_error(provider: &str, status: u16, body: &[u8]) -> ProviderError {
    decode_error_with(provider, status, body, &[])
}

/// [`decode_error`] with the provider's own quota rules, beside OpenAI's.
pub(crate) fn decode_error_with(provider: &str, status: u16, body: &[u8], quota: &[QuotaRule]) -> ProviderError {
    match serde_json::from_slice::<Value>(body) {
        Ok(v) => match v.get("error") {
            Some(err) => error_with(provider, Some(status), err, quota),
            None => {
                // DashScope's native shape: `{"code", "message", "request_id"}` at the top.
                let msg = v.get("message").and_then(Value::as_str).map_or_else(|| v.to_string(), str::to_string);
                let e = ProviderError::new(provider, Some(status), msg);
                let e = match v.get("code").and_then(Value::as_str) {
                    Some(code) => e.with_code(code),
                    None => e,
                };
                mark_quota(quota, e)
            }
        },
        Err(_) => mark_quota(quota, ProviderError::new(provider, Some(status), preview(body))),
    }
}

/// `e`, marked quota-exhausted by the preset's own table or by OpenAI's codes, which every
/// compatible server and gateway may forward (an `insufficient_quota` from `qwen`,
/// `deepseek` or `ollama` is never retried either).
fn mark_quota(quota: &[QuotaRule], e: ProviderError) -> ProviderError {
    QuotaRule::apply(quota, QuotaRule::apply(OPENAI_QUOTA, e))
}

/// An error object, with OpenAI's quota codes.
pub(crate) fn error_from_value(provider: &str, status: Option<u16>, err: &Value) -> ProviderError {
    error_with(provider, status, err, &[])
}

/// An error object (`{"message", "type", "code"}`), marked by `quota` and OpenAI's codes.
pub(crate) fn error_with(provider: &str, status: Option<u16>, err: &Value, quota: &[QuotaRule]) -> ProviderError {
    let text = |v: Option<&Value>| match v {
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    };
    if let Value::String(s) = err {
        return ProviderError::new(provider, status, s.clone());
    }
    let message = text(err.get("message")).unwrap_or_else(|| err.to_string());
    let code = text(err.get("code"));
    let mut e = ProviderError::new(provider, status, message);
    e.mid_stream = status.is_none();
    if let Some(t) = text(err.get("type")).or_else(|| code.clone()) {
        e = e.with_type(t);
    }
    if let Some(c) = code {
        e = e.with_code(c);
    }
    mark_quota(quota, e)
}

fn preview(body: &[u8]) -> String {
    let s = String::from_utf8_lossy(body);
    let s = s.trim();
    if s.chars().count() > 300 { format!("{}…", s.chars().take(300).collect::<String>()) } else { s.to_string() }
}

/// Decodes a Chat Completions SSE stream.
///
/// ```
/// use lucid::model::{http::StreamDecoder, openai::OpenAiStreamDecoder, sse::SseEvent};
/// let mut d = OpenAiStreamDecoder::new("openai");
/// let mut out = Vec::new();
/// for data in [r#"{"choices":[{"delta":{"content":"Hel"}}]}"#,
///              r#"{"choices":[{"delta":{"content":"lo"},"finish_reason":"stop"}]}"#, "[DONE]"] {
///     d.event(&SseEvent { event: None, data: data.into() }, &mut out).unwrap();
/// }
/// assert_eq!(d.finish().unwrap().message.content, "Hello");
/// ```
#[derive(Debug)]
pub struct OpenAiStreamDecoder {
    provider: String,
    asm: Assembler,
    done: bool,
    record: Option<Arc<Provider>>,
}

impl OpenAiStreamDecoder {
    /// A decoder for one stream from `provider`, whose mid-stream errors are marked by
    /// OpenAI's quota codes.
    pub fn new(provider: &str) -> Self {
        OpenAiStreamDecoder { provider: provider.to_string(), asm: Assembler::default(), done: false, record: None }
    }

    /// A decoder whose mid-stream errors are marked by the record's quota rules too.
    pub fn with_record(provider: &str, record: Arc<Provider>) -> Self {
        OpenAiStreamDecoder { record: Some(record), ..OpenAiStreamDecoder::new(provider) }
    }
}

impl StreamDecoder for OpenAiStreamDecoder {
    fn event(&mut self, event: &SseEvent, out: &mut Vec<StreamEvent>) -> Result<()> {
        let data = event.data.trim();
        if data == "[DONE]" {
            self.done = true;
            return Ok(());
        }
        if data.is_empty() {
            return Ok(());
        }
        let chunk: WireCompletion<'_> = serde_json::from_str(data).map_err(|e| ModelError::Decode {
            provider: self.provider.clone(),
            message: format!("{e} in stream event {}", preview(data.as_bytes())),
        })?;
        if let Some(err) = chunk.error {
            let quota = self.record.as_deref().map_or(&[][..], |r| &r.quota);
            return Err(error_with(&self.provider, None, &err, quota).into());
        }
        if let Some(m) = &chunk.model {
            self.asm.set_model(m);
        }
        if let Some(u) = chunk.usage {
            self.asm.set_usage(u.into());
        }
        for choice in chunk.choices {
            if let Some(delta) = choice.delta.or(choice.message) {
                if let Some(r) = delta.reasoning_content.as_deref().or(delta.reasoning.as_deref()) {
                    self.asm.reasoning(r, out);
                }
                if let Some(Value::String(t)) = &delta.content {
                    self.asm.text(t, out);
                }
                let message_signature = google_signature(&delta.extra_content);
                for call in delta.tool_calls.into_iter().flatten() {
                    let (name, args) = match call.function {
                        Some(f) => (f.name, f.arguments.map(arguments_text)),
                        None => (None, None),
                    };
                    self.asm.tool_call(call.index, call.id.as_deref(), name.as_deref(), args.as_deref(), out);
                    if let Some(sig) = google_signature(&call.extra_content) {
                        self.asm.tool_call_signature(&sig);
                    }
                }
                if let Some(sig) = message_signature {
                    self.asm.tool_call_signature(&sig);
                }
            }
            if let Some(f) = choice.finish_reason.filter(|f| !f.is_empty()) {
                self.asm.set_finish(&f);
            }
        }
        Ok(())
    }

    fn finish(self) -> Result<ChatResponse> {
        if !self.done && !self.asm.has_finish() {
            return Err(ModelError::StreamTruncated {
                provider: self.provider,
                message: "the body ended without a finish_reason or [DONE]".into(),
            });
        }
        Ok(self.asm.finish(FinishReason::from_openai))
    }
}
