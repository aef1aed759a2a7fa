//! Built-in tools: [`calculator`](struct@calculator), [`current_time`](struct@current_time),
//! the file tools of a [`Workspace`] (`read_file`, `list_dir`, `search_files`,
//! `write_file`, `edit_file`, confined to its root), `Shell` (feature `shell`; a timeout
//! and an output cap; off unless added) and `Python` (feature `python`; a persistent
//! interpreter per session with limits; off unless added). The last two start from an
//! allowlisted [`Environment`] and run in the code tools' sandbox where the system allows
//! it (namespaces, a seccomp filter, a control group; see `Shell`'s documentation).
//! For agents working on a code base: `CodeOutline` (`code_outline`, feature
//! `code-outline`: a source file's symbols from tree-sitter grammars), and `RunTests`
//! (`run_tests`) and `Coverage` (`coverage`) (feature `test-tools`: the project's tests
//! and coverage run as `shell` runs a command, answered as structured results read from
//! the runners' reports).
//!
//! The [`CATALOGUE`] names every one of them with what an application needs to offer it:
//! a line for help texts, whether it is on by default, whether it writes, and how to make
//! it from a [`Setup`]. A new built-in tool is its own file plus one catalogue entry.
//!
//! Pair the writing tools with a permission policy
//! ([`PermissionPolicy::recommended`](crate::tool::permission::PermissionPolicy::recommended)
//! asks before every tool the catalogue marks [`writes`](BuiltinTool::writes)).

mod arithmetic;
mod clock;
mod files;
#[cfg(feature = "code-outline")]
mod outline;
#[cfg(feature = "shell")]
mod process;
#[cfg(feature = "python")]
mod python;
#[cfg(any(feature = "shell", feature = "python"))]
mod sandbox;
#[cfg(feature = "shell")]
mod shell;
#[cfg(any(feature = "sqlite", feature = "postgres"))]
mod sql;
#[cfg(feature = "test-tools")]
mod testing;

pub use arithmetic::{calculator, evaluate};
pub use clock::current_time;
pub use files::{PROTECTED, Workspace};
#[cfg(feature = "code-outline")]
pub use outline::CodeOutline;
#[cfg(feature = "python")]
pub use python::{Python, PythonError};
#[cfg(any(feature = "shell", feature = "python"))]
pub use sandbox::Environment;
#[cfg(feature = "shell")]
pub use shell::Shell;
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub use sql::{Database, SqlError, Table};
#[cfg(feature = "sqlite")]
pub use sql::{SchemaHistory, SchemaHistoryTool, SqlMigrate, Version, project_of};
#[cfg(feature = "test-tools")]
pub use testing::{Coverage, ReportFormat, RunTests};

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use super::{AskUser, Interviewer, Tool, ToolSet};

/// What the built-in tools are made from: the folder the file tools and the shell work in,
/// who answers `ask_user` (nobody: the deferred form, which stops the run with the
/// questions), how long a shell command may run (60 s unless set), and the Python
/// interpreter of the `python` tool (`python3` on `PATH` unless set; 30 s a call).
///
/// ```
/// use std::time::Duration;
/// use lucid::tool::builtin::{Setup, find};
/// let setup = Setup::new(std::env::temp_dir()).shell_timeout(Duration::from_secs(5));
/// let tool = find("read_file").unwrap().build(&setup).unwrap();
/// assert_eq!(tool.spec().name(), "read_file");
/// ```
pub struct Setup {
    root: PathBuf,
    interviewer: Option<Arc<dyn Interviewer>>,
    shell_timeout: Duration,
    /// The environment `shell` and `python` start with.
    #[cfg(any(feature = "shell", feature = "python"))]
    environment: Environment,
    /// `shell` may reach the network.
    #[cfg(feature = "shell")]
    shell_network: bool,
    #[cfg(feature = "python")]
    python: PathBuf,
    #[cfg(feature = "python")]
    python_timeout: Duration,
    /// The database of the SQL tools.
    #[cfg(any(feature = "sqlite", feature = "postgres"))]
    database: Option<String>,
    /// The SQL tools, made by the first one built and shared by the other.
    #[cfg(any(feature = "sqlite", feature = "postgres"))]
    sql: OnceLock<Vec<Arc<dyn Tool>>>,
    /// Where `schema_history` keeps versions, and the project's name.
    #[cfg(feature = "sqlite")]
    history: Option<(sql::HistoryStore, Option<String>)>,
    /// How long `run_tests` and `coverage` may run.
    #[cfg(feature = "test-tools")]
    tests_timeout: Duration,
    /// The configured test command of `run_tests`.
    #[cfg(feature = "test-tools")]
    test_command: Option<(String, ReportFormat)>,
    /// The configured coverage command of `coverage` and the report it writes.
    #[cfg(feature = "test-tools")]
    coverage_command: Option<(String, PathBuf)>,
    /// Protected paths the file tools may write all the same.
    unprotected: Vec<String>,
    /// The workspace's tools, made by the first file tool built and shared by the others.
    files: OnceLock<Vec<Arc<dyn Tool>>>,
}

