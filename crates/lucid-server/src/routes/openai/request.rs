//! A `/v1/chat/completions` request read the way the facade honours it: the messages
//! (the client's system messages placed by the agent's [`ClientSystem`]), the options
//! that reach the model, and a 400 naming any field whose meaning Lucid would lose.

use lucid::model::{ChatOptions, ResponseFormat, ToolChoice};
use std::collections::HashMap;
use std::sync::Arc;

use lucid::{Agent, AssistantMessage, Message, Tool, ToolResult};
use serde_json::Value;

use crate::ApiError;
use crate::body::JsonObject;
use crate::config::ClientSystem;

use super::client_tools::Shape;

/// Fields that only change how the answer is delivered, or that the facade reads itself.
const READ: &[&str] = &[
    "model",
    "messages",
    "stream",
    "stream_options",
    "temperature",
    "top_p",
    "max_tokens",
    "max_completion_tokens",
    "stop",
    "seed",
    "response_format",
    "tool_choice",
    "parallel_tool_calls",
    "reasoning_effort",
    "tools",
];

/// Fields OpenAI SDKs may send whose meaning nothing here loses: identifiers of the end
/// user and the caller's own labels (checked only for their type where a value would
/// change the answer: `n`, `logprobs`, `store`, the penalties, `logit_bias`,
/// `modalities`).
const HARMLESS: &[&str] = &[
    "user",
    "metadata",
    "store",
    "n",
    "logprobs",
    "top_logprobs",
    "frequency_penalty",
    "presence_penalty",
    "logit_bias",
    "modalities",
    "service_tier",
    "prompt_cache_key",
    "safety_identifier",
];

/// What a request asks of the agent: the history before the prompt, the prompt (none when
/// the history ends with the results of the client's tools), the system prompt to run
/// with, the options for the model, whether a streamed answer ends with OpenAI's usage
/// chunk, and the client's tools.
pub struct ChatRequest {
    pub history: Vec<Message>,
    pub prompt: Option<Vec<lucid::Part>>,
    pub system: Option<String>,
    pub options: ChatOptions,
    pub include_usage: bool,
    pub tools: Vec<Arc<dyn Tool>>,
}

impl ChatRequest {
    /// Reads `body` for `agent`, whose client system messages are treated as `mode` says.
    pub fn read(body: &JsonObject, agent: &Agent, mode: ClientSystem) -> Result<ChatRequest, ApiError> {
        known_fields(body, READ, HARMLESS)?;
        let stream = body.flag("stream")?;
        let include_usage = match body.0.get("stream_options") {
            None | Some(Value::Null) => false,
            Some(Value::Object(o)) if stream => {
                if let Some(k) = o.keys().find(|k| *k != "include_usage") {
                    return Err(ApiError::invalid(&format!("stream_options.{k}"), "not supported"));
                }
                match o.get("include_usage") {
                    None | Some(Value::Null) => false,
                    Some(Value::Bool(b)) => *b,
                    Some(_) => return Err(ApiError::invalid("stream_options.include_usage", "must be true or false")),
                }
            }
            Some(Value::Object(_)) => return Err(ApiError::invalid("stream_options", "only with `stream: true`")),
            Some(_) => return Err(ApiError::invalid("stream_options", "must be an object")),
        };
        let own: Vec<&str> = agent.tools().specs().iter().map(|s| s.name()).collect();
        let tools = super::client_tools::read(body.0.get("tools"), &own, Shape::Nested)?;
        let (client_system, history, prompt) = messages(body)?;
        let system = system_prompt(agent, mode, client_system)?;
        let mut names = own;
        names.extend(tools.iter().map(|t| t.spec().name()));
        let options = options(body, agent, &names)?;
        Ok(ChatRequest { history, prompt, system, options, include_usage, tools })
    }
}

/// The system prompt a run has when the client sent `client` (the field it came in, and
/// its text), placed as the agent's `mode` says: after the operator's prompt, instead of
/// it, or refused with a 400 naming the field.
pub(in crate::routes) fn system_prompt(
    agent: &Agent,
    mode: ClientSystem,
    client: Option<(String, String)>,
) -> Result<Option<String>, ApiError> {
    Ok(match (mode, client) {
        (_, None) => agent.system().map(str::to_string),
        (ClientSystem::Refuse, Some((field, _))) => {
            return Err(ApiError::invalid(
                &field,
                "this agent keeps its own system prompt and refuses a client's (client_system = \"refuse\")",
            ));
        }
        (ClientSystem::Replace, Some((_, text))) => Some(text),
        (ClientSystem::Append, Some((_, text))) => Some(match agent.system() {
            Some(own) if !own.trim().is_empty() => format!("{own}\n\n{text}"),
            _ => text,
        }),
    })
}

