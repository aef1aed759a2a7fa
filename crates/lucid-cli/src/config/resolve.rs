//! The model flags laid over the file and the environment become one [`ModelConfig`]:
//! the provider named, or the first whose key is set, or a local server that answers, or
//! (with the `local` feature) the in-process engine with its model found or downloaded;
//! a workflow agent's `provider:model` resolved the same way without I/O.

use std::path::PathBuf;
use std::time::Duration;

use lucid::model::presets::Hosting;
use lucid::model::{Api, Preset};

use super::env;
use super::error::ConfigError;
use super::file::Settings;
use super::model::{KeySource, LOCAL, ModelConfig};
use crate::args::ModelArgs;

/// Resolves the model flags over the file's settings: probes local servers, and for
/// provider `local` finds its file in the cache or downloads it (the default model, when
/// nothing else was there, with one line on how to use a hosted provider instead).
pub async fn resolve(args: &ModelArgs, file: &Settings) -> anyhow::Result<ModelConfig> {
    let (mut cfg, _, defaulted) = resolve_inner(args, file).await?;
    if cfg.record.is_some() || cfg.model_file.is_some() {
        return Ok(cfg);
    }
    // A CPU without the instructions llama.cpp was compiled for: say so before downloading.
    if let Some(why) = crate::local::unsupported_cpu() {
        if defaulted {
            return Err(no_provider(&format!(
                "no model provider found, and the in-process model cannot run here: {why}."
            ))
            .into());
        }
        anyhow::bail!("the local model {} cannot run: {why}: {}", cfg.model, crate::local::ELSEWHERE);
    }
    let hub = super::hub(cfg.offline);
    if defaulted {
        let cached = crate::models::ModelRef::parse(&cfg.model).ok().and_then(|m| hub.cache.find(&m)).is_some();
        if !cached || std::io::IsTerminal::is_terminal(&std::io::stderr()) {
            eprintln!(
                "lucid: no API key or local model server found, so the model runs in-process ({}); to use a hosted \
                 provider instead, set its key (e.g. export OPENAI_API_KEY=..., `lucid providers` lists them)",
                cfg.model
            );
        }
        let path = hub.locate(&cfg.model).await.map_err(|e| {
            no_provider(&format!(
                "no model provider found, and the default local model {} is neither cached nor downloadable: {e:#}.",
                cfg.model
            ))
        })?;
        cfg.model_file = Some(path);
    } else {
        cfg.model_file = Some(hub.locate(&cfg.model).await?);
    }
    Ok(cfg)
}

/// [`resolve`] without looking for the local model's file, also saying which environment
/// variable the key came from (for `lucid config show`).
pub async fn resolve_with_source(args: &ModelArgs, file: &Settings) -> Result<(ModelConfig, KeySource), ConfigError> {
    resolve_inner(args, file).await.map(|(cfg, source, _)| (cfg, source))
}

/// The resolution, and whether provider `local` was taken because nothing else was there.
async fn resolve_inner(args: &ModelArgs, file: &Settings) -> Result<(ModelConfig, KeySource, bool), ConfigError> {
    let wanted = Wanted::new(args, file);
    let mut defaulted = false;
    let preset = match wanted.provider.as_deref() {
        Some(name) => wanted.preset_or_own(name)?,
        None if wanted.base_url.is_some() => None,
        None => match detect().await {
            Some(p) => Some(p),
            None if cfg!(feature = "local") => {
                defaulted = true;
                None
            }
            None => return Err(no_provider("no model provider found.")),
        },
    };
    let wanted = if defaulted { Wanted { provider: Some(LOCAL.into()), ..wanted } } else { wanted };
    let base_url = wanted.base_url_for(preset);
    let specs =
        if args.fallback.is_empty() { file.fallback.clone().unwrap_or_default() } else { args.fallback.clone() };
    let model = match &wanted.model {
        Some(m) => m.clone(),
        None if wanted.is_local(preset) => wanted.local_model(),
        None => match preset {
            Some(p) if p.is_local() => local_model(&base_url).await.unwrap_or_else(|| p.default_model.to_string()),
            Some(p) => p.default_model.to_string(),
            None => local_model(&base_url).await.unwrap_or_default(),
        },
    };
    let (mut cfg, source) = wanted.finish(preset, base_url, model)?;
    for spec in specs {
        let backup = resolve_named(&spec, args, file)
            .map_err(|ConfigError(e)| ConfigError(format!("the backup model `{spec}` (fallback): {e}")))?;
        cfg.fallback.push(backup);
    }
    Ok((cfg, source, defaulted))
}

