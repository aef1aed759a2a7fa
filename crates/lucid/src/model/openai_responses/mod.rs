//! The OpenAI Responses API codec (`POST /responses`), stateless.
//!
//! Every request sends `store: false`, asks for `reasoning.encrypted_content`, and carries
//! the whole conversation as `input` items: the system prompt becomes `instructions`, user
//! text an `input_text` message, each assistant turn its output items in order, each tool
//! result a `function_call_output`. The output items of an answer (reasoning with its
//! encrypted content, messages, function calls) are kept verbatim in
//! [`Reasoning::blocks`](crate::message::Reasoning::blocks), so the next request replays
//! them byte for byte: OpenAI rejects a reasoning item sent without the item that followed
//! it, and a function call sent without its reasoning loses the model's chain of thought.
//!
//! [`encode`], [`decode`] and [`ResponsesStreamDecoder`] are pure translations without
//! I/O; [`OpenAiResponses`] joins them to the shared transport. Errors have the Chat
//! Completions shape and go through [`super::openai::decode_error`].

mod stream;

pub use crate::model::wire_parts::decode_responses_part as decode_input_part;
use std::sync::Arc;

use serde_json::{Map, Value, json};

pub use stream::ResponsesStreamDecoder;

use crate::message::{AssistantMessage, FinishReason, Message, Reasoning, ToolCall, Usage};
use crate::model::ProviderError;
use crate::model::client::{Codec, HttpModel};
use crate::model::error::{ModelError, Result};
use crate::model::openai::options;
use crate::model::presets::Api;
use crate::model::provider::{Provider, QuotaRule};
use crate::model::stream::normalize_finish;
use crate::model::{ChatRequest, ChatResponse, openai, wire_parts};

/// Whether `model` is one of OpenAI's reasoning models, which reject `temperature` and
/// `top_p` (the o-series, GPT-5 and later, the codex models).
///
/// ```
/// use lucid::model::openai_responses::is_reasoning_model;
/// assert!(is_reasoning_model("gpt-5.6-sol") && is_reasoning_model("o3-mini"));
/// assert!(!is_reasoning_model("gpt-4.1") && !is_reasoning_model("qwen3-8b"));
/// ```
pub fn is_reasoning_model(model: &str) -> bool {
    let m = model.rsplit('/').next().unwrap_or(model).to_ascii_lowercase();
    let o_series = m.len() > 1 && m.starts_with('o') && m[1..].starts_with(|c: char| c.is_ascii_digit());
    o_series || m.starts_with("gpt-5") || m.starts_with("gpt-6") || m.contains("codex")
}

/// Refuses what the Responses API would answer with a 400: sampling settings for a
/// reasoning model, and the Chat Completions options it has no field for.
///
/// ```
/// use lucid::model::{ChatOptions, ChatRequest, openai_responses};
/// let o = ChatOptions { temperature: Some(0.2), ..Default::default() };
/// let err = openai_responses::check(&ChatRequest::new(&[], &[], &o), "gpt-5.6-sol").unwrap_err();
/// assert!(err.to_string().contains("temperature"));
/// assert!(openai_responses::check(&ChatRequest::new(&[], &[], &o), "gpt-4.1").is_ok());
/// ```
pub fn check(req: &ChatRequest<'_>, model: &str) -> Result<()> {
    let o = req.options;
    let model = o.model.as_deref().unwrap_or(model);
    if is_reasoning_model(model) {
        let set: Vec<&str> = [("temperature", o.temperature.is_some()), ("top_p", o.top_p.is_some())]
            .into_iter()
            .filter_map(|(name, set)| set.then_some(name))
            .collect();
        if !set.is_empty() {
            return Err(ModelError::Config(format!(
                "{model} is a reasoning model and rejects {}: remove it from the options or the config \
                 (set reasoning_effort instead)",
                set.join(" and ")
            )));
        }
    }
    if !o.stop.is_empty() {
        return Err(ModelError::Config("the Responses API has no stop sequences: remove `stop` or use Chat Completions (Preset::with_api(Api::Chat))".into()));
    }
    if o.seed.is_some() {
        return Err(ModelError::Config(
            "the Responses API has no `seed`: remove it or use Chat Completions (Preset::with_api(Api::Chat))".into(),
        ));
    }
    Ok(())
}

