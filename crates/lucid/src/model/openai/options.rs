//! The tools and options both OpenAI APIs encode alike: Chat Completions ([`super::encode`])
//! and the Responses API ([`crate::model::openai_responses::encode`]).
//!
//! Where the two differ, the caller names the API it speaks: Chat Completions nests a
//! tool's function and a JSON answer's schema one level down (`function`, `json_schema`),
//! the Responses API keeps them flat and makes function tools strict unless told
//! otherwise. Each function inserts its keys in the order both APIs have always been
//! sent them.

use serde_json::{Map, Value, json};

use crate::model::presets::Api;
use crate::model::{ChatOptions, ChatRequest, ResponseFormat, ToolChoice};
use crate::tool::ToolSpec;

/// Inserts the request's `tools` (with `parallel_tool_calls`) and its `tool_choice`.
pub(crate) fn insert_tools(body: &mut Map<String, Value>, req: &ChatRequest<'_>, api: Api) {
    let o = req.options;
    if !req.tools.is_empty() {
        let tools = req.tools.iter().map(|t| function_tool(t, api)).collect();
        body.insert("tools".into(), Value::Array(tools));
        if let Some(p) = o.parallel_tool_calls {
            body.insert("parallel_tool_calls".into(), Value::Bool(p));
        }
    }
    if let Some(choice) = &o.tool_choice {
        let v = match choice {
            ToolChoice::Auto => json!("auto"),
            ToolChoice::None => json!("none"),
            ToolChoice::Required => json!("required"),
            ToolChoice::Tool(name) if api == Api::Chat => json!({"type": "function", "function": {"name": name}}),
            ToolChoice::Tool(name) => json!({"type": "function", "name": name}),
        };
        body.insert("tool_choice".into(), v);
    }
}

/// A function tool: `{type, function: {name, description, parameters}}` for Chat
/// Completions, `{type, name, description, parameters, strict: false}` for Responses.
fn function_tool(t: &ToolSpec, api: Api) -> Value {
    // Built by hand: `json!` would re-serialize the schema value by value instead of
    // cloning it.
    let mut function = Map::new();
    function.insert("name".into(), Value::String(t.name().to_string()));
    function.insert("description".into(), Value::String(t.description().to_string()));
    function.insert("parameters".into(), t.parameters().clone());
    let mut tool = Map::new();
    tool.insert("type".into(), Value::String("function".into()));
    if api == Api::Chat {
        tool.insert("function".into(), Value::Object(function));
    } else {
        tool.extend(function);
        // The Responses API makes function tools strict unless told otherwise, and strict
        // mode rejects ordinary schemas (optional fields, no `additionalProperties: false`).
        tool.insert("strict".into(), Value::Bool(false));
    }
    Value::Object(tool)
}

/// Inserts `temperature`, `top_p` and the output-token limit under `max_tokens_field`.
pub(crate) fn insert_sampling(body: &mut Map<String, Value>, o: &ChatOptions, max_tokens_field: &str) {
    if let Some(t) = o.temperature {
        body.insert("temperature".into(), json!(t));
    }
    if let Some(p) = o.top_p {
        body.insert("top_p".into(), json!(p));
    }
    if let Some(m) = o.max_tokens {
        body.insert(max_tokens_field.into(), json!(m));
    }
}

/// The format of the answer: Chat Completions' `response_format`, or the Responses API's
/// `text.format`.
pub(crate) fn response_format(f: &ResponseFormat, api: Api) -> Value {
    match f {
        ResponseFormat::Text => json!({"type": "text"}),
        ResponseFormat::JsonObject => json!({"type": "json_object"}),
        ResponseFormat::JsonSchema { name, schema, strict } if api == Api::Chat => {
            json!({"type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": strict}})
        }
        ResponseFormat::JsonSchema { name, schema, strict } => {
            json!({"type": "json_schema", "name": name, "schema": schema, "strict": strict})
        }
    }
}

/// Inserts the options' `extra` fields last, over anything already set.
pub(crate) fn insert_extra(body: &mut Map<String, Value>, o: &ChatOptions) {
    if let Some(extra) = &o.extra {
        for (k, v) in extra {
            body.insert(k.clone(), v.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> ToolSpec {
        ToolSpec::new("add", "Adds.", json!({"type": "object"})).unwrap()
    }

    #[test]
    fn a_function_tool_nests_for_chat_and_is_flat_and_lax_for_responses() {
        let tools = [spec()];
        let opts = ChatOptions { tool_choice: Some(ToolChoice::Tool("add".into())), ..Default::default() };
        let req = ChatRequest::new(&[], &tools, &opts);
        let (mut chat, mut responses) = (Map::new(), Map::new());
        insert_tools(&mut chat, &req, Api::Chat);
        insert_tools(&mut responses, &req, Api::Responses);
        let parameters = json!({"type": "object"});
        assert_eq!(
            Value::Object(chat),
            json!({"tools": [{"type": "function", "function": {"name": "add", "description": "Adds.", "parameters": parameters}}],
                   "tool_choice": {"type": "function", "function": {"name": "add"}}})
        );
        assert_eq!(
            Value::Object(responses),
            json!({"tools": [{"type": "function", "name": "add", "description": "Adds.", "parameters": parameters, "strict": false}],
                   "tool_choice": {"type": "function", "name": "add"}})
        );
    }

    #[test]
    fn a_json_schema_nests_only_for_chat() {
        let f = ResponseFormat::JsonSchema { name: "n".into(), schema: json!({}), strict: true };
        assert_eq!(response_format(&f, Api::Chat)["json_schema"]["name"], "n");
        assert_eq!(response_format(&f, Api::Responses)["name"], "n");
    }
}
