//! Resolves flags, the configuration file and the environment into one [`ModelConfig`]
//! and one [`AgentSettings`]: the only place that reads the environment (flags first, then
//! the file's profile, then its top level, then the built-in defaults). Everything
//! downstream takes the resolved values.
//!
//! `file` reads the TOML file and lays the profile over it; `resolve` resolves the model
//! and `model` builds it (the one model factory, for every command); `error` is the error
//! of them all, so the file layer needs nothing else of `config`.

mod error;
pub mod file;
mod limits;
mod model;
mod record;
mod resolve;
mod starter;

use std::time::Duration;

pub use error::ConfigError;
pub use model::{LOCAL, ModelConfig};
pub use resolve::{resolve, resolve_named, resolve_with_source};

use crate::args::{AgentArgs, ToolDefaults};
use file::{FileConfig, Settings};

fn env(var: &str) -> Option<String> {
    std::env::var(var).ok().filter(|v| !v.trim().is_empty())
}

/// How long a tool call waits for approval unless the configuration says (a day, as in
/// `lucid serve`).
const DEFAULT_APPROVAL_TIMEOUT_SECS: u64 = 24 * 3600;

/// What an agent of `lucid run` or `lucid chat` gets, resolved.
#[derive(Debug, Clone)]
pub struct AgentSettings {
    pub system: Option<String>,
    pub tools: Vec<String>,
    pub max_iterations: usize,
    pub temperature: Option<f64>,
    pub max_tokens: Option<u32>,
    pub context_window: Option<u32>,
    /// `plan` of the configuration (the command's default applies when unset).
    pub plan: Option<crate::args::PlanMode>,
    pub store: Option<String>,
    pub permissions: std::collections::BTreeMap<String, lucid::tool::permission::Permission>,
    /// Rules by argument: the flags' (`--deny`, `--ask`, `--allow`), then the file's.
    pub rules: Vec<lucid::tool::permission::Rule>,
    /// Limits per run (flags over the file) and per session (the file).
    pub budget: lucid::agent::budget::Budget,
    /// How long a tool call waiting for approval stays answerable (`lucid run --session`,
    /// `lucid workflow run --session`).
    pub approval_timeout: Duration,
    /// Prices over the built-in table, by `provider:model` or `model`.
    pub prices: Vec<(String, lucid::model::prices::Price)>,
    pub shell_timeout: Duration,
    pub python: Option<String>,
    /// Variables passed to `shell` and `python` besides the allowlisted ones.
    pub tool_env: Vec<String>,
    /// `shell` and `python` get none of this process's environment (`lucid serve`).
    pub isolated_tool_env: bool,
    /// `shell` commands may reach the network.
    pub shell_network: bool,
    /// `skip_repeated_calls` of the configuration (unset: on for the in-process model).
    pub skip_repeated_calls: Option<bool>,
    pub db: Option<String>,
    /// The project `schema_history` keeps the database's versions under.
    pub db_project: Option<String>,
    pub writable_protected: Vec<String>,
    /// The folder the file tools, the shell and the test tools work in; `None`: the
    /// current directory (`lucid eval` gives each attempt at a case with a project its own).
    pub root: Option<std::path::PathBuf>,
    /// `[tests]`: the commands of `run_tests` and `coverage` (read by those tools only, which
    /// a build without `test-tools` leaves out).
    #[cfg_attr(not(feature = "test-tools"), allow(dead_code))]
    pub tests: file::TestsSection,
    /// `[memory]`, resolved.
    pub memory: MemorySettings,
}

/// `[memory]`, checked, with the seed's defaults for what it leaves out.
#[derive(Debug, Clone, PartialEq)]
pub struct MemorySettings {
    /// Summaries and recall on (the default).
    pub enabled: bool,
    /// The numbers.
    pub config: lucid::memory::MemoryConfig,
    /// Where embeddings come from.
    pub embeddings: Embeddings,
    /// The provider's embedding model, when not its usual one.
    pub embedding_model: Option<String>,
}

/// Where the memory's embeddings come from.
#[derive(Debug, Clone, PartialEq)]
pub enum Embeddings {
    /// The provider's embeddings endpoint, where it has one.
    Provider,
    /// None: the newest summaries are recalled.
    Off,
    /// A local sentence-transformers model in this folder.
    Local(String),
}

