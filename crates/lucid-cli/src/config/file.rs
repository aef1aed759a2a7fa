//! The configuration file: `$XDG_CONFIG_HOME/lucid/config.toml` (or `--config PATH`),
//! with named profiles (`--profile NAME`). It never holds keys: it names the environment
//! variable a key comes from.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use lucid::tool::permission::Permission;
use serde::Deserialize;

use super::error::ConfigError;
pub use super::starter::starter;

/// Settings from the file (the top level, or a profile laid over it).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// Default provider.
    pub provider: Option<String>,
    /// Default model.
    pub model: Option<String>,
    /// A GGUF file for the local engine (provider `local`), used as it is.
    pub model_file: Option<String>,
    /// Base URL for the provider.
    pub base_url: Option<String>,
    /// `chat` or `responses`: which OpenAI API the provider speaks.
    pub api: Option<String>,
    /// `on` (default) or `off`: prompt-cache breakpoints (Anthropic `cache_control`).
    pub cache: Option<String>,
    /// What the model takes besides text, for one the catalogue does not know:
    /// `"image,pdf,audio"`, `"all"`, `"text"`.
    pub accepts: Option<String>,
    /// System prompt.
    pub system: Option<String>,
    /// Enabled tools.
    pub tools: Option<Vec<String>>,
    /// Session store (SQLite path or postgres:// URL).
    pub store: Option<String>,
    /// Most model calls per turn.
    pub max_iterations: Option<usize>,
    /// Sampling temperature of every call.
    pub temperature: Option<f64>,
    /// The most tokens one answer may have.
    pub max_tokens: Option<u32>,
    /// The model's context window in tokens.
    pub context_window: Option<u32>,
    /// Whether tasks are planned first: auto, always, never (run's default: never;
    /// chat's: auto).
    pub plan: Option<crate::args::PlanMode>,
    /// Seconds the shell tool may run a command.
    pub shell_timeout_secs: Option<u64>,
    /// The database of the SQL tools (a SQLite file or a postgres:// URL).
    pub db: Option<String>,
    /// The project `schema_history` files the database's schema versions under (default:
    /// the database's path, or its URL without credentials).
    pub db_project: Option<String>,
    /// The interpreter of the `python` tool (a name on `PATH`, or a path; default `python3`).
    pub python: Option<String>,
    /// Variables of lucid's environment `shell` and `python` get besides the allowlisted
    /// ones (`PATH`, `HOME`, `LANG`, `LC_*`, `TERM`, `TZ`, `USER`, …); never an API key.
    /// `lucid serve` passes none of its environment whatever this says.
    pub tool_env: Option<Vec<String>>,
    /// `shell` commands may reach the network (default: no network but loopback).
    pub shell_network: Option<bool>,
    /// A tool call that asks again what the conversation already answers (the same call,
    /// or an earlier result as its arguments) is not run, and the next step offers text
    /// only (`lucid::hooks::RepeatedCalls`). Default: on for the in-process model, off for
    /// the others.
    pub skip_repeated_calls: Option<bool>,
    /// Protected paths the file tools may write all the same (`".env*"`…; see
    /// `lucid_tools::PROTECTED`).
    pub writable_protected: Option<Vec<String>>,
    /// Backup models, `provider:model`, tried in order when a call fails for a reason worth
    /// switching for (`--fallback` replaces the list; `[]` turns it off for an agent).
    pub fallback: Option<Vec<String>>,
    /// The most a run may cost in US dollars (`--max-cost`).
    pub max_cost: Option<f64>,
    /// The most model calls a run may make (`--max-model-calls`).
    pub max_model_calls: Option<u64>,
    /// The most tokens a run may use (`--max-total-tokens`).
    pub max_total_tokens: Option<u64>,
    /// Seconds a tool call of `lucid run`/`lucid workflow run` may wait for approval
    /// (`--approval-timeout`).
    pub approval_timeout_secs: Option<u64>,
    /// The most a session may cost over all its turns, in US dollars.
    pub session_max_cost: Option<f64>,
    /// The most model calls a session may make over all its turns.
    pub session_max_model_calls: Option<u64>,
    /// The most tokens a session may use over all its turns.
    pub session_max_total_tokens: Option<u64>,
    /// `[prices."provider:model"]` (or `[prices.model]`, any provider): US dollars per
    /// million tokens, over the built-in table.
    #[serde(default)]
    pub prices: BTreeMap<String, super::limits::PriceSection>,
    /// Per-tool permissions: what a call no rule matches gets.
    #[serde(default)]
    pub permissions: BTreeMap<String, Permission>,
    /// Permission rules by argument that allow (`"shell(cargo test*)"`, `"write_file(src/**)"`;
    /// see `lucid::tool::permission::rules`), after `--allow`.
    pub allow: Option<Vec<String>>,
    /// Rules that ask first (`"shell(git push:*)"`), after `--ask`.
    pub ask: Option<Vec<String>>,
    /// Rules that refuse (`"shell(rm *)"`, `"sql_query(write, ddl)"`), after `--deny`.
    pub deny: Option<Vec<String>>,
    /// Per-provider base URL, key variable and model.
    #[serde(default)]
    pub providers: BTreeMap<String, ProviderSection>,
    /// Named profiles, laid over the top level.
    #[serde(default)]
    pub profiles: BTreeMap<String, Settings>,
    /// `[memory]`: the layered memory of chat and stored sessions.
    pub memory: Option<MemorySection>,
    /// MCP servers: `[mcp.servers.NAME]` (read by `crate::mcp`).
    #[serde(default)]
    pub mcp: Option<toml::Table>,
    /// The agents `lucid serve` serves besides `default` (the top level): `[agents.NAME]`,
    /// each laid over the top level (see [`agents`]).
    #[serde(default)]
    pub agents: BTreeMap<String, Settings>,
    /// `[serve]`: the HTTP edge of `lucid serve`.
    pub serve: Option<ServeSection>,
    /// `[tests]`: the commands of `run_tests` and `coverage`.
    pub tests: Option<TestsSection>,
    /// What `lucid serve`'s OpenAI facade does with a client's system message: `append`
    /// (default: after this agent's `system`), `replace` or `refuse` (400).
    pub client_system: Option<String>,
}

