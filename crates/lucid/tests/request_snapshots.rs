//! The exact request bodies Lucid sends, snapshotted: a change in the wire format is a
//! visible diff in review. One conversation (system prompt, two tool rounds, a parallel
//! pair of calls, an error result, reasoning) encoded for each preset's quirks.

use lucid::message::{AssistantMessage, Reasoning};
use lucid::model::presets::Preset;
use lucid::model::{ChatOptions, ChatRequest, ResponseFormat, ToolChoice, openai};
use lucid::{Message, ToolCall, ToolSpec};
use serde_json::json;

fn conversation() -> Vec<Message> {
    vec![
        Message::system("You are a weather assistant."),
        Message::user("Weather in Paris and Tokyo?"),
        Message::Assistant(AssistantMessage {
            content: String::new(),
            tool_calls: vec![
                ToolCall::new("call_a", "get_weather", json!({"city": "Paris"})),
                ToolCall::new("call_b", "get_weather", json!({"city": "Tokyo"})),
            ],
            reasoning: Some(Reasoning { text: "Two cities, two calls.".into(), ..Default::default() }),
        }),
        Message::tool_result("call_a", "get_weather", "18°C, cloudy", false),
        Message::tool_result("call_b", "get_weather", "Error: service unavailable", true),
        Message::assistant("Paris is 18°C and cloudy; Tokyo's weather is unavailable."),
        Message::user("Try Tokyo again."),
        Message::Assistant(AssistantMessage {
            content: "Retrying.".into(),
            tool_calls: vec![ToolCall::new("call_c", "get_weather", json!({"city": "Tokyo"}))],
            reasoning: Some(Reasoning { text: "The user wants a retry.".into(), ..Default::default() }),
        }),
        Message::tool_result("call_c", "get_weather", "25°C, sunny", false),
    ]
}

fn tools() -> Vec<ToolSpec> {
    vec![
        ToolSpec::new(
            "get_weather",
            "Current weather for a city.",
            json!({"type": "object", "properties": {"city": {"type": "string", "description": "City name"}}, "required": ["city"]}),
        )
        .unwrap(),
    ]
}

fn body(preset: &str, stream: bool, options: &ChatOptions) -> serde_json::Value {
    let p = Preset::find(preset).unwrap();
    let msgs = conversation();
    let tools = tools();
    openai::encode(&ChatRequest::new(&msgs, &tools, options), p.default_model, &p.quirks, stream)
}

#[test]
fn openai_request() {
    insta::assert_json_snapshot!(body("openai", false, &ChatOptions::default()));
}

#[test]
fn openai_streaming_request_with_every_option() {
    let mut extra = serde_json::Map::new();
    extra.insert("user".into(), json!("user-42"));
    let options = ChatOptions {
        model: Some("gpt-4.1".into()),
        temperature: Some(0.5),
        top_p: Some(0.9),
        max_tokens: Some(256),
        tool_choice: Some(ToolChoice::Tool("get_weather".into())),
        parallel_tool_calls: Some(false),
        stop: vec!["END".into()],
        seed: Some(7),
        response_format: Some(ResponseFormat::JsonSchema {
            name: "weather".into(),
            schema: json!({"type": "object", "properties": {"summary": {"type": "string"}}, "required": ["summary"], "additionalProperties": false}),
            strict: true,
        }),
        extra: Some(extra),
    };
    insta::assert_json_snapshot!(body("openai", true, &options));
}

#[test]
fn zhipu_request_sends_null_content_beside_tool_calls_and_reasoning_of_the_current_turn() {
    let b = body("zhipu", true, &ChatOptions::default());
    assert_eq!(b["messages"][2]["content"], serde_json::Value::Null);
    assert!(b["messages"][2].get("reasoning_content").is_none(), "reasoning of an earlier turn is not sent");
    assert_eq!(b["messages"][7]["reasoning_content"], "The user wants a retry.");
    assert!(b.get("stream_options").is_none());
    insta::assert_json_snapshot!(b);
}

#[test]
fn deepseek_request() {
    insta::assert_json_snapshot!(body("deepseek", false, &ChatOptions::default()));
}

#[test]
fn qwen_and_local_servers_send_empty_content_beside_tool_calls() {
    for preset in ["qwen", "vllm", "llamacpp", "ollama"] {
        let p = Preset::find(preset).unwrap();
        let msgs = conversation();
        let b = openai::encode(&ChatRequest::new(&msgs, &tools(), &ChatOptions::default()), "m", &p.quirks, false);
        assert_eq!(b["messages"][2]["content"], "", "{preset}");
    }
    insta::assert_json_snapshot!(body("ollama", false, &ChatOptions::default()));
}
