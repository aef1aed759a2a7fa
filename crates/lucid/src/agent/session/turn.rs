//! The turn: the driver that carries out what [`crate::agent::decide`] decides, calling
//! the hooks at each point.
//!
//! A turn is `drive` (its span, and its undo when dropped) → `drive_turn` (lock, recovery,
//! memory, save) → `iterate` (model calls and tool steps).

use std::borrow::Cow;
use std::sync::Arc;

use futures::StreamExt;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use super::run_state::{RunState, record};
use super::stream::Events;
use super::{Session, Snapshot};
use crate::agent::decide;
use crate::agent::machine::{Action, Event, NotRun, TurnState};
use crate::agent::{AgentConfig, AgentEvent, AgentResult, StopReason};
use crate::context::ContextLimits;
use crate::error::{Error, Result};
use crate::hooks::{Delta, HookContext, ModelCall, ModelCallDecision, SpanOf, Step, TurnStart};
use crate::message::{Message, ToolCall, Usage};
use crate::model::{ChatOptions, ChatRequest, ChatResponse, StreamEvent};

/// A turn under way; dropped before [`Unfinished::done`] (the turn's future was dropped,
/// or it panicked), it puts the session back as it was before the turn: dropping is
/// cancelling. A stored session whose turn wrote to the store reloads from it at its
/// next turn, so it continues from what was committed.
struct Unfinished<'s> {
    session: &'s mut Session,
    before: Option<Snapshot>,
}

impl Unfinished<'_> {
    fn done(mut self) {
        self.before = None;
    }
}

impl Drop for Unfinished<'_> {
    fn drop(&mut self) {
        let Some(before) = self.before.take() else { return };
        let s = &mut *self.session;
        tracing::debug!(session = s.id.as_deref().unwrap_or_default(), "turn dropped before its end; undone");
        s.restore(before);
        s.canceller.end();
        if s.sync.touched {
            s.sync.reload = true;
        }
    }
}

impl Session {
    /// One turn, in the span the hooks give (the telemetry's `invoke_agent`).
    pub(super) async fn drive(
        &mut self,
        prompt: Option<Message>,
        stream: bool,
        events: Events<'_>,
        options: Option<&ChatOptions>,
    ) -> Result<AgentResult> {
        let config = Arc::clone(&self.agent.config);
        let run = RunState { session: self.spent, ..RunState::default() };
        let cx = run.hook_context(&config, self.id.as_deref(), self.owner.as_deref(), &self.approvals);
        let span = config.hooks.span(&cx, SpanOf::Turn { model: &*config.model });
        self.sync.touched = false;
        let before = Some(self.snapshot());
        let turn = Unfinished { session: self, before };
        let result = turn.session.drive_turn(prompt, stream, events, options).instrument(span.clone()).await;
        turn.done();
        if let Err(e) = &result {
            let cx = run.hook_context(&config, self.id.as_deref(), self.owner.as_deref(), &self.approvals);
            config.hooks.on_error(&cx, e).instrument(span).await;
        }
        result
    }

