//! `lucid mcp …`: its subcommands and their arguments.

use clap::Subcommand;

use super::McpArgs;

/// `lucid mcp …`.
#[derive(Debug, Subcommand)]
pub enum McpAction {
    /// Start the configured MCP servers and show each one's status, protocol version and
    /// tools.
    List {
        /// Print JSON.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        mcp: McpArgs,
    },
    /// Start one server and show its protocol version, tools, resources, resource templates
    /// and prompts. SERVER: a configured server's name, or an http(s) URL of a Streamable
    /// HTTP endpoint.
    Show {
        /// The server.
        server: String,
        /// Print JSON.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        mcp: McpArgs,
    },
    /// Call one tool of a server (you, not a model, make the call: no permission is asked)
    /// and print its result; exits 1 when the tool reports an error. A question the server
    /// asks meanwhile (elicitation) is asked on stdin, one line per field (empty keeps the
    /// default); end of input cancels it.
    Call {
        /// The server: a configured server's name or an http(s) URL.
        server: String,
        /// The tool's name as the server gives it (without the `SERVER__` prefix).
        tool: String,
        /// The arguments, a JSON object (default `{}`).
        arguments: Option<String>,
        #[command(flatten)]
        mcp: McpArgs,
    },
    /// Read a server's resource and print its contents (text as is, binary as its type and size).
    Read {
        /// The server: a configured server's name or an http(s) URL.
        server: String,
        /// The resource's URI.
        uri: String,
        #[command(flatten)]
        mcp: McpArgs,
    },
    /// Fetch a server's prompt filled with arguments and print its messages.
    Prompt {
        /// The server: a configured server's name or an http(s) URL.
        server: String,
        /// The prompt's name.
        name: String,
        /// The arguments, a JSON object of strings (default `{}`).
        arguments: Option<String>,
        #[command(flatten)]
        mcp: McpArgs,
    },
    /// Log in to an HTTP server with OAuth (its authorization page opened with $BROWSER or
    /// the desktop's opener, the answer taken on a loopback port); its tokens are kept in
    /// the data folder (mcp-tokens/, one file per server URL, mode 0600) and used, refreshed, whenever it starts.
    Login {
        /// The server: a configured HTTP server's name or an http(s) URL.
        server: String,
        #[command(flatten)]
        client: LoginClient,
        #[command(flatten)]
        mcp: McpArgs,
    },
    /// Forget a server's OAuth tokens.
    Logout {
        /// The server: a configured HTTP server's name or an http(s) URL.
        server: String,
        #[command(flatten)]
        mcp: McpArgs,
    },
    /// Serve the built-in tools to other MCP clients, over stdio (what a client starts) or
    /// Streamable HTTP on a loopback address. File tools and shell work in the current
    /// directory; tools that write, and shell, only when listed in --tools. Over HTTP every
    /// request needs `Authorization: Bearer TOKEN`: the token is LUCID_MCP_TOKEN, else one
    /// is made and printed at start; a call may take 120 s; 16 sessions may be open, 8 from
    /// one address, and one with no call in progress nor stream open is closed after
    /// --idle-timeout (a client finding its session gone starts a new one). When they are all
    /// taken, a new client closes the least recently used idle one instead of being refused.
    Serve {
        /// Comma-separated tools (default: those that only read).
        #[arg(long)]
        tools: Option<String>,
        /// Serve Streamable HTTP at http://ADDR/mcp (a loopback address, e.g. 127.0.0.1:8931).
        #[arg(long, value_name = "ADDR")]
        http: Option<std::net::SocketAddr>,
        /// Over HTTP, close a session idle this many seconds.
        #[arg(long, value_name = "SECONDS", default_value_t = 30, requires = "http", value_parser = clap::value_parser!(u64).range(1..))]
        idle_timeout: u64,
    },
}

/// How `lucid mcp login` identifies Lucid (default: dynamic client registration).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct LoginClient {
    /// A client ID registered with the authorization server beforehand.
    #[arg(long, value_name = "ID")]
    pub client_id: Option<String>,
    /// The variable holding that client's secret (a secret is never a command-line argument).
    #[arg(long, value_name = "VAR", requires = "client_id")]
    pub client_secret_env: Option<String>,
    /// The HTTPS URL of a Client ID Metadata Document to use as the client ID where the
    /// authorization server supports them.
    #[arg(long, value_name = "URL")]
    pub client_metadata_url: Option<String>,
    /// No browser: exchange the client's ID and secret for a token (machine-to-machine).
    #[arg(long, requires = "client_secret_env")]
    pub client_credentials: bool,
    /// Enterprise-managed authorization (SEP-990), no browser: the issuer URL of your
    /// organization's identity provider, whose ID token (--id-token-env) is exchanged for
    /// the server's token, as the client of --client-id.
    #[arg(long, value_name = "URL", requires_all = ["client_id", "idp_client_id", "id_token_env"],
          conflicts_with_all = ["client_credentials", "client_metadata_url"])]
    pub idp_issuer: Option<String>,
    /// The identity provider's token endpoint (default: read from its metadata).
    #[arg(long, value_name = "URL", requires = "idp_issuer")]
    pub idp_token_endpoint: Option<String>,
    /// Lucid's client ID at the identity provider.
    #[arg(long, value_name = "ID", requires = "idp_issuer")]
    pub idp_client_id: Option<String>,
    /// The variable holding that client's secret, if it has one.
    #[arg(long, value_name = "VAR", requires = "idp_issuer")]
    pub idp_client_secret_env: Option<String>,
    /// The variable holding your ID token from the identity provider.
    #[arg(long, value_name = "VAR", requires = "idp_issuer")]
    pub id_token_env: Option<String>,
}
