//! `POST /v1/runs/{id}/approvals`: the answer to one tool call a run in `needs_approval`
//! waits on; once every waiting call has one, the run goes on (on this instance: the
//! answers are in the session store, so any instance could). And the pending calls as
//! `GET /v1/runs/{id}` lists them.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use lucid::approval::{Answer, ApprovalError};
use serde_json::Value;

use super::shared::{busy, owned, owned_run, run_json, wait_for_turn};
use crate::body::JsonObject;
use crate::db::{RunRow, RunStatus};
use crate::{ApiError, AppState, Tenant};

/// `POST /v1/runs/{id}/approvals {call_id, decision, arguments?, message?, remember?}`.
pub async fn answer(
    State(server): State<Arc<AppState>>,
    tenant: Tenant,
    Path(id): Path<String>,
    body: JsonObject,
) -> Result<Response, ApiError> {
    let answer = read_answer(&body)?;
    let row = owned_run(&server, &tenant, &id).await?;
    if row.status != RunStatus::NeedsApproval {
        return Err(ApiError::conflict(
            "run_not_waiting",
            format!("run `{id}` is {}, not waiting for approval", row.status.as_str()),
        ));
    }
    let session_row = owned(&server, &tenant, &row.session_id).await?;
    let agent = server.agents.get(&session_row.agent).ok_or_else(|| {
        ApiError::conflict("agent_gone", format!("the agent `{}` is no longer served", session_row.agent))
    })?;
    let mut session = agent.session_with_id(&row.session_id).await?;
    session.decide(answer).await.map_err(refused)?;
    // Read again: answers to the other calls may have been recorded meanwhile, anywhere.
    let mut session = agent.session_with_id(&row.session_id).await?;
    if !session.pending_approvals().iter().all(|p| p.answered) {
        let row = owned_run(&server, &tenant, &id).await?;
        return Ok(axum::Json(run_with_pending(&server, &tenant, &row).await?).into_response());
    }
    let slot = server.runs.reserve(&tenant.0, server.max_runs)?;
    session.set_owner(Some(tenant.0.clone()));
    let first_seq = server.db.last_event(&id).await? + 1;
    let now = crate::now_ms();
    if server.db.continue_run(&id, RunStatus::NeedsApproval, None, &server.owner, server.lease_until(now), now).await? {
        crate::runs::start(&server, &id, session, crate::runs::Turn::Resume, first_seq, slot);
    } else if server.db.run_status(&id).await? == Some(RunStatus::NeedsApproval) {
        // Still waiting, yet not moved: another run of the session is going.
        return Err(busy(&row.session_id));
    }
    let row = wait_for_turn(&server, &tenant, &id).await?;
    Ok(axum::Json(run_with_pending(&server, &tenant, &row).await?).into_response())
}

/// The answer in a body, each field checked (400 naming it).
fn read_answer(body: &JsonObject) -> Result<Answer, ApiError> {
    body.only(&["call_id", "decision", "arguments", "message", "remember"])?;
    let call_id = body.text("call_id")?;
    let remember = body.flag("remember")?;
    let has = |f: &str| body.0.get(f).is_some_and(|v| !v.is_null());
    match body.text("decision")? {
        "allow" => {
            if has("message") {
                return Err(ApiError::invalid("message", "goes with \"deny\" only (the model reads it)"));
            }
            let answer = if has("arguments") {
                Answer::edit(call_id, body.object("arguments")?)
            } else {
                Answer::allow(call_id)
            };
            Ok(if remember { answer.remember() } else { answer })
        }
        "deny" => {
            if has("arguments") {
                return Err(ApiError::invalid("arguments", "goes with \"allow\" only"));
            }
            if remember {
                return Err(ApiError::invalid("remember", "goes with \"allow\" only"));
            }
            let answer = match body.0.get("message") {
                None | Some(Value::Null) => Answer::deny(call_id, ""),
                Some(Value::String(m)) => Answer::deny(call_id, m.as_str()),
                Some(_) => return Err(ApiError::invalid("message", "must be a string")),
            };
            Ok(without_empty_message(answer))
        }
        _ => Err(ApiError::invalid("decision", "must be \"allow\" or \"deny\"")),
    }
}

/// A deny whose message is empty takes the library's own.
fn without_empty_message(mut answer: Answer) -> Answer {
    if let lucid::approval::Decision::Deny { message } = &mut answer.decision
        && message.as_deref().is_some_and(|m| m.trim().is_empty())
    {
        *message = None;
    }
    answer
}

/// An answer the session would not record, as a 400 naming the field at fault.
fn refused(e: lucid::Error) -> ApiError {
    let field = match &e {
        lucid::Error::Approval(ApprovalError::NotPending { .. }) => "call_id",
        lucid::Error::Approval(ApprovalError::InvalidArguments { .. }) => "arguments",
        lucid::Error::Approval(ApprovalError::RememberDeny { .. }) => "remember",
        _ => return e.into(),
    };
    ApiError::invalid(field, &lucid::redact::redact(&e.to_string()))
}

/// A run as the API shows it, with the calls it waits on when it is `needs_approval`.
pub async fn run_with_pending(server: &AppState, tenant: &Tenant, row: &RunRow) -> Result<Value, ApiError> {
    let mut value = run_json(row);
    if row.status != RunStatus::NeedsApproval {
        return Ok(value);
    }
    let Some(session_row) = server.db.session(&tenant.0, &row.session_id).await? else { return Ok(value) };
    let Some(agent) = server.agents.get(&session_row.agent) else { return Ok(value) };
    let session = agent.session_with_id(&row.session_id).await?;
    let pending: Vec<Value> =
        session.pending_approvals().iter().map(|p| crate::events::pending_json(p, server.approval_timeout)).collect();
    value["pending_approvals"] = Value::Array(pending);
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn body(v: Value) -> JsonObject {
        JsonObject(v.as_object().unwrap().clone())
    }

    #[test]
    fn each_wrong_field_of_an_answer_is_named() {
        let bad = [
            (json!({"decision": "allow"}), "`call_id`: required"),
            (json!({"call_id": "c", "decision": "maybe"}), "`decision`: must be \"allow\" or \"deny\""),
            (json!({"call_id": "c", "decision": "allow", "arguments": [1]}), "`arguments`: must be an object"),
            (json!({"call_id": "c", "decision": "deny", "arguments": {}}), "`arguments`: goes with \"allow\" only"),
            (json!({"call_id": "c", "decision": "deny", "remember": true}), "`remember`: goes with \"allow\" only"),
            (json!({"call_id": "c", "decision": "allow", "message": "x"}), "`message`: goes with \"deny\" only"),
            (json!({"call_id": "c", "decision": "deny", "message": 3}), "`message`: must be a string"),
            (json!({"call_id": "c", "decision": "allow", "remember": "yes"}), "`remember`: must be true or false"),
            (json!({"call_id": "c", "decision": "allow", "why": 1}), "`why`: unknown field"),
        ];
        for (b, want) in bad {
            let e = read_answer(&body(b.clone())).unwrap_err();
            assert!(e.message.starts_with(want), "{b}: {}", e.message);
        }
        let a =
            read_answer(&body(json!({"call_id": "c", "decision": "allow", "arguments": {"x": 1}, "remember": true})));
        assert_eq!(a.unwrap(), Answer::edit("c", json!({"x": 1})).remember());
        let d = read_answer(&body(json!({"call_id": "c", "decision": "deny"}))).unwrap();
        assert!(matches!(d.decision, lucid::approval::Decision::Deny { message: None }));
    }
}
