//! Vector search over remembered texts.
//!
//! A [`VectorIndex`] stores [`MemoryRecord`]s with their embeddings and returns the
//! nearest to a query, filtered by session, user and kind. `lucid_sqlite::SqliteVectorIndex`
//! keeps vectors as blobs in SQLite and searches exactly (a dot product over an in-memory
//! copy, fine to ~100k entries); `lucid_postgres::PgVectorIndex` uses pgvector with an HNSW
//! index.

use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::Result;

/// A remembered text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MemoryRecord {
    /// Unique id.
    pub id: String,
    /// The text (a summary of old turns, a fact…).
    pub text: String,
    /// What it is (`summary`, `fact`, …).
    pub kind: String,
    /// The session it came from.
    pub session_id: Option<String>,
    /// The user it belongs to.
    pub user_id: Option<String>,
    /// When it was stored, milliseconds since the Unix epoch.
    pub created_at: i64,
    /// Free-form metadata.
    pub metadata: Value,
}

/// Which records a search or delete considers; unset fields match everything.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MemoryFilter {
    /// Only the record with this id.
    pub id: Option<String>,
    /// Only this session's records.
    pub session_id: Option<String>,
    /// Only this user's records.
    pub user_id: Option<String>,
    /// Only records of this kind.
    pub kind: Option<String>,
}

impl MemoryFilter {
    /// Whether a record passes.
    pub fn matches(&self, r: &MemoryRecord) -> bool {
        let ok = |want: &Option<String>, have: &Option<String>| want.is_none() || want == have;
        self.id.as_ref().is_none_or(|id| id == &r.id)
            && ok(&self.session_id, &r.session_id)
            && ok(&self.user_id, &r.user_id)
            && self.kind.as_ref().is_none_or(|k| k == &r.kind)
    }
}

/// A search result: the record and its cosine similarity to the query.
#[derive(Debug, Clone, PartialEq)]
pub struct MemoryHit {
    /// The record.
    pub record: MemoryRecord,
    /// Cosine similarity (1 is identical).
    pub score: f32,
}

/// Stores embeddings and finds the nearest.
pub trait VectorIndex: Send + Sync + 'static {
    /// Adds records with their (unit-length) embeddings.
    fn add<'a>(&'a self, records: &'a [(MemoryRecord, Vec<f32>)]) -> BoxFuture<'a, Result<()>>;
    /// The `k` records most similar to `query` among those `filter` admits, best first.
    fn search<'a>(
        &'a self,
        query: &'a [f32],
        k: usize,
        filter: &'a MemoryFilter,
    ) -> BoxFuture<'a, Result<Vec<MemoryHit>>>;
    /// Deletes the records `filter` admits; returns how many.
    fn delete<'a>(&'a self, filter: &'a MemoryFilter) -> BoxFuture<'a, Result<usize>>;
}

/// The dot product, written so the compiler vectorizes it.
///
/// ```
/// assert_eq!(lucid::memory::dot(&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0]), 32.0);
/// ```
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut lanes = [0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f32 = ca.remainder().iter().zip(cb.remainder()).map(|(x, y)| x * y).sum();
    for (x, y) in ca.zip(cb) {
        for i in 0..8 {
            lanes[i] += x[i] * y[i];
        }
    }
    lanes.iter().sum::<f32>() + tail
}

/// The indices of the `k` best scores, best first (for indexes that score every record
/// themselves).
///
/// ```
/// let best = lucid::memory::top_k(vec![(0.1, 0), (0.9, 1), (0.5, 2)], 2);
/// assert_eq!(best, [(0.9, 1), (0.5, 2)]);
/// ```
pub fn top_k(scores: Vec<(f32, usize)>, k: usize) -> Vec<(f32, usize)> {
    let mut scores = scores;
    if scores.len() > k && k > 0 {
        scores.select_nth_unstable_by(k - 1, |a, b| b.0.total_cmp(&a.0));
        scores.truncate(k);
    }
    scores.sort_by(|a, b| b.0.total_cmp(&a.0));
    scores.truncate(k);
    scores
}

into_shared! {
    /// Anything [`VectorIndex`] can be taken as: a value, an `Arc` of one, or an
    /// `Arc<dyn VectorIndex>`.
    ///
    /// ```
    /// use lucid::memory::{IntoVectorIndex, VectorIndex};
    /// use lucid_sqlite::SqliteVectorIndex;
    /// let dir = std::env::temp_dir().join(format!("lucid-into-index-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir).unwrap();
    /// let index = SqliteVectorIndex::open(dir.join("memory.db")).unwrap();
    /// let shared: std::sync::Arc<dyn VectorIndex> = index.into_shared();
    /// ```
    IntoVectorIndex::into_shared => VectorIndex
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_k_is_ordered_and_bounded() {
        let s = vec![(0.1, 0), (0.9, 1), (0.5, 2), (0.7, 3)];
        assert_eq!(top_k(s.clone(), 2), [(0.9, 1), (0.7, 3)]);
        assert_eq!(top_k(s, 10).len(), 4);
    }

    #[test]
    fn dot_handles_tails() {
        let a: Vec<f32> = (0..19).map(|i| i as f32).collect();
        let want: f32 = a.iter().map(|x| x * x).sum();
        assert_eq!(dot(&a, &a), want);
    }
}
