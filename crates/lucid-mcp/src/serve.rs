//! Lucid's tools served to other MCP clients (feature `mcp-server`).
//!
//! [`ToolServer`] answers `tools/list` and `tools/call` from a [`ToolRegistry`] (and, with
//! [`ToolServer::catalog`], the resources, templates and prompts of a [`Catalog`]): each call
//! goes through [`ToolRegistry::execute`] (argument validation, errors and panics as
//! `isError` results, the timeout), and a client's `notifications/cancelled` reaches the
//! tool as its [`ToolContext::cancel`]. What the tool attaches ([`ToolContext::attachments`])
//! comes back after its text as image, audio or embedded-resource content; what it
//! reports or asks goes to the client: [`ToolContext::progress`] as `notifications/progress`
//! (when the request carried a `progressToken`), [`ToolContext::log`] as
//! `notifications/message` (at or above the level the client set), [`ToolContext::sample`]
//! as `sampling/createMessage` and [`ToolContext::elicit`] as `elicitation/create` (each an
//! error when the client did not declare the capability). [`serve_stdio`] speaks over stdin/stdout (what
//! Claude Desktop, Cursor and other clients start); [`serve_http`](super::serve_http) serves Streamable HTTP
//! at `/mcp` on an address the caller chose (loopback is the sane one: only
//! `localhost`/`127.0.0.1`/`::1` `Host` headers are accepted, against DNS rebinding). Any
//! local process can reach a loopback port, so [`HttpOptions`](super::HttpOptions) asks every request for a
//! bearer token (`401` without it), bounds each call in time and caps the open sessions
//! (`503` past the cap).
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use lucid::prelude::*;
//! use lucid::tool::ToolRegistry;
//!
//! /// Adds two integers.
//! #[tool]
//! fn add(a: i64, b: i64) -> i64 { a + b }
//!
//! let mut tools = ToolRegistry::new();
//! tools.add(add);
//! lucid_mcp::serve_stdio(tools).await?;
//! # Ok(()) }
//! ```

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CompleteRequestParams, CompleteResult, CompletionInfo,
    GetPromptRequestParams, GetPromptResponse, GetPromptResult, Implementation, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Reference, ServerCapabilities, ServerConfig,
    SubscribeRequestParams, UnsubscribeRequestParams,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler, ServiceExt};
use serde_json::Value;

use super::catalog::{Catalog, CatalogError};
use lucid::message::ToolCall;
use lucid::tool::{ToolContext, ToolRegistry};

/// An MCP server whose tools are a [`ToolRegistry`]'s, with the resources and prompts of a
/// [`Catalog`] ([`ToolServer::catalog`]). It answers `logging/setLevel` (a failed call is
/// then logged to the client at `error`), `completion/complete` from the catalog's
/// completions, and `resources/subscribe` for the resources it serves (a file-backed one
/// is watched: a change is sent as `notifications/resources/updated`).
#[derive(Clone)]
pub struct ToolServer {
    tools: Arc<ToolRegistry>,
    pub(super) timeout: Option<Duration>,
    catalog: Arc<Catalog>,
    session: Arc<SessionState>,
}

/// What one client's session asked for.
#[derive(Default)]
struct SessionState {
    /// The lowest level the client wants logged, once it said.
    level: Arc<super::serve_log::Level>,
    /// The URIs subscribed to, each with the watcher of its file (if any).
    subscriptions: std::sync::Mutex<std::collections::HashMap<String, tokio_util::sync::DropGuard>>,
}

impl From<ToolRegistry> for ToolServer {
    fn from(tools: ToolRegistry) -> Self {
        ToolServer::new(tools, None)
    }
}

/// How often a subscribed file-backed resource is looked at.
const WATCH_EVERY: Duration = Duration::from_secs(2);

/// The MCP error for a catalog failure.
fn catalog_error(e: CatalogError) -> ErrorData {
    match e {
        CatalogError::UnknownResource(_) => ErrorData::resource_not_found(e.to_string(), None),
        CatalogError::File { .. } => ErrorData::internal_error(e.to_string(), None),
        _ => ErrorData::invalid_params(e.to_string(), None),
    }
}

impl std::fmt::Debug for ToolServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolServer").field("tools", &self.tools).finish()
    }
}

impl ToolServer {
    /// A server for these tools; each call may take `timeout` (none: no limit).
    pub fn new(tools: ToolRegistry, timeout: Option<Duration>) -> Self {
        ToolServer { tools: Arc::new(tools), timeout, catalog: Arc::default(), session: Arc::default() }
    }