/// Refuses a field neither `read` (what the facade reads itself) nor `harmless`, and a
/// harmless one with a value whose meaning would be lost.
pub(super) fn known_fields(body: &JsonObject, read: &[&str], harmless_ones: &[&str]) -> Result<(), ApiError> {
    for (field, value) in &body.0 {
        if read.contains(&field.as_str()) {
            continue;
        }
        if !harmless_ones.contains(&field.as_str()) {
            return Err(ApiError::invalid(field, "not supported by this server (nothing would honour it)"));
        }
        harmless(field, value)?;
    }
    Ok(())
}

/// Accepts a harmless field only with a value whose meaning is kept.
fn harmless(field: &str, value: &Value) -> Result<(), ApiError> {
    let kept = match field {
        "n" => matches!(value, Value::Null) || value.as_u64() == Some(1),
        "logprobs" => matches!(value, Value::Null | Value::Bool(false)),
        "top_logprobs" => matches!(value, Value::Null) || value.as_u64() == Some(0),
        "store" => matches!(value, Value::Null | Value::Bool(false)),
        "frequency_penalty" | "presence_penalty" => matches!(value, Value::Null) || value.as_f64() == Some(0.0),
        "logit_bias" => matches!(value, Value::Null) || value.as_object().is_some_and(|o| o.is_empty()),
        "modalities" => matches!(value, Value::Null) || value.as_array().is_some_and(|a| a.iter().all(|m| m == "text")),
        _ => true,
    };
    if kept {
        return Ok(());
    }
    let why = match field {
        "n" => "only 1 answer per request",
        "store" => "nothing is stored: the client holds the conversation",
        "modalities" => "text only",
        _ => "not supported by this server (only its default is accepted)",
    };
    Err(ApiError::invalid(field, why))
}

/// The text of a message's `content`: a string, or text parts joined.
pub(in crate::routes) fn content_text(content: Option<&Value>, field: &str) -> Result<String, ApiError> {
    match content {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(Value::Array(parts)) => {
            let mut text = String::new();
            for (j, part) in parts.iter().enumerate() {
                match (part["type"].as_str(), part["text"].as_str()) {
                    (Some("text"), Some(t)) => text.push_str(t),
                    _ => {
                        return Err(ApiError::invalid(&format!("{field}[{j}]"), "only text parts are supported"));
                    }
                }
            }
            Ok(text)
        }
        Some(_) => Err(ApiError::invalid(field, "must be a string or an array of text parts")),
    }
}

/// The client's system and developer messages (joined, with the field of the first), the
/// rest as Lucid messages, and the prompt (the last message must be the user's, or the
/// result of a tool: then there is no prompt and the run goes on from the history).
pub(in crate::routes) type Read = (Option<(String, String)>, Vec<Message>, Option<Vec<lucid::Part>>);

