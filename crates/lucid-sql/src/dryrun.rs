//! The rehearsal of a SQLite migration on a scratch copy, before the real database is
//! touched: the file is copied (`VACUUM INTO`, a consistent snapshot) into a private
//! folder of its own, `up` runs there statement by statement in one transaction (confined
//! as on the real file), its effects and losses are measured, SQLite's
//! `foreign_key_check` and `integrity_check` run, then `down` runs and the schema and the
//! rows are compared with the copy as it was. The folder is removed on every exit.

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

use rusqlite::types::ValueRef;
use rusqlite::{Connection, OpenFlags};

use super::SqlError;
use super::diff::migration;
use super::guard::{self, Dialect, ident};
use super::lexer::{Rules, Token, lex};
use super::lint::{Checks, lint};
use super::review::{Review, Snapshot, StatementEffect, TableData, data_lost, differences, schema_changes};
use super::sqlite::{confine, describe_all, run_each, unconfine};

/// A folder of its own under `parent`, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(parent: &Path) -> Result<Self, SqlError> {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = parent.join(format!("lucid-scratch-{}-{n}", std::process::id()));
        let mut builder = std::fs::DirBuilder::new();
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        builder.create(&dir).map_err(|e| {
            SqlError::Database(format!(
                "the scratch folder {} could not be made: {e}; nothing was applied",
                dir.display()
            ))
        })?;
        Ok(Scratch(dir))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Where a rehearsal puts the handle that interrupts its scratch connection, once open.
pub(super) type Interrupt = std::sync::Arc<std::sync::Mutex<Option<rusqlite::InterruptHandle>>>;

/// Rehearses `up` then `down` (or, without it, the DDL back to the schema before) on a
/// scratch copy of the SQLite file at `path`, in a folder made under `parent`. The copy
/// may grow to twice its size and 64 MiB more; `interrupt` receives the handle that stops
/// it.
pub(super) fn rehearse(
    path: &Path,
    up: &str,
    down: Option<&str>,
    parent: &Path,
    interrupt: &Interrupt,
) -> Result<Review, SqlError> {
    let up: Vec<String> =
        guard::statements(up, Dialect::Sqlite, "the migration")?.into_iter().map(str::to_string).collect();
    let given_down: Option<Vec<String>> = match down {
        Some(d) => Some(
            guard::statements(d, Dialect::Sqlite, "the migration's down")?.into_iter().map(str::to_string).collect(),
        ),
        None => None,
    };
    let scratch = Scratch::new(parent)?;
    let copy = scratch.0.join("scratch.db");
    let source = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY).map_err(scratch_error)?;
    source
        .execute("VACUUM INTO ?1", [copy.to_string_lossy().as_ref()])
        .map_err(|e| SqlError::Database(format!("the scratch copy could not be made: {e}; nothing was applied")))?;
    drop(source);
    let mut conn = Connection::open_with_flags(&copy, OpenFlags::SQLITE_OPEN_READ_WRITE).map_err(scratch_error)?;
    if let Ok(mut slot) = interrupt.lock() {
        *slot = Some(conn.get_interrupt_handle());
    }
    let pages: i64 = conn.query_row("PRAGMA page_count", [], |r| r.get(0)).map_err(scratch_error)?;
    let size: i64 = conn.query_row("PRAGMA page_size", [], |r| r.get(0)).map_err(scratch_error)?;
    conn.pragma_update(None, "max_page_count", pages * 2 + (64 << 20) / size.max(512)).map_err(scratch_error)?;
    let before = snapshot(&conn)?;
    let fk_before = foreign_key_check(&conn).map_or(0, |found| found.iter().map(|(_, n)| n).sum());

    let mut statements = Vec::with_capacity(up.len());
    conn.execute_batch("BEGIN IMMEDIATE").map_err(scratch_error)?;
    let mut last = before.clone();
    for (n, statement) in up.iter().enumerate() {
        let changes = conn.total_changes();
        confine(&mut conn)?;
        let ran = run_each(&conn, std::slice::from_ref(statement));
        unconfine(&mut conn)?;
        if let Err(e) = ran {
            let _ = conn.execute_batch("ROLLBACK");
            let why = e.to_string().replacen("statement 1 failed", &format!("statement {} failed", n + 1), 1);
            return Err(SqlError::Database(format!(
                "the migration failed on a scratch copy and was rolled back there; the database was not touched: {why}"
            )));
        }
        let now = snapshot_schema(&conn)?;
        statements.push(StatementEffect {
            sql: first_line(statement),
            rows_affected: conn.total_changes().saturating_sub(changes),
            changes: schema_changes(&last, &now),
        });
        last = now;
    }
    conn.execute_batch("COMMIT").map_err(scratch_error)?;
    let after = snapshot(&conn)?;
    let (foreign_keys_after, foreign_keys_unreadable) = match foreign_key_check(&conn) {
        Ok(found) => (found, None),
        Err(e) => (Vec::new(), Some(e.to_string())),
    };
    let checks = Checks {
        foreign_keys_before: fk_before,
        foreign_keys_after,
        foreign_keys_unreadable,
        integrity: integrity_check(&conn)?,
    };
    let findings = lint(Dialect::Sqlite, &up, &before, &after, &checks);

    let down = given_down.unwrap_or_else(|| migration(&after.tables, &before.tables));
    let mut not_restored = Vec::new();
    conn.execute_batch("BEGIN IMMEDIATE").map_err(scratch_error)?;
    confine(&mut conn)?;
    let ran = run_each(&conn, &down);
    unconfine(&mut conn)?;
    match ran {
        Ok(()) => {
            conn.execute_batch("COMMIT").map_err(scratch_error)?;
            not_restored = differences(&before, &snapshot(&conn)?);
        }
        Err(e) => {
            let _ = conn.execute_batch("ROLLBACK");
            not_restored
                .push(format!("down fails after up: {}", e.to_string().replacen("statement", "its statement", 1)));
        }
    }
    Ok(Review {
        statements,
        changes: schema_changes(&before, &after),
        lost: data_lost(&before, &after),
        findings,
        not_restored,
        down: down.join(";\n"),
    })
}

