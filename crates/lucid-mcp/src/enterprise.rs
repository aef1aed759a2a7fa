//! Enterprise-managed authorization (the MCP extension of SEP-990, "cross-app access"):
//! no browser and no consent page. The user's sign-in to the organization's identity
//! provider (an OpenID Connect ID token) is exchanged at that provider for an identity
//! assertion grant bound to one MCP server (RFC 8693 token exchange), and the grant for
//! the server's access token at its authorization server (RFC 7523 JWT bearer grant).
//! Both exchanges are `rmcp`'s own (`rmcp::transport::auth::enterprise`); Lucid adds where
//! the identity provider's token endpoint is found and where the token is kept.

use rmcp::transport::auth::enterprise::{
    EmaAuthorizationServer, EmaClientAuthentication, EmaError, EmaExchangeRequest,
};
use rmcp::transport::auth::{AuthorizationManager, AuthorizationMetadata, OAuthTokenResponse, StoredCredentials};

/// The organization's identity provider and the user's sign-in to it, for
/// [`LoginOptions::enterprise`](super::LoginOptions::enterprise).
///
/// ```
/// let idp = lucid_mcp::EnterpriseIdp::new("https://idp.example.com", "lucid-at-example", "eyJhbGciOi…")
///     .client_secret("idp-secret");
/// assert!(!format!("{idp:?}").contains("eyJ") && !format!("{idp:?}").contains("idp-secret"));
/// ```
#[derive(Clone)]
#[non_exhaustive]
pub struct EnterpriseIdp {
    issuer: String,
    token_endpoint: Option<String>,
    client_id: String,
    client_secret: Option<String>,
    id_token: String,
}

impl std::fmt::Debug for EnterpriseIdp {
    // The ID token and the secret are credentials: never printed.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EnterpriseIdp")
            .field("issuer", &self.issuer)
            .field("token_endpoint", &self.token_endpoint)
            .field("client_id", &self.client_id)
            .field("client_secret", &self.client_secret.as_ref().map(|_| "***"))
            .field("id_token", &"***")
            .finish()
    }
}

impl EnterpriseIdp {
    /// The identity provider whose issuer is `issuer`, Lucid's client ID there, and the
    /// user's ID token from it (a public client until [`client_secret`](Self::client_secret)).
    pub fn new(issuer: impl Into<String>, client_id: impl Into<String>, id_token: impl Into<String>) -> Self {
        Self {
            issuer: issuer.into(),
            token_endpoint: None,
            client_id: client_id.into(),
            client_secret: None,
            id_token: id_token.into(),
        }
    }

    /// Its token endpoint; by default it is read from the provider's metadata
    /// (`/.well-known/openid-configuration` or `oauth-authorization-server`).
    pub fn token_endpoint(mut self, url: impl Into<String>) -> Self {
        self.token_endpoint = Some(url.into());
        self
    }

    /// The secret of Lucid's client there (sent with HTTP Basic).
    pub fn client_secret(mut self, secret: impl Into<String>) -> Self {
        self.client_secret = Some(secret.into());
        self
    }
}

/// The identity provider's token endpoint: as given, or from its metadata, which must name
/// the same issuer (a document that names another is not the provider's).
async fn idp_token_endpoint(idp: &EnterpriseIdp) -> Result<String, String> {
    if let Some(url) = &idp.token_endpoint {
        return Ok(url.clone());
    }
    let manager = AuthorizationManager::new_allowing_private_addresses(idp.issuer.as_str())
        .await
        .map_err(|e| format!("the identity provider {}: {e}", idp.issuer))?;
    let found = manager
        .resolve_metadata()
        .await
        .map_err(|e| format!("the identity provider's metadata ({}): {e}", idp.issuer))?;
    if !found.source.is_discovered() || found.metadata.issuer.as_deref() != Some(idp.issuer.as_str()) {
        return Err(format!(
            "the identity provider {} publishes no metadata naming it as issuer; give its token endpoint",
            idp.issuer
        ));
    }
    Ok(found.metadata.token_endpoint)
}

/// How Lucid's client authenticates at the MCP server's authorization server: Basic unless
/// the server supports only `client_secret_post`; a public client without a secret.
fn resource_authentication(metadata: &AuthorizationMetadata, secret: Option<&str>) -> EmaClientAuthentication {
    let Some(secret) = secret else { return EmaClientAuthentication::None };
    let secret = oauth2_secret(secret);
    let supported = metadata.additional_fields.get("token_endpoint_auth_methods_supported");
    let methods: Vec<&str> =
        supported.and_then(|m| m.as_array()).map(|a| a.iter().filter_map(|v| v.as_str()).collect()).unwrap_or_default();
    if methods.contains(&"client_secret_post") && !methods.contains(&"client_secret_basic") {
        EmaClientAuthentication::ClientSecretPost(secret)
    } else {
        EmaClientAuthentication::ClientSecretBasic(secret)
    }
}