/// The model a workflow agent names, `provider:model` (or `provider` for its default
/// model), resolved as `--provider provider --model model` would be over the same file,
/// with the command line's transcript, retries, timeout and offline mode (its base URL,
/// key and model file are for the default model). Without I/O: a local server is not
/// asked which model it serves, and a local model's file is looked for by `build`.
pub fn resolve_named(spec: &str, args: &ModelArgs, file: &Settings) -> Result<ModelConfig, ConfigError> {
    let (provider, model) = spec.split_once(':').unwrap_or((spec, ""));
    let args = ModelArgs {
        provider: Some(provider.to_string()),
        model: Some(model.to_string()).filter(|m| !m.is_empty()),
        base_url: None,
        api_key: None,
        model_file: None,
        ..args.clone()
    };
    let wanted = Wanted::new(&args, file);
    let preset = wanted.preset_or_own(provider)?;
    let model = match &wanted.model {
        Some(m) => m.clone(),
        None if wanted.is_local(preset) => wanted.local_model(),
        None => preset.map(|p| p.default_model.to_string()).unwrap_or_default(),
    };
    Ok(wanted.finish(preset, wanted.base_url_for(preset), model)?.0)
}

/// The model flags laid over the file: what was asked for, before presets and the
/// environment fill in the rest.
struct Wanted<'a> {
    args: &'a ModelArgs,
    provider: Option<String>,
    base_url: Option<String>,
    model: Option<String>,
    api: Option<String>,
    cache: Option<String>,
    accepts: Option<String>,
    /// The file has a `[providers.NAME]` section for this provider.
    own_provider: bool,
    /// That section (empty without one): the fields of the provider's record.
    section: super::file::ProviderSection,
    /// `--model-file`, else `model_file` of the file (provider `local`).
    model_file: Option<PathBuf>,
}

impl<'a> Wanted<'a> {
    fn new(args: &'a ModelArgs, file: &Settings) -> Self {
        let model_file = args
            .model_file
            .clone()
            .or_else(|| file.model_file.as_deref().map(|f| PathBuf::from(super::expand_home(f))));
        // `--model local:NAME` (or `model = "local:NAME"` with no provider, as `lucid serve`'s
        // agents may say) and `--model-file FILE` choose the local engine by themselves.
        let named = match (&args.model, &file.provider) {
            (Some(m), _) => Some(m.as_str()),
            (None, None) => file.model.as_deref(),
            (None, Some(_)) => None,
        };
        let local_model = named.and_then(|m| m.strip_prefix("local:")).filter(|_| args.provider.is_none());
        let provider = args
            .provider
            .clone()
            .or_else(|| (local_model.is_some() || args.model_file.is_some()).then(|| LOCAL.to_string()))
            .or_else(|| file.provider.clone())
            .or_else(|| model_file.is_some().then(|| LOCAL.to_string()));
        let own = provider.as_deref().and_then(|p| file.providers.get(p));
        let own_provider = own.is_some();
        let section = own.cloned().unwrap_or_default();
        let fields = section.clone();
        // The top-level model and base URL belong to the top-level provider.
        let same_provider = file.provider.is_none() || file.provider == provider;
        let base_url = args
            .base_url
            .clone()
            .or(section.base_url)
            .or_else(|| if same_provider { file.base_url.clone() } else { None });
        let model = local_model
            .map(str::to_string)
            .or_else(|| args.model.clone())
            .or_else(|| if same_provider { file.model.clone() } else { None })
            .or(section.model)
            // `--provider local --model local:NAME` says the same thing twice.
            .map(|m| match m.strip_prefix("local:") {
                Some(name) if provider.as_deref() == Some(LOCAL) => name.to_string(),
                _ => m,
            });
        let api = args.api.clone().or(section.api).or_else(|| if same_provider { file.api.clone() } else { None });
        let cache = section.cache.or_else(|| file.cache.clone());
        let accepts = section.accepts.or_else(|| if same_provider { file.accepts.clone() } else { None });
        Wanted { args, provider, base_url, model, api, cache, accepts, own_provider, section: fields, model_file }
    }

