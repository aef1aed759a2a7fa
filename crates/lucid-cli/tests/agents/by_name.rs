//! Agents by name: list, show, init, `--agent`, and the seeds' request shape.

use super::*;

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
    let args = mock_run(&url, &["--agent", "db-design", "--db", "shop.db", "--input", "-", "--output-format", "seed"]);
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
    assert_eq!(keys, ["metadata", "requiresToolCalls", "text", "toolCalls"], "{v}");
    assert_eq!(v["requiresToolCalls"], true, "{v}");
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
    assert_eq!(v["requiresToolCalls"], false, "{v}");
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

    // The seed's names of the tools are taken for Lucid's.
    let seen = server.requests().len();
    let named =
        r#"{"text": "Show the history.", "context": {"operation": "general"}, "requiredTools": ["schema", "history"]}"#;
    let out = run_with_stdin(&dir, &args, named).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let mut tools = offered(&server.requests()[seen].json());
    tools.sort_unstable();
    assert_eq!(tools, ["schema_history", "sql_schema"]);

    let seen = server.requests().len();
    let bad = run_with_stdin(&dir, &args, r#"{"text": "x", "context": {"operation": "drop_all"}}"#).await;
    assert_eq!(bad.status.code(), Some(2), "stderr: {}", text(&bad.stderr));
    let e: Value = serde_json::from_slice(&bad.stdout).unwrap();
    assert_eq!(e["error"]["field"], "context.operation", "{e}");
    assert_eq!(server.requests().len(), seen, "no model call for a malformed request");
    std::fs::remove_dir_all(dir).ok();
}
