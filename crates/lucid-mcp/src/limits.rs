//! What an MCP server may send: the size of a message, its tool list, a result, a line of
//! its stderr; and the bounded `tools/list` that enforces the list's part.

use std::collections::HashSet;
use std::time::Duration;

use rmcp::RoleClient;
use rmcp::model::PaginatedRequestParams;

/// The bounds on what one MCP server may send. A server is a third party: each bound keeps
/// a broken or hostile one from hanging Lucid or filling its memory, and a server that
/// crosses one fails with a message naming it and the bound.
///
/// ```
/// use lucid_mcp::{McpLimits, McpServer};
/// let mut limits = McpLimits::default();
/// limits.max_result_bytes = 200_000;
/// let server = McpServer::stdio("mcp-server-git", ["--repository", "."]).limits(limits);
/// assert_eq!(server.get_limits().max_result_bytes, 200_000);
/// assert_eq!(server.get_limits().max_tools, McpLimits::default().max_tools);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct McpLimits {
    /// The longest message (one JSON-RPC line over stdio, one response or event over
    /// HTTP). A stdio server that sends a longer line is disconnected: what it meant to
    /// answer fails at once instead of waiting for an answer that was dropped.
    pub max_message_bytes: usize,
    /// The most pages of `tools/list` (a server that always sends a `nextCursor`).
    pub max_pages: usize,
    /// The most tools one server may offer.
    pub max_tools: usize,
    /// The largest definition of one tool (its name, description and schemas as JSON):
    /// every request to the model carries it.
    pub max_tool_bytes: usize,
    /// The largest definitions of all of a server's tools together.
    pub max_tools_bytes: usize,
    /// The most bytes of a call's result the model reads; the rest is cut and counted.
    pub max_result_bytes: usize,
    /// The longest stderr line kept (for error messages and the log); the rest is dropped.
    pub max_stderr_line_bytes: usize,
}

impl Default for McpLimits {
    fn default() -> Self {
        McpLimits {
            max_message_bytes: 8 * 1024 * 1024,
            max_pages: 64,
            max_tools: 1024,
            max_tool_bytes: 64 * 1024,
            max_tools_bytes: 1024 * 1024,
            max_result_bytes: 64 * 1024,
            max_stderr_line_bytes: 4096,
        }
    }
}

/// Lists every tool of the server, page by page, within `timeout` and `limits`; the error
/// says which bound was crossed (the caller names the server).
pub(crate) async fn list_tools(
    peer: &rmcp::Peer<RoleClient>,
    timeout: Duration,
    limits: &McpLimits,
) -> Result<Vec<rmcp::model::Tool>, Unlisted> {
    let pages = async {
        let mut tools = Vec::new();
        let mut total = 0usize;
        let mut cursor: Option<String> = None;
        let mut cursors = HashSet::new();
        for _ in 0..limits.max_pages {
            let params = PaginatedRequestParams::default().with_cursor(cursor.take());
            let page = peer
                .list_tools(Some(params))
                .await
                .map_err(|e| Unlisted { reason: format!("tools/list failed: {e}"), challenge: scope_challenge(&e) })?;
            for tool in page.tools {
                let bytes = serde_json::to_vec(&tool).map_or(usize::MAX, |b| b.len());
                if bytes > limits.max_tool_bytes {
                    return Err(format!(
                        "the tool `{}` is described in {bytes} bytes, more than the {} allowed for one tool",
                        shown_name(&tool.name),
                        limits.max_tool_bytes
                    )
                    .into());
                }
                total += bytes;
                if total > limits.max_tools_bytes {
                    return Err(format!(
                        "its tools are described in more than {} bytes in all",
                        limits.max_tools_bytes
                    )
                    .into());
                }
                if tools.len() == limits.max_tools {
                    return Err(format!("it offers more than {} tools", limits.max_tools).into());
                }
                tools.push(tool);
            }
            match page.next_cursor {
                None => return Ok(tools),
                Some(next) if !cursors.insert(next.clone()) => {
                    return Err("tools/list repeated a page cursor".to_string().into());
                }
                Some(next) => cursor = Some(next),
            }
        }
        Err(format!("tools/list went on past {} pages", limits.max_pages).into())
    };
    match tokio::time::timeout(timeout, pages).await {
        Ok(listed) => listed,
        Err(_) => Err(format!("no complete answer to tools/list within {:.1} s", timeout.as_secs_f64()).into()),
    }
}

/// Why a tool list could not be read, and the `WWW-Authenticate` challenge of the server's
/// `403 insufficient_scope` when that was the reason.
#[derive(Debug)]
pub(crate) struct Unlisted {
    pub(crate) reason: String,
    #[cfg_attr(not(feature = "auth"), allow(dead_code, reason = "read by the step-up"))]
    pub(crate) challenge: Option<String>,
}

impl From<String> for Unlisted {
    fn from(reason: String) -> Self {
        Unlisted { reason, challenge: None }
    }
}

/// The `WWW-Authenticate` challenge of a `403 insufficient_scope` among `e`'s sources.
pub(crate) fn scope_challenge(e: &(dyn std::error::Error + 'static)) -> Option<String> {
    use rmcp::transport::streamable_http_client::InsufficientScopeError;
    let mut source = Some(e);
    while let Some(err) = source {
        if let Some(scope) = err.downcast_ref::<InsufficientScopeError>() {
            return Some(scope.www_authenticate_header.clone());
        }
        source = err.source();
    }
    None
}

impl std::fmt::Display for Unlisted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.reason)
    }
}

/// A tool name from the server, fit for a message: sanitised and short.
fn shown_name(name: &str) -> String {
    let name = super::sanitize(name);
    if name.chars().count() > 64 { format!("{}…", name.chars().take(64).collect::<String>()) } else { name }
}

/// `text` cut to at most `cap` bytes (at a character boundary), with a note saying how
/// many bytes were left out.
///
/// ```
/// let cut = lucid_mcp::cap_result("héllo world".to_string(), 2);
/// assert_eq!(cut, "h\n[result cut: 11 more bytes not shown]");
/// assert_eq!(lucid_mcp::cap_result("short".to_string(), 10), "short");
/// ```
pub fn cap_result(mut text: String, cap: usize) -> String {
    if text.len() <= cap {
        return text;
    }
    let mut end = cap;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let dropped = text.len() - end;
    text.truncate(end);
    text.push_str(&format!("\n[result cut: {dropped} more bytes not shown]"));
    text
}
