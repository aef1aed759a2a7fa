//! Control over a turn from outside the loop: dropping a turn cancels it (its lock and its
//! history go back, in this process and for the next one), hooks at each point (deny by
//! arguments, replace arguments, defer and resume, stop), and token calibration on
//! Anthropic's cached prompts.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::{BoxFuture, FutureExt};
use futures::stream;
use lucid::agent::hooks::{Hook, HookContext, ModelCall, ModelCallDecision, ToolCallDecision};
use lucid::history::validate;
use lucid::message::AssistantMessage;
use lucid::model::{ChatModel, ChatRequest, ChatResponse, EventStream, StreamEvent};
use lucid::prelude::*;
use lucid::store::{InMemoryStore, SessionStore};
use lucid_mock::{MockServer, Reply};
use lucid_sqlite::SqliteStore;
use serde_json::json;

const ID: &str = "job";

/// One step of a script: an answer, or a call that never returns.
enum Line {
    Say(AssistantMessage),
    Hang,
}

/// A model that follows a script and counts its calls.
struct Script {
    lines: Mutex<VecDeque<Line>>,
    calls: AtomicUsize,
    sent: Mutex<Vec<Vec<Message>>>,
}

impl Script {
    fn new(lines: Vec<Line>) -> Arc<Self> {
        Arc::new(Script { lines: Mutex::new(lines.into()), calls: AtomicUsize::new(0), sent: Mutex::default() })
    }

    async fn answer(&self, request: ChatRequest<'_>) -> lucid::model::Result<ChatResponse> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        self.sent.lock().unwrap().push(request.messages.to_vec());
        let line = self.lines.lock().unwrap().pop_front().unwrap_or(Line::Say(text("(script over)")));
        match line {
            Line::Say(message) => Ok(ChatResponse { message, ..Default::default() }),
            Line::Hang => std::future::pending().await,
        }
    }
}

impl ChatModel for Script {
    fn provider(&self) -> &str {
        "script"
    }

    fn model_name(&self) -> &str {
        "script"
    }

    fn chat<'a>(&'a self, request: ChatRequest<'a>) -> BoxFuture<'a, lucid::model::Result<ChatResponse>> {
        self.answer(request).boxed()
    }

    fn chat_stream<'a>(&'a self, request: ChatRequest<'a>) -> BoxFuture<'a, lucid::model::Result<EventStream<'a>>> {
        async move {
            let response = self.answer(request).await?;
            let events: EventStream<'a> = stream::iter([Ok(StreamEvent::Done(response))]).boxed();
            Ok(events)
        }
        .boxed()
    }
}

fn text(t: &str) -> AssistantMessage {
    AssistantMessage { content: t.into(), ..Default::default() }
}

fn calls(calls: &[(&str, &str, serde_json::Value)]) -> AssistantMessage {
    AssistantMessage {
        tool_calls: calls.iter().map(|(id, name, args)| ToolCall::new(*id, *name, args.clone())).collect(),
        ..Default::default()
    }
}

/// Echoes its text.
#[lucid::tool]
async fn echo(text: String) -> Result<String, ToolError> {
    Ok(format!("echo: {text}"))
}

fn roles(messages: &[Message]) -> Vec<&'static str> {
    messages
        .iter()
        .map(|m| match m {
            Message::System { .. } => "system",
            Message::User { .. } => "user",
            Message::Assistant(_) => "assistant",
            Message::Tool(_) => "tool",
            _ => "other",
        })
        .collect()
}

