//! The flags that grant and bound what an agent does: MCP servers and the tools they and
//! the permission rules allow, ask for or refuse; the budget of one run.

use std::path::PathBuf;

/// The flags choosing servers and granting their tools.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct McpArgs {
    /// MCP servers from a JSON file in the `{"mcpServers": {...}}` form of Claude Desktop
    /// and Cursor (added to the configuration file's `[mcp.servers]`).
    #[arg(long, value_name = "FILE.json")]
    pub mcp_config: Option<PathBuf>,
    /// Use only this MCP server (repeatable); `--mcp none` starts none.
    #[arg(long = "mcp", value_name = "NAME")]
    pub only: Vec<String>,
    /// Allow without asking (repeatable) the tools whose names match this glob
    /// (`everything__*`, `write_file`), or the calls a rule by argument matches:
    /// `shell(cargo test*)` (never a compound command), `write_file(src/**)`,
    /// `sql_query(read)`, `server__tool(arg=glob)`. How a non-interactive run is granted
    /// its tools.
    #[arg(long = "allow", value_name = "RULE")]
    pub allow: Vec<String>,
    /// Ask before the calls this rule matches (repeatable; same syntax as `--allow`, e.g.
    /// `shell(git push:*)`); `lucid run` has nobody to ask, so it refuses them.
    #[arg(long = "ask", value_name = "RULE")]
    pub ask: Vec<String>,
    /// Refuse the calls this rule matches (repeatable; `shell(rm *)` also catches `rm` inside
    /// a compound command). Deny rules come before ask rules, ask before allow.
    #[arg(long = "deny", value_name = "RULE")]
    pub deny: Vec<String>,
}

/// The limits of one run (`lucid::agent::budget`), over the configuration's.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct LimitArgs {
    /// The most one run may cost, in US dollars, from the model's price (`lucid run`
    /// exits 3 before the model call that would pass it; an unpriced model makes no call).
    #[arg(long, value_name = "USD")]
    pub max_cost: Option<f64>,
    /// The most model calls one run may make (exits 3 with the spend when reached).
    #[arg(long, value_name = "N")]
    pub max_model_calls: Option<u64>,
    /// The most tokens (prompt and answers) one run may use, the next call's prompt
    /// counted before it is sent.
    #[arg(long, value_name = "N")]
    pub max_total_tokens: Option<u64>,
}

/// How long a tool call may wait for approval in a run that stops for it (`lucid run
/// --json --session`, `lucid workflow run --json --session`).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ApprovalArgs {
    /// Seconds a tool call waiting for approval (`stop_reason: "needs_approval"`) stays
    /// answerable: a later run carrying answers after this denies the calls still without
    /// one (the model reads that nobody approved them in time) [default: 86400, or
    /// `approval_timeout_secs` of the configuration].
    #[arg(long, value_name = "SECS")]
    pub approval_timeout: Option<u64>,
}
