//! Lucid's own lint rules for SQLite migrations: what `up` destroys (a table or a column
//! with data, deleted rows), what it makes fragile (a narrowed type, `NOT NULL` without a
//! default on a filled table, a foreign key without an index), what locks (a table
//! rebuilt by copy), and what SQLite's own checks (`foreign_key_check`,
//! `integrity_check`) say after it. Each finding names its rule and says why.

use super::guard::Dialect;
use super::lexer::{Rules, Token, lex};
use super::review::{Finding, Severity, Snapshot};
use super::table::TableSchema;

/// What SQLite's own checks said on the scratch copy, before and after `up`.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Checks {
    /// Rows `PRAGMA foreign_key_check` listed before `up`.
    pub foreign_keys_before: u64,
    /// Rows it listed after `up`, by table.
    pub foreign_keys_after: Vec<(String, u64)>,
    /// Why it could not run after `up` (a key that refers to columns neither primary nor
    /// unique: "foreign key mismatch").
    pub foreign_keys_unreadable: Option<String>,
    /// What `PRAGMA integrity_check` said after `up`, when not `ok`.
    pub integrity: Vec<String>,
}

/// The findings of `up` (its statements, the snapshots before and after it, the checks).
pub(super) fn lint(
    dialect: Dialect,
    statements: &[String],
    before: &Snapshot,
    after: &Snapshot,
    checks: &Checks,
) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut push = |rule: &str, severity, why: String| out.push(Finding { rule: rule.into(), severity, why });
    let find = |list: &[TableSchema], name: &str| list.iter().find(|t| t.name == name).cloned();
    for (table, b) in &before.data {
        let Some(a) = after.data.get(table) else {
            if b.rows > 0 {
                push(
                    "drop-table-with-data",
                    Severity::Warning,
                    format!(
                        "table {table} is dropped with its {} rows; they are lost unless down puts them back",
                        b.rows
                    ),
                );
            }
            continue;
        };
        for (column, filled) in b.filled.iter().filter(|(c, f)| **f > 0 && !a.filled.contains_key(*c)) {
            push(
                "drop-column-with-data",
                Severity::Warning,
                format!("column {column} of {table} is dropped with its {filled} values; down cannot bring them back"),
            );
        }
        if a.rows < b.rows {
            push(
                "rows-deleted",
                Severity::Warning,
                format!("{} of the {} rows of {table} are deleted", b.rows - a.rows, b.rows),
            );
        }
    }
    for t in &after.tables {
        let Some(old) = find(&before.tables, &t.name) else { continue };
        let rows = before.data.get(&t.name).map_or(0, |d| d.rows);
        for c in &t.columns {
            let was = old.columns.iter().find(|o| o.name == c.name);
            if let Some(o) = was
                && dialect == Dialect::Postgres
                && o.ty != c.ty
            {
                push(
                    "type-change-rewrites",
                    if rows > 0 { Severity::Warning } else { Severity::Note },
                    format!(
                        "column {} of {} changes from {} to {}: Postgres rewrites the table's {rows} rows (and its \
                         indexes) under an ACCESS EXCLUSIVE lock, blocking reads and writes, and a value that does \
                         not convert fails the migration",
                        c.name, t.name, o.ty, c.ty
                    ),
                );
            } else if let Some(o) = was
                && dialect == Dialect::Sqlite
                && affinity(&o.ty) != affinity(&c.ty)
            {
                let filled = before.data.get(&t.name).and_then(|d| d.filled.get(&c.name)).copied().unwrap_or(0);
                push(
                    "narrowing-type",
                    if filled > 0 { Severity::Warning } else { Severity::Note },
                    format!(
                        "column {} of {} changes from {} to {} (the table is rebuilt): its {filled} values are \
                         converted to {} affinity, and a value that does not convert stays as it was or is cut",
                        c.name,
                        t.name,
                        shown_type(&o.ty),
                        shown_type(&c.ty),
                        affinity(&c.ty)
                    ),
                );
            }
            let default = after.objects.contains_key(&format!("default of column {} of {}", c.name, t.name));
            if c.not_null && !c.primary_key && !default && rows > 0 && !was.is_some_and(|o| o.not_null) {
                push(
                    "not-null-without-default",
                    Severity::Warning,
                    format!(
                        "column {} of {} becomes NOT NULL without a default on a table of {rows} rows: every row \
                         needed a value, and an insert that leaves it out now fails",
                        c.name, t.name
                    ),
                );
            }
        }
    }
    for t in &after.tables {
        let old = find(&before.tables, &t.name);
        for c in t.columns.iter().filter(|c| c.references.is_some()) {
            let known = old
                .as_ref()
                .is_some_and(|o| o.columns.iter().any(|x| x.name == c.name && x.references == c.references));
            let leads = |i: &String| {
                let on = i.rsplit_once('(').map_or("", |(_, cols)| cols);
                on.split([',', ')']).next().map(str::trim).is_some_and(|first| first.trim_matches('"') == c.name)
            };
            let only_key = c.primary_key && t.columns.iter().filter(|x| x.primary_key).count() == 1;
            if !known && !only_key && !t.indexes.iter().any(leads) {
                push(
                    "foreign-key-without-index",
                    Severity::Warning,
                    format!(
                        "column {} of {} refers to {} without an index: deleting or updating a row there scans all \
                         of {}; add CREATE INDEX … ON {} ({})",
                        c.name,
                        t.name,
                        c.references.as_deref().unwrap_or(""),
                        t.name,
                        t.name,
                        c.name
                    ),
                );
            }
        }
    }
    if dialect == Dialect::Postgres {
        for table in indexed(statements) {
            let rows = before.data.get(&table).map_or(0, |d| d.rows);
            if rows > 0 {
                push(
                    "create-index-locks-writes",
                    Severity::Warning,
                    format!(
                        "CREATE INDEX on {table} blocks its writes while it reads its {rows} rows; on a busy table \
                         build it with CREATE INDEX CONCURRENTLY outside the migration"
                    ),
                );
            }
        }
    }
    for (old, new) in renames(statements) {
        let rebuilt = before.data.contains_key(&new) && !after.data.contains_key(&old);
        if rebuilt {
            let rows = after.data.get(&new).map_or(0, |d| d.rows);
            push(
                "table-rebuild",
                Severity::Note,
                format!(
                    "table {new} is rebuilt by copy ({old} renamed to it): its {rows} rows are copied while the \
                     migration holds the database's write lock"
                ),
            );
        } else {
            push(
                "rename",
                Severity::Note,
                format!("{old} is renamed to {new}: queries and code that use the old name break"),
            );
        }
    }
    let violations: u64 = checks.foreign_keys_after.iter().map(|(_, n)| n).sum();
    if violations > checks.foreign_keys_before {
        let by: Vec<String> = checks.foreign_keys_after.iter().map(|(t, n)| format!("{n} in {t}")).collect();
        push(
            "foreign-key-check",
            Severity::Error,
            format!(
                "after up, PRAGMA foreign_key_check finds {violations} rows whose foreign key points nowhere ({}; \
                 {} before)",
                by.join(", "),
                checks.foreign_keys_before
            ),
        );
    }
    if let Some(why) = &checks.foreign_keys_unreadable {
        push(
            "foreign-key-check",
            Severity::Warning,
            format!(
                "after up, PRAGMA foreign_key_check cannot run ({why}): with foreign keys on, writes to the tables \
                 that key refers to fail"
            ),
        );
    }
    if !checks.integrity.is_empty() {
        push(
            "integrity-check",
            Severity::Error,
            format!("after up, PRAGMA integrity_check says: {}", checks.integrity.join("; ")),
        );
    }
    out
}

