//! Sessions in one SQLite file: the embedded default.
//!
//! WAL journal, one transaction per turn (a process killed at any instant leaves the last
//! complete turn and nothing half-written), a versioned schema migrated on open, and turn
//! locks in a table so two processes never run the same session at once. Every call runs
//! on tokio's blocking pool, never on the async runtime.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::FutureExt;
use futures::future::BoxFuture;
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};
use serde_json::Value;

use lucid::message::Message;
use lucid::store::encoding::{checked_count, decode_with_blobs, encode_with_blobs, stored_count};
use lucid::store::lock::{self, busy};
use lucid::store::{Result, StoreError};
use lucid::store::{Salvaged, SessionInfo, SessionStore, StoredSession, TurnLock, now_ms, title_of};

/// The schema, one migration per version (`PRAGMA user_version`).
const MIGRATIONS: &[&str] = &[
    // v1: sessions, their messages, turn locks.
    "CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        title TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        message_count INTEGER NOT NULL DEFAULT 0,
        metadata TEXT NOT NULL DEFAULT '{}'
     );
     CREATE INDEX sessions_by_update ON sessions(updated_at DESC);
     CREATE TABLE messages (
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        body TEXT NOT NULL,
        PRIMARY KEY (session_id, seq)
     ) WITHOUT ROWID;
     CREATE TABLE session_locks (
        session_id TEXT PRIMARY KEY,
        owner TEXT NOT NULL,
        expires_at INTEGER NOT NULL
     );",
    // v2: attachments (images, documents, audio) stored once by the SHA-256 of their
    // bytes, and which sessions refer to them (a blob no session refers to is deleted).
    "CREATE TABLE blobs (
        sha256 TEXT PRIMARY KEY,
        media_type TEXT NOT NULL,
        data BLOB NOT NULL
     ) WITHOUT ROWID;
     CREATE TABLE session_blobs (
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        sha256 TEXT NOT NULL,
        PRIMARY KEY (session_id, sha256)
     ) WITHOUT ROWID;
     CREATE INDEX session_blobs_by_hash ON session_blobs(sha256);",
];

/// Deletes the attachments no session refers to any more.
fn collect_blobs(tx: &rusqlite::Transaction<'_>) -> Result<()> {
    tx.execute("DELETE FROM blobs WHERE sha256 NOT IN (SELECT sha256 FROM session_blobs)", []).map_err(db_err)?;
    Ok(())
}

fn db_err(e: rusqlite::Error) -> StoreError {
    StoreError::caused("sqlite", e)
}

/// Sessions in a SQLite database file.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use lucid::store::SessionStore;
/// use lucid_sqlite::SqliteStore;
/// let dir = std::env::temp_dir().join(format!("lucid-doc-{}", std::process::id()));
/// let store = SqliteStore::open(dir.join("lucid.db")).unwrap();
/// store.create("work", serde_json::json!({"user": "ada"})).await.unwrap();
/// store.append("work", &[lucid::Message::user("hello")]).await.unwrap();
/// let s = store.load("work").await.unwrap().unwrap();
/// assert_eq!(s.info.title.as_deref(), Some("hello"));
/// # std::fs::remove_dir_all(dir).ok();
/// # });
/// ```
#[derive(Clone)]
pub struct SqliteStore {
    conn: Arc<Mutex<Connection>>,
    path: PathBuf,
}

impl std::fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteStore").field("path", &self.path).finish()
    }
}

