//! `lucid run`: one task, printed as text, streamed, or as one JSON object.

use std::io::{IsTerminal, Write};

use anyhow::Context as _;
use futures::StreamExt;
use lucid::{Agent, AgentEvent, AgentResult, FinishReason, StopReason};
use serde_json::json;

use crate::args::{OutputFormat, PlanMode, RunArgs};
use crate::config::{AgentSettings, ConfigError, ModelConfig};
use crate::display::{safe, truncate};
use crate::request::{Request, RequestError, answer_fields};
use crate::seed::SeedAnswer;

/// Reads the prompt from the arguments, or from standard input for `-` or nothing.
fn prompt(args: &RunArgs) -> anyhow::Result<String> {
    let joined = args.prompt.join(" ");
    if !joined.is_empty() && joined != "-" {
        return Ok(joined);
    }
    if std::io::stdin().is_terminal() && joined.is_empty() {
        return Err(ConfigError("no task given: lucid run \"your task\" (or pipe it on standard input)".into()).into());
    }
    let mut s = String::new();
    std::io::Read::read_to_string(&mut std::io::stdin(), &mut s).context("reading the task from standard input")?;
    if s.trim().is_empty() {
        return Err(ConfigError("the task read from standard input is empty".into()).into());
    }
    Ok(s)
}

