//! A conversation with an agent: its state and its public face. The turn itself is in
//! [`turn`] (what a turn does, deciding through [`crate::agent::decide`]), its tool steps
//! in [`tools`], what a stored session writes and its turn lock in [`persist`], crash
//! recovery and deferred calls in [`recovery`], structured output in [`extract`], and the
//! stream adapter in [`stream`].

mod approvals;
mod extract;
mod host;
mod persist;
mod recovery;
mod run_state;
mod stream;
mod tools;
mod turn;

use std::sync::Arc;

use futures::Stream;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

pub use approvals::SessionState;
pub use extract::{DEFAULT_EXTRACTION_RETRIES, Extraction};

use super::{Agent, AgentEvent, AgentResult, Canceller};
use crate::content::Part;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::hooks::HookState;
use crate::memory::{Compaction, Summary};
use crate::message::{Message, Usage};
use crate::model::ResponseFormat;
use stream::{DriveStream, Events};

/// One conversation: its own context window, one run at a time.
///
/// ```no_run
/// # async fn demo(agent: lucid::Agent) -> lucid::Result<()> {
/// use futures::StreamExt;
/// use lucid::AgentEvent;
/// let mut session = agent.session();
/// let mut events = session.run_stream("What is 4 + 5?");
/// while let Some(event) = events.next().await {
///     match event {
///         AgentEvent::TextDelta(t) => print!("{t}"),
///         AgentEvent::Completed(result) => println!("\n[{} tokens out]", result.usage.output_tokens),
///         AgentEvent::Error(e) => eprintln!("error: {e}"),
///         _ => {}
///     }
/// }
/// drop(events);
/// session.clear(); // keeps the system prompt
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct Session {
    agent: Agent,
    context: Context,
    canceller: Canceller,
    usage: Usage,
    /// What the session spent over its turns (a stored session's, from its metadata).
    spent: crate::outcome::Spend,
    /// The id under which the agent's store keeps this session.
    id: Option<String>,
    /// What the tools are told this session is when it has no id: a name of this value
    /// alone, so a stateful tool (the `python` interpreter) keeps one state per session.
    unsaved: String,
    /// Where the session stands with its store.
    sync: persist::StoreSync,
    /// Provider-reported prompt tokens over Lucid's estimate, smoothed over calls.
    calibration: f64,
    /// What the hooks keep with the session (the memory's summaries among it).
    hook_state: HookState,
    /// Calls a hook deferred, waiting for the next run (kept in a stored session's
    /// metadata too).
    deferred: Vec<String>,
    /// Answers to calls waiting for approval and tools allowed for the session (kept in a
    /// stored session's metadata too).
    approvals: crate::approval::Approvals,
    /// Who the session belongs to, told to the tools ([`Session::set_owner`]).
    owner: Option<String>,
}

/// What a dropped turn puts back.
struct Snapshot {
    context: Context,
    hook_state: HookState,
    sync: persist::StoreSync,
    deferred: Vec<String>,
    approvals: crate::approval::Approvals,
}

impl Session {
    pub(crate) fn new(agent: Agent) -> Self {
        let context = Context::new(agent.config.system.clone());
        Session {
            agent,
            context,
            canceller: Canceller::default(),
            usage: Usage::default(),
            spent: crate::outcome::Spend::default(),
            id: None,
            unsaved: format!("unsaved-{:016x}{:016x}", fastrand::u64(..), fastrand::u64(..)),
            sync: persist::StoreSync::default(),
            calibration: 1.0,
            hook_state: HookState::default(),
            deferred: Vec::new(),
            approvals: Default::default(),
            owner: None,
        }
    }

    pub(crate) fn stored(agent: Agent, id: String, stored: Option<crate::store::StoredSession>) -> Self {
        let mut s = Session::new(agent);
        s.id = Some(id);
        s.take_stored(stored);
        s
    }

    /// Takes a stored session's history, summaries and deferred calls as the session's
    /// state: everything in it is in the store already.
    fn take_stored(&mut self, stored: Option<crate::store::StoredSession>) {
        let id = self.id.clone().unwrap_or_default();
        let (messages, hook_state, deferred, spent, approvals) = match stored {
            Some(st) => (
                st.messages,
                HookState::from_metadata(&st.info.metadata),
                recovery::deferred_of(&st.info.metadata),
                spend_of(&id, &st.info.metadata),
                crate::approval::Approvals::from_metadata(&st.info.metadata),
            ),
            None => {
                (Vec::new(), HookState::default(), Vec::new(), crate::outcome::Spend::default(), Default::default())
            }
        };
        self.spent = spent;
        self.approvals = approvals;
        let recover = recovery::recoverable(&messages);
        let system = self.agent.config.system.clone();
        let context = if recover {
            // Left as they are for the next run to answer (the rest is valid, checked).
            Context::from_messages_unrepaired(messages)
        } else {
            Context::from_messages(messages).0
        };
        self.context = context;
        if self.context.system().is_none() {
            self.context.set_system(system);
        }
        self.hook_state = hook_state;
        self.sync.recover = recover;
        self.deferred = if recover { deferred } else { Vec::new() };
        self.sync.edited = false;
        self.sync.turn_saved = self.last_turn_len();
    }

