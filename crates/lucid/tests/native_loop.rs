//! The agent loop end to end with the native Anthropic and Gemini codecs, against a local
//! server speaking their formats, streaming and not.

use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use futures::StreamExt;
use lucid::history::validate;
use lucid::model::http::HttpTransport;
use lucid::model::retry::RetryPolicy;
use lucid::model::{Anthropic, ChatModel, Gemini, ModelError};
use lucid::prelude::*;
use lucid_mock::{MockServer, Reply};
use serde_json::{Value, json};

/// Adds two integers.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

fn transport() -> HttpTransport {
    let retry = RetryPolicy { max_retries: 2, initial_backoff: Duration::from_millis(1), ..Default::default() };
    HttpTransport::builder().retry(retry).build().unwrap()
}

fn anthropic(server: &MockServer) -> Arc<dyn ChatModel> {
    let base = server.url().trim_end_matches("/v1").to_string();
    Arc::new(
        Anthropic::new("sk-ant-test", "claude-test").unwrap().with_base_url(&base).unwrap().with_transport(transport()),
    )
}

fn gemini(server: &MockServer) -> Arc<dyn ChatModel> {
    let base = server.url().trim_end_matches("/v1").to_string();
    Arc::new(Gemini::new("g-key", "gemini-test").unwrap().with_base_url(&base).unwrap().with_transport(transport()))
}

fn agent(model: Arc<dyn ChatModel>) -> Agent {
    Agent::builder(model).system("You add numbers.").tool(add).build()
}

fn sse(events: &[(&str, Value)]) -> Reply {
    let chunks = events.iter().map(|(e, d)| Bytes::from(format!("event: {e}\ndata: {d}\n\n"))).collect();
    Reply::Sse { chunks, delay: Duration::ZERO, cut: false }
}

fn gemini_sse(chunks: &[Value]) -> Reply {
    let chunks = chunks.iter().map(|d| Bytes::from(format!("data: {d}\r\n\r\n"))).collect();
    Reply::Sse { chunks, delay: Duration::ZERO, cut: false }
}

fn anthropic_tool_use() -> Value {
    json!({"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test",
        "content": [{"type": "thinking", "thinking": "Use the tool.", "signature": "sig-1"},
                    {"type": "tool_use", "id": "toolu_1", "name": "add", "input": {"a": 2, "b": 3}}],
        "stop_reason": "tool_use", "usage": {"input_tokens": 30, "output_tokens": 12}})
}

fn anthropic_text(text: &str) -> Value {
    json!({"id": "msg_2", "type": "message", "role": "assistant", "model": "claude-test",
        "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
        "usage": {"input_tokens": 50, "output_tokens": 6, "cache_read_input_tokens": 20}})
}

#[tokio::test]
async fn anthropic_tool_round_trip() {
    let server = MockServer::sequence(vec![
        Reply::json(529, &json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})),
        Reply::json(200, &anthropic_tool_use()),
        Reply::json(200, &anthropic_text("The answer is 5.")),
    ])
    .await;
    let mut s = agent(anthropic(&server)).session();
    let r = s.run("What is 2 + 3?").await.unwrap();
    assert_eq!(r.content, "The answer is 5.");
    assert_eq!(r.tool_calls[0].output.as_deref(), Some("5"));
    assert_eq!((r.usage.input_tokens, r.usage.output_tokens, r.usage.cache_read_input_tokens), (100, 18, 20));
    let reqs = server.requests();
    assert_eq!(reqs.len(), 3, "the 529 was retried");
    assert_eq!(reqs[1].path, "/v1/messages");
    assert_eq!(reqs[1].header("x-api-key"), Some("sk-ant-test"));
    assert_eq!(reqs[1].header("anthropic-version"), Some("2023-06-01"));
    let last = reqs[2].json();
    // The system prompt and the latest turn carry prompt-cache breakpoints.
    let cached = json!({"type": "ephemeral"});
    assert_eq!(last["system"], json!([{"type": "text", "text": "You add numbers.", "cache_control": cached}]));
    assert_eq!(
        last["messages"][1]["content"][0],
        json!({"type": "thinking", "thinking": "Use the tool.", "signature": "sig-1"})
    );
    assert_eq!(
        last["messages"][2],
        json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "5", "cache_control": cached}]})
    );
    assert!(validate(s.messages()).is_ok());
}

