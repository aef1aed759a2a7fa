//! The engine on a real instruct GGUF (Qwen2.5-Coder-0.5B-Instruct Q4_K_M, `.ci/gguf.sh`
//! assembles it from PyPI), greedy and with small output limits: a grammar-constrained
//! tool call with valid arguments, the KV cache reused by the next call of the session,
//! text when no tool may be called, and cancellation.

use std::sync::OnceLock;

use futures::StreamExt;
use lucid::model::{ChatModel, ChatOptions, ChatRequest, StreamEvent, ToolChoice};
use lucid::{AssistantMessage, Message, ToolResult, ToolSpec};
use lucid_local::{LocalModel, LocalOptions};
use serde_json::{Value, json};

fn real_part(var: &str, how: &str) -> Option<String> {
    match std::env::var(var) {
        Ok(v) if !v.is_empty() => Some(v),
        _ if std::env::var("CI").is_ok_and(|v| v == "true") => panic!("{var} is not set under CI=true; {how}"),
        _ => {
            eprintln!("skipped: {var} is not set ({how})");
            None
        }
    }
}

/// One model for the whole test binary. The tests take turns ([`TURN`]): the KV cache
/// holds one conversation, and a test that checks its reuse must not have another's calls
/// in between.
fn model() -> Option<LocalModel> {
    static MODEL: OnceLock<Option<LocalModel>> = OnceLock::new();
    MODEL
        .get_or_init(|| {
            let path = real_part("LUCID_TEST_GGUF", "the path of a Qwen2.5 instruct GGUF; .ci/gguf.sh prints one")?;
            let options = LocalOptions { context_size: Some(2048), ..LocalOptions::default() };
            Some(LocalModel::load(path, options).expect("the GGUF loads"))
        })
        .clone()
}

static TURN: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

fn calculator() -> ToolSpec {
    ToolSpec::new(
        "calculator",
        "Evaluates an arithmetic expression and returns the result.",
        json!({
            "type": "object",
            "properties": {"expression": {"type": "string", "description": "e.g. 2 * (3 + 4)"}},
            "required": ["expression"],
            "additionalProperties": false
        }),
    )
    .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_required_tool_call_has_schema_valid_arguments_and_the_next_call_reuses_the_cache() {
    let Some(model) = model() else { return };
    let _turn = TURN.lock().await;
    assert!(model.context_window() == 2048 && model.train_context() >= 2048);
    let tools = [calculator()];
    let options = ChatOptions { max_tokens: Some(48), tool_choice: Some(ToolChoice::Required), ..Default::default() };
    let mut messages = vec![Message::system("You are a helpful assistant."), Message::user("What is 23 * 19?")];
    let first = model.chat(ChatRequest::new(&messages, &tools, &options)).await.unwrap();
    let call = first.message.tool_calls.first().unwrap_or_else(|| panic!("no tool call: {first:?}"));
    assert_eq!(call.name, "calculator");
    let args: Value = serde_json::from_str(&call.arguments).expect("arguments are JSON");
    assert!(args["expression"].is_string(), "the schema's one required string: {args}");
    assert_eq!(args.as_object().unwrap().len(), 1, "no other key (additionalProperties: false): {args}");
    let usage = first.usage.unwrap();
    assert!(usage.input_tokens > 100 && usage.output_tokens > 0, "{usage:?}");
    assert_eq!(first.finish_reason, Some(lucid::FinishReason::ToolCalls));

    // The next call of the session: the prompt grows by the call and its result only.
    messages.push(Message::Assistant(AssistantMessage { tool_calls: vec![call.clone()], ..Default::default() }));
    messages.push(Message::Tool(ToolResult {
        call_id: call.id.clone(),
        name: call.name.clone(),
        content: "437".into(),
        is_error: false,
    }));
    let text_only = ChatOptions { max_tokens: Some(24), tool_choice: Some(ToolChoice::None), ..Default::default() };
    let second = model.chat(ChatRequest::new(&messages, &tools, &text_only)).await.unwrap();
    let usage2 = second.usage.unwrap();
    assert!(second.message.tool_calls.is_empty(), "tool_choice none: {second:?}");
    assert!(!second.message.content.trim().is_empty());
    assert!(
        usage2.cached_input_tokens >= usage.input_tokens - 1,
        "the first prompt is a prefix of the second and stays in the cache: {usage:?} then {usage2:?}"
    );
    assert!(usage2.input_tokens - usage2.cached_input_tokens < 60, "only the new turn is prefilled: {usage2:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_streamed_call_announces_the_tool_and_a_dropped_stream_stops_generating() {
    let Some(model) = model() else { return };
    let _turn = TURN.lock().await;
    let tools = [calculator()];
    let options = ChatOptions { max_tokens: Some(48), tool_choice: Some(ToolChoice::Required), ..Default::default() };
    let messages = [Message::user("Use the calculator: what is 7 * 6?")];
    let mut stream = model.chat_stream(ChatRequest::new(&messages, &tools, &options)).await.unwrap();
    let mut started = None;
    let mut done = None;
    while let Some(event) = stream.next().await {
        match event.unwrap() {
            StreamEvent::ToolCallStarted { name, .. } => started = Some(name),
            StreamEvent::Done(r) => done = Some(r),
            _ => {}
        }
    }
    assert_eq!(started.as_deref(), Some("calculator"));
    assert_eq!(done.unwrap().message.tool_calls.len(), 1);

    // Free text, dropped after its first piece: the worker stops generating at once (well
    // short of the 2,000 tokens the call allows), and serves the next call.
    let before = model.generated_tokens();
    let long = ChatOptions { max_tokens: Some(2000), ..Default::default() };
    let count = [Message::user("Count from 1 to 1000, one number per line.")];
    let mut stream = model.chat_stream(ChatRequest::new(&count, &[], &long)).await.unwrap();
    let first = stream.next().await.unwrap().unwrap();
    assert!(matches!(first, StreamEvent::TextDelta(_)), "{first:?}");
    drop(stream);
    let short = ChatOptions { max_tokens: Some(4), ..Default::default() };
    let after = model.chat(ChatRequest::new(&count, &[], &short)).await.unwrap();
    let usage = after.usage.unwrap();
    assert_eq!((usage.output_tokens, after.finish_reason), (4, Some(lucid::FinishReason::Length)));
    let spent = model.generated_tokens() - before;
    assert!(spent < 1000, "the dropped call went on generating: {spent} tokens");
}
