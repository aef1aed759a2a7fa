//! Slash commands of `lucid chat`.

use lucid::Message;

use super::Chat;
use super::style::Style;
use crate::args::ModelArgs;
use crate::display::truncate;

/// Every command with its one-line help; completion uses the names.
pub const COMMANDS: &[(&str, &str)] = &[
    ("/help", "this list"),
    ("/history", "the conversation as the model sees it, tool calls included"),
    ("/clear", "forget the conversation (the system prompt stays)"),
    ("/tools", "the tools; `/tools schemas` or `/tools NAME` for their argument schemas"),
    ("/model", "show the model, or switch: /model PROVIDER:MODEL or /model MODEL"),
    ("/system", "show the system prompt, or replace it: /system TEXT"),
    ("/session", "show this session's name, or switch to (or start) another: /session NAME"),
    ("/sessions", "the stored sessions"),
    ("/save", "write the conversation to a file: /save [FILE.md|FILE.json]"),
    ("/usage", "tokens used by this session"),
    ("/compact", "summarise the conversation so far now, keeping the last turn: /compact [FOCUS]"),
    ("/memory", "the summaries of earlier turns, and what the last turn recalled"),
    ("/retry", "send the last message again (its answer is dropped)"),
    ("/undo", "drop the last turn"),
    ("/transcript", "record HTTP exchanges: /transcript on [FILE] | off"),
    ("/reasoning", "show or hide the model's reasoning"),
    ("/plan", "show or set planning: /plan auto (the model may keep a checklist) | always | never"),
    ("/mcp", "the MCP servers: status, protocol, tools; `/mcp restart NAME` restarts one, or starts one that failed"),
    (
        "/attach",
        "send a file with the next message: /attach FILE (image, PDF, audio or text; or paste an image's path)",
    ),
    ("/exit", "leave (Ctrl-D works too)"),
];

/// What the chat does after a command.
pub enum Flow {
    /// Read the next line.
    Continue,
    /// Leave.
    Exit,
    /// Send this as the next user message.
    Send(String),
}

