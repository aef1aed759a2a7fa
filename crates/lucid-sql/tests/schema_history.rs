//! `schema_history` against a real SQLite file and the real Postgres of `.ci/run`
//! (`LUCID_TEST_POSTGRES_URL`): versions saved (read and proposed), diffed, and restored
//! by running the migration it answers.

use std::sync::Arc;

use lucid::Tool;
use lucid_sql::{Database, SchemaHistory, SchemaHistoryTool, SqlMigrate, project_of};
use serde_json::{Value, json};

/// The Postgres tests read the whole database's schema while changing it: one at a time.
#[cfg(feature = "postgres")]
static POSTGRES: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// The test server (`None` when there is none), held until the guard drops, with a fresh
/// schema `{prefix}_{pid}` and the plain role `role` (made once; the SQL tools refuse a
/// superuser) granted `grants` on it, then `setup(schema)` run as the admin: the guard, the
/// admin's client, the schema and the URL that connects as `role`.
#[cfg(feature = "postgres")]
async fn postgres_schema(
    prefix: &str,
    role: &str,
    grants: &str,
    setup: impl FnOnce(&str) -> String,
) -> Option<(tokio::sync::MutexGuard<'static, ()>, tokio_postgres::Client, String, String)> {
    let url = lucid_mock::real_part("LUCID_TEST_POSTGRES_URL", ".ci/run starts a Postgres server")?;
    let one_at_a_time = POSTGRES.lock().await;
    let schema = format!("{prefix}_{}", std::process::id());
    let (client, conn) = tokio_postgres::connect(&url, tokio_postgres::NoTls).await.unwrap();
    tokio::spawn(conn);
    client
        .batch_execute(&format!(
            "DROP SCHEMA IF EXISTS {schema} CASCADE; CREATE SCHEMA {schema};
             DO $$ BEGIN CREATE ROLE {role} LOGIN; EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$;
             GRANT {grants} ON SCHEMA {schema} TO {role};
             {}",
            setup(&schema)
        ))
        .await
        .unwrap();
    let config: tokio_postgres::Config = url.parse().unwrap();
    let host = match &config.get_hosts()[0] {
        tokio_postgres::config::Host::Tcp(h) => h.clone(),
        tokio_postgres::config::Host::Unix(p) => p.display().to_string(),
    };
    let role_url =
        format!("postgres://{role}@{host}:{}/{}", config.get_ports()[0], config.get_dbname().unwrap_or("postgres"));
    Some((one_at_a_time, client, schema, role_url))
}

async fn call(tool: &SchemaHistoryTool, args: Value) -> Value {
    let out = tool.invoke(args.clone(), Default::default()).await.unwrap_or_else(|e| panic!("{args}: {e}"));
    serde_json::from_str(&out).unwrap()
}

fn empty(diff: &Value) -> bool {
    diff["tables_added"] == json!([]) && diff["tables_dropped"] == json!([]) && diff["tables_changed"] == json!([])
}