fn scratch_error(e: rusqlite::Error) -> SqlError {
    SqlError::Database(format!("the scratch copy: {e}"))
}

pub(super) fn first_line(statement: &str) -> String {
    let line = statement.lines().next().unwrap_or("").trim();
    let cut: String = line.chars().take(100).collect();
    if cut.len() < statement.trim().len() { format!("{cut}…") } else { cut }
}

/// The schema alone (no rows): tables and the objects beside them.
fn snapshot_schema(conn: &Connection) -> Result<Snapshot, SqlError> {
    Ok(Snapshot { tables: describe_all(conn)?, objects: objects(conn)?, data: Default::default() })
}

/// The schema and every table's rows in summary.
fn snapshot(conn: &Connection) -> Result<Snapshot, SqlError> {
    let mut s = snapshot_schema(conn)?;
    for t in s.tables.iter().filter(|t| t.kind == "table") {
        let virtual_table: bool = conn
            .query_row("SELECT sql LIKE 'CREATE VIRTUAL%' FROM sqlite_schema WHERE name = ?1", [&t.name], |r| r.get(0))
            .map_err(scratch_error)?;
        if virtual_table {
            continue;
        }
        let mut columns: Vec<&str> = t.columns.iter().map(|c| c.name.as_str()).collect();
        columns.sort_unstable();
        s.data.insert(t.name.clone(), table_data(conn, &t.name, &columns)?);
    }
    Ok(s)
}

/// A table's row count, its checksum (a sum of each row's hash, its columns in name
/// order: the same rows in any order sum the same) and each column's values.
fn table_data(conn: &Connection, table: &str, columns: &[&str]) -> Result<TableData, SqlError> {
    let list: Vec<String> = columns.iter().map(|c| ident(c)).collect();
    let counts: Vec<String> = list.iter().map(|c| format!("count({c})")).collect();
    let mut data = TableData::default();
    let mut stmt = conn
        .prepare(&format!(
            "SELECT count(*){}{} FROM {}",
            if counts.is_empty() { "" } else { ", " },
            counts.join(", "),
            ident(table)
        ))
        .map_err(scratch_error)?;
    let row: Vec<i64> = stmt
        .query_row([], |r| (0..=columns.len()).map(|i| r.get::<_, i64>(i)).collect::<Result<_, _>>())
        .map_err(scratch_error)?;
    data.rows = row[0].max(0) as u64;
    for (c, n) in columns.iter().zip(&row[1..]) {
        data.filled.insert((*c).to_string(), (*n).max(0) as u64);
    }
    if columns.is_empty() {
        return Ok(data);
    }
    let mut stmt = conn.prepare(&format!("SELECT {} FROM {}", list.join(", "), ident(table))).map_err(scratch_error)?;
    let mut rows = stmt.query([]).map_err(scratch_error)?;
    while let Some(r) = rows.next().map_err(scratch_error)? {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        for i in 0..columns.len() {
            match r.get_ref(i).map_err(scratch_error)? {
                ValueRef::Null => 0u8.hash(&mut h),
                ValueRef::Integer(v) => (1u8, v).hash(&mut h),
                ValueRef::Real(v) => (2u8, v.to_bits()).hash(&mut h),
                ValueRef::Text(v) => (3u8, v).hash(&mut h),
                ValueRef::Blob(v) => (4u8, v).hash(&mut h),
            }
        }
        data.checksum = data.checksum.wrapping_add(h.finish());
    }
    Ok(data)
}

