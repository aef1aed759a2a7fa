//! The commented starter file `lucid config init` writes.

use crate::catalogue::catalogue;

/// The commented starter file `lucid config init` writes; its tool list and permissions
/// come from the catalogue of built-in tools.
pub fn starter() -> String {
    fn quoted<'a>(names: impl Iterator<Item = &'a str>) -> String {
        names.map(|n| format!("{n:?}")).collect::<Vec<_>>().join(", ")
    }
    let on: Vec<&str> = crate::args::ToolDefaults::Chat.names().collect();
    let chat = quoted(on.iter().copied());
    let other = quoted(catalogue().iter().map(|t| t.name).filter(|n| !on.contains(n)));
    let permissions: String =
        catalogue().iter().filter(|t| t.writes).map(|t| format!("{} = \"ask\"\n", t.name)).collect();
    STARTER.replace("{chat_tools}", &chat).replace("{other_tools}", &other).replace("{permissions}\n", &permissions)
}

/// [`starter`] before the catalogue's names are filled in.
const STARTER: &str = r#"# Lucid configuration. Command-line flags override this file; this file overrides the
# built-in defaults. API keys are never written here: each provider reads its key from an
# environment variable (see `lucid providers`, or set `key_env` below).

# provider = "openai"            # openai, anthropic, gemini, zhipu, qwen, deepseek, ollama, ...
# model = "gpt-4o-mini"
# system = "You are a careful assistant."
# max_iterations = 10
# temperature = 0.2              # default: the server's own
# max_tokens = 4096              # the most tokens one answer may have; default: the server's
# context_window = 32768         # tokens; default: known models' own, what a local server says
# plan = "auto"                  # plan first: auto (one short call decides), always, never

# Tools the agent may use. File tools work inside the current directory only.
# tools = [{chat_tools}]
# Off unless listed: {other_tools}
# Never written, even under allow (a write there can run code): .git .hg .svn .envrc .env*
# .vscode/tasks.json. Lift one by name:
# writable_protected = [".env*"]
# The `python` tool's interpreter (default: python3 on PATH; none is bundled).
# python = "/usr/bin/python3"
# The database `sql_query` and `sql_schema` read (never write): a SQLite file, or a
# postgres:// URL with a Postgres build (connect as a role without superuser rights).
# Setting it adds both tools to the default ones.
# db = "~/data/shop.db"

# Rules by argument, before the [permissions] table below: deny, then ask, then allow;
# the first match of a kind decides and is named in the prompt and the refusal.
# `shell(GLOB)`: the command (an allow rule never matches a compound one: `;`, `&&`, `|`,
# `$(…)`, backticks…); `FILE_TOOL(PATH_GLOB)`; `sql_query(read|write|ddl)`;
# `server__tool(arg=glob, …)` for any other tool. --allow/--ask/--deny add more.
# allow = ["shell(cargo test*)", "shell(git status)", "write_file(src/**)"]
# ask = ["shell(git push:*)"]
# deny = ["shell(rm *)", "sql_query(write, ddl)"]

# allow: run; ask: show the call and ask y/n/always; deny: never.
[permissions]
{permissions}

# Budgets: a run (or a session, over all its turns) stops before the model call that would
# pass one, with the spend reported (`lucid run` exits 3). Costs come from each model's
# price (a built-in table of list prices, or [prices] below); an unpriced model's cost is
# "unknown", and a cost limit then stops before the first call.
# max_cost = 0.50                # US dollars per run (--max-cost)
# max_model_calls = 30           # per run (--max-model-calls)
# max_total_tokens = 500000      # prompt and answers, per run (--max-total-tokens)
# session_max_cost = 5.0         # the same over a stored session's turns
# approval_timeout_secs = 86400  # a call waiting for approval (run/workflow --session) is then denied
# [prices."ollama:llama3.2"]     # US dollars per million tokens, over the built-in table
# input = 0.0
# output = 0.0
# cache_read = 0.0               # optional
# cache_write = 0.0              # optional

# Where sessions are kept (a SQLite file, or a postgres:// URL with a Postgres build).
# store = "~/.local/share/lucid/lucid.db"