    /// Serves `catalog`'s resources and prompts too ([`Catalog::check`] it first).
    pub fn catalog(mut self, catalog: Catalog) -> Self {
        self.catalog = Arc::new(catalog);
        self
    }

    /// A copy for a new client session: same tools and catalog, its own log level and
    /// subscriptions.
    pub(super) fn for_session(&self) -> Self {
        ToolServer { session: Arc::default(), ..self.clone() }
    }

    /// The tools as MCP lists them.
    fn listed(&self) -> Vec<rmcp::model::Tool> {
        self.tools
            .specs()
            .iter()
            .map(|s| {
                let schema = match s.parameters() {
                    Value::Object(m) => m.clone(),
                    _ => serde_json::Map::from_iter([("type".to_string(), Value::from("object"))]),
                };
                let tool = rmcp::model::Tool::new(s.name().to_string(), s.description().to_string(), Arc::new(schema));
                if self.tools.is_idempotent(s.name()) {
                    // Clients that recover interrupted calls (Lucid among them) may re-run it.
                    tool.with_annotations(rmcp::model::ToolAnnotations::new().idempotent(true))
                } else {
                    tool
                }
            })
            .collect()
    }
}

impl ServerHandler for ToolServer {
    fn get_info(&self) -> ServerConfig {
        let mut capabilities = ServerCapabilities::builder().enable_tools().enable_completions().build();
        super::serve_log::declare(&mut capabilities);
        if !self.catalog.resources.is_empty() {
            let mut resources = rmcp::model::ResourcesCapability::default();
            resources.subscribe = Some(true);
            capabilities.resources = Some(resources);
        }
        if !self.catalog.prompts.is_empty() {
            capabilities.prompts = Some(rmcp::model::PromptsCapability::default());
        }
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("lucid", env!("CARGO_PKG_VERSION")))
            .with_instructions("Lucid's built-in tools: files confined to the folder it was started in.")
    }

    fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ListToolsResult, ErrorData>> + Send + '_ {
        std::future::ready(Ok(ListToolsResult::with_all_items(self.listed())))
    }

    fn get_tool(&self, name: &str) -> Option<rmcp::model::Tool> {
        self.listed().into_iter().find(|t| t.name == name)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if self.tools.get(&request.name).is_none() {
            return Err(ErrorData::invalid_params(format!("unknown tool `{}`", request.name), None));
        }
        let args = Value::Object(request.arguments.unwrap_or_default());
        let call = ToolCall::new(context.id.to_string(), request.name.to_string(), args);
        let host = super::serve_host::ServeHost {
            peer: context.peer.clone(),
            progress: context.meta.get_progress_token(),
            level: Arc::clone(&self.session.level),
        };
        let ctx = ToolContext {
            call_id: context.id.to_string(),
            cancel: context.ct.clone(),
            host: lucid::tool::Host::new(host),
            ..Default::default()
        };
        let attached = ctx.attachments.clone();
        let outcome = self.tools.execute(&call, ctx, self.timeout).await;
        if outcome.is_error {
            let message = format!("tool `{}` failed: {}", request.name, outcome.content);
            self.session.level.error(&context.peer, message).await;
        }
        let content = super::serve_host::result_content(outcome.content, attached.take());
        let result = if outcome.is_error { CallToolResult::error(content) } else { CallToolResult::success(content) };
        Ok(CallToolResponse::Complete(result))
    }

    fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ListResourcesResult, ErrorData>> + Send + '_ {
        let listed = self.catalog.listed_resources().map(|r| {
            let mut resource = rmcp::model::Resource::new(r.uri.clone(), r.name.clone());
            resource.description = r.description.clone();
            resource.mime_type = r.mime_type.clone();
            resource
        });
        std::future::ready(Ok(ListResourcesResult::with_all_items(listed.collect())))
    }

    fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ListResourceTemplatesResult, ErrorData>> + Send + '_ {
        let listed = self.catalog.templates().map(|r| {
            let mut template = rmcp::model::ResourceTemplate::new(r.uri.clone(), r.name.clone());
            template.description = r.description.clone();
            template.mime_type = r.mime_type.clone();
            template
        });
        std::future::ready(Ok(ListResourceTemplatesResult::with_all_items(listed.collect())))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let catalog = self.catalog.clone();
        let uri = request.uri;
        // Files are read off the async threads.
        let contents = tokio::task::spawn_blocking(move || catalog.read(&uri))
            .await
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?
            .map_err(catalog_error)?;
        Ok(ReadResourceResult::new(vec![contents]).into())
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let uri = request.uri;
        let file = self.catalog.file_of(&uri).map_err(catalog_error)?;
        let stop = tokio_util::sync::CancellationToken::new();
        if let Some(path) = file {
            let (peer, stop, uri) = (context.peer.clone(), stop.clone(), uri.clone());
            tokio::spawn(async move {
                let stamp = |p: &std::path::Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
                let mut last = stamp(&path);
                loop {
                    tokio::select! {
                        _ = stop.cancelled() => return,
                        _ = tokio::time::sleep(WATCH_EVERY) => {}
                    }
                    let now = stamp(&path);
                    if now != last {
                        last = now;
                        if peer
                            .notify_resource_updated(rmcp::model::ResourceUpdatedNotificationParam::new(uri.clone()))
                            .await
                            .is_err()
                        {
                            return;
                        }
                    }
                }
            });
        }
        self.session.subscriptions.lock().unwrap_or_else(|p| p.into_inner()).insert(uri, stop.drop_guard());
        Ok(())
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.session.subscriptions.lock().unwrap_or_else(|p| p.into_inner()).remove(&request.uri);
        Ok(())
    }

    fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ListPromptsResult, ErrorData>> + Send + '_ {
        let listed = self.catalog.prompts.iter().map(|p| {
            let arguments = p.arguments.iter().map(|a| {
                let mut argument = rmcp::model::PromptArgument::new(a.name.clone());
                argument.description = a.description.clone();
                argument.required = Some(a.required);
                argument
            });
            let arguments = Some(arguments.collect::<Vec<_>>()).filter(|a| !a.is_empty());
            rmcp::model::Prompt::new(p.name.clone(), p.description.clone(), arguments)
        });
        std::future::ready(Ok(ListPromptsResult::with_all_items(listed.collect())))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let args = request
            .arguments
            .unwrap_or_default()
            .into_iter()
            .map(|(k, v)| (k, v.as_str().map_or_else(|| v.to_string(), str::to_string)))
            .collect();
        let (catalog, name) = (self.catalog.clone(), request.name);
        let messages = tokio::task::spawn_blocking(move || catalog.prompt(&name, &args))
            .await
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?
            .map_err(catalog_error)?;
        Ok(GetPromptResult::new(messages).into())
    }

    fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<CompleteResult, ErrorData>> + Send + '_ {
        let (prompt, template) = match &request.r#ref {
            Reference::Prompt(p) => (Some(p.name.as_str()), None),
            Reference::Resource(r) => (None, Some(r.uri.as_str())),
            _ => (None, None),
        };
        let values = self.catalog.complete(prompt, template, &request.argument.name, &request.argument.value);
        let total = u32::try_from(values.len()).ok();
        let mut info = CompletionInfo::new(values).unwrap_or_default();
        (info.total, info.has_more) = (total, Some(false));
        std::future::ready(Ok(CompleteResult::new(info)))
    }

    #[allow(deprecated, reason = "logging/setLevel is still what 2025-11-25 clients send")]
    fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<(), ErrorData>> + Send + '_ {
        self.session.level.set(request.level);
        std::future::ready(Ok(()))
    }
}

