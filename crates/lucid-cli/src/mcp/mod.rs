//! MCP servers for `lucid run` / `lucid chat`: starting them, their tools with their
//! permissions, chat's `/mcp` (status and restarts), and `lucid mcp list`. What the
//! configuration says of them (`[mcp.servers.NAME]`, `--mcp-config FILE.json`, `--mcp NAME`,
//! `--allow PATTERN`) is read in `config` (one server's settings in `server_config`), other clients' `mcp.json` in `json` (its
//! `envFile`s in `dotenv`); `lucid mcp serve` is in `serve`; `lucid mcp show | call | read |
//! prompt` (one server looked at by hand, its questions asked at the terminal) in `inspect`.

#[cfg(feature = "mcp")]
mod asking;
#[cfg(feature = "mcp")]
pub use asking::InterviewElicitor;
mod config;
#[cfg_attr(not(feature = "mcp"), allow(dead_code, reason = "read only when servers can start"))]
mod dotenv;
pub mod inspect;
mod json;
#[cfg(feature = "mcp")]
pub mod login;
mod serve;
mod server_config;
mod vars;

use std::collections::BTreeMap;
use std::sync::Arc;
#[cfg(feature = "mcp")]
use std::time::Duration;

use anyhow::bail;
use lucid::tool::permission::Permission;
use lucid::tool::{Interviewer, Tool};
#[cfg(feature = "mcp")]
use lucid_mcp::McpServer;

pub use config::{ServerConfig, configured, glob, servers};
pub use serve::{serve, serve_catalog};
#[cfg(feature = "mcp")]
use vars::expand;

/// A running server: `lucid_mcp::McpClient`; none can exist in a build without MCP.
#[cfg(feature = "mcp")]
pub use lucid_mcp::McpClient;
/// A running server: none can exist in a build without the `mcp` feature.
#[cfg(not(feature = "mcp"))]
#[derive(Clone)]
pub enum McpClient {}

/// What a build without the `mcp` feature says when asked to use a server.
#[cfg(not(feature = "mcp"))]
const NO_MCP: &str = "this lucid was built without its `mcp` feature; rebuild it with the default features (`cargo build --release -p lucid-cli`)";

#[cfg(feature = "mcp")]
/// The library's description of server `name`, secrets expanded from the environment.
pub fn to_server(name: &str, s: &ServerConfig) -> anyhow::Result<McpServer> {
    let env = |v: &str| std::env::var(v).ok();
    // An editor's entry reads the environment in its command line, folder and URL too.
    let s = &if s.from_editor { editor_entry(name, s)? } else { s.clone() };
    let mut server = match (&s.command, &s.url) {
        (Some(command), None) => {
            let mut server = McpServer::stdio(command.clone(), s.args.clone());
            if let Some(path) = &s.env_file {
                // The file's variables first; `env` wins on a name in both.
                for (k, v) in dotenv::read(path).map_err(|e| anyhow::anyhow!("MCP server `{name}`: {e}"))? {
                    if !s.env.contains_key(&k) {
                        server = server.env(k, v);
                    }
                }
            }
            for (k, v) in &s.env {
                server =
                    server.env(k, expand(v, env).map_err(|e| anyhow::anyhow!("MCP server `{name}`: env {k}: {e}"))?);
            }
            if let Some(dir) = &s.cwd {
                server = server.cwd(dir);
            }
            server
        }
        (None, Some(url)) => {
            if s.env_file.is_some() {
                bail!("MCP server `{name}`: envFile sets a stdio server's environment; this one has a `url`");
            }
            let mut server = McpServer::http(url.clone());
            // A server logged in to with `lucid mcp login` gets its OAuth tokens.
            if let Some(path) = login::token_path(url).filter(|p| p.exists()) {
                server = server.oauth(path);
            }
            for (k, v) in &s.headers {
                server = server
                    .header(k, expand(v, env).map_err(|e| anyhow::anyhow!("MCP server `{name}`: header {k}: {e}"))?);
            }
            server
        }
        _ => bail!("MCP server `{name}` needs either `command` or `url`"),
    };
    if s.kind.as_deref() == Some("sse") {
        bail!("MCP server `{name}`: the older HTTP+SSE transport is not supported; use its Streamable HTTP endpoint");
    }
    server = server.name(name).prefix(s.prefix.unwrap_or(true)).reserve(reserved_names());
    if let Some(t) = s.timeout_s {
        server = server.timeout(Duration::from_secs(t));
    }
    if let Some(bytes) = s.result_cap {
        server = server.result_cap(bytes);
    }
    Ok(server)
}

