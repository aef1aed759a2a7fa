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

/// The client scenarios Lucid passes: every one the suite says MCP 2025-11-25 requires (4
/// without authorization, 14 `auth/*`; checked below against `conformance list
/// --requirements`), `json-schema-2020-12-preservation` (added after the release), the
/// 2025-03-26 back-compatibility ones, the draft's `auth/resource-mismatch`, and the
/// `auth/client-credentials-basic` and `auth/enterprise-managed-authorization` extensions.
/// Not passed, extensions the suite reports but does not score: `auth/client-credentials-jwt`
/// and `auth/dpop*` (signing keys: rmcp's JWT support brings aws-lc, over the binary's size
/// budget) and `auth/wif-jwt-bearer` (rmcp has no workload identity grant).
const CLIENT_SCENARIOS: &[&str] = &[
    "initialize",
    "tools_call",
    "elicitation-sep1034-client-defaults",
    "sse-retry",
    "auth/metadata-default",
    "auth/metadata-var1",
    "auth/metadata-var2",
    "auth/metadata-var3",
    "auth/basic-cimd",
    "auth/pre-registration",
    "auth/client-credentials-basic",
    "auth/enterprise-managed-authorization",
    "auth/scope-from-www-authenticate",
    "auth/scope-from-scopes-supported",
    "auth/scope-omitted-when-undefined",
    "auth/scope-step-up",
    "auth/scope-retry-limit",
    "auth/token-endpoint-auth-basic",
    "auth/token-endpoint-auth-post",
    "auth/token-endpoint-auth-none",
    "auth/resource-mismatch",
    "auth/2025-03-26-oauth-metadata-backcompat",
    "auth/2025-03-26-oauth-endpoint-fallback",
    "json-schema-2020-12-preservation",
];

/// A client command for the suite: it gets the test server's URL as its last argument and
/// the scenario's name in `MCP_CONFORMANCE_SCENARIO`, and does what the scenario expects a
/// client to do, with `lucid mcp`. The elicitation scenario's question is accepted on stdin
/// with every default kept (a `y`, then an empty line per field). The `auth/*` scenarios
/// log in (`lucid mcp login URL`, the "browser" a `curl` that follows the authorization
/// server's redirect to Lucid's loopback callback), then list the server's tools with the
/// token; the pre-registered client's ID and secret come from `MCP_CONFORMANCE_CONTEXT`
/// (the secret through a variable, as `--client-secret-env` reads it), and the client ID
/// metadata document's URL is the one the suite expects. The enterprise scenario's ID token
/// and identity provider come from that context too (its token endpoint from its metadata).
/// The schema scenario's tool schema, as `lucid mcp show --json` prints it, goes back to the
/// server verbatim through `lucid mcp call`.
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
  auth/enterprise-managed-authorization)
    export CLIENT_SECRET="$(field client_secret)" ID_TOKEN="$(field idp_id_token)"
    "$lucid" mcp login "$url" --client-id "$(field client_id)" --client-secret-env CLIENT_SECRET \
      --idp-issuer "$(field idp_issuer)" --idp-client-id "$(field idp_client_id)" --id-token-env ID_TOKEN \
      && exec "$lucid" mcp show "$url" ;;
  json-schema-2020-12-preservation)
    schema="$("$lucid" mcp show "$url" --json | node -e '
      let s = ""; process.stdin.on("data", d => s += d).on("end", () => {{
        const tool = JSON.parse(s).tools.find(t => t.name === "json_schema_2020_12_tool");
        process.stdout.write(JSON.stringify({{schema: tool.inputSchema}}));
      }});')" && exec "$lucid" mcp call "$url" json_schema_echo "$schema" ;;
  auth/basic-cimd)
    "$lucid" mcp login "$url" --client-metadata-url https://conformance-test.local/client-metadata.json \
      && exec "$lucid" mcp show "$url" ;;
  auth/scope-step-up) "$lucid" mcp login "$url" && exec "$lucid" mcp call "$url" test-tool ;;
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
    // Every client scenario the newest revision requires is here.
    let required = common::required_scenarios(Path::new(&npm), "client").await;
    let missing: Vec<_> = required.iter().filter(|r| !CLIENT_SCENARIOS.contains(&r.as_str())).collect();
    assert!(missing.is_empty(), "required by {} and not passed: {missing:?}", common::MCP_REVISION);
    for scenario in CLIENT_SCENARIOS {
        let out = common::conformance(Path::new(&npm))
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
