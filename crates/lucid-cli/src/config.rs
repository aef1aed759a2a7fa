//! Resolves flags and environment into one [`ModelConfig`]: the only place that reads the
//! environment. Everything downstream takes the resolved values.

use std::path::PathBuf;
use std::time::Duration;

use lucid::model::Preset;

use crate::args::ModelArgs;

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

/// Resolves the model flags. Probing local servers is the only I/O.
pub async fn resolve(args: &ModelArgs) -> Result<ModelConfig, ConfigError> {
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
    let api_key = match (&args.api_key, key_vars) {
        (Some(k), _) => Some(k.clone()),
        (None, []) if preset.is_none() => env("OPENAI_API_KEY"),
        (None, []) => None,
        (None, vars) => Some(vars.iter().find_map(|v| env(v)).ok_or_else(|| {
            ConfigError(format!(
                "no API key for {provider}: set the environment variable {} (or pass --api-key)",
                vars.join(" or ")
            ))
        })?),
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
    Ok(ModelConfig {
        provider,
        preset,
        model,
        base_url,
        api_key,
        transcript: args.transcript.clone(),
        max_retries: args.max_retries,
        timeout: Duration::from_secs(args.timeout.max(1)),
    })
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