/// `[serve]`: the HTTP edge of `lucid serve`; its flags override each setting (origins
/// add up).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServeSection {
    /// Origins whose web pages may use the API (`--allow-origin`).
    #[serde(default)]
    pub allow_origins: Vec<String>,
    /// Seconds a connection may take to send a request head (`--header-timeout`).
    pub header_timeout_secs: Option<u64>,
    /// Seconds a request's body may take to arrive (`--body-timeout`).
    pub body_timeout_secs: Option<u64>,
    /// Connections served at once (`--max-connections`).
    pub max_connections: Option<u64>,
    /// The largest request body in MiB, 1 to 64 (`--max-body-mib`).
    pub max_body_mib: Option<u64>,
    /// Seconds a tool call waits for approval before it is denied (`--approval-timeout`).
    pub approval_timeout_secs: Option<u64>,
    /// Store a `/v1/responses` request silent on `store`, as OpenAI does (`--responses-store`).
    pub responses_store: Option<bool>,
    /// The most one tenant may spend per day (UTC), in US dollars; then 429.
    pub tenant_daily_max_cost: Option<f64>,
    /// The most tokens one tenant may use per day (UTC); then 429.
    pub tenant_daily_max_tokens: Option<u64>,
    /// The most model calls one tenant may make per day (UTC); then 429.
    pub tenant_daily_max_model_calls: Option<u64>,
}

/// `[tests]`: the commands `run_tests` and `coverage` run instead of those found from the
/// project's files, and how long they may take.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TestsSection {
    /// The test command (`sh -c` in the current directory; `{filter}`, `{scratch}`).
    pub command: Option<String>,
    /// Where its results are: `junit:PATH`, `libtest-json`, `go-json`, `jest-json:PATH`.
    pub report: Option<String>,
    /// The command that measures coverage.
    pub coverage_command: Option<String>,
    /// The report it writes (lcov, Cobertura, JaCoCo, coverage.py or llvm-cov JSON).
    pub coverage_report: Option<String>,
    /// Seconds one run may take (default 300).
    pub timeout_secs: Option<u64>,
}