# Per-provider settings.
# [providers.openai]
# base_url = "https://api.openai.com/v1"
# api = "responses"               # OpenAI protocol: "responses" (openai's default) or "chat"
# cache = "off"                   # Anthropic prompt-cache breakpoints (on by default)
# accepts = "image,pdf"           # what a model the catalogue does not know takes besides text
# key_env = "OPENAI_API_KEY"
# model = "gpt-4o-mini"
#
# A provider of your own: a server under a name of its own, with any field of a preset's
# record (the rest are those of any OpenAI-compatible server). On a preset's section, they
# change that preset.
# [providers.glm-gateway]
# base_url = "https://gateway.example.com/v1"
# key_env = "GATEWAY_API_KEY"
# model = "glm-4.6"
# protocol = "chat"               # "chat", "responses", "messages" or "generateContent"
# content = "empty"               # beside tool calls: "omit", "null", "empty", "placeholder"
# content_retry_codes = ["1214", "1213"]   # errors refusing it, and the forms resent then:
# content_retry = ["null", "placeholder"]
# reasoning_echo = "reasoning_content"     # or "reasoning", "never"
# quota_codes = ["1113"]          # also quota_statuses = [402], quota_messages = ["..."]
# telemetry_name = "zhipu"
# catalogue = "zhipu"             # its models' rows in the catalogue and price table
# local = false                   # a hosted server: not asked for its models and window

# Profiles: `lucid chat --profile fast` lays one over the settings above.
# [profiles.fast]
# provider = "groq"
# model = "llama-3.1-8b-instant"
#
# [profiles.local]
# provider = "ollama"
# model = "llama3.2"

# The layered memory of chats and stored sessions: old turns are summarised (by topic) and
# the summaries kept with the session; the most relevant are recalled each turn.
# [memory]
# enabled = true
# max_context_tokens = 4000      # default: the model's window (4000 when unknown)
# compression_threshold = 0.8    # compress when the context passes this share
# short_term_capacity = 20       # messages kept in the window
# long_term_capacity = 1000      # summaries kept per session
# summary_target_tokens = 500
# recall_top_k = 3
# embeddings = "provider"        # the provider's endpoint, "off", or a local model folder
# embedding_model = "text-embedding-3-small"

# The commands of `run_tests` and `coverage` (default: found from the project's files:
# cargo, pytest, Jest/Vitest, Maven, Gradle, go).
# [tests]
# command = "cargo nextest run --profile ci {filter}"
# report = "junit:target/nextest/ci/junit.xml"   # or libtest-json, go-json, jest-json:PATH
# coverage_command = "cargo llvm-cov --lcov --output-path lcov.info"
# coverage_report = "lcov.info"
# timeout_secs = 300

# `lucid serve`'s HTTP edge (each has a flag too).
# [serve]
# allow_origins = ["http://localhost:5173"]  # web pages that may use the API (CORS)
# header_timeout_secs = 10       # to send a request head; also the keep-alive idle time
# body_timeout_secs = 30         # to send a request's body
# max_connections = 1024         # served at once; more wait until one closes
# max_body_mib = 1               # the largest request body (base64 attachments are a third larger), 1 to 64
# approval_timeout_secs = 86400  # a tool call waiting for approval is denied after this
# responses_store = false        # true: /v1/responses stores a request silent on `store`, as OpenAI does
# tenant_daily_max_cost = 20.0   # dollars one key may spend per UTC day, then 429
# tenant_daily_max_tokens = 5000000
# tenant_daily_max_model_calls = 2000

# MCP servers: their tools join the agent's as `{server}__{tool}` (`lucid mcp list` shows
# them). Secrets come from the environment: `${VAR}` in `env` and `headers`.
# [mcp.servers.everything]
# command = "npx"
# args = ["-y", "@modelcontextprotocol/server-everything"]
# env = { LOG_LEVEL = "warn" }
# timeout_s = 60              # for each call, the start and the tool list
# result_cap = 65536            # the most bytes of one result the model reads
# permission = "ask"            # allow / ask / deny for every tool of the server
# tools = { echo = "allow" }    # per tool, by its name on the server
#
# [mcp.servers.remote]
# url = "https://example.com/mcp"
# headers = { Authorization = "Bearer ${REMOTE_MCP_TOKEN}" }
"#;