/// Runs one slash command.
pub async fn run(chat: &mut Chat, line: &str) -> anyhow::Result<Flow> {
    let (name, rest) = line.split_once(' ').map_or((line, ""), |(n, r)| (n, r.trim()));
    let style = chat.style;
    match name {
        "/help" => {
            #[cfg(feature = "mcp")]
            let more = super::mcp_context::COMMANDS;
            #[cfg(not(feature = "mcp"))]
            let more: &[(&str, &str)] = &[];
            for (n, help) in COMMANDS.iter().chain(more) {
                println!("  {:<12} {}", style.cyan(n), help);
            }
            println!("  {}", style.dim("End a line with \\ to go on to the next; Ctrl-C stops an answer."));
        }
        "/exit" | "/quit" => return Ok(Flow::Exit),
        "/attach" if rest.is_empty() => {
            if chat.pending.is_empty() {
                println!("{}", style.dim("(nothing attached: /attach FILE)"));
            }
            for p in &chat.pending {
                println!("{}", style.dim(&format!("(attached {}, sent with the next message)", p.describe())));
            }
        }
        "/attach" => {
            let part = crate::attach::load(std::path::Path::new(unquote(rest)))?;
            println!("{}", style.dim(&attached_note(&part)));
            chat.pending.push(part);
        }
        "/history" => print!("{}", render(chat.session.messages())),
        "/clear" => {
            chat.session.clear();
            chat.session.save().await?;
            println!("{}", style.dim("(conversation cleared)"));
        }
        "/undo" => {
            let dropped = chat.session.context_mut().pop_turn();
            chat.session.save().await?;
            if dropped.is_empty() {
                println!("{}", style.dim("(nothing to undo)"));
            } else {
                println!("{}", style.dim(&format!("(dropped the last turn: {} messages)", dropped.len())));
            }
        }
        "/retry" => {
            let last = chat.session.context().history().iter().rev().find_map(|m| match m {
                Message::User { content, .. } => Some(content.clone()),
                _ => None,
            });
            let Some(text) = last else {
                println!("{}", style.dim("(nothing to retry)"));
                return Ok(Flow::Continue);
            };
            chat.session.context_mut().pop_turn();
            return Ok(Flow::Send(text));
        }
        "/mcp" if rest.is_empty() => {
            if chat.mcp_servers.is_empty() {
                println!("(no MCP servers: [mcp.servers.NAME] in the configuration file, or --mcp-config FILE.json)");
            }
            for (name, location, state, tools) in crate::mcp::status(&chat.mcp_servers.clients()).await {
                let state = state.unwrap_or_else(|why| style.red(&why));
                println!("  {} ({location}) {state}", style.cyan(&name));
                println!("    {}", crate::display::hanging(&tools.join(", "), 4));
            }
            for (name, why) in chat.mcp_servers.failed() {
                println!("  {} {}", style.cyan(name), style.red(&format!("failed: {why}")));
            }
        }
        "/mcp" => match rest.split_once(' ').map_or((rest, ""), |(a, b)| (a, b.trim())) {
            ("restart", name) if !name.is_empty() => {
                if chat.mcp_servers.restart(name).await? {
                    chat.refresh_mcp_tools().await?;
                    println!("restarted {name}");
                } else {
                    println!("no MCP server named {name}");
                }
            }
            _ => println!("usage: /mcp, or /mcp restart NAME"),
        },
        "/tools" => {
            let specs = chat.session.agent().tools().specs().to_vec();
            if specs.is_empty() {
                println!("(no tools)");
            }
            for s in specs {
                let permission =
                    format!("{:?}", chat.session.agent().permissions().permission(s.name())).to_lowercase();
                // Continuation lines start under the description's first character.
                let indent = 2 + s.name().chars().count() + 3 + permission.len() + 1;
                println!(
                    "  {} [{}] {}",
                    style.cyan(s.name()),
                    permission,
                    crate::display::hanging(s.description(), indent)
                );
                if rest == "schemas" || rest == s.name() {
                    println!("{}", serde_json::to_string_pretty(s.parameters())?);
                }
            }
        }
        "/model" if rest.is_empty() => println!("{} {} at {}", chat.cfg.provider, chat.cfg.model, chat.cfg.base_url),
        "/model" => {
            let args = match rest.split_once(':') {
                Some((provider, model)) => {
                    ModelArgs { provider: Some(provider.into()), model: Some(model.into()), ..model_args(chat) }
                }
                None => ModelArgs {
                    provider: Some(chat.cfg.provider.clone()),
                    base_url: Some(chat.cfg.base_url.clone()),
                    api_key: chat.cfg.api_key.clone(),
                    model: Some(rest.into()),
                    ..model_args(chat)
                },
            };
            chat.cfg = crate::config::resolve(&args, &chat.file.settings).await?;
            chat.rebuild().await?;
            println!("{}", style.dim(&format!("(now {} {})", chat.cfg.provider, chat.cfg.model)));
        }
        "/system" if rest.is_empty() => println!("{}", chat.session.context().system().unwrap_or("(no system prompt)")),
        "/system" => {
            chat.session.context_mut().set_system(Some(rest.to_string()));
            chat.session.save().await?;
            println!("{}", style.dim("(system prompt replaced)"));
        }
        "/session" if rest.is_empty() => println!("{}", chat.session.id().unwrap_or("-")),
        "/session" => {
            chat.session.save().await?;
            let agent = chat.session.agent().clone();
            chat.session = agent.session_with_id(rest).await?;
            let n = chat.session.context().history().len();
            println!("{}", style.dim(&format!("(session {rest}: {n} messages)")));
        }
        "/sessions" => {
            for s in chat.store.list(30, 0).await? {
                let mark = if Some(s.id.as_str()) == chat.session.id() { "*" } else { " " };
                println!("{mark} {:<28} {:>4} messages  {}", s.id, s.message_count, s.title.unwrap_or_default());
            }
        }
        "/save" => {
            let id = chat.session.id().unwrap_or("chat").to_string();
            let path = if rest.is_empty() { format!("{id}.md") } else { rest.to_string() };
            let text = if path.ends_with(".json") {
                serde_json::to_string_pretty(chat.session.messages())?
            } else {
                format!("# {id}\n{}", crate::sessions::markdown_messages(chat.session.messages()))
            };
            std::fs::write(&path, text)?;
            println!("{}", style.dim(&format!("(saved to {path})")));
        }
        "/compact" => {
            let focus = Some(rest).filter(|r| !r.is_empty());
            let done = chat.session.compact(focus).await?;
            let note = if done.messages == 0 {
                "(nothing to compact: only the last turn is in the window)".to_string()
            } else {
                format!(
                    "(compacted {} messages into {} summaries, {} tokens in, {} out)",
                    done.messages, done.summaries, done.usage.input_tokens, done.usage.output_tokens
                )
            };
            println!("{}", style.dim(&note));
        }
        "/memory" => print!("{}", memory_report(&chat.session, style)),
        "/usage" => {
            let u = chat.session.usage();
            println!(
                "this run of the session: {} in ({} cached), {} out ({} reasoning)",
                u.input_tokens, u.cached_input_tokens, u.output_tokens, u.reasoning_tokens
            );
        }
        "/transcript" => {
            match rest.split_once(' ').map_or((rest, ""), |(a, b)| (a, b.trim())) {
                ("on", file) => {
                    let path = if file.is_empty() { "lucid-transcript.jsonl" } else { file };
                    chat.cfg.transcript = Some(path.into());
                    println!("{}", style.dim(&format!("(recording HTTP exchanges to {path})")));
                }
                ("off", _) => {
                    chat.cfg.transcript = None;
                    println!("{}", style.dim("(transcript off)"));
                }
                _ => anyhow::bail!("use /transcript on [FILE] or /transcript off"),
            }
            chat.rebuild().await?;
        }
        "/reasoning" => {
            chat.show_reasoning = !chat.show_reasoning;
            println!("{}", style.dim(if chat.show_reasoning { "(reasoning shown)" } else { "(reasoning hidden)" }));
        }
        "/plan" => {
            if !rest.is_empty() {
                chat.plan = <crate::args::PlanMode as clap::ValueEnum>::from_str(rest, true)
                    .map_err(|_| anyhow::anyhow!("/plan takes auto, always or never"))?;
                // The `checklist` tool comes and goes with planning.
                chat.rebuild().await?;
            }
            let mode = format!("{:?}", chat.plan).to_lowercase();
            println!("{}", style.dim(&format!("(plan: {mode})")));
        }
        other => {
            #[cfg(feature = "mcp")]
            if let Some(outcome) = super::mcp_context::run(chat, other, rest).await? {
                return Ok(match outcome {
                    super::mcp_context::Outcome::Shown => Flow::Continue,
                    super::mcp_context::Outcome::Send(text) => Flow::Send(text),
                });
            }
            anyhow::bail!("unknown command {other}; /help lists them")
        }
    }
    Ok(Flow::Continue)
}

