//! The Postgres side of [`Database`](super::Database): one connection, made at the first
//! call, each statement in a read-only transaction with a statement timeout, rolled back.

use std::str::FromStr;
use std::time::Duration;

use futures::future::BoxFuture;
use futures::{FutureExt, StreamExt};
use tokio_postgres::types::Type;
use tokio_postgres::{Client, Config, NoTls, SimpleQueryMessage};

use super::guard::{self, Dialect};
use super::table::{ColumnSchema, TableSchema};
use super::{Limits, SqlError, Table};

/// A Postgres server, reached at the first call.
pub(super) struct Postgres {
    config: Config,
    /// The URL's own settings, without the read-only default: for `sql_migrate`.
    writer: Config,
    client: tokio::sync::Mutex<Option<Client>>,
}

impl std::fmt::Debug for Postgres {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Postgres")
            .field("host", &self.config.get_hosts())
            .field("db", &self.config.get_dbname())
            .finish()
    }
}

impl Postgres {
    /// The server `url` names (checked, not reached yet).
    pub(super) fn new(url: &str) -> Result<Self, SqlError> {
        let mut config = Config::from_str(url).map_err(|e| SqlError::Url(format!("not a usable Postgres URL: {e}")))?;
        let writer = config.clone();
        // Every transaction of the session is read-only unless it says otherwise, which
        // only a statement of the model could, and each call's own transaction says so.
        let options = format!("{} -c default_transaction_read_only=on", config.get_options().unwrap_or_default());
        config.options(options.trim_start());
        Ok(Postgres { config, writer, client: tokio::sync::Mutex::new(None) })
    }

    /// Runs `sql` (statements separated by `;`) in one transaction on a connection of its
    /// own: all of it is committed, or, at the first error, none of it. The script may not
    /// end that transaction ([`guard`](super::guard)), and each statement it was read as
    /// is prepared on its own, which the server takes only for exactly one statement: a
    /// statement read differently here and by the server fails, it does not run.
    pub(super) async fn apply(&self, sql: &str) -> Result<(), SqlError> {
        let statements = guard::statements(sql, Dialect::Postgres, "the migration")?;
        let (mut client, connection) = self.writer.connect(NoTls).await.map_err(db_error)?;
        let driver = tokio::spawn(connection);
        let tx = client.transaction().await.map_err(db_error)?;
        for (n, statement) in statements.iter().enumerate() {
            tx.execute(*statement, &[]).await.map_err(|e| {
                let why = match db_error(e) {
                    SqlError::Database(m) => m,
                    other => other.to_string(),
                };
                SqlError::Database(format!("statement {} failed: {why}", n + 1))
            })?;
        }
        tx.commit().await.map_err(db_error)?;
        drop(client);
        let _ = driver.await;
        Ok(())
    }

