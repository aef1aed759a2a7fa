//! The layered memory against a mock server whose model has a small window and answers the
//! real over-length 400: hundreds of turns never overflow, old turns are summarised by
//! topic and kept with the session, an early fact is recalled, the long-term cap holds,
//! and a summariser that fails leaves the session valid (trimming instead).

mod common;

use common::memory_mock::*;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use lucid::history::validate;
use lucid::memory::{ConversationMemory, DEFAULT_MAX_CONTEXT_TOKENS, MemoryConfig, RECALL_HEADER};
use lucid::prelude::*;
use lucid::store::{InMemoryStore, SUMMARIES_KEY, SessionStore};
use lucid_mock::{MockServer, Reply};
use serde_json::{Value, json};

#[tokio::test]
async fn two_hundred_turns_in_a_4000_token_window_summarise_by_topic_and_recall_turn_1() {
    let server = MockServer::start(server(4_000, false)).await;
    let store = Arc::new(InMemoryStore::new(10));
    let memory = ConversationMemory::default().with_embedder(Arc::new(common::WordsEmbedder));
    let agent = Agent::builder(model(&server))
        .system("You are a helpful assistant.")
        .context_window(4_000, 500)
        .memory(memory)
        .store(store.clone())
        .build();
    let mut session = agent.session_with_id("long").await.unwrap();
    for i in 1..200 {
        let r = session.run(line(i)).await.unwrap_or_else(|e| panic!("turn {i}: {e}"));
        assert!(r.content.starts_with("noted"), "turn {i}: {}", r.content);
    }
    let last = session.run("What is my cat's name?").await.unwrap();
    assert_eq!(last.content, "Your cat is Tom.", "the fact from turn 1 is recalled in turn 200");

    let requests: Vec<Value> = server.requests().iter().map(|r| r.json()).collect();
    assert!(requests.iter().all(|b| tokens(b) <= 4_000), "no request went over the window");
    let summaries: Vec<&Value> = requests.iter().filter(|b| is_summary(b)).collect();
    assert_eq!(requests.len() - summaries.len(), 200, "every turn answered at the first try");
    assert!(summaries.len() >= 30, "old turns were summarised: {} calls", summaries.len());
    for b in &summaries {
        // By topic: a call summarises turns of one topic (turn 1's fact is its own topic).
        let topics: std::collections::BTreeSet<Option<usize>> =
            said(b).iter().map(|l| TOPICS.iter().position(|t| l.contains(t))).collect();
        assert_eq!(topics.len(), 1, "one topic per summary call: {:?}", said(b));
        assert_eq!(b["max_tokens"], 625, "the summary's length comes from summary_target_tokens");
    }
    // The summary calls count in the session's usage.
    let sent: u64 = requests.iter().map(|b| tokens(b) as u64).sum();
    assert_eq!(session.usage().input_tokens, sent);
    // Kept with the session, and within the window's share.
    let stored = store.load("long").await.unwrap().unwrap();
    let kept: Vec<lucid::memory::Summary> =
        serde_json::from_value(stored.info.metadata[SUMMARIES_KEY].clone()).unwrap();
    assert_eq!(kept, session.summaries());
    assert!(kept.iter().any(|s| s.text.contains("my cat's name is Tom") && s.recalled >= 1));
    assert!(stored.messages.len() <= 21, "the store holds the short-term window: {}", stored.messages.len());
    assert!(validate(session.messages()).is_ok());
}

#[tokio::test]
async fn the_seed_numbers_are_the_defaults_and_4000_tokens_bound_an_unknown_model() {
    let c = MemoryConfig::default();
    assert_eq!(
        (c.max_context_tokens, c.compression_threshold, c.short_term_capacity, c.long_term_capacity),
        (None, 0.8, 20, 1000)
    );
    assert_eq!((c.summary_target_tokens, c.recall_top_k), (500, 3));
    assert_eq!(c.budget(None), DEFAULT_MAX_CONTEXT_TOKENS);
    assert_eq!(DEFAULT_MAX_CONTEXT_TOKENS, 4000);

    // A model nobody knows the window of: the memory keeps requests near 0.8 × 4000.
    let server = MockServer::start(server(100_000, false)).await;
    let agent = Agent::builder(model(&server)).memory(ConversationMemory::default()).build();
    assert_eq!(agent.context_budget(), None);
    let mut s = agent.session();
    for i in 0..30 {
        s.run(format!("turn {i:02} {}", "lorem ipsum dolor sit amet ".repeat(30))).await.unwrap();
    }
    let requests: Vec<Value> = server.requests().iter().map(|r| r.json()).collect();
    let biggest = requests.iter().filter(|b| !is_summary(b)).map(tokens).max().unwrap();
    assert!(biggest <= 3_200 + 600, "requests stay near the seed's threshold: {biggest}");
    assert!(requests.iter().any(is_summary));
}

#[tokio::test]
async fn summaries_are_capped_at_long_term_capacity_keeping_the_recalled() {
    let server = MockServer::start(server(100_000, true)).await;
    let config = MemoryConfig { short_term_capacity: 4, long_term_capacity: 3, recall_top_k: 1, ..Default::default() };
    let agent = Agent::builder(model(&server))
        .memory(ConversationMemory::default().with_embedder(Arc::new(common::WordsEmbedder)).with_config(config))
        .build();
    let mut s = agent.session();
    s.run(FACT).await.unwrap();
    for i in 2..30 {
        s.run(line(i)).await.unwrap();
        // Asking about the cat keeps recalling the fact's summary once it exists.
        s.run(format!("What is my cat's name? ({i})")).await.unwrap();
    }
    assert_eq!(s.summaries().len(), 3, "at most long_term_capacity summaries");
    assert!(
        s.summaries().iter().any(|x| x.text.contains("my cat's name is Tom")),
        "the most recalled summary survives the cap: {:?}",
        s.summaries()
    );
}

