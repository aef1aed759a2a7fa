//! A connection to one MCP server: start, tool list, calls, crash and restart.

use std::sync::{Arc, RwLock, Weak};
use std::time::Duration;

use rmcp::handler::client::progress::{ProgressDispatcher, ProgressSubscriber};
use rmcp::model::{CallToolRequest, CallToolRequestParams, ClientCapabilities, ClientConfig, ClientRequest};
use rmcp::model::{
    CancelledNotificationParam, ElicitRequestParams, ElicitResult, ProgressNotificationParam, ServerResult,
};
use rmcp::model::{ElicitationAction, ElicitationCapability, FormElicitationCapability, Implementation, JsonObject};
use rmcp::model::{ProtocolVersion, ServerCapabilities};
use rmcp::service::{NotificationContext, PeerRequestOptions, RequestContext, RunningService, ServiceError};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use tokio::sync::{Mutex, mpsc, watch};

use super::limits::scope_challenge;
use super::stdio::{Oversized, StderrTail};
use super::{McpError, McpServer, Transport};
use lucid::tool::{ToolContext, ToolError};

/// How many times a connection refused by an HTTP server is retried at start.
const CONNECT_ATTEMPTS: u32 = 3;
/// The wait before the restart that follows a crash.
const RESTART_BACKOFF: Duration = Duration::from_millis(250);

/// Receives the server's notifications (a changed tool list triggers a refresh, progress
/// goes to the call it belongs to) and answers its elicitation requests.
#[derive(Clone)]
struct Handler {
    refresh: mpsc::UnboundedSender<()>,
    progress: ProgressDispatcher,
    server: String,
    elicitor: Option<super::elicit::SharedElicitor>,
}

impl ClientHandler for Handler {
    /// Lucid offers the newest protocol version that has the `initialize` handshake
    /// (2025-11-25) and takes the server's answer when it is older: a server that knows
    /// only that version, or only an older one, gets one it speaks.
    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        if self.elicitor.is_some() {
            let mut elicitation = ElicitationCapability::new();
            elicitation.form = Some(FormElicitationCapability::new());
            capabilities.elicitation = Some(elicitation);
        }
        ClientConfig::new(capabilities, Implementation::new("lucid", env!("CARGO_PKG_VERSION")))
            .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, rmcp::ErrorData> {
        Ok(match &self.elicitor {
            Some(elicitor) => super::elicit::answer(elicitor.0.as_ref(), &self.server, request).await,
            None => ElicitResult::new(ElicitationAction::Decline),
        })
    }

    fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) -> impl Future<Output = ()> + Send + '_ {
        let _ = self.refresh.send(());
        std::future::ready(())
    }

    async fn on_progress(&self, params: ProgressNotificationParam, _context: NotificationContext<RoleClient>) {
        self.progress.handle_notification(params).await;
    }
}

type Service = RunningService<RoleClient, Handler>;

/// The live connection, or why there is none.
enum State {
    Up(Service),
    /// Crashed once; the next call restarts it.
    Crashed,
    /// Stays down (crashed twice, or the restart failed).
    Down(String),
}

struct Connection {
    state: State,
    /// Counts connections, so that a crash seen by a late call does not mark a newer one.
    epoch: u64,
    crashes: u32,
}

struct Inner {
    server: McpServer,
    connection: Mutex<Connection>,
    tools: RwLock<Vec<rmcp::model::Tool>>,
    protocol: RwLock<Option<String>>,
    capabilities: RwLock<Option<ServerCapabilities>>,
    /// Bumped each time the tool list is read again.
    generation: watch::Sender<u64>,
    refresh: mpsc::UnboundedSender<()>,
    /// Routes the server's progress notifications to the calls they belong to.
    progress: ProgressDispatcher,
    stderr: StderrTail,
    oversized: Oversized,
}

impl Inner {
    /// Starts the server again with this connection's handler state.
    async fn start(&self) -> Result<Service, McpError> {
        start(&self.server, &self.refresh, &self.progress, &self.stderr, &self.oversized).await
    }
}

/// A connected MCP server: its tools, kept up to date, and the calls to them.
///
/// Cloning is cheap and shares the connection. The server stops (the child process and
/// its process group killed, the HTTP session closed) when the last clone and the last
/// tool made from it are dropped.
#[derive(Clone)]
pub struct McpClient {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for McpClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpClient").field("server", &self.inner.server.name).finish_non_exhaustive()
    }
}

