//! `python`: a persistent CPython interpreter, like a notebook. Variables, imports and the
//! files of its working folder survive from one call to the next; each call answers with
//! the code's stdout and stderr, the value of its last expression, the error if it raised
//! one, and the files it wrote.
//!
//! Each session (the [`ToolContext::session`] of the call) has an interpreter and, unless
//! one folder was given ([`Python::folder`]), a working folder of its own: one session
//! never sees another's variables or (by its folder's name) files, and one session's long
//! call never waits for another's. A session's interpreter idle for
//! [`Python::idle_timeout`] (10 minutes) is stopped and its folder removed; at most
//! [`Python::max_interpreters`] (8) run at once, the least recently used idle one making
//! room for a new session.
//!
//! The interpreter is the system's `python3` (or the program given to
//! [`Python::program`]) running a small driver (`driver.py`, sent with `-c`) that speaks
//! one JSON line per request and answer over its original stdin and stdout; the code's own
//! output goes to temporary files, so nothing it prints can break that protocol, and every
//! answer carries the request's random id, so a line the code writes into the protocol on
//! purpose cannot pass for the answer to a later call.
//!
//! Limits, set before the interpreter starts (`setrlimit` in the child):
//! - wall clock per call ([`Python::timeout`], 30 s): past it, the interpreter and every
//!   process it started are killed, and the next call starts a fresh one, saying that the
//!   state was lost;
//! - CPU seconds per call (`RLIMIT_CPU`, raised by the driver before each call by the
//!   call's allowance, so the limit is per call although the process lives on);
//! - address space (`RLIMIT_AS`, [`Python::memory`], 1 GiB, per process): an allocation
//!   past it raises `MemoryError` in the code, and the interpreter stays;
//! - processes ([`Python::processes`], 64 for the whole tree, threads included);
//! - output ([`Python::output_cap`], 16 KiB of stdout and of stderr; the rest is counted);
//! - files: one written file may not pass 256 MiB (`RLIMIT_FSIZE`, with `SIGXFSZ`
//!   ignored, so the write fails with an error instead of killing the interpreter);
//! - the sandbox of the code tools (see [`Shell`](crate::Shell)): no network, no Unix
//!   sockets, its own `/proc`, every process it started killed with it, an allowlisted
//!   environment ([`Python::environment`]). What the system does not allow is said in the
//!   tool's description and in the first answer of each interpreter.
//!
//! It is not a sandbox against everything: the code runs as the user, can read what the
//! user can read, and can write outside its folder. That is why the recommended
//! permission policy asks before each call.

mod interpreter;
mod sessions;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use futures::FutureExt;
use futures::future::BoxFuture;
use serde::Deserialize;
use serde_json::Value;

use self::interpreter::{Interpreter, Launch, render};
use self::sessions::{Folder, Sessions, session_folder, view_folder};
use crate::sandbox::{Environment, Plan, View};
use lucid::tool::{Tool, ToolContext, ToolError, ToolSpec, parse_args};

