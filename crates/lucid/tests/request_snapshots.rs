//! The exact request bodies Lucid sends, snapshotted: a change in the wire format is a
//! visible diff in review. One conversation (system prompt, two tool rounds, a parallel
//! pair of calls, an error result, reasoning) encoded for each preset's quirks.

use lucid::message::{AssistantMessage, Reasoning};
use lucid::model::presets::{ContentPolicy, Preset, Quirks};
use lucid::model::{ChatOptions, ChatRequest, ResponseFormat, ToolChoice, openai};
use lucid::{Message, ToolCall, ToolSpec};
use serde_json::json;

/// A JSON snapshot with the objects' keys sorted: whether serde_json keeps insertion order
/// depends on its `preserve_order` feature, which another crate of a workspace build (the
/// local model's grammar engine) turns on.
macro_rules! snapshot {
    ($($t:tt)*) => {
        insta::with_settings!({ sort_maps => true }, { insta::assert_json_snapshot!($($t)*) })
    };
}

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
    openai::encode(&ChatRequest::new(&msgs, &tools, options), &p.default_model, &p.quirks, stream)
}

#[test]
fn openai_request() {
    snapshot!(body("openai", false, &ChatOptions::default()));
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
        ..Default::default()
    };
    snapshot!(body("openai", true, &options));
}

#[test]
fn zhipu_request_sends_empty_content_beside_tool_calls_and_reasoning_of_the_current_turn() {
    let b = body("zhipu", true, &ChatOptions::default());
    // `""` from the first request, as the design asks (no 1214 round trip for `null`).
    assert_eq!(b["messages"][2]["content"], "");
    assert!(b["messages"][2].get("reasoning_content").is_none(), "reasoning of an earlier turn is not sent");
    assert_eq!(b["messages"][7]["reasoning_content"], "The user wants a retry.");
    assert!(b.get("stream_options").is_none());
    snapshot!(b);
}

#[test]
fn deepseek_request() {
    snapshot!(body("deepseek", false, &ChatOptions::default()));
}

#[test]
fn qwen_and_local_servers_send_empty_content_beside_tool_calls() {
    for preset in ["qwen", "vllm", "llamacpp", "ollama"] {
        let p = Preset::find(preset).unwrap();
        let msgs = conversation();
        let b = openai::encode(&ChatRequest::new(&msgs, &tools(), &ChatOptions::default()), "m", &p.quirks, false);
        assert_eq!(b["messages"][2]["content"], "", "{preset}");
    }
    snapshot!(body("ollama", false, &ChatOptions::default()));
}

/// The same conversation under a content policy no preset uses yet, for a server that
/// needs it (declared as a custom `Quirks`).
fn with_policy(policy: ContentPolicy) -> serde_json::Value {
    let quirks = Quirks { content_policy: policy, ..Quirks::COMPATIBLE };
    let msgs = conversation();
    openai::encode(&ChatRequest::new(&msgs, &tools(), &ChatOptions::default()), "m", &quirks, false)
}

#[test]
fn omit_policy_leaves_content_out_beside_tool_calls() {
    let b = with_policy(ContentPolicy::Omit);
    assert!(b["messages"][2].get("content").is_none(), "{}", b["messages"][2]);
    assert_eq!(b["messages"][7]["content"], "Retrying.", "text beside calls is still sent");
    snapshot!(b);
}

#[test]
fn placeholder_policy_sends_its_text_beside_tool_calls() {
    let b = with_policy(ContentPolicy::Placeholder("(calling tools)"));
    assert_eq!(b["messages"][2]["content"], "(calling tools)");
    assert_eq!(b["messages"][7]["content"], "Retrying.", "real text is never replaced");
    snapshot!(b);
}

/// The same conversation as Anthropic and Gemini see it: Anthropic thinking blocks with
/// their signature on the first assistant turn, a Gemini thought signature on a call, and
/// one call id that Lucid minted (Gemini sent none).
fn native_conversation() -> Vec<Message> {
    let mut msgs = conversation();
    if let Message::Assistant(a) = &mut msgs[2] {
        a.reasoning = Some(Reasoning {
            text: "Two cities, two calls.".into(),
            signature: None,
            blocks: vec![
                json!({"type": "thinking", "thinking": "Two cities, two calls.", "signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"}),
                json!({"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP"}),
            ],
        });
        a.tool_calls[0].signature = Some("CiQBjz1rX-sig".into());
        a.tool_calls[1].id = "call_lucid_00000000000000b2".into();
    }
    if let Message::Tool(r) = &mut msgs[4] {
        r.call_id = "call_lucid_00000000000000b2".into();
    }
    msgs
}

#[test]
fn anthropic_request() {
    let msgs = native_conversation();
    let tools = tools();
    let options = ChatOptions {
        tool_choice: Some(ToolChoice::Auto),
        parallel_tool_calls: Some(false),
        stop: vec!["END".into()],
        ..Default::default()
    };
    let b = lucid::model::anthropic::encode(&ChatRequest::new(&msgs, &tools, &options), "claude-sonnet-4-5", true);
    let roles: Vec<&str> = b["messages"].as_array().unwrap().iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["user", "assistant", "user", "assistant", "user", "assistant", "user"]);
    assert_eq!(b["messages"][2]["content"].as_array().unwrap().len(), 2, "both results in one user message");
    assert_eq!(b["messages"][2]["content"][1]["is_error"], true);
    assert_eq!(b["messages"][1]["content"][0]["type"], "thinking", "thinking blocks first, verbatim");
    snapshot!(b);

    // A question sent after an interrupted tool turn joins the results' user message, after them.
    let cut = [msgs[1].clone(), msgs[2].clone(), msgs[3].clone(), msgs[4].clone(), Message::user("never mind")];
    let b = lucid::model::anthropic::encode(&ChatRequest::new(&cut, &tools, &options), "claude-sonnet-4-5", false);
    let kinds: Vec<&str> =
        b["messages"][2]["content"].as_array().unwrap().iter().map(|c| c["type"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["tool_result", "tool_result", "text"]);
}

#[test]
fn gemini_request() {
    let msgs = native_conversation();
    let tools = tools();
    let options = ChatOptions {
        temperature: Some(0.2),
        max_tokens: Some(512),
        tool_choice: Some(ToolChoice::Tool("get_weather".into())),
        ..Default::default()
    };
    let b = lucid::model::gemini::encode(&ChatRequest::new(&msgs, &tools, &options));
    let parts = &b["contents"][1]["parts"];
    assert_eq!(parts[0]["thoughtSignature"], "CiQBjz1rX-sig");
    assert_eq!(parts[0]["functionCall"]["id"], "call_a");
    assert!(parts[1]["functionCall"].get("id").is_none(), "a minted id is not sent as Gemini's");
    assert_eq!(
        b["contents"][2]["parts"][1]["functionResponse"]["response"],
        json!({"error": "Error: service unavailable"})
    );
    snapshot!(b);
}
