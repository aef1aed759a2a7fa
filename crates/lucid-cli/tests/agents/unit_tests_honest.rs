//! The unit-tests agent's honest coverage and exit codes, on Python projects with the real
//! pytest and coverage.py: the goal is judged on every source file (a module no test
//! imports included, test files not), the targets come from those figures, and the exit
//! code says whether the goal was reached (0), a limit stopped the run (3) or it failed (1).

use super::*;

const PYPROJECT: &str = "[tool.pytest.ini_options]\npythonpath = [\".\"]\n";
const CALC: &str = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n";
const STRS: &str = "def up(s):\n    return s.upper()\n\n\ndef low(s):\n    return s.lower()\n";
const SIGN: &str = "def sign(x):\n    if x < 0:\n        return -1\n    return 1\n";
const TEST_ADD: &str = "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n";

/// A Python project: `calc.py` and `strs.py`, with `tests/test_add.py` when `tested`, else
/// with `sign.py` (a branch).
fn python_project(name: &str, tested: bool) -> std::path::PathBuf {
    let dir = test_dir(name);
    std::fs::create_dir_all(dir.join("tests")).unwrap();
    let mut files = vec![("pyproject.toml", PYPROJECT), ("calc.py", CALC), ("strs.py", STRS)];
    if tested {
        files.extend([("tests/__init__.py", ""), ("tests/test_add.py", TEST_ADD)]);
    } else {
        files.push(("sign.py", SIGN));
    }
    for (path, content) in files {
        std::fs::write(dir.join(path), content).unwrap();
    }
    dir
}

/// The test file the scripted model writes for a target: all of it covered, or (`failing`)
/// one test that fails.
fn python_test(target: &str, failing: bool) -> (String, String) {
    let m = target.trim_end_matches(".py");
    let body = match (m, failing) {
        (_, true) => format!("import {m}\n\n\ndef test_wrong():\n    assert {m} is None\n"),
        ("calc", _) => "from calc import add, sub\n\n\ndef test_both():\n    assert add(1, 2) == 3\n    assert sub(3, 1) == 2\n".into(),
        _ => "from strs import low, up\n\n\ndef test_both():\n    assert up(\"a\") == \"A\"\n    assert low(\"A\") == \"a\"\n".into(),
    };
    (format!("tests/test_{m}_more.py"), body)
}

/// One target's conversation: write the target's test file, run it, report.
fn python_script(failing: bool) -> impl Fn(&lucid_mock::RecordedRequest) -> Reply + Send + Sync + 'static {
    move |req| {
        let body = req.json();
        let messages = body["messages"].as_array().unwrap();
        let prompt = messages.iter().find(|m| m["role"] == "user").unwrap()["content"].as_str().unwrap_or_default();
        let target = prompt.split_whitespace().skip_while(|w| *w != "Target:").nth(1).unwrap_or("?").to_string();
        let results = messages.iter().filter(|m| m["role"] == "tool").count();
        let (path, content) = python_test(&target, failing);
        let call = |name: &str, args: Value| tool_call_completion(&[(&format!("c{results}"), name, &args.to_string())]);
        let reply = match results {
            0 => call("write_file", json!({"path": path, "content": content})),
            1 => call("run_tests", json!({"filter": path})),
            _ => text_completion(&format!("{target}: tests written")),
        };
        Reply::json(200, &reply)
    }
}

/// Runs the agent in `dir` with the venv on `PATH`; the exit code and the JSON report.
async fn run_agent(dir: &Path, venv: &str, url: &str, extra: &[&str]) -> (Option<i32>, Value, String) {
    let path = format!("{venv}/bin:{}", std::env::var("PATH").unwrap_or_default());
    let mut args = vec!["run", "--base-url", url, "-m", "m", "--agent", "unit-tests", "--trust", "--json"];
    args.extend_from_slice(extra);
    let out = run_in(dir, &args, &[("PATH", &path)]).await;
    let stderr = text(&out.stderr);
    let report = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}; stderr: {stderr}"));
    (out.status.code(), report, stderr)
}

fn worked_on(report: &Value) -> Vec<&str> {
    report["targets"].as_array().unwrap().iter().map(|t| t["target"].as_str().unwrap()).collect()
}

