//! The SQL tools' entries in an application's catalogue, and their settings.

use std::sync::Arc;

use lucid::tool::catalogue::{BuiltinTool, Need, Setup};
use lucid::tool::{Tool, ToolSet};

use crate::Database;
#[cfg(feature = "sqlite")]
use crate::{HistoryStore, SchemaHistory, SchemaHistoryTool, SqlMigrate, project_of};

/// The settings of the SQL tools in a [`Setup`]: the database they read, and where
/// `schema_history` and `sql_migrate` keep the schema's versions.
///
/// ```
/// use lucid::tool::catalogue::{Catalogue, Setup};
/// let setup = Setup::new(".").with(lucid_sql::SqlConfig::new("shop.db").schema_history("lucid.db", Some("shop".into())));
/// let catalogue = Catalogue::new().with(lucid_sql::TOOLS);
/// assert!(catalogue.find("sql_query").is_some());
/// # let _ = setup;
/// ```
#[derive(Debug, Clone, Default)]
pub struct SqlConfig {
    database: Option<String>,
    #[cfg(feature = "sqlite")]
    history: Option<(HistoryStore, Option<String>)>,
}

impl SqlConfig {
    /// The database `sql_query` and `sql_schema` read: a SQLite file or a Postgres URL
    /// (see [`Database::open`]).
    pub fn new(database: impl Into<String>) -> Self {
        SqlConfig {
            database: Some(database.into()),
            #[cfg(feature = "sqlite")]
            history: None,
        }
    }

    /// Where `schema_history` keeps its versions (a SQLite file, such as Lucid's store) and
    /// the project they belong to (default: the database's path, or its URL without
    /// credentials: [`project_of`]).
    #[cfg(feature = "sqlite")]
    pub fn schema_history(mut self, store: impl Into<std::path::PathBuf>, project: Option<String>) -> Self {
        self.history = Some((HistoryStore::Sqlite(store.into()), project));
        self
    }

    /// `schema_history` (and `sql_migrate`) keep their versions in Lucid's Postgres store
    /// at `url` ([`SchemaHistory::postgres`]), per project as with
    /// [`schema_history`](Self::schema_history).
    ///
    /// ```
    /// let config = lucid_sql::SqlConfig::new("shop.db")
    ///     .schema_history_in_postgres("postgres://lucid@127.0.0.1/lucid", Some("shop".into()));
    /// # let _ = config;
    /// ```
    #[cfg(all(feature = "sqlite", feature = "postgres"))]
    pub fn schema_history_in_postgres(mut self, url: impl Into<String>, project: Option<String>) -> Self {
        self.history = Some((HistoryStore::Postgres(url.into()), project));
        self
    }
}

/// The key of the one [`Database`] a setup opens for its SQL tools.
struct Sql;

/// The SQL tool `name`, from the one [`Database`] `setup` opens.
fn sql_tool(setup: &Setup, name: &str) -> std::io::Result<Arc<dyn Tool>> {
    setup.shared_tool::<Sql>(name, "the database", || {
        let Some(url) = setup.get::<SqlConfig>().and_then(|c| c.database.as_deref()) else {
            return Err(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                format!("`{name}` needs a database, and none was given"),
            ));
        };
        Ok(Arc::new(Database::open(url)?).tools())
    })
}

/// The database's URL and the history of this setup, for `schema_history` and
/// `sql_migrate` (`tool` names the one asking, for the error).
#[cfg(feature = "sqlite")]
fn open_history<'a>(setup: &'a Setup, tool: &str) -> std::io::Result<(&'a str, SchemaHistory)> {
    let config = setup.get::<SqlConfig>();
    let (Some(url), Some((store, project))) =
        (config.and_then(|c| c.database.as_deref()), config.and_then(|c| c.history.as_ref()))
    else {
        return Err(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            format!("`{tool}` needs a database and a store for the schema history"),
        ));
    };
    let project = project.clone().unwrap_or_else(|| project_of(url));
    let history = match store {
        HistoryStore::Sqlite(path) => SchemaHistory::open(path, project)?,
        #[cfg(feature = "postgres")]
        HistoryStore::Postgres(pg) => SchemaHistory::postgres(pg, project)?,
    };
    Ok((url, history))
}

/// The SQL tools, for an application's [`Catalogue`](lucid::tool::catalogue::Catalogue):
/// `sql_query` and `sql_schema`, and with the feature `sqlite`, `schema_history` and
/// `sql_migrate` (which writes `migrations/` under the setup's root). Each needs a database
/// ([`SqlConfig`]).
pub const TOOLS: &[BuiltinTool] = &[
    BuiltinTool::new("sql_query", "runs one read-only SQL statement on the database", false, &[Need::Database], |s| {
        sql_tool(s, "sql_query")
    }),
    BuiltinTool::new(
        "sql_schema",
        "lists the database's tables, columns, keys and indexes",
        false,
        &[Need::Database],
        |s| sql_tool(s, "sql_schema"),
    ),
    #[cfg(feature = "sqlite")]
    BuiltinTool::new(
        "schema_history",
        "keeps the database schema's versions: save, list, show, diff, restore (the migration back)",
        false,
        &[Need::Database],
        |s| {
            let (url, history) = open_history(s, "schema_history")?;
            Ok(Arc::new(SchemaHistoryTool::new(Arc::new(Database::open(url)?), history)))
        },
    ),
    #[cfg(feature = "sqlite")]
    BuiltinTool::new(
        "sql_migrate",
        "applies a migration in one transaction, writes it as up/down files, records the version",
        true,
        &[Need::Database, Need::Root],
        |s| {
            let (url, history) = open_history(s, "sql_migrate")?;
            Ok(Arc::new(SqlMigrate::new(Arc::new(Database::open(url)?), history, s.root())))
        },
    ),
];

#[cfg(all(test, feature = "sqlite"))]
mod tests {
    use super::*;

    #[test]
    fn the_sql_tools_need_a_database_and_share_the_one_they_are_given() {
        let find = |name: &str| TOOLS.iter().find(|t| t.name == name).unwrap();
        let setup = Setup::new(std::env::temp_dir());
        let Err(err) = find("sql_query").build(&setup) else { panic!("built without a database") };
        assert_eq!(err.kind(), std::io::ErrorKind::NotFound);
        assert!(err.to_string().contains("`sql_query` needs a database"), "{err}");
        let path = std::env::temp_dir().join(format!("lucid-catalogue-{}.db", std::process::id()));
        rusqlite::Connection::open(&path).unwrap().execute_batch("CREATE TABLE t (a)").unwrap();
        let setup = Setup::new(std::env::temp_dir()).with(SqlConfig::new(path.to_str().unwrap()));
        let first = find("sql_query").build(&setup).unwrap();
        assert!(Arc::ptr_eq(&first, &find("sql_query").build(&setup).unwrap()));
        assert_eq!(find("sql_schema").build(&setup).unwrap().spec().name(), "sql_schema");
        let nowhere = Setup::new(std::env::temp_dir()).with(SqlConfig::new("/nonexistent/lucid.db"));
        let Err(err) = find("sql_schema").build(&nowhere) else { panic!("built on a missing file") };
        assert!(err.to_string().contains("no SQLite database at /nonexistent/lucid.db"), "{err}");
        let _ = std::fs::remove_file(path);
    }
}
