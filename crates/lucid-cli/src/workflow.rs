//! `lucid workflow run FILE --input k=v`.
//!
//! With `--json --session NAME`, an agent step whose model calls a tool marked `ask` stops
//! the workflow as `lucid run` stops: `stop_reason: "needs_approval"`, the waiting calls in
//! `pending_approvals` (each with its `step`), exit code 5. The paused workflow (the
//! finished steps' outputs, the waiting steps' sessions) is kept in the store under the
//! session NAME, and `--resume FILE` with `{"approvals": [...]}` continues it from that
//! step.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use lucid::model::ChatModel;
use lucid::store::SessionStore;
use lucid_orchestrate::workflow::{PausedWorkflow, StepApproval, WorkflowEvent, WorkflowFile, WorkflowRun};
use serde_json::{Map, Value, json};

use crate::args::{AgentArgs, ToolDefaults, WorkflowAction};
use crate::config::file::Settings;
use crate::config::{self, ConfigError};
use crate::request::RequestError;

/// The metadata key of a stored session under which a paused workflow waits.
const PAUSED_KEY: &str = "paused_workflow";

/// Runs the action and returns the exit code.
pub async fn run(action: WorkflowAction, settings: &Settings) -> anyhow::Result<i32> {
    let WorkflowAction::Run { file, inputs, json, session, resume, approval, store, model, mcp } = action;
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
    let mut agent = config::agent_settings(&AgentArgs { store, ..AgentArgs::default() }, settings, ToolDefaults::Run)?;
    // MCP servers start at once; their tools ask (so are refused) unless `--allow`ed.
    let (servers, _) = crate::mcp::start(&crate::mcp::servers(settings.mcp.as_ref(), &mcp)?, false, true).await?;
    let mcp_tools = crate::mcp::tools(&servers)?;
    for (tool, permission) in &mcp_tools {
        let name = tool.spec().name().to_string();
        let allowed = mcp.allow.iter().any(|p| crate::mcp::glob(p, &name));
        agent.permissions.insert(name, if allowed { lucid::tool::permission::Permission::Allow } else { *permission });
    }
    for entry in crate::catalogue::catalogue() {
        if mcp.allow.iter().any(|p| crate::mcp::glob(p, entry.name)) {
            agent.permissions.insert(entry.name.to_string(), lucid::tool::permission::Permission::Allow);
        }
    }
    // A program's run kept in a session can wait for approvals and be continued; without
    // one nothing could continue it, so `ask` refuses as it always did.
    let approvable = json && session.is_some();
    let mut tools = crate::tools::workflow_registry(&agent, !approvable)?;
    let policy = crate::tools::policy(&agent, None);
    for (tool, _) in mcp_tools {
        tools.add_arc(if approvable { tool } else { policy.guard(tool) });
    }
    let flow = if approvable {
        spec.build_with_policy(&models, &tools, &policy.defer_asks(true))?
    } else {
        spec.build(&models, &tools)?
    };
    let on_event = move |e: WorkflowEvent| {
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
    };
    let kept = match (approvable, &session) {
        (true, Some(id)) => Some((crate::sessions::open_store(agent.store.as_deref()).await?, id.clone())),
        _ => None,
    };
    let Some((store, id)) = kept else {
        let run = flow.run_with_events(Value::Object(input), on_event).await?;
        print(&run, json)?;
        return Ok(0);
    };
    let waiting = load(store.as_ref(), &id).await?;
    let mut expired = Vec::new();
    let run = match (resume, waiting) {
        (Some(answers), Some(mut paused)) => {
            let mut answers = match read_answers(&answers)? {
                Ok(a) => a,
                Err(e) => return Ok(refuse(&e)),
            };
            let timeout = approval.approval_timeout.map_or(agent.approval_timeout, Duration::from_secs);
            expired = paused.expire_approvals(&flow, timeout).await?;
            crate::approvals::without_expired(&mut answers, &expired, timeout);
            for (i, answer) in answers.into_iter().enumerate() {
                if let Err(e) = paused.decide(&flow, answer).await {
                    // Nothing recorded: the stored workflow still waits as it did.
                    let Err(e) = crate::approvals::refused(i, e)? else { continue };
                    return Ok(refuse(&e));
                }
            }
            flow.resume_with_events(paused, on_event).await
        }
        (Some(_), None) => {
            return Ok(refuse(&RequestError::new(
                "",
                format!("no workflow waits for approval in session `{}`", crate::display::safe(&id)),
            )));
        }
        (None, Some(paused)) => {
            return Ok(refuse(&RequestError::new(
                "",
                format!(
                    "session `{}` holds the workflow `{}` waiting for approval: answer it with --resume FILE, \
                     or delete the session",
                    crate::display::safe(&id),
                    crate::display::safe(paused.workflow())
                ),
            )));
        }
        (None, None) => flow.run_with_events(Value::Object(input), on_event).await,
    };
    // Whatever happened after a resume started (finished, failed, waits again), the
    // waiting state it started from is spent.
    let run = match run {
        Ok(run) => run,
        Err(e) => {
            keep(store.as_ref(), &id, None).await?;
            return Err(e.into());
        }
    };
    keep(store.as_ref(), &id, run.paused.as_ref()).await?;
    let Some(paused) = &run.paused else {
        let mut v = serde_json::to_value(&run)?;
        v["stop_reason"] = json!("completed");
        if !expired.is_empty() {
            v["expired_approvals"] = json!(expired);
        }
        println!("{v}");
        return Ok(0);
    };
    let pending = paused.pending_approvals();
    let mut v = serde_json::to_value(&run)?;
    v["stop_reason"] = json!("needs_approval");
    v["pending_approvals"] = pending_json(&pending);
    v["session"] = json!(id);
    if !expired.is_empty() {
        v["expired_approvals"] = json!(expired);
    }
    println!("{v}");
    eprintln!(
        "lucid: {} tool call(s) wait for approval: answer them with `lucid workflow run {} --json --session {} \
         --resume FILE` carrying {{\"approvals\": [...]}}",
        pending.iter().filter(|p| !p.call.answered).count(),
        crate::display::safe(&file.display().to_string()),
        crate::display::safe(&id)
    );
    Ok(crate::approvals::EXIT_NEEDS_APPROVAL)
}

