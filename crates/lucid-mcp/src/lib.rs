//! Model Context Protocol: the tools of MCP servers as Lucid tools (feature `mcp`).
//!
//! An [`McpServer`] says how to reach a server: a command started as a child process
//! speaking over stdio ([`McpServer::stdio`]) or a Streamable HTTP endpoint
//! ([`McpServer::http`]). [`McpServer::connect`] starts it, runs the handshake and lists
//! its tools (every page); the [`McpClient`] it returns is a [`ToolSet`], so an
//! [`AgentBuilder`](lucid::AgentBuilder) takes it like a `#[tools]` value:
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use lucid_mcp::McpServer;
//! use lucid::prelude::*;
//!
//! let everything = McpServer::stdio("npx", ["-y", "@modelcontextprotocol/server-everything"])
//!     .name("everything")
//!     .connect()
//!     .await?;
//! let agent = Agent::builder(lucid::model::from_env("openai:gpt-4o-mini")?)
//!     .tool_set(everything) // everything__echo, everything__get-sum, …
//!     .build();
//! let answer = agent.session().run("Echo 'hello' with your tool.").await?;
//! # Ok(()) }
//! ```
//!
//! Each tool becomes an [`McpTool`] named `{server}__{tool}` (sanitised to
//! `[A-Za-z0-9_-]`, at most 64 characters, a short deterministic hash added on a clash);
//! [`McpServer::prefix`]`(false)` keeps the bare names (except the names the application
//! [reserves](McpServer::reserve), such as `shell`, which keep their prefix), and [`tool_set`] then refuses two servers
//! offering the same name. Its calls go through the agent's validation,
//! permission policy, timeout, events and transcript like any other tool. Results read:
//! `structuredContent` when present, else the text blocks joined, with images, audio and
//! resources described (type, size, URI); `isError` makes the call a failure the model
//! reads.
//!
//! Faults stay inside the call that met them. Each call has the server's timeout (60 s by
//! default, [`McpServer::timeout`]); when it passes, or the run is cancelled, the request
//! is dropped and `notifications/cancelled` sent. A stdio server that dies during a call
//! fails that call with a message saying so (and the last lines of its stderr); the next
//! call starts it again once, after a short wait; a second crash leaves it down, and its
//! calls say why. A server that fails to start is an [`McpError`] naming the server, its
//! command and its stderr tail. An HTTP server that refuses the connection is tried again
//! (three attempts with backoff) at start only; a `tools/call` is never repeated.
//!
//! A server is a third party, and what it sends is bounded ([`McpLimits`], set with
//! [`McpServer::limits`]): `tools/list` must finish, every page of it, within the server's
//! timeout, with at most 64 pages, 1,024 tools, 64 KiB per tool definition and 1 MiB in
//! all; a stdio message (one line) over 8 MiB disconnects the server at once (rmcp would
//! drop the line and wait forever for the answer it held); a result is cut to 64 KiB
//! ([`McpServer::result_cap`]); a stderr line is kept to 4 KiB. Each failure names the
//! server and the bound. Its tools' schemas are checked under a step budget, inside the
//! call's timeout (see [`validate`](lucid::tool::validate)).
//!
//! The tool list is read again when the server sends `notifications/tools/list_changed`
//! ([`McpClient::tools_changed`]); an agent built earlier keeps the tools it was built
//! with, so rebuild it (or its registry) to offer new ones.
//!
//! Protocol versions: Lucid's `initialize` offers 2025-11-25, the newest version that has
//! the handshake (`rmcp` 3.11 would offer 2026-07-28, which has none, and a server that
//! knows only 2025-11-25 refused it), and accepts the server's answer among the versions
//! `rmcp` knows (2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25);
//! [`McpClient::protocol_version`] says which one was agreed. The npm reference servers,
//! Lucid's own `lucid mcp serve` and the official conformance suite's test servers are
//! tested.
//!
//! Elicitation: with an [`Elicitor`] ([`McpServer::elicitation`]) Lucid declares the
//! `elicitation` capability (form mode) and hands each `elicitation/create` to it; fields
//! the answer leaves out are filled with the schema's defaults ([`fill_defaults`],
//! SEP-1034); URL-mode requests are declined. Without one, Lucid declares nothing and
//! declines. Resources and prompts: [`McpClient::resources`],
//! [`McpClient::resource_templates`], [`McpClient::read_resource`], [`McpClient::prompts`],
//! [`McpClient::prompt`], each within the server's timeout.
//!
//! OAuth (feature `mcp-auth`): `login` runs the authorization code flow with PKCE (rmcp's
//! discovery and dynamic registration, a loopback callback) and keeps the tokens in a file
//! (`FileCredentialStore`, 0600); `McpServer::oauth` then sends them, refreshed.
//! `login_with` takes `LoginOptions`: a pre-registered client (ID and secret), a client ID
//! metadata document's URL, the `client_credentials` grant (no browser), or an enterprise
//! identity provider's ID token exchanged for the server's token (`EnterpriseIdp`, SEP-990).
//!
//! Progress: each `tools/call` carries a progress token, and the server's
//! `notifications/progress` for it go to the calling tool's
//! [`ToolContext::progress`](lucid::tool::ToolContext::progress) (one not above the last is
//! dropped).
//!
//! Serving (feature `mcp-server`): `ToolServer` offers a tool registry, and with a
//! `Catalog` resources, resource templates and prompts, over `serve_stdio` or
//! `serve_http`. A served tool's attached parts are sent as MCP content, and what it
//! reports or asks through its `ToolContext` goes to the connected client (progress, log
//! messages, sampling, elicitation).
//!
//! Not here: sampling as a client (Lucid declares no `sampling` capability), and the older
//! HTTP+SSE transport, which `rmcp` no longer ships.

