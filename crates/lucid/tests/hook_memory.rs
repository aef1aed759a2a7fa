//! A memory written outside the library, as a hook (`examples/hook_memory/notes.rs`,
//! public API only), passes the same memory tests as the built-in `ConversationMemory`:
//! a long conversation in a small window never overflows and recalls its first fact,
//! what the memory keeps goes and comes back with the session, and a failing summariser
//! leaves a valid, trimmed session. Each test runs on both.

mod common;

#[path = "../examples/hook_memory/notes.rs"]
mod notes;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::memory_mock::*;
use lucid::AgentBuilder;
use lucid::history::validate;
use lucid::memory::{ConversationMemory, MemoryConfig, RECALL_HEADER};
use lucid::prelude::*;
use lucid::store::{InMemoryStore, SUMMARIES_KEY, SessionStore};
use lucid_mock::{MockServer, Reply};
use notes::{NOTES_KEY, NotesMemory};
use serde_json::{Value, json};

/// The memory under test.
#[derive(Debug, Clone, Copy)]
enum Memory {
    BuiltIn,
    Outside,
}

const BOTH: [Memory; 2] = [Memory::BuiltIn, Memory::Outside];

impl Memory {
    /// The agent with this memory, old turns leaving past `max_messages` messages.
    fn attach(self, agent: AgentBuilder, max_messages: usize) -> AgentBuilder {
        match self {
            Memory::BuiltIn => agent.memory(
                ConversationMemory::default()
                    .with_embedder(Arc::new(common::WordsEmbedder))
                    .with_config(MemoryConfig { short_term_capacity: max_messages, ..Default::default() }),
            ),
            Memory::Outside => agent.hook(NotesMemory { max_messages, ..NotesMemory::default() }),
        }
    }

    /// The texts the memory keeps with the session.
    fn kept(self, session: &Session) -> Vec<String> {
        match self {
            Memory::BuiltIn => session.summaries().into_iter().map(|s| s.text).collect(),
            Memory::Outside => notes::notes(session.hook_state()),
        }
    }

    /// The texts the store holds in the session's metadata.
    fn stored(self, metadata: &Value) -> Vec<String> {
        match self {
            Memory::BuiltIn => metadata[SUMMARIES_KEY]
                .as_array()
                .map(|a| a.iter().map(|s| s["text"].as_str().unwrap().to_string()).collect())
                .unwrap_or_default(),
            Memory::Outside => serde_json::from_value(metadata[NOTES_KEY].clone()).unwrap_or_default(),
        }
    }
}

#[tokio::test]
async fn two_hundred_turns_in_a_4000_token_window_never_overflow_and_recall_turn_1() {
    for memory in BOTH {
        let server = MockServer::start(server(4_000, false)).await;
        let store = Arc::new(InMemoryStore::new(10));
        let agent = memory
            .attach(Agent::builder(model(&server)).system("You are a helpful assistant."), 20)
            .context_window(4_000, 500)
            .store(store.clone())
            .build();
        let mut session = agent.session_with_id("long").await.unwrap();
        for i in 1..200 {
            let r = session.run(line(i)).await.unwrap_or_else(|e| panic!("{memory:?} turn {i}: {e}"));
            assert!(r.content.starts_with("noted"), "{memory:?} turn {i}: {}", r.content);
        }
        let last = session.run("What is my cat's name?").await.unwrap();
        assert_eq!(last.content, "Your cat is Tom.", "{memory:?}: the fact from turn 1 is recalled in turn 200");

        let requests: Vec<Value> = server.requests().iter().map(|r| r.json()).collect();
        assert!(requests.iter().all(|b| tokens(b) <= 4_000), "{memory:?}: no request went over the window");
        let summaries = requests.iter().filter(|b| is_summary(b)).count();
        assert_eq!(requests.len() - summaries, 200, "{memory:?}: every turn answered at the first try");
        assert!(summaries >= 10, "{memory:?}: old turns were summarised: {summaries} calls");
        let sent: u64 = requests.iter().map(|b| tokens(b) as u64).sum();
        assert_eq!(session.usage().input_tokens, sent, "{memory:?}: the summary calls count in the usage");
        let stored = store.load("long").await.unwrap().unwrap();
        assert_eq!(memory.stored(&stored.info.metadata), memory.kept(&session), "{memory:?}: kept with the session");
        assert!(memory.kept(&session).iter().any(|s| s.contains("my cat's name is Tom")), "{memory:?}");
        assert!(stored.messages.len() <= 21, "{memory:?}: the store holds the window: {}", stored.messages.len());
        assert!(validate(session.messages()).is_ok());
    }
}

