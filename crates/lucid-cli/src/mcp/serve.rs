//! `lucid mcp serve`: the built-in tools offered to other MCP clients, over stdio or
//! Streamable HTTP on a loopback address, with the resources and prompts `[mcp.serve]`
//! describes (`[[mcp.serve.resources]]`, `[[mcp.serve.prompts]]`: see
//! `lucid_mcp::Catalog`; relative files are read from the configuration file's folder).

use anyhow::bail;

#[cfg(not(feature = "mcp"))]
use super::NO_MCP;

#[cfg(feature = "mcp")]
/// The tools `lucid mcp serve` offers: those listed, or by default every built-in tool
/// that only reads and needs nothing from outside (no database, no interpreter). `ask_user` is never served (nobody is at Lucid's side to answer).
pub fn served_tools(list: Option<&str>) -> anyhow::Result<Vec<String>> {
    use crate::catalogue::catalogue;
    let names: Vec<String> = match list {
        Some(l) => l.split(',').map(str::trim).filter(|t| !t.is_empty()).map(str::to_string).collect(),
        None => catalogue()
            .iter()
            .filter(|t| !t.writes && !crate::catalogue::needs_outside(t) && t.name != "ask_user")
            .map(|t| t.name.to_string())
            .collect(),
    };
    if names.iter().any(|n| n == "ask_user") {
        bail!("ask_user cannot be served: nobody is at Lucid's side to answer; the MCP client asks its own user");
    }
    Ok(names)
}

/// The variable holding the bearer token of `lucid mcp serve --http` (else one is made).
#[cfg(feature = "mcp")]
const TOKEN_VAR: &str = "LUCID_MCP_TOKEN";
/// How long one call may take over HTTP.
#[cfg(feature = "mcp")]
const CALL_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(120);
/// The most HTTP sessions open at once.
#[cfg(feature = "mcp")]
const MAX_SESSIONS: usize = 16;
/// The most HTTP sessions open from one address.
#[cfg(feature = "mcp")]
const MAX_SESSIONS_PER_CLIENT: usize = 8;

#[cfg(feature = "mcp")]
/// The bearer token: `LUCID_MCP_TOKEN` (at least 16 characters), else 32 random bytes in
/// hex; true when it was made here (and must be shown).
fn token() -> anyhow::Result<(String, bool)> {
    use std::io::Read as _;
    if let Ok(token) = std::env::var(TOKEN_VAR) {
        if token.trim().len() < 16 || token.trim() != token {
            bail!("{TOKEN_VAR} must be at least 16 characters, without spaces around it");
        }
        return Ok((token, false));
    }
    let mut bytes = [0u8; 32];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .map_err(|e| anyhow::anyhow!("cannot make a token from /dev/urandom: {e}; set {TOKEN_VAR}"))?;
    Ok((bytes.iter().map(|b| format!("{b:02x}")).collect(), true))
}

/// What `[mcp.serve]` of the configuration file (at `path`) offers besides tools.
#[cfg(feature = "mcp")]
pub fn serve_catalog(
    file_mcp: Option<&toml::Table>,
    path: Option<&std::path::Path>,
) -> anyhow::Result<lucid_mcp::Catalog> {
    use anyhow::Context as _;
    let Some(serve) = file_mcp.and_then(|t| t.get("serve")) else { return Ok(lucid_mcp::Catalog::default()) };
    let mut catalog: lucid_mcp::Catalog =
        serve.clone().try_into().context("the configuration file's [mcp.serve] section is invalid")?;
    catalog.check().context("[mcp.serve]")?;
    if let Some(dir) = path.and_then(std::path::Path::parent) {
        catalog.base = dir.to_path_buf();
    }
    Ok(catalog)
}

/// What `[mcp.serve]` offers: nothing without MCP support.
#[cfg(not(feature = "mcp"))]
pub fn serve_catalog(_file_mcp: Option<&toml::Table>, _path: Option<&std::path::Path>) -> anyhow::Result<()> {
    Ok(())
}

#[cfg(feature = "mcp")]
/// `lucid mcp serve [--tools LIST] [--http ADDR [--idle-timeout SECONDS]]`.
pub async fn serve(
    list: Option<&str>,
    http: Option<(std::net::SocketAddr, std::time::Duration)>,
    settings: &crate::config::AgentSettings,
    catalog: lucid_mcp::Catalog,
) -> anyhow::Result<i32> {
    if let Some((addr, _)) = http
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
    let server = lucid_mcp::ToolServer::new(registry, None).catalog(catalog);
    match http {
        None => lucid_mcp::serve_stdio(server).await?,
        Some((addr, idle)) => {
            let (token, generated) = token()?;
            let stop = tokio_util::sync::CancellationToken::new();
            let on_signal = stop.clone();
            tokio::spawn(async move {
                if tokio::signal::ctrl_c().await.is_ok() {
                    on_signal.cancel();
                }
            });
            let options = lucid_mcp::HttpOptions::with_token(token.clone())
                .call_timeout(CALL_TIMEOUT)
                .max_sessions(MAX_SESSIONS)
                .max_sessions_per_client(MAX_SESSIONS_PER_CLIENT)
                .idle_timeout(idle);
            lucid_mcp::serve_http(server, addr, options, stop, |bound| {
                eprintln!("serving MCP at http://{bound}/mcp");
                if generated {
                    eprintln!("bearer token: {token}");
                    eprintln!("(clients send `Authorization: Bearer <token>`; set {TOKEN_VAR} to choose the token)");
                } else {
                    eprintln!("bearer token: the value of {TOKEN_VAR}");
                }
            })
            .await?;
        }
    }
    Ok(0)
}

/// `lucid mcp serve` without MCP support.
#[cfg(not(feature = "mcp"))]
pub async fn serve(
    _list: Option<&str>,
    _http: Option<(std::net::SocketAddr, std::time::Duration)>,
    _settings: &crate::config::AgentSettings,
    _catalog: (),
) -> anyhow::Result<i32> {
    bail!("{NO_MCP}")
}

#[cfg(all(test, feature = "mcp"))]
mod tests {
    use super::*;

    #[test]
    fn serve_offers_reading_tools_by_default_and_never_ask_user() {
        let default = served_tools(None).unwrap();
        assert!(default.contains(&"read_file".to_string()) && !default.contains(&"write_file".to_string()));
        assert!(!default.contains(&"shell".to_string()) && !default.contains(&"ask_user".to_string()));
        assert_eq!(served_tools(Some("write_file, shell")).unwrap(), ["write_file", "shell"]);
        assert!(served_tools(Some("ask_user")).is_err());
    }
}