#[cfg(feature = "auth")]
mod auth;
#[cfg(feature = "server")]
mod catalog;
mod client;
mod content;
mod elicit;
#[cfg(feature = "auth")]
mod enterprise;
mod limits;
mod names;
#[cfg(feature = "server")]
mod serve;
#[cfg(feature = "server")]
mod serve_host;
#[cfg(feature = "server")]
mod serve_http;
#[cfg(feature = "server")]
mod serve_log;
#[cfg(feature = "server")]
mod serve_sessions;
mod stdio;
mod tool;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

#[cfg(feature = "auth")]
pub use auth::{FileCredentialStore, LoginOptions, login, login_with, logout};
#[cfg(feature = "server")]
pub use catalog::{ArgumentSpec, Catalog, CatalogError, MessageSpec, PromptSpec, ResourceSpec};
pub use client::McpClient;
pub use elicit::{ElicitFuture, Elicitation, Elicited, Elicitor, fill_defaults};
#[cfg(feature = "auth")]
pub use enterprise::EnterpriseIdp;
pub use limits::{McpLimits, cap_result};
pub use names::{sanitize, tool_name};
#[cfg(feature = "server")]
pub use serve::{ServeError, ToolServer, serve_stdio};
#[cfg(feature = "server")]
pub use serve_http::{HttpOptions, serve_http};
pub use tool::{McpTool, result_parts, result_text};

use lucid::tool::{Tool, ToolSet, ToolSpec};

/// The default time an MCP server has to answer one call.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// Why an MCP server could not be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum McpError {
    /// A stdio server did not start, or stopped before the handshake finished.
    #[error("MCP server `{server}` ({command}) failed to start: {reason}{}", stderr_note(stderr))]
    Start {
        /// The server's name.
        server: String,
        /// Its command line.
        command: String,
        /// What went wrong.
        reason: String,
        /// The last lines it wrote to stderr.
        stderr: String,
    },
    /// An HTTP server could not be reached or refused the handshake.
    #[error("MCP server `{server}` at {url}: {reason}")]
    Connect {
        /// The server's name.
        server: String,
        /// Its URL.
        url: String,
        /// What went wrong.
        reason: String,
    },
    /// The server answered something Lucid cannot use.
    #[error("MCP server `{server}`: {reason}")]
    Protocol {
        /// The server's name.
        server: String,
        /// What went wrong.
        reason: String,
    },
    /// Two servers offer the same tool name and one of them keeps bare names.
    #[error(
        "the tool name `{name}` is offered by both MCP servers `{first}` and `{second}`; set `prefix = true` on one of them or leave one out"
    )]
    NameCollision {
        /// The name.
        name: String,
        /// The server listed first.
        first: String,
        /// The other one.
        second: String,
    },
}