/// `[memory]`: the layered memory (`lucid::memory::ConversationMemory`) of `lucid chat`
/// and `lucid run --session`. Unset numbers take the seed's defaults, and the context
/// budget the model's window.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MemorySection {
    /// `false` turns summaries and recall off (whole turns are trimmed instead).
    pub enabled: Option<bool>,
    /// The context budget in tokens (default: the model's window, else 4000).
    pub max_context_tokens: Option<usize>,
    /// Compress when the context passes this share of the budget (default 0.8).
    pub compression_threshold: Option<f64>,
    /// Most messages kept in the window (default 20).
    pub short_term_capacity: Option<usize>,
    /// Most summaries kept per session (default 1000).
    pub long_term_capacity: Option<usize>,
    /// Target length of a summary in tokens (default 500).
    pub summary_target_tokens: Option<usize>,
    /// Summaries recalled per turn (default 3).
    pub recall_top_k: Option<usize>,
    /// `provider` (its embeddings endpoint, where it has one; the default), `off`, or the
    /// folder of a local model (needs the `local-embeddings` build).
    pub embeddings: Option<String>,
    /// The provider's embedding model (default: its usual one).
    pub embedding_model: Option<String>,
}

impl MemorySection {
    /// `self` with every key `over` sets replaced.
    fn overlay(self, over: MemorySection) -> MemorySection {
        MemorySection {
            enabled: over.enabled.or(self.enabled),
            max_context_tokens: over.max_context_tokens.or(self.max_context_tokens),
            compression_threshold: over.compression_threshold.or(self.compression_threshold),
            short_term_capacity: over.short_term_capacity.or(self.short_term_capacity),
            long_term_capacity: over.long_term_capacity.or(self.long_term_capacity),
            summary_target_tokens: over.summary_target_tokens.or(self.summary_target_tokens),
            recall_top_k: over.recall_top_k.or(self.recall_top_k),
            embeddings: over.embeddings.or(self.embeddings),
            embedding_model: over.embedding_model.or(self.embedding_model),
        }
    }
}

/// `[providers.NAME]`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProviderSection {
    /// Base URL for this provider.
    pub base_url: Option<String>,
    /// `chat` or `responses`: which OpenAI API it speaks.
    pub api: Option<String>,
    /// `on` (default) or `off`: prompt-cache breakpoints.
    pub cache: Option<String>,
    /// What its models take besides text (`"image,pdf"`).
    pub accepts: Option<String>,
    /// The environment variable holding its key.
    pub key_env: Option<String>,
    /// Its default model.
    pub model: Option<String>,
    // The rest are the fields of a provider's record (`lucid::model::Provider`): a
    // section with them defines a provider exactly as a preset with the same fields, or
    // changes a preset's. See `super::record`.
    /// `chat`, `responses`, `messages` (Anthropic) or `generateContent` (Gemini).
    pub protocol: Option<String>,
    /// The environment variables holding its key, tried in order (beside `key_env`).
    pub key_vars: Option<Vec<String>>,
    /// `content` beside tool calls without text: `omit`, `null`, `empty` or `placeholder`.
    pub content: Option<String>,
    /// The error codes refusing that `content` (Zhipu's `["1214", "1213"]`).
    pub content_retry_codes: Option<Vec<String>>,
    /// The forms resent then, in order (`["null", "placeholder"]`).
    pub content_retry: Option<Vec<String>>,
    /// The field reasoning is sent back in within a tool-call chain (`reasoning_content`,
    /// `reasoning`), or `never`.
    pub reasoning_echo: Option<String>,
    /// Ask for usage in streams (`stream_options`).
    pub stream_usage: Option<bool>,
    /// `max_tokens` or `max_completion_tokens`.
    pub max_tokens_field: Option<String>,
    /// One call may carry tools and an answer schema.
    pub format_with_tools: Option<bool>,
    /// Its error codes meaning the money or quota ran out.
    pub quota_codes: Option<Vec<String>>,
    /// Its HTTP statuses meaning the same (402).
    pub quota_statuses: Option<Vec<u16>>,
    /// Words of its error messages meaning the same.
    pub quota_messages: Option<Vec<String>>,
    /// Its `gen_ai.provider.name` in telemetry.
    pub telemetry_name: Option<String>,
    /// The name its models go by in the model catalogue and the price table.
    pub catalogue: Option<String>,
    /// Its embeddings endpoint's default model.
    pub embeddings_model: Option<String>,
    /// The most texts one embeddings request may carry.
    pub embeddings_batch: Option<usize>,
    /// A server on the user's machine (asked for its models and window), or hosted.
    pub local: Option<bool>,
}

