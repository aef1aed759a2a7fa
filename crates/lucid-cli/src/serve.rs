//! `lucid serve`: the configuration's agents (`default` from the top level, and each
//! `[agents.NAME]`) behind the HTTP API of `lucid-server`, sessions and runs kept in the
//! SQLite store, or in PostgreSQL (`--store postgres://…`, the `postgres` feature) shared
//! by any number of instances. Each agent is built by the same factory as `lucid run`'s (`crate::agent`),
//! with nobody at a keyboard: `ask_user` stops the run in `needs_input`, a policy's `ask`
//! leaves it in `needs_approval` until `POST /v1/runs/{id}/approvals` answers (the OpenAI
//! facade, which has no run to wait in, refuses it).

use std::time::Duration;

use lucid_server::{
    ApiKeys, ClientSystem, DEFAULT_BODY_TIMEOUT, DEFAULT_HEADER_TIMEOUT, DEFAULT_MAX_CONNECTIONS, Database, Server,
    ServerConfig,
};

use crate::args::{AgentArgs, KeysAction, ModelArgs, ServeArgs, ServeCommand, ToolDefaults};
use crate::config::file::FileConfig;
use crate::config::{self, ConfigError};

/// Serves until SIGTERM or Ctrl-C (or runs `keys …`); returns the exit code.
pub async fn run(args: ServeArgs, file: &FileConfig) -> anyhow::Result<i32> {
    let database = database(&args, file)?;
    if let Some(ServeCommand::Keys { action }) = args.command {
        return keys(action, &database).await;
    }
    let keys = ApiKeys::parse(&config::serve_api_keys()).map_err(|e| ConfigError(e.to_string()))?;
    if let Err(e) = lucid_server::check_bind(args.listen, &keys)
        && lucid_server::keys::list(&database).await.map_err(serve_error)?.is_empty()
    {
        return Err(ConfigError(e.to_string()).into());
    }
    let edge = file.settings.serve.clone().unwrap_or_default();
    let open_files = raise_open_files_limit();
    let wanted = args.max_connections.or(edge.max_connections).map_or(DEFAULT_MAX_CONNECTIONS, |n| n as usize);
    let max_connections = connection_cap(wanted, open_files);
    let header_timeout =
        args.header_timeout.or(edge.header_timeout_secs).map_or(DEFAULT_HEADER_TIMEOUT, Duration::from_secs);
    let body_timeout = args.body_timeout.or(edge.body_timeout_secs).map_or(DEFAULT_BODY_TIMEOUT, Duration::from_secs);
    let body_mib = args.max_body_mib.or(edge.max_body_mib).unwrap_or(1);
    if !(1..=64).contains(&body_mib) {
        return Err(ConfigError(format!("[serve] max_body_mib must be from 1 to 64, not {body_mib}")).into());
    }
    let mut serving = ServerConfig::new(database)
        .keys(keys.clone())
        .max_runs_per_tenant(args.max_runs_per_tenant)
        .max_sessions_per_tenant(args.max_sessions_per_tenant)
        .max_metadata_bytes(args.max_metadata_bytes)
        .max_stored_bytes_per_tenant(args.max_stored_bytes_per_tenant)
        .max_readers_per_run(args.max_readers_per_run)
        .grace(Duration::from_secs(args.grace))
        .lease(Duration::from_secs(args.lease))
        .header_timeout(header_timeout)
        .body_timeout(body_timeout)
        .body_limit(body_mib as usize * (1 << 20))
        .max_connections(max_connections)
        .tenant_daily_budget(daily_budget(&edge)?);
    if args.responses_store || edge.responses_store.unwrap_or(false) {
        serving = serving.responses_store_default(true);
    }
    if let Some(secs) = args.approval_timeout.or(edge.approval_timeout_secs) {
        serving = serving.approval_timeout(Duration::from_secs(secs));
    }
    for origin in edge.allow_origins.iter().chain(&args.allow_origins) {
        serving = serving.allow_origin(origin);
    }
    // MCP servers stay up as long as the agents using their tools.
    let mut mcp_servers = Vec::new();
    for (name, settings) in config::file::agents(&file.settings)? {
        let model_args = if name == "default" { args.model.clone() } else { transport_only(&args.model) };
        let cfg = config::resolve(&model_args, &settings).await.map_err(|e| match e.downcast::<ConfigError>() {
            Ok(c) => in_agent(&name, c).into(),
            Err(e) => e.context(format!("[agents.{name}]")),
        })?;
        let mut agent_settings = config::agent_settings(&AgentArgs::default(), &settings, ToolDefaults::Run)
            .map_err(|e| in_agent(&name, e))?;
        // Tools run for tenants: none of the server's environment (its keys, its
        // database URL) reaches `shell` or `python`.
        agent_settings.isolated_tool_env = true;
        let servers = crate::mcp::servers(settings.mcp.as_ref(), &Default::default())?;
        let (started, _) = crate::mcp::start(&servers, false, false).await?;
        let mcp_tools = crate::mcp::tools(&started)?;
        // Each MCP tool's permission (per tool, else per server, else `ask`) joins the
        // policy as in `lucid run`; an `ask` waits for an approval over HTTP.
        for (tool, permission) in &mcp_tools {
            agent_settings.permissions.insert(tool.spec().name().to_string(), *permission);
        }
        let mcp_tools: Vec<_> = mcp_tools.into_iter().map(|(t, _)| t).collect();
        mcp_servers.push(started);
        let builder = crate::agent::builder(&cfg, &agent_settings, crate::agent::People::default(), &mcp_tools).await?;
        tracing::info!(agent = %name, provider = %cfg.provider, model = %cfg.model, "agent ready");
        if let Some(mode) = &settings.client_system {
            let mode = mode.parse::<ClientSystem>().map_err(|e| in_agent(&name, ConfigError(e)))?;
            serving = serving.client_system(name.clone(), mode);
        }
        serving = serving.agent(name, builder.build());
    }
    let names: Vec<String> = serving.agent_names().map(str::to_string).collect();
    let server = Server::open(serving).await.map_err(serve_error)?;
    let listener = tokio::net::TcpListener::bind(args.listen)
        .await
        .map_err(|e| ConfigError(format!("cannot listen on {}: {e}", args.listen)))?;
    let addr = listener.local_addr()?;
    if server.check_bind("0.0.0.0:0".parse()?).is_err() {
        eprintln!(
            "lucid serve: no API keys (LUCID_SERVE_API_KEYS or `lucid serve keys create`), so only this machine can connect"
        );
    }
    eprintln!("lucid serve: listening on http://{addr} (agents: {})", names.join(", "));
    server.serve(listener, stop_signal()).await?;
    drop(mcp_servers);
    Ok(0)
}

