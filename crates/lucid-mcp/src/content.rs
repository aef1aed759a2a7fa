//! A server's resources and prompts: listed, read, fetched.

use rmcp::model::{GetPromptRequestParams, GetPromptResult, JsonObject, Prompt, ReadResourceRequestParams};
use rmcp::model::{ReadResourceResult, Resource, ResourceTemplate};
use rmcp::service::ServiceError;

use super::{McpClient, McpError};

impl McpClient {
    /// The server's resources (every page), or an empty list when it offers none.
    pub async fn resources(&self) -> Result<Vec<Resource>, McpError> {
        if !self.offers(|c| c.resources.is_some()) {
            return Ok(Vec::new());
        }
        let peer = self.live_peer().await?;
        self.bounded("resources/list", peer.list_all_resources()).await
    }

    /// The server's resource templates (every page), or none when it offers no resources.
    pub async fn resource_templates(&self) -> Result<Vec<ResourceTemplate>, McpError> {
        if !self.offers(|c| c.resources.is_some()) {
            return Ok(Vec::new());
        }
        let peer = self.live_peer().await?;
        self.bounded("resources/templates/list", peer.list_all_resource_templates()).await
    }

    /// Reads the resource at `uri`.
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, McpError> {
        let peer = self.live_peer().await?;
        self.bounded("resources/read", peer.read_resource(ReadResourceRequestParams::new(uri))).await
    }

    /// The server's prompts (every page), or an empty list when it offers none.
    pub async fn prompts(&self) -> Result<Vec<Prompt>, McpError> {
        if !self.offers(|c| c.prompts.is_some()) {
            return Ok(Vec::new());
        }
        let peer = self.live_peer().await?;
        self.bounded("prompts/list", peer.list_all_prompts()).await
    }

    /// The prompt `name` filled with `arguments`: its messages.
    pub async fn prompt(&self, name: &str, arguments: JsonObject) -> Result<GetPromptResult, McpError> {
        let peer = self.live_peer().await?;
        let mut params = GetPromptRequestParams::new(name);
        params.arguments = Some(arguments);
        self.bounded("prompts/get", peer.get_prompt(params)).await
    }

    /// The connection's peer, the server restarted first when it crashed.
    async fn live_peer(&self) -> Result<rmcp::Peer<rmcp::RoleClient>, McpError> {
        self.peer()
            .await
            .map(|(peer, _)| peer)
            .map_err(|e| McpError::Protocol { server: self.name().to_string(), reason: e.to_string() })
    }

    /// Whether the server's capabilities say `has`.
    fn offers(&self, has: impl Fn(&rmcp::model::ServerCapabilities) -> bool) -> bool {
        self.capabilities().as_ref().is_none_or(has)
    }

    /// `request`, within the server's timeout, its failure named.
    async fn bounded<T>(
        &self,
        method: &str,
        request: impl Future<Output = Result<T, ServiceError>>,
    ) -> Result<T, McpError> {
        let fail = |reason: String| McpError::Protocol { server: self.name().to_string(), reason };
        match tokio::time::timeout(self.server().timeout, request).await {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(ServiceError::McpError(e))) => Err(fail(format!("{method} refused: {}", e.message))),
            Ok(Err(e)) => Err(fail(format!("{method} failed: {e}"))),
            Err(_) => Err(fail(format!("no answer to {method} within {:.1} s", self.server().timeout.as_secs_f64()))),
        }
    }
}
