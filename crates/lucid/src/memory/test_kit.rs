//! The conformance suite every [`VectorIndex`] in this crate passes, for indexes written
//! outside it (feature `test-kit`).
//!
//! ```no_run
//! # async fn demo() -> lucid::Result<()> {
//! use std::sync::Arc;
//! use lucid::memory::test_kit;
//! use lucid_sqlite::SqliteVectorIndex;
//! // In a test of your own index, empty and ready for vectors of `test_kit::DIM` dimensions:
//! let dir = std::env::temp_dir().join("my-index-test");
//! test_kit::suite(Arc::new(SqliteVectorIndex::open(dir.join("a.db"))?)).await; // panics on the first failure
//! // Two handles on one storage (two processes, as far as the index knows):
//! let (a, b) = (SqliteVectorIndex::open(dir.join("b.db"))?, SqliteVectorIndex::open(dir.join("b.db"))?);
//! test_kit::two_handles(Arc::new(a), Arc::new(b)).await;
//! # Ok(()) }
//! ```
//!
//! What the suite asserts is what [`VectorIndex`] promises and every index here keeps:
//! records come back exactly as added; search ranks by cosine similarity (the score is the
//! dot product of the unit-length query and embedding), best first, at most `k`, among the
//! records a [`MemoryFilter`] admits (by id, session, user and kind; unset fields match
//! all); adding a record whose id is stored replaces its text and embedding (one record
//! per id); delete removes what its filter admits and counts it; an empty index finds
//! nothing; a query with the wrong number of dimensions is an error once the index holds
//! vectors. It leaves alone what the indexes here differ on: whether re-adding an id also
//! replaces its kind, session, user or metadata (the suite re-adds with the same ones), and
//! whether a vector of the wrong size is refused when added or when searched.

use std::sync::Arc;

use serde_json::json;

use super::vector::{MemoryFilter, MemoryRecord, VectorIndex, dot};

/// The number of dimensions of every vector the suites add and search with.
pub const DIM: usize = 4;

/// A record of the suites: `id`, a non-ASCII text naming it, in `session` of user `ada` (or
/// of no one for `session` `None`), of `kind`, with metadata to round-trip.
///
/// ```
/// let r = lucid::memory::test_kit::record("m1", Some("s1"), "fact");
/// assert_eq!((r.id.as_str(), r.session_id.as_deref(), r.user_id.as_deref()), ("m1", Some("s1"), Some("ada")));
/// ```
pub fn record(id: &str, session: Option<&str>, kind: &str) -> MemoryRecord {
    MemoryRecord {
        id: id.into(),
        text: format!("mémoire {id} ✓"),
        kind: kind.into(),
        session_id: session.map(str::to_string),
        user_id: session.map(|_| "ada".to_string()),
        created_at: 1_700_000_000_000 + id.len() as i64,
        metadata: json!({"source": id, "tags": ["a", "ü"], "n": 1.5}),
    }
}

/// A unit vector at `angle` radians in the plane of the first two dimensions, tilted out
/// of it by `lift`: vectors of the suites are ranked by how close their angles are.
///
/// ```
/// use lucid::memory::{dot, test_kit::unit};
/// assert!((dot(&unit(0.3, 0.2), &unit(0.3, 0.2)) - 1.0).abs() < 1e-6);
/// assert!(dot(&unit(0.0, 0.0), &unit(0.1, 0.0)) > dot(&unit(0.0, 0.0), &unit(0.5, 0.0)));
/// ```
pub fn unit(angle: f32, lift: f32) -> Vec<f32> {
    let mut v = vec![0.0; DIM];
    v[0] = angle.cos() * lift.cos();
    v[1] = angle.sin() * lift.cos();
    v[2] = lift.sin();
    v
}

fn filter(f: impl FnOnce(&mut MemoryFilter)) -> MemoryFilter {
    let mut filter = MemoryFilter::default();
    f(&mut filter);
    filter
}

/// The ids `index` finds for `query` among what `filter` admits, best first.
async fn ids(index: &dyn VectorIndex, query: &[f32], k: usize, filter: &MemoryFilter) -> Vec<String> {
    let hits = index.search(query, k, filter).await.expect("search");
    hits.into_iter().map(|h| h.record.id).collect()
}