impl McpClient {
    /// Starts the server and lists its tools.
    pub(crate) async fn connect(server: McpServer) -> Result<McpClient, McpError> {
        let (refresh, refresh_rx) = mpsc::unbounded_channel();
        let stderr = StderrTail::default();
        let oversized = Oversized::default();
        let progress = ProgressDispatcher::new();
        #[cfg_attr(not(feature = "auth"), allow(unused_mut, reason = "a step-up starts again"))]
        let mut service = start(&server, &refresh, &progress, &stderr, &oversized).await?;
        #[cfg_attr(not(feature = "auth"), allow(unused_mut, reason = "a step-up lists again"))]
        let mut listed = super::limits::list_tools(service.peer(), server.timeout, &server.limits).await;
        #[cfg(feature = "auth")]
        if let Err(super::limits::Unlisted { challenge: Some(challenge), .. }) = &listed
            && server.step_up(challenge).await?
        {
            service = start(&server, &refresh, &progress, &stderr, &oversized).await?;
            listed = super::limits::list_tools(service.peer(), server.timeout, &server.limits).await;
        }
        let tools = listed.map_err(|e| McpError::Protocol {
            server: server.name.clone(),
            reason: with_oversize(e.reason, &oversized, &server),
        })?;
        let protocol = service.peer().peer_info().map(|i| i.protocol_version.to_string());
        let capabilities = service.peer().peer_info().map(|i| i.capabilities.clone());
        let inner = Arc::new(Inner {
            server,
            connection: Mutex::new(Connection { state: State::Up(service), epoch: 0, crashes: 0 }),
            tools: RwLock::new(tools),
            protocol: RwLock::new(protocol),
            capabilities: RwLock::new(capabilities),
            generation: watch::Sender::new(0),
            refresh,
            progress,
            stderr,
            oversized,
        });
        tokio::spawn(refresh_tools(Arc::downgrade(&inner), refresh_rx));
        Ok(McpClient { inner })
    }

    /// The server's name (the prefix of its tools' names).
    pub fn name(&self) -> &str {
        &self.inner.server.name
    }

    /// The configuration it was started from.
    pub fn server(&self) -> &McpServer {
        &self.inner.server
    }