    /// A connection that may write (the URL's own settings), for a rehearsal: refused, as
    /// the read-only one is, for a role that could reach the server's files or programs
    /// (`COPY … TO PROGRAM` inside a `DO` block or a function).
    #[cfg(feature = "sqlite")]
    pub(super) async fn writer(&self) -> Result<Client, SqlError> {
        let (client, connection) = self.writer.connect(NoTls).await.map_err(db_error)?;
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::debug!("the rehearsal's Postgres connection ended: {e}");
            }
        });
        refuse_powerful(&client).await?;
        Ok(client)
    }

    async fn connect(&self) -> Result<Client, SqlError> {
        let (client, connection) = self.config.connect(NoTls).await.map_err(db_error)?;
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::debug!("the SQL tools' Postgres connection ended: {e}");
            }
        });
        refuse_powerful(&client).await?;
        Ok(client)
    }

    /// Runs `work` in a read-only transaction with the statement timeout, then rolls back.
    /// A connection that misbehaves (or outlives the timeout) is dropped and made again
    /// at the next call.
    async fn transaction<T>(
        &self,
        limits: Limits,
        work: impl for<'c> FnOnce(&'c Client) -> BoxFuture<'c, Result<T, SqlError>>,
    ) -> Result<T, SqlError> {
        let mut slot = self.client.lock().await;
        if slot.as_ref().is_none_or(Client::is_closed) {
            *slot = Some(self.connect().await?);
        }
        let Some(client) = slot.as_ref() else {
            return Err(SqlError::Database("no connection to Postgres".into()));
        };
        let ms = limits.timeout.as_millis().max(1);
        let run = async {
            client
                .batch_execute(&format!("BEGIN READ ONLY; SET LOCAL statement_timeout = {ms}"))
                .await
                .map_err(db_error)?;
            let out = work(client).await;
            // Whatever the statement did to the session ends here: the transaction (a SET, a
            // COMMIT of its own), and what a rollback keeps (session advisory locks).
            let end = client.batch_execute("ROLLBACK; SELECT pg_advisory_unlock_all(); RESET ALL").await;
            Ok::<_, SqlError>((out, end.is_ok()))
        };
        match tokio::time::timeout(limits.timeout + Duration::from_secs(2), run).await {
            Err(_) => {
                *slot = None;
                Err(SqlError::Timeout(limits.timeout.as_secs_f64()))
            }
            Ok(Err(e)) => {
                *slot = None;
                Err(e)
            }
            Ok(Ok((out, ended))) => {
                if !ended {
                    *slot = None;
                }
                out
            }
        }
    }

    pub(super) async fn query(&self, sql: &str, limits: Limits) -> Result<Table, SqlError> {
        let sql = sql.to_string();
        self.transaction(limits, move |client| {
            async move {
                let sql = sql.as_str();
                // Preparing takes exactly one statement: a second one is refused by the
                // server's parser before anything runs. The same text then runs in the
                // simple protocol, which gives every value as text.
                let prepared = client.prepare(sql).await.map_err(db_error)?;
                let names = prepared.columns().iter().map(|c| c.name().to_string()).collect();
                let mut table = Table::new(names, limits.cell);
                let sql = capped(client, sql, prepared.columns(), limits.cell).await.unwrap_or_else(|| sql.to_string());
                let sql = sql.as_str();
                let stream = client.simple_query_raw(sql).await.map_err(db_error)?;
                futures::pin_mut!(stream);
                while let Some(message) = stream.next().await {
                    if let SimpleQueryMessage::Row(row) = message.map_err(db_error)? {
                        table.push((0..row.len()).map(|i| row.get(i).map(str::to_string)).collect(), limits.rows);
                    }
                }
                Ok(table)
            }
            .boxed()
        })
        .await
    }

    pub(super) async fn tables(&self, only: Option<&str>, limits: Limits) -> Result<Vec<TableSchema>, SqlError> {
        let only = only.map(str::to_string);
        let tables = self
            .transaction(limits, move |client| async move { list_tables(client, only.as_deref()).await }.boxed())
            .await?;
        Ok(tables)
    }
}

/// Refuses a role that is, or may become, one that reaches the server's files, programs
/// or other sessions.
async fn refuse_powerful(client: &Client) -> Result<(), SqlError> {
    // A role that is, or may SET ROLE to, a superuser or a holder of the server's
    // file, program or signal rights: `MEMBER` follows every chain of grants.
    let row = client
        .query_one(
            "SELECT current_user::text, coalesce(string_agg(r.rolname::text, ', ' ORDER BY r.rolname), '') \
             FROM pg_roles r WHERE (r.rolsuper OR r.rolname IN ('pg_write_server_files', \
             'pg_read_server_files', 'pg_execute_server_program', 'pg_signal_backend')) \
             AND pg_has_role(current_user, r.oid, 'MEMBER')",
            &[],
        )
        .await
        .map_err(db_error)?;
    let (role, powerful): (String, String) = (row.get(0), row.get(1));
    if !powerful.is_empty() {
        return Err(SqlError::Url(format!(
            "the SQL tools will not connect as `{role}`: it is or may become {powerful} (a superuser, or a \
             member of pg_write_server_files, pg_read_server_files, pg_execute_server_program or \
             pg_signal_backend can reach the server's files, programs or other sessions even in a \
             read-only transaction: COPY … TO PROGRAM); connect as a role without those rights"
        )));
    }
    Ok(())
}