/// The loaded file: where it was, which profile, and the merged settings.
#[derive(Debug, Clone, Default)]
pub struct FileConfig {
    /// The file read, if one was.
    pub path: Option<PathBuf>,
    /// The profile applied.
    pub profile: Option<String>,
    /// The top level with the profile laid over it.
    pub settings: Settings,
}

/// The default location: `$XDG_CONFIG_HOME/lucid/config.toml` or `~/.config/lucid/config.toml`.
pub fn default_path(xdg_config_home: Option<&str>, home: Option<&str>) -> Option<PathBuf> {
    match (xdg_config_home.filter(|s| !s.is_empty()), home.filter(|s| !s.is_empty())) {
        (Some(x), _) => Some(Path::new(x).join("lucid/config.toml")),
        (None, Some(h)) => Some(Path::new(h).join(".config/lucid/config.toml")),
        _ => None,
    }
}

/// Reads the file (`explicit` must exist; the default location may be absent) and applies
/// the profile.
pub fn load(
    explicit: Option<&Path>,
    default: Option<PathBuf>,
    profile: Option<&str>,
) -> Result<FileConfig, ConfigError> {
    let path = match explicit {
        Some(p) => Some(p.to_path_buf()),
        None => default.filter(|p| p.exists()),
    };
    let mut settings = match &path {
        Some(p) => {
            only_the_user_can_change(p, "the configuration file")?;
            let text = std::fs::read_to_string(p)
                .map_err(|e| ConfigError(format!("cannot read the configuration file {}: {e}", p.display())))?;
            toml::from_str::<Settings>(&text).map_err(|e| ConfigError(format!("{}: {e}", p.display())))?
        }
        None => Settings::default(),
    };
    if let Some(name) = profile {
        let Some(p) = settings.profiles.get(name).cloned() else {
            let known: Vec<&str> = settings.profiles.keys().map(String::as_str).collect();
            return Err(ConfigError(format!(
                "no profile `{name}` in {} (profiles: {})",
                path.as_ref().map_or("the configuration (no file found)".into(), |p| p.display().to_string()),
                if known.is_empty() { "none".into() } else { known.join(", ") }
            )));
        };
        settings = overlay(settings, p);
    }
    Ok(FileConfig { path, profile: profile.map(str::to_string), settings })
}

/// Refuses a file (`what`: "the configuration file") that someone other than the user (or
/// root) owns, or that any user may write, as `ssh` refuses such a `~/.ssh/config`: it decides where the
/// next run sends the prompt and the key.
pub fn only_the_user_can_change(path: &Path, what: &str) -> Result<(), ConfigError> {
    use std::os::unix::fs::MetadataExt;
    let meta =
        std::fs::metadata(path).map_err(|e| ConfigError(format!("cannot read {what} {}: {e}", path.display())))?;
    // SAFETY: geteuid has no failure mode.
    let me = unsafe { libc::geteuid() };
    if meta.uid() != me && meta.uid() != 0 {
        return Err(ConfigError(format!(
            "{what} {} belongs to another user (uid {}); Lucid reads only the user's own",
            path.display(),
            meta.uid()
        )));
    }
    // Group-writable is left alone: many systems give each user a group of their own.
    if meta.mode() & 0o002 != 0 {
        return Err(ConfigError(format!(
            "{what} {} can be changed by any user (mode {:o}): run `chmod o-w {}`",
            path.display(),
            meta.mode() & 0o7777,
            path.display()
        )));
    }
    Ok(())
}