/// Encodes a request as the Responses API JSON body.
///
/// ```
/// use lucid::model::{ChatOptions, ChatRequest, openai_responses};
/// let msgs = [lucid::Message::system("Be brief."), lucid::Message::user("Hi")];
/// let opts = ChatOptions::default();
/// let body = openai_responses::encode(&ChatRequest::new(&msgs, &[], &opts), "gpt-5.6-sol", false);
/// assert_eq!(body["instructions"], "Be brief.");
/// assert_eq!(body["input"][0]["content"][0], serde_json::json!({"type": "input_text", "text": "Hi"}));
/// assert_eq!(body["store"], false);
/// ```
pub fn encode(req: &ChatRequest<'_>, model: &str, stream: bool) -> Value {
    let o = req.options;
    let mut body = Map::new();
    body.insert("model".into(), Value::String(o.model.as_deref().unwrap_or(model).to_string()));
    let mut messages = req.messages;
    if let Some((Message::System { content }, rest)) = messages.split_first() {
        body.insert("instructions".into(), Value::String(content.clone()));
        messages = rest;
    }
    let mut input = Vec::with_capacity(messages.len() + 4);
    for m in messages {
        encode_message(m, &mut input);
    }
    body.insert("input".into(), Value::Array(input));
    options::insert_tools(&mut body, req, Api::Responses);
    options::insert_sampling(&mut body, o, "max_output_tokens");
    if o.reasoning_effort.is_some() || o.reasoning_summary.is_some() {
        let mut r = Map::new();
        if let Some(e) = &o.reasoning_effort {
            r.insert("effort".into(), Value::String(e.clone()));
        }
        if let Some(s) = &o.reasoning_summary {
            r.insert("summary".into(), Value::String(s.clone()));
        }
        body.insert("reasoning".into(), Value::Object(r));
    }
    if let Some(f) = &o.response_format {
        body.insert("text".into(), json!({ "format": options::response_format(f, Api::Responses) }));
    }
    body.insert("store".into(), Value::Bool(false));
    body.insert("include".into(), json!(["reasoning.encrypted_content"]));
    if stream {
        body.insert("stream".into(), Value::Bool(true));
    }
    options::insert_extra(&mut body, o);
    Value::Object(body)
}

fn encode_message(m: &Message, input: &mut Vec<Value>) {
    match m {
        Message::System { content } => {
            input.push(json!({"type": "message", "role": "system", "content": content}));
        }
        Message::User { content, parts } if parts.is_empty() => input.push(json!({
            "type": "message", "role": "user", "content": [{"type": "input_text", "text": content}]
        })),
        Message::User { parts, .. } => input.push(json!({
            "type": "message", "role": "user",
            "content": parts.iter().map(wire_parts::responses_part).collect::<Vec<_>>()
        })),
        Message::Tool(r) if r.parts.is_empty() => {
            input.push(json!({"type": "function_call_output", "call_id": r.call_id, "output": r.content}));
        }
        // A function call's output may be a list of input parts (text, images, files).
        Message::Tool(r) => input.push(json!({
            "type": "function_call_output", "call_id": r.call_id,
            "output": r.parts.iter().map(wire_parts::responses_part).collect::<Vec<_>>()
        })),
        Message::Assistant(a) => encode_assistant(a, input),
    }
}

/// The output items of an assistant turn: the ones kept verbatim first, in the order the
/// model produced them, then whatever of the message they do not cover (text or calls
/// written by hand, or received from another provider).
fn encode_assistant(a: &AssistantMessage, input: &mut Vec<Value>) {
    let items = a.reasoning.as_ref().map_or(&[][..], |r| &r.blocks[..]);
    let kept_text: String = items.iter().filter(|i| i["type"] == "message").map(output_text).collect();
    let text_kept = !a.content.is_empty() && kept_text == a.content;
    let mut calls_kept = vec![false; a.tool_calls.len()];
    for item in items {
        match item["type"].as_str() {
            Some("reasoning") => input.push(item.clone()),
            Some("message") if text_kept => input.push(item.clone()),
            Some("function_call") => {
                let found = a.tool_calls.iter().position(|c| {
                    item["call_id"].as_str() == Some(c.id.as_str())
                        && item["name"].as_str() == Some(c.name.as_str())
                        && item["arguments"].as_str() == Some(c.arguments.as_str())
                });
                if let Some(i) = found.filter(|&i| !calls_kept[i]) {
                    calls_kept[i] = true;
                    input.push(item.clone());
                }
            }
            _ => {}
        }
    }
    if !a.content.is_empty() && !text_kept {
        input.push(json!({
            "type": "message", "role": "assistant", "content": [{"type": "output_text", "text": a.content}]
        }));
    }
    for (c, kept) in a.tool_calls.iter().zip(calls_kept) {
        if !kept {
            input.push(json!({"type": "function_call", "call_id": c.id, "name": c.name, "arguments": c.arguments}));
        }
    }
}

/// The text of an output `message` item (its `output_text` and `refusal` parts).
fn output_text(item: &Value) -> String {
    let parts = item["content"].as_array().map_or(&[][..], Vec::as_slice);
    parts
        .iter()
        .filter_map(|p| match p["type"].as_str() {
            Some("output_text") => p["text"].as_str(),
            Some("refusal") => p["refusal"].as_str(),
            _ => None,
        })
        .collect()
}

