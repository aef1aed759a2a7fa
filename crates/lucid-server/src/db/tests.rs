//! The run store's own tests, on a temporary SQLite file.

use super::{Blob, RunInput, RunRow, RunStatus, SessionRow};

/// A fresh SQLite file for one test, removed when the guard drops.
struct TempDb(std::path::PathBuf, super::Db);

impl Drop for TempDb {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

async fn temp_db(name: &str) -> TempDb {
    let dir = std::env::temp_dir().join(format!("lucid-db-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let db = super::sqlite(&dir.join("serve.db")).await.unwrap();
    TempDb(dir, db)
}

fn session(id: &str) -> SessionRow {
    SessionRow { id: id.into(), agent: "a".into(), metadata: serde_json::json!({}), created_at: 1 }
}

fn running(id: &str, session: &str) -> RunRow {
    RunRow {
        id: id.into(),
        session_id: session.into(),
        status: RunStatus::Running,
        result: None,
        error: None,
        created_at: 1,
        updated_at: 1,
        input: None,
    }
}

fn text(t: &str) -> RunInput {
    RunInput { text: t.into(), parts: None, bytes: t.len() as i64, blobs: Vec::new() }
}

#[test]
fn every_kind_an_event_is_sent_under_is_stored_as_itself() {
    // A kind missing here came back from the store as `error`, which ends a turn's
    // stream for a client replaying it.
    for k in ["fallback", "event", "iteration", "completed", "error"] {
        assert_eq!(super::kind(k), k);
    }
    assert_eq!(super::kind("no such kind"), "error");
}

#[tokio::test]
async fn sessions_made_in_one_millisecond_are_listed_newest_first() {
    // CI once listed two sessions of one millisecond in the wrong order.
    let t = temp_db("order").await;
    let ids: Vec<String> = (0..50).map(|_| crate::new_id("sess")).collect();
    for id in &ids {
        let row = SessionRow { created_at: 7, ..session(id) };
        t.1.create_session("t", &row).await.unwrap();
    }
    let listed: Vec<String> = t.1.sessions("t", 100, 0, false).await.unwrap().into_iter().map(|r| r.id).collect();
    assert_eq!(listed, ids.iter().rev().cloned().collect::<Vec<_>>());
}

#[tokio::test]
async fn a_session_with_a_stored_running_run_is_kept_even_before_its_task_takes_the_lock() {
    // CI once deleted a session between its run's insert and the run's turn lock.
    let t = temp_db("removal").await;
    let db = &t.1;
    db.create_session("t", &session("sess_a")).await.unwrap();
    assert!(db.insert_run("t", &running("run_a", "sess_a"), &text("hi"), "me", i64::MAX).await.unwrap());
    assert_eq!(db.delete_session("t", "sess_a").await.unwrap(), super::Removal::Busy);
    assert_eq!(db.delete_session("other", "sess_a").await.unwrap(), super::Removal::Missing);
    assert!(db.session("t", "sess_a").await.unwrap().is_some(), "kept");
    let done = db.finish_run("run_a", "me", RunStatus::Completed, None, None, Vec::new(), 2);
    assert!(done.await.unwrap());
    assert_eq!(db.delete_session("t", "sess_a").await.unwrap(), super::Removal::Deleted);
    assert!(db.run("t", "run_a").await.unwrap().is_none(), "its runs go with it");
    assert_eq!(db.delete_session("t", "sess_a").await.unwrap(), super::Removal::Missing);
}

#[tokio::test]
async fn a_refused_run_keeps_none_of_its_attachments_and_a_stored_one_all() {
    // A second run on a busy session is refused (409); its attachments were once kept
    // before the refusal, held by the session until it was deleted.
    let t = temp_db("blobs").await;
    // The blob tables are the session store's, in the same file (as `lucid serve` opens it).
    use lucid::store::SessionStore;
    let store = lucid_sqlite::SqliteStore::open(t.0.join("serve.db")).unwrap();
    store.create("sess_b", serde_json::json!({})).await.unwrap();
    let db = &t.1;
    db.create_session("t", &session("sess_b")).await.unwrap();
    let with_image = |bytes: &'static [u8]| {
        let blob = Blob {
            sha256: lucid::store::encoding::hex_sha256(bytes),
            media_type: "image/png".into(),
            data: bytes.to_vec().into(),
        };
        RunInput { text: "look".into(), parts: None, bytes: bytes.len() as i64, blobs: vec![blob] }
    };
    let (first, second) = (with_image(b"first image"), with_image(b"second image"));
    let hash = |i: &RunInput| i.blobs[0].sha256.clone();
    assert!(db.insert_run("t", &running("run_1", "sess_b"), &first, "me", i64::MAX).await.unwrap());
    assert!(!db.insert_run("t", &running("run_2", "sess_b"), &second, "me", i64::MAX).await.unwrap());
    let kept = db.attachments(vec![hash(&first), hash(&second)]).await.unwrap();
    assert_eq!(kept.get(&hash(&first)).map(Vec::as_slice), Some(&b"first image"[..]));
    assert!(!kept.contains_key(&hash(&second)), "the refused run's image is not kept");

    // A run going on with new input keeps that input's attachments; one that is not
    // waiting is refused and keeps nothing.
    let third = with_image(b"third image");
    assert!(!db.continue_run("run_1", RunStatus::NeedsInput, Some(&third), "me", i64::MAX, 2).await.unwrap());
    assert!(db.attachments(vec![hash(&third)]).await.unwrap().is_empty());
    assert!(db.move_run("run_1", RunStatus::Running, RunStatus::NeedsInput, 3).await.unwrap());
    assert!(db.continue_run("run_1", RunStatus::NeedsInput, Some(&third), "me", i64::MAX, 4).await.unwrap());
    assert_eq!(db.attachments(vec![hash(&third)]).await.unwrap().len(), 1);
}

/// A job dropped inside its transaction (a request's future, when its client goes away)
/// leaves its connection out of the pool: the next job, on a pool of one, gets a fresh
/// connection that does not see the dropped job's uncommitted write.
#[cfg(feature = "postgres")]
#[tokio::test]
async fn a_postgres_connection_dropped_inside_its_transaction_is_not_used_again() {
    use super::query::{Backend, Conn, args, first};
    use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod};
    use tokio_postgres::NoTls;

    let Some(admin) = lucid_mock::real_part("LUCID_TEST_POSTGRES_URL", ".ci/run starts PostgreSQL") else { return };
    let name = format!("lucid_db_dropped_{}", std::process::id());
    let (client, conn) = tokio_postgres::connect(&admin, NoTls).await.unwrap();
    tokio::spawn(conn);
    client.batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)")).await.unwrap();
    client.batch_execute(&format!("CREATE DATABASE {name}")).await.unwrap();
    let mut config: tokio_postgres::Config = admin.parse().unwrap();
    config.dbname(&name);
    let manager = Manager::from_config(config, NoTls, ManagerConfig { recycling_method: RecyclingMethod::Fast });
    let pool = Pool::builder(manager).max_size(1).build().unwrap();
    let db = super::postgres::PostgresDb::open(pool).await.unwrap();

