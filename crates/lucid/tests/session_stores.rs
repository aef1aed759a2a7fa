//! One suite for every session store, and the agent's use of them.

mod common;

use std::sync::Arc;
use std::time::Duration;

use lucid::model::OpenAiCompatible;
use lucid::prelude::*;
use lucid::store::test_kit::{suite, turn};
use lucid::store::{InMemoryStore, SessionStore, SqliteStore};
use lucid_mock::{MockServer, Reply, text_completion, tool_call_completion};
use serde_json::json;

fn temp_db(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("lucid-test-{}-{name}-{}", std::process::id(), fastrand_u32()));
    dir.join("lucid.db")
}

fn fastrand_u32() -> u32 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().subsec_nanos()
}

#[tokio::test]
async fn in_memory_store_passes_the_suite() {
    suite(Arc::new(InMemoryStore::new(100))).await;
}

#[tokio::test]
async fn sqlite_store_passes_the_suite() {
    let path = temp_db("suite");
    suite(Arc::new(SqliteStore::open(&path).unwrap())).await;
    std::fs::remove_dir_all(path.parent().unwrap()).ok();
}

#[tokio::test]
async fn in_memory_store_in_front_of_sqlite_passes_the_suite() {
    let path = temp_db("cached");
    let backing = Arc::new(SqliteStore::open(&path).unwrap());
    suite(Arc::new(InMemoryStore::new(1).with_backing(backing))).await;
    std::fs::remove_dir_all(path.parent().unwrap()).ok();
}

#[tokio::test]
async fn sqlite_survives_reopening_and_locks_across_handles() {
    let path = temp_db("reopen");
    {
        let a = SqliteStore::open(&path).unwrap();
        a.create("x", json!({})).await.unwrap();
        a.append("x", &turn(3)).await.unwrap();
    }
    let a = SqliteStore::open(&path).unwrap();
    let b = SqliteStore::open(&path).unwrap();
    assert_eq!(b.load("x").await.unwrap().unwrap().messages, turn(3));
    let lock = a.lock("x", Duration::from_secs(60)).await.unwrap();
    assert!(matches!(b.lock("x", Duration::from_secs(60)).await, Err(lucid::Error::SessionBusy { .. })));
    a.unlock(&lock).await.unwrap();
    let expired = b.lock("x", Duration::ZERO).await.unwrap();
    let taken = a.lock("x", Duration::from_secs(60)).await.expect("an expired lease is taken over");
    assert_ne!(expired.owner, taken.owner);
    std::fs::remove_dir_all(path.parent().unwrap()).ok();
}

#[tokio::test]
async fn lru_never_evicts_a_session_running_a_turn() {
    let store = InMemoryStore::new(1);
    store.create("busy", json!({})).await.unwrap();
    let lock = store.lock("busy", Duration::from_secs(60)).await.unwrap();
    store.create("other", json!({})).await.unwrap();
    assert!(store.load("busy").await.unwrap().is_some(), "the locked session stays");
    store.unlock(&lock).await.unwrap();
    store.create("third", json!({})).await.unwrap();
    assert_eq!(store.cached(), 1);
}

fn model(server: &MockServer) -> Arc<OpenAiCompatible> {
    Arc::new(OpenAiCompatible::new(&server.url(), None, "m").unwrap())
}

/// Adds two integers.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

