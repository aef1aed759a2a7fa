//! Sessions in PostgreSQL, for many processes sharing them.
//!
//! The same schema and guarantees as the SQLite store: one transaction per turn, a
//! versioned schema migrated on connect (under an advisory lock, so concurrent processes
//! migrate once), and turn locks in a table taken with `SELECT … FOR UPDATE`.

use std::time::Duration;

use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod};
use futures::FutureExt;
use futures::future::BoxFuture;
use serde_json::Value;
use tokio_postgres::NoTls;

use lucid::message::Message;
use lucid::store::encoding::{blob_refs, checked_count, decode_with_blobs, encode_with_blobs, stored_count};
use lucid::store::lock::{self, busy};
use lucid::store::{Result, StoreError};
use lucid::store::{Salvaged, SessionInfo, SessionStore, StoredSession, TurnLock, now_ms, title_of};

const MIGRATIONS: &[&str] = &[
    // v1: sessions, their messages, turn locks.
    "CREATE TABLE lucid_sessions (
        id TEXT PRIMARY KEY,
        title TEXT,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL,
        message_count BIGINT NOT NULL DEFAULT 0,
        metadata JSONB NOT NULL DEFAULT '{}'
     );
     CREATE INDEX lucid_sessions_by_update ON lucid_sessions(updated_at DESC);
     CREATE TABLE lucid_messages (
        session_id TEXT NOT NULL REFERENCES lucid_sessions(id) ON DELETE CASCADE,
        seq BIGINT NOT NULL,
        body TEXT NOT NULL,
        PRIMARY KEY (session_id, seq)
     );
     CREATE TABLE lucid_session_locks (
        session_id TEXT PRIMARY KEY,
        owner TEXT NOT NULL,
        expires_at BIGINT NOT NULL
     );",
    // v2: attachments stored once by the SHA-256 of their bytes, and which sessions refer
    // to them (a blob no session refers to is deleted).
    "CREATE TABLE lucid_blobs (
        sha256 TEXT PRIMARY KEY,
        media_type TEXT NOT NULL,
        data BYTEA NOT NULL
     );
     CREATE TABLE lucid_session_blobs (
        session_id TEXT NOT NULL REFERENCES lucid_sessions(id) ON DELETE CASCADE,
        sha256 TEXT NOT NULL,
        PRIMARY KEY (session_id, sha256)
     );
     CREATE INDEX lucid_session_blobs_by_hash ON lucid_session_blobs(sha256);",
    // v3: the schema versions `schema_history` keeps per project (tables as JSON text).
    "CREATE TABLE lucid_schema_versions (
        id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        project TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        message TEXT NOT NULL,
        kind TEXT NOT NULL,
        tables TEXT NOT NULL
     );
     CREATE INDEX lucid_schema_versions_by_project ON lucid_schema_versions(project, created_at);",
];

/// The advisory lock between writers of attachments (shared) and the deletion of
/// unreferenced ones (exclusive).
const BLOB_LOCK: i64 = lucid::store::encoding::POSTGRES_BLOB_LOCK;

/// Deletes the attachments no session refers to any more.
async fn collect_blobs(tx: &deadpool_postgres::Transaction<'_>) -> Result<()> {
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&BLOB_LOCK]).await.map_err(db_err)?;
    tx.execute(
        "DELETE FROM lucid_blobs b WHERE NOT EXISTS (SELECT 1 FROM lucid_session_blobs s WHERE s.sha256 = b.sha256)",
        &[],
    )
    .await
    .map_err(db_err)?;
    Ok(())
}

/// An arbitrary constant naming the advisory lock that serializes migrations.
const MIGRATION_LOCK: i64 = 0x6c75_6369_6400_0001;

fn db_err(e: impl std::error::Error + Send + Sync + 'static) -> StoreError {
    StoreError::caused("postgres", e)
}

fn missing(id: &str) -> StoreError {
    StoreError::failed("postgres", format!("no session `{id}`"))
}

/// Sessions in a PostgreSQL database, shared by every process that connects to it.
///
/// ```no_run
/// # async fn demo() -> lucid::Result<()> {
/// let store = lucid_postgres::PostgresStore::connect("postgres://lucid@127.0.0.1/lucid").await?;
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct PostgresStore {
    pool: Pool,
}

impl std::fmt::Debug for PostgresStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresStore").field("pool", &self.pool.status()).finish()
    }
}

