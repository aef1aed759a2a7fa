//! Embeddings: text in, vectors out.
//!
//! [`OpenAiEmbedder`] speaks the OpenAI-compatible `/embeddings` endpoint (OpenAI, Qwen,
//! Zhipu, Ollama, vLLM…), [`GeminiEmbedder`] Gemini's `batchEmbedContents`; both batch
//! their inputs and go through the shared transport, so they retry like model calls. With
//! the `local-embeddings` feature, `LocalEmbedder` runs a sentence-transformers model on
//! the CPU with no API at all.

use bytes::Bytes;
use futures::FutureExt;
use futures::future::BoxFuture;
use reqwest::header::{HeaderMap, HeaderName};
use serde_json::{Value, json};

use crate::error::{Error, Result};
use crate::model::http::{ErrorDecoder, HttpRequest, HttpTransport, bearer_headers, insert_secret};
use crate::model::{Preset, gemini, openai};

/// Turns texts into vectors.
///
/// Implement it to use any other embedding service or model; vectors should be
/// [`normalize`]d when the index compares them by dot product (both built-in indexes do).
///
/// ```
/// use futures::future::{BoxFuture, FutureExt};
/// use lucid::memory::{Embedder, normalize};
///
/// /// Letter counts: a toy embedder, handy in tests because it needs no model.
/// struct Letters;
///
/// impl Embedder for Letters {
///     fn model_name(&self) -> &str {
///         "letters-26"
///     }
///     fn embed<'a>(&'a self, texts: &'a [String]) -> BoxFuture<'a, lucid::Result<Vec<Vec<f32>>>> {
///         let vectors = texts.iter().map(|t| {
///             let mut v = vec![0.0; 26];
///             for c in t.to_ascii_lowercase().bytes().filter(u8::is_ascii_lowercase) {
///                 v[(c - b'a') as usize] += 1.0;
///             }
///             normalize(&mut v);
///             v
///         });
///         async move { Ok(vectors.collect()) }.boxed()
///     }
/// }
///
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let v = Letters.embed(&["abc".to_string()]).await.unwrap();
/// assert_eq!(v[0].len(), 26);
/// # });
/// ```
pub trait Embedder: Send + Sync + 'static {
    /// The model's name, as recorded with each stored vector.
    fn model_name(&self) -> &str;
    /// One vector per text, in order.
    fn embed<'a>(&'a self, texts: &'a [String]) -> BoxFuture<'a, Result<Vec<Vec<f32>>>>;
}

/// Scales a vector to unit length (so a dot product is the cosine similarity).
///
/// ```
/// let mut v = vec![3.0, 4.0];
/// lucid::memory::normalize(&mut v);
/// assert_eq!(v, [0.6, 0.8]);
/// ```
pub fn normalize(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
}

fn decode_err(provider: &str, message: String) -> Error {
    crate::model::ModelError::Decode { provider: provider.to_string(), message }.into()
}

/// Shared plumbing of the HTTP embedders.
#[derive(Debug, Clone)]
struct Endpoint {
    provider: String,
    model: String,
    url: String,
    headers: HeaderMap,
    transport: HttpTransport,
    batch: usize,
}

impl Endpoint {
    async fn post(&self, body: &Value, decode_error: ErrorDecoder<'_>) -> Result<Value> {
        let body = Bytes::from(serde_json::to_vec(body).map_err(|e| Error::Config(e.to_string()))?);
        let req = HttpRequest {
            provider: &self.provider,
            model: &self.model,
            url: &self.url,
            headers: &self.headers,
            body,
            stream: false,
        };
        let bytes = self.transport.post_json(&req, decode_error).await?;
        serde_json::from_slice(&bytes).map_err(|e| decode_err(&self.provider, e.to_string()))
    }
}