/// A declared type's affinity, by SQLite's rules (section 3.1 of its datatype page).
fn affinity(ty: &str) -> &'static str {
    let t = ty.to_ascii_uppercase();
    if t.contains("INT") {
        "INTEGER"
    } else if t.contains("CHAR") || t.contains("CLOB") || t.contains("TEXT") {
        "TEXT"
    } else if t.contains("BLOB") || t.is_empty() {
        "BLOB"
    } else if t.contains("REAL") || t.contains("FLOA") || t.contains("DOUB") {
        "REAL"
    } else {
        "NUMERIC"
    }
}

fn shown_type(ty: &str) -> &str {
    if ty.is_empty() { "(no type)" } else { ty }
}

/// The tables `CREATE [UNIQUE] INDEX [name] ON [ONLY] table` index, named as a schema
/// lists them (`schema.table`, `public` left out).
fn indexed(statements: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for s in statements {
        let Ok(tokens) = lex(s, Rules::Postgres) else { continue };
        let t: Vec<Token> =
            tokens.into_iter().map(|l| l.token).filter(|t| !matches!(t, Token::Space | Token::Comment)).collect();
        let kw = |i: usize, k: &str| matches!(t.get(i), Some(Token::Word { value, quoted: false }) if value.eq_ignore_ascii_case(k));
        if !(kw(0, "CREATE") && (kw(1, "INDEX") || (kw(1, "UNIQUE") && kw(2, "INDEX")))) {
            continue;
        }
        let Some(on) = (2..t.len().min(10)).find(|&i| kw(i, "ON")) else { continue };
        let at = if kw(on + 1, "ONLY") { on + 2 } else { on + 1 };
        let name = |i: usize| match t.get(i) {
            Some(Token::Word { value, .. }) => Some(value.clone()),
            _ => None,
        };
        match (name(at), t.get(at + 1), name(at + 2)) {
            (Some(schema), Some(Token::Period), Some(table)) if schema != "public" => {
                out.push(format!("{schema}.{table}"));
            }
            (Some(_), Some(Token::Period), Some(table)) | (Some(table), ..) => out.push(table),
            _ => {}
        }
    }
    out
}