fn stderr_note(stderr: &str) -> String {
    if stderr.is_empty() { String::new() } else { format!("; its stderr ended with:\n{stderr}") }
}

/// How to reach one MCP server, and how its tools are named and timed.
///
/// ```
/// use lucid_mcp::McpServer;
/// let s = McpServer::stdio("npx", ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"])
///     .name("files")
///     .env("LOG_LEVEL", "warn")
///     .timeout(std::time::Duration::from_secs(20));
/// assert_eq!(s.get_name(), "files");
/// assert_eq!(McpServer::stdio("npx", ["-y", "@modelcontextprotocol/server-everything@2026.8.31"]).get_name(), "server-everything");
/// assert_eq!(McpServer::stdio("/usr/bin/mcp-server-git", ["--repository", "."]).get_name(), "mcp-server-git");
/// let h = McpServer::http("http://127.0.0.1:3001/mcp").header("Authorization", "Bearer x");
/// assert_eq!(h.get_name(), "127_0_0_1_3001");
/// ```
#[derive(Debug, Clone)]
pub struct McpServer {
    name: String,
    transport: Transport,
    timeout: Duration,
    prefix: bool,
    /// Names a bare tool name may not take (the application's own tools').
    reserved: Arc<[String]>,
    limits: McpLimits,
    elicitor: Option<elicit::SharedElicitor>,
}

#[derive(Debug, Clone)]
enum Transport {
    Stdio(stdio::Command),
    Http(HttpEndpoint),
}

#[derive(Clone)]
struct HttpEndpoint {
    url: String,
    headers: Vec<(String, String)>,
    /// Where its OAuth tokens are kept, when it uses OAuth.
    #[cfg_attr(not(feature = "auth"), allow(dead_code, reason = "read only with OAuth"))]
    oauth: Option<PathBuf>,
    /// Sends the user to authorize again when the server wants more scope.
    #[cfg(feature = "auth")]
    opener: Option<auth::Opener>,
}

impl std::fmt::Debug for HttpEndpoint {
    // Header values often hold credentials: never print them.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.headers.iter().map(|(k, _)| k.as_str()).collect();
        f.debug_struct("HttpEndpoint").field("url", &self.url).field("headers", &names).finish()
    }
}

impl HttpEndpoint {
    fn transport(
        &self,
        limits: &McpLimits,
    ) -> Result<rmcp::transport::StreamableHttpClientTransport<reqwest::Client>, String> {
        let (client, config) = self.parts(limits)?;
        Ok(rmcp::transport::StreamableHttpClientTransport::with_client(client, config))
    }

    /// The same transport with the bearer token of the server's OAuth login, refreshed when
    /// it expires; an error saying to log in when there is none.
    #[cfg(feature = "auth")]
    async fn oauth_transport(
        &self,
        limits: &McpLimits,
        store: &std::path::Path,
    ) -> Result<
        rmcp::transport::StreamableHttpClientTransport<rmcp::transport::auth::AuthClient<reqwest::Client>>,
        String,
    > {
        let (client, config) = self.parts(limits)?;
        let mut manager = auth::manager(&self.url, store).await.map_err(|e| format!("OAuth: {e}"))?;
        if !manager.initialize_from_store().await.map_err(|e| format!("OAuth: {e}"))? {
            return Err("not logged in (OAuth): run `lucid mcp login` for this server".to_string());
        }
        let client = rmcp::transport::auth::AuthClient::new(client, manager);
        Ok(rmcp::transport::StreamableHttpClientTransport::with_client(client, config))
    }

