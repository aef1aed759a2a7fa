//! A run's events as the API sends them: each [`lucid::AgentEvent`] becomes one typed
//! JSON object (the SSE `event:` is its `type`), and the end of a turn says where the run
//! went (`completed`, `needs_input`, `needs_approval`, `cancelled`, `failed`).

use lucid::model::ModelError;
use lucid::store::StoreError;
use lucid::{AgentEvent, AgentResult, StopReason};
use serde_json::{Value, json};

use crate::db::RunStatus;

/// Where a turn left the run, and what the run shows for it.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// The run's new status.
    pub status: RunStatus,
    /// The agent's result (completed, needs input, cancelled).
    pub result: Option<Value>,
    /// The error, in the API's shape (failed).
    pub error: Option<Value>,
}

impl Outcome {
    /// The outcome of a turn that returned `result`.
    pub fn of_result(result: &AgentResult) -> Outcome {
        let status = match result.stop_reason {
            StopReason::NeedsInput => RunStatus::NeedsInput,
            // A run's calls are deferred by its permission policy: they wait for approval.
            StopReason::Deferred => RunStatus::NeedsApproval,
            StopReason::Cancelled => RunStatus::Cancelled,
            // The turn ended with a result (a limit, a hook's stop): the result says which.
            _ => RunStatus::Completed,
        };
        // The library hands results out redacted; what is stored and sent is checked again.
        let mut value = serde_json::to_value(result).ok();
        if let Some(v) = &mut value {
            lucid::redact::redact_json(v);
        }
        Outcome { status, result: value, error: None }
    }

    /// The outcome of a turn that failed with `error`.
    pub fn of_error(error: &lucid::Error) -> Outcome {
        if error.is_cancelled() {
            return Outcome { status: RunStatus::Cancelled, result: None, error: None };
        }
        Outcome { status: RunStatus::Failed, result: None, error: Some(error_body(error)) }
    }
}

/// A run's error in the API's shape, its message redacted of every registered secret.
pub fn error_body(error: &lucid::Error) -> Value {
    let message = lucid::redact::redact(&error.to_string()).into_owned();
    let code = match error {
        lucid::Error::Model(ModelError::Provider(_)) => "provider_error",
        lucid::Error::Model(ModelError::Network { .. }) => "network_error",
        lucid::Error::Store(StoreError::Busy { .. }) => "session_busy",
        lucid::Error::Store(StoreError::Failed { .. }) | lucid::Error::TurnNotSaved { .. } => "store_error",
        _ => "run_failed",
    };
    json!({"error": {"message": message, "type": "server_error", "param": null, "code": code}})
}

/// The event's type and JSON.
pub fn encode(event: &AgentEvent) -> (&'static str, Value) {
    match event {
        AgentEvent::Iteration(n) => ("iteration", json!({"type": "iteration", "iteration": n})),
        AgentEvent::TextDelta(t) => ("text_delta", json!({"type": "text_delta", "text": redacted(t)})),
        AgentEvent::ReasoningDelta(t) => ("reasoning_delta", json!({"type": "reasoning_delta", "text": redacted(t)})),
        AgentEvent::ToolCallStarted { id, name, arguments } => (
            "tool_call_started",
            json!({"type": "tool_call_started", "id": id, "name": name, "arguments": redacted(arguments)}),
        ),
        AgentEvent::ToolCallFinished { id, name, output, is_error, duration } => (
            "tool_call_finished",
            json!({"type": "tool_call_finished", "id": id, "name": name, "output": redacted(output),
                   "is_error": is_error, "duration_ms": duration.as_millis() as u64}),
        ),
        AgentEvent::Fallback(s) => {
            ("fallback", json!({"type": "fallback", "from": s.from, "to": s.to, "error": redacted(&s.error)}))
        }
        AgentEvent::Completed(r) => {
            let outcome = Outcome::of_result(r);
            let kind = match outcome.status {
                RunStatus::NeedsInput => "needs_input",
                RunStatus::NeedsApproval => "needs_approval",
                RunStatus::Cancelled => "cancelled",
                _ => "completed",
            };
            let mut body = json!({"type": kind, "result": outcome.result});
            if kind == "needs_input" {
                body["questions"] = json!(r.questions);
            }
            (kind, body)
        }
        AgentEvent::Error(e) if e.is_cancelled() => ("cancelled", json!({"type": "cancelled", "result": Value::Null})),
        AgentEvent::Error(e) => ("error", json!({"type": "error", "error": error_body(e)["error"]})),
        // An event kind this server does not know yet (the library added one): named by
        // its debug form, never ending the stream.
        other => {
            let name = format!("{other:?}");
            let kind = name.split(['(', ' ', '{']).next().unwrap_or("event").to_string();
            ("event", json!({"type": "event", "event": kind}))
        }
    }
}