    /// Whether this is provider `local` (the engine, not a record).
    fn is_local(&self, preset: Option<&Preset>) -> bool {
        preset.is_none() && self.provider.as_deref() == Some(LOCAL)
    }

    /// The local model when none is named: the file's path, else the default model.
    fn local_model(&self) -> String {
        self.model_file.as_ref().map_or_else(|| crate::models::DEFAULT_MODEL.to_string(), |f| f.display().to_string())
    }

    /// The record of provider `name`, or none for a provider of the user's own: a
    /// `[providers.NAME]` section with a base URL that no record has (any
    /// OpenAI-compatible server, under its own name).
    fn preset_or_own(&self, name: &str) -> Result<Option<&'static Preset>, ConfigError> {
        match Preset::find(name) {
            Some(p) => Ok(Some(p)),
            None if name == LOCAL => Ok(None),
            None if self.own_provider && self.base_url.is_some() => Ok(None),
            None => find_preset(name).map(Some),
        }
    }

    fn base_url_for(&self, preset: Option<&Preset>) -> String {
        match (&self.base_url, preset) {
            (Some(u), _) => u.clone(),
            (None, Some(p)) => p.base_url.to_string(),
            (None, None) => String::new(),
        }
    }

    /// The configuration, once the preset, base URL and model are known: the key from
    /// the flag or the environment.
    fn finish(
        &self,
        preset: Option<&'static Preset>,
        base_url: String,
        model: String,
    ) -> Result<(ModelConfig, KeySource), ConfigError> {
        let local = self.is_local(preset);
        let provider = match (preset, &self.provider) {
            (Some(p), _) => p.name.clone(),
            (None, _) if local => LOCAL.to_string(),
            (None, Some(own)) if self.own_provider => own.clone(),
            (None, _) => "openai".to_string(),
        };
        // The record the client will carry: the section's fields over the preset's, or over
        // any compatible server's for a provider of one's own (a bare base URL has none).
        let record = match preset {
            _ if local => None,
            Some(p) => Some(super::record::record(&provider, Some(p), &self.section)?),
            None => Some(super::record::record(&provider, None, &self.section)?),
        };
        let key_vars: Vec<&str> = match &record {
            Some(r) if preset.is_some() || self.own_provider => r.key_vars.iter().map(String::as_str).collect(),
            _ => Vec::new(),
        };
        let key_vars = key_vars.as_slice();
        let mut source = KeySource(None);
        let api_key = match (&self.args.api_key, key_vars) {
            (Some(k), _) => {
                source.0 = Some("--api-key".into());
                Some(k.clone())
            }
            // A bare --base-url is taken for an OpenAI-compatible endpoint; a provider of
            // the user's own gets only the key its section names (key_env).
            (None, []) if preset.is_none() && !self.own_provider && !local => {
                source.0 = env("OPENAI_API_KEY").map(|_| "OPENAI_API_KEY".to_string());
                env("OPENAI_API_KEY")
            }
            (None, []) => None,
            (None, vars) => {
                let found = vars.iter().find_map(|v| env(v).map(|k| (v.to_string(), k))).ok_or_else(|| {
                    ConfigError(format!(
                        "no API key for {provider}: set the environment variable {} (or pass --api-key)",
                        vars.join(" or ")
                    ))
                })?;
                source.0 = Some(found.0);
                Some(found.1)
            }
        };
        if model.is_empty() {
            return Err(ConfigError(format!(
                "no model given for {provider}: pass --model NAME (the name the server serves)"
            )));
        }
        let api = match self.api.as_deref() {
            Some(a) => Some(a.parse::<Api>().map_err(|e| ConfigError(e.to_string()))?),
            None => None,
        };
        if let (Some(r), Some(a)) = (&record, api) {
            r.with_api(a).map_err(|e| ConfigError(e.to_string()))?;
        }
        let prompt_cache = match self.cache.as_deref() {
            None | Some("on") => true,
            Some("off") => false,
            Some(other) => return Err(ConfigError(format!("cache = \"{other}\": use \"on\" or \"off\""))),
        };
        let accepts = match self.accepts.as_deref() {
            None => None,
            Some(a) => Some(
                lucid::model::catalogue::Capabilities::parse(a)
                    .map_err(|e| ConfigError(format!("accepts = \"{a}\": {e}")))?,
            ),
        };
        let cfg = ModelConfig {
            provider,
            record,
            model,
            base_url,
            api,
            prompt_cache,
            accepts,
            api_key,
            transcript: self.args.transcript.clone(),
            max_retries: self.args.max_retries,
            timeout: Duration::from_secs(self.args.timeout.max(1)),
            deadline: self.args.deadline.map(|s| Duration::from_secs(s.max(1))),
            fallback: Vec::new(),
            // A model named besides the file is a name for the file, not another model.
            model_file: if local { self.model_file.clone() } else { None },
            offline: self.args.offline,
        };
        Ok((cfg, source))
    }
}