/// Resolves and checks `[memory]`.
pub fn memory_settings(section: Option<&file::MemorySection>) -> Result<MemorySettings, ConfigError> {
    let m = section.cloned().unwrap_or_default();
    let d = lucid::memory::MemoryConfig::default();
    let bad = |key: &str, want: &str| ConfigError(format!("[memory] {key} must be {want}"));
    let threshold = m.compression_threshold.unwrap_or(d.compression_threshold);
    if !(threshold > 0.0 && threshold <= 1.0) {
        return Err(bad("compression_threshold", "more than 0 and at most 1"));
    }
    let checked = |key: &str, v: Option<usize>, default: usize, min: usize| match v {
        Some(n) if n < min => Err(bad(key, &format!("at least {min}"))),
        v => Ok(v.unwrap_or(default)),
    };
    let config = lucid::memory::MemoryConfig {
        max_context_tokens: m.max_context_tokens.map(|n| checked("max_context_tokens", Some(n), n, 256)).transpose()?,
        compression_threshold: threshold,
        short_term_capacity: checked("short_term_capacity", m.short_term_capacity, d.short_term_capacity, 2)?,
        long_term_capacity: checked("long_term_capacity", m.long_term_capacity, d.long_term_capacity, 1)?,
        summary_target_tokens: checked("summary_target_tokens", m.summary_target_tokens, d.summary_target_tokens, 16)?,
        recall_top_k: m.recall_top_k.unwrap_or(d.recall_top_k),
        ..d
    };
    let embeddings = match m.embeddings.as_deref().map(str::trim) {
        None | Some("provider") => Embeddings::Provider,
        Some("off" | "none") => Embeddings::Off,
        Some("") => return Err(bad("embeddings", "\"provider\", \"off\" or a model folder")),
        Some(path) => Embeddings::Local(expand_home(path)),
    };
    Ok(MemorySettings { enabled: m.enabled.unwrap_or(true), config, embeddings, embedding_model: m.embedding_model })
}

/// Resolves the agent flags over the file (the `--store` flag already includes
/// `LUCID_STORE`). Without a tool list in either, the command's defaults apply (and the
/// SQL tools when a database is given); the built-in tools that write ask first unless the
/// file says otherwise.
pub fn agent_settings(args: &AgentArgs, file: &Settings, defaults: ToolDefaults) -> Result<AgentSettings, ConfigError> {
    let db = args.db.clone().or_else(|| file.db.clone()).map(|d| expand_home(&d));
    let tools = match args.tools.as_deref() {
        Some(list) if list.trim() == "none" => Vec::new(),
        Some(list) => list.split(',').map(str::trim).filter(|t| !t.is_empty()).map(str::to_string).collect(),
        None => file.tools.clone().unwrap_or_else(|| {
            let mut names: Vec<String> = defaults.names().map(str::to_string).collect();
            // A database given is a database to read.
            if db.is_some() {
                names.extend(["sql_query".to_string(), "sql_schema".to_string()]);
            }
            names
        }),
    };
    let mut permissions: std::collections::BTreeMap<_, _> = crate::catalogue::catalogue()
        .iter()
        .filter(|t| t.writes)
        .map(|t| (t.name.to_string(), lucid::tool::permission::Permission::Ask))
        .collect();
    permissions.extend(file.permissions.clone());
    let rules = limits::rules(&args.mcp, file.allow.as_ref(), file.ask.as_ref(), file.deny.as_ref())?;
    let run = limits::limits(
        args.limits.max_cost.or(file.max_cost),
        args.limits.max_model_calls.or(file.max_model_calls),
        args.limits.max_total_tokens.or(file.max_total_tokens),
        "",
    )?;
    let session =
        limits::limits(file.session_max_cost, file.session_max_model_calls, file.session_max_total_tokens, "session_")?;
    let budget = lucid::agent::budget::Budget::default().run(run).session(session);
    let prices = limits::prices(&file.prices)?;
    let temperature = args.temperature.or(file.temperature);
    if let Some(t) = temperature.filter(|t| !t.is_finite() || *t < 0.0) {
        return Err(ConfigError(format!("temperature {t} is not a number of 0 or more")));
    }
    let max_tokens = args.max_tokens.or(file.max_tokens);
    if max_tokens == Some(0) {
        return Err(ConfigError("max_tokens must be at least 1".into()));
    }
    Ok(AgentSettings {
        system: args.system.clone().or_else(|| file.system.clone()),
        tools,
        max_iterations: args.max_iterations.or(file.max_iterations).unwrap_or(10),
        temperature,
        max_tokens,
        context_window: args.context_window.or(file.context_window).filter(|n| *n > 0),
        plan: file.plan,
        store: args.store.store.clone().or_else(|| file.store.as_deref().map(expand_home)),
        permissions,
        rules,
        budget,
        approval_timeout: Duration::from_secs(file.approval_timeout_secs.unwrap_or(DEFAULT_APPROVAL_TIMEOUT_SECS)),
        prices,
        shell_timeout: Duration::from_secs(file.shell_timeout_secs.unwrap_or(60)),
        python: file.python.as_deref().map(expand_home),
        tool_env: file.tool_env.clone().unwrap_or_default(),
        isolated_tool_env: false,
        shell_network: file.shell_network.unwrap_or(false),
        skip_repeated_calls: file.skip_repeated_calls,
        db,
        db_project: file.db_project.clone(),
        writable_protected: file.writable_protected.clone().unwrap_or_default(),
        root: None,
        tests: file.tests.clone().unwrap_or_default(),
        memory: memory_settings(file.memory.as_ref())?,
    })
}

