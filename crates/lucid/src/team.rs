//! Teams: several named agents working on one task.
//!
//! A [`Team`] holds members, each an ordinary [`Agent`] with its own model, system
//! prompt, tools and memory, and a description the others read. Three ways to work
//! together, all on the same agent loop:
//!
//! * **Delegation ("agent as tool")**: a member's delegates appear to it as tools named
//!   after them, taking a `task`. Calling one runs the delegate in a fresh session and
//!   returns its answer as the tool's output; calls in one answer run at the same time.
//! * **Hand-off**: a member's hand-off targets appear as `transfer_to_<name>` tools.
//!   Calling one ends the member's turn after its tool calls, and the target continues the
//!   same conversation under its own system prompt and tools.
//! * **Routing**: a router agent classifies the request (structured output naming one
//!   member), and that member answers it.
//!
//! Delegation depth and the team's total model calls are bounded; going past either
//! stops the whole run with [`Error::TeamLimit`] naming the chain. Every member run is
//! reported ([`TeamEvent`]) and kept in the result ([`TeamRun::runs`]) with its usage.
//!
//! ```no_run
//! # async fn demo() -> lucid::Result<()> {
//! use lucid::team::Team;
//! let model = lucid::model::from_env("openai:gpt-4o-mini")?;
//! let agent = |system: &str| lucid::Agent::builder(model.clone()).system(system).build();
//! let team = Team::new()
//!     .member("lead", &agent("Break the work down and delegate it."), "Coordinates the work.")
//!     .member("researcher", &agent("Find facts."), "Finds facts about a topic.")
//!     .member("writer", &agent("Write clearly."), "Turns notes into prose.")
//!     .delegates("lead", ["researcher", "writer"])
//!     .max_depth(2)
//!     .max_model_calls(30);
//! let run = team.run("lead", "A paragraph on the history of the bicycle.").await?;
//! for (who, usage) in &run.usage_by_agent {
//!     println!("{who}: {} tokens", usage.input_tokens + usage.output_tokens);
//! }
//! # Ok(()) }
//! ```

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use futures::FutureExt;
use futures::future::BoxFuture;
use serde::Serialize;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::agent::{Agent, AgentResult, Canceller, Session, StopReason, ToolCallRecord};
use crate::error::{Error, Result};
use crate::message::{Message, Usage};
use crate::model::ResponseFormat;
use crate::tool::{Tool, ToolContext, ToolError, ToolSpec};

/// How many hand-offs one member run may chain before the team stops it.
const MAX_HANDOFFS: usize = 8;

#[derive(Clone)]
struct Member {
    agent: Agent,
    description: String,
    delegates: Vec<String>,
    handoffs: Vec<String>,
}

#[derive(Clone)]
struct TeamInner {
    members: BTreeMap<String, Member>,
    router: Option<Agent>,
    max_depth: usize,
    max_model_calls: usize,
}

/// Named agents that delegate, hand off and route. See the [module docs](self).
#[derive(Clone)]
pub struct Team {
    inner: Arc<TeamInner>,
}

impl std::fmt::Debug for Team {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Team")
            .field("members", &self.inner.members.keys().collect::<Vec<_>>())
            .field("max_depth", &self.inner.max_depth)
            .field("max_model_calls", &self.inner.max_model_calls)
            .finish()
    }
}

impl Default for Team {
    fn default() -> Self {
        Team::new()
    }
}

/// How a member came to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Via {
    /// It was asked directly.
    Start,
    /// Another member delegated a task to it.
    Delegation,
    /// Another member handed the conversation to it.
    Handoff,
    /// The router chose it.
    Route,
    /// It is the router.
    Router,
}