#[tokio::test]
async fn a_resumed_session_keeps_its_summaries_and_recalls_them_newest_first() {
    let server = MockServer::start(server(100_000, true)).await;
    let path = std::env::temp_dir().join(format!("lucid-layered-{}.db", std::process::id()));
    let store: Arc<dyn SessionStore> = Arc::new(lucid_sqlite::SqliteStore::open(&path).unwrap());
    let config = MemoryConfig { short_term_capacity: 6, ..Default::default() };
    let build = || {
        Agent::builder(model(&server))
            .memory(ConversationMemory::default().with_config(config.clone()))
            .store(store.clone())
            .build()
    };
    let mut s = build().session_with_id("resume").await.unwrap();
    for i in 1..12 {
        s.run(line(i)).await.unwrap();
    }
    let made = s.summaries().to_vec();
    assert!(made.len() >= 2, "the summariser's topic breaks make separate summaries: {made:?}");
    drop(s);

    let mut again = build().session_with_id("resume").await.unwrap();
    assert_eq!(again.summaries(), made, "the summaries come back with the session");
    again.run("and what did we cover?").await.unwrap();
    let ids = |s: &[lucid::memory::Summary]| s.iter().map(|x| x.id.clone()).collect::<Vec<_>>();
    assert!(ids(&again.summaries()).starts_with(&ids(&made)), "older summaries stay, newer ones follow");
    let sent = server.requests().last().unwrap().json();
    let recall = sent["messages"][0]["content"].as_str().unwrap();
    assert!(recall.starts_with(RECALL_HEADER), "{recall}");
    // Without an embedder the newest summaries are pinned, newest first.
    let kept = again.summaries();
    let newest = kept.last().unwrap();
    assert!(recall.lines().nth(1).unwrap().contains(&newest.text), "{recall}");
    assert_eq!(again.recalled().len(), again.summaries().len().min(3));
    std::fs::remove_file(&path).ok();
}

#[tokio::test]
async fn a_failing_or_slow_summariser_falls_back_to_trimming_and_the_session_stays_valid() {
    let failures = Arc::new(Mutex::new(Some("500")));
    let mode = failures.clone();
    let inner = server(100_000, false);
    let server = MockServer::start(move |req| {
        if is_summary(&req.json()) {
            match *mode.lock().unwrap() {
                Some("500") => return Reply::json(500, &json!({"error": {"message": "summariser down"}})),
                // Held past the client's timeout (a gate nobody else comes to).
                Some(_) => return inner(req).behind(&Arc::new(tokio::sync::Barrier::new(2)), Duration::from_secs(1)),
                None => {}
            }
        }
        inner(req)
    })
    .await;
    let config = MemoryConfig { short_term_capacity: 6, ..Default::default() };
    let store = Arc::new(InMemoryStore::new(10));
    let agent = Agent::builder(no_retry_model(&server, Duration::from_millis(300)))
        .memory(ConversationMemory::default().with_config(config))
        .store(store.clone())
        .build();
    let mut s = agent.session_with_id("fragile").await.unwrap();
    for (round, failure) in [Some("500"), Some("timeout"), None].into_iter().enumerate() {
        *failures.lock().unwrap() = failure;
        for i in 0..6 {
            let r = s.run(format!("round {round} turn {i}")).await.unwrap();
            assert!(r.content.starts_with("noted"), "{failure:?}: {}", r.content);
            assert!(validate(s.messages()).is_ok());
            assert!(s.context().len() <= 6 + 1, "{failure:?}: the window was trimmed: {}", s.context().len());
        }
        if failure.is_some() {
            assert!(s.summaries().is_empty(), "{failure:?}: no summary was made");
        }
    }
    assert!(!s.summaries().is_empty(), "once the summariser answers again, summaries are made");
    // The store holds a valid window, as the session does.
    let stored = store.load("fragile").await.unwrap().unwrap();
    assert!(validate(&stored.messages).is_ok());
    assert_eq!(stored.messages, s.context().history());
}

#[tokio::test]
async fn compact_summarises_all_but_the_newest_turn_with_the_focus_and_counts_the_cost() {
    let server = MockServer::start(server(100_000, false)).await;
    let agent = Agent::builder(model(&server)).memory(ConversationMemory::default()).build();
    let mut s = agent.session();
    for i in 1..5 {
        s.run(line(i)).await.unwrap();
    }
    let before = s.usage().input_tokens;
    let done = s.compact(Some("the cat")).await.unwrap();
    assert_eq!((done.messages, done.summaries), (6, 1));
    assert_eq!(s.context().len(), 2, "the newest turn stays");
    assert!(s.usage().input_tokens > before && done.usage.input_tokens > 0);
    let sent = server.requests().last().unwrap().json();
    assert!(sent["messages"][0]["content"].as_str().unwrap().contains("Give the most room to: the cat."));
    // Without memory, compact is a clear error.
    let plain = Agent::builder(model(&server)).build();
    assert!(matches!(plain.session().compact(None).await, Err(lucid::Error::Config(_))));
}
