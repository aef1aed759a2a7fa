//! Resolves flags, the configuration file and the environment into one [`ModelConfig`]
//! and one [`AgentSettings`]: the only place that reads the environment (flags first, then
//! the file's profile, then its top level, then the built-in defaults). Everything
//! downstream takes the resolved values.

use std::path::PathBuf;
use std::time::Duration;

use lucid::model::Preset;

use crate::args::{AgentArgs, ModelArgs};
use crate::settings::Settings;
use crate::tools::ToolDefaults;

/// A fully resolved model choice.
#[derive(Debug, Clone)]
pub struct ModelConfig {
    pub provider: String,
    pub preset: Option<&'static Preset>,
    pub model: String,
    pub base_url: String,
    pub api_key: Option<String>,
    pub transcript: Option<PathBuf>,
    pub max_retries: u32,
    pub timeout: Duration,
}

/// A configuration problem, shown to the user as is (exit code 2).
#[derive(Debug)]
pub struct ConfigError(pub String);

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConfigError {}

fn env(var: &str) -> Option<String> {
    std::env::var(var).ok().filter(|v| !v.trim().is_empty())
}

/// Where the resolved API key came from (a flag or an environment variable's name), for
/// `lucid config show`.
#[derive(Debug, Clone, Default)]
pub struct KeySource(pub Option<String>);

/// Resolves the model flags over the file's settings. Probing local servers is the only I/O.
pub async fn resolve(args: &ModelArgs, file: &Settings) -> Result<ModelConfig, ConfigError> {
    Ok(resolve_with_source(args, file).await?.0)
}

/// [`resolve`], also saying which environment variable the key came from.
pub async fn resolve_with_source(args: &ModelArgs, file: &Settings) -> Result<(ModelConfig, KeySource), ConfigError> {
    let merged = ModelArgs { provider: args.provider.clone().or_else(|| file.provider.clone()), ..args.clone() };
    let args = &merged;
    let provider_name = args.provider.clone();
    let section = provider_name.as_deref().and_then(|p| file.providers.get(p)).cloned().unwrap_or_default();
    // The top-level model and base URL belong to the top-level provider.
    let same_provider = file.provider.is_none() || file.provider == provider_name;
    let base_url_setting = args
        .base_url
        .clone()
        .or(section.base_url.clone())
        .or_else(|| if same_provider { file.base_url.clone() } else { None });
    let model_setting =
        args.model.clone().or_else(|| if same_provider { file.model.clone() } else { None }).or(section.model.clone());
    let args = &ModelArgs { base_url: base_url_setting, model: model_setting, ..args.clone() };
    let preset = match args.provider.as_deref() {
        Some(name) => Some(Preset::find(name).ok_or_else(|| {
            ConfigError(format!(
                "unknown provider `{name}`. Known providers: {}.",
                Preset::all().iter().map(|p| p.name).collect::<Vec<_>>().join(", ")
            ))
        })?),
        None if args.base_url.is_some() => None,
        None => Some(detect().await.ok_or_else(no_provider_message)?),
    };
    let (provider, base_url, key_vars) = match preset {
        Some(p) => (p.name.to_string(), args.base_url.clone().unwrap_or_else(|| p.base_url.to_string()), p.key_vars),
        None => ("openai".to_string(), args.base_url.clone().unwrap_or_default(), &[][..]),
    };
    let custom_var: Vec<&str> = section.key_env.as_deref().into_iter().collect();
    let key_vars: &[&str] = if custom_var.is_empty() { key_vars } else { &custom_var };
    let mut source = KeySource(None);
    let api_key = match (&args.api_key, key_vars) {
        (Some(k), _) => {
            source.0 = Some("--api-key".into());
            Some(k.clone())
        }
        (None, []) if preset.is_none() => {
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
    let model = match &args.model {
        Some(m) => m.clone(),
        None => match preset {
            Some(p) if p.is_local() => local_model(&base_url).await.unwrap_or_else(|| p.default_model.to_string()),
            Some(p) => p.default_model.to_string(),
            None => local_model(&base_url).await.unwrap_or_default(),
        },
    };
    if model.is_empty() {
        return Err(ConfigError(format!(
            "no model given for {provider}: pass --model NAME (the name the server serves)"
        )));
    }
    let cfg = ModelConfig {
        provider,
        preset,
        model,
        base_url,
        api_key,
        transcript: args.transcript.clone(),
        max_retries: args.max_retries,
        timeout: Duration::from_secs(args.timeout.max(1)),
    };
    Ok((cfg, source))
}

/// What an agent of `lucid run` or `lucid chat` gets, resolved.
#[derive(Debug, Clone)]
pub struct AgentSettings {
    pub system: Option<String>,
    pub tools: Vec<String>,
    pub max_iterations: usize,
    pub store: Option<String>,
    pub permissions: std::collections::BTreeMap<String, lucid::tool::permission::Permission>,
    pub shell_timeout: Duration,
}

/// Resolves the agent flags over the file (the `--store` flag already includes
/// `LUCID_STORE`). Without a tool list in either, the command's defaults apply; the
/// built-in tools that write ask first unless the file says otherwise.
pub fn agent_settings(args: &AgentArgs, file: &Settings, defaults: ToolDefaults) -> AgentSettings {
    let tools = match args.tools.as_deref() {
        Some(list) if list.trim() == "none" => Vec::new(),
        Some(list) => list.split(',').map(str::trim).filter(|t| !t.is_empty()).map(str::to_string).collect(),
        None => file.tools.clone().unwrap_or_else(|| defaults.names().map(str::to_string).collect()),
    };
    let mut permissions: std::collections::BTreeMap<_, _> = lucid::tool::builtin::CATALOGUE
        .iter()
        .filter(|t| t.writes)
        .map(|t| (t.name.to_string(), lucid::tool::permission::Permission::Ask))
        .collect();
    permissions.extend(file.permissions.clone());
    AgentSettings {
        system: args.system.clone().or_else(|| file.system.clone()),
        tools,
        max_iterations: args.max_iterations.or(file.max_iterations).unwrap_or(10),
        store: args.store.store.clone().or_else(|| file.store.as_deref().map(expand_home)),
        permissions,
        shell_timeout: Duration::from_secs(file.shell_timeout_secs.unwrap_or(60)),
    }
}

/// `~/x` with the home folder spelled out.
fn expand_home(path: &str) -> String {
    match (path.strip_prefix("~/"), env("HOME")) {
        (Some(rest), Some(home)) => format!("{home}/{rest}"),
        _ => path.to_string(),
    }
}

/// Loads the configuration file the global flags name (or the default one).
pub fn load_file(
    explicit: Option<&std::path::Path>,
    profile: Option<&str>,
) -> Result<crate::settings::FileConfig, ConfigError> {
    let default = crate::settings::default_path(env("XDG_CONFIG_HOME").as_deref(), env("HOME").as_deref());
    crate::settings::load(explicit, default, profile)
}

/// The first provider whose key is set, else a local server that answers.
async fn detect() -> Option<&'static Preset> {
    if let Some(p) = Preset::all().iter().find(|p| p.key_vars.iter().any(|v| env(v).is_some())) {
        return Some(p);
    }
    for name in ["ollama", "llamacpp"] {
        let p = Preset::find(name)?;
        if local_model(p.base_url).await.is_some() {
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
    reqwest::Client::builder().timeout(Duration::from_millis(500)).build().ok()
}

fn no_provider_message() -> ConfigError {
    let mut s = String::from("no model provider found.\n\nSet the API key of a hosted provider:\n");
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