impl std::fmt::Debug for Setup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Setup")
            .field("root", &self.root)
            .field("interviewer", &self.interviewer.is_some())
            .field("shell_timeout", &self.shell_timeout)
            .finish()
    }
}

impl Setup {
    /// Tools working in `root` (which must exist when a file tool is built), with nobody
    /// to answer `ask_user`.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Setup {
            root: root.into(),
            interviewer: None,
            shell_timeout: Duration::from_secs(60),
            #[cfg(any(feature = "shell", feature = "python"))]
            environment: Environment::default(),
            #[cfg(feature = "shell")]
            shell_network: false,
            #[cfg(feature = "python")]
            python: PathBuf::from("python3"),
            #[cfg(feature = "python")]
            python_timeout: Duration::from_secs(30),
            #[cfg(any(feature = "sqlite", feature = "postgres"))]
            database: None,
            #[cfg(any(feature = "sqlite", feature = "postgres"))]
            sql: OnceLock::new(),
            #[cfg(feature = "sqlite")]
            history: None,
            #[cfg(feature = "test-tools")]
            tests_timeout: Duration::from_secs(300),
            #[cfg(feature = "test-tools")]
            test_command: None,
            #[cfg(feature = "test-tools")]
            coverage_command: None,
            unprotected: Vec::new(),
            files: OnceLock::new(),
        }
    }

    /// How long one `run_tests` or `coverage` run may take (5 minutes unless set).
    #[cfg(feature = "test-tools")]
    pub fn tests_timeout(mut self, timeout: Duration) -> Self {
        self.tests_timeout = timeout;
        self
    }

    /// The test command `run_tests` runs instead of the one found from the project's files
    /// (see [`RunTests::command`]).
    #[cfg(feature = "test-tools")]
    pub fn test_command(mut self, command: impl Into<String>, report: ReportFormat) -> Self {
        self.test_command = Some((command.into(), report));
        self
    }

    /// The command `coverage` runs and the report it writes (see [`Coverage::command`]).
    #[cfg(feature = "test-tools")]
    pub fn coverage_command(mut self, command: impl Into<String>, report: impl Into<PathBuf>) -> Self {
        self.coverage_command = Some((command.into(), report.into()));
        self
    }

    /// Who answers `ask_user`.
    pub fn interviewer(mut self, interviewer: Arc<dyn Interviewer>) -> Self {
        self.interviewer = Some(interviewer);
        self
    }

    /// How long a `shell` command may run before it is killed.
    pub fn shell_timeout(mut self, timeout: Duration) -> Self {
        self.shell_timeout = timeout;
        self
    }

    /// The environment `shell` commands and the `python` interpreter start with: the
    /// allowlisted variables of this process unless set ([`Environment::isolated`] for a
    /// server, which passes none of its own).
    #[cfg(any(feature = "shell", feature = "python"))]
    pub fn environment(mut self, environment: Environment) -> Self {
        self.environment = environment;
        self
    }

    /// Lets `shell` commands reach the network (off unless set: they run in the network
    /// namespace `python` runs in, with loopback only).
    #[cfg(feature = "shell")]
    pub fn shell_network(mut self, on: bool) -> Self {
        self.shell_network = on;
        self
    }

    /// The interpreter of the `python` tool: a name looked up on `PATH`, or a path.
    #[cfg(feature = "python")]
    pub fn python(mut self, program: impl Into<PathBuf>) -> Self {
        self.python = program.into();
        self
    }

    /// How long one `python` call may run (and how many CPU seconds it may use) before
    /// the interpreter is killed.
    #[cfg(feature = "python")]
    pub fn python_timeout(mut self, timeout: Duration) -> Self {
        self.python_timeout = timeout;
        self
    }

    /// The database `sql_query` and `sql_schema` read: a SQLite file or a Postgres URL
    /// (see [`Database::open`]).
    #[cfg(any(feature = "sqlite", feature = "postgres"))]
    pub fn database(mut self, url: impl Into<String>) -> Self {
        self.database = Some(url.into());
        self
    }

    /// The SQL tool `name`, from the one [`Database`] this setup opens.
    #[cfg(any(feature = "sqlite", feature = "postgres"))]
    fn sql_tool(&self, name: &str) -> std::io::Result<Arc<dyn Tool>> {
        let tools = match self.sql.get() {
            Some(t) => t,
            None => {
                let Some(url) = &self.database else {
                    return Err(std::io::Error::new(
                        std::io::ErrorKind::NotFound,
                        format!("`{name}` needs a database, and none was given"),
                    ));
                };
                let made = Arc::new(Database::open(url)?).tools();
                self.sql.get_or_init(|| made)
            }
        };
        tools
            .iter()
            .find(|t| t.spec().name() == name)
            .cloned()
            .ok_or_else(|| std::io::Error::other(format!("the database has no tool `{name}`")))
    }

    /// Lets the file tools write to one of the [`PROTECTED`] paths, named as it is there
    /// (see [`Workspace::unprotect`]).
    pub fn unprotect(mut self, name: impl Into<String>) -> Self {
        self.unprotected.push(name.into());
        self
    }

    /// The file tool `name`, from the one workspace this setup makes.
    fn file_tool(&self, name: &str) -> std::io::Result<Arc<dyn Tool>> {
        let tools = match self.files.get() {
            Some(t) => t,
            None => {
                let workspace = self
                    .unprotected
                    .iter()
                    .try_fold(Workspace::new(&self.root)?, |w, name| Ok::<_, std::io::Error>(w.unprotect(name)))?;
                let made = Arc::new(workspace).tools();
                self.files.get_or_init(|| made)
            }
        };
        tools
            .iter()
            .find(|t| t.spec().name() == name)
            .cloned()
            .ok_or_else(|| std::io::Error::other(format!("the workspace has no tool `{name}`")))
    }
}