/// The summary text of a reasoning item (falling back to its `content` text).
fn reasoning_text(item: &Value) -> String {
    let join = |key: &str| -> String {
        item[key].as_array().map_or(&[][..], Vec::as_slice).iter().filter_map(|p| p["text"].as_str()).collect()
    };
    let summary = join("summary");
    if summary.is_empty() { join("content") } else { summary }
}

/// Maps the finish of a response: `completed`, or the `incomplete_details.reason` of an
/// incomplete one (`max_output_tokens`, `content_filter`).
///
/// ```
/// use lucid::FinishReason;
/// use lucid::model::openai_responses::finish_reason;
/// assert_eq!(finish_reason("max_output_tokens"), FinishReason::Length);
/// assert_eq!(finish_reason("completed"), FinishReason::Stop);
/// ```
pub fn finish_reason(raw: &str) -> FinishReason {
    match raw {
        "completed" => FinishReason::Stop,
        "max_output_tokens" => FinishReason::Length,
        "content_filter" => FinishReason::ContentFilter,
        "failed" => FinishReason::Error,
        _ => FinishReason::Other,
    }
}

/// Reads a Responses `usage` object.
pub(crate) fn usage(u: &Value) -> Option<Usage> {
    let n = |v: &Value| v.as_u64().unwrap_or(0);
    u.is_object().then(|| Usage {
        input_tokens: n(&u["input_tokens"]),
        output_tokens: n(&u["output_tokens"]),
        reasoning_tokens: n(&u["output_tokens_details"]["reasoning_tokens"]),
        cached_input_tokens: n(&u["input_tokens_details"]["cached_tokens"]),
        ..Usage::default()
    })
}

/// The raw finish of a finished response object: its status, or the reason it is
/// incomplete.
pub(crate) fn raw_finish(response: &Value) -> Option<String> {
    match response["status"].as_str() {
        Some("incomplete") => {
            Some(response["incomplete_details"]["reason"].as_str().map_or_else(|| "incomplete".into(), str::to_string))
        }
        Some(s) => Some(s.to_string()),
        None => None,
    }
}

/// A failed response's error, as the provider said it.
pub(crate) fn response_error(provider: &str, response: &Value) -> ProviderError {
    let err = &response["error"];
    if err.is_object() {
        return openai::error_from_value(provider, None, err);
    }
    let mut e = ProviderError::new(provider, None, "the response failed without an error message");
    e.mid_stream = true;
    e
}

/// Whether the answer must be kept as items to replay: reasoning (its encrypted content
/// must come back) or a message `phase` (codex models want it preserved).
fn keep_items(items: &[Value]) -> bool {
    items.iter().any(|i| i["type"] == "reasoning" || i.get("phase").is_some_and(|p| !p.is_null()))
}

/// Builds the answer from a response's output items, in order.
pub(crate) fn from_output(
    items: Vec<Value>,
    incomplete_ids: Vec<String>,
    raw: Option<String>,
    usage: Option<Usage>,
    model: Option<String>,
) -> ChatResponse {
    let mut message = AssistantMessage::default();
    let mut reasoning = String::new();
    for item in &items {
        match item["type"].as_str() {
            Some("message") => message.content.push_str(&output_text(item)),
            Some("reasoning") => reasoning.push_str(&reasoning_text(item)),
            Some("function_call") => message.tool_calls.push(ToolCall {
                id: item["call_id"].as_str().unwrap_or_default().to_string(),
                name: item["name"].as_str().unwrap_or_default().to_string(),
                arguments: item["arguments"].as_str().unwrap_or_default().to_string(),
                signature: None,
            }),
            _ => {}
        }
    }
    if keep_items(&items) {
        let blocks = items
            .into_iter()
            .filter(|i| matches!(i["type"].as_str(), Some("reasoning" | "message" | "function_call")))
            .collect();
        message.reasoning = Some(Reasoning { text: reasoning, signature: None, blocks });
    }
    let finish_reason = normalize_finish(raw.as_deref().map(finish_reason), !message.tool_calls.is_empty());
    ChatResponse {
        message,
        finish_reason,
        raw_finish_reason: raw,
        usage,
        model,
        incomplete_call_ids: incomplete_ids,
        fallbacks: Vec::new(),
    }
}

