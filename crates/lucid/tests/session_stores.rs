//! One suite for every session store, and the agent's use of them.

mod common;

use std::sync::Arc;
use std::time::Duration;

use lucid::model::OpenAiCompatible;
use lucid::prelude::*;
use lucid::store::test_kit::{attachments, suite, turn};
use lucid::store::{InMemoryStore, SessionStore};
use lucid_mock::{MockServer, Reply, text_completion, tool_call_completion};
use lucid_sqlite::SqliteStore;
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
async fn in_memory_store_keeps_attachments() {
    attachments(Arc::new(InMemoryStore::new(100))).await;
}

/// SQLite keeps an attachment once by its hash however many sessions and messages hold
/// it, deletes it with the last session referring to it, and refuses one over the cap.
#[tokio::test]
async fn sqlite_stores_attachments_once_by_hash_with_a_cap() {
    let path = temp_db("blobs");
    let store = Arc::new(SqliteStore::open(&path).unwrap());
    attachments(store.clone()).await;
    let count = || -> i64 {
        let db = rusqlite::Connection::open(&path).unwrap();
        db.query_row("SELECT COUNT(*) FROM blobs", [], |r| r.get(0)).unwrap()
    };
    assert_eq!(count(), 1, "a2 now holds only the user's image; the PDF went with the replace");
    let body: String = rusqlite::Connection::open(&path)
        .unwrap()
        .query_row("SELECT body FROM messages WHERE session_id = 'a2' AND seq = 0", [], |r| r.get(0))
        .unwrap();
    assert!(body.contains("\"sha256\"") && !body.contains("\"data\""), "the body refers to the blob: {body}");
    store.delete("a2").await.unwrap();
    assert_eq!(count(), 0);

    store.create("big", serde_json::json!({})).await.unwrap();
    let huge = lucid::Part::image_bytes("image/png", vec![0u8; lucid::store::encoding::MAX_ATTACHMENT_BYTES + 1]);
    let err = store.append("big", &[Message::user_parts(vec![lucid::Part::text("look"), huge])]).await.unwrap_err();
    assert!(err.to_string().contains("over the session store's cap"), "{err}");
    assert!(store.load("big").await.unwrap().unwrap().messages.is_empty(), "nothing half-written");
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
    assert!(matches!(b.lock("x", Duration::from_secs(60)).await, Err(lucid::store::StoreError::Busy { .. })));
    a.unlock(&lock).await.unwrap();
    let expired = b.lock("x", Duration::ZERO).await.unwrap();
    let taken = a.lock("x", Duration::from_secs(60)).await.expect("an expired lease is taken over");
    assert_ne!(expired.owner, taken.owner);
    std::fs::remove_dir_all(path.parent().unwrap()).ok();
}

/// A stored `message_count` of `bad` (negative, huge, or lower than the rows), written
/// behind the store's back: loading neither panics nor allocates from it, appending does
/// not collide with an existing row, and the count is right again afterwards.
async fn survives_a_corrupted_count(store: &dyn SessionStore, corrupt: impl AsyncFn(i64)) {
    for bad in [-7i64, i64::MAX / 2, 1] {
        let id = "counted";
        store.delete(id).await.unwrap();
        store.create(id, json!({})).await.unwrap();
        store.append(id, &turn(0)).await.unwrap();
        corrupt(bad).await;
        let s = store.load(id).await.unwrap().unwrap();
        assert_eq!((s.messages.clone(), s.info.message_count), (turn(0), 4), "{}: count {bad}", store.kind());
        store.append(id, &turn(1)).await.expect("the next turn is saved whatever the stored count says");
        let s = store.load(id).await.unwrap().unwrap();
        let want: Vec<Message> = turn(0).into_iter().chain(turn(1)).collect();
        assert_eq!(s.messages, want, "{}: count {bad}", store.kind());
        let listed = store.list(10, 0).await.unwrap().into_iter().find(|i| i.id == id).unwrap();
        assert_eq!(listed.message_count, 8, "{}: the count is rebuilt from the rows", store.kind());
    }
}

