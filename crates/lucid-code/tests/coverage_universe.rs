//! Honest coverage: the `coverage` tool, with the command it finds from the project's
//! files, measures every source file of the project, imported by a test or not, and none of
//! the test files; a project with no tests is 0% everywhere; the tools' data files stay out
//! of the project; a missing tool is one sentence naming what to install. Against the real
//! pytest and coverage.py (`LUCID_TEST_PYTHON_TOOLS`), Go (when `go` is on `PATH`) and
//! rustc's `-C instrument-coverage` with the LLVM tools of its version (`LUCID_TEST_LLVM_BIN`).

use std::path::PathBuf;

use lucid::Tool;
use lucid_code::Coverage;
use lucid_sandbox::Environment;
use serde_json::{Value, json};

/// A fresh folder holding `files`.
fn project(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lucid-coverage-universe-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (path, text) in files {
        let p = dir.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    dir
}

async fn call(tool: &dyn Tool, args: Value) -> Value {
    let out = tool.invoke(args, Default::default()).await.unwrap_or_else(|e| panic!("{}", e.message()));
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

/// Each listed file's path and percent, in the answer's order (least covered first).
fn listed(answer: &Value) -> Vec<(String, f64)> {
    answer["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["path"].as_str().unwrap().to_string(), f["percent"].as_f64().unwrap()))
        .collect()
}

const PYPROJECT: &str = "[tool.pytest.ini_options]\npythonpath = [\".\"]\n";
const CALC: &str = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n";
const STRS: &str = "def up(s):\n    return s.upper()\n\n\ndef low(s):\n    return s.lower()\n";
const SIGN: &str = "def sign(x):\n    if x < 0:\n        return -1\n    return 1\n";
const TEST_ADD: &str = "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n";

/// The venv's `bin` first on `PATH`, or `None` (the reason printed) without the venv.
fn python_env() -> Option<Environment> {
    let venv = lucid_mock::real_part("LUCID_TEST_PYTHON_TOOLS", ".ci/run installs pytest and coverage.py into a venv")?;
    let path = std::env::var("PATH").unwrap_or_default();
    Some(Environment::inherited().set("PATH", format!("{venv}/bin:{path}")))
}

/// Two modules, a test importing only one: the other is listed at 0% and counted in the
/// total, the test files (`tests/`, `conftest.py`) are not, and no `.coverage` data file
/// is left in the project.
#[tokio::test]
async fn python_a_module_no_test_imports_is_measured_at_zero_and_test_files_are_not() {
    let Some(env) = python_env() else { return };
    let dir = project(
        "python-two",
        &[
            ("pyproject.toml", PYPROJECT),
            ("calc.py", CALC),
            ("strs.py", STRS),
            ("conftest.py", "import sys\n"),
            ("tests/__init__.py", ""),
            ("tests/test_add.py", TEST_ADD),
        ],
    );
    let answer = call(&Coverage::new(&dir).environment(env), json!({"run": true})).await;
    assert_eq!(listed(&answer), [("strs.py".to_string(), 0.0), ("calc.py".to_string(), 75.0)], "{answer}");
    // 3 of calc's 4 lines and none of strs's 4: 37.5%, not the 100% of the file a test ran.
    assert_eq!(
        (answer["total"]["lines"].as_u64(), answer["total"]["covered"].as_u64(), answer["total"]["percent"].as_f64()),
        (Some(8), Some(3), Some(37.5)),
        "{answer}"
    );
    assert!(!dir.join(".coverage").exists(), "coverage.py's data file is in the project");
    // No `if` anywhere: no branch figure (not "100% of 0").
    assert!(answer["total"]["branches"].is_null() && answer["files"][0]["branches"].is_null(), "{answer}");
    let _ = std::fs::remove_dir_all(dir);
}

/// A project with no tests yet: every source file at 0% (coverage.py has "no data", the
/// report still lists them), including a package under `src/`; branches counted too.
#[tokio::test]
async fn python_a_project_with_no_tests_is_zero_percent_everywhere() {
    let Some(env) = python_env() else { return };
    let dir = project(
        "python-none",
        &[
            ("pyproject.toml", PYPROJECT),
            ("calc.py", CALC),
            ("sign.py", SIGN),
            ("src/text/__init__.py", ""),
            ("src/text/strs.py", STRS),
        ],
    );
    let answer = call(&Coverage::new(&dir).environment(env), json!({"run": true, "file": "calc.py"})).await;
    assert_eq!(
        listed(&answer),
        [
            ("calc.py".to_string(), 0.0),
            ("sign.py".to_string(), 0.0),
            ("src/text/strs.py".to_string(), 0.0),
            // No lines to run: never a target.
            ("src/text/__init__.py".to_string(), 100.0)
        ],
        "{answer}"
    );
    assert_eq!((answer["total"]["lines"].as_u64(), answer["total"]["percent"].as_f64()), (Some(12), Some(0.0)));
    // Branches where coverage.py measured them: sign's `if`, neither way taken.
    assert_eq!(answer["total"]["branches"], json!({"total": 2, "covered": 0, "percent": 0.0}), "{answer}");
    assert_eq!(answer["files"][1]["branches"], json!({"total": 2, "covered": 0, "percent": 0.0}), "{answer}");
    assert_eq!(answer["file"]["uncovered"], json!([[1, 6]]), "{answer}");
    assert!(!dir.join(".coverage").exists());
    let _ = std::fs::remove_dir_all(dir);
}

/// Without coverage.py, the error names what to install (not pytest's or Python's output).
#[tokio::test]
async fn python_without_coverage_py_names_what_to_install() {
    let bare = std::process::Command::new("python3").args(["-c", "import coverage"]).output();
    if !bare.is_ok_and(|o| !o.status.success()) {
        eprintln!("skipped: the system's python3 has coverage.py (or there is no python3)");
        return;
    }
    let dir = project("python-bare", &[("pyproject.toml", PYPROJECT), ("calc.py", CALC)]);
    let err = Coverage::new(&dir).invoke(json!({"run": true}), Default::default()).await.unwrap_err();
    assert_eq!(err.message(), "coverage.py is not installed: `pip install coverage`");
    let _ = std::fs::remove_dir_all(dir);
}

const CARGO_TOML: &str = "[package]\nname = \"sample\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n";
const ADD_RS: &str = "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n";

/// The environment of a Rust run: the toolchain's homes, and `extra`.
fn rust_env(extra: &[(&str, String)]) -> Environment {
    let home = std::env::var("HOME").unwrap_or_default();
    let mut env = Environment::inherited();
    for (var, dir) in [("RUSTUP_HOME", ".rustup"), ("CARGO_HOME", ".cargo")] {
        env = env.set(var, std::env::var(var).unwrap_or(format!("{home}/{dir}")));
    }
    for (var, value) in extra {
        env = env.set(*var, value.clone());
    }
    env
}

fn cargo_llvm_cov_installed() -> bool {
    std::process::Command::new("cargo").args(["llvm-cov", "--version"]).output().is_ok_and(|o| o.status.success())
}

/// Rust without cargo-llvm-cov: rustc's `-C instrument-coverage` and the LLVM tools of its
/// version (`LLVM_COV`, `LLVM_PROFDATA`); the module no test calls is listed at 0%, the
/// integration test file is not listed.
#[tokio::test]
async fn rust_is_measured_with_rustcs_instrumentation_without_cargo_llvm_cov() {
    let Some(bin) = lucid_mock::real_part("LUCID_TEST_LLVM_BIN", ".ci/run sets it to the llvm-cov of rustc's LLVM")
    else {
        return;
    };
    if cargo_llvm_cov_installed() {
        eprintln!("skipped: cargo-llvm-cov is installed (the instrumented build is its fallback)");
        return;
    }
    let dir = project(
        "rust",
        &[
            ("Cargo.toml", CARGO_TOML),
            ("src/lib.rs", "pub mod calc;\npub mod strs;\n"),
            ("src/calc.rs", ADD_RS),
            ("src/strs.rs", "pub fn twice(s: &str) -> String {\n    s.repeat(2)\n}\n"),
            ("tests/calc.rs", "#[test]\nfn adds() {\n    assert_eq!(sample::calc::add(1, 2), 3);\n}\n"),
        ],
    );
    let env = rust_env(&[("LLVM_COV", format!("{bin}/llvm-cov")), ("LLVM_PROFDATA", format!("{bin}/llvm-profdata"))]);
    let coverage = Coverage::new(&dir).environment(env).timeout(std::time::Duration::from_secs(600));
    let answer = call(&coverage, json!({"run": true})).await;
    assert_eq!(answer["format"], "lcov", "{answer}");
    assert_eq!(listed(&answer), [("src/strs.rs".to_string(), 0.0), ("src/calc.rs".to_string(), 100.0)], "{answer}");
    let _ = std::fs::remove_dir_all(dir);
}

/// Rust with neither cargo-llvm-cov nor the LLVM tools: one sentence naming what to install.
#[tokio::test]
async fn rust_without_cargo_llvm_cov_or_llvm_tools_names_what_to_install() {
    if cargo_llvm_cov_installed() {
        eprintln!("skipped: cargo-llvm-cov is installed");
        return;
    }
    let dir = project("rust-bare", &[("Cargo.toml", CARGO_TOML), ("src/lib.rs", ADD_RS)]);
    let nowhere = dir.join("no-such-tool").display().to_string();
    let env = rust_env(&[("LLVM_COV", nowhere.clone()), ("LLVM_PROFDATA", nowhere)]);
    let err = Coverage::new(&dir).environment(env).invoke(json!({"run": true}), Default::default()).await.unwrap_err();
    let said = err.message();
    assert!(said.starts_with("cargo-llvm-cov is not installed"), "{said}");
    assert!(
        said.contains("`cargo install cargo-llvm-cov`") && said.contains("rustup component add llvm-tools"),
        "{said}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// Jest with `collectCoverageFrom`: a module no test requires is listed at 0%, the test
/// file and Jest's configuration file are not.
#[tokio::test]
async fn javascript_a_module_no_test_requires_is_measured_at_zero() {
    let Some(tools) =
        lucid_mock::real_part("LUCID_TEST_JS_TOOLS", ".ci/run installs Jest from .ci/js/package-lock.json")
    else {
        return;
    };
    let dir = project(
        "jest",
        &[
            (
                "package.json",
                r#"{"name": "sample", "private": true, "scripts": {"test": "jest"}, "devDependencies": {"jest": "29.7.0"}}"#,
            ),
            ("jest.config.js", "module.exports = {};\n"),
            ("sum.js", "function sum(a, b) {\n  return a + b;\n}\n\nmodule.exports = { sum };\n"),
            ("lib/twice.js", "function twice(s) {\n  return s + s;\n}\n\nmodule.exports = { twice };\n"),
            (
                "sum.test.js",
                "const { sum } = require('./sum');\n\ntest('adds', () => {\n  expect(sum(1, 2)).toBe(3);\n});\n",
            ),
        ],
    );
    std::os::unix::fs::symlink(std::path::Path::new(&tools).join("node_modules"), dir.join("node_modules")).unwrap();
    let answer = call(&Coverage::new(&dir), json!({"run": true})).await;
    assert_eq!(listed(&answer), [("lib/twice.js".to_string(), 0.0), ("sum.js".to_string(), 100.0)], "{answer}");
    let _ = std::fs::remove_dir_all(dir);
}

/// Go with `-coverpkg=./...`: a package no test imports is listed at 0%.
#[tokio::test]
async fn go_a_package_no_test_imports_is_measured_at_zero() {
    let Some(path) = lucid_mock::go_path() else { return };
    let dir = project(
        "go",
        &[
            ("go.mod", "module sample\n\ngo 1.21\n"),
            ("calc/calc.go", "package calc\n\nfunc Add(a, b int) int {\n\treturn a + b\n}\n"),
            (
                "calc/calc_test.go",
                "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"no\")\n\t}\n}\n",
            ),
            ("strs/strs.go", "package strs\n\nfunc Twice(s string) string {\n\treturn s + s\n}\n"),
        ],
    );
    let env = Environment::inherited().set("PATH", path);
    let answer = call(&Coverage::new(&dir).environment(env).network(true), json!({"run": true})).await;
    let files = listed(&answer);
    assert!(files.contains(&("strs/strs.go".to_string(), 0.0)), "{answer}");
    assert!(files.contains(&("calc/calc.go".to_string(), 100.0)), "{answer}");
    assert!(files.iter().all(|(p, _)| !p.ends_with("_test.go")), "{answer}");
    let _ = std::fs::remove_dir_all(dir);
}
