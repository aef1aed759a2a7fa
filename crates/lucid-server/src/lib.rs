//! The HTTP API behind `lucid serve`: Lucid agents as a service.
//!
//! A [`Server`] holds named agents ([`lucid::Agent`]s, each the `[agents.NAME]` of the
//! CLI's configuration), a SQLite file with the sessions' conversations (the library's
//! [`SqliteStore`](lucid_sqlite::SqliteStore)) and the server's own tables (which tenant
//! owns each session; runs and their events), and serves, on axum:
//!
//! | route | what |
//! |---|---|
//! | `POST /v1/sessions` `{agent, metadata}` | 201, a session of that agent |
//! | `GET /v1/sessions?limit=&offset=&metadata=` | the tenant's sessions, newest first, `has_more`; their metadata with `metadata=true` |
//! | `GET /v1/sessions/{id}` / `DELETE` | one, with its messages / 204 |
//! | `POST /v1/sessions/{id}/runs` `{input, stream}` | a turn: the run when it ends, or SSE of its events |
//! | `GET /v1/runs/{id}` | status (`queued`, `running`, `completed`, `failed`, `cancelled`, `needs_input`, `needs_approval`), result, and the calls waiting for approval |
//! | `GET /v1/runs/{id}/events` | the events again, after `Last-Event-ID` |
//! | `POST /v1/runs/{id}/cancel` | stops it now |
//! | `POST /v1/runs/{id}/input` `{input, stream}` | answers `ask_user`'s questions; the run goes on |
//! | `POST /v1/runs/{id}/approvals` `{call_id, decision, arguments?, message?, remember?}` | answers a tool call waiting for approval; the run goes on once every one is answered |
//! | `GET /v1/models`, `GET /v1/models/{id}`, `POST /v1/chat/completions` | the OpenAI-compatible facade (`model` = agent) |
//! | `GET /healthz`, `/readyz`, `/metrics` | alive; database reachable; Prometheus text |
//!
//! Every error is `{"error": {"message", "type", "param", "code"}}` (`param` the field at
//! fault, or `null`). A session runs
//! one turn at a time (a second gets 409, the database's rule); a tenant's runs going at
//! once are capped (429 with `Retry-After`); bodies over the limit get 413, bad JSON and
//! bad fields 400 naming the field. With [`ApiKeys`], each key is a tenant that sees only
//! its own sessions and runs (another's id is 404), `/metrics` included; without, only
//! loopback is served ([`check_bind`]) and no web page can use it: a request needs a
//! loopback `Host` with the server's port, no `Origin` but those listed
//! ([`ServerConfig::allow_origin`], which also get CORS), and a body labelled
//! `application/json` (403, 403, 415). A key stored while the server runs without any is
//! enforced within [`keys::CACHE_FOR`]. Connections have [`ServerConfig::header_timeout`]
//! to send each request head (and to idle between requests), their bodies
//! [`ServerConfig::body_timeout`], and at most [`ServerConfig::max_connections`] are
//! served at once. A tenant's sessions, their metadata and the bytes it keeps are capped
//! (429 `quota_exceeded` naming the limit; 413 for metadata), and so are the clients
//! reading one run's events at once (429). Registered secrets (provider keys, the API
//! keys) are redacted from every result, event, error and log line before it is stored or
//! sent.
//!
//! ```no_run
//! # async fn demo(agent: lucid::Agent) -> Result<(), Box<dyn std::error::Error>> {
//! use lucid_server::{ApiKeys, Server, ServerConfig};
//! let config = ServerConfig::new("/var/lib/lucid/serve.db").agent("default", agent).keys(ApiKeys::none());
//! let server = Server::open(config).await?;
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
//! server.serve(listener, async { let _ = tokio::signal::ctrl_c().await; }).await?;
//! # Ok(()) }
//! ```

mod auth;
mod body;
mod config;
mod db;
mod edge;
mod error;
mod events;
mod input;
pub mod keys;
mod listen;
mod metrics;
mod routes;
mod runs;
mod spend;

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use lucid::Agent;
use lucid::store::SessionStore;

use auth::Tenant;
pub use auth::{ApiKeys, KeysError, MIN_KEY_LEN, check_bind};
pub use config::{
    ClientSystem, DEFAULT_APPROVAL_TIMEOUT, DEFAULT_BODY_LIMIT, DEFAULT_BODY_TIMEOUT, DEFAULT_HEADER_TIMEOUT,
    DEFAULT_MAX_CONNECTIONS, Database, ServerConfig,
};
use error::ApiError;