/// One member run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AgentRun {
    /// The member (or `router`).
    pub agent: String,
    /// Who delegated or handed off to it.
    pub parent: Option<String>,
    /// How it came to run.
    pub via: Via,
    /// Delegation depth: 0 for the member asked first.
    pub depth: usize,
    /// The task it was given (for a hand-off: the conversation's last user message).
    pub task: String,
    /// Its answer.
    pub content: String,
    /// Why it stopped.
    pub stop_reason: StopReason,
    /// Its model calls.
    pub iterations: usize,
    /// Its tool calls (delegations included, with the delegate's answer as output).
    pub tool_calls: Vec<ToolCallRecord>,
    /// Its model usage (its delegates' not included).
    pub usage: Usage,
    /// How long it ran (its delegates' time included).
    #[serde(rename = "duration_ms", serialize_with = "crate::duration_ms::millis")]
    pub duration: Duration,
}

/// The outcome of a team run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TeamRun {
    /// The final answer.
    pub content: String,
    /// The member that gave it (after hand-offs, not necessarily the first).
    pub final_agent: String,
    /// Every member run, in the order they ended.
    pub runs: Vec<AgentRun>,
    /// Usage per member.
    pub usage_by_agent: BTreeMap<String, Usage>,
    /// Usage of the whole team.
    pub usage: Usage,
    /// Model calls of the whole team.
    pub model_calls: usize,
}

/// What happens during a team run.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum TeamEvent {
    /// A member starts working.
    AgentStarted {
        /// The member.
        agent: String,
        /// Who asked it.
        parent: Option<String>,
        /// How it came to run.
        via: Via,
        /// Delegation depth.
        depth: usize,
        /// Its task.
        task: String,
    },
    /// A member finished.
    AgentFinished {
        /// The member.
        agent: String,
        /// Delegation depth.
        depth: usize,
        /// Its model calls.
        iterations: usize,
        /// Its usage.
        usage: Usage,
        /// How long it ran.
        #[serde(rename = "duration_ms", serialize_with = "crate::duration_ms::millis")]
        duration: Duration,
    },
    /// A member handed the conversation to another.
    HandedOff {
        /// From.
        from: String,
        /// To.
        to: String,
    },
    /// The router chose a member.
    Routed {
        /// The member chosen.
        agent: String,
        /// The router's reason.
        reason: String,
    },
}

impl Team {
    /// An empty team (delegation depth 3, 50 model calls).
    pub fn new() -> Self {
        Team {
            inner: Arc::new(TeamInner { members: BTreeMap::new(), router: None, max_depth: 3, max_model_calls: 50 }),
        }
    }

    fn edit(&mut self) -> &mut TeamInner {
        Arc::make_mut(&mut self.inner)
    }

    /// Adds a member. `name` is also its tool name for delegation (letters, digits, `_`,
    /// `-`); `description` tells the others (and the router) what it is for.
    pub fn member(mut self, name: impl Into<String>, agent: &Agent, description: impl Into<String>) -> Self {
        let member = Member {
            agent: agent.clone(),
            description: description.into(),
            delegates: Vec::new(),
            handoffs: Vec::new(),
        };
        self.edit().members.insert(name.into(), member);
        self
    }

    /// Lets `member` delegate tasks to each of `to` (they appear to it as tools).
    pub fn delegates<I, S>(mut self, member: &str, to: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        if let Some(m) = self.edit().members.get_mut(member) {
            m.delegates.extend(to.into_iter().map(Into::into));
        }
        self
    }

    /// Lets `member` hand the conversation to each of `to` (`transfer_to_<name>` tools).
    pub fn handoffs<I, S>(mut self, member: &str, to: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        if let Some(m) = self.edit().members.get_mut(member) {
            m.handoffs.extend(to.into_iter().map(Into::into));
        }
        self
    }

    /// The agent that picks a member for [`Team::route`].
    pub fn router(mut self, agent: &Agent) -> Self {
        self.edit().router = Some(agent.clone());
        self
    }