#[tokio::test]
async fn what_the_memory_keeps_comes_back_with_the_session() {
    for memory in BOTH {
        let server = MockServer::start(server(100_000, true)).await;
        let store: Arc<dyn SessionStore> = Arc::new(InMemoryStore::new(10));
        let build = || memory.attach(Agent::builder(model(&server)), 6).store(store.clone()).build();
        let mut s = build().session_with_id("resume").await.unwrap();
        for i in 1..12 {
            s.run(line(i)).await.unwrap();
        }
        let made = memory.kept(&s);
        assert!(!made.is_empty(), "{memory:?}: old turns were summarised");
        drop(s);

        let mut again = build().session_with_id("resume").await.unwrap();
        assert_eq!(memory.kept(&again), made, "{memory:?}: what it keeps comes back with the session");
        again.run("my cat's name: what did we cover?").await.unwrap();
        assert!(memory.kept(&again).starts_with(&made), "{memory:?}: older entries stay, newer ones follow");
        let sent = server.requests().last().unwrap().json();
        let recall = sent["messages"][0]["content"].as_str().unwrap();
        assert!(recall.starts_with(RECALL_HEADER), "{memory:?}: {recall}");
    }
}

#[tokio::test]
async fn a_failing_or_slow_summariser_trims_instead_and_the_session_stays_valid() {
    for memory in BOTH {
        let failures = Arc::new(Mutex::new(Some("500")));
        let mode = failures.clone();
        let inner = server(100_000, false);
        let server = MockServer::start(move |req| {
            if is_summary(&req.json()) {
                match *mode.lock().unwrap() {
                    Some("500") => return Reply::json(500, &json!({"error": {"message": "summariser down"}})),
                    Some(_) => {
                        return inner(req).behind(&Arc::new(tokio::sync::Barrier::new(2)), Duration::from_secs(1));
                    }
                    None => {}
                }
            }
            inner(req)
        })
        .await;
        let store = Arc::new(InMemoryStore::new(10));
        let agent = memory
            .attach(Agent::builder(no_retry_model(&server, Duration::from_millis(300))), 6)
            .store(store.clone())
            .build();
        let mut s = agent.session_with_id("fragile").await.unwrap();
        for (round, failure) in [Some("500"), Some("timeout"), None].into_iter().enumerate() {
            *failures.lock().unwrap() = failure;
            for i in 0..6 {
                let r = s.run(format!("round {round} turn {i}")).await.unwrap();
                assert!(r.content.starts_with("noted"), "{memory:?} {failure:?}: {}", r.content);
                assert!(validate(s.messages()).is_ok());
                assert!(s.context().len() <= 6 + 1, "{memory:?} {failure:?}: trimmed: {}", s.context().len());
            }
            if failure.is_some() {
                assert!(memory.kept(&s).is_empty(), "{memory:?} {failure:?}: no summary was made");
            }
        }
        assert!(!memory.kept(&s).is_empty(), "{memory:?}: once the summariser answers again, it keeps summaries");
        let stored = store.load("fragile").await.unwrap().unwrap();
        assert!(validate(&stored.messages).is_ok());
        assert_eq!(stored.messages, s.context().history(), "{memory:?}: the store holds the session's window");
    }
}
