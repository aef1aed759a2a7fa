//! `python`: a persistent CPython interpreter, like a notebook. Variables, imports and the
//! files of its working folder survive from one call to the next; each call answers with
//! the code's stdout and stderr, the value of its last expression, the error if it raised
//! one, and the files it wrote.
//!
//! The interpreter is the system's `python3` (or the program given to
//! [`Python::program`]) running a small driver (`driver.py`, sent with `-c`) that speaks
//! one JSON line per request and answer over its original stdin and stdout; the code's own
//! output goes to temporary files, so nothing it prints can break that protocol.
//!
//! Limits, set before the interpreter starts (`setrlimit` in the child):
//! - wall clock per call ([`Python::timeout`], 30 s): past it, the interpreter and every
//!   process it started (its process group) are killed, and the next call starts a fresh
//!   one, saying that the state was lost;
//! - CPU seconds per call (`RLIMIT_CPU`, raised by the driver before each call by the
//!   call's allowance, so the limit is per call although the process lives on);
//! - address space (`RLIMIT_AS`, [`Python::memory`], 1 GiB): an allocation past it raises
//!   `MemoryError` in the code, and the interpreter stays;
//! - output ([`Python::output_cap`], 16 KiB of stdout and of stderr; the rest is counted);
//! - files: one written file may not pass 256 MiB (`RLIMIT_FSIZE`, with `SIGXFSZ`
//!   ignored, so the write fails with an error instead of killing the interpreter);
//! - network: none, where the system lets an unprivileged process make a new user and
//!   network namespace (Linux with unprivileged user namespaces); elsewhere the result
//!   says that the network is reachable.
//!
//! It is not a sandbox against hostile code: the code runs as the user, can read what the
//! user can read, and can write outside its folder. That is why the recommended permission
//! policy asks before each call.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use futures::FutureExt;
use futures::future::BoxFuture;
use serde::Deserialize;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout};
use tokio::sync::Mutex;

use crate::tool::{Tool, ToolContext, ToolError, ToolSpec, parse_args};

/// The driver the interpreter runs.
const DRIVER: &str = include_str!("driver.py");

/// Most bytes one file the code writes may hold.
const FILE_LIMIT: u64 = 256 * 1024 * 1024;

/// The `python` tool: one interpreter, started at the first call and kept until the tool
/// is dropped (which kills it with everything it started).
///
/// ```no_run
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use lucid::Tool;
/// let python = lucid::tool::builtin::Python::new().unwrap();
/// python.invoke(serde_json::json!({"code": "import math\nr = math.sqrt(2)"}), Default::default()).await.unwrap();
/// let out = python.invoke(serde_json::json!({"code": "round(r, 3)"}), Default::default()).await.unwrap();
/// assert!(out.contains("1.414"));
/// # });
/// ```
#[derive(Debug)]
pub struct Python {
    spec: ToolSpec,
    program: PathBuf,
    folder: Folder,
    timeout: Duration,
    cpu: Duration,
    memory: u64,
    cap: usize,
    running: Mutex<Option<Interpreter>>,
}

/// The working folder: made for the tool and removed with it, or one the caller gave.
#[derive(Debug)]
struct Folder {
    path: PathBuf,
    owned: bool,
}

