//! [`serve_http`]: Lucid's tools (and a catalog's resources and prompts) over Streamable
//! HTTP, with a bearer token, a call timeout and a session cap ([`HttpOptions`]).

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use super::serve::{ServeError, ToolServer};

/// How [`serve_http`] admits clients.
///
/// ```
/// use std::time::Duration;
/// let options = lucid::mcp::HttpOptions::with_token("a-long-random-secret-value").call_timeout(Duration::from_secs(30)).max_sessions(4);
/// assert!(!format!("{options:?}").contains("secret"));
/// ```
#[derive(Clone)]
#[non_exhaustive]
pub struct HttpOptions {
    token: Option<String>,
    call_timeout: Option<Duration>,
    max_sessions: usize,
}

impl std::fmt::Debug for HttpOptions {
    // The token is a credential: never printed.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpOptions")
            .field("token", &self.token.as_ref().map(|_| "***"))
            .field("call_timeout", &self.call_timeout)
            .field("max_sessions", &self.max_sessions)
            .finish()
    }
}

impl HttpOptions {
    /// The calls default to 120 s and the sessions to 32.
    const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(120);
    const DEFAULT_MAX_SESSIONS: usize = 32;

    /// Every request must carry `Authorization: Bearer {token}`.
    pub fn with_token(token: impl Into<String>) -> Self {
        HttpOptions {
            token: Some(token.into()),
            call_timeout: Some(Self::DEFAULT_CALL_TIMEOUT),
            max_sessions: Self::DEFAULT_MAX_SESSIONS,
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

    /// The most sessions open at once; a new client past it gets `503`.
    pub fn max_sessions(mut self, sessions: usize) -> Self {
        self.max_sessions = sessions.max(1);
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

type SessionManager = rmcp::transport::streamable_http_server::session::local::LocalSessionManager;

/// When each session was last used. rmcp's session manager forgets a session only when the
/// client sends `DELETE`; one a client abandoned ends its worker after the idle timeout but
/// stays listed, and would hold a place under the cap for ever.
#[derive(Default)]
struct LastUse(std::sync::Mutex<std::collections::HashMap<String, std::time::Instant>>);

impl LastUse {
    fn touch(&self, id: &str) {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).insert(id.to_string(), std::time::Instant::now());
    }

    /// The sessions still open: those idle past the timeout (their workers have quit) are
    /// dropped from `sessions` first.
    async fn open(&self, sessions: &SessionManager) -> usize {
        use rmcp::transport::streamable_http_server::session::local::SessionConfig;
        let mut listed = sessions.sessions.write().await;
        let mut last = self.0.lock().unwrap_or_else(|p| p.into_inner());
        last.retain(|id, _| listed.keys().any(|k| k.as_ref() == id.as_str()));
        listed.retain(|id, _| last.get(id.as_ref()).is_none_or(|t| t.elapsed() < SessionConfig::DEFAULT_KEEP_ALIVE));
        listed.len()
    }
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

/// Serves `tools` (a [`ToolRegistry`](crate::tool::ToolRegistry), or a [`ToolServer`] with a
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
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
    use tower_service::Service as _;

    let mut server: ToolServer = tools.into();
    server.timeout = options.call_timeout;
    let config = StreamableHttpServerConfig::default().with_cancellation_token(stop.child_token());
    let sessions = Arc::new(LocalSessionManager::default());
    let last_use = Arc::new(LastUse::default());
    let service = StreamableHttpService::new(move || Ok(server.for_session()), sessions.clone(), config);
    let listener = tokio::net::TcpListener::bind(addr).await.map_err(|source| ServeError::Bind { addr, source })?;
    ready(listener.local_addr().map_err(|source| ServeError::Bind { addr, source })?);
    let options = Arc::new(options);
    loop {
        let (stream, _) = tokio::select! {
            _ = stop.cancelled() => return Ok(()),
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(e) => {
                    tracing::warn!(error = %e, "accept failed");
                    continue;
                }
            },
        };
        let (service, sessions, options, last_use) =
            (service.clone(), sessions.clone(), options.clone(), last_use.clone());
        tokio::spawn(async move {
            let handler = hyper::service::service_fn(move |req: hyper::Request<hyper::body::Incoming>| {
                let (mut service, sessions, options, last_use) =
                    (service.clone(), sessions.clone(), options.clone(), last_use.clone());
                async move {
                    if req.uri().path() != "/mcp" {
                        return Ok::<_, std::convert::Infallible>(refusal(hyper::StatusCode::NOT_FOUND, ""));
                    }
                    if let Some(token) = &options.token
                        && !authorized(req.headers().get(hyper::header::AUTHORIZATION), token)
                    {
                        return Ok(refusal(hyper::StatusCode::UNAUTHORIZED, "a bearer token is required\n"));
                    }
                    let session = req.headers().get("mcp-session-id").and_then(|v| v.to_str().ok());
                    if let Some(id) = session {
                        last_use.touch(id);
                    } else if last_use.open(&sessions).await >= options.max_sessions {
                        tracing::warn!(max = options.max_sessions, "MCP session cap reached; a new client was refused");
                        return Ok(refusal(hyper::StatusCode::SERVICE_UNAVAILABLE, "too many MCP sessions are open\n"));
                    }
                    let response = service.call(req).await?;
                    if let Some(id) = response.headers().get("mcp-session-id").and_then(|v| v.to_str().ok()) {
                        last_use.touch(id);
                    }
                    Ok(response.map(|body| body.boxed_unsync()))
                }
            });
            let io = hyper_util::rt::TokioIo::new(stream);
            if let Err(e) = hyper::server::conn::http1::Builder::new().serve_connection(io, handler).await {
                tracing::debug!(error = %e, "MCP HTTP connection ended");
            }
        });
    }
}
