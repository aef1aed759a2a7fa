//! The routes, one module per resource: `sessions` (CRUD and starting runs), `runs`
//! (status, events, cancel, input), `approvals` (answers to calls waiting), `openai` (the Chat Completions and Responses facades), `agui` (runs as AG-UI events) and the operational endpoints
//! here (`/healthz`, `/readyz`, `/metrics`); what the first two share is in `shared`.

mod agui;
mod approvals;
mod openai;
mod runs;
mod sessions;
mod shared;

use std::sync::Arc;

use axum::Router;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::json;

use crate::{ApiError, AppState};

/// Every route of the API.
pub fn router(server: Arc<AppState>) -> Router {
    let limit = server.body_limit;
    Router::new()
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
        .route("/metrics", get(metrics))
        .route("/v1/sessions", post(sessions::create).get(sessions::list))
        .route("/v1/sessions/{id}", get(sessions::show).delete(sessions::delete))
        .route("/v1/sessions/{id}/runs", post(sessions::run))
        .route("/v1/runs/{id}", get(runs::show))
        .route("/v1/runs/{id}/events", get(runs::events))
        .route("/v1/runs/{id}/cancel", post(runs::cancel))
        .route("/v1/runs/{id}/input", post(runs::input))
        .route("/v1/runs/{id}/approvals", post(approvals::answer))
        .route("/v1/models", get(openai::models))
        .route("/v1/models/{id}", get(openai::model))
        .route("/v1/chat/completions", post(openai::chat_completions))
        .route("/v1/responses", post(openai::responses::create))
        .route("/v1/responses/{id}", get(openai::responses::show).delete(openai::responses::delete))
        .route("/v1/agui/{agent}", post(agui::run))
        .fallback(|method: Method, uri: Uri| async move {
            ApiError::not_found("route", &format!("{method} {}", uri.path()))
        })
        .method_not_allowed_fallback(|| async {
            ApiError {
                status: StatusCode::METHOD_NOT_ALLOWED,
                param: None,
                ..ApiError::invalid("method", "not allowed on this path")
            }
        })
        .layer(DefaultBodyLimit::max(limit))
        .layer(axum::middleware::from_fn_with_state(Arc::clone(&server), crate::edge::guard))
        .with_state(server)
}

async fn healthz() -> Response {
    axum::Json(json!({"status": "ok"})).into_response()
}

async fn readyz(State(server): State<Arc<AppState>>) -> Response {
    match server.db.ping().await {
        Ok(()) => axum::Json(json!({"status": "ready"})).into_response(),
        Err(e) => {
            tracing::warn!("not ready: {e}");
            ApiError::unavailable("the database does not answer").into_response()
        }
    }
}

/// Needs a key when keys are set (the tenant itself plays no part: the numbers are the
/// server's).
async fn metrics(State(server): State<Arc<AppState>>, _: crate::Tenant) -> Response {
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8")], server.metrics.render(server.runs.active()))
        .into_response()
}