/// The flow of both databases: `run` executes a batch of statements on the database.
async fn save_diff_and_restore<F, Fut>(tool: &SchemaHistoryTool, city: &str, run: F)
where
    F: Fn(String) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let first = call(tool, json!({"action": "save", "message": "as found"})).await;
    let v1 = first["saved"]["id"].as_i64().unwrap();
    assert_eq!(first["saved"]["kind"], "current");

    // A proposal is the current schema with the DDL laid over it; the database is untouched.
    let ddl = format!("ALTER TABLE {city} ADD COLUMN founded INTEGER; CREATE INDEX city_founded ON {city} (founded)");
    let proposed = call(tool, json!({"action": "save", "message": "add founding year", "ddl": ddl})).await;
    let v2 = proposed["saved"]["id"].as_i64().unwrap();
    let d = call(tool, json!({"action": "diff", "from": v1, "to": v2})).await;
    let changed = &d["tables_changed"][0];
    assert_eq!(changed["columns_added"], json!(["founded"]), "{d}");
    assert!(changed["indexes_added"][0].as_str().unwrap().starts_with("city_founded"), "{d}");
    assert!(empty(&call(tool, json!({"action": "diff", "from": v1})).await), "nothing applied yet");

    // Applied by hand: a column and a table; the diff against the database says so.
    run(format!("ALTER TABLE {city} ADD COLUMN founded INTEGER; CREATE TABLE visit_log (id INTEGER PRIMARY KEY, at TEXT NOT NULL)")).await;
    let d = call(tool, json!({"action": "diff", "from": v1})).await;
    assert!(d["tables_added"].as_array().unwrap().iter().any(|t| t.as_str().unwrap().ends_with("visit_log")), "{d}");
    assert_eq!(d["tables_changed"][0]["columns_added"], json!(["founded"]), "{d}");
    call(tool, json!({"action": "save", "message": "applied"})).await;

    // Restore: the migration back to the first version, run, leaves no difference.
    let back = call(tool, json!({"action": "restore", "id": v1})).await;
    let up: Vec<String> = back["up"].as_array().unwrap().iter().map(|s| s.as_str().unwrap().to_string()).collect();
    assert!(
        up.iter().any(|s| s.contains("DROP COLUMN \"founded\"")) && up.iter().any(|s| s.contains("DROP TABLE")),
        "{back}"
    );
    assert!(back["down"].as_array().unwrap().iter().any(|s| s.as_str().unwrap().contains("CREATE TABLE")), "{back}");
    run(up.join(";\n")).await;
    assert!(empty(&call(tool, json!({"action": "diff", "from": v1})).await));

    let listed = call(tool, json!({"action": "list"})).await;
    let messages: Vec<&str> =
        listed["versions"].as_array().unwrap().iter().map(|v| v["message"].as_str().unwrap()).collect();
    assert_eq!(messages, ["applied", "add founding year", "as found"]);
    let shown = call(tool, json!({"action": "show", "id": v2})).await;
    assert!(shown["schema"].as_str().unwrap().contains("founded"), "{shown}");
}

/// Where a test keeps its versions: `project` in a SQLite file (`lucid.db` of the test's
/// folder), or in Lucid's Postgres store at the URL.
fn kept_in(store: Option<&str>, dir: &std::path::Path, project: &str) -> SchemaHistory {
    match store {
        #[cfg(feature = "postgres")]
        Some(url) => SchemaHistory::postgres(url, project).unwrap(),
        _ => SchemaHistory::open(dir.join("lucid.db"), project).unwrap(),
    }
}

#[tokio::test]
async fn sqlite_versions_are_saved_diffed_and_restored() {
    let dir = std::env::temp_dir().join(format!("lucid-schema-history-{}", std::process::id()));
    sqlite_database_flow(&dir, None).await;
    std::fs::remove_dir_all(dir).ok();
}

/// The flow on a SQLite database in `dir`, its versions kept in the SQLite file of `dir`
/// or in the Postgres `store`.
async fn sqlite_database_flow(dir: &std::path::Path, store: Option<&str>) {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).unwrap();
    let path = dir.join("shop.db");
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute_batch(
            "CREATE TABLE country (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
             CREATE TABLE city (id INTEGER PRIMARY KEY, name TEXT NOT NULL, country_id INTEGER REFERENCES country(id));
             CREATE INDEX city_name ON city (name);",
        )
        .unwrap();
    let url = path.to_str().unwrap();
    let history = kept_in(store, dir, &project_of(url));
    let tool = SchemaHistoryTool::new(Arc::new(Database::open(url).unwrap()), history);
    let run = |sql: String| {
        let path = path.clone();
        async move {
            let mut conn = rusqlite::Connection::open(&path).unwrap();
            let tx = conn.transaction().unwrap();
            tx.execute_batch(&sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
            tx.commit().unwrap();
        }
    };
    save_diff_and_restore(&tool, "city", run).await;
    // Another project in the same store sees none of these versions.
    let elsewhere = format!("elsewhere-{}", std::process::id());
    let other = SchemaHistoryTool::new(Arc::new(Database::open(url).unwrap()), kept_in(store, dir, &elsewhere));
    assert_eq!(call(&other, json!({"action": "list"})).await["versions"], json!([]));
}

