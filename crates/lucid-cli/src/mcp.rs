//! MCP servers for `lucid run` / `lucid chat`: `[mcp.servers.NAME]` in the configuration
//! file, `--mcp-config FILE.json` (the `{"mcpServers": {…}}` file of Claude Desktop and
//! Cursor), `--mcp NAME` / `--mcp none`, `--allow PATTERN`, and `lucid mcp list`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
#[cfg(feature = "mcp")]
use std::time::Duration;

use anyhow::{Context, bail};
#[cfg(feature = "mcp")]
use lucid::mcp::McpServer;
use lucid::tool::Tool;
use lucid::tool::permission::Permission;
use serde::Deserialize;

use crate::args::McpArgs;

/// A running server: `lucid::mcp::McpClient`; none can exist in a build without MCP.
#[cfg(feature = "mcp")]
pub use lucid::mcp::McpClient;
/// A running server: none can exist in a build without the `mcp` feature.
#[cfg(not(feature = "mcp"))]
#[derive(Clone)]
pub enum McpClient {}

/// What a build without the `mcp` feature says when asked to use a server.
#[cfg(not(feature = "mcp"))]
const NO_MCP: &str = "this lucid was built without its `mcp` feature; rebuild it with the default features (`cargo build --release -p lucid-cli`)";

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
    /// Seconds per call (default 60).
    pub timeout_s: Option<u64>,
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
    /// Cursor's `disabled`.
    pub disabled: Option<bool>,
}

/// `[mcp]` of the configuration file.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct McpSection {
    #[serde(default)]
    servers: BTreeMap<String, ServerConfig>,
}

/// The `{"mcpServers": {…}}` file.
#[derive(Debug, Deserialize)]
struct McpJson {
    #[serde(rename = "mcpServers")]
    servers: BTreeMap<String, ServerConfig>,
}

/// The servers to start, by name, from the file's `[mcp]` and `--mcp-config`, filtered by
/// `--mcp` and `enabled`.
pub fn servers(file_mcp: Option<&toml::Table>, args: &McpArgs) -> anyhow::Result<BTreeMap<String, ServerConfig>> {
    let mut all = match file_mcp {
        Some(t) => {
            let section: McpSection =
                t.clone().try_into().context("the configuration file's [mcp] section is invalid")?;
            section.servers
        }
        None => BTreeMap::new(),
    };
    if let Some(path) = &args.mcp_config {
        all.extend(read_json(path)?);
    }
    if args.only.iter().any(|n| n == "none") {
        return Ok(BTreeMap::new());
    }
    for name in &args.only {
        if !all.contains_key(name) {
            let known: Vec<&str> = all.keys().map(String::as_str).collect();
            bail!(
                "--mcp {name}: no such MCP server (configured: {})",
                if known.is_empty() { "none".into() } else { known.join(", ") }
            );
        }
    }
    all.retain(|name, s| {
        (args.only.is_empty() || args.only.contains(name)) && s.enabled != Some(false) && s.disabled != Some(true)
    });
    Ok(all)
}

fn read_json(path: &Path) -> anyhow::Result<BTreeMap<String, ServerConfig>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let parsed: McpJson = serde_json::from_str(&text)
        .with_context(|| format!("{} is not an {{\"mcpServers\": {{...}}}} file", path.display()))?;
    Ok(parsed.servers)
}