    async fn drive_turn(
        &mut self,
        prompt: Option<Message>,
        stream: bool,
        events: Events<'_>,
        options: Option<&ChatOptions>,
    ) -> Result<AgentResult> {
        let config = Arc::clone(&self.agent.config);
        let lock = self.lock_turn().await?;
        if self.sync.reload
            && let Err(e) = self.reload_from_store().await
        {
            if let Some(lock) = lock {
                lock.release().await;
            }
            return Err(e);
        }
        let token = self.canceller.begin();
        let turn = TurnState { durable: config.durable_steps, ..TurnState::default() };
        let mut run = RunState { session: self.spent, turn, ..RunState::default() };
        let mut cancelled = false;
        if self.sync.recover {
            self.sync.recover = false;
            cancelled = self.answer_open_calls(&token, events, &mut run).await;
        }
        let opened = Event::Recovered { cancelled, waiting: !run.deferred.is_empty(), prompted: prompt.is_some() };
        let outcome = match run.turn.on(opened) {
            Action::Stop(reason) => Ok(reason),
            _ => {
                // A new message gives up calls still deferred: the repair answers them.
                run.deferred.clear();
                self.open_turn(&config, prompt, options, &mut run).await;
                self.iterate(&config, &token, stream, events, &mut run).await
            }
        };
        let deferred = matches!(outcome, Ok(StopReason::Deferred));
        if !deferred {
            self.context.repair();
        }
        self.sync.recover = deferred;
        self.canceller.end();
        self.usage += run.usage;
        self.spent.add(run.usage, run.turn.iterations as u64, run.cost);
        // What each newly deferred call's tool says a person should read before approving it.
        let mut reviews = Vec::new();
        for c in run.deferred.iter().filter(|c| config.permissions.defers(c) && self.approvals.review(&c.id).is_none())
        {
            let Some(tool) = config.tools.get(&c.name) else { continue };
            let args = c.parse_arguments().unwrap_or(serde_json::Value::Null);
            match tool.review(&args).await {
                Ok(Some(review)) => reviews.push((c.id.clone(), review)),
                Ok(None) => {}
                Err(e) => reviews.push((c.id.clone(), format!("The tool refuses this call: {}", e.message()))),
            }
        }
        let saved = match self.save_turn().await {
            Ok(()) => self.set_deferred(run.deferred.iter().map(|c| c.id.clone()).collect(), reviews).await,
            Err(e) => Err(e),
        };
        if let Some(lock) = lock {
            lock.release().await;
        }
        let stop_reason = outcome?;
        let run_session = run.session;
        let mut result = AgentResult {
            content: run.content,
            tool_calls: run.records,
            iterations: run.turn.iterations,
            usage: run.usage,
            stop_reason,
            finish_reason: run.finish_reason,
            questions: run.questions,
            stop_message: run.turn.stop_message,
            deferred: run.deferred,
            model: run.model,
            model_usage: run.model_usage,
            cost_usd: run.cost,
        };
        // What the run hands back carries no registered secret, as its history does not.
        crate::redact::redact_result(&mut result);
        if let Err(e) = saved {
            // The store holds less than the session: the next save writes it whole.
            self.sync.edited = true;
            return Err(Error::TurnNotSaved {
                session: self.id.clone().unwrap_or_default(),
                result: Box::new(result),
                source: Box::new(e),
            });
        }
        let cx = HookContext {
            session_id: self.id.as_deref(),
            owner: self.owner.as_deref(),
            agent: config.name.as_deref(),
            iteration: result.iterations,
            usage: result.usage,
            approvals: &self.approvals,
            cost_usd: result.cost_usd,
            prompt_tokens: None,
            prompt_cost_usd: None,
            session: run_session,
            messages: &[],
        };
        config.hooks.turn_end(&cx, &result).await;
        Ok(result)
    }

    /// The turn's start: the user's message in, the memory's recall and compression, the
    /// step committed, and the output mode chosen.
    async fn open_turn(
        &mut self,
        config: &AgentConfig,
        prompt: Option<Message>,
        options: Option<&ChatOptions>,
        run: &mut RunState,
    ) {
        self.context.repair();
        // The hooks need the text after the context took it: a copy for them.
        let query = prompt.as_ref().map(|m| m.text().to_string());
        let prompted = prompt.is_some();
        if let Some(prompt) = prompt {
            self.context.push(prompt);
            self.sync.turn_saved = 0;
        }
        if let Some(prompt) = query {
            let cx = run.hook_context(config, self.id.as_deref(), self.owner.as_deref(), &self.approvals);
            let mut start = TurnStart {
                prompt: &prompt,
                context: &mut self.context,
                state: &mut self.hook_state,
                usage: Usage::default(),
                rewritten: false,
                model: &*config.model,
                counter: &*config.counter,
                calibration: self.calibration,
                window_budget: config.token_budget(),
                session_id: self.id.as_deref(),
            };
            config.hooks.before_turn(&cx, &mut start).await;
            let (used, rewritten) = (start.usage, start.rewritten);
            self.sync.edited |= rewritten;
            // What the hooks' own calls (summaries) used is part of the turn's cost.
            run.usage += used;
            run.add_cost(config, &crate::model::fallback::label(&*config.model, None), &used);
        }
        self.step_taken(run).await;
        if prompted && let Some(at) = self.context.last_turn_start() {
            let cx = run.hook_context(config, self.id.as_deref(), self.owner.as_deref(), &self.approvals);
            config.hooks.after_step(&cx, Step::UserMessage(&self.context.messages()[at])).await;
        }
        run.turn = TurnState {
            max_tokens: config.options.max_tokens.or(options.and_then(|o| o.max_tokens)),
            durable: run.turn.durable,
            ..TurnState::new(config.max_iterations, options, !config.tools.is_empty(), config.model.format_with_tools())
        };
    }

