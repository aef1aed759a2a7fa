//! The agent loop over the Responses API, against `lucid-mock`'s strict stateless server:
//! the reasoning item it issued must come back exactly, with its call, in both modes.

use std::sync::Arc;

use futures::StreamExt;
use lucid::model::retry::RetryPolicy;
use lucid::model::{ChatOptions, ModelError, OpenAiResponses, http::HttpTransport};
mod common;

use common::add;
use lucid::prelude::*;
use lucid::{Error, Message};
use lucid_mock::responses::ResponsesServer;
use lucid_mock::{MockServer, RecordedRequest};
use serde_json::{Value, json};

async fn server() -> (MockServer, Arc<ResponsesServer>) {
    let rules = Arc::new(ResponsesServer::default());
    let r = Arc::clone(&rules);
    (MockServer::start(move |req: &RecordedRequest| r.reply(req)).await, rules)
}

fn agent(server: &MockServer, options: ChatOptions) -> Agent {
    let transport = HttpTransport::builder().retry(RetryPolicy::none()).build().unwrap();
    let model =
        OpenAiResponses::new(&server.url(), Some("sk-test".into()), "gpt-5.6-sol").unwrap().with_transport(transport);
    Agent::builder(model).system("Use the tools.").tool(add).options(options).build()
}

/// The reasoning and call items the second request sent back.
fn issued_output(server: &MockServer) -> Vec<Value> {
    let first = server.requests()[0].json();
    assert_eq!(first["store"], false);
    assert_eq!(first["include"], json!(["reasoning.encrypted_content"]));
    let second = server.requests()[1].json();
    second["input"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| matches!(i["type"].as_str(), Some("reasoning" | "function_call")))
        .cloned()
        .collect()
}

#[tokio::test]
async fn a_tool_turn_replays_its_reasoning_exactly() {
    let (server, _) = server().await;
    let mut s = agent(&server, ChatOptions::default()).session();
    let r = s.run("What is 2 + 3?").await.unwrap();
    assert_eq!(r.content, "The answer is 5.");
    assert_eq!(r.tool_calls[0].output.as_deref(), Some("5"));
    assert_eq!((r.usage.input_tokens, r.usage.cached_input_tokens, r.usage.reasoning_tokens), (80, 64, 12));
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    assert!(reqs.iter().all(|q| q.path == "/v1/responses"));
    let replayed = issued_output(&server);
    assert_eq!(replayed[0]["encrypted_content"], "gAAAAB-mock-1-xxxxxxxxxxxxxxxxxxxxxxxx");
    assert_eq!(replayed[1]["call_id"], "call_mock_1");
    // The session keeps the items, so a saved and reloaded session replays them too.
    let Message::Assistant(a) = &s.messages()[2] else { panic!("{:?}", s.messages()) };
    assert_eq!(a.reasoning.as_ref().unwrap().blocks.len(), 2);
    let json = serde_json::to_string(&s.messages()).unwrap();
    let back: Vec<Message> = serde_json::from_str(&json).unwrap();
    assert_eq!(back, s.messages());
}

#[tokio::test]
async fn a_streamed_tool_turn_replays_its_reasoning_exactly() {
    let (server, _) = server().await;
    let mut s = agent(&server, ChatOptions::default()).session();
    let mut reasoning = String::new();
    let mut result = None;
    {
        let mut events = std::pin::pin!(s.run_stream("What is 2 + 3?"));
        while let Some(e) = events.next().await {
            match e {
                AgentEvent::ReasoningDelta(t) => reasoning.push_str(&t),
                AgentEvent::Completed(r) => result = Some(r),
                AgentEvent::Error(e) => panic!("{e}"),
                _ => {}
            }
        }
    }
    let r = result.unwrap();
    assert_eq!(r.content, "The answer is 5.");
    assert_eq!(reasoning, "Adding two numbers: a tool call.");
    assert_eq!(r.usage.output_tokens, 24, "usage from response.completed of each call, summed over the two calls");
    assert!(server.requests().iter().all(|q| q.json()["stream"] == true));
    assert_eq!(issued_output(&server)[0]["id"], "rs_mock_1");
}

#[tokio::test]
async fn temperature_for_a_reasoning_model_is_refused_before_any_request() {
    let (server, _) = server().await;
    let mut s = agent(&server, ChatOptions { temperature: Some(0.2), ..Default::default() }).session();
    let e = s.run("What is 2 + 3?").await.unwrap_err();
    assert!(matches!(&e, Error::Model(ModelError::Config(m)) if m.contains("temperature")), "{e}");
    assert!(server.requests().is_empty());
}

#[test]
fn the_mock_enforces_the_rules() {
    let rules = ResponsesServer::default();
    let ok = json!({"model": "m", "store": false, "input": [], "tools": [{"type": "function", "name": "add", "parameters": {}}]});
    rules.check(&ok).unwrap();
    let stored = json!({"model": "m", "input": []});
    assert!(rules.check(&stored).unwrap_err().contains("store"));
    let orphan = json!({"store": false, "input": [{"type": "function_call_output", "call_id": "c9", "output": "5"}]});
    assert!(rules.check(&orphan).unwrap_err().contains("c9"));
    let chat = json!({"store": false, "messages": []});
    assert!(rules.check(&chat).is_err());
}

#[tokio::test]
async fn the_mock_refuses_a_call_sent_back_without_its_reasoning() {
    let (server, rules) = server().await;
    let client = reqwest_post(
        &server,
        json!({"model": "m", "store": false, "input": [{"type": "message", "role": "user", "content": "hi"}],
                                              "tools": [{"type": "function", "name": "add", "parameters": {}}]}),
    )
    .await;
    let call = client["output"][1].clone();
    let reasoning = client["output"][0].clone();
    let without = json!({"store": false, "input": [call, {"type": "function_call_output", "call_id": "call_mock_1", "output": "5"}]});
    assert!(rules.check(&without).unwrap_err().contains("without its required 'reasoning' item"));
    let mut altered = reasoning.clone();
    altered["encrypted_content"] = json!("tampered");
    let bad = json!({"store": false, "input": [altered, call]});
    assert!(rules.check(&bad).unwrap_err().contains("altered"));
    let good = json!({"store": false, "input": [reasoning, call, {"type": "function_call_output", "call_id": "call_mock_1", "output": "5"}]});
    rules.check(&good).unwrap();
}

async fn reqwest_post(server: &MockServer, body: Value) -> Value {
    // Posted by hand: the codec would never send the broken shapes built from it.
    let resp = lucid::model::http::reqwest_client_builder()
        .build()
        .unwrap()
        .post(format!("{}/responses", server.url()))
        .json(&body)
        .send()
        .await
        .unwrap();
    resp.json().await.unwrap()
}