/// Why a server could not start (or a key could not be created, listed or revoked).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The configuration cannot be served (no agent, a bad name, keys…).
    #[error("{0}")]
    Config(String),
    /// The session store would not open.
    #[error(transparent)]
    Store(#[from] lucid::store::StoreError),
    /// The server's tables would not open (or a query on them failed).
    #[error(transparent)]
    Db(DatabaseError),
    /// Serving failed.
    #[error("serving failed: {0}")]
    Io(#[from] std::io::Error),
}

/// The server's database failed: SQLite or PostgreSQL said no or could not be reached,
/// or a value it kept does not parse. The driver's error is its
/// [`source`](std::error::Error::source).
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct DatabaseError(db::DbError);

impl From<db::DbError> for ServeError {
    fn from(e: db::DbError) -> ServeError {
        ServeError::Db(DatabaseError(e))
    }
}

/// A running API: agents, stores and runs. Cheap to clone (a handle on the state the
/// routes share).
#[derive(Clone)]
pub struct Server {
    state: Arc<AppState>,
}

/// What every request shares: the routes' state, crate-private.
pub(crate) struct AppState {
    pub(crate) agents: BTreeMap<String, Agent>,
    pub(crate) client_system: BTreeMap<String, config::ClientSystem>,
    pub(crate) store: Arc<dyn SessionStore>,
    pub(crate) db: db::Db,
    pub(crate) keys: ApiKeys,
    /// Whether requests need a key: keys came from the environment or are stored in the
    /// database (looked for again while there are none).
    pub(crate) keys_required: auth::KeysRequired,
    /// The origins whose pages may use the API (CORS), as browsers send them.
    pub(crate) origins: Vec<String>,
    pub(crate) header_timeout: Duration,
    pub(crate) body_timeout: Duration,
    pub(crate) max_connections: usize,
    /// Stored keys looked up lately: their hash → tenant, and when.
    pub(crate) key_cache: std::sync::Mutex<std::collections::HashMap<String, (String, std::time::Instant)>>,
    pub(crate) body_limit: usize,
    pub(crate) max_runs: usize,
    pub(crate) grace: Duration,
    pub(crate) lease: Duration,
    /// How long a tool call waits for approval before it is denied.
    pub(crate) approval_timeout: Duration,
    /// Whether a `/v1/responses` request without `store` is stored.
    pub(crate) responses_store_default: bool,
    /// What one tenant may keep; readers per run.
    pub(crate) quotas: config::Quotas,
    /// This instance, as the owner of its runs' leases: `host:pid:nonce`.
    pub(crate) owner: String,
    pub(crate) runs: runs::Runs,
    pub(crate) metrics: metrics::Metrics,
    pub(crate) started: u64,
}

impl AppState {
    /// When a lease taken or renewed at `now` runs out.
    pub(crate) fn lease_until(&self, now: i64) -> i64 {
        now + self.lease.as_millis() as i64
    }
}

impl Server {
    /// Opens the database and readies the agents (each keeps its sessions in it, committed
    /// at every step). Starts the lease keeper: it renews this instance's runs, passes on
    /// cancels asked on other instances, and continues the runs of instances that are
    /// gone (a previous process of this one included), from their last commit.
    pub async fn open(config: ServerConfig) -> Result<Server, ServeError> {
        if config.agents.is_empty() {
            return Err(ServeError::Config("no agents to serve".into()));
        }
        if let Some(bad) = config.agents.keys().find(|n| !valid_name(n)) {
            return Err(ServeError::Config(format!(
                "agent name `{bad}`: use letters, digits, `-`, `_` or `.` (at most 64)"
            )));
        }
        let origins = config.origins.iter().map(|o| edge::parse_origin(o)).collect::<Result<Vec<_>, _>>();
        let origins = origins.map_err(ServeError::Config)?;
        let (store, db) = open_database(&config.database).await?;
        let keys_required = !config.keys.is_empty() || !db.keys().await?.is_empty();
        let agents = config
            .agents
            .into_iter()
            .map(|(name, agent)| {
                // A call whose permission is `ask` waits for an approval from outside
                // (`POST /v1/runs/{id}/approvals`): the run ends `needs_approval`.
                let builder = agent
                    .to_builder()
                    .store(Arc::clone(&store))
                    .durable_steps(true)
                    .permissions(agent.permissions().clone().defer_asks(true));
                // Telemetry names the agent as the API does, unless it has a name of its own.
                let builder = if agent.name().is_none() { builder.name(name.clone()) } else { builder };
                // The tenant's day, checked before each model call and counted after it.
                let builder = if config.quotas.daily.is_unlimited() {
                    builder
                } else {
                    builder.hook(spend::DailyBudget::new(Arc::clone(&db), config.quotas.daily, &agent))
                };
                (name, builder.build())
            })
            .collect();
        let started = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
        let state = Arc::new(AppState {
            agents,
            client_system: config.client_system,
            store,
            db,
            keys: config.keys,
            keys_required: auth::KeysRequired::new(keys_required),
            origins,
            header_timeout: config.header_timeout,
            body_timeout: config.body_timeout,
            max_connections: config.max_connections,
            key_cache: Default::default(),
            body_limit: config.body_limit,
            max_runs: config.max_runs_per_tenant,
            grace: config.grace,
            lease: config.lease,
            approval_timeout: config.approval_timeout,
            responses_store_default: config.responses_store_default,
            quotas: config.quotas,
            owner: lucid::store::lock::owner(),
            runs: runs::Runs::default(),
            metrics: metrics::Metrics::default(),
            started,
        });
        // Runs a previous process left going are claimed now (and every tick after).
        runs::keep_leases(&state).await;
        Ok(Server { state })
    }

    /// Refuses to serve a non-loopback address when no request needs a key (none in
    /// [`ServerConfig::keys`], none stored with [`keys::create`]).
    pub fn check_bind(&self, addr: std::net::SocketAddr) -> Result<(), KeysError> {
        if self.state.keys_required.known() { Ok(()) } else { check_bind(addr, &self.state.keys) }
    }

    /// The routes, with this server's state: to serve with `axum::serve`, or to nest in a
    /// larger router. [`Server::serve`] serves them with a graceful shutdown, the
    /// connection limits of the [`ServerConfig`], and checks a `Host`'s port against the
    /// listener's; served otherwise, the routes check a keyless `Host`'s name only, and the
    /// connections are as the other server keeps them.
    pub fn router(&self) -> axum::Router {
        routes::router(Arc::clone(&self.state))
    }

    /// Serves on `listener` until `shutdown` completes; then takes no new runs, lets those
    /// going finish within the grace period, cancels the rest, and returns.
    pub async fn serve(
        self,
        listener: tokio::net::TcpListener,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), ServeError> {
        let (stop, stopped) = tokio::sync::watch::channel(false);
        let limits =
            listen::Limits { header_timeout: self.state.header_timeout, max_connections: self.state.max_connections };
        let serving = listen::serve(listener, self.router(), limits, stopped);
        let mut serving = tokio::spawn(serving);
        tokio::select! {
            r = &mut serving => return finished(r),
            () = shutdown => {}
        }
        tracing::info!("stopping: no new connections; runs going get {:?} to finish", self.state.grace);
        let _ = stop.send(true);
        self.state.runs.drain(self.state.grace).await;
        // The runs' streams have ended; connections close as their last response does.
        match tokio::time::timeout(Duration::from_secs(5), &mut serving).await {
            Ok(r) => finished(r),
            Err(_) => {
                serving.abort();
                Ok(())
            }
        }
    }
}

fn finished(r: Result<std::io::Result<()>, tokio::task::JoinError>) -> Result<(), ServeError> {
    match r {
        Ok(r) => Ok(r?),
        Err(e) => Err(ServeError::Io(std::io::Error::other(e))),
    }
}

/// Opens the session store and the server's tables in the same database.
pub(crate) async fn open_database(database: &Database) -> Result<(Arc<dyn SessionStore>, db::Db), ServeError> {
    match database {
        Database::Sqlite(path) => {
            let file = path.clone();
            let store: Arc<dyn SessionStore> = Arc::new(
                tokio::task::spawn_blocking(move || lucid_sqlite::SqliteStore::open(file))
                    .await
                    .map_err(|e| ServeError::Config(format!("opening the session store: {e}")))??,
            );
            Ok((store, db::sqlite(path).await?))
        }
        #[cfg(feature = "postgres")]
        Database::Postgres(url) => {
            let store = lucid_postgres::PostgresStore::connect(url).await?;
            let db = db::postgres(store.deadpool().clone()).await?;
            Ok((Arc::new(store), db))
        }
        #[cfg(not(feature = "postgres"))]
        Database::Postgres(_) => {
            Err(ServeError::Config("this build has no PostgreSQL support: build with the `postgres` feature".into()))
        }
    }
}

/// An agent name a URL, a model id and a log line can carry as it is.
fn valid_name(name: &str) -> bool {
    !name.is_empty() && name.len() <= 64 && name.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
}

/// Milliseconds since the Unix epoch.
fn now_ms() -> i64 {
    lucid::store::now_ms()
}

/// A fresh id that sorts by creation: `prefix`, then the time in milliseconds (12 hex
/// digits), a counter of this process (4, so two ids of one millisecond keep their order:
/// lists are newest first, ties broken by id) and 16 random hex digits.
fn new_id(prefix: &str) -> String {
    static COUNTER: std::sync::atomic::AtomicU16 = std::sync::atomic::AtomicU16::new(0);
    let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    format!("{prefix}_{:012x}{n:04x}{:016x}", now_ms() & 0xffff_ffff_ffff, fastrand::u64(..))
}
