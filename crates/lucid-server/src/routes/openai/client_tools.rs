//! Client-side function tools: the request's `tools` join the agent's. The model sees them
//! like the agent's own, but a call to one is never run here: a hook defers it, the turn
//! ends with [`StopReason::Deferred`](lucid::StopReason::Deferred), and the answer carries
//! the call as OpenAI's `tool_calls` for the client to run and send back as a `tool`
//! message.

use std::collections::BTreeSet;
use std::sync::Arc;

use futures::future::BoxFuture;
use lucid::agent::hooks::{Hook, HookContext, ToolCallDecision};
use lucid::tool::ToolContext;
use lucid::{Tool, ToolCall, ToolError, ToolSpec};
use serde_json::{Value, json};

use crate::ApiError;

/// A client's function, offered to the model under its spec and deferred when called.
pub struct ClientTool(ToolSpec);

impl Tool for ClientTool {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }

    fn invoke<'a>(&'a self, _args: Value, _ctx: ToolContext) -> BoxFuture<'a, Result<String, ToolError>> {
        // Never reached: `DeferClientTools` defers every call to it.
        Box::pin(std::future::ready(Err(ToolError::new("a client's tool runs on the client"))))
    }
}

/// Defers every call to one of the client's tools.
pub struct DeferClientTools(pub BTreeSet<String>);

impl Hook for DeferClientTools {
    fn before_tool_call<'a>(&'a self, _cx: &'a HookContext<'a>, call: &'a ToolCall) -> BoxFuture<'a, ToolCallDecision> {
        let decision = if self.0.contains(&call.name) { ToolCallDecision::Defer } else { ToolCallDecision::Allow };
        Box::pin(std::future::ready(decision))
    }
}

/// How an API writes a function tool: Chat Completions nests it, `{"type": "function",
/// "function": {name, description, parameters}}`; Responses does not, `{"type":
/// "function", name, description, parameters, strict}`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    Nested,
    Flat,
}

impl Shape {
    /// Where a tool's fields are, and their path in an error.
    fn fields(self, tool: &Value, i: usize) -> (&Value, String) {
        match self {
            Shape::Nested => (&tool["function"], format!("tools[{i}].function")),
            Shape::Flat => (tool, format!("tools[{i}]")),
        }
    }
}

/// The request's `tools`: function tools written as `shape` says; none may share a name
/// with one of the agent's.
pub fn read(tools: Option<&Value>, agent_tools: &[&str], shape: Shape) -> Result<Vec<Arc<dyn Tool>>, ApiError> {
    let list = match tools {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(list)) => list,
        Some(_) => return Err(ApiError::invalid("tools", "must be an array of function tools")),
    };
    let mut out: Vec<Arc<dyn Tool>> = Vec::with_capacity(list.len());
    let mut names = BTreeSet::new();
    for (i, tool) in list.iter().enumerate() {
        if tool["type"] != "function" {
            return Err(ApiError::invalid(&format!("tools[{i}].type"), "only `function` tools are supported"));
        }
        let (f, at) = shape.fields(tool, i);
        let field = format!("{at}.name");
        let name = f["name"].as_str().ok_or_else(|| ApiError::invalid(&field, "required"))?;
        if agent_tools.contains(&name) {
            return Err(ApiError::invalid(&field, &format!("`{name}` is one of the agent's own tools")));
        }
        if !names.insert(name.to_string()) {
            return Err(ApiError::invalid(&field, &format!("`{name}` is given twice")));
        }
        let parameters = match &f["parameters"] {
            Value::Null => json!({"type": "object", "properties": {}}),
            p @ Value::Object(_) => p.clone(),
            _ => return Err(ApiError::invalid(&format!("{at}.parameters"), "must be a JSON Schema object")),
        };
        let description = f["description"].as_str().unwrap_or_default();
        let spec =
            ToolSpec::new(name, description, parameters).map_err(|e| ApiError::invalid(&field, &e.to_string()))?;
        out.push(Arc::new(ClientTool(spec)));
    }
    Ok(out)
}

/// A call as OpenAI's `tool_calls` carry it.
pub fn wire(call: &ToolCall) -> Value {
    json!({"id": call.id, "type": "function", "function": {"name": call.name, "arguments": call.arguments}})
}

/// The `tool_calls` of an assistant message in the client's history.
pub fn calls_of(message: &Value, i: usize) -> Result<Vec<ToolCall>, ApiError> {
    let list = match &message["tool_calls"] {
        Value::Null => return Ok(Vec::new()),
        Value::Array(list) => list,
        _ => return Err(ApiError::invalid(&format!("messages[{i}].tool_calls"), "must be an array")),
    };
    list.iter()
        .enumerate()
        .map(|(j, c)| {
            let field = format!("messages[{i}].tool_calls[{j}]");
            match (c["id"].as_str(), c["function"]["name"].as_str(), &c["function"]["arguments"]) {
                (Some(id), Some(name), Value::String(args)) => Ok(ToolCall {
                    id: id.to_string(),
                    name: name.to_string(),
                    arguments: args.clone(),
                    signature: None,
                }),
                _ => Err(ApiError::invalid(&field, "needs `id`, `function.name` and `function.arguments` (a string)")),
            }
        })
        .collect()
}