fn find_preset(name: &str) -> Result<&'static Preset, ConfigError> {
    Preset::find(name).ok_or_else(|| {
        ConfigError(format!(
            "unknown provider `{name}`. Known providers: {}.",
            Preset::all().iter().map(|p| p.name.as_str()).collect::<Vec<_>>().join(", ")
        ))
    })
}

/// The first provider whose key is set, else a local server that answers.
async fn detect() -> Option<&'static Preset> {
    if let Some(p) = Preset::all().iter().find(|p| p.key_vars.iter().any(|v| env(v).is_some())) {
        return Some(p);
    }
    for p in Preset::all().iter().filter(|p| p.hosting == (Hosting::Local { detect: true })) {
        if local_model(&p.base_url).await.is_some() {
            return Some(p);
        }
    }
    None
}

/// The first model a local server lists at `/models`, if it answers within half a second.
async fn local_model(base_url: &str) -> Option<String> {
    let client = reqwest_client()?;
    let url = format!("{}/models", base_url.trim_end_matches('/'));
    let body: serde_json::Value = client.get(url).send().await.ok()?.error_for_status().ok()?.json().await.ok()?;
    body["data"][0]["id"].as_str().map(str::to_string).or(Some(String::new())).filter(|s| !s.is_empty())
}

fn reqwest_client() -> Option<reqwest::Client> {
    lucid::model::http::reqwest_client_builder().timeout(Duration::from_millis(500)).build().ok()
}

