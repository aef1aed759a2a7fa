//! The Responses facade, `/v1/responses`: the response object and its typed stream in
//! OpenAI's shapes, the request's options reaching the model (asserted on what the mock
//! model receives) or a 400 naming the field, a client's function tool coming back as a
//! `function_call` item and the run going on from its `function_call_output`, and stored
//! responses per tenant for `previous_response_id`. The real OpenAI Python SDK (and the
//! Agents SDK) as clients: `responses_sdk.rs`.

mod common;

use std::sync::Arc;

use common::{Api, add, error_code, parse_sse, start};
use lucid::prelude::*;
use lucid_mock::{
    MockServer, RecordedRequest, Reply, text_completion, text_stream, tool_call_completion, tool_call_stream,
};
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
    let text = |t: &str| {
        if stream {
            Reply::sse(&text_stream(&[&t[..t.len() / 2], &t[t.len() / 2..]]))
        } else {
            Reply::json(200, &text_completion(t))
        }
    };
    let call = |calls: &[(&str, &str, &str)]| {
        if stream { Reply::sse(&tool_call_stream(calls)) } else { Reply::json(200, &tool_call_completion(calls)) }
    };
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

/// The agent `default`: system prompt "You add numbers.", tool `add`, on the mock.
fn agent(mock: &MockServer) -> Agent {
    let llm = lucid::model::OpenAiCompatible::new(&format!("{}/v1", mock.url()), None, "mock").unwrap();
    Agent::builder(llm).system("You add numbers.").tool(add).build()
}

