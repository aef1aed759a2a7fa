//! `coverage`: measures a project's test coverage, or reads a report already there, and
//! answers the total, each file's figures (least covered first) and, for one file, the
//! line ranges no test ran.

use std::path::{Path, PathBuf};

use futures::FutureExt;
use futures::future::BoxFuture;
use serde::Deserialize;
use serde_json::{Value, json};

use super::detect::quote;
use super::formats::{self, FileLines};
use super::measure;
use super::{Reports, project_commands};
use lucid::tool::{Tool, ToolContext, ToolError, ToolSpec, parse_args};
use lucid_sandbox::command::{CommandRunner, Ran, Scratch};

/// The most files an answer lists (the least covered first; the rest are counted).
const FILE_CAP: usize = 200;
/// The largest report read.
const REPORT_CAP: u64 = 256 * 1024 * 1024;
/// Where reports usually are, from the workspace root.
const USUAL_REPORTS: &[&str] = &[
    "coverage.json",
    "coverage.xml",
    "lcov.info",
    "coverage/lcov.info",
    "coverage/cobertura-coverage.xml",
    "target/site/jacoco/jacoco.xml",
    "build/reports/jacoco/test/jacocoTestReport.xml",
    "target/llvm-cov/lcov.info",
    "coverage.out",
    "cover.out",
];

