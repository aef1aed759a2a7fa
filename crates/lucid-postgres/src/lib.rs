//! # lucid-postgres
//!
//! Lucid's sessions and long-term memory in PostgreSQL, shared by many processes: the
//! [`PostgresStore`] of [`lucid::store::SessionStore`] (one transaction per turn, a
//! versioned schema migrated under an advisory lock, turn locks with `SELECT … FOR
//! UPDATE`) and the [`PgVectorIndex`] of [`lucid::memory::VectorIndex`] (pgvector with an
//! HNSW index).
//!
//! ```no_run
//! # async fn demo(model: lucid::model::OpenAiCompatible) -> Result<(), Box<dyn std::error::Error>> {
//! use lucid_postgres::PostgresStore;
//! let store = PostgresStore::connect("postgres://app@localhost/app").await?;
//! let agent = lucid::Agent::builder(model).store(store).build();
//! # let _ = agent; Ok(()) }
//! ```

#![warn(missing_docs)]

mod store;
mod vector;

pub use store::PostgresStore;
pub use vector::PgVectorIndex;
