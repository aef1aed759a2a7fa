//! The client the official MCP conformance suite drives (its client scenarios), made of
//! Lucid's own MCP client.
//!
//! ```sh
//! cargo build -p lucid-agent --features mcp --example mcp_conformance_client
//! conformance client --scenario initialize --command target/debug/examples/mcp_conformance_client
//! ```
//!
//! The suite starts a test server for a scenario, then runs this program with the server's
//! URL as its last argument and the scenario's name in `MCP_CONFORMANCE_SCENARIO`. The
//! program connects (the handshake and `tools/list`), then calls the tools a scenario
//! expects a client to call (`tools_call`: `add_numbers`; the elicitation and reconnection
//! scenarios: their test tool), answers elicitation with the schema's defaults, and exits 0 when every step worked.

use lucid::tool::{ToolContext, ToolRegistry};
use lucid_mcp::{ElicitFuture, Elicitation, Elicited, Elicitor, McpServer};
use serde_json::json;

/// Accepts every question with the schema's defaults (the elicitation scenarios ask for
/// exactly that).
struct AcceptDefaults;

impl Elicitor for AcceptDefaults {
    fn elicit(&self, question: Elicitation) -> ElicitFuture<'_> {
        println!("{} asks: {}", question.server, question.message);
        Box::pin(async { Elicited::Accept(Default::default()) })
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let url = std::env::args().next_back().ok_or("usage: mcp_conformance_client URL")?;
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let client = McpServer::http(url).name("conformance").prefix(false).elicitation(AcceptDefaults).connect().await?;
    println!("connected: MCP {}", client.protocol_version().unwrap_or_default());
    let mut tools = ToolRegistry::new();
    for tool in client.tools() {
        tools.add_arc(tool);
    }
    let calls: Vec<(String, serde_json::Value)> = match scenario.as_str() {
        "initialize" => vec![],
        "tools_call" => vec![("add_numbers".into(), json!({"a": 5, "b": 3}))],
        // Every other scenario: call each tool the server offers, without arguments.
        _ => client.remote_tools().iter().map(|t| (t.name.to_string(), json!({}))).collect(),
    };
    let mut failed = false;
    for (name, args) in calls {
        let outcome = tools.execute(&lucid::ToolCall::new("c", &name, args), ToolContext::default(), None).await;
        println!("{name}: {}{}", if outcome.is_error { "error: " } else { "" }, outcome.content);
        failed |= outcome.is_error;
    }
    std::process::exit(i32::from(failed));
}
