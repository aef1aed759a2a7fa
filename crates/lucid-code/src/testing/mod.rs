//! `run_tests`: runs a project's tests and answers structured results — passed, failed,
//! skipped, and each failure's test, message and location — read from the runner's
//! machine-readable report, never from its text output.

/// The settings `run_tests` and `coverage` share, written once: setters of the tool's
/// [`CommandRunner`] (its field `commands`).
macro_rules! project_settings {
    ($tool:ty) => {
        impl $tool {
            /// How long a run may take before it is killed.
            pub fn timeout(mut self, d: std::time::Duration) -> Self {
                self.commands = self.commands.timeout(d);
                self
            }

            /// The environment the command starts with (see
            /// [`Environment`](lucid_sandbox::Environment)).
            pub fn environment(mut self, environment: lucid_sandbox::Environment) -> Self {
                self.commands = self.commands.environment(environment);
                self
            }

            /// Lets the command reach the network (a runner that downloads dependencies).
            pub fn network(mut self, on: bool) -> Self {
                self.commands = self.commands.network(on);
                self
            }
        }
    };
}

mod coverage;
mod detect;
mod formats;
mod measure;
pub(crate) mod reports;

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use futures::FutureExt;
use futures::future::BoxFuture;
use serde::Deserialize;
use serde_json::{Value, json};

pub use coverage::Coverage;
pub use detect::ReportFormat;
use detect::{Runner, quote};
use reports::TestResults;

use lucid::tool::{Tool, ToolContext, ToolError, ToolSpec, parse_args};
use lucid_sandbox::command::{CommandRunner, Ran, Scratch};
use lucid_sandbox::process;

/// The most standard output read for a report printed there (libtest, `go test`).
const STDOUT_CAP: usize = 32 * 1024 * 1024;
/// The most failures an answer lists (the rest are counted).
const FAILURE_CAP: usize = 50;

