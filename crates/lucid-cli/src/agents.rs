//! Agents by name: `lucid run --agent NAME` and `lucid chat --agent NAME`, and `lucid
//! agents list | show NAME | init NAME`.
//!
//! An agent is a set of settings laid over the configuration's top level (as `lucid
//! serve` lays each `[agents.NAME]`, see [`crate::config::file::agent_over`]). It comes
//! from, first found:
//! 1. the configuration's `[agents.NAME]`;
//! 2. the user's agent file `$XDG_CONFIG_HOME/lucid/agents/NAME.toml` (else
//!    `~/.config/lucid/agents/NAME.toml`), which `lucid agents init NAME` writes as an
//!    editable copy of a shipped one;
//! 3. the agents Lucid ships: data files embedded in the binary ([`SHIPPED`]).
//!
//! An agent file is TOML: `description = "…"` and any key of an `[agents.NAME]` section
//! (`system`, `tools`, `max_iterations`, `plan`, `[permissions]`, `[tests]`…).

use std::path::{Path, PathBuf};

pub use crate::agent_args::AgentsAction;
use crate::config::ConfigError;
use crate::config::file::{FileConfig, Settings, agent_over, without_agents};
use crate::targets::TargetsSection;

/// The agents Lucid ships: name and file text.
pub const SHIPPED: &[(&str, &str)] = &[
    ("db-design", include_str!("../agents/db-design.toml")),
    ("unit-tests", include_str!("../agents/unit-tests.toml")),
];

/// Where one agent comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// `[agents.NAME]` of the configuration file.
    Config,
    /// The user's agent file.
    User(PathBuf),
    /// Shipped in the binary.
    Shipped,
}

/// One agent found by name, before it is laid over the top level.
#[derive(Debug, Clone)]
pub struct Found {
    pub source: Source,
    /// The file's `description`, if it has one.
    pub description: Option<String>,
    /// The file's text (`None` for a configuration section).
    pub text: Option<String>,
    /// `[targets]` of the file.
    pub targets: Option<TargetsSection>,
    pub settings: Settings,
}

/// The user's agents folder: `agents/` beside the default configuration file.
pub fn user_dir() -> Option<PathBuf> {
    let var = |v: &str| std::env::var(v).ok().filter(|s| !s.trim().is_empty());
    crate::config::file::default_path(var("XDG_CONFIG_HOME").as_deref(), var("HOME").as_deref())
        .and_then(|p| p.parent().map(|d| d.join("agents")))
}

/// An agent file, read.
#[derive(Debug, Clone)]
pub struct Parsed {
    pub description: Option<String>,
    /// `[targets]`: the agent works target by target ([`crate::targets`]).
    pub targets: Option<TargetsSection>,
    pub settings: Settings,
}

/// Reads an agent file's text: its `description`, and the rest as an `[agents.NAME]`
/// section (unknown keys refused, as in the configuration).
pub fn parse(name: &str, text: &str, origin: &str) -> Result<Parsed, ConfigError> {
    let bad = |e: &dyn std::fmt::Display| ConfigError(format!("the agent `{name}` ({origin}): {e}"));
    let mut table: toml::Table = toml::from_str(text).map_err(|e| bad(&e))?;
    let description = match table.remove("description") {
        None => None,
        Some(toml::Value::String(s)) => Some(s),
        Some(_) => return Err(bad(&"`description` must be a string")),
    };
    let targets = match table.remove("targets") {
        None => None,
        Some(t) => Some(t.try_into::<TargetsSection>().map_err(|e| bad(&format!("[targets]: {e}")))?),
    };
    let settings: Settings = toml::Value::Table(table).try_into().map_err(|e| bad(&e))?;
    Ok(Parsed { description, targets, settings })
}

