//! The SQLite side of [`Database`](super::Database): a fresh read-only connection per call,
//! on a blocking thread, interrupted at the time limit.

use std::path::PathBuf;

use rusqlite::hooks::{AuthAction, AuthContext, Authorization};
use rusqlite::limits::Limit;
use rusqlite::types::ValueRef;
use rusqlite::{Connection, OpenFlags};

use super::guard::{self, Dialect, ident_if_needed};
use super::table::{ColumnSchema, TableSchema};
use super::{Limits, SqlError, Table};

/// A SQLite file, opened read-only for each call.
#[derive(Debug)]
pub(super) struct Sqlite {
    path: PathBuf,
}

impl Sqlite {
    /// The file at `path`, which must exist and open read-only.
    pub(super) fn new(path: &str) -> Result<Self, SqlError> {
        let path = PathBuf::from(path);
        if !path.is_file() {
            return Err(SqlError::Url(format!("no SQLite database at {} (the file must exist)", path.display())));
        }
        let db = Sqlite { path };
        db.connect()?;
        Ok(db)
    }

    /// The file.
    pub(super) fn path(&self) -> &std::path::Path {
        &self.path
    }

    /// Runs `sql` (statements separated by `;`) in one transaction on a connection that
    /// may write: all of it is committed, or, at the first error, none of it. The script
    /// may not end that transaction nor reach another file ([`guard`](super::guard)), and
    /// SQLite itself is told so: an authorizer denies transaction control, `ATTACH`,
    /// `DETACH` and `PRAGMA` while the script runs, and no database can be attached.
    pub(super) async fn apply(&self, sql: &str) -> Result<(), SqlError> {
        let statements: Vec<String> =
            guard::statements(sql, Dialect::Sqlite, "the migration")?.into_iter().map(str::to_string).collect();
        let path = self.path.clone();
        tokio::task::spawn_blocking(move || {
            let mut conn = Connection::open_with_flags(&path, OpenFlags::SQLITE_OPEN_READ_WRITE).map_err(db_error)?;
            conn.busy_timeout(std::time::Duration::from_secs(5)).map_err(db_error)?;
            conn.execute_batch("BEGIN IMMEDIATE").map_err(db_error)?;
            confine(&mut conn)?;
            let ran = run_each(&conn, &statements);
            // Lifted before this connection's own COMMIT or ROLLBACK, which it would deny.
            let lifted = unconfine(&mut conn);
            match ran.and(lifted) {
                Ok(()) => conn.execute_batch("COMMIT").map_err(db_error),
                Err(e) => {
                    // Dropping the connection rolls back too, should this fail.
                    let _ = conn.execute_batch("ROLLBACK");
                    Err(e)
                }
            }
        })
        .await
        .map_err(|e| SqlError::Database(format!("the migration's thread failed: {e}")))?
    }

    /// A read-only connection: opened so (no write can reach the file, nor a file it
    /// attaches) and `query_only` (no temporary table either).
    fn connect(&self) -> Result<Connection, SqlError> {
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(&self.path, flags)
            .map_err(|e| SqlError::Url(format!("cannot open the SQLite database {}: {e}", self.path.display())))?;
        conn.pragma_update(None, "query_only", true).map_err(db_error)?;
        // No value (string, blob, row) larger than this is made at all: `randomblob(900000000)`
        // would otherwise be made here, in this process, before any cell is cut.
        conn.set_limit(Limit::SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES).map_err(db_error)?;
        Ok(conn)
    }

    /// Runs `work` on a connection on a blocking thread, interrupting it at the limit.
    async fn with_connection<T: Send + 'static>(
        &self,
        limits: Limits,
        work: impl FnOnce(&Connection) -> Result<T, SqlError> + Send + 'static,
    ) -> Result<T, SqlError> {
        let conn = self.connect()?;
        let interrupt = conn.get_interrupt_handle();
        let mut task = tokio::task::spawn_blocking(move || work(&conn));
        let joined = tokio::select! {
            r = &mut task => r,
            _ = tokio::time::sleep(limits.timeout) => {
                interrupt.interrupt();
                // The statement stops at its next step; what it returns is the timeout.
                let _ = task.await;
                return Err(SqlError::Timeout(limits.timeout.as_secs_f64()));
            }
        };
        joined.map_err(|e| SqlError::Database(format!("the query's thread failed: {e}")))?
    }

    pub(super) async fn query(&self, sql: &str, limits: Limits) -> Result<Table, SqlError> {
        let sql = sql.to_string();
        self.with_connection(limits, move |conn| {
            let mut stmt = conn.prepare(&sql).map_err(db_error)?;
            if !stmt.readonly() {
                return Err(SqlError::Database(
                    "SQLite says this statement is not read-only; only statements that read are run".into(),
                ));
            }
            let names = stmt.column_names().map(str::to_string).collect();
            let mut table = Table::new(names, limits.cell);
            let width = stmt.column_count();
            let mut rows = stmt.query([]).map_err(db_error)?;
            while let Some(row) = rows.next().map_err(db_error)? {
                let mut cells = Vec::with_capacity(width);
                for i in 0..width {
                    cells.push(text(row.get_ref(i).map_err(db_error)?, limits.cell));
                }
                table.push(cells, limits.rows);
            }
            Ok(table)
        })
        .await
    }

    pub(super) async fn tables(&self, only: Option<&str>, limits: Limits) -> Result<Vec<TableSchema>, SqlError> {
        let only = only.map(str::to_string);
        let tables = self
            .with_connection(limits, move |conn| {
                let mut list = conn
                    .prepare(
                        "SELECT name, type FROM sqlite_schema WHERE type IN ('table', 'view') \
                         AND name NOT LIKE 'sqlite_%' AND (?1 IS NULL OR name = ?1) ORDER BY name",
                    )
                    .map_err(db_error)?;
                let names: Vec<(String, String)> = list
                    .query_map([&only], |r| Ok((r.get(0)?, r.get(1)?)))
                    .map_err(db_error)?
                    .collect::<Result<_, _>>()
                    .map_err(db_error)?;
                if let (Some(t), true) = (&only, names.is_empty()) {
                    return Err(SqlError::Database(format!("no such table: {t}")));
                }
                names.into_iter().map(|(name, kind)| describe(conn, name, kind)).collect::<Result<Vec<_>, _>>()
            })
            .await?;
        Ok(tables)
    }
}

