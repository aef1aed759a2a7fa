//! The planner: the model splits a task into steps, a tool-using agent runs them
//! (independent ones at once), failures are re-planned, and the answer uses every result.
//!
//! Run with a provider key, e.g. `OPENAI_API_KEY=... cargo run -p lucid-agent --example planner`.

use lucid::Agent;
use lucid_orchestrate::planner::{PlanEvent, Planner};

#[tokio::main]
async fn main() -> lucid::Result<()> {
    let spec = std::env::var("LUCID_MODEL").unwrap_or_else(|_| "openai:gpt-4o-mini".into());
    let model = lucid::model::from_env(&spec)?;
    let planner = Agent::builder(model.clone()).system("You plan carefully and answer precisely.").build();
    let worker = Agent::builder(model)
        .system("You do one step of a larger task. Use the calculator for arithmetic.")
        .tool(lucid_tools::calculator)
        .tool(lucid_tools::current_time)
        .build();
    let run = Planner::new(&planner, &worker)
        .max_replans(2)
        .run_with_events(
            "How many days are left until the end of this year, and what is that number in hours and in weeks?",
            |e| match e {
                PlanEvent::Planned { plan, .. } => {
                    for s in &plan.steps {
                        eprintln!("plan {}: {} (after {:?})", s.id, s.task, s.depends_on);
                    }
                }
                PlanEvent::StepFinished { id, success, result, .. } => eprintln!("{id} {success}: {result}"),
                _ => {}
            },
        )
        .await?;
    println!("{}", run.answer);
    Ok(())
}
