//! What a [`Server`](crate::Server) is made of: its agents, the database its sessions, runs
//! and events live in, its API keys and its limits. Built with [`ServerConfig::new`] and its
//! setters; read once, by [`Server::open`](crate::Server::open).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use lucid::Agent;

use crate::ApiKeys;

/// The default request body limit: 1 MiB.
pub const DEFAULT_BODY_LIMIT: usize = 1 << 20;

/// How long a connection may take to send a request head (and idle between requests)
/// unless [`ServerConfig::header_timeout`] says otherwise: 10 s.
pub const DEFAULT_HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a request's body may take to arrive unless [`ServerConfig::body_timeout`]
/// says otherwise: 30 s.
pub const DEFAULT_BODY_TIMEOUT: Duration = Duration::from_secs(30);

/// How many connections a server serves at once unless [`ServerConfig::max_connections`]
/// says otherwise.
pub const DEFAULT_MAX_CONNECTIONS: usize = 1024;

/// What one tenant may keep, and how many clients may read one run's events at once.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Quotas {
    /// Sessions one tenant may keep.
    pub sessions: u64,
    /// The largest metadata of one session, in bytes (as JSON).
    pub metadata_bytes: usize,
    /// The bytes one tenant may keep: its sessions' metadata and its runs' inputs,
    /// results, errors and events.
    pub stored_bytes: u64,
    /// Clients reading one run's events at once.
    pub readers_per_run: usize,
    /// What one tenant may spend per day (UTC): dollars, tokens, model calls.
    pub daily: lucid::agent::budget::Limits,
}

impl Default for Quotas {
    fn default() -> Quotas {
        Quotas {
            sessions: 10_000,
            metadata_bytes: 16 << 10,
            stored_bytes: 1 << 30,
            readers_per_run: 8,
            daily: lucid::agent::budget::Limits::default(),
        }
    }
}

/// Where sessions, runs and events live.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Database {
    /// A SQLite file (created if missing): one instance.
    Sqlite(PathBuf),
    /// A PostgreSQL URL (`postgres://…`): any number of instances share it (needs the
    /// `postgres` feature).
    Postgres(String),
}

impl Database {
    /// `postgres://…` or `postgresql://…` is PostgreSQL; anything else a SQLite path.
    ///
    /// ```
    /// use lucid_server::Database;
    /// assert!(matches!(Database::parse("postgres://lucid@db/lucid"), Database::Postgres(_)));
    /// assert_eq!(Database::parse("serve.db"), Database::Sqlite("serve.db".into()));
    /// ```
    pub fn parse(spec: &str) -> Database {
        if spec.starts_with("postgres://") || spec.starts_with("postgresql://") {
            Database::Postgres(spec.to_string())
        } else {
            Database::Sqlite(PathBuf::from(spec))
        }
    }
}

impl From<PathBuf> for Database {
    fn from(path: PathBuf) -> Database {
        Database::Sqlite(path)
    }
}

impl From<&std::path::Path> for Database {
    fn from(path: &std::path::Path) -> Database {
        Database::Sqlite(path.to_path_buf())
    }
}

impl From<&PathBuf> for Database {
    fn from(path: &PathBuf) -> Database {
        Database::Sqlite(path.clone())
    }
}

impl From<&str> for Database {
    fn from(spec: &str) -> Database {
        Database::parse(spec)
    }
}

impl From<String> for Database {
    fn from(spec: String) -> Database {
        Database::parse(&spec)
    }
}

/// What the OpenAI facade does with a client's `system` and `developer` messages: the
/// operator's system prompt stays unless the agent says `Replace`.
///
/// ```
/// use lucid_server::{ClientSystem, ServerConfig};
/// assert_eq!("refuse".parse::<ClientSystem>(), Ok(ClientSystem::Refuse));
/// # let model = lucid::model::OpenAiCompatible::new("http://127.0.0.1:9/v1", None, "m").unwrap();
/// let config = ServerConfig::new("serve.db")
///     .agent("support", lucid::Agent::builder(model).system("You help.").build())
///     .client_system("support", ClientSystem::Refuse);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ClientSystem {
    /// Appended after the operator's system prompt (the default).
    #[default]
    Append,
    /// Used instead of the operator's system prompt.
    Replace,
    /// Refused: 400 naming the message.
    Refuse,
}

impl std::str::FromStr for ClientSystem {
    type Err = String;

    fn from_str(s: &str) -> Result<ClientSystem, String> {
        match s {
            "append" => Ok(ClientSystem::Append),
            "replace" => Ok(ClientSystem::Replace),
            "refuse" => Ok(ClientSystem::Refuse),
            other => Err(format!("client_system `{other}`: must be append, replace or refuse")),
        }
    }
}

/// How long a tool call waits for approval unless [`ServerConfig::approval_timeout`] says.
pub const DEFAULT_APPROVAL_TIMEOUT: Duration = Duration::from_secs(24 * 3600);