/// A user message's `content`: a string, or parts — text, `image_url` (an `http(s)` or
/// base64 `data:` URL), `file` (a PDF's `file_data`), `input_audio` — each read by the
/// codec's own decoder; a part it cannot keep is a 400 naming it.
fn user_message(content: Option<&Value>, field: &str) -> Result<Message, ApiError> {
    let Some(Value::Array(parts)) =
        content.filter(|c| c.as_array().is_some_and(|a| a.iter().any(|p| p["type"] != "text")))
    else {
        // Text alone, joined as it always was.
        return Ok(Message::user(content_text(content, field)?));
    };
    let parts = parts
        .iter()
        .enumerate()
        .map(|(j, p)| {
            lucid::model::openai::decode_content_part(p).map_err(|e| ApiError::invalid(&format!("{field}[{j}]"), &e))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Message::user_parts(parts))
}

fn messages(body: &JsonObject) -> Result<Read, ApiError> {
    let list = match body.0.get("messages") {
        Some(Value::Array(list)) if !list.is_empty() => list,
        Some(Value::Array(_)) => return Err(ApiError::invalid("messages", "must not be empty")),
        Some(_) => return Err(ApiError::invalid("messages", "must be an array of messages")),
        None => return Err(ApiError::invalid("messages", "required")),
    };
    let mut system: Option<(String, String)> = None;
    let mut out = Vec::with_capacity(list.len());
    // Each call's tool by its id, the latest call of an id winning: a result finds its
    // call at once, however long the history (a scan per result is quadratic).
    let mut calls: HashMap<String, String> = HashMap::new();
    for (i, m) in list.iter().enumerate() {
        let field = format!("messages[{i}].content");
        if m["role"] == "user" {
            out.push(user_message(m.get("content"), &field)?);
            continue;
        }
        let text = content_text(m.get("content"), &field)?;
        match m["role"].as_str() {
            Some("system" | "developer") => join_system(&mut system, || format!("messages[{i}].role"), text),
            Some("assistant") => {
                let tool_calls = super::client_tools::calls_of(m, i)?;
                calls.extend(tool_calls.iter().map(|c| (c.id.clone(), c.name.clone())));
                out.push(Message::Assistant(AssistantMessage { content: text, tool_calls, reasoning: None }));
            }
            Some("tool") => {
                let field = format!("messages[{i}].tool_call_id");
                let id = m["tool_call_id"].as_str().ok_or_else(|| ApiError::invalid(&field, "required"))?;
                let name = calls.get(id).cloned();
                let name = name.ok_or_else(|| ApiError::invalid(&field, &format!("no earlier tool call `{id}`")))?;
                out.push(Message::Tool(ToolResult {
                    call_id: id.to_string(),
                    name,
                    content: text,
                    parts: Vec::new(),
                    is_error: false,
                }));
            }
            _ => {
                return Err(ApiError::invalid(
                    &format!("messages[{i}].role"),
                    "must be system, developer, user, assistant or tool",
                ));
            }
        }
    }
    split_prompt(system, out, "messages", "the last message must be the user's or a tool result")
}

/// Adds a client's system or developer `text` to what came before (`system`: the field of
/// the first, `at()` when this is it, and the texts joined by a blank line).
pub(in crate::routes) fn join_system(system: &mut Option<(String, String)>, at: impl FnOnce() -> String, text: String) {
    match system {
        Some((_, all)) => {
            all.push_str("\n\n");
            all.push_str(&text);
        }
        None => *system = Some((at(), text)),
    }
}

/// The client's system text, the history and the prompt: the last message, the user's,
/// taken off the history as the prompt; after a tool's result there is none (the run
/// goes on from the history); after anything else, a 400 at `field` saying `problem`.
pub(in crate::routes) fn split_prompt(
    system: Option<(String, String)>,
    mut out: Vec<Message>,
    field: &str,
    problem: &str,
) -> Result<Read, ApiError> {
    match out.last() {
        Some(Message::Tool(_)) => Ok((system, out, None)),
        Some(Message::User { .. }) => {
            let prompt = out.pop().map(|m| m.parts()).unwrap_or_default();
            Ok((system, out, Some(prompt)))
        }
        _ => Err(ApiError::invalid(field, problem)),
    }
}

/// The agent's options with the request's sampling, length, format and tool settings.
fn options(body: &JsonObject, agent: &Agent, tools: &[&str]) -> Result<ChatOptions, ApiError> {
    let mut o = shared_options(body, agent, tools, &["max_tokens", "max_completion_tokens"], Shape::Nested)?;
    let get = |f: &str| body.0.get(f).filter(|v| !v.is_null());
    if let Some(v) = get("stop") {
        o.stop = match v {
            Value::String(s) => vec![s.clone()],
            Value::Array(a) if a.len() <= 4 => a
                .iter()
                .map(|s| s.as_str().map(str::to_string))
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| ApiError::invalid("stop", "must be a string or an array of strings"))?,
            _ => return Err(ApiError::invalid("stop", "must be a string or an array of at most 4 strings")),
        };
    }
    if let Some(v) = get("seed") {
        o.seed = Some(v.as_i64().ok_or_else(|| ApiError::invalid("seed", "must be an integer"))?);
    }
    if let Some(v) = get("reasoning_effort") {
        let effort = v.as_str().ok_or_else(|| ApiError::invalid("reasoning_effort", "must be a string"))?;
        o.reasoning_effort = Some(effort.to_string());
    }
    if let Some(v) = get("response_format") {
        o.response_format = Some(response_format(v)?);
    }
    Ok(o)
}

