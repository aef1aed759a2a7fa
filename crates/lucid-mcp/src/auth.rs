//! OAuth 2.1 for Streamable HTTP servers (feature `mcp-auth`), with `rmcp`'s own
//! authorization support: protected-resource and authorization-server discovery, PKCE,
//! dynamic client registration, token refresh. Lucid adds where the tokens live (one JSON
//! file per server, mode 0600) and the loopback callback of [`login`].

use std::path::{Path, PathBuf};

use rmcp::transport::auth::{
    AuthError, AuthorizationManager, AuthorizationRequest, AuthorizationSession, CredentialStore, StoredCredentials,
};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::McpError;

/// A server's credentials in one JSON file, written with mode 0600.
#[derive(Debug, Clone)]
pub struct FileCredentialStore {
    path: PathBuf,
}

impl FileCredentialStore {
    /// The store at `path` (its folder is made, mode 0700, on the first save).
    pub fn new(path: impl Into<PathBuf>) -> Self {
        FileCredentialStore { path: path.into() }
    }
}

fn store_error(e: impl std::fmt::Display) -> AuthError {
    AuthError::InternalError(format!("the MCP token file: {e}"))
}

#[async_trait::async_trait]
impl CredentialStore for FileCredentialStore {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        match tokio::fs::read(&self.path).await {
            Ok(bytes) => serde_json::from_slice(&bytes).map(Some).map_err(store_error),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(store_error(e)),
        }
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        let bytes = serde_json::to_vec(&credentials).map_err(store_error)?;
        write_private(&self.path, &bytes).map_err(store_error)
    }

    async fn clear(&self) -> Result<(), AuthError> {
        match std::fs::remove_file(&self.path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(store_error(e)),
            _ => Ok(()),
        }
    }
}

/// Writes `bytes` to `path` readable by its owner only (a temporary file renamed over it).
fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
    if let Some(dir) = path.parent() {
        std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir)?;
    }
    let tmp = path.with_extension("tmp");
    let mut file = std::fs::OpenOptions::new().write(true).create(true).truncate(true).mode(0o600).open(&tmp)?;
    file.write_all(bytes)?;
    file.sync_all()?;
    std::fs::rename(&tmp, path)
}

/// A manager for the server at `url` keeping its tokens in `store`; loopback and private
/// addresses are allowed (the user named the server).
pub(crate) async fn manager(url: &str, store: &Path) -> Result<AuthorizationManager, AuthError> {
    // rmcp builds its own reqwest client for OAuth: it needs the process's TLS provider.
    #[cfg(feature = "tls")]
    lucid::model::http::install_crypto_provider();
    let mut manager = AuthorizationManager::new_allowing_private_addresses(url).await?;
    manager.set_credential_store(FileCredentialStore::new(store));
    Ok(manager)
}

/// How [`login_with`] identifies Lucid to a server's authorization server. By default
/// Lucid registers itself (dynamic client registration) and the user authorizes it in a
/// browser.
///
/// ```
/// let options = lucid_mcp::LoginOptions::default()
///     .client("my-client", Some("a-secret".into()))
///     .client_credentials();
/// assert!(!format!("{options:?}").contains("a-secret"));
/// ```
#[derive(Clone, Default)]
#[non_exhaustive]
pub struct LoginOptions {
    client_id: Option<String>,
    client_secret: Option<String>,
    client_metadata_url: Option<String>,
    client_credentials: bool,
    enterprise: Option<super::enterprise::EnterpriseIdp>,
    /// The `WWW-Authenticate` of a `403 insufficient_scope`: authorize again for the
    /// scopes it names plus those granted so far.
    step_up: Option<String>,
}

impl std::fmt::Debug for LoginOptions {
    // The secret is a credential: never printed.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoginOptions")
            .field("client_id", &self.client_id)
            .field("client_secret", &self.client_secret.as_ref().map(|_| "***"))
            .field("client_metadata_url", &self.client_metadata_url)
            .field("client_credentials", &self.client_credentials)
            .field("enterprise", &self.enterprise)
            .finish()
    }
}

impl LoginOptions {
    /// A client registered with the authorization server beforehand (no dynamic
    /// registration), with its secret when it is a confidential client.
    pub fn client(mut self, id: impl Into<String>, secret: Option<String>) -> Self {
        (self.client_id, self.client_secret) = (Some(id.into()), secret);
        self
    }

    /// The HTTPS URL of Lucid's Client ID Metadata Document (SEP-991), used as the client
    /// ID when the authorization server supports such documents (and no client is given).
    pub fn client_metadata_url(mut self, url: impl Into<String>) -> Self {
        self.client_metadata_url = Some(url.into());
        self
    }

    /// No user and no browser: the client's own credentials ([`client`](Self::client),
    /// with a secret) are exchanged for a token (`client_credentials` grant, SEP-1046).
    pub fn client_credentials(mut self) -> Self {
        self.client_credentials = true;
        self
    }

