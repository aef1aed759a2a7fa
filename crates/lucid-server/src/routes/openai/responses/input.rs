//! A `/v1/responses` request read the way the facade honours it: the input items (and the
//! stored conversation of `previous_response_id`) as Lucid messages, `instructions` and
//! the input's system messages placed by the agent's [`ClientSystem`], the options that
//! reach the model, and a 400 naming any field whose meaning Lucid would lose.

use std::collections::HashMap;
use std::sync::Arc;

use lucid::model::ChatOptions;
use lucid::{Agent, AssistantMessage, Message, Tool, ToolCall, ToolResult};
use serde_json::Value;

use super::super::client_tools::{self, Shape};
use super::super::request::{
    Read, join_system, known_fields, shared_options, split_prompt, system_prompt, text_format,
};
use crate::ApiError;
use crate::body::JsonObject;
use crate::config::ClientSystem;

/// Fields the facade reads itself.
const READ: &[&str] = &[
    "model",
    "input",
    "instructions",
    "stream",
    "stream_options",
    "tools",
    "tool_choice",
    "parallel_tool_calls",
    "text",
    "temperature",
    "top_p",
    "max_output_tokens",
    "metadata",
    "store",
    "previous_response_id",
    "reasoning",
    "include",
    "truncation",
    "background",
    "max_tool_calls",
];

/// Fields whose meaning nothing here loses (labels of the caller and its end user), or
/// accepted only with the value that changes nothing (`top_logprobs`).
const HARMLESS: &[&str] = &["user", "service_tier", "prompt_cache_key", "safety_identifier", "top_logprobs"];

/// What a Responses request asks of the agent. `history` is everything before the prompt
/// (the stored conversation first); `prompt` is `None` when the input ends with the
/// results of the client's tools, and the run goes on from them.
pub struct ResponsesRequest {
    pub history: Vec<Message>,
    pub prompt: Option<Vec<lucid::Part>>,
    pub system: Option<String>,
    pub options: ChatOptions,
    pub tools: Vec<Arc<dyn Tool>>,
    pub store: bool,
}

impl ResponsesRequest {
    /// Reads `body` for `agent` (client system text treated as `mode` says), after
    /// `stored`, the conversation of `previous_response_id`.
    pub fn read(
        body: &JsonObject,
        agent: &Agent,
        mode: ClientSystem,
        stored: Vec<Message>,
    ) -> Result<ResponsesRequest, ApiError> {
        known_fields(body, READ, HARMLESS)?;
        refuse_unless(body, "background", |v| matches!(v, Value::Bool(false)), "runs answer in the request only")?;
        refuse_unless(body, "max_tool_calls", |_| false, "not supported (the agent's max_iterations bounds a run)")?;
        refuse_unless(body, "truncation", |v| v == "disabled", "only `disabled` (Lucid manages its own context)")?;
        refuse_unless(body, "include", |v| v.as_array().is_some_and(Vec::is_empty), "nothing extra can be included")?;
        if let Some(Value::Object(o)) = body.0.get("stream_options") {
            if let Some(k) = o.keys().find(|k| *k != "include_obfuscation") {
                return Err(ApiError::invalid(&format!("stream_options.{k}"), "not supported"));
            }
        } else {
            refuse_unless(body, "stream_options", |_| false, "must be an object")?;
        }
        let store = body.flag("store")?;
        let own: Vec<&str> = agent.tools().specs().iter().map(|s| s.name()).collect();
        let tools = client_tools::read(body.0.get("tools"), &own, Shape::Flat)?;
        let (client_system, mut history, prompt) = input(body, stored)?;
        let client_system = match (body.0.get("instructions"), client_system) {
            (Some(Value::String(text)), rest) if !text.trim().is_empty() => Some((
                "instructions".to_string(),
                match rest {
                    Some((_, more)) => format!("{text}\n\n{more}"),
                    None => text.clone(),
                },
            )),
            (None | Some(Value::Null | Value::String(_)), rest) => rest,
            (Some(_), _) => return Err(ApiError::invalid("instructions", "must be a string")),
        };
        let system = system_prompt(agent, mode, client_system)?;
        history.retain(|m| !matches!(m, Message::System { .. }));
        let mut names = own;
        names.extend(tools.iter().map(|t| t.spec().name()));
        let options = options(body, agent, &names)?;
        Ok(ResponsesRequest { history, prompt, system, options, tools, store })
    }
}

