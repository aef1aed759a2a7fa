//! The SQLite vector index: blobs in a table, exact search over an in-memory copy.

use std::path::Path;
use std::sync::{Arc, Mutex};

use futures::FutureExt;
use futures::future::BoxFuture;
use rusqlite::{Connection, params};
use serde_json::Value;

use lucid::error::{Error, Result};
use lucid::memory::{MemoryFilter, MemoryHit, MemoryRecord, VectorIndex, dot, top_k};
use lucid::store::StoreError;

fn db_err(e: rusqlite::Error) -> Error {
    StoreError::caused("sqlite-vectors", e).into()
}

#[derive(Default)]
struct Mirror {
    last_rowid: i64,
    dim: usize,
    vectors: Vec<f32>,
    records: Vec<MemoryRecord>,
}

/// Vectors in SQLite, searched exactly.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use lucid::memory::{MemoryFilter, MemoryRecord, VectorIndex};
/// use lucid_sqlite::SqliteVectorIndex;
/// let dir = std::env::temp_dir().join(format!("lucid-vec-doc-{}", std::process::id()));
/// let index = SqliteVectorIndex::open(dir.join("m.db")).unwrap();
/// let rec = |id: &str| MemoryRecord { id: id.into(), text: id.into(), kind: "fact".into(), session_id: None,
///                                     user_id: None, created_at: 0, metadata: serde_json::json!({}) };
/// index.add(&[(rec("x"), vec![1.0, 0.0]), (rec("y"), vec![0.0, 1.0])]).await.unwrap();
/// let hits = index.search(&[0.9, 0.1], 1, &MemoryFilter::default()).await.unwrap();
/// assert_eq!(hits[0].record.id, "x");
/// # std::fs::remove_dir_all(dir).ok();
/// # });
/// ```
#[derive(Clone)]
pub struct SqliteVectorIndex {
    conn: Arc<Mutex<Connection>>,
    mirror: Arc<Mutex<Mirror>>,
}

impl std::fmt::Debug for SqliteVectorIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteVectorIndex").finish_non_exhaustive()
    }
}

impl SqliteVectorIndex {
    /// Opens (creating if needed) the index in the SQLite file at `path` (it may be the
    /// session store's file).
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|source| StoreError::Io { path: dir.display().to_string(), source })?;
        }
        let conn = Connection::open(path).map_err(db_err)?;
        conn.busy_timeout(std::time::Duration::from_secs(10)).map_err(db_err)?;
        conn.execute_batch(
            "PRAGMA journal_mode=WAL;
             CREATE TABLE IF NOT EXISTS lucid_memories (
                id TEXT NOT NULL UNIQUE, text TEXT NOT NULL, kind TEXT NOT NULL, session_id TEXT, user_id TEXT,
                created_at INTEGER NOT NULL, metadata TEXT NOT NULL, dim INTEGER NOT NULL, embedding BLOB NOT NULL
             );",
        )
        .map_err(db_err)?;
        Ok(SqliteVectorIndex { conn: Arc::new(Mutex::new(conn)), mirror: Arc::new(Mutex::new(Mirror::default())) })
    }

    /// Brings the in-memory copy up to date with the file: the rows added since (by this
    /// handle or another process), and a full reload when rows are gone — deleted, or
    /// replaced by an id added again, which leaves a new row and removes the old one.
    fn refresh(conn: &Connection, mirror: &mut Mirror) -> Result<()> {
        // One read transaction, so the count and the rows are of the same moment.
        let tx = conn.unchecked_transaction().map_err(db_err)?;
        let count: i64 = tx.query_row("SELECT count(*) FROM lucid_memories", [], |r| r.get(0)).map_err(db_err)?;
        Self::load_since(&tx, mirror)?;
        if mirror.records.len() != count as usize {
            *mirror = Mirror::default();
            Self::load_since(&tx, mirror)?;
        }
        Ok(())
    }

    /// Appends the rows after the last one the copy holds.
    fn load_since(conn: &Connection, mirror: &mut Mirror) -> Result<()> {
        let mut stmt = conn
            .prepare_cached(
                "SELECT rowid, id, text, kind, session_id, user_id, created_at, metadata, dim, embedding
                 FROM lucid_memories WHERE rowid > ?1 ORDER BY rowid",
            )
            .map_err(db_err)?;
        let mut rows = stmt.query([mirror.last_rowid]).map_err(db_err)?;
        while let Some(row) = rows.next().map_err(db_err)? {
            let dim = row.get::<_, i64>(8).map_err(db_err)? as usize;
            if mirror.dim == 0 {
                mirror.dim = dim;
            }
            let blob: Vec<u8> = row.get(9).map_err(db_err)?;
            if dim != mirror.dim || blob.len() != dim * 4 {
                return Err(StoreError::failed(
                    "sqlite-vectors",
                    format!("a stored vector has {dim} dimensions, the index {}", mirror.dim),
                )
                .into());
            }
            mirror.vectors.extend(blob.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])));
            let metadata: String = row.get(7).map_err(db_err)?;
            mirror.records.push(MemoryRecord {
                id: row.get(1).map_err(db_err)?,
                text: row.get(2).map_err(db_err)?,
                kind: row.get(3).map_err(db_err)?,
                session_id: row.get(4).map_err(db_err)?,
                user_id: row.get(5).map_err(db_err)?,
                created_at: row.get(6).map_err(db_err)?,
                metadata: serde_json::from_str(&metadata).unwrap_or(Value::Null),
            });
            mirror.last_rowid = row.get(0).map_err(db_err)?;
        }
        Ok(())
    }

    async fn run<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Connection, &mut Mirror) -> Result<T> + Send + 'static,
    ) -> Result<T> {
        let (conn, mirror) = (self.conn.clone(), self.mirror.clone());
        tokio::task::spawn_blocking(move || {
            let mut c = conn.lock().unwrap_or_else(|e| e.into_inner());
            let mut m = mirror.lock().unwrap_or_else(|e| e.into_inner());
            f(&mut c, &mut m)
        })
        .await
        .map_err(|e| Error::from(StoreError::caused("sqlite-vectors", e)))?
    }
}

