//! The coverage commands found from a project's files, measuring the whole universe of its
//! source files (a file no test imports counts at 0%, test files are left out), their data
//! files in the run's scratch folder; and, when a command wrote nothing, the one clear
//! sentence naming the tool to install.

use std::path::{Path, PathBuf};

use super::detect::quote;

/// Test files, left out of coverage.py's measurement: patterns from the project root (a
/// relative pattern is made absolute from the working folder by coverage.py), so that a
/// folder named `tests` above the project leaves nothing out.
const PYTHON_OMIT: &[&str] = &[
    "./**/tests/*",
    "./**/test/*",
    "./**/test_*.py",
    "./**/*_test.py",
    "./**/conftest.py",
    "./setup.py",
    "./**/.venv/*",
    "./**/venv/*",
    "./**/site-packages/*",
    "./**/.tox/*",
    "./**/.nox/*",
];

/// Jest's `collectCoverageFrom` where the project sets none: the source files, tests,
/// configuration files, dependencies and build output left out.
const JEST_SOURCES: &[&str] = &[
    "**/*.{js,jsx,ts,tsx,mjs,cjs}",
    "!**/node_modules/**",
    "!**/*.{test,spec}.*",
    "!**/__tests__/**",
    "!**/__mocks__/**",
    "!**/*.config.*",
    "!**/{coverage,dist,build}/**",
];

/// Rust without cargo-llvm-cov: rustc's own `-C instrument-coverage`, then
/// `llvm-profdata` and `llvm-cov` of rustc's LLVM (`LLVM_PROFDATA` and `LLVM_COV` when
/// set, else rustup's `llvm-tools` component). The instrumented build has a target folder
/// of its own (`target/lucid-coverage`), kept between runs so that only the project is
/// rebuilt; `{s}` is the scratch folder (quoted).
const RUST_SCRIPT: &str = r#"if cargo llvm-cov --version >/dev/null 2>&1; then
  cargo llvm-cov --lcov --output-path {s}/lcov.info