impl Drop for Folder {
    fn drop(&mut self) {
        if self.owned {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
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
        let spec = ToolSpec::for_args::<PythonArgs>(
            "python",
            "Runs Python 3 code in a persistent interpreter: variables, imports and files in its working folder \
             stay between calls. Returns stdout, stderr, the value of the last expression, any error, and the \
             files written. No network access (where the system allows cutting it off).",
        );
        Ok(Python {
            spec,
            program,
            folder: Folder { path, owned: true },
            timeout: Duration::from_secs(30),
            cpu: Duration::from_secs(30),
            memory: 1 << 30,
            cap: 16 * 1024,
            running: Mutex::new(None),
        })
    }

    /// Works in `folder` (made if missing, and kept when the tool is dropped) instead of a
    /// temporary one.
    pub fn folder(mut self, folder: impl Into<PathBuf>) -> Result<Self, PythonError> {
        let path = folder.into();
        std::fs::create_dir_all(&path).map_err(|source| PythonError::Folder { path: path.clone(), source })?;
        self.folder = Folder { path, owned: false };
        Ok(self)
    }

    /// The working folder.
    pub fn working_folder(&self) -> &Path {
        &self.folder.path
    }

    /// How long one call may run before the interpreter is killed (and CPU seconds per
    /// call, unless [`Python::cpu`] says otherwise after this).
    pub fn timeout(mut self, d: Duration) -> Self {
        self.timeout = d;
        self.cpu = d;
        self
    }

    /// CPU time one call may use (rounded up to whole seconds).
    pub fn cpu(mut self, d: Duration) -> Self {
        self.cpu = d;
        self
    }

    /// Most bytes of address space the interpreter may use.
    pub fn memory(mut self, bytes: u64) -> Self {
        self.memory = bytes;
        self
    }

    /// How many bytes of stdout, and of stderr, the model reads at most per call.
    pub fn output_cap(mut self, bytes: usize) -> Self {
        self.cap = bytes.max(1);
        self
    }

    async fn run(&self, code: &str, ctx: &ToolContext) -> Result<String, ToolError> {
        let mut running = self.running.lock().await;
        let mut notes = Vec::new();
        if running.is_none() {
            let (interpreter, network) = self.start().await?;
            if network != "none" {
                notes.push(
                    "note: this system does not let the interpreter run without network (no user namespaces); \
                     the network is reachable"
                        .to_string(),
                );
            }
            *running = Some(interpreter);
        }
        let Some(interpreter) = running.as_mut() else {
            return Err(ToolError::new("the python interpreter is not running"));
        };
        let cpu = self.cpu.as_secs() + u64::from(self.cpu.subsec_nanos() > 0);
        let request = serde_json::json!({"code": code, "cpu": cpu.max(1), "cap": self.cap});
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

    async fn start(&self) -> Result<(Interpreter, String), ToolError> {
        let mut cmd = tokio::process::Command::new(&self.program);
        for var in super::secret_vars(std::env::vars_os().map(|(k, _)| k)) {
            cmd.env_remove(var);
        }
        let (memory, cpu) = (self.memory, self.cpu.as_secs().max(1));
        cmd.arg("-u")
            .arg("-c")
            .arg(DRIVER)
            .current_dir(&self.folder.path)
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .process_group(0);
        // SAFETY: the closure runs in the child between fork and exec and calls only
        // async-signal-safe system calls (setrlimit, signal, unshare) on values copied in.
        unsafe {
            cmd.pre_exec(move || limit_child(memory, cpu));
        }
        let mut child =
            cmd.spawn().map_err(|e| ToolError::new(format!("could not start {}: {e}", self.program.display())))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(ToolError::new("the interpreter's pipes were not set up"));
        };
        let mut interpreter = Interpreter { pid: child.id(), child, stdin, stdout: BufReader::new(stdout) };
        let hello = tokio::time::timeout(Duration::from_secs(10).max(self.timeout), interpreter.read_line()).await;
        let hello: Value = match hello {
            Ok(Ok(v)) => v,
            Ok(Err(why)) => {
                let status = interpreter.stop().await;
                return Err(ToolError::new(format!(
                    "{} did not start the driver ({why}{}); is it Python 3?",
                    self.program.display(),
                    status.map(|s| format!(", {s}")).unwrap_or_default()
                )));
            }
            Err(_) => return Err(ToolError::new(format!("{} did not start in time", self.program.display()))),
        };
        tracing::debug!(python = ?hello["ready"], network = ?hello["network"], "python interpreter started");
        let network = hello["network"].as_str().unwrap_or("open").to_string();
        Ok((interpreter, network))
    }
}

/// The limits and the network namespace of the interpreter, set in the child before exec.
fn limit_child(memory: libc::rlim_t, cpu: libc::rlim_t) -> std::io::Result<()> {
    // A limit is never raised past the hard limit already in force (that needs privilege).
    let set = |resource, soft: libc::rlim_t, hard: libc::rlim_t| {
        let mut current = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
        // SAFETY: getrlimit writes into the struct we own.
        if unsafe { libc::getrlimit(resource, &mut current) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        let hard = hard.min(current.rlim_max);
        let limit = libc::rlimit { rlim_cur: soft.min(hard), rlim_max: hard };
        // SAFETY: setrlimit reads the struct we pass; nothing else is touched.
        if unsafe { libc::setrlimit(resource, &limit) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(())
    };
    set(libc::RLIMIT_AS, memory, memory)?;
    // The soft CPU limit is raised by the driver before each call; the hard one stays as it is.
    set(libc::RLIMIT_CPU, cpu, libc::RLIM_INFINITY)?;
    set(libc::RLIMIT_FSIZE, FILE_LIMIT, FILE_LIMIT)?;
    // SAFETY: signal(2) with SIG_IGN installs no handler code; an ignored disposition
    // survives exec, so a write past RLIMIT_FSIZE fails with EFBIG instead of killing.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
    // No network where the system allows a new user + network namespace; the driver
    // reports whether it sees any interface but loopback, so a refusal here is not fatal.
    // SAFETY: unshare(2) changes only this (single-threaded, about to exec) child.
    #[cfg(target_os = "linux")]
    unsafe {
        libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNET);
    }
    Ok(())
}

/// A running interpreter and its protocol pipes.
struct Interpreter {
    pid: Option<u32>,
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl std::fmt::Debug for Interpreter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Interpreter").field("pid", &self.pid).finish()
    }
}

impl Interpreter {
    /// Sends one request and reads its answer.
    async fn exchange(&mut self, request: &Value) -> Result<Answer, String> {
        let mut line = request.to_string();
        line.push('\n');
        self.stdin.write_all(line.as_bytes()).await.map_err(|e| format!("could not send the code: {e}"))?;
        self.stdin.flush().await.map_err(|e| format!("could not send the code: {e}"))?;
        let v = self.read_line().await?;
        serde_json::from_value(v).map_err(|e| format!("unreadable answer from the driver: {e}"))
    }