#[tokio::test]
async fn anthropic_streaming_tool_round_trip() {
    let start = |id: &str| json!({"type": "message_start", "message": {"id": id, "model": "claude-test", "content": [], "usage": {"input_tokens": 30, "output_tokens": 1}}});
    let server = MockServer::sequence(vec![
        sse(&[
            ("message_start", start("m1")),
            ("content_block_start", json!({"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "add", "input": {}}})),
            ("ping", json!({"type": "ping"})),
            ("content_block_delta", json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": ""}})),
            ("content_block_delta", json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": "{\"a\": 2, "}})),
            ("content_block_delta", json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": "\"b\": 3}"}})),
            ("content_block_stop", json!({"type": "content_block_stop", "index": 0})),
            ("message_delta", json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 15}})),
            ("message_stop", json!({"type": "message_stop"})),
        ]),
        sse(&[
            ("message_start", start("m2")),
            ("content_block_start", json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}})),
            ("content_block_delta", json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "The answer"}})),
            ("content_block_delta", json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": " is 5."}})),
            ("content_block_stop", json!({"type": "content_block_stop", "index": 0})),
            ("message_delta", json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 7}})),
            ("message_stop", json!({"type": "message_stop"})),
        ]),
    ])
    .await;
    let mut s = agent(anthropic(&server)).session();
    let events: Vec<AgentEvent> = s.run_stream("What is 2 + 3?").collect().await;
    let text: String =
        events.iter().filter_map(|e| if let AgentEvent::TextDelta(t) = e { Some(t.as_str()) } else { None }).collect();
    assert_eq!(text, "The answer is 5.");
    match events.last() {
        Some(AgentEvent::Completed(r)) => {
            assert_eq!(r.tool_calls[0].arguments, json!({"a": 2, "b": 3}));
            assert_eq!(r.usage.output_tokens, 22, "each call's output tokens from its final message_delta");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(server.requests()[0].json()["stream"], true);
}

#[tokio::test]
async fn anthropic_overload_inside_a_200_stream_is_a_retryable_error() {
    let server = MockServer::sequence(vec![sse(&[(
        "error",
        json!({"type": "error", "error": {"details": null, "type": "overloaded_error", "message": "Overloaded"}}),
    )])])
    .await;
    let mut s = agent(anthropic(&server)).session();
    let events: Vec<AgentEvent> = s.run_stream("hi").collect().await;
    match events.last() {
        Some(AgentEvent::Error(lucid::Error::Model(ModelError::Provider(p)))) => {
            assert!(p.retryable && p.mid_stream);
            assert_eq!(p.to_string(), "anthropic returned an error mid-stream overloaded_error: Overloaded");
        }
        other => panic!("{other:?}"),
    }
    assert!(validate(s.messages()).is_ok());
}

fn gemini_call() -> Value {
    json!({"candidates": [{"content": {"role": "model", "parts": [
        {"functionCall": {"name": "add", "args": {"a": 2, "b": 3}}, "thoughtSignature": "gsig"},
        {"functionCall": {"name": "add", "args": {"a": 1, "b": 1}}}]},
        "finishReason": "STOP"}],
        "usageMetadata": {"promptTokenCount": 40, "candidatesTokenCount": 10, "thoughtsTokenCount": 5}})
}

fn gemini_text(text: &str) -> Value {
    json!({"candidates": [{"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP"}],
        "usageMetadata": {"promptTokenCount": 60, "candidatesTokenCount": 6}})
}

#[tokio::test]
async fn gemini_parallel_calls_pair_by_minted_ids_and_send_signatures_back() {
    let server = MockServer::sequence(vec![
        Reply::json(
            429,
            &json!({"error": {"code": 429, "message": "Resource exhausted", "status": "RESOURCE_EXHAUSTED",
            "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "0.2s"}]}}),
        ),
        Reply::json(200, &gemini_call()),
        Reply::json(200, &gemini_text("5 and 2")),
    ])
    .await;
    let mut s = agent(gemini(&server)).session();
    let started = Instant::now();
    let r = s.run("2+3 and 1+1").await.unwrap();
    assert!(started.elapsed() >= Duration::from_millis(200), "retryDelay honoured");
    assert_eq!(r.content, "5 and 2");
    let outputs: Vec<&str> = r.tool_calls.iter().map(|c| c.output.as_deref().unwrap()).collect();
    assert_eq!(outputs, ["5", "2"]);
    assert_eq!(r.usage.output_tokens, 21, "thinking tokens count as output");
    let reqs = server.requests();
    assert_eq!(reqs[1].path, "/v1beta/models/gemini-test:generateContent");
    assert_eq!(reqs[1].header("x-goog-api-key"), Some("g-key"));
    let last = reqs[2].json();
    assert_eq!(last["contents"][1]["parts"][0]["thoughtSignature"], "gsig");
    assert_eq!(
        last["contents"][2],
        json!({"role": "user", "parts": [
            {"functionResponse": {"name": "add", "response": {"result": "5"}}},
            {"functionResponse": {"name": "add", "response": {"result": "2"}}}]})
    );
}

#[tokio::test]
async fn gemini_streaming_round_trip() {
    let server = MockServer::sequence(vec![
        gemini_sse(&[gemini_call()]),
        gemini_sse(&[
            json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "5 "}]}}], "usageMetadata": {"promptTokenCount": 60}}),
            gemini_text("and 2"),
        ]),
    ])
    .await;
    let mut s = agent(gemini(&server)).session();
    let events: Vec<AgentEvent> = s.run_stream("2+3 and 1+1").collect().await;
    match events.last() {
        Some(AgentEvent::Completed(r)) => {
            assert_eq!(r.content, "5 and 2");
            assert_eq!(r.tool_calls.len(), 2);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(server.requests()[0].path, "/v1beta/models/gemini-test:streamGenerateContent");
}

#[tokio::test]
async fn gemini_stream_without_a_finish_reason_is_truncated() {
    let server =
        MockServer::sequence(vec![gemini_sse(&[json!({"candidates": [{"content": {"parts": [{"text": "Half"}]}}]})])])
            .await;
    let mut s = agent(gemini(&server)).session();
    let events: Vec<AgentEvent> = s.run_stream("hi").collect().await;
    assert!(
        matches!(events.last(), Some(AgentEvent::Error(lucid::Error::Model(ModelError::StreamTruncated { .. })))),
        "{:?}",
        events.last()
    );
    assert!(validate(s.messages()).is_ok());
}

#[tokio::test]
async fn a_blocked_gemini_prompt_is_reported_as_filtered() {
    let server = MockServer::sequence(vec![Reply::json(
        200,
        &json!({"promptFeedback": {"blockReason": "SAFETY"}, "usageMetadata": {"promptTokenCount": 8}}),
    )])
    .await;
    let r = agent(gemini(&server)).session().run("something unsafe").await.unwrap();
    assert_eq!(r.content, "");
    assert_eq!(r.finish_reason, Some(lucid::FinishReason::ContentFilter));
}