    fn parts(
        &self,
        limits: &McpLimits,
    ) -> Result<(reqwest::Client, rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig), String>
    {
        use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
        lucid::model::http::require_tls_for(self.url.as_str()).map_err(|e| e.to_string())?;
        let mut headers = HashMap::new();
        for (k, v) in &self.headers {
            let name = reqwest::header::HeaderName::try_from(k.as_str())
                .map_err(|e| format!("invalid header name `{k}`: {e}"))?;
            let value = reqwest::header::HeaderValue::try_from(v.as_str())
                .map_err(|_| format!("the value of header `{k}` is not a valid header value"))?;
            headers.insert(name, value);
        }
        let client = lucid::model::http::reqwest_client_builder()
            .pool_max_idle_per_host(0)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| format!("could not build the HTTP client: {e}"))?;
        let mut config = StreamableHttpClientTransportConfig::with_uri(self.url.as_str())
            .custom_headers(headers)
            .max_sse_event_size(limits.max_message_bytes);
        config.max_json_response_size = limits.max_message_bytes;
        Ok((client, config))
    }
}

impl McpServer {
    /// A server started as `command args…`, speaking MCP over its stdin and stdout. Its
    /// name defaults to the base name of the first argument that names a package or a path
    /// (`@modelcontextprotocol/server-everything` → `server-everything`), else the
    /// command's (`/usr/bin/mcp-server-git` → `mcp-server-git`).
    pub fn stdio<I, S>(command: impl Into<String>, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let program = command.into();
        let args: Vec<String> = args.into_iter().map(Into::into).collect();
        let base =
            args.iter().find(|a| !a.starts_with('-') && (a.contains('/') || a.contains('@'))).unwrap_or(&program);
        let base = base.rsplit('/').find(|s| !s.is_empty()).unwrap_or(base).to_string();
        let base = base.split('@').find(|s| !s.is_empty()).unwrap_or(&base).to_string();
        McpServer {
            name: sanitize(&base),
            transport: Transport::Stdio(stdio::Command { program, args, env: Vec::new(), cwd: None }),
            timeout: DEFAULT_TIMEOUT,
            prefix: true,
            reserved: Arc::default(),
            limits: McpLimits::default(),
            elicitor: None,
        }
    }

    /// A server at a Streamable HTTP endpoint (e.g. `http://127.0.0.1:3001/mcp`). Its name
    /// defaults to its host and port.
    pub fn http(url: impl Into<String>) -> Self {
        let url = url.into();
        let host = url.split("://").nth(1).unwrap_or(&url).split('/').next().unwrap_or("mcp").to_string();
        McpServer {
            name: sanitize(&host),
            transport: Transport::Http(HttpEndpoint {
                url,
                headers: Vec::new(),
                oauth: None,
                #[cfg(feature = "auth")]
                opener: None,
            }),
            timeout: DEFAULT_TIMEOUT,
            prefix: true,
            reserved: Arc::default(),
            limits: McpLimits::default(),
            elicitor: None,
        }
    }

    /// Answers the server's `elicitation/create` requests with `elicitor` (and declares
    /// the `elicitation` capability); without one, Lucid declares none and declines.
    pub fn elicitation(mut self, elicitor: impl Elicitor) -> Self {
        self.elicitor = Some(elicit::SharedElicitor(Arc::new(elicitor)));
        self
    }

    /// Authorizes an HTTP server's requests with the OAuth tokens kept in `store` by
    /// [`login`] (refreshed when they expire); no effect on a stdio server.
    #[cfg(feature = "auth")]
    pub fn oauth(mut self, store: impl Into<PathBuf>) -> Self {
        if let Transport::Http(http) = &mut self.transport {
            http.oauth = Some(store.into());
        }
        self
    }

