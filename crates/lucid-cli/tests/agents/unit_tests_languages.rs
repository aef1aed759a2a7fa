//! The unit-tests agent on Python, JavaScript, Java and Go projects, with their real runners.

use super::*;

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
    let args = ["run", "--base-url", &url, "-m", "m", "--agent", "unit-tests", "--trust", "--json", "--coverage", "90"];
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
    let args = ["run", "--base-url", &url, "-m", "m", "--agent", "unit-tests", "--trust", "--json", "--coverage", "90"];
    let out = run_in(&dir, &args, &[]).await;
    check_one_repair(&out, &server, "sum.js", "sub", ("subtracts", "sub.test.js:4"));
    assert_eq!(std::fs::read_to_string(dir.join("sub.test.js")).unwrap(), RIGHT);
    std::fs::remove_dir_all(dir).ok();
}

/// The shipped `unit-tests` agent on the Java sample project (Maven, JUnit 5, JaCoCo:
/// crates/lucid-code/tests/fixtures/maven, built offline from `LUCID_TEST_MAVEN_REPO`), the
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
    copy_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../lucid-code/tests/fixtures/maven"), &dir);
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
    let args =
        mock_run(&url, &["--config", "config.toml", "--agent", "unit-tests", "--trust", "--json", "--coverage", "90"]);
    let out = run_in(&dir, &args, &[]).await;
    check_one_repair(&out, &server, target, "unused", ("doublesPlusOne", "src/test/java/sample/UnusedTest.java:10"));
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
    let Some(path) = lucid_mock::go_path() else { return };
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
    let args = ["run", "--base-url", &url, "-m", "m", "--agent", "unit-tests", "--trust", "--json", "--coverage", "90"];
    let out = run_in(&dir, &args, &[("PATH", &path)]).await;
    check_one_repair(&out, &server, "calc.go", "Sub", ("TestSub", "sub_test.go:7"));
    assert_eq!(std::fs::read_to_string(dir.join("sub_test.go")).unwrap(), RIGHT);
    std::fs::remove_dir_all(dir).ok();
}