/// Runs the task and returns the process exit code.
pub async fn run(
    mut args: RunArgs,
    cfg: ModelConfig,
    mut settings: AgentSettings,
    servers: std::collections::BTreeMap<String, crate::mcp::ServerConfig>,
) -> anyhow::Result<i32> {
    // The seed's shape is the `--json` run's answer, printed in that shape.
    let seed = args.output_format == Some(OutputFormat::Seed);
    if args.output_format.is_some_and(|f| f != OutputFormat::Text) {
        args.json = true;
    }
    let request = match &args.input {
        Some(path) => match read_request(path)? {
            Ok(r) => Some(r),
            Err(e) => {
                println!("{}", e.to_json());
                eprintln!("lucid: {e}");
                return Ok(2);
            }
        },
        None => None,
    };
    let prompt = match &request {
        Some(r) => {
            if let Some(tools) = &r.required_tools {
                // A request narrows the run's tools; it never adds one the configuration
                // (and its permissions) did not give the run.
                if let Some(e) = not_configured(tools, &settings.tools) {
                    println!("{}", e.to_json());
                    eprintln!("lucid: {e}");
                    return Ok(2);
                }
                settings.tools.retain(|t| tools.contains(t));
            }
            if let Some(op) = r.operation {
                settings.tools.retain(|t| op.keeps(t));
                tracing::info!(operation = op.name(), tools = ?settings.tools, "the request's operation");
            }
            args.agent.session.clone_from(&r.session_id);
            args.json = true;
            r.prompt()
        }
        None => prompt(&args)?,
    };
    let mut attachments = Vec::new();
    for path in &args.attach {
        attachments.push(crate::attach::load(path)?);
    }
    if let Some(r) = &request {
        attachments.extend(r.attachments.iter().cloned());
    }
    let answering = request.as_ref().map(|r| Answering { model: cfg.model.clone(), session: r.session_id.clone() });
    let answering = answering.as_ref();
    let (servers, _) = crate::mcp::start(&servers, false, true).await?;
    let mcp_tools = crate::mcp::tools(&servers)?;
    for (tool, permission) in &mcp_tools {
        settings.permissions.insert(tool.spec().name().to_string(), *permission);
    }
    // `--allow` grants up front what a run cannot ask for.
    let names: Vec<String> =
        settings.tools.iter().cloned().chain(mcp_tools.iter().map(|(t, _)| t.spec().name().to_string())).collect();
    for name in names {
        if args.agent.mcp.allow.iter().any(|p| crate::mcp::glob(p, &name)) {
            settings.permissions.insert(name, lucid::tool::permission::Permission::Allow);
        }
    }
    let mut mcp_tools: Vec<_> = mcp_tools.into_iter().map(|(t, _)| t).collect();
    let operation = request.as_ref().and_then(|r| r.operation);
    if operation.is_some_and(crate::operation::Operation::checklist) {
        mcp_tools.push(crate::checklist::tool());
    }
    let mut builder = crate::agent::builder(&cfg, &settings, crate::agent::People::default(), &mcp_tools).await?;
    // A program's run of a stored session can wait for approvals and be continued; without
    // a session nothing could continue it, so `ask` refuses as it always did.
    let approvable = args.json && args.agent.session.is_some();
    if approvable {
        builder = builder.permissions(crate::tools::policy(&settings, None).defer_asks(true));
    }
    let mut session = match &args.agent.session {
        Some(id) => {
            // A stored conversation has the layered memory, as in `lucid chat`.
            if let Some(memory) = crate::memory::conversation_memory(&cfg, &settings.memory)? {
                builder = builder.memory(memory);
            }
            builder
                .store(crate::sessions::open_store(settings.store.as_deref()).await?)
                .build()
                .session_with_id(id)
                .await?
        }
        None => builder.build().session(),
    };
    let canceller = session.canceller();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            tracing::warn!("interrupted: cancelling the run");
            canceller.cancel_now();
        }
    });
    tracing::info!(provider = %cfg.provider, model = %cfg.model, base_url = %cfg.base_url, "running");
    if let Some(path) = &args.schema {
        let text = std::fs::read_to_string(path).with_context(|| format!("reading the schema {}", path.display()))?;
        let schema: serde_json::Value = serde_json::from_str(&text)
            .map_err(|e| ConfigError(format!("the schema {} is not JSON: {e}", path.display())))?;
        let name = path
            .file_stem()
            .map_or("answer".into(), |s| s.to_string_lossy().replace(|c: char| !c.is_ascii_alphanumeric(), "_"));
        let format = lucid::model::ResponseFormat::JsonSchema { name, schema, strict: false };
        return match session.extract_json(prompt, format).await {
            Ok(value) => {
                println!("{value}");
                Ok(0)
            }
            Err(lucid::Error::NeedsInput { questions }) => Ok(print_questions(&questions, args.json)),
            Err(e) => Err(e.into()),
        };
    }
    // Answers to waiting calls continue that run: nothing to plan.
    let continues = request.as_ref().is_some_and(|r| r.approvals.is_some());
    // An operation other than `general` says how it is planned (a design by its checklist).
    let decided = operation.is_some_and(|op| !op.uses_configured_plan());
    let mode = if args.no_plan || continues || decided || !attachments.is_empty() {
        PlanMode::Never
    } else {
        args.plan.or(settings.plan).unwrap_or(PlanMode::Never)
    };
    // A session's or a schema's run is one turn of that conversation: never planned by auto.
    let mode = match mode {
        PlanMode::Auto if args.schema.is_some() || args.agent.session.is_some() => PlanMode::Never,
        m => m,
    };
    let primary = format!("{}:{}", cfg.provider, cfg.model);
    let shape = Shape { seed: seed.then_some((cfg.model.as_str(), primary.as_str())) };
    let mut extras = Extras { answering, triage: None, pending: None, expired: Vec::new(), seed: shape.seed };
    match mode {
        PlanMode::Always => {
            if let Some(code) = plan(session.agent(), &prompt, args.json, None, shape).await? {
                return Ok(code);
            }
        }
        PlanMode::Auto => match lucid_orchestrate::planner::triage(session.agent(), &prompt).await {
            Ok(t) => {
                tracing::info!(needs_plan = t.needs_plan, "plan auto decided");
                if t.needs_plan {
                    if !args.json {
                        eprintln!("lucid: the task has several parts: planning it (--plan=auto)");
                    }
                    if let Some(code) = plan(session.agent(), &prompt, args.json, Some(t), shape).await? {
                        return Ok(code);
                    }
                } else {
                    extras.triage = Some(t);
                }
            }
            // A small model that cannot answer the classification still answers the task.
            Err(e) => eprintln!("lucid: could not decide whether to plan ({e}); answering directly"),
        },
        PlanMode::Never => {}
    }
    let answers = request.as_ref().and_then(|r| r.approvals.clone());
    let resuming = answers.is_some();
    if let Some(mut answers) = answers {
        // Calls that waited too long are denied first; a late answer to one is dropped.
        let timeout = args.approval.approval_timeout.map_or(settings.approval_timeout, std::time::Duration::from_secs);
        let expired = session.expire_approvals(timeout).await?;
        crate::approvals::without_expired(&mut answers, &expired, timeout);
        extras.expired = expired;
        if let Err(e) = crate::approvals::record(&mut session, answers).await? {
            println!("{}", e.to_json());
            eprintln!("lucid: {e}");
            return Ok(2);
        }
    }
    let show_tools = !args.json && std::io::stderr().is_terminal();
    let outcome = if args.stream {
        let mut stdout = std::io::stdout().lock();
        let terminal = stdout.is_terminal();
        let mut events: std::pin::Pin<Box<dyn futures::Stream<Item = AgentEvent> + Send + '_>> = if resuming {
            Box::pin(session.resume_stream())
        } else {
            Box::pin(session.run_stream_parts(crate::attach::message_parts(prompt, attachments)))
        };
        let mut result = None;
        while let Some(ev) = events.next().await {
            match ev {
                AgentEvent::TextDelta(t) if !args.json => {
                    let t = if terminal { safe(&t) } else { t.as_str().into() };
                    stdout.write_all(t.as_bytes())?;
                    stdout.flush()?;
                }
                AgentEvent::ToolCallStarted { name, arguments, .. } if show_tools => {
                    eprintln!("\n[tool] {name} {arguments}");
                }
                AgentEvent::ToolCallFinished { output, is_error, duration, .. } if show_tools => {
                    let mark = if is_error { "error" } else { "ok" };
                    eprintln!("[tool] {mark} in {:.1} ms: {}", duration.as_secs_f64() * 1000.0, truncate(&output, 200));
                }
                AgentEvent::Fallback(s) if show_tools => {
                    eprintln!("\n[model] {} failed ({}); switching to {}", s.from, truncate(&s.error, 200), s.to);
                }
                AgentEvent::Completed(r) => result = Some(Ok(r)),
                AgentEvent::Error(e) => result = Some(Err(e)),
                _ => {}
            }
        }
        match result {
            Some(r) => r,
            None => anyhow::bail!("the run ended without a result"),
        }
    } else if resuming {
        session.resume().await
    } else {
        session.run_parts(crate::attach::message_parts(prompt, attachments)).await
    };
    // An answer whose turn could not be saved is still shown; the error follows it.
    let outcome = outcome.map(|mut r| {
        if let Some(t) = &extras.triage {
            r.usage += t.usage;
            let agent = session.agent();
            let label = format!("{}:{}", agent.model().provider(), agent.model().model_name());
            r.cost_usd = r.cost_usd.zip(agent.prices().cost(&label, &t.usage)).map(|(a, b)| a + b);
        }
        r
    });
    let (result, unsaved) = match outcome {
        Err(lucid::Error::TurnNotSaved { session, result, source }) => (*result, Some((session, source))),
        other => (other?, None),
    };
    if let Some((session, source)) = unsaved {
        print_result(&args, &result, &extras)?;
        eprintln!("lucid: the answer above could not be saved to session `{session}`: {source}");
        return Ok(1);
    }
    let mut result = result;
    if let Some(questions) = crate::seed::questions_of(&result.content) {
        // The JSON protocol's answer (`needs_interview`, or the seed's `needsInterview`).
        result.stop_reason = StopReason::NeedsInput;
        result.questions = questions;
    }
    if result.stop_reason == StopReason::NeedsInput {
        if args.json {
            // One object, the questions in it; nothing else on stdout.
            print_result(&args, &result, &extras)?;
            eprintln!("lucid: {ANSWER_AND_RUN_AGAIN}");
            return Ok(4);
        }
        return Ok(print_questions(&result.questions, false));
    }
    if result.stop_reason == StopReason::Deferred {
        let pending = session.pending_approvals();
        extras.pending = Some(crate::approvals::pending_json(&pending));
        print_result(&args, &result, &extras)?;
        let id = session.id().unwrap_or_default();
        eprintln!(
            "lucid: {} tool call(s) wait for approval: answer them with `lucid run --input` carrying \
             {{\"sessionId\": \"{}\", \"approvals\": [...]}}",
            pending.len(),
            safe(id)
        );
        return Ok(crate::approvals::EXIT_NEEDS_APPROVAL);
    }
    let mut shown_earlier = false;
    if result.stop_reason == StopReason::MaxIterations && result.content.trim().is_empty() && !args.stream {
        // The last call asked for tools: show the last text the model wrote this turn.
        if let Some(text) = last_text_of_turn(session.messages()) {
            result.content = text.to_string();
            shown_earlier = true;
        }
    }
    print_result(&args, &result, &extras)?;
    match result.finish_reason {
        Some(FinishReason::ContentFilter) => eprintln!("lucid: the provider's content filter stopped the answer"),
        Some(FinishReason::Length) if result.stop_reason == StopReason::Completed => {
            eprintln!("lucid: the answer was cut off by the output token limit")
        }
        _ => {}
    }
    Ok(match result.stop_reason {
        StopReason::Completed => 0,
        StopReason::MaxIterations => {
            let ran = result.tool_calls.iter().filter(|c| c.output.is_some()).count();
            let shown = if shown_earlier {
                "; above is the last text the model wrote"
            } else if result.content.trim().is_empty() {
                "; the model wrote no text"
            } else {
                ""
            };
            eprintln!(
                "lucid: stopped after {} model calls (--max-iterations) and {ran} tool calls; the task is not \
                 finished{shown}{}",
                result.iterations,
                if ran > 0 && !args.json { " (--json shows every tool result)" } else { "" }
            );
            3
        }
        StopReason::Cancelled => 130,
        StopReason::NeedsInput => 4,
        StopReason::OutputLimit => {
            eprintln!(
                "lucid: {} (raise it with --max-tokens)",
                result.stop_message.as_deref().unwrap_or("a tool call was cut off by the output token limit")
            );
            3
        }
        _ => {
            if let Some(why) = &result.stop_message {
                eprintln!("lucid: {why}");
            }
            3
        }
    })
}

