//! The hook points beyond the model and tool calls: each stream delta, an invalid tool
//! call (told to the hooks, never run, its text editable), the error a turn fails with,
//! and the state a hook keeps with a stored session.

use std::sync::{Arc, Mutex};

use futures::StreamExt;
use futures::future::BoxFuture;
use lucid::AssistantMessage;
use lucid::hooks::{Delta, Hook, HookContext, InvalidToolCall, TurnStart};
use lucid::model::ScriptedModel;
use lucid::prelude::*;
use lucid::store::{InMemoryStore, SessionStore};
use serde_json::json;

/// Says `text` back.
#[tool]
async fn echo(text: String) -> Result<String, ToolError> {
    Ok(text)
}

/// What the hook saw.
#[derive(Default)]
struct Seen {
    deltas: Vec<String>,
    invalid: Vec<(String, InvalidToolCall)>,
    errors: Vec<String>,
}

#[derive(Default)]
struct Recorder(Mutex<Seen>);

impl Hook for Recorder {
    fn on_stream_delta<'a>(&'a self, _cx: &'a HookContext<'a>, delta: Delta<'a>) -> BoxFuture<'a, ()> {
        if let Delta::Text(t) = delta {
            self.0.lock().unwrap().deltas.push(t.to_string());
        }
        Box::pin(async {})
    }

    fn on_invalid_tool_call<'a>(
        &'a self,
        _cx: &'a HookContext<'a>,
        call: &'a ToolCall,
        problem: &'a InvalidToolCall,
        message: &'a mut String,
    ) -> BoxFuture<'a, ()> {
        self.0.lock().unwrap().invalid.push((call.name.clone(), problem.clone()));
        if *problem == InvalidToolCall::UnknownTool {
            message.push_str(" Say it with `echo`.");
        }
        Box::pin(async {})
    }

    fn on_error<'a>(&'a self, _cx: &'a HookContext<'a>, error: &'a lucid::Error) -> BoxFuture<'a, ()> {
        self.0.lock().unwrap().errors.push(error.to_string());
        Box::pin(async {})
    }
}

#[tokio::test]
async fn a_hook_sees_stream_deltas_invalid_calls_and_the_error_a_turn_fails_with() {
    let model = ScriptedModel::new()
        .calls([("shout", json!({"text": "hi"})), ("echo", json!({"text": 5})), ("echo", json!({"text": "ok"}))])
        .text("done")
        .fail(lucid::ProviderError::new("scripted", Some(500), "down"));
    let recorder = Arc::new(Recorder::default());
    let agent = Agent::builder(Arc::new(model.clone())).tool(echo).hook(recorder.clone()).build();
    let mut session = agent.session();
    let mut events = session.run_stream("say hi");
    let mut text = String::new();
    while let Some(event) = events.next().await {
        if let AgentEvent::TextDelta(t) = event {
            text.push_str(&t);
        }
    }
    drop(events);
    {
        let seen = recorder.0.lock().unwrap();
        assert_eq!(seen.deltas.concat(), text, "each delta the stream gave");
        assert_eq!(text, "done");
        let problems: Vec<(&str, &str)> = seen
            .invalid
            .iter()
            .map(|(name, p)| {
                let kind = match p {
                    InvalidToolCall::UnknownTool => "unknown",
                    InvalidToolCall::Schema(_) => "schema",
                    _ => "other",
                };
                (name.as_str(), kind)
            })
            .collect();
        assert_eq!(problems, [("shout", "unknown"), ("echo", "schema")], "{:?}", seen.invalid);
    }
    let results = model.requests()[1].tool_results();
    assert!(results[0].1.starts_with("Unknown tool `shout`") && results[0].1.ends_with("Say it with `echo`."));
    assert!(results[1].1.starts_with("Invalid arguments for `echo`"), "{:?}", results[1]);
    assert_eq!(results[2].1, "ok", "the valid call of the step ran");

    let failed = session.run("again").await.unwrap_err();
    let seen = recorder.0.lock().unwrap();
    assert_eq!(seen.errors, [failed.to_string()], "the hook saw the error the caller got");
}

/// Counts the session's turns in its hook state.
struct TurnCounter;

impl Hook for TurnCounter {
    fn before_turn<'a>(&'a self, _cx: &'a HookContext<'a>, turn: &'a mut TurnStart<'_>) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            let n: u64 = turn.state.get("turns").unwrap_or(0);
            turn.state.set("turns", n + 1).unwrap();
            assert!(turn.state.set("spend", 0).is_err(), "Lucid's own key");
        })
    }
}

#[tokio::test]
async fn a_hooks_state_is_kept_with_a_stored_session_and_cleared_with_it() {
    let store = Arc::new(InMemoryStore::new(10));
    let agent = |store: Arc<InMemoryStore>| {
        let model = ScriptedModel::new().otherwise(AssistantMessage { content: "noted".into(), ..Default::default() });
        Agent::builder(Arc::new(model)).hook(TurnCounter).store(store).build()
    };
    let mut s = agent(store.clone()).session_with_id("counted").await.unwrap();
    s.run("one").await.unwrap();
    s.run("two").await.unwrap();
    let stored = store.load("counted").await.unwrap().unwrap();
    assert_eq!(stored.info.metadata["turns"], 2);
    drop(s);

    let mut again = agent(store.clone()).session_with_id("counted").await.unwrap();
    assert_eq!(again.hook_state().get::<u64>("turns"), Some(2), "loaded with the session");
    again.run("three").await.unwrap();
    assert_eq!(store.load("counted").await.unwrap().unwrap().info.metadata["turns"], 3);
    again.clear();
    again.save().await.unwrap();
    let stored = store.load("counted").await.unwrap().unwrap();
    assert!(stored.info.metadata.get("turns").is_none_or(|v| v.is_null()), "{:?}", stored.info.metadata);
}
