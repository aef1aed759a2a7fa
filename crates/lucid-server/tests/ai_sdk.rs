//! The Vercel AI SDK (`ai` 6 with `@ai-sdk/openai`'s `createOpenAI`, pinned in
//! .ci/node-clients) as a client of both facades, `/v1/responses` (the provider's
//! default) and `/v1/chat/completions` (`.chat(...)`): `generateText`, `streamText`, a
//! tool of the client's own run by the SDK over several steps beside the agent's own, and
//! structured output (`generateObject` and `Output.object`). The script is
//! tests/node/ai_sdk.cjs; skipped with the reason printed when `LUCID_TEST_NODE_CLIENTS`
//! is unset.
//!
//! What the SDK sends that other clients did not, checked without it: an `item_reference`
//! to a stored response's message (how it sends a conversation's earlier answers back).

mod common;

use std::sync::Arc;

use common::{adder, node_json, start};
use lucid_mock::{MockServer, RecordedRequest, Reply, text_reply, tool_call_reply};
use lucid_server::ApiKeys;
use serde_json::{Value, json};

/// The model. Offered the client's `weather`: `add(2, 3)` first (the agent's tool), then
/// `weather`, then the answer once it has the weather. Asked for JSON, `{"sum": 5}`;
/// otherwise it answers how many user messages it was sent.
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
            (Some("tool"), Some(c)) if c.contains("sunny") => text("Paris is sunny; 2 + 3 = 5."),
            (Some("tool"), _) => call(&[("call_w", "weather", r#"{"city":"Paris"}"#)]),
            _ => call(&[("call_a", "add", r#"{"a":2,"b":3}"#)]),
        };
    }
    if last["content"] == "fail" {
        return Reply::json(
            400,
            &json!({"error": {"message": "the model is unwell", "type": "invalid_request_error"}}),
        );
    }
    if body["response_format"]["type"] == "json_schema" {
        return text(r#"{"sum": 5}"#);
    }
    let users = messages.iter().filter(|m| m["role"] == "user").count();
    text(&format!("You said {users} things."))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_item_reference_is_the_stored_item_of_the_tenants_response_or_a_400_saying_why() {
    let mock = Arc::new(MockServer::start(model).await);
    let keys = ApiKeys::parse("acme:acme-key-0123456789,globex:globex-key-0123456789").unwrap();
    let api = start("ai-sdk-item-reference", adder(&mock), |c| c.keys(keys)).await;
    let (acme, globex) = (api.as_key("acme-key-0123456789"), api.as_key("globex-key-0123456789"));
    let hello = json!({"role": "user", "content": [{"type": "input_text", "text": "Hello"}]});
    let again = json!({"role": "user", "content": [{"type": "input_text", "text": "Again"}]});
    let (status, first) =
        acme.post("/v1/responses", json!({"model": "default", "input": [hello], "store": true})).await;
    assert_eq!(status, 200, "{first}");
    let item = first["output"][0]["id"].as_str().unwrap().to_string();
    let tail = first["id"].as_str().unwrap().strip_prefix("resp_").unwrap();
    assert_eq!(item, format!("msg_{tail}"), "a message item names its response");
    // As the AI SDK sends a conversation back: the earlier answer by reference.
    let turn = json!({"model": "default", "store": true,
                      "input": [hello, {"type": "item_reference", "id": item}, again]});
    let (status, next) = acme.post("/v1/responses", turn.clone()).await;
    assert_eq!(status, 200, "{next}");
    assert_eq!(next["output"][0]["content"][0]["text"], "You said 2 things.");
    let sent = mock.requests().last().unwrap().json();
    assert_eq!(sent["messages"][2], json!({"role": "assistant", "content": "You said 1 things."}), "{sent}");
    // Streamed, the message item is named the same way.
    let body = json!({"model": "default", "input": "Hello", "stream": true, "store": true});
    let text = acme.req(reqwest::Method::POST, "/v1/responses").json(&body).send().await.unwrap().text().await.unwrap();
    let events: Vec<Value> = common::parse_sse(&text).iter().map(|e| serde_json::from_str(&e.data).unwrap()).collect();
    let completed = &events.last().unwrap()["response"];
    let tail = completed["id"].as_str().unwrap().strip_prefix("resp_").unwrap();
    assert_eq!(completed["output"][0]["id"].as_str(), Some(format!("msg_{tail}").as_str()), "{completed}");

    let calls = mock.requests().len();
    let (status, refused) = globex.post("/v1/responses", turn).await;
    assert_eq!(status, 400, "another tenant's item is not found: {refused}");
    let (_, unstored) = acme.post("/v1/responses", json!({"model": "default", "input": "Hello"})).await;
    let gone = unstored["output"][0]["id"].clone();
    let turn = json!({"model": "default", "input": [hello, {"type": "item_reference", "id": gone}, again]});
    let (status, refused) = acme.post("/v1/responses", turn).await;
    assert_eq!(status, 400);
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(message.starts_with("`input[1].id`: no stored item") && message.contains("store: true"), "{message}");
    assert_eq!(mock.requests().len(), calls + 1, "no refused request reached the model");

    // An operator who chose OpenAI's default stores a request silent on `store`, so the
    // same conversation sent by reference goes on.
    let keys = ApiKeys::parse("acme:acme-key-0123456789").unwrap();
    let api = start("ai-sdk-store-default", adder(&mock), |c| c.keys(keys).responses_store_default(true)).await;
    let acme = api.as_key("acme-key-0123456789");
    let (status, first) = acme.post("/v1/responses", json!({"model": "default", "input": [hello]})).await;
    assert_eq!((status, &first["store"]), (200, &json!(true)), "{first}");
    let item = first["output"][0]["id"].clone();
    let turn = json!({"model": "default", "input": [hello, {"type": "item_reference", "id": item}, again]});
    let (status, next) = acme.post("/v1/responses", turn).await;
    assert_eq!(status, 200, "{next}");
    assert_eq!(next["output"][0]["content"][0]["text"], "You said 2 things.");
    let (status, unstored) =
        acme.post("/v1/responses", json!({"model": "default", "input": "Hello", "store": false})).await;
    assert_eq!((status, &unstored["store"]), (200, &json!(false)), "`store: false` still keeps nothing");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_vercel_ai_sdk_drives_both_facades() {
    let Some(dir) =
        common::real_part("LUCID_TEST_NODE_CLIENTS", ".ci/run installs .ci/node-clients with npm ci and sets it")
    else {
        return;
    };
    let mock = Arc::new(MockServer::start(model).await);
    let keys = ApiKeys::parse("acme:acme-key-0123456789").unwrap();
    let api = start("ai-sdk", adder(&mock), |c| c.keys(keys)).await;
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/node/ai_sdk.cjs");
    let url = api.url.clone();
    let got = node_json(script, vec![dir, url, "acme-key-0123456789".into()]).await;
    let error = |v: &Value| v["error"].as_str().unwrap_or_else(|| panic!("not an error: {v}")).to_string();
    for api in ["responses", "chat"] {
        let got = &got[api];
        let is = |case: &str, want: Value| assert_eq!(got[case], want, "{api} {case}: {got:#}");
        is("generate", json!({"text": "You said 1 things.", "finish": "stop", "usage": [20, 5, 25]}));
        is("stream", json!({"text": "You said 1 things.", "pieces": 2, "finish": "stop", "usage": [20, 5, 25]}));
        // The SDK ran its own tool once; the agent's ran on the server, unseen by it.
        is(
            "tool",
            json!({"text": "Paris is sunny; 2 + 3 = 5.", "steps": 2, "calls": [["weather", {"city": "Paris"}]],
                   "called": ["Paris"]}),
        );
        is("stream_tool", json!({"text": "Paris is sunny; 2 + 3 = 5.", "steps": 2, "called": ["Paris"]}));
        is("tool_choice", json!({"finish": "tool-calls", "called": ["Paris"]}));
        is("object", json!({"sum": 5}));
        is("output", json!({"sum": 5}));
        is("stream_object", json!({"object": {"sum": 5}, "streamed": true}));
        is("history", json!("You said 2 things."));
        is("options", json!("You said 1 things."));
        is("turns_store_false", json!(["You said 1 things.", "You said 2 things."]));
        is("tool_turns_store_false", json!(["Paris is sunny; 2 + 3 = 5.", "You said 2 things."]));
        assert!(error(&got["fail"]).contains("the model is unwell"), "{api}: {got:#}");
        is(
            "stream_fail",
            json!({"text": "", "errors": ["openai returned 400 invalid_request_error: the model is unwell"]}),
        );
        assert!(error(&got["unknown_agent"]).contains("no agent `nobody`"), "{api}: {got:#}");
    }
    // Chat Completions carries the conversation whole; the Responses API refers to an
    // earlier answer, which this server keeps only when asked to.
    assert_eq!(got["chat"]["turns_store_undefined"], json!(["You said 1 things.", "You said 2 things."]));
    let refused = error(&got["responses"]["turns_store_undefined"]);
    assert!(refused.contains("`input[1].id`: no stored item") && refused.contains("store: true"), "{refused}");
    assert_eq!(got["chat"]["tool_turns_store_undefined"], json!(["Paris is sunny; 2 + 3 = 5.", "You said 2 things."]));
    let refused = error(&got["responses"]["tool_turns_store_undefined"]);
    assert!(refused.contains("`input[3].id`: no stored item") && refused.contains("store: true"), "{refused}");
    assert_eq!(got["responses"]["turns_store_true"], json!(["You said 1 things.", "You said 2 things."]));
    assert_eq!(got["responses"]["tool_turns_store_true"], json!(["Paris is sunny; 2 + 3 = 5.", "You said 2 things."]));
    assert_eq!(got["responses"]["stored"], json!(["You said 1 things.", "You said 2 things."]), "previousResponseId");
    let sent: Vec<Value> = mock.requests().iter().map(|r| r.json()).collect();
    let forced =
        sent.iter().filter(|b| b["tool_choice"] == json!({"type": "function", "function": {"name": "weather"}}));
    assert_eq!(forced.count(), 2, "toolChoice reached the model from both facades");
    assert_eq!(sent.iter().filter(|b| b["top_p"].as_f64() == Some(0.5)).count(), 2, "topP from both");
    assert_eq!(sent.iter().filter(|b| b["seed"] == 7).count(), 1, "seed from Chat Completions (Responses has none)");
    let first = mock.requests()[0].json();
    assert_eq!(first["messages"][0]["content"], "You add numbers.\n\nBe brief.", "the operator's prompt kept");
    assert_eq!(first["temperature"].as_f64(), Some(0.5));
    let schemas = mock.requests().iter().filter(|r| r.json()["response_format"]["type"] == "json_schema").count();
    assert_eq!(schemas, 6, "the three structured outputs, on both facades, reached the model as a JSON schema");
}
