//! The embedder of a provider: the embeddings endpoint a chat provider also serves, so
//! recall by similarity needs no extra setup.
//!
//! What a provider serves is its record's [`Preset::embeddings`]: OpenAI, Zhipu
//! (`embedding-3`), Qwen on DashScope (`text-embedding-v4`, 10 texts a request) and Ollama
//! (`nomic-embed-text`, which must be pulled) answer the OpenAI-compatible `/embeddings`;
//! Gemini answers `batchEmbedContents`. Anthropic, DeepSeek, Groq and the other presets
//! have no embeddings endpoint: memory then recalls the newest summaries.

use std::sync::Arc;

use super::embed::{Embedder, GeminiEmbedder, OpenAiEmbedder};
use crate::error::Result;
use crate::model::http::HttpTransport;
use crate::model::presets::{Preset, Protocol};

/// The embedding model a provider's endpoint offers by default, if it has one.
///
/// ```
/// use lucid::memory::default_embedding_model;
/// assert_eq!(default_embedding_model("zhipu"), Some("embedding-3"));
/// assert_eq!(default_embedding_model("anthropic"), None);
/// ```
pub fn default_embedding_model(provider: &str) -> Option<&'static str> {
    Preset::find(provider)?.embeddings.map(|e| e.default_model)
}

/// The embedder of `provider` at `base_url` (the chat endpoint's, as configured), with
/// `model` or the provider's default; `None` when the provider has no embeddings endpoint
/// and no model is named. With a model named, an unknown provider is taken to be
/// OpenAI-compatible (vLLM, llama.cpp with `--embeddings`, a gateway).
///
/// ```
/// use lucid::memory::provider_embedder;
/// use lucid::model::http::HttpTransport;
/// let e = provider_embedder("qwen", "https://dashscope.aliyuncs.com/compatible-mode/v1", Some("sk".into()), None, HttpTransport::default());
/// assert_eq!(e.unwrap().unwrap().model_name(), "text-embedding-v4");
/// assert!(provider_embedder("deepseek", "https://api.deepseek.com", None, None, HttpTransport::default()).is_none());
/// ```
pub fn provider_embedder(
    provider: &str,
    base_url: &str,
    api_key: Option<String>,
    model: Option<&str>,
    transport: HttpTransport,
) -> Option<Result<Arc<dyn Embedder>>> {
    let preset = Preset::find(provider);
    let model = model.or_else(|| preset?.embeddings.map(|e| e.default_model))?;
    let built: Result<Arc<dyn Embedder>> = if preset.is_some_and(|p| p.protocol == Protocol::Gemini) {
        GeminiEmbedder::new(api_key.unwrap_or_default(), model)
            .map(|e| Arc::new(e.with_base_url(base_url).with_transport(transport)) as Arc<dyn Embedder>)
    } else {
        OpenAiEmbedder::new(base_url, api_key, model).map(|e| {
            let batch = preset.and_then(|p| p.embeddings).map_or(64, |e| e.batch);
            Arc::new(e.with_provider(provider).with_batch_size(batch).with_transport(transport)) as Arc<dyn Embedder>
        })
    };
    Some(built)
}
