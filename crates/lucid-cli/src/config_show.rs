//! `lucid config show` and `lucid config init`.

use std::path::Path;

use lucid::tool::permission::Permission;

use crate::args::{AgentArgs, McpArgs, ModelArgs, ToolDefaults};
use crate::config::file::{FileConfig, default_path, starter};
use crate::config::{self, ConfigError};

/// A key shown without giving it away: its first three and last four characters.
pub fn mask(key: &str) -> String {
    let chars: Vec<char> = key.chars().collect();
    if chars.len() <= 10 {
        return "****".into();
    }
    format!("{}…{}", chars[..3].iter().collect::<String>(), chars[chars.len() - 4..].iter().collect::<String>())
}

/// The local engine's file: given, in the cache, or still to download (nothing is).
fn show_model_file(cfg: &config::ModelConfig) {
    let cached = || {
        let hub = config::hub(cfg.offline);
        crate::models::ModelRef::parse(&cfg.model).ok().and_then(|m| hub.cache.find(&m))
    };
    match cfg.model_file.clone().or_else(cached) {
        Some(path) => println!("model_file = {:?}", path.display().to_string()),
        None => println!("model_file = (not downloaded yet: `lucid models pull {}`)", cfg.model),
    }
}

/// Prints the resolved configuration; keys masked.
pub async fn show(model: &ModelArgs, file: &FileConfig) -> anyhow::Result<i32> {
    let s = &file.settings;
    println!(
        "config_file = {}",
        file.path.as_ref().map_or("(none)".into(), |p| format!("{:?}", p.display().to_string()))
    );
    println!("profile = {}", file.profile.as_deref().map_or("(none)".into(), |p| format!("{p:?}")));
    match config::resolve_with_source(model, s).await {
        Ok((cfg, source)) => {
            println!("provider = {:?}", cfg.provider);
            println!("model = {:?}", cfg.model);
            if cfg.record.is_none() {
                show_model_file(&cfg);
            } else {
                println!("base_url = {:?}", cfg.base_url);
                println!("api = {:?}", cfg.api_name());
            }
            match (&cfg.api_key, &source.0) {
                (Some(k), Some(from)) => println!("api_key = {:?}  # from {from}", mask(k)),
                (Some(k), None) => println!("api_key = {:?}", mask(k)),
                (None, _) => println!("api_key = (none)"),
            }
            if !cfg.fallback.is_empty() {
                let backups: Vec<String> = cfg.fallback.iter().map(|b| format!("{}:{}", b.provider, b.model)).collect();
                println!("fallback = {backups:?}");
            }
        }
        Err(ConfigError(e)) => println!("# model: not resolved: {}", e.lines().next().unwrap_or_default()),
    }
    let agent = config::agent_settings(&AgentArgs::default(), s, ToolDefaults::Chat)?;
    let run = config::agent_settings(&AgentArgs::default(), s, ToolDefaults::Run)?;
    println!("system = {}", agent.system.as_deref().map_or("(none)".into(), |p| format!("{p:?}")));
    if agent.tools == run.tools {
        println!("tools = {:?}", agent.tools);
    } else {
        println!("tools = {:?}  # lucid chat", agent.tools);
        println!("# lucid run: tools = {:?}", run.tools);
    }
    println!("max_iterations = {}", agent.max_iterations);
    let or_server = |v: Option<String>| v.unwrap_or_else(|| "(the server's default)".into());
    println!("temperature = {}", or_server(agent.temperature.map(|t| t.to_string())));
    println!("max_tokens = {}", or_server(agent.max_tokens.map(|t| t.to_string())));
    println!("store = {}", agent.store.as_deref().map_or("(default SQLite file)".into(), |p| format!("{p:?}")));
    println!("shell_timeout_secs = {}", agent.shell_timeout.as_secs());
    println!("writable_protected = {:?}", agent.writable_protected);
    println!("python = {:?}", agent.python.as_deref().unwrap_or("python3"));
    println!("db = {}", agent.db.as_deref().map_or("(none)".into(), |d| format!("{:?}", without_password(d))));
    let b = &agent.budget;
    let shown = |v: Option<String>| v.unwrap_or_else(|| "(none)".into());
    println!("max_cost = {}", shown(b.run.max_cost.map(|c| c.to_string())));
    println!("max_model_calls = {}", shown(b.run.max_model_calls.map(|n| n.to_string())));
    println!("max_total_tokens = {}", shown(b.run.max_total_tokens.map(|n| n.to_string())));
    println!("session_max_cost = {}", shown(b.session.max_cost.map(|c| c.to_string())));
    println!("session_max_model_calls = {}", shown(b.session.max_model_calls.map(|n| n.to_string())));
    println!("session_max_total_tokens = {}", shown(b.session.max_total_tokens.map(|n| n.to_string())));
    for (model, p) in &agent.prices {
        println!("prices.{model:?} = {{ input = {}, output = {} }}", p.input, p.output);
    }
    for (word, permission) in [("deny", Permission::Deny), ("ask", Permission::Ask), ("allow", Permission::Allow)] {
        let rules: Vec<&str> =
            agent.rules.iter().filter(|r| r.permission() == permission).map(|r| r.pattern()).collect();
        if !rules.is_empty() {
            println!("{word} = {rules:?}");
        }
    }
    println!("[permissions]");
    for (tool, p) in &agent.permissions {
        println!("{tool} = {:?}", format!("{p:?}").to_lowercase());
    }
    let m = &agent.memory;
    println!("[memory]");
    println!("enabled = {}", m.enabled);
    let budget = m.config.max_context_tokens.map_or("(the model's window, else 4000)".into(), |n| n.to_string());
    println!("max_context_tokens = {budget}");
    println!("compression_threshold = {}", m.config.compression_threshold);
    println!("short_term_capacity = {}", m.config.short_term_capacity);
    println!("long_term_capacity = {}", m.config.long_term_capacity);
    println!("summary_target_tokens = {}", m.config.summary_target_tokens);
    println!("recall_top_k = {}", m.config.recall_top_k);
    let embeddings = match &m.embeddings {
        config::Embeddings::Provider => "\"provider\"".to_string(),
        config::Embeddings::Off => "\"off\"".to_string(),
        config::Embeddings::Local(dir) => format!("{dir:?}"),
    };
    println!("embeddings = {embeddings}");
    if let Some(model) = &m.embedding_model {
        println!("embedding_model = {model:?}");
    }
    show_mcp(s.mcp.as_ref())?;
    if !s.profiles.is_empty() {
        println!("# profiles: {}", s.profiles.keys().cloned().collect::<Vec<_>>().join(", "));
    }
    Ok(0)
}

