//! [`serve_http`]: Lucid's tools (and a catalog's resources and prompts) over Streamable
//! HTTP, with a bearer token, a call timeout and bounded sessions ([`HttpOptions`]; the
//! sessions' table is `serve_sessions`).

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use super::serve::{ServeError, ToolServer};
use super::serve_sessions::{Bounds, Exchange, Refused, Sessions};

/// How [`serve_http`] admits clients.
///
/// ```
/// use std::time::Duration;
/// let options = lucid_mcp::HttpOptions::with_token("a-long-random-secret-value")
///     .call_timeout(Duration::from_secs(30))
///     .max_sessions(4)
///     .max_sessions_per_client(2)
///     .idle_timeout(Duration::from_secs(10));
/// assert!(!format!("{options:?}").contains("secret"));
/// ```
#[derive(Clone)]
#[non_exhaustive]
pub struct HttpOptions {
    token: Option<String>,
    call_timeout: Option<Duration>,
    max_sessions: usize,
    max_sessions_per_client: usize,
    idle_timeout: Duration,
}

impl std::fmt::Debug for HttpOptions {
    // The token is a credential: never printed.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpOptions")
            .field("token", &self.token.as_ref().map(|_| "***"))
            .field("call_timeout", &self.call_timeout)
            .field("max_sessions", &self.max_sessions)
            .field("max_sessions_per_client", &self.max_sessions_per_client)
            .field("idle_timeout", &self.idle_timeout)
            .finish()
    }
}

impl HttpOptions {
    /// The calls default to 120 s, the sessions to 32 in all and 8 per client, closed when
    /// idle for 30 s.
    const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(120);
    const DEFAULT_MAX_SESSIONS: usize = 32;
    const DEFAULT_MAX_SESSIONS_PER_CLIENT: usize = 8;
    const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(30);

    /// Every request must carry `Authorization: Bearer {token}`.
    pub fn with_token(token: impl Into<String>) -> Self {
        HttpOptions {
            token: Some(token.into()),
            call_timeout: Some(Self::DEFAULT_CALL_TIMEOUT),
            max_sessions: Self::DEFAULT_MAX_SESSIONS,
            max_sessions_per_client: Self::DEFAULT_MAX_SESSIONS_PER_CLIENT,
            idle_timeout: Self::DEFAULT_IDLE_TIMEOUT,
        }
    }

    /// Any request that reaches the address is served: only for an address nothing but a
    /// trusted proxy (which checks its own credentials) can reach.
    pub fn without_token() -> Self {
        HttpOptions { token: None, ..Self::with_token(String::new()) }
    }

    /// How long one tool call may take (`None`: as long as the tool's own limits allow).
    pub fn call_timeout(mut self, limit: impl Into<Option<Duration>>) -> Self {
        self.call_timeout = limit.into();
        self
    }

    /// The most sessions open at once. A new session past it closes the least recently
    /// used one without a call in progress; only when every session has one is the new
    /// client refused (`503`).
    pub fn max_sessions(mut self, sessions: usize) -> Self {
        self.max_sessions = sessions.max(1);
        self
    }

    /// The most sessions one client (one remote address: the token is shared) may have
    /// open. A new session past it closes that client's least recently used one without a
    /// call in progress; only when each has one is that client, and no other, refused (`429`).
    pub fn max_sessions_per_client(mut self, sessions: usize) -> Self {
        self.max_sessions_per_client = sessions.max(1);
        self
    }

    /// How long a session with no call in progress and no stream open stays open; then it
    /// is closed and its client, when it comes back, starts a new one.
    pub fn idle_timeout(mut self, idle: Duration) -> Self {
        self.idle_timeout = idle.max(Duration::from_millis(10));
        self
    }
}

