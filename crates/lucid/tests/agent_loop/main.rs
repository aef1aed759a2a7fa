//! The agent loop end to end against a local scripted OpenAI-compatible server.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use futures::StreamExt;
use lucid::history::validate;
use lucid::model::retry::RetryPolicy;
use lucid::model::{ModelError, OpenAiCompatible, http::HttpTransport};
#[path = "../common/mod.rs"]
mod common;

use common::add;
use lucid::prelude::*;
use lucid::{Error, ProviderErrorKind};
use lucid_mock::{MockServer, Reply, text_completion, text_stream, tool_call_completion, tool_call_stream};
use serde_json::{Value, json};

mod context;
mod failures;

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