async fn serve(name: &str, tune: impl FnOnce(ServerConfig) -> ServerConfig) -> (Api, Arc<MockServer>) {
    let mock = Arc::new(MockServer::start(model).await);
    (start(name, agent(&mock), tune).await, mock)
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_response_has_openais_shape_and_its_options_reach_the_model() {
    let (api, mock) = serve("responses-plain", |c| c).await;
    let schema = json!({"type": "object", "properties": {"sum": {"type": "integer"}}, "required": ["sum"]});
    let ask = json!({
        "model": "default", "input": "What is 2 + 3?", "instructions": "Answer in JSON.",
        "temperature": 0.25, "top_p": 0.5, "max_output_tokens": 300, "parallel_tool_calls": false,
        "text": {"format": {"type": "json_schema", "name": "sum", "schema": schema, "strict": true}},
        "metadata": {"trace": "t-1"}, "store": false, "user": "u-1", "reasoning": {"effort": null}, "include": [],
    });
    let (status, r) = api.post("/v1/responses", ask).await;
    assert_eq!(status, 200, "{r}");
    assert!(r["id"].as_str().unwrap().starts_with("resp_"), "{r}");
    assert_eq!(
        (r["object"].as_str(), r["status"].as_str(), r["model"].as_str()),
        (Some("response"), Some("completed"), Some("default"))
    );
    assert!(r["created_at"].is_u64() && r["error"].is_null() && r["incomplete_details"].is_null(), "{r}");
    assert_eq!(r["metadata"], json!({"trace": "t-1"}));
    assert_eq!((r["instructions"].as_str(), r["temperature"].as_f64()), (Some("Answer in JSON."), Some(0.25)));
    assert_eq!(r["parallel_tool_calls"], false);
    assert_eq!(r["text"]["format"]["name"], "sum");
    let output = r["output"].as_array().unwrap();
    assert_eq!(output.len(), 1, "{r}");
    let item = &output[0];
    assert!(item["id"].as_str().unwrap().starts_with("msg_"));
    assert_eq!(
        (item["type"].as_str(), item["role"].as_str(), item["status"].as_str()),
        (Some("message"), Some("assistant"), Some("completed"))
    );
    assert_eq!(
        item["content"],
        json!([{"type": "output_text", "text": r#"{"sum": 5}"#, "annotations": [], "logprobs": []}])
    );
    assert_eq!(
        r["usage"],
        json!({"input_tokens": 20, "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
               "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 25}),
        "the mock's usage, in the Responses API's names"
    );
    let sent = mock.requests().last().unwrap().json();
    assert_eq!(sent["messages"][0], json!({"role": "system", "content": "You add numbers.\n\nAnswer in JSON."}));
    assert_eq!((sent["temperature"].as_f64(), sent["top_p"].as_f64()), (Some(0.25), Some(0.5)));
    assert!(sent["max_tokens"] == 300 || sent["max_completion_tokens"] == 300, "{sent}");
    assert_eq!(sent["parallel_tool_calls"], false);
    assert_eq!(
        sent["response_format"],
        json!({"type": "json_schema", "json_schema": {"name": "sum", "schema": schema, "strict": true}})
    );

    // Input items: the client's system message joins `instructions`; an assistant's earlier
    // message and the user's last one are the conversation.
    let items = json!({"model": "default", "instructions": "Be brief.", "input": [
        {"role": "developer", "content": "Say how many."},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "one"}]},
        {"type": "message", "role": "assistant", "id": "msg_1", "status": "completed",
         "content": [{"type": "output_text", "text": "ok", "annotations": []}]},
        {"role": "user", "content": "two"},
    ]});
    let (status, r) = api.post("/v1/responses", items).await;
    assert_eq!(status, 200, "{r}");
    assert_eq!(r["output"][0]["content"][0]["text"], "You said 2 things.");
    let sent = mock.requests().last().unwrap().json();
    assert_eq!(sent["messages"][0]["content"], "You add numbers.\n\nBe brief.\n\nSay how many.");
    assert_eq!(sent["messages"][2], json!({"role": "assistant", "content": "ok"}));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_the_facade_cannot_honour_is_a_400_naming_the_field() {
    let (api, mock) = serve("responses-refused", |c| c).await;
    let refused = [
        (json!({"background": true}), "`background`"),
        (json!({"conversation": "conv_1"}), "`conversation`"),
        (json!({"prompt": {"id": "p"}}), "`prompt`"),
        (json!({"include": ["reasoning.encrypted_content"]}), "`include`"),
        (json!({"truncation": "auto"}), "`truncation`"),
        (json!({"max_tool_calls": 3}), "`max_tool_calls`"),
        (json!({"top_logprobs": 2}), "`top_logprobs`"),
        (json!({"temperature": 3}), "`temperature`"),
        (json!({"reasoning": {"summary": "auto"}}), "`reasoning.summary`"),
        (json!({"text": {"verbosity": "low"}}), "`text.verbosity`"),
        (json!({"text": {"format": {"type": "xml"}}}), "`text.format.type`"),
        (json!({"text": {"format": {"type": "json_schema"}}}), "`text.format.name`"),
        (json!({"tools": [{"type": "web_search"}]}), "`tools[0].type`"),
        (json!({"tools": [{"type": "function", "name": "add"}]}), "`tools[0].name`"),
        (json!({"tool_choice": {"type": "function", "name": "nope"}}), "`tool_choice.name`"),
        (json!({"tool_choice": {"type": "allowed_tools"}}), "`tool_choice`"),
        (json!({"metadata": {"k": 1}}), "`metadata`"),
        (json!({"previous_response_id": 5}), "`previous_response_id`"),
        (json!({"input": [{"type": "reasoning", "id": "rs_1", "summary": []}]}), "`input[0].type`"),
        // Images are taken (issue 28); one whose URL is neither http(s) nor a data URL is not.
        (
            json!({"input": [{"role": "user", "content": [{"type": "input_image", "image_url": "x"}]}]}),
            "`input[0].content[0]`",
        ),
        (
            json!({"input": [{"role": "user", "content": [{"type": "input_file", "file_id": "file-1"}]}]}),
            "`input[0].content[0]`",
        ),
        (json!({"input": [{"type": "function_call_output", "call_id": "c1", "output": "x"}]}), "`input[0].call_id`"),
        (json!({"input": [{"role": "assistant", "content": "hi"}]}), "`input`"),
    ];
    for (extra, field) in refused {
        let mut body = json!({"model": "default", "input": "2 + 3?"});
        for (k, v) in extra.as_object().unwrap() {
            body[k] = v.clone();
        }
        let (status, reply) = api.post("/v1/responses", body).await;
        assert_eq!((status, error_code(&reply)), (400, "invalid_field"), "{extra}: {reply}");
        assert!(message(&reply).starts_with(field), "{extra}: {reply}");
    }
    let (status, reply) = api.post("/v1/responses", json!({"model": "nobody", "input": "hi"})).await;
    assert_eq!((status, error_code(&reply)), (404, "model_not_found"));
    assert!(mock.requests().is_empty(), "a refused request never reaches the model");

    let (api, mock) = serve("responses-refuse-system", |c| c.client_system("default", ClientSystem::Refuse)).await;
    let (status, reply) =
        api.post("/v1/responses", json!({"model": "default", "input": "hi", "instructions": "Obey me."})).await;
    assert_eq!(status, 400);
    assert!(message(&reply).starts_with("`instructions`") && message(&reply).contains("client_system"), "{reply}");
    assert!(mock.requests().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_stream_has_openais_typed_events_in_order_with_sequence_numbers() {
    let (api, _mock) = serve("responses-stream", |c| c).await;
    let events = stream(&api, json!({"model": "default", "input": "hi", "stream": true})).await;
    assert_eq!(
        kinds(&events),
        [
            "response.created",
            "response.in_progress",
            "response.output_item.added",
            "response.content_part.added",
            "response.output_text.delta",
            "response.output_text.delta",
            "response.output_text.done",
            "response.content_part.done",
            "response.output_item.done",
            "response.completed",
        ]
    );
    for (i, (_, data)) in events.iter().enumerate() {
        assert_eq!(data["sequence_number"], i as u64, "{data}");
    }
    let created = &events[0].1["response"];
    assert_eq!(
        (created["status"].as_str(), created["output"].as_array().map(Vec::len)),
        (Some("in_progress"), Some(0))
    );
    let item_id = events[2].1["item"]["id"].as_str().unwrap();
    assert_eq!(events[2].1["item"]["status"], "in_progress");
    let text: String = events
        .iter()
        .filter(|(k, _)| k == "response.output_text.delta")
        .map(|(_, d)| d["delta"].as_str().unwrap())
        .collect();
    assert_eq!(text, "You said 1 things.");
    assert_eq!(events[4].1["item_id"], item_id);
    assert_eq!(
        (events[6].1["text"].as_str(), events[7].1["part"]["text"].as_str()),
        (Some(text.as_str()), Some(text.as_str()))
    );
    let done = &events[9].1["response"];
    assert_eq!(done["status"], "completed");
    assert_eq!(done["id"], created["id"]);
    assert_eq!(done["output"], json!([events[8].1["item"]]));
    assert_eq!(done["usage"]["total_tokens"], 25);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_clients_function_tool_comes_back_as_a_function_call_and_the_run_goes_on_from_its_output() {
    let (api, mock) = serve("responses-client-tools", |c| c).await;
    let user = json!({"role": "user", "content": "Weather in Paris, and 2 + 3?"});
    let (status, r) =
        api.post("/v1/responses", json!({"model": "default", "input": [user], "tools": [weather()]})).await;
    assert_eq!(status, 200, "{r}");
    assert_eq!(r["status"], "completed");
    let call = &r["output"][0];
    assert_eq!(
        (call["type"].as_str(), call["call_id"].as_str(), call["name"].as_str(), call["arguments"].as_str()),
        (Some("function_call"), Some("call_w"), Some("weather"), Some(r#"{"city":"Paris"}"#)),
        "{r}"
    );
    assert!(call["id"].as_str().unwrap().starts_with("fc_"));
    assert_eq!(r["output"].as_array().unwrap().len(), 1, "{r}");
    let sent: Vec<Value> = mock.requests().iter().map(|r| r.json()).collect();
    assert_eq!(sent.len(), 2, "the agent's `add` ran on the server, then the model called `weather`");
    assert_eq!(sent[1]["messages"].as_array().unwrap().last().unwrap()["content"], "5");
    assert!(sent[0]["tools"].as_array().unwrap().iter().any(|t| t["function"]["name"] == "weather"));

    // Stateless: the client sends the call back with its output.
    let input = json!([user, call, {"type": "function_call_output", "call_id": "call_w", "output": "sunny"}]);
    let (status, r) =
        api.post("/v1/responses", json!({"model": "default", "input": input, "tools": [weather()]})).await;
    assert_eq!(status, 200, "{r}");
    assert_eq!(r["output"][0]["content"][0]["text"], "Paris is sunny; 2 + 3 = 5.");
    let last = mock.requests().last().unwrap().json();
    let messages = last["messages"].as_array().unwrap();
    assert_eq!(messages[messages.len() - 2]["tool_calls"][0]["id"], "call_w", "{last}");
    assert_eq!(messages.last().unwrap()["tool_call_id"], "call_w");

    // Streamed: the call as an item with its arguments' events, after the server's own tool ran.
    let events = stream(
        &api,
        json!({"model": "default", "input": [user], "tools": [weather()], "stream": true,
                                     "tool_choice": "required"}),
    )
    .await;
    assert_eq!(
        kinds(&events),
        [
            "response.created",
            "response.in_progress",
            "response.output_item.added",
            "response.function_call_arguments.delta",
            "response.function_call_arguments.done",
            "response.output_item.done",
            "response.completed",
        ]
    );
    assert_eq!(events[2].1["item"]["arguments"], "");
    assert_eq!(events[3].1["delta"], r#"{"city":"Paris"}"#);
    assert_eq!(events[4].1["arguments"], r#"{"city":"Paris"}"#);
    assert_eq!(events[3].1["item_id"], events[2].1["item"]["id"]);
    assert_eq!(events[6].1["response"]["output"][0]["call_id"], "call_w");
    let first = mock.requests()[mock.requests().len() - 2].json();
    assert_eq!(first["tool_choice"], "required", "the first model call's, as in OpenAI");
}

fn two_tenants(c: ServerConfig) -> ServerConfig {
    c.keys(ApiKeys::parse("acme:acme-key-0123456789,globex:globex-key-0123456789").unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stored_response_continues_with_previous_response_id_for_its_tenant_only_on_sqlite() {
    let (api, mock) = serve("responses-stored", two_tenants).await;
    stored_responses(api, mock).await;
}

#[cfg(feature = "postgres")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stored_response_continues_with_previous_response_id_for_its_tenant_only_on_postgres() {
    let Some(admin) = common::postgres_url() else { return };
    let db = common::PgDatabase::create(&admin, "lucid_responses").await;
    let mock = Arc::new(MockServer::start(model).await);
    let database = lucid_server::Database::Postgres(db.url.clone());
    let api = common::start_on(common::temp_dir("responses-stored-pg"), database, agent(&mock), two_tenants).await;
    stored_responses(api, Arc::clone(&mock)).await;
    let database = lucid_server::Database::Postgres(db.url.clone());
    let api = common::start_on(common::temp_dir("responses-quota-pg"), database, agent(&mock), capped).await;
    stored_responses_count_in_the_quota(api).await;
    db.drop_now().await;
}

/// Two tenants, each keeping at most 5,000 bytes.
fn capped(c: ServerConfig) -> ServerConfig {
    two_tenants(c).max_stored_bytes_per_tenant(5_000)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stored_responses_count_in_the_tenants_quota_on_sqlite() {
    let (api, _mock) = serve("responses-quota", capped).await;
    stored_responses_count_in_the_quota(api).await;
}

/// Storing responses fills the tenant's quota until a 429 names it; one not stored still
/// answers, the other tenant still stores, and deleting frees the room.
async fn stored_responses_count_in_the_quota(api: Api) {
    let (acme, globex) = (api.as_key("acme-key-0123456789"), api.as_key("globex-key-0123456789"));
    let ask = json!({"model": "default", "input": "one", "store": true});
    let mut kept = Vec::new();
    let refused = loop {
        let (status, body) = acme.post("/v1/responses", ask.clone()).await;
        match status {
            200 => kept.push(body["id"].as_str().unwrap().to_string()),
            _ => break (status, body),
        }
        assert!(kept.len() < 10, "ten stored responses and the quota of 5,000 bytes never met");
    };
    assert_eq!((refused.0, error_code(&refused.1)), (429, "quota_exceeded"), "{}", refused.1);
    assert!(!kept.is_empty());
    let (status, _) = acme.post("/v1/responses", json!({"model": "default", "input": "one"})).await;
    assert_eq!(status, 200, "a response not stored takes no room");
    assert_eq!(globex.post("/v1/responses", ask.clone()).await.0, 200, "the other tenant has its own quota");
    for id in &kept {
        assert_eq!(acme.send(reqwest::Method::DELETE, &format!("/v1/responses/{id}"), None).await.0, 200);
    }
    assert_eq!(acme.post("/v1/responses", ask).await.0, 200, "deleted, their room is free again");
}

/// Stored responses: continued by their tenant, unknown to another; read and deleted.
async fn stored_responses(api: Api, mock: Arc<MockServer>) {
    let (acme, globex) = (api.as_key("acme-key-0123456789"), api.as_key("globex-key-0123456789"));
    let (status, first) = acme.post("/v1/responses", json!({"model": "default", "input": "one", "store": true})).await;
    assert_eq!(status, 200, "{first}");
    assert_eq!(first["store"], true);
    let id = first["id"].as_str().unwrap();
    let (status, next) =
        acme.post("/v1/responses", json!({"model": "default", "input": "two", "previous_response_id": id})).await;
    assert_eq!(status, 200, "{next}");
    assert_eq!(next["previous_response_id"], id);
    assert_eq!(next["output"][0]["content"][0]["text"], "You said 2 things.", "the stored conversation came first");
    let sent = mock.requests().last().unwrap().json();
    assert_eq!(sent["messages"][2], json!({"role": "assistant", "content": "You said 1 things."}));
    // Not stored (the default): nothing to continue from.
    let (status, _) = acme.get(&format!("/v1/responses/{}", next["id"].as_str().unwrap())).await;
    assert_eq!(status, 404);
    assert_eq!(acme.get(&format!("/v1/responses/{id}")).await, (200, first.clone()));

    // Another tenant's id is unknown, to continue from, to read or to delete.
    let (status, body) =
        globex.post("/v1/responses", json!({"model": "default", "input": "two", "previous_response_id": id})).await;
    assert_eq!((status, error_code(&body)), (404, "not_found"), "{body}");
    assert_eq!(globex.get(&format!("/v1/responses/{id}")).await.0, 404);
    assert_eq!(globex.send(reqwest::Method::DELETE, &format!("/v1/responses/{id}"), None).await.0, 404);

    // A client's tool call, stored: the next request sends only the output.
    let user = json!({"role": "user", "content": "Weather in Paris, and 2 + 3?"});
    let (status, r) = acme
        .post("/v1/responses", json!({"model": "default", "input": [user], "tools": [weather()], "store": true}))
        .await;
    assert_eq!(status, 200, "{r}");
    let output = json!([{"type": "function_call_output", "call_id": "call_w", "output": "sunny"}]);
    let (status, r) = acme
        .post(
            "/v1/responses",
            json!({"model": "default", "input": output, "tools": [weather()], "previous_response_id": r["id"]}),
        )
        .await;
    assert_eq!(status, 200, "{r}");
    assert_eq!(r["output"][0]["content"][0]["text"], "Paris is sunny; 2 + 3 = 5.");

    // Streamed and stored, then deleted.
    let events = stream(&acme, json!({"model": "default", "input": "three", "store": true, "stream": true})).await;
    let streamed = &events.last().unwrap().1["response"];
    let sid = streamed["id"].as_str().unwrap();
    assert_eq!(acme.get(&format!("/v1/responses/{sid}")).await, (200, streamed.clone()));
    let (status, gone) = acme.send(reqwest::Method::DELETE, &format!("/v1/responses/{sid}"), None).await;
    assert_eq!((status, gone), (200, json!({"id": sid, "object": "response", "deleted": true})));
    assert_eq!(acme.get(&format!("/v1/responses/{sid}")).await.0, 404);
}

/// The official OpenAI Python SDK's `client.responses`: plain, streamed (its typed events,
/// and its `responses.stream` helper, which checks the events' order as it accumulates
/// them), a function tool round trip, structured output with `responses.parse`, a stored
/// response continued, read and deleted, and a refusal.
const SDK_SCRIPT: &str = r#"
import json, sys, openai, pydantic
base, key = sys.argv[1], sys.argv[2]
client = openai.OpenAI(base_url=base + "/v1", api_key=key, max_retries=0)
out = {}
r = client.responses.create(model="default", input="hi", instructions="Be brief.", temperature=0.5,
                            max_output_tokens=100, metadata={"k": "v"})
out["plain"] = [type(r).__name__, r.object, r.status, r.output_text, type(r.output[0]).__name__,
                type(r.output[0].content[0]).__name__, r.usage.input_tokens, r.usage.output_tokens,
                r.usage.total_tokens, r.usage.input_tokens_details.cached_tokens,
                r.usage.output_tokens_details.reasoning_tokens, r.metadata]
events = list(client.responses.create(model="default", input="hi", stream=True))
out["events"] = [type(e).__name__ for e in events]
out["sequence"] = [e.sequence_number for e in events]
out["streamed"] = "".join(e.delta for e in events if e.type == "response.output_text.delta")
out["completed"] = events[-1].response.output_text
with client.responses.stream(model="default", input="hi") as s:
    for _ in s:
        pass
    out["helper"] = s.get_final_response().output_text
weather = {"type": "function", "name": "weather", "description": "The weather in a city.", "strict": True,
           "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"],
                          "additionalProperties": False}}
ask = [{"role": "user", "content": "Weather in Paris, and 2 + 3?"}]
r = client.responses.create(model="default", input=ask, tools=[weather])
call = r.output[0]
out["call"] = [type(call).__name__, call.call_id, call.name, json.loads(call.arguments)]
with client.responses.stream(model="default", input=ask, tools=[weather]) as s:
    for e in s:
        if e.type == "response.function_call_arguments.done":
            out["stream_call"] = e.arguments
    out["stream_call_item"] = s.get_final_response().output[0].call_id
history = ask + [call.model_dump(exclude_none=True), {"type": "function_call_output", "call_id": call.call_id, "output": "sunny"}]
out["after_tool"] = client.responses.create(model="default", input=history, tools=[weather]).output_text
class Sum(pydantic.BaseModel):
    sum: int
parsed = client.responses.parse(model="default", input="What is 2 + 3?", text_format=Sum)
out["parsed"] = parsed.output_parsed.sum
first = client.responses.create(model="default", input="one", store=True)
out["continued"] = client.responses.create(model="default", input="two", previous_response_id=first.id).output_text
out["retrieved"] = client.responses.retrieve(first.id).output_text
out["deleted"] = client.responses.delete(first.id) is None
try:
    client.responses.retrieve(first.id)
except openai.NotFoundError as e:
    out["gone"] = e.status_code
try:
    client.responses.create(model="default", input="hi", tools=[{"type": "web_search"}])
except openai.BadRequestError as e:
    out["refused"] = [e.status_code, e.body.get("message", "") if isinstance(e.body, dict) else ""]
print(json.dumps(out))
"#;

/// The OpenAI Agents SDK with its default settings (the Responses API), an `Agent` with a
/// `@function_tool` of its own, run plain and streamed against the server.
const AGENTS_SCRIPT: &str = r#"
import asyncio, json, sys, openai
from agents import Agent, Runner, function_tool, set_default_openai_client, set_tracing_disabled
base, key = sys.argv[1], sys.argv[2]
set_tracing_disabled(True)
set_default_openai_client(openai.AsyncOpenAI(base_url=base + "/v1", api_key=key, max_retries=0), use_for_tracing=False)
called = []
@function_tool
def weather(city: str) -> str:
    """The weather in a city."""
    called.append(city)
    return "sunny"
agent = Agent(name="Assistant", instructions="You help with the weather.", model="default", tools=[weather])
async def main():
    out = {"final": (await Runner.run(agent, "Weather in Paris, and 2 + 3?")).final_output}
    run = Runner.run_streamed(agent, "Weather in Paris, and 2 + 3?")
    async for _ in run.stream_events():
        pass
    out["streamed"] = run.final_output
    return out
out = asyncio.run(main())
out["called"] = called
print(json.dumps(out))
"#;

/// Runs `script` with `python` against a server with keys; its JSON output and the mock.
async fn run_python(name: &str, python: String, script: &'static str) -> (Value, Arc<MockServer>) {
    let keys = ApiKeys::parse("acme:acme-key-0123456789").unwrap();
    let (api, mock) = serve(name, |c| c.keys(keys)).await;
    let url = api.url.clone();
    let out = tokio::task::spawn_blocking(move || {
        std::process::Command::new(python).args(["-c", script, &url, "acme-key-0123456789"]).output().unwrap()
    })
    .await
    .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the script failed:\n{stderr}");
    (
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout))),
        mock,
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_official_openai_python_sdk_parses_the_responses_facade() {
    let Some(python) =
        common::real_part("LUCID_TEST_OPENAI_PYTHON", ".ci/run installs PyPI's openai in a venv and sets it")
    else {
        return;
    };
    let (got, mock) = run_python("responses-sdk", python, SDK_SCRIPT).await;
    assert_eq!(
        got["plain"],
        json!(["Response", "response", "completed", "You said 1 things.", "ResponseOutputMessage", "ResponseOutputText",
               20, 5, 25, 0, 0, {"k": "v"}]),
        "{got}"
    );
    assert_eq!(
        got["events"],
        json!([
            "ResponseCreatedEvent",
            "ResponseInProgressEvent",
            "ResponseOutputItemAddedEvent",
            "ResponseContentPartAddedEvent",
            "ResponseTextDeltaEvent",
            "ResponseTextDeltaEvent",
            "ResponseTextDoneEvent",
            "ResponseContentPartDoneEvent",
            "ResponseOutputItemDoneEvent",
            "ResponseCompletedEvent"
        ]),
        "the SDK's own types for each event"
    );
    assert_eq!(got["sequence"], json!((0..10).collect::<Vec<_>>()));
    assert_eq!(
        (got["streamed"].as_str(), got["completed"].as_str()),
        (Some("You said 1 things."), Some("You said 1 things."))
    );
    assert_eq!(got["helper"], "You said 1 things.");
    assert_eq!(got["call"], json!(["ResponseFunctionToolCall", "call_w", "weather", {"city": "Paris"}]), "{got}");
    assert_eq!(
        (got["stream_call"].as_str(), got["stream_call_item"].as_str()),
        (Some(r#"{"city":"Paris"}"#), Some("call_w"))
    );
    assert_eq!(got["after_tool"], "Paris is sunny; 2 + 3 = 5.");
    assert_eq!(got["parsed"], 5, "structured output through the SDK's parse");
    assert_eq!(
        (got["continued"].as_str(), got["retrieved"].as_str()),
        (Some("You said 2 things."), Some("You said 1 things."))
    );
    assert_eq!((got["deleted"].as_bool(), got["gone"].as_u64()), (Some(true), Some(404)));
    assert_eq!(got["refused"][0], 400);
    assert!(got["refused"][1].as_str().unwrap().starts_with("`tools[0].type`"), "{got}");
    let first = mock.requests()[0].json();
    assert_eq!(first["messages"][0]["content"], "You add numbers.\n\nBe brief.", "the operator's prompt kept");
    assert_eq!(
        (first["temperature"].as_f64(), first["max_tokens"].as_u64().or(first["max_completion_tokens"].as_u64())),
        (Some(0.5), Some(100))
    );
    let parsed =
        mock.requests().iter().map(|r| r.json()).find(|b| b["response_format"]["type"] == "json_schema").unwrap();
    assert_eq!(parsed["response_format"]["json_schema"]["name"], "Sum");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_openai_agents_sdk_runs_an_agent_with_its_own_function_tool() {
    let Some(python) = common::real_part(
        "LUCID_TEST_OPENAI_PYTHON",
        ".ci/run installs PyPI's openai and openai-agents in a venv and sets it",
    ) else {
        return;
    };
    let (got, mock) = run_python("responses-agents-sdk", python, AGENTS_SCRIPT).await;
    assert_eq!(got["final"], "Paris is sunny; 2 + 3 = 5.", "{got}");
    assert_eq!(got["streamed"], "Paris is sunny; 2 + 3 = 5.", "{got}");
    assert_eq!(got["called"], json!(["Paris", "Paris"]), "the Agents SDK ran its own tool, once a run");
    let first = mock.requests()[0].json();
    assert_eq!(first["messages"][0]["content"], "You add numbers.\n\nYou help with the weather.");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_that_fails_is_a_502_or_a_response_failed_event() {
    let mock = Arc::new(
        MockServer::start(|_: &RecordedRequest| {
            Reply::json(400, &json!({"error": {"message": "the model is unwell", "type": "invalid_request_error"}}))
        })
        .await,
    );
    let api = start("responses-failed", agent(&mock), |c| c).await;
    let (status, body) = api.post("/v1/responses", json!({"model": "default", "input": "hi"})).await;
    assert_eq!((status, error_code(&body)), (502, "provider_error"), "{body}");
    let events = stream(&api, json!({"model": "default", "input": "hi", "stream": true})).await;
    assert_eq!(kinds(&events), ["response.created", "response.in_progress", "response.failed"]);
    let failed = &events[2].1["response"];
    assert_eq!((failed["status"].as_str(), failed["error"]["code"].as_str()), (Some("failed"), Some("server_error")));
    assert!(failed["error"]["message"].as_str().unwrap().contains("unwell"), "{failed}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_response_counts_in_the_tenants_daily_budget() {
    let budget = lucid::agent::budget::Limits::default().max_model_calls(1);
    let (api, mock) = serve("responses-budget", |c| two_tenants(c).tenant_daily_budget(budget)).await;
    let acme = api.as_key("acme-key-0123456789");
    let (status, r) = acme.post("/v1/responses", json!({"model": "default", "input": "one"})).await;
    assert_eq!(status, 200, "{r}");
    let (status, body) = acme.post("/v1/responses", json!({"model": "default", "input": "two", "stream": true})).await;
    assert_eq!((status, error_code(&body)), (429, "quota_exceeded"), "the day's one model call is spent: {body}");
    assert_eq!(mock.requests().len(), 1);
}
