//! The agents of a dataset's cases: by name (as `--agent NAME` finds it) or by a
//! configuration laid over the run's agent. Resolved once, before the run, so a case that
//! names an agent Lucid does not know stops the run before anything is spent (exit 2).

use std::collections::BTreeMap;

use lucid_eval::{AgentSpec, Dataset};

use crate::args::{AgentArgs, ToolDefaults};
use crate::config::file::{FileConfig, Settings, agent_over, without_agents};
use crate::config::{self, AgentSettings, ConfigError};

/// The keys a dataset's agent configuration may set: what shapes the agent's work. The
/// model, the stores, the environment and the permissions stay the configuration's: a
/// dataset (a file from anywhere) cannot widen what the user allowed, and every case is
/// measured on the run's model.
const CASE_KEYS: &[&str] = &[
    "system",
    "tools",
    "max_iterations",
    "temperature",
    "max_tokens",
    "context_window",
    "plan",
    "shell_timeout_secs",
    "max_cost",
    "max_model_calls",
    "max_total_tokens",
    "deny",
];

/// Each case agent of `dataset`, by its JSON text (see [`key`]), resolved.
pub fn resolve(
    dataset: &Dataset,
    args: &AgentArgs,
    file: &FileConfig,
    run: &FileConfig,
) -> Result<BTreeMap<String, AgentSettings>, ConfigError> {
    let mut out = BTreeMap::new();
    let specs = dataset.agent.iter().chain(dataset.cases.iter().filter_map(|c| c.agent.as_ref()));
    for spec in specs {
        let k = key(spec);
        if out.contains_key(&k) {
            continue;
        }
        let settings = match spec {
            AgentSpec::Named(name) => {
                let (named, _) = crate::agents::apply(Some(name), file.clone())?;
                config::agent_settings(args, &named.settings, ToolDefaults::Run)?
            }
            AgentSpec::Config(map) => {
                let section = section(map)?;
                let over = agent_over(&without_agents(&run.settings), "case", section)?;
                config::agent_settings(args, &over, ToolDefaults::Run)?
            }
        };
        out.insert(k, settings);
    }
    Ok(out)
}

/// The key a case's agent is found under.
pub fn key(spec: &AgentSpec) -> String {
    serde_json::to_string(spec).unwrap_or_default()
}

/// A dataset's agent configuration as an `[agents.NAME]` section, refusing what a dataset
/// may not set.
fn section(map: &serde_json::Map<String, serde_json::Value>) -> Result<Settings, ConfigError> {
    if let Some(k) = map.keys().find(|k| !CASE_KEYS.contains(&k.as_str())) {
        return Err(ConfigError(format!(
            "a case's agent cannot set `{k}` (a dataset may set {}; name an agent of the configuration for more)",
            CASE_KEYS.join(", ")
        )));
    }
    serde_json::from_value(serde_json::Value::Object(map.clone()))
        .map_err(|e| ConfigError(format!("a case's agent: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser as _;

    fn args() -> AgentArgs {
        crate::args::Cli::try_parse_from(["lucid", "eval", "run", "d.yaml"])
            .ok()
            .and_then(|cli| match cli.command {
                crate::args::Command::Eval { action: crate::args::EvalAction::Run(r) } => Some(r.agent),
                _ => None,
            })
            .expect("lucid eval run parses")
    }

    #[test]
    fn a_case_agent_is_a_name_or_a_configuration_over_the_runs_agent() {
        let file: FileConfig = FileConfig {
            settings: toml::from_str("system = \"Top.\"\nmax_iterations = 3\n[agents.brief]\nsystem = \"Brief.\"\n")
                .unwrap(),
            ..FileConfig::default()
        };
        let dataset = Dataset::from_yaml(
            "agent: brief\ncases:\n  - {inputs: a}\n  - {inputs: b, agent: {system: Own., tools: [read_file]}}\n",
            "d.yaml",
        )
        .unwrap();
        let found = resolve(&dataset, &args(), &file, &file).unwrap();
        let brief = &found[&key(dataset.agent.as_ref().unwrap())];
        assert_eq!(brief.system.as_deref(), Some("Brief."));
        let own = &found[&key(dataset.cases[1].agent.as_ref().unwrap())];
        assert_eq!(
            (own.system.as_deref(), own.tools.as_slice(), own.max_iterations),
            (Some("Own."), &["read_file".to_string()][..], 3)
        );

        for (yaml, says) in [
            ("agent: nobody", "no agent `nobody`"),
            ("agent: {permissions: {shell: allow}}", "cannot set `permissions`"),
            ("agent: {model: gpt-4o}", "cannot set `model`"),
            ("agent: {max_iterations: many}", "a case's agent"),
        ] {
            let d = Dataset::from_yaml(&format!("{yaml}\ncases: [{{inputs: x}}]\n"), "d.yaml").unwrap();
            let e = resolve(&d, &args(), &file, &file).unwrap_err();
            assert!(e.0.contains(says), "{yaml}: {e}");
        }
    }
}
