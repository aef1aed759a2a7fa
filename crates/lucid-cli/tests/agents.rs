//! Agents by name: `lucid agents list | show | init`, and `lucid run --agent NAME` taking
//! its prompt, tools and permissions from the configuration, the user's agent file or the
//! agents shipped in the binary, against a local scripted server.

mod common;

use std::path::Path;

use common::{run_in, test_dir, text};
use lucid_mock::{MockServer, Reply, text_completion, tool_call_completion};
use serde_json::{Value, json};

/// The names of the tools a request offered.
fn offered(body: &Value) -> Vec<String> {
    body["tools"].as_array().map_or_else(Vec::new, |tools| {
        tools.iter().map(|t| t["function"]["name"].as_str().unwrap_or_default().to_string()).collect()
    })
}

#[tokio::test(flavor = "multi_thread")]
async fn agents_list_show_and_init_with_the_users_copy_shadowing_the_shipped_one() {
    let dir = test_dir("agents-init");
    std::fs::write(dir.join("config.toml"), "[agents.support]\nsystem = \"You answer tickets.\"\n").unwrap();
    let list = ["--config", "config.toml", "agents", "list"];
    let out = run_in(&dir, &list, &[]).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let listed = text(&out.stdout);
    let line = |name: &str| listed.lines().find(|l| l.starts_with(name)).unwrap_or_default().to_string();
    assert!(line("unit-tests ").contains("shipped") && line("db-design ").contains("shipped"), "{listed}");
    assert!(line("support ").contains("config"), "{listed}");

    let out = run_in(&dir, &["agents", "show", "unit-tests"], &[]).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    assert!(text(&out.stdout).contains("run_tests = \"allow\""), "{}", text(&out.stdout));

    let out = run_in(&dir, &["agents", "init", "unit-tests"], &[]).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let copy = dir.join(".config/lucid/agents/unit-tests.toml");
    assert_eq!(text(&out.stdout).trim(), copy.display().to_string());
    std::fs::write(&copy, "description = \"mine\"\nsystem = \"My own test writer.\"\n").unwrap();

    // A second init keeps the user's edits unless forced.
    let out = run_in(&dir, &["agents", "init", "unit-tests"], &[]).await;
    assert_eq!(out.status.code(), Some(2), "stdout: {}", text(&out.stdout));
    assert!(text(&out.stderr).contains("--force"), "{}", text(&out.stderr));
    assert!(std::fs::read_to_string(&copy).unwrap().contains("My own test writer."));
    let out = run_in(&dir, &list, &[]).await;
    let listed = text(&out.stdout);
    let mine = listed.lines().find(|l| l.starts_with("unit-tests ")).unwrap();
    assert!(mine.contains("user (") && mine.contains("shadows the shipped one") && mine.contains("mine"), "{listed}");
    let out = run_in(&dir, &["agents", "show", "unit-tests"], &[]).await;
    assert!(text(&out.stdout).contains("My own test writer."), "{}", text(&out.stdout));

    let out = run_in(&dir, &["agents", "init", "unit-tests", "--force"], &[]).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    assert!(std::fs::read_to_string(&copy).unwrap().contains("run_tests = \"allow\""));
    let out = run_in(&dir, &["agents", "init", "nobody"], &[]).await;
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("shipped: db-design, unit-tests"), "{}", text(&out.stderr));
    std::fs::remove_dir_all(dir).ok();
}

#[tokio::test(flavor = "multi_thread")]
async fn run_agent_takes_the_prompt_and_tools_of_the_configuration_the_users_file_or_the_shipped_agent() {
    let server = MockServer::start(|_| Reply::json(200, &text_completion("ok"))).await;
    let dir = test_dir("agents-run");
    let config = "max_iterations = 4\ndb = \"shop.db\"\n[agents.support]\nsystem = \"You answer tickets.\"\ntools = [\"calculator\"]\n";
    std::fs::write(dir.join("config.toml"), config).unwrap();
    // An empty file is an empty SQLite database.
    std::fs::write(dir.join("shop.db"), "").unwrap();
    let url = server.url();
    let run = |agent: &'static str| {
        let dir = dir.clone();
        let url = url.clone();
        async move {
            let args = ["--config", "config.toml", "run", "--base-url", &url, "-m", "m", "--agent", agent, "hi"];
            run_in(&dir, &args, &[]).await
        }
    };
    let system = |body: &Value| body["messages"][0]["content"].as_str().unwrap_or_default().to_string();

    let out = run("support").await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let body = server.requests().last().unwrap().json();
    assert!(system(&body).contains("You answer tickets."), "{body}");
    assert_eq!(offered(&body), ["calculator"]);

    let out = run("db-design").await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let body = server.requests().last().unwrap().json();
    assert!(system(&body).contains("database designer"), "{body}");
    assert!(offered(&body).contains(&"ask_user".to_string()), "{body}");

    // The user's copy shadows the shipped one.
    std::fs::create_dir_all(dir.join(".config/lucid/agents")).unwrap();
    std::fs::write(dir.join(".config/lucid/agents/db-design.toml"), "system = \"Mine.\"\ntools = [\"current_time\"]\n")
        .unwrap();
    let out = run("db-design").await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let body = server.requests().last().unwrap().json();
    assert!(system(&body).contains("Mine.") && !system(&body).contains("database designer"), "{body}");
    assert_eq!(offered(&body), ["current_time"]);

    let out = run("nobody").await;
    assert_eq!(out.status.code(), Some(2));
    let said = text(&out.stderr);
    assert!(said.contains("no agent `nobody`") && said.contains("unit-tests") && said.contains("support"), "{said}");
    std::fs::remove_dir_all(dir).ok();
}