/// The `coverage` tool.
///
/// A report is read from the path given, else the newest of the usual places
/// (`coverage.json`, `coverage.xml`, `lcov.info`, `coverage/lcov.info`,
/// `coverage/cobertura-coverage.xml`, `target/site/jacoco/jacoco.xml`,
/// `build/reports/jacoco/test/jacocoTestReport.xml`, `target/llvm-cov/lcov.info`, Go's
/// `coverage.out` and `cover.out`) unless
/// `run` is asked for or there is none. Then the configured command runs
/// ([`Coverage::command`]), or the one found from the project's files:
///
/// | file | command | report |
/// |---|---|---|
/// | `Cargo.toml` | `cargo llvm-cov --lcov` where cargo-llvm-cov is installed, else `cargo test` built with rustc's `-C instrument-coverage` and read with `llvm-profdata`/`llvm-cov` of rustc's LLVM (`LLVM_PROFDATA`/`LLVM_COV`, or rustup's `llvm-tools`) | lcov |
/// | `package.json` with `jest` | `npx --no-install jest --coverage --coverageReporters=lcov`, with `--collectCoverageFrom` the source files where the project sets none | lcov |
/// | `package.json` with `vitest` | `npx --no-install vitest run --coverage.enabled=true --coverage.reporter=lcov` | lcov |
/// | `go.mod` | `go test -coverpkg=./... -coverprofile=… ./...` (every package, tested or not) | Go cover profile |
/// | `pom.xml` | `mvn -q -B -Dmaven.test.failure.ignore=true test jacoco:report` (the JaCoCo plugin configured) | JaCoCo XML |
/// | `build.gradle(.kts)` | `gradle test jacocoTestReport` | JaCoCo XML |
/// | Python project files | `python3 -m coverage run --branch --source=. --omit=<test files> -m pytest`, then `coverage json` | coverage.py JSON |
///
/// The universe is the project's source: coverage.py measures the root (and `src` where it
/// holds packages) with test files (`test_*.py`, `*_test.py`, `tests/`, `conftest.py`) left
/// out, so a module no test imports is listed at 0%, and a project with no tests yet is 0%
/// everywhere; its data file is in a scratch folder of the run, not the project. When a
/// command writes no report because a tool is missing, the error names what to install.
///
/// It runs as [`RunTests`](super::RunTests) runs its command: in the `shell` tool's
/// sandbox, from the allowlisted environment, with a home of its own (the user's home
/// folders hidden where the system allows), with its own timeout.
///
/// ```no_run
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use lucid::Tool;
/// let coverage = lucid_code::Coverage::new("/path/to/project")
///     .command("cargo llvm-cov --lcov --output-path {scratch}/lcov.info", "{scratch}/lcov.info");
/// let answer = coverage.invoke(serde_json::json!({"run": true, "file": "src/parser.rs"}), Default::default()).await.unwrap();
/// let v: serde_json::Value = serde_json::from_str(&answer).unwrap();
/// println!("{}% of lines; not run: {}", v["total"]["percent"], v["file"]["uncovered"]);
/// # });
/// ```
#[derive(Debug)]
pub struct Coverage {
    spec: ToolSpec,
    commands: CommandRunner,
    configured: Option<(String, String)>,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct CoverageArgs {
    /// A source file whose uncovered line ranges to list (relative to the project root).
    #[serde(default)]
    file: Option<String>,
    /// Measure again even when a report is there (runs the tests).
    #[serde(default)]
    run: bool,
    /// Read this report (lcov, Cobertura or JaCoCo XML, coverage.py or llvm-cov JSON) instead.
    #[serde(default)]
    report: Option<String>,
}

const DESCRIPTION: &str = "Test coverage of the project, as JSON: the total and each file's covered lines \
and, where measured, branches (least covered first; every source file, a file no test imports at 0%), and with `file` that file's uncovered line ranges. Reads the coverage report already there, \
or runs the tests with coverage when there is none or `run` is true.";

impl Coverage {
    /// Coverage of the project in `root`, measured with the command found from its files,
    /// with a 5-minute timeout, the allowlisted environment and no network.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Coverage {
            spec: ToolSpec::for_args::<CoverageArgs>("coverage", DESCRIPTION),
            commands: project_commands(root),
            configured: None,
        }
    }

    /// The command that measures coverage (for `sh -c` in the root) and the report it
    /// writes (from the root); `{scratch}` in either is a fresh folder of the run.
    pub fn command(mut self, command: impl Into<String>, report: impl AsRef<Path>) -> Self {
        self.configured = Some((command.into(), report.as_ref().to_string_lossy().into_owned()));
        self
    }

    /// The project's folder.
    fn root(&self) -> &Path {
        self.commands.root()
    }

    /// The newest report in the usual places.
    fn existing(&self) -> Option<PathBuf> {
        USUAL_REPORTS
            .iter()
            .map(|p| self.root().join(p))
            .filter_map(|p| Some((std::fs::metadata(&p).ok()?.modified().ok()?, p)))
            .max_by_key(|(t, _)| *t)
            .map(|(_, p)| p)
    }

    /// The command measuring coverage here and the report it writes.
    fn command_for(&self, scratch: &Path) -> Option<(String, PathBuf)> {
        let s = quote(&scratch.to_string_lossy());
        if let Some((command, report)) = &self.configured {
            let report = report.replace("{scratch}", &scratch.to_string_lossy());
            return Some((command.replace("{scratch}", &s), self.root().join(report)));
        }
        measure::detected(self.root(), scratch)
    }

    async fn answer(&self, args: CoverageArgs, ctx: &ToolContext) -> Result<String, ToolError> {
        let scratch = Scratch::new()?;
        let mut answer = json!({});
        let report = match (&args.report, args.run) {
            (Some(path), _) => lucid_tools::Workspace::new(self.root())
                .map_err(|e| ToolError::new(format!("the project folder: {e}")))?
                .resolve(path)?,
            (None, false) if self.existing().is_some() => {
                let found = self.existing().unwrap_or_default();
                answer["note"] = "read the report already there; pass run: true to measure again".into();
                found
            }
            (None, _) => {
                let (command, report) = self.command_for(scratch.path()).ok_or_else(|| {
                    ToolError::new("no coverage report here and no known way to measure coverage for this project; configure a coverage command")
                })?;
                let before = Reports::at(&report);
                let Ran { finished, notes, .. } = self.commands.run(&command, &ctx.cancel, Some(&scratch)).await?;
                if !notes.is_empty() {
                    answer["note"] = notes.join("; ").into();
                }
                answer["command"] = command.clone().into();
                answer["exit"] = finished.status_text().into();
                if before.written_since(&report).is_empty() {
                    let mut output = String::from_utf8_lossy(&finished.stdout).into_owned();
                    output.push_str(&String::from_utf8_lossy(&finished.stderr));
                    if let Some(install) = measure::missing_tool(&command, &output) {
                        return Err(ToolError::new(install));
                    }
                    return Err(ToolError::new(format!(
                        "`{command}` wrote no coverage report at {} ({}):\n{output}",
                        report.display(),
                        finished.status_text()
                    )));
                }
                report
            }
        };
        let size = std::fs::metadata(&report)
            .map_err(|e| ToolError::new(format!("cannot read {}: {e}", report.display())))?
            .len();
        if size > REPORT_CAP {
            return Err(ToolError::new(format!("the report {} is too large to read ({size} bytes)", report.display())));
        }
        let text = tokio::fs::read_to_string(&report)
            .await
            .map_err(|e| ToolError::new(format!("cannot read {}: {e}", report.display())))?;
        let (format, files) =
            formats::parse(&text).map_err(|e| ToolError::new(format!("{}: {e}", report.display())))?;
        let shown = report.strip_prefix(self.root()).unwrap_or(&report);
        if report.starts_with(scratch.path()) {
            answer["report"] = format.name().into();
        } else {
            answer["report"] = shown.to_string_lossy().into_owned().into();
        }
        answer["format"] = format.name().into();
        self.fill(&mut answer, files, args.file.as_deref())?;
        Ok(answer.to_string())
    }

    /// The totals, the files (paths from the root where they are under it) and one
    /// file's uncovered ranges.
    fn fill(&self, answer: &mut Value, mut files: Vec<FileLines>, wanted: Option<&str>) -> Result<(), ToolError> {
        let root = std::fs::canonicalize(self.root()).unwrap_or_else(|_| self.root().to_path_buf());
        // Go names files by import path (`module/dir/x.go`), JaCoCo by package
        // (`pkg/X.java`): made paths from the root where such a file is there.
        let module = std::fs::read_to_string(self.root().join("go.mod")).ok().and_then(|m| {
            m.lines().find_map(|l| l.strip_prefix("module ")).map(|m| format!("{}/", m.trim().trim_matches('"')))
        });
        for f in &mut files {
            let p = Path::new(&f.path);
            if let Ok(rel) = p.strip_prefix(&root).or_else(|_| p.strip_prefix(self.root())) {
                f.path = rel.to_string_lossy().into_owned();
            } else if let Some(rel) = module.as_deref().and_then(|m| f.path.strip_prefix(m)) {
                f.path = rel.to_string();
            } else if p.is_relative() && !self.root().join(p).exists() {
                let under = ["src/main/java", "src/main/kotlin", "src"].iter().map(|d| Path::new(d).join(p));
                if let Some(found) = under.into_iter().find(|c| self.root().join(c).is_file()) {
                    f.path = found.to_string_lossy().into_owned();
                }
            }
        }
        let (lines, covered) = files.iter().fold((0, 0), |(l, c), f| (l + f.hits.len(), c + f.covered()));
        answer["total"] = figures(lines, covered);
        // Branches are said where there are some (a file without any has no figure).
        let (n, ran) = files.iter().filter_map(|f| f.branches).fold((0, 0), |(n, r), b| (n + b.0, r + b.1));
        if n > 0 {
            answer["total"]["branches"] = branch_figures(n, ran);
        }
        if let Some(name) = wanted {
            let name = name.trim_start_matches("./");
            let file = files
                .iter()
                .find(|f| f.path == name)
                .or_else(|| {
                    files
                        .iter()
                        .find(|f| f.path.ends_with(&format!("/{name}")) || name.ends_with(&format!("/{}", f.path)))
                })
                .ok_or_else(|| {
                    ToolError::new(format!(
                        "`{name}` is not in the coverage report (no test loaded it, or it is not measured)"
                    ))
                })?;
            let mut entry = file_figures(file);
            entry["uncovered"] = json!(file.uncovered());
            answer["file"] = entry;
        }
        files.sort_by(|a, b| {
            let p = |f: &FileLines| if f.hits.is_empty() { 100.0 } else { f.covered() as f64 / f.hits.len() as f64 };
            p(a).total_cmp(&p(b)).then_with(|| a.path.cmp(&b.path))
        });
        let listed: Vec<Value> = files.iter().take(FILE_CAP).map(file_figures).collect();
        if files.len() > FILE_CAP {
            answer["files_not_listed"] = (files.len() - FILE_CAP).into();
        }
        answer["files"] = listed.into();
        Ok(())
    }
}

