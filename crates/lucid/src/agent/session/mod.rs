//! A conversation with an agent, and the one agent loop.

use std::collections::VecDeque;
use std::future::{Future, IntoFuture};
use std::marker::PhantomData;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context as TaskContext, Poll};
use std::time::Instant;

use futures::future::BoxFuture;
use futures::{Stream, StreamExt};
use serde_json::Value;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use super::{Agent, AgentConfig, AgentEvent, AgentResult, Canceller, StopReason, ToolCallRecord};
use crate::context::{Context, ContextLimits};
use crate::error::{Error, Result};
use crate::memory::{Compaction, Compress, Env, SessionMemory, Summary};
use crate::message::{FinishReason, Message, ToolCall, Usage};
use crate::model::{ChatOptions, ChatRequest, ChatResponse, ResponseFormat, StreamEvent};
use crate::store::SUMMARIES_KEY;
use crate::tool::{ToolContext, ToolOutcome};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;

/// Result text for calls left unexecuted because the iteration limit was reached.
const NOT_RUN_LIMIT: &str = "Not executed: the agent reached its iteration limit.";
/// Result text for calls whose arguments were cut off by `max_tokens`.
const NOT_RUN_TRUNCATED: &str =
    "Not executed: the arguments were cut off by the output token limit. Call the tool again with shorter arguments.";

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
    /// The id under which the agent's store keeps this session.
    id: Option<String>,
    /// The history was edited (cleared, undone, compressed): the next save replaces it whole.
    edited: bool,
    /// Messages of the last turn (from its user message) the store already holds; what
    /// follows is written by the next save. Trimming only drops older turns, so this
    /// count stays true while the turn grows.
    turn_saved: usize,
    /// The stored history ended with unanswered tool calls: the next run answers them.
    recover: bool,
    /// Provider-reported prompt tokens over Lucid's estimate, smoothed over calls.
    calibration: f64,
    /// Summaries of turns that left the window, and what the last turn recalled.
    memory: SessionMemory,
}

impl Session {
    pub(crate) fn new(agent: Agent) -> Self {
        let context = Context::new(agent.config.system.clone());
        Session {
            agent,
            context,
            canceller: Canceller::default(),
            usage: Usage::default(),
            id: None,
            edited: false,
            turn_saved: 0,
            recover: false,
            calibration: 1.0,
            memory: SessionMemory::default(),
        }
    }

