//! The tools and permission policy of `lucid run`, `lucid chat` and `lucid workflow run`,
//! from resolved settings and the library's catalogue of built-in tools.

use std::sync::Arc;

use lucid::Tool;
use lucid::tool::builtin::{self, CATALOGUE, Setup};
use lucid::tool::permission::{Approver, PermissionPolicy};
use lucid::tool::{Interviewer, ToolRegistry};

use crate::config::{AgentSettings, ConfigError};

/// Which command's default tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolDefaults {
    /// `lucid run`: nobody at the keyboard.
    Run,
    /// `lucid chat`.
    Chat,
}

impl ToolDefaults {
    /// The names of the tools on by default, in catalogue order.
    pub fn names(self) -> impl Iterator<Item = &'static str> {
        CATALOGUE
            .iter()
            .filter(move |t| match self {
                ToolDefaults::Run => t.default_in_run,
                ToolDefaults::Chat => t.default_in_chat,
            })
            .map(|t| t.name)
    }
}

/// The short help of `--tools` (`-h`), from the catalogue.
pub fn help() -> String {
    format!(
        "Comma-separated tools, or `none`: {} (`--help` says what each does and which are on by default)",
        joined(builtin::names())
    )
}

/// The long help of `--tools` (`--help`), from the catalogue: one line per tool.
pub fn long_help() -> String {
    let width = builtin::names().map(str::len).max().unwrap_or(0);
    let mut out = String::from("Comma-separated tools, or `none`:\n");
    for t in CATALOGUE {
        let asks = if t.writes { " (asks first)" } else { "" };
        out.push_str(&format!("  {:<width$}  {}{asks}\n", t.name, t.summary));
    }
    let run: Vec<&str> = ToolDefaults::Run.names().collect();
    out.push_str(&format!(
        "The file tools and shell work inside the current directory. Default for `run`: {}; for `chat`: \
         those and {}. `lucid run` cannot answer `ask_user` (it prints the questions and exits with code 4) \
         nor a policy's `ask` (the call is refused).",
        run.join(", "),
        joined(ToolDefaults::Chat.names().filter(|n| !run.contains(n))),
    ));
    out
}

fn joined(names: impl Iterator<Item = &'static str>) -> String {
    names.collect::<Vec<_>>().join(", ")
}

/// The tools named in the settings. File tools and the shell work in the current
/// directory; `ask_user` is answered by `interviewer`, or stops the run without one.
pub fn build(
    settings: &AgentSettings,
    interviewer: Option<Arc<dyn Interviewer>>,
) -> anyhow::Result<Vec<Arc<dyn Tool>>> {
    let mut setup = setup(settings)?;
    if let Some(i) = interviewer {
        setup = setup.interviewer(i);
    }
    let mut out = Vec::with_capacity(settings.tools.len());
    for name in &settings.tools {
        let entry = builtin::find(name)
            .ok_or_else(|| ConfigError(format!("unknown tool `{name}`; tools: {}", joined(builtin::names()))))?;
        if entry.name.starts_with("sql_") && settings.db.is_none() {
            return Err(ConfigError(format!(
                "`{name}` needs a database: pass --db FILE_OR_URL or set db = \"...\" in the configuration"
            ))
            .into());
        }
        // What a tool needs from outside (an interpreter, a database that opens) is the
        // configuration's to fix (exit code 2).
        let tool = entry.build(&setup).map_err(|e| match entry.needs {
            Some(_) => ConfigError(e.to_string()).into(),
            None => anyhow::Error::from(e),
        })?;
        out.push(tool);
    }
    Ok(out)
}

/// Every built-in tool, for the agents and tool steps of a workflow file: working in the
/// current directory, `ask_user` deferred, each call checked against the settings'
/// permission policy with nobody to ask (so `ask` refuses, as in `lucid run`).
pub fn workflow_registry(settings: &AgentSettings) -> anyhow::Result<ToolRegistry> {
    let setup = setup(settings)?;
    let policy = policy(settings, None);
    let mut registry = ToolRegistry::new();
    for entry in CATALOGUE {
        match entry.build(&setup) {
            Ok(tool) => registry.add_arc(policy.guard(tool)),
            // What needs something outside (an interpreter) is left out when it is
            // missing: a workflow that does not use it should not fail for it.
            Err(e) if entry.needs.is_some() => tracing::info!("tool {} left out: {e}", entry.name),
            Err(e) => return Err(e.into()),
        }
    }
    Ok(registry)
}

/// What the built-in tools of these settings are made from: the current directory, the
/// shell's timeout, the interpreter, the protected paths lifted.
fn setup(settings: &AgentSettings) -> anyhow::Result<Setup> {
    let mut setup = Setup::new(std::env::current_dir()?).shell_timeout(settings.shell_timeout);
    if let Some(python) = &settings.python {
        setup = setup.python(python);
    }
    if let Some(db) = &settings.db {
        setup = setup.database(db);
    }
    Ok(settings.writable_protected.iter().fold(setup, |s, p| s.unprotect(p)))
}

/// The permission policy of the settings; `ask` goes to `approver`, or is refused.
pub fn policy(settings: &AgentSettings, approver: Option<Arc<dyn Approver>>) -> PermissionPolicy {
    let mut p = PermissionPolicy::allow_all();
    for (tool, permission) in &settings.permissions {
        p = p.set(tool.clone(), *permission);
    }
    match approver {
        Some(a) => p.approver(a),
        None => p,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_help_and_the_defaults_come_from_the_catalogue() {
        let (short, long) = (help(), long_help());
        for t in CATALOGUE {
            assert!(short.contains(t.name), "{} missing from: {short}", t.name);
            assert!(
                long.lines().any(|l| l.contains(t.name) && l.contains(t.summary)),
                "{} missing from: {long}",
                t.name
            );
        }
        assert!(long.contains("\n  shell         runs a shell command (asks first)\n"), "{long}");
        assert!(long.contains("\n  python        runs Python code in a persistent interpreter"), "{long}");
        assert!(long.contains("\n  sql_query     runs one read-only SQL statement on the database\n"), "{long}");
        assert!(
            long.contains("Default for `run`: calculator, current_time, ask_user; for `chat`: those and read_file,")
        );
        assert_eq!(ToolDefaults::Run.names().collect::<Vec<_>>(), ["calculator", "current_time", "ask_user"]);
        assert_eq!(
            ToolDefaults::Chat.names().collect::<Vec<_>>(),
            [
                "calculator",
                "current_time",
                "ask_user",
                "read_file",
                "list_dir",
                "search_files",
                "write_file",
                "edit_file"
            ]
        );
    }
}