    /// The protocol version the server agreed to, e.g. `2025-06-18`.
    pub fn protocol_version(&self) -> Option<String> {
        self.inner.protocol.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// The capabilities the server declared in the handshake (tools, resources, prompts…).
    pub fn capabilities(&self) -> Option<ServerCapabilities> {
        self.inner.capabilities.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// The server's tools as it listed them last (the list is read again when the server
    /// says it changed).
    pub fn remote_tools(&self) -> Vec<rmcp::model::Tool> {
        self.inner.tools.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// A receiver whose value goes up each time the tool list was read again after the
    /// server announced a change (`notifications/tools/list_changed`).
    pub fn tools_changed(&self) -> watch::Receiver<u64> {
        self.inner.generation.subscribe()
    }

    /// Why the server is down, when it is (crashed twice, or failed to restart).
    pub async fn down_reason(&self) -> Option<String> {
        match &self.inner.connection.lock().await.state {
            State::Down(reason) => Some(reason.clone()),
            _ => None,
        }
    }

    /// Stops the server and starts it again (for `/mcp restart`), forgetting past crashes.
    pub async fn restart(&self) -> Result<(), McpError> {
        let mut conn = self.inner.connection.lock().await;
        conn.state = State::Crashed;
        conn.crashes = 0;
        self.inner.stderr.clear();
        let service = self.inner.start().await.inspect_err(|e| {
            conn.state = State::Down(e.to_string());
        })?;
        conn.epoch += 1;
        conn.state = State::Up(service);
        drop(conn);
        let _ = self.inner.refresh.send(());
        Ok(())
    }

    /// The peer to send a request to, restarting a server that crashed once.
    pub(super) async fn peer(&self) -> Result<(rmcp::Peer<RoleClient>, u64), ToolError> {
        let name = &self.inner.server.name;
        let mut conn = self.inner.connection.lock().await;
        if let State::Up(service) = &conn.state
            && service.peer().is_transport_closed()
        {
            conn.crashes += 1;
            conn.state = self.after_crash(conn.crashes);
        }
        match &conn.state {
            State::Up(service) => return Ok((service.peer().clone(), conn.epoch)),
            State::Down(reason) => return Err(ToolError::new(reason.clone())),
            State::Crashed => {}
        }
        tokio::time::sleep(RESTART_BACKOFF).await;
        tracing::warn!(server = %name, "restarting the MCP server after a crash");
        self.inner.stderr.clear();
        match self.inner.start().await {
            Ok(service) => {
                let peer = service.peer().clone();
                conn.epoch += 1;
                conn.state = State::Up(service);
                let _ = self.inner.refresh.send(());
                Ok((peer, conn.epoch))
            }
            Err(e) => {
                let reason = format!("The MCP server `{name}` crashed and could not be restarted: {e}");
                conn.state = State::Down(reason.clone());
                Err(ToolError::new(reason))
            }
        }
    }

    /// The state after the `crashes`-th crash: restart once, then stay down.
    fn after_crash(&self, crashes: u32) -> State {
        if crashes >= 2 {
            State::Down(format!(
                "The MCP server `{}` crashed {crashes} times and stays down{}",
                self.inner.server.name,
                tail_suffix(&self.inner.stderr)
            ))
        } else {
            State::Crashed
        }
    }

    /// Records that the connection of `epoch` died; returns what the failed call reports.
    async fn crashed(&self, epoch: u64) -> String {
        let name = &self.inner.server.name;
        let mut conn = self.inner.connection.lock().await;
        if conn.epoch == epoch && matches!(conn.state, State::Up(_)) {
            conn.crashes += 1;
            conn.state = self.after_crash(conn.crashes);
        }
        let next = match &conn.state {
            State::Down(_) => "It crashed again and stays down.",
            _ => "It will be restarted for the next call.",
        };
        if self.inner.oversized.happened() {
            let max = self.inner.server.limits.max_message_bytes;
            return format!(
                "The MCP server `{name}` sent a message longer than {max} bytes and was disconnected. {next}"
            );
        }
        format!("The MCP server `{name}` stopped during the call. {next}{}", tail_suffix(&self.inner.stderr))
    }

    /// Sends `tools/call`, with the server's timeout (its progress notifications go to the
    /// call's [`ToolContext::progress`]); the run's cancellation and the timeout
    /// both send `notifications/cancelled`.
    pub(crate) async fn call(
        &self,
        tool: &str,
        arguments: Option<JsonObject>,
        ctx: &ToolContext,
    ) -> Result<rmcp::model::CallToolResult, ToolError> {
        match self.call_once(tool, arguments.clone(), ctx).await {
            #[cfg(feature = "auth")]
            Err(Refused::Scope(challenge, e)) => {
                let name = &self.inner.server.name;
                let more = |e: McpError| ToolError::new(format!("The MCP server `{name}` wants more scope: {e}"));
                if !self.inner.server.step_up(&challenge).await.map_err(more)? {
                    return Err(e);
                }
                self.restart().await.map_err(more)?;
                self.call_once(tool, arguments, ctx).await.map_err(Refused::into_error)
            }
            done => done.map_err(Refused::into_error),
        }
    }

    async fn call_once(
        &self,
        tool: &str,
        arguments: Option<JsonObject>,
        ctx: &ToolContext,
    ) -> Result<rmcp::model::CallToolResult, Refused> {
        let (peer, epoch) = self.peer().await?;
        let mut params = CallToolRequestParams::new(tool.to_string());
        params.arguments = arguments;
        let limit = self.inner.server.timeout;
        let name = &self.inner.server.name;
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        let outcome = match peer.send_request_with_option(request, PeerRequestOptions::no_options()).await {
            Err(e) => Ok(Err(e)),
            Ok(handle) => {
                let progress = self.inner.progress.subscribe(handle.progress_token.clone()).await;
                let id = handle.id.clone();
                let cancel = |reason: &str| {
                    let param = CancelledNotificationParam::new(Some(id.clone()), Some(reason.to_string()));
                    let peer = peer.clone();
                    async move {
                        let _ = peer.notify_cancelled(param).await;
                    }
                };
                let answer = relay(handle.await_response(), progress, ctx);
                let outcome = tokio::select! {
                    r = tokio::time::timeout(limit, answer) => r,
                    _ = ctx.cancel.cancelled() => {
                        cancel("the run was cancelled").await;
                        let text = format!("The call to `{tool}` on the MCP server `{name}` was cancelled.");
                        return Err(ToolError::new(text).into());
                    }
                };
                if outcome.is_err() {
                    cancel("timed out").await;
                }
                outcome
            }
        };
        let error = |text: String| Err(Refused::Error(ToolError::new(text)));
        match outcome {
            Err(_) => error(format!(
                "The MCP server `{name}` did not answer `{tool}` within {:.1} s; the call was cancelled.",
                limit.as_secs_f64()
            )),
            Ok(Ok(ServerResult::CallToolResult(result))) => Ok(result),
            // A result with no content at all reads as an empty one.
            Ok(Ok(ServerResult::EmptyResult(_))) => Ok(rmcp::model::CallToolResult::success(Vec::new())),
            Ok(Ok(_)) => error(format!("The MCP server `{name}` answered `{tool}` with something else.")),
            Ok(Err(ServiceError::McpError(e))) => {
                error(format!("The MCP server `{name}` refused the call: {}", e.message))
            }
            Ok(Err(e)) => {
                // A 403 asking for more scope is no crash: the connection is sound.
                if let Some(challenge) = scope_challenge(&e) {
                    let text = format!("The MCP server `{name}` refused the call for want of scope: {challenge}");
                    return Err(Refused::Scope(challenge, ToolError::new(text)));
                }
                if peer.is_transport_closed() || is_transport(&e) {
                    tracing::warn!(server = %name, error = %e, "the MCP server stopped during a call");
                    return error(self.crashed(epoch).await);
                }
                error(format!("The MCP server `{name}` failed the call: {e}"))
            }
        }
    }
}

/// Waits for `answer`, handing the progress the server reports meanwhile (and any already
/// routed when it came) to the call's context. rmcp handles each notification in a task of
/// its own, so one may come late: progress not above the last reported is dropped (MCP
/// says it only increases), and one routed after the answer is lost.
async fn relay<T>(answer: impl Future<Output = T>, mut progress: ProgressSubscriber, ctx: &ToolContext) -> T {
    use futures::{FutureExt as _, StreamExt as _};
    let mut last = f64::NEG_INFINITY;
    let mut report = async |p: ProgressNotificationParam| {
        if p.progress > last {
            last = p.progress;
            ctx.progress(p.progress, p.total, p.message.as_deref()).await;
        }
    };
    let mut answer = std::pin::pin!(answer);
    let answer = loop {
        tokio::select! {
            biased;
            Some(p) = progress.next() => report(p).await,
            a = &mut answer => break a,
        }
    };
    while let Some(Some(p)) = progress.next().now_or_never() {
        report(p).await;
    }
    answer
}

/// Why a call failed: what the model reads, or a `403 insufficient_scope` (its
/// `WWW-Authenticate` challenge) that a step-up may cure.
#[cfg_attr(not(feature = "auth"), allow(dead_code, reason = "read by the step-up"))]
enum Refused {
    Error(ToolError),
    Scope(String, ToolError),
}

impl From<ToolError> for Refused {
    fn from(e: ToolError) -> Self {
        Refused::Error(e)
    }
}

impl Refused {
    fn into_error(self) -> ToolError {
        match self {
            Refused::Error(e) | Refused::Scope(_, e) => e,
        }
    }
}

fn is_transport(e: &ServiceError) -> bool {
    matches!(e, ServiceError::TransportClosed | ServiceError::TransportSend(_))
}

/// `"; its stderr ended with:\n…"` when the server wrote anything to stderr.
pub(crate) fn tail_suffix(tail: &StderrTail) -> String {
    let text = tail.text();
    if text.is_empty() { String::new() } else { format!(". Its stderr ended with:\n{text}") }
}

/// `reason` for a failed request, or why the connection was cut when the server sent a
/// message over the limit.
fn with_oversize(reason: String, oversized: &Oversized, server: &McpServer) -> String {
    if oversized.happened() {
        format!(
            "it sent a message longer than {} bytes and was disconnected ({reason})",
            server.limits.max_message_bytes
        )
    } else {
        reason
    }
}

/// Starts the server and runs the MCP handshake.
async fn start(
    server: &McpServer,
    refresh: &mpsc::UnboundedSender<()>,
    progress: &ProgressDispatcher,
    stderr: &StderrTail,
    oversized: &Oversized,
) -> Result<Service, McpError> {
    let handler = Handler {
        refresh: refresh.clone(),
        progress: progress.clone(),
        server: server.name.clone(),
        elicitor: server.elicitor.clone(),
    };
    match &server.transport {
        Transport::Stdio(command) => {
            let fail = |reason: String| McpError::Start {
                server: server.name.clone(),
                command: command.display(),
                reason,
                stderr: stderr.text(),
            };
            let child =
                command.spawn(&server.name, stderr, oversized, &server.limits).map_err(|e| fail(e.to_string()))?;
            match tokio::time::timeout(server.timeout, handler.serve(child)).await {
                Ok(Ok(service)) => Ok(service),
                Ok(Err(e)) => {
                    // Let the reader catch the last lines the server wrote before it died.
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    Err(fail(with_oversize(format!("the MCP handshake failed: {e}"), oversized, server)))
                }
                Err(_) => Err(fail(format!("no answer to `initialize` within {:.1} s", server.timeout.as_secs_f64()))),
            }
        }
        Transport::Http(http) => {
            let mut last = String::new();
            for attempt in 0..CONNECT_ATTEMPTS {
                if attempt > 0 {
                    tokio::time::sleep(RESTART_BACKOFF * 2u32.pow(attempt - 1)).await;
                }
                let refused =
                    |reason: String| McpError::Connect { server: server.name.clone(), url: http.url.clone(), reason };
                let served = async {
                    #[cfg(feature = "auth")]
                    if let Some(store) = &http.oauth {
                        let transport = http.oauth_transport(&server.limits, store).await.map_err(refused)?;
                        return Ok(handler.clone().serve(transport).await);
                    }
                    let transport = http.transport(&server.limits).map_err(refused)?;
                    Ok::<_, McpError>(handler.clone().serve(transport).await)
                };
                let outcome = match tokio::time::timeout(server.timeout, served).await {
                    Ok(started) => Ok(started?),
                    Err(elapsed) => Err(elapsed),
                };
                match outcome {
                    Ok(Ok(service)) => return Ok(service),
                    Ok(Err(e)) => {
                        last = e.to_string();
                        // Only a refused or dropped connection is worth another try.
                        if !is_connect_error(&e) {
                            break;
                        }
                    }
                    Err(_) => {
                        last = format!("no answer to `initialize` within {:.1} s", server.timeout.as_secs_f64());
                        break;
                    }
                }
            }
            Err(McpError::Connect { server: server.name.clone(), url: http.url.clone(), reason: last })
        }
    }
}

/// Whether the handshake failed before reaching the server.
fn is_connect_error(e: &rmcp::service::ClientInitializeError) -> bool {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = source {
        let text = err.to_string().to_ascii_lowercase();
        if text.contains("connect") && !text.contains("disconnect") {
            return true;
        }
        source = err.source();
    }
    false
}

/// Reads the tool list again each time the server says it changed (or after a restart).
async fn refresh_tools(inner: Weak<Inner>, mut refresh: mpsc::UnboundedReceiver<()>) {
    while refresh.recv().await.is_some() {
        let Some(inner) = inner.upgrade() else { return };
        let peer = match &inner.connection.lock().await.state {
            State::Up(service) => service.peer().clone(),
            _ => continue,
        };
        match super::limits::list_tools(&peer, inner.server.timeout, &inner.server.limits).await {
            Ok(tools) => {
                if let Some(info) = peer.peer_info() {
                    *inner.protocol.write().unwrap_or_else(|p| p.into_inner()) =
                        Some(info.protocol_version.to_string());
                }
                *inner.tools.write().unwrap_or_else(|p| p.into_inner()) = tools;
                inner.generation.send_modify(|g| *g += 1);
                tracing::debug!(server = %inner.server.name, "the MCP tool list was read again");
            }
            Err(e) => {
                tracing::warn!(server = %inner.server.name, error = %e, "could not read the changed MCP tool list; keeping the last one")
            }
        }
    }
}