/// With Lucid's store in Postgres, the versions are kept there (`lucid_schema_versions`),
/// not in a SQLite file: the same flow, projects apart, and a migration recorded.
#[cfg(feature = "postgres")]
#[tokio::test]
async fn versions_kept_in_the_postgres_store_as_in_the_sqlite_file() {
    let Some(store) = lucid_mock::real_part("LUCID_TEST_POSTGRES_URL", ".ci/run starts a Postgres server") else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("lucid-schema-history-in-pg-{}", std::process::id()));
    sqlite_database_flow(&dir, Some(&store)).await;
    assert!(!dir.join("lucid.db").exists(), "no SQLite file is made for the versions");
    let (client, conn) = tokio_postgres::connect(&store, tokio_postgres::NoTls).await.unwrap();
    tokio::spawn(conn);
    let project = project_of(dir.join("shop.db").to_str().unwrap());
    let rows = client
        .query("SELECT message FROM lucid_schema_versions WHERE project = $1 ORDER BY id", &[&project])
        .await
        .unwrap();
    let messages: Vec<String> = rows.iter().map(|r| r.get(0)).collect();
    assert_eq!(messages, ["as found", "add founding year", "applied"]);

    let migrations = dir.join("migrations-run");
    std::fs::create_dir_all(&migrations).unwrap();
    let path = migrations.join("shop.db");
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute_batch(
            "CREATE TABLE city (id INTEGER PRIMARY KEY, name TEXT NOT NULL); INSERT INTO city VALUES (1, 'Lyon');",
        )
        .unwrap();
    let url = path.to_str().unwrap();
    migrate_and_roll_back(url, &migrations, "city", &|| kept_in(Some(&store), &migrations, &project_of(url))).await;
    let projects = [project, project_of(url)];
    client.execute("DELETE FROM lucid_schema_versions WHERE project = ANY($1)", &[&&projects[..]]).await.unwrap();
    std::fs::remove_dir_all(dir).ok();
}

