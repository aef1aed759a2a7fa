//! The tools and permission policy of `lucid run`, `lucid chat` and `lucid workflow run`,
//! from resolved settings and the library's catalogue of built-in tools.

use std::sync::Arc;

use lucid::Tool;
use lucid::tool::catalogue::{Need, Setup};
use lucid_sandbox::{Environment, SandboxConfig};
use lucid_sql::SqlConfig;

use crate::catalogue::catalogue;
use lucid::tool::permission::{Approver, PermissionPolicy};
use lucid::tool::{Interviewer, ToolRegistry};

use crate::config::{AgentSettings, ConfigError};

/// The tools named in the settings. File tools and the shell work in the settings' root
/// (the current directory unless it is set); `ask_user` is answered by `interviewer`, or stops the run without one.
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
        let entry = crate::catalogue::find(name).ok_or_else(|| {
            ConfigError(format!(
                "unknown tool `{name}`; tools: {}",
                crate::catalogue::names().collect::<Vec<_>>().join(", ")
            ))
        })?;
        if entry.needs(Need::Database) && settings.db.is_none() {
            return Err(ConfigError(format!(
                "`{name}` needs a database: pass --db FILE_OR_URL or set db = \"...\" in the configuration"
            ))
            .into());
        }
        // What a tool needs from outside (an interpreter, a database that opens) is the
        // configuration's to fix (exit code 2).
        let tool = entry.build(&setup).map_err(|e| match crate::catalogue::needs_outside(entry) {
            true => ConfigError(e.to_string()).into(),
            false => anyhow::Error::from(e),
        })?;
        out.push(tool);
    }
    Ok(out)
}

/// Every built-in tool, for the agents and tool steps of a workflow file (`run_tests` and
/// `coverage` only in a folder trusted to run its own code): working in the current directory, `ask_user` deferred, each call checked against the settings'
/// permission policy with nobody to ask (so `ask` refuses, as in `lucid run`), unless
/// `guarded` is false (the workflow's agents then carry the policy themselves).
pub fn workflow_registry(settings: &AgentSettings, guarded: bool) -> anyhow::Result<ToolRegistry> {
    let setup = setup(settings)?;
    let policy = policy(settings, None);
    let mut registry = ToolRegistry::new();
    // A workflow runs unattended: the project's own code only in a folder trusted before.
    let trusted = crate::trust::is_trusted(&std::env::current_dir()?);
    for entry in catalogue() {
        if !trusted && entry.needs(Need::ProjectCode) {
            tracing::info!(
                "tool {} left out: this folder is not trusted to run its own code (lucid run --trust)",
                entry.name
            );
            continue;
        }
        match entry.build(&setup) {
            Ok(tool) => registry.add_arc(if guarded { policy.guard(tool) } else { tool }),
            // What needs something outside (an interpreter) is left out when it is
            // missing: a workflow that does not use it should not fail for it.
            Err(e) if crate::catalogue::needs_outside(entry) => tracing::info!("tool {} left out: {e}", entry.name),
            Err(e) => return Err(e.into()),
        }
    }
    Ok(registry)
}

/// What the built-in tools of these settings are made from: the root (else the current directory), the
/// shell's timeout, the interpreter, the protected paths lifted.
/// `schema_history` keeps its versions in the session store (`store`: a SQLite file, else
/// the default file, or a Postgres store), per project (`db_project`, else the
/// database's path or URL without credentials).
fn schema_history(sql: SqlConfig, settings: &AgentSettings) -> anyhow::Result<SqlConfig> {
    let spec = settings.store.clone().unwrap_or_default();
    if spec.starts_with("postgres://") || spec.starts_with("postgresql://") {
        #[cfg(feature = "postgres")]
        return Ok(sql.schema_history_in_postgres(spec, settings.db_project.clone()));
        #[cfg(not(feature = "postgres"))]
        return Err(ConfigError(
            "this lucid was built without Postgres support: rebuild with `--features postgres`".into(),
        )
        .into());
    }
    let path = crate::sessions::sqlite_path(&spec)?;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| ConfigError(format!("cannot create {}: {e}", dir.display())))?;
    }
    Ok(sql.schema_history(path, settings.db_project.clone()))
}