#[cfg(feature = "mcp")]
/// An editor's `mcp.json` entry `s` with `${env:NAME}` / `${NAME}` read in its `command`,
/// `args`, `cwd` and `url`; a variable that is not set is an error naming it.
fn editor_entry(name: &str, s: &ServerConfig) -> anyhow::Result<ServerConfig> {
    let expand = |what: &str, v: &str| {
        expand(v, |var| std::env::var(var).ok()).map_err(|e| anyhow::anyhow!("MCP server `{name}`: {what}: {e}"))
    };
    let mut s = s.clone();
    s.command = s.command.as_deref().map(|c| expand("command", c)).transpose()?;
    s.args = s.args.iter().map(|a| expand("args", a)).collect::<anyhow::Result<_>>()?;
    s.url = s.url.as_deref().map(|u| expand("url", u)).transpose()?;
    if let Some(cwd) = &s.cwd {
        s.cwd = Some(expand("cwd", &cwd.to_string_lossy())?.into());
    }
    Ok(s)
}

#[cfg(feature = "mcp")]
/// Writing to a stdio server that died raises SIGPIPE, which `main` left at its default
/// (end the process) for `lucid … | head`: with MCP servers, a dead server must fail its
/// call instead, so the signal is ignored from here on (the write returns EPIPE).
fn survive_dead_servers(servers: &BTreeMap<String, ServerConfig>) {
    if servers.values().any(|s| s.command.is_some()) {
        // SAFETY: signal(2) with SIG_IGN, before any server is started.
        unsafe {
            libc::signal(libc::SIGPIPE, libc::SIG_IGN);
        }
    }
}

#[cfg(feature = "mcp")]
/// The servers that started, and the names and errors of those that did not.
pub type Started = (Vec<(McpClient, ServerConfig)>, Vec<(String, String)>);

#[cfg(feature = "mcp")]
/// Starts the servers all at once. A server that fails is an error, or with
/// `warn_on_failure` (chat) a warning on stderr, listed in the result, and the rest go on.
/// With `person` (someone at the terminal: `run`, `workflow`; not `serve`), a logged-in
/// server that wants more scope sends them to authorize again in the browser.
pub async fn start(
    servers: &BTreeMap<String, ServerConfig>,
    warn_on_failure: bool,
    person: bool,
) -> anyhow::Result<Started> {
    start_with(servers, warn_on_failure, None, person).await
}

#[cfg(feature = "mcp")]
/// [`start`], each server's elicitation asked through `asker` when there is one (chat's
/// prompt, as `ask_user` is); without one Lucid declares no elicitation.
pub async fn start_asking(
    servers: &BTreeMap<String, ServerConfig>,
    warn_on_failure: bool,
    asker: Option<Arc<dyn Interviewer>>,
) -> anyhow::Result<Started> {
    start_with(servers, warn_on_failure, asker, true).await
}

