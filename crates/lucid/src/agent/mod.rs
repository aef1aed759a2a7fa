//! The agent: a model, a system prompt, tools and limits, shared by many sessions.
//!
//! An [`Agent`] is cheap to clone and holds no conversation; each [`Session`] has its own
//! context window and runs one turn at a time (`run` takes `&mut self`). The loop itself
//! lives in one place (the session's turn: what follows each answer is decided without
//! I/O, the session carries it out, and [`hooks`] take part at each point): the streaming
//! run is the loop, and the non-streaming run is the same loop with its events unused.

pub mod budget;
mod cancel;
mod decide;
mod events;
mod hook_chain;
mod machine;
mod session;
mod telemetry_hook;

use std::sync::Arc;
use std::time::Duration;

/// The hook points, also at [`crate::hooks`].
pub use crate::hooks;
pub use crate::outcome::{AgentResult, Spend, StopReason, ToolCallRecord};
pub use cancel::Canceller;
pub use events::AgentEvent;
pub use session::SessionState;
pub use session::{DEFAULT_EXTRACTION_RETRIES, Extraction, Session};

use crate::context::ContextLimits;
use crate::error::{Error, Result};
use crate::memory::ConversationMemory;
use crate::model::{ChatModel, ChatOptions, IntoChatModel};
use crate::store::SessionStore;
use crate::tokens::TokenCounter;
use crate::tool::permission::PermissionPolicy;
use crate::tool::{Tool, ToolRegistry, ToolSet};

#[derive(Clone)]
pub(crate) struct AgentConfig {
    /// The agent's name in telemetry (`gen_ai.agent.name`).
    pub name: Option<String>,
    pub model: Arc<dyn ChatModel>,
    pub system: Option<String>,
    pub tools: ToolRegistry,
    pub options: ChatOptions,
    pub max_iterations: usize,
    pub tool_concurrency: usize,
    pub tool_timeout: Option<Duration>,
    pub limits: ContextLimits,
    /// The model's window: given, or from the catalogue.
    pub window: Option<crate::model::catalogue::ModelLimits>,
    /// The token budget of a request derived from `window` at build time (the window less
    /// the answer's reservation and the tool schemas), unless `limits` sets one.
    pub window_budget: Option<usize>,
    pub store: Option<Arc<dyn SessionStore>>,
    pub turn_lease: Duration,
    /// Commit a stored session's turn at each step, not only at its end.
    pub durable_steps: bool,
    pub memory: Option<ConversationMemory>,
    pub counter: Arc<dyn TokenCounter>,
    pub permissions: PermissionPolicy,
    /// The hooks attached, in order.
    pub attached: Vec<Arc<dyn hooks::Hook>>,
    /// What a turn runs: the permission policy first, then the attached hooks.
    pub hooks: hook_chain::Hooks,
    /// Each model's price, for the cost of every usage figure.
    pub prices: crate::model::prices::Prices,
    /// Estimate each request's prompt tokens for the hooks (a budget is attached).
    pub estimate_prompt: bool,
    /// Who answers the questions tools ask ([`ToolContext::elicit`](crate::tool::ToolContext::elicit)).
    pub elicitor: Option<Arc<dyn crate::tool::Elicitor>>,
    /// How an answer of the application's own shape asks the user questions.
    pub questions: Option<crate::structured::QuestionsOf>,
}

/// A configured agent. Clone it to share it; create a [`Session`] per conversation.
///
/// ```no_run
/// use lucid::prelude::*;
///
/// /// Adds two integers.
/// #[tool]
/// async fn add(a: i64, b: i64) -> Result<i64, ToolError> { Ok(a + b) }
///
/// # async fn demo() -> lucid::Result<()> {
/// let model = lucid::model::from_env("openai:gpt-4o-mini")?;
/// let agent = Agent::builder(model)
///     .system("You are a careful assistant.")
///     .tool(add)
///     .max_iterations(8)
///     .build();
/// let mut session = agent.session();
/// let result = session.run("What is 2 + 3?").await?;
/// println!("{} ({} model calls)", result.content, result.iterations);
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Agent {
    pub(crate) config: Arc<AgentConfig>,
}

impl std::fmt::Debug for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Agent")
            .field("provider", &self.config.model.provider())
            .field("model", &self.config.model.model_name())
            .field("tools", &self.config.tools)
            .field("max_iterations", &self.config.max_iterations)
            .finish()
    }
}