impl Endpoint {
    /// Embeds `texts` in batches: `body` builds a request for a batch, `vectors` picks the
    /// batch's vectors out of the answer, in input order.
    async fn embed_all(
        &self,
        texts: &[String],
        decode_error: ErrorDecoder<'_>,
        body: impl Fn(&[String]) -> Value,
        vectors: impl Fn(&Value) -> Vec<Value>,
    ) -> Result<Vec<Vec<f32>>> {
        let mut out = Vec::with_capacity(texts.len());
        for chunk in texts.chunks(self.batch) {
            let answer = self.post(&body(chunk), decode_error).await?;
            let got = vectors(&answer);
            if got.len() != chunk.len() {
                return Err(decode_err(
                    &self.provider,
                    format!("asked for {} embeddings, got {}", chunk.len(), got.len()),
                ));
            }
            for v in &got {
                out.push(floats(&self.provider, v)?);
            }
        }
        Ok(out)
    }
}

fn floats(provider: &str, v: &Value) -> Result<Vec<f32>> {
    let mut out: Vec<f32> = v
        .as_array()
        .ok_or_else(|| decode_err(provider, "an embedding is not an array".into()))?
        .iter()
        .map(|x| x.as_f64().map(|f| f as f32))
        .collect::<Option<_>>()
        .ok_or_else(|| decode_err(provider, "an embedding holds a non-number".into()))?;
    normalize(&mut out);
    Ok(out)
}

/// Embeddings from an OpenAI-compatible `/embeddings` endpoint.
///
/// ```
/// use lucid::memory::OpenAiEmbedder;
/// let e = OpenAiEmbedder::new("https://api.openai.com/v1", Some("sk-…".into()), "text-embedding-3-small").unwrap();
/// # let _ = e;
/// ```
#[derive(Debug, Clone)]
pub struct OpenAiEmbedder {
    endpoint: Endpoint,
    dimensions: Option<u32>,
}

impl OpenAiEmbedder {
    /// An embedder for the server at `base_url` (`/embeddings` is appended).
    pub fn new(base_url: &str, api_key: Option<String>, model: &str) -> Result<Self> {
        crate::model::http::require_tls_for(base_url)?;
        Ok(OpenAiEmbedder {
            endpoint: Endpoint {
                provider: "openai".into(),
                model: model.to_string(),
                url: format!("{}/embeddings", base_url.trim_end_matches('/')),
                headers: bearer_headers(api_key.as_deref(), &[])?,
                transport: HttpTransport::default(),
                batch: 64,
            },
            dimensions: None,
        })
    }

    /// An embedder at a preset's base URL (OpenAI, Zhipu, Qwen, Ollama, vLLM…).
    pub fn from_preset(preset: &Preset, model: &str, api_key: Option<String>) -> Result<Self> {
        let mut e = Self::new(&preset.base_url, api_key, model)?;
        e.endpoint.provider = preset.name.to_string();
        Ok(e)
    }

    /// The provider named in errors and the transcript (default `openai`).
    pub fn with_provider(mut self, provider: &str) -> Self {
        self.endpoint.provider = provider.to_string();
        self
    }

    /// Asks for vectors of this size (models that support shortening).
    pub fn with_dimensions(mut self, d: u32) -> Self {
        self.dimensions = Some(d);
        self
    }

    /// Texts per request (default 64; DashScope accepts at most 10).
    pub fn with_batch_size(mut self, n: usize) -> Self {
        self.endpoint.batch = n.max(1);
        self
    }

    /// Uses this transport (timeouts, retries, transcript).
    pub fn with_transport(mut self, t: HttpTransport) -> Self {
        self.endpoint.transport = t;
        self
    }
}

impl Embedder for OpenAiEmbedder {
    fn model_name(&self) -> &str {
        &self.endpoint.model
    }

    fn embed<'a>(&'a self, texts: &'a [String]) -> BoxFuture<'a, Result<Vec<Vec<f32>>>> {
        let body = |chunk: &[String]| {
            let mut body = json!({"model": self.endpoint.model, "input": chunk, "encoding_format": "float"});
            if let Some(d) = self.dimensions {
                body["dimensions"] = json!(d);
            }
            body
        };
        let vectors = |v: &Value| {
            let mut data: Vec<&Value> = v["data"].as_array().map(|d| d.iter().collect()).unwrap_or_default();
            data.sort_by_key(|d| d["index"].as_u64().unwrap_or(0));
            data.into_iter().map(|d| d["embedding"].clone()).collect()
        };
        self.endpoint.embed_all(texts, &openai::decode_error, body, vectors).boxed()
    }
}

