//! The tools and permission policy of `lucid run` and `lucid chat`, from resolved settings.

use std::sync::Arc;

use lucid::Tool;
use lucid::tool::builtin::{Shell, Workspace};
use lucid::tool::permission::{Approver, PermissionPolicy};
use lucid::tool::{AskUser, Interviewer, ToolSet};

use crate::config::{AgentSettings, ConfigError};

/// Every tool name `--tools` accepts.
pub const NAMES: &[&str] = &[
    "calculator",
    "current_time",
    "ask_user",
    "read_file",
    "list_dir",
    "search_files",
    "write_file",
    "edit_file",
    "shell",
];

/// The tools named in the settings. File tools and the shell work in the current
/// directory; `ask_user` is answered by `interviewer`, or stops the run without one.
pub fn build(
    settings: &AgentSettings,
    interviewer: Option<Arc<dyn Interviewer>>,
) -> anyhow::Result<Vec<Arc<dyn Tool>>> {
    let mut out: Vec<Arc<dyn Tool>> = Vec::new();
    let mut workspace: Option<Vec<Arc<dyn Tool>>> = None;
    let cwd = std::env::current_dir()?;
    for name in &settings.tools {
        let tool: Arc<dyn Tool> = match name.as_str() {
            "ask_user" => Arc::new(match &interviewer {
                Some(i) => AskUser::new(Arc::clone(i)),
                None => AskUser::deferred(),
            }),
            "shell" => Arc::new(Shell::new(&cwd).timeout(settings.shell_timeout)),
            "read_file" | "list_dir" | "search_files" | "write_file" | "edit_file" => {
                let tools = match &workspace {
                    Some(t) => t.clone(),
                    None => {
                        let t = Arc::new(Workspace::new(&cwd)?).tools();
                        workspace = Some(t.clone());
                        t
                    }
                };
                match tools.into_iter().find(|t| t.spec().name() == name) {
                    Some(t) => t,
                    None => anyhow::bail!("the workspace has no tool `{name}`"),
                }
            }
            other => lucid::tool::builtin::by_name(other)
                .ok_or_else(|| ConfigError(format!("unknown tool `{other}`; tools: {}", NAMES.join(", "))))?,
        };
        out.push(tool);
    }
    Ok(out)
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