    pub(crate) fn stored(agent: Agent, id: String, messages: Vec<Message>, summaries: Vec<Summary>) -> Self {
        let recover = recoverable(&messages);
        let mut s = if recover {
            // Left as they are for the next run to answer (the rest is valid, checked).
            let mut s = Session::new(agent);
            let system = s.context.system().map(str::to_string);
            s.context = Context::from_messages_unrepaired(messages);
            if s.context.system().is_none() {
                s.context.set_system(system);
            }
            s
        } else {
            Session::with_messages(agent, messages)
        };
        s.id = Some(id);
        s.memory.summaries = summaries;
        s.recover = recover;
        // Everything loaded is in the store already.
        s.turn_saved = s.last_turn_len();
        s
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

    /// Writes the whole history to the store now, replacing what it held (each turn is
    /// saved on its own when it ends; call this after editing the history, e.g. `clear`).
    pub async fn save(&mut self) -> Result<()> {
        self.save_summaries().await?;
        if let (Some(store), Some(id)) = (&self.agent.config.store, &self.id) {
            store.replace(id, self.context.history()).await?;
            self.edited = false;
            self.turn_saved = self.last_turn_len();
        }
        Ok(())
    }

    /// The messages of the last turn, from its user message.
    fn last_turn_len(&self) -> usize {
        self.context.last_turn_start().map_or(0, |start| self.context.messages().len() - start)
    }

    /// Writes the summaries to the store's metadata when they changed. They go before the
    /// messages they replace: a failure in between leaves both, never neither.
    async fn save_summaries(&mut self) -> Result<()> {
        let (Some(store), Some(id)) = (&self.agent.config.store, &self.id) else { return Ok(()) };
        if self.memory.dirty {
            let summaries = serde_json::to_value(&self.memory.summaries).map_err(|e| Error::Store {
                store: store.kind(),
                message: format!("the summaries of session `{id}` cannot be written: {e}"),
            })?;
            store.merge_metadata(id, serde_json::json!({ SUMMARIES_KEY: summaries })).await?;
            self.memory.dirty = false;
        }
        Ok(())
    }

    /// Saves the turn that just ended: what the store lacks of it appended, or the whole
    /// history after an edit.
    async fn save_turn(&mut self) -> Result<()> {
        self.save_summaries().await?;
        self.write_unsaved().await
    }

    /// Writes what the store lacks: the last turn's messages past those already written,
    /// or the whole history after an edit or when the written ones are no longer there.
    async fn write_unsaved(&mut self) -> Result<()> {
        let (Some(store), Some(id)) = (&self.agent.config.store, &self.id) else { return Ok(()) };
        let len = self.last_turn_len();
        if self.edited || len < self.turn_saved {
            store.replace(id, self.context.history()).await?;
            self.edited = false;
        } else if len > self.turn_saved {
            let end = self.context.messages().len();
            store.append(id, &self.context.messages()[end - (len - self.turn_saved)..]).await?;
        }
        self.turn_saved = len;
        Ok(())
    }

    /// A step of a durable turn ([`crate::AgentBuilder::durable_steps`]): written now. A
    /// failure does not stop the turn; the end-of-turn save writes the whole history.
    async fn commit_step(&mut self) {
        if let Err(e) = self.write_unsaved().await {
            tracing::warn!(session = self.id.as_deref().unwrap_or_default(), error = %e, "could not commit a step of the turn; the end of the turn writes it");
            self.edited = true;
        }
    }

    /// Runs one user turn to its end and returns the result.
    ///
    /// On `Err` (a provider or network failure that retries could not fix) the user
    /// message and every completed step stay in the history, which remains valid.
    pub async fn run(&mut self, prompt: impl Into<String>) -> Result<AgentResult> {
        self.drive(Some(prompt.into()), false, Events::NONE, None).await
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
    pub fn resume_stream(&mut self) -> impl Stream<Item = AgentEvent> + Send + '_ {
        let queue = Arc::new(EventQueue::default());
        let events = Arc::clone(&queue);
        let fut = Box::pin(async move { self.drive(None, true, Events(Some(&events)), None).await });
        DriveStream { fut: Some(fut), queue, last: None }
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

    async fn extract_value(&mut self, mut prompt: String, format: ResponseFormat, retries: usize) -> Result<Value> {
        let schema = match &format {
            ResponseFormat::JsonSchema { schema, .. } => schema.clone(),
            _ => serde_json::json!({"type": "object"}),
        };
        let options = ChatOptions { response_format: Some(format), ..self.agent.config.options.clone() };
        let mut attempt = 0;
        loop {
            let r = self.drive(Some(prompt), false, Events::NONE, Some(&options)).await?;
            if r.stop_reason == StopReason::NeedsInput {
                return Err(Error::NeedsInput { questions: r.questions });
            }
            match crate::structured::parse::<Value>(&r.content, &schema) {
                Ok(v) => return Ok(v),
                Err(_) if let Some(i) = crate::structured::Interview::detect(&r.content) => {
                    return Err(Error::NeedsInput { questions: i.questions });
                }
                Err(problem) if attempt < retries => {
                    attempt += 1;
                    tracing::debug!(attempt, %problem, "structured answer rejected; asking again");
                    prompt = format!(
                        "Your answer did not match the required JSON schema: {problem}. Answer again with only the JSON value."
                    );
                }
                Err(problem) => {
                    return Err(Error::Extraction { attempts: attempt + 1, message: problem, answer: r.content });
                }
            }
        }
    }

    /// Runs one user turn, streaming the answer and the tool calls as events. The last
    /// event is [`AgentEvent::Completed`] or [`AgentEvent::Error`].
    ///
    /// The stream *is* the loop: it only advances while it is polled. Between two events
    /// the loop may be paused in the middle of a store write, holding one of the store's
    /// pooled connections; a consumer that awaits work needing the same pool (writing
    /// each event to the same Postgres, say) should hand it to another task, or many
    /// streams at once can exhaust the pool and wait on each other.
    pub fn run_stream(&mut self, prompt: impl Into<String>) -> impl Stream<Item = AgentEvent> + Send + '_ {
        let queue = Arc::new(EventQueue::default());
        let events = Arc::clone(&queue);
        let prompt = prompt.into();
        let fut = Box::pin(async move { self.drive(Some(prompt), true, Events(Some(&events)), None).await });
        DriveStream { fut: Some(fut), queue, last: None }
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
        self.edited = true;
        &mut self.context
    }

    /// Every message, the system prompt first.
    pub fn messages(&self) -> &[Message] {
        self.context.messages()
    }

    /// Forgets the conversation and its summaries; keeps the system prompt. A stored
    /// session forgets them in the store too at its next save.
    pub fn clear(&mut self) {
        self.context.clear();
        self.context.set_recall(None);
        self.memory = SessionMemory { dirty: true, ..SessionMemory::default() };
        self.edited = true;
    }

    /// The summaries of turns that left the window, oldest first (see
    /// [`crate::memory::ConversationMemory`]); a stored session keeps them in its store.
    pub fn summaries(&self) -> &[Summary] {
        &self.memory.summaries
    }

    /// The summaries the last turn recalled, as pinned after the system prompt.
    pub fn recalled(&self) -> &[String] {
        &self.memory.recalled
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
        let lock = match (&config.store, &self.id) {
            (Some(store), Some(id)) => Some(store.lock(id, config.turn_lease).await?),
            _ => None,
        };
        self.context.repair();
        let id = self.id.clone();
        let env = memory_env(&config, self.calibration, id.as_deref());
        let mut usage = Usage::default();
        let done =
            memory.compress(&env, &mut self.context, &mut self.memory, Compress::All { focus }, &mut usage).await;
        self.usage += usage;
        let saved = match &done {
            Ok(c) if c.messages > 0 => {
                self.context.set_recall(None);
                self.save().await
            }
            _ => Ok(()),
        };
        if let (Some(store), Some(lock)) = (&config.store, &lock)
            && let Err(e) = store.unlock(lock).await
        {
            tracing::warn!(session = %lock.session_id, error = %e, "could not release the turn lock");
        }
        let done = done?;
        if let Err(e) = saved {
            self.edited = true;
            return Err(e);
        }
        Ok(done)
    }

    /// How the provider's reported prompt tokens compare with Lucid's estimate (1.0 until a
    /// call reports usage); token budgets are applied to estimates scaled by it.
    pub fn token_calibration(&self) -> f64 {
        self.calibration
    }

    /// Usage summed over every run of this session.
    pub fn usage(&self) -> Usage {
        self.usage
    }

    /// The agent this session talks to.
    pub fn agent(&self) -> &Agent {
        &self.agent
    }

    /// One turn, in its `invoke_agent` span ([`crate::telemetry`]).
    async fn drive(
        &mut self,
        prompt: Option<String>,
        stream: bool,
        events: Events<'_>,
        options: Option<&ChatOptions>,
    ) -> Result<AgentResult> {
        let config = &self.agent.config;
        let span =
            crate::telemetry::agent_span(config.name.as_deref(), config.model.provider(), config.model.model_name());
        let result = self.drive_turn(prompt, stream, events, options).instrument(span.clone()).await;
        match &result {
            Ok(r) => crate::telemetry::record_usage(&span, r.usage),
            Err(e) => crate::telemetry::record_error(&span, e),
        }
        result
    }

    async fn drive_turn(
        &mut self,
        prompt: Option<String>,
        stream: bool,
        events: Events<'_>,
        options: Option<&ChatOptions>,
    ) -> Result<AgentResult> {
        let config = Arc::clone(&self.agent.config);
        let lock = match (&config.store, &self.id) {
            (Some(store), Some(id)) => Some(store.lock(id, config.turn_lease).await?),
            _ => None,
        };
        let token = self.canceller.begin();
        let mut run = RunState::default();
        let mut cancelled = false;
        if self.recover {
            self.recover = false;
            cancelled = self.answer_open_calls(&config, &token, events, &mut run).await;
        }
        self.context.repair();
        // Memory needs the text after the context took it; copy it only then.
        let query = config.memory.as_ref().and(prompt.clone());
        if let Some(prompt) = prompt {
            self.context.push(Message::user(prompt));
            self.turn_saved = 0;
        }
        let mut memory_usage = Usage::default();
        if let (Some(memory), Some(prompt)) = (&config.memory, query) {
            let id = self.id.clone();
            let env = memory_env(&config, self.calibration, id.as_deref());
            // A trim rewrites the store with the window, as a compression does: it never
            // holds turns the window no longer knows (whose call ids a new turn could repeat).
            let before = memory.before_turn(&env, &mut self.context, &mut self.memory, &prompt, &mut memory_usage);
            self.edited |= before.await;
        }
        if config.durable_steps {
            self.commit_step().await;
        }
        // Summary calls are part of the turn's cost.
        run.usage += memory_usage;
        match options {
            // Tools first, the structured report last: servers that enforce a schema with a
            // grammar (llama.cpp, vLLM's guided decoding) would otherwise force the report
            // on the first call and never let a tool run.
            Some(o)
                if matches!(
                    o.response_format,
                    Some(ResponseFormat::JsonSchema { .. } | ResponseFormat::JsonObject)
                ) && !config.tools.is_empty()
                    && !config.model.format_with_tools() =>
            {
                run.options = Some(ChatOptions { response_format: None, ..o.clone() });
                run.report = Some(o.clone());
            }
            _ => run.options = options.cloned(),
        }
        let outcome = if cancelled {
            Ok(StopReason::Cancelled)
        } else {
            self.iterate(&config, &token, stream, events, &mut run).await
        };
        self.context.repair();
        self.canceller.end();
        self.usage += run.usage;
        let saved = self.save_turn().await;
        if let (Some(store), Some(lock)) = (&config.store, &lock)
            && let Err(e) = store.unlock(lock).await
        {
            tracing::warn!(session = %lock.session_id, error = %e, "could not release the turn lock");
        }
        let stop_reason = outcome?;
        let result = AgentResult {
            content: run.content,
            tool_calls: run.records,
            iterations: run.iterations,
            usage: run.usage,
            stop_reason,
            finish_reason: run.finish_reason,
            questions: run.questions,
        };
        match saved {
            Ok(()) => Ok(result),
            Err(e) => {
                // The store holds less than the session: the next save writes it whole.
                self.edited = true;
                Err(Error::TurnNotSaved {
                    session: self.id.clone().unwrap_or_default(),
                    result: Box::new(result),
                    source: Box::new(e),
                })
            }
        }
    }

    async fn iterate(
        &mut self,
        config: &AgentConfig,
        token: &CancellationToken,
        stream: bool,
        events: Events<'_>,
        run: &mut RunState,
    ) -> Result<StopReason> {
        loop {
            if token.is_cancelled() || (run.iterations > 0 && self.canceller.after_turn_requested()) {
                return Ok(StopReason::Cancelled);
            }
            let budget = config.token_budget().map(|t| (t as f64 / self.calibration) as usize);
            let limits = ContextLimits {
                max_tokens: match (budget, run.cap) {
                    (Some(b), Some(c)) => Some(b.min(c)),
                    (b, c) => b.or(c),
                },
                ..config.limits
            };
            self.context.trim_with(&limits, &*config.counter);
            if !self.context.repair().is_clean() && self.turn_saved > 0 {
                // It may have changed messages already stored (a call id renamed): the
                // written ones are no longer a prefix, so the next write replaces.
                self.edited = true;
            }
            let measure = config.memory.is_some() || config.token_budget().is_some();
            let estimated = if measure { self.context.count_tokens(&*config.counter) } else { 0 };
            run.iterations += 1;
            events.emit(|| AgentEvent::Iteration(run.iterations));
            run.content.clear();
            let options = run.options.as_ref().unwrap_or(&config.options);
            // The report call offers no tools: its answer is the structured report.
            let specs = if run.reporting { &[] } else { config.tools.specs() };
            let chat = crate::telemetry::chat_span(
                config.model.provider(),
                config.model.model_name(),
                self.context.messages(),
            );
            let request = ChatRequest::new(self.context.messages(), specs, options);
            let call = call_model(config, request, stream, events, &mut run.content).instrument(chat.clone());
            let response = tokio::select! {
                biased;
                _ = token.cancelled() => return Ok(StopReason::Cancelled),
                r = call => r,
            };
            match &response {
                Ok(r) => crate::telemetry::record_answer(&chat, r.usage, r.finish_reason, &r.message),
                Err(e) => crate::telemetry::record_error(&chat, e),
            }
            drop(chat);
            let response = match response {
                Err(Error::Provider(e)) if e.is_context_overflow() && run.cap.is_none() => {
                    // The provider counts more than the estimate said: keep 60% of what was
                    // sent (older turns go first, never the current one) and try once more.
                    let sent = self.context.count_tokens(&*config.counter);
                    tracing::info!(provider = %e.provider, estimated = sent, error = %e.message, "over the context window; trimming harder and trying again");
                    run.cap = Some(sent * 6 / 10);
                    run.iterations -= 1;
                    continue;
                }
                r => r?,
            };
            if let Some(u) = response.usage {
                run.usage += u;
                if estimated > 0 && u.input_tokens > 0 {
                    let ratio = (u.input_tokens as f64 / estimated as f64).clamp(0.25, 4.0);
                    self.calibration = 0.5 * self.calibration + 0.5 * ratio;
                }
            }
            run.finish_reason = response.finish_reason;
            let truncated: Vec<(String, &str)> =
                response.incomplete_tool_calls().map(|c| (c.id.clone(), NOT_RUN_TRUNCATED)).collect();
            let ChatResponse { mut message, .. } = response;
            if let Some(answer) = structured_answer(run.options.as_ref(), &message) {
                // Anthropic answers a schema through a forced tool: its input is the answer.
                message = crate::message::AssistantMessage { content: answer, tool_calls: Vec::new(), ..message };
            }
            run.content.clone_from(&message.content);
            if message.tool_calls.is_empty()
                && let Some(report) = run.report.take_if(|r| !answers_format(r, &message.content))
            {
                // The tools are done and the answer is not the report yet: ask for it in a
                // call with the format and without tools. This answer is not kept; the
                // report is written from the same history.
                run.options = Some(report);
                run.reporting = true;
                continue;
            }
            if message.tool_calls.is_empty() {
                if !message.is_empty() {
                    self.context.push(Message::Assistant(message));
                }
                return Ok(StopReason::Completed);
            }
            let calls = message.tool_calls.clone();
            if run.iterations >= config.max_iterations
                && let Some(report) = run.report.take()
            {
                // A structured run out of tool calls still reports what it found: these
                // calls are left out (not answered "not run", which a small model would
                // report as its result) and one last call, without tools, asks for the
                // report from the results so far. Small models may never stop calling.
                for c in &calls {
                    run.records.push(record(c, None, None));
                }
                run.options = Some(report);
                run.reporting = true;
                continue;
            }
            self.context.push(Message::Assistant(message));
            if config.durable_steps {
                self.commit_step().await;
            }
            if run.iterations >= config.max_iterations {
                for c in &calls {
                    run.records.push(record(c, None, None));
                    self.context.push(Message::tool_result(&c.id, &c.name, NOT_RUN_LIMIT, true));
                }
                return Ok(StopReason::MaxIterations);
            }
            if self.execute_tools(config, token, events, &calls, &truncated, run).await {
                return Ok(StopReason::Cancelled);
            }
            if !run.questions.is_empty() {
                return Ok(StopReason::NeedsInput);
            }
        }
    }

    /// Answers the calls a stored history ended with, before anything else of the run:
    /// idempotent tools run again, the others are answered "interrupted". The results are
    /// written at once. Returns true when cancelled.
    async fn answer_open_calls(
        &mut self,
        config: &AgentConfig,
        token: &CancellationToken,
        events: Events<'_>,
        run: &mut RunState,
    ) -> bool {
        let Some((at, answered)) = open_calls(self.context.messages()) else { return false };
        let Message::Assistant(a) = &self.context.messages()[at] else { return false };
        let calls = a.tool_calls[answered..].to_vec();
        let not_run: Vec<(String, &str)> = calls
            .iter()
            .filter(|c| !config.tools.is_idempotent(&c.name))
            .map(|c| (c.id.clone(), crate::history::INTERRUPTED))
            .collect();
        tracing::info!(
            session = self.id.as_deref().unwrap_or_default(),
            rerun = calls.len() - not_run.len(),
            interrupted = not_run.len(),
            "answering the tool calls an earlier run left open"
        );
        let cancelled = self.execute_tools(config, token, events, &calls, &not_run, run).await;
        self.commit_step().await;
        cancelled
    }

    /// Runs one turn's calls concurrently (bounded), keeping results in call order; the
    /// calls in `not_run` are answered with their error text instead. Returns true when
    /// cancelled; finished results are kept, the rest left unanswered for the repair pass
    /// to mark as interrupted.
    async fn execute_tools(
        &mut self,
        config: &AgentConfig,
        token: &CancellationToken,
        events: Events<'_>,
        calls: &[ToolCall],
        not_run: &[(String, &str)],
        run: &mut RunState,
    ) -> bool {
        for c in calls {
            events.emit(|| AgentEvent::ToolCallStarted {
                id: c.id.clone(),
                name: c.name.clone(),
                arguments: c.arguments.clone(),
            });
        }
        let tools = &config.tools;
        let mut results = futures::stream::iter((0..calls.len()).map(|i| {
            let c = &calls[i];
            let ctx = ToolContext { call_id: c.id.clone(), cancel: token.child_token() };
            let skip = not_run.iter().find(|(id, _)| *id == c.id).map(|(_, why)| *why);
            let span = crate::telemetry::tool_span(&c.name, &c.id);
            async move {
                let started = Instant::now();
                let outcome = if let Some(why) = skip {
                    ToolOutcome::error(why.to_string())
                } else if let Err(refused) = config.permissions.check(c).await {
                    ToolOutcome::error(refused)
                } else {
                    tools.execute(c, ctx, config.tool_timeout).await
                };
                if outcome.is_error {
                    crate::telemetry::record_tool_error(&tracing::Span::current());
                }
                (c, outcome, started.elapsed())
            }
            .instrument(span)
        }))
        .buffered(config.tool_concurrency);
        let mut done = 0;
        loop {
            let next = tokio::select! {
                biased;
                _ = token.cancelled() => None,
                r = results.next() => Some(r),
            };
            match next {
                Some(Some((c, outcome, elapsed))) => {
                    done += 1;
                    events.emit(|| AgentEvent::ToolCallFinished {
                        id: c.id.clone(),
                        name: c.name.clone(),
                        output: outcome.content.clone(),
                        is_error: outcome.is_error,
                        duration: elapsed,
                    });
                    run.records.push(record(c, Some(&outcome), Some(elapsed)));
                    run.questions.extend(outcome.questions);
                    self.context.push(Message::tool_result(&c.id, &c.name, outcome.content, outcome.is_error));
                    if config.durable_steps {
                        self.commit_step().await;
                    }
                }
                Some(None) => return false,
                None => {
                    drop(results);
                    for c in &calls[done..] {
                        run.records.push(record(c, None, None));
                    }
                    return true;
                }
            }
        }
    }
}

/// The tool calls that end a history unanswered: the index of the last assistant message
/// and how many of its calls are answered, when fewer than all. Results are pushed in call
/// order, so the answered calls are a prefix; anything else is the repair pass's business.
fn open_calls(messages: &[Message]) -> Option<(usize, usize)> {
    let at = messages.iter().rposition(|m| !matches!(m, Message::Tool(_)))?;
    let Message::Assistant(a) = &messages[at] else { return None };
    let results = &messages[at + 1..];
    let in_order = results.iter().zip(&a.tool_calls).all(|(r, c)| matches!(r, Message::Tool(t) if t.call_id == c.id));
    (results.len() < a.tool_calls.len() && in_order).then_some((at, results.len()))
}

/// Whether a stored history ends with open calls a run can answer as they are: the
/// history before them valid and holding the turn's user message, their ids fresh.
fn recoverable(messages: &[Message]) -> bool {
    let Some((at, _)) = open_calls(messages) else { return false };
    let Message::Assistant(a) = &messages[at] else { return false };
    let head = &messages[..at];
    let mut ids = std::collections::HashSet::new();
    let fresh = a.tool_calls.iter().all(|c| !c.id.is_empty() && ids.insert(c.id.as_str()))
        && !head
            .iter()
            .any(|m| matches!(m, Message::Assistant(h) if h.tool_calls.iter().any(|c| ids.contains(c.id.as_str()))));
    fresh && head.iter().any(|m| matches!(m, Message::User { .. })) && crate::history::validate(head).is_ok()
}

/// What the memory needs of the agent and the session for a step.
fn memory_env<'a>(config: &'a AgentConfig, calibration: f64, session_id: Option<&'a str>) -> Env<'a> {
    Env {
        model: &*config.model,
        counter: &*config.counter,
        calibration,
        window_budget: config.token_budget(),
        session_id,
    }
}

#[derive(Default)]
struct RunState {
    content: String,
    records: Vec<ToolCallRecord>,
    iterations: usize,
    usage: Usage,
    finish_reason: Option<FinishReason>,
    /// Options for this run only (structured output).
    options: Option<ChatOptions>,
    /// A structured run with tools: the options of its report call, made once the model
    /// answers without calling a tool (until then, calls carry no format).
    report: Option<ChatOptions>,
    /// The report call is under way: no tools are offered.
    reporting: bool,
    /// A tighter token budget after the provider said the request was over its window
    /// (set once per run: a second such error is reported).
    cap: Option<usize>,
    /// Questions for the user from `ask_user` calls nobody could answer.
    questions: Vec<String>,
}

/// Whether `content` already is the answer a structured run asks for (JSON matching the
/// format), or questions for the user (which the extraction reports as they are).
fn answers_format(options: &ChatOptions, content: &str) -> bool {
    let schema = match &options.response_format {
        Some(ResponseFormat::JsonSchema { schema, .. }) => schema.clone(),
        _ => serde_json::json!({"type": "object"}),
    };
    crate::structured::parse::<Value>(content, &schema).is_ok()
        || crate::structured::Interview::detect(content).is_some()
}

/// The JSON answer of a structured run delivered as a call to the schema's tool.
fn structured_answer(options: Option<&ChatOptions>, message: &crate::message::AssistantMessage) -> Option<String> {
    let Some(ResponseFormat::JsonSchema { name, .. }) = options.and_then(|o| o.response_format.as_ref()) else {
        return None;
    };
    match message.tool_calls.as_slice() {
        [call] if &call.name == name => Some(call.arguments.clone()),
        _ => None,
    }
}

fn record(c: &ToolCall, outcome: Option<&ToolOutcome>, elapsed: Option<std::time::Duration>) -> ToolCallRecord {
    ToolCallRecord {
        id: c.id.clone(),
        name: c.name.clone(),
        arguments: c.parse_arguments().unwrap_or_else(|_| Value::String(c.arguments.clone())),
        output: outcome.map(|o| o.content.clone()),
        is_error: outcome.is_some_and(|o| o.is_error),
        duration: elapsed,
    }
}

/// One model call; streamed text goes to `partial` as it arrives so a cancelled run still
/// reports what was said.
async fn call_model(
    config: &AgentConfig,
    request: ChatRequest<'_>,
    stream: bool,
    events: Events<'_>,
    partial: &mut String,
) -> Result<ChatResponse> {
    if !stream {
        return config.model.chat(request).await;
    }
    let mut answer = config.model.chat_stream(request).await?;
    while let Some(event) = answer.next().await {
        match event? {
            StreamEvent::TextDelta(t) => {
                partial.push_str(&t);
                events.emit(|| AgentEvent::TextDelta(t));
            }
            StreamEvent::ReasoningDelta(t) => events.emit(|| AgentEvent::ReasoningDelta(t)),
            StreamEvent::ToolCallStarted { .. } | StreamEvent::ToolCallDelta { .. } => {}
            StreamEvent::Done(response) => return Ok(response),
        }
    }
    Err(Error::StreamTruncated {
        provider: config.model.provider().to_string(),
        message: "the stream ended without a complete answer".into(),
    })
}

type DriveFuture<'a> = Pin<Box<dyn Future<Output = Result<AgentResult>> + Send + 'a>>;

/// The events a streamed run emitted and its stream has not handed out yet. The run and
/// its stream are polled by the same task, so a plain queue does (no channel, no wakers).
type EventQueue = Mutex<VecDeque<AgentEvent>>;

/// Where a run's events go: nowhere for [`Session::run`], so nothing is built for them.
#[derive(Clone, Copy)]
struct Events<'a>(Option<&'a EventQueue>);