    /// Drives the turn's state machine ([`crate::agent::machine`]): does the I/O each
    /// action asks for and tells the machine what came of it.
    async fn iterate(
        &mut self,
        config: &AgentConfig,
        token: &CancellationToken,
        stream: bool,
        events: Events<'_>,
        run: &mut RunState,
    ) -> Result<StopReason> {
        let mut action = run.turn.on(Event::Begin);
        loop {
            if let Action::Stop(reason) = action {
                return Ok(reason);
            }
            // The model step acts on an answer's actions itself: what comes back here is a
            // stop or another model call.
            debug_assert!(matches!(action, Action::CallModel | Action::AskAgain { .. }), "{action:?}");
            action = if token.is_cancelled() || (run.turn.iterations > 0 && self.canceller.after_turn_requested()) {
                run.turn.on(Event::Cancelled)
            } else {
                match self.model_step(config, token, stream, events, run).await? {
                    Some(next) => next,
                    None => return Ok(StopReason::Cancelled),
                }
            };
        }
    }

    /// One model call and what follows its answer: the answer kept or dropped, its calls
    /// run or answered "not run". `None` when cancelled during the call.
    async fn model_step(
        &mut self,
        config: &AgentConfig,
        token: &CancellationToken,
        stream: bool,
        events: Events<'_>,
        run: &mut RunState,
    ) -> Result<Option<Action>> {
        self.fit_window(config, run);
        let measure = config.memory.is_some() || config.token_budget().is_some() || config.estimate_prompt;
        let estimated = if measure { self.context.count_tokens(&*config.counter) } else { 0 };
        run.turn.calling();
        events.emit(|| AgentEvent::Iteration(run.turn.iterations));
        run.content.clear();
        let (response, primary, chat) = {
            let options = run.turn.options.as_ref().unwrap_or(&config.options);
            // The report call offers no tools: its answer is the structured report.
            let specs = if run.turn.reporting { &[] } else { config.tools.specs() };
            let mut call = ModelCall {
                messages: Cow::Borrowed(self.context.messages()),
                tools: Cow::Borrowed(specs),
                options: Cow::Borrowed(options),
            };
            let mut cx = run.hook_context(config, self.id.as_deref(), self.owner.as_deref(), &self.approvals);
            if config.estimate_prompt {
                let tokens = (estimated as f64 * self.calibration).ceil() as u64;
                cx.prompt_tokens = Some(tokens);
                cx.prompt_cost_usd = config.prices.price_for(&*config.model).map(|p| p.input_cost(tokens));
            }
            let stop = match config.hooks.before_model_call(&cx, &mut call).await {
                ModelCallDecision::Stop(why) => Some((StopReason::Stopped, why)),
                ModelCallDecision::OverBudget(why) => Some((StopReason::BudgetExceeded, why)),
                _ => None,
            };
            if let Some((reason, why)) = stop {
                return Ok(Some(run.turn.on(Event::HookStopped { reason, why })));
            }
            let primary = crate::model::fallback::label(&*config.model, Some(&call.options));
            // The same context the hooks saw before the call (with its estimate of the prompt).
            let chat = config.hooks.span(&cx, SpanOf::ModelCall { model: &*config.model, call: &call });
            let request = ChatRequest::new(&call.messages, &call.tools, &call.options);
            let answer = call_model(config, &cx, request, stream, events, &mut run.content).instrument(chat.clone());
            let response = tokio::select! {
                biased;
                _ = token.cancelled() => return Ok(None),
                r = answer => r,
            };
            if let Err(e) = &response {
                config.hooks.on_model_error(&cx, e).instrument(chat.clone()).await;
            }
            (response, primary, chat)
        };
        let mut response = match response {
            Err(Error::Model(crate::model::ModelError::Provider(e))) if e.is_context_overflow() => {
                // The provider counts more than the estimate said: the machine tightens
                // the window once and asks again.
                let sent = self.context.count_tokens(&*config.counter);
                match run.turn.on(Event::OverWindow { sent }) {
                    Action::Fail => return Err(crate::model::ModelError::Provider(e).into()),
                    next => {
                        tracing::info!(provider = %e.provider, estimated = sent, error = %e.message, "over the context window; trimming harder and trying again");
                        return Ok(Some(next));
                    }
                }
            }
            r => r?,
        };
        let answered = response.fallbacks.last().map_or(primary, |s| s.to.clone());
        if let Some(u) = response.usage {
            run.usage += u;
            run.add_cost(config, &answered, &u);
            *run.model_usage.entry(answered.clone()).or_default() += u;
            self.calibrate(estimated, u);
        }
        let cx = run.hook_context(config, self.id.as_deref(), self.owner.as_deref(), &self.approvals);
        config.hooks.after_model_response(&cx, &mut response).instrument(chat).await;
        run.model = Some(answered);
        run.finish_reason = response.finish_reason;
        let cut: Vec<String> = response.incomplete_tool_calls().map(|c| c.id.clone()).collect();
        decide::structured_answer(run.turn.options.as_ref(), &mut response);
        let message = response.message;
        run.content.clone_from(&message.content);
        let action =
            run.turn.on(Event::Answered { message: &message, cut: &cut, questions: config.questions.as_ref() });
        match action {
            Action::AskAgain { record: true } => {
                for c in &message.tool_calls {
                    run.records.push(record(c, None, None));
                }
                return Ok(Some(action));
            }
            Action::AskAgain { record: false } => return Ok(Some(action)),
            Action::Finish => {
                if !message.is_empty() {
                    self.context.push(Message::Assistant(message));
                }
                return Ok(Some(Action::Stop(StopReason::Completed)));
            }
            _ => {}
        }
        let calls = message.tool_calls.clone();
        self.context.push(Message::Assistant(message));
        self.step_taken(run).await;
        if let Some(last) = self.context.messages().last() {
            let cx = run.hook_context(config, self.id.as_deref(), self.owner.as_deref(), &self.approvals);
            config.hooks.after_step(&cx, Step::ModelMessage(last)).await;
        }
        if let Action::KeepAndStop { not_run, reason } = action {
            self.answer_not_run(&calls, &not_run, run);
            return Ok(Some(Action::Stop(reason)));
        }
        if self.execute_tools(config, token, events, &calls, &[], run).await {
            return Ok(Some(run.turn.on(Event::Cancelled)));
        }
        let done = Event::ToolsDone { deferred: !run.deferred.is_empty(), questions: !run.questions.is_empty() };
        Ok(Some(run.turn.on(done)))
    }