/// One waiting call as the API shows it: its arguments redacted, when it expires.
pub fn pending_json(call: &lucid::approval::PendingCall, timeout: std::time::Duration) -> Value {
    let mut v = json!({
        "call_id": call.call_id, "tool": call.tool, "arguments": call.arguments,
        "answered": call.answered, "requested_at": call.requested_at,
        "expires_at": call.requested_at.map(|at| at + timeout.as_millis() as i64),
    });
    // What the tool says the user should read before approving (a migration's rehearsal).
    if let Some(review) = &call.review {
        v["review"] = Value::String(review.clone());
    }
    lucid::redact::redact_json(&mut v);
    v
}

fn redacted(text: &str) -> String {
    lucid::redact::redact(text).into_owned()
}

/// Whether an event of this type ends a turn (the stream of the turn closes after it).
pub fn is_last(kind: &str) -> bool {
    matches!(kind, "completed" | "needs_input" | "needs_approval" | "cancelled" | "error")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_event_has_a_type_and_the_last_ones_say_where_the_run_went() {
        let (kind, body) = encode(&AgentEvent::TextDelta("hi".into()));
        assert_eq!((kind, body["text"].as_str()), ("text_delta", Some("hi")));
        let mut result = AgentResult::new("", StopReason::NeedsInput);
        result.iterations = 1;
        result.questions = vec!["Which city?".into()];
        let (kind, body) = encode(&AgentEvent::Completed(result.clone()));
        assert_eq!(kind, "needs_input");
        assert_eq!(body["questions"][0], "Which city?");
        assert_eq!(Outcome::of_result(&result).status, RunStatus::NeedsInput);
        let (kind, body) = encode(&AgentEvent::Error(lucid::Error::Config("bad".into())));
        assert_eq!((kind, body["error"]["code"].as_str()), ("error", Some("run_failed")));
        assert!(is_last("error") && !is_last("text_delta"));
        assert_eq!(Outcome::of_error(&lucid::Error::Cancelled).status, RunStatus::Cancelled);
    }

    #[test]
    fn a_layers_error_keeps_its_code_and_a_cancelled_model_call_is_a_cancelled_run() {
        let code = |e: lucid::Error| error_body(&e)["error"]["code"].as_str().map(str::to_string);
        let provider = lucid::ProviderError::new("openai", Some(503), "overloaded");
        assert_eq!(code(provider.into()).as_deref(), Some("provider_error"));
        let network = ModelError::Network {
            provider: "openai".into(),
            url: "http://127.0.0.1:9".into(),
            message: "connection refused".into(),
            retryable: true,
            reached: false,
            source: None,
        };
        assert_eq!(code(network.into()).as_deref(), Some("network_error"));
        let busy = StoreError::Busy { id: "s".into(), owner: "h:1:n".into(), in_this_process: false };
        assert_eq!(code(busy.into()).as_deref(), Some("session_busy"));
        assert_eq!(code(StoreError::failed("map", "no").into()).as_deref(), Some("store_error"));
        assert_eq!(code(ModelError::Config("no key".into()).into()).as_deref(), Some("run_failed"));
        let cancelled = lucid::Error::from(ModelError::Cancelled);
        assert_eq!(Outcome::of_error(&cancelled).status, RunStatus::Cancelled);
        assert_eq!(encode(&AgentEvent::Error(cancelled)).0, "cancelled");
    }
}
