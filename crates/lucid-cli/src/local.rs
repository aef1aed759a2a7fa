//! The in-process model (`lucid-local`, feature `local`): a GGUF file run by llama.cpp in
//! this process, named by `--model-file FILE.gguf`, `--model local:FILE.gguf`, or provider
//! `local` with the file as its model (flags or configuration: `provider = "local"`,
//! `model = "/path/to/file.gguf"`). One file is loaded once per process, however many
//! agents name it. The computed state of the fixed prompt prefix (system prompt and tools)
//! is kept in `~/.cache/lucid/kv` (or `$XDG_CACHE_HOME/lucid/kv`, at most 512 MiB, safe to
//! delete), so the next `lucid run` of the same agent loads it instead of computing it.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use lucid::model::ChatModel;

use crate::args::ModelArgs;
use crate::config::file::Settings;
use crate::config::{ConfigError, ModelConfig};

/// The provider name of the in-process model.
pub const PROVIDER: &str = "local";

/// The model file the flags and the configuration ask for, if they ask for the local
/// model; an error when they name provider `local` without a file.
pub fn wanted(args: &ModelArgs, file: &Settings) -> Result<Option<PathBuf>, ConfigError> {
    if let Some(path) = &args.model_file {
        return Ok(Some(path.clone()));
    }
    if let Some(path) = args.model.as_deref().and_then(|m| m.strip_prefix("local:")) {
        return Ok(Some(PathBuf::from(path)));
    }
    if args.provider.as_deref().or(file.provider.as_deref()) != Some(PROVIDER) {
        return Ok(None);
    }
    let section = file.providers.get(PROVIDER).and_then(|s| s.model.clone());
    match args.model.clone().or_else(|| file.model.clone()).or(section) {
        Some(m) if !m.is_empty() => Ok(Some(PathBuf::from(m))),
        _ => Err(ConfigError("provider `local` needs a model file: pass --model-file FILE.gguf".into())),
    }
}

/// The configuration of the local model at `path`, with the command line's transcript and
/// deadline settings (the model has no transport: retries do not apply).
pub fn config(path: PathBuf, args: &ModelArgs) -> ModelConfig {
    ModelConfig {
        provider: PROVIDER.to_string(),
        preset: None,
        model: path.to_string_lossy().into_owned(),
        base_url: String::new(),
        api: None,
        prompt_cache: true,
        api_key: None,
        transcript: args.transcript.clone(),
        max_retries: 0,
        timeout: Duration::from_secs(args.timeout.max(1)),
        deadline: args.deadline.map(|s| Duration::from_secs(s.max(1))),
        fallback: Vec::new(),
    }
}

/// The model of a local configuration, loaded on first use.
pub fn build(cfg: &ModelConfig) -> lucid::Result<Arc<dyn ChatModel>> {
    engine::model(&cfg.model)
}

/// The context window of a local configuration's model (its KV cache), once loaded.
pub fn context_window(cfg: &ModelConfig) -> Option<u32> {
    if cfg.provider != PROVIDER {
        return None;
    }
    engine::window(&cfg.model)
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

    fn settings(text: &str) -> Settings {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn the_file_comes_from_the_flag_the_model_prefix_or_the_configured_local_provider() {
        let none = settings("");
        let flag = ModelArgs { model_file: Some("a.gguf".into()), ..ModelArgs::default() };
        assert_eq!(wanted(&flag, &none).unwrap(), Some(PathBuf::from("a.gguf")));
        let prefixed = ModelArgs { model: Some("local:/m/b.gguf".into()), ..ModelArgs::default() };
        assert_eq!(wanted(&prefixed, &none).unwrap(), Some(PathBuf::from("/m/b.gguf")));
        let configured = settings("provider = \"local\"\nmodel = \"/m/c.gguf\"\n");
        assert_eq!(wanted(&ModelArgs::default(), &configured).unwrap(), Some(PathBuf::from("/m/c.gguf")));
        assert_eq!(wanted(&ModelArgs::default(), &none).unwrap(), None, "not asked for");
        let bare = ModelArgs { provider: Some("local".into()), ..ModelArgs::default() };
        assert!(wanted(&bare, &none).unwrap_err().0.contains("--model-file"));
        let cfg = config(PathBuf::from("/m/c.gguf"), &ModelArgs::default());
        assert_eq!((cfg.provider.as_str(), cfg.model.as_str()), ("local", "/m/c.gguf"));
    }
}