/// `top` with every setting `profile` has replacing it (maps merged key by key).
fn overlay(mut top: Settings, profile: Settings) -> Settings {
    macro_rules! take {
        ($($f:ident),*) => { $( if profile.$f.is_some() { top.$f = profile.$f; } )* };
    }
    take!(
        provider,
        model,
        model_file,
        base_url,
        api,
        cache,
        accepts,
        system,
        tools,
        store,
        max_iterations,
        temperature,
        max_tokens,
        context_window,
        plan,
        shell_timeout_secs,
        python,
        tool_env,
        shell_network,
        skip_repeated_calls,
        db,
        db_project,
        writable_protected,
        fallback,
        allow,
        ask,
        deny,
        max_cost,
        max_model_calls,
        max_total_tokens,
        approval_timeout_secs,
        session_max_cost,
        session_max_model_calls,
        session_max_total_tokens,
        mcp,
        serve,
        tests,
        client_system
    );
    top.memory = match (top.memory, profile.memory) {
        (Some(t), Some(p)) => Some(t.overlay(p)),
        (t, p) => p.or(t),
    };
    top.permissions.extend(profile.permissions);
    top.prices.extend(profile.prices);
    top.providers.extend(profile.providers);
    top.agents.extend(profile.agents);
    top
}

/// The agents of `lucid serve`: `default` (the top level) and each `[agents.NAME]` laid
/// over the top level, so an agent names only what differs (its model, prompt, tools…).
#[cfg(any(feature = "server", test))]
pub fn agents(settings: &Settings) -> Result<Vec<(String, Settings)>, ConfigError> {
    let top = without_agents(settings);
    let mut out = vec![("default".to_string(), top.clone())];
    for (name, section) in settings.agents.clone() {
        let agent = agent_over(&top, &name, section)?;
        if name == "default" {
            // `[agents.default]` refines the top level rather than adding a second default.
            out[0].1 = agent;
        } else {
            out.push((name, agent));
        }
    }
    Ok(out)
}

/// The top level alone: `settings` without its agents and profiles.
pub fn without_agents(settings: &Settings) -> Settings {
    let mut top = settings.clone();
    top.agents.clear();
    top.profiles.clear();
    top
}

/// One agent's settings, `section` (an `[agents.NAME]`, or an agent file of
/// `crate::agents`) laid over the top level `top` (see [`without_agents`]): what
/// `lucid serve` serves as NAME and what `lucid run --agent NAME` runs.
pub fn agent_over(top: &Settings, name: &str, section: Settings) -> Result<Settings, ConfigError> {
    if !section.agents.is_empty() || !section.profiles.is_empty() || section.serve.is_some() {
        return Err(ConfigError(format!("[agents.{name}] cannot hold agents, profiles or [serve] of its own")));
    }
    let mut base = top.clone();
    // The top-level model, base URL and API belong to the top-level provider.
    if section.provider.is_some() && section.provider != top.provider {
        (base.model, base.base_url, base.api) = (None, None, None);
    }
    Ok(overlay(base, section))
}

#[cfg(test)]
mod agent_tests {
    use super::*;

