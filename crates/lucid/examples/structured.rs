//! Structured output: a typed answer checked against the type's JSON Schema, and a model
//! that asks for what it is missing instead of guessing.
//!
//! Run with a provider key, e.g. `OPENAI_API_KEY=... cargo run -p lucid-agent --example structured`
//! (or `LUCID_MODEL=anthropic:claude-sonnet-4-5`, `LUCID_MODEL=gemini:gemini-2.5-flash`, …).

use lucid::Error;
use lucid::prelude::*;

/// A meeting extracted from free text.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct Meeting {
    /// What the meeting is about.
    title: String,
    /// Who takes part.
    attendees: Vec<String>,
    /// ISO 8601 date.
    date: String,
    /// Length in minutes.
    minutes: u32,
}

#[tokio::main]
async fn main() -> lucid::Result<()> {
    let spec = std::env::var("LUCID_MODEL").unwrap_or_else(|_| "openai:gpt-4o-mini".into());
    let agent = Agent::builder(lucid::model::from_env(&spec)?)
        .system("You extract facts exactly as stated.")
        // With `ask_user` the model may ask instead of inventing what the text lacks.
        .tool(lucid::tool::AskUser::deferred())
        .build();
    let text = "Ana, Bo and Chen meet on 2026-12-03 for 45 minutes to plan the Q1 roadmap.";
    let meeting: Meeting = agent.session().extract(format!("Extract the meeting: {text}")).await?;
    println!(
        "{} on {}, {} minutes, with {}",
        meeting.title,
        meeting.date,
        meeting.minutes,
        meeting.attendees.join(", ")
    );

    match agent.session().extract::<Meeting>("Extract the meeting: we should meet soon.").await {
        Ok(m) => println!("{} on {}", m.title, m.date),
        Err(Error::NeedsInput { questions }) => println!("The model asks: {}", questions.join(" / ")),
        Err(e) => return Err(e),
    }
    Ok(())
}
