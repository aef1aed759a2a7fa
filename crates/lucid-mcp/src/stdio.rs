//! A stdio server: a child process in its own process group, its stdout read as bounded
//! lines of JSON-RPC, its stderr kept as bounded lines.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::pin::Pin;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use process_wrap::tokio::{ChildWrapper, CommandWrap, ProcessGroup};
use rmcp::RoleClient;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::async_rw::AsyncRwTransport;
use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader, ReadBuf};
use tokio::process::{ChildStderr, ChildStdin, ChildStdout};

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

    /// Reads `stderr` line by line until it closes, keeping the last lines (each cut to
    /// `max_line` bytes: a line never grows past that in memory) and logging each.
    fn follow(&self, server: String, stderr: ChildStderr, max_line: usize) {
        let tail = self.clone();
        tokio::spawn(async move {
            let mut reader = BufReader::new(stderr);
            let (mut line, mut dropped) = (Vec::new(), 0usize);
            let emit = |line: &mut Vec<u8>, dropped: &mut usize| {
                let mut text = String::from_utf8_lossy(line).trim_end_matches('\r').to_string();
                if *dropped > 0 {
                    text.push_str(&format!(" [line cut: {dropped} more bytes]"));
                }
                tracing::debug!(server = %server, "stderr: {text}");
                tail.push(text);
                line.clear();
                *dropped = 0;
            };
            while let Ok(buf) = reader.fill_buf().await {
                if buf.is_empty() {
                    break;
                }
                let newline = buf.iter().position(|&b| b == b'\n');
                let chunk = &buf[..newline.unwrap_or(buf.len())];
                let room = max_line.saturating_sub(line.len()).min(chunk.len());
                line.extend_from_slice(&chunk[..room]);
                dropped += chunk.len() - room;
                let used = newline.map_or(buf.len(), |i| i + 1);
                reader.consume(used);
                if newline.is_some() {
                    emit(&mut line, &mut dropped);
                }
            }
            if !line.is_empty() || dropped > 0 {
                emit(&mut line, &mut dropped);
            }
        });
    }
}

/// Set when a stdio server sent a line longer than its limit (and was disconnected for it).
#[derive(Debug, Clone, Default)]
pub(crate) struct Oversized(Arc<AtomicBool>);

impl Oversized {
    /// Whether the server was disconnected for an over-long line.
    pub(crate) fn happened(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    /// Forgets it (before a restart).
    pub(crate) fn clear(&self) {
        self.0.store(false, Ordering::Relaxed);
    }
}

/// The server's stdout, failing the read (which closes the connection) as soon as a line
/// grows past `max` bytes: rmcp would drop such a line and go on waiting for an answer
/// that is never coming.
struct BoundedLines {
    inner: ChildStdout,
    since_newline: usize,
    max: usize,
    oversized: Oversized,
}

impl AsyncRead for BoundedLines {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<std::io::Result<()>> {
        if self.oversized.happened() {
            return Poll::Ready(Err(std::io::Error::other("the MCP server sent a line over the limit")));
        }
        let before = buf.filled().len();
        let this = &mut *self;
        match Pin::new(&mut this.inner).poll_read(cx, buf) {
            Poll::Ready(Ok(())) => {
                for &b in &buf.filled()[before..] {
                    this.since_newline = if b == b'\n' { 0 } else { this.since_newline + 1 };
                    if this.since_newline > this.max {
                        this.oversized.0.store(true, Ordering::Relaxed);
                        return Poll::Ready(Err(std::io::Error::other("the MCP server sent a line over the limit")));
                    }
                }
                Poll::Ready(Ok(()))
            }
            other => other,
        }
    }
}

/// A running stdio server: the JSON-RPC transport over its pipes, and the process group,
/// killed when the transport is closed or dropped.
pub(crate) struct ChildTransport {
    transport: AsyncRwTransport<RoleClient, BoundedLines, ChildStdin>,
    child: Option<Box<dyn ChildWrapper>>,
}

impl Drop for ChildTransport {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.start_kill();
            // Reap it (and what it started) so no zombie is left.
            if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                runtime.spawn(async move {
                    let _ = child.wait().await;
                });
            }
        }
    }
}

impl Transport<RoleClient> for ChildTransport {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.transport.send(item)
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleClient>>> + Send {
        self.transport.receive()
    }

    /// Closes its stdin (the MCP way to ask a stdio server to stop), gives it a moment,
    /// then kills its process group.
    async fn close(&mut self) -> Result<(), Self::Error> {
        self.transport.close().await?;
        if let Some(mut child) = self.child.take()
            && tokio::time::timeout(Duration::from_secs(1), child.wait()).await.is_err()
        {
            let _ = Box::into_pin(child.kill()).await;
        }
        Ok(())
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
    /// started too, e.g. `npx` and its `node`), stdin/stdout piped for the protocol (a line
    /// over `limits.max_message_bytes` closes it and sets `oversized`) and stderr read into
    /// `tail`. Dropping the transport kills the group.
    pub(crate) fn spawn(
        &self,
        server: &str,
        tail: &StderrTail,
        oversized: &Oversized,
        limits: &super::McpLimits,
    ) -> std::io::Result<ChildTransport> {
        let mut cmd = CommandWrap::with_new(&self.program, |c| {
            c.args(&self.args);
            c.envs(self.env.iter().map(|(k, v)| (k, v)));
            if let Some(dir) = &self.cwd {
                c.current_dir(dir);
            }
            c.kill_on_drop(true);
        });
        cmd.wrap(ProcessGroup::leader());
        cmd.command_mut().stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = cmd.spawn()?;
        let pipes = (child.stdin().take(), child.stdout().take(), child.stderr().take());
        let (Some(stdin), Some(stdout), Some(stderr)) = pipes else {
            let _ = child.start_kill();
            return Err(std::io::Error::other("the server's standard streams could not be opened"));
        };
        tail.follow(server.to_string(), stderr, limits.max_stderr_line_bytes);
        oversized.clear();
        let max = limits.max_message_bytes;
        let stdout = BoundedLines { inner: stdout, since_newline: 0, max, oversized: oversized.clone() };
        // rmcp's own cap would drop a long line silently; ours closes the stream first.
        let transport = AsyncRwTransport::new(stdout, stdin).with_max_line_length(max.saturating_add(2));
        Ok(ChildTransport { transport, child: Some(child) })
    }
}
