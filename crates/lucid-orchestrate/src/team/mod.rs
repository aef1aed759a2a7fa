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
//! stops the whole run with a [`TeamError`](crate::TeamError) naming the
//! chain (the source of the `lucid::Error`). Every member run is
//! reported ([`TeamEvent`]) and kept in the result ([`TeamRun::runs`]) with its usage.
//!
//! ```no_run
//! # async fn demo() -> lucid::Result<()> {
//! use lucid_orchestrate::team::Team;
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

mod handoff;
mod run;
mod shared;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use run::{Start, run_member};
use shared::Shared;

use crate::OnEvent;
use lucid::agent::{Agent, StopReason, ToolCallRecord};
use lucid::error::{Error, Result};
use lucid::message::{Message, Usage};
use lucid::model::ResponseFormat;
use lucid::tool::ToolSpec;

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
#[non_exhaustive]
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
#[non_exhaustive]
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
    #[serde(rename = "duration_ms", serialize_with = "lucid::duration_ms::millis")]
    pub duration: Duration,
}

/// The outcome of a team run.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
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
#[non_exhaustive]
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
        #[serde(rename = "duration_ms", serialize_with = "lucid::duration_ms::millis")]
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
        on_event: impl OnEvent<TeamEvent>,
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
    pub async fn route_with_events(&self, prompt: &str, on_event: impl OnEvent<TeamEvent>) -> Result<TeamRun> {
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
        let choice = session.extract_json(ask, format).await;
        let usage = session.usage();
        let calls = session.messages().iter().filter(|m| matches!(m, Message::Assistant(_))).count();
        shared.spend(calls);
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
