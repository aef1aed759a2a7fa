//! `shell`: runs a command with `sh -c` in the workspace root, with a timeout and a cap on
//! the output the model reads. Off unless an application adds it, and under the default
//! permission policy it asks first.
//!
//! The command runs in a process group of its own, and that group is killed when the
//! command ends, times out or is cancelled, so what it left running in the background
//! (`nohup server &`) does not outlive the call.
//!
//! On Linux with unprivileged user namespaces it runs in the sandbox the `python` tool
//! uses (module `sandbox`): new user, network (unless [`Shell::network`]), PID and mount
//! namespaces, so there is no network but loopback, `/proc` shows only the command's own
//! processes, and every process it started (a `setsid` double fork too) dies when it
//! ends; a seccomp filter refuses Unix sockets; this process is made non-dumpable so no
//! command can read its `/proc` files. What the system refuses is said in the tool's
//! description and in each result.
//!
//! The command starts from an allowlisted environment ([`Environment`]): `PATH`, `HOME`,
//! `LANG`, `LC_*`, `TERM`, `TZ`, `USER`, `LOGNAME`, `TMPDIR`, `SHELL`, and what
//! [`Environment::pass`] adds — never an API key variable; [`Environment::isolated`]
//! passes nothing of this process's environment.
//!
//! It is still not a sandbox against everything: the command runs as the user and reads
//! and writes what the user can, which is why it asks first.

use std::path::PathBuf;
use std::time::Duration;

use crate::command::{CommandRunner, Ran};
use crate::process::Finished;
use crate::sandbox::{Environment, Plan};
use futures::FutureExt;
use futures::future::BoxFuture;
use lucid::tool::{Tool, ToolContext, ToolError, ToolSpec, parse_args};
use serde::Deserialize;
use serde_json::Value;

/// The `shell` tool.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use lucid::Tool;
/// let shell = lucid_sandbox::Shell::new(std::env::temp_dir())
///     .timeout(std::time::Duration::from_secs(5))
///     .output_cap(1000);
/// let out = shell.invoke(serde_json::json!({"command": "echo hi"}), Default::default()).await.unwrap();
/// assert!(out.starts_with("exit code 0\nhi\n"), "{out}");
/// # });
/// ```
#[derive(Debug)]
pub struct Shell {
    spec: ToolSpec,
    commands: CommandRunner,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct ShellArgs {
    /// The command line, run by `sh -c` in the workspace root.
    command: String,
}

impl Shell {
    /// A shell running in `root`, with a 60 s timeout, 16 KiB of output, the
    /// allowlisted environment and no network.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        let commands = CommandRunner::new(root, "the command");
        Shell { spec: spec(commands.plan()), commands }
    }

    /// Lets commands reach the network (only the user, PID and mount namespaces are new).
    pub fn network(mut self, on: bool) -> Self {
        self.commands = self.commands.network(on);
        self.spec = spec(self.commands.plan());
        self
    }

    /// The environment commands start with (the allowlisted variables of this process
    /// unless set; [`Environment::isolated`] for a server).
    pub fn environment(self, environment: Environment) -> Self {
        self.with(|r| r.environment(environment))
    }

    /// How long a command may run before it is killed.
    pub fn timeout(self, d: Duration) -> Self {
        self.with(|r| r.timeout(d))
    }

    /// How many bytes of output the model reads at most (the rest is dropped and counted).
    pub fn output_cap(self, bytes: usize) -> Self {
        self.with(|r| r.output_cap(bytes))
    }

    fn with(mut self, set: impl FnOnce(CommandRunner) -> CommandRunner) -> Self {
        self.commands = set(self.commands);
        self
    }

    async fn run(&self, command: &str, ctx: &ToolContext) -> Result<String, ToolError> {
        let cap = self.commands.cap();
        let Ran { finished, notes, .. } = self.commands.run(command, &ctx.cancel, None).await?;
        let code = finished.status_text();
        let Finished { stdout: mut body, stderr: err, mut dropped, .. } = finished;
        if !err.is_empty() {
            body.extend_from_slice(b"[stderr]\n");
            body.extend_from_slice(&err);
        }
        if body.len() > cap {
            dropped += body.len() - cap;
            body.truncate(cap);
        }
        let mut text = format!("{code}\n{}", String::from_utf8_lossy(&body));
        for note in notes {
            text.push_str(&format!("\n[note: {note}]"));
        }
        if dropped > 0 {
            text.push_str(&format!("\n[output cut: {dropped} more bytes not shown]"));
        }
        Ok(text)
    }
}

/// The tool's spec, saying what the sandbox does not hold on this system.
fn spec(plan: &Plan) -> ToolSpec {
    let mut description = String::from(
        "Runs a shell command in the workspace root and returns its exit code and output \
         (stdout and stderr together, cut when long). Prefer the file tools for reading and editing files.",
    );
    if !plan.network {
        description.push_str(" No network access, no Unix sockets.");
    }
    let missing = plan.missing("the command");
    if !missing.is_empty() {
        description.push_str(&format!(" On this system: {}.", missing.join("; ")));
    }
    ToolSpec::for_args::<ShellArgs>("shell", &description)
}

impl Tool for Shell {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn invoke<'a>(&'a self, args: Value, ctx: ToolContext) -> BoxFuture<'a, Result<String, ToolError>> {
        async move {
            let ShellArgs { command } = parse_args(args)?;
            self.run(&command, &ctx).await
        }
        .boxed()
    }
}