    /// How deep delegation may go (default 3: a member asked first is depth 0, its
    /// delegates depth 1…).
    pub fn max_depth(mut self, n: usize) -> Self {
        self.edit().max_depth = n;
        self
    }

    /// The most model calls a team run may make, all members together (default 50).
    pub fn max_model_calls(mut self, n: usize) -> Self {
        self.edit().max_model_calls = n.max(1);
        self
    }

    /// The members' names.
    pub fn member_names(&self) -> impl Iterator<Item = &str> {
        self.inner.members.keys().map(String::as_str)
    }

    /// Checks that every delegate and hand-off target is a member, that delegation tool
    /// names are valid and do not clash with the member's own tools.
    pub fn validate(&self) -> Result<()> {
        for (name, m) in &self.inner.members {
            for d in m.delegates.iter().chain(&m.handoffs) {
                if !self.inner.members.contains_key(d) {
                    return Err(Error::Config(format!("team member `{name}` refers to `{d}`, which is not a member")));
                }
            }
            let tool_names = m.delegates.iter().cloned().chain(m.handoffs.iter().map(|h| format!("transfer_to_{h}")));
            for d in tool_names {
                ToolSpec::new(d.as_str(), "", json!({})).map_err(|e| Error::Config(e.to_string()))?;
                if m.agent.tools().get(&d).is_some() {
                    return Err(Error::Config(format!(
                        "team member `{name}` already has a tool named `{d}`; rename the member"
                    )));
                }
            }
        }
        Ok(())
    }

    /// Runs member `name` on `prompt`.
    pub async fn run(&self, name: &str, prompt: &str) -> Result<TeamRun> {
        self.run_with_events(name, prompt, |_| {}).await
    }

    /// Runs member `name` on `prompt`, handing every [`TeamEvent`] to `on_event`.
    pub async fn run_with_events(
        &self,
        name: &str,
        prompt: &str,
        on_event: impl Fn(TeamEvent) + Send + Sync + 'static,
    ) -> Result<TeamRun> {
        self.validate()?;
        let shared = Shared::new(self.clone(), Arc::new(on_event));
        let start =
            Start { member: name.to_string(), task: prompt.to_string(), depth: 0, parent: None, via: Via::Start };
        let outcome = run_member(Arc::clone(&shared), start, CancellationToken::new()).await;
        shared.finish(outcome)
    }

    /// Asks the router which member should answer `prompt`, then runs that member.
    pub async fn route(&self, prompt: &str) -> Result<TeamRun> {
        self.route_with_events(prompt, |_| {}).await
    }

    /// [`Team::route`] with events.
    pub async fn route_with_events(
        &self,
        prompt: &str,
        on_event: impl Fn(TeamEvent) + Send + Sync + 'static,
    ) -> Result<TeamRun> {
        self.validate()?;
        let router = self.inner.router.clone().ok_or_else(|| Error::Config("this team has no router".into()))?;
        let shared = Shared::new(self.clone(), Arc::new(on_event));
        let names: Vec<&str> = self.member_names().collect();
        let mut listing = String::new();
        for (n, m) in &self.inner.members {
            listing.push_str(&format!("- {n}: {}\n", m.description));
        }
        let format = ResponseFormat::JsonSchema {
            name: "route".into(),
            schema: json!({
                "type": "object",
                "properties": {
                    "agent": {"type": "string", "enum": names, "description": "The member who should answer."},
                    "reason": {"type": "string", "description": "Why, in one sentence."}
                },
                "required": ["agent", "reason"],
                "additionalProperties": false
            }),
            strict: true,
        };
        let ask = format!(
            "Choose the team member best suited to answer this request.\n\nMembers:\n{listing}\nRequest:\n{prompt}"
        );
        // The router's calls are counted once made; the budget must allow one at least.
        shared.reserve(1)?;
        shared.refund(1);
        let started = Instant::now();
        let mut session = router.session();
        let choice = session.extract_json(ask, format, 2).await;
        let usage = session.usage();
        let calls = session.messages().iter().filter(|m| matches!(m, Message::Assistant(_))).count();
        shared.calls.fetch_add(calls, Ordering::SeqCst);
        let choice = choice?;
        let agent = choice["agent"].as_str().unwrap_or_default().to_string();
        let reason = choice["reason"].as_str().unwrap_or_default().to_string();
        shared.record(AgentRun {
            agent: "router".into(),
            parent: None,
            via: Via::Router,
            depth: 0,
            task: prompt.to_string(),
            content: choice.to_string(),
            stop_reason: StopReason::Completed,
            iterations: calls,
            tool_calls: Vec::new(),
            usage,
            duration: started.elapsed(),
        });
        (shared.on_event)(TeamEvent::Routed { agent: agent.clone(), reason });
        let start =
            Start { member: agent, task: prompt.to_string(), depth: 0, parent: Some("router".into()), via: Via::Route };
        let outcome = run_member(Arc::clone(&shared), start, CancellationToken::new()).await;
        shared.finish(outcome)
    }
}