const ANSWER_AND_RUN_AGAIN: &str =
    "answer the questions and run again (with --session, the answers continue the conversation)";

/// Prints the model's questions (nobody can answer them here) and returns exit code 4;
/// with `json`, as one object `{"content": null, "questions", "stop_reason": "needs_input"}`.
pub fn print_questions(questions: &[String], json: bool) -> i32 {
    if json {
        println!("{}", json!({"content": null, "questions": questions, "stop_reason": "needs_input"}));
    } else {
        println!("The model needs more information:");
        for (i, q) in questions.iter().enumerate() {
            println!("  {}. {}", i + 1, safe(q));
        }
    }
    eprintln!("lucid: {ANSWER_AND_RUN_AGAIN}");
    4
}

/// `lucid run --plan`: the plan and each step on standard error, the answer on standard
/// output; the exit code, or `None` when planning failed and the task is to be answered
/// directly.
async fn plan(
    agent: &Agent,
    task: &str,
    json: bool,
    triage: Option<lucid_orchestrate::planner::Triage>,
    shape: Shape<'_>,
) -> anyhow::Result<Option<i32>> {
    use lucid_orchestrate::planner::{PlanEvent, Planner};
    let quiet = json;
    let run = Planner::new(agent, agent)
        .run_with_events(task, move |event| {
            if quiet {
                return;
            }
            match event {
                PlanEvent::Planned { revision, plan } => {
                    eprintln!(
                        "{}:",
                        if revision == 0 { "plan".to_string() } else { format!("plan, revision {revision}") }
                    );
                    for s in &plan.steps {
                        let after = if s.depends_on.is_empty() {
                            String::new()
                        } else {
                            format!(" (after {})", s.depends_on.join(", "))
                        };
                        eprintln!("  {}. {}{after}", s.id, s.task);
                    }
                }
                PlanEvent::StepStarted { id, .. } => eprintln!("[{id}] started"),
                PlanEvent::StepFinished { id, success, result, duration } => eprintln!(
                    "[{id}] {} in {:.1} s: {}",
                    if success { "done" } else { "FAILED" },
                    duration.as_secs_f64(),
                    truncate(&result, 160)
                ),
                PlanEvent::Replanning { failed, .. } => eprintln!("re-planning after `{failed}` failed"),
                PlanEvent::Synthesizing => eprintln!("writing the answer"),
                _ => {}
            }
        })
        .await;
    let run = match run {
        Ok(run) => run,
        Err(e) => {
            eprintln!("lucid: planning failed ({e}); answering directly");
            return Ok(None);
        }
    };
    let mut run = run;
    if let Some((model, _)) = shape.seed {
        if let Some(t) = triage {
            run.usage += t.usage;
        }
        println!("{}", SeedAnswer::of_plan(&run.answer, run.usage, model, !run.steps.is_empty()).to_line());
    } else if json {
        let mut v = serde_json::to_value(&run)?;
        if let Some(t) = triage {
            run.usage += t.usage;
            v["usage"] = serde_json::to_value(run.usage)?;
            v["plan"] = plan_json(&t);
        }
        println!("{v}");
    } else {
        println!("{}", run.answer);
    }
    Ok(Some(0))
}