/// The store of `--store`, the configuration's `store`, or the default SQLite file.
fn database(args: &ServeArgs, file: &FileConfig) -> anyhow::Result<Database> {
    let spec = args.store.store.clone().or_else(|| file.settings.store.clone()).unwrap_or_default();
    Ok(match Database::parse(&spec) {
        Database::Postgres(url) if cfg!(feature = "postgres") => Database::Postgres(url),
        Database::Postgres(_) => {
            return Err(ConfigError(
                "this lucid was built without Postgres support: rebuild with `--features postgres`".into(),
            )
            .into());
        }
        Database::Sqlite(_) => Database::Sqlite(crate::sessions::sqlite_path(&spec)?),
        other => other,
    })
}

fn serve_error(e: lucid_server::ServeError) -> anyhow::Error {
    match e {
        lucid_server::ServeError::Config(m) => ConfigError(m).into(),
        other => anyhow::Error::from(other),
    }
}

/// `lucid serve keys create|list|revoke`.
async fn keys(action: KeysAction, database: &Database) -> anyhow::Result<i32> {
    match action {
        KeysAction::Create { name } => {
            let key = lucid_server::keys::create(database, &name).await.map_err(serve_error)?;
            eprintln!("lucid serve: key {} of tenant {} created; it is shown only now:", key.id, key.tenant);
            println!("{}", key.key);
        }
        KeysAction::List => {
            for k in lucid_server::keys::list(database).await.map_err(serve_error)? {
                println!("{}\t{}\t{}", k.id, k.tenant, crate::sessions::time(k.created_at));
            }
        }
        KeysAction::Revoke { id } => {
            if !lucid_server::keys::revoke(database, &id).await.map_err(serve_error)? {
                return Err(ConfigError(format!("no stored key `{id}` (see `lucid serve keys list`)")).into());
            }
            eprintln!("lucid serve: key {id} revoked");
        }
    }
    Ok(0)
}

