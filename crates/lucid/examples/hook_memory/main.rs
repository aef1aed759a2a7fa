//! A memory of your own, as a hook: `NotesMemory` (in `notes.rs`) summarises the oldest
//! turns into notes kept with the session and pins the relevant ones before each turn,
//! using only the public hook point [`Hook::before_turn`](lucid::hooks::Hook::before_turn).
//! The same memory tests the built-in `ConversationMemory` passes run on it
//! (`tests/hook_memory.rs`).
//!
//! Runs as it is against a local mock of the OpenAI API
//! (`cargo run -p lucid-agent --example hook_memory`).

mod notes;

use std::sync::Arc;

use lucid::prelude::*;
use lucid_mock::{MockServer, Reply, text_completion};
use notes::NotesMemory;

#[tokio::main]
async fn main() -> lucid::Result<()> {
    // A model that answers "noted", and summarises by repeating what the user said.
    let server = MockServer::start(|req| {
        let body = req.json();
        let system = body["messages"][0]["content"].as_str().unwrap_or_default().to_string();
        if system.contains("compress conversations") {
            let said = body["messages"][1]["content"].as_str().unwrap_or_default().replace("user: ", "The user said: ");
            return Reply::json(200, &text_completion(said.trim()));
        }
        Reply::json(200, &text_completion("noted"))
    })
    .await;
    let model = Arc::new(lucid::model::OpenAiCompatible::new(&server.url(), None, "mock")?);
    let memory = NotesMemory { max_messages: 6, ..NotesMemory::default() };
    let agent = Agent::builder(model).hook(memory).build();
    let mut session = agent.session();
    for line in
        ["My cat is called Tom.", "I live in Lyon.", "I play the cello.", "I like tea.", "What is my cat's name?"]
    {
        session.run(line).await?;
    }
    println!("notes kept: {:?}", notes::notes(session.hook_state()));
    println!("window: {} messages, recalled: {:?}", session.context().len(), session.context().recall());
    Ok(())
}
