//! `lucid serve`: its limits, its model and store, and its `keys` subcommand.

use clap::{Args, Subcommand};

use super::{ModelArgs, StoreArgs};

/// `lucid serve`.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct ServeArgs {
    /// API keys kept (hashed) in the store, instead of serving.
    #[command(subcommand)]
    pub command: Option<ServeCommand>,
    /// The address to listen on. Without keys (`LUCID_SERVE_API_KEYS`, or stored with
    /// `lucid serve keys create`), only a loopback address.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8080")]
    pub listen: std::net::SocketAddr,
    /// How many runs one API key (tenant) may have going at once.
    #[arg(long, value_name = "N", default_value_t = 16)]
    pub max_runs_per_tenant: usize,
    /// How many sessions one tenant may keep (beyond it: 429).
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    pub max_sessions_per_tenant: u64,
    /// The largest metadata of one session, in bytes as JSON (beyond it: 413).
    #[arg(long, value_name = "BYTES", default_value_t = 16 << 10)]
    pub max_metadata_bytes: usize,
    /// How many bytes one tenant may keep: its sessions' metadata and its runs' inputs,
    /// results, errors and events (at it, a new session or run gets 429).
    #[arg(long, value_name = "BYTES", default_value_t = 1 << 30)]
    pub max_stored_bytes_per_tenant: u64,
    /// How many clients may read one run's events at once (beyond it: 429).
    #[arg(long, value_name = "N", default_value_t = 8)]
    pub max_readers_per_run: usize,
    /// Seconds runs may go on after SIGTERM or Ctrl-C before their leases are given up
    /// (another instance, or this one restarted, continues them from their last step).
    #[arg(long, value_name = "SECS", default_value_t = 30)]
    pub grace: u64,
    /// Seconds a run stays this instance's without a renewal: runs of an instance that
    /// died are continued by another after at most this long.
    #[arg(long, value_name = "SECS", default_value_t = 15, value_parser = clap::value_parser!(u64).range(1..))]
    pub lease: u64,
    /// Let web pages of ORIGIN (`http://localhost:5173`, as the browser sends it) use the
    /// API (CORS); repeatable, added to `allow_origins` of [serve] in the configuration.
    /// Without keys, a request from any other origin is refused.
    #[arg(long = "allow-origin", value_name = "ORIGIN")]
    pub allow_origins: Vec<String>,
    /// Seconds a connection may take to send a request head, from when it opens or its
    /// previous answer ends (so also how long a kept-alive connection may idle) [default: 10,
    /// or `header_timeout_secs` of [serve]].
    #[arg(long, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..))]
    pub header_timeout: Option<u64>,
    /// Seconds a request's body may take to arrive once its head has [default: 30, or
    /// `body_timeout_secs` of [serve]].
    #[arg(long, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..))]
    pub body_timeout: Option<u64>,
    /// Connections served at once; more wait until one closes [default: 1024, or
    /// `max_connections` of [serve]; at most what the open-files limit allows].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_connections: Option<u64>,
    /// The largest request body, in MiB: an inline attachment (base64, a third larger than
    /// the file) must fit, up to the 20 MiB one attachment may have [default: 1, or
    /// `max_body_mib` of [serve]].
    #[arg(long, value_name = "MIB", value_parser = clap::value_parser!(u64).range(1..=64))]
    pub max_body_mib: Option<u64>,
    /// Seconds a tool call whose permission is `ask` waits for an answer at `POST
    /// /v1/runs/{id}/approvals` before it is denied and the run goes on [default: 86400, or
    /// `approval_timeout_secs` of [serve]].
    #[arg(long, value_name = "SECS")]
    pub approval_timeout: Option<u64>,
    /// Store a `/v1/responses` request that does not say `store`, as OpenAI's API does (for
    /// clients that rely on it, like the Vercel AI SDK's `item_reference`s) [default: off,
    /// or `responses_store` of [serve]].
    #[arg(long)]
    pub responses_store: bool,
    /// The `default` agent's model flags (laid over the configuration's top level); the
    /// transcript, retries and timeout apply to every agent.
    #[command(flatten)]
    pub model: ModelArgs,
    #[command(flatten)]
    pub store: StoreArgs,
}

/// `lucid serve …` subcommands.
#[derive(Debug, Subcommand)]
pub enum ServeCommand {
    /// API keys kept in the store (its SHA-256 only): each key's tenant sees only its own
    /// sessions and runs, on every instance sharing the store.
    Keys {
        #[command(subcommand)]
        action: KeysAction,
    },
}

/// `lucid serve keys …`.
#[derive(Debug, Subcommand)]
pub enum KeysAction {
    /// Creates a key of tenant NAME and prints it, once.
    Create {
        /// The tenant (letters, digits, `-`, `_`, `.`).
        name: String,
    },
    /// The stored keys: id, tenant, creation time.
    List,
    /// Removes a key by its id (`key_…`); instances stop accepting it within 10 s.
    Revoke {
        /// The key's id, as `list` shows it.
        id: String,
    },
}