/// A 400 naming `field` when it has a value other than null for which `kept` is false.
fn refuse_unless(body: &JsonObject, field: &str, kept: impl Fn(&Value) -> bool, why: &str) -> Result<(), ApiError> {
    match body.0.get(field) {
        Some(v) if !v.is_null() && !kept(v) => Err(ApiError::invalid(field, why)),
        _ => Ok(()),
    }
}

/// The text of a message item's `content`: a string, or text parts (`input_text`, and
/// `output_text` in an assistant's message) joined.
fn content_text(content: &Value, field: &str) -> Result<String, ApiError> {
    match content {
        Value::Null => Ok(String::new()),
        Value::String(s) => Ok(s.clone()),
        Value::Array(parts) => {
            let mut text = String::new();
            for (j, part) in parts.iter().enumerate() {
                match (part["type"].as_str(), part["text"].as_str()) {
                    (Some("input_text" | "output_text"), Some(t)) => text.push_str(t),
                    (Some("refusal"), _) => text.push_str(part["refusal"].as_str().unwrap_or_default()),
                    _ => {
                        return Err(ApiError::invalid(
                            &format!("{field}[{j}].type"),
                            "only input_text and output_text parts are supported",
                        ));
                    }
                }
            }
            Ok(text)
        }
        _ => Err(ApiError::invalid(field, "must be a string or an array of text parts")),
    }
}

/// A user message's or a function output's content: a string, or `input_text`,
/// `input_image` and `input_file` parts, each read by the codec's own decoder; a part it
/// cannot keep (an uploaded file's id) is a 400 naming it.
fn input_parts(content: &Value, field: &str) -> Result<Vec<lucid::Part>, ApiError> {
    let text_only = |a: &[Value]| a.iter().all(|p| matches!(p["type"].as_str(), Some("input_text" | "output_text")));
    let Value::Array(parts) = content.clone() else {
        return Ok(vec![lucid::Part::text(content_text(content, field)?)]);
    };
    if text_only(&parts) {
        // Text alone, joined as it always was.
        return Ok(vec![lucid::Part::text(content_text(content, field)?)]);
    }
    parts
        .iter()
        .enumerate()
        .map(|(j, p)| {
            lucid::model::openai_responses::decode_input_part(p)
                .map_err(|e| ApiError::invalid(&format!("{field}[{j}]"), &e))
        })
        .collect()
}