/// One built-in tool of the [`CATALOGUE`]: what it is, not where an application turns it
/// on (that is the application's policy; `lucid` keeps its own).
///
/// ```
/// let writing: Vec<&str> = lucid::tool::builtin::CATALOGUE
///     .iter()
///     .filter(|t| t.writes)
///     .map(|t| t.name)
///     .collect();
/// assert!(writing.contains(&"write_file") && !writing.contains(&"read_file"));
/// ```
#[derive(Debug, Clone, Copy)]
pub struct BuiltinTool {
    /// The tool's name, as the model and a tool list spell it.
    pub name: &'static str,
    /// What it does, in one line for help texts.
    pub summary: &'static str,
    /// It changes things outside the conversation (files, commands), so the
    /// [recommended](crate::tool::permission::PermissionPolicy::recommended) policy asks
    /// before each call.
    pub writes: bool,
    /// What it needs from outside, when it needs something (an interpreter, a
    /// database): without it, [`build`](BuiltinTool::build) fails with
    /// [`NotFound`](std::io::ErrorKind::NotFound).
    pub needs: Option<&'static str>,
    make: fn(&Setup) -> std::io::Result<Arc<dyn Tool>>,
}

impl BuiltinTool {
    /// Makes the tool. Fails for the file tools when the setup's root is not a folder
    /// that can be opened, and for `python` when its interpreter is not found.
    pub fn build(&self, setup: &Setup) -> std::io::Result<Arc<dyn Tool>> {
        (self.make)(setup)
    }
}

