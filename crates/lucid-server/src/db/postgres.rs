//! The server's tables in the PostgreSQL database of the session store, shared by every
//! instance: created once under an advisory lock, runs claimed with
//! `FOR UPDATE SKIP LOCKED` so two instances never take the same one.

use deadpool_postgres::{Object, Pool};
use futures::future::BoxFuture;
use tokio_postgres::Row;
use tokio_postgres::types::ToSql;

use super::Result;
use super::query::{Arg, Backend, Cells, Conn, Dialect, RowFn, Sql};

/// An arbitrary constant naming the advisory lock that serializes the tables' creation.
const SCHEMA_LOCK: i64 = 0x6c75_6369_6473_7276; // "lucidsrv"

/// The server's tables in PostgreSQL.
#[derive(Clone)]
pub struct PostgresDb {
    pool: Pool,
}

impl PostgresDb {
    /// Creates the tables if missing.
    pub async fn open(pool: Pool) -> Result<PostgresDb> {
        let mut client = pool.get().await?;
        let tx = client.transaction().await?;
        tx.execute("SELECT pg_advisory_xact_lock($1)", &[&SCHEMA_LOCK]).await?;
        tx.batch_execute(super::schema::POSTGRES).await?;
        tx.commit().await?;
        Ok(PostgresDb { pool })
    }
}

impl Backend for PostgresDb {
    type Conn = PgConn;

    /// Runs `job` on a pooled connection.
    fn with<T, F>(&self, job: F) -> BoxFuture<'_, Result<T>>
    where
        T: Send + 'static,
        F: for<'c> FnOnce(&'c mut PgConn) -> BoxFuture<'c, Result<T>> + Send + 'static,
    {
        Box::pin(async move {
            let mut conn = PgConn { client: Some(self.pool.get().await?), open: false };
            job(&mut conn).await
        })
    }
}

/// A pooled connection, and whether a transaction is open on it.
pub struct PgConn {
    /// Always there but while dropping.
    client: Option<Object>,
    open: bool,
}

impl PgConn {
    fn client(&self) -> &Object {
        // Taken only in `drop`.
        self.client.as_ref().unwrap_or_else(|| unreachable!("a PostgreSQL connection used after it was dropped"))
    }

    async fn batch(&mut self, sql: &str, open: bool) -> Result<()> {
        self.client().batch_execute(sql).await?;
        self.open = open;
        Ok(())
    }
}

impl Drop for PgConn {
    /// A connection dropped inside its transaction (its future cancelled, its rollback
    /// failed) goes back to no pool: it closes, and the server rolls the transaction back.
    fn drop(&mut self) {
        if self.open
            && let Some(client) = self.client.take()
        {
            drop(Object::take(client));
        }
    }
}

/// The parameters as tokio-postgres takes them.
fn params<'a>(args: &'a [Arg<'a>]) -> Vec<&'a (dyn ToSql + Sync)> {
    args.iter()
        .map(|a| -> &(dyn ToSql + Sync) {
            match a {
                Arg::Text(v) => v,
                Arg::OptText(v) => v,
                Arg::Int(v) => v,
                Arg::Bytes(v) => v,
                Arg::Texts(v) => v,
                Arg::Strs(v) => v,
                Arg::Ints(v) => v,
            }
        })
        .collect()
}

impl Cells for Row {
    fn text(&self, i: usize) -> Result<String> {
        Ok(self.try_get(i)?)
    }

    fn opt_text(&self, i: usize) -> Result<Option<String>> {
        Ok(self.try_get(i)?)
    }

    fn int(&self, i: usize) -> Result<i64> {
        Ok(self.try_get(i)?)
    }

    fn flag(&self, i: usize) -> Result<bool> {
        Ok(self.try_get(i)?)
    }

    fn bytes(&self, i: usize) -> Result<Vec<u8>> {
        Ok(self.try_get(i)?)
    }
}

impl Conn for PgConn {
    const DIALECT: Dialect = Dialect::Postgres;

    async fn execute(&mut self, sql: &Sql, args: &[Arg<'_>]) -> Result<u64> {
        Ok(self.client().execute(sql.postgres(), &params(args)).await?)
    }

    async fn query<T: Send>(&mut self, sql: &Sql, args: &[Arg<'_>], row: RowFn<T>) -> Result<Vec<T>> {
        let rows = self.client().query(sql.postgres(), &params(args)).await?;
        rows.iter().map(|r| row(r)).collect()
    }

    async fn begin(&mut self) -> Result<()> {
        self.open = true;
        self.batch("BEGIN", true).await
    }

    async fn commit(&mut self) -> Result<()> {
        self.batch("COMMIT", false).await
    }

    async fn rollback(&mut self) -> Result<()> {
        self.batch("ROLLBACK", false).await
    }
}
