//! Lucid's telemetry as a hook, the last of every agent's chain: it gives the OpenTelemetry
//! GenAI spans ([`crate::telemetry`]) for the turn, each model call and each tool call, and
//! records what each answered on the span it runs in. Nothing in the loop calls telemetry.

use futures::future::BoxFuture;
use tracing::Span;

use crate::error::Error;
use crate::hooks::{Hook, HookContext, SpanOf};
use crate::message::ToolCall;
use crate::model::ChatResponse;
use crate::outcome::AgentResult;
use crate::telemetry;
use crate::tool::ToolOutcome;

/// See the module docs.
pub(crate) struct Telemetry;

impl Hook for Telemetry {
    fn span(&self, cx: &HookContext<'_>, of: SpanOf<'_>) -> Option<Span> {
        Some(match of {
            SpanOf::Turn { model } => {
                telemetry::agent_span(cx.agent, telemetry::system_name(model), model.model_name())
            }
            SpanOf::ModelCall { model, call } => {
                let span = telemetry::chat_span(telemetry::system_name(model), model.model_name(), &call.messages);
                // The model asked for, until an answer names the one that answered.
                let label = crate::model::fallback::label(model, Some(&call.options));
                telemetry::record_response_model(&span, None, &label);
                span
            }
            SpanOf::ToolCall(call) => telemetry::tool_span(&call.name, &call.id),
        })
    }

    fn after_model_response<'a>(
        &'a self,
        _cx: &'a HookContext<'a>,
        response: &'a mut ChatResponse,
    ) -> BoxFuture<'a, ()> {
        let span = Span::current();
        telemetry::record_answer(&span, response.usage, response.finish_reason, &response.message);
        let answered = response.fallbacks.last().map(|s| s.to.as_str());
        if response.model.as_deref().is_some_and(|m| !m.is_empty()) || answered.is_some() {
            telemetry::record_response_model(&span, response.model.as_deref(), answered.unwrap_or_default());
        }
        Box::pin(std::future::ready(()))
    }

    fn on_model_error<'a>(&'a self, _cx: &'a HookContext<'a>, error: &'a Error) -> BoxFuture<'a, ()> {
        telemetry::record_error(&Span::current(), error);
        Box::pin(std::future::ready(()))
    }

    fn after_tool_result<'a>(
        &'a self,
        _cx: &'a HookContext<'a>,
        _call: &'a ToolCall,
        outcome: &'a mut ToolOutcome,
    ) -> BoxFuture<'a, ()> {
        if outcome.is_error {
            telemetry::record_tool_error(&Span::current());
        }
        Box::pin(std::future::ready(()))
    }

    fn turn_end<'a>(&'a self, _cx: &'a HookContext<'a>, result: &'a AgentResult) -> BoxFuture<'a, ()> {
        let span = Span::current();
        telemetry::record_usage(&span, result.usage);
        if let Some(model) = &result.model {
            telemetry::record_response_model(&span, None, model);
        }
        Box::pin(std::future::ready(()))
    }

    fn on_error<'a>(&'a self, _cx: &'a HookContext<'a>, error: &'a Error) -> BoxFuture<'a, ()> {
        telemetry::record_error(&Span::current(), error);
        Box::pin(std::future::ready(()))
    }
}
