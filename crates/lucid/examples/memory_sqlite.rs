//! Sessions and long-term memory in one SQLite file each: run it twice and the second
//! run continues the first conversation, with older turns summarised and recalled.
//!
//! `OPENAI_API_KEY=... cargo run -p lucid-agent --example memory_sqlite` (the model and the
//! embeddings both use OpenAI; `LUCID_MODEL` picks another chat model, and
//! `LUCID_EMBEDDINGS_URL` another OpenAI-compatible `/embeddings` server, e.g. a local
//! Ollama at `http://127.0.0.1:11434/v1` with `LUCID_EMBEDDINGS_MODEL=nomic-embed-text`).

use std::sync::Arc;

use lucid::memory::{ConversationMemory, MemoryConfig, OpenAiEmbedder};

use lucid::prelude::*;
use lucid_sqlite::SqliteStore;
use lucid_sqlite::SqliteVectorIndex;

#[tokio::main]
async fn main() -> lucid::Result<()> {
    let dir = std::env::temp_dir().join("lucid-example-memory");
    std::fs::create_dir_all(&dir)
        .map_err(|source| lucid::store::StoreError::Io { path: dir.display().to_string(), source })?;

    let spec = std::env::var("LUCID_MODEL").unwrap_or_else(|_| "openai:gpt-4o-mini".into());
    let embeddings_url = std::env::var("LUCID_EMBEDDINGS_URL").unwrap_or_else(|_| "https://api.openai.com/v1".into());
    let embeddings_model = std::env::var("LUCID_EMBEDDINGS_MODEL").unwrap_or_else(|_| "text-embedding-3-small".into());
    let embedder = OpenAiEmbedder::new(&embeddings_url, std::env::var("OPENAI_API_KEY").ok(), &embeddings_model)?;

    let agent = Agent::builder(lucid::model::from_env(&spec)?)
        .system("You are a friendly assistant with a good memory.")
        .store(Arc::new(SqliteStore::open(dir.join("sessions.db"))?))
        .memory(
            ConversationMemory::new(Arc::new(embedder), Arc::new(SqliteVectorIndex::open(dir.join("memory.db"))?))
                // A small window, so summaries and recall show up within a few turns.
                .with_config(MemoryConfig { short_term_capacity: 6, ..MemoryConfig::default() }),
        )
        .build();

    // The same id on every run: the conversation is loaded (and repaired) from the file.
    let mut session = agent.session_with_id("example").await?;
    println!("{} messages loaded from {}", session.messages().len().saturating_sub(1), dir.display());
    for prompt in ["My favourite tea is genmaicha. Remember it.", "What do you remember about me?"] {
        let result = session.run(prompt).await?;
        println!("> {prompt}\n{}\n", result.content);
    }
    Ok(())
}
