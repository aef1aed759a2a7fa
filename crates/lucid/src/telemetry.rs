//! Spans of the agent loop after the OpenTelemetry semantic conventions for generative AI:
//! `invoke_agent {name}` for each turn, `chat {model}` for each model call and
//! `execute_tool {tool}` for each tool call, with their `gen_ai.*` attributes
//! (`gen_ai.operation.name`, `gen_ai.provider.name`, `gen_ai.request.model`,
//! `gen_ai.response.model` (the model that answered: the provider's name for it, or a
//! backup's after a [switch](crate::model::Fallback)),
//! `gen_ai.usage.input_tokens` / `output_tokens`, `gen_ai.response.finish_reasons`,
//! `gen_ai.agent.name`, `gen_ai.tool.name`, `gen_ai.tool.call.id`).
//!
//! They are `tracing` spans at INFO level with target `lucid::telemetry`; the `otel.name`
//! field carries the conventional span name, which a tracing → OpenTelemetry bridge (such
//! as `tracing-opentelemetry`) uses as the exported name. Without a subscriber interested
//! in them they cost a few nanoseconds each.
//!
//! The messages sent and received (`gen_ai.input.messages`, `gen_ai.output.messages`,
//! JSON) are recorded only when opted in: [`capture_content`]`(true)`, or
//! `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true` in the environment.
//!
//! ```
//! lucid::telemetry::capture_content(false); // the default: no prompt or answer text in spans
//! assert!(!lucid::telemetry::captures_content());
//! ```

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU8, Ordering};

use tracing::Span;
use tracing::field::Empty;

use crate::message::{FinishReason, Message, Usage};
use crate::model::ChatModel;

/// The target of every span of this module.
pub const TARGET: &str = "lucid::telemetry";

/// 0: not decided (read the environment), 1: off, 2: on.
static CAPTURE: AtomicU8 = AtomicU8::new(0);

/// Records (or stops recording) the messages sent to and received from models in the
/// `chat` spans, whatever the environment says.
pub fn capture_content(on: bool) {
    CAPTURE.store(if on { 2 } else { 1 }, Ordering::Relaxed);
}

/// Whether the `chat` spans record message content.
pub fn captures_content() -> bool {
    match CAPTURE.load(Ordering::Relaxed) {
        2 => true,
        1 => false,
        _ => {
            static FROM_ENV: OnceLock<bool> = OnceLock::new();
            *FROM_ENV.get_or_init(|| {
                std::env::var("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT")
                    .is_ok_and(|v| v.eq_ignore_ascii_case("true"))
            })
        }
    }
}

/// The `gen_ai.provider.name` of a model's provider: its record's telemetry name (the
/// conventions' well-known value where there is one), else, for a client without a
/// record, its provider's name.
///
/// ```
/// use lucid::model::{ChatModel, Provider};
/// let gemini = Provider::find("gemini").unwrap().client().key("k").build()?;
/// assert_eq!(lucid::telemetry::system_name(&*gemini), "gcp.gemini");
/// # Ok::<(), lucid::Error>(())
/// ```
pub fn system_name(model: &dyn ChatModel) -> &str {
    match model.record() {
        Some(r) => &r.telemetry_name,
        // Clients of providers Lucid has no record of (HttpModel::with_codec).
        None => match model.provider() {
            "mistral" => "mistral_ai",
            "xai" => "x_ai",
            other => other,
        },
    }
}

/// The span of one turn of an agent (`invoke_agent`); `system` is its
/// [`system_name`].
pub(crate) fn agent_span(agent: Option<&str>, system: &str, model: &str) -> Span {
    let span = tracing::info_span!(
        target: TARGET,
        "invoke_agent",
        otel.name = Empty,
        otel.kind = "internal",
        gen_ai.operation.name = "invoke_agent",
        gen_ai.agent.name = agent,
        gen_ai.provider.name = system,
        gen_ai.request.model = model,
        gen_ai.response.model = Empty,
        gen_ai.usage.input_tokens = Empty,
        gen_ai.usage.output_tokens = Empty,
    );
    if !span.is_disabled() {
        span.record("otel.name", agent.map_or_else(|| "invoke_agent".to_string(), |a| format!("invoke_agent {a}")));
    }
    span
}

/// The span of one model call (`chat`), with the messages sent when content is captured.
pub(crate) fn chat_span(system: &str, model: &str, messages: &[Message]) -> Span {
    let span = tracing::info_span!(
        target: TARGET,
        "chat",
        otel.name = Empty,
        otel.kind = "client",
        gen_ai.operation.name = "chat",
        gen_ai.provider.name = system,
        gen_ai.request.model = model,
        gen_ai.response.model = Empty,
        gen_ai.usage.input_tokens = Empty,
        gen_ai.usage.output_tokens = Empty,
        gen_ai.response.finish_reasons = Empty,
        gen_ai.input.messages = Empty,
        gen_ai.output.messages = Empty,
        error.type = Empty,
    );
    if !span.is_disabled() {
        span.record("otel.name", format!("chat {model}"));
        if captures_content() {
            span.record("gen_ai.input.messages", serde_json::to_string(messages).unwrap_or_default());
        }
    }
    span
}