else
  bin="$(rustc --print sysroot)/lib/rustlib/$(rustc -vV | sed -n 's/^host: //p')/bin"
  cov="${LLVM_COV:-$bin/llvm-cov}"; prof="${LLVM_PROFDATA:-$bin/llvm-profdata}"
  if [ ! -x "$cov" ] || [ ! -x "$prof" ]; then
    echo "lucid-missing-tool: cargo-llvm-cov" >&2; exit 127
  fi
  export RUSTFLAGS="${RUSTFLAGS:+$RUSTFLAGS }-C instrument-coverage" LLVM_PROFILE_FILE={s}/p-%p-%m.profraw CARGO_TARGET_DIR=target/lucid-coverage
  cargo test --tests -q >&2
  objs=$(cargo test --tests --no-run -q --message-format=json 2>/dev/null | grep -o '"executable":"[^"]*"' | sed 's/^"executable":"\(.*\)"$/-object \1/')
  "$prof" merge -sparse {s}/*.profraw -o {s}/all.profdata &&
  "$cov" export --format=lcov --instr-profile={s}/all.profdata $objs --sources "$PWD" --ignore-filename-regex='/(tests|benches|examples|target)/' > {s}/lcov.info.part &&
  mv {s}/lcov.info.part {s}/lcov.info
fi"#;

/// The command measuring the project in `root` and the report it writes; `None` when no
/// known project file is there.
pub(crate) fn detected(root: &Path, scratch: &Path) -> Option<(String, PathBuf)> {
    let s = quote(&scratch.to_string_lossy());
    let has = |name: &str| root.join(name).exists();
    let lcov = scratch.join("lcov.info");
    if has("Cargo.toml") {
        return Some((RUST_SCRIPT.replace("{s}", &s), lcov));
    }
    if has("package.json") {
        let manifest = std::fs::read_to_string(root.join("package.json")).unwrap_or_default();
        if manifest.contains("\"vitest\"") {
            let c = format!(
                "npx --no-install vitest run --coverage.enabled=true --coverage.reporter=lcov --coverage.reportsDirectory={s}"
            );
            return Some((c, lcov));
        }
        if manifest.contains("\"jest\"") {
            // Every source file, required by a test or not, unless the project says which.
            let from = if manifest.contains("collectCoverageFrom") {
                String::new()
            } else {
                JEST_SOURCES.iter().map(|g| format!(" --collectCoverageFrom={}", quote(g))).collect()
            };
            let c =
                format!("npx --no-install jest --ci --coverage --coverageReporters=lcov --coverageDirectory={s}{from}");
            return Some((c, lcov));
        }
    }
    if has("go.mod") {
        // Every package of the module, tested or not.
        return Some((format!("go test -coverpkg=./... -coverprofile={s}/cover.out ./..."), scratch.join("cover.out")));
    }
    if has("pom.xml") {
        // The report is written when a test fails too.
        let c = "mvn -q -B -Dmaven.test.failure.ignore=true test jacoco:report";
        return Some((c.into(), root.join("target/site/jacoco/jacoco.xml")));
    }
    if has("build.gradle") || has("build.gradle.kts") {
        let gradle = if has("gradlew") { "./gradlew" } else { "gradle" };
        let report = root.join("build/reports/jacoco/test/jacocoTestReport.xml");
        return Some((format!("{gradle} test jacocoTestReport --console=plain"), report));
    }
    let python = ["pyproject.toml", "pytest.ini", "setup.cfg", "tox.ini", "conftest.py", "setup.py"];
    if python.iter().any(|f| has(f)) {
        return Some((python_command(root, &s), scratch.join("coverage.json")));
    }
    None
}

/// coverage.py over pytest with the project's source as the universe: the root, and `src`
/// where it is a folder of packages (coverage.py only walks folders with an
/// `__init__.py` below a source folder); files no test imports are reported at 0%, test
/// files left out. The data file is in the scratch folder, never the project's. The report
/// is written whether the tests pass or not, and when no test ran at all.
fn python_command(root: &Path, s: &str) -> String {
    let mut sources = vec!["."];
    if root.join("src").is_dir() && !root.join("src/__init__.py").exists() {
        sources.push("src");
    }
    // No bytecode, as for `run_tests`: a test rewritten in the same second would run stale.
    format!(
        "export COVERAGE_FILE={s}/.coverage PYTHONDONTWRITEBYTECODE=1; \
         python3 -m coverage run --branch --source={} --omit={} -m pytest -q -p no:cacheprovider; \
         python3 -m coverage json -q -o {s}/coverage.json",
        sources.join(","),
        quote(&PYTHON_OMIT.join(","))
    )
}

/// What to install, when a coverage command's output shows the tool is missing.
pub(crate) fn missing_tool(command: &str, output: &str) -> Option<&'static str> {
    let table: &[(&str, &str, &str)] = &[
        (
            "cargo",
            "lucid-missing-tool: cargo-llvm-cov",
            "cargo-llvm-cov is not installed and rustc's LLVM tools are not there: `cargo install cargo-llvm-cov`, \
             or `rustup component add llvm-tools` (or set LLVM_COV and LLVM_PROFDATA to llvm-cov and llvm-profdata \
             of rustc's LLVM version)",
        ),
        (
            "cargo",
            "no such command: `llvm-cov`",
            "cargo-llvm-cov is not installed: `cargo install cargo-llvm-cov`, or `rustup component add llvm-tools`",
        ),
        ("python3", "No module named coverage", "coverage.py is not installed: `pip install coverage`"),
        ("python3", "No module named pytest", "pytest is not installed: `pip install pytest`"),
        ("python3", "python3: not found", "Python 3 is not installed (no `python3` on PATH)"),
        ("go test", "go: not found", "Go is not installed (no `go` on PATH)"),
        ("npx", "npx: not found", "Node.js is not installed (no `npx` on PATH)"),
        ("jest", "could not determine executable to run", "Jest is not installed here: `npm install --save-dev jest`"),
        (
            "vitest",
            "could not determine executable to run",
            "Vitest is not installed here: `npm install --save-dev vitest @vitest/coverage-v8`",
        ),
        (
            "vitest",
            "Cannot find dependency '@vitest/coverage",
            "Vitest's coverage provider is not installed: `npm install --save-dev @vitest/coverage-v8`",
        ),
        ("mvn", "mvn: not found", "Maven is not installed (no `mvn` on PATH)"),
        ("gradle", "gradle: not found", "Gradle is not installed (no `gradle` on PATH)"),
    ];
    table.iter().find(|(runs, says, _)| command.contains(runs) && output.contains(says)).map(|(_, _, what)| *what)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_measures_the_source_folders_with_the_tests_left_out_and_its_data_in_scratch() {
        let dir = std::env::temp_dir().join(format!("lucid-measure-python-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("src/pkg")).unwrap();
        std::fs::write(dir.join("pyproject.toml"), "").unwrap();
        let (command, report) = detected(&dir, Path::new("/s")).unwrap();
        assert_eq!(report, Path::new("/s/coverage.json"));
        assert!(command.starts_with("export COVERAGE_FILE=/s/.coverage "), "{command}");
        assert!(command.contains("--source=.,src --omit='./**/tests/*,./**/test/*,./**/test_*.py,"), "{command}");
        std::fs::write(dir.join("src/__init__.py"), "").unwrap();
        assert!(detected(&dir, Path::new("/s")).unwrap().0.contains("--source=. --omit"));
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn a_missing_tool_is_named_with_what_to_install() {
        let rust = RUST_SCRIPT;
        assert!(
            missing_tool(rust, "lucid-missing-tool: cargo-llvm-cov\n")
                .unwrap()
                .contains("cargo install cargo-llvm-cov")
        );
        let py = "python3 -m coverage run -m pytest";
        assert_eq!(
            missing_tool(py, "/usr/bin/python3: No module named coverage"),
            Some("coverage.py is not installed: `pip install coverage`")
        );
        assert_eq!(missing_tool(py, "1 failed"), None);
    }
}