#[cfg(feature = "mcp")]
async fn start_with(
    servers: &BTreeMap<String, ServerConfig>,
    warn_on_failure: bool,
    asker: Option<Arc<dyn Interviewer>>,
    person: bool,
) -> anyhow::Result<Started> {
    survive_dead_servers(servers);
    let mut configs = Vec::new();
    for (name, s) in servers {
        let mut server = to_server(name, s)?;
        if person {
            server = server.reauthorize(login::open_browser);
        }
        if let Some(asker) = &asker {
            server = server.elicitation(asking::InterviewElicitor(Arc::clone(asker), "MCP server"));
        }
        configs.push((server, s.clone()));
    }
    let results = lucid_mcp::connect_all(configs.iter().map(|(s, _)| s.clone()).collect()).await;
    let (mut clients, mut failed) = (Vec::new(), Vec::new());
    for (result, (server, cfg)) in results.into_iter().zip(configs) {
        match result {
            Ok(c) => clients.push((c, cfg)),
            // The error may carry the server's stderr: shown safe on a terminal.
            Err(e) if warn_on_failure => {
                let e = crate::display::safe(&e.to_string()).into_owned();
                eprintln!("warning: {e}");
                failed.push((server.get_name().to_string(), e));
            }
            Err(e) => bail!("{}", crate::display::safe(&e.to_string())),
        }
    }
    Ok((clients, failed))
}

/// The names no MCP tool takes bare: every built-in tool's and the chat's checklist, so
/// that a server can never stand in for one of them and take over its permission rules.
#[cfg(feature = "mcp")]
fn reserved_names() -> impl Iterator<Item = &'static str> {
    crate::catalogue::names().chain([crate::checklist::NAME])
}

#[cfg(feature = "mcp")]
/// The tools of the servers, each with its permission: the per-tool override, else the
/// server's, else `ask`.
pub fn tools(clients: &[(McpClient, ServerConfig)]) -> anyhow::Result<Vec<(Arc<dyn Tool>, Permission)>> {
    let only: Vec<McpClient> = clients.iter().map(|(c, _)| c.clone()).collect();
    let mut out = Vec::new();
    for tool in lucid_mcp::tool_set(&only)? {
        let cfg = clients.iter().find(|(c, _)| c.name() == tool.server()).map(|(_, cfg)| cfg);
        let permission =
            cfg.and_then(|c| c.tools.get(tool.remote_name()).copied().or(c.permission)).unwrap_or(Permission::Ask);
        out.push((tool as Arc<dyn Tool>, permission));
    }
    Ok(out)
}

#[cfg(feature = "mcp")]
/// `lucid mcp list [--json]`: every server configured, the disabled ones listed as such and
/// not started.
pub async fn list(all: &BTreeMap<String, ServerConfig>, json: bool) -> anyhow::Result<i32> {
    let servers: BTreeMap<String, ServerConfig> =
        all.iter().filter(|(_, s)| s.is_enabled()).map(|(n, s)| (n.clone(), s.clone())).collect();
    survive_dead_servers(&servers);
    let mut configs = Vec::new();
    for (name, s) in &servers {
        configs.push(to_server(name, s)?);
    }
    let results = lucid_mcp::connect_all(configs.clone()).await;
    let mut report = Vec::new();
    for (server, result) in configs.iter().zip(results) {
        let entry = match result {
            Ok(client) => {
                let tools: Vec<serde_json::Value> = client
                    .tools()
                    .iter()
                    .map(|t| serde_json::json!({"name": t.spec().name(), "description": t.spec().description()}))
                    .collect();
                serde_json::json!({"name": server.get_name(), "location": server.location(), "status": "ok",
                    "protocol_version": client.protocol_version(), "tools": tools})
            }
            Err(e) => serde_json::json!({"name": server.get_name(), "location": server.location(),
                "status": "failed", "error": e.to_string(), "tools": []}),
        };
        report.push(entry);
    }
    for (name, s) in all.iter().filter(|(_, s)| !s.is_enabled()) {
        report.push(serde_json::json!({"name": name, "location": s.location(), "status": "disabled", "tools": []}));
    }
    report.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
    if json {
        println!("{}", serde_json::Value::Array(report.clone()));
    } else if report.is_empty() {
        println!("no MCP servers configured ([mcp.servers.NAME] in the configuration file, or --mcp-config FILE.json)");
    }
    if !json {
        // Everything a server sent (its tools' descriptions, its protocol version, the
        // stderr in an error) is shown with its control characters and escape sequences
        // neutralised: a server must not write to the user's terminal.
        use crate::display::safe;
        for s in &report {
            let status = if s["status"] == "ok" {
                format!("ok, MCP {}", safe(s["protocol_version"].as_str().unwrap_or("?")))
            } else if s["status"] == "disabled" {
                "disabled (not started)".to_string()
            } else {
                format!("failed: {}", safe(s["error"].as_str().unwrap_or("")))
            };
            let (name, location) = (s["name"].as_str().unwrap_or(""), s["location"].as_str().unwrap_or(""));
            println!("{} ({}) — {status}", safe(name), safe(location));
            for t in s["tools"].as_array().into_iter().flatten() {
                let d = t["description"].as_str().unwrap_or("").lines().next().unwrap_or("");
                println!("  {:<40} {}", safe(t["name"].as_str().unwrap_or("")), safe(d));
            }
        }
    }
    Ok(if report.iter().all(|s| s["status"] != "failed") { 0 } else { 1 })
}

