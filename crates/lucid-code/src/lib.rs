//! # lucid-code
//!
//! Tools for agents working on a code base: [`CodeOutline`] (`code_outline`, feature
//! `outline`: a source file's symbols from tree-sitter grammars for Rust, Python, Java,
//! JavaScript, TypeScript, TSX and Go), and [`RunTests`] (`run_tests`) and [`Coverage`]
//! (`coverage`) (feature `tests`: the project's tests and coverage run as `lucid-sandbox`'s
//! `shell` runs a command, answered as structured results read from the runners' reports).
//!
//! [`TOOLS`] are their entries in an application's
//! [`Catalogue`](lucid::tool::catalogue::Catalogue), made from a setup's [`TestsConfig`]
//! (and `lucid_sandbox::SandboxConfig` for the environment and network of the runs).
//!
//! ```
//! use lucid::tool::catalogue::{Catalogue, Need, Setup};
//! let catalogue = Catalogue::new().with(lucid_code::TOOLS);
//! # #[cfg(feature = "tests")]
//! assert!(catalogue.find("run_tests").unwrap().needs(Need::ProjectCode));
//! ```

#![warn(missing_docs)]

#[cfg(feature = "outline")]
mod outline;
#[cfg(feature = "tests")]
mod testing;

#[cfg(feature = "tests")]
use std::path::PathBuf;
#[cfg(any(feature = "outline", feature = "tests"))]
use std::sync::Arc;
#[cfg(feature = "tests")]
use std::time::Duration;

use lucid::tool::catalogue::BuiltinTool;
#[cfg(any(feature = "outline", feature = "tests"))]
use lucid::tool::catalogue::Need;

#[cfg(feature = "outline")]
pub use outline::CodeOutline;
#[cfg(feature = "tests")]
pub use testing::{Coverage, ReportFormat, RunTests};

/// The settings of `run_tests` and `coverage` in a
/// [`Setup`](lucid::tool::catalogue::Setup): how long a run may take (5 minutes unless
/// set), and the commands to run instead of those found from the project's files.
///
/// ```
/// use lucid_code::{ReportFormat, TestsConfig};
/// let config = TestsConfig::default().test_command("make check", ReportFormat::JunitXml("report.xml".into()));
/// # let _ = config;
/// ```
#[cfg(feature = "tests")]
#[derive(Debug, Clone)]
pub struct TestsConfig {
    timeout: Duration,
    test_command: Option<(String, ReportFormat)>,
    coverage_command: Option<(String, PathBuf)>,
}

#[cfg(feature = "tests")]
impl Default for TestsConfig {
    fn default() -> Self {
        TestsConfig { timeout: Duration::from_secs(300), test_command: None, coverage_command: None }
    }
}

#[cfg(feature = "tests")]
impl TestsConfig {
    /// How long one `run_tests` or `coverage` run may take (5 minutes unless set).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The test command `run_tests` runs instead of the one found from the project's files
    /// (see [`RunTests::command`]).
    pub fn test_command(mut self, command: impl Into<String>, report: ReportFormat) -> Self {
        self.test_command = Some((command.into(), report));
        self
    }

    /// The command `coverage` runs and the report it writes (see [`Coverage::command`]).
    pub fn coverage_command(mut self, command: impl Into<String>, report: impl Into<PathBuf>) -> Self {
        self.coverage_command = Some((command.into(), report.into()));
        self
    }
}

/// `code_outline`, `run_tests` and `coverage` (as the features allow), for an
/// application's catalogue.
pub const TOOLS: &[BuiltinTool] = &[
    #[cfg(feature = "outline")]
    BuiltinTool::new(
        "code_outline",
        "lists a source file's symbols (functions, types…) with their lines",
        false,
        &[Need::Root],
        |s| Ok(Arc::new(CodeOutline::new(s.root())?)),
    ),
    #[cfg(feature = "tests")]
    BuiltinTool::new(
        "run_tests",
        "runs the project's tests and answers passed, failed and each failure",
        true,
        &[Need::Root, Need::ProjectCode],
        |s| {
            let sandbox = lucid_sandbox::SandboxConfig::of(s);
            let tests = s.get::<TestsConfig>().cloned().unwrap_or_default();
            let mut t = RunTests::new(s.root())
                .timeout(tests.timeout)
                .network(sandbox.network)
                .environment(sandbox.environment);
            if let Some((command, report)) = tests.test_command {
                t = t.command(command, report);
            }
            Ok(Arc::new(t))
        },
    ),
    #[cfg(feature = "tests")]
    BuiltinTool::new(
        "coverage",
        "measures or reads test coverage: total, per file, a file's uncovered lines",
        true,
        &[Need::Root, Need::ProjectCode],
        |s| {
            let sandbox = lucid_sandbox::SandboxConfig::of(s);
            let tests = s.get::<TestsConfig>().cloned().unwrap_or_default();
            let mut t = Coverage::new(s.root())
                .timeout(tests.timeout)
                .network(sandbox.network)
                .environment(sandbox.environment);
            if let Some((command, report)) = tests.coverage_command {
                t = t.command(command, report);
            }
            Ok(Arc::new(t))
        },
    ),
];
