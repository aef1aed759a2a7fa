//! The tools of an MCP server, given to an agent.
//!
//! ```sh
//! cargo run -p lucid-agent --features mcp --example mcp -- npx -y @modelcontextprotocol/server-everything
//! ```
//!
//! Lists the server's tools; with a model configured (e.g. `OPENAI_API_KEY` set), asks the
//! agent to use one of them.

use lucid::prelude::*;
use lucid_mcp::McpServer;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut argv = std::env::args().skip(1);
    let command = argv.next().unwrap_or_else(|| "npx".to_string());
    let args: Vec<String> = match argv.collect::<Vec<_>>() {
        a if a.is_empty() => vec!["-y".into(), "@modelcontextprotocol/server-everything".into()],
        a => a,
    };
    let server = McpServer::stdio(command, args).name("everything").connect().await?;
    println!("{} speaks MCP {}", server.name(), server.protocol_version().unwrap_or_default());
    for tool in server.tools() {
        println!("  {:<48} {}", tool.spec().name(), tool.spec().description().lines().next().unwrap_or(""));
    }
    let Ok(model) = lucid::model::from_env("openai:gpt-4o-mini") else {
        println!("(no model configured: set OPENAI_API_KEY to let an agent call these tools)");
        return Ok(());
    };
    let agent = Agent::builder(model).tool_set(server).build();
    let answer = agent.session().run("Use the echo tool to echo 'hello from MCP', then tell me what it said.").await?;
    println!("{}", answer.content);
    Ok(())
}
