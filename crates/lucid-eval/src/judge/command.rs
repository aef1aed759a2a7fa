//! The `Command` judge: a command run in the case's project folder after the agent ran (the
//! tests the agent wrote, the migration it made), passing on exit 0. It runs in a process
//! group of its own, killed whole when it times out, when it ends (what it left running
//! goes with it) and when the judging is dropped; it gets only an allowlisted environment
//! (the operator's keys stay out of code the agent wrote); of its output only the tail is
//! kept, in bounded memory.

use std::path::Path;
use std::process::Stdio;
use std::sync::Mutex;
use std::time::Duration;

use futures::FutureExt;
use futures::future::FusedFuture;
use tokio::io::AsyncReadExt;

use super::{JudgeError, Verdict};

/// A command to run: a line for `sh -c`, or a program and its arguments.
///
/// ```
/// use lucid_eval::{CommandLine, JudgeSpec};
/// let judge: JudgeSpec = serde_norway::from_str("Command: {run: [cargo, test], timeout: 300}").unwrap();
/// let JudgeSpec::Command { run, .. } = judge else { unreachable!() };
/// assert_eq!(run, CommandLine::Args(vec!["cargo".into(), "test".into()]));
/// assert_eq!(run.to_string(), "cargo test");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CommandLine {
    /// A line `sh -c` runs.
    Shell(String),
    /// A program (looked up on `PATH`) and its arguments, run without a shell.
    Args(Vec<String>),
}

impl std::fmt::Display for CommandLine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CommandLine::Shell(line) => f.write_str(line),
            CommandLine::Args(args) => f.write_str(&args.join(" ")),
        }
    }
}

/// The characters of output a verdict keeps: the end, where test runners sum up.
const TAIL_CHARS: usize = 2_000;
/// The bytes kept while reading (a character is at most 4 bytes).
const TAIL_BYTES: usize = 4 * TAIL_CHARS;
/// How long the output may still be read once the command has ended and its group was
/// killed (a process that left the group may hold the pipes open).
const DRAIN_GRACE: Duration = Duration::from_secs(1);

/// The variables a command gets from the operator's environment; nothing else (no keys).
const PASSED_ENV: &[&str] = &["PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TERM", "TMPDIR", "TZ"];

/// The last bytes of both output streams, as they arrive.
#[derive(Default)]
struct Tail {
    bytes: Vec<u8>,
    total: u64,
}

impl Tail {
    fn push(&mut self, chunk: &[u8]) {
        self.total += chunk.len() as u64;
        self.bytes.extend_from_slice(chunk);
        if self.bytes.len() > 2 * TAIL_BYTES {
            let cut = self.bytes.len() - TAIL_BYTES;
            self.bytes.drain(..cut);
        }
    }

    /// The last [`TAIL_CHARS`] characters, said to be a tail when the output was longer.
    fn text(&self) -> String {
        let text = String::from_utf8_lossy(&self.bytes);
        let count = text.chars().count();
        let kept: String = text.chars().skip(count.saturating_sub(TAIL_CHARS)).collect();
        if (kept.len() as u64) < self.total {
            format!("[{} bytes of output, the last {} characters:]\n{kept}", self.total, kept.chars().count())
        } else {
            kept
        }
    }
}

/// Kills the command's process group when dropped: on every exit, cancellation included.
struct Group(Option<u32>);

impl Drop for Group {
    fn drop(&mut self) {
        kill_group(self.0);
    }
}