/// The agent's options with what both APIs ask alike: `temperature`, `top_p`, the most
/// tokens (in the fields `max`), `parallel_tool_calls`, and `tool_choice` (written as
/// `shape` writes tools) among the `tools` named.
pub(super) fn shared_options(
    body: &JsonObject,
    agent: &Agent,
    tools: &[&str],
    max: &[&str],
    shape: Shape,
) -> Result<ChatOptions, ApiError> {
    let mut o = agent.options().clone();
    let get = |f: &str| body.0.get(f).filter(|v| !v.is_null());
    if let Some(v) = get("temperature") {
        o.temperature = Some(number(v, "temperature", 0.0, 2.0)?);
    }
    if let Some(v) = get("top_p") {
        o.top_p = Some(number(v, "top_p", 0.0, 1.0)?);
    }
    for &field in max {
        if let Some(v) = get(field) {
            let n = v.as_u64().filter(|n| *n >= 1 && *n <= u64::from(u32::MAX));
            o.max_tokens = Some(n.ok_or_else(|| ApiError::invalid(field, "must be a positive integer"))? as u32);
        }
    }
    if let Some(v) = get("parallel_tool_calls") {
        let b = v.as_bool().ok_or_else(|| ApiError::invalid("parallel_tool_calls", "must be true or false"))?;
        o.parallel_tool_calls = Some(b);
    }
    if let Some(v) = get("tool_choice") {
        o.tool_choice = Some(choose_tool(v, tools, shape)?);
    }
    Ok(o)
}

fn number(v: &Value, field: &str, min: f64, max: f64) -> Result<f64, ApiError> {
    v.as_f64()
        .filter(|x| (min..=max).contains(x))
        .ok_or_else(|| ApiError::invalid(field, &format!("must be a number from {min} to {max}")))
}

/// `{"type": "text" | "json_object"}` or `{"type": "json_schema", "json_schema": {name,
/// schema, strict}}`.
fn response_format(v: &Value) -> Result<ResponseFormat, ApiError> {
    text_format(v, &v["json_schema"], "response_format", "response_format.json_schema")
}

/// A format as both APIs write it: `v["type"]` (at `at`) is `text`, `json_object` or
/// `json_schema`, and then `spec` (at `spec_at`) has the schema's `name`, `schema` and
/// `strict`.
pub(super) fn text_format(v: &Value, spec: &Value, at: &str, spec_at: &str) -> Result<ResponseFormat, ApiError> {
    match v["type"].as_str() {
        Some("text") => Ok(ResponseFormat::Text),
        Some("json_object") => Ok(ResponseFormat::JsonObject),
        Some("json_schema") => {
            let name = spec["name"]
                .as_str()
                .filter(|n| !n.is_empty())
                .ok_or_else(|| ApiError::invalid(&format!("{spec_at}.name"), "required"))?;
            let schema = match &spec["schema"] {
                Value::Object(_) => spec["schema"].clone(),
                Value::Null => serde_json::json!({"type": "object"}),
                _ => return Err(ApiError::invalid(&format!("{spec_at}.schema"), "must be an object")),
            };
            let strict = spec["strict"].as_bool().unwrap_or(false);
            Ok(ResponseFormat::JsonSchema { name: name.to_string(), schema, strict })
        }
        _ => Err(ApiError::invalid(&format!("{at}.type"), "must be text, json_object or json_schema")),
    }
}

/// `tool_choice` as either API writes it: `none`, `auto`, `required`, or a function tool
/// named (as `shape` writes it) among `names`.
fn choose_tool(v: &Value, names: &[&str], shape: Shape) -> Result<ToolChoice, ApiError> {
    let (name, field, form) = match shape {
        Shape::Nested => {
            (&v["function"]["name"], "tool_choice.function.name", r#"{"type": "function", "function": {"name": …}}"#)
        }
        Shape::Flat => (&v["name"], "tool_choice.name", r#"{"type": "function", "name": …}"#),
    };
    let choice = match v {
        Value::String(s) if s == "none" => return Ok(ToolChoice::None),
        Value::String(s) if s == "auto" => return Ok(ToolChoice::Auto),
        Value::String(s) if s == "required" => ToolChoice::Required,
        Value::Object(_) if v["type"] == "function" => match name.as_str() {
            Some(name) if names.contains(&name) => ToolChoice::Tool(name.to_string()),
            Some(name) => {
                return Err(ApiError::invalid(field, &format!("no tool `{name}` (tools: {})", names.join(", "))));
            }
            None => return Err(ApiError::invalid(field, "required")),
        },
        _ => return Err(ApiError::invalid("tool_choice", &format!("must be none, auto, required or {form}"))),
    };
    if names.is_empty() {
        return Err(ApiError::invalid("tool_choice", "this agent has no tools to call"));
    }
    Ok(choice)
}