impl SqliteStore {
    /// Opens (creating it and its folder if needed) and migrates the database at `path`.
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref().to_path_buf();
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|source| StoreError::Io { path: dir.display().to_string(), source })?;
        }
        let conn = Connection::open(&path).map_err(db_err)?;
        conn.busy_timeout(Duration::from_secs(10)).map_err(db_err)?;
        conn.execute_batch("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;")
            .map_err(db_err)?;
        migrate(&conn)?;
        Ok(SqliteStore { conn: Arc::new(Mutex::new(conn)), path })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The schema version.
    pub fn schema_version() -> usize {
        MIGRATIONS.len()
    }

    async fn run<T: Send + 'static>(&self, f: impl FnOnce(&mut Connection) -> Result<T> + Send + 'static) -> Result<T> {
        let conn = self.conn.clone();
        tokio::task::spawn_blocking(move || {
            let mut guard = conn.lock().unwrap_or_else(|e| e.into_inner());
            f(&mut guard)
        })
        .await
        .map_err(|e| StoreError::Failed {
            store: "sqlite",
            message: format!("the database task failed: {e}"),
            source: Some(Box::new(e)),
        })?
    }
}

fn migrate(conn: &Connection) -> Result<()> {
    let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0)).map_err(db_err)?;
    let version = usize::try_from(version).unwrap_or(0);
    if version > MIGRATIONS.len() {
        return Err(StoreError::Failed {
            store: "sqlite",
            message: format!(
                "the database has schema version {version}, newer than this Lucid knows ({})",
                MIGRATIONS.len()
            ),
            source: None,
        });
    }
    for (i, sql) in MIGRATIONS.iter().enumerate().skip(version) {
        conn.execute_batch(&format!("BEGIN; {sql}; PRAGMA user_version = {}; COMMIT;", i + 1)).map_err(db_err)?;
        tracing::info!(version = i + 1, "migrated the session database");
    }
    Ok(())
}

fn info_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<SessionInfo> {
    let metadata: String = r.get(5)?;
    Ok(SessionInfo {
        id: r.get(0)?,
        title: r.get(1)?,
        created_at: r.get(2)?,
        updated_at: r.get(3)?,
        message_count: stored_count(r.get::<_, i64>(4)?),
        metadata: serde_json::from_str(&metadata).unwrap_or(Value::Null),
    })
}

const INFO_COLUMNS: &str = "id, title, created_at, updated_at, message_count, metadata";

fn get_info(conn: &Connection, id: &str) -> Result<Option<SessionInfo>> {
    conn.query_row(&format!("SELECT {INFO_COLUMNS} FROM sessions WHERE id = ?1"), [id], info_row)
        .optional()
        .map_err(db_err)
}

fn missing(id: &str) -> StoreError {
    StoreError::failed("sqlite", format!("no session `{id}`"))
}

/// A session and its messages; an unreadable message fails the read, or with `lenient`
/// is skipped and its position noted.
fn read(conn: &mut Connection, id: &str, lenient: bool) -> Result<Option<Salvaged>> {
    let tx = conn.transaction().map_err(db_err)?;
    let Some(mut info) = get_info(&tx, id)? else { return Ok(None) };
    let mut stmt = tx.prepare_cached("SELECT body FROM messages WHERE session_id = ?1 ORDER BY seq").map_err(db_err)?;
    let bodies = stmt.query_map([id], |r| r.get::<_, String>(0)).map_err(db_err)?;
    // Never sized from the stored count: a corrupted one must not allocate.
    let (mut messages, mut unreadable) = (Vec::new(), Vec::new());
    let mut blob = tx.prepare_cached("SELECT data FROM blobs WHERE sha256 = ?1").map_err(db_err)?;
    let mut fetch = |hash: &str| -> Result<Option<bytes::Bytes>> {
        blob.query_row([hash], |r| r.get::<_, Vec<u8>>(0)).optional().map(|d| d.map(Into::into)).map_err(db_err)
    };
    for (i, body) in bodies.enumerate() {
        match body.map_err(db_err).and_then(|b| decode_with_blobs("sqlite", id, i, &b, &mut fetch)) {
            Ok(m) => messages.push(m),
            Err(_) if lenient => unreadable.push(i),
            Err(e) => return Err(e),
        }
    }
    drop(stmt);
    drop(blob);
    tx.commit().map_err(db_err)?;
    checked_count("sqlite", &mut info, &messages);
    Ok(Some(Salvaged::new(StoredSession { info, messages }, unreadable)))
}

