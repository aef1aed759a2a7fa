//! Which test runner a project uses, found from its files, and the command line that
//! makes the runner write a report `run_tests` can read.

use std::path::{Path, PathBuf};

/// Where a run's results are read from.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ReportFormat {
    /// JUnit XML files: one file, or every `*.xml` of a folder written during the run
    /// (relative paths are from the workspace root).
    JunitXml(PathBuf),
    /// cargo's JSON messages and libtest's JSON events on standard output.
    LibtestJson,
    /// `go test -json` events on standard output.
    GoTestJson,
    /// A Jest (or Vitest) JSON report file.
    JestJson(PathBuf),
}

/// A test command and where its results are: detected from the project's files, or given
/// by [`RunTests::command`](super::RunTests::command).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Runner {
    /// The runner's name in answers: `cargo`, `pytest`, `jest`, `vitest`, `maven`,
    /// `gradle`, `go`, `configured`.
    pub name: &'static str,
    /// The command line, for `sh -c`.
    pub command: String,
    pub report: ReportFormat,
    /// What the answer should say about this runner's results.
    pub note: Option<&'static str>,
}

/// Quotes a word for `sh`.
pub(crate) fn quote(word: &str) -> String {
    if !word.is_empty() && word.chars().all(|c| c.is_ascii_alphanumeric() || "-_./:=@,+".contains(c)) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// The module path of a Rust source file under `src/` (`src/a/b.rs` and `src/a/b/mod.rs`
/// → `a::b`; the crate roots `src/lib.rs` and `src/main.rs` → empty), or `None` for
/// anything else.
fn rust_module(path: &str) -> Option<String> {
    let rest = path.trim_start_matches("./").strip_prefix("src/")?.strip_suffix(".rs")?;
    let rest = rest.strip_suffix("/mod").unwrap_or(rest);
    if rest == "lib" || rest == "main" {
        return Some(String::new());
    }
    Some(rest.strip_prefix("bin/").map_or(rest, |_| "").replace('/', "::"))
}

/// The runner of the project in `root`, with `filter` (one target's tests: a test file
/// or a name pattern) and the report written under `scratch` (a folder of this run).
pub(crate) fn detect(root: &Path, filter: Option<&str>, scratch: &Path) -> Option<Runner> {
    let has = |name: &str| root.join(name).exists();
    let filter = filter.map(str::trim).filter(|f| !f.is_empty());
    if has("Cargo.toml") {
        // libtest's JSON output is unstable: it needs RUSTC_BOOTSTRAP=1, given only to the
        // test executables through a runner (the compiler does not see it, so nothing is
        // rebuilt). Doc tests are left out (`--tests`): rustdoc would refuse the option.
        let mut cmd = String::from(
            "cargo test --no-fail-fast --message-format json \
             --config \"target.'cfg(all())'.runner=['env','RUSTC_BOOTSTRAP=1']\"",
        );
        match filter {
            Some(f) if f.ends_with(".rs") && f.starts_with("tests/") => {
                let stem = Path::new(f).file_stem().and_then(|s| s.to_str()).unwrap_or(f);
                cmd.push_str(&format!(" --test {}", quote(stem)));
            }
            Some(f) => match rust_module(f) {
                // A source file's unit tests: the names under its module.
                Some(module) if module.is_empty() => cmd.push_str(" --tests"),
                Some(module) => cmd.push_str(&format!(" --tests {}", quote(&format!("{module}::")))),
                None => cmd.push_str(&format!(" --tests {}", quote(f))),
            },
            None => cmd.push_str(" --tests"),
        }
        cmd.push_str(" -- -Z unstable-options --format json");
        let note = Some("doc tests are not run by run_tests (run `cargo test --doc` with shell)");
        return Some(Runner { name: "cargo", command: cmd, report: ReportFormat::LibtestJson, note });
    }
    if has("go.mod") {
        let mut cmd = String::from("go test -json");
        match filter {
            Some(f) if root.join(f).is_dir() => cmd.push_str(&format!(" ./{}/...", quote(f.trim_start_matches("./")))),
            // A test file: its tests, in its package.
            Some(f) if f.ends_with("_test.go") => {
                let text = std::fs::read_to_string(root.join(f)).unwrap_or_default();
                let names: Vec<&str> = text
                    .lines()
                    .filter_map(|l| l.strip_prefix("func Test")?.split('(').next())
                    .filter(|n| n.chars().all(|c| c.is_alphanumeric() || c == '_'))
                    .collect();
                if !names.is_empty() {
                    cmd.push_str(&format!(" -run {}", quote(&format!("^Test({})$", names.join("|")))));
                }
                match Path::new(f.trim_start_matches("./")).parent().filter(|d| !d.as_os_str().is_empty()) {
                    Some(d) => cmd.push_str(&format!(" ./{}", quote(&d.to_string_lossy()))),
                    None => cmd.push_str(" ."),
                }
            }
            Some(f) => cmd.push_str(&format!(" -run {} ./...", quote(f))),
            None => cmd.push_str(" ./..."),
        }
        return Some(Runner { name: "go", command: cmd, report: ReportFormat::GoTestJson, note: None });
    }
    if has("package.json") {
        let manifest = std::fs::read_to_string(root.join("package.json")).unwrap_or_default();
        let report = scratch.join("report.json");
        let path = quote(&report.to_string_lossy());
        let tail = filter.map(|f| format!(" {}", quote(f))).unwrap_or_default();
        if manifest.contains("\"vitest\"") {
            let command = format!("npx --no-install vitest run --reporter=json --outputFile={path}{tail}");
            return Some(Runner { name: "vitest", command, report: ReportFormat::JestJson(report), note: None });
        }
        if manifest.contains("\"jest\"") {
            let command =
                format!("npx --no-install jest --ci --json --testLocationInResults --outputFile={path}{tail}");
            return Some(Runner { name: "jest", command, report: ReportFormat::JestJson(report), note: None });
        }
    }
    // A JVM test file filters to its class (surefire's `-Dtest`, Gradle's `--tests`).
    let jvm_filter = filter.map(|f| match f.strip_suffix(".java").or_else(|| f.strip_suffix(".kt")) {
        Some(path) => path.rsplit('/').next().unwrap_or(path),
        None => f,
    });
    if has("pom.xml") {
        let mut cmd = String::from("mvn -q -B test");
        if let Some(f) = jvm_filter {
            cmd.push_str(&format!(" -Dtest={} -Dsurefire.failIfNoSpecifiedTests=false", quote(f)));
        }
        return Some(Runner {
            name: "maven",
            command: cmd,
            report: ReportFormat::JunitXml(root.join("target/surefire-reports")),
            note: None,
        });
    }
    if has("build.gradle") || has("build.gradle.kts") {
        let gradle = if has("gradlew") { "./gradlew" } else { "gradle" };
        let mut cmd = format!("{gradle} test --console=plain");
        if let Some(f) = jvm_filter {
            cmd.push_str(&format!(" --tests {}", quote(f)));
        }
        return Some(Runner {
            name: "gradle",
            command: cmd,
            report: ReportFormat::JunitXml(root.join("build/test-results/test")),
            note: None,
        });
    }
    let python = ["pyproject.toml", "pytest.ini", "setup.cfg", "tox.ini", "conftest.py", "setup.py"];
    if python.iter().any(|f| has(f)) {
        let report = scratch.join("junit.xml");
        // xunit1 puts each test's file and line in the report. No bytecode is written: a
        // test file rewritten within the same second at the same size (a repaired
        // assertion) would otherwise be run from its stale cached bytecode.
        let mut cmd = format!(
            "PYTHONDONTWRITEBYTECODE=1 python3 -m pytest -q -p no:cacheprovider -o junit_family=xunit1 --junitxml={}",
            quote(&report.to_string_lossy())
        );
        match filter {
            Some(f) if root.join(f.split("::").next().unwrap_or(f)).exists() => cmd.push_str(&format!(" {}", quote(f))),
            Some(f) => cmd.push_str(&format!(" -k {}", quote(f))),
            None => {}
        }
        return Some(Runner { name: "pytest", command: cmd, report: ReportFormat::JunitXml(report), note: None });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rust_source_file_filters_to_its_module_and_words_are_quoted() {
        assert_eq!(rust_module("src/parser.rs").as_deref(), Some("parser"));
        assert_eq!(rust_module("./src/a/b/mod.rs").as_deref(), Some("a::b"));
        assert_eq!(rust_module("src/lib.rs").as_deref(), Some(""));
        assert_eq!(rust_module("tests/api.rs"), None);
        assert_eq!(rust_module("parser"), None);
        assert_eq!(quote("tests/x.py::test_a"), "tests/x.py::test_a");
        assert_eq!(quote("it's; rm -rf /"), r"'it'\''s; rm -rf /'");
        let scratch = std::env::temp_dir();
        let dir = std::env::temp_dir().join(format!("lucid-detect-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("Cargo.toml"), "").unwrap();
        let r = detect(&dir, Some("src/calc/mod.rs"), &scratch).unwrap();
        assert!(r.command.contains(" --tests calc:: -- -Z unstable-options --format json"), "{}", r.command);
        let r = detect(&dir, Some("tests/api.rs"), &scratch).unwrap();
        assert!(r.command.contains(" --test api -- ") && !r.command.contains("--tests"), "{}", r.command);
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn maven_and_gradle_projects_run_their_tests_and_a_test_file_filters_to_its_class() {
        let scratch = std::env::temp_dir();
        let dir = std::env::temp_dir().join(format!("lucid-detect-jvm-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("pom.xml"), "<project/>").unwrap();
        let r = detect(&dir, Some("src/test/java/sample/SubTest.java"), &scratch).unwrap();
        assert_eq!(
            (r.name, r.command.as_str()),
            ("maven", "mvn -q -B test -Dtest=SubTest -Dsurefire.failIfNoSpecifiedTests=false")
        );
        assert_eq!(r.report, ReportFormat::JunitXml(dir.join("target/surefire-reports")));
        assert_eq!(
            detect(&dir, Some("CalcTest#ok"), &scratch).unwrap().command,
            "mvn -q -B test -Dtest='CalcTest#ok' -Dsurefire.failIfNoSpecifiedTests=false"
        );
        std::fs::remove_file(dir.join("pom.xml")).unwrap();
        std::fs::write(dir.join("build.gradle.kts"), "").unwrap();
        let r = detect(&dir, None, &scratch).unwrap();
        assert_eq!((r.name, r.command.as_str()), ("gradle", "gradle test --console=plain"));
        assert_eq!(r.report, ReportFormat::JunitXml(dir.join("build/test-results/test")));
        std::fs::rename(dir.join("build.gradle.kts"), dir.join("build.gradle")).unwrap();
        std::fs::write(dir.join("gradlew"), "").unwrap();
        let r = detect(&dir, Some("src/test/kotlin/CalcTest.kt"), &scratch).unwrap();
        assert_eq!(r.command, "./gradlew test --console=plain --tests CalcTest");
        std::fs::write(dir.join("go.mod"), "module sample\n").unwrap();
        std::fs::create_dir_all(dir.join("calc")).unwrap();
        std::fs::write(
            dir.join("calc/sub_test.go"),
            "package calc\n\nfunc TestSub(t *testing.T) {}\nfunc TestSub_neg(t *testing.T) {}\n",
        )
        .unwrap();
        let r = detect(&dir, Some("calc/sub_test.go"), &scratch).unwrap();
        assert_eq!(r.command, "go test -json -run '^Test(Sub|Sub_neg)$' ./calc", "a Go test file runs its tests only");
        let _ = std::fs::remove_dir_all(dir);
    }
}