impl Events<'_> {
    /// Nobody listens.
    const NONE: Events<'static> = Events(None);

    /// Builds and queues the event, only when somebody listens.
    fn emit(self, event: impl FnOnce() -> AgentEvent) {
        if let Some(queue) = self.0 {
            queue.lock().unwrap_or_else(PoisonError::into_inner).push_back(event());
        }
    }
}

/// Polls the run and hands out the events it emitted, then its end.
struct DriveStream<'a> {
    fut: Option<DriveFuture<'a>>,
    queue: Arc<EventQueue>,
    last: Option<AgentEvent>,
}

impl DriveStream<'_> {
    fn pop(&self) -> Option<AgentEvent> {
        self.queue.lock().unwrap_or_else(PoisonError::into_inner).pop_front()
    }
}

impl Stream for DriveStream<'_> {
    type Item = AgentEvent;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Option<AgentEvent>> {
        loop {
            if let Some(ev) = self.pop() {
                return Poll::Ready(Some(ev));
            }
            let Some(fut) = self.fut.as_mut() else {
                return Poll::Ready(self.last.take());
            };
            match fut.as_mut().poll(cx) {
                Poll::Ready(result) => {
                    self.fut = None;
                    self.last = Some(match result {
                        Ok(r) => AgentEvent::Completed(r),
                        Err(e) => AgentEvent::Error(e),
                    });
                }
                Poll::Pending => {
                    if let Some(ev) = self.pop() {
                        return Poll::Ready(Some(ev));
                    }
                    return Poll::Pending;
                }
            }
        }
    }
}

