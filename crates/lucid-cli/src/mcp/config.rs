//! The MCP servers as the configuration describes them: `[mcp.servers.NAME]` in the
//! configuration file, `--mcp-config FILE.json` (other clients' `mcp.json`, read in
//! `json`), filtered by `--mcp NAME` / `--mcp none`; `${VAR}` references in their values;
//! and the globs of `--allow PATTERN`.

use std::collections::BTreeMap;

use anyhow::{Context, bail};
use serde::Deserialize;

pub use super::server_config::ServerConfig;
use crate::args::McpArgs;

/// `[mcp]` of the configuration file.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct McpSection {
    #[serde(default)]
    servers: BTreeMap<String, ServerConfig>,
    /// What `lucid mcp serve` offers besides tools (read in `serve`).
    #[serde(default)]
    #[allow(dead_code, reason = "`serve_catalog` reads it from the raw table")]
    serve: Option<toml::Table>,
}

/// The servers to start, by name, from the file's `[mcp]` and `--mcp-config`, filtered by
/// `--mcp`, without those that are disabled (`enabled = false`, `disabled: true`).
pub fn servers(file_mcp: Option<&toml::Table>, args: &McpArgs) -> anyhow::Result<BTreeMap<String, ServerConfig>> {
    let mut all = configured(file_mcp, args)?;
    // A server named with `--mcp` that is disabled would otherwise be left out silently.
    if let Some(name) = args.only.iter().find(|n| all.get(n.as_str()).is_some_and(|s| !s.is_enabled())) {
        bail!("--mcp {name}: that MCP server is disabled (`disabled: true` or `enabled = false`)");
    }
    all.retain(|_, s| s.is_enabled());
    Ok(all)
}

/// The servers configured, by name, from the file's `[mcp]` and `--mcp-config`, filtered by
/// `--mcp`, the disabled ones included (for `lucid mcp list`). What an `mcp.json` says that
/// Lucid does not read is one warning on stderr.
pub fn configured(file_mcp: Option<&toml::Table>, args: &McpArgs) -> anyhow::Result<BTreeMap<String, ServerConfig>> {
    let mut all = match file_mcp {
        Some(t) => {
            let section: McpSection =
                t.clone().try_into().context("the configuration file's [mcp] section is invalid")?;
            section.servers
        }
        None => BTreeMap::new(),
    };
    if let Some(path) = &args.mcp_config {
        let file = super::json::read(path)?;
        if let Some(warning) = &file.warning {
            eprintln!("warning: {}", crate::display::safe(warning));
        }
        for (name, reason) in &file.skipped {
            let (file, name, reason) =
                (path.display().to_string(), crate::display::safe(name), crate::display::safe(reason));
            tracing::warn!("{}: MCP server `{name}` skipped: {reason}", crate::display::safe(&file));
        }
        all.extend(file.servers);
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
    all.retain(|name, _| args.only.is_empty() || args.only.contains(name));
    Ok(all)
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

#[cfg(test)]
mod tests {
    use super::*;
    use lucid::tool::permission::Permission;

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
    fn a_disabled_server_is_configured_but_not_started_and_naming_it_is_an_error() {
        let table: toml::Table =
            toml::from_str("[servers.on]\ncommand = \"a\"\n[servers.off]\ncommand = \"b\"\nenabled = false\n").unwrap();
        assert_eq!(configured(Some(&table), &McpArgs::default()).unwrap().keys().collect::<Vec<_>>(), ["off", "on"]);
        assert_eq!(servers(Some(&table), &McpArgs::default()).unwrap().keys().collect::<Vec<_>>(), ["on"]);
        let off = McpArgs { only: vec!["off".into()], ..Default::default() };
        let e = servers(Some(&table), &off).unwrap_err().to_string();
        assert!(e.contains("--mcp off") && e.contains("disabled"), "{e}");
        assert_eq!(configured(Some(&table), &off).unwrap().keys().collect::<Vec<_>>(), ["off"]);
    }
}