/// What a [`Server`](crate::Server) is made of.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// The agents by name (`model` in the OpenAI facade, `agent` of a session).
    pub(crate) agents: BTreeMap<String, Agent>,
    /// How each agent treats a client's system message in the OpenAI facade (absent:
    /// [`ClientSystem::Append`]).
    pub(crate) client_system: BTreeMap<String, ClientSystem>,
    /// Where sessions, runs and events live.
    pub(crate) database: Database,
    /// The API keys; none serves loopback only.
    pub(crate) keys: ApiKeys,
    /// The largest request body, in bytes.
    pub(crate) body_limit: usize,
    /// How many runs (and chat completions) one tenant may have going at once.
    pub(crate) max_runs_per_tenant: usize,
    /// How long runs may go on after the shutdown signal before their leases are given
    /// up (another instance, or this one restarted, continues them).
    pub(crate) grace: Duration,
    /// How long a run stays this instance's without a renewal: an instance that dies
    /// leaves its runs to the others after at most this long (at once when it was a
    /// process of the same host).
    pub(crate) lease: Duration,
    /// How long a tool call waits for approval before it is denied.
    pub(crate) approval_timeout: Duration,
    /// Whether a `/v1/responses` request that does not say `store` is stored (OpenAI's
    /// default) or not (Lucid's).
    pub(crate) responses_store_default: bool,
    /// The origins whose web pages may use the API (CORS); without keys, a request with any
    /// other `Origin` is refused.
    pub(crate) origins: Vec<String>,
    /// How long a connection may take to send a complete request head, from when it opens
    /// or its previous answer ends (so also how long a kept-alive connection may idle).
    pub(crate) header_timeout: Duration,
    /// How long a request's body may take to arrive once its head has.
    pub(crate) body_timeout: Duration,
    /// How many connections are served at once; more wait in the listen backlog.
    pub(crate) max_connections: usize,
    /// What one tenant may keep; readers per run.
    pub(crate) quotas: Quotas,
}

impl ServerConfig {
    /// No agents yet, the database at `database` (a SQLite path, or
    /// [`Database::Postgres`]), no keys, 1 MiB bodies, 16 runs per tenant, 30 s of grace,
    /// 15 s leases, no origins allowed, 10 s to send a request head and 30 s for its body,
    /// 1024 connections; per tenant 10,000 sessions, 16 KiB of metadata each and 1 GiB
    /// stored; 8 readers per run.
    pub fn new(database: impl Into<Database>) -> ServerConfig {
        ServerConfig {
            agents: BTreeMap::new(),
            client_system: BTreeMap::new(),
            database: database.into(),
            keys: ApiKeys::none(),
            body_limit: DEFAULT_BODY_LIMIT,
            max_runs_per_tenant: 16,
            grace: Duration::from_secs(30),
            lease: Duration::from_secs(15),
            approval_timeout: DEFAULT_APPROVAL_TIMEOUT,
            responses_store_default: false,
            origins: Vec::new(),
            header_timeout: DEFAULT_HEADER_TIMEOUT,
            body_timeout: DEFAULT_BODY_TIMEOUT,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            quotas: Quotas::default(),
        }
    }

    /// The names of the agents added so far, in name order.
    pub fn agent_names(&self) -> impl Iterator<Item = &str> {
        self.agents.keys().map(String::as_str)
    }

    /// Sets how long a run stays this instance's without a renewal (at least 1 s).
    pub fn lease(mut self, lease: Duration) -> ServerConfig {
        self.lease = lease.max(Duration::from_secs(1));
        self
    }

    /// Adds (or replaces) the agent `name`.
    pub fn agent(mut self, name: impl Into<String>, agent: Agent) -> ServerConfig {
        self.agents.insert(name.into(), agent);
        self
    }

    /// Says how the agent `name` treats a client's system message in the OpenAI facade.
    pub fn client_system(mut self, name: impl Into<String>, mode: ClientSystem) -> ServerConfig {
        self.client_system.insert(name.into(), mode);
        self
    }

    /// Sets the API keys.
    pub fn keys(mut self, keys: ApiKeys) -> ServerConfig {
        self.keys = keys;
        self
    }

    /// Sets the per-tenant cap on runs going at once (at least 1).
    pub fn max_runs_per_tenant(mut self, n: usize) -> ServerConfig {
        self.max_runs_per_tenant = n.max(1);
        self
    }

    /// Sets how many sessions one tenant may keep (at least 1); a tenant at the limit gets
    /// 429 `quota_exceeded` for a new one.
    ///
    /// ```
    /// # use lucid_server::ServerConfig;
    /// let config = ServerConfig::new("serve.db")
    ///     .max_sessions_per_tenant(500)
    ///     .max_metadata_bytes(4096)
    ///     .max_stored_bytes_per_tenant(64 << 20)
    ///     .max_readers_per_run(4);
    /// ```
    pub fn max_sessions_per_tenant(mut self, n: u64) -> ServerConfig {
        self.quotas.sessions = n.max(1);
        self
    }

    /// Sets the largest metadata of one session, in bytes as JSON; larger gets 413
    /// `metadata_too_large`.
    pub fn max_metadata_bytes(mut self, bytes: usize) -> ServerConfig {
        self.quotas.metadata_bytes = bytes;
        self
    }