/// `RUSTUP_HOME` and `CARGO_HOME` of this process (what `cargo` needs when HOME is a test
/// folder), for `tool_env` to pass on to `run_tests` and `coverage`.
fn toolchain_vars() -> Vec<(String, String)> {
    let home = std::env::var("HOME").unwrap_or_default();
    [("RUSTUP_HOME", ".rustup"), ("CARGO_HOME", ".cargo")]
        .iter()
        .map(|(v, dir)| (v.to_string(), std::env::var(v).unwrap_or(format!("{home}/{dir}"))))
        .collect()
}

/// A Rust crate `sample` with these modules, each `pub fn f(x: i32) -> i32 { x + 1 }`.
fn rust_sample(name: &str, modules: &[&str]) -> std::path::PathBuf {
    let dir = test_dir(name);
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(dir.join("Cargo.toml"), "[package]\nname = \"sample\"\nversion = \"0.1.0\"\nedition = \"2021\"\n")
        .unwrap();
    let lib: String = modules.iter().map(|m| format!("pub mod {m};\n")).collect();
    std::fs::write(dir.join("src/lib.rs"), lib).unwrap();
    for m in modules {
        std::fs::write(dir.join(format!("src/{m}.rs")), "/// Adds one.\npub fn f(x: i32) -> i32 {\n    x + 1\n}\n")
            .unwrap();
    }
    dir
}

/// A test file of module `m` expecting `f(1) == want`.
fn test_file(m: &str, want: i32) -> String {
    format!("#[test]\nfn adds_one() {{\n    assert_eq!(sample::{m}::f(1), {want});\n}}\n")
}

/// The scripted model of one target's conversation: outline, write a test file (wrong
/// first for `a`), run it, (repair and run again), report. It goes by the tool results in
/// the conversation, so it starts over for each target only if the conversation does.
fn unit_test_script(req: &lucid_mock::RecordedRequest) -> Reply {
    let body = req.json();
    let messages = body["messages"].as_array().unwrap();
    let prompt = messages.iter().find(|m| m["role"] == "user").unwrap()["content"].as_str().unwrap_or_default();
    let target = prompt.split_whitespace().skip_while(|w| *w != "Target:").nth(1).unwrap_or("src/lib.rs");
    let m = Path::new(target).file_stem().unwrap().to_str().unwrap().to_string();
    let m = if m == "lib" { "a".to_string() } else { m };
    let results = messages.iter().filter(|m| m["role"] == "tool").count();
    let call = |name: &str, args: Value| tool_call_completion(&[(&format!("c{results}"), name, &args.to_string())]);
    let test_path = format!("tests/{m}.rs");
    let repairs = m == "a";
    let reply = match (results, repairs) {
        (0, _) => call("code_outline", json!({"path": target})),
        (1, _) => call("write_file", json!({"path": test_path, "content": test_file(&m, if repairs { 5 } else { 2 })})),
        (2, _) | (4, true) => call("run_tests", json!({"filter": test_path})),
        (3, true) => call("write_file", json!({"path": test_path, "content": test_file(&m, 2)})),
        _ => text_completion(&format!("{target}: 1 test written and passing")),
    };
    Reply::json(200, &reply)
}

