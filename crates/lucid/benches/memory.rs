//! Session store and vector index speed.
//!
//! `cargo bench -p lucid-agent --bench memory`: appending and loading a 200-message session in
//! SQLite, and top-10 search over 100,000 384-dimension vectors in the embedded index.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use lucid::memory::{MemoryFilter, MemoryRecord, VectorIndex, normalize};
use lucid::message::AssistantMessage;
use lucid::store::SessionStore;
use lucid::{Message, ToolCall};
use lucid_sqlite::SqliteStore;
use lucid_sqlite::SqliteVectorIndex;
use serde_json::json;

fn turn(i: usize) -> Vec<Message> {
    vec![
        Message::user(format!("What is {i} + 1? Please explain the steps.")),
        Message::Assistant(AssistantMessage {
            tool_calls: vec![ToolCall::new(format!("c{i}"), "add", json!({"a": i, "b": 1}))],
            ..Default::default()
        }),
        Message::tool_result(format!("c{i}"), "add", (i + 1).to_string(), false),
        Message::assistant(format!("{i} + 1 = {}: adding one moves to the next integer.", i + 1)),
    ]
}

fn sqlite_sessions(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    let dir = std::env::temp_dir().join(format!("lucid-bench-store-{}", std::process::id()));
    let store = SqliteStore::open(dir.join("bench.db")).unwrap();
    let turns: Vec<Vec<Message>> = (0..50).map(turn).collect();
    let mut n = 0u64;
    c.bench_function("sqlite: append 200 messages as 50 turns", |b| {
        b.to_async(&rt).iter(|| {
            n += 1;
            let (store, turns, id) = (store.clone(), &turns, format!("s{n}"));
            async move {
                store.create(&id, json!({})).await.unwrap();
                for t in turns {
                    store.append(&id, t).await.unwrap();
                }
            }
        })
    });
    rt.block_on(async {
        store.create("loaded", json!({})).await.unwrap();
        for t in &turns {
            store.append("loaded", t).await.unwrap();
        }
    });
    c.bench_function("sqlite: load a 200-message session", |b| {
        b.to_async(&rt).iter(|| async { black_box(store.load("loaded").await.unwrap().unwrap().messages.len()) })
    });
    std::fs::remove_dir_all(dir).ok();
}

fn vector_search(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    let dir = std::env::temp_dir().join(format!("lucid-bench-vec-{}", std::process::id()));
    let index = SqliteVectorIndex::open(dir.join("vec.db")).unwrap();
    let mut rng = fastrand_like(42);
    let mut vector = || {
        let mut v: Vec<f32> = (0..384).map(|_| rng() - 0.5).collect();
        normalize(&mut v);
        v
    };
    rt.block_on(async {
        for chunk in 0..100 {
            let batch: Vec<(MemoryRecord, Vec<f32>)> = (0..1000)
                .map(|i| {
                    let id = format!("m{}", chunk * 1000 + i);
                    let r = MemoryRecord {
                        id: id.clone(),
                        text: id,
                        kind: "summary".into(),
                        session_id: Some(format!("s{}", i % 100)),
                        user_id: None,
                        created_at: 0,
                        metadata: json!({}),
                    };
                    (r, vector())
                })
                .collect();
            index.add(&batch).await.unwrap();
        }
    });
    let query = vector();
    let all = MemoryFilter::default();
    rt.block_on(async { index.search(&query, 10, &all).await.unwrap() });
    c.bench_function("vector index: top-10 of 100k x 384", |b| {
        b.to_async(&rt).iter(|| async { black_box(index.search(&query, 10, &all).await.unwrap().len()) })
    });
    let one_session = MemoryFilter { session_id: Some("s7".into()), ..Default::default() };
    c.bench_function("vector index: top-10 of 100k x 384, one session's 1k", |b| {
        b.to_async(&rt).iter(|| async { black_box(index.search(&query, 10, &one_session).await.unwrap().len()) })
    });
    std::fs::remove_dir_all(dir).ok();
}

/// A small deterministic generator (xorshift) so the data is the same every run.
fn fastrand_like(seed: u64) -> impl FnMut() -> f32 {
    let mut s = seed;
    move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 40) as f32 / (1u64 << 24) as f32
    }
}

criterion_group!(benches, sqlite_sessions, vector_search);
criterion_main!(benches);
