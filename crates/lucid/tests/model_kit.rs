//! Lucid's own codecs through `lucid::model::test_kit`: each provider's documented wire
//! shapes, written once here, decode to the kit's shared cases — and a wire that misreports
//! a case fails the kit.

use lucid::FinishReason;
use lucid::model::test_kit::{Answer, Failure, Wire, codec_suite, sse_data, sse_event};
use lucid::model::{Anthropic, Gemini, OpenAiCompatible, OpenAiResponses};
use serde_json::{Value, json};

/// Splits arguments in two at a character boundary: streams send them in fragments.
fn halves(s: &str) -> [&str; 2] {
    let mid = (0..=s.len() / 2).rev().find(|m| s.is_char_boundary(*m)).unwrap_or(0);
    [&s[..mid], &s[mid..]]
}

fn openai_quota(status: u16, kind: &str, code: &str, message: &str) -> (u16, Value) {
    (status, json!({"error": {"message": message, "type": kind, "param": null, "code": code}}))
}

/// OpenAI Chat Completions (https://platform.openai.com/docs/api-reference/chat).
struct ChatCompletions;

impl ChatCompletions {
    fn finish(a: &Answer) -> &'static str {
        match a.finish {
            FinishReason::ToolCalls => "tool_calls",
            FinishReason::Length => "length",
            _ => "stop",
        }
    }
    fn chunk(delta: Value, finish: Option<&str>) -> String {
        sse_data(&json!({"id": "chatcmpl-kit", "object": "chat.completion.chunk", "created": 0, "model": "kit-model",
                         "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}))
    }
    fn usage(a: &Answer) -> Value {
        let (i, o) = (a.usage.input_tokens, a.usage.output_tokens);
        json!({"prompt_tokens": i, "completion_tokens": o, "total_tokens": i + o})
    }
}

impl Wire for ChatCompletions {
    fn answer(&self, a: &Answer) -> Value {
        let calls: Vec<Value> = a
            .tool_calls
            .iter()
            .map(|c| json!({"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}))
            .collect();
        let text = if a.text.is_empty() { Value::Null } else { json!(a.text()) };
        let mut message = json!({"role": "assistant", "content": text, "refusal": null});
        if !calls.is_empty() {
            message["tool_calls"] = json!(calls);
        }
        json!({"id": "chatcmpl-kit", "object": "chat.completion", "created": 0, "model": "kit-model",
               "choices": [{"index": 0, "message": message, "logprobs": null, "finish_reason": Self::finish(a)}],
               "usage": Self::usage(a)})
    }
    fn stream(&self, a: &Answer) -> Vec<String> {
        let mut events = vec![Self::chunk(json!({"role": "assistant", "content": ""}), None)];
        events.extend(a.text.iter().map(|t| Self::chunk(json!({"content": t}), None)));
        for (i, c) in a.tool_calls.iter().enumerate() {
            let start =
                json!({"index": i, "id": c.id, "type": "function", "function": {"name": c.name, "arguments": ""}});
            events.push(Self::chunk(json!({"tool_calls": [start]}), None));
            for part in halves(&c.arguments) {
                events.push(Self::chunk(json!({"tool_calls": [{"index": i, "function": {"arguments": part}}]}), None));
            }
        }
        events.push(Self::chunk(json!({}), Some(Self::finish(a))));
        events.push(sse_data(&json!({"id": "chatcmpl-kit", "object": "chat.completion.chunk", "created": 0,
                                     "model": "kit-model", "choices": [], "usage": Self::usage(a)})));
        events.push("data: [DONE]\n\n".into());
        events
    }
    fn failure(&self, f: Failure) -> (u16, Value) {
        match f {
            Failure::RateLimited => openai_quota(429, "requests", "rate_limit_exceeded", "Rate limit reached"),
            Failure::Authentication => {
                openai_quota(401, "invalid_request_error", "invalid_api_key", "Incorrect API key")
            }
            _ => openai_quota(429, "insufficient_quota", "insufficient_quota", "You exceeded your current quota"),
        }
    }
}

/// OpenAI Responses (https://platform.openai.com/docs/api-reference/responses).
struct Responses;

impl Responses {
    fn output(a: &Answer) -> Vec<Value> {
        let mut items = Vec::new();
        if !a.text.is_empty() {
            items.push(json!({"id": "msg_kit", "type": "message", "status": "completed", "role": "assistant",
                              "content": [{"type": "output_text", "text": a.text(), "annotations": []}]}));
        }
        for (i, c) in a.tool_calls.iter().enumerate() {
            items.push(json!({"id": format!("fc_kit_{i}"), "type": "function_call", "status": "completed",
                              "call_id": c.id, "name": c.name, "arguments": c.arguments}));
        }
        items
    }
}

impl Wire for Responses {
    fn answer(&self, a: &Answer) -> Value {
        let (i, o) = (a.usage.input_tokens, a.usage.output_tokens);
        let mut r = json!({"id": "resp_kit", "object": "response", "status": "completed", "model": "kit-model",
                           "output": Self::output(a), "store": false,
                           "usage": {"input_tokens": i, "output_tokens": o, "total_tokens": i + o}});
        if a.finish == FinishReason::Length {
            r["status"] = json!("incomplete");
            r["incomplete_details"] = json!({"reason": "max_output_tokens"});
        }
        r
    }
    fn stream(&self, a: &Answer) -> Vec<String> {
        let event = |kind: &str, mut data: Value| {
            data["type"] = json!(kind);
            sse_event(kind, &data)
        };
        let whole = self.answer(a);
        let mut events = vec![event(
            "response.created",
            json!({"response": {"id": "resp_kit", "status": "in_progress",
                                                                              "output": [], "usage": null}}),
        )];
        for (ix, item) in Self::output(a).into_iter().enumerate() {
            let id = item["id"].clone();
            let mut added = item.clone();
            added["status"] = json!("in_progress");
            if item["type"] == "message" {
                added["content"] = json!([]);
                events.push(event("response.output_item.added", json!({"output_index": ix, "item": added})));
                for t in &a.text {
                    let delta = json!({"output_index": ix, "item_id": id, "content_index": 0, "delta": t});
                    events.push(event("response.output_text.delta", delta));
                }
            } else {
                added["arguments"] = json!("");
                events.push(event("response.output_item.added", json!({"output_index": ix, "item": added})));
                for part in halves(item["arguments"].as_str().unwrap_or_default()) {
                    let delta = json!({"output_index": ix, "item_id": id, "delta": part});
                    events.push(event("response.function_call_arguments.delta", delta));
                }
            }
            events.push(event("response.output_item.done", json!({"output_index": ix, "item": item})));
        }
        let last = if whole["status"] == "incomplete" { "response.incomplete" } else { "response.completed" };
        events.push(event(last, json!({"response": whole})));
        events
    }
    fn failure(&self, f: Failure) -> (u16, Value) {
        ChatCompletions.failure(f)
    }
}

/// Anthropic Messages (https://docs.anthropic.com/en/api/messages).
struct Messages;

impl Messages {
    fn stop_reason(a: &Answer) -> &'static str {
        match a.finish {
            FinishReason::ToolCalls => "tool_use",
            FinishReason::Length => "max_tokens",
            _ => "end_turn",
        }
    }
}

impl Wire for Messages {
    fn answer(&self, a: &Answer) -> Value {
        let mut content = Vec::new();
        if !a.text.is_empty() {
            content.push(json!({"type": "text", "text": a.text()}));
        }
        for c in &a.tool_calls {
            let input: Value = serde_json::from_str(&c.arguments).unwrap();
            content.push(json!({"type": "tool_use", "id": c.id, "name": c.name, "input": input}));
        }
        json!({"id": "msg_kit", "type": "message", "role": "assistant", "model": "kit-model", "content": content,
               "stop_reason": Self::stop_reason(a), "stop_sequence": null,
               "usage": {"input_tokens": a.usage.input_tokens, "output_tokens": a.usage.output_tokens}})
    }
    fn stream(&self, a: &Answer) -> Vec<String> {
        let start = json!({"type": "message_start", "message": {"id": "msg_kit", "type": "message", "role": "assistant",
            "model": "kit-model", "content": [], "usage": {"input_tokens": a.usage.input_tokens, "output_tokens": 1}}});
        let mut events = vec![sse_event("message_start", &start)];
        let mut block = |index: usize, first: Value, deltas: Vec<Value>| {
            events.push(sse_event(
                "content_block_start",
                &json!({"type": "content_block_start", "index": index, "content_block": first}),
            ));
            for d in deltas {
                events.push(sse_event(
                    "content_block_delta",
                    &json!({"type": "content_block_delta", "index": index, "delta": d}),
                ));
            }
            events.push(sse_event("content_block_stop", &json!({"type": "content_block_stop", "index": index})));
        };
        let mut index = 0;
        if !a.text.is_empty() {
            let deltas = a.text.iter().map(|t| json!({"type": "text_delta", "text": t})).collect();
            block(index, json!({"type": "text", "text": ""}), deltas);
            index += 1;
        }
        for c in &a.tool_calls {
            let deltas =
                halves(&c.arguments).iter().map(|p| json!({"type": "input_json_delta", "partial_json": p})).collect();
            block(index, json!({"type": "tool_use", "id": c.id, "name": c.name, "input": {}}), deltas);
            index += 1;
        }
        let delta = json!({"type": "message_delta", "delta": {"stop_reason": Self::stop_reason(a), "stop_sequence": null},
                           "usage": {"output_tokens": a.usage.output_tokens}});
        events.push(sse_event("message_delta", &delta));
        events.push(sse_event("message_stop", &json!({"type": "message_stop"})));
        events
    }
    fn failure(&self, f: Failure) -> (u16, Value) {
        let (status, kind, message) = match f {
            Failure::RateLimited => (429, "rate_limit_error", "Number of request tokens has exceeded your rate limit"),
            Failure::Authentication => (401, "authentication_error", "invalid x-api-key"),
            _ => (400, "invalid_request_error", "Your credit balance is too low to access the Anthropic API."),
        };
        (status, json!({"type": "error", "error": {"type": kind, "message": message}}))
    }
}

/// Gemini `generateContent` (https://ai.google.dev/api/generate-content).
struct GenerateContent;

impl GenerateContent {
    fn chunk(parts: Vec<Value>, a: Option<&Answer>) -> Value {
        let mut candidate = json!({"content": {"role": "model", "parts": parts}, "index": 0});
        let mut c = json!({"candidates": [], "modelVersion": "kit-model"});
        if let Some(a) = a {
            candidate["finishReason"] = json!(if a.finish == FinishReason::Length { "MAX_TOKENS" } else { "STOP" });
            let (i, o) = (a.usage.input_tokens, a.usage.output_tokens);
            c["usageMetadata"] = json!({"promptTokenCount": i, "candidatesTokenCount": o, "totalTokenCount": i + o});
        }
        c["candidates"] = json!([candidate]);
        c
    }
    fn calls(a: &Answer) -> Vec<Value> {
        let call = |c: &lucid::ToolCall| {
            let args: Value = serde_json::from_str(&c.arguments).unwrap();
            json!({"functionCall": {"id": c.id, "name": c.name, "args": args}})
        };
        a.tool_calls.iter().map(call).collect()
    }
}

impl Wire for GenerateContent {
    fn answer(&self, a: &Answer) -> Value {
        let mut parts = Vec::new();
        if !a.text.is_empty() {
            parts.push(json!({"text": a.text()}));
        }
        parts.extend(Self::calls(a));
        Self::chunk(parts, Some(a))
    }
    fn stream(&self, a: &Answer) -> Vec<String> {
        let mut chunks: Vec<Value> = a.text.iter().map(|t| Self::chunk(vec![json!({"text": t})], None)).collect();
        chunks.push(Self::chunk(Self::calls(a), Some(a)));
        chunks.iter().map(sse_data).collect()
    }
    fn failure(&self, f: Failure) -> (u16, Value) {
        let (status, code, message, quota) = match f {
            Failure::RateLimited => {
                (429, "RESOURCE_EXHAUSTED", "Resource exhausted", "GenerateRequestsPerMinutePerProjectPerModel")
            }
            Failure::Authentication => (401, "UNAUTHENTICATED", "API key not valid", ""),
            _ => (
                429,
                "RESOURCE_EXHAUSTED",
                "You exceeded your current quota",
                "GenerateRequestsPerDayPerProjectPerModel-FreeTier",
            ),
        };
        let details =
            json!([{"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": [{"quotaId": quota}]}]);
        (status, json!({"error": {"code": status, "message": message, "status": code, "details": details}}))
    }
}

#[tokio::test]
async fn openai_chat_completions_passes_the_kit() {
    codec_suite(
        OpenAiCompatible::new("https://api.openai.com/v1", Some("sk-kit".into()), "kit-model").unwrap(),
        ChatCompletions,
    )
    .await;
}

#[tokio::test]
async fn openai_responses_passes_the_kit() {
    codec_suite(
        OpenAiResponses::new("https://api.openai.com/v1", Some("sk-kit".into()), "kit-model").unwrap(),
        Responses,
    )
    .await;
}

#[tokio::test]
async fn anthropic_passes_the_kit() {
    codec_suite(Anthropic::new("sk-ant-kit", "kit-model").unwrap(), Messages).await;
}

#[tokio::test]
async fn gemini_passes_the_kit() {
    codec_suite(Gemini::new("kit-key", "kit-model").unwrap(), GenerateContent).await;
}

/// A provider saying "try again later" in a way the codec does not know as quota must not
/// pass as one: the kit notices an exhausted quota decoded as a rate limit.
#[tokio::test]
#[should_panic(expected = "QuotaExhausted")]
async fn the_kit_fails_a_codec_that_misreads_a_case() {
    struct QuotaAsRateLimit;
    impl Wire for QuotaAsRateLimit {
        fn answer(&self, a: &Answer) -> Value {
            ChatCompletions.answer(a)
        }
        fn stream(&self, a: &Answer) -> Vec<String> {
            ChatCompletions.stream(a)
        }
        fn failure(&self, f: Failure) -> (u16, Value) {
            ChatCompletions.failure(if f == Failure::QuotaExhausted { Failure::RateLimited } else { f })
        }
    }
    codec_suite(OpenAiCompatible::new("http://127.0.0.1:9/v1", None, "kit-model").unwrap(), QuotaAsRateLimit).await;
}