/// The `python` tool: one interpreter per session, started at the session's first call
/// and kept until it is idle too long or the tool is dropped (which kills every one of
/// them with everything they started).
///
/// ```no_run
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use lucid::Tool;
/// let python = lucid_sandbox::Python::new().unwrap();
/// python.invoke(serde_json::json!({"code": "import math\nr = math.sqrt(2)"}), Default::default()).await.unwrap();
/// let out = python.invoke(serde_json::json!({"code": "round(r, 3)"}), Default::default()).await.unwrap();
/// assert!(out.contains("1.414"));
/// # });
/// ```
#[derive(Debug)]
pub struct Python {
    spec: ToolSpec,
    launch: Launch,
    timeout: Duration,
    cap: usize,
    /// Declared before the root folder, so the sessions' folders go first.
    sessions: Arc<Sessions>,
    folder: Folder,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct PythonArgs {
    /// Python code. The value of a last line that is an expression is returned, as in a
    /// notebook.
    code: String,
}

/// Why the interpreter could not be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PythonError {
    /// No such program on `PATH` (or at the path given).
    #[error(
        "the python tool needs a Python 3 interpreter, and `{0}` was not found on PATH \
         (install python3, or name one with `python = \"/path/to/python3\"` in the configuration)"
    )]
    NotFound(String),
    /// The working folder could not be made.
    #[error("the python tool could not make its working folder {path}: {source}")]
    Folder {
        /// The folder.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

impl From<PythonError> for std::io::Error {
    fn from(e: PythonError) -> Self {
        let kind = match &e {
            PythonError::NotFound(_) => std::io::ErrorKind::NotFound,
            PythonError::Folder { source, .. } => source.kind(),
        };
        std::io::Error::new(kind, e)
    }
}

impl Python {
    /// The tool with `python3` from `PATH`, a fresh working folder in the temporary
    /// directory (removed with the tool) and the default limits. Fails when there is no
    /// `python3`.
    pub fn new() -> Result<Self, PythonError> {
        Python::with_program("python3")
    }

    /// The tool with the interpreter `program` (a name looked up on `PATH`, or a path).
    pub fn with_program(program: impl AsRef<Path>) -> Result<Self, PythonError> {
        let program = find_program(program.as_ref())?;
        let path = std::env::temp_dir().join(format!("lucid-python-{}-{:016x}", std::process::id(), fastrand::u64(..)));
        std::fs::create_dir_all(&path).map_err(|source| PythonError::Folder { path: path.clone(), source })?;
        let plan = Plan::new(false, 64);
        let mut description = "Runs Python 3 code in a persistent interpreter: variables, imports and files in its \
                               working folder stay between calls. Returns stdout, stderr, the value of the last \
                               expression, any error, and the files written. No network access, no Unix sockets."
            .to_string();
        let missing = plan.missing("the interpreter");
        if !missing.is_empty() {
            description.push_str(&format!(" On this system: {}.", missing.join("; ")));
        }
        let spec = ToolSpec::for_args::<PythonArgs>("python", &description);
        Ok(Python {
            spec,
            launch: Launch {
                program,
                environment: Environment::default(),
                plan,
                memory: 1 << 30,
                cpu: 30,
                start_timeout: Duration::from_secs(30),
            },
            timeout: Duration::from_secs(30),
            cap: 16 * 1024,
            sessions: Arc::new(Sessions::new(8, 4, Duration::from_secs(600))),
            folder: Folder { path, owned: true, view: None },
        })
    }

    /// Works in `folder` (made if missing, and kept when the tool is dropped) instead of a
    /// temporary one; every session's interpreter then works in this one folder.
    pub fn folder(mut self, folder: impl Into<PathBuf>) -> Result<Self, PythonError> {
        let path = folder.into();
        std::fs::create_dir_all(&path).map_err(|source| PythonError::Folder { path: path.clone(), source })?;
        self.folder = Folder { path, owned: false, view: None };
        Ok(self)
    }

    /// The working folder (of a call without a session; each session's folder is inside
    /// it, unless [`Python::folder`] gave one for all).
    pub fn working_folder(&self) -> &Path {
        &self.folder.path
    }

    /// How long one call may run before the interpreter is killed (and CPU seconds per
    /// call, unless [`Python::cpu`] says otherwise after this).
    pub fn timeout(mut self, d: Duration) -> Self {
        self.timeout = d;
        self.launch.cpu = whole_seconds(d);
        self.launch.start_timeout = d.max(Duration::from_secs(10));
        self
    }

    /// CPU time one call may use (rounded up to whole seconds).
    pub fn cpu(mut self, d: Duration) -> Self {
        self.launch.cpu = whole_seconds(d);
        self
    }

    /// Most bytes of address space each process of the interpreter may use.
    pub fn memory(mut self, bytes: u64) -> Self {
        self.launch.memory = bytes;
        self
    }

    /// Most processes (threads included) the interpreter and what it starts may have at
    /// once, where the system can count them (a user namespace, not as root); 64 unless set.
    pub fn processes(mut self, n: u64) -> Self {
        self.launch.plan.processes = n.max(1);
        self
    }

    /// How many bytes of stdout, and of stderr, the model reads at most per call.
    pub fn output_cap(mut self, bytes: usize) -> Self {
        self.cap = bytes.max(1);
        self
    }

    /// The environment the interpreter starts with (the allowlisted variables of this
    /// process unless set; [`Environment::isolated`] for a server).
    pub fn environment(mut self, environment: Environment) -> Self {
        self.launch.environment = environment;
        self
    }

    /// How many sessions' interpreters may run at once (8 unless set).
    pub fn max_interpreters(mut self, n: usize) -> Self {
        self.sessions = Arc::new(Sessions::new(n.max(1), self.sessions.max_per_owner, self.sessions.idle));
        self
    }

    /// How many of them the sessions of one owner may hold
    /// ([`ToolContext::owner`](lucid::tool::ToolContext::owner): a tenant of `lucid serve`),
    /// 4 unless set: one owner's sessions never take every interpreter, and at its cap an
    /// owner's new session stops the owner's own least recently used idle one. Sessions
    /// without an owner are bounded by [`Python::max_interpreters`] alone.
    ///
    /// ```no_run
    /// let python = lucid_sandbox::Python::new()?.max_interpreters(16).max_interpreters_per_owner(2);
    /// # drop(python);
    /// # Ok::<(), lucid_sandbox::PythonError>(())
    /// ```
    pub fn max_interpreters_per_owner(mut self, n: usize) -> Self {
        self.sessions = Arc::new(Sessions::new(self.sessions.max_live, n.max(1), self.sessions.idle));
        self
    }

    /// How long a session's interpreter may sit unused before it is stopped and the
    /// folder made for it removed (10 minutes unless set).
    pub fn idle_timeout(mut self, d: Duration) -> Self {
        self.sessions = Arc::new(Sessions::new(self.sessions.max_live, self.sessions.max_per_owner, d));
        self
    }

    async fn run(&self, code: &str, ctx: &ToolContext) -> Result<String, ToolError> {
        let session = ctx.session.as_deref().unwrap_or_default();
        let slot = self.sessions.slot(session, ctx.owner.as_deref(), || {
            if session.is_empty() || !self.folder.owned {
                return Ok(Folder { path: self.folder.path.clone(), owned: false, view: None });
            }
            let path = session_folder(&self.folder.path, session);
            std::fs::create_dir_all(&path)?;
            Ok(Folder { path, owned: true, view: Some(view_folder(&self.folder.path, session)) })
        })?;
        self.sessions.reap_in_background();
        slot.touch();
        let mut running = slot.interpreter.lock().await;
        let mut notes = Vec::new();
        if running.is_none() {
            notes.extend(self.launch.plan.network_note("the interpreter").map(|m| format!("note: {m}")));
            let view = match &slot.folder.view {
                Some(v) => Some(
                    View::new(&self.folder.path, &slot.folder.path, v)
                        .map_err(|e| ToolError::new(format!("could not prepare the working folder: {e}")))?,
                ),
                None => None,
            };
            *running = Some(Interpreter::start(&self.launch, &slot.folder.path, view).await?);
        }
        let Some(interpreter) = running.as_mut() else {
            return Err(ToolError::new("the python interpreter is not running"));
        };
        let request = serde_json::json!({"code": code, "cpu": self.launch.cpu.max(1), "cap": self.cap});
        let exchange = interpreter.exchange(&request);
        let outcome = tokio::select! {
            r = tokio::time::timeout(self.timeout, exchange) => r,
            _ = ctx.cancel.cancelled() => {
                *running = None;
                return Err(ToolError::new(
                    "the call was cancelled; the interpreter was stopped and its state (variables, imports) is lost",
                ));
            }
        };
        slot.touch();
        match outcome {
            Err(_) => {
                *running = None;
                Err(ToolError::new(format!(
                    "the code did not finish within {:.1} s: the interpreter was killed and its state (variables, \
                     imports) is lost; the next call starts a fresh one (files in the working folder remain)",
                    self.timeout.as_secs_f64()
                )))
            }
            Ok(Err(why)) => {
                let status = match running.take() {
                    Some(i) => i.stop().await,
                    None => None,
                };
                Err(ToolError::new(format!(
                    "the interpreter stopped ({why}{}): its state (variables, imports) is lost; the next call starts \
                     a fresh one (files in the working folder remain)",
                    status.map(|s| format!(", {s}")).unwrap_or_default()
                )))
            }
            Ok(Ok(answer)) => {
                notes.extend(render(&answer));
                Ok(notes.join("\n"))
            }
        }
    }
}

/// `d` in whole seconds, rounded up.
fn whole_seconds(d: Duration) -> u64 {
    d.as_secs() + u64::from(d.subsec_nanos() > 0)
}

/// `program` itself when it is a path, else the first match on `PATH`.
fn find_program(program: &Path) -> Result<PathBuf, PythonError> {
    use std::os::unix::fs::PermissionsExt;
    let runnable = |p: &Path| p.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0);
    if program.components().count() > 1 {
        return if runnable(program) {
            Ok(program.to_path_buf())
        } else {
            Err(PythonError::NotFound(program.display().to_string()))
        };
    }
    std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|dir| dir.join(program))
        .find(|p| runnable(p))
        .ok_or_else(|| PythonError::NotFound(program.display().to_string()))
}

impl Tool for Python {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn invoke<'a>(&'a self, args: Value, ctx: ToolContext) -> BoxFuture<'a, Result<String, ToolError>> {
        async move {
            let PythonArgs { code } = parse_args(args)?;
            self.run(&code, &ctx).await
        }
        .boxed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_interpreter_is_named_with_the_way_to_choose_one() {
        let e = Python::with_program("no-such-python-lucid").unwrap_err();
        assert!(matches!(e, PythonError::NotFound(_)));
        assert!(e.to_string().contains("`no-such-python-lucid` was not found on PATH"), "{e}");
        assert!(e.to_string().contains("python = "), "{e}");
        assert!(Python::with_program("/nonexistent/python3").is_err());
    }
}
