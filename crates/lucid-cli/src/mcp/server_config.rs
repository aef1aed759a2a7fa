//! One MCP server as the files describe it: `[mcp.servers.NAME]` of the configuration file
//! and an entry of an `mcp.json` (read in `json`) both become a [`ServerConfig`].

use std::collections::BTreeMap;
use std::path::PathBuf;

use lucid::tool::permission::Permission;
use serde::Deserialize;

/// One server as the files describe it.
#[derive(Debug, Clone, Default, Deserialize)]
#[cfg_attr(not(feature = "mcp"), allow(dead_code, reason = "read only when servers can start"))]
#[serde(deny_unknown_fields)]
pub struct ServerConfig {
    /// The command of a stdio server.
    pub command: Option<String>,
    #[serde(default)]
    pub args: Vec<String>,
    /// Environment of a stdio server; values may be `${VAR}`.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    pub cwd: Option<PathBuf>,
    /// The Streamable HTTP endpoint of a remote server.
    pub url: Option<String>,
    /// Headers for a remote server; values may be `${VAR}`.
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// Seconds per call, and for the start and the tool list (default 60).
    pub timeout_s: Option<u64>,
    /// The most bytes of one result the model reads (default 65536); the rest is cut.
    pub result_cap: Option<usize>,
    /// `{server}__{tool}` names (default true).
    pub prefix: Option<bool>,
    /// Whether the server starts (default true).
    pub enabled: Option<bool>,
    /// The permission of its tools (default `ask`).
    pub permission: Option<Permission>,
    /// Per-tool permissions, by the tool's name on the server.
    #[serde(default)]
    pub tools: BTreeMap<String, Permission>,
    /// Claude Desktop's `"type": "stdio" | "http" | "streamable-http"`; read, not needed.
    #[serde(default, rename = "type")]
    pub kind: Option<String>,
    /// Cursor's, Cline's and Roo's `disabled`.
    pub disabled: Option<bool>,
    /// A dotenv file whose variables join the server's environment (VS Code's `envFile`,
    /// made absolute against the `mcp.json`'s folder); `env` wins on a name in both. Read
    /// when the server starts. Only an `mcp.json` sets it.
    #[serde(skip)]
    pub env_file: Option<PathBuf>,
    /// An editor's `mcp.json` entry: `${env:NAME}` / `${NAME}` in its `command`, `args`,
    /// `cwd` and `url` are read when it starts too, as the editors read them (a server of
    /// the configuration file takes them in `env` and `headers` only).
    #[serde(skip)]
    pub from_editor: bool,
}

impl ServerConfig {
    /// Whether the server starts: neither `enabled = false` nor `disabled: true`.
    ///
    /// ```ignore
    /// let off = ServerConfig { disabled: Some(true), ..Default::default() };
    /// assert!(!off.is_enabled());
    /// ```
    pub fn is_enabled(&self) -> bool {
        self.enabled != Some(false) && self.disabled != Some(true)
    }

    /// Where the server is, as `lucid mcp list` shows it: its command line or its URL.
    #[cfg_attr(not(feature = "mcp"), allow(dead_code, reason = "listed only when servers can start"))]
    pub fn location(&self) -> String {
        match (&self.command, &self.url) {
            (Some(c), _) => {
                std::iter::once(c.as_str()).chain(self.args.iter().map(String::as_str)).collect::<Vec<_>>().join(" ")
            }
            (None, Some(u)) => u.clone(),
            (None, None) => String::new(),
        }
    }
}
