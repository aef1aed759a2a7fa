//! The `lucid` command.
//!
//! Exit codes: 0 done, 1 provider or network error (or a failed workflow step), 2 bad
//! usage or configuration, 3 `--max-iterations` reached, 4 the model asked questions
//! nobody could answer, 5 tool calls wait for approval (`lucid run --json --session`),
//! 130 interrupted. An agent working target by target (`--agent unit-tests`): 0 the
//! coverage goal reached, 3 stopped by `--max-targets` or `--budget-tokens`, 1 tests still
//! failing or the goal missed.

mod agent;
mod agent_args;
mod agents;
mod approvals;
mod args;
mod attach;
mod catalogue;
mod chat;
mod checklist;
mod config;
mod config_show;
mod display;
mod eval;
mod local;
mod mcp;
mod memory;
mod models;
mod operation;
#[cfg(feature = "otel")]
mod otel;
mod request;
mod run;
mod seed;
#[cfg(feature = "server")]
mod serve;
mod sessions;
mod targets;
mod tools;
mod trust;
mod workflow;

use clap::Parser;
use tracing_subscriber::Layer;
use tracing_subscriber::filter::Targets;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

use args::{Cli, Command};
use config::ConfigError;

fn main() {
    end_quietly_on_a_closed_pipe();
    let cli = Cli::parse();
    let telemetry = init_logging(cli.verbose);
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("lucid: could not start the async runtime: {e}");
            std::process::exit(1);
        }
    };
    let code = runtime.block_on(async {
        match dispatch(cli).await {
            Ok(code) => code,
            Err(e) => report(&e),
        }
    });
    telemetry.shutdown();
    std::process::exit(code);
}

async fn dispatch(cli: Cli) -> anyhow::Result<i32> {
    // Completions and `config init` must work even when the file is broken.
    match cli.command {
        Command::Completions { shell } => {
            let mut cmd = <Cli as clap::CommandFactory>::command();
            clap_complete::generate(shell, &mut cmd, "lucid", &mut std::io::stdout());
            return Ok(0);
        }
        Command::Config { action: args::ConfigAction::Init { force } } => {
            return config_show::init(cli.config.as_deref(), force);
        }
        _ => {}
    }
    let file = config::load_file(cli.config.as_deref(), cli.profile.as_deref())?;
    match cli.command {
        Command::Run(args) => {
            let (file, targets) = agents::apply(args.agent.named.as_deref(), file)?;
            let cfg = config::resolve(&args.model, &file.settings).await?;
            let settings = config::agent_settings(&args.agent, &file.settings, args::ToolDefaults::Run)?;
            // Before anything runs the project's own code (`--coverage` measures first).
            if trust::runs_project_code(&settings) {
                trust::ensure(&std::env::current_dir()?, args.agent.trust)?;
            }
            if let Some(section) = targets {
                let path = if args.prompt.is_empty() { ".".to_string() } else { args.prompt.join(" ") };
                return targets::run(&path, args.json, &args.targets, &section, &cfg, settings).await;
            }
            if args.targets.coverage.is_some() || args.targets.max_targets.is_some() {
                return Err(ConfigError(
                    "--coverage and --max-targets need an agent that works target by target (--agent unit-tests)"
                        .into(),
                )
                .into());
            }
            let servers = mcp::servers(file.settings.mcp.as_ref(), &args.agent.mcp)?;
            run::run(args, cfg, settings, servers).await
        }
        Command::Chat(args) => {
            let (file, _) = agents::apply(args.agent.named.as_deref(), file)?;
            let cfg = config::resolve(&args.model, &file.settings).await?;
            let settings = config::agent_settings(&args.agent, &file.settings, args::ToolDefaults::Chat)?;
            if trust::runs_project_code(&settings) {
                trust::ensure(&std::env::current_dir()?, args.agent.trust)?;
            }
            chat::run(args, cfg, settings, file).await
        }
        #[cfg(feature = "server")]
        Command::Serve(args) => serve::run(args, &file).await,
        Command::Sessions { store, action } => {
            let spec = store.store.or_else(|| file.settings.store.clone());
            sessions::run(spec.as_deref(), action).await
        }
        Command::Mcp { action: args::McpAction::List { json, mcp } } => {
            mcp::list(&mcp::configured(file.settings.mcp.as_ref(), &mcp)?, json).await
        }
        Command::Mcp { action: args::McpAction::Show { server, json, mcp } } => {
            mcp::inspect::show(&mcp::configured(file.settings.mcp.as_ref(), &mcp)?, &server, json).await
        }
        Command::Mcp { action: args::McpAction::Call { server, tool, arguments, mcp } } => {
            let all = mcp::configured(file.settings.mcp.as_ref(), &mcp)?;
            mcp::inspect::call(&all, &server, &tool, arguments.as_deref()).await
        }
        Command::Mcp { action: args::McpAction::Read { server, uri, mcp } } => {
            mcp::inspect::read(&mcp::configured(file.settings.mcp.as_ref(), &mcp)?, &server, &uri).await
        }
        Command::Mcp { action: args::McpAction::Prompt { server, name, arguments, mcp } } => {
            let all = mcp::configured(file.settings.mcp.as_ref(), &mcp)?;
            mcp::inspect::prompt(&all, &server, &name, arguments.as_deref()).await
        }
        #[cfg(feature = "mcp")]
        Command::Mcp { action: args::McpAction::Login { server, client, mcp } } => {
            mcp::login::login(&mcp::configured(file.settings.mcp.as_ref(), &mcp)?, &server, &client).await
        }
        #[cfg(feature = "mcp")]
        Command::Mcp { action: args::McpAction::Logout { server, mcp } } => {
            mcp::login::logout(&mcp::configured(file.settings.mcp.as_ref(), &mcp)?, &server).await
        }
        #[cfg(not(feature = "mcp"))]
        Command::Mcp { action: args::McpAction::Login { .. } | args::McpAction::Logout { .. } } => {
            anyhow::bail!("this lucid was built without its `mcp` feature")
        }
        Command::Mcp { action: args::McpAction::Serve { tools, http, idle_timeout } } => {
            let settings =
                config::agent_settings(&args::AgentArgs::default(), &file.settings, args::ToolDefaults::Run)?;
            mcp::serve(
                tools.as_deref(),
                http.map(|addr| (addr, std::time::Duration::from_secs(idle_timeout))),
                &settings,
                mcp::serve_catalog(file.settings.mcp.as_ref(), file.path.as_deref())?,
            )
            .await
        }
        Command::Models { offline, action } => models::run(action, config::hub(offline)).await,
        Command::Agents { action } => agents::run(action, &file),
        Command::Workflow { action } => workflow::run(action, &file.settings).await,
        Command::Eval { action } => eval::run(action, file).await,
        Command::Config { action: args::ConfigAction::Show { model } } => config_show::show(&model, &file).await,
        Command::Config { action: args::ConfigAction::Init { .. } } | Command::Completions { .. } => Ok(0),
        Command::Providers => {
            println!("{:<11} {:<10} {:<32} {:<52} notes", "provider", "api", "key variable", "default base URL");
            for p in lucid::model::Preset::all() {
                let keys = if p.key_vars.is_empty() { "(none)".to_string() } else { p.key_vars.join(", ") };
                // The CLI's own word on its flags beside the record's notes.
                let flags = match p.protocol {
                    lucid::model::Protocol::OpenAiResponses => " (`--api chat` for Chat Completions)",
                    _ if p.is_local() => " (`--model` names the served model)",
                    _ => "",
                };
                println!(
                    "{:<11} {:<10} {:<32} {:<52} {}{flags}",
                    p.name,
                    p.protocol.api_name(),
                    keys,
                    p.base_url,
                    p.notes
                );
            }
            Ok(0)
        }
    }
}