/// The tables and views of every schema but the system's (or the one named), described.
pub(super) async fn list_tables(client: &Client, only: Option<&str>) -> Result<Vec<TableSchema>, SqlError> {
    let rows = client
        .query(
            "SELECT c.oid, CASE WHEN n.nspname = 'public' THEN c.relname::text \
             ELSE n.nspname || '.' || c.relname END, \
             CASE c.relkind WHEN 'v' THEN 'view' WHEN 'm' THEN 'materialized view' ELSE 'table' END, \
             CASE WHEN n.nspname = 'public' THEN NULL ELSE n.nspname::text END \
             FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace \
             WHERE c.relkind IN ('r', 'p', 'v', 'm') \
             AND n.nspname NOT IN ('pg_catalog', 'information_schema') \
             AND n.nspname NOT LIKE 'pg\\_%' \
             AND ($1::text IS NULL OR c.relname = $1 OR n.nspname || '.' || c.relname = $1) \
             ORDER BY n.nspname, c.relname",
            &[&only],
        )
        .await
        .map_err(db_error)?;
    if let (Some(t), true) = (only, rows.is_empty()) {
        return Err(SqlError::Database(format!("no such table: {t}")));
    }
    let mut tables = Vec::with_capacity(rows.len());
    for row in rows {
        let oid: u32 = row.get(0);
        tables.push(describe(client, oid, row.get(1), row.get(2), row.get(3)).await?);
    }
    Ok(tables)
}

/// `sql` with every value of a type that may be long cut to `width + 1` characters by the
/// server (`left(…)`), so a cell of `repeat('x', 400000000)` never reaches this process whole:
/// the statement becomes a subquery whose columns are renamed by position. `None` when
/// nothing needs a cut or the statement cannot be a subquery (`SHOW`, `EXPLAIN`): it then
/// runs as written. Tried under a savepoint, as a failed prepare would end the transaction.
async fn capped(client: &Client, sql: &str, columns: &[tokio_postgres::Column], width: usize) -> Option<String> {
    let wrapped = capped_sql(sql, columns.iter().map(|c| c.type_()), width)?;
    client.batch_execute("SAVEPOINT lucid_capped").await.ok()?;
    match client.prepare(&wrapped).await {
        Ok(_) => {
            client.batch_execute("RELEASE SAVEPOINT lucid_capped").await.ok()?;
            Some(wrapped)
        }
        Err(_) => {
            client.batch_execute("ROLLBACK TO SAVEPOINT lucid_capped").await.ok()?;
            None
        }
    }
}

/// The text of [`capped`]'s subquery; `None` when no column's type may be long.
fn capped_sql<'t>(sql: &str, types: impl Iterator<Item = &'t Type>, width: usize) -> Option<String> {
    let body = sql.trim_end().trim_end_matches(';').trim_end();
    let mut cut = false;
    let (mut names, mut values) = (Vec::new(), Vec::new());
    for (i, ty) in types.enumerate() {
        names.push(format!("c{i}"));
        if SHORT.contains(ty) {
            values.push(format!("q.c{i}"));
        } else {
            cut = true;
            values.push(format!("left(q.c{i}::text, {})", width + 1));
        }
    }
    // The newline keeps a trailing `-- comment` of the statement from eating the `)`.
    cut.then(|| format!("SELECT {} FROM (\n{body}\n) AS q({})", values.join(", "), names.join(", ")))
}