/// The window assumed when nothing says what it is: small enough for any local model.
pub const DEFAULT_CONTEXT_WINDOW: u32 = 8192;

/// The context window of the configured model, when the agent's own catalogue does not
/// know it: the setting, else what a local server says, else [`DEFAULT_CONTEXT_WINDOW`]
/// with a one-line notice. `None` when the catalogue knows it (the agent takes it from
/// there). The room kept for the answer is the agent's to decide (`max_tokens`, else a
/// quarter of the window; see `lucid::model::catalogue::request_budget`).
pub async fn context_window(cfg: &ModelConfig, settings: &AgentSettings) -> Option<u32> {
    if let Some(w) = settings.context_window {
        return Some(w);
    }
    if let Some(path) = &cfg.model_file
        && let Some(w) = crate::local::context_window(path)
    {
        return Some(w);
    }
    let catalogue = cfg.record.as_ref().map_or(cfg.provider.as_str(), |r| r.catalogue.as_str());
    if lucid::model::catalogue::lookup(catalogue, &cfg.model).is_some() {
        return None;
    }
    // A local or self-hosted server (a local preset, a provider of one's own unless it says
    // `local = false`, or a bare --base-url) knows its own.
    let local = cfg.record.as_ref().is_none_or(|p| p.is_local()) && cfg.model_file.is_none();
    if local && let Some(w) = lucid::model::probe::context_window(&cfg.base_url, &cfg.model).await {
        tracing::info!(model = %cfg.model, window = w, "the server says its context window");
        return Some(w);
    }
    let notice = format!(
        "the context window of `{}` is unknown; assuming {DEFAULT_CONTEXT_WINDOW} tokens \
         (set --context-window N or context_window in the configuration)",
        cfg.model
    );
    if std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        eprintln!("lucid: {notice}");
    } else {
        tracing::info!("{notice}");
    }
    Some(DEFAULT_CONTEXT_WINDOW)
}

impl AgentSettings {
    /// The options every call of the agent carries (temperature, answer length).
    pub fn chat_options(&self) -> lucid::model::ChatOptions {
        lucid::model::ChatOptions {
            temperature: self.temperature,
            max_tokens: self.max_tokens,
            ..lucid::model::ChatOptions::default()
        }
    }
}

/// Where local models come from and go: the Hugging Face cache (`HF_HUB_CACHE`, else
/// `HUGGINGFACE_HUB_CACHE`, else `$HF_HOME/hub`, else `$XDG_CACHE_HOME/huggingface/hub`,
/// else `~/.cache/huggingface/hub`, as `huggingface_hub` looks), the hub (`HF_ENDPOINT`,
/// `HF_TOKEN`), offline mode (`offline`, or `HF_HUB_OFFLINE` set to 1, true, yes or on) and
/// the download cap for a file of unannounced size (`LUCID_MODELS_MAX_DOWNLOAD`, 64 GiB).
pub fn hub(offline: bool) -> crate::models::Hub {
    let cache = env("HF_HUB_CACHE")
        .or_else(|| env("HUGGINGFACE_HUB_CACHE"))
        .map(|d| expand_home(&d))
        .or_else(|| env("HF_HOME").map(|h| format!("{}/hub", expand_home(&h))))
        .or_else(|| env("XDG_CACHE_HOME").map(|c| format!("{c}/huggingface/hub")))
        .unwrap_or_else(|| format!("{}/.cache/huggingface/hub", env("HOME").unwrap_or_else(|| ".".into())));
    let offline = offline
        || env("HF_HUB_OFFLINE")
            .is_some_and(|v| matches!(v.trim().to_ascii_lowercase().as_str(), "1" | "true" | "yes" | "on"));
    let token = env("HF_TOKEN");
    // Like a provider's key, the token never shows in a log line or an error.
    if let Some(t) = &token {
        lucid::redact::register(t);
    }
    crate::models::Hub {
        cache: crate::models::Cache::new(cache),
        endpoint: env("HF_ENDPOINT").unwrap_or_else(|| "https://huggingface.co".into()),
        token,
        offline,
        max_download: crate::models::max_download(env("LUCID_MODELS_MAX_DOWNLOAD").as_deref()),
    }
}