/// The `run_tests` tool.
///
/// The command is the one configured ([`RunTests::command`]), or found from the
/// project's files:
///
/// | file | command | report read |
/// |---|---|---|
/// | `Cargo.toml` | `cargo test --tests --message-format json … -- -Z unstable-options --format json` | cargo's JSON messages (compile errors) and libtest's JSON events |
/// | `go.mod` | `go test -json ./...` | `go test`'s JSON events |
/// | `package.json` with `vitest` | `npx --no-install vitest run --reporter=json` | its JSON report |
/// | `package.json` with `jest` | `npx --no-install jest --ci --json` | its JSON report |
/// | `pom.xml` | `mvn -q -B test` | Surefire's JUnit XML |
/// | `build.gradle(.kts)` | `./gradlew test` or `gradle test` | Gradle's JUnit XML |
/// | `pyproject.toml`, `pytest.ini`, `setup.cfg`, `tox.ini`, `conftest.py` | `python3 -m pytest --junitxml` | pytest's JUnit XML |
///
/// On stable Rust, libtest prints JSON only when `RUSTC_BOOTSTRAP=1` is in its
/// environment: cargo is given a runner (`env RUSTC_BOOTSTRAP=1`) for the test
/// executables alone, so the compiler never sees the variable and nothing is rebuilt for
/// it; doc tests are not run (rustdoc would refuse the option), and a project's own
/// `runner` setting is replaced for the run.
///
/// The command runs the way `shell` runs one (through [`CommandRunner`], the core of both):
/// `sh -c` in the workspace root, from the allowlisted environment, in the code tools'
/// sandbox (no network unless [`RunTests::network`]), its process group killed at the end,
/// with its own timeout (5 minutes unless set). Unlike `shell`, it runs the project's own
/// code (its tests, a `conftest.py`, a build script), so it gets a home of its own: `HOME`
/// and the XDG folders are an empty private folder of the run, and where the system gives
/// it a mount namespace, the user's home folders show that folder too (the project and the
/// toolchains bound back, these read-only): the user's configuration, keys and tokens are
/// neither readable nor writable.
///
/// ```no_run
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use lucid::Tool;
/// use lucid_code::{ReportFormat, RunTests};
/// // Found from the project's files…
/// let tests = RunTests::new("/path/to/project").timeout(std::time::Duration::from_secs(600));
/// let answer = tests.invoke(serde_json::json!({"filter": "tests/test_parser.py"}), Default::default()).await.unwrap();
/// let v: serde_json::Value = serde_json::from_str(&answer).unwrap();
/// println!("{} passed, {} failed", v["passed"], v["failed"]);
/// // …or configured: `{filter}` and `{scratch}` (a folder of the run) are filled in.
/// let nextest = RunTests::new("/path/to/project").command(
///     "cargo nextest run --profile ci {filter}",
///     ReportFormat::JunitXml("target/nextest/ci/junit.xml".into()),
/// );
/// # let _ = nextest; });
/// ```
#[derive(Debug)]
pub struct RunTests {
    spec: ToolSpec,
    commands: CommandRunner,
    configured: Option<(String, ReportFormat)>,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct RunTestsArgs {
    /// Run only one target's tests: a test file (`tests/test_parser.py`,
    /// `src/parser.test.ts`, `tests/api.rs`), a package folder (Go), or a test name pattern.
    #[serde(default)]
    filter: Option<String>,
}

const DESCRIPTION: &str = "Runs the project's tests (its test command, found from the project's files or configured) \
and answers JSON: status, passed, failed, skipped, and each failure's test name, message and location; \
build errors that kept tests from running. Give `filter` to run one file's or one name's tests.";

impl RunTests {
    /// Tests of the project in `root`, found from its files, with a 5-minute timeout,
    /// 8 KiB of the runner's own output in an answer that has no results, the
    /// allowlisted environment and no network.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        RunTests {
            spec: ToolSpec::for_args::<RunTestsArgs>("run_tests", DESCRIPTION),
            commands: project_commands(root),
            configured: None,
        }
    }

    /// The test command (for `sh -c` in the root) and where its results are (a path from
    /// the root), instead of the one found from the project's files. `{filter}` in the
    /// command becomes the call's filter (quoted; empty without one), `{scratch}` in the
    /// command or the report's path a fresh folder of the run.
    pub fn command(mut self, command: impl Into<String>, report: ReportFormat) -> Self {
        self.configured = Some((command.into(), report));
        self
    }

    /// How many bytes of the runner's own output an answer without results carries.
    pub fn output_cap(mut self, bytes: usize) -> Self {
        self.commands = self.commands.output_cap(bytes);
        self
    }

    fn runner(&self, filter: Option<&str>, scratch: &Path) -> Result<Runner, ToolError> {
        if let Some((command, report)) = &self.configured {
            let command = command
                .replace("{filter}", &filter.map(quote).unwrap_or_default())
                .replace("{scratch}", &quote(&scratch.to_string_lossy()));
            let place = |p: &Path| {
                self.commands.root().join(p.to_string_lossy().replace("{scratch}", &scratch.to_string_lossy()))
            };
            let report = match report {
                ReportFormat::JunitXml(p) => ReportFormat::JunitXml(place(p)),
                ReportFormat::JestJson(p) => ReportFormat::JestJson(place(p)),
                other => other.clone(),
            };
            return Ok(Runner { name: "configured", command, report, note: None });
        }
        detect::detect(self.commands.root(), filter, scratch).ok_or_else(|| {
            ToolError::new(
                "no test runner found for this project (looked for Cargo.toml, go.mod, package.json with jest or vitest, \
                 pom.xml, build.gradle, pyproject.toml/pytest.ini/setup.cfg/tox.ini/conftest.py); configure a test command",
            )
        })
    }

    async fn run(&self, filter: Option<&str>, ctx: &ToolContext) -> Result<String, ToolError> {
        let scratch = Scratch::new()?;
        let runner = self.runner(filter, scratch.path())?;
        let before = match &runner.report {
            ReportFormat::JunitXml(p) | ReportFormat::JestJson(p) => Reports::at(p),
            _ => Reports::default(),
        };
        // A report printed on standard output is read whole.
        let commands = match runner.report {
            ReportFormat::LibtestJson | ReportFormat::GoTestJson => {
                Cow::Owned(self.commands.clone().output_cap(STDOUT_CAP))
            }
            _ => Cow::Borrowed(&self.commands),
        };
        let Ran { finished, notes: run_notes, .. } = commands.run(&runner.command, &ctx.cancel, Some(&scratch)).await?;
        let stdout = String::from_utf8_lossy(&finished.stdout);
        let read = match &runner.report {
            ReportFormat::LibtestJson => Ok(reports::cargo_libtest(&stdout)),
            ReportFormat::GoTestJson => Ok(reports::go_test(&stdout)),
            ReportFormat::JestJson(path) => match before.written_since(path).first() {
                Some(fresh) => std::fs::read_to_string(fresh)
                    .map_err(|e| format!("cannot read {}: {e}", fresh.display()))
                    .and_then(|text| reports::jest_json(&text)),
                None => Err(format!("the runner wrote no report at {}", path.display())),
            },
            ReportFormat::JunitXml(path) => match before.written_since(path) {
                fresh if fresh.is_empty() => Err(format!("the runner wrote no JUnit report at {}", path.display())),
                fresh => reports::junit_files(&fresh),
            },
        };
        let mut answer = json!({
            "runner": runner.name,
            "command": runner.command,
            "exit": finished.status_text(),
        });
        let succeeded = finished.status.as_ref().is_ok_and(|s| s.success());
        match read {
            Ok(results) if !results.is_empty() => {
                let status = if results.failed > 0 || !results.build_errors.is_empty() || !succeeded {
                    "failed"
                } else {
                    "passed"
                };
                answer["status"] = status.into();
                fill(&mut answer, results, self.commands.root());
                if status == "failed" && answer["failed"] == 0 && answer["build_errors"].is_null() {
                    answer["output"] = self.tail(&finished, &runner.report).into();
                }
            }
            Ok(_) => {
                answer["status"] = "error".into();
                answer["error"] = "the runner reported no tests".into();
                answer["output"] = self.tail(&finished, &runner.report).into();
            }
            Err(e) => {
                answer["status"] = "error".into();
                answer["error"] = e.into();
                answer["output"] = self.tail(&finished, &runner.report).into();
            }
        }
        let notes: Vec<String> = runner.note.map(str::to_string).into_iter().chain(run_notes).collect();
        if !notes.is_empty() {
            answer["note"] = notes.join("; ").into();
        }
        Ok(answer.to_string())
    }

    /// The end of the runner's own output (standard error, and standard output unless
    /// the report was printed there), at most the cap.
    fn tail(&self, finished: &process::Finished, report: &ReportFormat) -> String {
        let mut text = String::from_utf8_lossy(&finished.stderr).into_owned();
        if !matches!(report, ReportFormat::LibtestJson | ReportFormat::GoTestJson) {
            text = format!("{}{text}", String::from_utf8_lossy(&finished.stdout));
        }
        let cap = self.commands.cap();
        if text.len() > cap {
            let mut cut = text.len() - cap;
            while !text.is_char_boundary(cut) {
                cut += 1;
            }
            text = format!("[…{cut} bytes before]{}", &text[cut..]);
        }
        text
    }
}

