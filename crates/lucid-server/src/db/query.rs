//! The one query layer under both backends: a statement ([`Sql`]) with its SQLite and
//! PostgreSQL text side by side, its parameters ([`Arg`]), a row read by column
//! ([`Cells`]), and a connection that runs them ([`Conn`]: rusqlite on a blocking thread,
//! tokio-postgres on the runtime), so each query's logic and row mapping is written once
//! (in [`store`](super::store), [`spend`](super::spend) and
//! [`attachments`](super::attachments)), and only the text and the driver calls differ.
//!
//! Not here: what the statements say (in [`sql`](super::sql)), and the drivers themselves
//! (in [`sqlite`](super::sqlite) and [`postgres`](super::postgres)).

use std::borrow::Cow;
use std::future::Future;

use futures::future::BoxFuture;

use super::{DbError, Result};

/// Which database a connection speaks to, for the few steps that differ beyond a
/// statement's text (a loop of statements on SQLite where PostgreSQL takes an array).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// SQLite, one file, one writer at a time.
    Sqlite,
    /// PostgreSQL, shared by every instance.
    Postgres,
}

/// A statement, in each dialect.
pub enum Sql {
    /// One text for both, with `$N` placeholders (SQLite reads them as `?N`); no `$`
    /// anywhere else in it.
    Both(&'static str),
    /// A text per dialect.
    Each {
        /// SQLite's, with `?N` placeholders.
        sqlite: &'static str,
        /// PostgreSQL's, with `$N` placeholders.
        #[cfg_attr(not(feature = "postgres"), allow(dead_code, reason = "read by the PostgreSQL backend only"))]
        postgres: &'static str,
    },
}

impl Sql {
    /// The text SQLite runs.
    pub fn sqlite(&self) -> Cow<'static, str> {
        match self {
            Sql::Both(text) => Cow::Owned(text.replace('$', "?")),
            Sql::Each { sqlite, .. } => Cow::Borrowed(sqlite),
        }
    }

    /// The text PostgreSQL runs.
    #[cfg_attr(not(feature = "postgres"), allow(dead_code, reason = "read by the PostgreSQL backend only"))]
    pub fn postgres(&self) -> &'static str {
        match self {
            Sql::Both(text) | Sql::Each { postgres: text, .. } => text,
        }
    }
}

/// A statement's parameter.
#[derive(Debug, Clone, Copy)]
pub enum Arg<'a> {
    /// Text.
    Text(&'a str),
    /// Text or `NULL`.
    OptText(Option<&'a str>),
    /// A 64-bit integer.
    Int(i64),
    /// Bytes.
    Bytes(&'a [u8]),
    /// An array of text (PostgreSQL only).
    #[cfg_attr(not(feature = "postgres"), allow(dead_code, reason = "read by the PostgreSQL backend only"))]
    Texts(&'a [String]),
    /// An array of text (PostgreSQL only).
    #[cfg_attr(not(feature = "postgres"), allow(dead_code, reason = "read by the PostgreSQL backend only"))]
    Strs(&'a [&'a str]),
    /// An array of integers (PostgreSQL only).
    #[cfg_attr(not(feature = "postgres"), allow(dead_code, reason = "read by the PostgreSQL backend only"))]
    Ints(&'a [i64]),
}

impl<'a> From<&'a str> for Arg<'a> {
    fn from(v: &'a str) -> Self {
        Arg::Text(v)
    }
}

impl<'a> From<&'a String> for Arg<'a> {
    fn from(v: &'a String) -> Self {
        Arg::Text(v)
    }
}

impl<'a> From<Option<&'a str>> for Arg<'a> {
    fn from(v: Option<&'a str>) -> Self {
        Arg::OptText(v)
    }
}

impl<'a> From<&'a Option<String>> for Arg<'a> {
    fn from(v: &'a Option<String>) -> Self {
        Arg::OptText(v.as_deref())
    }
}

impl From<i64> for Arg<'_> {
    fn from(v: i64) -> Self {
        Arg::Int(v)
    }
}

impl<'a> From<&'a [u8]> for Arg<'a> {
    fn from(v: &'a [u8]) -> Self {
        Arg::Bytes(v)
    }
}

impl<'a> From<&'a [String]> for Arg<'a> {
    fn from(v: &'a [String]) -> Self {
        Arg::Texts(v)
    }
}

impl<'a> From<&'a [&'a str]> for Arg<'a> {
    fn from(v: &'a [&'a str]) -> Self {
        Arg::Strs(v)
    }
}

impl<'a> From<&'a [i64]> for Arg<'a> {
    fn from(v: &'a [i64]) -> Self {
        Arg::Ints(v)
    }
}

/// A statement's parameters: `args![&id, n]` is `&[Arg::from(&id), Arg::from(n)]`.
macro_rules! args {
    ($($a:expr),* $(,)?) => { &[$($crate::db::query::Arg::from($a)),*] };
}
pub(crate) use args;

