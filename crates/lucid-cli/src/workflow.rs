//! `lucid workflow run FILE --input k=v`.

use std::sync::Arc;

use lucid::model::ChatModel;
use lucid::orchestrate::workflow::{WorkflowEvent, WorkflowFile};
use serde_json::{Map, Value};

use crate::args::{AgentArgs, ToolDefaults, WorkflowAction};
use crate::config::file::Settings;
use crate::config::{self, ConfigError};

/// Runs the action and returns the exit code.
pub async fn run(action: WorkflowAction, settings: &Settings) -> anyhow::Result<i32> {
    let WorkflowAction::Run { file, inputs, json, model, mcp } = action;
    let spec = WorkflowFile::from_path(&file)?;
    let input = parse_inputs(&inputs)?;
    // Agents without a `model` use the command line's; it is resolved only if one needs it.
    let default =
        if spec.needs_default_model() { Some(config::resolve(&model, settings).await?.build()?) } else { None };
    let models = move |named: Option<&str>| -> lucid::Result<Arc<dyn ChatModel>> {
        match (named, &default) {
            // `provider:model` named in the file: the same factory, as `--provider --model` would.
            (Some(spec), _) => {
                config::resolve_named(spec, &model, settings).map_err(|ConfigError(e)| lucid::Error::Config(e))?.build()
            }
            (None, Some(m)) => Ok(Arc::clone(m)),
            (None, None) => Err(lucid::Error::Config("no default model".into())),
        }
    };
    // The tool list of the settings is for `run` and `chat`; a workflow's agents name theirs.
    let mut agent = config::agent_settings(&AgentArgs::default(), settings, ToolDefaults::Run)?;
    // MCP servers start at once; their tools ask (so are refused) unless `--allow`ed.
    let (servers, _) = crate::mcp::start(&crate::mcp::servers(settings.mcp.as_ref(), &mcp)?, false).await?;
    let mcp_tools = crate::mcp::tools(&servers)?;
    for (tool, permission) in &mcp_tools {
        let name = tool.spec().name().to_string();
        let allowed = mcp.allow.iter().any(|p| crate::mcp::glob(p, &name));
        agent.permissions.insert(name, if allowed { lucid::tool::permission::Permission::Allow } else { *permission });
    }
    for entry in lucid::tool::builtin::CATALOGUE {
        if mcp.allow.iter().any(|p| crate::mcp::glob(p, entry.name)) {
            agent.permissions.insert(entry.name.to_string(), lucid::tool::permission::Permission::Allow);
        }
    }
    let mut tools = crate::tools::workflow_registry(&agent)?;
    let policy = crate::tools::policy(&agent, None);
    for (tool, _) in mcp_tools {
        tools.add_arc(policy.guard(tool));
    }
    let flow = spec.build(&models, &tools)?;
    let run = flow
        .run_with_events(Value::Object(input), move |e| {
            if json {
                return;
            }
            match e {
                WorkflowEvent::StepStarted { step, attempt } if attempt > 1 => eprintln!("[{step}] attempt {attempt}"),
                WorkflowEvent::StepStarted { step, .. } => eprintln!("[{step}] started"),
                WorkflowEvent::StepFinished { step, duration, .. } => {
                    eprintln!("[{step}] done in {:.1} ms", duration.as_secs_f64() * 1000.0)
                }
                WorkflowEvent::StepFailed { step, error, will_retry, .. } => {
                    eprintln!("[{step}] failed{}: {error}", if will_retry { ", retrying" } else { "" })
                }
                WorkflowEvent::BranchTaken { step, then } => {
                    eprintln!("[{step}] took the {} branch", if then { "then" } else { "else" })
                }
                WorkflowEvent::LoopIteration { step, iteration } => eprintln!("[{step}] iteration {iteration}"),
                WorkflowEvent::ForEachItem { step, index } => eprintln!("[{step}] item {index}"),
                _ => {}
            }
        })
        .await?;
    if json {
        println!("{}", serde_json::to_string(&run)?);
    } else {
        match &run.output {
            Value::String(s) => println!("{s}"),
            other => println!("{}", serde_json::to_string_pretty(other)?),
        }
    }
    Ok(0)
}

/// `NAME=VALUE` pairs; a VALUE that is JSON is taken as JSON (`n=3` is a number).
fn parse_inputs(pairs: &[String]) -> Result<Map<String, Value>, ConfigError> {
    let mut map = Map::new();
    for pair in pairs {
        let (name, value) =
            pair.split_once('=').ok_or_else(|| ConfigError(format!("--input takes NAME=VALUE, got `{pair}`")))?;
        let value = serde_json::from_str(value).unwrap_or_else(|_| Value::String(value.to_string()));
        map.insert(name.trim().to_string(), value);
    }
    Ok(map)
}
