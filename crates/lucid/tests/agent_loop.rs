//! The agent loop end to end against a local scripted OpenAI-compatible server.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use futures::StreamExt;
use lucid::history::validate;
use lucid::model::retry::RetryPolicy;
use lucid::model::{OpenAiCompatible, http::HttpTransport};
use lucid::prelude::*;
use lucid::{Error, ProviderErrorKind};
use lucid_mock::{MockServer, Reply, text_completion, text_stream, tool_call_completion, tool_call_stream};
use serde_json::{Value, json};

/// Adds two integers.
#[tool]
async fn add(
    /// first operand
    a: i64,
    /// second operand
    b: i64,
) -> Result<i64, ToolError> {
    Ok(a + b)
}

/// Waits, then answers.
#[tool]
async fn slow(ms: u64, ctx: ToolContext) -> Result<String, ToolError> {
    tokio::select! {
        _ = tokio::time::sleep(Duration::from_millis(ms)) => Ok(format!("slept {ms}")),
        _ = ctx.cancel.cancelled() => Err(ToolError::new("cancelled")),
    }
}

/// Two calls that must be running at the same time to get past the gate.
struct Gate {
    barrier: tokio::sync::Barrier,
}

#[tools]
impl Gate {
    /// Waits for the other call at the gate, then waits `ms` more and answers.
    #[tool(name = "slow")]
    async fn gated_slow(&self, ms: u64) -> Result<String, ToolError> {
        tokio::time::timeout(Duration::from_secs(30), self.barrier.wait())
            .await
            .map_err(|_| ToolError::new("alone at the gate: the calls did not run concurrently"))?;
        tokio::time::sleep(Duration::from_millis(ms)).await;
        Ok(format!("slept {ms}"))
    }
}

/// Always panics.
#[tool]
fn explode() -> String {
    panic!("boom")
}

/// Always fails.
#[tool]
fn refuse(reason: String) -> Result<String, String> {
    Err(reason)
}

fn model(server: &MockServer, retry: RetryPolicy) -> Arc<OpenAiCompatible> {
    let transport = HttpTransport::builder().retry(retry).build().unwrap();
    Arc::new(
        OpenAiCompatible::new(&server.url(), Some("sk-test".into()), "gpt-test").unwrap().with_transport(transport),
    )
}

fn fast_retry() -> RetryPolicy {
    RetryPolicy {
        max_retries: 3,
        initial_backoff: Duration::from_millis(1),
        max_backoff: Duration::from_millis(5),
        ..Default::default()
    }
}

fn agent(server: &MockServer) -> Agent {
    Agent::builder(model(server, fast_retry()))
        .system("You are a calculator.")
        .tool(add)
        .tool(slow)
        .tool(explode)
        .tool(refuse)
        .build()
}

fn ok(v: Value) -> Reply {
    Reply::json(200, &v)
}

fn roles(body: &Value) -> Vec<String> {
    body["messages"].as_array().unwrap().iter().map(|m| m["role"].as_str().unwrap().to_string()).collect()
}

