//! `sql_migrate` rehearses every migration on a scratch copy of a real SQLite file before
//! it touches the database: the effects and the data lost are reported, the lint flags
//! what destroys or breaks, a `down` that does not restore is refused (naming what
//! differs) unless the call says `irreversible`, a migration that fails half-way changes
//! nothing anywhere, and hostile ones are refused.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use lucid::Tool;
use lucid_sql::{Database, SchemaHistory, SqlMigrate};
use serde_json::{Value, json};

/// A fresh folder with `shop.db` made by `setup`, its own scratch folder, and the tool.
fn setup(name: &str, sql: &str) -> (PathBuf, SqlMigrate) {
    let dir = std::env::temp_dir().join(format!("lucid-dry-run-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("scratch")).unwrap();
    let path = dir.join("shop.db");
    rusqlite::Connection::open(&path).unwrap().execute_batch(sql).unwrap();
    let db = Arc::new(Database::open(path.to_str().unwrap()).unwrap());
    let history = SchemaHistory::open(dir.join("lucid.db"), "p").unwrap();
    let migrate = SqlMigrate::new(db, history, &dir).scratch_dir(dir.join("scratch"));
    (dir, migrate)
}

const CITY: &str = "CREATE TABLE city (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT);
    CREATE INDEX idx_x ON city (name);
    INSERT INTO city VALUES (1, 'Lyon', 'a@x'), (2, 'Nice', 'b@x'), (3, 'Metz', 'c@x');";

async fn run(migrate: &SqlMigrate, args: Value) -> Result<Value, String> {
    match migrate.invoke(args, Default::default()).await {
        Ok(out) => Ok(serde_json::from_str(&out).unwrap()),
        Err(e) => Err(e.to_string()),
    }
}

/// A city's row.
type City = (i64, String, Option<String>);

/// The file's whole schema and rows, to show it was not touched.
fn contents(path: &Path) -> (Vec<String>, Vec<City>) {
    let conn = rusqlite::Connection::open(path).unwrap();
    let mut s = conn.prepare("SELECT sql FROM sqlite_schema ORDER BY name").unwrap();
    let schema = s.query_map([], |r| r.get(0)).unwrap().collect::<Result<_, _>>().unwrap();
    let rows = match conn.prepare("SELECT id, name, email FROM city ORDER BY id") {
        Ok(mut s) => {
            s.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?))).unwrap().collect::<Result<_, _>>().unwrap()
        }
        Err(_) => Vec::new(),
    };
    (schema, rows)
}

fn nothing_written(dir: &Path) {
    assert!(!dir.join("migrations").exists(), "no migration file");
    assert_eq!(std::fs::read_dir(dir.join("scratch")).unwrap().count(), 0, "the scratch copy is gone");
}

#[tokio::test]
async fn a_migration_that_restores_is_applied_and_its_effects_reported() {
    let (dir, migrate) = setup("restores", CITY);
    let up = "ALTER TABLE city ADD COLUMN people INTEGER; UPDATE city SET people = 1000 WHERE id < 3; \
              CREATE INDEX city_people ON city (people)";
    let down = "DROP INDEX city_people; ALTER TABLE city DROP COLUMN people";
    let out = run(&migrate, json!({"name": "people", "up": up, "down": down})).await.unwrap();
    let review = &out["review"];
    assert_eq!(review["restores"], true, "{out}");
    assert_eq!(out["irreversible"], false);
    assert_eq!(review["statements"][0]["changes"], json!(["column people added to city"]), "{review}");
    assert_eq!(review["statements"][1]["rows_affected"], 2, "{review}");
    assert_eq!(review["statements"][2]["changes"], json!(["index city_people on city added"]), "{review}");
    assert_eq!(review["lost"], json!([]));
    assert_eq!(review["lint"], json!([]), "{review}");
    let (_, rows) = contents(&dir.join("shop.db"));
    assert_eq!(rows.len(), 3);
    let people: i64 = rusqlite::Connection::open(dir.join("shop.db"))
        .unwrap()
        .query_row("SELECT count(people) FROM city", [], |r| r.get(0))
        .unwrap();
    assert_eq!(people, 2, "applied to the real database");
    assert_eq!(std::fs::read_dir(dir.join("scratch")).unwrap().count(), 0, "the scratch copy is gone");
    std::fs::remove_dir_all(dir).ok();
}