#[cfg_attr(not(feature = "mcp"), allow(dead_code, reason = "used when servers start"))]
/// `value` with every `${VAR}` replaced by the variable's value; a missing variable is an
/// error naming it (never the value).
pub fn expand(value: &str, lookup: impl Fn(&str) -> Option<String>) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = value;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[start..]);
            return Ok(out);
        };
        let var = &after[..end];
        out.push_str(&lookup(var).ok_or_else(|| format!("the environment variable {var} is not set"))?);
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(feature = "mcp")]
/// The library's description of server `name`, secrets expanded from the environment.
pub fn to_server(name: &str, s: &ServerConfig) -> anyhow::Result<McpServer> {
    let env = |v: &str| std::env::var(v).ok();
    let mut server = match (&s.command, &s.url) {
        (Some(command), None) => {
            let mut server = McpServer::stdio(command.clone(), s.args.clone());
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
            let mut server = McpServer::http(url.clone());
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
    server = server.name(name).prefix(s.prefix.unwrap_or(true));
    if let Some(t) = s.timeout_s {
        server = server.timeout(Duration::from_secs(t));
    }
    Ok(server)
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
pub async fn start(servers: &BTreeMap<String, ServerConfig>, warn_on_failure: bool) -> anyhow::Result<Started> {
    survive_dead_servers(servers);
    let mut configs = Vec::new();
    for (name, s) in servers {
        configs.push((to_server(name, s)?, s.clone()));
    }
    let results = lucid::mcp::connect_all(configs.iter().map(|(s, _)| s.clone()).collect()).await;
    let (mut clients, mut failed) = (Vec::new(), Vec::new());
    for (result, (server, cfg)) in results.into_iter().zip(configs) {
        match result {
            Ok(c) => clients.push((c, cfg)),
            Err(e) if warn_on_failure => {
                eprintln!("warning: {e}");
                failed.push((server.get_name().to_string(), e.to_string()));
            }
            Err(e) => return Err(e.into()),
        }
    }
    Ok((clients, failed))
}

/// Whether `name` matches the glob `pattern` (`*` any run of characters, `?` one).
pub fn glob(pattern: &str, name: &str) -> bool {
    fn go(p: &[u8], n: &[u8]) -> bool {
        match (p.first(), n.first()) {
            (None, None) => true,
            (Some(b'*'), _) => go(&p[1..], n) || (!n.is_empty() && go(p, &n[1..])),
            (Some(b'?'), Some(_)) => go(&p[1..], &n[1..]),
            (Some(a), Some(b)) if a == b => go(&p[1..], &n[1..]),
            _ => false,
        }
    }
    go(pattern.as_bytes(), name.as_bytes())
}

#[cfg(feature = "mcp")]
/// The tools of the servers, each with its permission: the per-tool override, else the
/// server's, else `ask`.
pub fn tools(clients: &[(McpClient, ServerConfig)]) -> anyhow::Result<Vec<(Arc<dyn Tool>, Permission)>> {
    let only: Vec<McpClient> = clients.iter().map(|(c, _)| c.clone()).collect();
    let mut out = Vec::new();
    for tool in lucid::mcp::tool_set(&only)? {
        let cfg = clients.iter().find(|(c, _)| c.name() == tool.server()).map(|(_, cfg)| cfg);
        let permission =
            cfg.and_then(|c| c.tools.get(tool.remote_name()).copied().or(c.permission)).unwrap_or(Permission::Ask);
        out.push((tool as Arc<dyn Tool>, permission));
    }
    Ok(out)
}

/// A value of `env` or `headers` as `lucid config show` prints it: a `${VAR}` reference
/// as written (it holds no secret), anything else masked.
fn masked(value: &str) -> String {
    if value.trim_start().starts_with("${") && value.trim_end().ends_with('}') && value.matches("${").count() == 1 {
        value.to_string()
    } else if let Some(i) = value.find("${") {
        format!("{}…{}", crate::config_show::mask(&value[..i]), &value[i..])
    } else {
        crate::config_show::mask(value)
    }
}

/// The `[mcp.servers.NAME]` sections for `lucid config show`, secrets masked.
pub fn show(file_mcp: Option<&toml::Table>) -> anyhow::Result<()> {
    let servers = servers(file_mcp, &McpArgs::default())?;
    for (name, s) in &servers {
        println!("[mcp.servers.{name}]");
        if let Some(c) = &s.command {
            println!("command = {c:?}");
            println!("args = {:?}", s.args);
        }
        if let Some(u) = &s.url {
            println!("url = {u:?}");
        }
        for (k, v) in &s.env {
            println!("env.{k} = {:?}", masked(v));
        }
        for (k, v) in &s.headers {
            println!("headers.{k:?} = {:?}", masked(v));
        }
        println!("permission = {:?}", format!("{:?}", s.permission.unwrap_or(Permission::Ask)).to_lowercase());
    }
    Ok(())
}

#[cfg(feature = "mcp")]
/// `lucid mcp list [--json]`.
pub async fn list(servers: &BTreeMap<String, ServerConfig>, json: bool) -> anyhow::Result<i32> {
    survive_dead_servers(servers);
    let mut configs = Vec::new();
    for (name, s) in servers {
        configs.push(to_server(name, s)?);
    }
    let results = lucid::mcp::connect_all(configs.clone()).await;
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
    if json {
        println!("{}", serde_json::Value::Array(report.clone()));
    } else if report.is_empty() {
        println!("no MCP servers configured ([mcp.servers.NAME] in the configuration file, or --mcp-config FILE.json)");
    }
    if !json {
        for s in &report {
            let status = if s["status"] == "ok" {
                format!("ok, MCP {}", s["protocol_version"].as_str().unwrap_or("?"))
            } else {
                format!("failed: {}", s["error"].as_str().unwrap_or(""))
            };
            println!("{} ({}) — {status}", s["name"].as_str().unwrap_or(""), s["location"].as_str().unwrap_or(""));
            for t in s["tools"].as_array().into_iter().flatten() {
                let d = t["description"].as_str().unwrap_or("").lines().next().unwrap_or("");
                println!("  {:<40} {d}", t["name"].as_str().unwrap_or(""));
            }
        }
    }
    Ok(if report.iter().all(|s| s["status"] == "ok") { 0 } else { 1 })
}

#[cfg(feature = "mcp")]
/// The tools `lucid mcp serve` offers: those listed, or by default every built-in tool
/// that only reads and needs nothing from outside (no database, no interpreter). `ask_user` is never served (nobody is at Lucid's side to answer).
pub fn served_tools(list: Option<&str>) -> anyhow::Result<Vec<String>> {
    use lucid::tool::builtin::CATALOGUE;
    let names: Vec<String> = match list {
        Some(l) => l.split(',').map(str::trim).filter(|t| !t.is_empty()).map(str::to_string).collect(),
        None => CATALOGUE
            .iter()
            .filter(|t| !t.writes && t.needs.is_none() && t.name != "ask_user")
            .map(|t| t.name.to_string())
            .collect(),
    };
    if names.iter().any(|n| n == "ask_user") {
        bail!("ask_user cannot be served: nobody is at Lucid's side to answer; the MCP client asks its own user");
    }
    Ok(names)
}

#[cfg(feature = "mcp")]
/// `lucid mcp serve [--tools LIST] [--http ADDR]`.
pub async fn serve(
    list: Option<&str>,
    http: Option<std::net::SocketAddr>,
    settings: &crate::config::AgentSettings,
) -> anyhow::Result<i32> {
    if let Some(addr) = http
        && !addr.ip().is_loopback()
    {
        bail!("--http {addr}: serve on a loopback address (127.0.0.1 or [::1]); the tools act on this machine");
    }
    let mut settings = settings.clone();
    settings.tools = served_tools(list)?;
    let mut registry = lucid::tool::ToolRegistry::new();
    // Listed is allowed: the MCP client asks its own user before a call.
    for tool in crate::tools::build(&settings, None)? {
        registry.add_arc(tool);
    }
    match http {
        None => lucid::mcp::serve_stdio(registry).await?,
        Some(addr) => {
            let stop = tokio_util::sync::CancellationToken::new();
            let on_signal = stop.clone();
            tokio::spawn(async move {
                if tokio::signal::ctrl_c().await.is_ok() {
                    on_signal.cancel();
                }
            });
            lucid::mcp::serve_http(registry, addr, stop, |bound| eprintln!("serving MCP at http://{bound}/mcp"))
                .await?;
        }
    }
    Ok(0)
}

/// The servers that started (none without MCP), and the names and errors of those that did not.
#[cfg(not(feature = "mcp"))]
pub type Started = (Vec<(McpClient, ServerConfig)>, Vec<(String, String)>);

/// Without MCP support: no server configured is fine; any server fails as a server that
/// cannot start does (an error, or with `warn_on_failure` a warning), saying why.
#[cfg(not(feature = "mcp"))]
pub async fn start(servers: &BTreeMap<String, ServerConfig>, warn_on_failure: bool) -> anyhow::Result<Started> {
    if servers.is_empty() {
        return Ok((Vec::new(), Vec::new()));
    }
    if !warn_on_failure {
        bail!("{NO_MCP}");
    }
    eprintln!("warning: MCP servers are configured but {NO_MCP}");
    Ok((Vec::new(), servers.keys().map(|name| (name.clone(), NO_MCP.to_string())).collect()))
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

/// `lucid mcp serve` without MCP support.
#[cfg(not(feature = "mcp"))]
pub async fn serve(
    _list: Option<&str>,
    _http: Option<std::net::SocketAddr>,
    _settings: &crate::config::AgentSettings,
) -> anyhow::Result<i32> {
    bail!("{NO_MCP}")
}

/// One line per server for chat's `/mcp`: name, location, status, tool names.
#[cfg(feature = "mcp")]
pub async fn status(clients: &[McpClient]) -> Vec<(String, String, Result<String, String>, Vec<String>)> {
    let mut out = Vec::new();
    for c in clients {
        let state = match c.down_reason().await {
            Some(why) => Err(format!("down: {why}")),
            None => Ok(format!("ok, MCP {}", c.protocol_version().unwrap_or_default())),
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
}

impl ChatServers {
    /// Starts every server at once; one that fails is a warning on stderr and is kept, with
    /// why, for `/mcp` and `/mcp restart`.
    pub async fn start(configs: BTreeMap<String, ServerConfig>, allow: Vec<String>) -> anyhow::Result<Self> {
        let (running, failed) = start(&configs, true).await?;
        Ok(Self { configs, running, failed, allow, handed_out: Vec::new() })
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
        match start(&one, false).await {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expansion_takes_variables_and_names_a_missing_one() {
        let lookup = |v: &str| (v == "TOKEN").then(|| "s3cret".to_string());
        assert_eq!(expand("Bearer ${TOKEN}", lookup).unwrap(), "Bearer s3cret");
        assert_eq!(expand("plain", lookup).unwrap(), "plain");
        let e = expand("${NOPE}", lookup).unwrap_err();
        assert!(e.contains("NOPE") && !e.contains("s3cret"));
    }

    #[test]
    fn config_show_masks_literal_secrets_but_shows_references() {
        assert_eq!(masked("${GITHUB_TOKEN}"), "${GITHUB_TOKEN}");
        assert_eq!(masked("ghp_abcdefghijklmnop1234"), "ghp…1234");
        assert!(!masked("Bearer sk-0123456789abcdef${X}").contains("0123456789"));
    }

    #[test]
    #[cfg(feature = "mcp")]
    fn serve_offers_reading_tools_by_default_and_never_ask_user() {
        let default = served_tools(None).unwrap();
        assert!(default.contains(&"read_file".to_string()) && !default.contains(&"write_file".to_string()));
        assert!(!default.contains(&"shell".to_string()) && !default.contains(&"ask_user".to_string()));
        assert_eq!(served_tools(Some("write_file, shell")).unwrap(), ["write_file", "shell"]);
        assert!(served_tools(Some("ask_user")).is_err());
    }

    #[test]
    fn globs_match_tool_names() {
        assert!(glob("everything__*", "everything__echo"));
        assert!(glob("write_file", "write_file"));
        assert!(!glob("everything__*", "files__read"));
        assert!(glob("*__e?ho", "x__echo"));
    }

    #[test]
    fn the_starter_files_example_servers_parse_and_mcp_flags_filter_them() {
        let uncommented: String = crate::config::file::starter()
            .lines()
            .skip_while(|l| !l.contains("[mcp.servers.everything]"))
            .map(|l| l.strip_prefix("# ").unwrap_or(l))
            .collect::<Vec<_>>()
            .join("\n");
        let table: toml::Table = toml::from_str(&uncommented).unwrap();
        let mcp = table["mcp"].as_table().unwrap();
        let all = servers(Some(mcp), &McpArgs::default()).unwrap();
        assert_eq!(all.keys().collect::<Vec<_>>(), ["everything", "remote"]);
        assert_eq!(all["everything"].tools["echo"], Permission::Allow);
        let only = McpArgs { only: vec!["remote".into()], ..Default::default() };
        assert_eq!(servers(Some(mcp), &only).unwrap().keys().collect::<Vec<_>>(), ["remote"]);
        let none = McpArgs { only: vec!["none".into()], ..Default::default() };
        assert!(servers(Some(mcp), &none).unwrap().is_empty());
        let unknown = McpArgs { only: vec!["nope".into()], ..Default::default() };
        let e = servers(Some(mcp), &unknown).unwrap_err().to_string();
        assert!(e.contains("nope") && e.contains("everything, remote"), "{e}");
    }

    #[test]
    fn the_claude_desktop_file_is_read_unchanged() {
        let text = r#"{"mcpServers": {"everything": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"], "env": {"K": "${HOME}"}},
                       "remote": {"type": "http", "url": "http://127.0.0.1:1/mcp", "headers": {"Authorization": "Bearer ${T}"}}}}"#;
        let parsed: McpJson = serde_json::from_str(text).unwrap();
        assert_eq!(parsed.servers["everything"].command.as_deref(), Some("npx"));
        assert_eq!(parsed.servers["remote"].url.as_deref(), Some("http://127.0.0.1:1/mcp"));
    }
}