fn write_messages(tx: &rusqlite::Transaction<'_>, id: &str, first_seq: i64, messages: &[Message]) -> Result<()> {
    let mut insert =
        tx.prepare_cached("INSERT INTO messages (session_id, seq, body) VALUES (?1, ?2, ?3)").map_err(db_err)?;
    for (i, m) in messages.iter().enumerate() {
        let (body, blobs) = encode_with_blobs(m)?;
        for b in blobs {
            tx.prepare_cached("INSERT OR IGNORE INTO blobs (sha256, media_type, data) VALUES (?1, ?2, ?3)")
                .and_then(|mut s| s.execute(params![b.sha256, b.media_type, &b.data[..]]))
                .map_err(db_err)?;
            tx.prepare_cached("INSERT OR IGNORE INTO session_blobs (session_id, sha256) VALUES (?1, ?2)")
                .and_then(|mut s| s.execute(params![id, b.sha256]))
                .map_err(db_err)?;
        }
        insert.execute(params![id, first_seq + i as i64, body]).map_err(db_err)?;
    }
    Ok(())
}

impl SessionStore for SqliteStore {
    fn kind(&self) -> &'static str {
        "sqlite"
    }

    fn create<'a>(&'a self, id: &'a str, metadata: Value) -> BoxFuture<'a, Result<SessionInfo>> {
        let id = id.to_string();
        self.run(move |conn| {
            let now = now_ms();
            conn.execute(
                "INSERT INTO sessions (id, created_at, updated_at, metadata) VALUES (?1, ?2, ?2, ?3) ON CONFLICT(id) DO NOTHING",
                params![id, now, metadata.to_string()],
            )
            .map_err(db_err)?;
            get_info(conn, &id)?.ok_or_else(|| missing(&id))
        })
        .boxed()
    }

    fn load<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<StoredSession>>> {
        let id = id.to_string();
        self.run(move |conn| Ok(read(conn, &id, false)?.map(|s| s.session))).boxed()
    }

    fn salvage<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<Salvaged>>> {
        let id = id.to_string();
        self.run(move |conn| read(conn, &id, true)).boxed()
    }

    fn append<'a>(&'a self, id: &'a str, messages: &'a [Message]) -> BoxFuture<'a, Result<()>> {
        let id = id.to_string();
        let messages = messages.to_vec();
        self.run(move |conn| {
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(db_err)?;
            get_info(&tx, &id)?.ok_or_else(|| missing(&id))?;
            // The next position comes from the rows, not from the stored count, which a
            // corrupted row could make collide with an existing message.
            let next: i64 = tx
                .query_row("SELECT COALESCE(MAX(seq) + 1, 0) FROM messages WHERE session_id = ?1", [&id], |r| r.get(0))
                .map_err(db_err)?;
            write_messages(&tx, &id, next, &messages)?;
            tx.execute(
                "UPDATE sessions SET message_count = (SELECT COUNT(*) FROM messages WHERE session_id = ?1),
                 updated_at = max(updated_at, ?2), title = COALESCE(title, ?3) WHERE id = ?1",
                params![id, now_ms(), title_of(&messages)],
            )
            .map_err(db_err)?;
            tx.commit().map_err(db_err)
        })
        .boxed()
    }

    fn replace<'a>(&'a self, id: &'a str, messages: &'a [Message]) -> BoxFuture<'a, Result<()>> {
        let id = id.to_string();
        let messages = messages.to_vec();
        self.run(move |conn| {
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(db_err)?;
            get_info(&tx, &id)?.ok_or_else(|| missing(&id))?;
            tx.execute("DELETE FROM messages WHERE session_id = ?1", [&id]).map_err(db_err)?;
            tx.execute("DELETE FROM session_blobs WHERE session_id = ?1", [&id]).map_err(db_err)?;
            write_messages(&tx, &id, 0, &messages)?;
            collect_blobs(&tx)?;
            tx.execute(
                "UPDATE sessions SET message_count = ?2, updated_at = max(updated_at, ?3) WHERE id = ?1",
                params![id, messages.len() as i64, now_ms()],
            )
            .map_err(db_err)?;
            tx.commit().map_err(db_err)
        })
        .boxed()
    }

    fn merge_metadata<'a>(&'a self, id: &'a str, patch: Value) -> BoxFuture<'a, Result<()>> {
        let id = id.to_string();
        self.run(move |conn| {
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(db_err)?;
            let mut metadata = get_info(&tx, &id)?.ok_or_else(|| missing(&id))?.metadata;
            lucid::store::merge_json(&mut metadata, patch);
            tx.execute(
                "UPDATE sessions SET metadata = ?2, updated_at = max(updated_at, ?3) WHERE id = ?1",
                params![id, metadata.to_string(), now_ms()],
            )
            .map_err(db_err)?;
            tx.commit().map_err(db_err)
        })
        .boxed()
    }

    fn delete<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool>> {
        let id = id.to_string();
        self.run(move |conn| {
            let tx = conn.transaction().map_err(db_err)?;
            tx.execute("DELETE FROM session_locks WHERE session_id = ?1", [&id]).map_err(db_err)?;
            let n = tx.execute("DELETE FROM sessions WHERE id = ?1", [&id]).map_err(db_err)?;
            collect_blobs(&tx)?;
            tx.commit().map_err(db_err)?;
            Ok(n > 0)
        })
        .boxed()
    }

    fn list(&self, limit: usize, offset: usize) -> BoxFuture<'_, Result<Vec<SessionInfo>>> {
        self.run(move |conn| {
            let mut stmt = conn
                .prepare_cached(&format!(
                    "SELECT {INFO_COLUMNS} FROM sessions ORDER BY updated_at DESC, id LIMIT ?1 OFFSET ?2"
                ))
                .map_err(db_err)?;
            let rows = stmt.query_map(params![limit as i64, offset as i64], info_row).map_err(db_err)?;
            rows.collect::<rusqlite::Result<Vec<_>>>().map_err(db_err)
        })
        .boxed()
    }

    fn lock<'a>(&'a self, id: &'a str, lease: Duration) -> BoxFuture<'a, Result<TurnLock>> {
        let id = id.to_string();
        self.run(move |conn| {
            let owner = lock::owner();
            let now = now_ms();
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(db_err)?;
            let held: Option<(String, i64)> = tx
                .query_row("SELECT owner, expires_at FROM session_locks WHERE session_id = ?1", [&id], |r| {
                    Ok((r.get(0)?, r.get(1)?))
                })
                .optional()
                .map_err(db_err)?;
            if let Some((holder, expires_at)) = held {
                if !lock::is_stale(&holder, expires_at, now) {
                    return Err(busy(&id, &holder));
                }
                tracing::warn!(session = %id, previous = %holder, "taking over a stale turn lock");
            }
            tx.execute(
                "INSERT OR REPLACE INTO session_locks (session_id, owner, expires_at) VALUES (?1, ?2, ?3)",
                params![id, owner, now + lease.as_millis() as i64],
            )
            .map_err(db_err)?;
            tx.commit().map_err(db_err)?;
            Ok(TurnLock { session_id: id, owner })
        })
        .boxed()
    }

    fn unlock<'a>(&'a self, lock: &'a TurnLock) -> BoxFuture<'a, Result<()>> {
        let lock = lock.clone();
        self.run(move |conn| {
            conn.execute(
                "DELETE FROM session_locks WHERE session_id = ?1 AND owner = ?2",
                params![lock.session_id, lock.owner],
            )
            .map_err(db_err)?;
            Ok(())
        })
        .boxed()
    }

    fn break_lock<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool>> {
        let id = id.to_string();
        self.run(move |conn| {
            let removed = conn.execute("DELETE FROM session_locks WHERE session_id = ?1", [&id]).map_err(db_err)?;
            Ok(removed > 0)
        })
        .boxed()
    }
}
