//! Agents by name: `lucid agents list | show | init`, and `lucid run --agent NAME` taking
//! its prompt, tools and permissions from the configuration, the user's agent file or the
//! agents shipped in the binary, against a local scripted server.

mod common;

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

/// The shipped `unit-tests` agent on a small Rust project, the model scripted: it outlines
/// the target, writes a failing test file without asking, runs it with the real `cargo
/// test`, repairs it from the failure `run_tests` reports, and runs it again.
#[cfg(all(feature = "code-outline", feature = "test-tools"))]
#[tokio::test(flavor = "multi_thread")]
async fn the_unit_tests_agent_writes_runs_and_repairs_tests_of_a_rust_project() {
    let dir = test_dir("agents-unit-tests");
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(dir.join("Cargo.toml"), "[package]\nname = \"sample\"\nversion = \"0.1.0\"\nedition = \"2021\"\n")
        .unwrap();
    std::fs::write(dir.join("src/lib.rs"), "/// Adds.\npub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n").unwrap();
    let test_file = |sum: i32| format!("#[test]\nfn adds() {{\n    assert_eq!(sample::add(2, 2), {sum});\n}}\n");
    let (bad, good) = (test_file(5), test_file(4));
    let server = MockServer::start(move |req| {
        let body = req.json();
        let results = body["messages"].as_array().unwrap().iter().filter(|m| m["role"] == "tool").count();
        let call = |name: &str, args: Value| tool_call_completion(&[(&format!("c{results}"), name, &args.to_string())]);
        let reply = match results {
            0 => call("code_outline", json!({"path": "src/lib.rs"})),
            1 => call("write_file", json!({"path": "tests/add.rs", "content": bad})),
            2 | 4 => call("run_tests", json!({})),
            3 => call("write_file", json!({"path": "tests/add.rs", "content": good})),
            _ => text_completion("src/lib.rs: 1 test written, 1 passing, 1 repair"),
        };
        Reply::json(200, &reply)
    })
    .await;
    let vars: Vec<(String, String)> = ["RUSTUP_HOME", "CARGO_HOME"]
        .iter()
        .map(|v| {
            let home = std::env::var("HOME").unwrap_or_default();
            let default = if *v == "RUSTUP_HOME" { format!("{home}/.rustup") } else { format!("{home}/.cargo") };
            (v.to_string(), std::env::var(v).unwrap_or(default))
        })
        .collect();
    std::fs::write(dir.join("config.toml"), "tool_env = [\"RUSTUP_HOME\", \"CARGO_HOME\"]\n").unwrap();
    let vars: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let url = server.url();
    let args = ["--config", "config.toml", "run", "--base-url", &url, "-m", "m", "--agent", "unit-tests", "src/lib.rs"];
    let out = run_in(&dir, &args, &vars).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    assert!(text(&out.stdout).contains("1 repair"));
    assert_eq!(std::fs::read_to_string(dir.join("tests/add.rs")).unwrap(), test_file(4));

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
    assert_eq!(outline["symbols"][0]["name"], "add", "{outline}");
    let first_run = tool_answer(3);
    assert_eq!(
        (first_run["failed"].as_u64(), first_run["failures"][0]["test"].as_str()),
        (Some(1), Some("adds")),
        "{first_run}"
    );
    let second_run = tool_answer(5);
    assert_eq!(
        (second_run["status"].as_str(), second_run["passed"].as_u64()),
        (Some("passed"), Some(1)),
        "{second_run}"
    );
    std::fs::remove_dir_all(dir).ok();
}
