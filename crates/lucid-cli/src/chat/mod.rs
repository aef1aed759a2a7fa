//! `lucid chat`: the interactive agent.
//!
//! One task owns the screen. The agent's turn streams events to it; tools that need the
//! person at the keyboard (a permission to ask, `ask_user` questions) send it a request
//! instead of writing to the terminal themselves, so prompts never interleave with the
//! streamed answer. The line editor runs on its own thread (see `terminal`).

mod ask;
mod commands;
#[cfg(feature = "mcp")]
mod mcp_context;
mod screen;
mod style;
mod terminal;

use std::sync::Arc;
use std::time::Instant;

use futures::{FutureExt, StreamExt};
use lucid::store::SessionStore;
use lucid::tool::Interviewer;
use lucid::tool::permission::Approver;
use lucid::{Agent, AgentEvent, AgentResult, Session, StopReason};
use tokio::signal::unix::{Signal, SignalKind, signal};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};
use tokio::sync::oneshot;

use crate::args::{ChatArgs, PlanMode};
use crate::config::file::FileConfig;
use crate::config::{AgentSettings, ModelConfig};
use crate::display::safe;
use ask::{UiApprover, UiInterviewer, UiRequest, answer};
use screen::{Screen, cached_note, context_note, show_plan_event};
use style::{Spinner, Style};
use terminal::{Input, Reader};

/// The chat's state.
pub struct Chat {
    cfg: ModelConfig,
    settings: AgentSettings,
    /// The tools of the MCP servers, as the agent has them.
    mcp: Vec<Arc<dyn lucid::tool::Tool>>,
    /// The MCP servers: those that started and those that did not.
    mcp_servers: crate::mcp::ChatServers,
    file: FileConfig,
    store: Arc<dyn SessionStore>,
    session: Session,
    style: Style,
    reader: Reader,
    ui_tx: UnboundedSender<UiRequest>,
    ui_rx: UnboundedReceiver<UiRequest>,
    sigint: Signal,
    show_reasoning: bool,
    /// Whether messages are planned first.
    plan: PlanMode,
    /// Files attached with `/attach`, sent with the next message.
    pending: Vec<lucid::Part>,
}

/// Runs the chat until `/exit`, Ctrl-D or a second Ctrl-C; returns the exit code.
pub async fn run(
    args: ChatArgs,
    cfg: ModelConfig,
    mut settings: AgentSettings,
    file: FileConfig,
) -> anyhow::Result<i32> {
    // MCP servers start at once; one that fails is a warning and the chat goes on.
    // Their elicitation is asked at the prompt, as `ask_user` is.
    let (ui_tx, ui_rx) = unbounded_channel();
    let servers = crate::mcp::servers(file.settings.mcp.as_ref(), &args.agent.mcp)?;
    let asker: Arc<dyn Interviewer> = Arc::new(UiInterviewer(ui_tx.clone()));
    let mut mcp_servers = crate::mcp::ChatServers::start(servers, args.agent.mcp.allow.clone(), Some(asker)).await?;
    let mcp = mcp_servers.tools(&mut settings.permissions)?;
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let style = Style::detect(no_color);
    let store = crate::sessions::open_store(settings.store.as_deref()).await?;
    let history = crate::sessions::default_db_path().and_then(|p| p.parent().map(|d| d.join("chat_history")));
    let reader = Reader::start(history)?;
    let id = args.agent.session.clone().unwrap_or_else(|| {
        let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
        format!("chat-{secs}")
    });
    let plan = if args.no_plan { PlanMode::Never } else { args.plan.or(settings.plan).unwrap_or(PlanMode::Auto) };
    let agent = build_agent(&cfg, &settings, &mcp, plan, &store, &ui_tx).await?;
    let session = agent.session_with_id(&id).await?;
    let mut chat = Chat {
        plan,
        cfg,
        settings,
        mcp,
        mcp_servers,
        file,
        store,
        session,
        style,
        reader,
        ui_tx,
        ui_rx,
        sigint: signal(SignalKind::interrupt())?,
        show_reasoning: true,
        pending: Vec::new(),
    };
    chat.banner();
    chat.repl().await
}

/// The agent the resolved settings describe, asking through the screen task; unless
/// planning is off, with the `checklist` tool (see [`crate::checklist`]).
async fn build_agent(
    cfg: &ModelConfig,
    settings: &AgentSettings,
    mcp: &[Arc<dyn lucid::tool::Tool>],
    plan: PlanMode,
    store: &Arc<dyn SessionStore>,
    ui: &UnboundedSender<UiRequest>,
) -> anyhow::Result<Agent> {
    let interviewer: Arc<dyn Interviewer> = Arc::new(UiInterviewer(ui.clone()));
    let approver: Arc<dyn Approver> = Arc::new(UiApprover(ui.clone()));
    let people = crate::agent::People { interviewer: Some(interviewer), approver: Some(approver) };
    let mut extra = mcp.to_vec();
    if plan != PlanMode::Never {
        extra.push(crate::checklist::tool());
    }
    let mut b = crate::agent::builder(cfg, settings, people, &extra).await?.store(Arc::clone(store));
    if let Some(memory) = crate::memory::conversation_memory(cfg, &settings.memory)? {
        b = b.memory(memory);
    }
    Ok(b.build())
}

