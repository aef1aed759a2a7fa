//! A team: a lead that delegates to a researcher and a writer (both at once when it
//! likes), and a router that sends a request to the right member.
//!
//! Run with a provider key, e.g. `OPENAI_API_KEY=... cargo run -p lucid-agent --example team`.

use lucid::Agent;
use lucid_orchestrate::team::{Team, TeamEvent};

#[tokio::main]
async fn main() -> lucid::Result<()> {
    let spec = std::env::var("LUCID_MODEL").unwrap_or_else(|_| "openai:gpt-4o-mini".into());
    let model = lucid::model::from_env(&spec)?;
    let agent = |system: &str| Agent::builder(model.clone()).system(system).build();
    let team = Team::new()
        .member("lead", &agent("You lead a small team. Delegate research and writing, then answer."), "Coordinates.")
        .member("researcher", &agent("You find precise facts."), "Finds facts on a topic.")
        .member("writer", &agent("You write vivid, short prose."), "Turns notes into a paragraph.")
        .delegates("lead", ["researcher", "writer"])
        .router(&agent("You route requests to the right team member."))
        .max_depth(2)
        .max_model_calls(20);

    let run = team
        .run_with_events("lead", "A paragraph on how the bicycle changed cities.", |e| {
            if let TeamEvent::AgentStarted { agent, parent, .. } = e {
                eprintln!("{agent} starts (asked by {})", parent.as_deref().unwrap_or("you"));
            }
        })
        .await?;
    println!("{}\n", run.content);
    for (who, usage) in &run.usage_by_agent {
        println!("{who}: {} tokens in, {} out", usage.input_tokens, usage.output_tokens);
    }

    let routed = team.route("Find three facts about the first bicycles.").await?;
    println!("\nrouted to {}: {}", routed.final_agent, routed.content);
    Ok(())
}
