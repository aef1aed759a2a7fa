//! # lucid-sandbox
//!
//! Commands and code run confined, as tools of Lucid agents: [`Shell`] (`shell`: a command
//! with `sh -c`, a timeout and an output cap) and [`Python`] (`python`: a persistent
//! interpreter per session with time, CPU, memory and output limits), both starting from an
//! allowlisted [`Environment`] and running in the [`sandbox`] where the system allows it
//! (namespaces, a seccomp filter, a control group). [`CommandRunner`] is the core of the
//! tools that run command lines, `shell` and the tools that run a project's commands
//! (`run_tests`, `coverage` in `lucid-code`): their settings and the one way they run a
//! command ([`process::run`]), a project's own code with a home of its own.
//!
//! [`TOOLS`] are their entries in an application's
//! [`Catalogue`](lucid::tool::catalogue::Catalogue), made from a setup's [`SandboxConfig`].
//!
//! ```
//! use std::time::Duration;
//! use lucid::tool::catalogue::{Catalogue, Setup};
//! let catalogue = Catalogue::new().with(lucid_sandbox::TOOLS);
//! let setup = Setup::new(std::env::temp_dir())
//!     .with(lucid_sandbox::SandboxConfig::default().shell_timeout(Duration::from_secs(5)));
//! let shell = catalogue.find("shell").unwrap().build(&setup).unwrap();
//! assert_eq!(shell.spec().name(), "shell");
//! ```

#![warn(missing_docs)]

pub mod command;
pub mod process;
mod python;
pub mod sandbox;
mod shell;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use lucid::tool::catalogue::{BuiltinTool, Need, Setup};

pub use command::CommandRunner;
pub use python::{Python, PythonError};
pub use sandbox::Environment;
pub use shell::Shell;

/// The settings of `shell` and `python` in a [`Setup`] (and of the tools that run a
/// project's commands as `shell` does): the environment they start with, whether commands
/// may reach the network, how long a command may run (60 s unless set), and the Python
/// interpreter (`python3` on `PATH` unless set; 30 s a call).
#[derive(Debug, Clone)]
pub struct SandboxConfig {
    /// The environment commands and the interpreter start with.
    pub environment: Environment,
    /// Commands may reach the network.
    pub network: bool,
    /// How long a `shell` command may run before it is killed.
    pub shell_timeout: Duration,
    /// The interpreter of the `python` tool: a name looked up on `PATH`, or a path.
    pub python: PathBuf,
    /// How long one `python` call may run (and how many CPU seconds it may use).
    pub python_timeout: Duration,
}

impl Default for SandboxConfig {
    fn default() -> Self {
        SandboxConfig {
            environment: Environment::default(),
            network: false,
            shell_timeout: Duration::from_secs(60),
            python: PathBuf::from("python3"),
            python_timeout: Duration::from_secs(30),
        }
    }
}

impl SandboxConfig {
    /// The environment `shell` commands and the `python` interpreter start with: the
    /// allowlisted variables of this process unless set ([`Environment::isolated`] for a
    /// server, which passes none of its own).
    pub fn environment(mut self, environment: Environment) -> Self {
        self.environment = environment;
        self
    }

    /// Lets commands reach the network (off unless set: they run in the network namespace
    /// `python` runs in, with loopback only).
    pub fn network(mut self, on: bool) -> Self {
        self.network = on;
        self
    }

    /// How long a `shell` command may run before it is killed.
    pub fn shell_timeout(mut self, timeout: Duration) -> Self {
        self.shell_timeout = timeout;
        self
    }

    /// The interpreter of the `python` tool: a name looked up on `PATH`, or a path.
    pub fn python(mut self, program: impl Into<PathBuf>) -> Self {
        self.python = program.into();
        self
    }

    /// How long one `python` call may run (and how many CPU seconds it may use) before the
    /// interpreter is killed.
    pub fn python_timeout(mut self, timeout: Duration) -> Self {
        self.python_timeout = timeout;
        self
    }

    /// The settings of `setup`, or the defaults.
    pub fn of(setup: &Setup) -> SandboxConfig {
        setup.get::<SandboxConfig>().cloned().unwrap_or_default()
    }
}

/// `shell` and `python`, for an application's catalogue.
pub const TOOLS: &[BuiltinTool] = &[
    BuiltinTool::new("shell", "runs a shell command", true, &[Need::Root], |s| {
        let c = SandboxConfig::of(s);
        Ok(Arc::new(Shell::new(s.root()).timeout(c.shell_timeout).network(c.network).environment(c.environment)))
    }),
    BuiltinTool::new(
        "python",
        "runs Python code in a persistent interpreter (no network, limits)",
        true,
        &[Need::Interpreter],
        |s| {
            let c = SandboxConfig::of(s);
            Ok(Arc::new(Python::with_program(&c.python)?.timeout(c.python_timeout).environment(c.environment)))
        },
    ),
];