/// Decodes a non-streaming Responses body (a `response` object).
///
/// ```
/// let body = br#"{"id":"resp_1","object":"response","status":"completed","model":"gpt-5.6-sol",
///   "output":[{"type":"message","id":"msg_1","role":"assistant","status":"completed",
///              "content":[{"type":"output_text","text":"Hi!","annotations":[]}]}],
///   "usage":{"input_tokens":5,"output_tokens":2,"total_tokens":7,
///            "input_tokens_details":{"cached_tokens":0},"output_tokens_details":{"reasoning_tokens":0}}}"#;
/// let r = lucid::model::openai_responses::decode("openai", body).unwrap();
/// assert_eq!(r.message.content, "Hi!");
/// assert_eq!(r.usage.unwrap().output_tokens, 2);
/// ```
pub fn decode(provider: &str, body: &[u8]) -> Result<ChatResponse> {
    let v: Value = serde_json::from_slice(body).map_err(|e| ModelError::Decode {
        provider: provider.to_string(),
        message: format!("{e} in {}", String::from_utf8_lossy(&body[..body.len().min(300)])),
    })?;
    if v["status"] == "failed" || (v["error"].is_object() && v.get("output").is_none()) {
        let response = if v["status"] == "failed" { v.clone() } else { json!({"error": v["error"]}) };
        return Err(response_error(provider, &response).into());
    }
    let Some(output) = v["output"].as_array() else {
        return Err(ModelError::Decode {
            provider: provider.to_string(),
            message: "the response has no `output`".into(),
        });
    };
    let incomplete: Vec<String> = output
        .iter()
        .filter(|i| i["type"] == "function_call" && i["status"] == "incomplete")
        .filter_map(|i| i["call_id"].as_str().map(str::to_string))
        .collect();
    Ok(from_output(
        output.clone(),
        incomplete,
        raw_finish(&v),
        usage(&v["usage"]),
        v["model"].as_str().map(str::to_string),
    ))
}

/// The Responses API codec, with the provider's quota rules (beside OpenAI's codes).
///
/// ```
/// use lucid::model::{Preset, openai_responses::ResponsesCodec};
/// let codec = ResponsesCodec::for_preset(Preset::find("openai").unwrap());
/// assert!(!codec.quota().is_empty());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ResponsesCodec {
    /// The provider's record, when it has one (its quota rules).
    record: Option<Arc<Provider>>,
}

impl ResponsesCodec {
    /// The codec of a provider's record.
    pub fn for_preset(preset: &Provider) -> Self {
        ResponsesCodec::for_record(Arc::new(preset.clone()))
    }

    /// The codec of a provider's record, shared with its client.
    pub fn for_record(record: Arc<Provider>) -> Self {
        ResponsesCodec { record: Some(record) }
    }

    /// The provider's own errors meaning its money or quota ran out (beside OpenAI's).
    pub fn quota(&self) -> &[QuotaRule] {
        self.record.as_deref().map_or(&[], |r| &r.quota)
    }
}

impl Codec for ResponsesCodec {
    type Stream = ResponsesStreamDecoder;

    fn url(&self, base_url: &str, _model: &str, _stream: bool) -> String {
        format!("{base_url}/responses")
    }

    fn check(&self, request: &ChatRequest<'_>, model: &str) -> Result<()> {
        check(request, model)
    }

    fn encode(&self, request: &ChatRequest<'_>, model: &str, stream: bool) -> Value {
        encode(request, model, stream)
    }

    fn decode(&self, provider: &str, body: &[u8]) -> Result<ChatResponse> {
        decode(provider, body)
    }

    fn decode_error(&self, provider: &str, status: u16, body: &[u8]) -> ProviderError {
        openai::decode_error_with(provider, status, body, self.quota())
    }

    fn stream_decoder(&self, provider: &str) -> ResponsesStreamDecoder {
        ResponsesStreamDecoder::new(provider)
    }

    /// OpenAI's Responses API calls tools with a `text.format` schema in force.
    fn format_with_tools(&self) -> bool {
        true
    }
}

/// A client for OpenAI's Responses API and every server that implements it (vLLM,
/// Ollama, OpenRouter, DashScope and other "Open Responses" servers).
///
/// ```
/// use lucid::model::OpenAiResponses;
/// let local = OpenAiResponses::new("http://127.0.0.1:8000/v1", None, "Qwen/Qwen3-8B")?;
/// assert_eq!(local.endpoint(false), "http://127.0.0.1:8000/v1/responses");
/// # Ok::<(), lucid::Error>(())
/// ```
pub type OpenAiResponses = HttpModel<ResponsesCodec>;

impl HttpModel<ResponsesCodec> {
    /// A client for any Responses server at `base_url`.
    pub fn new(base_url: &str, api_key: Option<String>, model: &str) -> Result<Self> {
        openai::client_at(base_url, api_key, model, ResponsesCodec::default())
    }

    /// A client for a preset's default base URL, speaking the Responses API; it carries
    /// the record.
    pub fn from_preset(preset: &Provider, model: &str, api_key: Option<String>) -> Result<Self> {
        openai::client_for_record(preset, model, api_key, ResponsesCodec::for_record)
    }
}