/// The servers that started (none without MCP), and the names and errors of those that did not.
#[cfg(not(feature = "mcp"))]
pub type Started = (Vec<(McpClient, ServerConfig)>, Vec<(String, String)>);

/// Without MCP support: no server configured is fine; any server fails as a server that
/// cannot start does (an error, or with `warn_on_failure` a warning), saying why.
#[cfg(not(feature = "mcp"))]
pub async fn start(
    servers: &BTreeMap<String, ServerConfig>,
    warn_on_failure: bool,
    _person: bool,
) -> anyhow::Result<Started> {
    if servers.is_empty() {
        return Ok((Vec::new(), Vec::new()));
    }
    if !warn_on_failure {
        bail!("{NO_MCP}");
    }
    eprintln!("warning: MCP servers are configured but {NO_MCP}");
    Ok((Vec::new(), servers.keys().map(|name| (name.clone(), NO_MCP.to_string())).collect()))
}

/// Without MCP support: [`start`] (nobody is asked anything).
#[cfg(not(feature = "mcp"))]
pub async fn start_asking(
    servers: &BTreeMap<String, ServerConfig>,
    warn_on_failure: bool,
    _asker: Option<Arc<dyn Interviewer>>,
) -> anyhow::Result<Started> {
    start(servers, warn_on_failure, true).await
}

/// Without MCP support there are no servers, so no tools.
#[cfg(not(feature = "mcp"))]
pub fn tools(_clients: &[(McpClient, ServerConfig)]) -> anyhow::Result<Vec<(Arc<dyn Tool>, Permission)>> {
    Ok(Vec::new())
}

/// `lucid mcp list` without MCP support.
#[cfg(not(feature = "mcp"))]
pub async fn list(_servers: &BTreeMap<String, ServerConfig>, _json: bool) -> anyhow::Result<i32> {
    bail!("{NO_MCP}")
}

/// One line per server for chat's `/mcp`: name, location, status, tool names.
#[cfg(feature = "mcp")]
pub async fn status(clients: &[McpClient]) -> Vec<(String, String, Result<String, String>, Vec<String>)> {
    let mut out = Vec::new();
    for c in clients {
        let state = match c.down_reason().await {
            Some(why) => Err(format!("down: {}", crate::display::safe(&why))),
            None => Ok(format!("ok, MCP {}", crate::display::safe(&c.protocol_version().unwrap_or_default()))),
        };
        let names = c.tools().iter().map(|t| t.spec().name().to_string()).collect();
        out.push((c.name().to_string(), c.server().location(), state, names));
    }
    out
}

/// Without MCP support there is no server to describe.
#[cfg(not(feature = "mcp"))]
pub async fn status(_clients: &[McpClient]) -> Vec<(String, String, Result<String, String>, Vec<String>)> {
    Vec::new()
}