/// `lucid providers | head -1` ends like any other tool when its reader goes away: killed
/// by SIGPIPE (status 141 in a shell), silently, instead of panicking on the failed print.
/// Rust ignores SIGPIPE by default; sockets are unaffected either way, since they are
/// written with `MSG_NOSIGNAL`.
fn end_quietly_on_a_closed_pipe() {
    // SAFETY: signal(2) with SIG_DFL at the start of main, before any thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// Prints the error in one clear sentence and picks the exit code.
fn report(e: &anyhow::Error) -> i32 {
    if let Some(c) = e.downcast_ref::<ConfigError>() {
        eprintln!("lucid: {c}");
        return 2;
    }
    if let Some(le) = e.downcast_ref::<lucid::Error>() {
        eprintln!("lucid: {}", display::safe(&lucid::redact::redact(&display::with_flags(&le.to_string()))));
        return match le {
            e if e.is_config() => 2,
            e if e.is_cancelled() => 130,
            lucid::Error::NeedsInput { .. } => 4,
            _ => 1,
        };
    }
    if let Some(we) = e.downcast_ref::<lucid_orchestrate::workflow::WorkflowError>() {
        let text = match we {
            lucid_orchestrate::workflow::WorkflowError::MissingInput(name) => {
                format!("the workflow needs the input `{name}` (give it with --input {name}=VALUE)")
            }
            other => display::with_flags(&other.to_string()),
        };
        eprintln!("lucid: {}", display::safe(&lucid::redact::redact(&text)));
        return match we {
            lucid_orchestrate::workflow::WorkflowError::Invalid(_)
            | lucid_orchestrate::workflow::WorkflowError::MissingInput(_) => 2,
            _ => 1,
        };
    }
    eprintln!("lucid: {}", display::safe(&lucid::redact::redact(&display::with_flags(&format!("{e:#}")))));
    1
}

/// What logging leaves running: the OpenTelemetry exporter, flushed before exit.
struct Telemetry {
    #[cfg(feature = "otel")]
    exporter: Option<otel::Exporter>,
}

impl Telemetry {
    fn shutdown(self) {
        #[cfg(feature = "otel")]
        if let Some(e) = self.exporter {
            e.shutdown();
        }
    }
}

fn init_logging(verbose: u8) -> Telemetry {
    let default = match verbose {
        0 => "warn",
        1 => "info",
        2 => "debug",
        _ => "trace",
    };
    // `LUCID_LOG` takes a level or per-target levels (`debug`, `lucid=debug,reqwest=warn`).
    let filter = std::env::var("LUCID_LOG")
        .ok()
        .and_then(|s| s.parse::<Targets>().ok())
        .unwrap_or_else(|| default.parse().unwrap_or_default());
    // Every log line goes through the one redaction function: no level shows a key.
    let log = tracing_subscriber::fmt::layer()
        .with_writer(|| lucid::redact::Redacting(display::LogLine::new()))
        // Colour codes only where a terminal shows them, not in a log file or pipe.
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()) && std::env::var_os("NO_COLOR").is_none())
        .with_target(false)
        .with_filter(filter);
    let registry = tracing_subscriber::registry().with(log);
    #[cfg(feature = "otel")]
    if let Some(settings) = config::otel()
        && let Some((layer, exporter)) = otel::layer(&settings)
    {
        registry.with(layer).init();
        return Telemetry { exporter: Some(exporter) };
    }
    registry.init();
    Telemetry {
        #[cfg(feature = "otel")]
        exporter: None,
    }
}