/// `input`: a string (the prompt), or items — messages, `function_call`s and their
/// `function_call_output`s — after the `stored` conversation.
fn input(body: &JsonObject, stored: Vec<Message>) -> Result<Read, ApiError> {
    let list = match body.0.get("input") {
        Some(Value::String(s)) => return Ok((None, stored, Some(vec![lucid::Part::text(s.clone())]))),
        Some(Value::Array(list)) if !list.is_empty() => list,
        Some(Value::Array(_)) => return Err(ApiError::invalid("input", "must not be empty")),
        Some(_) => return Err(ApiError::invalid("input", "must be a string or an array of input items")),
        None => return Err(ApiError::invalid("input", "required")),
    };
    let mut system: Option<(String, String)> = None;
    let mut out = stored;
    // Each call's tool by its id, the latest call of an id winning: an output finds its
    // call at once, however long the history (a scan per output is quadratic).
    let mut calls: HashMap<String, String> = out
        .iter()
        .filter_map(|m| match m {
            Message::Assistant(a) => Some(a.tool_calls.iter().map(|c| (c.id.clone(), c.name.clone()))),
            _ => None,
        })
        .flatten()
        .collect();
    for (i, item) in list.iter().enumerate() {
        let kind = item["type"].as_str().unwrap_or(if item.get("role").is_some() { "message" } else { "" });
        match kind {
            "message" if item["role"] == "user" => {
                let parts = input_parts(&item["content"], &format!("input[{i}].content"))?;
                out.push(Message::user_parts(parts));
            }
            "message" => {
                let text = content_text(&item["content"], &format!("input[{i}].content"))?;
                match item["role"].as_str() {
                    Some("system" | "developer") => join_system(&mut system, || format!("input[{i}].role"), text),
                    Some("assistant") => out.push(Message::Assistant(AssistantMessage {
                        content: text,
                        tool_calls: vec![],
                        reasoning: None,
                    })),
                    _ => {
                        return Err(ApiError::invalid(
                            &format!("input[{i}].role"),
                            "must be system, developer, user or assistant",
                        ));
                    }
                }
            }
            "function_call" => {
                let call = match (item["call_id"].as_str(), item["name"].as_str(), &item["arguments"]) {
                    (Some(id), Some(name), Value::String(args)) => ToolCall {
                        id: id.to_string(),
                        name: name.to_string(),
                        arguments: args.clone(),
                        signature: None,
                    },
                    _ => {
                        return Err(ApiError::invalid(
                            &format!("input[{i}]"),
                            "a function_call needs `call_id`, `name` and `arguments` (a string)",
                        ));
                    }
                };
                calls.insert(call.id.clone(), call.name.clone());
                // Calls of one step follow the step's text: they join the assistant's
                // message before them, if it has no results yet.
                match out.last_mut() {
                    Some(Message::Assistant(a)) => a.tool_calls.push(call),
                    _ => out.push(Message::Assistant(AssistantMessage {
                        content: String::new(),
                        tool_calls: vec![call],
                        reasoning: None,
                    })),
                }
            }
            "function_call_output" => {
                let field = format!("input[{i}].call_id");
                let id = item["call_id"].as_str().ok_or_else(|| ApiError::invalid(&field, "required"))?;
                let name = calls.get(id).cloned();
                let name =
                    name.ok_or_else(|| ApiError::invalid(&field, &format!("no earlier function_call `{id}`")))?;
                // An output may be a list of parts: text, images, files.
                let parts = input_parts(&item["output"], &format!("input[{i}].output"))?;
                out.push(Message::Tool(ToolResult::with_parts(id, name, parts)));
            }
            other => {
                return Err(ApiError::invalid(
                    &format!("input[{i}].type"),
                    &format!(
                        "`{other}` is not supported (messages with text, function_call and function_call_output are)"
                    ),
                ));
            }
        }
    }
    split_prompt(system, out, "input", "the last item must be the user's message or a function_call_output")
}

/// The agent's options with the request's sampling, length, format and tool settings.
fn options(body: &JsonObject, agent: &Agent, tools: &[&str]) -> Result<ChatOptions, ApiError> {
    let mut o = shared_options(body, agent, tools, &["max_output_tokens"], Shape::Flat)?;
    let get = |f: &str| body.0.get(f).filter(|v| !v.is_null());
    if let Some(v) = get("reasoning") {
        let r = v.as_object().ok_or_else(|| ApiError::invalid("reasoning", "must be an object"))?;
        for (k, v) in r {
            match (k.as_str(), v) {
                (_, Value::Null) => {}
                ("effort", Value::String(e)) => o.reasoning_effort = Some(e.clone()),
                ("effort", _) => return Err(ApiError::invalid("reasoning.effort", "must be a string")),
                (k, _) => {
                    return Err(ApiError::invalid(&format!("reasoning.{k}"), "not supported (only `effort` is)"));
                }
            }
        }
    }
    if let Some(v) = get("text") {
        let t = v.as_object().ok_or_else(|| ApiError::invalid("text", "must be an object"))?;
        for (k, v) in t {
            match (k.as_str(), v) {
                (_, Value::Null) => {}
                ("format", f) => o.response_format = Some(text_format(f, f, "text.format", "text.format")?),
                ("verbosity", v) if v == "medium" => {}
                ("verbosity", _) => {
                    return Err(ApiError::invalid("text.verbosity", "not supported (only the default, medium)"));
                }
                (k, _) => return Err(ApiError::invalid(&format!("text.{k}"), "not supported")),
            }
        }
    }
    Ok(o)
}
