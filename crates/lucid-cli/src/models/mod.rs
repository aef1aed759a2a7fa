//! Local models: `lucid models pull|list|rm`, the Hugging Face cache they live in, and the
//! one function that turns a GGUF file into a [`ChatModel`].
//!
//! - `name`: what a model name means (alias, `ORG/REPO[:FILE|:QUANT]`, resolve URL) and
//!   which GGUF of a repository it picks;
//! - `cache`: the hub cache's layout (`models--ORG--REPO/{blobs,snapshots,refs}`), shared
//!   with `huggingface_hub` and llama.cpp: lookup, listing, removal;
//! - `checked`: the names a cache path is built from (repository, file path, revision,
//!   commit, blob hash), each made only by its check, and names shown inert on a terminal;
//! - `hub`: asking the hub; `download`: the download (resumed, bounded by the announced
//!   size or `LUCID_MODELS_MAX_DOWNLOAD`, checked against its hash, never half-written);
//! - `progress`: the progress bar.
//!
//! It reads no environment: `crate::config` resolves the cache folder, endpoint, token
//! and offline mode into a [`Hub`]. It does not run models: the engine is the `local`
//! feature's (crate `lucid-local`), reached only through [`local_chat_model`].

mod cache;
mod checked;
mod download;
mod hub;
mod name;
mod progress;

use std::path::Path;
use std::sync::Arc;

use lucid::model::ChatModel;

pub use cache::Cache;
pub use download::max_download;
pub use hub::Hub;
pub use name::{DEFAULT_MODEL, ModelRef};

use crate::args::ModelsAction;
use checked::shown;

/// `lucid models …`; returns the exit code.
pub async fn run(action: ModelsAction, hub: Hub) -> anyhow::Result<i32> {
    match action {
        ModelsAction::Pull { name } => {
            let pulled = hub.pull(&ModelRef::parse(&name)?).await?;
            let what = if pulled.downloaded { "downloaded" } else { "already in the cache" };
            eprintln!("lucid: {}:{} ({}) {what}", pulled.repo, shown(&pulled.file), progress::size(pulled.size));
            println!("{}", pulled.path.display());
        }
        ModelsAction::List { json } => {
            let models = hub.cache.list();
            if json {
                let rows: Vec<_> = models
                    .iter()
                    .map(|m| serde_json::json!({"repo": m.repo, "file": m.file, "size": m.size, "path": m.path}))
                    .collect();
                println!("{}", serde_json::Value::Array(rows));
            } else if models.is_empty() {
                eprintln!(
                    "lucid: no GGUF model in {} (`lucid models pull {DEFAULT_MODEL}` gets the default one)",
                    shown(&hub.cache.root().display().to_string())
                );
            } else {
                // What other tools put in the cache is shown inert too.
                let rows: Vec<_> = models
                    .iter()
                    .map(|m| (shown(&m.repo), shown(&m.file), shown(&m.path.display().to_string())))
                    .collect();
                let repo_w = rows.iter().map(|r| r.0.chars().count()).max().unwrap_or(4).max(4);
                let file_w = rows.iter().map(|r| r.1.chars().count()).max().unwrap_or(4).max(4);
                println!("{:<repo_w$}  {:<file_w$}  {:>9}  path", "repo", "file", "size");
                for (m, (repo, file, path)) in models.iter().zip(&rows) {
                    println!("{repo:<repo_w$}  {file:<file_w$}  {:>9}  {path}", progress::size(m.size));
                }
            }
        }
        ModelsAction::Rm { name } => {
            let model = ModelRef::parse(&name)?;
            let removed = hub.cache.remove(&model)?;
            if removed.is_empty() {
                eprintln!(
                    "lucid: {} is not in the cache at {}",
                    model.display(),
                    shown(&hub.cache.root().display().to_string())
                );
                return Ok(1);
            }
            for path in removed {
                eprintln!("lucid: removed {}", shown(&path.display().to_string()));
            }
        }
    }
    Ok(0)
}

/// The one place a model file becomes a model: the `local` feature's in-process engine
/// (crate `lucid-local`, through `crate::local`) loads the GGUF at `path` under the name
/// `name`. A build without the engine says so.
pub fn local_chat_model(path: &Path, name: &str) -> anyhow::Result<Arc<dyn ChatModel>> {
    crate::local::model(path, name)
}
