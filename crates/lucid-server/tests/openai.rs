//! The OpenAI facade keeps the contract: the operator's system prompt stays (a client's
//! comes after it, or as the agent says), the request's options reach the model (asserted
//! on what the mock model receives) or a 400 names the field, `stream_options.include_usage`
//! ends a stream with OpenAI's usage chunk, and an unknown route names itself in its 404.

mod common;

use std::sync::Arc;

use common::{Api, add, error_code, parse_sse, start};
use lucid::prelude::*;
use lucid_mock::{
    MockServer, RecordedRequest, Reply, bench_handler, text_completion, text_stream, tool_call_completion,
    tool_call_stream,
};
use lucid_server::{ClientSystem, ServerConfig};
use serde_json::{Value, json};

/// A server whose agent `default` (system prompt "You add numbers.", tool `add`) talks to
/// a fresh benchmark mock; `tune` adjusts the configuration.
async fn serve(name: &str, tune: impl FnOnce(ServerConfig) -> ServerConfig) -> (Api, Arc<MockServer>) {
    serve_on(name, bench_handler(), tune).await
}

async fn serve_on(
    name: &str,
    handler: impl Fn(&RecordedRequest) -> Reply + Send + Sync + 'static,
    tune: impl FnOnce(ServerConfig) -> ServerConfig,
) -> (Api, Arc<MockServer>) {
    let mock = Arc::new(MockServer::start(handler).await);
    let model = lucid::model::OpenAiCompatible::new(&format!("{}/v1", mock.url()), None, "mock").unwrap();
    let agent = Agent::builder(model).system("You add numbers.").tool(add).build();
    (start(name, agent, tune).await, mock)
}

/// The system message of each request the mock model received.
fn systems(mock: &MockServer) -> Vec<Value> {
    mock.requests()
        .iter()
        .map(|r| {
            let body = r.json();
            let first = &body["messages"][0];
            assert_eq!(first["role"], "system", "{body}");
            first["content"].clone()
        })
        .collect()
}

