//! AG-UI's `RunAgentInput` read the way the endpoint honours it: `threadId` and `runId`
//! (echoed in the run's events), `messages` (the whole conversation: the client holds
//! it), `tools` (the front end's, run there), `context` and `state` (given to the model
//! as the client's system text), and a 400 naming any field whose meaning would be lost.

use std::sync::Arc;

use lucid::{Agent, AssistantMessage, Message, Tool, ToolCall, ToolResult};
use serde_json::{Value, json};

use crate::ApiError;
use crate::body::JsonObject;
use crate::config::ClientSystem;
use crate::routes::openai::client_tools::{self, Shape};
use crate::routes::openai::request::{Read, content_text, join_system, split_prompt, system_prompt};

/// What a run asks of the agent.
pub struct RunInput {
    /// The thread the client files the run under (nothing is kept under it here).
    pub thread_id: String,
    /// The client's id for this run.
    pub run_id: String,
    /// The run this one continues, when the client says.
    pub parent_run_id: Option<String>,
    /// The conversation before the prompt.
    pub history: Vec<Message>,
    /// The user's last message; none when the conversation ends with a tool's result
    /// (then the run goes on from the history).
    pub prompt: Option<Vec<lucid::Part>>,
    /// The system prompt to run with (the operator's, and the client's text placed as the
    /// agent's `client_system` says).
    pub system: Option<String>,
    /// The front end's tools, offered beside the agent's and deferred when called.
    pub tools: Vec<Arc<dyn Tool>>,
    /// The state the client sent, answered back as a `STATE_SNAPSHOT`.
    pub state: Option<Value>,
}

impl RunInput {
    /// Reads `body` for `agent`, whose client system text is treated as `mode` says.
    pub fn read(body: &JsonObject, agent: &Agent, mode: ClientSystem) -> Result<RunInput, ApiError> {
        let thread_id = body.text("threadId")?.to_string();
        let run_id = body.text("runId")?.to_string();
        let parent_run_id = optional_text(body, "parentRunId")?;
        optional_text(body, "protocolVersion")?;
        match body.0.get("resume") {
            None | Some(Value::Null) => {}
            Some(Value::Array(a)) if a.is_empty() => {}
            Some(_) => {
                return Err(ApiError::invalid("resume", "this server never interrupts a run, so nothing can resume"));
            }
        }
        let own: Vec<&str> = agent.tools().specs().iter().map(|s| s.name()).collect();
        let tools = client_tools::read(as_function_tools(body.0.get("tools"))?.as_ref(), &own, Shape::Flat)?;
        let (mut client, history, prompt) = messages(body)?;
        if let Some(text) = context(body)? {
            join_system(&mut client, || "context".to_string(), text);
        }
        let state = body.0.get("state").filter(|s| !s.is_null()).cloned();
        if let Some(s) = state.as_ref().filter(|s| s.as_object().is_none_or(|o| !o.is_empty())) {
            let text = format!("The application's shared state (JSON):\n{s}");
            join_system(&mut client, || "state".to_string(), text);
        }
        let system = system_prompt(agent, mode, client)?;
        Ok(RunInput { thread_id, run_id, parent_run_id, history, prompt, system, tools, state })
    }
}

fn optional_text(body: &JsonObject, field: &str) -> Result<Option<String>, ApiError> {
    match body.0.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(ApiError::invalid(field, "must be a string")),
    }
}

/// AG-UI's tools, `{name, description, parameters}`, as the Responses API writes function
/// tools (the shape the shared reader takes).
fn as_function_tools(tools: Option<&Value>) -> Result<Option<Value>, ApiError> {
    match tools {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(list)) => Ok(Some(Value::Array(
            list.iter()
                .enumerate()
                .map(|(i, t)| match t {
                    Value::Object(o) => {
                        let mut flat = json!({"type": "function"});
                        for key in ["name", "description", "parameters"] {
                            if let Some(v) = o.get(key) {
                                flat[key] = v.clone();
                            }
                        }
                        Ok(flat)
                    }
                    _ => Err(ApiError::invalid(&format!("tools[{i}]"), "must be an object")),
                })
                .collect::<Result<_, _>>()?,
        ))),
        Some(_) => Err(ApiError::invalid("tools", "must be an array of tools")),
    }
}

