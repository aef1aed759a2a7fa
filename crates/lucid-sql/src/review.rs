//! What a migration's rehearsal on a scratch copy found ([`Review`]): each statement's
//! effect, the rows and values it loses, the lint findings, and whether `down` restored
//! the schema and the data. The comparisons here are pure, over [`Snapshot`]s that
//! `dryrun.rs` reads from the scratch copy.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{Value, json};

use super::table::TableSchema;

/// A database's schema, normalized, and its rows in summary, at one moment of a rehearsal.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Snapshot {
    /// The tables and views: columns, types, nullability, keys, references, indexes.
    pub tables: Vec<TableSchema>,
    /// What the tables do not say, by a name a person reads (`index i on t`, `trigger g on
    /// t`, `view v`, `default of column c of t`, `checks of table t`): its normalized SQL.
    pub objects: BTreeMap<String, String>,
    /// Each table's rows in summary.
    pub data: BTreeMap<String, TableData>,
}

/// A table's rows: how many, a checksum of them (independent of their order), and how
/// many values each column holds (not NULL).
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct TableData {
    pub rows: u64,
    pub checksum: u64,
    pub filled: BTreeMap<String, u64>,
}

/// How serious a lint finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth knowing (a rename breaks code that uses the old name).
    Note,
    /// Destructive or locking: the approval should weigh it.
    Warning,
    /// The migration leaves the database broken (integrity, foreign keys): refused.
    Error,
}

/// One lint finding: the rule's name, how serious, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// The rule (`drop-column-with-data`, `foreign-key-without-index`…; Squawk's as
    /// `squawk:ban-drop-column`).
    pub rule: String,
    /// How serious it is.
    pub severity: Severity,
    /// What it found, and why it matters.
    pub why: String,
}

/// One statement of `up` as it ran on the scratch copy.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StatementEffect {
    /// The statement (its first line).
    pub sql: String,
    /// The rows it inserted, updated or deleted.
    pub rows_affected: u64,
    /// What it changed in the schema (`column c added to t`…).
    pub changes: Vec<String>,
}

/// What a migration does, found by running it on a scratch copy of the database before
/// it touches the real one: the statements' effects, the data lost, the lint findings,
/// and the differences left after `up` then `down` (none when `down` restores).
///
/// ```
/// let review = lucid_sql::Review::default();
/// assert!(review.restores() && review.to_text().contains("down restores"));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Review {
    /// Each statement of `up`, in order.
    pub statements: Vec<StatementEffect>,
    /// What `up` changed in all: tables, columns, indexes, triggers, views, row counts.
    pub changes: Vec<String>,
    /// The data `up` loses (`12 values of column email of user`, `3 rows of table t`).
    pub lost: Vec<String>,
    /// The lint findings, `up`'s and the database's checks after it.
    pub findings: Vec<Finding>,
    /// What differs after `up` then `down` from the database before (empty: restored).
    pub not_restored: Vec<String>,
    /// The `down` rehearsed (the caller's, or the one made from the schemas).
    pub down: String,
}

impl Review {
    /// Whether `down` brought back the schema and the rows exactly.
    pub fn restores(&self) -> bool {
        self.not_restored.is_empty()
    }

    /// The findings that refuse the migration (the database left broken).
    pub fn errors(&self) -> Vec<&Finding> {
        self.findings.iter().filter(|f| f.severity == Severity::Error).collect()
    }

    /// The review as a person reads it before approving: effects, data lost, lint, and
    /// the restore check.
    pub fn to_text(&self) -> String {
        let mut out = String::from("Rehearsed before anything is applied (up, then down):\n");
        for (n, s) in self.statements.iter().enumerate() {
            out.push_str(&format!("  {}. {} — {} rows affected", n + 1, s.sql, s.rows_affected));
            if !s.changes.is_empty() {
                out.push_str(&format!("; {}", s.changes.join("; ")));
            }
            out.push('\n');
        }
        if self.lost.is_empty() {
            out.push_str("Data lost: none\n");
        } else {
            out.push_str(&format!("Data lost: {}\n", self.lost.join("; ")));
        }
        if self.findings.is_empty() {
            out.push_str("Lint: clean\n");
        }
        for f in &self.findings {
            let word = match f.severity {
                Severity::Note => "note",
                Severity::Warning => "warning",
                Severity::Error => "error",
            };
            out.push_str(&format!("Lint {word} [{}]: {}\n", f.rule, f.why));
        }
        if self.restores() {
            out.push_str("Restore check: down restores the schema and every table's rows\n");
        } else {
            out.push_str(&format!("Restore check: down does not restore: {}\n", self.not_restored.join("; ")));
        }
        out
    }

    /// The review as JSON, for the tool's answer.
    pub(super) fn to_json(&self) -> Value {
        json!({
            "statements": self.statements,
            "changes": self.changes,
            "lost": self.lost,
            "lint": self.findings,
            "restores": self.restores(),
            "not_restored": self.not_restored,
        })
    }
}