/// A file's `{"path", "lines", "covered", "percent"}`, and `"branches"` (`{"total",
/// "covered", "percent"}`) where the report counts some.
fn file_figures(f: &FileLines) -> Value {
    let mut e = figures(f.hits.len(), f.covered());
    e["path"] = f.path.clone().into();
    if let Some((n, ran)) = f.branches.filter(|b| b.0 > 0) {
        e["branches"] = branch_figures(n, ran);
    }
    e
}

/// `{"total", "covered", "percent"}` of branches (percent to one decimal).
fn branch_figures(total: usize, covered: usize) -> Value {
    let mut v = figures(total, covered);
    v["total"] = v["lines"].take();
    if let Value::Object(o) = &mut v {
        o.remove("lines");
    }
    v
}

/// `{"lines", "covered", "percent"}` (percent to one decimal).
fn figures(lines: usize, covered: usize) -> Value {
    let percent = if lines == 0 { 100.0 } else { (covered as f64 * 1000.0 / lines as f64).round() / 10.0 };
    json!({ "lines": lines, "covered": covered, "percent": percent })
}

project_settings!(Coverage);

impl Tool for Coverage {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn invoke<'a>(&'a self, args: Value, ctx: ToolContext) -> BoxFuture<'a, Result<String, ToolError>> {
        async move {
            let args: CoverageArgs = parse_args(args)?;
            self.answer(args, &ctx).await
        }
        .boxed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_maven_and_gradle_commands_and_their_report_paths_from_the_root() {
        let dir = std::env::temp_dir().join(format!("lucid-coverage-detect-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("src/main/java/sample")).unwrap();
        std::fs::write(dir.join("src/main/java/sample/Calc.java"), "").unwrap();
        let scratch = Path::new("/s");
        let cov = Coverage::new(&dir);
        let command = |files: &[&str]| {
            for f in ["go.mod", "pom.xml", "build.gradle", "gradlew"] {
                let _ = std::fs::remove_file(dir.join(f));
            }
            for f in files {
                std::fs::write(dir.join(f), "module example.com/calc\n").unwrap();
            }
            let (c, report) = cov.command_for(scratch).unwrap();
            (c, report.strip_prefix(&dir).unwrap_or(&report).display().to_string())
        };
        assert_eq!(
            command(&["go.mod"]),
            ("go test -coverpkg=./... -coverprofile=/s/cover.out ./...".into(), "/s/cover.out".into())
        );
        assert_eq!(
            command(&["pom.xml"]),
            (
                "mvn -q -B -Dmaven.test.failure.ignore=true test jacoco:report".into(),
                "target/site/jacoco/jacoco.xml".into()
            )
        );
        let gradle = "build/reports/jacoco/test/jacocoTestReport.xml".to_string();
        assert_eq!(command(&["build.gradle"]), ("gradle test jacocoTestReport --console=plain".into(), gradle.clone()));
        assert_eq!(command(&["build.gradle", "gradlew"]).0, "./gradlew test jacocoTestReport --console=plain");

        // Go's import paths and JaCoCo's package paths become paths from the root.
        command(&["go.mod"]);
        let files = |path: &str| vec![FileLines { path: path.into(), hits: [(1, 1)].into(), branches: None }];
        let mut answer = json!({});
        cov.fill(&mut answer, files("example.com/calc/calc.go"), Some("calc.go")).unwrap();
        assert_eq!(answer["file"]["path"], "calc.go", "{answer}");
        cov.fill(&mut answer, files("sample/Calc.java"), None).unwrap();
        assert_eq!(answer["files"][0]["path"], "src/main/java/sample/Calc.java", "{answer}");
        let _ = std::fs::remove_dir_all(dir);
    }
}