/// The indexes, triggers and views (their SQL, normalized), the columns' defaults and the
/// tables' CHECK constraints and foreign key actions: what [`describe_all`] does not say.
fn objects(conn: &Connection) -> Result<std::collections::BTreeMap<String, String>, SqlError> {
    let mut out = std::collections::BTreeMap::new();
    let mut stmt = conn
        .prepare(
            "SELECT type, name, tbl_name, sql FROM sqlite_schema WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%'",
        )
        .map_err(scratch_error)?;
    let rows: Vec<(String, String, String, String)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .map_err(scratch_error)?
        .collect::<Result<_, _>>()
        .map_err(scratch_error)?;
    for (kind, name, table, sql) in rows {
        match kind.as_str() {
            "index" | "trigger" => {
                out.insert(format!("{kind} {name} on {table}"), normalized(&sql));
            }
            "view" => {
                out.insert(format!("view {name}"), normalized(&sql));
            }
            "table" => {
                let checks = checks(&sql);
                if !checks.is_empty() {
                    out.insert(format!("checks of table {name}"), checks.join(", "));
                }
                let mut cols = conn
                    .prepare("SELECT name, dflt_value FROM pragma_table_xinfo(?1) WHERE dflt_value IS NOT NULL")
                    .map_err(scratch_error)?;
                let defaults = cols
                    .query_map([&name], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))
                    .map_err(scratch_error)?;
                for d in defaults {
                    let (column, value) = d.map_err(scratch_error)?;
                    out.insert(format!("default of column {column} of {name}"), value);
                }
                let mut fks = conn
                    .prepare("SELECT \"from\", on_update, on_delete FROM pragma_foreign_key_list(?1)")
                    .map_err(scratch_error)?;
                let actions = fks
                    .query_map([&name], |r| {
                        Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?))
                    })
                    .map_err(scratch_error)?;
                for a in actions {
                    let (column, update, delete) = a.map_err(scratch_error)?;
                    if (update.as_str(), delete.as_str()) != ("NO ACTION", "NO ACTION") {
                        out.insert(
                            format!("foreign key actions of column {column} of {name}"),
                            format!("ON UPDATE {update} ON DELETE {delete}"),
                        );
                    }
                }
            }
            _ => {}
        }
    }
    Ok(out)
}

/// SQL with its spaces and comments left out and its keywords upper-cased, so the same
/// definition written twice compares equal.
fn normalized(sql: &str) -> String {
    let Ok(tokens) = lex(sql, Rules::Sqlite) else { return sql.split_whitespace().collect::<Vec<_>>().join(" ") };
    let mut out = Vec::new();
    for t in tokens {
        match t.token {
            Token::Space | Token::Comment => {}
            // Names are the same in any case, quoted or not, in SQLite.
            Token::Word { value, .. } => out.push(ident(&value.to_ascii_uppercase())),
            _ => out.push(sql[t.start..t.end].to_string()),
        }
    }
    out.join(" ")
}

/// The `CHECK (…)` clauses of a `CREATE TABLE`, normalized.
fn checks(sql: &str) -> Vec<String> {
    let Ok(tokens) = lex(sql, Rules::Sqlite) else { return Vec::new() };
    let tokens: Vec<_> = tokens.into_iter().filter(|t| !matches!(t.token, Token::Space | Token::Comment)).collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let is_check =
            matches!(&tokens[i].token, Token::Word { value, quoted: false } if value.eq_ignore_ascii_case("CHECK"));
        if !is_check {
            i += 1;
            continue;
        }
        let start = tokens[i].start;
        let mut depth = 0usize;
        let mut j = i + 1;
        while j < tokens.len() {
            match tokens[j].token {
                Token::LParen => depth += 1,
                Token::RParen => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        break;
                    }
                }
                _ => {}
            }
            j += 1;
        }
        let end = tokens.get(j).map_or(sql.len(), |t| t.end);
        out.push(normalized(&sql[start..end]));
        i = j + 1;
    }
    out.sort();
    out
}

/// `PRAGMA foreign_key_check`: the tables with rows whose key points nowhere, and how many.
fn foreign_key_check(conn: &Connection) -> Result<Vec<(String, u64)>, SqlError> {
    let mut stmt = conn
        .prepare("SELECT \"table\", count(*) FROM pragma_foreign_key_check GROUP BY 1 ORDER BY 1")
        .map_err(scratch_error)?;
    stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?.max(0) as u64)))
        .map_err(scratch_error)?
        .collect::<Result<_, _>>()
        .map_err(scratch_error)
}

/// `PRAGMA integrity_check`: what it says, unless `ok`.
fn integrity_check(conn: &Connection) -> Result<Vec<String>, SqlError> {
    let mut stmt = conn.prepare("PRAGMA integrity_check(20)").map_err(scratch_error)?;
    let said: Vec<String> = stmt
        .query_map([], |r| r.get::<_, String>(0))
        .map_err(scratch_error)?
        .collect::<Result<_, _>>()
        .map_err(scratch_error)?;
    Ok(said.into_iter().filter(|s| s != "ok").collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn definitions_written_twice_compare_equal_and_checks_are_found() {
        assert_eq!(normalized("create index  i on t(a) -- x"), normalized("CREATE INDEX \"i\" ON t ( a )"));
        assert_ne!(normalized("CREATE INDEX i ON t (a)"), normalized("CREATE INDEX i ON t (b)"));
        let found = checks("CREATE TABLE t (a INT CHECK (a > 0), b TEXT, check(length(b) < 9))");
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!(found[0], normalized("CHECK (a > 0)"));
    }
}
