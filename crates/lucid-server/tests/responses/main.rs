//! The Responses facade, `/v1/responses`: the response object and its typed stream in
//! OpenAI's shapes, the request's options reaching the model (asserted on what the mock
//! model receives) or a 400 naming the field, a client's function tool coming back as a
//! `function_call` item and the run going on from its `function_call_output`, and stored
//! responses per tenant for `previous_response_id` (`shape`, `stored`). The real OpenAI
//! Python SDK and the Agents SDK as clients: `sdks`.

#[path = "../common/mod.rs"]
mod common;
mod sdks;
mod shape;
mod stored;

use std::sync::Arc;

use common::{Api, adder, error_code, parse_sse, start};
use lucid_mock::{MockServer, RecordedRequest, Reply, text_reply, tool_call_reply};
use lucid_server::{ApiKeys, ClientSystem, ServerConfig};
use serde_json::{Value, json};

/// The model. Offered the client's `weather`: `add(2, 3)` first (the agent's tool), then
/// `weather`, then the answer once it has the weather. Otherwise it answers how many user
/// messages it was sent (so a continued conversation shows), or `{"sum": 5}` when asked
/// for JSON.
fn model(req: &RecordedRequest) -> Reply {
    let body = req.json();
    let stream = body["stream"] == true;
    let messages = body["messages"].as_array().unwrap();
    let last = messages.last().unwrap().clone();
    let offered = body["tools"].as_array().is_some_and(|t| t.iter().any(|t| t["function"]["name"] == "weather"));
    let text = |t: &str| text_reply(stream, t);
    let call = |calls: &[(&str, &str, &str)]| tool_call_reply(stream, calls);
    if offered {
        return match (last["role"].as_str(), last["content"].as_str()) {
            (Some("tool"), Some("sunny")) => text("Paris is sunny; 2 + 3 = 5."),
            (Some("tool"), _) => call(&[("call_w", "weather", r#"{"city":"Paris"}"#)]),
            _ => call(&[("call_a", "add", r#"{"a":2,"b":3}"#)]),
        };
    }
    if body["response_format"]["type"] == "json_schema" {
        return text(r#"{"sum": 5}"#);
    }
    let users = messages.iter().filter(|m| m["role"] == "user").count();
    text(&format!("You said {users} things."))
}

async fn serve(name: &str, tune: impl FnOnce(ServerConfig) -> ServerConfig) -> (Api, Arc<MockServer>) {
    let mock = Arc::new(MockServer::start(model).await);
    (start(name, adder(&mock), tune).await, mock)
}

fn message(body: &Value) -> &str {
    body["error"]["message"].as_str().unwrap_or_else(|| panic!("not the error shape: {body}"))
}

fn weather() -> Value {
    json!({"type": "function", "name": "weather", "description": "The weather in a city.", "strict": true,
           "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"],
                          "additionalProperties": false}})
}

/// The typed events of a streamed response: (the `event:` line, the data).
async fn stream(api: &Api, body: Value) -> Vec<(String, Value)> {
    let response = api.req(reqwest::Method::POST, "/v1/responses").json(&body).send().await.unwrap();
    assert_eq!(response.status(), 200);
    let text = response.text().await.unwrap();
    parse_sse(&text)
        .into_iter()
        .map(|e| {
            let data: Value = serde_json::from_str(&e.data).unwrap_or_else(|_| panic!("not JSON: {}", e.data));
            let kind = e.event.unwrap_or_else(|| panic!("no event line: {}", e.data));
            assert_eq!(data["type"], kind.as_str(), "the event line names the data's type");
            (kind, data)
        })
        .collect()
}

/// The events' types, in order.
fn kinds(events: &[(String, Value)]) -> Vec<&str> {
    events.iter().map(|(k, _)| k.as_str()).collect()
}