/// The command line's transcript, retries and timeout without its model choice.
fn transport_only(args: &ModelArgs) -> ModelArgs {
    ModelArgs {
        provider: None,
        model: None,
        base_url: None,
        api: None,
        api_key: None,
        model_file: None,
        // The command line's backups are the default agent's; the others name their own.
        fallback: Vec::new(),
        ..args.clone()
    }
}

fn in_agent(name: &str, e: ConfigError) -> ConfigError {
    if name == "default" { e } else { ConfigError(format!("[agents.{name}]: {}", e.0)) }
}

/// Raises the soft limit on open files to the hard one (each connection is one), logs
/// what it became, and returns it (`None` when it cannot be read).
fn raise_open_files_limit() -> Option<u64> {
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit(2) writes the struct it is given.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
        tracing::warn!("cannot read the open-files limit: {}", std::io::Error::last_os_error());
        return None;
    }
    // An unlimited hard limit still stops at the kernel's `nr_open`.
    let most = match limit.rlim_max {
        libc::RLIM_INFINITY => std::fs::read_to_string("/proc/sys/fs/nr_open")
            .ok()
            .and_then(|n| n.trim().parse().ok())
            .unwrap_or(limit.rlim_max),
        hard => hard,
    };
    if limit.rlim_cur < most {
        let raised = libc::rlimit { rlim_cur: most, rlim_max: limit.rlim_max };
        // SAFETY: setrlimit(2) reads the struct it is given.
        if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } == 0 {
            limit = raised;
        } else {
            tracing::warn!(
                soft = limit.rlim_cur,
                hard = limit.rlim_max,
                "cannot raise the open-files limit: {}",
                std::io::Error::last_os_error()
            );
        }
    }
    tracing::info!(soft = limit.rlim_cur, hard = limit.rlim_max, "open-files limit");
    Some(limit.rlim_cur)
}

/// The connection cap: `wanted`, but leaving 128 open files for the database, MCP
/// servers and tools under the open-files limit.
fn connection_cap(wanted: usize, open_files: Option<u64>) -> usize {
    let room = open_files.map_or(usize::MAX, |n| usize::try_from(n.saturating_sub(128)).unwrap_or(usize::MAX).max(1));
    if wanted > room {
        tracing::warn!(wanted, cap = room, "the open-files limit leaves room for fewer connections: capped");
    }
    wanted.min(room)
}

/// SIGTERM (what a service manager sends) or Ctrl-C.
async fn stop_signal() {
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        () = term => {}
    }
}

/// `[serve] tenant_daily_max_*`: what one tenant may spend per day.
fn daily_budget(edge: &config::file::ServeSection) -> Result<lucid::agent::budget::Limits, ConfigError> {
    let mut limits = lucid::agent::budget::Limits::default();
    if let Some(c) = edge.tenant_daily_max_cost {
        if !(c.is_finite() && c >= 0.0) {
            return Err(ConfigError("[serve] tenant_daily_max_cost must be dollars, 0 or more".into()));
        }
        limits = limits.max_cost(c);
    }
    if let Some(n) = edge.tenant_daily_max_tokens {
        limits = limits.max_total_tokens(n);
    }
    if let Some(n) = edge.tenant_daily_max_model_calls {
        limits = limits.max_model_calls(n);
    }
    Ok(limits)
}
