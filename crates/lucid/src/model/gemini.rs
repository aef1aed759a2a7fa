//! The Gemini API codec (`generateContent`, `streamGenerateContent?alt=sse`).
//!
//! Roles `user` / `model`; the system prompt as `systemInstruction`; tools as
//! `functionDeclarations` with their JSON Schema converted to the subset Gemini accepts
//! ([`schema`]); tool results as `functionResponse` parts carrying the call's name (and
//! its id when Gemini sent one); a part's `thoughtSignature` sent back on that part. Gemini
//! sends no call ids, so ids are minted; `STOP` with function calls is a tool-call finish;
//! thinking tokens count as output. Vertex AI's streamed `partialArgs` are assembled by
//! JSON path.

use reqwest::header::{HeaderMap, HeaderName};
use serde_json::{Map, Value, json};

use crate::error::{Error, ProviderError, Result};
use crate::message::{FinishReason, Message, Usage};
use crate::model::client::{Codec, HttpModel};
use crate::model::http::{StreamDecoder, insert_secret};
use crate::model::retry::parse_proto_duration;
use crate::model::sse::SseEvent;
use crate::model::stream::{Assembler, is_minted};
use crate::model::{ChatRequest, ChatResponse, ResponseFormat, StreamEvent, ToolChoice};

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

const TYPES: &[&str] = &["string", "number", "integer", "boolean", "array", "object"];

/// Converts a JSON Schema to the subset Gemini's `parameters` accept: `$ref`s inlined,
/// `["T", "null"]` and `anyOf [T, null]` as `nullable`, `oneOf` as `anyOf`, `const` as a
/// one-value `enum`, types upper-cased, and unsupported keywords (`$schema`, `$defs`,
/// `additionalProperties`, unknown `format`s, …) dropped.
///
/// ```
/// use serde_json::json;
/// let s = json!({"type": "object", "properties": {"n": {"type": ["integer", "null"], "format": "uint8"}},
///                "additionalProperties": false});
/// assert_eq!(lucid::model::gemini::schema(&s),
///            json!({"type": "OBJECT", "properties": {"n": {"type": "INTEGER", "nullable": true}}}));
/// ```
pub fn schema(s: &Value) -> Value {
    convert(s, s, 0)
}