/// What changed from `old` to `new` in the schema, one line a change.
pub(super) fn schema_changes(old: &Snapshot, new: &Snapshot) -> Vec<String> {
    let mut out = Vec::new();
    let find = |list: &[TableSchema], name: &str| list.iter().find(|t| t.name == name).cloned();
    for t in &new.tables {
        match find(&old.tables, &t.name) {
            None => out.push(format!("{} {} added", t.kind, t.name)),
            Some(b) if b != *t => {
                for c in &t.columns {
                    match b.columns.iter().find(|o| o.name == c.name) {
                        None => out.push(format!("column {} added to {}", c.name, t.name)),
                        Some(o) if o != c => out.push(format!(
                            "column {} of {} changed from {} to {}",
                            c.name,
                            t.name,
                            column_text(o),
                            column_text(c)
                        )),
                        Some(_) => {}
                    }
                }
                for c in b.columns.iter().filter(|c| !t.columns.iter().any(|n| n.name == c.name)) {
                    out.push(format!("column {} dropped from {}", c.name, t.name));
                }
                if b.columns.iter().map(|c| &c.name).ne(t.columns.iter().map(|c| &c.name))
                    && b.columns.len() == t.columns.len()
                {
                    out.push(format!("columns of {} reordered", t.name));
                }
                for i in t.indexes.iter().filter(|i| !b.indexes.contains(i)) {
                    out.push(format!("index {} on {} added", index_name(i), t.name));
                }
                for i in b.indexes.iter().filter(|i| !t.indexes.contains(i)) {
                    out.push(format!("index {} on {} dropped", index_name(i), t.name));
                }
            }
            Some(_) => {}
        }
    }
    for t in old.tables.iter().filter(|t| find(&new.tables, &t.name).is_none()) {
        out.push(format!("{} {} dropped", t.kind, t.name));
    }
    for (name, sql) in &new.objects {
        match old.objects.get(name) {
            None => out.push(format!("{name} added")),
            Some(o) if o != sql => out.push(format!("{name} changed")),
            Some(_) => {}
        }
    }
    for name in old.objects.keys().filter(|n| !new.objects.contains_key(*n)) {
        out.push(format!("{name} dropped"));
    }
    let mut seen = std::collections::HashSet::new();
    out.retain(|line| seen.insert(line.clone()));
    out
}

fn column_text(c: &super::table::ColumnSchema) -> String {
    let mut s = if c.ty.is_empty() { "(no type)".to_string() } else { c.ty.clone() };
    if c.not_null {
        s.push_str(" NOT NULL");
    }
    if c.primary_key {
        s.push_str(" PRIMARY KEY");
    }
    if let Some(r) = &c.references {
        s.push_str(&format!(" REFERENCES {r}"));
    }
    s
}

/// What `up` lost, from the snapshots before and after it: the rows of a table dropped,
/// the values of a column dropped, and rows deleted from a table that stays.
pub(super) fn data_lost(before: &Snapshot, after: &Snapshot) -> Vec<String> {
    let mut out = Vec::new();
    for (table, b) in &before.data {
        let Some(a) = after.data.get(table) else {
            if b.rows > 0 {
                out.push(format!("{} rows of table {table} (dropped)", b.rows));
            }
            continue;
        };
        for (column, filled) in &b.filled {
            if *filled > 0 && !a.filled.contains_key(column) {
                out.push(format!("{filled} values of column {column} of {table} (dropped)"));
            }
        }
        if a.rows < b.rows {
            out.push(format!(
                "{} rows of table {table} (deleted: {} before, {} after)",
                b.rows - a.rows,
                b.rows,
                a.rows
            ));
        }
    }
    out
}

