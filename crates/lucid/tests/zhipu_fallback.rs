//! Zhipu's 1214 settled by its record: an assistant message with tool calls and no text
//! goes with `content: ""` from the first request (no 1214 round trip), and should GLM
//! refuse it, is resent once in each next form of the record (`null`, then a short
//! placeholder) until GLM accepts one; the client keeps the form that worked.

use lucid::message::AssistantMessage;
use lucid::model::openai::TOOL_CALL_PLACEHOLDER;
use lucid::model::retry::RetryPolicy;
use lucid::model::{ChatModel, ChatOptions, ChatRequest, OpenAiCompatible, Preset, http::HttpTransport};
use lucid::{Error, Message, ToolCall};
use lucid_mock::{MockServer, Reply, text_completion, text_stream};
use serde_json::{Value, json};

/// How the request's assistant tool-call message carries `content`.
fn form(body: &Value) -> &'static str {
    let m = body["messages"].as_array().unwrap().iter().find(|m| m["tool_calls"].is_array()).unwrap();
    match m.get("content") {
        None => "omit",
        Some(Value::Null) => "null",
        Some(Value::String(s)) if s.is_empty() => "empty",
        Some(_) => "text",
    }
}

/// A GLM that accepts only these forms and answers 1214 to the others.
async fn glm(accepts: &'static [&'static str]) -> MockServer {
    MockServer::start(move |req| {
        let body = req.json();
        if accepts.contains(&form(&body)) && body["stream"] == true {
            Reply::sse(&text_stream(&["It is ", "5."]))
        } else if accepts.contains(&form(&body)) {
            Reply::json(200, &text_completion("It is 5."))
        } else {
            Reply::json(
                400,
                &json!({"error": {"code": "1214", "message": "messages[2]:content和tool_calls 字段不能同时为空"}}),
            )
        }
    })
    .await
}

fn client(server: &MockServer) -> OpenAiCompatible {
    let transport = HttpTransport::builder().retry(RetryPolicy::none()).build().unwrap();
    OpenAiCompatible::from_preset(Preset::find("zhipu").unwrap(), "glm-4.6", Some("k".into()))
        .unwrap()
        .with_base_url(&server.url())
        .unwrap()
        .with_transport(transport)
}

fn history() -> Vec<Message> {
    vec![
        Message::user("2+3?"),
        Message::Assistant(AssistantMessage {
            tool_calls: vec![ToolCall::new("call_1", "add", json!({"a": 2, "b": 3}))],
            ..Default::default()
        }),
        Message::tool_result("call_1", "add", "5", false),
    ]
}

async fn ask(model: &OpenAiCompatible, stream: bool) -> Result<String, Error> {
    let h = history();
    let o = ChatOptions::default();
    let req = ChatRequest::new(&h, &[], &o);
    if stream {
        use futures::StreamExt;
        let mut s = model.chat_stream(req).await?;
        while let Some(e) = s.next().await {
            if let lucid::model::StreamEvent::Done(r) = e? {
                return Ok(r.message.content);
            }
        }
        unreachable!("a stream ends with Done or an error")
    }
    Ok(model.chat(req).await?.message.content)
}

fn forms(server: &MockServer) -> Vec<&'static str> {
    server.requests().iter().map(|r| form(&r.json())).collect()
}

#[tokio::test]
async fn the_first_request_already_sends_an_empty_string_beside_tool_calls() {
    // GLM as the original design found it: `""` accepted, `null` refused with 1214.
    let server = glm(&["empty"]).await;
    let model = client(&server);
    assert_eq!(ask(&model, false).await.unwrap(), "It is 5.");
    assert_eq!(forms(&server), ["empty"], "one request, no 1214 first");
    assert_eq!(ask(&model, true).await.unwrap(), "It is 5.");
    assert_eq!(forms(&server), ["empty", "empty"]);
    // The same through the builder, as `from_env("zhipu:…")` and the CLI make it.
    let built = Preset::find("zhipu").unwrap().client().key("k").model("glm-4.6").base_url(server.url());
    let built = built.transport(HttpTransport::builder().retry(RetryPolicy::none()).build().unwrap()).build().unwrap();
    let h = history();
    let o = ChatOptions::default();
    built.chat(ChatRequest::new(&h, &[], &o)).await.unwrap();
    assert_eq!(forms(&server), ["empty", "empty", "empty"]);
}

#[tokio::test]
async fn empty_refused_null_accepted_and_remembered() {
    let server = glm(&["null"]).await;
    let model = client(&server);
    assert_eq!(ask(&model, false).await.unwrap(), "It is 5.");
    assert_eq!(forms(&server), ["empty", "null"]);
    // The client keeps what worked: the next request is sent in that form at once, by
    // every clone too.
    assert_eq!(ask(&model.clone(), false).await.unwrap(), "It is 5.");
    assert_eq!(forms(&server), ["empty", "null", "null"]);
}

#[tokio::test]
async fn empty_and_null_refused_the_placeholder_accepted_streaming_too() {
    let server = glm(&["text"]).await;
    let model = client(&server);
    assert_eq!(ask(&model, true).await.unwrap(), "It is 5.");
    assert_eq!(forms(&server), ["empty", "null", "text"]);
    let last = server.requests()[2].json();
    assert_eq!(last["messages"][1]["content"], TOOL_CALL_PLACEHOLDER);
}

#[tokio::test]
async fn every_form_refused_ends_with_the_providers_error_after_one_try_of_each() {
    let server = glm(&[]).await;
    let e = ask(&client(&server), false).await.unwrap_err();
    assert!(matches!(e.provider(), Some(p) if p.code.as_deref() == Some("1214")), "{e}");
    assert_eq!(forms(&server), ["empty", "null", "text"]);
}

#[tokio::test]
async fn a_server_known_by_its_url_keeps_null_first_then_empty_then_the_placeholder() {
    // GLM behind a gateway, no record of its own: the compatible record's forms.
    let server = glm(&["text"]).await;
    let transport = HttpTransport::builder().retry(RetryPolicy::none()).build().unwrap();
    let model = OpenAiCompatible::new(&server.url(), None, "glm-4.6").unwrap().with_transport(transport);
    assert_eq!(ask(&model, false).await.unwrap(), "It is 5.");
    assert_eq!(forms(&server), ["null", "empty", "text"]);
}

#[tokio::test]
async fn a_provider_without_content_retries_is_not_resent_on_1214() {
    let server = glm(&["empty"]).await;
    let transport = HttpTransport::builder().retry(RetryPolicy::none()).build().unwrap();
    let deepseek = Preset::find("deepseek").unwrap();
    let model = OpenAiCompatible::from_preset(deepseek, "deepseek-chat", Some("k".into()))
        .unwrap()
        .with_base_url(&server.url())
        .unwrap()
        .with_transport(transport);
    assert!(ask(&model, false).await.is_err());
    assert_eq!(forms(&server), ["null"], "its record has no 1214: one request");
}

#[tokio::test]
async fn a_1214_without_an_empty_tool_call_message_is_not_resent() {
    let server = MockServer::start(|_| {
        Reply::json(400, &json!({"error": {"code": "1214", "message": "messages: temperature out of range"}}))
    })
    .await;
    let model = client(&server);
    let h = [Message::user("hi")];
    let o = ChatOptions::default();
    assert!(model.chat(ChatRequest::new(&h, &[], &o)).await.is_err());
    assert_eq!(server.requests().len(), 1);
}