#[tokio::test]
async fn a_stored_session_resumes_in_a_new_agent() {
    let path = temp_db("resume");
    let server = MockServer::start(|req| {
        if req.json()["messages"].as_array().unwrap().last().unwrap()["role"] == "tool" {
            Reply::json(200, &text_completion("5"))
        } else {
            Reply::json(200, &tool_call_completion(&[("c1", "add", r#"{"a":2,"b":3}"#)]))
        }
    })
    .await;
    {
        let store = Arc::new(SqliteStore::open(&path).unwrap());
        let agent = Agent::builder(model(&server)).system("sys").tool(add).store(store).build();
        let mut s = agent.session_with_id("work").await.unwrap();
        s.run("2+3?").await.unwrap();
    }
    let store = Arc::new(SqliteStore::open(&path).unwrap());
    let agent = Agent::builder(model(&server)).system("sys").tool(add).store(store.clone()).build();
    let mut s = agent.session_with_id("work").await.unwrap();
    assert_eq!(s.messages().len(), 5, "system + the stored turn");
    s.run("and again?").await.unwrap();
    let last = server.requests().pop().unwrap().json();
    assert_eq!(last["messages"][1]["content"], "2+3?", "the resumed history is sent");
    assert_eq!(store.load("work").await.unwrap().unwrap().info.message_count, 8);
    s.clear();
    s.save().await.unwrap();
    assert_eq!(store.load("work").await.unwrap().unwrap().messages, Vec::<Message>::new());
    std::fs::remove_dir_all(path.parent().unwrap()).ok();
}

#[tokio::test]
async fn a_second_concurrent_turn_on_one_session_gets_a_clear_error() {
    let server = MockServer::start(|req| {
        if req.json()["stream"] == true {
            Reply::sse(&lucid_mock::text_stream(&["slow", " answer"])).with_delay(Duration::from_millis(100))
        } else {
            Reply::json(200, &text_completion("quick"))
        }
    })
    .await;
    let store: Arc<dyn SessionStore> = Arc::new(InMemoryStore::new(10));
    let agent = Agent::builder(model(&server)).store(store).build();
    let mut a = agent.session_with_id("shared").await.unwrap();
    let mut b = agent.session_with_id("shared").await.unwrap();
    let first = tokio::spawn(async move { a.run_stream("one").collect::<Vec<_>>().await });
    tokio::time::sleep(Duration::from_millis(50)).await;
    let err = b.run("two").await.unwrap_err();
    assert!(matches!(err, lucid::Error::SessionBusy { .. }), "{err:?}");
    assert!(err.to_string().starts_with("session `shared` is busy"), "{err}");
    let events = first.await.unwrap();
    assert!(matches!(events.last(), Some(AgentEvent::Completed(_))));
    let third = b.run("three").await;
    assert!(third.is_ok(), "free again once the first turn ended: {third:?}");
}

use futures::StreamExt;

/// A fresh database on the test server, dropped when the test ends.
#[cfg(feature = "postgres")]
struct TempDatabase {
    admin_url: String,
    name: String,
    url: String,
}

#[cfg(feature = "postgres")]
impl TempDatabase {
    async fn create() -> Option<TempDatabase> {
        let url = common::postgres_url()?;
        let (base, _db) = url.rsplit_once('/').expect("a database in the URL");
        let name = format!("lucid_t_{}_{}", std::process::id(), fastrand_u32());
        let admin_url = format!("{base}/postgres");
        let (client, conn) = tokio_postgres::connect(&admin_url, tokio_postgres::NoTls).await.unwrap();
        tokio::spawn(conn);
        client.batch_execute(&format!("CREATE DATABASE {name}")).await.unwrap();
        Some(TempDatabase { admin_url, url: format!("{base}/{name}"), name })
    }

    async fn drop_now(self) {
        let (client, conn) = tokio_postgres::connect(&self.admin_url, tokio_postgres::NoTls).await.unwrap();
        tokio::spawn(conn);
        client.batch_execute(&format!("DROP DATABASE {} WITH (FORCE)", self.name)).await.unwrap();
    }
}

#[cfg(feature = "postgres")]
#[tokio::test]
async fn postgres_store_passes_the_suite_and_locks_across_pools() {
    use lucid::store::PostgresStore;
    let Some(db) = TempDatabase::create().await else { return };
    let store = Arc::new(PostgresStore::connect(&db.url).await.unwrap());
    suite(store.clone()).await;
    // A second pool (another process, as far as the database knows) sees the same sessions and locks.
    let other = PostgresStore::connect(&db.url).await.expect("connecting again migrates nothing and succeeds");
    assert_eq!(other.load("s1").await.unwrap().unwrap().messages.len(), 8);
    let lock = store.lock("s1", Duration::from_secs(60)).await.unwrap();
    assert!(matches!(other.lock("s1", Duration::from_secs(60)).await, Err(lucid::Error::SessionBusy { .. })));
    store.unlock(&lock).await.unwrap();
    other.lock("s1", Duration::from_secs(60)).await.unwrap();
    drop((store, other));
    db.drop_now().await;
}
