//! # lucid-sql
//!
//! The SQL tools of Lucid agents: `sql_query` and `sql_schema` read a database,
//! `schema_history` keeps the schema's versions, `sql_migrate` applies a migration with
//! the user's approval and writes it into the project. [`TOOLS`] are their entries in an
//! application's catalogue, made from a setup's [`SqlConfig`].
//!
//! `sql_query` and `sql_schema`: a database, read-only. A [`Database`] names a SQLite file
//! (feature `sqlite`) or a Postgres server (feature `postgres`); its two tools run one
//! statement and answer with a Markdown table, and list the tables with their columns,
//! keys and indexes.
//!
//! Read-only by construction, not by reading the SQL:
//! - SQLite is opened with `SQLITE_OPEN_READ_ONLY` and `PRAGMA query_only`, and a
//!   statement SQLite itself does not call read-only (`sqlite3_stmt_readonly`: `VACUUM
//!   INTO` a new file, for one) is refused before it runs;
//! - Postgres runs each statement in a `READ ONLY` transaction that is rolled back, with
//!   a `statement_timeout`, on a session whose default transactions are read-only too; a
//!   role that could reach the server's files, programs or other sessions all the same (one
//!   that is, or may `SET ROLE` to, a superuser or a member of `pg_write_server_files`,
//!   `pg_read_server_files`, `pg_execute_server_program` or `pg_signal_backend`, whose
//!   `COPY … TO PROGRAM` a read-only transaction allows) is refused at connection: connect
//!   as a plain role. After each call the session's advisory locks are released and its
//!   settings reset. A plain role can still signal its *own* other sessions
//!   (`pg_terminate_backend`): give the tools a role of their own.
//!
//! Values are cut at the source: SQLite makes no value over 4 MiB (`SQLITE_LIMIT_LENGTH`),
//! and a Postgres statement whose columns may be long runs as a subquery whose long values
//! the server cuts to the cell width, so one `repeat('x', 400000000)` never reaches this
//! process whole.
//!
//! One statement a call: SQLite's and Postgres' own parsers refuse a second one (a
//! Postgres statement is prepared first, which takes exactly one). Errors come back as
//! tool errors carrying the database's own message, so the model can fix its query.

#![warn(missing_docs)]

#[cfg(not(any(feature = "sqlite", feature = "postgres")))]
compile_error!("lucid-sql needs the feature `sqlite` or `postgres` (or both): a database to read");

mod catalogue;
#[cfg(feature = "sqlite")]
mod diff;
#[cfg(feature = "sqlite")]
mod dryrun;
#[cfg(all(feature = "sqlite", feature = "postgres"))]
mod dryrun_pg;
mod guard;
#[cfg(feature = "sqlite")]
mod history;
#[cfg(all(feature = "sqlite", feature = "postgres"))]
mod history_pg;
mod lexer;
#[cfg(feature = "sqlite")]
mod lint;
#[cfg(feature = "sqlite")]
mod migrate;
#[cfg(feature = "postgres")]
mod postgres;
#[cfg(feature = "sqlite")]
mod review;
#[cfg(feature = "sqlite")]
mod sqlite;
#[cfg(all(feature = "sqlite", feature = "postgres"))]
mod squawk;
mod table;
#[cfg(feature = "sqlite")]
mod versions;

use std::sync::Arc;
use std::time::Duration;

use futures::FutureExt;
use futures::future::BoxFuture;
use serde::Deserialize;
use serde_json::Value;

pub use catalogue::{SqlConfig, TOOLS};
#[cfg(feature = "sqlite")]
pub(crate) use history::HistoryStore;
#[cfg(feature = "sqlite")]
pub use history::{SchemaHistory, SchemaHistoryTool, Version, project_of};
#[cfg(feature = "sqlite")]
pub use migrate::SqlMigrate;
#[cfg(feature = "sqlite")]
pub use review::{Finding, Review, Severity, StatementEffect};
pub use table::Table;

use lucid::tool::{Tool, ToolContext, ToolError, ToolSet, ToolSpec, parse_args};