/// Reads the request of `--input` (`-`: standard input); a malformed one is the inner error.
/// The first of a request's `requiredTools` this run was not configured with, as the
/// request's error.
fn not_configured(required: &[String], configured: &[String]) -> Option<RequestError> {
    let (i, name) = required.iter().enumerate().find(|(_, name)| !configured.contains(name))?;
    Some(RequestError::new(
        format!("requiredTools[{i}]"),
        format!(
            "`{name}` is not one of this run's tools ({}): a request can narrow the tools, not add one \
             (turn it on with --tools or the configuration's `tools`)",
            configured.join(", ")
        ),
    ))
}

fn read_request(path: &std::path::Path) -> anyhow::Result<Result<Request, RequestError>> {
    let text = if path == std::path::Path::new("-") {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut s)
            .context("reading the request from standard input")?;
        s
    } else {
        std::fs::read_to_string(path).with_context(|| format!("reading the request {}", path.display()))?
    };
    Ok(Request::parse(&text, |name| crate::catalogue::find(name).is_some()))
}

/// What an answer to a `--input` request adds: the model and the session.
struct Answering {
    model: String,
    session: Option<String>,
}

/// The text of the last assistant message of the latest turn that has any.
fn last_text_of_turn(messages: &[lucid::Message]) -> Option<&str> {
    messages
        .iter()
        .rev()
        .take_while(|m| !matches!(m, lucid::Message::User { .. }))
        .filter_map(|m| match m {
            lucid::Message::Assistant(a) if !a.content.trim().is_empty() => Some(a.content.as_str()),
            _ => None,
        })
        .next()
}