/// Every built-in tool of this build (the `shell` entry needs the feature `shell`, the
/// `python` entry the feature `python` and a Python 3 on `PATH`, the SQL tools the feature
/// `sqlite` or `postgres` and a [database](Setup::database)), in the order help texts list
/// them.
///
/// ```
/// use lucid::tool::builtin::{CATALOGUE, Setup};
/// let setup = Setup::new(std::env::temp_dir());
/// let tools: Vec<_> = CATALOGUE.iter().filter(|t| t.needs.is_none()).map(|t| t.build(&setup).unwrap()).collect();
/// assert_eq!(tools[0].spec().name(), "calculator");
/// ```
pub const CATALOGUE: &[BuiltinTool] = &[
    BuiltinTool {
        name: "calculator",
        summary: "evaluates an arithmetic expression",
        writes: false,
        needs: None,
        make: |_| Ok(Arc::new(calculator)),
    },
    BuiltinTool {
        name: "current_time",
        summary: "the date and time in a time zone",
        writes: false,
        needs: None,
        make: |_| Ok(Arc::new(current_time)),
    },
    BuiltinTool {
        name: "ask_user",
        summary: "asks the user clarifying questions",
        writes: false,
        needs: None,
        make: |s| {
            Ok(Arc::new(match &s.interviewer {
                Some(i) => AskUser::new(Arc::clone(i)),
                None => AskUser::deferred(),
            }))
        },
    },
    BuiltinTool {
        name: "read_file",
        summary: "reads a text file",
        writes: false,
        needs: None,
        make: |s| s.file_tool("read_file"),
    },
    BuiltinTool {
        name: "list_dir",
        summary: "lists a directory",
        writes: false,
        needs: None,
        make: |s| s.file_tool("list_dir"),
    },
    BuiltinTool {
        name: "search_files",
        summary: "searches text files for a pattern",
        writes: false,
        needs: None,
        make: |s| s.file_tool("search_files"),
    },
    BuiltinTool {
        name: "write_file",
        summary: "writes a text file",
        writes: true,
        needs: None,
        make: |s| s.file_tool("write_file"),
    },
    BuiltinTool {
        name: "edit_file",
        summary: "replaces text in a file",
        writes: true,
        needs: None,
        make: |s| s.file_tool("edit_file"),
    },
    #[cfg(feature = "code-outline")]
    BuiltinTool {
        name: "code_outline",
        summary: "lists a source file's symbols (functions, types…) with their lines",
        writes: false,
        needs: None,
        make: |s| Ok(Arc::new(CodeOutline::new(&s.root)?)),
    },
    #[cfg(feature = "shell")]
    BuiltinTool {
        name: "shell",
        summary: "runs a shell command",
        writes: true,
        needs: None,
        make: |s| {
            Ok(Arc::new(
                Shell::new(&s.root)
                    .timeout(s.shell_timeout)
                    .network(s.shell_network)
                    .environment(s.environment.clone()),
            ))
        },
    },
    #[cfg(feature = "test-tools")]
    BuiltinTool {
        name: "run_tests",
        summary: "runs the project's tests and answers passed, failed and each failure",
        writes: true,
        needs: None,
        make: |s| {
            let mut t = RunTests::new(&s.root)
                .timeout(s.tests_timeout)
                .network(s.shell_network)
                .environment(s.environment.clone());
            if let Some((command, report)) = &s.test_command {
                t = t.command(command, report.clone());
            }
            Ok(Arc::new(t))
        },
    },
    #[cfg(feature = "test-tools")]
    BuiltinTool {
        name: "coverage",
        summary: "measures or reads test coverage: total, per file, a file's uncovered lines",
        writes: true,
        needs: None,
        make: |s| {
            let mut t = Coverage::new(&s.root)
                .timeout(s.tests_timeout)
                .network(s.shell_network)
                .environment(s.environment.clone());
            if let Some((command, report)) = &s.coverage_command {
                t = t.command(command, report);
            }
            Ok(Arc::new(t))
        },
    },
    #[cfg(feature = "python")]
    BuiltinTool {
        name: "python",
        summary: "runs Python code in a persistent interpreter (no network, limits)",
        writes: true,
        needs: Some("a Python 3 interpreter"),
        make: |s| {
            Ok(Arc::new(Python::with_program(&s.python)?.timeout(s.python_timeout).environment(s.environment.clone())))
        },
    },
    #[cfg(any(feature = "sqlite", feature = "postgres"))]
    BuiltinTool {
        name: "sql_query",
        summary: "runs one read-only SQL statement on the database",
        writes: false,
        needs: Some("a database"),
        make: |s| s.sql_tool("sql_query"),
    },
    #[cfg(any(feature = "sqlite", feature = "postgres"))]
    BuiltinTool {
        name: "sql_schema",
        summary: "lists the database's tables, columns, keys and indexes",
        writes: false,
        needs: Some("a database"),
        make: |s| s.sql_tool("sql_schema"),
    },
    #[cfg(feature = "sqlite")]
    BuiltinTool {
        name: "schema_history",
        summary: "keeps the database schema's versions: save, list, show, diff, restore (the migration back)",
        writes: false,
        needs: Some("a database"),
        make: |s| s.history_tool(),
    },
    #[cfg(feature = "sqlite")]
    BuiltinTool {
        name: "sql_migrate",
        summary: "applies a migration in one transaction, writes it as up/down files, records the version",
        writes: true,
        needs: Some("a database"),
        make: |s| s.migrate_tool(),
    },
];

