//! One step's tool calls: the hooks' word on each, then the allowed ones run
//! concurrently (bounded), results kept in call order.

use std::time::Instant;

use futures::StreamExt;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use super::Session;
use super::run_state::{RunState, record};
use super::stream::Events;
use crate::agent::{AgentConfig, AgentEvent};
use crate::hooks::{HookContext, SpanOf, Step, ToolCallDecision};
use crate::message::{Message, ToolCall};
use crate::tool::{ToolContext, ToolOutcome};

/// What happens to one call of the step.
enum Plan {
    Run(ToolCall),
    Answer(ToolOutcome),
}

impl Session {
    /// Runs one step's calls; the calls in `not_run` are answered with their error text
    /// instead, without asking the hooks. A call a hook defers waits, unanswered, with
    /// every call after it in the step (the answered ones stay a prefix of the step); they
    /// go to `run.deferred`. Returns true when cancelled; finished results are kept, the
    /// rest left unanswered for the repair pass to mark as interrupted.
    pub(super) async fn execute_tools(
        &mut self,
        config: &AgentConfig,
        token: &CancellationToken,
        events: Events<'_>,
        calls: &[ToolCall],
        not_run: &[(String, &str)],
        run: &mut RunState,
    ) -> bool {
        let mut plans = Vec::with_capacity(calls.len());
        for c in calls {
            if let Some((_, why)) = not_run.iter().find(|(id, _)| *id == c.id) {
                plans.push(Plan::Answer(ToolOutcome::error(why.to_string())));
                continue;
            }
            let cx = HookContext {
                messages: self.context.messages(),
                ..run.hook_context(config, self.id.as_deref(), self.owner.as_deref(), &self.approvals)
            };
            let allowed = match config.hooks.before_tool_call(&cx, c).await {
                ToolCallDecision::Allow => c.clone(),
                ToolCallDecision::Replace(arguments) => ToolCall { arguments, ..c.clone() },
                ToolCallDecision::Deny(why) => {
                    plans.push(Plan::Answer(ToolOutcome::error(why)));
                    continue;
                }
                ToolCallDecision::Defer => break,
            };
            // An allowed call the tools cannot take does not run: the model reads why.
            match config.tools.invalid(&allowed).await {
                Some((problem, mut told)) => {
                    config.hooks.on_invalid_tool_call(&cx, &allowed, &problem, &mut told).await;
                    plans.push(Plan::Answer(ToolOutcome::error(told)));
                }
                None => plans.push(Plan::Run(allowed)),
            }
        }
        let calls_now = &calls[..plans.len()];
        run.deferred.extend(calls[plans.len()..].iter().cloned());
        for c in calls_now {
            events.emit(|| AgentEvent::ToolCallStarted {
                id: c.id.clone(),
                name: c.name.clone(),
                arguments: c.arguments.clone(),
            });
        }
        let tools = &config.tools;
        let session = Some(self.id.clone().unwrap_or_else(|| self.unsaved.clone()));
        let owner = self.owner.clone();
        let accepts = config.model.capabilities();
        let queue = events.queue();
        // Each call runs in the span the hooks give it (the telemetry's `execute_tool`).
        let cx = run.hook_context(config, self.id.as_deref(), self.owner.as_deref(), &self.approvals);
        let spans: Vec<tracing::Span> = calls_now.iter().map(|c| config.hooks.span(&cx, SpanOf::ToolCall(c))).collect();
        let mut results = futures::stream::iter(plans.into_iter().enumerate().map(|(i, plan)| {
            let c = &calls_now[i];
            let ctx = ToolContext {
                call_id: c.id.clone(),
                cancel: token.child_token(),
                session: session.clone(),
                owner: owner.clone(),
                attachments: Default::default(),
                accepts,
                host: crate::tool::Host::new(super::host::RunHost {
                    id: c.id.clone(),
                    name: c.name.clone(),
                    events: queue.clone(),
                    elicitor: config.elicitor.clone(),
                }),
            };
            let attached = ctx.attachments.clone();
            let span = spans[i].clone();
            async move {
                let started = Instant::now();
                let outcome = match plan {
                    Plan::Answer(outcome) => outcome,
                    Plan::Run(call) => tools.execute(&call, ctx, config.tool_timeout).await,
                };
                (c, outcome, started.elapsed(), attached.take(), tracing::Span::current())
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
                Some(Some((c, mut outcome, elapsed, attached, span))) => {
                    done += 1;
                    let cx = run.hook_context(config, self.id.as_deref(), self.owner.as_deref(), &self.approvals);
                    config.hooks.after_tool_result(&cx, c, &mut outcome).instrument(span).await;
                    events.emit(|| AgentEvent::ToolCallFinished {
                        id: c.id.clone(),
                        name: c.name.clone(),
                        output: outcome.content.clone(),
                        is_error: outcome.is_error,
                        duration: elapsed,
                    });
                    run.records.push(record(c, Some(&outcome), Some(elapsed)));
                    run.questions.extend(outcome.questions);
                    self.context.push(result_message(c, outcome.content, outcome.is_error, attached, accepts));
                    self.step_taken(run).await;
                    if let Some(last) = self.context.messages().last() {
                        let cx = run.hook_context(config, self.id.as_deref(), self.owner.as_deref(), &self.approvals);
                        config.hooks.after_step(&cx, Step::ToolResult(last)).await;
                    }
                }
                Some(None) => return false,
                None => {
                    drop(results);
                    for c in &calls_now[done..] {
                        run.records.push(record(c, None, None));
                    }
                    return true;
                }
            }
        }
    }
}

/// A call's result: its text and what the tool attached, each part the model cannot take
/// described instead (a model the catalogue does not know gets them all).
fn result_message(
    c: &crate::message::ToolCall,
    text: String,
    is_error: bool,
    attached: Vec<crate::content::Part>,
    accepts: Option<crate::model::catalogue::Capabilities>,
) -> Message {
    if attached.is_empty() {
        return Message::tool_result(&c.id, &c.name, text, is_error);
    }
    let mut parts = vec![crate::content::Part::text(text)];
    for p in attached {
        if accepts.is_none_or(|a| a.accepts(p.kind())) {
            parts.push(p);
        } else {
            parts.push(crate::content::Part::text(format!(
                "{} (not shown: this model takes no {} input)",
                p.describe(),
                p.kind()
            )));
        }
    }
    let mut r = crate::message::ToolResult::with_parts(&c.id, &c.name, parts);
    r.is_error = is_error;
    Message::Tool(r)
}
