//! Agents by name: `lucid agents list | show | init`, and `lucid run --agent NAME` taking
//! its prompt, tools and permissions from the configuration, the user's agent file or the
//! agents shipped in the binary, against a local scripted server.

mod by_name;
#[path = "../common/mod.rs"]
mod common;
mod db_design;
mod project_code;
mod unit_tests_honest;
mod unit_tests_languages;
mod unit_tests_rust;

use std::path::Path;

use common::{mock_run, run_in, run_with_stdin, test_dir, text};
use lucid_mock::{MockServer, Reply, text_completion, tool_call_completion};
use serde_json::{Value, json};

/// The names of the tools a request offered.
fn offered(body: &Value) -> Vec<String> {
    body["tools"].as_array().map_or_else(Vec::new, |tools| {
        tools.iter().map(|t| t["function"]["name"].as_str().unwrap_or_default().to_string()).collect()
    })
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