/// A value of `env` or `headers` as `lucid config show` prints it: a `${VAR}` reference
/// as written (it holds no secret), anything else masked.
fn masked(value: &str) -> String {
    if value.trim_start().starts_with("${") && value.trim_end().ends_with('}') && value.matches("${").count() == 1 {
        value.to_string()
    } else if let Some(i) = value.find("${") {
        format!("{}…{}", mask(&value[..i]), &value[i..])
    } else {
        mask(value)
    }
}

/// The `[mcp.servers.NAME]` sections, secrets masked.
fn show_mcp(file_mcp: Option<&toml::Table>) -> anyhow::Result<()> {
    let servers = crate::mcp::servers(file_mcp, &McpArgs::default())?;
    for (name, s) in &servers {
        println!("[mcp.servers.{name}]");
        if let Some(c) = &s.command {
            println!("command = {c:?}");
            println!("args = {:?}", s.args);
        }
        if let Some(u) = &s.url {
            println!("url = {u:?}");
        }
        for (k, v) in &s.env {
            println!("env.{k} = {:?}", masked(v));
        }
        for (k, v) in &s.headers {
            println!("headers.{k:?} = {:?}", masked(v));
        }
        println!("permission = {:?}", format!("{:?}", s.permission.unwrap_or(Permission::Ask)).to_lowercase());
    }
    Ok(())
}

/// A database URL with its password (if it has one) masked.
fn without_password(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else { return url.to_string() };
    match rest.split_once('@') {
        Some((user_info, host)) if user_info.contains(':') => {
            let user = user_info.split(':').next().unwrap_or_default();
            format!("{scheme}://{user}:***@{host}")
        }
        _ => url.to_string(),
    }
}

/// Writes the starter file; refuses to replace one unless `force`.
pub fn init(explicit: Option<&Path>, force: bool) -> anyhow::Result<i32> {
    let home = std::env::var("HOME").ok();
    let xdg = std::env::var("XDG_CONFIG_HOME").ok();
    let path = match explicit {
        Some(p) => p.to_path_buf(),
        None => default_path(xdg.as_deref(), home.as_deref())
            .ok_or_else(|| ConfigError("no home folder: pass --config FILE".into()))?,
    };
    if path.exists() && !force {
        return Err(ConfigError(format!("{} exists; pass --force to replace it", path.display())).into());
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(&path, starter())?;
    println!("wrote {}", path.display());
    Ok(0)
}

#[cfg(test)]
mod tests {
    #[test]
    fn keys_are_masked() {
        assert_eq!(super::mask("sk-proj-abcdefghijklmnop"), "sk-…mnop");
        assert_eq!(super::mask("short"), "****");
    }

    #[test]
    fn a_database_password_is_masked() {
        assert_eq!(super::without_password("postgres://me:secret@db/x"), "postgres://me:***@db/x");
        assert_eq!(super::without_password("postgres://me@db/x"), "postgres://me@db/x");
        assert_eq!(super::without_password("shop.db"), "shop.db");
    }

    #[test]
    fn config_show_masks_literal_secrets_but_shows_references() {
        assert_eq!(super::masked("${GITHUB_TOKEN}"), "${GITHUB_TOKEN}");
        assert_eq!(super::masked("ghp_abcdefghijklmnop1234"), "ghp…1234");
        assert!(!super::masked("Bearer sk-0123456789abcdef${X}").contains("0123456789"));
    }
}