fn oauth2_secret(secret: &str) -> oauth2::ClientSecret {
    oauth2::ClientSecret::new(secret.to_string())
}

/// Exchanges `idp`'s ID token for an access token to the MCP server at `url`, whose
/// authorization server `metadata` describes, as the client `client_id` (with `secret`),
/// asking for `scopes`: the credentials to keep like a browser login's (they cannot be
/// refreshed: when the token expires, log in again with a fresh ID token).
pub(super) async fn login(
    url: &str,
    metadata: &AuthorizationMetadata,
    client: (&str, Option<&str>),
    idp: &EnterpriseIdp,
    scopes: Vec<String>,
) -> Result<StoredCredentials, String> {
    let Some(issuer) = metadata.issuer.clone() else {
        return Err("the server's authorization server does not name its issuer, which the identity \
                    assertion grant is bound to"
            .into());
    };
    let idp_server = EmaAuthorizationServer::new(&idp.issuer, idp_token_endpoint(idp).await?, &idp.client_id);
    let idp_server = match &idp.client_secret {
        Some(secret) => {
            idp_server.with_client_authentication(EmaClientAuthentication::ClientSecretBasic(oauth2_secret(secret)))
        }
        None => idp_server,
    };
    let resource_server = EmaAuthorizationServer::new(&issuer, &metadata.token_endpoint, client.0)
        .with_client_authentication(resource_authentication(metadata, client.1));
    #[cfg(feature = "tls")]
    lucid::model::http::install_crypto_provider();
    let http = rmcp::transport::auth::default_oauth_http_client().map_err(|e| e.to_string())?;
    let token = EmaExchangeRequest::new_with_id_token(idp_server, resource_server, url, &idp.id_token)
        .with_scopes(scopes)
        .exchange(&http, &http)
        .await
        .map_err(|e| match e {
            EmaError::InvalidGrant(stage) => {
                format!("{stage:?} refused the grant (invalid_grant): the ID token may have expired; sign in again")
            }
            other => other.to_string(),
        })?;
    let mut granted: Vec<String> = token.scopes.iter().cloned().collect();
    granted.sort();
    // rmcp keeps a token as OAuth's token response; this one is built as the server sent it.
    let mut response = serde_json::json!({
        "access_token": token.access_token.secret(),
        "token_type": "Bearer",
    });
    if let Some(expires) = token.expires_in {
        response["expires_in"] = expires.as_secs().into();
    }
    if !granted.is_empty() {
        response["scope"] = granted.join(" ").into();
    }
    let response: OAuthTokenResponse = serde_json::from_value(response).map_err(|e| e.to_string())?;
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).ok();
    Ok(StoredCredentials::new(client.0.to_string(), Some(response), granted, now).with_issuer(Some(issuer)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metadata(methods: Option<&[&str]>) -> AuthorizationMetadata {
        let mut m = serde_json::json!({"authorization_endpoint": "https://as.example/authorize",
                                       "token_endpoint": "https://as.example/token", "issuer": "https://as.example"});
        if let Some(methods) = methods {
            m["token_endpoint_auth_methods_supported"] = methods.into();
        }
        serde_json::from_value(m).unwrap()
    }

    #[test]
    fn the_client_authenticates_as_its_authorization_server_supports() {
        let how =
            |methods: Option<&[&str]>, secret| format!("{:?}", resource_authentication(&metadata(methods), secret));
        assert_eq!(how(None, Some("s")), "ClientSecretBasic { .. }");
        assert_eq!(how(Some(&["client_secret_basic", "client_secret_post"]), Some("s")), "ClientSecretBasic { .. }");
        assert_eq!(how(Some(&["client_secret_post"]), Some("s")), "ClientSecretPost { .. }");
        assert_eq!(how(Some(&["client_secret_post"]), None), "None");
    }

    #[tokio::test]
    async fn an_authorization_server_that_does_not_name_its_issuer_is_refused_before_any_request() {
        let mut m = metadata(None);
        m.issuer = None;
        let idp = EnterpriseIdp::new("https://idp.example", "c", "t").token_endpoint("https://idp.example/token");
        let err = login("https://mcp.example/mcp", &m, ("c", None), &idp, Vec::new()).await.unwrap_err();
        assert!(err.contains("does not name its issuer"), "{err}");
    }
}
