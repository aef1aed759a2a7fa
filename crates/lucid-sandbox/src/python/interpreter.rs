//! One running interpreter: how it is started (limits, environment, sandbox) and the
//! driver's protocol, in which every answer carries the request's random id, so a line
//! the code writes into the protocol pipe can never pass for the answer to a later call.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout};

use crate::sandbox::{Cgroup, Environment, Plan, View};
use lucid::tool::ToolError;

/// The driver the interpreter runs.
const DRIVER: &str = include_str!("driver.py");

/// Most bytes one file the code writes may hold.
const FILE_LIMIT: u64 = 256 * 1024 * 1024;

/// Most bytes of one protocol line (an answer holds at most two capped outputs, a capped
/// value, a traceback and 2,000 file names).
const LINE_LIMIT: usize = 16 * 1024 * 1024;

/// How to start an interpreter.
#[derive(Debug, Clone)]
pub(super) struct Launch {
    pub program: PathBuf,
    pub environment: Environment,
    pub plan: Plan,
    pub memory: u64,
    pub cpu: u64,
    pub start_timeout: Duration,
}

/// A running interpreter and its protocol pipes.
pub(super) struct Interpreter {
    pid: Option<u32>,
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    /// Removed after the kill (fields drop after `drop` runs).
    _cgroup: Option<Cgroup>,
}

impl std::fmt::Debug for Interpreter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Interpreter").field("pid", &self.pid).finish()
    }
}

impl Interpreter {
    /// Starts the interpreter working in `folder`.
    pub async fn start(launch: &Launch, folder: &Path, view: Option<View>) -> Result<Interpreter, ToolError> {
        let mut cmd = tokio::process::Command::new(&launch.program);
        launch.environment.apply(&mut cmd, folder);
        let (memory, cpu) = (launch.memory, launch.cpu.max(1));
        cmd.arg("-u")
            .arg("-c")
            .arg(DRIVER)
            .current_dir(folder)
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .process_group(0);
        // SAFETY: the closure runs in the child between fork and exec and calls only
        // async-signal-safe system calls (setrlimit, signal) on values copied in.
        unsafe {
            cmd.pre_exec(move || limit_child(memory, cpu));
        }
        let cgroup = launch.plan.cgroup(launch.memory);
        launch.plan.apply(&mut cmd, cgroup.as_ref(), view, None);
        let mut child =
            cmd.spawn().map_err(|e| ToolError::new(format!("could not start {}: {e}", launch.program.display())))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(ToolError::new("the interpreter's pipes were not set up"));
        };
        let mut interpreter =
            Interpreter { pid: child.id(), child, stdin, stdout: BufReader::new(stdout), _cgroup: cgroup };
        let hello = tokio::time::timeout(launch.start_timeout, interpreter.read_line()).await;
        let hello: Value = match hello {
            Ok(Ok(v)) => v,
            Ok(Err(why)) => {
                let status = interpreter.stop().await;
                return Err(ToolError::new(format!(
                    "{} did not start the driver ({why}{}); is it Python 3?",
                    launch.program.display(),
                    status.map(|s| format!(", {s}")).unwrap_or_default()
                )));
            }
            Err(_) => return Err(ToolError::new(format!("{} did not start in time", launch.program.display()))),
        };
        tracing::debug!(python = ?hello["ready"], "python interpreter started");
        Ok(interpreter)
    }

    /// Sends one request and reads its answer: the first line carrying the request's id
    /// (lines the code wrote into the protocol are skipped).
    pub async fn exchange(&mut self, request: &Value) -> Result<Answer, String> {
        let id = format!("{:016x}{:016x}", fastrand::u64(..), fastrand::u64(..));
        let mut request = request.clone();
        request["id"] = Value::String(id.clone());
        let mut line = request.to_string();
        line.push('\n');
        self.stdin.write_all(line.as_bytes()).await.map_err(|e| format!("could not send the code: {e}"))?;
        self.stdin.flush().await.map_err(|e| format!("could not send the code: {e}"))?;
        loop {
            let v = match self.read_line().await {
                Ok(v) => v,
                Err(e) if e.starts_with("unreadable") => continue,
                Err(e) => return Err(e),
            };
            if v.get("id").and_then(Value::as_str) == Some(id.as_str()) {
                return serde_json::from_value(v).map_err(|e| format!("unreadable answer from the driver: {e}"));
            }
            tracing::debug!("a protocol line without this call's id was skipped");
        }
    }

    async fn read_line(&mut self) -> Result<Value, String> {
        let mut line = Vec::new();
        let read = (&mut self.stdout).take(LINE_LIMIT as u64).read_until(b'\n', &mut line).await;
        match read {
            Ok(0) => Err("it exited".into()),
            Ok(_) if !line.ends_with(b"\n") && line.len() >= LINE_LIMIT => Err("its answer was too long".into()),
            Ok(_) => serde_json::from_slice(&line).map_err(|e| format!("unreadable answer from the driver: {e}")),
            Err(e) => Err(format!("could not read its answer: {e}")),
        }
    }

    /// Says how the interpreter ended, when it did (waiting a moment for it), and kills
    /// its group.
    pub async fn stop(mut self) -> Option<String> {
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
            // group (made for it with process_group(0)); no memory is touched. In the
            // sandbox that group holds the namespace's PID 1, whose death kills every
            // process left in the namespace.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
        }
    }
}

/// The limits of the interpreter, set in the child before exec.
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
    Ok(())
}

/// One call's answer from the driver.
#[derive(Debug, Deserialize)]
pub(super) struct Answer {
    pub stdout: String,
    pub stdout_cut: u64,
    pub stderr: String,
    pub stderr_cut: u64,
    pub value: Option<String>,
    pub error: Option<String>,
    pub files: Vec<String>,
}

/// The answer as the model reads it: one section per part that is not empty.
pub(super) fn render(a: &Answer) -> Vec<String> {
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

#[cfg(test)]
mod tests {
    use super::*;

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
