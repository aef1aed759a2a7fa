//! pgvector: memories in PostgreSQL with an HNSW index.

use deadpool_postgres::Pool;
use futures::FutureExt;
use futures::future::BoxFuture;
use serde_json::Value;

use lucid::error::{Error, Result};
use lucid::memory::{MemoryFilter, MemoryHit, MemoryRecord, VectorIndex};
use lucid::store::StoreError;

fn db_err(e: impl std::error::Error + Send + Sync + 'static) -> Error {
    StoreError::caused("pgvector", e).into()
}

/// A vector as pgvector's text form, `[0.1,0.2,…]`.
fn literal(v: &[f32]) -> String {
    let mut s = String::with_capacity(v.len() * 10 + 2);
    s.push('[');
    for (i, x) in v.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        s.push_str(&x.to_string());
    }
    s.push(']');
    s
}

/// Memories in PostgreSQL with pgvector, searched through an HNSW index (cosine).
///
/// One table per dimension (`lucid_memories_384`…), so models of different sizes can
/// share a database.
///
/// ```no_run
/// # async fn demo() -> lucid::Result<()> {
/// use lucid_postgres::PgVectorIndex;
/// use lucid_postgres::PostgresStore;
/// let store = PostgresStore::connect("postgres://lucid@127.0.0.1/lucid").await?;
/// let index = PgVectorIndex::from_deadpool(store.deadpool().clone(), 384).await?;
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct PgVectorIndex {
    pool: Pool,
    dim: usize,
    table: String,
}

impl std::fmt::Debug for PgVectorIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgVectorIndex").field("table", &self.table).finish()
    }
}

impl PgVectorIndex {
    /// Uses (creating if needed) the table for `dim`-dimensional vectors, with its HNSW
    /// index, on a `deadpool_postgres` pool (usually [`PostgresStore::deadpool`](crate::PostgresStore::deadpool)).
    pub async fn from_deadpool(pool: Pool, dim: usize) -> Result<Self> {
        let table = format!("lucid_memories_{dim}");
        let client = pool.get().await.map_err(db_err)?;
        client
            .batch_execute(&format!(
                "CREATE EXTENSION IF NOT EXISTS vector;
                 CREATE TABLE IF NOT EXISTS {table} (
                    id TEXT PRIMARY KEY, text TEXT NOT NULL, kind TEXT NOT NULL, session_id TEXT, user_id TEXT,
                    created_at BIGINT NOT NULL, metadata JSONB NOT NULL, embedding vector({dim}) NOT NULL
                 );
                 CREATE INDEX IF NOT EXISTS {table}_hnsw ON {table} USING hnsw (embedding vector_cosine_ops);
                 CREATE INDEX IF NOT EXISTS {table}_session ON {table} (session_id);"
            ))
            .await
            .map_err(db_err)?;
        Ok(PgVectorIndex { pool, dim, table })
    }

    fn check(&self, v: &[f32]) -> Result<()> {
        if v.len() == self.dim {
            Ok(())
        } else {
            Err(StoreError::failed("pgvector", format!("a vector has {} dimensions, the index {}", v.len(), self.dim))
                .into())
        }
    }
}

impl VectorIndex for PgVectorIndex {
    fn add<'a>(&'a self, records: &'a [(MemoryRecord, Vec<f32>)]) -> BoxFuture<'a, Result<()>> {
        async move {
            let mut client = self.pool.get().await.map_err(db_err)?;
            let tx = client.transaction().await.map_err(db_err)?;
            let stmt = tx
                .prepare_cached(&format!(
                    "INSERT INTO {} (id, text, kind, session_id, user_id, created_at, metadata, embedding)
                     VALUES ($1, $2, $3, $4, $5, $6, $7::text::jsonb, $8::text::vector)
                     ON CONFLICT (id) DO UPDATE SET text = EXCLUDED.text, embedding = EXCLUDED.embedding",
                    self.table
                ))
                .await
                .map_err(db_err)?;
            for (r, v) in records {
                self.check(v)?;
                tx.execute(
                    &stmt,
                    &[
                        &r.id,
                        &r.text,
                        &r.kind,
                        &r.session_id,
                        &r.user_id,
                        &r.created_at,
                        &r.metadata.to_string(),
                        &literal(v),
                    ],
                )
                .await
                .map_err(db_err)?;
            }
            tx.commit().await.map_err(db_err)
        }
        .boxed()
    }

    fn search<'a>(
        &'a self,
        query: &'a [f32],
        k: usize,
        filter: &'a MemoryFilter,
    ) -> BoxFuture<'a, Result<Vec<MemoryHit>>> {
        async move {
            self.check(query)?;
            let client = self.pool.get().await.map_err(db_err)?;
            let rows = client
                .query(
                    &format!(
                        "SELECT id, text, kind, session_id, user_id, created_at, metadata::text,
                                1 - (embedding <=> $1::text::vector) AS score
                         FROM {} WHERE ($2::text IS NULL OR session_id = $2) AND ($3::text IS NULL OR user_id = $3)
                           AND ($4::text IS NULL OR kind = $4) AND ($6::text IS NULL OR id = $6)
                         ORDER BY embedding <=> $1::text::vector LIMIT $5",
                        self.table
                    ),
                    &[&literal(query), &filter.session_id, &filter.user_id, &filter.kind, &(k as i64), &filter.id],
                )
                .await
                .map_err(db_err)?;
            Ok(rows
                .iter()
                .map(|r| MemoryHit {
                    record: MemoryRecord {
                        id: r.get(0),
                        text: r.get(1),
                        kind: r.get(2),
                        session_id: r.get(3),
                        user_id: r.get(4),
                        created_at: r.get(5),
                        metadata: serde_json::from_str(r.get::<_, &str>(6)).unwrap_or(Value::Null),
                    },
                    score: r.get::<_, f64>(7) as f32,
                })
                .collect())
        }
        .boxed()
    }

    fn delete<'a>(&'a self, filter: &'a MemoryFilter) -> BoxFuture<'a, Result<usize>> {
        async move {
            let client = self.pool.get().await.map_err(db_err)?;
            let n = client
                .execute(
                    &format!(
                        "DELETE FROM {} WHERE ($1::text IS NULL OR session_id = $1) AND ($2::text IS NULL OR user_id = $2)
                         AND ($3::text IS NULL OR kind = $3) AND ($4::text IS NULL OR id = $4)",
                        self.table
                    ),
                    &[&filter.session_id, &filter.user_id, &filter.kind, &filter.id],
                )
                .await
                .map_err(db_err)?;
            Ok(n as usize)
        }
        .boxed()
    }
}
