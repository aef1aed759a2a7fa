//! `/v1/runs/{id}`: status and result, the event stream (again, after `Last-Event-ID`),
//! cancel, and the answers to `ask_user`'s questions.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};

use super::shared::{busy, owned, owned_run, run_json, stream_events, wait_for_turn, within_quotas};
use crate::body::JsonObject;
use crate::db::RunStatus;
use crate::{ApiError, AppState, Tenant};

/// `GET /v1/runs/{id}`.
pub async fn show(
    State(server): State<Arc<AppState>>,
    tenant: Tenant,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let row = owned_run(&server, &tenant, &id).await?;
    Ok(axum::Json(super::approvals::run_with_pending(&server, &tenant, &row).await?).into_response())
}

/// `GET /v1/runs/{id}/events`: every event after `Last-Event-ID` (all without it), then
/// the rest as they come while the run goes on.
pub async fn events(
    State(server): State<Arc<AppState>>,
    tenant: Tenant,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let after = match headers.get("last-event-id") {
        None => 0,
        Some(v) => v
            .to_str()
            .ok()
            .and_then(|s| s.trim().parse::<u64>().ok())
            .ok_or_else(|| ApiError::invalid("Last-Event-ID", "must be the number of an event"))?,
    };
    owned_run(&server, &tenant, &id).await?;
    stream_events(&server, &id, after)
}

/// How long a cancel sent to the instance running the run is waited for.
const CANCEL_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// `POST /v1/runs/{id}/cancel`: stops the run now, whichever instance runs it (a run
/// waiting for input is cancelled at once); the run as it stands after (still `running`
/// only if its instance did not stop it within 10 s: it will, or whoever claims it).
pub async fn cancel(
    State(server): State<Arc<AppState>>,
    tenant: Tenant,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let row = owned_run(&server, &tenant, &id).await?;
    if matches!(row.status, RunStatus::NeedsInput | RunStatus::NeedsApproval) {
        server.db.move_run(&id, row.status, RunStatus::Cancelled, crate::now_ms()).await?;
    } else if row.status.is_active() {
        if server.runs.cancel(&id) {
            crate::runs::wait(&server, &id).await;
        } else if server.db.request_cancel(&id).await? {
            // Its instance reads the request when it renews its lease.
            let stopped = async {
                loop {
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                    match server.db.run_status(&id).await {
                        Ok(Some(s)) if s.is_active() => {}
                        _ => return,
                    }
                }
            };
            let _ = tokio::time::timeout(CANCEL_WAIT, stopped).await;
        }
    }
    Ok(axum::Json(run_json(&owned_run(&server, &tenant, &id).await?)).into_response())
}

/// `POST /v1/runs/{id}/input {input, stream}`: the answers to the questions of a run in
/// `needs_input`; the run goes on (its events numbered after the earlier ones).
pub async fn input(
    State(server): State<Arc<AppState>>,
    tenant: Tenant,
    Path(id): Path<String>,
    body: JsonObject,
) -> Result<Response, ApiError> {
    let (parts, stream) = crate::input::turn(&body)?;
    let row = owned_run(&server, &tenant, &id).await?;
    if row.status != RunStatus::NeedsInput {
        return Err(ApiError::conflict(
            "run_not_waiting",
            format!("run `{id}` is {}, not waiting for input", row.status.as_str()),
        ));
    }
    let session_row = owned(&server, &tenant, &row.session_id).await?;
    let agent = server.agents.get(&session_row.agent).ok_or_else(|| {
        ApiError::conflict("agent_gone", format!("the agent `{}` is no longer served", session_row.agent))
    })?;
    crate::input::check_model(agent.model().as_ref(), &parts)?;
    let input = crate::input::stored(&parts)?;
    within_quotas(&server, &tenant, false, input.bytes as u64).await?;
    let slot = server.runs.reserve(&tenant.0, server.max_runs)?;
    let mut session = agent.session_with_id(&row.session_id).await?;
    session.set_owner(Some(tenant.0.clone()));
    let first_seq = server.db.last_event(&id).await? + 1;
    let now = crate::now_ms();
    if !server
        .db
        .continue_run(&id, RunStatus::NeedsInput, Some(&input), &server.owner, server.lease_until(now), now)
        .await?
    {
        return Err(busy(&row.session_id));
    }
    crate::runs::start(&server, &id, session, crate::runs::Turn::Prompt(parts), first_seq, slot);
    if stream {
        return stream_events(&server, &id, first_seq - 1);
    }
    Ok(axum::Json(run_json(&wait_for_turn(&server, &tenant, &id).await?)).into_response())
}
