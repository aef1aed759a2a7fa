//! The in-process engine behind provider `local` (feature `local`, crate `lucid-local`): a
//! GGUF file, once `crate::config` has resolved it (`--model-file`, `model_file`, or a name
//! found in the Hugging Face cache), loaded once per process however many agents name it.
//! The computed state of the fixed prompt prefix (system prompt, tools) is kept in
//! `$XDG_CACHE_HOME/lucid/kv` or `~/.cache/lucid/kv` (at most 512 MiB, safe to delete), so
//! the next `lucid run` of the same agent loads it instead of computing it.

use std::path::Path;
use std::sync::Arc;

use lucid::model::ChatModel;

/// The model in the GGUF file at `path`, named `name` in logs and usage, loaded on first
/// use.
pub fn model(path: &Path, name: &str) -> anyhow::Result<Arc<dyn ChatModel>> {
    engine::model(path, name)
}

/// The context window (the KV cache's size) of the model in `path`, once loaded.
pub fn context_window(path: &Path) -> Option<u32> {
    engine::window(path)
}

/// Why the engine cannot run on this CPU (it lacks instructions llama.cpp was compiled
/// for), if it cannot: checked before a model is downloaded or loaded, since running it
/// anyway would kill the process with SIGILL. `None` without the engine.
pub fn unsupported_cpu() -> Option<String> {
    engine::unsupported_cpu()
}

/// What to do instead when the engine cannot run here.
pub const ELSEWHERE: &str = "for a hosted provider, set its API key (e.g. export OPENAI_API_KEY=...; `lucid providers` \
                             lists them); for a server, lucid run --base-url http://HOST:PORT/v1 --model NAME ...";

#[cfg(feature = "local")]
mod engine {
    use std::collections::HashMap;
    use std::path::{Path, PathBuf};
    use std::sync::{Arc, Mutex};

    use lucid::model::ChatModel;
    use lucid_local::{LocalModel, LocalOptions};

    static LOADED: Mutex<Option<HashMap<PathBuf, LocalModel>>> = Mutex::new(None);

    /// `$XDG_CACHE_HOME/lucid/kv` or `~/.cache/lucid/kv`.
    fn prefix_cache_dir() -> Option<PathBuf> {
        let env = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty()).map(PathBuf::from);
        env("XDG_CACHE_HOME").or_else(|| env("HOME").map(|h| h.join(".cache"))).map(|c| c.join("lucid/kv"))
    }

    fn loaded(path: &Path, name: &str) -> anyhow::Result<LocalModel> {
        let mut all = LOADED.lock().unwrap_or_else(|p| p.into_inner());
        let all = all.get_or_insert_with(HashMap::new);
        if let Some(m) = all.get(path) {
            return Ok(m.clone());
        }
        if let Err(e) = lucid_local::check_cpu() {
            anyhow::bail!("cannot run {name}: {e}: {}", super::ELSEWHERE);
        }
        let options =
            LocalOptions { prefix_cache: prefix_cache_dir(), name: Some(name.to_string()), ..LocalOptions::default() };
        let model = LocalModel::load(path, options)?;
        all.insert(path.to_path_buf(), model.clone());
        Ok(model)
    }

    pub fn model(path: &Path, name: &str) -> anyhow::Result<Arc<dyn ChatModel>> {
        Ok(Arc::new(loaded(path, name)?))
    }

    pub fn window(path: &Path) -> Option<u32> {
        let all = LOADED.lock().unwrap_or_else(|p| p.into_inner());
        all.as_ref()?.get(path).map(LocalModel::context_window)
    }

    pub fn unsupported_cpu() -> Option<String> {
        lucid_local::check_cpu().err().map(|e| e.to_string())
    }
}

#[cfg(not(feature = "local"))]
mod engine {
    use std::path::Path;
    use std::sync::Arc;

    use lucid::model::ChatModel;

    pub fn model(path: &Path, name: &str) -> anyhow::Result<Arc<dyn ChatModel>> {
        anyhow::bail!(
            "this lucid was built without the local model engine, so it cannot run {name} ({}); \
             build it with the `local` feature, or use a hosted provider (`lucid providers`) or a local server \
             (--base-url http://HOST:PORT/v1)",
            path.display()
        )
    }

    pub fn window(_path: &Path) -> Option<u32> {
        None
    }

    pub fn unsupported_cpu() -> Option<String> {
        None
    }
}
