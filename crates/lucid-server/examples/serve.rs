//! An agent behind the HTTP API on 127.0.0.1:8080, its sessions in `serve.db`:
//!
//! ```sh
//! OPENAI_API_KEY=sk-... cargo run -p lucid-server --example serve
//! curl -s localhost:8080/v1/chat/completions \
//!   -d '{"model": "default", "messages": [{"role": "user", "content": "What is 17 * 23?"}]}'
//! ```

use lucid::prelude::*;
use lucid_server::{ApiKeys, Server, ServerConfig};

/// Multiplies two integers.
#[tool]
fn multiply(
    /// first factor
    a: i64,
    /// second factor
    b: i64,
) -> i64 {
    a * b
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let model = lucid::model::from_env("openai:gpt-4o-mini")?;
    let agent = Agent::builder(model).system("You are a careful assistant.").tool(multiply).build();
    let config = ServerConfig::new("serve.db").agent("default", agent).keys(ApiKeys::none());
    let server = Server::open(config).await?;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
    eprintln!("listening on http://{}", listener.local_addr()?);
    server
        .serve(listener, async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await?;
    Ok(())
}
