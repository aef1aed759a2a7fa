//! One command line run the way `shell` runs it, for the tools that run a project's own
//! commands (`shell`, `run_tests`, `coverage`): `sh -c` in the workspace root, from the
//! allowlisted [`Environment`], in the code tools' sandbox ([`Plan`]), in a process group
//! of its own that is killed when the command ends, times out or is cancelled, with each
//! output stream read up to a cap (the rest counted, not kept).

use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use tokio::io::AsyncReadExt;
use tokio_util::sync::CancellationToken;

use crate::sandbox::{Environment, Hide, Plan};

/// What a finished command left.
#[derive(Debug)]
pub struct Finished {
    /// The first `cap` bytes of standard output.
    pub stdout: Vec<u8>,
    /// The first `cap` bytes of standard error.
    pub stderr: Vec<u8>,
    /// Bytes of both streams read past the cap and dropped.
    pub dropped: usize,
    /// How it ended.
    pub status: std::io::Result<ExitStatus>,
}

impl Finished {
    /// `exit code N`, `killed by a signal` or why the status is unknown.
    pub fn status_text(&self) -> String {
        match &self.status {
            Ok(s) => s.code().map_or_else(|| "killed by a signal".to_string(), |c| format!("exit code {c}")),
            Err(e) => format!("unknown exit status ({e})"),
        }
    }
}

/// Why a command did not finish.
#[derive(Debug)]
pub enum Unfinished {
    /// `sh` could not be started.
    Start(std::io::Error),
    /// It ran past its timeout and was killed.
    TimedOut(Duration),
    /// The call was cancelled and the command killed.
    Cancelled,
}

impl std::fmt::Display for Unfinished {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unfinished::Start(e) => write!(f, "could not start the shell: {e}"),
            Unfinished::TimedOut(d) => {
                write!(f, "the command did not finish within {:.1} s and was killed", d.as_secs_f64())
            }
            Unfinished::Cancelled => write!(f, "the command was cancelled"),
        }
    }
}

/// Runs `command` with `sh -c` in `root` under `plan`, starting from `environment`, the
/// user's homes hidden as `hide` says.
#[allow(clippy::too_many_arguments, reason = "each is one setting of the run")]
pub async fn run(
    command: &str,
    root: &Path,
    environment: &Environment,
    plan: Plan,
    hide: Option<Hide>,
    timeout: Duration,
    cap: usize,
    cancel: &CancellationToken,
) -> Result<Finished, Unfinished> {
    let mut cmd = tokio::process::Command::new("sh");
    environment.apply(&mut cmd, root);
    let hiding = hide.is_some() && plan.can_hide_homes();
    plan.apply(&mut cmd, None, None, hide);
    let mut child = cmd
        .arg("-c")
        .arg(command)
        .current_dir(root)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        // Its own process group, so a timeout kills what the command started too.
        .process_group(0)
        .spawn()
        .map_err(|e| match hiding {
            // What failed in the child before exec is most likely a mount of the hiding.
            true => Unfinished::Start(std::io::Error::new(e.kind(), format!("hiding the user's home folders: {e}"))),
            false => Unfinished::Start(e),
        })?;
    let pid = child.id();
    let (stdout, stderr) = (child.stdout.take(), child.stderr.take());
    let work = async {
        let ((out, out_dropped), (err, err_dropped)) = tokio::join!(drain(stdout, cap), drain(stderr, cap));
        (out, err, out_dropped + err_dropped, child.wait().await)
    };
    let finished = tokio::select! {
        r = tokio::time::timeout(timeout, work) => r.ok(),
        _ = cancel.cancelled() => {
            kill_group(pid);
            return Err(Unfinished::Cancelled);
        }
    };
    // What the command left running in its group goes with it.
    kill_group(pid);
    let (stdout, stderr, dropped, status) = finished.ok_or(Unfinished::TimedOut(timeout))?;
    Ok(Finished { stdout, stderr, dropped, status })
}

/// Reads a pipe to its end, keeping the first `cap` bytes and counting the rest.
async fn drain(pipe: Option<impl tokio::io::AsyncRead + Unpin>, cap: usize) -> (Vec<u8>, usize) {
    let Some(mut pipe) = pipe else { return (Vec::new(), 0) };
    let mut kept = Vec::new();
    let mut dropped = 0;
    let mut chunk = [0u8; 8192];
    while let Ok(n) = pipe.read(&mut chunk).await {
        if n == 0 {
            break;
        }
        let room = cap.saturating_sub(kept.len()).min(n);
        kept.extend_from_slice(&chunk[..room]);
        dropped += n - room;
    }
    (kept, dropped)
}

/// Kills the command's whole process group.
fn kill_group(pid: Option<u32>) {
    if let Some(pid) = pid.and_then(|p| i32::try_from(p).ok()) {
        // SAFETY: kill(2) with a negative pid signals that process group; it touches no
        // memory of ours. The group is the one the command was started in.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
}