/// `~/x` with the home folder spelled out.
fn expand_home(path: &str) -> String {
    match (path.strip_prefix("~/"), env("HOME")) {
        (Some(rest), Some(home)) => format!("{home}/{rest}"),
        _ => path.to_string(),
    }
}

/// `LUCID_SERVE_API_KEYS` (`name:key,name:key`), for `lucid serve`; empty when unset.
#[cfg(feature = "server")]
pub fn serve_api_keys() -> String {
    env("LUCID_SERVE_API_KEYS").unwrap_or_default()
}

/// Where the `otel` feature exports spans: `OTEL_EXPORTER_OTLP_ENDPOINT` (none: no export),
/// `OTEL_EXPORTER_OTLP_PROTOCOL`, `OTEL_SERVICE_NAME`.
#[cfg(feature = "otel")]
pub struct OtelSettings {
    /// The collector's base URL (`/v1/traces` is added).
    pub endpoint: String,
    /// `http/protobuf` (the default) or `http/json`.
    pub protocol: Option<String>,
    /// The service name (default `lucid`).
    pub service: Option<String>,
}

/// The OpenTelemetry export settings of the environment, if an endpoint is set.
#[cfg(feature = "otel")]
pub fn otel() -> Option<OtelSettings> {
    let endpoint = env("OTEL_EXPORTER_OTLP_ENDPOINT").filter(|e| !e.trim().is_empty())?;
    Some(OtelSettings { endpoint, protocol: env("OTEL_EXPORTER_OTLP_PROTOCOL"), service: env("OTEL_SERVICE_NAME") })
}

/// Loads the configuration file the global flags name (or the default one).
pub fn load_file(explicit: Option<&std::path::Path>, profile: Option<&str>) -> Result<FileConfig, ConfigError> {
    let default = file::default_path(env("XDG_CONFIG_HOME").as_deref(), env("HOME").as_deref());
    file::load(explicit, default, profile)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_takes_the_seed_defaults_and_refuses_bad_numbers() {
        let m = memory_settings(None).unwrap();
        assert!(m.enabled);
        assert_eq!(m.config, lucid::memory::MemoryConfig::default());
        assert_eq!(m.embeddings, Embeddings::Provider);
        let section = |text: &str| toml::from_str::<file::MemorySection>(text).unwrap();
        let m = memory_settings(Some(&section("max_context_tokens = 8000\nrecall_top_k = 0\nembeddings = \"off\"")))
            .unwrap();
        assert_eq!((m.config.max_context_tokens, m.config.recall_top_k), (Some(8000), 0));
        assert_eq!(m.embeddings, Embeddings::Off);
        let m = memory_settings(Some(&section("embeddings = \"/models/minilm\""))).unwrap();
        assert_eq!(m.embeddings, Embeddings::Local("/models/minilm".into()));
        for (text, key) in [
            ("compression_threshold = 1.5", "compression_threshold"),
            ("compression_threshold = 0.0", "compression_threshold"),
            ("short_term_capacity = 1", "short_term_capacity"),
            ("long_term_capacity = 0", "long_term_capacity"),
            ("max_context_tokens = 10", "max_context_tokens"),
        ] {
            let err = memory_settings(Some(&section(text))).unwrap_err();
            assert!(err.0.contains(key), "{text}: {}", err.0);
        }
    }

    #[test]
    fn the_starter_files_rules_and_budgets_parse_once_uncommented() {
        let lines: Vec<String> = file::starter()
            .lines()
            .filter_map(|l| l.strip_prefix("# "))
            .filter(|l| {
                let keys =
                    ["allow =", "ask =", "deny =", "max_cost =", "max_model_calls =", "max_total_tokens =", "session_"];
                keys.iter().any(|k| l.starts_with(k))
            })
            .map(str::to_string)
            .collect();
        let s: Settings = toml::from_str(&lines.join("\n")).unwrap();
        assert_eq!(s.allow.as_deref().map(<[String]>::len), Some(3));
        assert_eq!((s.max_cost, s.max_model_calls, s.session_max_cost), (Some(0.5), Some(30), Some(5.0)));
        let settings = agent_settings(&AgentArgs::default(), &s, ToolDefaults::Run).unwrap();
        assert_eq!(settings.rules.len(), 6);
        assert_eq!(settings.rules[0].to_string(), "deny shell(rm *)");
    }
}