/// What `--json` adds to the result: the `--input` answer's fields and the `--plan auto`
/// decision (whose usage is already in the result's).
struct Extras<'a> {
    answering: Option<&'a Answering>,
    /// `--plan=auto` decided to answer at once.
    triage: Option<lucid_orchestrate::planner::Triage>,
    /// The calls waiting for approval (`stop_reason: "needs_approval"`).
    pending: Option<serde_json::Value>,
    /// The calls denied because they waited longer than the approval timeout.
    expired: Vec<String>,
    /// `--output-format seed`: the configured model's name and its `provider:model` label.
    seed: Option<(&'a str, &'a str)>,
}

/// How a planned run's answer is printed: the seed's shape (with the model's name) or not.
#[derive(Clone, Copy)]
struct Shape<'a> {
    seed: Option<(&'a str, &'a str)>,
}

/// What `--json` says of a `--plan=auto` decision.
fn plan_json(t: &lucid_orchestrate::planner::Triage) -> serde_json::Value {
    json!({"mode": "auto", "planned": t.needs_plan, "usage": t.usage})
}

fn print_result(args: &RunArgs, r: &AgentResult, extras: &Extras<'_>) -> anyhow::Result<()> {
    let answering = extras.answering;
    let mut out = std::io::stdout().lock();
    if let Some((model, primary)) = extras.seed {
        writeln!(out, "{}", SeedAnswer::of_run(r, model, primary).to_line())?;
    } else if args.json {
        let calls: Vec<_> = r
            .tool_calls
            .iter()
            .map(|c| json!({"id": c.id, "name": c.name, "arguments": c.arguments, "output": c.output, "is_error": c.is_error}))
            .collect();
        let mut v = json!({
            "content": r.content,
            "tool_calls": calls,
            "iterations": r.iterations,
            // Input and output always; cached, cache-write and reasoning tokens when there are any.
            "usage": r.usage,
            // Dollars, from the models' prices; null when a model has no known price.
            "cost_usd": r.cost_usd,
            "stop_reason": if r.stop_reason == StopReason::Deferred { "needs_approval" } else { r.stop_reason.as_str() },
        });
        if let Some(pending) = &extras.pending {
            v["pending_approvals"] = pending.clone();
        }
        if !extras.expired.is_empty() {
            v["expired_approvals"] = json!(extras.expired);
        }
        if let Some(why) = &r.stop_message {
            v["stop_message"] = json!(why);
        }
        if !r.questions.is_empty() {
            v["questions"] = json!(r.questions);
        }
        // Which model answered (a backup, after a switch), and the usage of each.
        if let Some(m) = &r.model {
            v["model"] = json!(m);
        }
        if !r.model_usage.is_empty() {
            v["model_usage"] = json!(r.model_usage);
        }
        if let Some(t) = &extras.triage {
            v["plan"] = plan_json(t);
        }
        if let (Some(a), Some(map)) = (answering, v.as_object_mut()) {
            answer_fields(map, &a.model, a.session.as_deref(), !r.tool_calls.is_empty());
        }
        writeln!(out, "{v}")?;
    } else if args.stream {
        writeln!(out)?;
    } else if r.content.is_empty() {
        // Nothing to print: no empty line either.
    } else if out.is_terminal() {
        writeln!(out, "{}", safe(&r.content))?;
    } else {
        writeln!(out, "{}", r.content)?;
    }
    Ok(())
}