#[tokio::test]
async fn sqlite_survives_a_corrupted_message_count() {
    let path = temp_db("count");
    let store = SqliteStore::open(&path).unwrap();
    let db = path.clone();
    survives_a_corrupted_count(&store, async |bad| {
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.execute("UPDATE sessions SET message_count = ?1 WHERE id = 'counted'", [bad]).unwrap();
    })
    .await;
    std::fs::remove_dir_all(path.parent().unwrap()).ok();
}

#[tokio::test]
async fn an_unreadable_stored_message_is_an_error_naming_the_session() {
    let path = temp_db("unreadable");
    let store = SqliteStore::open(&path).unwrap();
    store.create("broken", json!({})).await.unwrap();
    store.append("broken", &turn(0)).await.unwrap();
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute("UPDATE messages SET body = '{\"role\": ' WHERE session_id = 'broken' AND seq = 2", []).unwrap();
    let err = store.load("broken").await.unwrap_err().to_string();
    assert!(err.contains("session `broken`") && err.contains("stored message 3 is unreadable"), "{err}");
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
    assert!(matches!(err, lucid::Error::Store(lucid::store::StoreError::Busy { .. })), "{err:?}");
    assert!(err.to_string().starts_with("session `shared` is busy"), "{err}");
    let events = first.await.unwrap();
    assert!(matches!(events.last(), Some(AgentEvent::Completed(_))));
    let third = b.run("three").await;
    assert!(third.is_ok(), "free again once the first turn ended: {third:?}");
}

use futures::StreamExt;
use futures::future::BoxFuture;

/// A store in front of an in-memory one whose writes fail while `broken` is set.
struct BrokenWrites {
    inner: InMemoryStore,
    broken: std::sync::atomic::AtomicBool,
}

impl BrokenWrites {
    fn refuse(&self) -> lucid::store::Result<()> {
        if self.broken.load(std::sync::atomic::Ordering::SeqCst) {
            return Err(lucid::store::StoreError::failed("broken", "disk full"));
        }
        Ok(())
    }
}

impl SessionStore for BrokenWrites {
    fn kind(&self) -> &'static str {
        "broken"
    }
    fn create<'a>(
        &'a self,
        id: &'a str,
        m: serde_json::Value,
    ) -> BoxFuture<'a, lucid::store::Result<lucid::store::SessionInfo>> {
        self.inner.create(id, m)
    }
    fn load<'a>(&'a self, id: &'a str) -> BoxFuture<'a, lucid::store::Result<Option<lucid::store::StoredSession>>> {
        self.inner.load(id)
    }
    fn append<'a>(&'a self, id: &'a str, messages: &'a [Message]) -> BoxFuture<'a, lucid::store::Result<()>> {
        match self.refuse() {
            Ok(()) => self.inner.append(id, messages),
            Err(e) => Box::pin(async move { Err(e) }),
        }
    }
    fn replace<'a>(&'a self, id: &'a str, messages: &'a [Message]) -> BoxFuture<'a, lucid::store::Result<()>> {
        match self.refuse() {
            Ok(()) => self.inner.replace(id, messages),
            Err(e) => Box::pin(async move { Err(e) }),
        }
    }
    fn merge_metadata<'a>(&'a self, id: &'a str, patch: serde_json::Value) -> BoxFuture<'a, lucid::store::Result<()>> {
        match self.refuse() {
            Ok(()) => self.inner.merge_metadata(id, patch),
            Err(e) => Box::pin(async move { Err(e) }),
        }
    }
    fn delete<'a>(&'a self, id: &'a str) -> BoxFuture<'a, lucid::store::Result<bool>> {
        self.inner.delete(id)
    }
    fn list(&self, limit: usize, offset: usize) -> BoxFuture<'_, lucid::store::Result<Vec<lucid::store::SessionInfo>>> {
        self.inner.list(limit, offset)
    }
    fn lock<'a>(&'a self, id: &'a str, lease: Duration) -> BoxFuture<'a, lucid::store::Result<lucid::store::TurnLock>> {
        self.inner.lock(id, lease)
    }
    fn unlock<'a>(&'a self, lock: &'a lucid::store::TurnLock) -> BoxFuture<'a, lucid::store::Result<()>> {
        self.inner.unlock(lock)
    }
}