#[tokio::test]
async fn a_down_that_forgets_an_index_is_refused_naming_it_unless_irreversible() {
    let (dir, migrate) = setup("index", CITY);
    let shop = dir.join("shop.db");
    let was = contents(&shop);
    let args = json!({"name": "note", "up": "DROP INDEX idx_x; ALTER TABLE city ADD COLUMN note TEXT",
                      "down": "ALTER TABLE city DROP COLUMN note"});
    let err = run(&migrate, args.clone()).await.unwrap_err();
    assert!(err.contains("down does not restore: index idx_x on city is missing"), "{err}");
    assert!(err.contains("nothing was applied") && err.contains("irreversible"), "{err}");
    assert_eq!(contents(&shop), was, "the real database is untouched");
    nothing_written(&dir);

    let mut agreed = args;
    agreed["irreversible"] = json!(true);
    let out = run(&migrate, agreed).await.unwrap();
    assert_eq!(out["irreversible"], true, "{out}");
    assert_eq!(out["review"]["not_restored"], json!(["index idx_x on city is missing"]), "{out}");
    assert_ne!(contents(&shop), was, "applied once the user agreed");
    std::fs::remove_dir_all(dir).ok();
}

#[tokio::test]
async fn drop_column_on_a_filled_table_is_flagged_and_the_review_shows_the_values_lost() {
    let (dir, migrate) = setup("drop", CITY);
    let args = json!({"name": "no email", "up": "ALTER TABLE city DROP COLUMN email",
                      "down": "ALTER TABLE city ADD COLUMN email TEXT"});
    let review = migrate.rehearse(&args).await.unwrap().unwrap();
    let text = review.to_text();
    println!("{text}");
    assert_eq!(review.lost, ["3 values of column email of city (dropped)"]);
    assert!(review.findings.iter().any(|f| f.rule == "drop-column-with-data" && f.why.contains("3 values")));
    assert!(text.contains("Data lost: 3 values of column email of city (dropped)"), "{text}");
    assert!(text.contains("Lint warning [drop-column-with-data]"), "{text}");
    assert!(text.contains("down does not restore: the values of table city are not restored: email"), "{text}");
    assert!(text.contains("1. ALTER TABLE city DROP COLUMN email — 0 rows affected; column email dropped from city"));

    let err = run(&migrate, args.clone()).await.unwrap_err();
    assert!(err.contains("email (3 values before, 0 after)"), "{err}");
    nothing_written(&dir);
    let mut agreed = args;
    agreed["irreversible"] = json!(true);
    let out = run(&migrate, agreed).await.unwrap();
    assert_eq!(out["review"]["lost"], json!(["3 values of column email of city (dropped)"]));
    assert_eq!(out["review"]["lint"][0]["rule"], "drop-column-with-data");
    std::fs::remove_dir_all(dir).ok();
}

#[tokio::test]
async fn a_migration_that_breaks_foreign_keys_is_refused_and_a_key_without_index_flagged() {
    let (dir, migrate) = setup("fk", CITY);
    let was = contents(&dir.join("shop.db"));
    let make = "CREATE TABLE visit (id INTEGER PRIMARY KEY, city INTEGER REFERENCES city(id))";
    let err = run(&migrate, json!({"name": "visits", "up": format!("{make}; INSERT INTO visit VALUES (1, 99)")}))
        .await
        .unwrap_err();
    // Refused by SQLite's enforcement on the scratch copy where foreign keys are on (the
    // bundled SQLite), by `PRAGMA foreign_key_check` after up where they are off.
    assert!(
        err.contains("FOREIGN KEY constraint failed")
            || (err.contains("[foreign-key-check]") && err.contains("1 in visit")),
        "{err}"
    );
    assert_eq!(contents(&dir.join("shop.db")), was);
    nothing_written(&dir);

    let out = run(&migrate, json!({"name": "visits", "up": format!("{make}; INSERT INTO visit VALUES (1, 2)")}))
        .await
        .unwrap();
    let lint = &out["review"]["lint"];
    assert_eq!(lint[0]["rule"], "foreign-key-without-index", "{out}");
    assert!(lint[0]["why"].as_str().unwrap().contains("CREATE INDEX … ON visit (city)"), "{out}");
    assert_eq!(out["review"]["restores"], true, "the default down drops the table: {out}");
    std::fs::remove_dir_all(dir).ok();
}