impl PostgresStore {
    /// Connects (a pool of up to 16 connections) and migrates the schema.
    pub async fn connect(url: &str) -> Result<Self> {
        let config: tokio_postgres::Config =
            url.parse().map_err(|e| StoreError::Config(format!("invalid Postgres URL: {e}")))?;
        let manager = Manager::from_config(config, NoTls, ManagerConfig { recycling_method: RecyclingMethod::Fast });
        let pool = Pool::builder(manager).max_size(16).build().map_err(db_err)?;
        let store = PostgresStore { pool };
        store.migrate().await?;
        Ok(store)
    }

    /// The escape hatch to its connection pool, a `deadpool_postgres::Pool` (the vector
    /// index and `lucid serve` share it); the one place a deadpool type is public.
    pub fn deadpool(&self) -> &Pool {
        &self.pool
    }

    /// A session and its messages; an unreadable message fails the read, or with
    /// `lenient` is skipped and its position noted.
    async fn read(&self, id: &str, lenient: bool) -> Result<Option<Salvaged>> {
        let mut client = self.client().await?;
        let tx = client.build_transaction().read_only(true).start().await.map_err(db_err)?;
        let Some(row) = tx
            .query_opt(&format!("SELECT {INFO_COLUMNS} FROM lucid_sessions WHERE id = $1"), &[&id])
            .await
            .map_err(db_err)?
        else {
            return Ok(None);
        };
        let rows = tx
            .query("SELECT body FROM lucid_messages WHERE session_id = $1 ORDER BY seq", &[&id])
            .await
            .map_err(db_err)?;
        let hashes: Vec<String> = rows.iter().flat_map(|r| blob_refs(r.get(0))).collect();
        let mut blobs = std::collections::HashMap::new();
        if !hashes.is_empty() {
            for b in tx
                .query("SELECT sha256, data FROM lucid_blobs WHERE sha256 = ANY($1)", &[&hashes])
                .await
                .map_err(db_err)?
            {
                blobs.insert(b.get::<_, String>(0), bytes::Bytes::from(b.get::<_, Vec<u8>>(1)));
            }
        }
        let (mut messages, mut unreadable) = (Vec::new(), Vec::new());
        for (i, r) in rows.iter().enumerate() {
            match decode_with_blobs("postgres", id, i, r.get(0), |h| Ok(blobs.get(h).cloned())) {
                Ok(m) => messages.push(m),
                Err(_) if lenient => unreadable.push(i),
                Err(e) => return Err(e),
            }
        }
        tx.commit().await.map_err(db_err)?;
        let mut info = info(&row);
        checked_count("postgres", &mut info, &messages);
        Ok(Some(Salvaged::new(StoredSession { info, messages }, unreadable)))
    }

    async fn client(&self) -> Result<deadpool_postgres::Object> {
        self.pool.get().await.map_err(db_err)
    }

    async fn migrate(&self) -> Result<()> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(db_err)?;
        tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK]).await.map_err(db_err)?;
        tx.batch_execute("CREATE TABLE IF NOT EXISTS lucid_schema (version INTEGER NOT NULL)").await.map_err(db_err)?;
        let version: i32 = match tx.query_opt("SELECT version FROM lucid_schema", &[]).await.map_err(db_err)? {
            Some(row) => row.get(0),
            None => {
                tx.execute("INSERT INTO lucid_schema (version) VALUES (0)", &[]).await.map_err(db_err)?;
                0
            }
        };
        for (i, sql) in MIGRATIONS.iter().enumerate().skip(version as usize) {
            tx.batch_execute(sql).await.map_err(db_err)?;
            tx.execute("UPDATE lucid_schema SET version = $1", &[&(i as i32 + 1)]).await.map_err(db_err)?;
            tracing::info!(version = i + 1, "migrated the Postgres session schema");
        }
        tx.commit().await.map_err(db_err)
    }
}

fn info(row: &tokio_postgres::Row) -> SessionInfo {
    SessionInfo {
        id: row.get(0),
        title: row.get(1),
        created_at: row.get(2),
        updated_at: row.get(3),
        message_count: stored_count(row.get::<_, i64>(4)),
        metadata: serde_json::from_str(row.get::<_, &str>(5)).unwrap_or(Value::Null),
    }
}

const INFO_COLUMNS: &str = "id, title, created_at, updated_at, message_count, metadata::text";

/// Locks session `id`'s row for the rest of `tx` (writers of one session queue up
/// here); fails when there is no such session.
async fn lock_row(tx: &deadpool_postgres::Transaction<'_>, id: &str) -> Result<()> {
    tx.query_opt("SELECT 1 FROM lucid_sessions WHERE id = $1 FOR UPDATE", &[&id])
        .await
        .map_err(db_err)?
        .ok_or_else(|| missing(id))?;
    Ok(())
}