    /// Step-up authorization for an [`oauth`](Self::oauth) server: when it answers a
    /// request with `403 insufficient_scope`, Lucid authorizes again for the scopes granted
    /// so far plus those it names (as [`login`] does, the page opened through `open`, e.g.
    /// a browser), then sends the request once more. Without it such a request fails.
    ///
    /// ```
    /// let s = lucid_mcp::McpServer::http("https://example.com/mcp")
    ///     .oauth("tokens/example.json")
    ///     .reauthorize(|page| eprintln!("Open {page}"));
    /// assert_eq!(s.get_name(), "example_com");
    /// ```
    #[cfg(feature = "auth")]
    pub fn reauthorize(mut self, open: impl Fn(&str) + Send + Sync + 'static) -> Self {
        if let Transport::Http(http) = &mut self.transport {
            http.opener = Some(auth::Opener(Arc::new(open)));
        }
        self
    }

    /// Authorizes again for the scope `challenge` asks, when the server can
    /// ([`reauthorize`](Self::reauthorize)); `false` when it cannot.
    #[cfg(feature = "auth")]
    pub(crate) async fn step_up(&self, challenge: &str) -> Result<bool, McpError> {
        let Transport::Http(HttpEndpoint { url, oauth: Some(store), opener: Some(open), .. }) = &self.transport else {
            return Ok(false);
        };
        auth::step_up(url, store, challenge, open).await.map(|()| true)
    }

    /// Sets the server's name: the prefix of its tools' names and the name in messages.
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// The server's name.
    pub fn get_name(&self) -> &str {
        &self.name
    }

    /// Adds an environment variable for a stdio server (ignored for HTTP).
    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        if let Transport::Stdio(c) = &mut self.transport {
            c.env.push((key.into(), value.into()));
        }
        self
    }

    /// Sets the working directory of a stdio server (ignored for HTTP).
    pub fn cwd(mut self, dir: impl Into<PathBuf>) -> Self {
        if let Transport::Stdio(c) = &mut self.transport {
            c.cwd = Some(dir.into());
        }
        self
    }

    /// Adds a header to every request to an HTTP server (ignored for stdio). Its value is
    /// never logged or printed.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        if let Transport::Http(h) = &mut self.transport {
            h.headers.push((name.into(), value.into()));
        }
        self
    }

    /// How long the server has to start and to answer each call (default 60 s).
    pub fn timeout(mut self, limit: Duration) -> Self {
        self.timeout = limit;
        self
    }

    /// The bounds on what the server may send (see [`McpLimits`]).
    pub fn limits(mut self, limits: McpLimits) -> Self {
        self.limits = limits;
        self
    }

    /// The bounds on what the server may send.
    pub fn get_limits(&self) -> &McpLimits {
        &self.limits
    }

    /// The most bytes of one call's result the model reads (default 64 KiB); the rest is
    /// cut, and the result says how much was.
    pub fn result_cap(mut self, bytes: usize) -> Self {
        self.limits.max_result_bytes = bytes.max(1);
        self
    }

    /// Whether tool names get the `{server}__` prefix (default true).
    pub fn prefix(mut self, prefix: bool) -> Self {
        self.prefix = prefix;
        self
    }

    /// Names this server's tools may not take bare: the application's own tools' names
    /// (the built-in tools', `lucid_tools::names()`, and its own). Under
    /// [`prefix`](McpServer::prefix)`(false)` a tool of such a name keeps its `{server}__`
    /// prefix all the same, so that it can never stand in for that tool and take over the
    /// permission rules written for it.
    ///
    /// ```
    /// let server = lucid_mcp::McpServer::stdio("my-server", ["--stdio"]).prefix(false).reserve(["shell", "write_file"]);
    /// # let _ = server;
    /// ```
    pub fn reserve<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.reserved = names.into_iter().map(Into::into).collect();
        self
    }

    /// Where the server is: its command line, or its URL.
    pub fn location(&self) -> String {
        match &self.transport {
            Transport::Stdio(c) => c.display(),
            Transport::Http(h) => h.url.clone(),
        }
    }

    /// Starts the server (or opens the HTTP session), runs the handshake and lists its
    /// tools.
    pub async fn connect(self) -> Result<McpClient, McpError> {
        McpClient::connect(self).await
    }
}

