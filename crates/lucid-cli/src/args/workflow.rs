//! `lucid workflow …`.

use std::path::PathBuf;

use clap::Subcommand;

use super::{ApprovalArgs, McpArgs, ModelArgs, StoreArgs};

/// `lucid workflow …`.
#[derive(Debug, Subcommand)]
#[allow(clippy::large_enum_variant, reason = "parsed once per process")]
pub enum WorkflowAction {
    /// Run FILE's steps on the given inputs; progress goes to standard error, the last
    /// step's output to standard output.
    Run {
        /// The workflow: a `.toml`, `.yaml` or `.yml` file.
        file: PathBuf,
        /// An input, `NAME=VALUE` (VALUE is read as JSON when it is JSON, else as text).
        #[arg(long = "input", short = 'i', value_name = "NAME=VALUE", conflicts_with = "resume")]
        inputs: Vec<String>,
        /// Print one JSON object: every step's output, timings and usage.
        #[arg(long)]
        json: bool,
        /// Keep the workflow's state in the stored session NAME: with `--json`, an agent
        /// step whose tool call needs approval (permission `ask`) stops the workflow with
        /// `stop_reason: "needs_approval"`, the waiting calls and exit code 5, and
        /// `--resume` continues it from that step.
        #[arg(long, value_name = "NAME", requires = "json")]
        session: Option<String>,
        /// Continue the workflow waiting in `--session` with the answers in FILE (`-`:
        /// standard input): `{"approvals": [{"call_id", "decision": "allow" | "deny",
        /// "arguments"?, "message"?, "remember"?}]}`, as `lucid run --input` takes them.
        #[arg(long, value_name = "FILE", requires_all = ["session", "json"])]
        resume: Option<PathBuf>,
        #[command(flatten)]
        approval: ApprovalArgs,
        #[command(flatten)]
        store: StoreArgs,
        /// The model for agents that name none; its transcript, retries and timeout apply
        /// to agents naming their own `provider:model` too.
        #[command(flatten)]
        model: ModelArgs,
        /// MCP servers whose tools the workflow's agents and steps may name.
        #[command(flatten)]
        mcp: McpArgs,
    },
}