/// `context`, `[{description, value}]`, as one text for the model (none when empty).
fn context(body: &JsonObject) -> Result<Option<String>, ApiError> {
    let list = match body.0.get("context") {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Array(list)) => list,
        Some(_) => return Err(ApiError::invalid("context", "must be an array of {description, value}")),
    };
    if list.is_empty() {
        return Ok(None);
    }
    let mut text = String::from("Context from the application:");
    for (i, c) in list.iter().enumerate() {
        match (c["description"].as_str(), c["value"].as_str()) {
            (Some(d), Some(v)) => text.push_str(&format!("\n- {d}: {v}")),
            _ => {
                return Err(ApiError::invalid(&format!("context[{i}]"), "needs `description` and `value`, strings"));
            }
        }
    }
    Ok(Some(text))
}

/// The client's system and developer messages (joined, with the field of the first), the
/// rest as Lucid messages, and the prompt. Activity and reasoning messages are what a
/// front end shows of the run's progress: the model is not sent them.
fn messages(body: &JsonObject) -> Result<Read, ApiError> {
    let list = match body.0.get("messages") {
        Some(Value::Array(list)) => list,
        Some(_) => return Err(ApiError::invalid("messages", "must be an array of messages")),
        None => return Err(ApiError::invalid("messages", "required")),
    };
    let mut system: Option<(String, String)> = None;
    let mut out = Vec::with_capacity(list.len());
    for (i, m) in list.iter().enumerate() {
        let at = |f: &str| format!("messages[{i}].{f}");
        let text = || content_text(m.get("content"), &at("content"));
        match m["role"].as_str() {
            Some("system" | "developer") => join_system(&mut system, || at("role"), text()?),
            Some("user") => out.push(Message::user(text()?)),
            Some("assistant") => {
                let tool_calls = calls_of(&m["toolCalls"], i)?;
                out.push(Message::Assistant(AssistantMessage { content: text()?, tool_calls, reasoning: None }));
            }
            Some("tool") => {
                let field = at("toolCallId");
                let id = m["toolCallId"].as_str().ok_or_else(|| ApiError::invalid(&field, "required"))?;
                let name = out.iter().rev().find_map(|m| match m {
                    Message::Assistant(a) => a.tool_calls.iter().find(|c| c.id == id).map(|c| c.name.clone()),
                    _ => None,
                });
                let name = name.ok_or_else(|| ApiError::invalid(&field, &format!("no earlier tool call `{id}`")))?;
                let (content, is_error) = match m["error"].as_str() {
                    Some(error) => {
                        let content = text()?;
                        (if content.is_empty() { error.to_string() } else { content }, true)
                    }
                    None => (text()?, false),
                };
                out.push(Message::Tool(ToolResult {
                    call_id: id.to_string(),
                    name,
                    content,
                    is_error,
                    parts: Vec::new(),
                }));
            }
            Some("activity" | "reasoning") => {}
            _ => {
                return Err(ApiError::invalid(
                    &at("role"),
                    "must be system, developer, user, assistant, tool, activity or reasoning",
                ));
            }
        }
    }
    split_prompt(system, out, "messages", "the last message must be the user's or a tool's result")
}

/// An assistant message's `toolCalls`, `[{id, type: "function", function: {name,
/// arguments}}]`.
fn calls_of(list: &Value, i: usize) -> Result<Vec<ToolCall>, ApiError> {
    let list = match list {
        Value::Null => return Ok(Vec::new()),
        Value::Array(list) => list,
        _ => return Err(ApiError::invalid(&format!("messages[{i}].toolCalls"), "must be an array")),
    };
    list.iter()
        .enumerate()
        .map(|(j, c)| match (c["id"].as_str(), c["function"]["name"].as_str(), &c["function"]["arguments"]) {
            (Some(id), Some(name), Value::String(args)) => {
                Ok(ToolCall { id: id.to_string(), name: name.to_string(), arguments: args.clone(), signature: None })
            }
            _ => Err(ApiError::invalid(
                &format!("messages[{i}].toolCalls[{j}]"),
                "needs `id`, `function.name` and `function.arguments` (a string)",
            )),
        })
        .collect()
}