/// `head`, then what to do: a key to set, a local server to start.
fn no_provider(head: &str) -> ConfigError {
    let mut s = format!("{head}\n\nSet the API key of a hosted provider:\n");
    for p in Preset::all().iter().filter(|p| !p.key_vars.is_empty()) {
        s.push_str(&format!(
            "  export {:<26} # {} (default model {})\n",
            format!("{}=...", p.key_vars.join("=... or ")),
            p.name,
            p.default_model
        ));
    }
    s.push_str(
        "\nor start a local server: Ollama (127.0.0.1:11434) and llama.cpp's llama-server (127.0.0.1:8080)\n\
         are found automatically, and any OpenAI-compatible server works with\n  \
         lucid run --base-url http://HOST:PORT/v1 --model NAME \"your task\"\n\n\
         `lucid providers` lists every provider.",
    );
    ConfigError(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(text: &str) -> Settings {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn a_named_model_is_resolved_like_provider_and_model_flags_with_the_command_lines_transport() {
        let args = ModelArgs {
            base_url: Some("http://for-the-default-model/v1".into()),
            api_key: Some("default-key".into()),
            transcript: Some("t.jsonl".into()),
            max_retries: 0,
            timeout: 7,
            ..ModelArgs::default()
        };
        let settings = file(
            r#"
            provider = "vllm"
            base_url = "http://top-level/v1"
            [providers.ollama]
            base_url = "http://configured/v1"
            model = "qwen3"
            "#,
        );
        let cfg = resolve_named("ollama:llama3.2:3b", &args, &settings).unwrap();
        assert_eq!((cfg.provider.as_str(), cfg.model.as_str()), ("ollama", "llama3.2:3b"));
        assert_eq!(cfg.base_url, "http://configured/v1", "[providers.ollama], not the command line's");
        assert_eq!(cfg.api_key, None, "the command line's key is the default model's");
        assert_eq!(cfg.transcript, Some(PathBuf::from("t.jsonl")));
        assert_eq!((cfg.max_retries, cfg.timeout), (0, Duration::from_secs(7)));
        assert_eq!(resolve_named("ollama", &args, &settings).unwrap().model, "qwen3", "the section's model");
        let top = resolve_named("vllm:m", &args, &settings).unwrap();
        assert_eq!(top.base_url, "http://top-level/v1", "the top-level base URL belongs to the top-level provider");
        let llamacpp = resolve_named("llamacpp:m", &args, &settings).unwrap();
        assert_eq!(llamacpp.base_url, Preset::find("llamacpp").unwrap().base_url);
        assert!(resolve_named("nope:m", &args, &settings).unwrap_err().0.contains("unknown provider `nope`"));
    }

    #[test]
    fn local_names_choose_the_in_process_engine_and_its_model() {
        let args = ModelArgs::default();
        let cfg = resolve_named("local", &args, &Settings::default()).unwrap();
        assert_eq!((cfg.provider.as_str(), cfg.model.as_str()), (LOCAL, crate::models::DEFAULT_MODEL));
        assert!(cfg.record.is_none() && cfg.api_key.is_none() && cfg.model_file.is_none());
        let cfg = resolve_named("local:org/repo:Q8_0", &args, &Settings::default()).unwrap();
        assert_eq!(cfg.model, "org/repo:Q8_0");
        let twice = ModelArgs { provider: Some(LOCAL.into()), model: Some("local:org/repo".into()), ..args.clone() };
        assert_eq!(Wanted::new(&twice, &Settings::default()).model.as_deref(), Some("org/repo"));
        let file_model = Wanted::new(&args, &file("model = \"local:org/repo\"\n"));
        assert_eq!((file_model.provider.as_deref(), file_model.model.as_deref()), (Some(LOCAL), Some("org/repo")));
        let other = Wanted::new(&args, &file("provider = \"openai\"\nmodel = \"local:x\"\n"));
        assert_eq!(other.provider.as_deref(), Some("openai"), "a provider given is kept");
        let with_file = ModelArgs { model_file: Some("/m/x.gguf".into()), ..ModelArgs::default() };
        let wanted = Wanted::new(&with_file, &Settings::default());
        assert_eq!(wanted.provider.as_deref(), Some(LOCAL));
        let (cfg, _) = wanted.finish(None, String::new(), wanted.local_model()).unwrap();
        assert_eq!((cfg.model.as_str(), cfg.model_file), ("/m/x.gguf", Some(PathBuf::from("/m/x.gguf"))));
        let backup = resolve_named("local:org/repo:Q8_0", &with_file, &Settings::default()).unwrap();
        assert_eq!((backup.model.as_str(), backup.model_file), ("org/repo:Q8_0", None), "the file is the default's");
    }

    #[test]
    fn a_provider_of_ones_own_is_a_section_with_a_base_url() {
        let settings = file(
            r#"
            [providers.acme]
            base_url = "http://127.0.0.1:9/v1"
            model = "acme-1"
            [providers.keyed]
            base_url = "http://127.0.0.1:9/v1"
            key_env = "LUCID_TEST_KEYED_KEY_UNSET"
            model = "k-1"
            [providers.nameless]
            model = "x"
            "#,
        );
        let args = ModelArgs::default();
        let cfg = resolve_named("acme", &args, &settings).unwrap();
        assert_eq!(
            (cfg.provider.as_str(), cfg.model.as_str(), cfg.base_url.as_str()),
            ("acme", "acme-1", "http://127.0.0.1:9/v1")
        );
        assert!(Preset::find("acme").is_none());
        assert_eq!(cfg.record.as_ref().map(|r| r.name.as_str()), Some("acme"), "a record of its own, no preset's");
        assert_eq!(cfg.api_key, None, "never OPENAI_API_KEY for a provider of one's own");
        let model = cfg.build().unwrap();
        assert_eq!((model.provider(), model.model_name()), ("acme", "acme-1"), "its own name in logs and errors");
        assert_eq!(model.record().map(|r| r.telemetry_name.as_str()), Some("acme"), "the client carries it");
        let err = resolve_named("keyed", &args, &settings).unwrap_err().0;
        assert!(err.contains("no API key for keyed: set the environment variable LUCID_TEST_KEYED_KEY_UNSET"), "{err}");
        let err = resolve_named("nameless", &args, &settings).unwrap_err().0;
        assert!(err.contains("unknown provider `nameless`"), "no base URL, no provider: {err}");
    }
}