/// The tables and columns renamed by `ALTER TABLE … RENAME [COLUMN] … TO …`: (old, new),
/// a column as `table.column`.
fn renames(statements: &[String]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for s in statements {
        let Ok(tokens) = lex(s, Rules::Sqlite) else { continue };
        let words: Vec<(String, bool)> = tokens
            .into_iter()
            .filter_map(|t| match t.token {
                Token::Word { value, quoted } => Some((value, quoted)),
                _ => None,
            })
            .collect();
        let kw = |i: usize, w: &str| words.get(i).is_some_and(|(v, q)| !q && v.eq_ignore_ascii_case(w));
        if !(kw(0, "ALTER") && kw(1, "TABLE")) {
            continue;
        }
        // ALTER TABLE [schema .] name: the lexer drops the period, so a schema shows as two names.
        let at = if kw(3, "RENAME") {
            3
        } else if kw(4, "RENAME") {
            4
        } else {
            continue;
        };
        let table = words[at - 1].0.clone();
        if kw(at + 1, "TO") {
            if let Some((new, _)) = words.get(at + 2) {
                out.push((table, new.clone()));
            }
        } else {
            let col = if kw(at + 1, "COLUMN") { at + 2 } else { at + 1 };
            if let (Some((old, _)), true, Some((new, _))) = (words.get(col), kw(col + 1, "TO"), words.get(col + 2)) {
                out.push((format!("{table}.{old}"), format!("{table}.{new}")));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::review::TableData;
    use super::super::table::ColumnSchema;
    use super::*;

    #[test]
    fn sqlite_checks_after_up_are_errors_and_losses_warnings() {
        let col = |name: &str, ty: &str| ColumnSchema { name: name.into(), ty: ty.into(), ..Default::default() };
        let table = |columns| TableSchema { name: "t".into(), kind: "table".into(), columns, ..Default::default() };
        let data = |filled: &[(&str, u64)]| TableData {
            rows: 4,
            checksum: 0,
            filled: filled.iter().map(|(c, n)| ((*c).to_string(), *n)).collect(),
        };
        let before = Snapshot {
            tables: vec![table(vec![col("a", "TEXT"), col("b", "TEXT")])],
            data: [("t".to_string(), data(&[("a", 4), ("b", 2)]))].into(),
            ..Default::default()
        };
        let after = Snapshot {
            tables: vec![table(vec![col("a", "INTEGER"), ColumnSchema { not_null: true, ..col("c", "TEXT") }])],
            data: [("t".to_string(), data(&[("a", 4), ("c", 4)]))].into(),
            ..Default::default()
        };
        let checks = Checks {
            foreign_keys_before: 0,
            foreign_keys_after: vec![("v".into(), 2)],
            foreign_keys_unreadable: None,
            integrity: vec!["row 3 missing from index i".into()],
        };
        let found = lint(Dialect::Sqlite, &[], &before, &after, &checks);
        let rules: Vec<(&str, Severity)> = found.iter().map(|f| (f.rule.as_str(), f.severity)).collect();
        assert_eq!(
            rules,
            [
                ("drop-column-with-data", Severity::Warning),
                ("narrowing-type", Severity::Warning),
                ("not-null-without-default", Severity::Warning),
                ("foreign-key-check", Severity::Error),
                ("integrity-check", Severity::Error),
            ],
            "{found:?}"
        );
        assert!(found[3].why.contains("2 rows whose foreign key points nowhere (2 in v; 0 before)"), "{found:?}");
    }

    #[test]
    fn affinities_and_renames_are_read_as_sqlite_reads_them() {
        assert_eq!(
            [affinity("VARCHAR(20)"), affinity("BIGINT"), affinity(""), affinity("DOUBLE"), affinity("DECIMAL")],
            ["TEXT", "INTEGER", "BLOB", "REAL", "NUMERIC"]
        );
        let s = [
            "ALTER TABLE t_new RENAME TO t".to_string(),
            "ALTER TABLE main.\"u\" RENAME COLUMN a TO b".to_string(),
            "ALTER TABLE v RENAME c TO d".to_string(),
        ];
        assert_eq!(
            indexed(&["CREATE INDEX i ON s.t (a)".into(), "create unique index j on only t(b)".into()]),
            ["s.t", "t"]
        );
        assert_eq!(
            renames(&s),
            [("t_new".into(), "t".into()), ("u.a".into(), "u.b".into()), ("v.c".into(), "v.d".into())]
        );
    }
}
