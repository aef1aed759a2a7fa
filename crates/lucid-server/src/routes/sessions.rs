//! `/v1/sessions`: create, list (paged), show with messages, delete, and start a run.

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::shared::{busy, owned, stream_events, wait_for_turn, within_quotas};
use crate::body::JsonObject;
use crate::db::{Removal, RunRow, RunStatus, SessionRow};
use crate::{ApiError, AppState, Tenant};

/// The most sessions one page holds.
const MAX_PAGE: usize = 100;

fn session_json(row: &SessionRow) -> Value {
    json!({"id": row.id, "object": "session", "agent": row.agent, "metadata": row.metadata,
           "created_at": row.created_at})
}

/// A session as a list shows it: without its metadata unless asked.
fn listed_json(row: &SessionRow, with_metadata: bool) -> Value {
    let mut v = session_json(row);
    if !with_metadata && let Some(o) = v.as_object_mut() {
        o.remove("metadata");
    }
    v
}

/// `POST /v1/sessions {agent, metadata}` → 201 with the session.
pub async fn create(
    State(server): State<Arc<AppState>>,
    tenant: Tenant,
    body: JsonObject,
) -> Result<Response, ApiError> {
    body.only(&["agent", "metadata"])?;
    let agent = body.text("agent")?;
    if !server.agents.contains_key(agent) {
        let known: Vec<&str> = server.agents.keys().map(String::as_str).collect();
        return Err(ApiError::invalid("agent", &format!("no agent `{agent}` (agents: {})", known.join(", "))));
    }
    let mut metadata = body.object("metadata")?;
    lucid::redact::redact_json(&mut metadata);
    let bytes = metadata.to_string().len();
    if bytes > server.quotas.metadata_bytes {
        return Err(ApiError::metadata_too_large(bytes, server.quotas.metadata_bytes));
    }
    within_quotas(&server, &tenant, true, bytes as u64).await?;
    let row = SessionRow { id: crate::new_id("sess"), agent: agent.to_string(), metadata, created_at: crate::now_ms() };
    server.store.create(&row.id, row.metadata.clone()).await?;
    server.db.create_session(&tenant.0, &row).await?;
    Ok((StatusCode::CREATED, axum::Json(session_json(&row))).into_response())
}

/// A page parameter: absent, or a whole number up to `max`.
fn page_param(query: &HashMap<String, String>, name: &str, default: usize, max: usize) -> Result<usize, ApiError> {
    match query.get(name) {
        None => Ok(default),
        Some(v) => match v.parse::<usize>() {
            Ok(n) if n <= max => Ok(n),
            _ => Err(ApiError::invalid(name, &format!("must be a whole number from 0 to {max}"))),
        },
    }
}

/// `GET /v1/sessions?limit=&offset=&metadata=`: the tenant's sessions, newest first; each
/// one's metadata only with `metadata=true` (a page of them can be large).
pub async fn list(
    State(server): State<Arc<AppState>>,
    tenant: Tenant,
    Query(query): Query<HashMap<String, String>>,
) -> Result<Response, ApiError> {
    let limit = page_param(&query, "limit", 20, MAX_PAGE)?.max(1);
    let offset = page_param(&query, "offset", 0, usize::MAX / 2)?;
    let with_metadata = match query.get("metadata").map(String::as_str) {
        None | Some("false") => false,
        Some("true") => true,
        Some(_) => return Err(ApiError::invalid("metadata", "must be true or false")),
    };
    let mut rows = server.db.sessions(&tenant.0, limit + 1, offset, with_metadata).await?;
    let has_more = rows.len() > limit;
    rows.truncate(limit);
    let data: Vec<Value> = rows.iter().map(|r| listed_json(r, with_metadata)).collect();
    Ok(axum::Json(json!({"object": "list", "data": data, "has_more": has_more, "limit": limit, "offset": offset}))
        .into_response())
}

