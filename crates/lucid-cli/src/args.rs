//! The command line as parsed, before anything is resolved (see `config.rs`), with the
//! help of `--tools` drawn from the library's catalogue. A leaf: it uses no other module of
//! the CLI.

mod eval;
mod grants;
mod mcp;
#[cfg(feature = "server")]
mod serve;
mod workflow;

use std::path::PathBuf;

use crate::catalogue::catalogue;
use clap::{Args, Parser, Subcommand};

pub use eval::{EvalAction, EvalRunArgs};
pub use grants::{ApprovalArgs, LimitArgs, McpArgs};
#[cfg(feature = "mcp")]
pub use mcp::LoginClient;
pub use mcp::McpAction;
#[cfg(feature = "server")]
pub use serve::{KeysAction, ServeArgs, ServeCommand};
pub use workflow::WorkflowAction;

/// Lucid: a lightweight, transparent LLM agent.
#[derive(Debug, Parser)]
#[command(name = "lucid", version, about, propagate_version = true)]
pub struct Cli {
    /// More logging on stderr (-v: info, -vv: debug with HTTP bodies, -vvv: trace).
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
    /// Configuration file (default: `$XDG_CONFIG_HOME/lucid/config.toml`, if it exists).
    #[arg(long, global = true, value_name = "FILE", env = "LUCID_CONFIG")]
    pub config: Option<PathBuf>,
    /// A profile of the configuration file, laid over its top level.
    #[arg(long, global = true, value_name = "NAME", env = "LUCID_PROFILE")]
    pub profile: Option<String>,
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
#[allow(clippy::large_enum_variant, reason = "parsed once per process")]
pub enum Command {
    /// Run one task: send PROMPT, let the agent call tools, print the answer.
    Run(RunArgs),
    /// Talk with the agent in the terminal: streamed answers, tool calls shown as they
    /// happen, slash commands (`/help`), sessions kept across runs.
    Chat(ChatArgs),
    /// Show the resolved configuration, or write a starter file.
    Config {
        #[command(subcommand)]
        action: ConfigAction,
    },
    /// Print a shell completion script (`lucid completions bash > ~/.local/share/bash-completion/completions/lucid`).
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// List the known providers, their key variables and default base URLs.
    Providers,
    /// Agents by name: the configuration's, the user's agent files and the shipped ones.
    Agents {
        #[command(subcommand)]
        action: crate::agent_args::AgentsAction,
    },
    /// Evaluate an agent on a dataset: cases, judges, repeats, cassettes, reports and a
    /// regression gate.
    Eval {
        #[command(subcommand)]
        action: EvalAction,
    },
    /// Run a workflow file (TOML or YAML).
    Workflow {
        #[command(subcommand)]
        action: WorkflowAction,
    },
    /// MCP servers: list them with their tools.
    Mcp {
        #[command(subcommand)]
        action: McpAction,
    },
    /// Serve the configuration's agents over HTTP: sessions, runs streamed as Server-Sent
    /// Events, and an OpenAI-compatible /v1/chat/completions.
    #[cfg(feature = "server")]
    Serve(ServeArgs),
    /// GGUF models for the local engine, in the Hugging Face cache (`$HF_HUB_CACHE`, else
    /// `$HF_HOME/hub`, else `~/.cache/huggingface/hub`), shared with other tools.
    Models {
        /// Use only the cache, never the network (also `HF_HUB_OFFLINE=1`).
        #[arg(long, global = true)]
        offline: bool,
        #[command(subcommand)]
        action: ModelsAction,
    },
    /// List, show, delete, export or repair stored sessions.
    Sessions {
        #[command(flatten)]
        store: StoreArgs,
        #[command(subcommand)]
        action: SessionsAction,
    },
}

/// `lucid config …`.
#[derive(Debug, Subcommand)]
#[allow(clippy::large_enum_variant, reason = "parsed once per process")]
pub enum ConfigAction {
    /// Print the resolved configuration (flags, file, environment), keys masked.
    Show {
        #[command(flatten)]
        model: ModelArgs,
    },
    /// Write a commented starter file (to `--config FILE`, or the default location).
    Init {
        /// Replace an existing file.
        #[arg(long)]
        force: bool,
    },
}

/// `lucid chat`.
#[derive(Debug, Args)]
pub struct ChatArgs {
    #[command(flatten)]
    pub model: ModelArgs,
    #[command(flatten)]
    pub agent: AgentArgs,
    /// Planning: `auto` (the default, unless the configuration's `plan` says otherwise)
    /// gives the model a `checklist` tool it may open for a task with several parts (its
    /// boxes ticked as the steps finish) and asks nothing before a message, so a simple
    /// question costs one answer; `--plan` alone runs every message through the planner
    /// (answered directly when planning fails); `--no-plan` neither.
    #[arg(long, value_enum, value_name = "MODE", num_args = 0..=1, require_equals = true, default_missing_value = "always",
          conflicts_with = "no_plan")]
    pub plan: Option<PlanMode>,
    /// Never plan.
    #[arg(long)]
    pub no_plan: bool,
}