    async fn read_line(&mut self) -> Result<Value, String> {
        let mut line = String::new();
        match self.stdout.read_line(&mut line).await {
            Ok(0) => Err("it exited".into()),
            Ok(_) => serde_json::from_str(&line).map_err(|e| format!("unreadable answer from the driver: {e}")),
            Err(e) => Err(format!("could not read its answer: {e}")),
        }
    }

    /// Says how the interpreter ended, when it did (waiting a moment for it), and kills
    /// its group.
    async fn stop(mut self) -> Option<String> {
        let status = tokio::time::timeout(Duration::from_millis(500), self.child.wait()).await.ok()?.ok();
        status.map(|s| {
            use std::os::unix::process::ExitStatusExt;
            match (s.code(), s.signal()) {
                (_, Some(libc::SIGKILL)) => "killed (SIGKILL, perhaps out of memory)".to_string(),
                (_, Some(libc::SIGXCPU)) => "its CPU time limit was reached".to_string(),
                (_, Some(sig)) => format!("killed by signal {sig}"),
                (Some(code), None) => format!("exit code {code}"),
                (None, None) => "ended".to_string(),
            }
        })
    }
}

impl Drop for Interpreter {
    fn drop(&mut self) {
        if let Some(pid) = self.pid.and_then(|p| i32::try_from(p).ok()) {
            // SAFETY: kill(2) with a negative pid signals the interpreter's own process
            // group (made for it with process_group(0)); no memory is touched.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
        }
    }
}

/// One call's answer from the driver.
#[derive(Debug, Deserialize)]
struct Answer {
    stdout: String,
    stdout_cut: u64,
    stderr: String,
    stderr_cut: u64,
    value: Option<String>,
    error: Option<String>,
    files: Vec<String>,
}

/// The answer as the model reads it: one section per part that is not empty.
fn render(a: &Answer) -> Vec<String> {
    let mut parts = Vec::new();
    let cut = |n: u64| if n > 0 { format!("\n[cut: {n} more bytes not shown]") } else { String::new() };
    if !a.stdout.is_empty() || a.stdout_cut > 0 {
        parts.push(format!("[stdout]\n{}{}", a.stdout.trim_end_matches('\n'), cut(a.stdout_cut)));
    }
    if !a.stderr.is_empty() || a.stderr_cut > 0 {
        parts.push(format!("[stderr]\n{}{}", a.stderr.trim_end_matches('\n'), cut(a.stderr_cut)));
    }
    if let Some(e) = &a.error {
        parts.push(format!("[error]\n{}", e.trim_end_matches('\n')));
    }
    if let Some(v) = &a.value {
        parts.push(format!("[value]\n{v}"));
    }
    if !a.files.is_empty() {
        parts.push(format!("[files written]\n{}", a.files.join("\n")));
    }
    if parts.is_empty() {
        parts.push("(no output)".into());
    }
    parts
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

    #[test]
    fn the_answer_shows_only_the_parts_there_are() {
        let a = Answer {
            stdout: "hi\n".into(),
            stdout_cut: 3,
            stderr: String::new(),
            stderr_cut: 0,
            value: Some("42".into()),
            error: None,
            files: vec!["a.csv".into()],
        };
        assert_eq!(
            render(&a).join("\n"),
            "[stdout]\nhi\n[cut: 3 more bytes not shown]\n[value]\n42\n[files written]\na.csv"
        );
        let empty = Answer { stdout: String::new(), stdout_cut: 0, value: None, files: vec![], ..a };
        assert_eq!(render(&empty), ["(no output)"]);
    }
}