/// `GET /v1/sessions/{id}?attachments=`: the session with its messages, each attachment
/// described by its media type, `size` and `sha256`; its bytes (base64 `data`, as
/// `lucid sessions export` writes them) only with `attachments=true`.
pub async fn show(
    State(server): State<Arc<AppState>>,
    tenant: Tenant,
    Path(id): Path<String>,
    Query(query): Query<HashMap<String, String>>,
) -> Result<Response, ApiError> {
    let with_data = match query.get("attachments").map(String::as_str) {
        None | Some("false") => false,
        Some("true") => true,
        Some(_) => return Err(ApiError::invalid("attachments", "must be true or false")),
    };
    let row = owned(&server, &tenant, &id).await?;
    let messages = match server.store.load(&id).await? {
        Some(stored) => stored.messages,
        None => Vec::new(),
    };
    let mut body = session_json(&row);
    body["messages"] = if with_data {
        serde_json::to_value(&messages).map_err(ApiError::internal)?
    } else {
        let described: Result<Vec<Value>, _> =
            messages.iter().map(|m| crate::input::described(m).map(|(v, _)| v)).collect();
        Value::Array(described.map_err(ApiError::internal)?)
    };
    Ok(axum::Json(body).into_response())
}

/// `DELETE /v1/sessions/{id}` → 204; 409 while a run of it is going.
pub async fn delete(
    State(server): State<Arc<AppState>>,
    tenant: Tenant,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    owned(&server, &tenant, &id).await?;
    // The turn lock proves no run of the session is going, here or anywhere.
    let lock = server.store.lock(&id, std::time::Duration::from_secs(30)).await?;
    let result = async {
        // The database refuses too: a run stored a moment ago may not hold the lock yet.
        match server.db.delete_session(&tenant.0, &id).await? {
            Removal::Deleted => {}
            Removal::Busy => return Err(busy(&id)),
            Removal::Missing => return Err(ApiError::not_found("session", &id)),
        }
        server.store.delete(&id).await?;
        Ok::<_, ApiError>(())
    }
    .await;
    if let Err(e) = server.store.unlock(&lock).await {
        tracing::debug!("unlocking deleted session {id}: {e}");
    }
    result?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

/// `POST /v1/sessions/{id}/runs {input, stream}`: a turn of the session's agent on
/// `input`; the run when it ends, or with `stream: true` its events as they come.
pub async fn run(
    State(server): State<Arc<AppState>>,
    tenant: Tenant,
    Path(id): Path<String>,
    body: JsonObject,
) -> Result<Response, ApiError> {
    let (parts, stream) = crate::input::turn(&body)?;
    let session_row = owned(&server, &tenant, &id).await?;
    let agent = server.agents.get(&session_row.agent).ok_or_else(|| {
        ApiError::conflict("agent_gone", format!("the agent `{}` is no longer served", session_row.agent))
    })?;
    crate::input::check_model(agent.model().as_ref(), &parts)?;
    let input = crate::input::stored(&parts)?;
    within_quotas(&server, &tenant, false, input.bytes as u64).await?;
    let slot = server.runs.reserve(&tenant.0, server.max_runs)?;
    let now = crate::now_ms();
    let row = RunRow {
        id: crate::new_id("run"),
        session_id: id.clone(),
        status: RunStatus::Running,
        result: None,
        error: None,
        created_at: now,
        updated_at: now,
        input: None, // stored from `input` below, shown when read back
    };
    if !server.db.insert_run(&tenant.0, &row, &input, &server.owner, server.lease_until(now)).await? {
        return Err(busy(&id));
    }
    let mut session = match agent.session_with_id(&id).await {
        Ok(s) => s,
        Err(e) => {
            let outcome = crate::events::Outcome::of_error(&e);
            let now = crate::now_ms();
            server.db.finish_run(&row.id, &server.owner, outcome.status, None, outcome.error, Vec::new(), now).await?;
            return Err(e.into());
        }
    };
    // The tools bound what one tenant may hold (the `python` interpreters).
    session.set_owner(Some(tenant.0.clone()));
    crate::runs::start(&server, &row.id, session, crate::runs::Turn::Prompt(parts), 1, slot);
    if stream {
        return stream_events(&server, &row.id, 0);
    }
    let done = wait_for_turn(&server, &tenant, &row.id).await?;
    Ok(axum::Json(super::approvals::run_with_pending(&server, &tenant, &done).await?).into_response())
}
