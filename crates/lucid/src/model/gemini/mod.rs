//! The Gemini API codec (`generateContent`, `streamGenerateContent?alt=sse`).
//!
//! Roles `user` / `model`; the system prompt as `systemInstruction`; tools as
//! `functionDeclarations` with their JSON Schema converted to the subset Gemini accepts
//! ([`schema()`]); tool results as `functionResponse` parts carrying the call's name (and
//! its id when Gemini sent one); a part's `thoughtSignature` sent back on that part. Gemini
//! sends no call ids, so ids are minted; `STOP` with function calls is a tool-call finish;
//! thinking tokens count as output. Vertex AI's streamed `partialArgs` are assembled by
//! JSON path.

use reqwest::header::{HeaderMap, HeaderName};
use serde_json::{Map, Value, json};

use crate::content::Part;
use crate::message::{FinishReason, Message};
use crate::model::ProviderError;
use crate::model::client::{Codec, HttpModel};
use crate::model::error::{ModelError, Result};
use crate::model::http::insert_secret;
use crate::model::retry::parse_proto_duration;
use crate::model::stream::is_minted;
use crate::model::{ChatRequest, ChatResponse, ResponseFormat, ToolChoice, wire_parts};

/// Maps Gemini's `finishReason` (and a prompt's `blockReason`).
///
/// ```
/// use lucid::{FinishReason, model::gemini::finish_reason};
/// assert_eq!(finish_reason("MAX_TOKENS"), FinishReason::Length);
/// assert_eq!(finish_reason("RECITATION"), FinishReason::ContentFilter);
/// assert_eq!(finish_reason("MALFORMED_FUNCTION_CALL"), FinishReason::Error);
/// ```
pub fn finish_reason(raw: &str) -> FinishReason {
    match raw {
        "STOP" => FinishReason::Stop,
        "MAX_TOKENS" => FinishReason::Length,
        "SAFETY" | "RECITATION" | "BLOCKLIST" | "PROHIBITED_CONTENT" | "SPII" | "IMAGE_SAFETY" => {
            FinishReason::ContentFilter
        }
        "MALFORMED_FUNCTION_CALL" => FinishReason::Error,
        _ => FinishReason::Other,
    }
}

mod partial_args;
mod schema;
mod stream;

pub use schema::schema;
pub use stream::GeminiStreamDecoder;