    /// No browser: the user's sign-in to the organization's identity provider is exchanged
    /// for the server's token (enterprise-managed authorization, SEP-990), as the
    /// pre-registered [`client`](Self::client).
    pub fn enterprise(mut self, idp: super::enterprise::EnterpriseIdp) -> Self {
        self.enterprise = Some(idp);
        self
    }
}

/// Logs in to the server at `url` with the default [`LoginOptions`]: discovers its
/// authorization server, registers Lucid (dynamic client registration), sends the user to
/// the authorization page through `open` (e.g. a browser) with a PKCE challenge, waits for
/// the redirect on a loopback port, and keeps the tokens in `store` (mode 0600).
///
/// ```no_run
/// # async fn demo() -> Result<(), lucid_mcp::McpError> {
/// lucid_mcp::login("https://example.com/mcp", "tokens/example.json".as_ref(), |url| {
///     println!("Open {url}");
/// })
/// .await?;
/// # Ok(()) }
/// ```
pub async fn login(url: &str, store: &Path, open: impl FnOnce(&str)) -> Result<(), McpError> {
    login_with(url, store, &LoginOptions::default(), open).await
}

/// [`login`] as `options` say: a pre-registered client, a client ID metadata document, the
/// `client_credentials` grant or an enterprise identity provider (then `open` is not
/// called).
pub async fn login_with(
    url: &str,
    store: &Path,
    options: &LoginOptions,
    open: impl FnOnce(&str),
) -> Result<(), McpError> {
    let fail = |reason: String| McpError::Connect { server: url.to_string(), url: url.to_string(), reason };
    let mut manager = manager(url, store).await.map_err(|e| fail(format!("OAuth discovery failed: {e}")))?;
    // The server's own 401 (or the 403 of a step-up) says where its metadata is and which
    // scope it wants.
    let challenge = match &options.step_up {
        Some(c) => Some(c.clone()),
        None => challenge(url).await,
    };
    let metadata = manager
        .resolve_metadata_from_challenge(challenge.as_deref())
        .await
        .map_err(|e| fail(format!("OAuth discovery failed: {e}")))?;
    if let Some(idp) = &options.enterprise {
        let Some(client_id) = &options.client_id else {
            return Err(fail("enterprise-managed authorization needs the client ID registered for Lucid".into()));
        };
        let scopes = challenge.as_deref().map(challenged_scopes).unwrap_or_default();
        let client = (client_id.as_str(), options.client_secret.as_deref());
        let stored = super::enterprise::login(url, &metadata.metadata, client, idp, scopes)
            .await
            .map_err(|e| fail(format!("enterprise-managed authorization failed: {e}")))?;
        return FileCredentialStore::new(store).save(stored).await.map_err(|e| fail(e.to_string()));
    }
    manager.set_metadata(metadata.metadata);
    if options.client_credentials {
        let (Some(client_id), Some(client_secret)) = (&options.client_id, &options.client_secret) else {
            return Err(fail("the client_credentials grant needs a client ID and its secret".into()));
        };
        let scopes = challenge.as_deref().map(challenged_scopes).unwrap_or_default();
        let config = rmcp::transport::auth::ClientCredentialsConfig::ClientSecret {
            client_id: client_id.clone(),
            client_secret: client_secret.clone(),
            scopes,
            resource: Some(url.to_string()),
        };
        manager.configure_client_credentials(&config).map_err(|e| fail(format!("OAuth client setup failed: {e}")))?;
        manager
            .exchange_client_credentials(&config)
            .await
            .map_err(|e| fail(format!("OAuth token exchange failed: {e}")))?;
        return Ok(());
    }
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.map_err(|e| fail(e.to_string()))?;
    let port = listener.local_addr().map_err(|e| fail(e.to_string()))?.port();
    let redirect = format!("http://127.0.0.1:{port}/callback");
    let mut request = AuthorizationRequest::new(&redirect).with_client_name("Lucid");
    if let Some(step_up) = &options.step_up {
        // SEP-2350: the union of what was granted and what the operation needs.
        let granted = FileCredentialStore::new(store).load().await.ok().flatten();
        let mut scopes = granted.map(|g| g.granted_scopes).unwrap_or_default();
        for scope in challenged_scopes(step_up) {
            if !scopes.contains(&scope) {
                scopes.push(scope);
            }
        }
        request = request.with_scopes(scopes);
    }
    if let Some(challenge) = challenge {
        request = request.with_challenge(challenge);
    }
    if let Some(id) = &options.client_id {
        request = request.with_preregistered_client(id.clone());
        if let Some(secret) = &options.client_secret {
            request = request.with_client_secret(secret.clone());
        }
    }
    if let Some(document) = &options.client_metadata_url {
        request = request.with_client_metadata_url(document.clone());
    }
    let session = AuthorizationSession::new(manager, request)
        .await
        .map_err(|(_, e)| fail(format!("OAuth registration failed: {e}")))?;
    open(session.get_authorization_url());
    let callback = loop {
        let (mut socket, _) = listener.accept().await.map_err(|e| fail(e.to_string()))?;
        let mut head = vec![0u8; 8192];
        let n = socket.read(&mut head).await.unwrap_or(0);
        let head = String::from_utf8_lossy(&head[..n]).to_string();
        let target = head.split_whitespace().nth(1).unwrap_or("").to_string();
        if !target.starts_with("/callback") {
            let _ = socket.write_all(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n").await;
            continue;
        }
        let body = "Lucid is logged in; you can close this page.";
        let reply =
            format!("HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: {}\r\n\r\n{body}", body.len());
        let _ = socket.write_all(reply.as_bytes()).await;
        break format!("http://127.0.0.1:{port}{target}");
    };
    session.handle_callback_url(&callback).await.map_err(|e| fail(format!("OAuth token exchange failed: {e}")))?;
    Ok(())
}

/// The scopes a `WWW-Authenticate` challenge names (`scope="a b"`).
fn challenged_scopes(challenge: &str) -> Vec<String> {
    let quoted = challenge.split("scope=\"").nth(1).and_then(|s| s.split('"').next());
    quoted.map(|s| s.split_whitespace().map(str::to_string).collect()).unwrap_or_default()
}

/// How long a step-up authorization waits for the user before the request fails.
const STEP_UP_WAIT: std::time::Duration = std::time::Duration::from_secs(300);

/// Opens an authorization page for the user (a browser), for a step-up.
#[derive(Clone)]
pub(crate) struct Opener(pub(crate) std::sync::Arc<dyn Fn(&str) + Send + Sync>);

impl std::fmt::Debug for Opener {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Opener")
    }
}