/// The shipped `unit-tests` agent on one file of a small Rust project, the model scripted:
/// it outlines the target, writes a failing test file without asking, runs it with the
/// real `cargo test`, repairs it from the failure `run_tests` reports, and runs it again;
/// the report counts one repair.
#[cfg(all(feature = "code-outline", feature = "test-tools"))]
#[tokio::test(flavor = "multi_thread")]
async fn the_unit_tests_agent_writes_runs_and_repairs_tests_of_a_rust_file() {
    let dir = rust_sample("agents-unit-tests", &["a"]);
    let server = MockServer::start(unit_test_script).await;
    std::fs::write(dir.join("config.toml"), "tool_env = [\"RUSTUP_HOME\", \"CARGO_HOME\"]\n").unwrap();
    let vars = toolchain_vars();
    let vars: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let url = server.url();
    let args = [
        "--config",
        "config.toml",
        "run",
        "--base-url",
        &url,
        "-m",
        "m",
        "--agent",
        "unit-tests",
        "--json",
        "src/a.rs",
    ];
    let out = run_in(&dir, &args, &vars).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let target = &report["targets"][0];
    assert_eq!(target["target"], "src/a.rs", "{report}");
    assert_eq!(
        (target["repairs"].as_u64(), target["passing"].as_u64(), target["failing"].as_u64()),
        (Some(1), Some(1), Some(0)),
        "{report}"
    );
    assert_eq!(target["test_files"], json!(["tests/a.rs"]), "{report}");
    assert_eq!(report["stopped"], "no target left", "{report}");
    assert_eq!(std::fs::read_to_string(dir.join("tests/a.rs")).unwrap(), test_file("a", 2));

    let requests = server.requests();
    let first = requests[0].json();
    assert!(
        offered(&first).contains(&"run_tests".to_string()) && offered(&first).contains(&"code_outline".to_string())
    );
    let tool_answer = |i: usize| -> Value {
        let body = requests[i].json();
        let last = body["messages"].as_array().unwrap().last().unwrap().clone();
        assert_eq!(last["role"], "tool", "{body}");
        serde_json::from_str(last["content"].as_str().unwrap()).unwrap_or(last["content"].clone())
    };
    let outline = tool_answer(1);
    assert_eq!(outline["symbols"][0]["name"], "f", "{outline}");
    let first_run = tool_answer(3);
    assert_eq!(
        (first_run["failed"].as_u64(), first_run["failures"][0]["test"].as_str()),
        (Some(1), Some("adds_one")),
        "{first_run}"
    );
    let second_run = tool_answer(5);
    assert_eq!(
        (second_run["status"].as_str(), second_run["passed"].as_u64()),
        (Some("passed"), Some(1)),
        "{second_run}"
    );

    // With no repair left, a second run of the tests is refused and the model told why.
    let out = run_in(&dir, &[&args[..10], &["--max-repairs", "0", "src/a.rs"]].concat(), &vars).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let refused = server.requests().iter().rev().find_map(|r| {
        let last = r.json()["messages"].as_array().unwrap().last().cloned().unwrap();
        last["content"].as_str().filter(|c| c.contains("repairs of this target are spent")).map(str::to_string)
    });
    assert!(refused.is_some(), "the model reads that its repairs are spent");
    std::fs::remove_dir_all(dir).ok();
}

/// The project's targets one after another, by real line coverage (instrumented `cargo
/// test`, llvm-cov): each target in a new conversation that carries only the summary of
/// those before, until `--coverage 60` is reached — before the third file.
#[cfg(all(feature = "code-outline", feature = "test-tools"))]
#[tokio::test(flavor = "multi_thread")]
async fn the_unit_tests_agent_goes_target_by_target_until_the_coverage_goal() {
    let Some(bin) = common::real_part("LUCID_TEST_LLVM_BIN", ".ci/run sets it to the llvm-cov of rustc's LLVM") else {
        return;
    };
    let dir = rust_sample("agents-unit-tests-goal", &["a", "b", "c"]);
    let server = MockServer::start(unit_test_script).await;
    let command = format!(
        "export RUSTFLAGS='-C instrument-coverage' LLVM_PROFILE_FILE={{scratch}}/p-%p-%m.profraw CARGO_TARGET_DIR={{scratch}}/t; \
         cargo test --tests -q > /dev/null 2>&1; \
         {bin}/llvm-profdata merge -sparse {{scratch}}/*.profraw -o {{scratch}}/all.profdata && \
         objs=$(find {{scratch}}/t/debug/deps -maxdepth 1 -type f -perm -u+x | sed 's/^/-object /') && \
         {bin}/llvm-cov export --format=text --instr-profile={{scratch}}/all.profdata $objs --sources src > {{scratch}}/cov.json"
    );
    let config = format!(
        "tool_env = [\"RUSTUP_HOME\", \"CARGO_HOME\"]\n[tests]\ncoverage_command = {command:?}\ncoverage_report = \"{{scratch}}/cov.json\"\n"
    );
    std::fs::write(dir.join("config.toml"), config).unwrap();
    let vars = toolchain_vars();
    let vars: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let url = server.url();
    let args = [
        "--config",
        "config.toml",
        "run",
        "--base-url",
        &url,
        "-m",
        "m",
        "--agent",
        "unit-tests",
        "--json",
        "--coverage",
        "60",
    ];
    let out = run_in(&dir, &args, &vars).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["stopped"], "coverage goal reached (66.7% ≥ 60%)", "{report}");
    let done: Vec<&str> = report["targets"].as_array().unwrap().iter().map(|t| t["target"].as_str().unwrap()).collect();
    assert_eq!(done, ["src/a.rs", "src/b.rs"], "{report}");
    assert_eq!(
        (report["coverage_before"].as_f64(), report["coverage_after"].as_f64()),
        (Some(0.0), Some(66.7)),
        "{report}"
    );
    for (t, repairs) in report["targets"].as_array().unwrap().iter().zip([1, 0]) {
        assert_eq!((t["coverage_before"].as_f64(), t["coverage_after"].as_f64()), (Some(0.0), Some(100.0)), "{t}");
        assert_eq!((t["repairs"].as_u64(), t["passing"].as_u64()), (Some(repairs), Some(1)), "{t}");
    }
    assert!(!dir.join("tests/c.rs").exists());

    // The second target's conversation starts with only the system prompt and a prompt
    // carrying the first target's summary.
    let b_starts = server
        .requests()
        .iter()
        .map(|r| r.json())
        .find(|b| {
            b["messages"]
                .as_array()
                .unwrap()
                .iter()
                .any(|m| m["content"].as_str().is_some_and(|c| c.contains("Target: src/b.rs")))
        })
        .unwrap();
    let messages = b_starts["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 2, "{b_starts}");
    let prompt = messages[1]["content"].as_str().unwrap();
    assert!(
        prompt.contains("- src/a.rs: tests in tests/a.rs, 1 passing, 1 repairs, coverage 0.0% -> 100.0%"),
        "{prompt}"
    );
    assert!(prompt.contains("lines no test runs"), "{prompt}");
    std::fs::remove_dir_all(dir).ok();
}