/// Prints a finished run: its last output, or with `json` the whole run.
fn print(run: &WorkflowRun, json: bool) -> anyhow::Result<()> {
    if json {
        let mut v = serde_json::to_value(run)?;
        v["stop_reason"] = json!("completed");
        println!("{v}");
    } else {
        match &run.output {
            Value::String(s) => println!("{s}"),
            other => println!("{}", serde_json::to_string_pretty(other)?),
        }
    }
    Ok(())
}

/// A refused request: its error as JSON on standard output, exit code 2.
fn refuse(e: &RequestError) -> i32 {
    println!("{}", e.to_json());
    eprintln!("lucid: {e}");
    2
}

/// The waiting calls as `--json` shows them, each with its step.
fn pending_json(pending: &[StepApproval]) -> Value {
    let mut v = json!(
        pending
            .iter()
            .map(|p| json!({"call_id": p.call.call_id, "tool": p.call.tool, "arguments": p.call.arguments,
                            "requested_at": p.call.requested_at, "answered": p.call.answered,
                            "step": p.step, "path": p.path}))
            .collect::<Vec<_>>()
    );
    lucid::redact::redact_json(&mut v);
    v
}

/// The paused workflow kept in session `id`, if any.
async fn load(store: &dyn SessionStore, id: &str) -> anyhow::Result<Option<PausedWorkflow>> {
    let Some(stored) = store.load(id).await? else { return Ok(None) };
    let Some(value) = stored.info.metadata.get(PAUSED_KEY).filter(|v| !v.is_null()) else { return Ok(None) };
    let paused = serde_json::from_value(value.clone())
        .with_context(|| format!("session `{id}` holds a paused workflow this lucid cannot read"))?;
    Ok(Some(paused))
}

/// Keeps `paused` in session `id` (created if new), or forgets the one kept.
async fn keep(store: &dyn SessionStore, id: &str, paused: Option<&PausedWorkflow>) -> anyhow::Result<()> {
    let value = match paused {
        Some(p) => serde_json::to_value(p)?,
        None if store.load(id).await?.is_none() => return Ok(()),
        None => Value::Null,
    };
    store.create(id, json!({})).await?;
    store.merge_metadata(id, json!({ PAUSED_KEY: value })).await?;
    Ok(())
}

/// The answers of `--resume FILE` (`-`: standard input): `{"approvals": [...]}`.
fn read_answers(path: &Path) -> anyhow::Result<Result<Vec<lucid::approval::Answer>, RequestError>> {
    let text = if path == Path::new("-") {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut s)
            .context("reading the answers from standard input")?;
        s
    } else {
        std::fs::read_to_string(path).with_context(|| format!("reading the answers {}", path.display()))?
    };
    let value: Value = match serde_json::from_str(&text) {
        Ok(v) => v,
        Err(e) => return Ok(Err(RequestError::new("", format!("is not JSON: {e}")))),
    };
    let Value::Object(mut fields) = value else {
        return Ok(Err(RequestError::new("", "must be a JSON object: {\"approvals\": [...]}")));
    };
    if let Some(other) = fields.keys().find(|k| *k != "approvals") {
        return Ok(Err(RequestError::new(other.clone(), "is not a field of the answers (approvals)")));
    }
    match fields.remove("approvals") {
        Some(v) => Ok(crate::request::read_approvals(v)),
        None => Ok(Err(RequestError::new("approvals", "is missing"))),
    }
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