/// Whether `header` (the `Authorization` value) carries `token`, compared in constant time.
fn authorized(header: Option<&hyper::header::HeaderValue>, token: &str) -> bool {
    let Some(given) = header.and_then(|h| h.to_str().ok()).and_then(|h| h.strip_prefix("Bearer ")) else {
        return false;
    };
    let (a, b) = (given.trim().as_bytes(), token.as_bytes());
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

type Body = http_body_util::combinators::UnsyncBoxBody<bytes::Bytes, std::convert::Infallible>;

/// The answer to a new session refused: `429` when its client has too many, `503` when the
/// server has; either says when to try again (when an idle session may have closed).
fn too_many(refused: Refused, idle: Duration) -> hyper::Response<Body> {
    let mut response = match refused {
        Refused::ClientFull => {
            tracing::warn!("MCP client refused a new session: its sessions all have calls in progress");
            refusal(
                hyper::StatusCode::TOO_MANY_REQUESTS,
                "this client has too many MCP sessions with calls in progress\n",
            )
        }
        Refused::ServerFull => {
            tracing::warn!("MCP session cap reached with every session busy; a new client was refused");
            refusal(hyper::StatusCode::SERVICE_UNAVAILABLE, "too many MCP sessions are open\n")
        }
    };
    let seconds = idle.as_secs().max(1).to_string();
    if let Ok(value) = hyper::header::HeaderValue::from_str(&seconds) {
        response.headers_mut().insert(hyper::header::RETRY_AFTER, value);
    }
    response
}

/// A plain-text response with `status`.
fn refusal(status: hyper::StatusCode, text: &'static str) -> hyper::Response<Body> {
    use http_body_util::BodyExt as _;
    let mut response = hyper::Response::new(http_body_util::Full::new(bytes::Bytes::from(text)).boxed_unsync());
    *response.status_mut() = status;
    if status == hyper::StatusCode::UNAUTHORIZED {
        response
            .headers_mut()
            .insert(hyper::header::WWW_AUTHENTICATE, hyper::header::HeaderValue::from_static("Bearer"));
    }
    response
}

/// Serves `tools` (a [`ToolRegistry`](lucid::tool::ToolRegistry), or a [`ToolServer`] with a
/// catalog) over Streamable HTTP at `http://{addr}/mcp` until `stop` is cancelled,
/// admitting clients as `options` says. Calls `ready` with the bound address (useful with
/// port 0) once it listens.
pub async fn serve_http(
    tools: impl Into<ToolServer>,
    addr: SocketAddr,
    options: HttpOptions,
    stop: tokio_util::sync::CancellationToken,
    ready: impl FnOnce(SocketAddr),
) -> Result<(), ServeError> {
    use http_body_util::BodyExt as _;
    use rmcp::transport::streamable_http_server::session::local::{LocalSessionManager, SessionConfig};
    use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
    use tower_service::Service as _;

    let mut server: ToolServer = tools.into();
    server.timeout = options.call_timeout;
    let config = StreamableHttpServerConfig::default().with_cancellation_token(stop.child_token());
    let mut manager = LocalSessionManager::default();
    // rmcp's idle timer counts only messages, so a long call would look idle to it: it is
    // a safety net longer than any call may last; `Sessions` closes the idle sessions.
    manager.session_config.keep_alive = options.call_timeout.map(|t| {
        t.saturating_add(options.idle_timeout)
            .saturating_add(Duration::from_secs(60))
            .max(SessionConfig::DEFAULT_KEEP_ALIVE)
    });
    let manager = Arc::new(manager);
    let bounds =
        Bounds { total: options.max_sessions, per_client: options.max_sessions_per_client, idle: options.idle_timeout };
    let sessions = Sessions::new(manager.clone(), bounds);
    tokio::spawn(sessions.clone().reap(stop.child_token()));
    let service = StreamableHttpService::new(move || Ok(server.for_session()), manager, config);
    let listener = tokio::net::TcpListener::bind(addr).await.map_err(|source| ServeError::Bind { addr, source })?;
    ready(listener.local_addr().map_err(|source| ServeError::Bind { addr, source })?);
    let options = Arc::new(options);
    loop {
        let (stream, peer) = tokio::select! {
            _ = stop.cancelled() => return Ok(()),
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(e) => {
                    tracing::warn!(error = %e, "accept failed");
                    continue;
                }
            },
        };
        let (service, sessions, options) = (service.clone(), sessions.clone(), options.clone());
        tokio::spawn(async move {
            let handler = hyper::service::service_fn(move |req: hyper::Request<hyper::body::Incoming>| {
                let (mut service, sessions, options) = (service.clone(), sessions.clone(), options.clone());
                async move {
                    if req.uri().path() != "/mcp" {
                        return Ok::<_, std::convert::Infallible>(refusal(hyper::StatusCode::NOT_FOUND, ""));
                    }
                    if let Some(token) = &options.token
                        && !authorized(req.headers().get(hyper::header::AUTHORIZATION), token)
                    {
                        return Ok(refusal(hyper::StatusCode::UNAUTHORIZED, "a bearer token is required\n"));
                    }
                    let exchange = if req.method() == hyper::Method::GET { Exchange::Listen } else { Exchange::Call };
                    let session = req.headers().get("mcp-session-id").and_then(|v| v.to_str().ok());
                    let (mut in_use, mut ticket) = (None, None);
                    match session {
                        Some(id) => in_use = sessions.enter(id, exchange),
                        None if req.method() == hyper::Method::POST => match sessions.admit(peer.ip()).await {
                            Ok(t) => ticket = Some(t),
                            Err(refused) => return Ok(too_many(refused, options.idle_timeout)),
                        },
                        None => {}
                    }
                    let response = service.call(req).await?;
                    if let Some(ticket) = ticket
                        && let Some(id) = response.headers().get("mcp-session-id").and_then(|v| v.to_str().ok())
                    {
                        in_use = ticket.opened(id, exchange);
                    }
                    // The exchange lasts as long as its answer: an SSE stream stays open.
                    Ok(response.map(|body| {
                        body.map_frame(move |frame| {
                            let _in_use = &in_use;
                            frame
                        })
                        .boxed_unsync()
                    }))
                }
            });
            let io = hyper_util::rt::TokioIo::new(stream);
            if let Err(e) = hyper::server::conn::http1::Builder::new().serve_connection(io, handler).await {
                tracing::debug!(error = %e, "MCP HTTP connection ended");
            }
        });
    }
}