fn temp_db(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("lucid-turn-control-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("sessions.db")
}

fn agent_on(model: Arc<Script>, store: Arc<dyn SessionStore>) -> Agent {
    Agent::builder(model).system("Be brief.").tool(echo).store(store).build()
}

#[tokio::test]
async fn a_dropped_run_of_a_stored_session_frees_it_at_once() {
    let db = temp_db("run");
    let model = Script::new(vec![Line::Hang, Line::Say(text("second answer")), Line::Say(text("third answer"))]);
    let store: Arc<dyn SessionStore> = Arc::new(SqliteStore::open(&db).unwrap());
    let agent = agent_on(Arc::clone(&model), Arc::clone(&store));
    let mut session = agent.session_with_id(ID).await.unwrap();
    let dropped = tokio::time::timeout(Duration::from_millis(100), session.run("first")).await;
    assert!(dropped.is_err(), "the first turn hangs and is dropped by the timeout");

    // The same Session: no "busy", and the dropped prompt is gone from its history.
    let r = session.run("second").await.expect("the same session runs again at once");
    assert_eq!(r.content, "second answer");
    assert_eq!(roles(session.messages()), ["system", "user", "assistant"]);
    let sent = model.sent.lock().unwrap().last().cloned().unwrap();
    assert_eq!(roles(&sent), ["system", "user"], "never two user messages in a row: {sent:?}");

    // A new Agent on the same SQLite file (another store value): free too.
    let again: Arc<dyn SessionStore> = Arc::new(SqliteStore::open(&db).unwrap());
    let mut other = agent_on(Arc::clone(&model), again).session_with_id(ID).await.unwrap();
    assert_eq!(other.run("third").await.unwrap().content, "third answer");
    assert!(validate(other.messages()).is_ok());
}

#[tokio::test]
async fn a_dropped_stream_mid_tool_step_frees_the_session_and_undoes_the_turn() {
    let store: Arc<dyn SessionStore> = Arc::new(InMemoryStore::new(10));
    let model = Script::new(vec![
        Line::Say(calls(&[("c1", "echo", json!({"text": "hi"}))])),
        Line::Hang,
        Line::Say(text("after")),
    ]);
    let agent = agent_on(Arc::clone(&model), Arc::clone(&store));
    let mut session = agent.session_with_id(ID).await.unwrap();
    {
        let mut events = session.run_stream("first");
        // Read until the tool has answered and the second model call starts; it hangs.
        let mut finished = false;
        while let Some(event) = events.next().await {
            finished |= matches!(event, AgentEvent::ToolCallFinished { .. });
            if matches!(event, AgentEvent::Iteration(2)) {
                break;
            }
        }
        assert!(finished);
        let more = tokio::time::timeout(Duration::from_millis(50), events.next()).await;
        assert!(more.is_err(), "the second model call hangs");
    }
    assert_eq!(roles(session.messages()), ["system"], "the dropped turn is undone");
    // A new Session on the same id is not refused (InMemoryStore ignored the lease before).
    let mut fresh = agent.session_with_id(ID).await.unwrap();
    assert_eq!(fresh.run("again").await.unwrap().content, "after");
    assert_eq!(roles(fresh.messages()), ["system", "user", "assistant"]);
}

#[tokio::test]
async fn a_dropped_durable_turn_continues_from_what_it_committed() {
    let store: Arc<dyn SessionStore> = Arc::new(InMemoryStore::new(10));
    let model = Script::new(vec![
        Line::Say(calls(&[("c1", "echo", json!({"text": "hi"}))])),
        Line::Hang,
        Line::Say(text("done")),
    ]);
    let agent = Agent::builder(Arc::clone(&model) as Arc<dyn ChatModel>)
        .tool(echo)
        .store(Arc::clone(&store))
        .durable_steps(true)
        .build();
    let mut session = agent.session_with_id(ID).await.unwrap();
    assert!(tokio::time::timeout(Duration::from_millis(100), session.run("go")).await.is_err());
    // The committed steps (user, the call, its result) are where the next turn goes on.
    let r = session.resume().await.unwrap();
    assert_eq!(r.content, "done");
    assert_eq!(roles(session.messages()), ["user", "assistant", "tool", "assistant"]);
    let stored = store.load(ID).await.unwrap().unwrap().messages;
    assert_eq!(roles(&stored), ["user", "assistant", "tool", "assistant"]);
}

#[tokio::test]
async fn the_in_memory_store_honours_the_lease_and_says_the_holder_is_this_process() {
    let store = InMemoryStore::new(10);
    let _held = store.lock(ID, Duration::from_millis(40)).await.unwrap();
    let err = store.lock(ID, Duration::from_secs(60)).await.unwrap_err();
    assert!(matches!(err, lucid::store::StoreError::Busy { in_this_process: true, .. }), "{err:?}");
    assert!(err.to_string().contains("in this process"), "{err}");
    tokio::time::sleep(Duration::from_millis(60)).await;
    assert!(store.lock(ID, Duration::from_secs(60)).await.is_ok(), "a lapsed lease frees the lock");
}

/// The child half of `a_turn_dropped_by_one_process_leaves_the_session_free_for_the_next`.
#[tokio::test]
async fn child_process_turn() {
    let Ok(db) = std::env::var("LUCID_TURN_CONTROL_DB") else { return };
    let model = Script::new(vec![Line::Say(text("from the child"))]);
    let store: Arc<dyn SessionStore> = Arc::new(SqliteStore::open(&db).unwrap());
    let mut session = agent_on(model, store).session_with_id(ID).await.unwrap();
    let r = session.run("child").await.expect("the child's turn is not refused");
    assert_eq!(r.content, "from the child");
}

#[tokio::test]
async fn a_turn_dropped_by_one_process_leaves_the_session_free_for_the_next() {
    let db = temp_db("process");
    let model = Script::new(vec![Line::Hang]);
    let store: Arc<dyn SessionStore> = Arc::new(SqliteStore::open(&db).unwrap());
    let mut session = agent_on(model, store).session_with_id(ID).await.unwrap();
    assert!(tokio::time::timeout(Duration::from_millis(100), session.run("first")).await.is_err());
    // Give the release task its turn, as a running process does.
    tokio::task::yield_now().await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "child_process_turn", "--nocapture", "--test-threads=1"])
        .env("LUCID_TURN_CONTROL_DB", &db)
        .output()
        .unwrap();
    let printed = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{printed}");
    assert!(printed.contains("1 passed"), "{printed}");
}

