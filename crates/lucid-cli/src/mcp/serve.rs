//! `lucid mcp serve`: the built-in tools offered to other MCP clients, over stdio or
//! Streamable HTTP on a loopback address.

use anyhow::bail;

#[cfg(not(feature = "mcp"))]
use super::NO_MCP;

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

/// `lucid mcp serve` without MCP support.
#[cfg(not(feature = "mcp"))]
pub async fn serve(
    _list: Option<&str>,
    _http: Option<std::net::SocketAddr>,
    _settings: &crate::config::AgentSettings,
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