/// Why serving stopped.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The client's handshake failed or the connection broke.
    #[error("MCP session failed: {0}")]
    Session(String),
    /// The address could not be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

/// Serves `tools` (a [`ToolRegistry`], or a [`ToolServer`] with a catalog) over stdin
/// and stdout until the client closes them.
pub async fn serve_stdio(tools: impl Into<ToolServer>) -> Result<(), ServeError> {
    let server: ToolServer = tools.into();
    let running = server.serve(rmcp::transport::stdio()).await.map_err(|e| ServeError::Session(e.to_string()))?;
    running.waiting().await.map_err(|e| ServeError::Session(e.to_string()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use lucid::tool;
    use lucid::tool::Idempotent;

    /// Adds two integers.
    #[tool]
    fn add(a: i64, b: i64) -> i64 {
        a + b
    }

    /// Reads a number.
    #[tool]
    fn read(n: i64) -> i64 {
        n
    }

    #[test]
    fn idempotent_tools_are_listed_with_the_hint_clients_read_back() {
        let mut tools = ToolRegistry::new();
        tools.add(add);
        tools.add(Idempotent(read));
        let listed = ToolServer::new(tools, None).listed();
        let hints: Vec<bool> = listed.iter().map(crate::tool::declared_idempotent).collect();
        assert_eq!(hints, [false, true]);
        assert!(listed[0].annotations.is_none(), "a plain tool gets no annotations");
    }
}