impl VectorIndex for SqliteVectorIndex {
    fn add<'a>(&'a self, records: &'a [(MemoryRecord, Vec<f32>)]) -> BoxFuture<'a, Result<()>> {
        let records = records.to_vec();
        self.run(move |conn, _| {
            let tx = conn.transaction().map_err(db_err)?;
            {
                let mut insert = tx
                    .prepare_cached(
                        "INSERT OR REPLACE INTO lucid_memories
                         (id, text, kind, session_id, user_id, created_at, metadata, dim, embedding)
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                    )
                    .map_err(db_err)?;
                for (r, v) in &records {
                    let blob: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
                    insert
                        .execute(params![
                            r.id,
                            r.text,
                            r.kind,
                            r.session_id,
                            r.user_id,
                            r.created_at,
                            r.metadata.to_string(),
                            v.len() as i64,
                            blob
                        ])
                        .map_err(db_err)?;
                }
            }
            tx.commit().map_err(db_err)
        })
        .boxed()
    }

    fn search<'a>(
        &'a self,
        query: &'a [f32],
        k: usize,
        filter: &'a MemoryFilter,
    ) -> BoxFuture<'a, Result<Vec<MemoryHit>>> {
        let query = query.to_vec();
        let filter = filter.clone();
        self.run(move |conn, mirror| {
            Self::refresh(conn, mirror)?;
            if mirror.records.is_empty() {
                return Ok(Vec::new());
            }
            if query.len() != mirror.dim {
                return Err(StoreError::failed(
                    "sqlite-vectors",
                    format!("the query has {} dimensions, the index {}", query.len(), mirror.dim),
                )
                .into());
            }
            let scores: Vec<(f32, usize)> = mirror
                .vectors
                .chunks_exact(mirror.dim)
                .enumerate()
                .filter(|(i, _)| filter.matches(&mirror.records[*i]))
                .map(|(i, v)| (dot(&query, v), i))
                .collect();
            Ok(top_k(scores, k)
                .into_iter()
                .map(|(score, i)| MemoryHit { record: mirror.records[i].clone(), score })
                .collect())
        })
        .boxed()
    }

    fn delete<'a>(&'a self, filter: &'a MemoryFilter) -> BoxFuture<'a, Result<usize>> {
        let filter = filter.clone();
        self.run(move |conn, mirror| {
            let n = conn
                .execute(
                    "DELETE FROM lucid_memories WHERE (?1 IS NULL OR session_id = ?1) AND (?2 IS NULL OR user_id = ?2)
                     AND (?3 IS NULL OR kind = ?3) AND (?4 IS NULL OR id = ?4)",
                    params![filter.session_id, filter.user_id, filter.kind, filter.id],
                )
                .map_err(db_err)?;
            *mirror = Mirror::default();
            Ok(n)
        })
        .boxed()
    }
}