/// What the agent of `lucid run` and `lucid chat` gets: prompt, tools, limits, session.
#[derive(Debug, Args, Clone, Default)]
pub struct AgentArgs {
    /// The agent NAME: `[agents.NAME]` of the configuration, the user's
    /// `~/.config/lucid/agents/NAME.toml`, or one shipped with lucid (`lucid agents list`);
    /// the other flags override its settings.
    #[arg(long = "agent", value_name = "NAME")]
    pub named: Option<String>,
    /// System prompt.
    #[arg(long, short = 's')]
    pub system: Option<String>,
    // The help lists the library's catalogue of built-in tools.
    #[arg(long, help = tools_help(), long_help = tools_long_help())]
    pub tools: Option<String>,
    /// Most model calls per turn (default 10).
    #[arg(long)]
    pub max_iterations: Option<usize>,
    /// The database of `sql_query` and `sql_schema`, read only: a SQLite file or a
    /// `postgres://` URL (a Postgres build). Adds both tools to the default tools.
    #[arg(long, value_name = "URL")]
    pub db: Option<String>,
    /// Sampling temperature sent with every call (default: the server's own, which makes
    /// runs differ from one server to the next).
    #[arg(long, value_name = "T", allow_negative_numbers = true)]
    pub temperature: Option<f64>,
    /// The most tokens one answer may have (default: the server's own).
    #[arg(long, value_name = "N")]
    pub max_tokens: Option<u32>,
    /// The model's context window in tokens: every request is kept within it (default: the
    /// catalogue's figure for known models, what a local server says, else 8192).
    #[arg(long, value_name = "N")]
    pub context_window: Option<u32>,
    /// Continue (or start) the stored conversation NAME; each turn is saved.
    #[arg(long)]
    pub session: Option<String>,
    /// Trust the current folder's project to run its own code (its tests, through
    /// `run_tests` and `coverage`), and remember it; without it, the first time in a
    /// folder asks on the terminal, or stops.
    #[arg(long)]
    pub trust: bool,
    #[command(flatten)]
    pub store: StoreArgs,
    #[command(flatten)]
    pub mcp: McpArgs,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// `lucid models …`.
#[derive(Debug, Subcommand)]
pub enum ModelsAction {
    /// Download a model into the cache (resumed if an earlier download stopped; checked
    /// against the hub's sha256) and print its path. NAME: an alias (`qwen3-0.6b`, the
    /// default model), `ORG/REPO` (its Q4_K_M GGUF, else Q8_0, else the first),
    /// `ORG/REPO:FILE.gguf`, `ORG/REPO:QUANT` (`:Q8_0`) or a `…/resolve/REVISION/FILE` URL.
    Pull {
        /// The model.
        name: String,
    },
    /// The cached GGUF models: repository, file, size, path.
    List {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Remove a model from the cache (its snapshot entries, and the files no other entry
    /// uses); `ORG/REPO` alone removes the whole repository.
    Rm {
        /// The model, named as for `pull`.
        name: String,
    },
}

/// Where sessions are stored.
#[derive(Debug, Args, Clone, Default)]
pub struct StoreArgs {
    /// Session store: a SQLite file path (or `sqlite:PATH`), or a `postgres://` URL.
    /// Default: `$XDG_DATA_HOME/lucid/lucid.db` (`~/.local/share/lucid/lucid.db`).
    #[arg(long, env = "LUCID_STORE", global = true)]
    pub store: Option<String>,
}

/// `lucid sessions …`.
#[derive(Debug, Subcommand)]
pub enum SessionsAction {
    /// Stored sessions, most recent first.
    List {
        /// How many.
        #[arg(long, default_value_t = 50)]
        limit: usize,
        /// How many to skip.
        #[arg(long, default_value_t = 0)]
        offset: usize,
    },
    /// One session's conversation.
    Show {
        /// Session id.
        id: String,
    },
    /// Delete a session.
    Delete {
        /// Session id.
        id: String,
    },
    /// Rebuild a damaged session: drop unreadable messages, make the rest a valid
    /// conversation, rewrite it (and its message count) whole.
    Repair {
        /// Session id.
        id: String,
    },
    /// Print a session as JSON (attachments inline, base64) or Markdown.
    Export {
        /// Session id.
        id: String,
        /// Output format.
        #[arg(long, value_enum, default_value_t = ExportFormat::Markdown)]
        format: ExportFormat,
        /// Markdown: write the session's images, documents and audio into this folder
        /// (named by their SHA-256) and link them.
        #[arg(long, value_name = "DIR")]
        attachments: Option<std::path::PathBuf>,
    },
}

/// Export formats.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum ExportFormat {
    /// The stored messages as JSON.
    Json,
    /// A readable transcript.
    Markdown,
}

/// Flags that choose and configure the model.
#[derive(Debug, Args, Clone, Default)]
pub struct ModelArgs {
    /// Provider: openai, anthropic, gemini, zhipu, qwen, deepseek, ollama, vllm, llamacpp,
    /// openrouter, groq, or local (the in-process engine).
    /// Without it, the first provider whose key variable is set is used, else a local
    /// Ollama or llama.cpp server if one answers, else the local engine with the default
    /// model (downloaded on first use).
    #[arg(long, short = 'p')]
    pub provider: Option<String>,
    /// Model name (each provider has a default). `local:NAME` runs a model of the local
    /// engine, NAME as `lucid models pull` takes it (downloaded first if not cached).
    #[arg(long, short = 'm')]
    pub model: Option<String>,
    /// A GGUF file for the local engine (`--provider local`), used as it is: nothing is
    /// downloaded.
    #[arg(long, value_name = "FILE.gguf")]
    pub model_file: Option<PathBuf>,
    /// Use only models already in the cache, never the network (also `HF_HUB_OFFLINE=1`).
    #[arg(long)]
    pub offline: bool,
    /// Base URL, as the vendor's SDK takes it (`.../v1`); `/chat/completions` (or
    /// `/responses`) is appended.
    #[arg(long)]
    pub base_url: Option<String>,
    /// Which OpenAI API to speak: `responses` (the `openai` provider's default) or `chat`
    /// (Chat Completions, every other OpenAI-compatible provider's default). Any server
    /// implementing the Responses API works with `--base-url URL --api responses`.
    #[arg(long, value_parser = ["chat", "responses"])]
    pub api: Option<String>,
    /// API key (default: the provider's environment variable). A key on the command line
    /// is visible to other local users (`ps`, shell history): prefer the variable.
    #[arg(long)]
    pub api_key: Option<String>,
    /// Append every HTTP exchange to this JSONL file (API keys redacted).
    #[arg(long)]
    pub transcript: Option<PathBuf>,
    /// Retries for rate limits, overload and network errors.
    #[arg(long, default_value_t = 3)]
    pub max_retries: u32,
    /// Seconds one attempt may wait for the answer to begin, and between two pieces of it.
    #[arg(long, default_value_t = 600)]
    pub timeout: u64,
    /// Seconds one model call may take in all, retries and the whole answer included
    /// (default: three times --timeout).
    #[arg(long)]
    pub deadline: Option<u64>,
    /// A backup model, `provider:model` (repeatable, tried in order): a call the model
    /// fails after its retries (overload, rate limit, quota, timeout, refused connection,
    /// refused key, unknown model; never a request the provider calls invalid) goes to the
    /// next with the same history. Replaces `fallback` of the configuration.
    #[arg(long = "fallback", value_name = "PROVIDER:MODEL")]
    pub fallback: Vec<String>,
}

/// Whether a task is planned before it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PlanMode {
    /// Simple requests at once, complex ones planned: in `lucid run`, one short call
    /// decides; in `lucid chat`, the model opens a checklist (a tool) when it wants one.
    Auto,
    /// Always plan.
    Always,
    /// Never plan.
    Never,
}

/// `lucid run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub model: ModelArgs,
    #[command(flatten)]
    pub agent: AgentArgs,
    #[command(flatten)]
    pub targets: crate::agent_args::TargetArgs,
    #[command(flatten)]
    pub approval: ApprovalArgs,
    /// Print the answer as it is generated.
    #[arg(long)]
    pub stream: bool,
    /// Print one JSON object: content, tool_calls, iterations, usage, stop_reason.
    #[arg(long)]
    pub json: bool,
    /// The answer must be JSON matching this JSON Schema file; the validated JSON is
    /// printed (the schema goes to the provider in its native form; an invalid answer is
    /// sent back for correction twice before exit code 1).
    #[arg(long, value_name = "FILE.json", conflicts_with = "stream")]
    pub schema: Option<std::path::PathBuf>,
    /// Plan first: the model splits the task into steps with dependencies, the steps run
    /// with the tools (independent ones at once), a failed step is planned again, and the
    /// answer is written from all the results. The plan and each step's progress go to
    /// standard error. `--plan=auto`: one short call decides whether the task needs a
    /// plan (simple questions are answered at once). Default: `plan` in the
    /// configuration, else never.
    #[arg(long, value_enum, value_name = "MODE", num_args = 0..=1, require_equals = true, default_missing_value = "always",
          conflicts_with_all = ["schema", "stream", "session", "no_plan"])]
    pub plan: Option<PlanMode>,
    /// Never plan, whatever the configuration says.
    #[arg(long)]
    pub no_plan: bool,
    /// Read one JSON request from FILE (`-`: standard input), for programs:
    /// `{"sessionId", "text", "context": {…}, "requiredTools": […]}` (the seed's tool names
    /// `schema`, `history`, `query`, `migrate` are taken for Lucid's); the context's
    /// `operation` (schema_design, schema_modification, query, general) chooses the tools
    /// and the planning, its `currentSchema` is shown in a block of its own. The answer is
    /// the `--json` object plus `model`, `timestamp` and `requiresToolCalls` (or the seed's
    /// shape with `--output-format seed`); a malformed request exits with code 2 and a JSON
    /// error naming the field.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["prompt", "schema", "plan", "stream", "session", "tools"])]
    pub input: Option<PathBuf>,
    /// How the answer is printed: `text` (the default), `json` (as `--json`), or `seed`:
    /// one JSON object in the seed's shape, `{"text", "toolCalls": [{"toolName",
    /// "callId", "args"}], "requiresToolCalls", "metadata": {"tokensUsed", "model",
    /// "timestamp"}}` (the timestamp in milliseconds since the Unix epoch), for programs
    /// written against it.
    #[arg(long, value_enum, value_name = "FORMAT", conflicts_with = "schema")]
    pub output_format: Option<OutputFormat>,
    /// Send FILE with the task: an image (PNG, JPEG, GIF, WebP), a PDF, audio (WAV, MP3) or
    /// a text file, its kind read from its content. Repeatable. A model that cannot take
    /// the kind is refused before anything is sent.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["schema", "plan"])]
    pub attach: Vec<PathBuf>,
    /// The task. `-` or nothing reads it from standard input.
    pub prompt: Vec<String>,
}

