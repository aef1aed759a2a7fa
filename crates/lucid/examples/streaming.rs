//! Streaming: print the answer as it arrives, and every tool call as it happens.
//!
//! `OPENAI_API_KEY=... cargo run -p lucid-agent --example streaming` (or set `LUCID_MODEL`).

use std::io::Write;

use futures::StreamExt;
use lucid::prelude::*;
use lucid_tools::{calculator, current_time};

#[tokio::main]
async fn main() -> lucid::Result<()> {
    let spec = std::env::var("LUCID_MODEL").unwrap_or_else(|_| "openai:gpt-4o-mini".into());
    let agent = Agent::builder(lucid::model::from_env(&spec)?)
        .system("You are precise. Use the calculator for arithmetic.")
        .tool(calculator)
        .tool(current_time)
        .build();
    let mut session = agent.session();
    let mut events = session.run_stream("What time is it in Tokyo, and what is 17.5% of 2,480?");
    while let Some(event) = events.next().await {
        match event {
            AgentEvent::TextDelta(t) => {
                print!("{t}");
                std::io::stdout().flush().ok();
            }
            AgentEvent::ToolCallStarted { name, arguments, .. } => eprintln!("\n→ {name} {arguments}"),
            AgentEvent::ToolCallFinished { output, is_error, .. } => {
                eprintln!("← {}{output}", if is_error { "error: " } else { "" })
            }
            AgentEvent::Completed(r) => {
                println!(
                    "\n[{} model calls, {} tokens in, {} out]",
                    r.iterations, r.usage.input_tokens, r.usage.output_tokens
                )
            }
            AgentEvent::Error(e) => eprintln!("\nerror: {e}"),
            _ => {}
        }
    }
    Ok(())
}