/// Authorizes again after the server at `url` answered `403 insufficient_scope` with
/// `challenge` (MCP authorization's step-up): the scopes granted so far plus those named,
/// the user sent to the page through `open`; the new tokens replace the old in `store`.
pub(crate) async fn step_up(url: &str, store: &Path, challenge: &str, open: &Opener) -> Result<(), McpError> {
    tracing::info!(%url, %challenge, "the MCP server wants more scope: authorizing again");
    let options = LoginOptions { step_up: Some(challenge.to_string()), ..LoginOptions::default() };
    let login = login_with(url, store, &options, |page| (open.0)(page));
    match tokio::time::timeout(STEP_UP_WAIT, login).await {
        Ok(done) => done,
        Err(_) => Err(McpError::Connect {
            server: url.to_string(),
            url: url.to_string(),
            reason: format!(
                "it needs more scope ({challenge}) and the authorization was not completed within {} s",
                STEP_UP_WAIT.as_secs()
            ),
        }),
    }
}

/// The `WWW-Authenticate` header of the server's 401 to an unauthenticated `initialize`,
/// or, when it lets `initialize` through and guards only the operations, to a `tools/list`.
async fn challenge(url: &str) -> Option<String> {
    let client =
        lucid::model::http::reqwest_client_builder().redirect(reqwest::redirect::Policy::none()).build().ok()?;
    let initialize = serde_json::json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "lucid", "version": env!("CARGO_PKG_VERSION")}}});
    let list = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    for body in [initialize, list] {
        let response = client
            .post(url)
            .header("accept", "application/json, text/event-stream")
            .json(&body)
            .timeout(std::time::Duration::from_secs(30))
            .send()
            .await
            .ok()?;
        if response.status() == reqwest::StatusCode::UNAUTHORIZED {
            return response.headers().get(reqwest::header::WWW_AUTHENTICATE)?.to_str().ok().map(str::to_string);
        }
    }
    None
}

/// Forgets the server's tokens (removes the file).
pub async fn logout(store: &Path) -> Result<(), McpError> {
    FileCredentialStore::new(store)
        .clear()
        .await
        .map_err(|e| McpError::Protocol { server: store.display().to_string(), reason: e.to_string() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn tokens_are_kept_for_the_owner_only_and_forgotten_on_logout() {
        let dir = std::env::temp_dir().join(format!("lucid-mcp-tokens-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let path = dir.join("tokens/server.json");
        let store = FileCredentialStore::new(&path);
        assert!(store.load().await.unwrap().is_none());
        store.save(StoredCredentials::new("client-1".into(), None, vec!["read".into()], None)).await.unwrap();
        let mode =
            |p: &Path| std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(p).unwrap().permissions()) & 0o777;
        assert_eq!(mode(&path), 0o600);
        assert_eq!(mode(path.parent().unwrap()), 0o700);
        assert_eq!(store.load().await.unwrap().unwrap().client_id, "client-1");
        logout(&path).await.unwrap();
        assert!(!path.exists() && store.load().await.unwrap().is_none());
        logout(&path).await.unwrap();
        let _ = std::fs::remove_dir_all(&dir);
    }
}