    /// Writes what the session spent to its store's metadata.
    pub(super) async fn save_spend(&self) -> Result<()> {
        let (Some(store), Some(id)) = (&self.agent.config.store, &self.id) else { return Ok(()) };
        let spent = serde_json::to_value(self.spent).unwrap_or_default();
        Ok(store.merge_metadata(id, serde_json::json!({ crate::store::SPEND_KEY: spent })).await?)
    }

    /// After a dropped turn that wrote to the store: the session's state from the store.
    async fn reload_from_store(&mut self) -> Result<()> {
        let (Some(store), Some(id)) = (&self.agent.config.store, &self.id) else { return Ok(()) };
        let stored = store.load(id).await?;
        self.take_stored(stored);
        self.sync.reload = false;
        Ok(())
    }

    fn snapshot(&self) -> Snapshot {
        Snapshot {
            context: self.context.clone(),
            hook_state: self.hook_state.clone(),
            sync: self.sync,
            deferred: self.deferred.clone(),
            approvals: self.approvals.clone(),
        }
    }

    fn restore(&mut self, s: Snapshot) {
        self.context = s.context;
        self.hook_state = s.hook_state;
        // What the store was told stays known (`touched`, `reload`).
        self.sync = persist::StoreSync { touched: self.sync.touched, reload: self.sync.reload, ..s.sync };
        self.deferred = s.deferred;
        self.approvals = s.approvals;
    }

    /// A session continuing these messages (repaired first), kept only in memory.
    pub fn with_messages(agent: Agent, messages: Vec<Message>) -> Self {
        let mut s = Session::new(agent);
        let (mut context, _) = Context::from_messages(messages);
        if context.system().is_none() {
            context.set_system(s.agent.config.system.clone());
        }
        s.context = context;
        s
    }

    /// The id of a stored session ([`Agent::session_with_id`]).
    pub fn id(&self) -> Option<&str> {
        self.id.as_deref()
    }

    /// Says who the session belongs to (a tenant, a user): the tools are told
    /// ([`ToolContext::owner`](crate::tool::ToolContext::owner)), and those that keep state
    /// per session bound what one owner may hold (`python`:
    /// `Python::max_interpreters_per_owner`). Not stored: set it on each `Session`.
    ///
    /// ```
    /// # let agent = lucid::Agent::builder(lucid::model::OpenAiCompatible::new("http://127.0.0.1:9/v1", None, "m")?).build();
    /// let mut session = agent.session();
    /// session.set_owner(Some("tenant-a".into()));
    /// assert_eq!(session.owner(), Some("tenant-a"));
    /// # Ok::<(), lucid::Error>(())
    /// ```
    pub fn set_owner(&mut self, owner: Option<String>) {
        self.owner = owner;
    }

    /// Who the session belongs to ([`Session::set_owner`]).
    pub fn owner(&self) -> Option<&str> {
        self.owner.as_deref()
    }

    /// Runs one user turn to its end and returns the result.
    ///
    /// On `Err` (a provider or network failure that retries could not fix) the user
    /// message and every completed step stay in the history, which remains valid.
    pub async fn run(&mut self, prompt: impl Into<String>) -> Result<AgentResult> {
        self.drive(Some(Message::user(prompt)), false, Events::NONE, None).await
    }

    /// [`Session::run`] with a message of content parts: text with images, documents or
    /// audio. A part the model does not take fails the call before anything is sent
    /// ([`crate::model::catalogue::capabilities`]).
    ///
    /// ```no_run
    /// # async fn demo(mut session: lucid::Session) -> lucid::Result<()> {
    /// use lucid::Part;
    /// let png = std::fs::read("screenshot.png").unwrap();
    /// let r = session.run_parts(vec![Part::text("What is wrong here?"), Part::image_bytes("image/png", png)]).await?;
    /// # Ok(()) }
    /// ```
    pub async fn run_parts(&mut self, parts: Vec<Part>) -> Result<AgentResult> {
        self.drive(Some(Message::user_parts(parts)), false, Events::NONE, None).await
    }