    let (written, wait) = tokio::sync::oneshot::channel();
    let job = db.with(move |c| {
        Box::pin(async move {
            c.begin().await?;
            c.execute(&super::sql::INSERT_KEY, args!["key_dropped", "t", "hash_dropped", 1]).await?;
            let _ = written.send(());
            std::future::pending::<super::Result<()>>().await
        })
    });
    tokio::select! {
        r = job => panic!("the job ended: {r:?}"),
        _ = wait => {}
    }

    let seen = db
        .with(|c| {
            Box::pin(async move { first(c, &super::sql::KEY_TENANT, args!["hash_dropped"], |r| r.text(0)).await })
        })
        .await
        .unwrap();
    assert_eq!(seen, None);
    drop(db);
    client.batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)")).await.unwrap();
}

/// A job that panicked inside its SQLite transaction leaves it to no other job: the next
/// one writes, and the panicked job's write is gone.
#[tokio::test]
async fn a_sqlite_job_that_panicked_inside_its_transaction_leaves_it_open_for_no_other() {
    use super::query::{Backend, Conn, args};
    use super::{RunStore, StoredKey};

    let dir = std::env::temp_dir().join(format!("lucid-db-panicked-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let db = super::sqlite::SqliteDb::open(&dir.join("serve.db")).await.unwrap();
    let panicked = db
        .with::<(), _>(|c| {
            Box::pin(async move {
                c.begin().await?;
                c.execute(&super::sql::INSERT_KEY, args!["key_panicked", "t", "hash_panicked", 1]).await?;
                panic!("a job fails inside its transaction")
            })
        })
        .await;
    assert!(matches!(panicked, Err(super::DbError::Task(_))));

    let store = super::store::Store(db);
    let key = StoredKey { id: "key_next".into(), tenant: "t".into(), created_at: 2 };
    store.insert_key(&key, "hash_next").await.unwrap();
    assert_eq!(store.key_tenant("hash_next").await.unwrap().as_deref(), Some("t"));
    assert_eq!(store.key_tenant("hash_panicked").await.unwrap(), None);
    drop(store);
    let _ = std::fs::remove_dir_all(&dir);
}
