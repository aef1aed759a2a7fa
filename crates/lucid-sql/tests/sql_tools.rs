//! `sql_query` and `sql_schema` against a real SQLite file and the real Postgres of
//! `.ci/run` (`LUCID_TEST_POSTGRES_URL`): answers as capped tables, the schema with keys
//! and indexes, every kind of write refused by the database, slow queries cut.

use std::sync::Arc;
use std::time::Duration;

use lucid::Tool;
use lucid::tool::ToolSet;
use lucid_sql::Database;
use serde_json::json;

const SETUP: &str = "
    CREATE TABLE country (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
    CREATE TABLE city (id INTEGER PRIMARY KEY, name TEXT NOT NULL, people INTEGER,
                       country_id INTEGER REFERENCES country(id));
    CREATE INDEX city_people ON city (people);
    INSERT INTO country VALUES (1, 'France'), (2, 'Japan');
    INSERT INTO city VALUES (1, 'Lyon', 522000, 1), (2, 'Osaka', 2750000, 2), (3, 'Nice | Côte', NULL, 1);
";

/// Both tools of `db`, by name.
fn tools(db: Database) -> (Arc<dyn Tool>, Arc<dyn Tool>) {
    let mut t = Arc::new(db).tools();
    let schema = t.pop().unwrap();
    let query = t.pop().unwrap();
    assert_eq!((query.spec().name(), schema.spec().name()), ("sql_query", "sql_schema"));
    (query, schema)
}

async fn sql(tool: &Arc<dyn Tool>, statement: &str) -> Result<String, String> {
    tool.invoke(json!({ "sql": statement }), Default::default()).await.map_err(|e| e.to_string())
}

fn sqlite_file(name: &str) -> std::path::PathBuf {
    let path = std::env::temp_dir().join(format!("lucid-sql-{name}-{}.db", std::process::id()));
    let _ = std::fs::remove_file(&path);
    rusqlite::Connection::open(&path).unwrap().execute_batch(SETUP).unwrap();
    path
}

#[tokio::test]
async fn sqlite_answers_as_a_capped_table_and_describes_its_schema() {
    let path = sqlite_file("read");
    let (query, schema) = tools(Database::open(path.to_str().unwrap()).unwrap().max_rows(2).cell_width(8));
    let out = sql(
        &query,
        "SELECT c.name, c.people, k.name AS country FROM city c JOIN country k ON k.id = c.country_id ORDER BY c.id",
    )
    .await
    .unwrap();
    assert_eq!(
        out,
        "| name | people | country |\n| --- | --- | --- |\n| Lyon | 522000 | France |\n| Osaka | 2750000 | Japan |\n\n\
         3 rows, the first 2 shown (cut)"
    );
    let out = sql(&query, "SELECT name, people FROM city WHERE id = 3").await.unwrap();
    assert_eq!(out, "| name | people |\n| --- | --- |\n| Nice \\| C… | NULL |\n\n1 row");
    let err = sql(&query, "SELECT nope FROM city").await.unwrap_err();
    assert!(err.starts_with("no such column: nope"), "{err}");
    let err = sql(&query, "SELEC 1").await.unwrap_err();
    assert!(err.contains("syntax error"), "{err}");

    let all = schema.invoke(json!({}), Default::default()).await.unwrap();
    assert!(all.contains("## city (table)") && all.contains("## country (table)"), "{all}");
    assert!(all.contains("| id | INTEGER | null | primary key |"), "{all}");
    assert!(all.contains("| country_id | INTEGER | null | references country(id) |"), "{all}");
    assert!(all.contains("indexes: city_people (people)"), "{all}");
    let one = schema.invoke(json!({"table": "country"}), Default::default()).await.unwrap();
    assert!(!one.contains("## city") && one.contains("| name | TEXT | not null |"), "{one}");
    assert!(one.contains("unique (name)"), "{one}");
    let err = schema.invoke(json!({"table": "nope"}), Default::default()).await.unwrap_err();
    assert_eq!(err.to_string(), "no such table: nope");
    let _ = std::fs::remove_file(path);
}

#[tokio::test]
async fn sqlite_refuses_every_write_and_cuts_a_slow_query() {
    let path = sqlite_file("write");
    let copy = std::env::temp_dir().join(format!("lucid-sql-vacuum-{}.db", std::process::id()));
    let attached = std::env::temp_dir().join(format!("lucid-sql-attached-{}.db", std::process::id()));
    let (query, _) = tools(Database::open(path.to_str().unwrap()).unwrap().timeout(Duration::from_millis(300)));
    let writes = [
        "INSERT INTO city (name) VALUES ('Kyoto')".to_string(),
        "UPDATE city SET people = 0".into(),
        "DELETE FROM city".into(),
        "DROP TABLE city".into(),
        "SELECT 1; DROP TABLE city".into(),
        "CREATE TEMP TABLE scratch (a)".into(),
        "PRAGMA user_version = 7".into(),
        format!("VACUUM INTO '{}'", copy.display()),
        format!("ATTACH '{}' AS other", attached.display()),
    ];
    for statement in &writes {
        let err = sql(&query, statement).await.expect_err(statement);
        assert!(!err.is_empty(), "{statement}");
    }
    assert!(!copy.exists() && !attached.exists(), "no file was written");
    let rows = sql(&query, "SELECT count(*) AS n FROM city").await.unwrap();
    assert!(rows.contains("| 3 |"), "{rows}");
    let version = sql(&query, "PRAGMA user_version").await.unwrap();
    assert!(version.contains("| 0 |"), "{version}");

    let slow = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n";
    let err = sql(&query, slow).await.unwrap_err();
    assert_eq!(err, "the query did not finish within 0.3 s and was cancelled");
    assert!(sql(&query, "SELECT 1 AS one").await.unwrap().contains("| 1 |"), "usable after a timeout");
    let _ = std::fs::remove_file(path);
}

#[tokio::test]
async fn sqlite_makes_no_huge_value_and_copies_a_long_one_only_as_far_as_it_shows() {
    let path = sqlite_file("huge");
    let (query, _) = tools(Database::open(path.to_str().unwrap()).unwrap().cell_width(8));
    // 100 MB would be made in this process, before any cut.
    for statement in ["SELECT randomblob(100000000)", "SELECT length(randomblob(100000000))"] {
        let err = sql(&query, statement).await.unwrap_err();
        assert!(err.contains("too big") && err.contains("4 MiB"), "{statement}: {err}");
    }
    let long = sql(&query, "SELECT printf('%.*c', 3000000, 'x') AS x, 'é' AS e").await.unwrap();
    assert_eq!(long, "| x | e |\n| --- | --- |\n| xxxxxxxx… | é |\n\n1 row");
    let _ = std::fs::remove_file(path);
}

#[test]
fn a_database_that_cannot_be_opened_says_why() {
    let err = Database::open("/nonexistent/lucid.db").unwrap_err().to_string();
    assert_eq!(err, "no SQLite database at /nonexistent/lucid.db (the file must exist)");
    let not_sqlite = std::env::temp_dir().join(format!("lucid-sql-text-{}.db", std::process::id()));
    std::fs::write(&not_sqlite, "hello, this is not a database at all, not even close to one......").unwrap();
    let path = not_sqlite.to_str().unwrap().to_string();
    let outcome = Database::open(&path);
    // SQLite reads the header lazily: the error comes at open or at the first statement.
    if let Ok(db) = outcome {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let err = rt.block_on(db.query("SELECT 1")).unwrap_err().to_string();
        assert!(err.contains("not a database"), "{err}");
    }
    let _ = std::fs::remove_file(not_sqlite);
}

#[cfg(feature = "postgres")]
mod postgres {
    use super::*;

    /// A schema of the test server with the tables, a sequence and a writing function,
    /// made by the server's own user, and the URL of a plain role that may only read it.
    async fn prepare(name: &str) -> Option<(String, tokio_postgres::Client)> {
        let url = lucid_mock::postgres_url()?;
        let (admin, conn) = tokio_postgres::connect(&url, tokio_postgres::NoTls).await.unwrap();
        tokio::spawn(conn);
        let schema = format!("sqltools_{name}");
        let sql = SETUP.replace("CREATE TABLE ", &format!("CREATE TABLE {schema}."));
        let sql = sql
            .replace("REFERENCES country", &format!("REFERENCES {schema}.country"))
            .replace("INSERT INTO ", &format!("INSERT INTO {schema}."))
            .replace("CREATE INDEX city_people ON city", &format!("CREATE INDEX city_people ON {schema}.city"));
        admin
            .batch_execute(&format!(
                "DROP SCHEMA IF EXISTS {schema} CASCADE; CREATE SCHEMA {schema}; {sql}
                 CREATE SEQUENCE {schema}.ticket;
                 CREATE FUNCTION {schema}.add_city(n text) RETURNS int LANGUAGE sql AS
                   $$ INSERT INTO {schema}.city (id, name) VALUES (99, n) RETURNING id $$;
                 DO $$ BEGIN CREATE ROLE lucid_reader LOGIN; EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$;
                 GRANT USAGE ON SCHEMA {schema} TO lucid_reader;
                 GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA {schema} TO lucid_reader;
                 GRANT USAGE, UPDATE ON ALL SEQUENCES IN SCHEMA {schema} TO lucid_reader;"
            ))
            .await
            .unwrap();
        let mut config: tokio_postgres::Config = url.parse().unwrap();
        config.user("lucid_reader");
        let host = match &config.get_hosts()[0] {
            tokio_postgres::config::Host::Tcp(h) => h.clone(),
            tokio_postgres::config::Host::Unix(p) => p.display().to_string(),
        };
        let reader = format!(
            "postgres://lucid_reader@{host}:{}/{}",
            config.get_ports()[0],
            config.get_dbname().unwrap_or("postgres")
        );
        Some((reader, admin))
    }

    #[tokio::test]
    async fn postgres_answers_and_describes_and_refuses_a_superuser() {
        let Some((reader, admin)) = prepare("read").await else { return };
        let (query, schema) = tools(Database::open(&reader).unwrap().max_rows(2));
        let out = sql(&query, "SELECT name, people FROM sqltools_read.city ORDER BY id").await.unwrap();
        assert_eq!(
            out,
            "| name | people |\n| --- | --- |\n| Lyon | 522000 |\n| Osaka | 2750000 |\n\n3 rows, the first 2 shown (cut)"
        );
        let big = sql(&query, "SELECT g FROM generate_series(1, 50000) g").await.unwrap();
        assert!(big.ends_with("50000 rows, the first 2 shown (cut)"), "{big}");
        let err = sql(&query, "SELECT nope FROM sqltools_read.city").await.unwrap_err();
        assert!(err.starts_with("column \"nope\" does not exist Hint: Perhaps you meant"), "{err}");

        let one = schema.invoke(json!({"table": "sqltools_read.city"}), Default::default()).await.unwrap();
        assert!(one.contains("## sqltools_read.city (table)"), "{one}");
        assert!(one.contains("| id | integer | not null | primary key |"), "{one}");
        assert!(one.contains("| country_id | integer | null | references sqltools_read.country(id) |"), "{one}");
        assert!(one.contains("city_people (people)") || one.contains("city_people btree (people)"), "{one}");
        assert!(!one.contains("## sqltools_read.country"), "{one}");

        let admin_url = lucid_mock::postgres_url().unwrap();
        let (superuser, _) = tools(Database::open(&admin_url).unwrap());
        let err = sql(&superuser, "SELECT 1").await.unwrap_err();
        assert!(err.contains("will not connect as") && err.contains("superuser"), "{err}");
        drop(admin);
    }

    #[tokio::test]
    async fn postgres_refuses_a_role_that_may_become_a_superuser() {
        let Some((reader, admin)) = prepare("climb").await else { return };
        let admin_role: String = admin.query_one("SELECT current_user::text", &[]).await.unwrap().get(0);
        // A plain login role granted the server's own (superuser) role: it may SET ROLE to
        // it, and a DO block would then run COPY … TO PROGRAM inside the read-only transaction.
        admin
            .batch_execute(&format!(
                "DO $$ BEGIN CREATE ROLE lucid_climber LOGIN; EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$;
                 GRANT \"{admin_role}\" TO lucid_climber;
                 DO $$ BEGIN CREATE ROLE lucid_copier LOGIN; EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$;
                 GRANT pg_read_server_files TO lucid_copier;"
            ))
            .await
            .unwrap();
        for (role, why) in [("lucid_climber", admin_role.as_str()), ("lucid_copier", "pg_read_server_files")] {
            let url = reader.replace("lucid_reader@", &format!("{role}@"));
            let (query, _) = tools(Database::open(&url).unwrap());
            let err = sql(&query, "SELECT 1").await.unwrap_err();
            assert!(err.contains(&format!("will not connect as `{role}`")) && err.contains(why), "{err}");
        }
        let (query, _) = tools(Database::open(&reader).unwrap());
        assert!(sql(&query, "SELECT 1 AS one").await.unwrap().contains("| 1 |"), "a plain role still connects");
    }

    #[tokio::test]
    async fn postgres_releases_what_a_call_held_and_cuts_long_values_at_the_server() {
        let Some((reader, admin)) = prepare("held").await else { return };
        let (query, _) = tools(Database::open(&reader).unwrap().cell_width(8));
        sql(&query, "SELECT pg_advisory_lock(4242)").await.unwrap();
        assert_eq!(advisory_locks(&admin).await, 0, "a session advisory lock outlived the call");
        sql(&query, "SELECT pg_try_advisory_lock(4243), pg_advisory_lock_shared(4244)").await.unwrap();
        assert_eq!(advisory_locks(&admin).await, 0, "a session advisory lock outlived the call");

        let out = sql(
            &query,
            "SELECT repeat('x', 1000) AS long, true AS yes, ARRAY[1, 2] AS pair, NULL::text AS none, \
             '{\"k\": 1}'::jsonb AS doc, 7 AS seven, 'x' AS seven FROM generate_series(1, 3) g ORDER BY g DESC -- end",
        )
        .await
        .unwrap();
        assert_eq!(
            out,
            "| long | yes | pair | none | doc | seven | seven |\n| --- | --- | --- | --- | --- | --- | --- |\n\
             | xxxxxxxx… | t | {1,2} | NULL | {\"k\": 1} | 7 | x |\n| xxxxxxxx… | t | {1,2} | NULL | {\"k\": 1} | 7 | x |\n\
             | xxxxxxxx… | t | {1,2} | NULL | {\"k\": 1} | 7 | x |\n\n3 rows"
        );
        // Statements that cannot be a subquery run as written.
        assert!(sql(&query, "SHOW statement_timeout").await.unwrap().ends_with("\n\n1 row"));
        assert!(sql(&query, "EXPLAIN SELECT 1").await.unwrap().contains("Result"));
    }

    /// A cell of 300 MB made by the server: only its first characters reach this process.
    /// The memory is measured in a process of its own (this test run again alone), where
    /// no other test's allocations count.
    #[tokio::test]
    async fn postgres_sends_no_huge_cell_to_the_client() {
        let Some((reader, _admin)) = prepare("huge").await else { return };
        if std::env::var_os("LUCID_SQL_ALONE").is_none() {
            let status = std::process::Command::new(std::env::current_exe().unwrap())
                .args(["postgres::postgres_sends_no_huge_cell_to_the_client", "--exact", "--nocapture"])
                .env("LUCID_SQL_ALONE", "1")
                .status()
                .unwrap();
            assert!(status.success(), "the measured run failed: {status}");
            return;
        }
        let (query, _) = tools(Database::open(&reader).unwrap().cell_width(8));
        assert!(sql(&query, "SELECT repeat('y', 1000) AS warm").await.unwrap().contains("yyyyyyyy…"));
        let before = peak_rss_kib();
        let out = sql(&query, "SELECT repeat('x', 300000000) AS big").await.unwrap();
        assert_eq!(out, "| big |\n| --- |\n| xxxxxxxx… |\n\n1 row");
        let grew = peak_rss_kib() - before;
        assert!(grew < 100 * 1024, "the process grew by {grew} KiB for one cut cell");
    }

    /// The advisory locks the reader's sessions hold.
    async fn advisory_locks(admin: &tokio_postgres::Client) -> i64 {
        let row = admin
            .query_one(
                "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid \
                 WHERE l.locktype = 'advisory' AND a.usename = 'lucid_reader'",
                &[],
            )
            .await
            .unwrap();
        row.get(0)
    }

    fn peak_rss_kib() -> i64 {
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: getrusage fills the struct it is given.
        assert_eq!(unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) }, 0);
        usage.ru_maxrss
    }

    #[tokio::test]
    async fn postgres_refuses_every_write_and_cuts_a_slow_query() {
        let Some((reader, admin)) = prepare("write").await else { return };
        let (query, _) = tools(Database::open(&reader).unwrap().timeout(Duration::from_millis(500)));
        let s = "sqltools_write";
        let writes = [
            (format!("INSERT INTO {s}.city (id, name) VALUES (7, 'Kyoto')"), "read-only transaction"),
            (format!("UPDATE {s}.city SET people = 0"), "read-only transaction"),
            (format!("DELETE FROM {s}.city"), "read-only transaction"),
            (format!("DROP TABLE {s}.city"), "read-only transaction"),
            (format!("SELECT 1; DELETE FROM {s}.city"), "multiple commands"),
            (format!("COPY {s}.city FROM STDIN"), "read-only transaction"),
            (format!("SELECT {s}.add_city('Kyoto')"), "read-only transaction"),
            (format!("SELECT nextval('{s}.ticket')"), "read-only transaction"),
            ("CREATE TEMP TABLE scratch (a int)".into(), "read-only transaction"),
        ];
        for (statement, why) in &writes {
            let err = sql(&query, statement).await.expect_err(statement);
            assert!(err.contains(why), "{statement}: {err}");
        }
        let rows = sql(&query, &format!("SELECT count(*) AS n FROM {s}.city")).await.unwrap();
        assert!(rows.contains("| 3 |"), "{rows}");
        let committed = sql(&query, "COMMIT").await;
        assert!(committed.is_ok(), "a COMMIT of nothing is harmless: {committed:?}");
        let err = sql(&query, &format!("DELETE FROM {s}.city")).await.unwrap_err();
        assert!(err.contains("read-only transaction"), "every call is read-only again: {err}");

        let err = sql(&query, "SELECT pg_sleep(5)").await.unwrap_err();
        assert!(err.contains("statement timeout"), "{err}");
        assert!(sql(&query, "SELECT 1 AS one").await.unwrap().contains("| 1 |"), "usable after a timeout");
        let row = admin.query_one(&format!("SELECT count(*) FROM {s}.city"), &[]).await.unwrap();
        assert_eq!(row.get::<_, i64>(0), 3, "nothing was written");
    }
}
