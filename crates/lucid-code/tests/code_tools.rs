//! `run_tests` and `coverage` against real test runners and coverage tools, on small
//! sample projects: Rust (cargo, and llvm-cov with `LUCID_TEST_LLVM_BIN`), Python (pytest
//! and coverage.py in `LUCID_TEST_PYTHON_TOOLS`), JavaScript (Jest from
//! `LUCID_TEST_JS_TOOLS`), Go (when `go` is on `PATH`), Java (Maven with JUnit 5 and
//! JaCoCo, `tests/fixtures/maven`, built offline from the Maven repository of Debian's
//! packages that `.ci/maven-repo.sh` makes, `LUCID_TEST_MAVEN_REPO`). Java and Go skip
//! with a printed reason when their toolchain is missing, even under CI. Each answer is
//! checked against what the project's tests do, and the coverage formats against each other.

use std::path::{Path, PathBuf};

use lucid::Tool;
use lucid_code::{Coverage, ReportFormat, RunTests};
use lucid_sandbox::Environment;
use serde_json::{Value, json};

/// A fresh folder holding `files`.
fn project(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lucid-code-tools-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
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

/// The environment with `bin` first on `PATH`.
fn with_path(bin: &Path) -> Environment {
    let path = std::env::var("PATH").unwrap_or_default();
    Environment::inherited().set("PATH", format!("{}:{path}", bin.display()))
}

/// Every line of `ranges` ([[a, b], …]) that is in `instrumented`.
fn lines_in(ranges: &Value, instrumented: &[u64]) -> Vec<u64> {
    let mut out = Vec::new();
    for r in ranges.as_array().unwrap() {
        let (a, b) = (r[0].as_u64().unwrap(), r[1].as_u64().unwrap());
        out.extend((a..=b).filter(|l| instrumented.contains(l)));
    }
    out
}

const RUST_LIB: &str = "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n\npub fn unused(x: i32) -> i32 {\n    let y = x * 2;\n    y + 1\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn ok() {\n        assert_eq!(super::add(1, 2), 3);\n    }\n\n    #[test]\n    fn bad() {\n        println!(\"checking\");\n        assert_eq!(super::add(1, 2), 4, \"math\");\n    }\n\n    #[test]\n    #[ignore]\n    fn later() {}\n}\n";

fn rust_project(name: &str) -> PathBuf {
    project(
        name,
        &[
            ("Cargo.toml", "[package]\nname = \"sample\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n"),
            ("src/lib.rs", RUST_LIB),
            ("tests/api.rs", "#[test]\nfn adds() {\n    assert_eq!(sample::add(2, 2), 4);\n}\n"),
        ],
    )
}

#[tokio::test]
async fn rust_results_come_from_libtest_json_with_failures_located_and_compile_errors_reported() {
    let dir = rust_project("rust");
    let tests = RunTests::new(&dir);
    let v = call(&tests, json!({})).await;
    assert_eq!(v["runner"], "cargo", "{v}");
    assert_eq!(v["status"], "failed", "{v}");
    assert_eq!((v["passed"].as_u64(), v["failed"].as_u64(), v["skipped"].as_u64()), (Some(2), Some(1), Some(1)), "{v}");
    let failure = &v["failures"][0];
    assert_eq!(failure["test"], "tests::bad");
    assert!(failure["location"].as_str().unwrap().starts_with("src/lib.rs:20:"), "{failure}");
    let message = failure["message"].as_str().unwrap();
    assert!(message.contains("math") && message.contains("left: 3") && message.contains("checking"), "{message}");
    assert!(!message.contains("stack backtrace"), "{message}");
    assert!(v["note"].as_str().unwrap().contains("doc tests are not run"), "{v}");

    // One target's tests: the integration test file alone.
    let v = call(&tests, json!({"filter": "tests/api.rs"})).await;
    assert_eq!(
        (v["status"].as_str(), v["passed"].as_u64(), v["failed"].as_u64()),
        (Some("passed"), Some(1), Some(0)),
        "{v}"
    );

    // A compile error is said with its place, not as zero tests.
    std::fs::write(dir.join("src/lib.rs"), RUST_LIB.replace("a + b\n", "a + \"b\"\n")).unwrap();
    let v = call(&tests, json!({})).await;
    assert_eq!(v["status"], "failed", "{v}");
    assert_eq!(v["build_errors"][0]["location"], "src/lib.rs:2", "{v}");
    assert!(v["build_errors"][0]["message"].as_str().unwrap().contains("error[E0277]"), "{v}");
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn a_project_without_a_runner_and_a_run_past_its_timeout_are_errors_that_say_so() {
    let dir = project("none", &[("README", "nothing to test\n")]);
    let e = RunTests::new(&dir).invoke(json!({}), Default::default()).await.unwrap_err();
    assert!(e.message().contains("no test runner found"), "{}", e.message());
    let slow = RunTests::new(&dir)
        .command("sleep 30", ReportFormat::JunitXml("report.xml".into()))
        .timeout(std::time::Duration::from_millis(300));
    let e = slow.invoke(json!({}), Default::default()).await.unwrap_err();
    assert!(e.message().contains("did not finish within 0.3 s"), "{}", e.message());

    // A configured command: its filter and scratch folder filled in, its report read.
    let junit = r#"<testsuite><testcase classname="k" name="{}"><failure message="m"/></testcase><testcase classname="k" name="b"><skipped/></testcase></testsuite>"#;
    let configured = RunTests::new(&dir).command(
        format!("printf '%s' '{}' > {{scratch}}/r.xml", junit.replace("{}", "'{filter}'")),
        ReportFormat::JunitXml("{scratch}/r.xml".into()),
    );
    let v = call(&configured, json!({"filter": "only_this"})).await;
    assert_eq!(
        (v["runner"].as_str(), v["failed"].as_u64(), v["skipped"].as_u64()),
        (Some("configured"), Some(1), Some(1)),
        "{v}"
    );
    assert_eq!((v["status"].as_str(), v["failures"][0]["test"].as_str()), (Some("failed"), Some("k.only_this")), "{v}");
    // A report left from an earlier run is not this run's.
    let stale = RunTests::new(&dir).command("true", ReportFormat::JunitXml("README".into()));
    let v = call(&stale, json!({})).await;
    assert_eq!(v["status"], "error", "{v}");
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn rust_coverage_from_llvm_cov_json_and_lcov_agree() {
    let Some(bin) = lucid_mock::real_part("LUCID_TEST_LLVM_BIN", ".ci/run sets it to the llvm-cov of rustc's LLVM")
    else {
        return;
    };
    let dir = rust_project("rustcov");
    // The sample's own tests, instrumented; both exports of one profile.
    let command = format!(
        "export RUSTFLAGS='-C instrument-coverage' LLVM_PROFILE_FILE={{scratch}}/p-%p-%m.profraw; \
         cargo test --tests -q > /dev/null 2>&1; \
         {bin}/llvm-profdata merge -sparse {{scratch}}/*.profraw -o {{scratch}}/all.profdata && \
         exe=$(find target/debug/deps -maxdepth 1 -type f -perm -u+x -name 'sample-*' | head -n 1) && \
         {bin}/llvm-cov export --format=lcov --instr-profile={{scratch}}/all.profdata $exe --sources src > lcov.info && \
         {bin}/llvm-cov export --format=text --instr-profile={{scratch}}/all.profdata $exe --sources src > {{scratch}}/cov.json"
    );
    let coverage = Coverage::new(&dir).command(command, "{scratch}/cov.json");
    let json_answer = call(&coverage, json!({"run": true, "file": "src/lib.rs"})).await;
    assert_eq!(json_answer["format"], "llvm-cov json", "{json_answer}");
    let lcov_answer = call(&coverage, json!({"report": "lcov.info", "file": "src/lib.rs"})).await;
    assert_eq!(lcov_answer["format"], "lcov");
    assert_eq!(json_answer["total"], lcov_answer["total"], "{json_answer} {lcov_answer}");
    assert_eq!(json_answer["file"], lcov_answer["file"]);
    // `unused` (lines 5-8) never ran; `add` did.
    let uncovered = &json_answer["file"]["uncovered"];
    assert_eq!(lines_in(uncovered, &[2, 5, 6, 7, 8]), [5, 6, 7, 8], "{json_answer}");
    assert_eq!(json_answer["files"][0]["path"], "src/lib.rs");
    let _ = std::fs::remove_dir_all(dir);
}

const PY_CALC: &str = "def add(a, b):\n    return a + b\n\n\ndef unused(x):\n    y = x * 2\n    return y + 1\n";
const PY_TESTS: &str = "import pytest\n\nfrom calc import add\n\n\ndef test_ok():\n    assert add(1, 2) == 3\n\n\ndef test_bad():\n    total = add(1, 2)\n    assert total == 4, \"math\"\n\n\n@pytest.mark.skip(reason=\"later\")\ndef test_later():\n    pass\n";

#[tokio::test]
async fn python_results_from_pytest_junit_and_coverage_from_coverage_py() {
    let Some(venv) =
        lucid_mock::real_part("LUCID_TEST_PYTHON_TOOLS", ".ci/run installs pytest and coverage.py into a venv")
    else {
        return;
    };
    let dir = project(
        "python",
        &[
            ("pyproject.toml", "[tool.pytest.ini_options]\npythonpath = [\".\"]\n"),
            ("calc.py", PY_CALC),
            ("tests/__init__.py", ""),
            ("tests/test_calc.py", PY_TESTS),
        ],
    );
    let env = with_path(&Path::new(&venv).join("bin"));
    let tests = RunTests::new(&dir).environment(env.clone());
    let v = call(&tests, json!({})).await;
    assert_eq!(v["runner"], "pytest", "{v}");
    assert_eq!((v["passed"].as_u64(), v["failed"].as_u64(), v["skipped"].as_u64()), (Some(1), Some(1), Some(1)), "{v}");
    assert_eq!(v["failures"][0]["test"], "tests.test_calc.test_bad");
    assert_eq!(v["failures"][0]["location"], "tests/test_calc.py:12", "{v}");
    assert!(v["failures"][0]["message"].as_str().unwrap().contains("math"), "{v}");
    let v = call(&tests, json!({"filter": "tests/test_calc.py::test_ok"})).await;
    assert_eq!(
        (v["status"].as_str(), v["passed"].as_u64(), v["failed"].as_u64()),
        (Some("passed"), Some(1), Some(0)),
        "{v}"
    );
    let v = call(&tests, json!({"filter": "later"})).await;
    assert_eq!((v["passed"].as_u64(), v["skipped"].as_u64()), (Some(0), Some(1)), "{v}");

    // Measured by coverage.py (JSON), then read from its Cobertura XML of the same data.
    let coverage = Coverage::new(&dir).environment(env.clone());
    let measured = call(&coverage, json!({"file": "calc.py"})).await;
    assert_eq!(measured["format"], "coverage.py json", "{measured}");
    assert_eq!(measured["file"]["uncovered"], json!([[6, 7]]), "{measured}");
    assert_eq!((measured["file"]["lines"].as_u64(), measured["file"]["covered"].as_u64()), (Some(5), Some(3)));
    let xml = "python3 -m coverage run -m pytest -q; python3 -m coverage xml -q -o coverage.xml";
    let from_xml = call(
        &Coverage::new(&dir).environment(env).command(xml, "coverage.xml"),
        json!({"run": true, "file": "calc.py"}),
    )
    .await;
    assert_eq!(from_xml["format"], "cobertura");
    assert_eq!(from_xml["file"]["uncovered"], measured["file"]["uncovered"]);
    // The report now there is read without running anything.
    let again = call(&Coverage::new(&dir), json!({})).await;
    assert_eq!(again["report"], "coverage.xml");
    assert!(again["command"].is_null() && again["note"].as_str().unwrap().contains("already there"), "{again}");
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn javascript_results_from_jest_json_and_coverage_from_its_lcov() {
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
            (
                "sum.js",
                "function sum(a, b) {\n  return a + b;\n}\n\nfunction unused(x) {\n  const y = x * 2;\n  return y + 1;\n}\n\nmodule.exports = { sum, unused };\n",
            ),
            (
                "sum.test.js",
                "const { sum } = require('./sum');\n\ntest('adds', () => {\n  expect(sum(1, 2)).toBe(3);\n});\n\ntest('fails', () => {\n  expect(sum(1, 2)).toBe(4);\n});\n\ntest.skip('later', () => {});\n",
            ),
        ],
    );
    std::os::unix::fs::symlink(Path::new(&tools).join("node_modules"), dir.join("node_modules")).unwrap();
    let tests = RunTests::new(&dir);
    let v = call(&tests, json!({})).await;
    assert_eq!(v["runner"], "jest", "{v}");
    assert_eq!((v["passed"].as_u64(), v["failed"].as_u64(), v["skipped"].as_u64()), (Some(1), Some(1), Some(1)), "{v}");
    assert_eq!(v["failures"][0]["test"], "fails");
    assert_eq!(v["failures"][0]["location"], "sum.test.js:8", "{v}");
    let message = v["failures"][0]["message"].as_str().unwrap();
    assert!(message.contains("Expected: 4") && !message.contains("node_modules"), "{message}");

    let measured = call(&Coverage::new(&dir), json!({"file": "sum.js"})).await;
    assert_eq!(measured["format"], "lcov", "{measured}");
    assert_eq!(measured["file"]["path"], "sum.js");
    assert_eq!(lines_in(&measured["file"]["uncovered"], &[2, 6, 7]), [6, 7], "{measured}");
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn go_results_from_go_test_json_and_coverage_from_its_cover_profile() {
    let Some(env) = go_environment() else { return };
    let dir = project(
        "go",
        &[
            ("go.mod", "module sample\n\ngo 1.21\n"),
            (
                "calc.go",
                "package sample\n\nfunc Add(a, b int) int {\n\treturn a + b\n}\n\nfunc Unused(x int) int {\n\ty := x * 2\n\treturn y + 1\n}\n",
            ),
            (
                "calc_test.go",
                "package sample\n\nimport \"testing\"\n\nfunc TestOk(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"no\")\n\t}\n}\n\nfunc TestBad(t *testing.T) {\n\tif Add(1, 2) != 4 {\n\t\tt.Fatalf(\"math: got %d\", Add(1, 2))\n\t}\n}\n\nfunc TestLater(t *testing.T) {\n\tt.Skip(\"later\")\n}\n",
            ),
        ],
    );
    let v = call(&RunTests::new(&dir).environment(env.clone()).network(true), json!({})).await;
    assert_eq!((v["passed"].as_u64(), v["failed"].as_u64(), v["skipped"].as_u64()), (Some(1), Some(1), Some(1)), "{v}");
    assert_eq!(v["failures"][0]["test"], "sample.TestBad");
    assert_eq!(v["failures"][0]["location"], "calc_test.go:13", "{v}");

    // `go test -coverprofile`, detected from go.mod: `Add` ran, `Unused` did not.
    let measured = call(&Coverage::new(&dir).environment(env).network(true), json!({"file": "calc.go"})).await;
    assert_eq!(measured["format"], "go coverprofile", "{measured}");
    assert_eq!(measured["file"]["path"], "calc.go", "the import path made a path from the root: {measured}");
    assert_eq!(lines_in(&measured["file"]["uncovered"], &[3, 4, 7, 8, 9]), [7, 8, 9], "{measured}");
    let _ = std::fs::remove_dir_all(dir);
}

/// The environment with Go on `PATH` ([`lucid_mock::go_path`]); `None`, the reason printed,
/// when there is no `go`, even under CI (the issue lets Go skip there).
fn go_environment() -> Option<Environment> {
    lucid_mock::go_path().map(|path| Environment::inherited().set("PATH", path))
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

/// The Java sample project (`tests/fixtures/maven`) in a fresh folder, set to build
/// offline from `LUCID_TEST_MAVEN_REPO` (its `maven.config` copied to `.mvn/`); `None`,
/// with the reason printed, when `mvn`, `javac` or the repository is missing, even under
/// CI (the issue lets Java skip there).
fn maven_project(name: &str) -> Option<PathBuf> {
    for tool in ["mvn", "javac"] {
        if std::process::Command::new(tool).arg("-version").output().is_err() {
            eprintln!("skipped: {tool} is not on PATH (the Java tests run wherever a JDK and Maven are installed)");
            return None;
        }
    }
    let Some(repo) = std::env::var("LUCID_TEST_MAVEN_REPO").ok().filter(|r| !r.is_empty()) else {
        eprintln!(
            "skipped: LUCID_TEST_MAVEN_REPO is not set (.ci/maven-repo.sh makes a Maven repository of Debian's JUnit, \
             surefire and JaCoCo packages; Maven Central is not reached)"
        );
        return None;
    };
    let dir = project(name, &[]);
    copy_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/maven"), &dir);
    std::fs::create_dir_all(dir.join(".mvn")).unwrap();
    std::fs::copy(Path::new(&repo).join("maven.config"), dir.join(".mvn/maven.config")).unwrap();
    Some(dir)
}

#[tokio::test]
async fn java_results_from_surefire_junit_xml_and_coverage_from_jacoco_xml() {
    let Some(dir) = maven_project("maven") else { return };
    let tests = RunTests::new(&dir);
    let v = call(&tests, json!({})).await;
    assert_eq!(v["runner"], "maven", "{v}");
    assert_eq!((v["passed"].as_u64(), v["failed"].as_u64(), v["skipped"].as_u64()), (Some(1), Some(1), Some(1)), "{v}");
    assert_eq!(v["failures"][0]["test"], "sample.CalcTest.bad", "{v}");
    assert_eq!(v["failures"][0]["location"], "src/test/java/sample/CalcTest.java:16", "{v}");
    assert!(v["failures"][0]["message"].as_str().unwrap().contains("math ==> expected: <4> but was: <3>"), "{v}");
    // A test file filters to its class; a class and method to that test.
    let v = call(&tests, json!({"filter": "CalcTest#ok"})).await;
    assert_eq!(
        (v["status"].as_str(), v["passed"].as_u64(), v["failed"].as_u64()),
        (Some("passed"), Some(1), Some(0)),
        "{v}"
    );

    // The sample's `mvn test` writes JaCoCo's XML (the agent and Ant's report task): the
    // report there is read, its package paths made paths from the root.
    let rerun = "mvn -q -B -Dmaven.test.failure.ignore=true test";
    let coverage = Coverage::new(&dir).command(rerun, "target/site/jacoco/jacoco.xml");
    let measured = call(&coverage, json!({"run": true, "file": "Calc.java"})).await;
    assert_eq!(measured["format"], "jacoco", "{measured}");
    assert_eq!(measured["file"]["path"], "src/main/java/sample/Calc.java", "{measured}");
    // The constructor (line 3) and `add` (line 5) ran; `unused` (lines 9 and 10) did not.
    assert_eq!(measured["file"]["uncovered"], json!([[9, 10]]), "{measured}");
    assert_eq!((measured["file"]["lines"].as_u64(), measured["file"]["covered"].as_u64()), (Some(4), Some(2)));
    let again = call(&Coverage::new(&dir), json!({})).await;
    assert_eq!(again["report"], "target/site/jacoco/jacoco.xml", "{again}");
    assert_eq!(again["files"][0]["path"], "src/main/java/sample/Calc.java", "{again}");
    let _ = std::fs::remove_dir_all(dir);
}
