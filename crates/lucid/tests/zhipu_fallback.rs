//! Zhipu's 1214 settled by the provider: an assistant message with tool calls and no text
//! is resent once in each next form (`null`, then `""`, then a short placeholder) until
//! GLM accepts one, and the client keeps the form that worked.

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
async fn null_refused_empty_string_accepted_and_remembered() {
    let server = glm(&["empty"]).await;
    let model = client(&server);
    assert_eq!(ask(&model, false).await.unwrap(), "It is 5.");
    assert_eq!(forms(&server), ["null", "empty"]);
    // The client keeps what worked: the next request is sent in that form at once, by
    // every clone too.
    assert_eq!(ask(&model.clone(), false).await.unwrap(), "It is 5.");
    assert_eq!(forms(&server), ["null", "empty", "empty"]);
}

#[tokio::test]
async fn null_and_empty_refused_the_placeholder_accepted_streaming_too() {
    let server = glm(&["text"]).await;
    let model = client(&server);
    assert_eq!(ask(&model, true).await.unwrap(), "It is 5.");
    assert_eq!(forms(&server), ["null", "empty", "text"]);
    let last = server.requests()[2].json();
    assert_eq!(last["messages"][1]["content"], TOOL_CALL_PLACEHOLDER);
}

#[tokio::test]
async fn every_form_refused_ends_with_the_providers_error_after_one_try_of_each() {
    let server = glm(&[]).await;
    let e = ask(&client(&server), false).await.unwrap_err();
    assert!(matches!(&e, Error::Provider(p) if p.code.as_deref() == Some("1214")), "{e}");
    assert_eq!(forms(&server), ["null", "empty", "text"]);
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