    /// Sets the bytes one tenant may keep (its sessions' metadata, its runs' inputs,
    /// results, errors and events); a tenant at the limit gets 429 `quota_exceeded` for a
    /// new session or run (a run going may pass it; it is checked when one starts).
    pub fn max_stored_bytes_per_tenant(mut self, bytes: u64) -> ServerConfig {
        self.quotas.stored_bytes = bytes;
        self
    }

    /// Sets what one tenant may spend per day (UTC): the dollars (from the agents' model
    /// prices), tokens and model calls of its runs and chat completions, summed in the
    /// database (so over every instance). Once a limit is reached, a new run, turn or chat
    /// completion of the tenant gets 429 `quota_exceeded` naming it until the day ends; a
    /// turn under way finishes (its agent's own budget bounds it). A cost limit counts a
    /// turn of a model without a known price as passing it: set the model's price.
    ///
    /// ```
    /// # use lucid_server::ServerConfig;
    /// use lucid::agent::budget::Limits;
    /// let config = ServerConfig::new("serve.db").tenant_daily_budget(Limits::default().max_cost(20.0));
    /// ```
    pub fn tenant_daily_budget(mut self, limits: lucid::agent::budget::Limits) -> ServerConfig {
        self.quotas.daily = limits;
        self
    }

    /// Sets how many clients may read one run's events at once, on this instance (at
    /// least 1); one more gets 429 `too_many_readers`.
    pub fn max_readers_per_run(mut self, n: usize) -> ServerConfig {
        self.quotas.readers_per_run = n.max(1);
        self
    }

    /// Sets the request body limit in bytes.
    pub fn body_limit(mut self, bytes: usize) -> ServerConfig {
        self.body_limit = bytes;
        self
    }

    /// How long a tool call waits for approval (`needs_approval`) before it is denied and
    /// the run goes on (the model reads that nobody approved it in time); 24 hours unless
    /// set.
    ///
    /// ```
    /// let config = lucid_server::ServerConfig::new("serve.db").approval_timeout(std::time::Duration::from_secs(600));
    /// ```
    pub fn approval_timeout(mut self, timeout: Duration) -> ServerConfig {
        self.approval_timeout = timeout;
        self
    }

    /// Whether a `/v1/responses` request without `store` is stored, as OpenAI's API does
    /// (its documented default is `true`). Off unless set: the facade is stateless and keeps
    /// a response only when the request says `store: true`. Clients written for OpenAI's
    /// default (the Vercel AI SDK sends earlier answers as `item_reference`s unless told
    /// `store: false`) need it on.
    ///
    /// ```
    /// let config = lucid_server::ServerConfig::new("serve.db").responses_store_default(true);
    /// ```
    pub fn responses_store_default(mut self, store: bool) -> ServerConfig {
        self.responses_store_default = store;
        self
    }

    /// Sets the shutdown grace period.
    pub fn grace(mut self, grace: Duration) -> ServerConfig {
        self.grace = grace;
        self
    }

    /// Lets web pages of `origin` (`scheme://host[:port]`, as a browser sends it in
    /// `Origin`) use the API: their preflights are answered and the answers carry
    /// `Access-Control-Allow-Origin`. Without keys, a request from any other origin is
    /// refused (403); with keys, it gets no CORS headers, so the browser keeps the answer
    /// from the page. [`Server::open`](crate::Server::open) refuses an origin that is not
    /// `scheme://host[:port]` (or `null`).
    ///
    /// ```
    /// let config = lucid_server::ServerConfig::new("serve.db").allow_origin("http://localhost:5173");
    /// ```
    pub fn allow_origin(mut self, origin: impl Into<String>) -> ServerConfig {
        self.origins.push(origin.into());
        self
    }

    /// Sets how long a connection may take to send a complete request head, counted from
    /// when it opens and, on a kept-alive connection, from when the previous answer ended
    /// (so it is also the keep-alive idle timeout); at least 1 s. The connection is closed
    /// when it runs out.
    ///
    /// ```
    /// let config = lucid_server::ServerConfig::new("serve.db").header_timeout(std::time::Duration::from_secs(5));
    /// ```
    pub fn header_timeout(mut self, timeout: Duration) -> ServerConfig {
        self.header_timeout = timeout.max(Duration::from_secs(1));
        self
    }

    /// Sets how long a request's body may take to arrive once its head has (at least
    /// 1 s); a body that takes longer gets 408 and the connection is closed.
    ///
    /// ```
    /// let config = lucid_server::ServerConfig::new("serve.db").body_timeout(std::time::Duration::from_secs(60));
    /// ```
    pub fn body_timeout(mut self, timeout: Duration) -> ServerConfig {
        self.body_timeout = timeout.max(Duration::from_secs(1));
        self
    }

    /// Sets how many connections are served at once (at least 1). When the cap is reached a
    /// warning is logged and new connections wait, in the listen backlog, until one closes.
    ///
    /// ```
    /// let config = lucid_server::ServerConfig::new("serve.db").max_connections(256);
    /// ```
    pub fn max_connections(mut self, n: usize) -> ServerConfig {
        self.max_connections = n.max(1);
        self
    }
}
