//! The official MCP conformance suite's client scenarios against Lucid's MCP client, as the
//! `lucid` binary drives it (`lucid mcp show` / `lucid mcp call`, elicitation answered on
//! stdin); the suite comes from `LUCID_TEST_MCP_DIR` (pinned by `.ci/npm/package-lock.json`,
//! installed by `.ci/run`). Its server scenarios against `lucid mcp serve` are in
//! `mcp_serve_conformance.rs`.
//!
//! By hand: `conformance client --scenario NAME --command SCRIPT`, with SCRIPT the one
//! [`client_script`] writes.

mod common;

use std::path::{Path, PathBuf};

use common::text;

/// The client scenarios Lucid passes: 4 of the 4 without authorization and 15 of the 19
/// `auth/*` ones. Not passed: `auth/metadata-var2` and `auth/metadata-var3` (suite 0.1.13
/// serves authorization-server metadata whose `issuer` lacks the `/tenant1` path it was
/// found under; Lucid, through rmcp, refuses the mismatch as RFC 8414 §3.3 says; fixed in
/// the suite's 0.1.15, which needs Node 22), `auth/scope-step-up` (a `403
/// insufficient_scope` on `tools/call` would need a second browser authorization in the
/// middle of a session) and `auth/client-credentials-jwt` (rmcp's `private_key_jwt` needs
/// its `auth-client-credentials-jwt` feature and a JWT signing crate).
const CLIENT_SCENARIOS: &[&str] = &[
    "initialize",
    "tools_call",
    "elicitation-sep1034-client-defaults",
    "sse-retry",
    "auth/metadata-default",
    "auth/metadata-var1",
    "auth/basic-cimd",
    "auth/pre-registration",
    "auth/client-credentials-basic",
    "auth/scope-from-www-authenticate",
    "auth/scope-from-scopes-supported",
    "auth/scope-omitted-when-undefined",
    "auth/scope-retry-limit",
    "auth/token-endpoint-auth-basic",
    "auth/token-endpoint-auth-post",
    "auth/token-endpoint-auth-none",
    "auth/resource-mismatch",
    "auth/2025-03-26-oauth-metadata-backcompat",
    "auth/2025-03-26-oauth-endpoint-fallback",
];

/// A client command for the suite: it gets the test server's URL as its last argument and
/// the scenario's name in `MCP_CONFORMANCE_SCENARIO`, and does what the scenario expects a
/// client to do, with `lucid mcp`. The elicitation scenario's question is accepted on stdin
/// with every default kept (a `y`, then an empty line per field). The `auth/*` scenarios
/// log in (`lucid mcp login URL`, the "browser" a `curl` that follows the authorization
/// server's redirect to Lucid's loopback callback), then list the server's tools with the
/// token; the pre-registered client's ID and secret come from `MCP_CONFORMANCE_CONTEXT`
/// (the secret through a variable, as `--client-secret-env` reads it), and the client ID
/// metadata document's URL is the one the suite expects.
fn client_script(dir: &Path) -> PathBuf {
    let browser = dir.join("browser.sh");
    std::fs::write(&browser, "#!/bin/sh\nexec curl -s -o /dev/null -L \"$1\"\n").unwrap();
    std::fs::set_permissions(&browser, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let script = dir.join("lucid-conformance-client.sh");
    let body = format!(
        r#"#!/bin/sh
for url; do :; done
lucid='{lucid}'
export BROWSER='{browser}'
field() {{ printf '%s' "$MCP_CONFORMANCE_CONTEXT" | sed -n "s/.*\"$1\":\"\([^\"]*\)\".*/\1/p"; }}
case "$MCP_CONFORMANCE_SCENARIO" in
  tools_call) exec "$lucid" mcp call "$url" add_numbers '{{"a": 5, "b": 3}}' ;;
  elicitation-sep1034-client-defaults)
    printf 'y\n\n\n\n\n\n' | "$lucid" mcp call "$url" test_client_elicitation_defaults ;;
  sse-retry) exec "$lucid" mcp call "$url" test_reconnection ;;
  auth/pre-registration|auth/client-credentials-basic)
    export CLIENT_SECRET="$(field client_secret)"
    flow=""; [ "$MCP_CONFORMANCE_SCENARIO" = auth/client-credentials-basic ] && flow=--client-credentials
    "$lucid" mcp login "$url" --client-id "$(field client_id)" --client-secret-env CLIENT_SECRET $flow \
      && exec "$lucid" mcp show "$url" ;;
  auth/basic-cimd)
    "$lucid" mcp login "$url" --client-metadata-url https://conformance-test.local/client-metadata.json \
      && exec "$lucid" mcp show "$url" ;;
  auth/*) "$lucid" mcp login "$url" && exec "$lucid" mcp show "$url" ;;
  *) exec "$lucid" mcp show "$url" ;;
esac
"#,
        lucid = env!("CARGO_BIN_EXE_lucid"),
        browser = browser.display()
    );
    std::fs::write(&script, body).unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    script
}

#[tokio::test(flavor = "multi_thread")]
async fn lucid_client_passes_the_conformance_suites_client_scenarios() {
    let Some(npm) = common::real_part("LUCID_TEST_MCP_DIR", ".ci/run installs the npm MCP servers and sets it") else {
        return;
    };
    let dir = common::test_dir("mcp-conformance-client");
    let script = client_script(&dir);
    for scenario in CLIENT_SCENARIOS {
        let out = tokio::process::Command::new(Path::new(&npm).join("node_modules/.bin/conformance"))
            .args(["client", "--scenario", scenario, "--timeout", "60000", "--command"])
            .arg(&script)
            .current_dir(&dir)
            .env("HOME", &dir)
            .env("XDG_CONFIG_HOME", dir.join("config"))
            .env("NO_COLOR", "1")
            .kill_on_drop(true)
            .output()
            .await
            .unwrap();
        let report = text(&out.stdout) + &text(&out.stderr);
        assert!(out.status.success(), "{scenario}: {report}");
        assert!(report.contains(" 0 failed") && report.contains("OVERALL: PASSED"), "{scenario}: {report}");
    }
    // The tokens of each server logged in to, readable by the user only.
    let tokens: Vec<_> = std::fs::read_dir(dir.join(".local/share/lucid/mcp-tokens")).unwrap().flatten().collect();
    assert_eq!(
        tokens.len(),
        CLIENT_SCENARIOS.iter().filter(|s| s.starts_with("auth/") && **s != "auth/resource-mismatch").count()
    );
    for token in tokens {
        let mode = std::os::unix::fs::PermissionsExt::mode(&token.metadata().unwrap().permissions());
        assert_eq!(mode & 0o777, 0o600, "{}", token.path().display());
    }
}
