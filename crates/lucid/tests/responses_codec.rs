//! The Responses API codec: request snapshots for every input-item shape, decoding and
//! streaming from small hand-written fixtures (shaped after the documented examples and
//! `openai-python`'s `types/responses`), and a chunking property test.

use std::path::PathBuf;

use lucid::message::{AssistantMessage, Reasoning};
use lucid::model::ModelError;
use lucid::model::http::StreamDecoder;
use lucid::model::openai_responses::{self, ResponsesStreamDecoder};
use lucid::model::sse::SseDecoder;
use lucid::model::{ChatOptions, ChatRequest, ChatResponse, ResponseFormat, StreamEvent, ToolChoice};
use lucid::{FinishReason, Message, ToolCall, ToolSpec};
use proptest::prelude::*;
use serde_json::{Value, json};

/// A JSON snapshot with the objects' keys sorted: whether serde_json keeps insertion order
/// depends on its `preserve_order` feature, which another crate of a workspace build (the
/// local model's grammar engine) turns on.
macro_rules! snapshot {
    ($($t:tt)*) => {
        insta::with_settings!({ sort_maps => true }, { insta::assert_json_snapshot!($($t)*) })
    };
}

fn fixture(name: &str) -> Vec<u8> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/responses").join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn tools() -> Vec<ToolSpec> {
    vec![
        ToolSpec::new(
            "get_weather",
            "Current weather for a city.",
            json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
        )
        .unwrap(),
    ]
}

/// Decodes an SSE body fed in chunks cut at `cuts` (byte offsets).
fn stream(body: &[u8], cuts: &[usize]) -> (Vec<StreamEvent>, Result<ChatResponse, ModelError>) {
    let mut sse = SseDecoder::default();
    let mut dec = ResponsesStreamDecoder::new("openai");
    let mut out = Vec::new();
    let mut start = 0;
    let mut bounds: Vec<usize> = cuts.iter().map(|c| (*c).min(body.len())).collect();
    bounds.sort_unstable();
    bounds.push(body.len());
    for end in bounds {
        for e in sse.feed(&body[start..end.max(start)]) {
            if let Err(err) = dec.event(&e, &mut out) {
                return (out, Err(err));
            }
        }
        start = end.max(start);
    }
    (out, dec.finish())
}

fn conversation() -> Vec<Message> {
    let first = openai_responses::decode("openai", &fixture("tool_calls.json")).unwrap();
    vec![
        Message::system("You are a weather assistant."),
        Message::user("Weather in Paris and Tokyo?"),
        Message::Assistant(first.message),
        Message::tool_result("call_Paris1", "get_weather", "18°C, cloudy", false),
        Message::tool_result("call_Tokyo2", "get_weather", "Error: service unavailable", true),
        Message::Assistant(openai_responses::decode("openai", &fixture("text_answer.json")).unwrap().message),
        Message::user("Try Tokyo again."),
        // Written by hand (or from another provider): no items kept, so synthesized.
        Message::Assistant(AssistantMessage {
            content: "Retrying.".into(),
            tool_calls: vec![ToolCall::new("call_c", "get_weather", json!({"city": "Tokyo"}))],
            reasoning: Some(Reasoning { text: "The user wants a retry.".into(), ..Default::default() }),
        }),
        Message::tool_result("call_c", "get_weather", "25°C, sunny", false),
    ]
}

#[test]
fn request_with_every_input_item_shape() {
    let msgs = conversation();
    let tools = tools();
    let body =
        openai_responses::encode(&ChatRequest::new(&msgs, &tools, &ChatOptions::default()), "gpt-5.6-sol", false);
    let kinds: Vec<&str> = body["input"].as_array().unwrap().iter().map(|i| i["type"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "message",
            "reasoning",
            "function_call",
            "function_call",
            "function_call_output",
            "function_call_output",
            "reasoning",
            "message",
            "message",
            "message",
            "function_call",
            "function_call_output"
        ]
    );
    snapshot!(body);
}

