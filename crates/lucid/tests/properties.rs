//! Property tests: what parses gives the same result whatever the chunk boundaries, and
//! any sequence of context operations leaves a history every provider accepts.

use lucid::context::{Context, ContextLimits};
use lucid::history::{repair, validate};
use lucid::message::AssistantMessage;
use lucid::model::http::StreamDecoder;
use lucid::model::openai::OpenAiStreamDecoder;
use lucid::model::sse::{SseDecoder, SseEvent};
use lucid::{Message, ToolCall};
use proptest::prelude::*;
use serde_json::json;

fn decode_all(body: &[u8], cuts: &[usize]) -> Vec<SseEvent> {
    let mut d = SseDecoder::default();
    let mut out = Vec::new();
    let mut start = 0;
    let mut points: Vec<usize> = cuts.iter().map(|c| c % (body.len() + 1)).collect();
    points.sort_unstable();
    for p in points {
        out.extend(d.feed(&body[start..p.max(start)]));
        start = p.max(start);
    }
    out.extend(d.feed(&body[start..]));
    out.extend(d.finish());
    out
}

fn sse_body(events: &[(Option<String>, String)], crlf: bool) -> Vec<u8> {
    let nl = if crlf { "\r\n" } else { "\n" };
    let mut s = String::new();
    for (event, data) in events {
        if let Some(e) = event {
            s.push_str(&format!("event: {e}{nl}"));
        }
        for line in data.split('\n') {
            s.push_str(&format!("data: {line}{nl}"));
        }
        s.push_str(nl);
    }
    s.into_bytes()
}

proptest! {
    #[test]
    fn sse_events_do_not_depend_on_chunk_boundaries(
        events in prop::collection::vec((prop::option::of("[a-z_]{1,12}"), "[^\r\n]{0,40}(\n[^\r\n]{0,20})?"), 1..8),
        crlf in any::<bool>(),
        cuts in prop::collection::vec(any::<usize>(), 0..12),
    ) {
        let body = sse_body(&events, crlf);
        let whole = decode_all(&body, &[]);
        let split = decode_all(&body, &cuts);
        prop_assert_eq!(&whole, &split);
        let want: Vec<SseEvent> = events.iter().map(|(e, d)| SseEvent { event: e.clone(), data: d.clone() }).collect();
        prop_assert_eq!(whole, want);
    }

    #[test]
    fn streamed_tool_calls_assemble_the_same_whatever_the_fragments(
        args in prop::collection::vec(("[a-z]{1,8}", any::<i32>(), "[a-zé日 ]{0,12}"), 1..4),
        cuts in prop::collection::vec(any::<usize>(), 0..20),
    ) {
        let calls: Vec<(String, String)> = args.iter().enumerate()
            .map(|(i, (k, n, s))| (format!("call_{i}"), json!({ k.clone(): n, "s": s }).to_string()))
            .collect();
        let mut chunks = Vec::new();
        for (i, (id, a)) in calls.iter().enumerate() {
            chunks.push(json!({"choices": [{"delta": {"tool_calls": [{"index": i, "id": id, "type": "function", "function": {"name": "f", "arguments": ""}}]}}]}));
            let bytes: Vec<usize> = a.char_indices().map(|(b, _)| b).chain([a.len()]).collect();
            let mut pts: Vec<usize> = cuts.iter().map(|c| bytes[c % bytes.len()]).collect();
            pts.sort_unstable();
            pts.dedup();
            let mut start = 0;
            for p in pts.into_iter().chain([a.len()]) {
                if p > start {
                    chunks.push(json!({"choices": [{"delta": {"tool_calls": [{"index": i, "id": "", "function": {"arguments": &a[start..p]}}]}}]}));
                    start = p;
                }
            }
        }
        chunks.push(json!({"choices": [{"delta": {}, "finish_reason": "tool_calls"}]}));
        let mut d = OpenAiStreamDecoder::new("p");
        let mut out = Vec::new();
        for c in &chunks {
            d.event(&SseEvent { event: None, data: c.to_string() }, &mut out).unwrap();
        }
        let r = d.finish().unwrap();
        let got: Vec<(String, String)> = r.message.tool_calls.iter().map(|c| (c.id.clone(), c.arguments.clone())).collect();
        prop_assert_eq!(got, calls);
    }
}

#[derive(Debug, Clone)]
enum Op {
    User,
    Text,
    Calls { n: usize, answered: Vec<bool>, shuffle: bool },
    Orphan,
    Duplicate,
    EmptyAssistant,
    TrimMessages(usize),
    TrimTokens(usize),
    Clear,
    PopTurn,
    Truncate(usize),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => Just(Op::User),
        2 => Just(Op::Text),
        3 => (1usize..4, prop::collection::vec(any::<bool>(), 4), any::<bool>())
            .prop_map(|(n, answered, shuffle)| Op::Calls { n, answered, shuffle }),
        1 => Just(Op::Orphan),
        1 => Just(Op::Duplicate),
        1 => Just(Op::EmptyAssistant),
        1 => (0usize..10).prop_map(Op::TrimMessages),
        1 => (10usize..200).prop_map(Op::TrimTokens),
        1 => Just(Op::Clear),
        1 => Just(Op::PopTurn),
        1 => (0usize..12).prop_map(Op::Truncate),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]
    #[test]
    fn any_sequence_of_operations_leaves_a_valid_history(ops in prop::collection::vec(op(), 1..40), system in any::<bool>()) {
        let mut c = Context::new(system.then(|| "system prompt".to_string()));
        let mut next_id = 0;
        for op in ops {
            match op {
                Op::User => c.push(Message::user("question with some words in it")),
                Op::Text => c.push(Message::assistant("an answer")),
                Op::Calls { n, answered, shuffle } => {
                    // Ids repeat across turns (and within one) as some servers number calls per answer.
                    let calls: Vec<ToolCall> = (0..n).map(|_| { next_id += 1; ToolCall::new(format!("c{}", next_id % 5), "t", json!({"x": 1})) }).collect();
                    let mut results: Vec<Message> = calls.iter().zip(&answered)
                        .filter(|(_, a)| **a)
                        .map(|(call, _)| Message::tool_result(&call.id, "t", "output ".repeat(20), false))
                        .collect();
                    if shuffle { results.reverse(); }
                    c.push(Message::Assistant(AssistantMessage { tool_calls: calls, ..Default::default() }));
                    for r in results { c.push(r); }
                }
                Op::Orphan => c.push(Message::tool_result("nobody", "t", "lost", false)),
                Op::Duplicate => {
                    if let Some(Message::Tool(r)) = c.messages().last().cloned() { c.push(Message::Tool(r)); }
                }
                Op::EmptyAssistant => c.push(Message::Assistant(AssistantMessage::default())),
                Op::TrimMessages(n) => { c.repair(); c.trim(&ContextLimits { max_messages: Some(n), max_tokens: None }); }
                Op::TrimTokens(n) => { c.repair(); c.trim(&ContextLimits { max_messages: None, max_tokens: Some(n) }); }
                Op::Clear => c.clear(),
                Op::PopTurn => { c.pop_turn(); }
                Op::Truncate(n) => c.truncate(n),
            }
            let mut repaired = c.clone();
            repaired.repair();
            prop_assert!(validate(repaired.messages()).is_ok(), "{:?}\n{:#?}", validate(repaired.messages()), repaired.messages());
            prop_assert_eq!(repaired.system(), system.then_some("system prompt"));
            let mut again = repaired.messages().to_vec();
            prop_assert!(repair(&mut again).is_clean(), "repair is idempotent");
        }
    }
}