impl Chat {
    fn banner(&self) {
        let resumed = self.session.context().history().len();
        let what = if resumed > 0 { format!("resumed, {resumed} messages") } else { "new".into() };
        println!(
            "{}",
            self.style.dim(&format!(
                "lucid chat · {} {} · session {} ({what}) · /help for commands, Ctrl-D to leave",
                self.cfg.provider,
                self.cfg.model,
                self.session.id().unwrap_or("-")
            ))
        );
    }

    async fn repl(&mut self) -> anyhow::Result<i32> {
        let mut armed = false;
        loop {
            match self.reader.read("> ", true).await {
                Input::Line(line) if line.trim().is_empty() => continue,
                Input::Line(line) => {
                    armed = false;
                    let prompt = if line.trim_start().starts_with('/') {
                        match commands::run(self, line.trim()).await {
                            Ok(commands::Flow::Continue) => continue,
                            Ok(commands::Flow::Exit) => break,
                            Ok(commands::Flow::Send(p)) => p,
                            Err(e) => {
                                println!("{}", self.style.red(&safe(&format!("error: {e:#}"))));
                                continue;
                            }
                        }
                    } else if let Some(part) = commands::pasted_file(&line) {
                        // A pasted path of an image, PDF or audio file is attached, not sent.
                        println!("{}", self.style.dim(&commands::attached_note(&part)));
                        self.pending.push(part);
                        continue;
                    } else {
                        line
                    };
                    if self.mcp_servers.changed()
                        && let Err(e) = self.refresh_mcp_tools().await
                    {
                        println!("{}", self.style.red(&safe(&format!("error: {e:#}"))));
                    }
                    let mut next = Some(prompt);
                    while let Some(prompt) = next.take() {
                        if !self.planned_turn(&prompt).await {
                            next = self.turn(prompt).await;
                        }
                    }
                }
                Input::Interrupted if armed => break,
                Input::Interrupted => {
                    println!("{}", self.style.dim("(Ctrl-C again or Ctrl-D to leave)"));
                    armed = true;
                }
                Input::Eof => break,
            }
        }
        Ok(0)
    }

    /// Rebuilds the agent after a change of model, tools or transcript, keeping the session.
    async fn rebuild(&mut self) -> anyhow::Result<()> {
        self.session.save().await?;
        let id = self.session.id().unwrap_or("chat").to_string();
        let agent = build_agent(&self.cfg, &self.settings, &self.mcp, self.plan, &self.store, &self.ui_tx).await?;
        self.session = agent.session_with_id(&id).await?;
        Ok(())
    }

    /// Gives the agent the MCP servers' tools as they are now (after a server's
    /// `tools/list_changed`, or a server restarted or started late), keeping the session.
    async fn refresh_mcp_tools(&mut self) -> anyhow::Result<()> {
        self.mcp = self.mcp_servers.tools(&mut self.settings.permissions)?;
        self.rebuild().await
    }

    /// A message the planner answers, when the plan mode is `always`. The plan is shown as
    /// a checklist ticked as its steps finish; the message and the answer join the
    /// conversation. Returns false when the message is to be answered directly: with
    /// `auto` (no call decides first: the model opens a checklist through the `checklist`
    /// tool when it wants one), with `never`, and when planning fails.
    async fn planned_turn(&mut self, prompt: &str) -> bool {
        // Attachments go with the message itself: never into a plan's steps.
        if self.plan != PlanMode::Always || !self.pending.is_empty() {
            return false;
        }
        let style = self.style;
        let started = Instant::now();
        println!("{}", style.dim("(planning the message; /plan auto lets the model decide)"));
        let agent = self.session.agent().clone();
        let planner = lucid_orchestrate::planner::Planner::new(&agent, &agent);
        let run = {
            let planned = planner.run_with_events(prompt, move |e| show_plan_event(style, e));
            tokio::select! {
                r = planned => r,
                _ = self.sigint.recv() => {
                    println!("{}", style.dim("(interrupted; the plan was dropped)"));
                    return true;
                }
            }
        };
        let run = match run {
            Ok(run) => run,
            Err(e) => {
                // A small model's plan that does not parse is no reason to leave the
                // message unanswered.
                println!("{}", style.dim(&safe(&format!("(planning failed: {e}; answering directly)"))));
                return false;
            }
        };
        println!("{}", safe(&run.answer));
        let context = self.session.context_mut();
        context.push(lucid::Message::user(prompt));
        context.push(lucid::Message::assistant(run.answer.clone()));
        if let Err(e) = self.session.save().await {
            println!("{}", style.red(&safe(&format!("error: the answer could not be saved: {e}"))));
        }
        println!(
            "{}",
            style.dim(&format!(
                "── planned: {} steps │ {} in · {} out │ {} │ {:.1}s",
                run.steps.len(),
                run.usage.input_tokens,
                run.usage.output_tokens,
                self.cfg.model,
                started.elapsed().as_secs_f64()
            ))
        );
        true
    }