/// The catalogue entry named `name`.
///
/// ```
/// let write = lucid::tool::builtin::find("write_file").unwrap();
/// assert!(write.writes);
/// assert!(lucid::tool::builtin::find("teleport").is_none());
/// ```
pub fn find(name: &str) -> Option<&'static BuiltinTool> {
    CATALOGUE.iter().find(|t| t.name == name)
}

/// The names of the built-in tools, in catalogue order.
///
/// ```
/// let names: Vec<&str> = lucid::tool::builtin::names().collect();
/// assert_eq!(names[..3], ["calculator", "current_time", "ask_user"]);
/// ```
pub fn names() -> impl Iterator<Item = &'static str> {
    CATALOGUE.iter().map(|t| t.name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_catalogue_names_every_tool_once_and_each_entry_builds_its_own_tool() {
        let mut names: Vec<&str> = names().collect();
        let mut expected = vec![
            "calculator",
            "current_time",
            "ask_user",
            "read_file",
            "list_dir",
            "search_files",
            "write_file",
            "edit_file",
        ];
        if cfg!(feature = "code-outline") {
            expected.push("code_outline");
        }
        if cfg!(feature = "shell") {
            expected.push("shell");
        }
        if cfg!(feature = "test-tools") {
            expected.extend(["run_tests", "coverage"]);
        }
        if cfg!(feature = "python") {
            expected.push("python");
        }
        if cfg!(any(feature = "sqlite", feature = "postgres")) {
            expected.extend(["sql_query", "sql_schema"]);
        }
        if cfg!(feature = "sqlite") {
            expected.extend(["schema_history", "sql_migrate"]);
        }
        assert_eq!(names, expected);
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), CATALOGUE.len(), "names are unique");
        let setup = Setup::new(std::env::temp_dir());
        for entry in CATALOGUE.iter().filter(|e| e.needs.is_none()) {
            let tool = entry.build(&setup).unwrap();
            assert_eq!(tool.spec().name(), entry.name);
        }
        let writing: Vec<&str> = CATALOGUE.iter().filter(|t| t.writes).map(|t| t.name).collect();
        assert_eq!(writing[..2], ["write_file", "edit_file"]);
    }

    #[test]
    fn file_tools_share_one_workspace_and_a_missing_root_is_an_error() {
        let setup = Setup::new(std::env::temp_dir());
        let first = find("read_file").unwrap().build(&setup).unwrap();
        let again = find("read_file").unwrap().build(&setup).unwrap();
        assert!(Arc::ptr_eq(&first, &again), "the workspace's tools are made once per setup");
        let missing = Setup::new("/nonexistent/lucid-catalogue-root");
        assert!(find("write_file").unwrap().build(&missing).is_err());
        assert!(find("calculator").unwrap().build(&missing).is_ok(), "tools without a root do not need one");
    }

    #[cfg(feature = "sqlite")]
    #[test]
    fn the_sql_tools_need_a_database_and_share_the_one_they_are_given() {
        let setup = Setup::new(std::env::temp_dir());
        let Err(err) = find("sql_query").unwrap().build(&setup) else { panic!("built without a database") };
        assert_eq!(err.kind(), std::io::ErrorKind::NotFound);
        assert!(err.to_string().contains("`sql_query` needs a database"), "{err}");
        let path = std::env::temp_dir().join(format!("lucid-catalogue-{}.db", std::process::id()));
        rusqlite::Connection::open(&path).unwrap().execute_batch("CREATE TABLE t (a)").unwrap();
        let setup = Setup::new(std::env::temp_dir()).database(path.to_str().unwrap());
        let first = find("sql_query").unwrap().build(&setup).unwrap();
        assert!(Arc::ptr_eq(&first, &find("sql_query").unwrap().build(&setup).unwrap()));
        assert_eq!(find("sql_schema").unwrap().build(&setup).unwrap().spec().name(), "sql_schema");
        let nowhere = Setup::new(std::env::temp_dir()).database("/nonexistent/lucid.db");
        let Err(err) = find("sql_schema").unwrap().build(&nowhere) else { panic!("built on a missing file") };
        assert!(err.to_string().contains("no SQLite database at /nonexistent/lucid.db"), "{err}");
        let _ = std::fs::remove_file(path);
    }
}