/// The agent NAME, first found in the configuration, the user's folder `dir`, the shipped
/// agents; `None` when none has it.
pub fn find(name: &str, file: &FileConfig, dir: Option<&Path>) -> Result<Option<Found>, ConfigError> {
    if let Some(section) = file.settings.agents.get(name) {
        return Ok(Some(Found {
            source: Source::Config,
            description: None,
            text: None,
            targets: None,
            settings: section.clone(),
        }));
    }
    if let Some(path) = dir.map(|d| d.join(format!("{name}.toml")))
        && path.is_file()
    {
        crate::config::file::only_the_user_can_change(&path, "the agent file")?;
        let text = std::fs::read_to_string(&path)
            .map_err(|e| ConfigError(format!("cannot read the agent file {}: {e}", path.display())))?;
        let Parsed { description, targets, settings } = parse(name, &text, &path.display().to_string())?;
        return Ok(Some(Found { source: Source::User(path), description, text: Some(text), targets, settings }));
    }
    match SHIPPED.iter().find(|(n, _)| *n == name) {
        Some((_, text)) => {
            let Parsed { description, targets, settings } = parse(name, text, "shipped")?;
            Ok(Some(Found { source: Source::Shipped, description, text: Some(text.to_string()), targets, settings }))
        }
        None => Ok(None),
    }
}

/// Every agent name `--agent` knows, sorted, each once.
fn names(file: &FileConfig, dir: Option<&Path>) -> Vec<String> {
    let mut names: Vec<String> = file.settings.agents.keys().cloned().collect();
    names.extend(SHIPPED.iter().map(|(n, _)| n.to_string()));
    if let Some(entries) = dir.and_then(|d| std::fs::read_dir(d).ok()) {
        for e in entries.flatten() {
            let path = e.path();
            if path.extension().is_some_and(|x| x == "toml")
                && let Some(stem) = path.file_stem().and_then(|s| s.to_str())
            {
                names.push(stem.to_string());
            }
        }
    }
    names.sort();
    names.dedup();
    names
}

/// `file` with its settings replaced by the agent NAME's (laid over the top level), for
/// `lucid run --agent NAME` and `lucid chat --agent NAME`, and the agent's `[targets]`;
/// `file` as it is without a name.
pub fn apply(name: Option<&str>, file: FileConfig) -> Result<(FileConfig, Option<TargetsSection>), ConfigError> {
    let Some(name) = name else { return Ok((file, None)) };
    let dir = user_dir();
    let Some(found) = find(name, &file, dir.as_deref())? else {
        return Err(ConfigError(format!(
            "no agent `{name}` (agents: {}; see `lucid agents list`)",
            names(&file, dir.as_deref()).join(", ")
        )));
    };
    tracing::info!(agent = name, source = ?found.source, "agent by name");
    let settings = agent_over(&without_agents(&file.settings), name, found.settings)?;
    Ok((FileConfig { settings, ..file }, found.targets))
}

/// `lucid agents list | show | init`.
pub fn run(action: AgentsAction, file: &FileConfig) -> anyhow::Result<i32> {
    let dir = user_dir();
    match action {
        AgentsAction::List => {
            for name in names(file, dir.as_deref()) {
                let Some(found) = find(&name, file, dir.as_deref())? else { continue };
                let shipped = SHIPPED.iter().any(|(n, _)| *n == name);
                let from = match &found.source {
                    Source::Config => "config".to_string(),
                    Source::User(p) => format!("user ({})", p.display()),
                    Source::Shipped => "shipped".to_string(),
                };
                let shadows = if shipped && found.source != Source::Shipped { ", shadows the shipped one" } else { "" };
                let about = found.description.as_deref().unwrap_or("");
                println!("{name:<14} {from}{shadows}\t{about}");
            }
        }
        AgentsAction::Show { name } => {
            let Some(found) = find(&name, file, dir.as_deref())? else {
                return Err(ConfigError(format!("no agent `{name}` (see `lucid agents list`)")).into());
            };
            match (&found.source, &found.text) {
                (Source::User(p), Some(text)) => print!("# {name}: {}\n{text}", p.display()),
                (_, Some(text)) => {
                    print!("# {name}: shipped with lucid (`lucid agents init {name}` copies it)\n{text}")
                }
                (_, None) => {
                    let path = file.path.as_ref().map_or("the configuration".into(), |p| p.display().to_string());
                    println!("# {name}: [agents.{name}] of {path}");
                    print_settings(&found.settings);
                }
            }
        }
        AgentsAction::Init { name, force } => {
            let Some((_, text)) = SHIPPED.iter().find(|(n, _)| *n == name) else {
                let shipped: Vec<&str> = SHIPPED.iter().map(|(n, _)| *n).collect();
                return Err(ConfigError(format!("no shipped agent `{name}` (shipped: {})", shipped.join(", "))).into());
            };
            let Some(dir) = dir else {
                return Err(ConfigError("no configuration folder: set HOME or XDG_CONFIG_HOME".into()).into());
            };
            let path = dir.join(format!("{name}.toml"));
            if path.exists() && !force {
                return Err(ConfigError(format!(
                    "{} exists; `lucid agents init {name} --force` replaces it",
                    path.display()
                ))
                .into());
            }
            std::fs::create_dir_all(&dir).map_err(|e| ConfigError(format!("cannot create {}: {e}", dir.display())))?;
            std::fs::write(&path, text).map_err(|e| ConfigError(format!("cannot write {}: {e}", path.display())))?;
            eprintln!("lucid: wrote {}; edit it, it now shadows the shipped `{name}`", path.display());
            println!("{}", path.display());
        }
    }
    Ok(0)
}