/// What one team run shares between its member runs.
struct Shared {
    team: Team,
    on_event: Arc<dyn Fn(TeamEvent) + Send + Sync>,
    /// Model calls reserved by running members or made by finished ones.
    calls: AtomicUsize,
    runs: Mutex<Vec<AgentRun>>,
    /// A limit that stopped the run; it is what the run returns.
    fatal: Mutex<Option<Error>>,
    /// Cancelled when a limit is hit: every member run stops.
    stop: CancellationToken,
}

impl Shared {
    fn new(team: Team, on_event: Arc<dyn Fn(TeamEvent) + Send + Sync>) -> Arc<Self> {
        Arc::new(Shared {
            team,
            on_event,
            calls: AtomicUsize::new(0),
            runs: Mutex::new(Vec::new()),
            fatal: Mutex::new(None),
            stop: CancellationToken::new(),
        })
    }

    /// Takes up to `want` model calls from the budget; none left stops the team.
    fn reserve(&self, want: usize) -> Result<usize> {
        let limit = self.team.inner.max_model_calls;
        let mut got = 0;
        let _ = self.calls.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |used| {
            got = want.min(limit.saturating_sub(used));
            Some(used + got)
        });
        if got == 0 {
            return Err(self.fail(Error::TeamLimit(format!(
                "the team's budget of {limit} model calls is spent; raise it with Team::max_model_calls"
            ))));
        }
        Ok(got)
    }

    fn refund(&self, n: usize) {
        self.calls.fetch_sub(n, Ordering::SeqCst);
    }

    /// Records a limit error (the first one wins), stops every member, returns a copy.
    fn fail(&self, e: Error) -> Error {
        let message = e.to_string();
        let mut fatal = self.fatal.lock().unwrap_or_else(|p| p.into_inner());
        if fatal.is_none() {
            *fatal = Some(e);
        }
        self.stop.cancel();
        Error::TeamLimit(message)
    }

    fn record(&self, run: AgentRun) {
        self.runs.lock().unwrap_or_else(|p| p.into_inner()).push(run);
    }

    fn finish(&self, outcome: Result<(String, String)>) -> Result<TeamRun> {
        if let Some(e) = self.fatal.lock().unwrap_or_else(|p| p.into_inner()).take() {
            return Err(e);
        }
        let (final_agent, content) = outcome?;
        let runs = std::mem::take(&mut *self.runs.lock().unwrap_or_else(|p| p.into_inner()));
        let mut usage_by_agent: BTreeMap<String, Usage> = BTreeMap::new();
        let mut usage = Usage::default();
        let mut model_calls = 0;
        for r in &runs {
            *usage_by_agent.entry(r.agent.clone()).or_default() += r.usage;
            usage += r.usage;
            model_calls += r.iterations;
        }
        Ok(TeamRun { content, final_agent, runs, usage_by_agent, usage, model_calls })
    }
}