impl Agent {
    /// Starts configuring an agent around a model: a client by value
    /// (`Agent::builder(OpenAiCompatible::new(..)?)`) or one shared as an `Arc`.
    pub fn builder(model: impl IntoChatModel) -> AgentBuilder {
        let model = model.into_chat_model();
        AgentBuilder {
            config: AgentConfig {
                name: None,
                system: None,
                tools: ToolRegistry::new(),
                options: ChatOptions::default(),
                max_iterations: 10,
                tool_concurrency: 8,
                tool_timeout: Some(Duration::from_secs(120)),
                limits: ContextLimits::default(),
                window: crate::model::catalogue::lookup(model.catalogue_name(), model.model_name()),
                window_budget: None,
                store: None,
                turn_lease: Duration::from_secs(15 * 60),
                durable_steps: false,
                memory: None,
                counter: crate::tokens::counter_for_model(model.model_name()),
                permissions: PermissionPolicy::allow_all(),
                attached: Vec::new(),
                hooks: hook_chain::Hooks::default(),
                prices: crate::model::prices::Prices::default(),
                estimate_prompt: false,
                elicitor: None,
                questions: None,
                model,
            },
        }
    }

    /// Runs one task in a fresh session and returns its result: the one-shot use, when no
    /// conversation follows. The same as `agent.session().run(prompt)`.
    ///
    /// ```no_run
    /// # async fn demo() -> lucid::Result<()> {
    /// let agent = lucid::Agent::builder(lucid::model::from_env("openai:gpt-4o-mini")?).build();
    /// let result = agent.run("Name three prime numbers.").await?;
    /// println!("{}", result.content);
    /// # Ok(()) }
    /// ```
    pub async fn run(&self, prompt: impl Into<String>) -> Result<AgentResult> {
        self.session().run(prompt).await
    }

    /// A new conversation with this agent's system prompt, kept only in memory.
    pub fn session(&self) -> Session {
        Session::new(self.clone())
    }

    /// The stored conversation `id`, loaded (and repaired) from the agent's store with its
    /// memory summaries, or created there if it does not exist. Each turn is saved when it
    /// ends (each step, with [`AgentBuilder::durable_steps`]).
    ///
    /// A history that ends with tool calls not all answered (the process running the turn
    /// died) is recovered at the next `run`, `resume` or their streamed forms, before
    /// anything else: in call order, a call to an [idempotent](crate::Tool::idempotent)
    /// tool is run again, any other call is answered with
    /// [`INTERRUPTED`](crate::history::INTERRUPTED); the results are appended (and
    /// committed at once), then the run goes on (`resume` calls the model with them).
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// use std::sync::Arc;
    /// use lucid::store::InMemoryStore;
    /// # let model = Arc::new(lucid::model::OpenAiCompatible::new("http://127.0.0.1:9/v1", None, "m").unwrap());
    /// let agent = lucid::Agent::builder(model).store(Arc::new(InMemoryStore::new(100))).build();
    /// let session = agent.session_with_id("support-42").await.unwrap();
    /// assert_eq!(session.id(), Some("support-42"));
    /// # });
    /// ```
    pub async fn session_with_id(&self, id: &str) -> Result<Session> {
        let store = self.config.store.as_ref().ok_or_else(|| {
            Error::Config("this agent has no session store: configure one with Agent::builder(..).store(..)".into())
        })?;
        if id.trim().is_empty() {
            return Err(Error::Config("a session id cannot be empty".into()));
        }
        store.create(id, serde_json::json!({})).await?;
        let stored = store.load(id).await?;
        Ok(Session::stored(self.clone(), id.to_string(), stored))
    }

    /// Whether stored sessions commit every step ([`AgentBuilder::durable_steps`]).
    pub fn durable_steps(&self) -> bool {
        self.config.durable_steps
    }

    /// The session store, if one is configured.
    pub fn store(&self) -> Option<&Arc<dyn SessionStore>> {
        self.config.store.as_ref()
    }

    /// The model.
    pub fn model(&self) -> &Arc<dyn ChatModel> {
        &self.config.model
    }

    /// The tools.
    pub fn tools(&self) -> &ToolRegistry {
        &self.config.tools
    }

    /// The options sent with every model call ([`AgentBuilder::options`]).
    ///
    /// ```
    /// # let model = std::sync::Arc::new(lucid::model::OpenAiCompatible::new("http://127.0.0.1:9/v1", None, "m").unwrap());
    /// let options = lucid::model::ChatOptions { temperature: Some(0.2), ..Default::default() };
    /// let agent = lucid::Agent::builder(model).options(options).build();
    /// assert_eq!(agent.options().temperature, Some(0.2));
    /// ```
    pub fn options(&self) -> &ChatOptions {
        &self.config.options
    }

    /// The system prompt.
    pub fn system(&self) -> Option<&str> {
        self.config.system.as_deref()
    }