#[tokio::test]
async fn a_migration_failing_half_way_changes_nothing_on_the_database_or_the_scratch_copy() {
    let (dir, migrate) = setup("half", CITY);
    let shop = dir.join("shop.db");
    let was = contents(&shop);
    let bytes = std::fs::read(&shop).unwrap();
    let up = "CREATE TABLE a (x); INSERT INTO a VALUES (1); DELETE FROM city; UPDATE city SET name = no_such_column";
    let err = run(&migrate, json!({"name": "half", "up": up})).await.unwrap_err();
    assert!(err.contains("statement 4 failed") && err.contains("rolled back"), "{err}");
    assert!(err.contains("the database was not touched"), "{err}");
    assert_eq!(contents(&shop), was);
    assert_eq!(std::fs::read(&shop).unwrap(), bytes, "not one byte of the real file changed");
    nothing_written(&dir);
    assert!(SchemaHistory::open(dir.join("lucid.db"), "p").unwrap().list().await.unwrap().is_empty());

    // A down that fails is a down that does not restore.
    let err = run(&migrate, json!({"name": "b", "up": "CREATE TABLE b (x)", "down": "DROP TABLE nowhere"}))
        .await
        .unwrap_err();
    assert!(err.contains("down does not restore: down fails after up") && err.contains("no such table"), "{err}");
    assert_eq!(contents(&shop), was);
    nothing_written(&dir);
    std::fs::remove_dir_all(dir).ok();
}

#[tokio::test]
async fn hostile_migrations_are_refused_with_a_clear_message() {
    let (dir, migrate) = setup("hostile", CITY);
    let shop = dir.join("shop.db");
    let was = contents(&shop);
    let other = dir.join("other.db");
    for (args, said) in [
        (json!({"name": "x", "up": format!("ATTACH '{}' AS o; CREATE TABLE o.t (x)", other.display())}), "ATTACH"),
        (
            json!({"name": "x", "up": "CREATE TABLE t (x)", "down": format!("ATTACH '{}' AS o", other.display())}),
            "the migration's down was refused at its statement 1",
        ),
        (json!({"name": "../../x", "up": "CREATE TABLE t (x)"}), "reads as a path"),
        (json!({"name": "a\\..\\x", "up": "CREATE TABLE t (x)"}), "reads as a path"),
    ] {
        let err = run(&migrate, args.clone()).await.unwrap_err();
        assert!(err.contains(said) && err.contains("nothing was run"), "{args}: {err}");
    }
    assert_eq!(contents(&shop), was);
    assert!(!other.exists(), "no file attached");
    assert!(!dir.parent().unwrap().join("x.up.sql").exists());
    nothing_written(&dir);
    std::fs::remove_dir_all(dir).ok();
}

/// A migration that never ends (or grows without end) is stopped in its rehearsal,
/// before anyone is asked, and nothing is applied.
#[tokio::test]
async fn a_rehearsal_that_does_not_end_is_stopped() {
    let (dir, _) = setup("endless", CITY);
    let db =
        Database::open(dir.join("shop.db").to_str().unwrap()).unwrap().timeout(std::time::Duration::from_millis(100));
    let migrate = SqlMigrate::new(Arc::new(db), SchemaHistory::open(dir.join("lucid.db"), "p").unwrap(), &dir)
        .scratch_dir(dir.join("scratch"));
    let was = contents(&dir.join("shop.db"));
    let up = "CREATE TABLE n (x); \
              WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) INSERT INTO n SELECT x FROM c";
    let err = run(&migrate, json!({"name": "endless", "up": up})).await.unwrap_err();
    assert!(err.contains("rehearsal did not finish within 0.6 s") && err.contains("nothing was applied"), "{err}");
    assert_eq!(contents(&dir.join("shop.db")), was);
    nothing_written(&dir);
    std::fs::remove_dir_all(dir).ok();
}