    /// Answers calls that will not run, each with its reason, as failed results.
    fn answer_not_run(&mut self, calls: &[ToolCall], why: &[(String, NotRun)], run: &mut RunState) {
        for c in calls {
            let why = why.iter().find(|(id, _)| *id == c.id).map_or(NotRun::Limit, |(_, w)| *w);
            run.records.push(record(c, None, None));
            self.context.push(Message::tool_result(&c.id, &c.name, why.text(), true));
        }
    }

    /// Trims the context to the window (calibrated) and repairs it.
    fn fit_window(&mut self, config: &AgentConfig, run: &RunState) {
        let budget = config.token_budget().map(|t| (t as f64 / self.calibration) as usize);
        let limits = ContextLimits {
            max_tokens: match (budget, run.turn.cap) {
                (Some(b), Some(c)) => Some(b.min(c)),
                (b, c) => b.or(c),
            },
            ..config.limits
        };
        self.context.trim_with(&limits, &*config.counter);
        if !self.context.repair().is_clean() && self.sync.turn_saved > 0 {
            // It may have changed messages already stored (a call id renamed): the
            // written ones are no longer a prefix, so the next write replaces.
            self.sync.edited = true;
        }
    }

    /// Moves the calibration toward what the provider counted: every prompt token,
    /// cached ones included ([`Usage::input_tokens`]).
    fn calibrate(&mut self, estimated: usize, u: Usage) {
        if estimated > 0 && u.input_tokens > 0 {
            let ratio = (u.input_tokens as f64 / estimated as f64).clamp(0.25, 4.0);
            self.calibration = 0.5 * self.calibration + 0.5 * ratio;
        }
    }
}

/// One model call; streamed text goes to `partial` as it arrives so a cancelled run still
/// reports what was said.
async fn call_model(
    config: &AgentConfig,
    cx: &HookContext<'_>,
    request: ChatRequest<'_>,
    stream: bool,
    events: Events<'_>,
    partial: &mut String,
) -> Result<ChatResponse> {
    if !stream {
        let response = config.model.chat(request).await?;
        for s in &response.fallbacks {
            events.emit(|| AgentEvent::Fallback(s.clone()));
        }
        return Ok(response);
    }
    let mut answer = config.model.chat_stream(request).await?;
    while let Some(event) = answer.next().await {
        match event? {
            StreamEvent::TextDelta(t) => {
                partial.push_str(&t);
                config.hooks.on_stream_delta(cx, Delta::Text(&t)).await;
                events.emit(|| AgentEvent::TextDelta(t));
            }
            StreamEvent::ReasoningDelta(t) => {
                config.hooks.on_stream_delta(cx, Delta::Reasoning(&t)).await;
                events.emit(|| AgentEvent::ReasoningDelta(t))
            }
            StreamEvent::ToolCallStarted { .. } | StreamEvent::ToolCallDelta { .. } => {}
            StreamEvent::Fallback(s) => events.emit(|| AgentEvent::Fallback(s)),
            StreamEvent::Done(response) => return Ok(response),
        }
    }
    Err(crate::model::ModelError::StreamTruncated {
        provider: config.model.provider().to_string(),
        message: "the stream ended without a complete answer".into(),
    }
    .into())
}