    /// The agent's name, if it was given one ([`AgentBuilder::name`]).
    pub fn name(&self) -> Option<&str> {
        self.config.name.as_deref()
    }

    /// The permission policy.
    pub fn permissions(&self) -> &PermissionPolicy {
        &self.config.permissions
    }

    /// The layered memory, when it is on.
    pub fn memory(&self) -> Option<&ConversationMemory> {
        self.config.memory.as_ref()
    }

    /// The price of the agent's model, when known ([`AgentBuilder::price`], else the
    /// [built-in table](crate::model::prices)).
    pub fn price(&self) -> Option<crate::model::prices::Price> {
        self.config.prices.price_for(&*self.config.model)
    }

    /// The prices this agent counts costs with.
    pub fn prices(&self) -> &crate::model::prices::Prices {
        &self.config.prices
    }

    /// The most model calls one run may make.
    pub fn max_iterations(&self) -> usize {
        self.config.max_iterations
    }

    /// A builder starting from this agent's configuration, to make a variant of it (other
    /// tools, another prompt…); this agent is unchanged.
    ///
    /// ```
    /// # let model = std::sync::Arc::new(lucid::model::OpenAiCompatible::new("http://127.0.0.1:9/v1", None, "m").unwrap());
    /// let base = lucid::Agent::builder(model).system("Be brief.").build();
    /// let strict = base.to_builder().max_iterations(2).build();
    /// assert_eq!((strict.system(), strict.max_iterations()), (Some("Be brief."), 2));
    /// ```
    pub fn to_builder(&self) -> AgentBuilder {
        AgentBuilder { config: (*self.config).clone() }
    }

    /// The most tokens one request may hold (messages, as estimated): the explicit
    /// [`AgentBuilder::max_context_tokens`], else the budget from the model's window, else
    /// `None` (unlimited).
    pub fn context_budget(&self) -> Option<usize> {
        self.config.token_budget()
    }

    /// The model's context window and longest answer, when known.
    pub fn context_window(&self) -> Option<crate::model::catalogue::ModelLimits> {
        self.config.window
    }
}

impl AgentConfig {
    pub(crate) fn token_budget(&self) -> Option<usize> {
        self.limits.max_tokens.or(self.window_budget)
    }
}

/// Configures an [`Agent`].
pub struct AgentBuilder {
    config: AgentConfig,
}