/// Approves every call, keeping the calls it was shown.
struct Shown(std::sync::Mutex<Vec<lucid::ToolCall>>);

impl lucid::tool::permission::Approver for Shown {
    fn approve<'a>(
        &'a self,
        call: &'a lucid::ToolCall,
    ) -> futures::future::BoxFuture<'a, lucid::tool::permission::Approval> {
        self.0.lock().unwrap().push(call.clone());
        Box::pin(async { lucid::tool::permission::Approval::Yes })
    }
}

/// The approval the user is asked (a terminal approver, or the calls `lucid serve` and the
/// library list as waiting) shows the rehearsal, not only the SQL; a migration the tool
/// would refuse is refused before anyone is asked.
#[tokio::test]
async fn the_approval_shows_the_rehearsal_and_a_refused_migration_is_never_asked() {
    use lucid::tool::permission::{Permission, PermissionPolicy};
    let (dir, migrate) = setup("approval", CITY);
    let migrate: Arc<dyn Tool> = Arc::new(migrate);
    let drop = json!({"name": "no_email", "up": "ALTER TABLE city DROP COLUMN email",
                      "down": "ALTER TABLE city ADD COLUMN email TEXT", "irreversible": true});
    let shown = Arc::new(Shown(Default::default()));
    let model = lucid::model::ScriptedModel::new()
        .call(
            "sql_migrate",
            json!({"name": "no_email", "up": "ALTER TABLE city DROP COLUMN email",
                                    "down": "ALTER TABLE city ADD COLUMN email TEXT"}),
        )
        .call("sql_migrate", drop.clone())
        .text("Done.");
    let policy = PermissionPolicy::allow_all().set("sql_migrate", Permission::Ask).approver(shown.clone());
    let agent = lucid::Agent::builder(model.clone()).tool_arc(Arc::clone(&migrate)).permissions(policy).build();
    agent.session().run("Drop the email column.").await.unwrap();
    let last = model.requests().pop().unwrap();
    let results: Vec<String> = last.tool_results().into_iter().map(|(_, c)| c).collect();
    assert!(results[0].contains("down does not restore") && results[0].contains("before asking"), "{results:?}");
    let asked = shown.0.lock().unwrap().clone();
    assert_eq!(asked.len(), 1, "the refused migration was never asked about");
    let args = asked[0].parse_arguments().unwrap();
    let lines: Vec<&str> = args["lucid_review"].as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect();
    println!("{}", serde_json::to_string_pretty(&args).unwrap());
    assert_eq!(args["up"], "ALTER TABLE city DROP COLUMN email");
    assert!(lines[0].contains("IRREVERSIBLE"), "{lines:?}");
    assert!(lines.contains(&"Data lost: 3 values of column email of city (dropped)"), "{lines:?}");
    assert!(lines.iter().any(|l| l.starts_with("Lint warning [drop-column-with-data]")), "{lines:?}");
    assert!(results[1].contains("\"applied\":true"), "{results:?}");

    // Deferred (`lucid serve`, the library): the waiting call carries the same review.
    let model = lucid::model::ScriptedModel::new().call(
        "sql_migrate",
        json!({"name": "people",
        "up": "ALTER TABLE city ADD COLUMN people INTEGER"}),
    );
    let policy = PermissionPolicy::allow_all().set("sql_migrate", Permission::Ask).defer_asks(true);
    let agent = lucid::Agent::builder(model).tool_arc(migrate).permissions(policy).build();
    let mut session = agent.session();
    session.run("Add people.").await.unwrap();
    let pending = session.pending_approvals();
    let review = pending[0].review.as_deref().unwrap_or_default();
    assert!(
        review.contains("1. ALTER TABLE city ADD COLUMN people INTEGER — 0 rows affected; column people added to city"),
        "{review}"
    );
    assert!(review.contains("Restore check: down restores"), "{review}");
    std::fs::remove_dir_all(dir).ok();
}