async fn write_messages(
    tx: &deadpool_postgres::Transaction<'_>,
    id: &str,
    first: i64,
    messages: &[Message],
) -> Result<()> {
    let stmt = tx
        .prepare_cached("INSERT INTO lucid_messages (session_id, seq, body) VALUES ($1, $2, $3)")
        .await
        .map_err(db_err)?;
    let mut locked = false;
    for (i, m) in messages.iter().enumerate() {
        let (body, blobs) = encode_with_blobs(m)?;
        for b in blobs {
            if !locked {
                tx.execute("SELECT pg_advisory_xact_lock_shared($1)", &[&BLOB_LOCK]).await.map_err(db_err)?;
                locked = true;
            }
            tx.execute(
                "INSERT INTO lucid_blobs (sha256, media_type, data) VALUES ($1, $2, $3) ON CONFLICT (sha256) DO NOTHING",
                &[&b.sha256, &b.media_type, &&b.data[..]],
            )
            .await
            .map_err(db_err)?;
            tx.execute(
                "INSERT INTO lucid_session_blobs (session_id, sha256) VALUES ($1, $2) ON CONFLICT DO NOTHING",
                &[&id, &b.sha256],
            )
            .await
            .map_err(db_err)?;
        }
        tx.execute(&stmt, &[&id, &(first + i as i64), &body]).await.map_err(db_err)?;
    }
    Ok(())
}