/// Denies `echo` calls whose text says "secret", rewrites "hello" to "HELLO", defers
/// "later", and stops the turn after `max_calls` model calls.
struct Guard {
    max_calls: usize,
    approved: Mutex<bool>,
    ended: AtomicUsize,
}

impl Hook for Guard {
    fn before_model_call<'a>(
        &'a self,
        cx: &'a HookContext<'a>,
        _call: &'a mut ModelCall<'_>,
    ) -> BoxFuture<'a, ModelCallDecision> {
        Box::pin(async move {
            if cx.iteration > self.max_calls {
                ModelCallDecision::Stop(format!("the budget of {} model calls is spent", self.max_calls))
            } else {
                ModelCallDecision::Continue
            }
        })
    }

    fn before_tool_call<'a>(&'a self, _cx: &'a HookContext<'a>, call: &'a ToolCall) -> BoxFuture<'a, ToolCallDecision> {
        Box::pin(async move {
            let text = call.parse_arguments().unwrap()["text"].as_str().unwrap_or_default().to_string();
            match text.as_str() {
                "secret" => ToolCallDecision::Deny("No secrets.".into()),
                "hello" => ToolCallDecision::Replace(json!({"text": "HELLO"}).to_string()),
                "later" if !*self.approved.lock().unwrap() => ToolCallDecision::Defer,
                _ => ToolCallDecision::Allow,
            }
        })
    }

    fn turn_end<'a>(&'a self, _cx: &'a HookContext<'a>, _result: &'a AgentResult) -> BoxFuture<'a, ()> {
        self.ended.fetch_add(1, Ordering::SeqCst);
        Box::pin(std::future::ready(()))
    }
}

fn guard(max_calls: usize) -> Arc<Guard> {
    Arc::new(Guard { max_calls, approved: Mutex::new(false), ended: AtomicUsize::new(0) })
}