/// `/memory`: the memory's numbers, the summaries (oldest first, with how often each was
/// recalled) and the ones the last turn recalled.
fn memory_report(session: &lucid::Session, style: Style) -> String {
    let Some(memory) = session.agent().memory() else {
        return "(memory is off: [memory] enabled = false in the configuration)\n".into();
    };
    let c = memory.config();
    let budget = c.budget(session.agent().context_budget());
    let mut out = format!(
        "budget {budget} tokens, compress at {:.0}%, {} messages in the window, at most {} summaries, recall {} ({})\n",
        c.compression_threshold * 100.0,
        c.short_term_capacity,
        c.long_term_capacity,
        c.recall_top_k,
        memory.embedder_name().map_or("the newest, no embeddings".to_string(), |m| format!("by similarity, {m}")),
    );
    let summaries = session.summaries();
    if summaries.is_empty() {
        out.push_str("(no summaries yet)\n");
    }
    for (i, s) in summaries.iter().enumerate() {
        let meta = format!("{}. {} messages, recalled {}×:", i + 1, s.messages, s.recalled);
        out.push_str(&format!(
            "{} {}\n",
            style.cyan(&meta),
            crate::display::hanging(&s.text, meta.chars().count() + 1)
        ));
    }
    let recalled = session.recalled();
    if !recalled.is_empty() {
        out.push_str(&format!("{}\n", style.dim("recalled for the last turn:")));
        for r in &recalled {
            out.push_str(&format!("  - {}\n", truncate(r, 200)));
        }
    }
    out
}