#[tokio::test]
async fn single_tool_call_then_answer() {
    let server = MockServer::sequence(vec![
        ok(tool_call_completion(&[("call_1", "add", r#"{"a":2,"b":3}"#)])),
        ok(text_completion("5")),
    ])
    .await;
    let mut s = agent(&server).session();
    let r = s.run("What is 2 + 3?").await.unwrap();
    assert_eq!(r.content, "5");
    assert_eq!(r.stop_reason, StopReason::Completed);
    assert_eq!(r.iterations, 2);
    assert_eq!(r.usage.input_tokens, 50);
    assert_eq!(r.tool_calls[0].output.as_deref(), Some("5"));
    let reqs = server.requests();
    assert_eq!(reqs[0].header("authorization"), Some("Bearer sk-test"));
    let second = reqs[1].json();
    assert_eq!(roles(&second), ["system", "user", "assistant", "tool"]);
    assert_eq!(second["messages"][2]["content"], Value::Null);
    assert_eq!(second["messages"][3], json!({"role": "tool", "tool_call_id": "call_1", "content": "5"}));
    assert_eq!(second["tools"].as_array().unwrap().len(), 4);
    assert!(validate(s.messages()).is_ok());
    assert_eq!(s.messages().len(), 5);
}

#[tokio::test]
async fn parallel_calls_run_concurrently_and_results_keep_call_order() {
    let server = MockServer::sequence(vec![
        ok(tool_call_completion(&[
            ("c_slow", "slow", r#"{"ms":150}"#),
            ("c_fast", "slow", r#"{"ms":1}"#),
            ("c_add", "add", r#"{"a":1,"b":1}"#),
        ])),
        ok(text_completion("done")),
    ])
    .await;
    // `slow` here waits at a gate for two calls: run one after another, the first would
    // wait alone until its deadline and fail. No clock is read to decide.
    let gate = Gate { barrier: tokio::sync::Barrier::new(2) };
    let agent =
        Agent::builder(model(&server, fast_retry())).system("You are a calculator.").tool(add).tool_set(gate).build();
    let mut s = agent.session();
    let r = s.run("go").await.unwrap();
    assert_eq!(r.tool_calls[0].output.as_deref(), Some("slept 150"), "{:?}", r.tool_calls[0]);
    assert_eq!(r.tool_calls[1].output.as_deref(), Some("slept 1"), "{:?}", r.tool_calls[1]);
    let ids: Vec<&str> = r.tool_calls.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["c_slow", "c_fast", "c_add"]);
    let second = server.requests()[1].json();
    let tool_ids: Vec<&str> =
        second["messages"].as_array().unwrap()[3..].iter().map(|m| m["tool_call_id"].as_str().unwrap()).collect();
    assert_eq!(tool_ids, ["c_slow", "c_fast", "c_add"]);
    assert_eq!(second["messages"][3]["content"], "slept 150");
}

#[tokio::test]
async fn two_rounds_of_tools() {
    let server = MockServer::sequence(vec![
        ok(tool_call_completion(&[("c1", "add", r#"{"a":2,"b":3}"#)])),
        ok(tool_call_completion(&[("c2", "add", r#"{"a":5,"b":4}"#)])),
        ok(text_completion("9")),
    ])
    .await;
    let mut s = agent(&server).session();
    let r = s.run("(2+3)+4").await.unwrap();
    assert_eq!((r.iterations, r.tool_calls.len(), r.content.as_str()), (3, 2, "9"));
    assert_eq!(roles(&server.requests()[2].json()), ["system", "user", "assistant", "tool", "assistant", "tool"]);
}

#[tokio::test]
async fn rate_limit_429_is_retried_after_the_wait_the_server_asks() {
    let limited = Reply::json(
        429,
        &json!({"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}}),
    )
    .with_header("retry-after-ms", "300");
    let server = MockServer::sequence(vec![limited, ok(text_completion("hi"))]).await;
    let mut s = agent(&server).session();
    let started = Instant::now();
    let r = s.run("hello").await.unwrap();
    assert_eq!(r.content, "hi");
    assert!(started.elapsed() >= Duration::from_millis(300), "the Retry-After wait was not honoured");
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn exhausted_quota_429_is_not_retried() {
    let quota = Reply::json(
        429,
        &json!({"error": {"message": "You exceeded your current quota", "type": "insufficient_quota", "code": "insufficient_quota"}}),
    );
    let server = MockServer::sequence(vec![quota, ok(text_completion("never"))]).await;
    let mut s = agent(&server).session();
    let err = s.run("hello").await.unwrap_err();
    match &err {
        Error::Provider(p) => {
            assert_eq!(p.kind, ProviderErrorKind::QuotaExhausted);
            assert!(!p.retryable);
        }
        other => panic!("expected a provider error, got {other:?}"),
    }
    assert!(err.to_string().contains("429 insufficient_quota: You exceeded your current quota"), "{err}");
    assert_eq!(server.requests().len(), 1);
    assert!(validate(s.messages()).is_ok());
}

#[tokio::test]
async fn server_error_503_is_retried_then_succeeds() {
    let server = MockServer::sequence(vec![
        Reply::json(503, &json!({"error": {"message": "overloaded", "type": "server_error"}})),
        Reply::json(502, &json!({"error": "bad gateway"})),
        ok(text_completion("back")),
    ])
    .await;
    let r = agent(&server).session().run("hello").await.unwrap();
    assert_eq!(r.content, "back");
    assert_eq!(server.requests().len(), 3);
}

#[tokio::test]
async fn retries_stop_at_the_limit_with_the_providers_message() {
    let err503 = || Reply::json(503, &json!({"error": {"message": "still overloaded", "type": "server_error"}}));
    let server = MockServer::sequence(vec![err503(), err503(), err503(), err503(), err503()]).await;
    let err = agent(&server).session().run("hello").await.unwrap_err();
    assert!(err.to_string().contains("still overloaded"));
    assert_eq!(server.requests().len(), 4, "one try and three retries");
}

#[tokio::test]
async fn malformed_and_invalid_arguments_become_errors_the_model_recovers_from() {
    let server = MockServer::sequence(vec![
        ok(tool_call_completion(&[
            ("c1", "add", r#"{"a":2,"b":"#),
            ("c2", "add", r#"{"a":"two","b":3}"#),
            ("c3", "nope", "{}"),
        ])),
        ok(tool_call_completion(&[("c4", "add", r#"{"a":2,"b":3}"#)])),
        ok(text_completion("5")),
    ])
    .await;
    let mut s = agent(&server).session();
    let r = s.run("2+3").await.unwrap();
    assert_eq!(r.content, "5");
    assert!(r.tool_calls[..3].iter().all(|c| c.is_error));
    assert_eq!(r.tool_calls[0].arguments, json!(r#"{"a":2,"b":"#));
    let second = server.requests()[1].json();
    let outputs: Vec<&str> =
        second["messages"].as_array().unwrap()[3..6].iter().map(|m| m["content"].as_str().unwrap()).collect();
    assert!(outputs[0].contains("not valid JSON"), "{}", outputs[0]);
    assert!(outputs[1].contains("`a`: expected integer, got string \"two\""), "{}", outputs[1]);
    assert!(outputs[2].contains("Unknown tool `nope`"), "{}", outputs[2]);
    assert_eq!(r.tool_calls[3].output.as_deref(), Some("5"));
}

#[tokio::test]
async fn tool_errors_panics_and_timeouts_become_results() {
    let server = MockServer::sequence(vec![
        ok(tool_call_completion(&[
            ("c1", "explode", "{}"),
            ("c2", "refuse", r#"{"reason":"no"}"#),
            ("c3", "slow", r#"{"ms":5000}"#),
        ])),
        ok(text_completion("recovered")),
    ])
    .await;
    let agent = Agent::builder(model(&server, fast_retry()))
        .tool(explode)
        .tool(refuse)
        .tool(slow)
        .tool_timeout(Some(Duration::from_millis(50)))
        .build();
    let r = agent.session().run("try").await.unwrap();
    assert_eq!(r.content, "recovered");
    let outs: Vec<&str> = r.tool_calls.iter().map(|c| c.output.as_deref().unwrap()).collect();
    assert_eq!(outs[0], "The tool `explode` crashed: boom");
    assert_eq!(outs[1], "Error: no");
    assert!(outs[2].starts_with("The tool `slow` did not finish within 0.1 s"), "{}", outs[2]);
    assert!(r.tool_calls.iter().all(|c| c.is_error));
}

#[tokio::test]
async fn a_stream_cut_mid_answer_is_a_clear_error_and_the_history_stays_valid() {
    let server = MockServer::sequence(vec![
        Reply::sse(&tool_call_stream(&[("c1", "add", r#"{"a":2,"b":3}"#)])),
        Reply::sse(&text_stream(&["The answer", " is", " 5."])).cut_after(2).with_delay(Duration::from_millis(20)),
    ])
    .await;
    let mut s = agent(&server).session();
    let mut events = s.run_stream("2+3");
    let mut last = None;
    while let Some(ev) = events.next().await {
        last = Some(ev);
    }
    drop(events);
    match last {
        Some(AgentEvent::Error(e)) => assert!(matches!(e, Error::StreamTruncated { .. }), "{e}"),
        other => panic!("expected an error event, got {other:?}"),
    }
    assert!(validate(s.messages()).is_ok());
    assert_eq!(s.messages().len(), 4, "system, user, assistant call, tool result, nothing half-written");
    assert_eq!(server.requests().len(), 2, "a stream is never retried after its first token");
}

#[tokio::test]
async fn streaming_emits_text_and_tool_events_in_order() {
    let server = MockServer::sequence(vec![
        Reply::sse(&tool_call_stream(&[("c1", "add", r#"{"a":2,"b":3}"#), ("c2", "add", r#"{"a":1,"b":1}"#)])),
        Reply::sse(&text_stream(&["The answer", " is 5."])),
    ])
    .await;
    let mut s = agent(&server).session();
    let events: Vec<AgentEvent> = s.run_stream("2+3").collect().await;
    let names: Vec<String> = events
        .iter()
        .map(|e| match e {
            AgentEvent::Iteration(n) => format!("iter{n}"),
            AgentEvent::TextDelta(t) => format!("text:{t}"),
            AgentEvent::ToolCallStarted { id, .. } => format!("start:{id}"),
            AgentEvent::ToolCallFinished { id, output, .. } => format!("done:{id}={output}"),
            AgentEvent::Completed(r) => format!("completed:{}", r.content),
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(
        names,
        [
            "iter1",
            "start:c1",
            "start:c2",
            "done:c1=5",
            "done:c2=2",
            "iter2",
            "text:The answer",
            "text: is 5.",
            "completed:The answer is 5."
        ]
    );
    let first = server.requests()[0].json();
    assert_eq!(first["stream"], true);
    assert_eq!(first["stream_options"], json!({"include_usage": true}));
    match events.last() {
        Some(AgentEvent::Completed(r)) => assert_eq!(r.usage.input_tokens, 50, "usage from each call's final report"),
        _ => unreachable!(),
    }
}

#[tokio::test]
async fn max_iterations_stops_and_records_unexecuted_calls() {
    let server = MockServer::sequence(vec![
        ok(tool_call_completion(&[("c1", "add", r#"{"a":1,"b":1}"#)])),
        ok(tool_call_completion(&[("c2", "add", r#"{"a":2,"b":2}"#)])),
    ])
    .await;
    let agent = Agent::builder(model(&server, fast_retry())).tool(add).max_iterations(2).build();
    let mut s = agent.session();
    let r = s.run("loop").await.unwrap();
    assert_eq!(r.stop_reason, StopReason::MaxIterations);
    assert_eq!(r.iterations, 2);
    assert_eq!(r.tool_calls.len(), 2);
    assert_eq!(r.tool_calls[1].output, None);
    assert!(validate(s.messages()).is_ok());
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn cancel_now_stops_running_tools_and_keeps_the_history_valid() {
    let server = MockServer::sequence(vec![ok(tool_call_completion(&[
        ("c_fast", "slow", r#"{"ms":1}"#),
        ("c_slow", "slow", r#"{"ms":10000}"#),
    ]))])
    .await;
    let mut s = agent(&server).session();
    let cancel = s.canceller();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(200)).await;
        cancel.cancel_now();
    });
    let started = Instant::now();
    let r = s.run("wait").await.unwrap();
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(r.stop_reason, StopReason::Cancelled);
    assert_eq!(r.tool_calls[0].output.as_deref(), Some("slept 1"));
    assert_eq!(r.tool_calls[1].output, None);
    assert!(validate(s.messages()).is_ok());
    match s.messages().last() {
        Some(Message::Tool(t)) => assert!(t.is_error && t.content.contains("interrupted")),
        other => panic!("expected an interrupted result, got {other:?}"),
    }
}

#[tokio::test]
async fn cancel_after_turn_lets_the_tools_finish_then_stops() {
    let server = MockServer::sequence(vec![
        ok(tool_call_completion(&[("c1", "slow", r#"{"ms":100}"#)])),
        ok(text_completion("x")),
    ])
    .await;
    let mut s = agent(&server).session();
    let cancel = s.canceller();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(30)).await;
        cancel.cancel_after_turn();
    });
    let r = s.run("wait").await.unwrap();
    assert_eq!(r.stop_reason, StopReason::Cancelled);
    assert_eq!(r.tool_calls[0].output.as_deref(), Some("slept 100"));
    assert_eq!(server.requests().len(), 1);
    let next = s.run("again").await.unwrap();
    assert_eq!(next.stop_reason, StopReason::Completed, "the request applies to one run only");
}

#[tokio::test]
async fn clear_keeps_the_system_prompt_and_sessions_are_isolated() {
    let server = MockServer::start(|_| ok(text_completion("ok"))).await;
    let agent = agent(&server);
    let mut a = agent.session();
    let mut b = agent.session();
    a.run("only in a").await.unwrap();
    b.run("only in b").await.unwrap();
    let reqs = server.requests();
    assert!(!reqs[1].json().to_string().contains("only in a"));
    a.clear();
    assert_eq!(a.messages(), &[Message::system("You are a calculator.")]);
    assert_eq!(b.messages().len(), 3);
}

#[tokio::test]
async fn one_agent_serves_many_concurrent_sessions() {
    let calls = Arc::new(AtomicUsize::new(0));
    let counter = calls.clone();
    let server = MockServer::start(move |req| {
        counter.fetch_add(1, Ordering::SeqCst);
        if req.json().to_string().contains(r#""role":"tool""#) {
            ok(text_completion("5"))
        } else {
            ok(tool_call_completion(&[("c1", "add", r#"{"a":2,"b":3}"#)]))
        }
    })
    .await;
    let agent = agent(&server);
    let tasks: Vec<_> = (0..20)
        .map(|_| {
            let agent = agent.clone();
            tokio::spawn(async move { agent.session().run("2+3").await.unwrap().content })
        })
        .collect();
    for t in tasks {
        assert_eq!(t.await.unwrap(), "5");
    }
    assert_eq!(calls.load(Ordering::SeqCst), 40);
}

#[tokio::test]
async fn trimming_keeps_whole_turns_and_the_system_prompt() {
    let server = MockServer::start(|_| ok(text_completion("fine"))).await;
    let agent = Agent::builder(model(&server, fast_retry())).system("sys").max_messages(4).build();
    let mut s = agent.session();
    for i in 0..5 {
        s.run(format!("turn {i}")).await.unwrap();
    }
    let last = server.requests().pop().unwrap().json();
    assert_eq!(roles(&last), ["system", "user", "assistant", "user"]);
    assert_eq!(last["messages"][1]["content"], "turn 3");
}

#[tokio::test]
async fn network_failure_is_a_clear_error() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let m = OpenAiCompatible::new(&format!("http://127.0.0.1:{port}/v1"), None, "m")
        .unwrap()
        .with_transport(HttpTransport::builder().retry(RetryPolicy::none()).build().unwrap());
    let mut s = Agent::builder(Arc::new(m)).build().session();
    let err = s.run("hello").await.unwrap_err();
    assert!(matches!(err, Error::Network { retryable: true, .. }), "{err:?}");
    assert!(
        err.to_string().starts_with(&format!("could not reach openai at http://127.0.0.1:{port}/v1/chat/completions")),
        "{err}"
    );
    assert!(validate(s.messages()).is_ok());
}

#[tokio::test]
async fn arguments_cut_by_max_tokens_end_the_turn_naming_the_limit() {
    let mut cut = tool_call_completion(&[("c1", "add", r#"{"a": 2, "b"#)]);
    cut["choices"][0]["finish_reason"] = json!("length");
    let server = MockServer::sequence(vec![ok(cut), ok(text_completion("sorry"))]).await;
    let mut s = agent(&server).session();
    let r = s.run("2+3").await.unwrap();
    // Not executed, and the model is not asked again (it would hit the same limit).
    assert_eq!(r.stop_reason, StopReason::OutputLimit);
    assert_eq!(server.requests().len(), 1);
    assert_eq!(r.tool_calls[0].output, None);
    let why = r.stop_message.as_deref().unwrap();
    assert!(why.contains("`add`") && why.contains("output token limit") && why.contains("max_tokens"), "{why}");
    // The history stays valid: the cut call is answered "not executed".
    assert!(validate(s.messages()).is_ok());
    let Some(Message::Tool(t)) = s.messages().last() else { panic!("{:?}", s.messages()) };
    assert!(t.is_error && t.content.contains("cut off by the output token limit"));
}

#[tokio::test]
async fn a_malformed_body_is_a_decode_error_and_the_history_stays_valid() {
    let garbage =
        Reply::Body { status: 200, headers: vec![], content_type: "application/json", body: "{\"choices\": [".into() };
    let server =
        MockServer::sequence(vec![ok(tool_call_completion(&[("c1", "add", r#"{"a":1,"b":1}"#)])), garbage]).await;
    let mut s = agent(&server).session();
    let err = s.run("1+1").await.unwrap_err();
    assert!(matches!(err, Error::Decode { .. }), "{err:?}");
    assert!(err.to_string().contains("could not decode"), "{err}");
    assert!(validate(s.messages()).is_ok());
    assert_eq!(s.messages().len(), 4, "the completed tool round is kept");
}

#[tokio::test]
async fn an_error_inside_a_200_stream_is_reported_with_its_message() {
    let server = MockServer::sequence(vec![Reply::sse(&[
        json!({"choices": [{"index": 0, "delta": {"content": "Hel"}}]}),
        json!({"error": {"message": "The server had an error while processing your request.", "type": "server_error"}}),
    ])])
    .await;
    let mut s = agent(&server).session();
    let events: Vec<AgentEvent> = s.run_stream("hi").collect().await;
    match events.last() {
        Some(AgentEvent::Error(Error::Provider(p))) => {
            assert!(p.mid_stream && p.retryable);
            assert_eq!(p.message, "The server had an error while processing your request.");
        }
        other => panic!("expected a provider error, got {other:?}"),
    }
    assert!(validate(s.messages()).is_ok());
}

/// A server whose model holds `window` tokens (counted as 4 characters of message text
/// each) and answers OpenAI's real over-length 400 when a request exceeds it.
fn windowed_server(window: usize) -> impl Fn(&lucid_mock::RecordedRequest) -> Reply + Send + Sync + 'static {
    move |req| {
        let body = req.json();
        let messages = body["messages"].as_array().unwrap();
        let chars: usize = messages.iter().map(|m| m["content"].as_str().unwrap_or_default().len()).sum();
        let tokens = chars / 4;
        if tokens > window {
            return Reply::json(
                400,
                &json!({"error": {"message": format!("This model's maximum context length is {window} tokens. However, your messages resulted in {tokens} tokens. Please reduce the length of the messages."),
                        "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}}),
            );
        }
        let last = messages.last().unwrap()["content"].as_str().unwrap_or_default();
        let mut answer = text_completion(&format!("noted {}", &last[..last.len().min(12)]));
        // The usage a real server reports: the agent calibrates its estimate by it.
        answer["usage"] = json!({"prompt_tokens": tokens, "completion_tokens": 4, "total_tokens": tokens + 4});
        Reply::json(200, &answer)
    }
}

#[tokio::test]
async fn a_long_conversation_stays_within_a_small_window_and_is_never_stuck() {
    let server = MockServer::start(windowed_server(4_000)).await;
    let model = OpenAiCompatible::new(&server.url(), None, "local").unwrap();
    let agent = Agent::builder(model).context_window(4_000, 500).build();
    assert_eq!(agent.context_budget(), Some(3_500));
    let mut s = agent.session();
    for turn in 0..60 {
        // About 300 tokens each: the window holds about a dozen turns.
        let said = format!("turn {turn:03} {}", "lorem ipsum dolor sit amet ".repeat(44));
        let r = s.run(said).await.unwrap_or_else(|e| panic!("turn {turn}: {e}"));
        assert!(r.content.starts_with(&format!("noted turn {turn:03}")), "{}", r.content);
    }
    let refused = server.requests().len() - 60;
    assert_eq!(refused, 0, "no request went over the window");
    assert!(validate(s.messages()).is_ok());
}

#[tokio::test]
async fn an_over_length_error_trims_harder_and_tries_once_more() {
    // The model's real window is smaller than the agent was told.
    let server = MockServer::start(windowed_server(2_000)).await;
    let model = OpenAiCompatible::new(&server.url(), None, "local").unwrap();
    let agent = Agent::builder(model).context_window(16_000, 1_000).build();
    let mut s = agent.session();
    for turn in 0..12 {
        let said = format!("turn {turn:03} {}", "lorem ipsum dolor sit amet ".repeat(44));
        let r = s.run(said).await.unwrap_or_else(|e| panic!("turn {turn}: {e}"));
        assert!(r.content.starts_with(&format!("noted turn {turn:03}")), "{}", r.content);
        assert_eq!(r.iterations, 1, "the retry is not an iteration");
    }
    let reqs = server.requests();
    assert!(reqs.len() > 12 && reqs.len() < 24, "at most one retry per turn: {} requests", reqs.len());
    // A single turn larger than the window cannot be trimmed: a clear error, the session valid.
    let err = s.run("x".repeat(9_000)).await.unwrap_err();
    assert!(matches!(&err, Error::Provider(e) if e.is_context_overflow()), "{err:?}");
    assert!(validate(s.messages()).is_ok());
}

#[test]
fn the_catalogue_gives_known_models_a_budget_and_leaves_unknown_ones_alone() {
    let known = OpenAiCompatible::new("http://127.0.0.1:9/v1", None, "gpt-4o-mini").unwrap();
    let agent = Agent::builder(known).tool(add).build();
    let budget = agent.context_budget().unwrap();
    assert!(budget < 128_000 - 16_384 && budget > 100_000, "{budget}");
    let unknown = OpenAiCompatible::new("http://127.0.0.1:9/v1", None, "my-finetune").unwrap();
    assert_eq!(Agent::builder(unknown).build().context_budget(), None);
}
