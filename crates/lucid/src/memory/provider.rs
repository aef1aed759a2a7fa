//! The embedder of a provider: the embeddings endpoint a chat provider also serves, so
//! recall by similarity needs no extra setup.
//!
//! OpenAI, Zhipu (`embedding-3`), Qwen on DashScope (`text-embedding-v4`), Mistral and
//! Ollama (`nomic-embed-text`, which must be pulled) answer the OpenAI-compatible
//! `/embeddings`; Gemini answers `batchEmbedContents`. Anthropic, DeepSeek, Groq and the
//! other presets have no embeddings endpoint: memory then recalls the newest summaries.

use std::sync::Arc;

use super::embed::{Embedder, GeminiEmbedder, OpenAiEmbedder};
use crate::error::Result;
use crate::model::http::HttpTransport;

/// The embedding model a provider's endpoint offers by default, if it has one.
///
/// ```
/// use lucid::memory::default_embedding_model;
/// assert_eq!(default_embedding_model("zhipu"), Some("embedding-3"));
/// assert_eq!(default_embedding_model("anthropic"), None);
/// ```
pub fn default_embedding_model(provider: &str) -> Option<&'static str> {
    Some(match provider {
        "openai" => "text-embedding-3-small",
        "zhipu" => "embedding-3",
        "qwen" | "dashscope" => "text-embedding-v4",
        "gemini" => "gemini-embedding-001",
        "mistral" => "mistral-embed",
        "ollama" => "nomic-embed-text",
        _ => return None,
    })
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
    let model = model.or_else(|| default_embedding_model(provider))?;
    let built: Result<Arc<dyn Embedder>> = if provider == "gemini" {
        GeminiEmbedder::new(api_key.unwrap_or_default(), model)
            .map(|e| Arc::new(e.with_base_url(base_url).with_transport(transport)) as Arc<dyn Embedder>)
    } else {
        OpenAiEmbedder::new(base_url, api_key, model).map(|e| {
            // DashScope takes at most 10 texts per request.
            let batch = if matches!(provider, "qwen" | "dashscope") { 10 } else { 64 };
            Arc::new(e.with_provider(provider).with_batch_size(batch).with_transport(transport)) as Arc<dyn Embedder>
        })
    };
    Some(built)
}