/// The corrective retries of an extraction unless `.retries(n)` says otherwise.
pub const DEFAULT_EXTRACTION_RETRIES: usize = 2;

/// A structured-output turn being set up by [`Session::extract`] or
/// [`Session::extract_json`]; `.await` runs it.
#[must_use = "an extraction does nothing until it is awaited"]
pub struct Extraction<'s, T> {
    session: &'s mut Session,
    prompt: String,
    format: ResponseFormat,
    retries: usize,
    parsed: PhantomData<fn() -> T>,
}

impl<'s, T> Extraction<'s, T> {
    fn new(session: &'s mut Session, prompt: String, format: ResponseFormat) -> Self {
        Extraction { session, prompt, format, retries: DEFAULT_EXTRACTION_RETRIES, parsed: PhantomData }
    }

    /// How many times an answer that does not parse or validate is sent back with the
    /// problem before [`Error::Extraction`] (default [`DEFAULT_EXTRACTION_RETRIES`]).
    pub fn retries(mut self, retries: usize) -> Self {
        self.retries = retries;
        self
    }
}

impl<'s, T: DeserializeOwned + 's> IntoFuture for Extraction<'s, T> {
    type Output = Result<T>;
    type IntoFuture = BoxFuture<'s, Result<T>>;

    fn into_future(self) -> Self::IntoFuture {
        let Extraction { session, prompt, format, retries, .. } = self;
        Box::pin(async move {
            let value = session.extract_value(prompt, format, retries).await?;
            // Read from the value in place: no copy of it unless the answer is refused.
            T::deserialize(&value).map_err(|e| Error::Extraction {
                attempts: retries + 1,
                message: e.to_string(),
                answer: value.to_string(),
            })
        })
    }
}