#[cfg(unix)]
fn kill_group(pid: Option<u32>) {
    if let Some(pid) = pid.and_then(|p| i32::try_from(p).ok()) {
        // SAFETY: kill(2) with a negative pid signals the process group the command was
        // started in (its own, `process_group(0)`); it touches no memory of ours.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
}

#[cfg(not(unix))]
fn kill_group(_: Option<u32>) {}

/// Runs `line` in `workdir` for at most `timeout`: the verdict passes on exit 0. It gets
/// the dataset's folder, absolute, in `LUCID_EVAL_DATASET_DIR`.
pub(crate) async fn judge(
    line: &CommandLine,
    timeout: Duration,
    workdir: Option<&Path>,
    dataset_dir: Option<&Path>,
) -> Result<Verdict, JudgeError> {
    let shown = line.to_string();
    let Some(workdir) = workdir else {
        return Ok(Verdict::new("Command", false)
            .reason(format!("`{shown}` has no project folder to run in: the case gave the agent none")));
    };
    let mut cmd = match line {
        CommandLine::Shell(line) => {
            let mut cmd = tokio::process::Command::new("sh");
            cmd.arg("-c").arg(line);
            cmd
        }
        CommandLine::Args(args) => {
            let Some((program, args)) = args.split_first() else {
                return Ok(Verdict::new("Command", false).reason("the command is empty: it names no program"));
            };
            let mut cmd = tokio::process::Command::new(program);
            cmd.args(args);
            cmd
        }
    };
    cmd.env_clear();
    for var in PASSED_ENV {
        if let Some(value) = std::env::var_os(var) {
            cmd.env(var, value);
        }
    }
    if let Some(dir) = dataset_dir.and_then(|d| std::fs::canonicalize(d).ok()) {
        cmd.env("LUCID_EVAL_DATASET_DIR", dir);
    }
    cmd.current_dir(workdir).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).kill_on_drop(true);
    // Its own process group, so what the command starts is killed with it.
    #[cfg(unix)]
    cmd.process_group(0);
    let mut child = cmd.spawn().map_err(|source| JudgeError::Command {
        judge: "Command".into(),
        command: format!("{shown} (in {})", workdir.display()),
        source,
    })?;
    let group = Group(child.id());
    let tail = Mutex::new(Tail::default());
    let (stdout, stderr) = (child.stdout.take(), child.stderr.take());
    let mut reading = std::pin::pin!(futures::future::join(drain(stdout, &tail), drain(stderr, &tail)).fuse());
    let ended = tokio::time::timeout(timeout, async {
        tokio::select! {
            status = child.wait() => status,
            _ = &mut reading => child.wait().await,
        }
    })
    .await;
    // What it left running goes with it; then the pipes close and the reading ends.
    drop(group);
    if !reading.is_terminated() {
        let _ = tokio::time::timeout(DRAIN_GRACE, &mut reading).await;
    }
    let output = tail.lock().unwrap_or_else(|p| p.into_inner()).text();
    let failed = match ended {
        Err(_) => format!(
            "`{shown}` did not finish within {} s and was killed, with every process it started",
            timeout.as_secs_f64()
        ),
        Ok(Err(e)) => format!("`{shown}` ended with an unknown status: {e}"),
        Ok(Ok(status)) if status.success() => return Ok(Verdict::new("Command", true)),
        Ok(Ok(status)) => match status.code() {
            Some(code) => format!("`{shown}` exited with code {code}"),
            None => format!("`{shown}` was killed by a signal"),
        },
    };
    let reason = if output.trim().is_empty() {
        format!("{failed} (no output)")
    } else {
        format!("{failed}; the end of its output:\n{output}")
    };
    Ok(Verdict::new("Command", false).reason(reason))
}