    /// One turn: stream the answer, show tool calls, answer the turn's questions, footer.
    /// Returns the next message to send when the answer was the JSON protocol's interview
    /// (`needs_interview` / the seed's `needsInterview`): its questions are asked at the
    /// prompt, as `ask_user`'s are, and the answers go back at once.
    async fn turn(&mut self, prompt: String) -> Option<String> {
        let style = self.style;
        let show_reasoning = self.show_reasoning;
        let model = self.cfg.model.clone();
        // A Ctrl-C typed at the prompt earlier must not cancel this turn.
        while self.sigint.recv().now_or_never().is_some() {}
        let canceller = self.session.canceller();
        let started = Instant::now();
        let mut spinner = Spinner::start(style);
        let mut screen = Screen::new(style);
        let mut outcome: Option<Result<AgentResult, lucid::Error>> = None;
        {
            let sigint = &mut self.sigint;
            let ui_rx = &mut self.ui_rx;
            let reader = &self.reader;
            let parts = crate::attach::message_parts(prompt, std::mem::take(&mut self.pending));
            let events = self.session.run_stream_parts(parts);
            futures::pin_mut!(events);
            loop {
                tokio::select! {
                    ev = events.next() => {
                        spinner.stop().await;
                        let Some(mut ev) = ev else { break };
                        loop {
                            match ev {
                                // Every model call, the first included, spins until its
                                // answer begins.
                                AgentEvent::Iteration(n) => {
                                    if n > 1 {
                                        screen.end_line();
                                    }
                                    spinner = Spinner::start(style);
                                }
                                AgentEvent::Completed(r) => outcome = Some(Ok(r)),
                                AgentEvent::Error(e) => outcome = Some(Err(e)),
                                other => screen.show(other, show_reasoning),
                            }
                            // Calls of one answer arrive together: gather them into one group.
                            match events.next().now_or_never() {
                                Some(Some(next)) => {
                                    spinner.stop().await;
                                    ev = next;
                                }
                                _ => break,
                            }
                        }
                        screen.flush_calls();
                    }
                    Some(req) = ui_rx.recv() => {
                        spinner.stop().await;
                        screen.flush_calls();
                        screen.end_line();
                        answer(req, reader, style).await;
                    }
                    _ = sigint.recv() => {
                        canceller.cancel_now();
                    }
                }
            }
        }
        screen.end_line();
        match &outcome {
            Some(Ok(r)) => {
                match r.stop_reason {
                    StopReason::Cancelled => println!("{}", style.dim("(interrupted; the conversation is kept)")),
                    StopReason::MaxIterations => println!(
                        "{}",
                        style.red(&format!("(stopped after {} model calls; say \"go on\" to continue)", r.iterations))
                    ),
                    StopReason::NeedsInput => {
                        println!("{}", style.dim("(the agent needs answers: reply with them)"));
                        for q in &r.questions {
                            println!("  ? {}", safe(q));
                        }
                    }
                    StopReason::OutputLimit => println!(
                        "{}",
                        style.red(&format!("({}; raise max_tokens)", r.stop_message.as_deref().unwrap_or("cut off")))
                    ),
                    _ => {
                        if let Some(why) = &r.stop_message {
                            println!("{}", style.dim(&format!("({})", safe(why))));
                        }
                    }
                }
                let total = self.session.usage();
                let cost = format!(
                    "{} (session {})",
                    crate::display::dollars(r.cost_usd),
                    crate::display::dollars(self.session.spent().cost_usd)
                );
                println!(
                    "{}",
                    style.dim(&format!(
                        "── {} in{} · {} out · {cost} │ session {} in · {} out │ {}{} │ {:.1}s",
                        r.usage.input_tokens,
                        cached_note(&r.usage),
                        r.usage.output_tokens,
                        total.input_tokens,
                        total.output_tokens,
                        model,
                        context_note(&self.session),
                        started.elapsed().as_secs_f64()
                    ))
                );
            }
            Some(Err(e)) => println!("{}", style.red(&safe(&crate::display::with_flags(&format!("error: {e}"))))),
            None => println!("{}", style.red("error: the turn ended without a result")),
        }
        let questions = match &outcome {
            Some(Ok(r)) if r.stop_reason == StopReason::Completed => crate::seed::questions_of(&r.content)?,
            _ => return None,
        };
        let (reply, answers) = oneshot::channel();
        answer(UiRequest::Ask { questions: questions.clone(), reply }, &self.reader, style).await;
        let answers = answers.await.ok().flatten()?;
        Some(format!("My answers to your questions: {}", lucid::tool::answers_json(&questions, &answers)))
    }
}
