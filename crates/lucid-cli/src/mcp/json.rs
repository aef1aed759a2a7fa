//! `--mcp-config FILE.json` as other clients write it: the `{"mcpServers": {…}}` of Claude
//! Desktop, Cursor, Windsurf, Cline, Roo and Kilo, and VS Code's `{"servers": {…}}` with its
//! `inputs`. A server's keys that Lucid reads become its [`ServerConfig`]: the editors'
//! variables (`vars`) are resolved in `command`, `args`, `env`, `envFile`, `cwd`, `url` and
//! `headers` as the editors resolve them, the workspace folder being the project root Lucid
//! runs in; Windsurf's `serverUrl` is the `url`; `envFile` is made absolute against the
//! file's folder and `timeout` (seconds, as Cline and Roo write it) becomes `timeout_s`; any
//! other key is left out and named in one warning. An entry Lucid cannot use (an unknown
//! `type`, no command nor URL, an input nobody can answer…) is skipped, with its reason, and
//! the others load. Nothing in the file raises a permission: `autoApprove` / `alwaysAllow`
//! are left out like the rest, and the warning says so.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use serde_json::{Map, Value};

use super::server_config::ServerConfig;
use super::vars::EditorVars;

/// A server's keys read as they are: `[mcp.servers.NAME]`'s own, which the other clients'
/// common ones (`command`, `args`, `env`, `cwd`, `url`, `headers`, `type`, `disabled`) are.
const READ: &[&str] = &[
    "command",
    "args",
    "env",
    "cwd",
    "url",
    "headers",
    "timeout_s",
    "result_cap",
    "prefix",
    "enabled",
    "permission",
    "tools",
    "type",
    "disabled",
];

/// Other clients' lists of tools to run without asking: never honoured.
const AUTO_ALLOW: &[&str] = &["autoApprove", "alwaysAllow"];

/// The keys whose strings may hold the editors' variables.
const EXPANDED: &[&str] = &["command", "args", "env", "cwd", "url", "headers", "serverUrl"];

/// The sections holding servers: most clients' and VS Code's.
const SECTIONS: &[&str] = &["mcpServers", "servers"];

/// The top-level keys read besides the sections: VS Code's `inputs`.
const TOP_READ: &[&str] = &["inputs"];

/// An `mcp.json` as Lucid reads it.
#[derive(Debug)]
pub struct McpJson {
    /// The servers, by name (the disabled ones included).
    pub servers: BTreeMap<String, ServerConfig>,
    /// What was left out, as one line naming each server and its keys; `None` when nothing was.
    pub warning: Option<String>,
    /// The entries Lucid cannot use, by name, each with why: left out, the rest loaded.
    pub skipped: Vec<(String, String)>,
}

/// Reads the `mcp.json` at `path`; its `${workspaceFolder}` is the current directory (the
/// project root Lucid runs in) and `${userHome}` is `HOME`.
///
/// ```ignore
/// let file = read(Path::new("cline_mcp_settings.json"))?;
/// if let Some(w) = &file.warning { eprintln!("warning: {w}") }
/// ```
pub fn read(path: &Path) -> anyhow::Result<McpJson> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let absolute = std::path::absolute(path).with_context(|| format!("cannot resolve {}", path.display()))?;
    let folder = absolute.parent().unwrap_or(Path::new("/"));
    let workspace = std::env::current_dir().context("cannot read the current directory")?;
    let home = std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from);
    parse(&text, folder, EditorVars::new(&workspace, home), &path.display().to_string())
}