impl AgentBuilder {
    /// The agent's name, as telemetry reports it: the `invoke_agent {name}` span of each
    /// turn, `gen_ai.agent.name` ([`crate::telemetry`]).
    ///
    /// ```
    /// # let model = lucid::model::OpenAiCompatible::new("http://127.0.0.1:9/v1", None, "m").unwrap();
    /// let agent = lucid::Agent::builder(model).name("support").build();
    /// assert_eq!(agent.name(), Some("support"));
    /// ```
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.config.name = Some(name.into());
        self
    }

    /// The system prompt, pinned at the top of every session.
    pub fn system(mut self, prompt: impl Into<String>) -> Self {
        self.config.system = Some(prompt.into());
        self
    }

    /// Adds a tool (a `#[tool]` function or any [`Tool`]).
    pub fn tool(mut self, tool: impl Tool) -> Self {
        self.config.tools.add(tool);
        self
    }

    /// Adds a shared tool.
    pub fn tool_arc(mut self, tool: Arc<dyn Tool>) -> Self {
        self.config.tools.add_arc(tool);
        self
    }

    /// Adds every tool of a `#[tools]` value.
    pub fn tool_set<S: ToolSet>(mut self, set: S) -> Self {
        self.config.tools.add_set(Arc::new(set));
        self
    }

    /// Replaces the tools with a prepared registry.
    pub fn tools(mut self, tools: ToolRegistry) -> Self {
        self.config.tools = tools;
        self
    }

    /// Options sent with every model call.
    pub fn options(mut self, options: ChatOptions) -> Self {
        self.config.options = options;
        self
    }

    /// The most model calls one run may make (default 10, at least 1).
    pub fn max_iterations(mut self, n: usize) -> Self {
        self.config.max_iterations = n.max(1);
        self
    }

    /// How many tool calls of one turn run at once (default 8, at least 1).
    pub fn tool_concurrency(mut self, n: usize) -> Self {
        self.config.tool_concurrency = n.max(1);
        self
    }

    /// How long one tool call may run before it is stopped (default 120 s; `None`: no limit).
    pub fn tool_timeout(mut self, limit: Option<Duration>) -> Self {
        self.config.tool_timeout = limit;
        self
    }

    /// Keep at most this many messages (whole turns are dropped; the system prompt stays).
    pub fn max_messages(mut self, n: usize) -> Self {
        self.config.limits.max_messages = Some(n);
        self
    }

    /// Keep the estimated context under this many tokens (overrides the budget derived
    /// from the model's window).
    pub fn max_context_tokens(mut self, n: usize) -> Self {
        self.config.limits.max_tokens = Some(n);
        self
    }

    /// The model's context window and longest answer, in tokens. By default they come from
    /// the [catalogue](crate::model::catalogue) when it knows the model (a local server can
    /// be asked with [`crate::model::probe::context_window`]). Every request is then kept
    /// within the window less the answer's reservation and the tool schemas: old tool
    /// outputs are shortened, then the oldest whole turns dropped (or summarised, with
    /// [`AgentBuilder::memory`]). An unknown model without a window is not limited.
    ///
    /// ```
    /// # let model = lucid::model::OpenAiCompatible::new("http://127.0.0.1:9/v1", None, "local").unwrap();
    /// let agent = lucid::Agent::builder(model).context_window(8_192, 1_024).build();
    /// assert_eq!(agent.context_budget(), Some(8_192 - 1_024));
    /// ```
    pub fn context_window(mut self, window: u32, max_output: u32) -> Self {
        self.config.window =
            Some(crate::model::catalogue::ModelLimits { context_window: window, max_output: max_output.min(window) });
        self
    }

    /// Where sessions opened with [`Agent::session_with_id`] are kept.
    pub fn store(mut self, store: impl crate::store::IntoSessionStore) -> Self {
        self.config.store = Some(store.into_shared());
        self
    }

    /// How long a turn lock is held before another process may take it over (default 15
    /// minutes; a lock whose process died on this host is taken over at once).
    pub fn turn_lease(mut self, lease: Duration) -> Self {
        self.config.turn_lease = lease;
        self
    }

    /// Commits a stored session's turn to the store at every step, not only when the turn
    /// ends (default off): the user message before the first model call, each answer with
    /// tool calls before its tools run, each tool result as it arrives. A process that
    /// dies mid-turn then loses at most the step under way; whoever loads the session next
    /// ([`Agent::session_with_id`]) continues from there, re-running interrupted calls to
    /// [idempotent](crate::Tool::idempotent) tools and answering the others "interrupted".
    /// The cost is one store write per step instead of one per turn. A step that cannot be
    /// written is logged and written with the end-of-turn save; the turn goes on.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// use std::sync::Arc;
    /// use lucid::store::InMemoryStore;
    /// # let model = Arc::new(lucid::model::OpenAiCompatible::new("http://127.0.0.1:9/v1", None, "m").unwrap());
    /// let agent = lucid::Agent::builder(model)
    ///     .store(Arc::new(InMemoryStore::new(100)))
    ///     .durable_steps(true)
    ///     .build();
    /// let session = agent.session_with_id("job-7").await.unwrap();
    /// assert!(agent.durable_steps());
    /// # let _ = session; });
    /// ```
    pub fn durable_steps(mut self, on: bool) -> Self {
        self.config.durable_steps = on;
        self
    }

    /// Long-term memory: old turns summarised out of the window and recalled when
    /// relevant (see [`ConversationMemory`]).
    pub fn memory(mut self, memory: ConversationMemory) -> Self {
        self.config.memory = Some(memory);
        self
    }

    /// No long-term memory (a variant of an agent for a side call, such as a
    /// classification, that must not summarise or recall).
    pub fn memory_off(mut self) -> Self {
        self.config.memory = None;
        self
    }

    /// How tokens are counted for budgets (default: the model's tiktoken encoding with the
    /// `tiktoken` feature, else the heuristic of [`crate::tokens`]).
    pub fn token_counter(mut self, counter: Arc<dyn TokenCounter>) -> Self {
        self.config.counter = counter;
        self
    }

    /// Which tools may run, which ask first and which never run (default: all allowed).
    /// A call the policy stops becomes a tool result saying so.
    ///
    /// ```
    /// # let model = std::sync::Arc::new(lucid::model::OpenAiCompatible::new("http://127.0.0.1:9/v1", None, "m").unwrap());
    /// use lucid::tool::permission::{Permission, PermissionPolicy};
    /// let agent = lucid::Agent::builder(model)
    ///     .permissions(PermissionPolicy::allow_all().set("write_file", Permission::Ask).set("calculator", Permission::Deny))
    ///     .build();
    /// assert_eq!(agent.permissions().permission("calculator"), Permission::Deny);
    /// ```
    pub fn permissions(mut self, policy: PermissionPolicy) -> Self {
        self.config.permissions = policy;
        self
    }

    /// Attaches a [hook](hooks): code of your own called at each point of every turn
    /// (before and after model and tool calls, after each step, at the turn's end). Hooks
    /// run in the order they were attached, after the permission policy.
    ///
    /// ```
    /// use lucid::agent::hooks::Hook;
    /// /// Sees every turn, changes nothing.
    /// struct Quiet;
    /// impl Hook for Quiet {}
    /// # let model = std::sync::Arc::new(lucid::model::OpenAiCompatible::new("http://127.0.0.1:9/v1", None, "m").unwrap());
    /// let agent = lucid::Agent::builder(model).hook(Quiet).build();
    /// ```
    pub fn hook(mut self, hook: impl hooks::Hook) -> Self {
        self.config.attached.push(Arc::new(hook));
        self
    }

    /// The price of a model, `provider:model` or `model` (any provider), over the
    /// [built-in table](crate::model::prices): for a model it lacks, or another price
    /// (a discount, a reseller). Every result's [`AgentResult::cost_usd`] uses it.
    ///
    /// ```
    /// use lucid::model::prices::Price;
    /// # let model = lucid::model::OpenAiCompatible::new("http://127.0.0.1:9/v1", None, "local").unwrap();
    /// let agent = lucid::Agent::builder(model).price("openai:local", Price::new(0.5, 1.5)).build();
    /// assert_eq!(agent.price().map(|p| p.input), Some(0.5));
    /// ```
    pub fn price(mut self, model: impl Into<String>, price: crate::model::prices::Price) -> Self {
        self.config.prices = self.config.prices.set(model, price);
        self
    }

    /// Limits on what a run and a session may spend ([`budget::Budget`]): a model call
    /// that would pass one is not made, and the turn ends with
    /// [`StopReason::BudgetExceeded`]. Attached as a hook, after those before it.
    ///
    /// ```
    /// use lucid::agent::budget::{Budget, Limits};
    /// # let model = lucid::model::OpenAiCompatible::new("http://127.0.0.1:9/v1", None, "m").unwrap();
    /// let budget = Budget::default().run(Limits::default().max_model_calls(5).max_cost(0.25));
    /// let agent = lucid::Agent::builder(model).budget(budget).build();
    /// ```
    pub fn budget(mut self, budget: budget::Budget) -> Self {
        if !budget.is_unlimited() {
            self.config.estimate_prompt = true;
            self.config.attached.push(Arc::new(budget));
        }
        self
    }

    /// Who answers the questions tools ask the user
    /// ([`ToolContext::elicit`](crate::tool::ToolContext::elicit)); without one, such a
    /// question stops the run with [`StopReason::NeedsInput`].
    ///
    /// ```
    /// use lucid::tool::{ElicitFuture, Elicitation, Elicited, Elicitor};
    ///
    /// /// Declines every question.
    /// struct No;
    /// impl Elicitor for No {
    ///     fn elicit(&self, _question: Elicitation) -> ElicitFuture<'_> {
    ///         Box::pin(async { Elicited::Decline })
    ///     }
    /// }
    /// # let model = lucid::model::OpenAiCompatible::new("http://127.0.0.1:9/v1", None, "m").unwrap();
    /// let agent = lucid::Agent::builder(model).elicitor(No).build();
    /// # let _ = agent;
    /// ```
    pub fn elicitor(mut self, elicitor: impl crate::tool::Elicitor) -> Self {
        self.config.elicitor = Some(Arc::new(elicitor));
        self
    }

    /// How an answer in the application's own shape asks the user questions instead of
    /// answering (besides the library's `{"needs_interview": true, "questions": […]}`,
    /// [`Interview`](crate::structured::Interview)): a structured run then stops for the
    /// questions ([`crate::Error::NeedsInput`]) instead of asking for the
    /// report again. See [`QuestionsOf`](crate::structured::QuestionsOf).
    pub fn questions_in(mut self, questions: crate::structured::QuestionsOf) -> Self {
        self.config.questions = Some(questions);
        self
    }

    /// Builds the agent.
    pub fn build(mut self) -> Agent {
        self.config.hooks = hook_chain::Hooks::chain(
            &self.config.permissions,
            &self.config.tools,
            self.config.memory.as_ref(),
            &self.config.attached,
        );
        self.config.window_budget = self.config.window.map(|w| {
            let schemas = serde_json::to_string(self.config.tools.specs()).unwrap_or_default();
            let tools = if self.config.tools.is_empty() { 0 } else { self.config.counter.count(&schemas) };
            crate::model::catalogue::request_budget(w, self.config.options.max_tokens, tools)
        });
        Agent { config: Arc::new(self.config) }
    }
}
