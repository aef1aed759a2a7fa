//! The server's tables in the SQLite file of the session store: one instance. Work goes
//! through `spawn_blocking`, never on the runtime's threads; there a job's statements run
//! at once (the futures of this [`Conn`] are ready when first polled).

use std::path::Path;
use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use rusqlite::Connection;
use rusqlite::types::ToSqlOutput;

use super::Result;
use super::query::{Arg, Backend, Cells, Conn, Dialect, RowFn, Sql};

/// How many statements each connection keeps prepared (more than the store has).
const PREPARED: usize = 64;

/// The server's tables in one SQLite file.
#[derive(Clone)]
pub struct SqliteDb {
    conn: Arc<Mutex<Connection>>,
}

impl SqliteDb {
    /// Opens (or creates) the tables in the SQLite file at `path`.
    pub async fn open(path: &Path) -> Result<SqliteDb> {
        let path = path.to_path_buf();
        let conn = tokio::task::spawn_blocking(move || -> Result<Connection> {
            let conn = Connection::open(path)?;
            conn.busy_timeout(std::time::Duration::from_secs(5))?;
            conn.set_prepared_statement_cache_capacity(PREPARED);
            super::schema::sqlite(&conn)?;
            Ok(conn)
        })
        .await??;
        Ok(SqliteDb { conn: Arc::new(Mutex::new(conn)) })
    }
}

impl Backend for SqliteDb {
    type Conn = Connection;

    /// Runs `job` on the connection on a blocking thread.
    fn with<T, F>(&self, job: F) -> BoxFuture<'_, Result<T>>
    where
        T: Send + 'static,
        F: for<'c> FnOnce(&'c mut Connection) -> BoxFuture<'c, Result<T>> + Send + 'static,
    {
        let conn = Arc::clone(&self.conn);
        Box::pin(async move {
            tokio::task::spawn_blocking(move || {
                let mut conn = conn.lock().unwrap_or_else(|p| p.into_inner());
                // A job that ended inside its transaction (it panicked, its rollback
                // failed) left it open: it is not this job's.
                if !conn.is_autocommit() {
                    conn.execute_batch("ROLLBACK")?;
                }
                futures::executor::block_on(job(&mut conn))
            })
            .await?
        })
    }
}

impl rusqlite::ToSql for Arg<'_> {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        match self {
            Arg::Text(v) => v.to_sql(),
            Arg::OptText(v) => v.to_sql(),
            Arg::Int(v) => v.to_sql(),
            Arg::Bytes(v) => v.to_sql(),
            Arg::Texts(_) | Arg::Strs(_) | Arg::Ints(_) => {
                Err(rusqlite::Error::ToSqlConversionFailure("SQLite takes no array parameter".into()))
            }
        }
    }
}

impl Cells for rusqlite::Row<'_> {
    fn text(&self, i: usize) -> Result<String> {
        Ok(self.get(i)?)
    }

    fn opt_text(&self, i: usize) -> Result<Option<String>> {
        Ok(self.get(i)?)
    }

    fn int(&self, i: usize) -> Result<i64> {
        Ok(self.get(i)?)
    }

    fn flag(&self, i: usize) -> Result<bool> {
        Ok(self.get::<_, i64>(i)? != 0)
    }

    fn bytes(&self, i: usize) -> Result<Vec<u8>> {
        Ok(self.get(i)?)
    }
}

impl Conn for Connection {
    const DIALECT: Dialect = Dialect::Sqlite;

    async fn execute(&mut self, sql: &Sql, args: &[Arg<'_>]) -> Result<u64> {
        let mut stmt = self.prepare_cached(&sql.sqlite())?;
        Ok(stmt.execute(rusqlite::params_from_iter(args))? as u64)
    }

    async fn query<T: Send>(&mut self, sql: &Sql, args: &[Arg<'_>], row: RowFn<T>) -> Result<Vec<T>> {
        let mut stmt = self.prepare_cached(&sql.sqlite())?;
        let mut rows = stmt.query(rusqlite::params_from_iter(args))?;
        let mut out = Vec::new();
        while let Some(r) = rows.next()? {
            out.push(row(r)?);
        }
        Ok(out)
    }

    async fn begin(&mut self) -> Result<()> {
        Ok(self.execute_batch("BEGIN IMMEDIATE")?)
    }

    async fn commit(&mut self) -> Result<()> {
        Ok(self.execute_batch("COMMIT")?)
    }

    async fn rollback(&mut self) -> Result<()> {
        Ok(self.execute_batch("ROLLBACK")?)
    }
}