fn convert(node: &Value, root: &Value, depth: usize) -> Value {
    let Value::Object(s) = node else { return json!({}) };
    if depth > 16 {
        return json!({"type": "OBJECT"});
    }
    if let Some(target) =
        s.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix('#')).and_then(|p| root.pointer(p))
    {
        let mut merged = convert(target, root, depth + 1);
        if let (Some(d), Value::Object(m)) = (s.get("description"), &mut merged) {
            m.insert("description".into(), d.clone());
        }
        return merged;
    }
    let mut out = Map::new();
    let mut nullable = s.get("nullable").and_then(Value::as_bool).unwrap_or(false);
    let mut types: Vec<String> = match s.get("type") {
        Some(Value::String(t)) => vec![t.clone()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).map(str::to_string).collect(),
        _ => vec![],
    };
    if types.iter().any(|t| t == "null") {
        nullable = true;
        types.retain(|t| t != "null");
    }
    let mut variants: Vec<Value> =
        s.get("anyOf").or_else(|| s.get("oneOf")).and_then(Value::as_array).map(|v| v.to_vec()).unwrap_or_default();
    if variants.iter().any(|v| v.get("type").and_then(Value::as_str) == Some("null")) {
        nullable = true;
        variants.retain(|v| v.get("type").and_then(Value::as_str) != Some("null"));
    }
    if let Some(all) = s.get("allOf").and_then(Value::as_array).filter(|a| a.len() == 1) {
        variants.push(all[0].clone());
    }
    if variants.len() == 1 && types.is_empty() {
        let mut inner = convert(&variants[0], root, depth + 1);
        if let Value::Object(m) = &mut inner {
            if nullable {
                m.insert("nullable".into(), json!(true));
            }
            if let Some(d) = s.get("description") {
                m.insert("description".into(), d.clone());
            }
        }
        return inner;
    }
    match types.len() {
        0 => {}
        1 => {
            out.insert("type".into(), json!(types[0].to_uppercase()));
        }
        _ => {
            variants = types.iter().filter(|t| TYPES.contains(&t.as_str())).map(|t| json!({"type": t})).collect();
        }
    }
    if !variants.is_empty() {
        out.insert("anyOf".into(), Value::Array(variants.iter().map(|v| convert(v, root, depth + 1)).collect()));
    }
    if nullable {
        out.insert("nullable".into(), json!(true));
    }
    let ty = types.first().map(String::as_str).unwrap_or("");
    for (k, v) in s {
        match k.as_str() {
            "description" | "minItems" | "maxItems" | "minimum" | "maximum" | "minLength" | "maxLength" | "pattern"
            | "minProperties" | "maxProperties" | "propertyOrdering" | "example" => {
                out.insert(k.clone(), v.clone());
            }
            "format" => {
                let ok = matches!(
                    (ty, v.as_str().unwrap_or("")),
                    ("integer", "int32" | "int64") | ("number", "float" | "double") | ("string", "enum" | "date-time")
                );
                if ok {
                    out.insert(k.clone(), v.clone());
                }
            }
            "enum" => {
                if let Some(vals) = v.as_array().filter(|a| a.iter().all(Value::is_string)) {
                    out.insert("enum".into(), Value::Array(vals.clone()));
                }
            }
            "const" if v.is_string() => {
                out.insert("enum".into(), json!([v]));
            }
            "properties" => {
                let props: Map<String, Value> = v
                    .as_object()
                    .map(|p| p.iter().map(|(n, ps)| (n.clone(), convert(ps, root, depth + 1))).collect())
                    .unwrap_or_default();
                out.insert("properties".into(), Value::Object(props));
            }
            "required" if v.as_array().is_some_and(|a| !a.is_empty()) => {
                out.insert(k.clone(), v.clone());
            }
            "items" => {
                out.insert("items".into(), convert(v, root, depth + 1));
            }
            _ => {}
        }
    }
    Value::Object(out)
}

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
            Message::User { content } => ("user", vec![json!({"text": content})]),
            Message::Tool(r) => {
                let response = if r.is_error { json!({"error": r.content}) } else { json!({"result": r.content}) };
                let mut fr = json!({"name": r.name, "response": response});
                if !is_minted(&r.call_id) {
                    fr["id"] = json!(r.call_id);
                }
                ("user", vec![json!({"functionResponse": fr})])
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

/// A call whose arguments arrive as `partialArgs` (Vertex AI).
#[derive(Debug)]
struct PartialCall {
    id: Option<String>,
    name: String,
    args: Value,
    signature: Option<String>,
}

/// Accumulates `GenerateContentResponse` chunks (one for `generateContent`, many for a
/// stream) into one answer.
#[derive(Debug)]
pub struct GeminiStreamDecoder {
    provider: String,
    asm: Assembler,
    calls: u64,
    partial: Option<PartialCall>,
    blocked: bool,
}

impl GeminiStreamDecoder {
    /// A decoder for one answer from `provider`.
    pub fn new(provider: &str) -> Self {
        GeminiStreamDecoder {
            provider: provider.to_string(),
            asm: Assembler::default(),
            calls: 0,
            partial: None,
            blocked: false,
        }
    }

    /// Feeds one `GenerateContentResponse`.
    pub fn chunk(&mut self, v: &Value, out: &mut Vec<StreamEvent>) -> Result<()> {
        if let Some(err) = v.get("error") {
            return Err(error_from_value(&self.provider, None, err).into());
        }
        if let Some(m) = v["modelVersion"].as_str() {
            self.asm.set_model(m);
        }
        if let Some(u) = v.get("usageMetadata").filter(|u| u.is_object()) {
            let n = |k: &str| u[k].as_u64().unwrap_or(0);
            let thoughts = n("thoughtsTokenCount");
            self.asm.set_usage(Usage {
                input_tokens: n("promptTokenCount"),
                output_tokens: n("candidatesTokenCount") + thoughts,
                reasoning_tokens: thoughts,
                cached_input_tokens: n("cachedContentTokenCount"),
                ..Usage::default()
            });
        }
        if let Some(reason) = v["promptFeedback"]["blockReason"].as_str() {
            self.blocked = true;
            self.asm.set_finish(reason);
        }
        let Some(candidate) = v["candidates"].get(0) else { return Ok(()) };
        for part in candidate["content"]["parts"].as_array().into_iter().flatten() {
            self.part(part, out);
        }
        if let Some(reason) = candidate["finishReason"].as_str() {
            self.asm.set_finish(reason);
        }
        Ok(())
    }

    fn part(&mut self, part: &Value, out: &mut Vec<StreamEvent>) {
        let signature = part["thoughtSignature"].as_str();
        if let Some(fc) = part.get("functionCall") {
            self.function_call(fc, signature, out);
            return;
        }
        if let Some(text) = part["text"].as_str() {
            if part["thought"].as_bool() == Some(true) {
                self.asm.reasoning(text, out);
            } else {
                self.asm.text(text, out);
            }
        }
        if let Some(sig) = signature {
            self.asm.reasoning_signature(sig);
        }
    }

    fn function_call(&mut self, fc: &Value, signature: Option<&str>, out: &mut Vec<StreamEvent>) {
        let name = fc["name"].as_str().filter(|n| !n.is_empty());
        let will_continue = fc["willContinue"].as_bool() == Some(true);
        let partial_args = fc["partialArgs"].as_array();
        if let (Some(name), true) = (name, will_continue || partial_args.is_some()) {
            self.close_partial(out);
            self.partial = Some(PartialCall {
                id: fc["id"].as_str().map(str::to_string),
                name: name.to_string(),
                args: json!({}),
                signature: signature.map(str::to_string),
            });
        }
        if let Some(args) = partial_args {
            if let Some(p) = &mut self.partial {
                for a in args {
                    apply_partial(&mut p.args, a);
                }
            }
            return;
        }
        match name {
            Some(_) if will_continue => {}
            Some(name) => {
                self.close_partial(out);
                let args = fc.get("args").filter(|a| !a.is_null()).map_or_else(|| "{}".to_string(), Value::to_string);
                let index = self.next_index();
                self.asm.tool_call(Some(index), fc["id"].as_str(), Some(name), Some(&args), out);
                if let Some(sig) = signature {
                    self.asm.tool_call_signature(sig);
                }
            }
            None if !will_continue => self.close_partial(out),
            None => {}
        }
    }

    fn next_index(&mut self) -> u64 {
        self.calls += 1;
        self.calls - 1
    }

    fn close_partial(&mut self, out: &mut Vec<StreamEvent>) {
        if let Some(p) = self.partial.take() {
            let index = self.next_index();
            self.asm.tool_call(Some(index), p.id.as_deref(), Some(&p.name), Some(&p.args.to_string()), out);
            if let Some(sig) = &p.signature {
                self.asm.tool_call_signature(sig);
            }
        }
    }

    fn complete(mut self) -> ChatResponse {
        self.close_partial(&mut Vec::new());
        self.asm.finish(finish_reason)
    }
}

/// Sets one `partialArgs` entry: `jsonPath` like `$.recipe.ingredients[3].name`; string
/// values for the same path are concatenated.
fn apply_partial(args: &mut Value, arg: &Value) {
    let Some(path) = arg["jsonPath"].as_str().and_then(|p| p.strip_prefix('$')) else { return };
    let mut keys: Vec<Result<usize, String>> = Vec::new();
    for seg in path.split('.').filter(|s| !s.is_empty()) {
        let (name, rest) = seg.split_once('[').map_or((seg, ""), |(n, r)| (n, r));
        if !name.is_empty() {
            keys.push(Err(name.to_string()));
        }
        for idx in rest.split('[').filter(|s| !s.is_empty()) {
            if let Ok(i) = idx.trim_end_matches(']').parse::<usize>() {
                keys.push(Ok(i));
            }
        }
    }
    let mut node = args;
    for key in keys {
        node = match key {
            Err(name) => {
                if !node.is_object() {
                    *node = json!({});
                }
                node.as_object_mut().map(|m| m.entry(name).or_insert(Value::Null)).unwrap_or_else(|| unreachable!())
            }
            Ok(i) => {
                if !node.is_array() {
                    *node = json!([]);
                }
                let arr = node.as_array_mut().unwrap_or_else(|| unreachable!());
                while arr.len() <= i {
                    arr.push(Value::Null);
                }
                &mut arr[i]
            }
        };
    }
    if let Some(s) = arg.get("stringValue").and_then(Value::as_str) {
        match node {
            Value::String(existing) => existing.push_str(s),
            other => *other = json!(s),
        }
    } else if let Some(n) = arg.get("numberValue") {
        *node = n.clone();
    } else if let Some(b) = arg.get("boolValue") {
        *node = b.clone();
    } else if arg.get("nullValue").is_some() {
        *node = Value::Null;
    }
}

impl StreamDecoder for GeminiStreamDecoder {
    fn event(&mut self, event: &SseEvent, out: &mut Vec<StreamEvent>) -> Result<()> {
        let v: Value = serde_json::from_str(&event.data).map_err(|e| Error::Decode {
            provider: self.provider.clone(),
            message: format!("{e} in stream event {}", event.data),
        })?;
        self.chunk(&v, out)
    }

    fn finish(self) -> Result<ChatResponse> {
        if !self.asm.has_finish() {
            return Err(Error::StreamTruncated {
                provider: self.provider,
                message: "the body ended without a finishReason".into(),
            });
        }
        Ok(self.complete())
    }
}

/// Decodes a non-streaming `generateContent` body.
pub fn decode(provider: &str, body: &[u8]) -> Result<ChatResponse> {
    let v: Value = serde_json::from_slice(body)
        .map_err(|e| Error::Decode { provider: provider.to_string(), message: e.to_string() })?;
    let mut d = GeminiStreamDecoder::new(provider);
    d.chunk(&v, &mut Vec::new())?;
    Ok(d.complete())
}

fn error_from_value(provider: &str, status: Option<u16>, err: &Value) -> ProviderError {
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
    e.with_retry_after(of_type("RetryInfo").and_then(|d| d["retryDelay"].as_str()).and_then(parse_proto_duration))
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

    fn decode_error(provider: &str, status: u16, body: &[u8]) -> ProviderError {
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