/// Reads `text`, the `mcp.json` named `file` in `folder` (which relative `envFile`s are in),
/// its variables standing for what `vars` says.
pub fn parse(text: &str, folder: &Path, vars: EditorVars, file: &str) -> anyhow::Result<McpJson> {
    let top: Value = serde_json::from_str(text).with_context(|| format!("{file} is not JSON"))?;
    let Value::Object(top) = top else { bail!("{file} is not a JSON object") };
    if !SECTIONS.iter().any(|s| top.contains_key(*s)) {
        bail!(
            "{file} has no MCP servers: neither {{\"mcpServers\": {{...}}}} (Claude Desktop, Cursor, Windsurf, Cline, Roo) nor {{\"servers\": {{...}}}} (VS Code)"
        );
    }
    let vars = vars.with_inputs(top.get("inputs"));
    let mut servers = BTreeMap::new();
    let mut skipped = Vec::new();
    let mut left_out: Vec<(String, Vec<String>)> = Vec::new();
    let others: Vec<String> =
        top.keys().filter(|k| !SECTIONS.contains(&k.as_str()) && !TOP_READ.contains(&k.as_str())).cloned().collect();
    if !others.is_empty() {
        left_out.push(("the top level".into(), others));
    }
    for section in SECTIONS {
        let Some(entries) = top.get(*section) else { continue };
        let Value::Object(entries) = entries else { bail!("{file}: \"{section}\" is not an object of servers") };
        for (name, value) in entries {
            if servers.contains_key(name) {
                skipped.push((name.clone(), "it is in both \"mcpServers\" and \"servers\"".to_string()));
                continue;
            }
            let Value::Object(keys) = value else {
                skipped.push((name.clone(), "it is not an object".to_string()));
                continue;
            };
            match server(keys, folder, &vars) {
                Ok((config, ignored)) => {
                    if !ignored.is_empty() {
                        left_out.push((format!("server `{name}`"), ignored));
                    }
                    servers.insert(name.clone(), config);
                }
                Err(reason) => skipped.push((name.clone(), reason)),
            }
        }
    }
    Ok(McpJson { servers, warning: warning(file, &left_out), skipped })
}

/// One server's keys: its configuration, and the keys left out; or why Lucid cannot use it.
fn server(keys: &Map<String, Value>, folder: &Path, vars: &EditorVars) -> Result<(ServerConfig, Vec<String>), String> {
    let (mut read, mut ignored) = (Map::new(), Vec::new());
    let (mut env_file, mut timeout, mut server_url) = (None, None, None);
    for (key, value) in keys {
        let value = if EXPANDED.contains(&key.as_str()) {
            expanded(value, vars).map_err(|e| format!("{key}: {e}"))?
        } else {
            value.clone()
        };
        match key.as_str() {
            k if READ.contains(&k) => {
                read.insert(key.clone(), value);
            }
            "envFile" => env_file = Some(env_file_path(&value, folder, vars)?),
            "timeout" => timeout = Some(seconds(&value)?),
            "serverUrl" => server_url = Some(value),
            _ => ignored.push(key.clone()),
        }
    }
    // Windsurf's `serverUrl` is the URL of a remote server.
    if let Some(url) = server_url {
        match read.get("url") {
            Some(other) if *other != url => return Err("it has both a `url` and a different `serverUrl`".into()),
            _ => read.insert("url".into(), url),
        };
    }
    let mut config: ServerConfig = serde_json::from_value(Value::Object(read)).map_err(|e| e.to_string())?;
    config.env_file = env_file;
    config.from_editor = true;
    // A relative working folder is the workspace's, as the editors start servers there.
    config.cwd = config.cwd.map(|cwd| vars.workspace().join(cwd));
    // Lucid's own `timeout_s` wins over another client's `timeout`.
    config.timeout_s = config.timeout_s.or(timeout);
    usable(&config)?;
    Ok((config, ignored))
}

/// Why Lucid cannot start `config`, if it cannot.
fn usable(config: &ServerConfig) -> Result<(), String> {
    let remote = match config.kind.as_deref() {
        None => None,
        Some("stdio") => Some(false),
        Some("http" | "streamable-http" | "streamableHttp") => Some(true),
        Some("sse") => {
            return Err(
                "type \"sse\": the older HTTP+SSE transport is not supported; use the server's Streamable HTTP endpoint"
                    .into(),
            );
        }
        Some(other) => return Err(format!("unknown type \"{other}\" (Lucid reads stdio, http and streamable-http)")),
    };
    match (&config.command, &config.url, remote) {
        (Some(_), Some(_), _) => Err("it has both a `command` and a `url`".into()),
        (None, None, _) => Err("it has neither a `command` nor a `url` (or `serverUrl`)".into()),
        (Some(_), None, Some(true)) => Err("its type is HTTP but it has a `command` and no `url`".into()),
        (None, Some(_), Some(false)) => Err("its type is stdio but it has a `url` and no `command`".into()),
        (None, Some(_), _) if config.env_file.is_some() => {
            Err("envFile sets a stdio server's environment; this one has a `url`".into())
        }
        _ => Ok(()),
    }
}

