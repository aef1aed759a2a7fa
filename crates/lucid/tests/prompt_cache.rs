//! Prompt caching: Anthropic's `cache_control` breakpoints (tools, system prompt, latest
//! turn; within its limit of four), and cached input tokens read into `Usage` for every
//! provider that reports them.

use lucid::message::{AssistantMessage, Reasoning};
use lucid::model::{ChatOptions, ChatRequest, ResponseFormat, anthropic, gemini, openai};
use lucid::{Message, ToolCall, ToolSpec};
use serde_json::{Value, json};

fn tools() -> Vec<ToolSpec> {
    ["get_weather", "get_time"]
        .into_iter()
        .map(|n| ToolSpec::new(n, "A tool.", json!({"type": "object", "properties": {}})).unwrap())
        .collect()
}

fn conversation() -> Vec<Message> {
    vec![
        Message::system("You are a weather assistant."),
        Message::user("Weather in Paris?"),
        Message::Assistant(AssistantMessage {
            tool_calls: vec![ToolCall::new("toolu_1", "get_weather", json!({"city": "Paris"}))],
            reasoning: Some(Reasoning {
                text: "think".into(),
                blocks: vec![json!({"type": "thinking", "thinking": "think", "signature": "sig"})],
                ..Default::default()
            }),
            ..Default::default()
        }),
        Message::tool_result("toolu_1", "get_weather", "18°C", false),
    ]
}

/// Every JSON pointer-ish path that carries `cache_control`.
fn breakpoints(v: &Value, path: String, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            if m.contains_key("cache_control") {
                out.push(path.clone());
            }
            for (k, x) in m {
                breakpoints(x, format!("{path}/{k}"), out);
            }
        }
        Value::Array(a) => a.iter().enumerate().for_each(|(i, x)| breakpoints(x, format!("{path}/{i}"), out)),
        _ => {}
    }
}

/// The marked paths, sorted: the order of an object's keys depends on serde_json's
/// `preserve_order` feature, which another crate of the build may turn on.
fn marks(body: &Value) -> Vec<String> {
    let mut out = Vec::new();
    breakpoints(body, String::new(), &mut out);
    out.sort();
    out
}

#[test]
fn breakpoints_on_the_tools_the_system_prompt_and_the_latest_turn() {
    let msgs = conversation();
    let tools = tools();
    let body = anthropic::encode(&ChatRequest::new(&msgs, &tools, &ChatOptions::default()), "claude-sonnet-4-5", false);
    assert_eq!(marks(&body), ["/messages/2/content/0", "/system/0", "/tools/1"]);
    assert_eq!(body["messages"][2]["content"][0]["type"], "tool_result");
    assert_eq!(body["system"][0]["cache_control"], json!({"type": "ephemeral"}));
}

#[test]
fn within_four_breakpoints_with_a_schema_tool_and_never_on_thinking() {
    // The last message is the assistant's own thinking and call (a prefill): the mark goes
    // on the call, not on the thinking block.
    let msgs = conversation()[..3].to_vec();
    let options = ChatOptions {
        response_format: Some(ResponseFormat::JsonSchema {
            name: "answer".into(),
            schema: json!({"type": "object"}),
            strict: true,
        }),
        ..Default::default()
    };
    let body = anthropic::encode(&ChatRequest::new(&msgs, &tools(), &options), "claude-sonnet-4-5", false);
    let m = marks(&body);
    assert!(m.len() <= 4, "{m:?}");
    assert_eq!(m, ["/messages/1/content/1", "/system/0", "/tools/2"], "the schema tool is the last tool");
}

#[test]
fn cache_off_sends_no_breakpoints() {
    let msgs = conversation();
    let body = anthropic::encode_cached(&ChatRequest::new(&msgs, &tools(), &ChatOptions::default()), "m", false, false);
    assert!(marks(&body).is_empty());
    assert_eq!(body["system"], "You are a weather assistant.");
}

#[test]
fn cached_input_tokens_from_every_provider() {
    let oa = openai::decode(
        "openai",
        br#"{"choices":[{"message":{"content":"hi"},"finish_reason":"stop"}],
             "usage":{"prompt_tokens":2006,"completion_tokens":300,"prompt_tokens_details":{"cached_tokens":1920}}}"#,
    )
    .unwrap();
    assert_eq!(oa.usage.unwrap().cached_input_tokens, 1920);
    let ds = openai::decode(
        "deepseek",
        br#"{"choices":[{"message":{"content":"hi"},"finish_reason":"stop"}],
             "usage":{"prompt_tokens":100,"completion_tokens":5,"prompt_cache_hit_tokens":64,"prompt_cache_miss_tokens":36}}"#,
    )
    .unwrap();
    assert_eq!(ds.usage.unwrap().cached_input_tokens, 64);
    let an = anthropic::decode(
        "anthropic",
        br#"{"type":"message","role":"assistant","content":[{"type":"text","text":"hi"}],"stop_reason":"end_turn",
             "usage":{"input_tokens":21,"output_tokens":5,"cache_read_input_tokens":1800,"cache_creation_input_tokens":240}}"#,
    )
    .unwrap()
    .usage
    .unwrap();
    assert_eq!((an.input_tokens, an.cache_read_input_tokens, an.cache_creation_input_tokens), (2061, 1800, 240));
    // Anthropic's own `input_tokens` (21) leaves the cache out; Lucid's counts every prompt token.
    let ge = gemini::decode(
        "gemini",
        br#"{"candidates":[{"content":{"role":"model","parts":[{"text":"hi"}]},"finishReason":"STOP"}],
             "usageMetadata":{"promptTokenCount":1200,"candidatesTokenCount":4,"cachedContentTokenCount":1024}}"#,
    )
    .unwrap();
    assert_eq!(ge.usage.unwrap().cached_input_tokens, 1024);
}