/// Why a database could not be opened or answered.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SqlError {
    /// The URL names no database this build can open.
    #[error("{0}")]
    Url(String),
    /// The database refused or failed: its own message.
    #[error("{0}")]
    Database(String),
    /// A migration or proposed DDL that was not run at all: what it holds may not run
    /// (it would end its transaction, reach a file, change a setting) or cannot be read.
    #[error("{0}")]
    Refused(String),
    /// The statement ran past the time allowed.
    #[error("the query did not finish within {0:.1} s and was cancelled")]
    Timeout(f64),
}

impl From<SqlError> for std::io::Error {
    fn from(e: SqlError) -> Self {
        std::io::Error::new(std::io::ErrorKind::InvalidInput, e)
    }
}

/// How many times the statement time limit a migration's rehearsal may take in all.
#[cfg(feature = "sqlite")]
const REHEARSAL_TIMEOUTS: u32 = 6;

/// The characters a name or type of a schema shows (the cell width is for values).
const SCHEMA_WIDTH: usize = 200;

/// The limits of every statement: rows shown, characters a cell shows, time.
#[derive(Debug, Clone, Copy)]
struct Limits {
    rows: usize,
    cell: usize,
    timeout: Duration,
}

/// Where the database is.
#[derive(Debug)]
enum Backend {
    #[cfg(feature = "sqlite")]
    Sqlite(sqlite::Sqlite),
    #[cfg(feature = "postgres")]
    Postgres(Box<postgres::Postgres>),
}

/// A database the `sql_query` and `sql_schema` tools read. Its [`ToolSet`] gives both
/// tools, sharing it (one Postgres connection, made at the first call).
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let path = std::env::temp_dir().join(format!("lucid-doc-sql-{}.db", std::process::id()));
/// let db = rusqlite::Connection::open(&path).unwrap();
/// db.execute_batch("CREATE TABLE city (name TEXT PRIMARY KEY, people INTEGER); INSERT INTO city VALUES ('Lyon', 522000);").unwrap();
/// let db = lucid_sql::Database::open(path.to_str().unwrap()).unwrap().max_rows(10);
/// let table = db.query("SELECT name, people FROM city").await.unwrap();
/// assert_eq!(table.to_markdown(), "| name | people |\n| --- | --- |\n| Lyon | 522000 |\n\n1 row");
/// assert!(db.query("DELETE FROM city").await.is_err());
/// # });
/// ```
#[derive(Debug)]
pub struct Database {
    backend: Backend,
    limits: Limits,
    /// Squawk, which lints a Postgres migration's rehearsal where it is installed.
    #[cfg(feature = "postgres")]
    squawk: std::path::PathBuf,
}