/// `lucid run --output-format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    /// The answer's text.
    Text,
    /// One JSON object (`--json`).
    Json,
    /// One JSON object in the seed's response shape.
    Seed,
}

/// Which command's default tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolDefaults {
    /// `lucid run`: nobody at the keyboard.
    Run,
    /// `lucid chat`.
    Chat,
}

/// On by default where nobody is at hand to watch or answer (`lucid run`).
const ON_IN_RUN: &[&str] = &["calculator", "current_time", "ask_user"];
/// On by default with a person at the keyboard (`lucid chat`): the file tools too.
const ON_IN_CHAT: &[&str] =
    &["calculator", "current_time", "ask_user", "read_file", "list_dir", "search_files", "write_file", "edit_file"];

impl ToolDefaults {
    /// The names of the tools on by default, in catalogue order (those of this build).
    pub fn names(self) -> impl Iterator<Item = &'static str> {
        let on = match self {
            ToolDefaults::Run => ON_IN_RUN,
            ToolDefaults::Chat => ON_IN_CHAT,
        };
        catalogue().iter().filter(move |t| on.contains(&t.name)).map(|t| t.name)
    }
}

/// The short help of `--tools` (`-h`), from the catalogue.
pub fn tools_help() -> String {
    format!(
        "Comma-separated tools, or `none`: {} (`--help` says what each does and which are on by default)",
        joined(crate::catalogue::names())
    )
}