/// The same on the Postgres of `.ci/run` (`LUCID_TEST_POSTGRES_URL`; skipped with a word
/// when unset): the rehearsal is a transaction rolled back, and a migration runs as a
/// plain role owning a schema of its own.
#[cfg(feature = "postgres")]
#[tokio::test]
async fn postgres_migrations_are_rehearsed_in_a_transaction_rolled_back() {
    let Some(admin_url) = lucid_mock::real_part("LUCID_TEST_POSTGRES_URL", ".ci/run starts a Postgres server") else {
        return;
    };
    let schema = format!("dryrun_{}", std::process::id());
    let (admin, conn) = tokio_postgres::connect(&admin_url, tokio_postgres::NoTls).await.unwrap();
    tokio::spawn(conn);
    admin
        .batch_execute(&format!(
            "DROP SCHEMA IF EXISTS {schema} CASCADE; CREATE SCHEMA {schema};
             DO $$ BEGIN CREATE ROLE lucid_dryrun LOGIN; EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$;
             GRANT USAGE, CREATE ON SCHEMA {schema} TO lucid_dryrun;
             CREATE TABLE {schema}.city (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT);
             CREATE INDEX idx_x ON {schema}.city (name);
             INSERT INTO {schema}.city VALUES (1, 'Lyon', 'a@x'), (2, 'Nice', 'b@x'), (3, 'Metz', 'c@x');
             ALTER TABLE {schema}.city OWNER TO lucid_dryrun;"
        ))
        .await
        .unwrap();
    let config: tokio_postgres::Config = admin_url.parse().unwrap();
    let host = match &config.get_hosts()[0] {
        tokio_postgres::config::Host::Tcp(h) => h.clone(),
        tokio_postgres::config::Host::Unix(p) => p.display().to_string(),
    };
    let url = format!(
        "postgres://lucid_dryrun@{host}:{}/{}",
        config.get_ports()[0],
        config.get_dbname().unwrap_or("postgres")
    );
    let dir = std::env::temp_dir().join(format!("lucid-dry-run-pg-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // Squawk (PyPI `squawk-cli`) where the test is given one; else none is run.
    let squawk = std::env::var("LUCID_TEST_SQUAWK").ok().filter(|p| !p.is_empty());
    if squawk.is_none() {
        eprintln!("Squawk not checked: LUCID_TEST_SQUAWK is not set (a squawk program, PyPI squawk-cli)");
    }
    let tool = |url: &str| {
        let db = Database::open(url).unwrap().squawk(squawk.clone().unwrap_or_else(|| "/nonexistent/squawk".into()));
        let db = Arc::new(db);
        SqlMigrate::new(db, SchemaHistory::open(dir.join("lucid.db"), "p").unwrap(), &dir)
    };
    let migrate = tool(&url);
    let state = || {
        let admin = &admin;
        let schema = schema.clone();
        async move {
            let q = format!(
                "SELECT (SELECT string_agg(column_name::text, ',' ORDER BY ordinal_position) FROM information_schema.columns \
                 WHERE table_schema = '{schema}' AND table_name = 'city'), \
                 (SELECT string_agg(indexname::text, ',' ORDER BY indexname) FROM pg_indexes WHERE schemaname = '{schema}'), \
                 (SELECT string_agg(id || name || coalesce(email, '-'), ',' ORDER BY id) FROM {schema}.city)"
            );
            let r = admin.query_one(&q, &[]).await.unwrap();
            (r.get::<_, Option<String>>(0), r.get::<_, Option<String>>(1), r.get::<_, Option<String>>(2))
        }
    };
    let was = state().await;
    let city = format!("{schema}.city");

    // Applies and restores: each statement's rows reported.
    let up = format!("ALTER TABLE {city} ADD COLUMN people INTEGER; UPDATE {city} SET people = 1 WHERE id < 3");
    let out =
        run(&migrate, json!({"name": "people", "up": up, "down": format!("ALTER TABLE {city} DROP COLUMN people")}))
            .await
            .unwrap();
    assert_eq!(out["review"]["restores"], true, "{out}");
    assert_eq!(out["review"]["statements"][1]["rows_affected"], 2, "{out}");
    assert_eq!(out["review"]["statements"][0]["changes"], json!([format!("column people added to {city}")]), "{out}");
    admin.batch_execute(&format!("ALTER TABLE {city} DROP COLUMN people")).await.unwrap();
    assert_eq!(state().await, was);

    // A down that forgets an index: refused, named; nothing changed.
    let args = json!({"name": "note", "up": format!("DROP INDEX {schema}.idx_x; ALTER TABLE {city} ADD COLUMN note TEXT"),
                      "down": format!("ALTER TABLE {city} DROP COLUMN note")});
    let err = run(&migrate, args).await.unwrap_err();
    assert!(err.contains(&format!("down does not restore: index {schema}.idx_x on {city} is missing")), "{err}");
    assert_eq!(state().await, was);

    // DROP COLUMN on a filled table: the values lost shown, flagged, refused unless irreversible.
    let args = json!({"name": "no_email", "up": format!("ALTER TABLE {city} DROP COLUMN email"),
                      "down": format!("ALTER TABLE {city} ADD COLUMN email TEXT")});
    let review = migrate.rehearse(&args).await.unwrap().unwrap();
    assert_eq!(review.lost, [format!("3 values of column email of {city} (dropped)")]);
    assert!(review.findings.iter().any(|f| f.rule == "drop-column-with-data"), "{review:?}");
    if squawk.is_some() {
        assert!(review.findings.iter().any(|f| f.rule == "squawk:ban-drop-column"), "{review:?}");
        assert!(!review.findings.iter().any(|f| f.rule == "squawk:prefer-robust-stmts"), "{review:?}");
    }
    assert!(run(&migrate, args).await.unwrap_err().contains("email (3 values before, 0 after)"));
    assert_eq!(state().await, was);

    // Fails half-way: nothing changed.
    let up = format!("CREATE TABLE {schema}.a (x int); DELETE FROM {city}; UPDATE {city} SET name = no_such_column");
    let err = run(&migrate, json!({"name": "half", "up": up})).await.unwrap_err();
    assert!(err.contains("statement 3 failed") && err.contains("rolled back"), "{err}");
    assert_eq!(state().await, was);

    // Hostile: COPY … TO PROGRAM refused by name; one hidden in a DO block is never run, as
    // the role that could run it (a superuser) is refused.
    let copy = format!("COPY {city} TO PROGRAM 'touch /tmp/lucid-dryrun-pwned'");
    let err = run(&migrate, json!({"name": "x", "up": copy})).await.unwrap_err();
    assert!(err.contains("COPY reads or writes files and programs of the server") && err.contains("nothing was run"));
    let superuser: bool =
        admin.query_one("SELECT rolsuper FROM pg_roles WHERE rolname = current_user", &[]).await.unwrap().get(0);
    if superuser {
        let hidden = "DO $$ BEGIN EXECUTE 'COPY (SELECT 1) TO PROGRAM ''touch /tmp/lucid-dryrun-pwned'''; END $$";
        let err = run(&tool(&admin_url), json!({"name": "x", "up": hidden})).await.unwrap_err();
        assert!(err.contains("will not connect as"), "{err}");
    }
    let made: Option<String> = admin
        .query_one("SELECT (pg_stat_file('/tmp/lucid-dryrun-pwned', true)).modification::text", &[])
        .await
        .unwrap()
        .get(0);
    assert!(made.is_none(), "no program ran on the server");
    assert_eq!(state().await, was);
    assert!(!dir.join("migrations").join("..").join("x.up.sql").exists());
    admin.batch_execute(&format!("DROP SCHEMA {schema} CASCADE")).await.unwrap();
    std::fs::remove_dir_all(dir).ok();
}
