//! `lucid mcp login NAME|URL` / `logout`: OAuth 2.1 for an HTTP server, its tokens kept in
//! the user's data folder (`$XDG_DATA_HOME/lucid/mcp-tokens/HOST-HASH.json`, mode 0600)
//! and used (refreshed when they expire) whenever the server starts. The file is named
//! after the server's URL, never its name: a configuration that gives a known name to
//! another URL gets no token.

use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::{Context, bail};

use super::ServerConfig;
use crate::display::safe;

/// Where the tokens of the server at `url` are kept: its host, and a hash of the whole URL.
pub fn token_path(url: &str) -> Option<PathBuf> {
    let dir = crate::sessions::default_db_path()?.parent()?.join("mcp-tokens");
    // FNV-1a: stable across builds, unlike std's hasher.
    let hash = url.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3));
    let host = url.split("://").nth(1).unwrap_or(url).split('/').next().unwrap_or("mcp");
    Some(dir.join(format!("{}-{hash:016x}.json", lucid_mcp::sanitize(host))))
}

/// The URL of `target` (a configured HTTP server's name, or a URL) and its token key.
fn resolve(all: &BTreeMap<String, ServerConfig>, target: &str) -> anyhow::Result<String> {
    match all.get(target) {
        Some(s) => match &s.url {
            Some(url) => Ok(url.clone()),
            None => bail!("MCP server {target} is started as a command: OAuth is for HTTP servers"),
        },
        None if target.starts_with("http://") || target.starts_with("https://") => Ok(target.to_string()),
        None => bail!("no MCP server named {target} (and it is not an http(s) URL)"),
    }
}

/// Opens `url` with `$BROWSER`, else the desktop's opener; the URL is printed either way.
pub(crate) fn open_browser(url: &str) {
    eprintln!("Opening the authorization page (if no browser opens, visit it yourself):\n  {}", safe(url));
    let opener = std::env::var("BROWSER")
        .ok()
        .filter(|b| !b.is_empty())
        .unwrap_or_else(|| if cfg!(target_os = "macos") { "open".into() } else { "xdg-open".into() });
    let spawned = std::process::Command::new(&opener)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .spawn();
    if let Err(e) = spawned {
        eprintln!("could not start {}: {e}", safe(&opener));
    }
}

/// The library's options for `client`'s flags; the secret read from the variable named.
fn options(client: &crate::args::LoginClient) -> anyhow::Result<lucid_mcp::LoginOptions> {
    let mut options = lucid_mcp::LoginOptions::default();
    if let Some(id) = &client.client_id {
        let secret = match &client.client_secret_env {
            Some(var) => Some(variable("--client-secret-env", var)?),
            None => None,
        };
        options = options.client(id.clone(), secret);
    }
    if let Some(url) = &client.client_metadata_url {
        if !url.starts_with("https://") {
            bail!("--client-metadata-url must be an https URL");
        }
        options = options.client_metadata_url(url.clone());
    }
    if client.client_credentials {
        options = options.client_credentials();
    }
    if let Some(issuer) = &client.idp_issuer {
        let (Some(idp_client), Some(token_var)) = (&client.idp_client_id, &client.id_token_env) else {
            bail!("--idp-issuer needs --idp-client-id and --id-token-env");
        };
        let id_token = variable("--id-token-env", token_var)?;
        let mut idp = lucid_mcp::EnterpriseIdp::new(issuer.clone(), idp_client.clone(), id_token);
        if let Some(url) = &client.idp_token_endpoint {
            idp = idp.token_endpoint(url.clone());
        }
        if let Some(var) = &client.idp_client_secret_env {
            idp = idp.client_secret(variable("--idp-client-secret-env", var)?);
        }
        options = options.enterprise(idp);
    }
    Ok(options)
}

/// The value of the variable `var` a `flag` names (a credential is never an argument).
fn variable(flag: &str, var: &str) -> anyhow::Result<String> {
    std::env::var(var).with_context(|| format!("{flag} {var}: it is not set"))
}

/// `lucid mcp login SERVER [--client-id ID [--client-secret-env VAR] [--client-credentials]]
/// [--client-metadata-url URL] [--idp-issuer URL --idp-client-id ID --id-token-env VAR …]`.
pub async fn login(
    all: &BTreeMap<String, ServerConfig>,
    target: &str,
    client: &crate::args::LoginClient,
) -> anyhow::Result<i32> {
    let url = resolve(all, target)?;
    let path = token_path(&url).context("no data folder (set HOME or XDG_DATA_HOME)")?;
    let options = options(client)?;
    let login = lucid_mcp::login_with(&url, &path, &options, open_browser);
    tokio::time::timeout(std::time::Duration::from_secs(300), login)
        .await
        .map_err(|_| anyhow::anyhow!("the authorization did not come back within 5 minutes"))??;
    println!("logged in to {} (tokens in {})", safe(target), path.display());
    Ok(0)
}

/// `lucid mcp logout SERVER`.
pub async fn logout(all: &BTreeMap<String, ServerConfig>, target: &str) -> anyhow::Result<i32> {
    let url = resolve(all, target)?;
    let path = token_path(&url).context("no data folder (set HOME or XDG_DATA_HOME)")?;
    lucid_mcp::logout(&path).await?;
    println!("logged out of {}", safe(target));
    Ok(0)
}

#[cfg(test)]
mod tests {
    #[test]
    fn tokens_are_filed_by_url_not_by_name() {
        let a = super::token_path("https://mcp.example.com/mcp").unwrap();
        let b = super::token_path("https://evil.example/mcp").unwrap();
        assert_ne!(a, b);
        assert_eq!(a, super::token_path("https://mcp.example.com/mcp").unwrap());
        assert!(a.file_name().unwrap().to_str().unwrap().starts_with("mcp_example_com-"), "{}", a.display());
    }
}