#[tokio::test]
async fn hooks_deny_by_arguments_replace_arguments_and_see_the_turn_end() {
    let model = Script::new(vec![
        Line::Say(calls(&[("c1", "echo", json!({"text": "secret"})), ("c2", "echo", json!({"text": "hello"}))])),
        Line::Say(text("ok")),
    ]);
    let g = guard(10);
    let agent = Agent::builder(Arc::clone(&model) as Arc<dyn ChatModel>).tool(echo).hook(Arc::clone(&g)).build();
    let r = agent.session().run("go").await.unwrap();
    assert_eq!(r.stop_reason, StopReason::Completed);
    assert_eq!(r.tool_calls[0].output.as_deref(), Some("No secrets."));
    assert!(r.tool_calls[0].is_error);
    assert_eq!(r.tool_calls[1].output.as_deref(), Some("echo: HELLO"));
    assert_eq!(g.ended.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_hook_stops_the_turn_before_a_model_call() {
    let model = Script::new(vec![
        Line::Say(calls(&[("c1", "echo", json!({"text": "a"}))])),
        Line::Say(calls(&[("c2", "echo", json!({"text": "b"}))])),
        Line::Say(text("never")),
    ]);
    let agent = Agent::builder(Arc::clone(&model) as Arc<dyn ChatModel>).tool(echo).hook(guard(2)).build();
    let mut session = agent.session();
    let r = session.run("go").await.unwrap();
    assert_eq!(r.stop_reason, StopReason::Stopped);
    assert_eq!(r.stop_message.as_deref(), Some("the budget of 2 model calls is spent"));
    assert_eq!((r.iterations, model.calls.load(Ordering::SeqCst)), (2, 2));
    assert!(validate(session.messages()).is_ok());
}

#[tokio::test]
async fn a_deferred_call_waits_across_processes_and_runs_once_approved() {
    let store: Arc<dyn SessionStore> = Arc::new(InMemoryStore::new(10));
    let model = Script::new(vec![
        Line::Say(calls(&[("c1", "echo", json!({"text": "now"})), ("c2", "echo", json!({"text": "later"}))])),
        Line::Say(text("both done")),
    ]);
    let g = guard(10);
    let agent = Agent::builder(Arc::clone(&model) as Arc<dyn ChatModel>)
        .tool(echo)
        .store(Arc::clone(&store))
        .hook(Arc::clone(&g))
        .build();
    let r = agent.session_with_id(ID).await.unwrap().run("go").await.unwrap();
    assert_eq!(r.stop_reason, StopReason::Deferred);
    assert_eq!(r.deferred.len(), 1);
    assert_eq!((r.deferred[0].id.as_str(), r.deferred[0].name.as_str()), ("c2", "echo"));
    let stored = store.load(ID).await.unwrap().unwrap();
    assert_eq!(roles(&stored.messages), ["user", "assistant", "tool"], "c2 waits unanswered");

    // Still not approved: a resume in a new Session defers again without a model call.
    let mut later = agent.session_with_id(ID).await.unwrap();
    assert_eq!(later.resume().await.unwrap().stop_reason, StopReason::Deferred);
    assert_eq!(model.calls.load(Ordering::SeqCst), 1);

    *g.approved.lock().unwrap() = true;
    let mut approved = agent.session_with_id(ID).await.unwrap();
    let r = approved.resume().await.unwrap();
    assert_eq!(r.stop_reason, StopReason::Completed);
    assert_eq!(r.content, "both done");
    assert_eq!(r.tool_calls[0].output.as_deref(), Some("echo: later"));
    assert_eq!(roles(approved.messages()), ["user", "assistant", "tool", "tool", "assistant"]);
    let meta = store.load(ID).await.unwrap().unwrap().info.metadata;
    assert_eq!(meta[lucid::store::DEFERRED_KEY], json!([]));
}

/// An Anthropic reply whose prompt is almost all cached.
fn anthropic_reply(input: u64, read: u64) -> Reply {
    Reply::json(
        200,
        &json!({"id": "msg", "type": "message", "role": "assistant", "model": "claude-test",
            "content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn",
            "usage": {"input_tokens": input, "output_tokens": 2, "cache_read_input_tokens": read, "cache_creation_input_tokens": 0}}),
    )
}

async fn calibration_after(input: u64, read: u64) -> f64 {
    let server = MockServer::sequence(vec![anthropic_reply(input, read)]).await;
    let base = server.url().trim_end_matches("/v1").to_string();
    let model = lucid::model::Anthropic::new("sk-ant-test", "claude-test").unwrap().with_base_url(&base).unwrap();
    let agent = Agent::builder(Arc::new(model)).system("Be brief.").max_context_tokens(100_000).build();
    let mut session = agent.session();
    session.run("Hello there, how are you today?").await.unwrap();
    session.token_calibration()
}

#[tokio::test]
async fn anthropic_cached_prompt_tokens_count_in_the_calibration() {
    // The same prompt, once uncached and once almost all read from the cache: the
    // provider counted the same number of prompt tokens, so the calibration agrees.
    let uncached = calibration_after(40, 0).await;
    let cached = calibration_after(2, 38).await;
    assert!((uncached - cached).abs() < 1e-9, "uncached {uncached}, cached {cached}");
}