/// Types whose text is short whatever the value (so the server's own output is kept,
/// `t` for a boolean rather than `true`). Every other type is cut by [`capped`].
const SHORT: &[Type] = &[
    Type::BOOL,
    Type::INT2,
    Type::INT4,
    Type::INT8,
    Type::FLOAT4,
    Type::FLOAT8,
    Type::NUMERIC,
    Type::OID,
    Type::DATE,
    Type::TIME,
    Type::TIMETZ,
    Type::TIMESTAMP,
    Type::TIMESTAMPTZ,
    Type::INTERVAL,
    Type::UUID,
    Type::MONEY,
    Type::CHAR,
    Type::INET,
    Type::CIDR,
    Type::MACADDR,
];

/// One table's columns, keys and indexes, from the catalogue.
async fn describe(
    client: &Client,
    oid: u32,
    name: String,
    kind: String,
    schema: Option<String>,
) -> Result<TableSchema, SqlError> {
    let columns = client
        .query(
            "SELECT a.attname::text, format_type(a.atttypid, a.atttypmod), a.attnotnull, \
             EXISTS (SELECT 1 FROM pg_constraint p WHERE p.conrelid = a.attrelid AND p.contype = 'p' \
                     AND a.attnum = ANY (p.conkey)), \
             (SELECT f.confrelid::regclass::text || '(' || \
                     (SELECT string_agg(quote_ident(t.attname), ', ') FROM pg_attribute t \
                      WHERE t.attrelid = f.confrelid AND t.attnum = ANY (f.confkey)) || ')' \
              FROM pg_constraint f WHERE f.conrelid = a.attrelid AND f.contype = 'f' \
              AND a.attnum = ANY (f.conkey) LIMIT 1) \
             FROM pg_attribute a WHERE a.attrelid = $1 AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum",
            &[&oid],
        )
        .await
        .map_err(db_error)?
        .iter()
        .map(|r| ColumnSchema {
            name: r.get(0),
            ty: r.get(1),
            not_null: r.get(2),
            primary_key: r.get(3),
            references: r.get(4),
        })
        .collect();
    let indexes = client
        .query(
            "SELECT i.indexrelid::regclass::text, i.indisunique, pg_get_indexdef(i.indexrelid) \
             FROM pg_index i WHERE i.indrelid = $1 ORDER BY 1",
            &[&oid],
        )
        .await
        .map_err(db_error)?
        .iter()
        .map(|r| {
            let (index, unique, def): (String, bool, String) = (r.get(0), r.get(1), r.get(2));
            let on = def.split_once(" USING ").map_or(def.as_str(), |(_, rest)| rest);
            format!("{index}{} {on}", if unique { " unique" } else { "" })
        })
        .collect();
    Ok(TableSchema { name, kind, columns, indexes, schema })
}

/// The server's own message (with its detail and hint), or the client's.
pub(super) fn db_error(e: tokio_postgres::Error) -> SqlError {
    match e.as_db_error() {
        Some(db) => {
            let mut message = db.message().to_string();
            if let Some(detail) = db.detail() {
                message.push_str(&format!(" ({detail})"));
            }
            if let Some(hint) = db.hint() {
                message.push_str(&format!(" Hint: {hint}"));
            }
            SqlError::Database(message)
        }
        None => SqlError::Database(format!("Postgres: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_types_are_cut_by_the_server_and_short_ones_kept() {
        let sql = "SELECT name, n, doc FROM t ORDER BY n -- the lot\n";
        let wrapped = capped_sql(sql, [Type::TEXT, Type::INT4, Type::JSONB].iter(), 40).unwrap();
        assert_eq!(
            wrapped,
            "SELECT left(q.c0::text, 41), q.c1, left(q.c2::text, 41) FROM (\nSELECT name, n, doc FROM t ORDER BY n -- the lot\n) AS q(c0, c1, c2)"
        );
        assert_eq!(capped_sql("SELECT 1, true", [Type::INT4, Type::BOOL].iter(), 40), None);
        let plain = capped_sql("SELECT 'a' ;  ", [Type::TEXT].iter(), 3).unwrap();
        assert_eq!(plain, "SELECT left(q.c0::text, 4) FROM (\nSELECT 'a'\n) AS q(c0)");
    }
}
