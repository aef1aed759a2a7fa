//! A sentence-embedding model run locally with candle (the `local-embeddings` feature).
//!
//! Loads a BERT-family sentence-transformers model (e.g. all-MiniLM-L6-v2) from a folder
//! holding `config.json`, `tokenizer.json` and `model.safetensors`, and embeds on the CPU:
//! token embeddings mean-pooled over the attention mask (so padding, which some tokenizers
//! add up to a fixed length, does not dilute the vector), then scaled to unit length.

use std::path::Path;
use std::sync::Arc;

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
use futures::FutureExt;
use futures::future::BoxFuture;
use tokenizers::{PaddingParams, Tokenizer, TruncationParams};

use super::embed::{Embedder, normalize};
use crate::error::{Error, Result};

fn err(e: impl std::fmt::Display) -> Error {
    Error::Config(format!("local embedding model: {e}"))
}

struct Loaded {
    model: BertModel,
    tokenizer: Tokenizer,
}

/// A local embedding model.
///
/// ```no_run
/// # async fn demo() -> lucid::Result<()> {
/// use lucid::memory::{Embedder, LocalEmbedder};
/// let e = LocalEmbedder::load("/path/to/all-MiniLM-L6-v2")?;
/// let v = e.embed(&["The cat is called Tom.".to_string()]).await?;
/// assert_eq!(v[0].len(), 384);
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct LocalEmbedder {
    loaded: Arc<Loaded>,
    name: String,
}

impl std::fmt::Debug for LocalEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalEmbedder").field("name", &self.name).finish()
    }
}

impl LocalEmbedder {
    /// Loads the model in `dir`.
    pub fn load(dir: impl AsRef<Path>) -> Result<Self> {
        let dir = dir.as_ref();
        let read = |f: &str| {
            std::fs::read(dir.join(f)).map_err(|e| err(format!("cannot read {}: {e}", dir.join(f).display())))
        };
        let config: Config = serde_json::from_slice(&read("config.json")?).map_err(err)?;
        let mut tokenizer = Tokenizer::from_bytes(read("tokenizer.json")?).map_err(err)?;
        if tokenizer.get_padding().is_none() {
            tokenizer.with_padding(Some(PaddingParams::default()));
        }
        if tokenizer.get_truncation().is_none() {
            let max_length = config.max_position_embeddings;
            tokenizer.with_truncation(Some(TruncationParams { max_length, ..Default::default() })).map_err(err)?;
        }
        let vb =
            VarBuilder::from_buffered_safetensors(read("model.safetensors")?, DType::F32, &Device::Cpu).map_err(err)?;
        let model = BertModel::load(vb, &config).map_err(err)?;
        let name = dir.file_name().map_or_else(|| "local".into(), |n| n.to_string_lossy().into_owned());
        Ok(LocalEmbedder { loaded: Arc::new(Loaded { model, tokenizer }), name })
    }

    /// Embeds on the calling thread (use [`Embedder::embed`] from async code).
    pub fn embed_blocking(&self, texts: &[String]) -> Result<Vec<Vec<f32>>> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let Loaded { model, tokenizer } = &*self.loaded;
        let encodings = tokenizer.encode_batch(texts.to_vec(), true).map_err(err)?;
        let tensor = |f: &dyn Fn(&tokenizers::Encoding) -> Vec<u32>| -> Result<Tensor> {
            let rows = encodings
                .iter()
                .map(|e| Tensor::new(f(e).as_slice(), &Device::Cpu))
                .collect::<candle_core::Result<Vec<_>>>();
            Tensor::stack(&rows.map_err(err)?, 0).map_err(err)
        };
        let ids = tensor(&|e| e.get_ids().to_vec())?;
        let type_ids = tensor(&|e| e.get_type_ids().to_vec())?;
        let mask = tensor(&|e| e.get_attention_mask().to_vec())?;
        let hidden = model.forward(&ids, &type_ids, Some(&mask)).map_err(err)?;
        let mask = mask.to_dtype(DType::F32).map_err(err)?.unsqueeze(2).map_err(err)?;
        let summed = hidden.broadcast_mul(&mask).map_err(err)?.sum(1).map_err(err)?;
        let counts = mask.sum(1).map_err(err)?.clamp(1e-9, f64::MAX).map_err(err)?;
        let mean = summed.broadcast_div(&counts).map_err(err)?;
        let mut out: Vec<Vec<f32>> = mean.to_vec2().map_err(err)?;
        out.iter_mut().for_each(|v| normalize(v));
        Ok(out)
    }
}

impl Embedder for LocalEmbedder {
    fn model_name(&self) -> &str {
        &self.name
    }

    fn embed<'a>(&'a self, texts: &'a [String]) -> BoxFuture<'a, Result<Vec<Vec<f32>>>> {
        let me = self.clone();
        let texts = texts.to_vec();
        async move {
            tokio::task::spawn_blocking(move || me.embed_blocking(&texts))
                .await
                .map_err(|e| Error::Config(format!("the embedding task failed: {e}")))?
        }
        .boxed()
    }
}