/// Runs each statement in turn; an error names the one that failed.
pub(super) fn run_each(conn: &Connection, statements: &[String]) -> Result<(), SqlError> {
    for (n, statement) in statements.iter().enumerate() {
        conn.execute_batch(statement).map_err(|e| {
            let why = match db_error(e) {
                SqlError::Database(m) => m,
                other => other.to_string(),
            };
            SqlError::Database(format!("statement {} failed: {why}", n + 1))
        })?;
    }
    Ok(())
}

/// Makes `conn` refuse what would take a script out of its transaction or its file:
/// no database may be attached (`SQLITE_LIMIT_ATTACHED` 0, which `VACUUM INTO` needs
/// too), and an authorizer denies transaction control, savepoints, `ATTACH`, `DETACH`
/// and every `PRAGMA` at the moment a statement is prepared, before it runs.
pub(super) fn confine(conn: &mut Connection) -> Result<(), SqlError> {
    conn.set_limit(Limit::SQLITE_LIMIT_ATTACHED, 0).map_err(db_error)?;
    conn.authorizer(Some(|ctx: AuthContext<'_>| match ctx.action {
        AuthAction::Transaction { .. }
        | AuthAction::Savepoint { .. }
        | AuthAction::Attach { .. }
        | AuthAction::Detach { .. }
        | AuthAction::Pragma { .. } => Authorization::Deny,
        _ => Authorization::Allow,
    }))
    .map_err(db_error)
}

/// Lifts [`confine`]'s authorizer (the attach limit stays).
pub(super) fn unconfine(conn: &mut Connection) -> Result<(), SqlError> {
    conn.authorizer(None::<fn(AuthContext<'_>) -> Authorization>).map_err(db_error)
}

/// Every table and view of `conn`, described.
pub(super) fn describe_all(conn: &Connection) -> Result<Vec<TableSchema>, SqlError> {
    let mut list = conn
        .prepare("SELECT name, type FROM sqlite_schema WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%' ORDER BY name")
        .map_err(db_error)?;
    let names: Vec<(String, String)> = list
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .map_err(db_error)?
        .collect::<Result<_, _>>()
        .map_err(db_error)?;
    names.into_iter().map(|(name, kind)| describe(conn, name, kind)).collect()
}

/// One table's columns, keys and indexes, from SQLite's table-valued pragmas.
fn describe(conn: &Connection, name: String, kind: String) -> Result<TableSchema, SqlError> {
    let mut references = std::collections::HashMap::new();
    let mut fks =
        conn.prepare("SELECT \"from\", \"table\", \"to\" FROM pragma_foreign_key_list(?1)").map_err(db_error)?;
    let rows = fks
        .query_map([&name], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, Option<String>>(2)?)))
        .map_err(db_error)?;
    for row in rows {
        let (from, table, to) = row.map_err(db_error)?;
        // As SQL: a name that is not a plain word is quoted. No column named: the key.
        let target = ident_if_needed(&table);
        references.insert(from, to.map_or_else(|| target.clone(), |to| format!("{target}({})", ident_if_needed(&to))));
    }
    let mut cols = conn.prepare("SELECT name, type, \"notnull\", pk FROM pragma_table_info(?1)").map_err(db_error)?;
    let columns = cols
        .query_map([&name], |r| {
            let column: String = r.get(0)?;
            Ok(ColumnSchema {
                references: references.get(&column).cloned(),
                name: column,
                ty: r.get(1)?,
                not_null: r.get::<_, i64>(2)? != 0,
                primary_key: r.get::<_, i64>(3)? != 0,
            })
        })
        .map_err(db_error)?
        .collect::<Result<Vec<_>, _>>()
        .map_err(db_error)?;
    // Each index as `name [unique] (columns)`, names written as SQL (quoted unless plain
    // words), so the listing reads as the index's own definition.
    let mut idx = conn.prepare("SELECT name, \"unique\" FROM pragma_index_list(?1) ORDER BY name").map_err(db_error)?;
    let listed = idx
        .query_map([&name], |r| Ok((r.get::<_, String>(0)?, r.get::<_, bool>(1)?)))
        .map_err(db_error)?
        .collect::<Result<Vec<_>, _>>()
        .map_err(db_error)?;
    let mut info = conn.prepare("SELECT name FROM pragma_index_info(?1) ORDER BY seqno").map_err(db_error)?;
    let mut indexes = Vec::with_capacity(listed.len());
    for (index, unique) in listed {
        let on: Vec<String> = info
            .query_map([&index], |r| r.get::<_, Option<String>>(0))
            .map_err(db_error)?
            .collect::<Result<Vec<_>, _>>()
            .map_err(db_error)?
            .into_iter()
            .flatten()
            .map(|c| ident_if_needed(&c))
            .collect();
        indexes.push(format!("{}{} ({})", ident_if_needed(&index), if unique { " unique" } else { "" }, on.join(", ")));
    }
    Ok(TableSchema { name, kind, columns, indexes, schema: None })
}