    #[test]
    fn each_agent_is_the_top_level_with_its_section_laid_over() {
        let settings: Settings = toml::from_str(
            r#"
            provider = "openai"
            model = "gpt-4o-mini"
            system = "Be brief."
            max_iterations = 4
            [agents.support]
            system = "You answer support tickets."
            tools = ["calculator"]
            [agents.claude]
            provider = "anthropic"
            "#,
        )
        .unwrap();
        let agents = agents(&settings).unwrap();
        let names: Vec<&str> = agents.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["default", "claude", "support"]);
        let support = &agents[2].1;
        assert_eq!(support.system.as_deref(), Some("You answer support tickets."));
        assert_eq!((support.model.as_deref(), support.max_iterations), (Some("gpt-4o-mini"), Some(4)));
        assert_eq!(support.tools, Some(vec!["calculator".to_string()]));
        let claude = &agents[1].1;
        assert_eq!((claude.provider.as_deref(), claude.model.as_deref()), (Some("anthropic"), None));
        assert!(agents[0].1.agents.is_empty());
        let nested: Settings = toml::from_str("[agents.a.agents.b]\nmodel = \"m\"").unwrap();
        assert!(super::agents(&nested).unwrap_err().0.contains("[agents.a] cannot hold agents"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_starter_files_serve_section_parses_once_uncommented() {
        let block: String = starter()
            .lines()
            .skip_while(|l| l != &"# [serve]")
            .take_while(|l| !l.is_empty())
            .map(|l| format!("{}\n", l.strip_prefix("# ").unwrap_or(l)))
            .collect();
        let s: Settings = toml::from_str(&block).unwrap();
        let serve = s.serve.unwrap();
        assert_eq!(serve.allow_origins, ["http://localhost:5173"]);
        assert_eq!(
            (serve.header_timeout_secs, serve.body_timeout_secs, serve.max_connections),
            (Some(10), Some(30), Some(1024))
        );
        assert_eq!(
            (serve.tenant_daily_max_cost, serve.tenant_daily_max_tokens, serve.tenant_daily_max_model_calls),
            (Some(20.0), Some(5_000_000), Some(2000))
        );
        let e = toml::from_str::<Settings>("[serve]\nallow_origin = []").unwrap_err().to_string();
        assert!(e.contains("allow_origin"), "{e}");
    }

    #[test]
    fn the_starter_file_parses_and_profiles_overlay_the_top_level() {
        let s: Settings = toml::from_str(&starter()).unwrap();
        assert_eq!(s.permissions["shell"], Permission::Ask);
        let text = r#"
            provider = "openai"
            model = "gpt-4o-mini"
            [permissions]
            shell = "deny"
            [memory]
            recall_top_k = 5
            embeddings = "off"
            [profiles.fast]
            provider = "groq"
            [profiles.fast.memory]
            short_term_capacity = 8
            [profiles.fast.permissions]
            write_file = "allow"
        "#;
        let dir = std::env::temp_dir().join(format!("lucid-settings-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("config.toml");
        std::fs::write(&path, text).unwrap();
        let f = load(Some(&path), None, Some("fast")).unwrap();
        assert_eq!(f.settings.provider.as_deref(), Some("groq"));
        assert_eq!(f.settings.model.as_deref(), Some("gpt-4o-mini"), "kept from the top level");
        assert_eq!(f.settings.permissions["shell"], Permission::Deny);
        assert_eq!(f.settings.permissions["write_file"], Permission::Allow);
        let memory = f.settings.memory.clone().unwrap();
        assert_eq!(
            (memory.recall_top_k, memory.short_term_capacity, memory.embeddings.as_deref()),
            (Some(5), Some(8), Some("off")),
            "a profile's [memory] keys replace the top level's one by one"
        );
        let err = load(Some(&path), None, Some("slow")).unwrap_err();
        assert!(err.0.contains("no profile `slow`") && err.0.contains("profiles: fast"), "{}", err.0);
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o666)).unwrap();
        let err = load(Some(&path), None, None).unwrap_err().0;
        assert!(err.contains("can be changed by any user") && err.contains("chmod o-w"), "{err}");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        std::fs::write(&path, "modle = \"x\"").unwrap();
        assert!(load(Some(&path), None, None).unwrap_err().0.contains("unknown field `modle`"));
    }

    #[test]
    fn the_default_path_follows_xdg() {
        assert_eq!(default_path(Some("/x"), Some("/h")), Some(PathBuf::from("/x/lucid/config.toml")));
        assert_eq!(default_path(None, Some("/h")), Some(PathBuf::from("/h/.config/lucid/config.toml")));
        assert_eq!(default_path(None, None), None);
    }
}