#[test]
fn streaming_request_with_every_option() {
    let msgs = [Message::system("Answer in JSON."), Message::user("Weather in Paris?")];
    let tools = tools();
    let mut extra = serde_json::Map::new();
    extra.insert("user".into(), json!("user-42"));
    let options = ChatOptions {
        model: Some("gpt-5.6-sol".into()),
        max_tokens: Some(2048),
        tool_choice: Some(ToolChoice::Tool("get_weather".into())),
        parallel_tool_calls: Some(false),
        reasoning_effort: Some("low".into()),
        reasoning_summary: Some("auto".into()),
        response_format: Some(ResponseFormat::JsonSchema {
            name: "weather".into(),
            schema: json!({"type": "object", "properties": {"summary": {"type": "string"}}, "required": ["summary"], "additionalProperties": false}),
            strict: true,
        }),
        extra: Some(extra),
        ..Default::default()
    };
    let body = openai_responses::encode(&ChatRequest::new(&msgs, &tools, &options), "ignored", true);
    assert_eq!(body["tools"][0]["name"], "get_weather", "tools are flat, not nested under `function`");
    assert!(body["tools"][0].get("function").is_none());
    snapshot!(body);
}

#[test]
fn reasoning_items_and_calls_are_replayed_byte_for_byte() {
    let fixture_body: Value = serde_json::from_slice(&fixture("tool_calls.json")).unwrap();
    let msgs = conversation();
    let body = openai_responses::encode(&ChatRequest::new(&msgs, &tools(), &ChatOptions::default()), "m", false);
    assert_eq!(body["input"].as_array().unwrap()[1..4], fixture_body["output"].as_array().unwrap()[..]);
    let answer: Value = serde_json::from_slice(&fixture("text_answer.json")).unwrap();
    assert_eq!(body["input"][6], answer["output"][0]);
    assert_eq!(body["input"][7]["phase"], "final_answer", "a kept message keeps its phase");
}

#[test]
fn edited_text_is_sent_as_edited_not_as_the_kept_item() {
    let mut a = openai_responses::decode("openai", &fixture("text_answer.json")).unwrap().message;
    a.content = "Edited.".into();
    let msgs = [Message::user("q"), Message::Assistant(a)];
    let body = openai_responses::encode(&ChatRequest::new(&msgs, &[], &ChatOptions::default()), "m", false);
    assert_eq!(body["input"][1]["type"], "reasoning");
    assert_eq!(body["input"][2]["content"][0]["text"], "Edited.");
    assert!(body["input"][2].get("id").is_none());
}