/// The scripted `db-design` model: reads the schema, saves the version as found and a
/// proposal in the history, and compares them.
fn db_design_script(req: &lucid_mock::RecordedRequest) -> Reply {
    let body = req.json();
    let results: Vec<Value> = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| serde_json::from_str(m["content"].as_str().unwrap_or_default()).unwrap_or(Value::Null))
        .collect();
    let call =
        |name: &str, args: Value| tool_call_completion(&[(&format!("c{}", results.len()), name, &args.to_string())]);
    let reply = match results.len() {
        0 => call("sql_schema", json!({})),
        1 => call("schema_history", json!({"action": "save", "message": "as found"})),
        2 => call(
            "schema_history",
            json!({"action": "save", "message": "orders", "ddl": "CREATE TABLE orders (id INTEGER PRIMARY KEY, total REAL NOT NULL)"}),
        ),
        3 => call(
            "schema_history",
            json!({"action": "diff", "from": results[1]["saved"]["id"], "to": results[2]["saved"]["id"]}),
        ),
        _ => text_completion(&format!(
            "diff: {}",
            body["messages"].as_array().unwrap().last().unwrap()["content"].as_str().unwrap()
        )),
    };
    Reply::json(200, &reply)
}

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
    let args = [
        "--config",
        "config.toml",
        "run",
        "--base-url",
        &url,
        "-m",
        "m",
        "--store",
        &store,
        "--agent",
        "db-design",
        "--db",
        "shop.db",
        "Design the order tables",
    ];
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