impl Database {
    /// The database `url` names: `postgres://…` or `postgresql://…` (feature
    /// `postgres`), else a SQLite file (`sqlite:PATH`, `sqlite://PATH` or a plain path;
    /// feature `sqlite`) that must exist. Nothing is sent to a server yet.
    pub fn open(url: &str) -> Result<Self, SqlError> {
        let limits = Limits { rows: 100, cell: 200, timeout: Duration::from_secs(10) };
        let backend = if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            #[cfg(feature = "postgres")]
            {
                Backend::Postgres(Box::new(postgres::Postgres::new(url)?))
            }
            #[cfg(not(feature = "postgres"))]
            {
                return Err(SqlError::Url(
                    "this build of Lucid has no Postgres support (the cargo feature `postgres`)".into(),
                ));
            }
        } else {
            #[cfg(feature = "sqlite")]
            {
                let path = url.strip_prefix("sqlite://").or_else(|| url.strip_prefix("sqlite:")).unwrap_or(url);
                Backend::Sqlite(sqlite::Sqlite::new(path)?)
            }
            #[cfg(not(feature = "sqlite"))]
            {
                return Err(SqlError::Url(format!(
                    "`{url}` is not a postgres:// URL, and this build has no SQLite support (the cargo feature `sqlite`)"
                )));
            }
        };
        Ok(Database {
            backend,
            limits,
            #[cfg(feature = "postgres")]
            squawk: "squawk".into(),
        })
    }

    /// At most this many rows in a query's table (100 unless set); the count says how
    /// many there were.
    pub fn max_rows(mut self, rows: usize) -> Self {
        self.limits.rows = rows.max(1);
        self
    }

    /// At most this many characters of one cell (200 unless set).
    pub fn cell_width(mut self, chars: usize) -> Self {
        self.limits.cell = chars.max(1);
        self
    }

    /// The Squawk program (PyPI `squawk-cli`) that lints a Postgres migration when it is
    /// rehearsed ([`Database::rehearse`]): `squawk` on the `PATH` unless set; none is run
    /// when it is not there.
    ///
    /// ```
    /// let db = lucid_sql::Database::open("postgres://app@127.0.0.1/shop").unwrap().squawk("/opt/squawk/bin/squawk");
    /// # let _ = db;
    /// ```
    #[cfg(feature = "postgres")]
    pub fn squawk(mut self, program: impl Into<std::path::PathBuf>) -> Self {
        self.squawk = program.into();
        self
    }

    /// How long a statement may run (10 s unless set).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.limits.timeout = timeout;
        self
    }

    /// Runs one read-only statement.
    pub async fn query(&self, sql: &str) -> Result<Table, SqlError> {
        match &self.backend {
            #[cfg(feature = "sqlite")]
            Backend::Sqlite(db) => db.query(sql, self.limits).await,
            #[cfg(feature = "postgres")]
            Backend::Postgres(db) => db.query(sql, self.limits).await,
        }
    }

    /// The tables (or the one named) with their columns and types, keys and indexes, as
    /// Markdown.
    pub async fn schema(&self, table: Option<&str>) -> Result<String, SqlError> {
        Ok(table::schema_markdown(&self.tables(table).await?, SCHEMA_WIDTH))
    }

    /// Runs a migration (statements separated by `;`, DDL and data moves) in one
    /// transaction: all of it, or at the first error none of it. A statement that would
    /// end, begin or step out of that transaction (`COMMIT`, `END`, `ROLLBACK`,
    /// `SAVEPOINT`…), reach another file (`ATTACH`, `DETACH`, `VACUUM INTO`), change a
    /// setting (`PRAGMA`) or, on Postgres, cannot run in a transaction
    /// (`… CONCURRENTLY`, `CREATE DATABASE`, `COPY`…) is refused before anything runs:
    /// [`SqlError::Refused`], naming it. The SQL tools never call this; `sql_migrate`
    /// does, with the user's approval.
    pub async fn apply(&self, sql: &str) -> Result<(), SqlError> {
        match &self.backend {
            #[cfg(feature = "sqlite")]
            Backend::Sqlite(db) => db.apply(sql).await,
            #[cfg(feature = "postgres")]
            Backend::Postgres(db) => db.apply(sql).await,
        }
    }

    /// Rehearses a migration on a scratch copy made in a folder of its own under `parent`
    /// (removed after): `up`, then `down` (or, without it, the DDL back to the schema
    /// before), measured and compared ([`Review`]), within six times the statement time
    /// limit ([`Database::timeout`]). A SQLite file is only read (and copied); on Postgres the rehearsal is one transaction on the database that is
    /// rolled back, which holds the locks `up` takes until then, and Squawk lints it where
    /// it is installed ([`Database::squawk`]). `None` is kept for a database with no
    /// rehearsal.
    #[cfg(feature = "sqlite")]
    pub async fn rehearse(
        &self,
        up: &str,
        down: Option<&str>,
        parent: &std::path::Path,
    ) -> Result<Option<Review>, SqlError> {
        match &self.backend {
            Backend::Sqlite(db) => {
                let (path, up, down, parent) =
                    (db.path().to_path_buf(), up.to_string(), down.map(str::to_string), parent.to_path_buf());
                let interrupt = dryrun::Interrupt::default();
                let handle = std::sync::Arc::clone(&interrupt);
                let mut task = tokio::task::spawn_blocking(move || {
                    dryrun::rehearse(&path, &up, down.as_deref(), &parent, &handle)
                });
                let limit = self.limits.timeout * REHEARSAL_TIMEOUTS;
                let done = tokio::select! {
                    done = &mut task => done,
                    _ = tokio::time::sleep(limit) => {
                        // Each statement it starts is stopped, until it gives up.
                        loop {
                            if let Ok(slot) = interrupt.lock()
                                && let Some(h) = slot.as_ref()
                            {
                                h.interrupt();
                            }
                            tokio::select! {
                                _ = &mut task => break,
                                _ = tokio::time::sleep(Duration::from_millis(50)) => {}
                            }
                        }
                        return Err(SqlError::Refused(format!(
                            "the migration's rehearsal did not finish within {:.1} s (six times the database's \
                             statement time limit) and was stopped; nothing was applied",
                            limit.as_secs_f64()
                        )));
                    }
                };
                done.map_err(|e| SqlError::Database(format!("the rehearsal's thread failed: {e}")))?.map(Some)
            }
            #[cfg(feature = "postgres")]
            Backend::Postgres(db) => {
                let mut review = dryrun_pg::rehearse(db, up, down, self.limits.timeout).await?;
                review.findings.extend(squawk::lint(&self.squawk, up).await);
                Ok(Some(review))
            }
        }
    }

    /// The tables (or the one named), structured.
    async fn tables(&self, table: Option<&str>) -> Result<Vec<table::TableSchema>, SqlError> {
        match &self.backend {
            #[cfg(feature = "sqlite")]
            Backend::Sqlite(db) => db.tables(table, self.limits).await,
            #[cfg(feature = "postgres")]
            Backend::Postgres(db) => db.tables(table, self.limits).await,
        }
    }

    /// What kind of database this is, for the tools' descriptions.
    fn dialect(&self) -> &'static str {
        match &self.backend {
            #[cfg(feature = "sqlite")]
            Backend::Sqlite(_) => "SQLite",
            #[cfg(feature = "postgres")]
            Backend::Postgres(_) => "PostgreSQL",
        }
    }
}