/// Reads a pipe to its end into the shared tail.
async fn drain(pipe: Option<impl tokio::io::AsyncRead + Unpin>, tail: &Mutex<Tail>) {
    let Some(mut pipe) = pipe else { return };
    let mut chunk = [0u8; 8192];
    while let Ok(n) = pipe.read(&mut chunk).await {
        if n == 0 {
            break;
        }
        tail.lock().unwrap_or_else(|p| p.into_inner()).push(&chunk[..n]);
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn shell(line: &str) -> CommandLine {
        CommandLine::Shell(line.into())
    }

    async fn run(line: CommandLine, timeout: Duration, dir: &Path) -> Verdict {
        judge(&line, timeout, Some(dir), None).await.unwrap()
    }

    /// A fresh folder of the test's own, removed when dropped.
    struct TempDir(std::path::PathBuf);

    impl std::ops::Deref for TempDir {
        type Target = Path;
        fn deref(&self) -> &Path {
            &self.0
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn temp_dir(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("lucid-eval-command-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    #[tokio::test]
    async fn passes_on_exit_zero_in_the_project_folder() {
        let dir = temp_dir("pass");
        std::fs::write(dir.join("marker"), "x").unwrap();
        let v = run(shell("test -f marker && echo ok"), Duration::from_secs(30), &dir).await;
        assert!(v.passed, "{v:?}");
        let args = CommandLine::Args(vec!["test".into(), "-f".into(), "marker".into()]);
        assert!(run(args, Duration::from_secs(30), &dir).await.passed, "a program and its arguments");
    }

    #[tokio::test]
    async fn fails_with_its_code_and_the_end_of_its_output() {
        let dir = temp_dir("fail");
        let v = run(shell("echo first; echo 'the last words' >&2; exit 3"), Duration::from_secs(30), &dir).await;
        let reason = v.reason.unwrap();
        assert!(!v.passed);
        assert!(reason.contains("exited with code 3") && reason.contains("the last words"), "{reason}");
    }

    #[tokio::test]
    async fn the_operators_keys_stay_out() {
        let dir = temp_dir("env");
        // Set in the test's own process only; the variable is made up for this test.
        // SAFETY: no other thread of this test reads or writes the environment.
        unsafe { std::env::set_var("LUCID_EVAL_TEST_SECRET", "hunter2") };
        let v =
            run(shell("test -z \"$LUCID_EVAL_TEST_SECRET\" && test -n \"$PATH\""), Duration::from_secs(30), &dir).await;
        assert!(v.passed, "{v:?}");
    }

    #[tokio::test]
    async fn the_datasets_folder_is_told_absolute() {
        let (dir, data) = (temp_dir("in"), temp_dir("dataset"));
        std::fs::write(data.join("check.sh"), "exit 0").unwrap();
        let line = shell(
            "test \"$LUCID_EVAL_DATASET_DIR\" = \"$(cd \"$LUCID_EVAL_DATASET_DIR\" && pwd -P)\" && sh \"$LUCID_EVAL_DATASET_DIR/check.sh\"",
        );
        let v = judge(&line, Duration::from_secs(30), Some(&dir), Some(&data)).await.unwrap();
        assert!(v.passed, "{v:?}");
        let v = judge(&line, Duration::from_secs(30), Some(&dir), None).await.unwrap();
        assert!(!v.passed, "no dataset folder, no variable");
    }

    #[tokio::test]
    async fn huge_output_is_kept_as_its_tail() {
        let dir = temp_dir("huge");
        // ~6 MB of numbered lines, then a last line to find.
        let line = "seq 1 800000; echo THE-END; exit 1";
        let v = run(shell(line), Duration::from_secs(60), &dir).await;
        let reason = v.reason.unwrap();
        assert!(reason.contains("THE-END") && reason.contains("799999"), "the end is kept");
        assert!(!reason.contains("\n1\n"), "the start is not");
        assert!(reason.chars().count() < TAIL_CHARS + 300, "{} characters", reason.chars().count());
    }

    /// The shell starts a grandchild that would outlive it, records its pid, and waits.
    #[cfg(target_os = "linux")]
    const GRANDCHILD: &str = "sh -c 'sleep 300' & echo $! > grandchild.pid; wait";

    /// The pid of the grandchild, once the command has written it.
    #[cfg(target_os = "linux")]
    async fn grandchild(dir: &Path) -> u32 {
        loop {
            let written = std::fs::read_to_string(dir.join("grandchild.pid")).unwrap_or_default();
            if let Ok(pid) = written.trim().parse() {
                return pid;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Whether the process `pid` is gone (or a zombie left for init to reap), waiting for
    /// it up to 5 s.
    #[cfg(target_os = "linux")]
    async fn gone(pid: u32) -> bool {
        for _ in 0..100 {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            if stat.is_empty() || stat.contains(") Z ") {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        false
    }

    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn a_timeout_kills_the_command_and_what_it_started() {
        let dir = temp_dir("timeout");
        let v = run(shell(GRANDCHILD), Duration::from_secs(1), &dir).await;
        let reason = v.reason.unwrap();
        assert!(!v.passed && reason.contains("did not finish within 1 s"), "{reason}");
        // A machine too busy to start the grandchild within the second leaves nothing to check.
        let written = std::fs::read_to_string(dir.join("grandchild.pid")).unwrap_or_default();
        if let Ok(pid) = written.trim().parse() {
            assert!(gone(pid).await, "the grandchild still runs");
        }
    }

    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn dropping_the_judging_kills_what_the_command_started() {
        let dir = temp_dir("dropped");
        let line = shell(GRANDCHILD);
        let judging = judge(&line, Duration::from_secs(300), Some(&dir), None);
        // The runner gives up on the case (its budget, Ctrl-C) once the grandchild runs: the
        // judging is dropped.
        let pid = tokio::select! {
            v = judging => panic!("the command ended: {v:?}"),
            pid = grandchild(&dir) => pid,
        };
        assert!(gone(pid).await, "the grandchild still runs");
    }

    #[tokio::test]
    async fn a_command_that_ends_leaves_nothing_running() {
        let dir = temp_dir("leftover");
        // The shell exits at once; its grandchild would hold the pipes for 300 s.
        let v = run(shell("sleep 300 & echo $! > grandchild.pid; echo started"), Duration::from_secs(30), &dir).await;
        assert!(v.passed, "{v:?}");
        #[cfg(target_os = "linux")]
        assert!(gone(grandchild(&dir).await).await, "the grandchild still runs");
    }

    #[test]
    fn the_tail_is_bounded_while_reading() {
        let mut tail = Tail::default();
        for i in 0..10_000 {
            tail.push(format!("line {i}\n").repeat(10).as_bytes());
            assert!(tail.bytes.len() <= 2 * TAIL_BYTES);
        }
        let text = tail.text();
        assert!(text.starts_with("[") && text.ends_with("line 9999\n"), "{}", &text[..80]);
    }

    #[tokio::test]
    async fn without_a_project_folder_it_fails_saying_so() {
        let v = judge(&shell("true"), Duration::from_secs(5), None, None).await.unwrap();
        assert!(!v.passed && v.reason.unwrap().contains("no project folder"));
    }

    #[tokio::test]
    async fn an_empty_command_built_in_code_fails() {
        let dir = temp_dir("empty");
        let v = run(CommandLine::Args(Vec::new()), Duration::from_secs(5), &dir).await;
        assert!(!v.passed && v.reason.unwrap().contains("names no program"));
    }

    #[tokio::test]
    async fn a_program_that_does_not_exist_is_an_error() {
        let dir = temp_dir("missing");
        let line = CommandLine::Args(vec!["lucid-eval-no-such-program".into()]);
        let e = judge(&line, Duration::from_secs(5), Some(&dir), None).await.unwrap_err();
        assert!(e.to_string().contains("could not start"), "{e}");
    }
}