/// `value` with the editors' variables resolved in every string it holds.
fn expanded(value: &Value, vars: &EditorVars) -> Result<Value, String> {
    Ok(match value {
        Value::String(s) => Value::String(vars.expand(s)?),
        Value::Array(items) => Value::Array(items.iter().map(|v| expanded(v, vars)).collect::<Result<_, _>>()?),
        Value::Object(map) => {
            Value::Object(map.iter().map(|(k, v)| Ok((k.clone(), expanded(v, vars)?))).collect::<Result<_, String>>()?)
        }
        other => other.clone(),
    })
}

/// `envFile`: a path with the editors' variables and the environment's, relative to the `mcp.json`'s folder.
fn env_file_path(value: &Value, folder: &Path, vars: &EditorVars) -> Result<PathBuf, String> {
    let path = match value {
        Value::String(path) if !path.is_empty() => path,
        _ => return Err("envFile must be the path of a dotenv file".into()),
    };
    // A path is no secret: its environment variables are read now.
    let path = vars.expand(path).and_then(|p| super::vars::expand(&p, |v| std::env::var(v).ok()));
    Ok(folder.join(path.map_err(|e| format!("envFile: {e}"))?))
}

/// `timeout` as Cline and Roo write it: seconds, a positive number (rounded up).
fn seconds(value: &Value) -> Result<u64, String> {
    match value.as_f64() {
        Some(s) if s.is_finite() && s > 0.0 => Ok(s.ceil() as u64),
        _ => Err("timeout must be a positive number of seconds".into()),
    }
}

/// The one warning naming what was left out, and saying that no tool is allowed by it.
fn warning(file: &str, left_out: &[(String, Vec<String>)]) -> Option<String> {
    if left_out.is_empty() {
        return None;
    }
    let parts: Vec<String> = left_out.iter().map(|(whose, keys)| format!("{whose}: {}", keys.join(", "))).collect();
    let mut warning = format!("{file}: ignored what Lucid does not read — {}", parts.join("; "));
    if left_out.iter().any(|(_, keys)| keys.iter().any(|k| AUTO_ALLOW.contains(&k.as_str()))) {
        warning.push_str(
            ". autoApprove/alwaysAllow allow no tool in Lucid: each tool asks unless Lucid's own \
             configuration (`permission`, `tools`) or --allow says otherwise",
        );
    }
    Some(warning)
}

#[cfg(test)]
mod tests {
    use super::*;
    use lucid::tool::permission::Permission;

