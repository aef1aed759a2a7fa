//! A stdio server: a child process in its own process group, its stderr kept.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};

use process_wrap::tokio::{CommandWrap, ProcessGroup};
use rmcp::transport::TokioChildProcess;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::ChildStderr;

/// How many of the last stderr lines are kept for error messages.
const TAIL_LINES: usize = 20;

/// The last lines a server wrote to stderr, shared with the task reading them.
#[derive(Debug, Clone, Default)]
pub(crate) struct StderrTail(Arc<Mutex<VecDeque<String>>>);

impl StderrTail {
    fn push(&self, line: String) {
        let mut lines = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if lines.len() == TAIL_LINES {
            lines.pop_front();
        }
        lines.push_back(line);
    }

    /// The kept lines, oldest first, joined with newlines (empty when there are none).
    pub(crate) fn text(&self) -> String {
        let lines = self.0.lock().unwrap_or_else(|p| p.into_inner());
        lines.iter().map(String::as_str).collect::<Vec<_>>().join("\n")
    }

    /// Forgets the lines (before a restart).
    pub(crate) fn clear(&self) {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).clear();
    }

    /// Reads `stderr` line by line until it closes, keeping the last lines and logging each.
    fn follow(&self, server: String, stderr: ChildStderr) {
        let tail = self.clone();
        tokio::spawn(async move {
            let mut lines = BufReader::new(stderr).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                tracing::debug!(server = %server, "stderr: {line}");
                tail.push(line);
            }
        });
    }
}

/// What starts a stdio server.
#[derive(Debug, Clone)]
pub(crate) struct Command {
    pub program: String,
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
    pub cwd: Option<PathBuf>,
}

impl Command {
    /// The command line, for messages (never the environment: it may hold secrets).
    pub(crate) fn display(&self) -> String {
        std::iter::once(self.program.as_str()).chain(self.args.iter().map(String::as_str)).collect::<Vec<_>>().join(" ")
    }

    /// Starts the process in a process group of its own (so that stopping it stops what it
    /// started too, e.g. `npx` and its `node`), stdin/stdout piped for the protocol and
    /// stderr read into `tail`. Dropping the transport kills the group.
    pub(crate) fn spawn(&self, server: &str, tail: &StderrTail) -> std::io::Result<TokioChildProcess> {
        let mut cmd = CommandWrap::with_new(&self.program, |c| {
            c.args(&self.args);
            c.envs(self.env.iter().map(|(k, v)| (k, v)));
            if let Some(dir) = &self.cwd {
                c.current_dir(dir);
            }
            c.kill_on_drop(true);
        });
        cmd.wrap(ProcessGroup::leader());
        let (child, stderr) = TokioChildProcess::builder(cmd).stderr(Stdio::piped()).spawn()?;
        if let Some(stderr) = stderr {
            tail.follow(server.to_string(), stderr);
        }
        Ok(child)
    }
}
