//! The in-process model (`lucid-local`, feature `local`): a GGUF file run by llama.cpp in
//! this process, named by `--model-file FILE.gguf`, `--model local:FILE.gguf`, or provider
//! `local` with the file as its model (flags or configuration: `provider = "local"`,
//! `model = "/path/to/file.gguf"`). One file is loaded once per process, however many
//! agents name it. The computed state of the fixed prompt prefix (system prompt and tools)
//! is kept in `~/.cache/lucid/kv` (or `$XDG_CACHE_HOME/lucid/kv`, at most 512 MiB, safe to
//! delete), so the next `lucid run` of the same agent loads it instead of computing it.

use std::path::PathBuf;
use std::sync::Arc;

use lucid::model::ChatModel;

use crate::args::ModelArgs;

/// The provider name of the in-process model.
pub const PROVIDER: &str = "local";

/// The model file the flags ask for, if they ask for the local model: `--model-file`,
/// `--model local:FILE`, or provider `local` (`provider`, from the flag or the file) with
/// `configured` (the model of the flag or the configuration). An error when provider
/// `local` comes without a file.
pub fn wanted(args: &ModelArgs, provider: Option<&str>, configured: Option<String>) -> Result<Option<PathBuf>, String> {
    if let Some(path) = &args.model_file {
        return Ok(Some(path.clone()));
    }
    if let Some(path) = args.model.as_deref().and_then(|m| m.strip_prefix("local:")) {
        return Ok(Some(PathBuf::from(path)));
    }
    if provider != Some(PROVIDER) {
        return Ok(None);
    }
    match configured {
        Some(m) if !m.is_empty() => Ok(Some(PathBuf::from(m))),
        _ => Err("provider `local` needs a model file: pass --model-file FILE.gguf".into()),
    }
}

/// The model in the GGUF file at `path`, loaded on first use.
pub fn build(path: &str) -> lucid::Result<Arc<dyn ChatModel>> {
    engine::model(path)
}

/// The context window (its KV cache) of the model at `path`, once loaded.
pub fn context_window(path: &str) -> Option<u32> {
    engine::window(path)
}

#[cfg(feature = "local")]
mod engine {
    use std::collections::HashMap;
    use std::sync::{Arc, Mutex};

    use lucid::model::ChatModel;
    use lucid_local::{LocalModel, LocalOptions};

    static LOADED: Mutex<Option<HashMap<String, LocalModel>>> = Mutex::new(None);

    fn loaded(path: &str) -> lucid::Result<LocalModel> {
        let mut all = LOADED.lock().unwrap_or_else(|p| p.into_inner());
        let all = all.get_or_insert_with(HashMap::new);
        if let Some(m) = all.get(path) {
            return Ok(m.clone());
        }
        let options = LocalOptions { prefix_cache: prefix_cache_dir(), ..LocalOptions::default() };
        let model = LocalModel::load(path, options)?;
        all.insert(path.to_string(), model.clone());
        Ok(model)
    }

    /// `$XDG_CACHE_HOME/lucid/kv` or `~/.cache/lucid/kv`: the computed system prompt and
    /// tools of earlier runs (bounded, safe to delete).
    fn prefix_cache_dir() -> Option<std::path::PathBuf> {
        let env = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty()).map(std::path::PathBuf::from);
        env("XDG_CACHE_HOME").or_else(|| env("HOME").map(|h| h.join(".cache"))).map(|c| c.join("lucid/kv"))
    }

    pub fn model(path: &str) -> lucid::Result<Arc<dyn ChatModel>> {
        Ok(Arc::new(loaded(path)?))
    }

    pub fn window(path: &str) -> Option<u32> {
        loaded(path).ok().map(|m| m.context_window())
    }
}

#[cfg(not(feature = "local"))]
mod engine {
    use std::sync::Arc;

    use lucid::model::ChatModel;

    pub fn model(_path: &str) -> lucid::Result<Arc<dyn ChatModel>> {
        Err(lucid::Error::Config("this lucid was built without the in-process model (cargo feature `local`)".into()))
    }

    pub fn window(_path: &str) -> Option<u32> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_comes_from_the_flag_the_model_prefix_or_the_local_provider_and_its_model() {
        let flag = ModelArgs { model_file: Some("a.gguf".into()), ..ModelArgs::default() };
        assert_eq!(wanted(&flag, None, None).unwrap(), Some(PathBuf::from("a.gguf")));
        let prefixed = ModelArgs { model: Some("local:/m/b.gguf".into()), ..ModelArgs::default() };
        assert_eq!(wanted(&prefixed, Some("openai"), None).unwrap(), Some(PathBuf::from("/m/b.gguf")));
        let none = ModelArgs::default();
        assert_eq!(wanted(&none, Some("local"), Some("/m/c.gguf".into())).unwrap(), Some(PathBuf::from("/m/c.gguf")));
        assert_eq!(wanted(&none, Some("openai"), Some("gpt".into())).unwrap(), None, "not asked for");
        assert!(wanted(&none, Some("local"), None).unwrap_err().contains("--model-file"));
    }
}