    /// The fixture `name` under `tests/mcp_json/`, read as `--mcp-config` reads it.
    fn fixture(name: &str) -> McpJson {
        read(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp_json").join(name)).unwrap()
    }

    /// No server in `file` has a permission raised: none set, no tool named.
    fn no_permission_raised(file: &McpJson) {
        for (name, s) in &file.servers {
            assert_eq!(s.permission, None, "{name}");
            assert!(s.tools.is_empty(), "{name}: {:?}", s.tools);
            assert!(s.tools.values().all(|p| *p != Permission::Allow));
        }
    }

    #[test]
    fn claude_desktops_and_cursors_file_loads_and_its_other_settings_are_only_named() {
        let file = fixture("claude_desktop.json");
        assert_eq!(file.servers.keys().collect::<Vec<_>>(), ["everything", "remote"]);
        let everything = &file.servers["everything"];
        assert_eq!(everything.command.as_deref(), Some("npx"));
        assert_eq!(everything.args, ["-y", "@modelcontextprotocol/server-everything"]);
        assert_eq!(everything.env["K"], "${HOME}");
        assert_eq!(file.servers["remote"].url.as_deref(), Some("http://127.0.0.1:1/mcp"));
        assert_eq!(file.servers["remote"].headers["Authorization"], "Bearer ${T}");
        // Claude Desktop's other settings at the top level are named, not refused.
        let w = file.warning.as_deref().unwrap();
        assert!(w.contains("the top level: globalShortcut") && !w.contains("server `"), "{w}");
        no_permission_raised(&file);
    }

    #[test]
    fn clines_file_loads_with_disabled_and_timeout_read_and_auto_approve_refused() {
        let file = fixture("cline.json");
        let fetch = &file.servers["fetch"];
        assert_eq!(fetch.timeout_s, Some(120), "Cline's timeout is seconds");
        assert!(fetch.is_enabled());
        assert!(!file.servers["github"].is_enabled(), "disabled: true");
        let w = file.warning.as_deref().unwrap();
        assert_eq!(w.matches("ignored what Lucid does not read").count(), 1, "one warning: {w}");
        assert!(w.contains("server `fetch`: autoApprove"), "{w}");
        assert!(w.contains("server `github`: autoApprove, transportType"), "{w}");
        assert!(w.contains("allow no tool"), "{w}");
        no_permission_raised(&file);
    }

    #[test]
    fn roos_file_loads_and_always_allow_allows_nothing() {
        let file = fixture("roo.json");
        let files = &file.servers["files"];
        assert_eq!(files.timeout_s, Some(3), "2.5 s rounded up");
        assert_eq!(files.kind.as_deref(), Some("stdio"));
        let w = file.warning.as_deref().unwrap();
        assert!(w.contains("server `files`: alwaysAllow, description, watchPaths"), "{w}");
        assert!(w.contains("allow no tool"), "{w}");
        no_permission_raised(&file);
    }

    #[test]
    fn vs_codes_servers_form_loads_with_its_types_and_env_file_and_skips_what_it_cannot_start() {
        let file = fixture("vscode.json");
        assert_eq!(file.servers.keys().collect::<Vec<_>>(), ["memory"]);
        let memory = &file.servers["memory"];
        assert_eq!((memory.kind.as_deref(), memory.command.as_deref()), (Some("stdio"), Some("npx")));
        let env_file = memory.env_file.as_deref().unwrap();
        assert!(env_file.is_absolute() && env_file.ends_with("tests/mcp_json/memory.env"), "{env_file:?}");
        // An input nobody can answer and the old SSE transport: those entries alone are left out.
        let skipped: Vec<&str> = file.skipped.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(skipped, ["github", "legacy"]);
        assert!(file.skipped[0].1.contains("input:github-token"), "{:?}", file.skipped);
        assert!(file.skipped[1].1.contains("sse"), "{:?}", file.skipped);
        assert!(file.warning.is_none(), "`inputs` is read: {:?}", file.warning);
        no_permission_raised(&file);
    }

    #[test]
    fn lucids_own_keys_still_count_and_win_over_another_clients() {
        let text = r#"{"mcpServers": {"s": {"command": "x", "timeout": 5, "timeout_s": 9, "permission": "deny",
                       "tools": {"echo": "allow"}, "result_cap": 100, "prefix": false}}}"#;
        let file = parse(text, Path::new("/d"), vars(), "mcp.json").unwrap();
        let s = &file.servers["s"];
        assert_eq!(
            (s.timeout_s, s.permission, s.result_cap, s.prefix),
            (Some(9), Some(Permission::Deny), Some(100), Some(false))
        );
        assert_eq!(s.tools["echo"], Permission::Allow);
        assert!(file.warning.is_none());
    }

    /// The variables of a file read in `/proj` by a user whose home is `/home/u`.
    fn vars() -> EditorVars {
        EditorVars::new(Path::new("/proj"), Some("/home/u".into()))
    }

    #[test]
    fn what_cannot_be_read_is_an_error_and_an_entry_that_cannot_be_used_is_skipped_alone() {
        let e = |text: &str| format!("{:#}", parse(text, Path::new("/d"), vars(), "m.json").unwrap_err());
        assert!(e(r#"{"other": {}}"#).contains("m.json has no MCP servers"), "{}", e(r#"{"other": {}}"#));
        assert!(e(r#"{"servers": []}"#).contains("not an object of servers"));
        let text = r#"{"mcpServers": {"ok": {"command": "x"}, "a": {"command": "x"}, "t": {"command": "x", "timeout": "soon"},
                       "n": 3, "c": {"command": 3}, "f": {"command": "x", "envFile": 1}, "k": {"type": "websocket", "url": "ws://h"},
                       "none": {"type": "stdio"}, "both": {"command": "x", "url": "http://h"}, "h": {"type": "http", "command": "x"},
                       "ef": {"url": "http://h", "envFile": "a.env"}, "ed": {"command": "${selectedText}"}},
                       "servers": {"a": {"command": "y"}}}"#;
        let file = parse(text, Path::new("/d"), vars(), "m.json").unwrap();
        assert_eq!(file.servers.keys().collect::<Vec<_>>(), ["a", "ok"]);
        assert_eq!(file.servers["a"].command.as_deref(), Some("x"), "the first of two entries named alike");
        let why: BTreeMap<&str, &str> = file.skipped.iter().map(|(n, r)| (n.as_str(), r.as_str())).collect();
        let expected = [
            ("a", "both"),
            ("t", "seconds"),
            ("n", "not an object"),
            ("c", "invalid type"),
            ("f", "envFile"),
            ("k", "unknown type \"websocket\""),
            ("none", "neither"),
            ("both", "both a `command` and a `url`"),
            ("h", "HTTP"),
            ("ef", "envFile"),
            ("ed", "selectedText"),
        ];
        for (name, reason) in expected {
            assert!(why.get(name).is_some_and(|r| r.contains(reason)), "{name}: {why:?}");
        }
        assert_eq!(why.len(), expected.len(), "{why:?}");
    }

    #[test]
    fn the_editors_variables_are_resolved_where_the_editors_resolve_them() {
        // Cursor's and VS Code's predefined variables, VS Code's input with a default, and
        // Windsurf's `serverUrl`; the environment's variables are read at the start instead.
        let text = r#"{"inputs": [{"id": "mode", "type": "promptString", "default": "fast"}],
            "mcpServers": {
              "local": {"command": "${workspaceFolder}/bin/srv", "args": ["--root", "${workspaceFolder}", "--name=${workspaceFolderBasename}",
                        "--mode", "${input:mode}", "--key", "${env:KEY}"], "cwd": "${userHome}${/}work",
                        "env": {"ROOT": "${workspaceFolder}", "TOKEN": "${env:TOKEN}"}, "envFile": "${workspaceFolder}/.env"},
              "rel": {"command": "x", "cwd": "sub", "envFile": "../b.env"},
              "windsurf": {"serverUrl": "https://${env:HOST}/mcp", "headers": {"X-Root": "${workspaceFolder}", "Authorization": "Bearer ${env:T}"}}}}"#;
        let file = parse(text, Path::new("/proj/.vscode"), vars(), "mcp.json").unwrap();
        assert!(file.skipped.is_empty() && file.warning.is_none(), "{:?} {:?}", file.skipped, file.warning);
        let local = &file.servers["local"];
        assert_eq!(local.command.as_deref(), Some("/proj/bin/srv"));
        assert_eq!(local.args, ["--root", "/proj", "--name=proj", "--mode", "fast", "--key", "${env:KEY}"]);
        assert_eq!(local.cwd.as_deref(), Some(Path::new("/home/u/work")));
        assert_eq!((local.env["ROOT"].as_str(), local.env["TOKEN"].as_str()), ("/proj", "${env:TOKEN}"));
        assert_eq!(local.env_file.as_deref(), Some(Path::new("/proj/.env")));
        assert!(local.from_editor);
        let rel = &file.servers["rel"];
        assert_eq!(rel.cwd.as_deref(), Some(Path::new("/proj/sub")));
        assert_eq!(rel.env_file.as_deref(), Some(Path::new("/proj/.vscode/../b.env")));
        let windsurf = &file.servers["windsurf"];
        assert_eq!(windsurf.url.as_deref(), Some("https://${env:HOST}/mcp"));
        assert_eq!(windsurf.headers["X-Root"], "/proj");
        assert_eq!(windsurf.headers["Authorization"], "Bearer ${env:T}");
        let both = r#"{"mcpServers": {"w": {"url": "http://a", "serverUrl": "http://b"}}}"#;
        let file = parse(both, Path::new("/d"), vars(), "m.json").unwrap();
        assert!(file.skipped[0].1.contains("serverUrl"), "{:?}", file.skipped);
    }
}
