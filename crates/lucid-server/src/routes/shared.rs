//! What the session and run routes share: a tenant's session or run found (or 404), a run
//! as the API shows it, waiting for a run's turn or streaming its events, the tenant's
//! quotas, the 409 of a session that already has a run going, and a facade's turn: its
//! prompt's run, or the history's continuation.

use std::convert::Infallible;
use std::sync::Arc;

use axum::http::HeaderValue;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use serde_json::{Value, json};

use crate::db::{RunRow, SessionRow};
use crate::{ApiError, AppState, Tenant};

/// The tenant's session `id`, or 404.
pub async fn owned(server: &AppState, tenant: &Tenant, id: &str) -> Result<SessionRow, ApiError> {
    server.db.session(&tenant.0, id).await?.ok_or_else(|| ApiError::not_found("session", id))
}

/// A run as the API shows it: its input is its text, or its parts with each attachment
/// described (media type, `size`, `sha256`).
pub fn run_json(row: &RunRow) -> Value {
    json!({"id": row.id, "object": "run", "session_id": row.session_id, "status": row.status,
           "input": row.input, "result": row.result, "error": row.error.as_ref().map(|e| &e["error"]),
           "created_at": row.created_at, "updated_at": row.updated_at})
}

/// The tenant's run `id`, or 404.
pub async fn owned_run(server: &AppState, tenant: &Tenant, id: &str) -> Result<RunRow, ApiError> {
    server.db.run(&tenant.0, id).await?.ok_or_else(|| ApiError::not_found("run", id))
}

/// Waits for the turn of run `id` going here to end, and returns the run as stored.
pub async fn wait_for_turn(server: &AppState, tenant: &Tenant, id: &str) -> Result<RunRow, ApiError> {
    crate::runs::wait(server, id).await;
    owned_run(server, tenant, id).await
}

/// The run's events after number `after` as Server-Sent Events, each with its `id:`; the
/// run's id in the `Lucid-Run-Id` header. 429 when the run has as many readers as it may.
pub fn stream_events(server: &Arc<AppState>, id: &str, after: u64) -> Result<Response, ApiError> {
    let events = crate::runs::events(server, id, after)?
        .map(|e| Ok::<_, Infallible>(Event::default().id(e.seq.to_string()).event(e.kind).data(e.data)));
    let mut response = Sse::new(events).keep_alive(KeepAlive::default()).into_response();
    if let Ok(v) = HeaderValue::from_str(id) {
        response.headers_mut().insert("lucid-run-id", v);
    }
    Ok(response)
}

/// Refuses (429 naming the limit) what would take the tenant past its quotas: one more
/// session when `new_session`, and `adding` bytes more (a run starts with any bytes left);
/// a turn, once the tenant has spent a daily budget.
pub async fn within_quotas(server: &AppState, tenant: &Tenant, new_session: bool, adding: u64) -> Result<(), ApiError> {
    let quotas = server.quotas;
    let usage = server.db.usage(&tenant.0).await?;
    if new_session && usage.sessions >= quotas.sessions {
        return Err(ApiError::quota(&format!(
            "this key has {} sessions, the limit of sessions per tenant ({}); delete some to create more",
            usage.sessions, quotas.sessions
        )));
    }
    if usage.bytes >= quotas.stored_bytes || usage.bytes + adding > quotas.stored_bytes {
        return Err(ApiError::quota(&format!(
            "this key keeps {} bytes, and the limit of stored bytes per tenant is {}; delete sessions to free some",
            usage.bytes, quotas.stored_bytes
        )));
    }
    if !new_session {
        crate::spend::within_daily_budget(server, &tenant.0).await?;
    }
    Ok(())
}

/// The 409 of a second run on a busy session.
pub fn busy(session: &str) -> ApiError {
    ApiError::conflict("session_busy", format!("session `{session}` already has a run going; one at a time"))
}

/// The events of a facade's turn: the run of `prompt`, or, when the request ended with the
/// client's tool results (no prompt), the session's continuation from its history.
pub fn prompt_or_resume(
    session: &mut lucid::Session,
    prompt: Option<Vec<lucid::Part>>,
) -> std::pin::Pin<Box<dyn futures::Stream<Item = lucid::AgentEvent> + Send + '_>> {
    match prompt {
        Some(prompt) => Box::pin(session.run_stream_parts(prompt)),
        None => Box::pin(session.resume_stream()),
    }
}