/// What differs in `now` from `before` (after `up` then `down`): every table, column,
/// key, index, trigger, view, default and check, and every table's rows. Empty when
/// `down` restored all of it.
pub(super) fn differences(before: &Snapshot, now: &Snapshot) -> Vec<String> {
    let mut out = Vec::new();
    let find = |list: &[TableSchema], name: &str| list.iter().find(|t| t.name == name).cloned();
    for t in &before.tables {
        let Some(n) = find(&now.tables, &t.name) else {
            out.push(format!("{} {} is missing", t.kind, t.name));
            continue;
        };
        for c in &t.columns {
            match n.columns.iter().find(|x| x.name == c.name) {
                None => out.push(format!("column {} of {} is missing", c.name, t.name)),
                Some(x) if x != c => out.push(format!(
                    "column {} of {} is {} instead of {}",
                    c.name,
                    t.name,
                    column_text(x),
                    column_text(c)
                )),
                Some(_) => {}
            }
        }
        for c in n.columns.iter().filter(|x| !t.columns.iter().any(|c| c.name == x.name)) {
            out.push(format!("column {} of {} is left over", c.name, t.name));
        }
        let order = |s: &TableSchema| s.columns.iter().map(|c| c.name.clone()).collect::<Vec<_>>();
        if order(t) != order(&n) && t.columns.len() == n.columns.len() {
            out.push(format!("the columns of {} are in another order", t.name));
        }
        for i in t.indexes.iter().filter(|i| !n.indexes.contains(i)) {
            out.push(format!("index {} on {} is missing", index_name(i), t.name));
        }
        for i in n.indexes.iter().filter(|i| !t.indexes.contains(i)) {
            out.push(format!("index {} on {} is left over", index_name(i), n.name));
        }
    }
    for t in now.tables.iter().filter(|t| find(&before.tables, &t.name).is_none()) {
        out.push(format!("{} {} is left over", t.kind, t.name));
    }
    for (name, sql) in &before.objects {
        match now.objects.get(name) {
            None if !covered(name, &out) => out.push(format!("{name} is missing")),
            Some(n) if n != sql => out.push(format!("{name} differs")),
            _ => {}
        }
    }
    for name in now.objects.keys().filter(|n| !before.objects.contains_key(*n)) {
        if !covered(name, &out) {
            out.push(format!("{name} is left over"));
        }
    }
    for (table, b) in &before.data {
        match now.data.get(table) {
            Some(n) if n.rows != b.rows => {
                out.push(format!("table {table} has {} rows instead of {}", n.rows, b.rows));
            }
            Some(n) if n.checksum != b.checksum || n.filled != b.filled => {
                let lost: Vec<String> = b
                    .filled
                    .iter()
                    .filter(|(c, f)| n.filled.get(*c).is_some_and(|g| g != *f))
                    .map(|(c, f)| format!("{c} ({f} values before, {} after)", n.filled.get(c).copied().unwrap_or(0)))
                    .collect();
                if lost.is_empty() {
                    out.push(format!("the rows of table {table} differ (same count, other values)"));
                } else {
                    out.push(format!("the values of table {table} are not restored: {}", lost.join(", ")));
                }
            }
            _ => {}
        }
    }
    out
}

/// Whether a line about an index already names the object `name` (`index i on t`).
fn covered(name: &str, out: &[String]) -> bool {
    out.iter().any(|line| line.starts_with(name))
}

/// An index's name in the listing `name [unique] (columns)`.
fn index_name(listed: &str) -> &str {
    super::guard::leading_name(listed).map_or(listed, |(_, rest)| {
        let end = listed.len() - rest.len();
        &listed[..end]
    })
}

#[cfg(test)]
mod tests {
    use super::super::table::ColumnSchema;
    use super::*;

    fn table(name: &str, columns: &[&str], indexes: &[&str]) -> TableSchema {
        TableSchema {
            name: name.into(),
            kind: "table".into(),
            columns: columns
                .iter()
                .map(|c| ColumnSchema { name: (*c).into(), ty: "TEXT".into(), ..Default::default() })
                .collect(),
            indexes: indexes.iter().map(|i| (*i).to_string()).collect(),
            schema: None,
        }
    }

    fn data(rows: u64, checksum: u64, filled: &[(&str, u64)]) -> TableData {
        TableData { rows, checksum, filled: filled.iter().map(|(c, n)| ((*c).to_string(), *n)).collect() }
    }

    #[test]
    fn differences_name_what_down_did_not_bring_back() {
        let mut before = Snapshot { tables: vec![table("t", &["a", "b"], &["idx_x (a)"])], ..Default::default() };
        before.objects.insert("index idx_x on t".into(), "CREATE INDEX idx_x ON t (a)".into());
        before.objects.insert("view v".into(), "CREATE VIEW v AS SELECT a FROM t".into());
        before.data.insert("t".into(), data(3, 7, &[("a", 3), ("b", 2)]));
        assert!(differences(&before, &before).is_empty());

        let mut now = Snapshot { tables: vec![table("t", &["a", "b"], &[])], ..Default::default() };
        now.objects.insert("view v".into(), "CREATE VIEW v AS SELECT b FROM t".into());
        now.data.insert("t".into(), data(3, 9, &[("a", 3), ("b", 0)]));
        assert_eq!(
            differences(&before, &now),
            [
                "index idx_x on t is missing",
                "view v differs",
                "the values of table t are not restored: b (2 values before, 0 after)",
            ]
        );
        let after = Snapshot {
            tables: vec![table("t", &["a"], &["idx_x (a)"])],
            data: [("t".to_string(), data(3, 1, &[("a", 3)]))].into(),
            ..Default::default()
        };
        assert_eq!(data_lost(&before, &after), ["2 values of column b of t (dropped)"]);
        assert_eq!(
            schema_changes(&before, &after),
            ["column b dropped from t", "index idx_x on t dropped", "view v dropped"]
        );
        let mut dropped = after.clone();
        dropped.tables[0].indexes.clear();
        assert_eq!(schema_changes(&before, &dropped)[1..], ["index idx_x on t dropped", "view v dropped"]);
    }
}