impl SessionStore for PostgresStore {
    fn kind(&self) -> &'static str {
        "postgres"
    }

    fn create<'a>(&'a self, id: &'a str, metadata: Value) -> BoxFuture<'a, Result<SessionInfo>> {
        async move {
            let client = self.client().await?;
            let now = now_ms();
            client
                .execute(
                    "INSERT INTO lucid_sessions (id, created_at, updated_at, metadata) VALUES ($1, $2, $2, $3::text::jsonb)
                     ON CONFLICT (id) DO NOTHING",
                    &[&id, &now, &metadata.to_string()],
                )
                .await
                .map_err(db_err)?;
            let row = client
                .query_opt(&format!("SELECT {INFO_COLUMNS} FROM lucid_sessions WHERE id = $1"), &[&id])
                .await
                .map_err(db_err)?
                .ok_or_else(|| missing(id))?;
            Ok(info(&row))
        }
        .boxed()
    }

    fn load<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<StoredSession>>> {
        async move { Ok(self.read(id, false).await?.map(|s| s.session)) }.boxed()
    }

    fn salvage<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<Salvaged>>> {
        self.read(id, true).boxed()
    }

    fn append<'a>(&'a self, id: &'a str, messages: &'a [Message]) -> BoxFuture<'a, Result<()>> {
        async move {
            let mut client = self.client().await?;
            let tx = client.transaction().await.map_err(db_err)?;
            lock_row(&tx, id).await?;
            // The next position comes from the rows, not from the stored count, which a
            // corrupted row could make collide with an existing message.
            let next: i64 = tx
                .query_one("SELECT COALESCE(MAX(seq) + 1, 0) FROM lucid_messages WHERE session_id = $1", &[&id])
                .await
                .map_err(db_err)?
                .get(0);
            write_messages(&tx, id, next, messages).await?;
            tx.execute(
                "UPDATE lucid_sessions SET message_count = (SELECT COUNT(*) FROM lucid_messages WHERE session_id = $1),
                 updated_at = GREATEST(updated_at, $2), title = COALESCE(title, $3) WHERE id = $1",
                &[&id, &now_ms(), &title_of(messages)],
            )
            .await
            .map_err(db_err)?;
            tx.commit().await.map_err(db_err)
        }
        .boxed()
    }

    fn replace<'a>(&'a self, id: &'a str, messages: &'a [Message]) -> BoxFuture<'a, Result<()>> {
        async move {
            let mut client = self.client().await?;
            let tx = client.transaction().await.map_err(db_err)?;
            lock_row(&tx, id).await?;
            tx.execute("DELETE FROM lucid_messages WHERE session_id = $1", &[&id]).await.map_err(db_err)?;
            tx.execute("DELETE FROM lucid_session_blobs WHERE session_id = $1", &[&id]).await.map_err(db_err)?;
            write_messages(&tx, id, 0, messages).await?;
            tx.execute(
                "UPDATE lucid_sessions SET message_count = $2, updated_at = GREATEST(updated_at, $3) WHERE id = $1",
                &[&id, &(messages.len() as i64), &now_ms()],
            )
            .await
            .map_err(db_err)?;
            tx.commit().await.map_err(db_err)
        }
        .boxed()
    }

    fn merge_metadata<'a>(&'a self, id: &'a str, patch: Value) -> BoxFuture<'a, Result<()>> {
        async move {
            let mut client = self.client().await?;
            let tx = client.transaction().await.map_err(db_err)?;
            lock_row(&tx, id).await?;
            let row = tx
                .query_one("SELECT metadata::text FROM lucid_sessions WHERE id = $1", &[&id])
                .await
                .map_err(db_err)?;
            let mut metadata: Value = serde_json::from_str(row.get::<_, &str>(0)).unwrap_or(Value::Null);
            lucid::store::merge_json(&mut metadata, patch);
            tx.execute(
                "UPDATE lucid_sessions SET metadata = $2::text::jsonb, updated_at = GREATEST(updated_at, $3) WHERE id = $1",
                &[&id, &metadata.to_string(), &now_ms()],
            )
            .await
            .map_err(db_err)?;
            tx.commit().await.map_err(db_err)
        }
        .boxed()
    }

    fn delete<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool>> {
        async move {
            let mut client = self.client().await?;
            let tx = client.transaction().await.map_err(db_err)?;
            tx.execute("DELETE FROM lucid_session_locks WHERE session_id = $1", &[&id]).await.map_err(db_err)?;
            let n = tx.execute("DELETE FROM lucid_sessions WHERE id = $1", &[&id]).await.map_err(db_err)?;
            collect_blobs(&tx).await?;
            tx.commit().await.map_err(db_err)?;
            Ok(n > 0)
        }
        .boxed()
    }

    fn list(&self, limit: usize, offset: usize) -> BoxFuture<'_, Result<Vec<SessionInfo>>> {
        async move {
            let client = self.client().await?;
            let rows = client
                .query(
                    &format!(
                        "SELECT {INFO_COLUMNS} FROM lucid_sessions ORDER BY updated_at DESC, id LIMIT $1 OFFSET $2"
                    ),
                    &[&(limit as i64), &(offset as i64)],
                )
                .await
                .map_err(db_err)?;
            Ok(rows.iter().map(info).collect())
        }
        .boxed()
    }

    fn lock<'a>(&'a self, id: &'a str, lease: Duration) -> BoxFuture<'a, Result<TurnLock>> {
        async move {
            let owner = lock::owner();
            let now = now_ms();
            let mut client = self.client().await?;
            let tx = client.transaction().await.map_err(db_err)?;
            // Serializes lockers of this session even when no lock row exists yet.
            tx.execute("SELECT pg_advisory_xact_lock(hashtext($1))", &[&id]).await.map_err(db_err)?;
            let held = tx
                .query_opt("SELECT owner, expires_at FROM lucid_session_locks WHERE session_id = $1", &[&id])
                .await
                .map_err(db_err)?;
            if let Some(row) = held {
                let (holder, expires_at): (String, i64) = (row.get(0), row.get(1));
                if !lock::is_stale(&holder, expires_at, now) {
                    return Err(busy(id, &holder));
                }
                tracing::warn!(session = %id, previous = %holder, "taking over a stale turn lock");
            }
            tx.execute(
                "INSERT INTO lucid_session_locks (session_id, owner, expires_at) VALUES ($1, $2, $3)
                 ON CONFLICT (session_id) DO UPDATE SET owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at",
                &[&id, &owner, &(now + lease.as_millis() as i64)],
            )
            .await
            .map_err(db_err)?;
            tx.commit().await.map_err(db_err)?;
            Ok(TurnLock { session_id: id.to_string(), owner })
        }
        .boxed()
    }

    fn unlock<'a>(&'a self, lock: &'a TurnLock) -> BoxFuture<'a, Result<()>> {
        async move {
            let client = self.client().await?;
            client
                .execute(
                    "DELETE FROM lucid_session_locks WHERE session_id = $1 AND owner = $2",
                    &[&lock.session_id, &lock.owner],
                )
                .await
                .map_err(db_err)?;
            Ok(())
        }
        .boxed()
    }

    fn break_lock<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool>> {
        async move {
            let client = self.client().await?;
            let removed = client
                .execute("DELETE FROM lucid_session_locks WHERE session_id = $1", &[&id])
                .await
                .map_err(db_err)?;
            Ok(removed > 0)
        }
        .boxed()
    }
}
