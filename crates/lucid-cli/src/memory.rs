//! The layered memory of `lucid chat` and `lucid run --session` (one function for both):
//! `[memory]` made a [`ConversationMemory`], with the provider's embeddings endpoint where
//! it has one, a local model when the configuration names its folder, or none (the newest
//! summaries are then recalled).

use std::sync::Arc;

use lucid::memory::{ConversationMemory, Embedder};

use crate::config::{Embeddings, MemorySettings, ModelConfig};

/// The memory `settings` describe for the model of `cfg`, or `None` when it is off.
pub fn conversation_memory(cfg: &ModelConfig, settings: &MemorySettings) -> anyhow::Result<Option<ConversationMemory>> {
    if !settings.enabled {
        return Ok(None);
    }
    let mut memory = ConversationMemory::default().with_config(settings.config.clone());
    if let Some(embedder) = embedder(cfg, settings)? {
        tracing::debug!(model = embedder.model_name(), "memory embeddings");
        memory = memory.with_embedder(embedder);
    }
    Ok(Some(memory))
}

fn embedder(cfg: &ModelConfig, settings: &MemorySettings) -> anyhow::Result<Option<Arc<dyn Embedder>>> {
    match &settings.embeddings {
        Embeddings::Off => Ok(None),
        Embeddings::Local(dir) => local(dir),
        Embeddings::Provider => {
            // The record the client carries (the in-process engine has none: some
            // OpenAI-compatible server, used only with a model named).
            let own = lucid::model::Provider::compatible().renamed("openai-compatible");
            let built = lucid::memory::provider_embedder(
                cfg.record.as_ref().unwrap_or(&own),
                &cfg.base_url,
                cfg.api_key.clone(),
                settings.embedding_model.as_deref(),
                cfg.transport()?,
            );
            Ok(built.transpose()?)
        }
    }
}

#[cfg(feature = "local-embeddings")]
fn local(dir: &str) -> anyhow::Result<Option<Arc<dyn Embedder>>> {
    Ok(Some(Arc::new(lucid::memory::LocalEmbedder::load(dir)?)))
}

#[cfg(not(feature = "local-embeddings"))]
fn local(dir: &str) -> anyhow::Result<Option<Arc<dyn Embedder>>> {
    Err(crate::config::ConfigError(format!(
        "[memory] embeddings = {dir:?} names a local model, but this lucid was built without them: \
         rebuild with `--features local-embeddings`, or set embeddings = \"provider\" or \"off\""
    ))
    .into())
}
