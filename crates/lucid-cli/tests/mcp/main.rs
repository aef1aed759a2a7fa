//! `lucid mcp list` and `lucid run` with MCP servers: the real binary, npm's
//! server-everything (`LUCID_TEST_MCP_DIR`, installed by `.ci/run`) and a scripted model.

mod client;
#[path = "../common/mod.rs"]
mod common;
mod hostile;
mod serve;
mod sessions;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::text;

use lucid_mock::{MockServer, Reply, text_completion, text_stream, tool_call_completion, tool_call_stream};
use serde_json::Value;

/// The npm install folder, or `None` (skipped, reason printed; a failure under CI=true).
fn mcp_dir() -> Option<PathBuf> {
    match std::env::var("LUCID_TEST_MCP_DIR") {
        Ok(v) if !v.is_empty() => Some(PathBuf::from(v)),
        _ if std::env::var("CI").is_ok_and(|v| v == "true") => panic!("LUCID_TEST_MCP_DIR is not set under CI=true"),
        _ => {
            eprintln!("skipped: LUCID_TEST_MCP_DIR is not set (.ci/run installs the npm MCP servers and sets it)");
            None
        }
    }
}

/// A folder holding `mcp.json` naming server-everything as `everything`.
fn config_dir(name: &str, npm: &Path) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lucid-cli-mcp-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let bin = npm.join("node_modules/.bin/mcp-server-everything");
    let json = serde_json::json!({"mcpServers": {
        "everything": {"command": bin, "args": ["stdio"]},
    }});
    std::fs::write(dir.join("mcp.json"), json.to_string()).unwrap();
    dir
}

async fn lucid(dir: &Path, args: &[&str]) -> Output {
    common::run_in(dir, args, &[]).await
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