/// The long help of `--tools` (`--help`), from the catalogue: one line per tool.
pub fn tools_long_help() -> String {
    let width = crate::catalogue::names().map(str::len).max().unwrap_or(0);
    let mut out = String::from("Comma-separated tools, or `none`:\n");
    for t in catalogue() {
        let asks = if t.writes { " (asks first)" } else { "" };
        out.push_str(&format!("  {:<width$}  {}{asks}\n", t.name, t.summary));
    }
    let run: Vec<&str> = ToolDefaults::Run.names().collect();
    out.push_str(&format!(
        "The file tools and shell work inside the current directory. Default for `run`: {}; for `chat`: \
         those and {}. `lucid run` cannot answer `ask_user` (it prints the questions and exits with code 4) \
         nor a policy's `ask` (the call is refused).",
        run.join(", "),
        joined(ToolDefaults::Chat.names().filter(|n| !run.contains(n))),
    ));
    out
}

fn joined(names: impl Iterator<Item = &'static str>) -> String {
    names.collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_help_and_the_defaults_come_from_the_catalogue() {
        let (short, long) = (tools_help(), tools_long_help());
        for t in catalogue() {
            assert!(short.contains(t.name), "{} missing from: {short}", t.name);
            assert!(
                long.lines().any(|l| l.contains(t.name) && l.contains(t.summary)),
                "{} missing from: {long}",
                t.name
            );
        }
        // Names are padded to the longest, `schema_history`.
        assert!(long.contains("\n  shell           runs a shell command (asks first)\n"), "{long}");
        assert!(long.contains("\n  python          runs Python code in a persistent interpreter"), "{long}");
        assert!(long.contains("\n  sql_query       runs one read-only SQL statement on the database\n"), "{long}");
        assert!(long.contains("\n  sql_migrate     applies a migration in one transaction"), "{long}");
        assert!(
            long.contains("Default for `run`: calculator, current_time, ask_user; for `chat`: those and read_file,")
        );
        assert_eq!(ToolDefaults::Run.names().collect::<Vec<_>>(), ["calculator", "current_time", "ask_user"]);
        assert_eq!(
            ToolDefaults::Chat.names().collect::<Vec<_>>(),
            [
                "calculator",
                "current_time",
                "ask_user",
                "read_file",
                "list_dir",
                "search_files",
                "write_file",
                "edit_file"
            ]
        );
    }
}