/// Runs the shared behaviour against `index`, which must be empty and take vectors of
/// [`DIM`] dimensions, and panics on the first difference (see the module's docs for what
/// is asserted). It leaves the index empty.
pub async fn suite(index: Arc<dyn VectorIndex>) {
    let index = index.as_ref();
    let all = MemoryFilter::default();
    assert!(index.search(&unit(0.0, 0.0), 5, &all).await.expect("searching an empty index").is_empty());
    assert_eq!(index.delete(&all).await.expect("deleting from an empty index"), 0);

    let added = [
        (record("a", Some("s1"), "summary"), unit(0.0, 0.0)),
        (record("b", Some("s1"), "summary"), unit(0.4, 0.0)),
        (record("c", Some("s2"), "summary"), unit(1.2, 0.0)),
        (record("d", Some("s1"), "fact"), unit(0.15, 0.0)),
        (record("e", None, "fact"), unit(2.5, 0.3)),
    ];
    index.add(&added).await.expect("add");
    let query = unit(0.05, 0.0);
    let hits = index.search(&query, 10, &all).await.unwrap();
    let order: Vec<&str> = hits.iter().map(|h| h.record.id.as_str()).collect();
    assert_eq!(order, ["a", "d", "b", "c", "e"], "every record, most similar first");
    for hit in &hits {
        let (record, vector) = added.iter().find(|(r, _)| r.id == hit.record.id).unwrap();
        assert_eq!(&hit.record, record, "a record comes back exactly as added");
        let cosine = dot(&query, vector);
        assert!((hit.score - cosine).abs() < 1e-3, "{}: score {} for a cosine of {cosine}", record.id, hit.score);
    }
    assert_eq!(ids(index, &query, 2, &all).await, ["a", "d"], "at most k, the best");
    assert!(ids(index, &query, 0, &all).await.is_empty(), "k = 0 finds nothing");
    assert_eq!(ids(index, &unit(1.3, 0.0), 1, &all).await, ["c"], "the nearest to another query");

    let s1 = filter(|f| f.session_id = Some("s1".into()));
    assert_eq!(ids(index, &unit(1.3, 0.0), 10, &s1).await, ["b", "d", "a"], "one session's records");
    let facts = filter(|f| f.kind = Some("fact".into()));
    assert_eq!(ids(index, &query, 10, &facts).await, ["d", "e"], "one kind's records");
    let s1_summaries = filter(|f| (f.session_id, f.kind) = (Some("s1".into()), Some("summary".into())));
    assert_eq!(ids(index, &unit(1.3, 0.0), 10, &s1_summaries).await, ["b", "a"], "session and kind together");
    let ada = filter(|f| f.user_id = Some("ada".into()));
    assert_eq!(ids(index, &query, 10, &ada).await, ["a", "d", "b", "c"], "one user's records");
    let one = filter(|f| f.id = Some("c".into()));
    assert_eq!(ids(index, &query, 10, &one).await, ["c"], "one record by id, however far");
    let nobody = filter(|f| f.session_id = Some("s9".into()));
    assert!(ids(index, &query, 10, &nobody).await.is_empty(), "a session with no records");

    assert!(index.search(&[1.0, 0.0], 3, &all).await.is_err(), "a query with the wrong number of dimensions");

    let mut moved = record("c", Some("s2"), "summary");
    moved.text = "déplacée".into();
    index.add(&[(moved, unit(0.02, 0.0))]).await.expect("adding an id again");
    let hits = index.search(&query, 10, &all).await.unwrap();
    let order: Vec<&str> = hits.iter().map(|h| h.record.id.as_str()).collect();
    assert_eq!(order, ["c", "a", "d", "b", "e"], "re-adding an id replaces its embedding and keeps one record");
    assert_eq!(hits[0].record.text, "déplacée", "re-adding an id replaces its text");

    assert_eq!(index.delete(&s1_summaries).await.unwrap(), 2, "delete counts what it removed");
    assert_eq!(ids(index, &query, 10, &all).await, ["c", "d", "e"]);
    assert_eq!(index.delete(&s1_summaries).await.unwrap(), 0, "nothing left to delete");
    assert_eq!(index.delete(&filter(|f| f.id = Some("e".into()))).await.unwrap(), 1, "delete by id");
    assert_eq!(ids(index, &query, 10, &all).await, ["c", "d"]);
    assert_eq!(index.delete(&all).await.unwrap(), 2, "an empty filter deletes everything");
    assert!(ids(index, &query, 10, &all).await.is_empty());
}

/// Two handles `a` and `b` on the same, empty storage (two processes sharing a file or a
/// database): what one adds, replaces or deletes, the other finds at its next search, even
/// after it has searched before. Panics on the first difference; leaves the storage empty.
pub async fn two_handles(a: Arc<dyn VectorIndex>, b: Arc<dyn VectorIndex>) {
    let all = MemoryFilter::default();
    let query = unit(0.0, 0.0);
    a.add(&[(record("x", Some("s1"), "fact"), unit(0.1, 0.0))]).await.unwrap();
    assert_eq!(ids(b.as_ref(), &query, 10, &all).await, ["x"], "a record the other handle added");
    b.add(&[(record("y", Some("s1"), "fact"), unit(0.05, 0.0))]).await.unwrap();
    assert_eq!(ids(a.as_ref(), &query, 10, &all).await, ["y", "x"], "added after this handle searched");
    let mut moved = record("x", Some("s1"), "fact");
    moved.text = "x again".into();
    b.add(&[(moved, unit(0.01, 0.0))]).await.unwrap();
    let hits = a.search(&query, 10, &all).await.unwrap();
    let seen: Vec<(&str, &str)> = hits.iter().map(|h| (h.record.id.as_str(), h.record.text.as_str())).collect();
    assert_eq!(seen, [("x", "x again"), ("y", "mémoire y ✓")], "a record the other handle replaced, once");
    assert_eq!(b.delete(&filter(|f| f.id = Some("y".into()))).await.unwrap(), 1);
    assert_eq!(ids(a.as_ref(), &query, 10, &all).await, ["x"], "a record the other handle deleted is gone");
    assert_eq!(a.delete(&all).await.unwrap(), 1);
    assert!(ids(b.as_ref(), &query, 10, &all).await.is_empty());
}
