//! A saved schema version and the pruning rule, shared by the schema history's SQLite
//! file (`history.rs`) and its Postgres store (`history_pg.rs`).

use serde::Serialize;

use super::table::TableSchema;

/// One saved schema version.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Version {
    /// Its number (unique in the file).
    pub id: i64,
    /// When it was saved, in milliseconds since the Unix epoch.
    pub created_at: i64,
    /// What the agent or user said about it.
    pub message: String,
    /// `current` (read from the database) or `proposed` (the current schema with DDL the
    /// agent proposed laid over it).
    pub kind: String,
    #[serde(skip)]
    pub(super) tables: Vec<TableSchema>,
}

/// The ids the pruning rule drops from `all` (`(id, created_at)`, newest first): beyond
/// the newest `keep`, all but the newest of each UTC day.
pub(super) fn pruned(all: &[(i64, i64)], keep: usize) -> Vec<i64> {
    let mut days = std::collections::HashSet::new();
    all.iter().skip(keep).filter(|(_, at)| !days.insert(at.div_euclid(86_400_000))).map(|(id, _)| *id).collect()
}

/// A version read back, its tables from their JSON text.
pub(super) fn version(id: i64, created_at: i64, message: String, kind: String, tables: &str) -> Version {
    Version { id, created_at, message, kind, tables: serde_json::from_str(tables).unwrap_or_default() }
}