/// Who runs, on what, and how they came to.
struct Start {
    member: String,
    task: String,
    depth: usize,
    parent: Option<String>,
    via: Via,
}

/// Runs one member (and whoever it hands off to); returns who answered and the answer.
fn run_member(
    shared: Arc<Shared>,
    start: Start,
    cancel: CancellationToken,
) -> BoxFuture<'static, Result<(String, String)>> {
    async move {
        let Start { mut member, task, depth, mut parent, mut via } = start;
        let mut history: Option<Vec<Message>> = None;
        for _ in 0..=MAX_HANDOFFS {
            let handoff = Arc::new(HandoffSlot::default());
            let (mut session, reserved) = prepare(&shared, &member, depth, &handoff, history.take())?;
            let _ = handoff.canceller.set(session.canceller());
            (shared.on_event)(TeamEvent::AgentStarted {
                agent: member.clone(),
                parent: parent.clone(),
                via,
                depth,
                task: task.clone(),
            });
            let started = Instant::now();
            let result =
                run_stoppable(&mut session, &shared.stop, &cancel, (via != Via::Handoff).then(|| task.clone())).await;
            // A failed run keeps its whole reservation: how many calls it made is unknown.
            let used = result.as_ref().map_or(reserved, |r| r.iterations);
            shared.refund(reserved.saturating_sub(used));
            let r = result?;
            (shared.on_event)(TeamEvent::AgentFinished {
                agent: member.clone(),
                depth,
                iterations: r.iterations,
                usage: r.usage,
                duration: started.elapsed(),
            });
            shared.record(AgentRun {
                agent: member.clone(),
                parent: parent.clone(),
                via,
                depth,
                task: task.clone(),
                content: r.content.clone(),
                stop_reason: r.stop_reason,
                iterations: r.iterations,
                tool_calls: r.tool_calls,
                usage: r.usage,
                duration: started.elapsed(),
            });
            if shared.stop.is_cancelled() {
                return Err(Error::Cancelled);
            }
            let target = handoff.target.lock().unwrap_or_else(|p| p.into_inner()).take();
            let Some(to) = target else { return Ok((member, r.content)) };
            (shared.on_event)(TeamEvent::HandedOff { from: member.clone(), to: to.clone() });
            history =
                Some(session.messages().iter().filter(|m| !matches!(m, Message::System { .. })).cloned().collect());
            parent = Some(std::mem::replace(&mut member, to));
            via = Via::Handoff;
        }
        Err(shared.fail(Error::TeamLimit(format!(
            "more than {MAX_HANDOFFS} hand-offs in a row; the members keep passing the conversation around"
        ))))
    }
    .boxed()
}

/// The member's agent with its delegation and hand-off tools, and the calls reserved.
fn prepare(
    shared: &Arc<Shared>,
    name: &str,
    depth: usize,
    handoff: &Arc<HandoffSlot>,
    history: Option<Vec<Message>>,
) -> Result<(Session, usize)> {
    let inner = &shared.team.inner;
    let member =
        inner.members.get(name).ok_or_else(|| Error::Config(format!("`{name}` is not a member of the team")))?;
    let reserved = shared.reserve(member.agent.max_iterations())?;
    let mut builder = member.agent.to_builder().max_iterations(reserved);
    for d in &member.delegates {
        let description = &inner.members[d].description;
        builder = builder.tool(Delegate::new(Arc::clone(shared), name, d, description, depth + 1));
    }
    for h in &member.handoffs {
        let description = &inner.members[h].description;
        builder = builder.tool(Transfer::new(h, description, Arc::clone(handoff)));
    }
    let agent = builder.build();
    let session = match history {
        Some(messages) => Session::with_messages(agent, messages),
        None => agent.session(),
    };
    Ok((session, reserved))
}