fn setup(settings: &AgentSettings) -> anyhow::Result<Setup> {
    let mut sandbox = SandboxConfig::default()
        .shell_timeout(settings.shell_timeout)
        .network(settings.shell_network)
        .environment(environment(settings));
    if let Some(python) = &settings.python {
        sandbox = sandbox.python(python);
    }
    let files =
        settings.writable_protected.iter().fold(lucid_tools::FilesConfig::default(), |f, p| f.unprotect(p.clone()));
    let root = match &settings.root {
        Some(root) => root.clone(),
        None => std::env::current_dir()?,
    };
    let mut setup = Setup::new(root).with(sandbox).with(files);
    if let Some(db) = &settings.db {
        let mut sql = SqlConfig::new(db);
        if settings.tools.iter().any(|t| t == "schema_history") {
            sql = schema_history(sql, settings)?;
        }
        setup = setup.with(sql);
    }
    #[cfg(feature = "test-tools")]
    {
        setup = setup.with(test_commands(&settings.tests)?);
    }
    Ok(setup)
}

/// `[tests]` applied: the commands of `run_tests` and `coverage`, their timeout.
#[cfg(feature = "test-tools")]
fn test_commands(tests: &crate::config::file::TestsSection) -> Result<lucid_code::TestsConfig, ConfigError> {
    use lucid_code::ReportFormat;
    let mut setup = lucid_code::TestsConfig::default();
    if let Some(secs) = tests.timeout_secs {
        setup = setup.timeout(std::time::Duration::from_secs(secs.max(1)));
    }
    match (&tests.command, &tests.report) {
        (Some(command), Some(report)) => {
            let format = match report.split_once(':') {
                Some(("junit", path)) => ReportFormat::JunitXml(path.into()),
                Some(("jest-json", path)) => ReportFormat::JestJson(path.into()),
                None if report == "libtest-json" => ReportFormat::LibtestJson,
                None if report == "go-json" => ReportFormat::GoTestJson,
                _ => {
                    return Err(ConfigError(format!(
                        "[tests] report = \"{report}\": use junit:PATH, libtest-json, go-json or jest-json:PATH"
                    )));
                }
            };
            setup = setup.test_command(command, format);
        }
        (None, None) => {}
        _ => return Err(ConfigError("[tests] needs both `command` and `report`, or neither".into())),
    }
    match (&tests.coverage_command, &tests.coverage_report) {
        (Some(command), Some(report)) => setup = setup.coverage_command(command, report),
        (None, None) => {}
        _ => {
            return Err(ConfigError("[tests] needs both `coverage_command` and `coverage_report`, or neither".into()));
        }
    }
    Ok(setup)
}

/// The environment `shell` and `python` start with: the allowlisted variables and the
/// configuration's `tool_env`, or (in `lucid serve`) none of this process's.
fn environment(settings: &AgentSettings) -> Environment {
    if settings.isolated_tool_env {
        return Environment::isolated();
    }
    settings.tool_env.iter().fold(Environment::inherited(), |env, name| env.pass(name))
}

/// The permission policy of the settings; `ask` goes to `approver`, or is refused.
pub fn policy(settings: &AgentSettings, approver: Option<Arc<dyn Approver>>) -> PermissionPolicy {
    let mut p = PermissionPolicy::allow_all();
    for (tool, permission) in &settings.permissions {
        p = p.set(tool.clone(), *permission);
    }
    for rule in &settings.rules {
        p = p.rule(rule.clone());
    }
    match approver {
        Some(a) => p.approver(a),
        None => p,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::{AgentArgs, ToolDefaults};
    use crate::config::file::Settings;

    #[test]
    fn the_configuration_names_the_tools_environment_and_serve_isolates_it() {
        let file: Settings = toml::from_str("tool_env = [\"CARGO_HOME\"]\nshell_network = true").unwrap();
        let mut settings = crate::config::agent_settings(&AgentArgs::default(), &file, ToolDefaults::Run).unwrap();
        assert_eq!(settings.tool_env, ["CARGO_HOME"]);
        assert!(settings.shell_network);
        assert!(!environment(&settings).is_isolated());
        settings.isolated_tool_env = true;
        assert!(environment(&settings).is_isolated());
    }

    #[cfg(feature = "test-tools")]
    #[test]
    fn the_tests_section_configures_run_tests_and_half_a_command_is_an_error() {
        let read = |text: &str| {
            let file: Settings = toml::from_str(text).unwrap();
            let settings = crate::config::agent_settings(&AgentArgs::default(), &file, ToolDefaults::Run).unwrap();
            setup(&settings)
        };
        assert!(read("[tests]\ncommand = \"make check\"\nreport = \"junit:out/report.xml\"\ntimeout_secs = 9").is_ok());
        let err = read("[tests]\ncommand = \"make check\"\nreport = \"xml\"").unwrap_err().to_string();
        assert!(err.contains("use junit:PATH, libtest-json, go-json or jest-json:PATH"), "{err}");
        let err = read("[tests]\ncoverage_command = \"make cov\"").unwrap_err().to_string();
        assert!(err.contains("both `coverage_command` and `coverage_report`"), "{err}");
    }
}