/// The keys a configuration section sets, TOML-like.
fn print_settings(s: &Settings) {
    if let Some(v) = &s.provider {
        println!("provider = {v:?}");
    }
    if let Some(v) = &s.model {
        println!("model = {v:?}");
    }
    if let Some(v) = &s.system {
        println!("system = {v:?}");
    }
    if let Some(v) = &s.tools {
        println!("tools = {v:?}");
    }
    if let Some(v) = s.max_iterations {
        println!("max_iterations = {v}");
    }
    if let Some(v) = &s.db {
        println!("db = {v:?}");
    }
    if !s.permissions.is_empty() {
        println!("[permissions]");
        for (tool, p) in &s.permissions {
            println!("{tool} = {:?}", format!("{p:?}").to_lowercase());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shipped_agent_parses_and_names_only_known_tools() {
        for (name, text) in SHIPPED {
            let Parsed { description, settings, .. } = parse(name, text, "shipped").unwrap();
            assert!(description.is_some_and(|d| !d.is_empty()), "{name} has a description");
            assert!(settings.system.is_some(), "{name} has a system prompt");
            for tool in settings.tools.unwrap() {
                assert!(
                    crate::catalogue::catalogue().iter().any(|t| t.name == tool),
                    "{name}: `{tool}` is no built-in tool"
                );
            }
        }
    }

    #[test]
    fn the_configuration_shadows_the_users_file_which_shadows_the_shipped_agent() {
        let dir = std::env::temp_dir().join(format!("lucid-agents-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut file = FileConfig::default();
        let found = find("unit-tests", &file, Some(&dir)).unwrap().unwrap();
        assert_eq!(found.source, Source::Shipped);
        std::fs::write(dir.join("unit-tests.toml"), "description = \"mine\"\nmax_iterations = 3\n").unwrap();
        let found = find("unit-tests", &file, Some(&dir)).unwrap().unwrap();
        assert_eq!((found.source, found.settings.max_iterations), (Source::User(dir.join("unit-tests.toml")), Some(3)));
        file.settings.agents.insert("unit-tests".into(), Settings { max_iterations: Some(7), ..Settings::default() });
        let found = find("unit-tests", &file, Some(&dir)).unwrap().unwrap();
        assert_eq!((found.source, found.settings.max_iterations), (Source::Config, Some(7)));
        assert!(find("nobody", &file, Some(&dir)).unwrap().is_none());
        std::fs::write(dir.join("typo.toml"), "max_iteration = 3\n").unwrap();
        let err = find("typo", &file, Some(&dir)).unwrap_err();
        assert!(err.0.contains("the agent `typo`") && err.0.contains("max_iteration"), "{}", err.0);
        std::fs::remove_dir_all(dir).ok();
    }
}