fn message(body: &Value) -> &str {
    body["error"]["message"].as_str().unwrap_or_else(|| panic!("not the error shape: {body}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_clients_system_message_comes_after_the_operators_prompt_unless_the_agent_says_otherwise() {
    let ask = json!({"model": "default", "messages": [
        {"role": "system", "content": "Answer in French."},
        {"role": "developer", "content": "Be brief."},
        {"role": "user", "content": "What is 2 + 3?"},
    ]});

    let (api, mock) = serve("openai-system-append", |c| c).await;
    let (status, reply) = api.post("/v1/chat/completions", ask.clone()).await;
    assert_eq!(status, 200, "{reply}");
    let kept = json!("You add numbers.\n\nAnswer in French.\n\nBe brief.");
    assert_eq!(systems(&mock), vec![kept.clone(), kept], "every model call keeps the operator's prompt first");
    // No client system message: the operator's prompt alone.
    let (status, _) = api
        .post("/v1/chat/completions", json!({"model": "default", "messages": [{"role": "user", "content": "2 + 3?"}]}))
        .await;
    assert_eq!(status, 200);
    assert_eq!(systems(&mock).last().unwrap(), "You add numbers.");

    let (api, mock) = serve("openai-system-replace", |c| c.client_system("default", ClientSystem::Replace)).await;
    let (status, reply) = api.post("/v1/chat/completions", ask.clone()).await;
    assert_eq!(status, 200, "{reply}");
    assert_eq!(systems(&mock)[0], "Answer in French.\n\nBe brief.");

    let (api, mock) = serve("openai-system-refuse", |c| c.client_system("default", ClientSystem::Refuse)).await;
    let (status, body) = api.post("/v1/chat/completions", ask).await;
    assert_eq!((status, error_code(&body)), (400, "invalid_field"));
    assert!(message(&body).starts_with("`messages[0].role`") && message(&body).contains("client_system"), "{body}");
    assert!(mock.requests().is_empty(), "a refused request never reaches the model");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_requests_options_reach_the_model_or_a_400_names_the_field() {
    let (api, mock) = serve("openai-options", |c| c).await;
    let schema = json!({"type": "object", "properties": {"sum": {"type": "integer"}}, "required": ["sum"]});
    let ask = json!({
        "model": "default",
        "messages": [{"role": "user", "content": "What is 2 + 3?"}],
        "temperature": 0.25, "top_p": 0.5, "max_completion_tokens": 300, "stop": ["END"], "seed": 7,
        "response_format": {"type": "json_schema", "json_schema": {"name": "sum", "schema": schema, "strict": true}},
        "tool_choice": "required", "parallel_tool_calls": false,
        // What SDKs send that changes nothing here.
        "user": "u-1", "metadata": {"k": "v"}, "n": 1, "logprobs": false, "store": false,
    });
    let (status, reply) = api.post("/v1/chat/completions", ask.clone()).await;
    assert_eq!(status, 200, "{reply}");
    let sent: Vec<Value> = mock.requests().iter().map(|r| r.json()).collect();
    assert_eq!(sent.len(), 2, "the tool call, then the answer: {sent:?}");
    for body in &sent {
        assert_eq!(body["temperature"], 0.25, "{body}");
        assert_eq!(body["top_p"], 0.5);
        assert!(body["max_tokens"] == 300 || body["max_completion_tokens"] == 300, "{body}");
        assert_eq!(body["stop"], json!(["END"]));
        assert_eq!(body["seed"], 7);
        assert_eq!(body["parallel_tool_calls"], false);
        assert_eq!(
            body["response_format"],
            json!({"type": "json_schema", "json_schema": {"name": "sum", "schema": schema, "strict": true}})
        );
    }
    // `tool_choice` is the first completion's, as in OpenAI; the step after the tool
    // result chooses freely (or the run would call tools until its iterations run out).
    assert_eq!(sent[0]["tool_choice"], "required");
    assert!(sent[1].get("tool_choice").is_none(), "{}", sent[1]);

    let named = json!({"model": "default", "messages": [{"role": "user", "content": "2 + 3?"}],
                       "tool_choice": {"type": "function", "function": {"name": "add"}}, "max_tokens": 50,
                       "response_format": {"type": "json_object"}});
    let (status, reply) = api.post("/v1/chat/completions", named).await;
    assert_eq!(status, 200, "{reply}");
    let first = mock.requests()[2].json();
    assert_eq!(first["tool_choice"], json!({"type": "function", "function": {"name": "add"}}));
    assert!(first["max_tokens"] == 50 || first["max_completion_tokens"] == 50, "{first}");
    assert_eq!(first["response_format"], json!({"type": "json_object"}));

    let before = mock.requests().len();
    let refused = [
        (json!({"n": 2}), "`n`"),
        (json!({"logprobs": true}), "`logprobs`"),
        (json!({"store": true}), "`store`"),
        (json!({"frequency_penalty": 0.5}), "`frequency_penalty`"),
        (json!({"audio": {"voice": "alloy"}}), "`audio`"),
        (json!({"temperature": 3}), "`temperature`"),
        (json!({"stop": 5}), "`stop`"),
        (json!({"response_format": {"type": "xml"}}), "`response_format.type`"),
        (json!({"tool_choice": {"type": "function", "function": {"name": "nope"}}}), "`tool_choice.function.name`"),
        (json!({"tools": [{"type": "function", "function": {"name": "add"}}]}), "`tools[0].function.name`"),
        (json!({"tools": [{"type": "web_search"}]}), "`tools[0].type`"),
        (json!({"stream_options": {"include_usage": true}}), "`stream_options`"),
    ];
    for (extra, field) in refused {
        let mut body = json!({"model": "default", "messages": [{"role": "user", "content": "2 + 3?"}]});
        for (k, v) in extra.as_object().unwrap() {
            body[k] = v.clone();
        }
        let (status, reply) = api.post("/v1/chat/completions", body).await;
        assert_eq!((status, error_code(&reply)), (400, "invalid_field"), "{extra}: {reply}");
        assert!(message(&reply).starts_with(field), "{extra}: {reply}");
    }
    assert_eq!(mock.requests().len(), before, "a refused request never reaches the model");
}

async fn stream(api: &Api, body: Value) -> Vec<Value> {
    let text =
        api.req(reqwest::Method::POST, "/v1/chat/completions").json(&body).send().await.unwrap().text().await.unwrap();
    let events = parse_sse(&text);
    assert_eq!(events.last().unwrap().data, "[DONE]");
    events[..events.len() - 1].iter().map(|e| serde_json::from_str(&e.data).unwrap()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn include_usage_ends_the_stream_with_a_usage_chunk_without_choices_only_when_asked() {
    let (api, _mock) = serve("openai-usage", |c| c).await;
    let ask = json!({"model": "default", "messages": [{"role": "user", "content": "What is 2 + 3?"}], "stream": true,
                     "stream_options": {"include_usage": true}});
    let chunks = stream(&api, ask).await;
    let (last, rest) = chunks.split_last().unwrap();
    assert_eq!(last["choices"], json!([]), "{last}");
    assert_eq!(last["usage"], json!({"prompt_tokens": 50, "completion_tokens": 15, "total_tokens": 65}));
    assert_eq!(last["object"], "chat.completion.chunk");
    assert!(rest.iter().all(|c| c.get("usage") == Some(&Value::Null)), "every other chunk has `usage: null`");
    assert_eq!(rest.last().unwrap()["choices"][0]["finish_reason"], "stop");
    let content: String = rest.iter().filter_map(|c| c["choices"][0]["delta"]["content"].as_str()).collect();
    assert_eq!(content, "The answer is 5.");

    let plain =
        json!({"model": "default", "messages": [{"role": "user", "content": "What is 2 + 3?"}], "stream": true});
    let chunks = stream(&api, plain).await;
    assert!(chunks.iter().all(|c| c["choices"].as_array().is_some_and(|a| a.len() == 1)), "no usage chunk unasked");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_route_answers_404_naming_the_method_and_the_path() {
    let (api, _mock) = serve("openai-404", |c| c).await;
    let (status, body) = api.post("/v1/embeddings", json!({"model": "default", "input": "hi"})).await;
    assert_eq!((status, error_code(&body)), (404, "not_found"));
    assert!(message(&body).contains("POST /v1/embeddings"), "{body}");
    let (status, body) = api.get("/v2/nothing?x=1").await;
    assert_eq!(status, 404);
    assert!(message(&body).contains("GET /v2/nothing"), "{body}");
}

/// The model: `add(2, 3)` first (the agent's tool), then the client's `weather` once it
/// has the sum, then the answer once the client sent the weather.
fn weather_model(req: &RecordedRequest) -> Reply {
    let body = req.json();
    let stream = body["stream"] == true;
    let last = body["messages"].as_array().unwrap().last().unwrap().clone();
    let reply = |calls: &[(&str, &str, &str)]| {
        if stream { Reply::sse(&tool_call_stream(calls)) } else { Reply::json(200, &tool_call_completion(calls)) }
    };
    match (last["role"].as_str(), last["content"].as_str()) {
        (Some("tool"), Some("sunny")) if stream => Reply::sse(&text_stream(&["Paris is sunny; ", "2 + 3 = 5."])),
        (Some("tool"), Some("sunny")) => Reply::json(200, &text_completion("Paris is sunny; 2 + 3 = 5.")),
        (Some("tool"), _) => reply(&[("call_w", "weather", r#"{"city":"Paris"}"#)]),
        _ => reply(&[("call_a", "add", r#"{"a":2,"b":3}"#)]),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_clients_function_tool_comes_back_as_tool_calls_and_the_run_goes_on_from_its_result() {
    let (api, mock) = serve_on("openai-client-tools", weather_model, |c| c).await;
    let weather = json!({"type": "function", "function": {"name": "weather", "description": "The weather in a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}});
    let user = json!({"role": "user", "content": "Weather in Paris, and 2 + 3?"});
    let ask = json!({"model": "default", "messages": [user], "tools": [weather]});
    let (status, reply) = api.post("/v1/chat/completions", ask.clone()).await;
    assert_eq!(status, 200, "{reply}");
    let choice = &reply["choices"][0];
    assert_eq!(choice["finish_reason"], "tool_calls", "{reply}");
    let call = json!({"id": "call_w", "type": "function", "function": {"name": "weather", "arguments": r#"{"city":"Paris"}"#}});
    assert_eq!(choice["message"]["tool_calls"], json!([call]), "{reply}");
    let sent: Vec<Value> = mock.requests().iter().map(|r| r.json()).collect();
    assert_eq!(sent.len(), 2, "the agent's `add` ran on the server, then the model called `weather`");
    for body in &sent {
        let names: Vec<&str> =
            body["tools"].as_array().unwrap().iter().map(|t| t["function"]["name"].as_str().unwrap()).collect();
        assert!(names.contains(&"add") && names.contains(&"weather"), "{body}");
    }
    assert_eq!(
        sent[1]["messages"].as_array().unwrap().last().unwrap()["content"],
        "5",
        "add's result, from the server"
    );

    // The client runs `weather` and sends its history with the result: the run goes on.
    let history = json!([user, {"role": "assistant", "content": null, "tool_calls": [call]},
                         {"role": "tool", "tool_call_id": "call_w", "content": "sunny"}]);
    let (status, reply) =
        api.post("/v1/chat/completions", json!({"model": "default", "messages": history, "tools": [weather]})).await;
    assert_eq!(status, 200, "{reply}");
    assert_eq!(reply["choices"][0]["finish_reason"], "stop");
    assert_eq!(reply["choices"][0]["message"]["content"], "Paris is sunny; 2 + 3 = 5.");
    let last = mock.requests().last().unwrap().json();
    let messages = last["messages"].as_array().unwrap();
    assert_eq!(messages[messages.len() - 2]["tool_calls"][0]["id"], "call_w", "{last}");
    assert_eq!(messages.last().unwrap()["tool_call_id"], "call_w");

    // Streamed: the call arrives as a `tool_calls` delta, then `finish_reason: tool_calls`.
    let mut streamed = ask.clone();
    streamed["stream"] = json!(true);
    let chunks = stream(&api, streamed).await;
    let calls: Vec<&Value> = chunks.iter().filter_map(|c| c["choices"][0]["delta"].get("tool_calls")).collect();
    assert_eq!(calls.len(), 1, "{chunks:?}");
    assert_eq!(calls[0][0]["index"], 0);
    assert_eq!(calls[0][0]["id"], "call_w");
    assert_eq!(calls[0][0]["function"], json!({"name": "weather", "arguments": r#"{"city":"Paris"}"#}));
    assert_eq!(chunks.last().unwrap()["choices"][0]["finish_reason"], "tool_calls");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_listed_model_answers_get_by_id_and_every_error_names_its_param() {
    let (api, _mock) = serve("openai-models-param", |c| c).await;
    let (status, list) = api.get("/v1/models").await;
    assert_eq!(status, 200, "{list}");
    let listed = list["data"].as_array().unwrap();
    assert!(!listed.is_empty(), "{list}");
    for model in listed {
        let id = model["id"].as_str().unwrap();
        let (status, one) = api.get(&format!("/v1/models/{id}")).await;
        assert_eq!((status, &one), (200, model), "GET /v1/models/{id} answers the object the list has");
    }
    let (status, missing) = api.get("/v1/models/no-such-agent").await;
    assert_eq!((status, error_code(&missing)), (404, "model_not_found"), "{missing}");

    // A bad field is named in `param`, as OpenAI does; an error of no field has it null.
    let (status, bad) =
        api.post("/v1/chat/completions", json!({"model": "default", "messages": [], "temperature": 9})).await;
    assert_eq!(status, 400, "{bad}");
    assert_eq!(bad["error"]["param"], "messages", "{bad}");
    let (status, bad) = api.post("/v1/chat/completions", json!({"model": "nobody", "messages": []})).await;
    assert_eq!((status, &bad["error"]["param"]), (404, &json!("model")), "{bad}");
    let (status, gone) = api.get("/v1/nowhere").await;
    assert_eq!(status, 404);
    let error = gone["error"].as_object().unwrap();
    assert_eq!(error.get("param"), Some(&Value::Null), "`param` is there, null: {gone}");
    for field in ["message", "type", "code"] {
        assert!(error.contains_key(field), "{field} in {gone}");
    }
}