/// The MCP servers of a chat: those that started, those that did not (with why), and what
/// it takes to start one again or to pick up a server's changed tool list.
pub struct ChatServers {
    configs: BTreeMap<String, ServerConfig>,
    running: Vec<(McpClient, ServerConfig)>,
    failed: Vec<(String, String)>,
    /// `--allow` patterns: tools they match are allowed whatever their server says.
    allow: Vec<String>,
    /// The tool names handed out by the last [`ChatServers::tools`].
    handed_out: Vec<String>,
    /// Who answers the servers' elicitation (the chat's prompt).
    asker: Option<Arc<dyn Interviewer>>,
}

impl ChatServers {
    /// Starts every server at once; one that fails is a warning on stderr and is kept, with
    /// why, for `/mcp` and `/mcp restart`. Their elicitation is asked through `asker`.
    pub async fn start(
        configs: BTreeMap<String, ServerConfig>,
        allow: Vec<String>,
        asker: Option<Arc<dyn Interviewer>>,
    ) -> anyhow::Result<Self> {
        let (running, failed) = start_asking(&configs, true, asker.clone()).await?;
        Ok(Self { configs, running, failed, allow, handed_out: Vec::new(), asker })
    }

    /// The servers' tools as they are now, each one's permission set in `permissions`
    /// (allowed when an `--allow` pattern matches it, else per tool, else per server, else
    /// `ask`).
    pub fn tools(&mut self, permissions: &mut BTreeMap<String, Permission>) -> anyhow::Result<Vec<Arc<dyn Tool>>> {
        let mut out = Vec::new();
        for (tool, permission) in tools(&self.running)? {
            let name = tool.spec().name().to_string();
            let allowed = self.allow.iter().any(|p| glob(p, &name));
            permissions.insert(name, if allowed { Permission::Allow } else { permission });
            out.push(tool);
        }
        self.handed_out = out.iter().map(|t| t.spec().name().to_string()).collect();
        Ok(out)
    }

    /// Whether the servers' tools differ from those [`ChatServers::tools`] last handed out
    /// (a server announced `notifications/tools/list_changed`, or was restarted).
    pub fn changed(&self) -> bool {
        let now: Vec<String> = match tools(&self.running) {
            Ok(tools) => tools.iter().map(|(t, _)| t.spec().name().to_string()).collect(),
            Err(_) => return false,
        };
        now != self.handed_out
    }

    /// Whether no server is configured.
    pub fn is_empty(&self) -> bool {
        self.configs.is_empty()
    }

    /// The servers that started.
    pub fn clients(&self) -> Vec<McpClient> {
        self.running.iter().map(|(c, _)| c.clone()).collect()
    }

    /// The servers that did not start, with why.
    pub fn failed(&self) -> &[(String, String)] {
        &self.failed
    }

    /// Restarts the server `name`, or starts it when it failed at start; false when no
    /// server has that name. A server that fails again stays listed as failed, and the
    /// error says why.
    pub async fn restart(&mut self, name: &str) -> anyhow::Result<bool> {
        #[cfg(feature = "mcp")]
        if let Some((c, _)) = self.running.iter().find(|(c, _)| c.name() == name) {
            c.restart().await?;
            return Ok(true);
        }
        let Some(index) = self.failed.iter().position(|(n, _)| n == name) else {
            return Ok(false);
        };
        let Some(config) = self.configs.get(name) else {
            return Ok(false);
        };
        let one = BTreeMap::from([(name.to_string(), config.clone())]);
        match start_asking(&one, false, self.asker.clone()).await {
            Ok((mut started, _)) => {
                self.failed.remove(index);
                self.running.append(&mut started);
                Ok(true)
            }
            Err(e) => {
                self.failed[index].1 = format!("{e:#}");
                Err(e)
            }
        }
    }
}