/// The largest value SQLite makes for the tools, in bytes (`SQLITE_LIMIT_LENGTH`).
const MAX_VALUE_BYTES: i32 = 4 << 20;

/// A cell as text, copied only as far as a cell of `width` characters shows; `None` for NULL.
fn text(v: ValueRef<'_>, width: usize) -> Option<String> {
    match v {
        ValueRef::Null => None,
        ValueRef::Integer(i) => Some(i.to_string()),
        ValueRef::Real(f) => Some(f.to_string()),
        // Four bytes a character at most, and one more character so the cut shows.
        ValueRef::Text(t) => Some(String::from_utf8_lossy(&t[..t.len().min((width + 1) * 4)]).into_owned()),
        ValueRef::Blob(b) => Some(format!("<blob, {} bytes>", b.len())),
    }
}

fn db_error(e: rusqlite::Error) -> SqlError {
    match e {
        rusqlite::Error::MultipleStatement => {
            SqlError::Database("one statement at a time: SQLite found more than one".into())
        }
        rusqlite::Error::SqliteFailure(e, _) if e.code == rusqlite::ErrorCode::TooBig => SqlError::Database(format!(
            "string or blob too big: the SQL tools make no value over {} MiB; select a part of it (substr, length)",
            MAX_VALUE_BYTES >> 20
        )),
        rusqlite::Error::SqliteFailure(e, Some(message))
            if e.code == rusqlite::ErrorCode::AuthorizationForStatementDenied =>
        {
            SqlError::Database(format!(
                "{message}: SQLite refused it, as it would end or step out of the transaction, reach another \
                 database file or change a setting"
            ))
        }
        rusqlite::Error::SqliteFailure(_, Some(message)) => SqlError::Database(message),
        e => SqlError::Database(e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The database's own wall, should a statement get past the scan: a confined
    /// connection denies what would end its transaction or reach a file, and still runs
    /// the DDL that rewrites the schema inside SQLite.
    #[test]
    fn a_confined_connection_keeps_its_transaction_and_its_file() {
        let dir = std::env::temp_dir().join(format!("lucid-confine-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let copy = dir.join("copy.db");
        let mut conn = Connection::open_in_memory().unwrap();
        conn.execute_batch("BEGIN").unwrap();
        confine(&mut conn).unwrap();
        let attach = format!("ATTACH '{}' AS c", copy.display());
        for sql in ["CREATE TABLE a(x); COMMIT", "END", "ROLLBACK", "SAVEPOINT s", &attach, "PRAGMA user_version = 3"] {
            assert!(conn.execute_batch(sql).is_err(), "{sql}");
            assert!(!conn.is_autocommit(), "{sql}: the transaction is still open");
        }
        conn.execute_batch(
            "CREATE TABLE b (x, y); ALTER TABLE b RENAME TO c; ALTER TABLE c DROP COLUMN y; \
             ALTER TABLE c RENAME COLUMN x TO z; CREATE INDEX ci ON c (z)",
        )
        .unwrap();
        unconfine(&mut conn).unwrap();
        conn.execute_batch("ROLLBACK").unwrap();
        // Outside a transaction, `VACUUM INTO` needs to attach its file, which it may not.
        confine(&mut conn).unwrap();
        assert!(conn.execute_batch(&format!("VACUUM INTO '{}'", copy.display())).is_err());
        assert!(!copy.exists(), "no file was made");
        std::fs::remove_dir_all(dir).ok();
    }
}
