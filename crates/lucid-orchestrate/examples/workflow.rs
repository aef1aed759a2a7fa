//! A workflow: outline, research two angles at once, then draft and review in a bounded
//! loop, with a closure step and per-step retries and timeouts.
//!
//! Run with a provider key, e.g. `OPENAI_API_KEY=... cargo run -p lucid-agent --example workflow`.

use std::time::Duration;

use lucid::Agent;
use lucid_orchestrate::workflow::{Condition, Step, Workflow, WorkflowEvent};
use serde_json::json;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let spec = std::env::var("LUCID_MODEL").unwrap_or_else(|_| "openai:gpt-4o-mini".into());
    let model = lucid::model::from_env(&spec)?;
    let writer = Agent::builder(model.clone()).system("You write short, exact prose.").build();
    let critic = Agent::builder(model).system("You are a strict editor. Reply APPROVED when a text is good.").build();

    let flow = Workflow::new("brief")
        .input("topic")
        .step(Step::agent("outline", &writer, "A three-point outline on {{ input.topic }}.").retries(1))
        .step(Step::parallel(
            "research",
            vec![
                Step::agent("history", &writer, "Two facts on the history of {{ input.topic }}."),
                Step::agent("today", &writer, "Two facts on {{ input.topic }} today."),
            ],
        ))
        .step(Step::func("notes", |i| async move {
            let r = i.get("research").ok_or("no research")?;
            Ok(json!(format!("{}\n{}", r["history"].as_str().unwrap_or(""), r["today"].as_str().unwrap_or(""))))
        }))
        .step(
            Step::repeat(
                "draft",
                vec![
                    Step::agent("text", &writer, "Write 100 words from {{ outline }} using:\n{{ notes }}"),
                    Step::agent("review", &critic, "Review this text:\n{{ text }}"),
                ],
                Condition::contains("review", "APPROVED"),
                3,
            )
            .timeout(Duration::from_secs(300)),
        );

    let run = flow
        .run_with_events(json!({"topic": "the bicycle"}), |e| {
            if let WorkflowEvent::StepFinished { step, duration, .. } = e {
                eprintln!("{step}: {:.1} s", duration.as_secs_f64());
            }
        })
        .await?;
    println!("{}", run.outputs["text"].as_str().unwrap_or_default());
    println!("({} tokens in, {} out)", run.usage.input_tokens, run.usage.output_tokens);
    Ok(())
}
