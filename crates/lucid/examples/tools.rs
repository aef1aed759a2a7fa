//! Tools as plain Rust functions: a free `#[tool]` function and a `#[tools]` impl block
//! sharing state, used by an agent.
//!
//! Run with a provider key, e.g. `OPENAI_API_KEY=... cargo run -p lucid-agent --example tools`
//! (or `LUCID_MODEL=deepseek:deepseek-chat`, `LUCID_MODEL=ollama:llama3.2`, …).

use std::collections::HashMap;
use std::sync::Mutex;

use lucid::prelude::*;

/// Converts a temperature from Celsius to Fahrenheit.
#[tool]
fn celsius_to_fahrenheit(
    /// degrees Celsius
    celsius: f64,
) -> f64 {
    celsius * 9.0 / 5.0 + 32.0
}

/// A tiny note store the model can write to and read from.
#[derive(Default)]
struct Notes {
    notes: Mutex<HashMap<String, String>>,
}

#[tools]
impl Notes {
    /// Saves a note under a title (replacing any note with that title).
    #[tool]
    fn save_note(
        &self,
        /// short title
        title: String,
        /// the note's text
        text: String,
    ) -> Result<String, ToolError> {
        let mut notes = self.notes.lock().map_err(|_| ToolError::new("the note store is unavailable"))?;
        notes.insert(title.clone(), text);
        Ok(format!("saved `{title}`"))
    }

    /// Reads the note with this title.
    #[tool]
    fn read_note(&self, title: String) -> Result<String, ToolError> {
        let notes = self.notes.lock().map_err(|_| ToolError::new("the note store is unavailable"))?;
        notes.get(&title).cloned().ok_or_else(|| ToolError::new(format!("no note titled `{title}`")))
    }
}

#[tokio::main]
async fn main() -> lucid::Result<()> {
    let spec = std::env::var("LUCID_MODEL").unwrap_or_else(|_| "openai:gpt-4o-mini".into());
    let agent = Agent::builder(lucid::model::from_env(&spec)?)
        .system("You are a helpful assistant. Use the tools when they help.")
        .tool(celsius_to_fahrenheit)
        .tool_set(Notes::default())
        .build();
    let mut session = agent.session();
    let result = session
        .run("Convert 21.5 °C to Fahrenheit, save the result in a note titled 'temp', then read it back to me.")
        .await?;
    for call in &result.tool_calls {
        println!("tool {}({}) -> {:?}", call.name, call.arguments, call.output);
    }
    println!("{}", result.content);
    Ok(())
}