/// Records what a model call answered on its span.
pub(crate) fn record_answer(
    span: &Span,
    usage: Option<Usage>,
    finish: Option<FinishReason>,
    answer: &crate::message::AssistantMessage,
) {
    if span.is_disabled() {
        return;
    }
    if let Some(u) = usage {
        record_usage(span, u);
    }
    if let Some(f) = finish {
        let reason = serde_json::to_value(f).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
        span.record("gen_ai.response.finish_reasons", format!("[\"{reason}\"]"));
    }
    if captures_content() {
        span.record("gen_ai.output.messages", serde_json::to_string(answer).unwrap_or_default());
    }
}

/// Records the model that answered (`gen_ai.response.model`): its name as the provider
/// reported it, else the model part of `label` (`provider:model`).
pub(crate) fn record_response_model(span: &Span, reported: Option<&str>, label: &str) {
    if span.is_disabled() {
        return;
    }
    let name = reported.filter(|m| !m.is_empty()).unwrap_or_else(|| label.split_once(':').map_or(label, |(_, m)| m));
    span.record("gen_ai.response.model", name);
}

/// Records a failure's kind (`error.type`, a short stable name) on a span.
pub(crate) fn record_error(span: &Span, error: &crate::Error) {
    if !span.is_disabled() {
        span.record("error.type", error_type(error));
    }
}

/// The `error.type` of an error: the provider's HTTP status when it sent one, else the
/// kind of failure.
fn error_type(error: &crate::Error) -> String {
    use crate::Error;
    use crate::model::ModelError;
    use crate::store::StoreError;
    match error {
        Error::Model(ModelError::Provider(p)) => {
            p.status.map_or_else(|| "provider_error".to_string(), |s| s.to_string())
        }
        Error::Model(ModelError::Network { .. }) => "network".into(),
        Error::Model(ModelError::Decode { .. }) => "decode".into(),
        Error::Model(ModelError::StreamTruncated { .. }) => "stream_truncated".into(),
        e if e.is_cancelled() => "cancelled".into(),
        Error::Store(StoreError::Failed { .. }) | Error::TurnNotSaved { .. } => "store".into(),
        Error::Store(StoreError::Busy { .. }) => "session_busy".into(),
        _ => "_OTHER".into(),
    }
}

/// Marks an `execute_tool` span whose call answered an error.
pub(crate) fn record_tool_error(span: &Span) {
    if !span.is_disabled() {
        span.record("error.type", "tool_error");
    }
}

/// Records token usage on an `invoke_agent` or `chat` span.
pub(crate) fn record_usage(span: &Span, usage: Usage) {
    if !span.is_disabled() {
        span.record("gen_ai.usage.input_tokens", usage.input_tokens);
        span.record("gen_ai.usage.output_tokens", usage.output_tokens);
    }
}

/// The span of one tool call (`execute_tool`).
pub(crate) fn tool_span(name: &str, call_id: &str) -> Span {
    let span = tracing::info_span!(
        target: TARGET,
        "execute_tool",
        otel.name = Empty,
        otel.kind = "internal",
        gen_ai.operation.name = "execute_tool",
        gen_ai.tool.name = name,
        gen_ai.tool.call.id = call_id,
        gen_ai.tool.type = "function",
        error.type = Empty,
    );
    if !span.is_disabled() {
        span.record("otel.name", format!("execute_tool {name}"));
    }
    span
}

#[cfg(test)]
mod tests {
    use super::error_type;
    use crate::model::ModelError;
    use crate::store::StoreError;
    use crate::{Error, ProviderError};

    #[test]
    fn the_error_type_looks_through_the_layer_to_the_failure() {
        let provider = Error::from(ProviderError::new("openai", Some(429), "slow down"));
        assert_eq!(error_type(&provider), "429");
        let mid_stream = Error::from(ProviderError::new("anthropic", None, "Overloaded"));
        assert_eq!(error_type(&mid_stream), "provider_error");
        let cut = ModelError::StreamTruncated { provider: "openai".into(), message: "no [DONE]".into() };
        assert_eq!(error_type(&cut.into()), "stream_truncated");
        let bad = ModelError::Decode { provider: "openai".into(), message: "not JSON".into() };
        assert_eq!(error_type(&bad.into()), "decode");
        assert_eq!(error_type(&ModelError::Cancelled.into()), "cancelled");
        assert_eq!(error_type(&Error::Cancelled), "cancelled");
        let busy = StoreError::Busy { id: "s".into(), owner: "h:1:n".into(), in_this_process: true };
        assert_eq!(error_type(&busy.into()), "session_busy");
        assert_eq!(error_type(&StoreError::failed("map", "no").into()), "store");
        assert_eq!(error_type(&Error::Config("no store".into())), "_OTHER");
    }
}
