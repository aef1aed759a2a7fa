//! The embedder of a provider: the embeddings endpoint a chat provider also serves, so
//! recall by similarity needs no extra setup.
//!
//! What a provider serves is its record's [`Provider::embeddings`]: OpenAI, Zhipu
//! (`embedding-3`), Qwen on DashScope (`text-embedding-v4`, 10 texts a request) and Ollama
//! (`nomic-embed-text`, which must be pulled) answer the OpenAI-compatible `/embeddings`;
//! Gemini answers `batchEmbedContents`. Anthropic, DeepSeek, Groq and the other presets
//! have no embeddings endpoint: memory then recalls the newest summaries.

use std::sync::Arc;

use super::embed::{Embedder, GeminiEmbedder, OpenAiEmbedder};
use crate::error::Result;
use crate::model::http::HttpTransport;
use crate::model::presets::{Protocol, Provider};

/// The embedding model a provider's endpoint offers by default, if it has one.
///
/// ```
/// use lucid::memory::default_embedding_model;
/// use lucid::model::Provider;
/// assert_eq!(default_embedding_model(Provider::find("zhipu").unwrap()), Some("embedding-3"));
/// assert_eq!(default_embedding_model(Provider::find("anthropic").unwrap()), None);
/// ```
pub fn default_embedding_model(provider: &Provider) -> Option<&str> {
    provider.embeddings.as_ref().map(|e| e.default_model.as_str())
}

/// The embedder of `provider`'s record at `base_url` (the chat endpoint's, as
/// configured), with `model` or the record's default; `None` when the provider has no
/// embeddings endpoint and no model is named. With a model named, a provider without one
/// in its record is taken to be OpenAI-compatible (vLLM, llama.cpp with `--embeddings`, a
/// gateway).
///
/// ```
/// use lucid::memory::provider_embedder;
/// use lucid::model::{Provider, http::HttpTransport};
/// let qwen = Provider::find("qwen").unwrap();
/// let e = provider_embedder(qwen, "https://dashscope.aliyuncs.com/compatible-mode/v1", Some("sk".into()), None, HttpTransport::default());
/// assert_eq!(e.unwrap().unwrap().model_name(), "text-embedding-v4");
/// let deepseek = Provider::find("deepseek").unwrap();
/// assert!(provider_embedder(deepseek, "https://api.deepseek.com", None, None, HttpTransport::default()).is_none());
/// ```
pub fn provider_embedder(
    provider: &Provider,
    base_url: &str,
    api_key: Option<String>,
    model: Option<&str>,
    transport: HttpTransport,
) -> Option<Result<Arc<dyn Embedder>>> {
    let model = model.or_else(|| default_embedding_model(provider))?;
    let built: Result<Arc<dyn Embedder>> = if provider.protocol == Protocol::Gemini {
        GeminiEmbedder::new(api_key.unwrap_or_default(), model)
            .map(|e| Arc::new(e.with_base_url(base_url).with_transport(transport)) as Arc<dyn Embedder>)
    } else {
        OpenAiEmbedder::new(base_url, api_key, model).map(|e| {
            let batch = provider.embeddings.as_ref().map_or(64, |e| e.batch);
            Arc::new(e.with_provider(&provider.name).with_batch_size(batch).with_transport(transport))
                as Arc<dyn Embedder>
        })
    };
    Some(built)
}