/// Embeddings from Gemini's `batchEmbedContents`.
///
/// ```
/// let e = lucid::memory::GeminiEmbedder::new("key", "gemini-embedding-001").unwrap();
/// # let _ = e;
/// ```
#[derive(Debug, Clone)]
pub struct GeminiEmbedder {
    endpoint: Endpoint,
    task_type: Option<String>,
    dimensions: Option<u32>,
}

impl GeminiEmbedder {
    /// An embedder for `https://generativelanguage.googleapis.com` with this key.
    pub fn new(api_key: impl Into<String>, model: &str) -> Result<Self> {
        let mut headers = HeaderMap::new();
        insert_secret(&mut headers, HeaderName::from_static("x-goog-api-key"), &api_key.into())?;
        let model = model.strip_prefix("models/").unwrap_or(model).to_string();
        Ok(GeminiEmbedder {
            endpoint: Endpoint {
                provider: "gemini".into(),
                url: format!("https://generativelanguage.googleapis.com/v1beta/models/{model}:batchEmbedContents"),
                model,
                headers,
                transport: HttpTransport::default(),
                batch: 100,
            },
            task_type: None,
            dimensions: None,
        })
    }

    /// Sends requests to another API root.
    pub fn with_base_url(mut self, base_url: &str) -> Self {
        self.endpoint.url =
            format!("{}/v1beta/models/{}:batchEmbedContents", base_url.trim_end_matches('/'), self.endpoint.model);
        self
    }

    /// The `taskType` (e.g. `RETRIEVAL_DOCUMENT`, `RETRIEVAL_QUERY`).
    pub fn with_task_type(mut self, t: &str) -> Self {
        self.task_type = Some(t.to_string());
        self
    }

    /// `outputDimensionality`.
    pub fn with_dimensions(mut self, d: u32) -> Self {
        self.dimensions = Some(d);
        self
    }

    /// Uses this transport.
    pub fn with_transport(mut self, t: HttpTransport) -> Self {
        self.endpoint.transport = t;
        self
    }
}

impl Embedder for GeminiEmbedder {
    fn model_name(&self) -> &str {
        &self.endpoint.model
    }

    fn embed<'a>(&'a self, texts: &'a [String]) -> BoxFuture<'a, Result<Vec<Vec<f32>>>> {
        let body = |chunk: &[String]| {
            let requests: Vec<Value> = chunk
                .iter()
                .map(|t| {
                    let mut r = json!({"model": format!("models/{}", self.endpoint.model), "content": {"parts": [{"text": t}]}});
                    if let Some(tt) = &self.task_type {
                        r["taskType"] = json!(tt);
                    }
                    if let Some(d) = self.dimensions {
                        r["outputDimensionality"] = json!(d);
                    }
                    r
                })
                .collect();
            json!({"requests": requests})
        };
        let vectors = |v: &Value| {
            v["embeddings"].as_array().map(|e| e.iter().map(|x| x["values"].clone()).collect()).unwrap_or_default()
        };
        self.endpoint.embed_all(texts, &gemini::decode_error, body, vectors).boxed()
    }
}

into_shared! {
    /// Anything [`Embedder`] can be taken as: a value, an `Arc` of one, or an
    /// `Arc<dyn Embedder>`.
    ///
    /// ```
    /// use lucid::memory::{Embedder, IntoEmbedder, OpenAiEmbedder};
    /// let embedder = OpenAiEmbedder::new("https://api.openai.com/v1", Some("sk-test".into()), "text-embedding-3-small").unwrap();
    /// let shared: std::sync::Arc<dyn Embedder> = embedder.into_shared();
    /// ```
    IntoEmbedder::into_shared => Embedder
}
