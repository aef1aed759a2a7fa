//! `sql_migrate`: applies a migration (DDL and data moves) to the database in one
//! transaction, writes it as files (up and down) in the project's `migrations/` folder,
//! and records the schema it made in the history. It writes, so it asks the user first
//! unless a policy allows it; a migration that fails leaves the database, the folder and
//! the history as they were, and says so only after reading the schema again.
//!
//! The migration runs in one transaction it cannot end: a statement of transaction
//! control (`COMMIT`, `END`, `ROLLBACK`, `SAVEPOINT`…), `ATTACH`, `DETACH`, `VACUUM`,
//! `PRAGMA`, or (Postgres) one that cannot run in a transaction is refused before anything
//! runs ([`guard`](super::guard)), and the database is told to refuse them too.

use std::path::PathBuf;
use std::sync::Arc;

use futures::FutureExt;
use futures::future::BoxFuture;
use serde::Deserialize;
use serde_json::{Value, json};

use super::diff::{diff, migration};
use super::table::TableSchema;
use super::{Database, SchemaHistory, SqlError};
use lucid::tool::{Tool, ToolContext, ToolError, ToolSpec, parse_args};

/// The `sql_migrate` tool.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use lucid::Tool;
/// let dir = std::env::temp_dir().join(format!("lucid-doc-migrate-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let db_path = dir.join("shop.db");
/// rusqlite::Connection::open(&db_path).unwrap().execute_batch("CREATE TABLE item (id INTEGER PRIMARY KEY)").unwrap();
/// let db = std::sync::Arc::new(lucid_sql::Database::open(db_path.to_str().unwrap()).unwrap());
/// let history = lucid_sql::SchemaHistory::open(dir.join("lucid.db"), "shop").unwrap();
/// let migrate = lucid_sql::SqlMigrate::new(db, history, &dir);
/// let answer = migrate.invoke(serde_json::json!({"name": "price", "up": "ALTER TABLE item ADD COLUMN price REAL"}), Default::default()).await.unwrap();
/// assert!(answer.contains("migrations/"));
/// # });
/// ```
#[derive(Debug)]
pub struct SqlMigrate {
    spec: ToolSpec,
    db: Arc<Database>,
    history: SchemaHistory,
    folder: PathBuf,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct MigrateArgs {
    /// A short name for the migration (letters, digits, `_`), used in its file names.
    name: String,
    /// The statements to run, separated by `;`: DDL and the data moves it needs.
    up: String,
    /// The statements that undo it (default: made from the schema before and after; data
    /// is not moved back then).
    #[serde(default)]
    down: Option<String>,
    /// What the migration does, for the schema history.
    #[serde(default)]
    message: Option<String>,
}

impl SqlMigrate {
    /// Migrates `db`, recording versions in `history` and writing files into
    /// `project/migrations/`.
    pub fn new(db: Arc<Database>, history: SchemaHistory, project: impl Into<PathBuf>) -> Self {
        let spec = ToolSpec::for_args::<MigrateArgs>(
            "sql_migrate",
            "Applies a migration to the database in one transaction (all of it, or on any error none of it): \
             DDL and the data moves it needs. Writes it as migrations/<time>_<name>.up.sql and .down.sql and \
             saves the new schema in the schema history. Changes the database: the user approves it.",
        );
        SqlMigrate { spec, db, history, folder: project.into().join("migrations") }
    }

    async fn migrate(&self, a: MigrateArgs) -> Result<Value, SqlError> {
        let name: String =
            a.name.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '_' }).collect();
        if name.trim_matches('_').is_empty() {
            return Err(SqlError::Database("the migration needs a name of letters or digits".into()));
        }
        let before = self.db.tables(None).await?;
        if let Err(e) = self.db.apply(&a.up).await {
            return Err(self.failed(&before, e).await);
        }
        let after = self.db.tables(None).await?;
        let down = a.down.unwrap_or_else(|| migration(&after, &before).join(";\n"));
        let stamp = chrono_stamp();
        let write = |suffix: &str, text: &str| -> Result<String, SqlError> {
            let path = self.folder.join(format!("{stamp}_{name}.{suffix}.sql"));
            std::fs::create_dir_all(&self.folder)
                .and_then(|()| std::fs::write(&path, format!("{}\n", text.trim_end())))
                .map_err(|e| {
                    SqlError::Database(format!(
                        "the migration was applied but {} could not be written: {e}",
                        path.display()
                    ))
                })?;
            Ok(path.display().to_string())
        };
        let up_file = write("up", &a.up)?;
        let down_file = write("down", &down)?;
        let message = a.message.unwrap_or_else(|| format!("migration {name}"));
        let version = self.history.save(after, &message, "applied").await?;
        Ok(json!({"applied": true, "up": up_file, "down": down_file, "version": version.id}))
    }
}

impl SqlMigrate {
    /// What a failed migration did, said as it is: refused (nothing ran), rolled back
    /// (the schema read again is the one before), or, should the schema differ all the
    /// same, what changed. No file and no version is written for it in any case.
    async fn failed(&self, before: &[TableSchema], e: SqlError) -> SqlError {
        if let SqlError::Refused(why) = e {
            return SqlError::Refused(format!("{why}; no migration file or schema version was written"));
        }
        match self.db.tables(None).await {
            Ok(now) if now == before => SqlError::Database(format!(
                "the migration failed and was rolled back; the database's schema is as it was: {e}"
            )),
            Ok(now) => SqlError::Database(format!(
                "the migration failed, and the database's schema changed all the same: {}; no migration file \
                 or schema version was written: {e}",
                diff(before, &now)
            )),
            Err(again) => SqlError::Database(format!(
                "the migration failed ({e}), and the schema could not be read again to see what it left: {again}"
            )),
        }
    }
}

/// The time now as `YYYYMMDDHHMMSS` (UTC), so migration files sort in the order applied.
fn chrono_stamp() -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs()) as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}{month:02}{day:02}{:02}{:02}{:02}", rem / 3600, rem % 3600 / 60, rem % 60)
}

impl Tool for SqlMigrate {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn invoke<'a>(&'a self, args: Value, _ctx: ToolContext) -> BoxFuture<'a, Result<String, ToolError>> {
        async move {
            let a: MigrateArgs = parse_args(args)?;
            Ok(self.migrate(a).await.map_err(|e| ToolError::new(e.to_string()))?.to_string())
        }
        .boxed()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_stamp_is_a_utc_date_and_time() {
        let s = super::chrono_stamp();
        assert_eq!(s.len(), 14, "{s}");
        assert!(s.starts_with("20"), "{s}");
        let month: u32 = s[4..6].parse().unwrap();
        let day: u32 = s[6..8].parse().unwrap();
        assert!((1..=12).contains(&month) && (1..=31).contains(&day), "{s}");
    }
}