#[tokio::test]
async fn an_answer_is_not_lost_when_its_turn_cannot_be_saved() {
    let server = MockServer::sequence(vec![
        Reply::json(200, &text_completion("first answer")),
        Reply::json(200, &text_completion("second answer")),
    ])
    .await;
    let store = Arc::new(BrokenWrites { inner: InMemoryStore::new(10), broken: true.into() });
    let agent = Agent::builder(model(&server)).store(store.clone()).build();
    let mut s = agent.session_with_id("fragile").await.unwrap();
    match s.run("one").await {
        Err(lucid::Error::TurnNotSaved { session, result, source }) => {
            assert_eq!((session.as_str(), result.content.as_str()), ("fragile", "first answer"));
            assert!(source.to_string().contains("disk full"), "{source}");
        }
        other => panic!("expected TurnNotSaved, got {other:?}"),
    }
    store.broken.store(false, std::sync::atomic::Ordering::SeqCst);
    s.run("two").await.unwrap();
    let stored = store.load("fragile").await.unwrap().unwrap().messages;
    let texts: Vec<String> = stored.iter().map(|m| m.text().to_string()).collect();
    assert_eq!(texts, ["one", "first answer", "two", "second answer"], "the unsaved turn is written with the next");
}

#[tokio::test]
async fn postgres_store_passes_the_suite_and_locks_across_pools() {
    use lucid_postgres::PostgresStore;
    // A fresh database on the test server, dropped when the test ends.
    let Some(admin) = common::postgres_url() else { return };
    let db = lucid_mock::PgDatabase::create(&admin, "lucid_t_store").await;
    let store = Arc::new(PostgresStore::connect(&db.url).await.unwrap());
    suite(store.clone()).await;
    attachments(store.clone()).await;
    {
        let (client, conn) = tokio_postgres::connect(&db.url, tokio_postgres::NoTls).await.unwrap();
        tokio::spawn(conn);
        let count = async || -> i64 { client.query_one("SELECT COUNT(*) FROM lucid_blobs", &[]).await.unwrap().get(0) };
        assert_eq!(count().await, 2, "the image two sessions share is stored once, beside the PDF");
        store.delete("a2").await.unwrap();
        assert_eq!(count().await, 0, "attachments no session refers to are deleted");
    }
    // A second pool (another process, as far as the database knows) sees the same sessions and locks.
    let other = PostgresStore::connect(&db.url).await.expect("connecting again migrates nothing and succeeds");
    assert_eq!(other.load("s1").await.unwrap().unwrap().messages.len(), 8);
    let lock = store.lock("s1", Duration::from_secs(60)).await.unwrap();
    assert!(matches!(other.lock("s1", Duration::from_secs(60)).await, Err(lucid::store::StoreError::Busy { .. })));
    store.unlock(&lock).await.unwrap();
    other.lock("s1", Duration::from_secs(60)).await.unwrap();
    let url = db.url.clone();
    survives_a_corrupted_count(store.as_ref(), async |bad| {
        let (client, conn) = tokio_postgres::connect(&url, tokio_postgres::NoTls).await.unwrap();
        tokio::spawn(conn);
        client.execute("UPDATE lucid_sessions SET message_count = $1 WHERE id = 'counted'", &[&bad]).await.unwrap();
    })
    .await;
    drop((store, other));
    db.drop_now().await;
}