/// Runs (or resumes) the session, stopping it when the team stops or the caller cancels.
async fn run_stoppable(
    session: &mut Session,
    stop: &CancellationToken,
    cancel: &CancellationToken,
    prompt: Option<String>,
) -> Result<AgentResult> {
    let canceller = session.canceller();
    let run = async {
        match prompt {
            Some(p) => session.run(p).await,
            None => session.resume().await,
        }
    };
    tokio::pin!(run);
    tokio::select! {
        r = &mut run => r,
        _ = stop.cancelled() => { canceller.cancel_now(); run.await }
        _ = cancel.cancelled() => { canceller.cancel_now(); run.await }
    }
}

/// Delegation: a member as a tool of another.
struct Delegate {
    spec: ToolSpec,
    shared: Arc<Shared>,
    from: String,
    to: String,
    depth: usize,
}

impl Delegate {
    fn new(shared: Arc<Shared>, from: &str, to: &str, description: &str, depth: usize) -> Self {
        let spec = ToolSpec::new(
            to,
            format!("Delegate a task to the team member `{to}`: {description} Give it a complete, self-contained task; it answers with its result."),
            json!({
                "type": "object",
                "properties": {"task": {"type": "string", "description": "The task, with everything it needs to know."}},
                "required": ["task"],
                "additionalProperties": false
            }),
        )
        .expect("member names are checked by Team::validate");
        Delegate { spec, shared, from: from.to_string(), to: to.to_string(), depth }
    }
}

impl Tool for Delegate {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn invoke<'a>(&'a self, args: Value, ctx: ToolContext) -> BoxFuture<'a, std::result::Result<String, ToolError>> {
        async move {
            let task = args["task"].as_str().unwrap_or_default().to_string();
            let limit = self.shared.team.inner.max_depth;
            if self.depth > limit {
                let e = Error::TeamLimit(format!(
                    "delegation from `{}` to `{}` would go {} levels deep; the limit is {limit} (raise it with Team::max_depth)",
                    self.from, self.to, self.depth
                ));
                return Err(ToolError::new(self.shared.fail(e).to_string()));
            }
            let start = Start {
                member: self.to.clone(),
                task,
                depth: self.depth,
                parent: Some(self.from.clone()),
                via: Via::Delegation,
            };
            match run_member(Arc::clone(&self.shared), start, ctx.cancel).await {
                Ok((_, answer)) => Ok(answer),
                Err(e) => Err(ToolError::new(format!("`{}` could not finish: {e}", self.to))),
            }
        }
        .boxed()
    }
}

/// Where a transfer tool leaves its target for the member run to pick up.
#[derive(Default)]
struct HandoffSlot {
    target: Mutex<Option<String>>,
    canceller: OnceLock<Canceller>,
}

/// Hand-off: `transfer_to_<name>`.
struct Transfer {
    spec: ToolSpec,
    to: String,
    slot: Arc<HandoffSlot>,
}

impl Transfer {
    fn new(to: &str, description: &str, slot: Arc<HandoffSlot>) -> Self {
        let spec = ToolSpec::new(
            format!("transfer_to_{to}"),
            format!("Hand this conversation over to `{to}` ({description}), who continues it from here."),
            json!({"type": "object", "properties": {}, "additionalProperties": false}),
        )
        .expect("hand-off tool names are checked by Team::validate");
        Transfer { spec, to: to.to_string(), slot }
    }
}

impl Tool for Transfer {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn invoke<'a>(&'a self, _args: Value, _ctx: ToolContext) -> BoxFuture<'a, std::result::Result<String, ToolError>> {
        async move {
            *self.slot.target.lock().unwrap_or_else(|p| p.into_inner()) = Some(self.to.clone());
            if let Some(c) = self.slot.canceller.get() {
                c.cancel_after_turn();
            }
            Ok(format!("Transferred to `{}`, who continues the conversation.", self.to))
        }
        .boxed()
    }
}
