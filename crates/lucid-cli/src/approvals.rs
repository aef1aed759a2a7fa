//! Approvals in `lucid run`: a `--json` run of a stored session (`--session`, or a
//! request's `sessionId`) whose model calls a tool marked `ask` ends with `stop_reason:
//! "needs_approval"`, the calls in `pending_approvals` and exit code 5; a request
//! carrying `approvals` answers them and continues the run. The answers' shape is the one
//! `lucid serve` takes at `POST /v1/runs/{id}/approvals`. A call that waited longer than
//! the approval timeout is denied when the answers come (the model reads why), and an
//! answer to it is dropped.

use std::time::Duration;

use lucid::Session;
use lucid::approval::{Answer, ApprovalError, PendingCall};
use serde_json::{Value, json};

use crate::request::RequestError;

/// The exit code of a run that waits for approvals.
pub const EXIT_NEEDS_APPROVAL: i32 = 5;

/// Records the answers in the session (its store keeps them); an answer the session
/// refuses (no such call waits, arguments that do not match the tool's schema) is the
/// request's error naming it.
pub async fn record(session: &mut Session, answers: Vec<Answer>) -> anyhow::Result<Result<(), RequestError>> {
    for (i, answer) in answers.into_iter().enumerate() {
        if let Err(e) = session.decide(answer).await {
            return refused(i, e);
        }
    }
    Ok(Ok(()))
}

/// The answer `i` the session would not record, as the request's error naming its field;
/// any other failure as it is.
pub fn refused(i: usize, e: lucid::Error) -> anyhow::Result<Result<(), RequestError>> {
    let lucid::Error::Approval(e) = e else { return Err(e.into()) };
    let field = match e {
        ApprovalError::NotPending { .. } => "call_id",
        ApprovalError::InvalidArguments { .. } => "arguments",
        _ => "remember",
    };
    Ok(Err(RequestError::new(format!("approvals[{i}].{field}"), lucid::redact::redact(&e.to_string()))))
}

/// Drops the answers to calls that expired (denied already), saying so on standard error.
pub fn without_expired(answers: &mut Vec<Answer>, expired: &[String], timeout: Duration) {
    if expired.is_empty() {
        return;
    }
    eprintln!(
        "lucid: {} call(s) waited for approval longer than {} s (--approval-timeout) and were denied: {}",
        expired.len(),
        timeout.as_secs(),
        crate::display::safe(&expired.join(", "))
    );
    answers.retain(|a| !expired.contains(&a.call_id));
}

/// The pending calls as `--json` shows them.
pub fn pending_json(pending: &[PendingCall]) -> Value {
    let mut v = json!(
        pending
            .iter()
            .map(|p| {
                let mut v = json!({"call_id": p.call_id, "tool": p.tool, "arguments": p.arguments,
                                   "requested_at": p.requested_at, "answered": p.answered});
                // What the tool says the user should read before approving (a migration's rehearsal).
                if let Some(review) = &p.review {
                    v["review"] = Value::String(review.clone());
                }
                v
            })
            .collect::<Vec<_>>()
    );
    lucid::redact::redact_json(&mut v);
    v
}