    /// Runs the loop on the history as it stands, without a new user message: after a
    /// hand-off from another agent, or after editing the history by hand.
    ///
    /// ```no_run
    /// # async fn demo(agent: lucid::Agent, earlier: Vec<lucid::Message>) -> lucid::Result<()> {
    /// let mut session = lucid::Session::with_messages(agent, earlier);
    /// let result = session.resume().await?;
    /// # Ok(()) }
    /// ```
    pub async fn resume(&mut self) -> Result<AgentResult> {
        self.drive(None, false, Events::NONE, None).await
    }

    /// [`Session::resume`], streamed as [`Session::run_stream`] streams a turn: the last
    /// event is [`AgentEvent::Completed`] or [`AgentEvent::Error`].
    ///
    /// ```no_run
    /// # async fn demo(agent: lucid::Agent) -> lucid::Result<()> {
    /// use futures::StreamExt;
    /// // A run another process left half done: its interrupted calls are answered first.
    /// let mut session = agent.session_with_id("job-7").await?;
    /// let mut events = session.resume_stream();
    /// while let Some(event) = events.next().await {
    ///     if let lucid::AgentEvent::ToolCallFinished { name, is_error, .. } = event {
    ///         println!("{name}: {}", if is_error { "failed" } else { "done" });
    ///     }
    /// }
    /// # Ok(()) }
    /// ```
    pub fn resume_stream(&mut self) -> impl Stream<Item = AgentEvent> + Send + Unpin + '_ {
        DriveStream::new(|queue| Box::pin(async move { self.drive(None, true, Events(Some(&queue)), None).await }))
    }

    /// Runs one turn whose answer must be JSON matching `T`'s schema, and returns it
    /// parsed. The schema goes to the provider in its native form (OpenAI
    /// `response_format: json_schema`, strict when the schema allows; Anthropic a forced
    /// tool; Gemini `responseSchema`). An answer that does not parse or validate is sent
    /// back with the problem, up to 2 more times (`.retries(n)` sets how many), before
    /// [`Error::Extraction`].
    ///
    /// ```no_run
    /// # async fn demo(agent: lucid::Agent) -> lucid::Result<()> {
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct City { name: String, country: String, population: u64 }
    /// let city: City = agent.session().extract("The largest city in Japan?").await?;
    /// let strict: City = agent.session().extract("The largest city in Peru?").retries(0).await?;
    /// # Ok(()) }
    /// ```
    pub fn extract<T: DeserializeOwned + JsonSchema>(&mut self, prompt: impl Into<String>) -> Extraction<'_, T> {
        Extraction::new(self, prompt.into(), crate::structured::response_format::<T>())
    }

    /// Runs one turn whose answer must match a JSON Schema known only at run time (e.g.
    /// read from a file) and returns the validated JSON value; corrective retries as for
    /// [`Session::extract`]. `format` is a [`ResponseFormat::JsonSchema`] (a `JsonObject`
    /// accepts any object).
    ///
    /// ```no_run
    /// # async fn demo(agent: lucid::Agent) -> lucid::Result<()> {
    /// use lucid::model::ResponseFormat;
    /// let format = ResponseFormat::JsonSchema {
    ///     name: "answer".into(),
    ///     schema: serde_json::json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}),
    ///     strict: false,
    /// };
    /// let value = agent.session().extract_json("How many moons has Mars?", format).retries(1).await?;
    /// # Ok(()) }
    /// ```
    pub fn extract_json(&mut self, prompt: impl Into<String>, format: ResponseFormat) -> Extraction<'_, Value> {
        Extraction::new(self, prompt.into(), format)
    }

    /// Runs one user turn, streaming the answer and the tool calls as events. The last
    /// event is [`AgentEvent::Completed`] or [`AgentEvent::Error`].
    ///
    /// The stream *is* the loop: it only advances while it is polled. Between two events
    /// the loop may be paused in the middle of a store write, holding one of the store's
    /// pooled connections; a consumer that awaits work needing the same pool (writing
    /// each event to the same Postgres, say) should hand it to another task, or many
    /// streams at once can exhaust the pool and wait on each other.
    pub fn run_stream(&mut self, prompt: impl Into<String>) -> impl Stream<Item = AgentEvent> + Send + Unpin + '_ {
        self.run_stream_parts(vec![Part::text(prompt)])
    }

    /// [`Session::run_stream`] with a message of content parts.
    pub fn run_stream_parts(&mut self, parts: Vec<Part>) -> impl Stream<Item = AgentEvent> + Send + Unpin + '_ {
        let prompt = Message::user_parts(parts);
        DriveStream::new(|queue| {
            Box::pin(async move { self.drive(Some(prompt), true, Events(Some(&queue)), None).await })
        })
    }

    /// A handle to cancel the current run.
    pub fn canceller(&self) -> Canceller {
        self.canceller.clone()
    }

    /// The context window.
    pub fn context(&self) -> &Context {
        &self.context
    }

    /// The context window, to edit (the repair pass runs before the next request; a
    /// stored session saves the edited history whole after its next turn, or on
    /// [`Session::save`]).
    pub fn context_mut(&mut self) -> &mut Context {
        self.sync.edited = true;
        &mut self.context
    }

    /// Every message, the system prompt first.
    pub fn messages(&self) -> &[Message] {
        self.context.messages()
    }

    /// Forgets the conversation, its summaries and its hooks' state; keeps the system
    /// prompt. A stored session forgets them in the store too at its next save.
    pub fn clear(&mut self) {
        self.context.clear();
        self.context.set_recall(None);
        self.hook_state.clear();
        self.sync.edited = true;
    }

    /// The summaries of turns that left the window, oldest first (see
    /// [`crate::memory::ConversationMemory`]); a stored session keeps them in its store.
    pub fn summaries(&self) -> Vec<Summary> {
        self.hook_state.get(crate::store::SUMMARIES_KEY).unwrap_or_default()
    }

    /// The summaries the last turn recalled, as pinned after the system prompt.
    pub fn recalled(&self) -> Vec<String> {
        crate::memory::SessionMemory::from_state(&self.hook_state).recalled
    }

    /// What the hooks keep with this session ([`HookState`]).
    pub fn hook_state(&self) -> &HookState {
        &self.hook_state
    }

    /// Summarises every turn but the newest now (the agent's memory must be on), giving
    /// the most room to `focus` when one is given, and saves the result. What the calls
    /// cost is added to the session's usage. On `Err` the history is unchanged.
    ///
    /// ```no_run
    /// # async fn demo(agent: lucid::Agent) -> lucid::Result<()> {
    /// let mut session = agent.session_with_id("long-chat").await?;
    /// let done = session.compact(Some("the database migration")).await?;
    /// println!("{} messages into {} summaries", done.messages, done.summaries);
    /// # Ok(()) }
    /// ```
    pub async fn compact(&mut self, focus: Option<&str>) -> Result<Compaction> {
        let config = Arc::clone(&self.agent.config);
        let memory = config.memory.as_ref().ok_or_else(|| {
            Error::Config(
                "this agent has no conversation memory: configure one with Agent::builder(..).memory(..)".into(),
            )
        })?;
        let lock = self.lock_turn().await?;
        self.context.repair();
        let id = self.id.clone();
        let env = crate::memory::Env {
            model: &*config.model,
            counter: &*config.counter,
            calibration: self.calibration,
            window_budget: config.token_budget(),
            session_id: id.as_deref(),
        };
        let mut usage = Usage::default();
        let done = memory.compact(&env, &mut self.context, &mut self.hook_state, focus, &mut usage).await;
        self.usage += usage;
        let saved = match &done {
            Ok(c) if c.messages > 0 => {
                self.context.set_recall(None);
                self.save().await
            }
            _ => Ok(()),
        };
        if let Some(lock) = lock {
            lock.release().await;
        }
        let done = done?;
        if let Err(e) = saved {
            self.sync.edited = true;
            return Err(e);
        }
        Ok(done)
    }

    /// How the provider's reported prompt tokens compare with Lucid's estimate (1.0 until a
    /// call reports usage); token budgets are applied to estimates scaled by it.
    pub fn token_calibration(&self) -> f64 {
        self.calibration
    }

    /// Usage summed over every run of this session (in this process).
    pub fn usage(&self) -> Usage {
        self.usage
    }

    /// What the session has spent over its turns: for a stored session, every turn it
    /// ever had, as its store keeps it ([`SPEND_KEY`](crate::store::SPEND_KEY)).
    pub fn spent(&self) -> crate::outcome::Spend {
        self.spent
    }

    /// The agent this session talks to.
    pub fn agent(&self) -> &Agent {
        &self.agent
    }
}

/// What a stored session spent, from its metadata; none recorded (or unreadable, with a
/// warning): nothing.
fn spend_of(id: &str, metadata: &serde_json::Value) -> crate::outcome::Spend {
    let Some(value) = metadata.get(crate::store::SPEND_KEY) else { return crate::outcome::Spend::default() };
    serde_json::from_value(value.clone()).unwrap_or_else(|e| {
        tracing::warn!(session = %id, error = %e, "the stored spend cannot be read; counting from zero");
        crate::outcome::Spend::default()
    })
}
