//! The database-design agent and its schema history, on SQLite and Postgres.

use super::*;

/// The shipped `db-design` agent on a SQLite database, the model scripted: it reads the
/// schema, saves the version as found and its proposal in the history kept in Lucid's
/// store, and compares them.
#[tokio::test(flavor = "multi_thread")]
async fn the_db_design_agent_keeps_the_versions_it_proposes() {
    let dir = test_dir("agents-db-design");
    let db = dir.join("shop.db");
    // An empty file is an empty SQLite database; the schema is made through the history's
    // own proposal check, so only SQLite's parser is needed here.
    std::fs::write(&db, "").unwrap();
    let server = MockServer::start(db_design_script).await;
    let url = server.url();
    let args =
        ["run", "--base-url", &url, "-m", "m", "--agent", "db-design", "--db", "shop.db", "Design the order tables"];
    let out = run_in(&dir, &args, &[]).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let said = text(&out.stdout);
    assert!(said.contains(r#""tables_added":["orders"]"#), "{said}");
    assert!(dir.join(".local/share/lucid/lucid.db").is_file(), "the versions are kept in Lucid's store");
    let project = std::fs::canonicalize(&db).unwrap().display().to_string();
    let saved = server.requests()[2].json();
    let answer = saved["messages"].as_array().unwrap().last().unwrap()["content"].as_str().unwrap().to_string();
    assert!(answer.contains(&project), "versions are filed under the database's path: {answer}");
    std::fs::remove_dir_all(dir).ok();
}

/// With `--store postgres://…` the versions go into Lucid's Postgres store
/// (`lucid_schema_versions`), not into the default SQLite file.
#[cfg(feature = "postgres")]
#[tokio::test(flavor = "multi_thread")]
async fn the_db_design_agent_keeps_its_versions_in_the_postgres_store() {
    let Some(store) = common::real_part("LUCID_TEST_POSTGRES_URL", ".ci/run starts a Postgres server") else {
        return;
    };
    let dir = test_dir("agents-db-design-pg");
    std::fs::write(dir.join("shop.db"), "").unwrap();
    let server = MockServer::start(db_design_script).await;
    let url = server.url();
    let project = format!("shop-{}", std::process::id());
    std::fs::write(dir.join("config.toml"), format!("db_project = \"{project}\"\n")).unwrap();
    let args = mock_run(
        &url,
        &[
            "--config",
            "config.toml",
            "--store",
            &store,
            "--agent",
            "db-design",
            "--db",
            "shop.db",
            "Design the order tables",
        ],
    );
    let out = run_in(&dir, &args, &[]).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    assert!(text(&out.stdout).contains(r#""tables_added":["orders"]"#), "{}", text(&out.stdout));
    assert!(!dir.join(".local/share/lucid/lucid.db").exists(), "nothing in the default SQLite file");
    let (client, conn) = tokio_postgres::connect(&store, tokio_postgres::NoTls).await.unwrap();
    tokio::spawn(conn);
    let rows = client
        .query("SELECT message, kind FROM lucid_schema_versions WHERE project = $1 ORDER BY id", &[&project])
        .await
        .unwrap();
    let kept: Vec<(String, String)> = rows.iter().map(|r| (r.get(0), r.get(1))).collect();
    assert_eq!(kept, [("as found".into(), "current".into()), ("orders".into(), "proposed".into())]);
    client.execute("DELETE FROM lucid_schema_versions WHERE project = $1", &[&project]).await.unwrap();
    std::fs::remove_dir_all(dir).ok();
}