/// Two modules, a test importing only one: the run starts at 37.5% (not the 100% of the
/// file the test imports, nor counting the test), the module no test imports is the first
/// target (least covered), then the other; the goal reached after both, exit 0.
#[cfg(all(feature = "code-outline", feature = "test-tools"))]
#[tokio::test(flavor = "multi_thread")]
async fn a_module_no_test_imports_is_the_first_target_and_the_goal_is_not_reached_falsely() {
    let Some(venv) =
        common::real_part("LUCID_TEST_PYTHON_TOOLS", ".ci/run installs pytest and coverage.py into a venv")
    else {
        return;
    };
    let dir = python_project("agents-honest-two-modules", true);
    let server = MockServer::start(python_script(false)).await;
    let (code, report, stderr) = run_agent(&dir, &venv, &server.url(), &["--coverage", "90"]).await;
    assert_eq!(code, Some(0), "{report}\nstderr: {stderr}");
    assert_eq!(report["coverage_before"].as_f64(), Some(37.5), "{report}");
    assert_eq!(worked_on(&report), ["strs.py", "calc.py"], "{report}");
    let t = &report["targets"][0];
    assert_eq!((t["coverage_before"].as_f64(), t["coverage_after"].as_f64()), (Some(0.0), Some(100.0)), "{report}");
    assert_eq!(report["stopped"], "coverage goal reached (100.0% ≥ 90%)", "{report}");
    assert_eq!(report["outcome"], "reached", "{report}");
    assert!(!dir.join(".coverage").exists(), "coverage.py's data file is in the project");
    std::fs::remove_dir_all(dir).ok();
}

/// `--max-targets 1` on the same project: the run stops after the first target below the
/// goal (87.5% < 90%), exit 3.
#[cfg(all(feature = "code-outline", feature = "test-tools"))]
#[tokio::test(flavor = "multi_thread")]
async fn a_run_stopped_by_max_targets_before_its_goal_exits_3() {
    let Some(venv) =
        common::real_part("LUCID_TEST_PYTHON_TOOLS", ".ci/run installs pytest and coverage.py into a venv")
    else {
        return;
    };
    let dir = python_project("agents-honest-max-targets", true);
    let server = MockServer::start(python_script(false)).await;
    let (code, report, stderr) =
        run_agent(&dir, &venv, &server.url(), &["--coverage", "90", "--max-targets", "1"]).await;
    assert_eq!(code, Some(3), "{report}\nstderr: {stderr}");
    assert_eq!(worked_on(&report), ["strs.py"], "{report}");
    assert_eq!(report["coverage_after"].as_f64(), Some(87.5), "{report}");
    assert_eq!(
        (report["stopped"].as_str(), report["outcome"].as_str()),
        (Some("--max-targets reached"), Some("stopped"))
    );
    std::fs::remove_dir_all(dir).ok();
}

/// A project with no tests yet: 0% on every file (not "not measured"), both files targets;
/// the model leaves a failing test in each: exit 1, the failures counted; branches measured.
#[cfg(all(feature = "code-outline", feature = "test-tools"))]
#[tokio::test(flavor = "multi_thread")]
async fn a_project_with_no_tests_starts_at_zero_and_failing_tests_exit_1() {
    let Some(venv) =
        common::real_part("LUCID_TEST_PYTHON_TOOLS", ".ci/run installs pytest and coverage.py into a venv")
    else {
        return;
    };
    let dir = python_project("agents-honest-no-tests", false);
    let server = MockServer::start(python_script(true)).await;
    let (code, report, stderr) = run_agent(&dir, &venv, &server.url(), &["--coverage", "90"]).await;
    assert_eq!(code, Some(1), "{report}\nstderr: {stderr}");
    assert_eq!(report["coverage_before"].as_f64(), Some(0.0), "{report}");
    assert_eq!(worked_on(&report), ["calc.py", "sign.py", "strs.py"], "{report}");
    for t in report["targets"].as_array().unwrap() {
        assert_eq!(t["coverage_before"].as_f64(), Some(0.0), "{t}");
        assert_eq!(t["failing"].as_u64(), Some(1), "{t}");
    }
    assert_eq!((report["outcome"].as_str(), report["failing"].as_u64()), (Some("failed"), Some(3)), "{report}");
    // Branches too: sign's `if`, neither way taken, before and after (its test only imports it).
    assert_eq!(report["branch_coverage_before"].as_f64(), Some(0.0), "{report}");
    let sign = &report["targets"][1];
    assert_eq!(
        (sign["branch_coverage_before"].as_f64(), sign["branch_coverage_after"].as_f64()),
        (Some(0.0), Some(0.0))
    );
    assert!(report["coverage_error"].is_null(), "{report}");
    // The first target's prompt says its coverage now, measured (0.0%), not unknown.
    let first = server.requests()[0].json();
    let prompt = first["messages"][1]["content"].as_str().unwrap();
    assert!(prompt.contains("Target: calc.py\nIts line coverage now: 0.0%"), "{prompt}");
    std::fs::remove_dir_all(dir).ok();
}