#[test]
fn decodes_calls_reasoning_and_usage() {
    let r = openai_responses::decode("openai", &fixture("tool_calls.json")).unwrap();
    let calls: Vec<(&str, &str, &str)> =
        r.message.tool_calls.iter().map(|c| (c.id.as_str(), c.name.as_str(), c.arguments.as_str())).collect();
    assert_eq!(
        calls,
        [("call_Paris1", "get_weather", r#"{"city":"Paris"}"#), ("call_Tokyo2", "get_weather", r#"{"city":"Tokyo"}"#)]
    );
    assert_eq!(r.finish_reason, Some(FinishReason::ToolCalls));
    assert_eq!(r.message.reasoning.as_ref().unwrap().text, "Two cities: two weather calls.");
    let u = r.usage.unwrap();
    assert_eq!((u.input_tokens, u.cached_input_tokens, u.output_tokens, u.reasoning_tokens), (812, 768, 94, 64));
    assert_eq!(r.model.as_deref(), Some("gpt-5.6-sol-2026-07-01"));

    let t = openai_responses::decode("openai", &fixture("text_answer.json")).unwrap();
    assert_eq!(t.message.content, "Paris: 18°C, cloudy. Tokyo: 25°C, sunny.");
    assert_eq!(t.finish_reason, Some(FinishReason::Stop));
}

#[test]
fn an_incomplete_response_is_cut_by_length_and_its_call_is_not_run() {
    let r = openai_responses::decode("openai", &fixture("incomplete.json")).unwrap();
    assert_eq!(r.finish_reason, Some(FinishReason::Length));
    assert_eq!(r.raw_finish_reason.as_deref(), Some("max_output_tokens"));
    let cut: Vec<&str> = r.incomplete_tool_calls().map(|c| c.id.as_str()).collect();
    assert_eq!(cut, ["call_cut1"]);
}

#[test]
fn a_failed_response_is_the_providers_error() {
    let e = openai_responses::decode("openai", &fixture("failed.json")).unwrap_err();
    let ModelError::Provider(p) = e else { panic!("{e:?}") };
    assert_eq!(p.message, "The model failed to generate a response.");
    assert_eq!(p.code.as_deref(), Some("server_error"));
}

#[test]
fn stream_gives_the_same_answer_as_the_whole_body() {
    let (events, r) = stream(&fixture("tool_calls.sse"), &[]);
    let r = r.unwrap();
    let whole = openai_responses::decode("openai", &fixture("tool_calls.json")).unwrap();
    assert_eq!(r.message, whole.message, "items from output_item.done, encrypted content complete");
    assert_eq!(r.usage, whole.usage, "usage from response.completed");
    assert_eq!(r.finish_reason, Some(FinishReason::ToolCalls));
    let started: Vec<(usize, &str)> = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ToolCallStarted { index, id, .. } => Some((*index, id.as_str())),
            _ => None,
        })
        .collect();
    assert_eq!(started, [(0, "call_Paris1"), (1, "call_Tokyo2")], "positions among the calls, not output indexes");
    let reasoning: String = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ReasoningDelta(t) => Some(t.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(reasoning, "Two cities: two weather calls.");
}

#[test]
fn a_call_cut_mid_stream_is_incomplete_even_when_its_arguments_parse() {
    let (_, r) = stream(&fixture("cut_call.sse"), &[]);
    let r = r.unwrap();
    assert_eq!(r.finish_reason, Some(FinishReason::Length));
    assert!(r.message.tool_calls[0].parse_arguments().is_ok());
    let cut: Vec<&str> = r.incomplete_tool_calls().map(|c| c.id.as_str()).collect();
    assert_eq!(cut, ["call_cut1"]);
    assert_eq!(r.usage.unwrap().output_tokens, 16);
}

#[test]
fn an_error_event_fails_the_stream_with_the_providers_words() {
    let (_, r) = stream(&fixture("error_event.sse"), &[]);
    let Err(ModelError::Provider(p)) = r else { panic!("{r:?}") };
    assert!(p.mid_stream && p.retryable, "server_error mid-stream: {p:?}");
    assert_eq!(p.message, "The server had an error while processing your request.");
}

#[test]
fn a_stream_without_its_terminal_event_is_truncated() {
    let body = fixture("tool_calls.sse");
    let text = String::from_utf8(body).unwrap();
    let cut = text.find("event: response.completed").unwrap();
    let (_, r) = stream(&text.as_bytes()[..cut], &[]);
    assert!(matches!(r, Err(ModelError::StreamTruncated { .. })), "{r:?}");
}

#[test]
fn sampling_settings_are_refused_for_reasoning_models_before_any_request() {
    for (t, p, refused) in [(Some(0.3), None, "temperature"), (None, Some(0.9), "top_p")] {
        let o = ChatOptions { temperature: t, top_p: p, ..Default::default() };
        let e = openai_responses::check(&ChatRequest::new(&[], &[], &o), "o4-mini").unwrap_err();
        assert!(matches!(&e, ModelError::Config(m) if m.contains(refused) && m.contains("o4-mini")), "{e}");
    }
    let o = ChatOptions { stop: vec!["END".into()], ..Default::default() };
    assert!(openai_responses::check(&ChatRequest::new(&[], &[], &o), "gpt-4.1").is_err());
}

proptest! {
    #[test]
    fn any_chunking_gives_the_same_events(cuts in prop::collection::vec(0usize..6000, 0..40)) {
        let body = fixture("tool_calls.sse");
        let (whole_events, whole) = stream(&body, &[]);
        let (events, r) = stream(&body, &cuts);
        prop_assert_eq!(events, whole_events);
        prop_assert_eq!(r.unwrap(), whole.unwrap());
    }
}

#[test]
fn repair_keeps_a_reasoning_item_with_its_call() {
    let answer = openai_responses::decode("openai", &fixture("tool_calls.json")).unwrap();
    // The second call never got its result (a crash): repair answers it, the turn stays whole.
    let mut h = vec![
        Message::user("Weather in Paris and Tokyo?"),
        Message::Assistant(answer.message.clone()),
        Message::tool_result("call_Paris1", "get_weather", "18°C", false),
    ];
    let report = lucid::history::repair(&mut h);
    assert_eq!(report.interrupted_results_added, 1);
    assert_eq!(h[1], Message::Assistant(answer.message));
    let body = openai_responses::encode(&ChatRequest::new(&h, &[], &ChatOptions::default()), "m", false);
    let kinds: Vec<&str> = body["input"].as_array().unwrap().iter().map(|i| i["type"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        ["message", "reasoning", "function_call", "function_call", "function_call_output", "function_call_output"]
    );
}
