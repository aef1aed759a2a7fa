//! # lucid-sqlite
//!
//! Lucid's sessions and long-term memory in one SQLite file, with no server: the
//! [`SqliteStore`] of [`lucid::store::SessionStore`] (WAL, one transaction per turn, turn
//! locks across processes) and the [`SqliteVectorIndex`] of
//! [`lucid::memory::VectorIndex`] (exact search over an in-memory copy).
//!
//! ```no_run
//! # fn demo(model: lucid::model::OpenAiCompatible) -> Result<(), Box<dyn std::error::Error>> {
//! use lucid_sqlite::SqliteStore;
//! let agent = lucid::Agent::builder(model).store(SqliteStore::open("sessions.db")?).build();
//! # let _ = agent; Ok(()) }
//! ```
//!
//! The feature `bundled` compiles SQLite in; without it the system's libsqlite3 is linked.

#![warn(missing_docs)]

mod store;
mod vector;

pub use store::SqliteStore;
pub use vector::SqliteVectorIndex;
