//! `sql_migrate`: applies a migration (DDL and data moves) to the database in one
//! transaction, writes it as files (up and down) in the project's `migrations/` folder,
//! and records the schema it made in the history. It writes, so it asks the user first
//! unless a policy allows it; a migration that fails leaves the database, the folder and
//! the history as they were, and says so only after reading the schema again.
//!
//! Before it asks nothing of the database, it rehearses the migration on a scratch copy
//! (SQLite: [`Database::rehearse`]): `up` with its effects, the data it loses and the lint
//! findings, then `down`, which must bring back the schema and every table's rows. A
//! migration whose `down` does not restore is refused, naming what differs, unless the
//! call says `irreversible: true` (which the user approves with the call); one that leaves
//! the database broken (`foreign_key_check`, `integrity_check`) is refused. The review is
//! in the tool's answer, and [`SqlMigrate::review`] gives it before the call.
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
use super::{Database, Review, SchemaHistory, SqlError};
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
    scratch: PathBuf,
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
    /// Apply it although `down` does not restore the schema and the data (the user agreed
    /// that it cannot be undone); false unless set.
    #[serde(default)]
    irreversible: bool,
}

impl SqlMigrate {
    /// Migrates `db`, recording versions in `history` and writing files into
    /// `project/migrations/`.
    pub fn new(db: Arc<Database>, history: SchemaHistory, project: impl Into<PathBuf>) -> Self {
        let spec = ToolSpec::for_args::<MigrateArgs>(
            "sql_migrate",
            "Applies a migration to the database in one transaction (all of it, or on any error none of it): \
             DDL and the data moves it needs. Writes it as migrations/<time>_<name>.up.sql and .down.sql and \
             saves the new schema in the schema history. Changes the database: the user approves it. \
             It is first rehearsed on a scratch copy: the answer reports each statement's effect, the data lost \
             and the lint findings, and a migration whose `down` does not restore the schema and the rows is \
             refused unless `irreversible` is true (only when the user agreed).",
        );
        SqlMigrate { spec, db, history, folder: project.into().join("migrations"), scratch: std::env::temp_dir() }
    }

    /// Makes the scratch copies of rehearsals in a folder of their own under `parent`
    /// (the system's temporary folder unless set), removed after each.
    pub fn scratch_dir(mut self, parent: impl Into<PathBuf>) -> Self {
        self.scratch = parent.into();
        self
    }

    /// The rehearsal of a call's arguments (`name`, `up`, `down`), without applying
    /// anything ([`Review::to_text`] is what an approver reads beside the SQL: the tool's
    /// [`review`](Tool::review)). `None` where the database has no rehearsal.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let dir = std::env::temp_dir().join(format!("lucid-doc-review-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir).unwrap();
    /// let db_path = dir.join("shop.db");
    /// rusqlite::Connection::open(&db_path).unwrap()
    ///     .execute_batch("CREATE TABLE item (id INTEGER PRIMARY KEY, note TEXT); INSERT INTO item VALUES (1, 'x')").unwrap();
    /// let db = std::sync::Arc::new(lucid_sql::Database::open(db_path.to_str().unwrap()).unwrap());
    /// let migrate = lucid_sql::SqlMigrate::new(db, lucid_sql::SchemaHistory::open(dir.join("lucid.db"), "shop").unwrap(), &dir);
    /// let args = serde_json::json!({"name": "no_note", "up": "ALTER TABLE item DROP COLUMN note"});
    /// let review = migrate.rehearse(&args).await.unwrap().unwrap();
    /// assert_eq!(review.lost, ["1 values of column note of item (dropped)"]);
    /// assert!(!review.restores(), "the values are not brought back");
    /// # });
    /// ```
    pub async fn rehearse(&self, args: &Value) -> Result<Option<Review>, ToolError> {
        let a: MigrateArgs = parse_args(args.clone())?;
        file_name(&a.name).map_err(|e| ToolError::new(e.to_string()))?;
        self.db.rehearse(&a.up, a.down.as_deref(), &self.scratch).await.map_err(|e| ToolError::new(e.to_string()))
    }

    async fn migrate(&self, a: MigrateArgs) -> Result<Value, SqlError> {
        let name = file_name(&a.name)?;
        let review = self.db.rehearse(&a.up, a.down.as_deref(), &self.scratch).await?;
        if let Some(r) = &review {
            vet(r, a.irreversible)?;
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
        let mut out = json!({"applied": true, "up": up_file, "down": down_file, "version": version.id});
        if let Some(r) = review {
            out["review"] = r.to_json();
            out["irreversible"] = json!(!r.restores());
        }
        Ok(out)
    }
}

/// Refuses a rehearsed migration that leaves the database broken, or whose `down` does
/// not restore unless the call says `irreversible`.
fn vet(r: &Review, irreversible: bool) -> Result<(), SqlError> {
    let errors = r.errors();
    if !errors.is_empty() {
        let why: Vec<String> = errors.iter().map(|f| format!("[{}] {}", f.rule, f.why)).collect();
        return Err(SqlError::Refused(format!(
            "the migration was refused: rehearsed, it leaves the database broken: {}; nothing was applied",
            why.join("; ")
        )));
    }
    if !r.restores() && !irreversible {
        return Err(SqlError::Refused(format!(
            "the migration was refused: down does not restore: {}; nothing was applied. Fix `down`, or, only if \
             the user agrees that it cannot be undone, call again with `irreversible: true`",
            r.not_restored.join("; ")
        )));
    }
    Ok(())
}

/// The migration's name as it goes into its file names: letters and digits (lower-cased)
/// and `_` for anything else. A name that reads as a path (`/`, `\`, `..`) is refused, not
/// made into one: the files go into `migrations/` and nowhere else.
fn file_name(name: &str) -> Result<String, SqlError> {
    if name.contains(['/', '\\', '\0']) || name.contains("..") {
        return Err(SqlError::Refused(format!(
            "the migration's name `{}` reads as a path; a name is letters, digits and `_` (the files go into \
             migrations/ and nowhere else); nothing was run",
            name.escape_debug()
        )));
    }
    let out: String =
        name.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '_' }).collect();
    if out.trim_matches('_').is_empty() {
        return Err(SqlError::Database("the migration needs a name of letters or digits".into()));
    }
    Ok(out)
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

    /// The rehearsal, as the user reads it before approving: the migration's name and
    /// whether it is marked irreversible, then [`Review::to_text`]. A migration the call
    /// would refuse (hostile, failing, broken, or not restored without `irreversible`) is
    /// refused here, before anyone is asked.
    fn review<'a>(&'a self, args: &'a Value) -> BoxFuture<'a, Result<Option<String>, ToolError>> {
        async move {
            let a: MigrateArgs = parse_args(args.clone())?;
            let Some(r) = self.rehearse(args).await? else { return Ok(None) };
            vet(&r, a.irreversible).map_err(|e| ToolError::new(e.to_string()))?;
            let mark = if r.restores() { "" } else { " — IRREVERSIBLE: down does not restore it" };
            Ok(Some(format!("Migration `{}`{mark}\n{}", a.name, r.to_text())))
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
