//! One suite for every vector index (`lucid::memory::test_kit`): SQLite, and pgvector when
//! a test server is set.

mod common;

use std::sync::Arc;

use lucid::memory::test_kit::{DIM, record, suite, two_handles, unit};
use lucid::memory::{MemoryFilter, VectorIndex};
use lucid_sqlite::SqliteVectorIndex;

fn temp_dir(name: &str) -> std::path::PathBuf {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().subsec_nanos();
    std::env::temp_dir().join(format!("lucid-vectors-{}-{name}-{nanos}", std::process::id()))
}

#[tokio::test]
async fn sqlite_vector_index_passes_the_suite() {
    let dir = temp_dir("suite");
    suite(Arc::new(SqliteVectorIndex::open(dir.join("v.db")).unwrap())).await;
    std::fs::remove_dir_all(dir).ok();
}

#[tokio::test]
async fn two_sqlite_handles_on_one_file_pass_the_suite() {
    let dir = temp_dir("handles");
    let a = SqliteVectorIndex::open(dir.join("v.db")).unwrap();
    let b = SqliteVectorIndex::open(dir.join("v.db")).unwrap();
    two_handles(Arc::new(a), Arc::new(b)).await;
    std::fs::remove_dir_all(dir).ok();
}

#[tokio::test]
async fn sqlite_records_survive_reopening() {
    let dir = temp_dir("reopen");
    {
        let index = SqliteVectorIndex::open(dir.join("v.db")).unwrap();
        index.add(&[(record("kept", Some("s1"), "fact"), unit(0.3, 0.0))]).await.unwrap();
    }
    let index = SqliteVectorIndex::open(dir.join("v.db")).unwrap();
    let hits = index.search(&unit(0.3, 0.0), 5, &MemoryFilter::default()).await.unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].record, record("kept", Some("s1"), "fact"));
    std::fs::remove_dir_all(dir).ok();
}

/// A fresh database on the test server (so concurrent runs share no table), dropped at
/// the end.
mod postgres {
    use super::*;
    use lucid_postgres::PgVectorIndex;
    use lucid_postgres::PostgresStore;

    #[tokio::test]
    async fn pgvector_index_passes_the_suite_and_shares_across_pools() {
        let Some(admin) = common::postgres_url() else { return };
        let db = lucid_mock::PgDatabase::create(&admin, "lucid_v_index").await;
        let (one, other) =
            (PostgresStore::connect(&db.url).await.unwrap(), PostgresStore::connect(&db.url).await.unwrap());
        let index = PgVectorIndex::from_deadpool(one.deadpool().clone(), DIM).await.unwrap();
        suite(Arc::new(index.clone())).await;
        let second = PgVectorIndex::from_deadpool(other.deadpool().clone(), DIM)
            .await
            .expect("the table exists: nothing to create");
        two_handles(Arc::new(index), Arc::new(second)).await;
        drop((one, other));
        db.drop_now().await;
    }
}
