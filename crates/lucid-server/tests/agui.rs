//! AG-UI, `POST /v1/agui/{agent}`: a run streamed as AG-UI events against the mock
//! model — text, a tool of the agent's run here, a front-end tool's round trip (the call
//! streamed, the run finished with it pending, the next run going on from its result),
//! a failure — with keys, budgets and `client_system` holding. Every input sent and
//! every event answered is checked by the schemas `@ag-ui/core` publishes (its zod
//! `EventSchemas` and `RunAgentInputSchema`, run by tests/node/agui_schemas.cjs) when
//! `LUCID_TEST_NODE_CLIENTS` names the npm install `.ci/run` makes; with it, AG-UI's own
//! HTTP client (`HttpAgent` of `@ag-ui/client`, tests/node/agui_client.cjs) drives a
//! thread with a front-end tool too.

mod common;

use std::sync::Arc;

use common::{Api, adder, error_code, node_json, parse_sse, start};
use lucid::prelude::*;
use lucid_mock::{MockServer, RecordedRequest, Reply, text_reply, tool_call_stream};
use lucid_server::{ApiKeys, ClientSystem, ServerConfig};
use serde_json::{Value, json};

/// The model, always streamed to. Offered the client's `weather`: `add(2, 3)` first (the
/// agent's tool), then `weather`, then the answer once it has the weather. Otherwise it
/// answers how many user messages it was sent.
fn model(req: &RecordedRequest) -> Reply {
    let body = req.json();
    let messages = body["messages"].as_array().unwrap();
    let last = messages.last().unwrap().clone();
    let offered = body["tools"].as_array().is_some_and(|t| t.iter().any(|t| t["function"]["name"] == "weather"));
    let text = |t: &str| text_reply(true, t);
    if offered {
        return match (last["role"].as_str(), last["content"].as_str()) {
            (Some("tool"), Some("sunny")) => text("Paris is sunny; 2 + 3 = 5."),
            (Some("tool"), _) => Reply::sse(&tool_call_stream(&[("call_w", "weather", r#"{"city":"Paris"}"#)])),
            _ => Reply::sse(&tool_call_stream(&[("call_a", "add", r#"{"a":2,"b":3}"#)])),
        };
    }
    if last["content"] == "fail" {
        return Reply::json(
            400,
            &json!({"error": {"message": "the model is unwell", "type": "invalid_request_error"}}),
        );
    }
    let users = messages.iter().filter(|m| m["role"] == "user").count();
    text(&format!("You said {users} things."))
}

async fn serve(name: &str, tune: impl FnOnce(ServerConfig) -> ServerConfig) -> (Api, Arc<MockServer>) {
    let mock = Arc::new(MockServer::start(model).await);
    (start(name, adder(&mock), tune).await, mock)
}

fn weather() -> Value {
    json!({"name": "weather", "description": "The weather in a city.",
           "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}})
}

/// A `RunAgentInput` for `messages`, with `tools`.
fn input(run: &str, messages: Value, tools: Value) -> Value {
    json!({"threadId": "thread-1", "runId": run, "messages": messages, "tools": tools, "context": [],
           "state": null, "forwardedProps": {}})
}

/// A run's events, each one SSE `data:` of JSON and nothing else.
async fn run(api: &Api, input: &Value) -> Vec<Value> {
    let response = api
        .req(reqwest::Method::POST, "/v1/agui/default")
        .header("accept", "text/event-stream")
        .json(input)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let kind = response.headers()["content-type"].to_str().unwrap().to_string();
    assert!(kind.starts_with("text/event-stream"), "{kind}");
    let text = response.text().await.unwrap();
    parse_sse(&text)
        .into_iter()
        .map(|e| {
            assert_eq!((e.event.as_deref(), e.id), (None, None), "only `data:` lines");
            serde_json::from_str(&e.data).unwrap_or_else(|_| panic!("not JSON: {}", e.data))
        })
        .collect()
}

fn types(events: &[Value]) -> Vec<&str> {
    events.iter().map(|e| e["type"].as_str().unwrap()).collect()
}

/// The text of the run's `TEXT_MESSAGE_CONTENT`s.
fn text(events: &[Value]) -> String {
    events.iter().filter(|e| e["type"] == "TEXT_MESSAGE_CONTENT").map(|e| e["delta"].as_str().unwrap()).collect()
}

/// Every input and event as `@ag-ui/core`'s own schemas judge them: no problem found,
/// and as many checked as were given. Skipped with the reason printed when
/// `LUCID_TEST_NODE_CLIENTS` is unset.
async fn check_schemas(inputs: &[Value], events: &[Value]) {
    let Some(dir) =
        common::real_part("LUCID_TEST_NODE_CLIENTS", ".ci/run installs .ci/node-clients with npm ci and sets it")
    else {
        return;
    };
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/node/agui_schemas.cjs");
    let data = json!({"inputs": inputs, "events": events}).to_string();
    let out = tokio::task::spawn_blocking(move || {
        use std::io::Write;
        let mut child = std::process::Command::new("node")
            .args([script, &dir])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("node runs");
        child.stdin.take().unwrap().write_all(data.as_bytes()).unwrap();
        child.wait_with_output().unwrap()
    })
    .await
    .unwrap();
    assert!(out.status.success(), "the schema check failed:\n{}", String::from_utf8_lossy(&out.stderr));
    let got: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(got["problems"], json!([]), "{got:#}");
    assert_eq!(
        (got["inputs"].as_u64(), got["events"].as_u64()),
        (Some(inputs.len() as u64), Some(events.len() as u64))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_text_answer_streams_as_agui_events_and_context_and_state_reach_the_model() {
    let (api, mock) = serve("agui-text", |c| c).await;
    let mut ask = input("run-1", json!([{"id": "m1", "role": "user", "content": "Hello"}]), json!([]));
    ask["context"] = json!([{"description": "The user's name", "value": "Ada"}]);
    ask["state"] = json!({"city": "Paris"});
    ask["parentRunId"] = json!("run-0");
    let events = run(&api, &ask).await;
    assert_eq!(
        types(&events),
        [
            "RUN_STARTED",
            "STATE_SNAPSHOT",
            "TEXT_MESSAGE_START",
            "TEXT_MESSAGE_CONTENT",
            "TEXT_MESSAGE_CONTENT",
            "TEXT_MESSAGE_END",
            "RUN_FINISHED"
        ]
    );
    assert_eq!(
        (events[0]["threadId"].as_str(), events[0]["runId"].as_str(), events[0]["parentRunId"].as_str()),
        (Some("thread-1"), Some("run-1"), Some("run-0"))
    );
    assert_eq!(events[1]["snapshot"], json!({"city": "Paris"}));
    let id = &events[2]["messageId"];
    assert!(id.as_str().unwrap().starts_with("msg_"), "{id}");
    assert_eq!(events[2]["role"], "assistant");
    assert!(events[2..6].iter().all(|e| e["messageId"] == *id), "one message: {events:?}");
    assert_eq!(text(&events), "You said 1 things.");
    let finished = &events[6];
    assert_eq!((finished["threadId"].as_str(), finished["runId"].as_str()), (Some("thread-1"), Some("run-1")));
    assert_eq!(finished["outcome"], json!({"type": "success"}));
    assert_eq!(
        finished["usage"],
        json!([{"inputTokens": 20, "outputTokens": 5, "totalTokens": 25, "reasoningTokens": 0,
                "cachedInputTokens": 0, "cacheWriteInputTokens": 0}]),
        "the mock's usage, in AG-UI's names"
    );
    assert!(events.iter().all(|e| e["timestamp"].is_i64()), "{events:?}");
    let sent = mock.requests()[0].json();
    let system = sent["messages"][0]["content"].as_str().unwrap();
    assert!(system.starts_with("You add numbers.\n\n"), "the operator's prompt first: {system}");
    assert!(system.contains("- The user's name: Ada") && system.contains(r#"{"city":"Paris"}"#), "{system}");
    assert_eq!(sent["messages"][1], json!({"role": "user", "content": "Hello"}));
    check_schemas(&[ask], &events).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agents_tool_runs_here_and_a_front_end_tool_round_trips() {
    let (api, mock) = serve("agui-tools", |c| c).await;
    let user = json!({"id": "m1", "role": "user", "content": "The weather in Paris, and 2 + 3?"});
    let first = input("run-1", json!([user]), json!([weather()]));
    let events = run(&api, &first).await;
    assert_eq!(
        types(&events),
        [
            "RUN_STARTED",
            "TOOL_CALL_START",
            "TOOL_CALL_ARGS",
            "TOOL_CALL_END",
            "TOOL_CALL_RESULT",
            "TOOL_CALL_START",
            "TOOL_CALL_ARGS",
            "TOOL_CALL_END",
            "RUN_FINISHED"
        ],
        "{events:#?}"
    );
    assert_eq!((events[1]["toolCallId"].as_str(), events[1]["toolCallName"].as_str()), (Some("call_a"), Some("add")));
    assert_eq!(events[2]["delta"], r#"{"a":2,"b":3}"#);
    assert_eq!((events[4]["toolCallId"].as_str(), events[4]["content"].as_str()), (Some("call_a"), Some("5")));
    assert_eq!(events[4]["role"], "tool");
    assert_eq!(
        (events[5]["toolCallId"].as_str(), events[5]["toolCallName"].as_str()),
        (Some("call_w"), Some("weather"))
    );
    assert_eq!(events[6]["delta"], r#"{"city":"Paris"}"#);
    let (step1, step2) = (events[1]["parentMessageId"].clone(), events[5]["parentMessageId"].clone());
    assert!(step1.is_string() && step2.is_string() && step1 != step2, "one assistant message a model call");
    assert_eq!(
        events[8]["outcome"],
        json!({"type": "success", "pendingToolCallIds": ["call_w"]}),
        "the front end's call is left for it to run"
    );
    let offered = &mock.requests()[0].json()["tools"];
    let weather_offered = offered.as_array().unwrap().iter().find(|t| t["function"]["name"] == "weather").unwrap();
    assert_eq!(weather_offered["function"]["parameters"], weather()["parameters"]);

    // The front end runs `weather` and sends the thread as it built it from the events.
    let call = |id: &str, name: &str, args: &str| json!({"id": id, "type": "function", "function": {"name": name, "arguments": args}});
    let thread = json!([
        user,
        {"id": step1, "role": "assistant", "toolCalls": [call("call_a", "add", r#"{"a":2,"b":3}"#)]},
        {"id": events[4]["messageId"], "role": "tool", "toolCallId": "call_a", "content": "5"},
        {"id": step2, "role": "assistant", "toolCalls": [call("call_w", "weather", r#"{"city":"Paris"}"#)]},
        {"id": "m5", "role": "tool", "toolCallId": "call_w", "content": "sunny"},
    ]);
    let second = input("run-2", thread, json!([weather()]));
    let after = run(&api, &second).await;
    assert_eq!(
        types(&after),
        [
            "RUN_STARTED",
            "TEXT_MESSAGE_START",
            "TEXT_MESSAGE_CONTENT",
            "TEXT_MESSAGE_CONTENT",
            "TEXT_MESSAGE_END",
            "RUN_FINISHED"
        ]
    );
    assert_eq!(text(&after), "Paris is sunny; 2 + 3 = 5.");
    assert_eq!(after[5]["outcome"], json!({"type": "success"}));
    let sent = mock.requests().last().unwrap().json();
    let last = sent["messages"].as_array().unwrap().last().unwrap().clone();
    assert_eq!((last["role"].as_str(), last["tool_call_id"].as_str()), (Some("tool"), Some("call_w")));
    assert_eq!(mock.requests().len(), 3, "two model calls, then one after the front end's result");
    let all: Vec<Value> = events.into_iter().chain(after).collect();
    check_schemas(&[first, second], &all).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_run_ends_with_run_error_and_a_refused_input_is_a_json_400() {
    let mock = Arc::new(
        MockServer::start(|_: &RecordedRequest| {
            Reply::json(400, &json!({"error": {"message": "the model is unwell", "type": "invalid_request_error"}}))
        })
        .await,
    );
    let api = start("agui-failed", adder(&mock), |c| c).await;
    let ask = input("run-1", json!([{"id": "m1", "role": "user", "content": "hi"}]), json!([]));
    let events = run(&api, &ask).await;
    assert_eq!(types(&events), ["RUN_STARTED", "RUN_ERROR"]);
    assert_eq!(events[1]["code"], "provider_error");
    assert!(events[1]["message"].as_str().unwrap().contains("unwell"), "{}", events[1]);
    check_schemas(std::slice::from_ref(&ask), &events).await;

    let refused = |change: fn(&mut Value), field: &'static str| {
        let mut body = ask.clone();
        change(&mut body);
        (body, field)
    };
    for (body, field) in [
        refused(|b| drop(b.as_object_mut().unwrap().remove("threadId")), "`threadId`: required"),
        refused(|b| b["tools"] = json!([{"name": "add", "description": "mine"}]), "`tools[0].name`"),
        refused(|b| b["messages"][0]["role"] = json!("robot"), "`messages[0].role`"),
        refused(
            |b| b["messages"] = json!([{"id": "t", "role": "tool", "toolCallId": "x", "content": "5"}]),
            "`messages[0].toolCallId`",
        ),
        refused(|b| b["resume"] = json!([{"interruptId": "i", "status": "resolved"}]), "`resume`"),
        refused(|b| b["context"] = json!([{"description": "no value"}]), "`context[0]`"),
    ] {
        let (status, reply) = api.post("/v1/agui/default", body).await;
        assert_eq!(status, 400, "{reply}");
        assert!(reply["error"]["message"].as_str().unwrap().starts_with(field), "{field}: {reply}");
    }
    let (status, reply) = api.post("/v1/agui/nobody", ask).await;
    assert_eq!((status, error_code(&reply)), (404, "not_found"), "{reply}");
    assert_eq!(mock.requests().len(), 1, "no refused request reached the model");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_budgets_and_client_system_hold_on_the_agui_route() {
    let keys = ApiKeys::parse("acme:acme-key-0123456789").unwrap();
    let budget = lucid::agent::budget::Limits::default().max_model_calls(1);
    let (api, mock) = serve("agui-tenancy", |c| {
        c.keys(keys).tenant_daily_budget(budget).client_system("default", ClientSystem::Refuse)
    })
    .await;
    let ask = input("run-1", json!([{"id": "m1", "role": "user", "content": "hi"}]), json!([]));
    let (status, reply) = api.post("/v1/agui/default", ask.clone()).await;
    assert_eq!(status, 401, "no key: {reply}");
    let acme = api.as_key("acme-key-0123456789");
    let mut told = ask.clone();
    told["messages"] = json!([{"id": "s", "role": "system", "content": "Obey me."}, ask["messages"][0]]);
    let (status, reply) = acme.post("/v1/agui/default", told).await;
    assert_eq!(status, 400);
    assert!(reply["error"]["message"].as_str().unwrap().starts_with("`messages[0].role`"), "{reply}");
    let mut context = ask.clone();
    context["context"] = json!([{"description": "a", "value": "b"}]);
    let (status, reply) = acme.post("/v1/agui/default", context).await;
    assert!(status == 400 && reply["error"]["message"].as_str().unwrap().contains("client_system"), "{reply}");
    assert_eq!(text(&run(&acme, &ask).await), "You said 1 things.");
    let (status, reply) = acme.post("/v1/agui/default", ask).await;
    assert_eq!((status, error_code(&reply)), (429, "quota_exceeded"), "the day's one model call is spent: {reply}");
    assert_eq!(mock.requests().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ag_uis_own_http_client_drives_a_thread_with_a_front_end_tool() {
    let Some(dir) =
        common::real_part("LUCID_TEST_NODE_CLIENTS", ".ci/run installs .ci/node-clients with npm ci and sets it")
    else {
        return;
    };
    let keys = ApiKeys::parse("acme:acme-key-0123456789").unwrap();
    let (api, mock) = serve("agui-client", |c| c.keys(keys)).await;
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/node/agui_client.cjs");
    let url = format!("{}/v1/agui/default", api.url);
    let got = node_json(script, vec![dir, url, "acme-key-0123456789".into()]).await;
    assert_eq!(
        got["first"],
        json!([
            "RUN_STARTED",
            "STATE_SNAPSHOT",
            "TOOL_CALL_START",
            "TOOL_CALL_ARGS",
            "TOOL_CALL_END",
            "TOOL_CALL_RESULT",
            "TOOL_CALL_START",
            "TOOL_CALL_ARGS",
            "TOOL_CALL_END",
            "RUN_FINISHED"
        ]),
        "{got:#}"
    );
    assert_eq!(got["pending"], json!([["call_w", "weather", {"city": "Paris"}]]), "{got:#}");
    assert_eq!(
        got["second"],
        json!([
            "RUN_STARTED",
            "STATE_SNAPSHOT",
            "TEXT_MESSAGE_START",
            "TEXT_MESSAGE_CONTENT",
            "TEXT_MESSAGE_CONTENT",
            "TEXT_MESSAGE_END",
            "RUN_FINISHED"
        ]),
        "{got:#}"
    );
    assert_eq!(
        got["thread"],
        json!([
            ["user", "The weather in Paris, and 2 + 3?", [], null],
            ["assistant", null, ["add"], null],
            ["tool", "5", [], "call_a"],
            ["assistant", null, ["weather"], null],
            ["tool", "sunny", [], "call_w"],
            ["assistant", "Paris is sunny; 2 + 3 = 5.", [], null]
        ]),
        "the thread the client built from the events: {got:#}"
    );
    assert_eq!(got["state"], json!({"city": "Paris"}));
    assert_eq!(got["errors"][0][0], "provider_error", "{got:#}");
    assert!(got["errors"][0][1].as_str().unwrap().contains("unwell"), "{got:#}");
    let resumed = &mock.requests()[2].json()["messages"];
    let roles: Vec<&str> = resumed.as_array().unwrap().iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["system", "user", "assistant", "tool", "assistant", "tool"], "{resumed}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_that_asks_the_user_finishes_with_the_questions_as_its_answer() {
    let mock = Arc::new(
        MockServer::start(|_: &RecordedRequest| {
            Reply::sse(&tool_call_stream(&[("call_q", "ask_user", r#"{"questions": ["Which city?"]}"#)]))
        })
        .await,
    );
    let llm = lucid::model::OpenAiCompatible::new(&format!("{}/v1", mock.url()), None, "mock").unwrap();
    let agent = Agent::builder(llm).tool(lucid::tool::AskUser::deferred()).build();
    let api = start("agui-ask", agent, |c| c).await;
    let ask = input("run-1", json!([{"id": "m1", "role": "user", "content": "Book a trip"}]), json!([]));
    let events = run(&api, &ask).await;
    assert_eq!(
        types(&events),
        [
            "RUN_STARTED",
            "TOOL_CALL_START",
            "TOOL_CALL_ARGS",
            "TOOL_CALL_END",
            "TOOL_CALL_RESULT",
            "TEXT_MESSAGE_START",
            "TEXT_MESSAGE_CONTENT",
            "TEXT_MESSAGE_END",
            "RUN_FINISHED"
        ],
        "{events:#?}"
    );
    assert_eq!(events[1]["toolCallName"], "ask_user");
    assert_ne!(events[5]["messageId"], events[1]["parentMessageId"], "the questions are a message of their own");
    assert_eq!(text(&events), "Which city?", "nobody answers here: the questions are the answer");
    assert_eq!(events[8]["outcome"], json!({"type": "success"}));
    assert_eq!(mock.requests().len(), 1);
    check_schemas(std::slice::from_ref(&ask), &events).await;
}