/// Encodes a request as the `generateContent` body.
///
/// ```
/// use lucid::model::{ChatOptions, ChatRequest, gemini};
/// let msgs = [lucid::Message::system("Be brief."), lucid::Message::user("Hi")];
/// let body = gemini::encode(&ChatRequest::new(&msgs, &[], &ChatOptions::default()));
/// assert_eq!(body["systemInstruction"]["parts"][0]["text"], "Be brief.");
/// assert_eq!(body["contents"][0], serde_json::json!({"role": "user", "parts": [{"text": "Hi"}]}));
/// ```
pub fn encode(req: &ChatRequest<'_>) -> Value {
    let o = req.options;
    let mut body = Map::new();
    let system: Vec<&str> = req
        .messages
        .iter()
        .filter_map(|m| match m {
            Message::System { content } if !content.is_empty() => Some(content.as_str()),
            _ => None,
        })
        .collect();
    if !system.is_empty() {
        body.insert("systemInstruction".into(), json!({"parts": [{"text": system.join("\n\n")}]}));
    }
    let mut contents: Vec<(&'static str, Vec<Value>)> = Vec::new();
    for m in req.messages {
        let (role, parts) = match m {
            Message::System { .. } => continue,
            Message::User { content, parts } if parts.is_empty() => ("user", vec![json!({"text": content})]),
            Message::User { parts, .. } => ("user", parts.iter().map(wire_parts::gemini_part).collect()),
            Message::Tool(r) => {
                let response = if r.is_error { json!({"error": r.content}) } else { json!({"result": r.content}) };
                let mut fr = json!({"name": r.name, "response": response});
                if !is_minted(&r.call_id) {
                    fr["id"] = json!(r.call_id);
                }
                // The images, documents and audio a tool returned follow its response as
                // parts of the same user turn.
                let mut out = vec![json!({"functionResponse": fr})];
                out.extend(r.parts.iter().filter(|p| !matches!(p, Part::Text { .. })).map(wire_parts::gemini_part));
                ("user", out)
            }
            Message::Assistant(a) => {
                let mut parts = Vec::new();
                if !a.content.is_empty() {
                    let mut p = json!({"text": a.content});
                    if let Some(sig) = a.reasoning.as_ref().and_then(|r| r.signature.as_ref()) {
                        p["thoughtSignature"] = json!(sig);
                    }
                    parts.push(p);
                }
                for c in &a.tool_calls {
                    let args = match c.parse_arguments() {
                        Ok(v @ Value::Object(_)) => v,
                        _ => json!({}),
                    };
                    let mut fc = json!({"name": c.name, "args": args});
                    if !is_minted(&c.id) {
                        fc["id"] = json!(c.id);
                    }
                    let mut p = json!({"functionCall": fc});
                    if let Some(sig) = &c.signature {
                        p["thoughtSignature"] = json!(sig);
                    }
                    parts.push(p);
                }
                ("model", parts)
            }
        };
        if parts.is_empty() {
            continue;
        }
        match contents.last_mut() {
            Some((r, existing)) if *r == role => existing.extend(parts),
            _ => contents.push((role, parts)),
        }
    }
    body.insert(
        "contents".into(),
        Value::Array(contents.into_iter().map(|(role, parts)| json!({"role": role, "parts": parts})).collect()),
    );
    if !req.tools.is_empty() {
        let decls: Vec<Value> = req
            .tools
            .iter()
            .map(|t| json!({"name": t.name(), "description": t.description(), "parameters": schema(t.parameters())}))
            .collect();
        body.insert("tools".into(), json!([{"functionDeclarations": decls}]));
    }
    if let Some(choice) = &o.tool_choice {
        let config = match choice {
            ToolChoice::Auto => json!({"mode": "AUTO"}),
            ToolChoice::None => json!({"mode": "NONE"}),
            ToolChoice::Required => json!({"mode": "ANY"}),
            ToolChoice::Tool(name) => json!({"mode": "ANY", "allowedFunctionNames": [name]}),
        };
        body.insert("toolConfig".into(), json!({"functionCallingConfig": config}));
    }
    let mut generation = Map::new();
    if let Some(t) = o.temperature {
        generation.insert("temperature".into(), json!(t));
    }
    if let Some(p) = o.top_p {
        generation.insert("topP".into(), json!(p));
    }
    if let Some(m) = o.max_tokens {
        generation.insert("maxOutputTokens".into(), json!(m));
    }
    if !o.stop.is_empty() {
        generation.insert("stopSequences".into(), json!(o.stop));
    }
    if let Some(s) = o.seed {
        generation.insert("seed".into(), json!(s));
    }
    match &o.response_format {
        Some(ResponseFormat::JsonObject) => {
            generation.insert("responseMimeType".into(), json!("application/json"));
        }
        Some(ResponseFormat::JsonSchema { schema: s, .. }) => {
            generation.insert("responseMimeType".into(), json!("application/json"));
            generation.insert("responseSchema".into(), schema(s));
        }
        _ => {}
    }
    if !generation.is_empty() {
        body.insert("generationConfig".into(), Value::Object(generation));
    }
    if let Some(extra) = &o.extra {
        for (k, v) in extra {
            body.insert(k.clone(), v.clone());
        }
    }
    Value::Object(body)
}

/// Decodes a non-streaming `generateContent` body.
pub fn decode(provider: &str, body: &[u8]) -> Result<ChatResponse> {
    let v: Value = serde_json::from_slice(body)
        .map_err(|e| ModelError::Decode { provider: provider.to_string(), message: e.to_string() })?;
    let mut d = GeminiStreamDecoder::new(provider);
    d.chunk(&v, &mut Vec::new())?;
    Ok(d.complete())
}

pub(super) fn error_from_value(provider: &str, status: Option<u16>, err: &Value) -> ProviderError {
    let message = err["message"].as_str().map_or_else(|| err.to_string(), str::to_string);
    let status = status.or_else(|| err["code"].as_u64().and_then(|c| u16::try_from(c).ok()));
    let mut e = ProviderError::new(provider, status, message);
    if let Some(t) = err["status"].as_str() {
        e = e.with_type(t);
    }
    let details = err["details"].as_array().map(Vec::as_slice).unwrap_or_default();
    let of_type = |suffix: &str| details.iter().find(|d| d["@type"].as_str().is_some_and(|t| t.ends_with(suffix)));
    if let Some(reason) = of_type("ErrorInfo").and_then(|d| d["reason"].as_str()) {
        e = e.with_code(reason);
    }
    let e =
        e.with_retry_after(of_type("RetryInfo").and_then(|d| d["retryDelay"].as_str()).and_then(parse_proto_duration));
    if per_day_quota(err) { e.quota_exhausted() } else { e }
}

/// Gemini's quota table: a `RESOURCE_EXHAUSTED` whose `QuotaFailure` names a per-day quota
/// (`GenerateRequestsPerDayPerProjectPerModel-FreeTier`, …) lasts until the day resets;
/// per-minute ones pass in seconds and are retried.
fn per_day_quota(err: &Value) -> bool {
    err["status"] == "RESOURCE_EXHAUSTED"
        && err["details"].as_array().is_some_and(|details| {
            details
                .iter()
                .filter(|d| d["@type"].as_str().is_some_and(|t| t.ends_with("QuotaFailure")))
                .flat_map(|d| d["violations"].as_array().map(Vec::as_slice).unwrap_or_default())
                .any(|v| v["quotaId"].as_str().is_some_and(|id| id.contains("PerDay")))
        })
}

/// Decodes an error body (google.rpc `{"error": {"code", "message", "status", "details"}}`,
/// also inside a JSON array as `streamGenerateContent` sends it).
///
/// ```
/// let e = lucid::model::gemini::decode_error("gemini", 429, br#"{"error": {"code": 429, "message": "Quota",
///   "status": "RESOURCE_EXHAUSTED", "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "26s"}]}}"#);
/// assert_eq!(e.retry_after, Some(std::time::Duration::from_secs(26)));
/// ```
pub fn decode_error(provider: &str, status: u16, body: &[u8]) -> ProviderError {
    let v: Option<Value> = serde_json::from_slice(body).ok();
    let err = v.as_ref().map(|v| if v.is_array() { &v[0] } else { v }).and_then(|v| v.get("error"));
    match err {
        Some(e) if e.is_object() => error_from_value(provider, Some(status), e),
        _ => ProviderError::new(provider, Some(status), String::from_utf8_lossy(body).trim().to_string()),
    }
}

/// The `generateContent` codec.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GeminiCodec;

impl Codec for GeminiCodec {
    type Stream = GeminiStreamDecoder;

    fn url(&self, base_url: &str, model: &str, stream: bool) -> String {
        let model = model.strip_prefix("models/").unwrap_or(model);
        if stream {
            format!("{base_url}/v1beta/models/{model}:streamGenerateContent?alt=sse")
        } else {
            format!("{base_url}/v1beta/models/{model}:generateContent")
        }
    }

    fn encode(&self, request: &ChatRequest<'_>, _model: &str, _stream: bool) -> Value {
        encode(request)
    }

    fn decode(&self, provider: &str, body: &[u8]) -> Result<ChatResponse> {
        decode(provider, body)
    }

    fn decode_error(&self, provider: &str, status: u16, body: &[u8]) -> ProviderError {
        decode_error(provider, status, body)
    }

    fn stream_decoder(&self, provider: &str) -> GeminiStreamDecoder {
        GeminiStreamDecoder::new(provider)
    }
}

/// A client for the Gemini API.
///
/// ```
/// use lucid::model::Gemini;
/// let g = Gemini::new("key", "gemini-2.5-flash").unwrap();
/// assert_eq!(g.endpoint(true),
///     "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse");
/// ```
pub type Gemini = HttpModel<GeminiCodec>;

impl HttpModel<GeminiCodec> {
    /// A client for `https://generativelanguage.googleapis.com` with this key.
    pub fn new(api_key: impl Into<String>, model: &str) -> Result<Self> {
        let mut headers = HeaderMap::new();
        insert_secret(&mut headers, HeaderName::from_static("x-goog-api-key"), &api_key.into())?;
        HttpModel::with_codec("gemini", "https://generativelanguage.googleapis.com", model, headers, GeminiCodec)
    }
}