impl McpClient {
    /// This server's tools as Lucid tools, named as [`tool_set`] names them.
    pub fn tools(&self) -> Vec<Arc<dyn Tool>> {
        let tools = tool_set(std::slice::from_ref(self)).unwrap_or_default();
        tools.into_iter().map(|t| t as Arc<dyn Tool>).collect()
    }
}

impl ToolSet for McpClient {
    fn tools(self: Arc<Self>) -> Vec<Arc<dyn Tool>> {
        McpClient::tools(&self)
    }
}

/// The tools of several servers, named so that no two clash: `{server}__{tool}`
/// (sanitised, at most 64 characters) with a short deterministic hash added to the later
/// of two equal names. A bare name (`prefix(false)`) equal to another server's tool name
/// is an [`McpError::NameCollision`] instead, since a hash would silently rename a tool
/// the user asked to keep as it is. A bare name equal to a built-in tool's (`shell`,
/// `write_file`, …) keeps its `{server}__` prefix whatever `prefix` says, so a server can
/// never stand in for a built-in tool and take over its permission.
pub fn tool_set(clients: &[McpClient]) -> Result<Vec<Arc<McpTool>>, McpError> {
    let mut wanted = Vec::new();
    let mut owner: HashMap<String, (usize, bool)> = HashMap::new();
    for (index, client) in clients.iter().enumerate() {
        let prefix = client.server().prefix;
        for tool in client.remote_tools() {
            let bare = tool_name(client.name(), &tool.name, false);
            let forced = !prefix && client.server().reserved.contains(&bare);
            if forced {
                tracing::warn!(server = %client.name(), tool = %bare, "an MCP tool named like a reserved tool keeps its server's prefix");
            }
            let prefix = prefix || forced;
            let name = tool_name(client.name(), &tool.name, prefix);
            if let Some(&(first, first_prefix)) = owner.get(&name)
                && first != index
                && (!prefix || !first_prefix)
            {
                return Err(McpError::NameCollision {
                    name,
                    first: clients[first].name().to_string(),
                    second: client.name().to_string(),
                });
            }
            owner.entry(name.clone()).or_insert((index, prefix));
            wanted.push((client, tool, name));
        }
    }
    let keys = wanted.iter().map(|(c, t, n)| (n.clone(), format!("{}\u{0}{}", c.name(), t.name))).collect();
    let names = names::dedupe(keys);
    let mut tools = Vec::with_capacity(names.len());
    for ((client, tool, _), name) in wanted.into_iter().zip(names) {
        let mut description = tool.description.as_deref().unwrap_or_default().to_string();
        if description.is_empty()
            && let Some(title) = &tool.title
        {
            description = title.clone();
        }
        let schema = serde_json::Value::Object((*tool.input_schema).clone());
        let spec = ToolSpec::new(name, description, schema)
            .map_err(|e| McpError::Protocol { server: client.name().to_string(), reason: e.to_string() })?;
        let idempotent = self::tool::declared_idempotent(&tool);
        tools.push(Arc::new(McpTool::new(spec, tool.name.to_string(), client.clone(), idempotent)));
    }
    Ok(tools)
}

/// Connects to every server at once; each result says how that server fared.
///
/// ```no_run
/// # async fn demo() {
/// use lucid_mcp::{McpServer, connect_all};
/// let results = connect_all(vec![
///     McpServer::stdio("mcp-server-everything", ["stdio"]).name("everything"),
///     McpServer::http("http://127.0.0.1:3001/mcp").name("remote"),
/// ]).await;
/// for r in &results {
///     if let Err(e) = r { eprintln!("warning: {e}"); }
/// }
/// # }
/// ```
pub async fn connect_all(servers: Vec<McpServer>) -> Vec<Result<McpClient, McpError>> {
    futures::future::join_all(servers.into_iter().map(McpServer::connect)).await
}