/// A row of a result, read by column number.
pub trait Cells {
    /// Text.
    fn text(&self, i: usize) -> Result<String>;
    /// Text or `NULL`.
    fn opt_text(&self, i: usize) -> Result<Option<String>>;
    /// An integer.
    fn int(&self, i: usize) -> Result<i64>;
    /// A flag (SQLite: an integer, PostgreSQL: a boolean).
    fn flag(&self, i: usize) -> Result<bool>;
    /// Bytes.
    fn bytes(&self, i: usize) -> Result<Vec<u8>>;
}

/// Reads one row into a `T`.
pub type RowFn<T> = fn(&dyn Cells) -> Result<T>;

/// A connection of either backend: the statements of one method run on it, in a
/// transaction between [`Conn::begin`] and [`Conn::commit`] or [`Conn::rollback`].
pub trait Conn: Send {
    /// Which database this is.
    const DIALECT: Dialect;

    /// Runs a statement: how many rows it changed.
    fn execute(&mut self, sql: &Sql, args: &[Arg<'_>]) -> impl Future<Output = Result<u64>> + Send;

    /// Runs a query: its rows, each read by `row`.
    fn query<T: Send>(
        &mut self,
        sql: &Sql,
        args: &[Arg<'_>],
        row: RowFn<T>,
    ) -> impl Future<Output = Result<Vec<T>>> + Send;

    /// Starts a transaction (SQLite: `IMMEDIATE`, taking the write lock at once).
    fn begin(&mut self) -> impl Future<Output = Result<()>> + Send;

    /// Commits the transaction.
    fn commit(&mut self) -> impl Future<Output = Result<()>> + Send;

    /// Rolls the transaction back.
    fn rollback(&mut self) -> impl Future<Output = Result<()>> + Send;
}

/// The first row of a query, if any.
pub async fn first<C: Conn, T: Send>(c: &mut C, sql: &Sql, args: &[Arg<'_>], row: RowFn<T>) -> Result<Option<T>> {
    Ok(c.query(sql, args, row).await?.into_iter().next())
}

/// Ends the transaction a method's body ran in: committed when the body succeeded and
/// `keep` says its result is to be kept, rolled back otherwise (a refused write leaves
/// nothing behind).
pub async fn end<C: Conn, T>(c: &mut C, body: Result<T>, keep: impl FnOnce(&T) -> bool) -> Result<T> {
    match body {
        Ok(v) if keep(&v) => {
            c.commit().await?;
            Ok(v)
        }
        Ok(v) => {
            c.rollback().await?;
            Ok(v)
        }
        Err(e) => {
            // The body's error is the one to tell; a connection whose rollback failed is
            // not used again (see each backend).
            let _ = c.rollback().await;
            Err(e)
        }
    }
}

/// Whether a write went through: false when the one-active-run-per-session index (or
/// another constraint, on SQLite) said no.
pub fn not_unique(r: Result<u64>) -> Result<bool> {
    match r {
        Ok(n) => Ok(n > 0),
        Err(DbError::Sqlite(rusqlite::Error::SqliteFailure(e, _)))
            if e.code == rusqlite::ErrorCode::ConstraintViolation =>
        {
            Ok(false)
        }
        #[cfg(feature = "postgres")]
        Err(DbError::Postgres(e)) if e.code() == Some(&tokio_postgres::error::SqlState::UNIQUE_VIOLATION) => Ok(false),
        Err(e) => Err(e),
    }
}

/// A database the jobs run on: SQLite (one connection, on a blocking thread) or
/// PostgreSQL (a pooled connection).
pub trait Backend: Send + Sync + 'static {
    /// Its connection.
    type Conn: Conn;

    /// Runs `job`, the body of a [`RunStore`](super::RunStore) method, on a connection.
    fn with<T, F>(&self, job: F) -> BoxFuture<'_, Result<T>>
    where
        T: Send + 'static,
        F: for<'c> FnOnce(&'c mut Self::Conn) -> BoxFuture<'c, Result<T>> + Send + 'static;
}

#[cfg(test)]
mod tests {
    use super::Sql;

    #[test]
    fn a_statement_for_both_dialects_reads_its_placeholders_as_sqlites() {
        let both = Sql::Both("UPDATE t SET a = $1, b = $10 WHERE id = $2 AND c = 'x'");
        assert_eq!(both.sqlite(), "UPDATE t SET a = ?1, b = ?10 WHERE id = ?2 AND c = 'x'");
        assert_eq!(both.postgres(), "UPDATE t SET a = $1, b = $10 WHERE id = $2 AND c = 'x'");
        let each = Sql::Each { sqlite: "SELECT ?1", postgres: "SELECT $1::TEXT" };
        assert_eq!((each.sqlite().as_ref(), each.postgres()), ("SELECT ?1", "SELECT $1::TEXT"));
    }
}
