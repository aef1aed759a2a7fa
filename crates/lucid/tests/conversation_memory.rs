//! Long-term memory over a long conversation: every request stays under the budget,
//! summaries replace old turns, and a fact from turn 1 is recalled at turn 40 — with the
//! real local embedding model, and with a word-count embedder that needs no model.

mod common;

use std::sync::{Arc, Mutex};

use lucid::memory::{ConversationMemory, Embedder, MemoryConfig, RECALL_HEADER};

use lucid::model::OpenAiCompatible;
use lucid::prelude::*;
use lucid_mock::{MockServer, Reply};
use lucid_sqlite::SqliteVectorIndex;
use serde_json::{Value, json};

const TOPICS: &[&str] = &[
    "the history of the Roman republic",
    "baking sourdough bread at home",
    "orbital mechanics of geostationary satellites",
    "jazz harmony and chord substitutions",
    "lifetimes and borrowing in Rust",
    "birdwatching in wetlands during spring",
    "the rules of competitive chess",
    "growing tomatoes on a balcony",
];

fn estimate(body: &Value) -> usize {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| lucid::tokens::PER_MESSAGE + lucid::tokens::estimate_text(m["content"].as_str().unwrap_or("")))
        .sum()
}

fn completion(text: &str, prompt_tokens: usize) -> Value {
    json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
           "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": 5}})
}

#[cfg(feature = "local-embeddings")]
#[tokio::test]
async fn a_fact_from_turn_1_is_recalled_at_turn_40_within_budget() {
    let Some(dir) = common::embedding_model_dir() else { return };
    forty_turns("local", Arc::new(lucid::memory::LocalEmbedder::load(&dir).unwrap())).await;
}

#[tokio::test]
async fn the_memory_loop_recalls_turn_1_at_turn_40_with_a_word_count_embedder() {
    forty_turns("words", Arc::new(common::WordsEmbedder)).await;
}

async fn forty_turns(name: &str, embedder: Arc<dyn Embedder>) {
    let summaries = Arc::new(Mutex::new(0usize));
    let counter = summaries.clone();
    let server = MockServer::start(move |req| {
        let body = req.json();
        let first = body["messages"][0]["content"].as_str().unwrap_or("");
        if first.contains("compress conversations") {
            // A faithful "summarizer": keeps what the user said.
            *counter.lock().unwrap() += 1;
            let transcript = body["messages"][1]["content"].as_str().unwrap_or("");
            let said: Vec<&str> = transcript.lines().filter_map(|l| l.strip_prefix("user: ")).collect();
            return Reply::json(200, &completion(&format!("The user said: {}", said.join(" / ")), estimate(&body)));
        }
        Reply::json(200, &completion("OK, noted.", estimate(&body)))
    })
    .await;
    let tmp = std::env::temp_dir().join(format!("lucid-memory-{name}-{}", std::process::id()));
    let memory = ConversationMemory::new(embedder, Arc::new(SqliteVectorIndex::open(tmp.join("memory.db")).unwrap()))
        .with_config(MemoryConfig {
            short_term_capacity: 12,
            max_context_tokens: Some(400),
            recall_top_k: 2,
            ..Default::default()
        });
    let model = Arc::new(OpenAiCompatible::new(&server.url(), None, "m").unwrap());
    let agent = Agent::builder(model).system("You are a helpful assistant.").memory(memory).build();
    let mut session = agent.session();
    session.run("Remember this: my cat's name is Tom and he is a grey tabby.").await.unwrap();
    for i in 2..40 {
        let topic = TOPICS[i % TOPICS.len()];
        session.run(format!("Let's talk about subject number {i}: {topic}. Give me a short overview.")).await.unwrap();
    }
    session.run("What is my cat's name?").await.unwrap();

    let requests: Vec<Value> = server.requests().iter().map(|r| r.json()).collect();
    let turns: Vec<&Value> = requests
        .iter()
        .filter(|b| !b["messages"][0]["content"].as_str().unwrap().contains("compress conversations"))
        .collect();
    assert_eq!(turns.len(), 40);
    for (i, b) in turns.iter().enumerate() {
        assert!(estimate(b) <= 400, "turn {} sent {} estimated tokens", i + 1, estimate(b));
    }
    assert!(*summaries.lock().unwrap() >= 3, "old turns were summarised");
    // The summary calls count in the session's usage, and are bounded in length.
    let sent_input: u64 = requests.iter().map(|b| estimate(b) as u64).sum();
    assert_eq!(session.usage().input_tokens, sent_input, "every call, the summaries' included, is counted");
    for b in
        requests.iter().filter(|b| b["messages"][0]["content"].as_str().unwrap().contains("compress conversations"))
    {
        assert!(b["max_tokens"].as_u64().is_some_and(|n| n <= 700), "summary length is bounded: {}", b["max_tokens"]);
    }
    let last = turns.last().unwrap();
    let messages = last["messages"].as_array().unwrap();
    assert!(
        !messages.iter().any(|m| m["role"] == "user"
            && !m["content"].as_str().unwrap().starts_with(RECALL_HEADER)
            && m["content"].as_str().unwrap().contains("grey tabby")),
        "turn 1 itself has left the window"
    );
    let recall = messages[1]["content"].as_str().unwrap();
    assert!(recall.starts_with(RECALL_HEADER), "{recall}");
    assert_eq!((&messages[1]["role"], &messages[2]["role"]), (&"user".into(), &"assistant".into()), "recalled as data");
    assert!(recall.contains("my cat's name is Tom"), "the fact from turn 1 is recalled: {recall}");
    assert!(messages.len() <= 3 + 12, "the window holds at most 12 messages besides the pinned ones");
    std::fs::remove_dir_all(tmp).ok();
}
