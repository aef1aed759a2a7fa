//! `schema_history`: the schema versions of a project, kept in a SQLite file (Lucid's
//! store by default) or in Lucid's Postgres store (`history_pg.rs`), with their time and
//! message; listed, shown, compared, and turned back into a migration.
//!
//! Pruning, after each save: a project keeps its newest `keep` versions (20 unless set);
//! of the older ones it keeps the newest of each UTC day, and drops the rest.

use std::path::PathBuf;
use std::sync::Arc;

use futures::FutureExt;
use futures::future::BoxFuture;
use rusqlite::{Connection, OptionalExtension};
use serde::Deserialize;
use serde_json::{Value, json};

use super::diff::{create_ddl, diff, migration};
use super::guard::{self, Dialect};
use super::table::TableSchema;
pub use super::versions::Version;
use super::versions::{pruned, version};
use super::{Database, SqlError};
use lucid::tool::{Tool, ToolContext, ToolError, ToolSpec, parse_args};

/// The schema versions of one project in a SQLite file ([`open`](Self::open)) or in
/// Lucid's Postgres store ([`postgres`](Self::postgres), feature `postgres`).
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let dir = std::env::temp_dir().join(format!("lucid-doc-history-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let db_path = dir.join("shop.db");
/// rusqlite::Connection::open(&db_path).unwrap().execute_batch("CREATE TABLE item (id INTEGER PRIMARY KEY)").unwrap();
/// let db = lucid_sql::Database::open(db_path.to_str().unwrap()).unwrap();
/// let history = lucid_sql::SchemaHistory::open(dir.join("lucid.db"), "shop").unwrap();
/// let v = history.save_current(&db, "first").await.unwrap();
/// assert_eq!(history.list().await.unwrap()[0].id, v.id);
/// # });
/// ```
#[derive(Debug)]
pub struct SchemaHistory {
    store: Store,
    project: String,
    keep: usize,
}

/// Where a history's versions are kept.
#[derive(Debug)]
enum Store {
    Sqlite(PathBuf),
    #[cfg(feature = "postgres")]
    Postgres(super::history_pg::Pg),
}

/// Where a setup's `schema_history` keeps its versions ([`SqlConfig`](crate::SqlConfig)).
#[derive(Debug, Clone)]
pub(crate) enum HistoryStore {
    Sqlite(PathBuf),
    #[cfg(feature = "postgres")]
    Postgres(String),
}

fn store_error(e: rusqlite::Error) -> SqlError {
    SqlError::Database(format!("the schema history: {e}"))
}

fn now_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}

impl SchemaHistory {
    /// The versions of `project` in the SQLite file at `path` (made when missing).
    pub fn open(path: impl Into<PathBuf>, project: impl Into<String>) -> Result<Self, SqlError> {
        let h = SchemaHistory { store: Store::Sqlite(path.into()), project: project.into(), keep: 20 };
        h.connect()?;
        Ok(h)
    }

    /// The versions of `project` in the `lucid_schema_versions` table of Lucid's Postgres
    /// store at `url` (made by [`PostgresStore`](lucid_postgres::PostgresStore)'s
    /// migrations), connected at the first use.
    ///
    /// ```
    /// let h = lucid_sql::SchemaHistory::postgres("postgres://lucid@127.0.0.1/lucid", "shop");
    /// assert!(h.is_ok(), "nothing is sent before the first use");
    /// assert!(lucid_sql::SchemaHistory::postgres("postgres://a b:x", "shop").is_err());
    /// ```
    #[cfg(feature = "postgres")]
    pub fn postgres(url: &str, project: impl Into<String>) -> Result<Self, SqlError> {
        let pg = super::history_pg::Pg::new(url)?;
        Ok(SchemaHistory { store: Store::Postgres(pg), project: project.into(), keep: 20 })
    }

    /// Keep the newest `n` versions whole before thinning older ones to one a day.
    pub fn keep(mut self, n: usize) -> Self {
        self.keep = n.max(1);
        self
    }

    fn connect(&self) -> Result<Connection, SqlError> {
        // One arm without the `postgres` feature.
        #[allow(clippy::infallible_destructuring_match)]
        let path = match &self.store {
            Store::Sqlite(path) => path,
            #[cfg(feature = "postgres")]
            Store::Postgres(_) => return Err(SqlError::Database("the schema history is in Postgres".into())),
        };
        let conn = Connection::open(path).map_err(store_error)?;
        conn.busy_timeout(std::time::Duration::from_secs(5)).map_err(store_error)?;
        conn.execute_batch(
            "CREATE TABLE IF NOT EXISTS schema_versions (id INTEGER PRIMARY KEY AUTOINCREMENT, \
             project TEXT NOT NULL, created_at INTEGER NOT NULL, message TEXT NOT NULL, kind TEXT NOT NULL, \
             tables TEXT NOT NULL); \
             CREATE INDEX IF NOT EXISTS schema_versions_project ON schema_versions (project, created_at)",
        )
        .map_err(store_error)?;
        Ok(conn)
    }

    /// Saves `tables` as a version now, then prunes.
    pub(super) async fn save(&self, tables: Vec<TableSchema>, message: &str, kind: &str) -> Result<Version, SqlError> {
        self.save_at(tables, message, kind, now_ms()).await
    }

    async fn save_at(&self, tables: Vec<TableSchema>, message: &str, kind: &str, at: i64) -> Result<Version, SqlError> {
        let json = serde_json::to_string(&tables).map_err(|e| SqlError::Database(e.to_string()))?;
        #[cfg(feature = "postgres")]
        if let Store::Postgres(pg) = &self.store {
            let id = pg.insert(&self.project, at, message, kind, &json, self.keep).await?;
            return Ok(Version { id, created_at: at, message: message.into(), kind: kind.into(), tables });
        }
        let conn = self.connect()?;
        conn.execute(
            "INSERT INTO schema_versions (project, created_at, message, kind, tables) VALUES (?1, ?2, ?3, ?4, ?5)",
            rusqlite::params![self.project, at, message, kind, json],
        )
        .map_err(store_error)?;
        let id = conn.last_insert_rowid();
        self.prune(&conn)?;
        Ok(Version { id, created_at: at, message: message.into(), kind: kind.into(), tables })
    }

    /// Saves the database's schema as it is now.
    pub async fn save_current(&self, db: &Database, message: &str) -> Result<Version, SqlError> {
        let tables = db.tables(None).await?;
        self.save(tables, message, "current").await
    }

    /// Saves a proposal: the database's schema with `ddl` laid over it, checked by running
    /// both in a private in-memory SQLite database (so the DDL must be SQLite's dialect
    /// too) that can reach no file: the DDL may not attach, detach, vacuum, set a pragma
    /// or control a transaction ([`SqlError::Refused`]), and runs within the database's
    /// time limit.
    pub async fn save_proposed(&self, db: &Database, ddl: &str, message: &str) -> Result<Version, SqlError> {
        let current = db.tables(None).await?;
        let tables = propose(&current, ddl, db.limits.timeout).await?;
        self.save(tables, message, "proposed").await
    }

    /// The project's versions, newest first.
    pub async fn list(&self) -> Result<Vec<Version>, SqlError> {
        #[cfg(feature = "postgres")]
        if let Store::Postgres(pg) = &self.store {
            return pg.list(&self.project).await;
        }
        let conn = self.connect()?;
        let mut stmt = conn
            .prepare(
                "SELECT id, created_at, message, kind, tables FROM schema_versions WHERE project = ?1 \
                 ORDER BY created_at DESC, id DESC",
            )
            .map_err(store_error)?;
        stmt.query_map([&self.project], row).map_err(store_error)?.collect::<Result<_, _>>().map_err(store_error)
    }

    /// The version `id` of this project.
    pub async fn get(&self, id: i64) -> Result<Version, SqlError> {
        let found = match &self.store {
            #[cfg(feature = "postgres")]
            Store::Postgres(pg) => pg.get(&self.project, id).await?,
            Store::Sqlite(_) => self
                .connect()?
                .query_row(
                    "SELECT id, created_at, message, kind, tables FROM schema_versions WHERE project = ?1 AND id = ?2",
                    rusqlite::params![self.project, id],
                    row,
                )
                .optional()
                .map_err(store_error)?,
        };
        found.ok_or_else(|| SqlError::Database(format!("no version {id} of `{}`", self.project)))
    }

    /// Drops what the rule leaves out: beyond the newest `keep`, all but the newest of each day.
    fn prune(&self, conn: &Connection) -> Result<(), SqlError> {
        let mut stmt = conn
            .prepare("SELECT id, created_at FROM schema_versions WHERE project = ?1 ORDER BY created_at DESC, id DESC")
            .map_err(store_error)?;
        let all: Vec<(i64, i64)> = stmt
            .query_map([&self.project], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(store_error)?
            .collect::<Result<_, _>>()
            .map_err(store_error)?;
        for id in pruned(&all, self.keep) {
            conn.execute("DELETE FROM schema_versions WHERE id = ?1", [id]).map_err(store_error)?;
        }
        Ok(())
    }
}

fn row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Version> {
    let tables: String = r.get(4)?;
    Ok(version(r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, &tables))
}

/// The most a proposal's private database may grow to, in pages of 4 KiB (64 MiB).
const PROPOSAL_PAGES: u32 = 16_384;

/// `current` with `ddl` run over it, in memory, on a blocking thread interrupted after
/// `timeout`. Nothing of it can reach a file: the connection is private and in memory
/// (temporary tables too), no database can be attached (which `VACUUM INTO` needs), the
/// DDL's statements are checked first ([`guard`](super::guard)) and an authorizer denies
/// transaction control, `ATTACH`, `DETACH` and `PRAGMA` while they run.
async fn propose(
    current: &[TableSchema],
    ddl: &str,
    timeout: std::time::Duration,
) -> Result<Vec<TableSchema>, SqlError> {
    let statements: Vec<String> =
        guard::statements(ddl, Dialect::Sqlite, "the proposed DDL")?.into_iter().map(str::to_string).collect();
    let base: Vec<String> = current.iter().filter(|t| t.kind == "table").flat_map(create_ddl).collect();
    let mut conn = Connection::open_in_memory().map_err(store_error)?;
    conn.execute_batch(&format!("PRAGMA temp_store = MEMORY; PRAGMA max_page_count = {PROPOSAL_PAGES}"))
        .map_err(store_error)?;
    let interrupt = conn.get_interrupt_handle();
    let mut work = tokio::task::spawn_blocking(move || {
        super::sqlite::confine(&mut conn)?;
        super::sqlite::run_each(&conn, &base)
            .map_err(|e| SqlError::Database(format!("the current schema in SQLite: {e}")))?;
        super::sqlite::run_each(&conn, &statements)
            .map_err(|e| SqlError::Database(format!("the proposed DDL: {e}")))?;
        super::sqlite::unconfine(&mut conn)?;
        super::sqlite::describe_all(&conn)
    });
    tokio::select! {
        done = &mut work => done.map_err(|e| SqlError::Database(format!("the proposal's thread failed: {e}")))?,
        _ = tokio::time::sleep(timeout) => {
            interrupt.interrupt();
            let _ = work.await;
            Err(SqlError::Timeout(timeout.as_secs_f64()))
        }
    }
}

/// The project a database belongs to when none is named: its path, or its URL without
/// user, password and query.
///
/// ```
/// assert_eq!(lucid_sql::project_of("postgres://app:s3cret@db:5432/shop?sslmode=require"), "postgres://db:5432/shop");
/// ```
pub fn project_of(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return std::fs::canonicalize(url).map_or_else(|_| url.to_string(), |p| p.display().to_string());
    };
    let rest = rest.split('?').next().unwrap_or(rest);
    let host = rest.rsplit_once('@').map_or(rest, |(_, h)| h);
    format!("{scheme}://{host}")
}

/// The `schema_history` tool: a [`SchemaHistory`] of a [`Database`].
#[derive(Debug)]
pub struct SchemaHistoryTool {
    spec: ToolSpec,
    db: Arc<Database>,
    history: SchemaHistory,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct HistoryArgs {
    /// `save` (the current schema, or with `ddl` a proposal), `list`, `show` (`id`),
    /// `diff` (`from`, and `to` or the current schema), `restore` (`id`: the migration
    /// from the current schema back to it).
    action: String,
    /// What this version is (for `save`).
    #[serde(default)]
    message: Option<String>,
    /// Proposed DDL laid over the current schema (for `save`).
    #[serde(default)]
    ddl: Option<String>,
    /// A version (for `show` and `restore`).
    #[serde(default)]
    id: Option<i64>,
    /// The older version of a `diff`.
    #[serde(default)]
    from: Option<i64>,
    /// The newer version of a `diff` (default: the database's schema now).
    #[serde(default)]
    to: Option<i64>,
}

impl SchemaHistoryTool {
    /// The tool over `db`, keeping versions in `history`.
    pub fn new(db: Arc<Database>, history: SchemaHistory) -> Self {
        let spec = ToolSpec::for_args::<HistoryArgs>(
            "schema_history",
            "Keeps the versions of the database's schema (each with its time and a message): save the current \
             schema or a proposed one (DDL), list them, show one, diff two (or one against the current schema: \
             tables, columns, keys, indexes added, dropped, changed), restore one (answers the migration back to it).",
        );
        SchemaHistoryTool { spec, db, history }
    }

    async fn act(&self, a: HistoryArgs) -> Result<Value, SqlError> {
        let need =
            |v: Option<i64>, what: &str| v.ok_or_else(|| SqlError::Database(format!("`{}` needs `{what}`", a.action)));
        let listed =
            |v: &Version| json!({"id": v.id, "created_at": v.created_at, "message": v.message, "kind": v.kind});
        Ok(match a.action.as_str() {
            "save" => {
                let message = a.message.clone().unwrap_or_default();
                let v = match &a.ddl {
                    Some(ddl) => self.history.save_proposed(&self.db, ddl, &message).await?,
                    None => self.history.save_current(&self.db, &message).await?,
                };
                json!({"saved": listed(&v), "project": self.history.project})
            }
            "list" => {
                let versions = self.history.list().await?;
                json!({"project": self.history.project, "versions": versions.iter().map(listed).collect::<Vec<_>>()})
            }
            "show" => {
                let v = self.history.get(need(a.id, "id")?).await?;
                json!({"version": listed(&v), "schema": super::table::schema_markdown(&v.tables, super::SCHEMA_WIDTH)})
            }
            "diff" => {
                let from = self.history.get(need(a.from, "from")?).await?;
                let to = match a.to {
                    Some(id) => self.history.get(id).await?.tables,
                    None => self.db.tables(None).await?,
                };
                diff(&from.tables, &to)
            }
            "restore" => {
                let v = self.history.get(need(a.id, "id")?).await?;
                let now = self.db.tables(None).await?;
                json!({"version": listed(&v), "up": migration(&now, &v.tables), "down": migration(&v.tables, &now)})
            }
            other => {
                return Err(SqlError::Database(format!("unknown action `{other}`: save, list, show, diff or restore")));
            }
        })
    }
}

impl Tool for SchemaHistoryTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn invoke<'a>(&'a self, args: Value, _ctx: ToolContext) -> BoxFuture<'a, Result<String, ToolError>> {
        async move {
            let a: HistoryArgs = parse_args(args)?;
            let v = self.act(a).await.map_err(|e| ToolError::new(e.to_string()))?;
            Ok(v.to_string())
        }
        .boxed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Seven versions over three days of project `h`, kept to 2 and one a day before them;
    /// `other` (another project in the same store) sees none of them.
    async fn prune(h: SchemaHistory, other: SchemaHistory) {
        let h = h.keep(2);
        let day = 86_400_000;
        // Three versions on day 1, two on day 2, two on day 3 (the newest).
        for (i, at) in
            [day + 1, day + 2, day + 3, 2 * day + 1, 2 * day + 2, 3 * day + 1, 3 * day + 2].iter().enumerate()
        {
            h.save_at(vec![], &format!("v{i}"), "current", *at).await.unwrap();
        }
        let kept: Vec<String> = h.list().await.unwrap().into_iter().map(|v| v.message).collect();
        assert_eq!(kept, ["v6", "v5", "v4", "v2"]);
        let v2 = h.list().await.unwrap().pop().unwrap();
        assert_eq!((h.get(v2.id).await.unwrap().created_at, v2.kind.as_str()), (day + 3, "current"));
        assert!(other.list().await.unwrap().is_empty(), "each project has its own versions");
        assert!(other.get(v2.id).await.is_err(), "nor can it read them by id");
    }

    #[tokio::test]
    async fn pruning_keeps_the_newest_and_one_a_day_before_them() {
        let dir = std::env::temp_dir().join(format!("lucid-history-prune-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        prune(SchemaHistory::open(dir.join("h.db"), "p").unwrap(), SchemaHistory::open(dir.join("h.db"), "q").unwrap())
            .await;
        std::fs::remove_dir_all(dir).ok();
    }

    /// The same rule in Lucid's Postgres store (`LUCID_TEST_POSTGRES_URL`, which `.ci/run`
    /// sets; skipped with a word when unset).
    #[cfg(feature = "postgres")]
    #[tokio::test]
    async fn pruning_in_the_postgres_store_follows_the_same_rule() {
        let Some(url) = std::env::var("LUCID_TEST_POSTGRES_URL").ok().filter(|u| !u.is_empty()) else {
            assert!(std::env::var("CI").as_deref() != Ok("true"), "LUCID_TEST_POSTGRES_URL is not set under CI=true");
            eprintln!("skipped: LUCID_TEST_POSTGRES_URL is not set (.ci/run starts a Postgres server)");
            return;
        };
        let (p, q) = (format!("prune-p-{}", std::process::id()), format!("prune-q-{}", std::process::id()));
        prune(SchemaHistory::postgres(&url, &p).unwrap(), SchemaHistory::postgres(&url, &q).unwrap()).await;
        let (client, conn) = tokio_postgres::connect(&url, tokio_postgres::NoTls).await.unwrap();
        tokio::spawn(conn);
        client.execute("DELETE FROM lucid_schema_versions WHERE project = $1", &[&p]).await.unwrap();
    }
}