#[cfg(feature = "postgres")]
#[tokio::test]
async fn postgres_versions_are_saved_diffed_and_restored() {
    let setup = |schema: &str| {
        format!(
            "CREATE TABLE {schema}.country (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
             CREATE TABLE {schema}.city (id INTEGER PRIMARY KEY, name TEXT NOT NULL, country_id INTEGER REFERENCES {schema}.country(id));"
        )
    };
    let Some((_one_at_a_time, client, schema, reader)) =
        postgres_schema("hist", "lucid_historian", "USAGE", setup).await
    else {
        return;
    };
    let client = Arc::new(client);
    let dir = std::env::temp_dir().join(format!("lucid-schema-history-pg-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let history = SchemaHistory::open(dir.join("lucid.db"), project_of(&reader)).unwrap();
    let tool = SchemaHistoryTool::new(Arc::new(Database::open(&reader).unwrap()), history);
    let city = format!("{schema}.city");
    let run = |sql: String| {
        let client = Arc::clone(&client);
        let schema = schema.clone();
        async move {
            // New tables go into the test's schema, as the restore's DDL names them.
            let sql = sql.replace("CREATE TABLE visit_log", &format!("CREATE TABLE {schema}.visit_log"));
            client.batch_execute(&format!("BEGIN; {sql}; COMMIT")).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
        }
    };
    // A proposal is checked by SQLite, which knows no schemas: only the SQLite flow
    // proposes; here the versions come from the database.
    save_diff_and_restore_read_only(&tool, &city, run).await;
    client.batch_execute(&format!("DROP SCHEMA {schema} CASCADE")).await.unwrap();
    std::fs::remove_dir_all(dir).ok();
}

/// The Postgres flow: versions read from the database, diffed, restored.
#[cfg(feature = "postgres")]
async fn save_diff_and_restore_read_only<F, Fut>(tool: &SchemaHistoryTool, city: &str, run: F)
where
    F: Fn(String) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let v1 = call(tool, json!({"action": "save", "message": "as found"})).await["saved"]["id"].as_i64().unwrap();
    run(format!("ALTER TABLE {city} ADD COLUMN founded INTEGER; CREATE INDEX city_founded ON {city} (founded); CREATE TABLE visit_log (id INTEGER PRIMARY KEY, at TEXT NOT NULL)")).await;
    let d = call(tool, json!({"action": "diff", "from": v1})).await;
    assert!(d["tables_added"].as_array().unwrap().iter().any(|t| t.as_str().unwrap().ends_with("visit_log")), "{d}");
    let changed = d["tables_changed"].as_array().unwrap().iter().find(|t| t["table"] == city).cloned().unwrap();
    assert_eq!(changed["columns_added"], json!(["founded"]), "{d}");
    assert!(changed["indexes_added"][0].as_str().unwrap().contains("city_founded"), "{d}");
    let back = call(tool, json!({"action": "restore", "id": v1})).await;
    let up: Vec<String> = back["up"].as_array().unwrap().iter().map(|s| s.as_str().unwrap().to_string()).collect();
    run(up.join(";\n")).await;
    assert!(empty(&call(tool, json!({"action": "diff", "from": v1})).await));
}

/// A migration with a data move applied (files written, version recorded), and one that
/// fails half-way rolled back (the database, the folder and the history as they were).
async fn migrate_and_roll_back(url: &str, dir: &std::path::Path, city: &str, history: &dyn Fn() -> SchemaHistory) {
    let db = || Arc::new(Database::open(url).unwrap());
    let migrate = SqlMigrate::new(db(), history(), dir);
    let up = format!("ALTER TABLE {city} ADD COLUMN label TEXT; UPDATE {city} SET label = upper(name)");
    let out =
        migrate.invoke(json!({"name": "city label", "up": up, "message": "labels"}), Default::default()).await.unwrap();
    let out: Value = serde_json::from_str(&out).unwrap();
    let up_file = out["up"].as_str().unwrap();
    assert!(up_file.contains("/migrations/") && up_file.ends_with("_city_label.up.sql"), "{out}");
    assert!(std::fs::read_to_string(up_file).unwrap().contains("UPDATE"));
    let down = std::fs::read_to_string(out["down"].as_str().unwrap()).unwrap();
    assert!(down.contains("DROP COLUMN \"label\""), "{down}");
    let labels = db().query(&format!("SELECT label FROM {city} ORDER BY id")).await.unwrap();
    assert_eq!(labels.rows, [["LYON".to_string()]], "the data moved");
    let versions = history().list().await.unwrap();
    assert_eq!((versions[0].message.as_str(), versions[0].kind.as_str()), ("labels", "applied"));

    let files = std::fs::read_dir(dir.join("migrations")).unwrap().count();
    let bad = format!("ALTER TABLE {city} ADD COLUMN size INTEGER; UPDATE {city} SET size = no_such_column");
    let err = migrate.invoke(json!({"name": "broken", "up": bad}), Default::default()).await.unwrap_err().to_string();
    assert!(err.contains("rolled back"), "{err}");
    let schema = db().schema(None).await.unwrap();
    assert!(
        schema.contains("label") && !schema.contains("| size |"),
        "the column of the failed migration is gone: {schema}"
    );
    assert_eq!(std::fs::read_dir(dir.join("migrations")).unwrap().count(), files, "no files for a failed migration");
    assert_eq!(history().list().await.unwrap().len(), versions.len(), "no version for a failed migration");
}

#[tokio::test]
async fn sqlite_migrations_apply_in_one_transaction_or_not_at_all() {
    let dir = std::env::temp_dir().join(format!("lucid-sql-migrate-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("shop.db");
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute_batch(
            "CREATE TABLE city (id INTEGER PRIMARY KEY, name TEXT NOT NULL); INSERT INTO city VALUES (1, 'Lyon');",
        )
        .unwrap();
    let url = path.to_str().unwrap();
    migrate_and_roll_back(url, &dir, "city", &|| kept_in(None, &dir, &project_of(url))).await;
    std::fs::remove_dir_all(dir).ok();
}

#[cfg(feature = "postgres")]
#[tokio::test]
async fn postgres_migrations_apply_in_one_transaction_or_not_at_all() {
    let setup = |schema: &str| {
        format!(
            "CREATE TABLE {schema}.city (id INTEGER PRIMARY KEY, name TEXT NOT NULL); INSERT INTO {schema}.city VALUES (1, 'Lyon');
             ALTER TABLE {schema}.city OWNER TO lucid_migrator;"
        )
    };
    let Some((_one_at_a_time, client, schema, migrator)) =
        postgres_schema("migrate", "lucid_migrator", "USAGE, CREATE", setup).await
    else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("lucid-sql-migrate-pg-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    migrate_and_roll_back(&migrator, &dir, &format!("{schema}.city"), &|| kept_in(None, &dir, &project_of(&migrator)))
        .await;
    client.batch_execute(&format!("DROP SCHEMA {schema} CASCADE")).await.unwrap();
    std::fs::remove_dir_all(dir).ok();
}

/// A SQLite database in a fresh folder of its own, with a table `city`, and the tools
/// over it: `sql_migrate` writing into the folder, `schema_history` keeping versions in
/// the folder's `lucid.db`.
fn hostile_setup(name: &str) -> (std::path::PathBuf, SqlMigrate, SchemaHistoryTool) {
    let dir = std::env::temp_dir().join(format!("lucid-sql-hostile-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("shop.db");
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute_batch("CREATE TABLE city (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO city VALUES (1, 'Lyon');")
        .unwrap();
    let url = path.to_str().unwrap();
    let db = || Arc::new(Database::open(url).unwrap());
    let migrate = SqlMigrate::new(db(), kept_in(None, &dir, "p"), &dir);
    let history = SchemaHistoryTool::new(db(), kept_in(None, &dir, "p"));
    (dir, migrate, history)
}

/// The tables of the SQLite file at `path`, read directly.
fn tables_of(path: &std::path::Path) -> Vec<String> {
    let conn = rusqlite::Connection::open(path).unwrap();
    let mut stmt = conn.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name").unwrap();
    stmt.query_map([], |r| r.get(0)).unwrap().collect::<Result<_, _>>().unwrap()
}

/// A migration that commits half-way and then fails (and one that ends its transaction
/// with `END`, attaches, vacuums into or sets a pragma) is refused before anything runs:
/// the schema, the folder and the history are as they were, and the error says so,
/// naming the statement, rather than claiming a rollback of what was committed.
#[tokio::test]
async fn a_migration_that_would_end_its_transaction_or_reach_a_file_is_refused_and_runs_nothing() {
    let (dir, migrate, _) = hostile_setup("migrate");
    let shop = dir.join("shop.db");
    let elsewhere = dir.join("elsewhere.db");
    let copy = dir.join("copy.db");
    let cases = [
        ("CREATE TABLE a(x); COMMIT; CREATE TABLE b(; ".to_string(), "`COMMIT`"),
        ("CREATE TABLE a(x);\n  end transaction; CREATE TABLE b(;".to_string(), "`end transaction`"),
        ("CREATE TABLE a(x); /* ; */ SAVEPOINT s; RELEASE s".to_string(), "`SAVEPOINT s`"),
        (format!("ATTACH '{}' AS e; CREATE TABLE e.t(x)", elsewhere.display()), "ATTACH"),
        (format!("CREATE TABLE a(x); VACUUM INTO '{}'", copy.display()), "VACUUM"),
        ("PRAGMA journal_mode = DELETE; CREATE TABLE a(x)".to_string(), "PRAGMA"),
    ];
    for (up, named) in cases {
        let err = migrate.invoke(json!({"name": "evil", "up": up}), Default::default()).await.unwrap_err().to_string();
        assert!(err.contains(named) && err.contains("nothing was run"), "{up}: {err}");
        assert!(!err.contains("rolled back"), "nothing ran, so nothing was rolled back: {err}");
        assert_eq!(tables_of(&shop), ["city"], "{up}: the schema is unchanged");
    }
    assert!(!elsewhere.exists() && !copy.exists(), "no file was made");
    assert!(!dir.join("migrations").exists(), "no migration file");
    assert!(kept_in(None, &dir, "p").list().await.unwrap().is_empty(), "no schema version");

    // A migration that fails for an ordinary reason is rolled back, and says so truly.
    let err = migrate
        .invoke(json!({"name": "half", "up": "CREATE TABLE a(x); INSERT INTO nowhere VALUES (1)"}), Default::default())
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("rolled back") && err.contains("statement 2 failed"), "{err}");
    assert_eq!(tables_of(&shop), ["city"]);
    std::fs::remove_dir_all(dir).ok();
}

/// `schema_history save` with DDL lays it over the schema in a private database in
/// memory: it can neither attach the real database (and drop its table) nor make or
/// write a file anywhere.
#[tokio::test]
async fn a_proposal_cannot_reach_the_real_database_or_any_file() {
    let (dir, _, history) = hostile_setup("propose");
    let shop = dir.join("shop.db");
    let made = dir.join("made.db");
    let copy = dir.join("copy.db");
    for ddl in [
        format!("ATTACH '{}' AS real; DROP TABLE real.city", shop.display()),
        format!("CREATE TABLE a(x); ATTACH '{}' AS m; CREATE TABLE m.t(x)", made.display()),
        format!("VACUUM INTO '{}'", copy.display()),
        "CREATE TABLE a(x); PRAGMA writable_schema = ON".to_string(),
        "CREATE TABLE a(x); COMMIT; BEGIN".to_string(),
    ] {
        let err = history
            .invoke(json!({"action": "save", "message": "evil", "ddl": ddl}), Default::default())
            .await
            .unwrap_err()
            .to_string();
        assert!(err.contains("the proposed DDL was refused"), "{ddl}: {err}");
    }
    assert_eq!(tables_of(&shop), ["city"], "the real table is still there");
    assert!(!made.exists() && !copy.exists(), "no file was made");
    assert!(kept_in(None, &dir, "p").list().await.unwrap().is_empty());
    std::fs::remove_dir_all(dir).ok();
}

/// Tables and columns whose names are SQL are only names: a proposal laid over a schema
/// that has them, and the migration back to a version that had them, run no part of
/// them, and table `y` survives every step.
#[tokio::test]
async fn names_that_are_sql_stay_names() {
    let (dir, migrate, history) = hostile_setup("names");
    let shop = dir.join("shop.db");
    let hostile = ["x\"; DROP TABLE y; --", "z(x); DROP TABLE y; CREATE TABLE w"];
    rusqlite::Connection::open(&shop)
        .unwrap()
        .execute_batch(
            "CREATE TABLE y (b INTEGER);
             CREATE TABLE \"x\"\"; DROP TABLE y; --\" (\"a); DROP TABLE y; --\" INTEGER REFERENCES y(b));
             CREATE TABLE \"z(x); DROP TABLE y; CREATE TABLE w\" (c TEXT);
             CREATE INDEX \"i\"\" ON y; DROP TABLE y; --\" ON \"z(x); DROP TABLE y; CREATE TABLE w\" (c);",
        )
        .unwrap();
    let mut expected = vec!["city".to_string(), hostile[0].to_string(), "y".to_string(), hostile[1].to_string()];
    expected.sort();
    assert_eq!(tables_of(&shop), expected);

    let first = call(&history, json!({"action": "save", "message": "as found"})).await["saved"]["id"].as_i64().unwrap();
    // Saved again with DDL: the current schema, names and all, is made again in memory.
    let proposed = call(&history, json!({"action": "save", "message": "v", "ddl": "CREATE TABLE v (d INTEGER)"})).await;
    let shown = call(&history, json!({"action": "show", "id": proposed["saved"]["id"]})).await;
    let schema = shown["schema"].as_str().unwrap();
    assert!(schema.contains("## y (table)") && schema.contains("## v (table)"), "{schema}");
    assert!(
        schema.contains(hostile[0]) && schema.contains("## z(x); DROP TABLE y; CREATE TABLE w (table)"),
        "{schema}"
    );
    assert!(!schema.contains("## w (table)"), "{schema}");

    // The hostile tables dropped by hand; the migration back to the first version makes
    // them again under their own names, and `y` stays.
    rusqlite::Connection::open(&shop)
        .unwrap()
        .execute_batch("DROP TABLE \"x\"\"; DROP TABLE y; --\"; DROP TABLE \"z(x); DROP TABLE y; CREATE TABLE w\";")
        .unwrap();
    let back = call(&history, json!({"action": "restore", "id": first})).await;
    let up: Vec<&str> = back["up"].as_array().unwrap().iter().map(|s| s.as_str().unwrap()).collect();
    let out = migrate.invoke(json!({"name": "back", "up": up.join(";\n")}), Default::default()).await;
    assert!(out.is_ok(), "{up:?}: {out:?}");
    assert_eq!(tables_of(&shop), expected, "{up:?}");
    let index: String = rusqlite::Connection::open(&shop)
        .unwrap()
        .query_row("SELECT name FROM sqlite_schema WHERE type = 'index'", [], |r| r.get(0))
        .unwrap();
    assert_eq!(index, "i\" ON y; DROP TABLE y; --");
    std::fs::remove_dir_all(dir).ok();
}

/// On Postgres, a migration that commits half-way is refused before anything runs; and
/// one whose statements this side reads differently from the server (a parameter named
/// `begin` hides the `COMMIT` in what looks like a function's body) is not run either:
/// each statement is prepared alone, which the server refuses for two.
#[cfg(feature = "postgres")]
#[tokio::test]
async fn postgres_migrations_cannot_end_their_transaction() {
    let Some((_one_at_a_time, client, schema, migrator)) =
        postgres_schema("hostile", "lucid_migrator", "USAGE, CREATE", |_| String::new()).await
    else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("lucid-sql-hostile-pg-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let migrate = SqlMigrate::new(Arc::new(Database::open(&migrator).unwrap()), kept_in(None, &dir, "p"), &dir);
    let made = |name: &str| {
        let client = &client;
        let (schema, name) = (schema.clone(), name.to_string());
        async move {
            client
                .query_one("SELECT to_regclass($1) IS NOT NULL", &[&format!("{schema}.{name}")])
                .await
                .unwrap()
                .get::<_, bool>(0)
        }
    };
    for (up, refused) in [
        (format!("CREATE TABLE {schema}.a (x int); COMMIT; CREATE TABLE {schema}.b ("), true),
        (format!("CREATE TABLE {schema}.a (x int); ABORT"), true),
        (format!("CREATE INDEX CONCURRENTLY i ON {schema}.a (x)"), true),
        (
            format!(
                "CREATE FUNCTION {schema}.f(begin int) RETURNS int LANGUAGE sql AS 'select 1'; \
                 CREATE TABLE {schema}.a (x int); COMMIT; END"
            ),
            false,
        ),
    ] {
        let err = migrate.invoke(json!({"name": "evil", "up": up}), Default::default()).await.unwrap_err().to_string();
        if refused {
            assert!(err.contains("nothing was run"), "{up}: {err}");
        } else {
            assert!(err.contains("rolled back") && err.contains("statement 1 failed"), "{up}: {err}");
        }
        assert!(!made("a").await, "{up}: nothing of it stays");
    }
    let functions: i64 = client
        .query_one(
            "SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = $1",
            &[&schema],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(functions, 0);
    assert!(!dir.join("migrations").exists());
    client.batch_execute(&format!("DROP SCHEMA {schema} CASCADE")).await.unwrap();
    std::fs::remove_dir_all(dir).ok();
}
