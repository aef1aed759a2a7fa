//! Approvals in `lucid run`: a `--json` run of a stored session (`--session`, or a
//! request's `sessionId`) whose model calls a tool marked `ask` ends with `stop_reason:
//! "needs_approval"`, the calls in `pending_approvals` and exit code 5; a request
//! carrying `approvals` answers them and continues the run. The answers' shape is the one
//! `lucid serve` takes at `POST /v1/runs/{id}/approvals`.

use lucid::Session;
use lucid::approval::{Answer, ApprovalError, PendingCall};
use serde_json::{Value, json};

use crate::request::RequestError;

/// The exit code of a run that waits for approvals.
pub const EXIT_NEEDS_APPROVAL: i32 = 5;

/// A request's `approvals`, each field checked (an error names it: `approvals[1].decision`).
pub fn read(value: Value) -> Result<Vec<Answer>, RequestError> {
    let Value::Array(items) = value else {
        return Err(RequestError::new("approvals", "must be an array of answers"));
    };
    if items.is_empty() {
        return Err(RequestError::new("approvals", "is empty: answer at least one waiting call"));
    }
    items.into_iter().enumerate().map(|(i, item)| answer(i, item)).collect()
}

fn answer(i: usize, item: Value) -> Result<Answer, RequestError> {
    let at = |field: &str| format!("approvals[{i}].{field}");
    let Value::Object(mut fields) = item else {
        return Err(RequestError::new(format!("approvals[{i}]"), "must be an object"));
    };
    let call_id = match fields.remove("call_id") {
        Some(Value::String(s)) if !s.trim().is_empty() => s,
        Some(_) => return Err(RequestError::new(at("call_id"), "must be a non-empty string")),
        None => return Err(RequestError::new(at("call_id"), "is missing")),
    };
    let decision = match fields.remove("decision") {
        Some(Value::String(s)) if s == "allow" || s == "deny" => s,
        _ => return Err(RequestError::new(at("decision"), "must be \"allow\" or \"deny\"")),
    };
    let remember = match fields.remove("remember") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => b,
        Some(_) => return Err(RequestError::new(at("remember"), "must be true or false")),
    };
    let arguments = match fields.remove("arguments") {
        None | Some(Value::Null) => None,
        Some(v @ Value::Object(_)) => Some(v),
        Some(_) => return Err(RequestError::new(at("arguments"), "must be a JSON object")),
    };
    let message = match fields.remove("message") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s),
        Some(_) => return Err(RequestError::new(at("message"), "must be a string")),
    };
    if let Some(unknown) = fields.keys().next() {
        return Err(RequestError::new(
            at(unknown),
            "is not a field of an answer (call_id, decision, arguments, message, remember)",
        ));
    }
    if decision == "deny" {
        if arguments.is_some() {
            return Err(RequestError::new(at("arguments"), "goes with \"allow\" only"));
        }
        if remember {
            return Err(RequestError::new(at("remember"), "goes with \"allow\" only"));
        }
        let mut answer = Answer::deny(call_id, message.unwrap_or_default());
        if let lucid::approval::Decision::Deny { message } = &mut answer.decision
            && message.as_deref().is_some_and(|m| m.trim().is_empty())
        {
            *message = None;
        }
        return Ok(answer);
    }
    if message.is_some() {
        return Err(RequestError::new(at("message"), "goes with \"deny\" only (the model reads it)"));
    }
    let answer = match arguments {
        Some(args) => Answer::edit(call_id, args),
        None => Answer::allow(call_id),
    };
    Ok(if remember { answer.remember() } else { answer })
}

/// Records the answers in the session (its store keeps them); an answer the session
/// refuses (no such call waits, arguments that do not match the tool's schema) is the
/// request's error naming it.
pub async fn record(session: &mut Session, answers: Vec<Answer>) -> anyhow::Result<Result<(), RequestError>> {
    for (i, answer) in answers.into_iter().enumerate() {
        let (field, why) = match session.decide(answer).await {
            Ok(()) => continue,
            Err(lucid::Error::Approval(e)) => {
                let field = match e {
                    ApprovalError::NotPending { .. } => "call_id",
                    ApprovalError::InvalidArguments { .. } => "arguments",
                    _ => "remember",
                };
                (field, e.to_string())
            }
            Err(e) => return Err(e.into()),
        };
        return Ok(Err(RequestError::new(format!("approvals[{i}].{field}"), lucid::redact::redact(&why))));
    }
    Ok(Ok(()))
}

/// The pending calls as `--json` shows them.
pub fn pending_json(pending: &[PendingCall]) -> Value {
    let mut v = json!(
        pending
            .iter()
            .map(|p| json!({"call_id": p.call_id, "tool": p.tool, "arguments": p.arguments,
                            "requested_at": p.requested_at, "answered": p.answered}))
            .collect::<Vec<_>>()
    );
    lucid::redact::redact_json(&mut v);
    v
}