/// Puts the results in the answer, at most [`FAILURE_CAP`] failures listed.
fn fill(answer: &mut Value, mut results: TestResults, root: &Path) {
    // Places under the project are said from its root.
    let prefix = format!("{}/", root.display());
    for f in results.failures.iter_mut().chain(results.build_errors.iter_mut()) {
        if let Some(rel) = f.location.as_deref().and_then(|l| l.strip_prefix(&prefix)) {
            f.location = Some(rel.to_string());
        }
    }
    let listed = results.failures.len().min(FAILURE_CAP);
    let not_listed = results.failures.len() - listed;
    results.failures.truncate(listed);
    results.build_errors.truncate(FAILURE_CAP);
    if let (Value::Object(a), Ok(Value::Object(r))) = (answer, serde_json::to_value(results)) {
        a.extend(r);
        if not_listed > 0 {
            a.insert("failures_not_listed".into(), not_listed.into());
        }
    }
}

/// The report files at a path (the file, or a folder's `*.xml`) with their modification
/// times, taken before a run so that what the run wrote can be told from what an earlier
/// one left (a time comparison would depend on the file system's clock granularity).
#[derive(Debug, Default)]
pub(crate) struct Reports(std::collections::HashMap<PathBuf, Option<SystemTime>>);

impl Reports {
    /// The files at `path` now.
    pub fn at(path: &Path) -> Reports {
        let files: Vec<PathBuf> = if path.is_dir() {
            std::fs::read_dir(path)
                .into_iter()
                .flatten()
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "xml"))
                .collect()
        } else if path.exists() {
            vec![path.to_path_buf()]
        } else {
            Vec::new()
        };
        Reports(files.into_iter().map(|f| (f.clone(), modified(&f))).collect())
    }

    /// The files at `path` written since `self` was taken: new, or modified again.
    pub fn written_since(&self, path: &Path) -> Vec<PathBuf> {
        let mut fresh: Vec<PathBuf> = Reports::at(path)
            .0
            .into_iter()
            .filter(|(f, t)| self.0.get(f).is_none_or(|before| before != t))
            .map(|(f, _)| f)
            .collect();
        fresh.sort();
        fresh
    }
}

fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// The core of `run_tests` and `coverage`: commands in `root` naming "the tests", with a
/// 5-minute timeout, 8 KiB of output, the allowlisted environment and no network.
fn project_commands(root: impl Into<PathBuf>) -> CommandRunner {
    CommandRunner::new(root, "the tests").timeout(Duration::from_secs(300)).output_cap(8 * 1024)
}

project_settings!(RunTests);

impl Tool for RunTests {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn invoke<'a>(&'a self, args: Value, ctx: ToolContext) -> BoxFuture<'a, Result<String, ToolError>> {
        async move {
            let RunTestsArgs { filter } = parse_args(args)?;
            self.run(filter.as_deref(), &ctx).await
        }
        .boxed()
    }
}