/// The seed's request protocol on the `db-design` agent: the context's `operation` chooses
/// the tools offered (a query reads only; a modification has the history and the migration;
/// a design has the checklist, not the migration), `currentSchema` reaches the model in a
/// block of its own, and `--output-format seed` answers in the seed's shape.
#[tokio::test(flavor = "multi_thread")]
async fn the_seeds_operation_chooses_the_tools_and_the_answer_comes_in_the_seeds_shape() {
    let dir = test_dir("agents-seed-protocol");
    std::fs::write(dir.join("shop.db"), "").unwrap();
    let server = MockServer::start(|req| {
        let body = req.json();
        let messages = body["messages"].as_array().unwrap();
        let user = messages.iter().rev().find(|m| m["role"] == "user").unwrap()["content"].as_str().unwrap_or_default();
        let last = messages.last().unwrap();
        let reply = if last["role"] == "tool" {
            text_completion(&format!("Done: {}", last["content"].as_str().unwrap_or_default()))
        } else if user.contains("Operation: query.") {
            tool_call_completion(&[("c0", "sql_schema", "{}")])
        } else if user.contains("Which database?") {
            text_completion(
                r#"{"text": "Details first.", "metadata": {"needsInterview": true, "questions": ["Which engine?"]}}"#,
            )
        } else if user.contains("Operation: schema_design.") {
            tool_call_completion(&[("c0", "checklist", r#"{"steps":[{"step":"Orders table","done":false}]}"#)])
        } else {
            text_completion("Proposed.")
        };
        Reply::json(200, &reply)
    })
    .await;
    let url = server.url();
    let args = [
        "run",
        "--base-url",
        &url,
        "-m",
        "m",
        "--agent",
        "db-design",
        "--db",
        "shop.db",
        "--input",
        "-",
        "--output-format",
        "seed",
    ];
    let ask = |operation: &str| {
        json!({"text": "Which tables are there?", "context": {"operation": operation, "user": "ana",
               "currentSchema": "CREATE TABLE orders (id INTEGER PRIMARY KEY);"}})
        .to_string()
    };
    let millis = || std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as u64;

    let before = millis();
    let out = run_with_stdin(&dir, &args, &ask("query")).await;
    let after = millis();
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(keys, ["metadata", "text", "toolCalls"], "{v}");
    assert!(v["text"].as_str().unwrap().starts_with("Done: "), "{v}");
    assert_eq!(v["toolCalls"], json!([{"toolName": "sql_schema", "callId": "c0", "args": {}}]));
    // tool_call_completion (30 in, 10 out) then text_completion (20 in, 5 out).
    assert_eq!((v["metadata"]["tokensUsed"].as_u64(), v["metadata"]["model"].as_str()), (Some(65), Some("m")), "{v}");
    let stamp = v["metadata"]["timestamp"].as_u64().unwrap();
    assert!((before..=after).contains(&stamp), "milliseconds since the epoch: {stamp} not in {before}..={after}");
    let first = server.requests()[0].json();
    let mut tools = offered(&first);
    tools.sort_unstable();
    assert_eq!(tools, ["ask_user", "calculator", "sql_query", "sql_schema"], "a query reads only");
    let user = first["messages"].as_array().unwrap().last().unwrap()["content"].as_str().unwrap().to_string();
    assert!(
        user.contains("\n<current_schema>\nCREATE TABLE orders (id INTEGER PRIMARY KEY);\n</current_schema>\n"),
        "{user}"
    );
    assert!(!user.contains("currentSchema") && user.contains("\"user\": \"ana\""), "{user}");

    let seen = server.requests().len();
    let out = run_with_stdin(&dir, &args, &ask("schema_modification")).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((v["text"].as_str(), v["toolCalls"].as_array().map(Vec::len)), (Some("Proposed."), Some(0)));
    let tools = offered(&server.requests()[seen].json());
    assert!(tools.iter().any(|t| t == "sql_migrate") && tools.iter().any(|t| t == "schema_history"), "{tools:?}");
    assert!(!tools.iter().any(|t| t == "checklist"), "{tools:?}");

    let seen = server.requests().len();
    let out = run_with_stdin(&dir, &args, &ask("schema_design")).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["toolCalls"][0]["toolName"], "checklist", "{v}");
    assert!(v["text"].as_str().unwrap().contains("Done: Checklist (0/1 done):\n☐ Orders table"), "{v}");
    let tools = offered(&server.requests()[seen].json());
    assert!(tools.iter().any(|t| t == "checklist") && tools.iter().any(|t| t == "schema_history"), "{tools:?}");
    assert!(!tools.iter().any(|t| t == "sql_migrate"), "a design is proposed, not applied: {tools:?}");

    // Questions first: the seed's interview shape, exit code 4.
    let out = run_with_stdin(&dir, &args, r#"{"text": "Which database?", "context": {"operation": "general"}}"#).await;
    assert_eq!(out.status.code(), Some(4), "stderr: {}", text(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["text"], "Details first.", "{v}");
    assert_eq!(
        (v["metadata"]["needsInterview"].as_bool(), &v["metadata"]["questions"]),
        (Some(true), &json!(["Which engine?"]))
    );

    let seen = server.requests().len();
    let bad = run_with_stdin(&dir, &args, r#"{"text": "x", "context": {"operation": "drop_all"}}"#).await;
    assert_eq!(bad.status.code(), Some(2), "stderr: {}", text(&bad.stderr));
    let e: Value = serde_json::from_slice(&bad.stdout).unwrap();
    assert_eq!(e["error"]["field"], "context.operation", "{e}");
    assert_eq!(server.requests().len(), seen, "no model call for a malformed request");
    std::fs::remove_dir_all(dir).ok();
}

async fn run_with_stdin(dir: &Path, args: &[&str], input: &str) -> std::process::Output {
    use std::io::Write;
    let mut cmd = common::lucid_command();
    cmd.args(args)
        .current_dir(dir)
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", dir)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let input = input.to_string();
    tokio::task::spawn_blocking(move || {
        let mut child = cmd.spawn().expect("run lucid");
        child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
        child.wait_with_output().unwrap()
    })
    .await
    .unwrap()
}

/// One target's conversation, scripted for any language: outline `target`, write the test
/// file `wrong`, run it, repair it to `right`, run it again, report.
fn one_target_script(
    target: &'static str,
    test_path: &'static str,
    wrong: &'static str,
    right: &'static str,
) -> impl Fn(&lucid_mock::RecordedRequest) -> Reply + Send + Sync + 'static {
    move |req| {
        let body = req.json();
        let results = body["messages"].as_array().unwrap().iter().filter(|m| m["role"] == "tool").count();
        let call = |name: &str, args: Value| tool_call_completion(&[(&format!("c{results}"), name, &args.to_string())]);
        let reply = match results {
            0 => call("code_outline", json!({"path": target})),
            1 => call("write_file", json!({"path": test_path, "content": wrong})),
            2 | 4 => call("run_tests", json!({"filter": test_path})),
            3 => call("write_file", json!({"path": test_path, "content": right})),
            _ => text_completion(&format!("{target}: 1 test written and passing")),
        };
        Reply::json(200, &reply)
    }
}

/// What the agent's tools answered, in the order of the requests that carried them.
fn tool_answers(server: &MockServer) -> Vec<Value> {
    server
        .requests()
        .iter()
        .filter_map(|r| {
            let last = r.json()["messages"].as_array()?.last()?.clone();
            (last["role"] == "tool").then(|| {
                serde_json::from_str(last["content"].as_str().unwrap_or_default()).unwrap_or(last["content"].clone())
            })
        })
        .collect()
}

/// Checks the report of a one-target run that took one repair to full coverage, and the
/// real runner's structured answers the model read.
fn check_one_repair(
    out: &std::process::Output,
    server: &MockServer,
    target: &str,
    symbol: &str,
    failure: (&str, &str),
) {
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let t = &report["targets"][0];
    assert_eq!(report["targets"].as_array().map(Vec::len), Some(1), "{report}");
    assert_eq!(t["target"], target, "{report}");
    assert_eq!(
        (t["repairs"].as_u64(), t["passing"].as_u64(), t["failing"].as_u64()),
        (Some(1), Some(1), Some(0)),
        "{report}"
    );
    let (before, after) = (t["coverage_before"].as_f64().unwrap(), t["coverage_after"].as_f64().unwrap());
    assert!(before < 90.0 && after == 100.0, "the coverage gained: {report}");
    // The last target took the project past the goal (`--coverage 90`): why the run stopped.
    assert_eq!(report["stopped"], "coverage goal reached (100.0% ≥ 90%)", "{report}");
    let (total_before, total_after) = (report["coverage_before"].as_f64().unwrap(), report["coverage_after"].as_f64());
    assert!(total_before < 90.0 && total_after == Some(100.0), "{report}");
    let answers = tool_answers(server);
    let names: Vec<&str> =
        answers[0]["symbols"].as_array().unwrap().iter().filter_map(|s| s["name"].as_str()).collect();
    assert!(names.contains(&symbol), "the outline from the real parser: {}", answers[0]);
    let first_run = &answers[2];
    assert_eq!((first_run["failed"].as_u64(), first_run["passed"].as_u64()), (Some(1), Some(0)), "{first_run}");
    let f = &first_run["failures"][0];
    assert!(f["test"].as_str().unwrap().contains(failure.0), "{first_run}");
    assert_eq!(f["location"], failure.1, "{first_run}");
    assert_eq!(
        (answers[4]["status"].as_str(), answers[4]["passed"].as_u64()),
        (Some("passed"), Some(1)),
        "{}",
        answers[4]
    );
}

/// The shipped `unit-tests` agent on a small Python project, the model scripted: the
/// targets come from coverage.py's report, `run_tests` answers from pytest's JUnit report,
/// the repair is counted, and the project's coverage goes past the goal.
#[cfg(all(feature = "code-outline", feature = "test-tools"))]
#[tokio::test(flavor = "multi_thread")]
async fn the_unit_tests_agent_on_a_python_project_with_pytest_and_coverage_py() {
    let Some(venv) =
        common::real_part("LUCID_TEST_PYTHON_TOOLS", ".ci/run installs pytest and coverage.py into a venv")
    else {
        return;
    };
    let dir = test_dir("agents-unit-tests-python");
    std::fs::create_dir_all(dir.join("tests")).unwrap();
    for (path, content) in [
        ("pyproject.toml", "[tool.pytest.ini_options]\npythonpath = [\".\"]\n"),
        ("calc.py", "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"),
        ("tests/__init__.py", ""),
        ("tests/test_add.py", "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n"),
    ] {
        std::fs::write(dir.join(path), content).unwrap();
    }
    const WRONG: &str = "from calc import sub\n\n\ndef test_sub():\n    assert sub(3, 1) == 3\n";
    const RIGHT: &str = "from calc import sub\n\n\ndef test_sub():\n    assert sub(3, 1) == 2\n";
    let server = MockServer::start(one_target_script("calc.py", "tests/test_sub.py", WRONG, RIGHT)).await;
    let url = server.url();
    let path = format!("{venv}/bin:{}", std::env::var("PATH").unwrap_or_default());
    let args = ["run", "--base-url", &url, "-m", "m", "--agent", "unit-tests", "--json", "--coverage", "90"];
    let out = run_in(&dir, &args, &[("PATH", &path)]).await;
    check_one_repair(&out, &server, "calc.py", "sub", ("test_sub", "tests/test_sub.py:5"));
    assert_eq!(std::fs::read_to_string(dir.join("tests/test_sub.py")).unwrap(), RIGHT);
    std::fs::remove_dir_all(dir).ok();
}

/// The shipped `unit-tests` agent on a small JavaScript project with Jest, the model
/// scripted: targets from Jest's lcov, results from Jest's JSON, one repair, the coverage
/// past the goal.
#[cfg(all(feature = "code-outline", feature = "test-tools"))]
#[tokio::test(flavor = "multi_thread")]
async fn the_unit_tests_agent_on_a_javascript_project_with_jest() {
    let Some(tools) = common::real_part("LUCID_TEST_JS_TOOLS", ".ci/run installs Jest from .ci/js/package-lock.json")
    else {
        return;
    };
    let dir = test_dir("agents-unit-tests-jest");
    for (path, content) in [
        (
            "package.json",
            r#"{"name": "sample", "private": true, "scripts": {"test": "jest"}, "devDependencies": {"jest": "29.7.0"}}"#,
        ),
        (
            "sum.js",
            "function sum(a, b) {\n  return a + b;\n}\n\nfunction sub(a, b) {\n  return a - b;\n}\n\nmodule.exports = { sum, sub };\n",
        ),
        (
            "sum.test.js",
            "const { sum } = require('./sum');\n\ntest('adds', () => {\n  expect(sum(1, 2)).toBe(3);\n});\n",
        ),
    ] {
        std::fs::write(dir.join(path), content).unwrap();
    }
    std::os::unix::fs::symlink(Path::new(&tools).join("node_modules"), dir.join("node_modules")).unwrap();
    const WRONG: &str =
        "const { sub } = require('./sum');\n\ntest('subtracts', () => {\n  expect(sub(3, 1)).toBe(3);\n});\n";
    const RIGHT: &str =
        "const { sub } = require('./sum');\n\ntest('subtracts', () => {\n  expect(sub(3, 1)).toBe(2);\n});\n";
    let server = MockServer::start(one_target_script("sum.js", "sub.test.js", WRONG, RIGHT)).await;
    let url = server.url();
    let args = ["run", "--base-url", &url, "-m", "m", "--agent", "unit-tests", "--json", "--coverage", "90"];
    let out = run_in(&dir, &args, &[]).await;
    check_one_repair(&out, &server, "sum.js", "sub", ("subtracts", "sub.test.js:4"));
    assert_eq!(std::fs::read_to_string(dir.join("sub.test.js")).unwrap(), RIGHT);
    std::fs::remove_dir_all(dir).ok();
}

/// Copies the folder `from` into `to`.
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

/// The shipped `unit-tests` agent on the Java sample project (Maven, JUnit 5, JaCoCo:
/// crates/lucid/tests/fixtures/maven, built offline from `LUCID_TEST_MAVEN_REPO`), the
/// model scripted: the target from JaCoCo's report, results from surefire's JUnit XML,
/// one repair, the coverage past the goal. Skipped with the reason printed when `mvn`,
/// `javac` or the repository is missing, even under CI.
#[cfg(all(feature = "code-outline", feature = "test-tools"))]
#[tokio::test(flavor = "multi_thread")]
async fn the_unit_tests_agent_on_a_java_project_with_maven_junit_and_jacoco() {
    for tool in ["mvn", "javac"] {
        if std::process::Command::new(tool).arg("-version").output().is_err() {
            eprintln!("skipped: {tool} is not on PATH (the Java tests run wherever a JDK and Maven are installed)");
            return;
        }
    }
    let Some(repo) = std::env::var("LUCID_TEST_MAVEN_REPO").ok().filter(|r| !r.is_empty()) else {
        eprintln!("skipped: LUCID_TEST_MAVEN_REPO is not set (.ci/maven-repo.sh makes it from Debian's packages)");
        return;
    };
    let dir = test_dir("agents-unit-tests-maven");
    copy_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../lucid/tests/fixtures/maven"), &dir);
    std::fs::create_dir_all(dir.join(".mvn")).unwrap();
    std::fs::copy(Path::new(&repo).join("maven.config"), dir.join(".mvn/maven.config")).unwrap();
    // The project's own test covers `add` only.
    let own = "package sample;\n\nimport static org.junit.jupiter.api.Assertions.assertEquals;\n\nimport org.junit.jupiter.api.Test;\n\nclass CalcTest {\n    @Test\n    void ok() {\n        assertEquals(3, new Calc().add(1, 2));\n    }\n}\n";
    std::fs::write(dir.join("src/test/java/sample/CalcTest.java"), own).unwrap();
    // Offline there is no jacoco-maven-plugin (`jacoco:report`): the sample's own `mvn
    // test` writes JaCoCo's report.
    std::fs::write(
        dir.join("config.toml"),
        "[tests]\ncoverage_command = \"mvn -q -B -Dmaven.test.failure.ignore=true test\"\ncoverage_report = \"target/site/jacoco/jacoco.xml\"\n",
    )
    .unwrap();
    const WRONG: &str = "package sample;\n\nimport static org.junit.jupiter.api.Assertions.assertEquals;\n\nimport org.junit.jupiter.api.Test;\n\nclass UnusedTest {\n    @Test\n    void doublesPlusOne() {\n        assertEquals(8, new Calc().unused(3));\n    }\n}\n";
    const RIGHT: &str = "package sample;\n\nimport static org.junit.jupiter.api.Assertions.assertEquals;\n\nimport org.junit.jupiter.api.Test;\n\nclass UnusedTest {\n    @Test\n    void doublesPlusOne() {\n        assertEquals(7, new Calc().unused(3));\n    }\n}\n";
    let target = "src/main/java/sample/Calc.java";
    let test_path = "src/test/java/sample/UnusedTest.java";
    let server = MockServer::start(one_target_script(target, test_path, WRONG, RIGHT)).await;
    let url = server.url();
    let args = [
        "--config",
        "config.toml",
        "run",
        "--base-url",
        &url,
        "-m",
        "m",
        "--agent",
        "unit-tests",
        "--json",
        "--coverage",
        "90",
    ];
    let out = run_in(&dir, &args, &[]).await;
    check_one_repair(&out, &server, target, "unused", ("doublesPlusOne", "UnusedTest.java:10"));
    assert_eq!(std::fs::read_to_string(dir.join(test_path)).unwrap(), RIGHT);
    std::fs::remove_dir_all(dir).ok();
}

/// The shipped `unit-tests` agent on a small Go module, the model scripted: the target
/// from `go test -coverprofile`, results from `go test -json` (the test file's tests
/// only), one repair, the coverage past the goal. Go from `LUCID_TEST_GO` (`.ci/go.sh`) or
/// `PATH`; skipped with the reason printed when there is none, even under CI.
#[cfg(all(feature = "code-outline", feature = "test-tools"))]
#[tokio::test(flavor = "multi_thread")]
async fn the_unit_tests_agent_on_a_go_module() {
    let path = match std::env::var("LUCID_TEST_GO").ok().filter(|g| !g.is_empty()) {
        Some(bin) => format!("{bin}:{}", std::env::var("PATH").unwrap_or_default()),
        None => std::env::var("PATH").unwrap_or_default(),
    };
    let found = std::process::Command::new("go").arg("version").env("PATH", &path).output();
    if !found.is_ok_and(|o| o.status.success()) {
        eprintln!("skipped: go is not on PATH and LUCID_TEST_GO is not set (.ci/go.sh unpacks Debian's golang-go)");
        return;
    }
    let dir = test_dir("agents-unit-tests-go");
    for (file, content) in [
        ("go.mod", "module sample\n\ngo 1.19\n"),
        (
            "calc.go",
            "package sample\n\nfunc Add(a, b int) int {\n\treturn a + b\n}\n\nfunc Sub(a, b int) int {\n\treturn a - b\n}\n",
        ),
        (
            "calc_test.go",
            "package sample\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"add\")\n\t}\n}\n",
        ),
    ] {
        std::fs::write(dir.join(file), content).unwrap();
    }
    const WRONG: &str = "package sample\n\nimport \"testing\"\n\nfunc TestSub(t *testing.T) {\n\tif got := Sub(3, 1); got != 3 {\n\t\tt.Fatalf(\"Sub(3, 1) = %d\", got)\n\t}\n}\n";
    const RIGHT: &str = "package sample\n\nimport \"testing\"\n\nfunc TestSub(t *testing.T) {\n\tif got := Sub(3, 1); got != 2 {\n\t\tt.Fatalf(\"Sub(3, 1) = %d\", got)\n\t}\n}\n";
    let server = MockServer::start(one_target_script("calc.go", "sub_test.go", WRONG, RIGHT)).await;
    let url = server.url();
    let args = ["run", "--base-url", &url, "-m", "m", "--agent", "unit-tests", "--json", "--coverage", "90"];
    let out = run_in(&dir, &args, &[("PATH", &path)]).await;
    check_one_repair(&out, &server, "calc.go", "Sub", ("TestSub", "sub_test.go:7"));
    assert_eq!(std::fs::read_to_string(dir.join("sub_test.go")).unwrap(), RIGHT);
    std::fs::remove_dir_all(dir).ok();
}
