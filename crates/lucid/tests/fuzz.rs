//! Hostile input, generated: whatever bytes a server sends, the SSE decoder and every
//! codec's decoders return a value or an error and never panic; whatever a stored or
//! edited history holds, the repair pass makes it valid. A bounded run of each (256 cases)
//! is part of every `cargo test`; `LUCID_FUZZ_CASES=100000 cargo test --test fuzz` runs
//! longer.

use lucid::history::{repair, validate};
use lucid::message::AssistantMessage;
use lucid::model::anthropic::AnthropicStreamDecoder;
use lucid::model::gemini::GeminiStreamDecoder;
use lucid::model::http::StreamDecoder;
use lucid::model::openai::OpenAiStreamDecoder;
use lucid::model::sse::{SseDecoder, SseEvent};
use lucid::model::{anthropic, gemini, openai};
use lucid::{Message, ToolCall};
use proptest::prelude::*;
use serde_json::{Map, Value};

/// Field names the three wire formats use, so generated documents reach deep into the
/// decoders instead of failing at the first key.
const KEYS: &[&str] = &[
    "choices",
    "message",
    "delta",
    "content",
    "role",
    "tool_calls",
    "function",
    "name",
    "arguments",
    "index",
    "id",
    "type",
    "usage",
    "prompt_tokens",
    "completion_tokens",
    "finish_reason",
    "reasoning_content",
    "reasoning",
    "candidates",
    "parts",
    "text",
    "thought",
    "thoughtSignature",
    "functionCall",
    "args",
    "partialArgs",
    "jsonPath",
    "stringValue",
    "numberValue",
    "willContinue",
    "finishReason",
    "usageMetadata",
    "promptTokenCount",
    "promptFeedback",
    "blockReason",
    "content_block",
    "input",
    "partial_json",
    "thinking",
    "signature",
    "data",
    "stop_reason",
    "input_tokens",
    "output_tokens",
    "error",
    "code",
    "status",
    "details",
    "@type",
    "retryDelay",
    "model",
    "modelVersion",
];

const EVENTS: &[&str] = &[
    "message_start",
    "content_block_start",
    "content_block_delta",
    "content_block_stop",
    "message_delta",
    "message_stop",
    "error",
    "ping",
];

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        (-1e12f64..1e12).prop_map(Value::from),
        prop::sample::select(KEYS).prop_map(|k| Value::String(k.to_string())),
        ".{0,12}".prop_map(Value::String),
        Just(Value::String("{\"a\":".into())),
    ];
    leaf.prop_recursive(5, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((prop::sample::select(KEYS), inner), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect::<Map<_, _>>())),
        ]
    })
}

/// Raw bytes: generated JSON, JSON cut short, or noise.
fn body() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        json_value().prop_map(|v| v.to_string().into_bytes()),
        (json_value(), any::<prop::sample::Index>()).prop_map(|(v, cut)| {
            let s = v.to_string().into_bytes();
            s[..cut.index(s.len() + 1)].to_vec()
        }),
        prop::collection::vec(any::<u8>(), 0..200),
    ]
}

fn events() -> impl Strategy<Value = Vec<SseEvent>> {
    prop::collection::vec(
        (prop::option::of(prop::sample::select(EVENTS)), body()).prop_map(|(event, data)| SseEvent {
            event: event.map(str::to_string),
            data: String::from_utf8_lossy(&data).into_owned(),
        }),
        0..12,
    )
}

fn feed<D: StreamDecoder>(mut decoder: D, events: &[SseEvent]) {
    let mut out = Vec::new();
    for e in events {
        if decoder.event(e, &mut out).is_err() {
            return;
        }
    }
    let _ = decoder.finish();
}

/// Cases per target: 256, or `LUCID_FUZZ_CASES`.
fn cases() -> u32 {
    std::env::var("LUCID_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(256)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn the_sse_decoder_takes_any_bytes_in_any_chunks(bytes in prop::collection::vec(any::<u8>(), 0..600), cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..8)) {
        let mut points: Vec<usize> = cuts.iter().map(|c| c.index(bytes.len() + 1)).collect();
        points.sort_unstable();
        let mut d = SseDecoder::default();
        let mut last = 0;
        for p in points.into_iter().chain([bytes.len()]) {
            for e in d.feed(&bytes[last..p]) {
                prop_assert!(!e.data.contains('\r'), "a line break inside data: {e:?}");
            }
            last = p;
        }
        let _ = d.finish();
    }

    #[test]
    fn whole_bodies_decode_or_fail_cleanly(b in body(), status in 400u16..600) {
        let _ = openai::decode("fuzz", &b);
        let _ = anthropic::decode("fuzz", &b);
        let _ = gemini::decode("fuzz", &b);
        let _ = openai::decode_error("fuzz", status, &b);
        let _ = anthropic::decode_error("fuzz", status, &b);
        let _ = gemini::decode_error("fuzz", status, &b);
    }

    #[test]
    fn streams_decode_or_fail_cleanly(events in events()) {
        feed(OpenAiStreamDecoder::new("fuzz"), &events);
        feed(AnthropicStreamDecoder::new("fuzz"), &events);
        feed(GeminiStreamDecoder::new("fuzz"), &events);
    }

    #[test]
    fn any_stored_history_is_repaired_into_a_valid_one(raw in prop::collection::vec(message(), 0..30)) {
        let mut messages = raw;
        repair(&mut messages);
        prop_assert!(validate(&messages).is_ok(), "{:?}\n{messages:#?}", validate(&messages));
        let mut again = messages.clone();
        prop_assert!(repair(&mut again).is_clean(), "repair is idempotent");
    }
}

/// Messages as a corrupted or hand-edited store could hold them: any order, ids that
/// repeat, collide or answer nothing, empty assistants, systems in the middle.
fn message() -> impl Strategy<Value = Message> {
    let id = prop::sample::select(&["a", "b", "c", "", "a "][..]).prop_map(str::to_string);
    prop_oneof![
        3 => Just(Message::user("question")),
        1 => Just(Message::system("system")),
        2 => Just(Message::assistant("answer")),
        1 => Just(Message::Assistant(AssistantMessage::default())),
        3 => prop::collection::vec(id.clone(), 1..4).prop_map(|ids| Message::Assistant(AssistantMessage {
            tool_calls: ids.into_iter().map(|i| ToolCall::new(i, "t", serde_json::json!({}))).collect(),
            ..Default::default()
        })),
        3 => (id, any::<bool>()).prop_map(|(i, err)| Message::tool_result(i, "t", "out", err)),
    ]
}