/// The flags that do not choose the model, kept from the start.
fn model_args(chat: &Chat) -> ModelArgs {
    ModelArgs {
        transcript: chat.cfg.transcript.clone(),
        max_retries: chat.cfg.max_retries,
        timeout: chat.cfg.timeout.as_secs(),
        ..ModelArgs::default()
    }
}

/// The conversation as the model sees it, one line per part (long ones cut), tool calls
/// and results included.
fn render(messages: &[Message]) -> String {
    let mut out = String::new();
    for m in messages {
        match m {
            Message::System { content } => out.push_str(&format!("[system] {content}\n")),
            Message::User { content, .. } => out.push_str(&format!("[user] {content}\n")),
            Message::Assistant(a) => {
                if let Some(r) = &a.reasoning
                    && !r.text.is_empty()
                {
                    out.push_str(&format!("[reasoning] {}\n", truncate(&r.text, 200)));
                }
                if !a.content.is_empty() {
                    out.push_str(&format!("[assistant] {}\n", a.content));
                }
                for c in &a.tool_calls {
                    out.push_str(&format!("[tool call {}] {} {}\n", c.id, c.name, c.arguments));
                }
            }
            Message::Tool(r) => {
                let mark = if r.is_error { " error" } else { "" };
                out.push_str(&format!("[tool result {}{mark}] {}\n", r.call_id, truncate(&r.content, 300)));
            }
            _ => {}
        }
    }
    if out.is_empty() {
        out.push_str("(empty conversation)\n");
    }
    out
}

/// A path pasted by a terminal: maybe quoted, maybe with `\ ` for spaces.
fn unquote(s: &str) -> &str {
    let s = s.trim();
    s.strip_prefix('\'')
        .and_then(|s| s.strip_suffix('\''))
        .or_else(|| s.strip_prefix('"').and_then(|s| s.strip_suffix('"')))
        .unwrap_or(s)
}

/// The line is the path of an existing image, PDF or audio file (what dropping a file on
/// a terminal pastes): that file as a part.
pub fn pasted_file(line: &str) -> Option<lucid::Part> {
    let path = unquote(line).replace("\\ ", " ");
    if path.contains('\n') || !(path.starts_with('/') || path.starts_with("~/") || path.starts_with("./")) {
        return None;
    }
    let path = match path.strip_prefix("~/") {
        Some(rest) => std::path::PathBuf::from(std::env::var_os("HOME")?).join(rest),
        None => std::path::PathBuf::from(path),
    };
    if !path.is_file() {
        return None;
    }
    let part = crate::attach::load(&path).ok()?;
    (part.kind() != lucid::content::PartKind::TextDocument).then_some(part)
}

/// What the chat says when a file is attached.
pub fn attached_note(part: &lucid::Part) -> String {
    format!("(attached {}: it goes with your next message)", part.describe())
}