impl ToolSet for Database {
    fn tools(self: Arc<Self>) -> Vec<Arc<dyn Tool>> {
        let dialect = self.dialect();
        let query = SqlQuery {
            spec: ToolSpec::for_args::<QueryArgs>(
                "sql_query",
                &format!(
                    "Runs one read-only SQL statement on the {dialect} database and returns the rows as a Markdown \
                     table (at most {} rows, long cells cut) with the row count. Writes are refused.",
                    self.limits.rows
                ),
            ),
            db: Arc::clone(&self),
        };
        let schema = SqlSchema {
            spec: ToolSpec::for_args::<SchemaArgs>(
                "sql_schema",
                &format!(
                    "Lists the {dialect} database's tables with their columns and types, primary and foreign keys, \
                     and indexes; or only the table named."
                ),
            ),
            db: self,
        };
        vec![Arc::new(query), Arc::new(schema)]
    }
}

#[derive(Deserialize, schemars::JsonSchema)]
struct QueryArgs {
    /// One SQL statement (SELECT, WITH, EXPLAIN…).
    sql: String,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct SchemaArgs {
    /// Only this table (all tables when absent).
    #[serde(default)]
    table: Option<String>,
}

/// The `sql_query` tool of a [`Database`].
#[derive(Debug)]
struct SqlQuery {
    spec: ToolSpec,
    db: Arc<Database>,
}

/// The `sql_schema` tool of a [`Database`].
#[derive(Debug)]
struct SqlSchema {
    spec: ToolSpec,
    db: Arc<Database>,
}

/// Runs `work` unless the call is cancelled first.
async fn unless_cancelled<T>(
    ctx: &ToolContext,
    work: impl std::future::Future<Output = Result<T, SqlError>>,
) -> Result<T, ToolError> {
    tokio::select! {
        r = work => r.map_err(|e| ToolError::new(e.to_string())),
        _ = ctx.cancel.cancelled() => Err(ToolError::new("the query was cancelled")),
    }
}

impl Tool for SqlQuery {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn invoke<'a>(&'a self, args: Value, ctx: ToolContext) -> BoxFuture<'a, Result<String, ToolError>> {
        async move {
            let QueryArgs { sql } = parse_args(args)?;
            Ok(unless_cancelled(&ctx, self.db.query(&sql)).await?.to_markdown())
        }
        .boxed()
    }
}

impl Tool for SqlSchema {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn invoke<'a>(&'a self, args: Value, ctx: ToolContext) -> BoxFuture<'a, Result<String, ToolError>> {
        async move {
            let SchemaArgs { table } = parse_args(args)?;
            unless_cancelled(&ctx, self.db.schema(table.as_deref().filter(|t| !t.trim().is_empty()))).await
        }
        .boxed()
    }
}
