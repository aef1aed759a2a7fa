//! Every error the API answers, in one shape, OpenAI's: `{"error": {"message", "type",
//! "param", "code"}}`, `param` the request's field at fault (`null` when none is).

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;

/// An error answered to a client: an HTTP status and the body's three fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    /// The HTTP status.
    pub status: StatusCode,
    /// What went wrong, in words a client can act on (never a secret).
    pub message: String,
    /// The error's family: `invalid_request_error`, `authentication_error`,
    /// `permission_error`, `not_found_error`, `conflict_error`, `rate_limit_error`,
    /// `server_error`.
    pub kind: &'static str,
    /// A stable machine-readable code (`invalid_field`, `session_busy`…).
    pub code: &'static str,
    /// The request's field at fault (`input`, `messages[3].content`), when one is.
    pub param: Option<String>,
    /// Seconds a client should wait before trying again (429 and 503).
    pub retry_after: Option<u64>,
}

impl ApiError {
    fn new(status: StatusCode, kind: &'static str, code: &'static str, message: impl Into<String>) -> Self {
        ApiError { status, message: message.into(), kind, code, param: None, retry_after: None }
    }

    /// 400: a field of the request is missing or wrong; the message names it.
    pub fn invalid(field: &str, problem: &str) -> Self {
        let mut e = Self::new(
            StatusCode::BAD_REQUEST,
            "invalid_request_error",
            "invalid_field",
            format!("`{field}`: {problem}"),
        );
        e.param = Some(field.to_string());
        e
    }

    /// 400: the body is not JSON (or not an object).
    pub fn malformed(problem: impl std::fmt::Display) -> Self {
        Self::new(
            StatusCode::BAD_REQUEST,
            "invalid_request_error",
            "invalid_json",
            format!("the body is not a JSON object: {problem}"),
        )
    }

    /// 401: no key, or a key the server does not know.
    pub fn unauthorized() -> Self {
        Self::new(
            StatusCode::UNAUTHORIZED,
            "authentication_error",
            "invalid_api_key",
            "a valid API key is required: send `Authorization: Bearer KEY`",
        )
    }

    /// 403: the request came through a door the server keeps shut (an `Origin` not listed,
    /// a `Host` that is not this loopback server); `code` says which.
    pub fn forbidden(code: &'static str, message: impl Into<String>) -> Self {
        Self::new(StatusCode::FORBIDDEN, "permission_error", code, message)
    }

    /// 415: a body that is not labelled `application/json`.
    pub fn not_json() -> Self {
        Self::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "invalid_request_error",
            "unsupported_media_type",
            "the body must be sent with `Content-Type: application/json`",
        )
    }

    /// 404: nothing of that kind with that id for this tenant.
    pub fn not_found(what: &str, id: &str) -> Self {
        Self::new(StatusCode::NOT_FOUND, "not_found_error", "not_found", format!("no {what} `{id}`"))
    }

    /// 409: the resource is in a state that forbids the request.
    pub fn conflict(code: &'static str, message: impl Into<String>) -> Self {
        Self::new(StatusCode::CONFLICT, "conflict_error", code, message)
    }

    /// 413: the body is over the limit.
    pub fn too_large(limit: usize) -> Self {
        Self::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "invalid_request_error",
            "body_too_large",
            format!("the body is over the limit of {limit} bytes"),
        )
    }

    /// 408: the body did not arrive within the time allowed.
    pub fn body_timeout(limit: std::time::Duration) -> Self {
        Self::new(
            StatusCode::REQUEST_TIMEOUT,
            "invalid_request_error",
            "body_timeout",
            format!("the body did not arrive within {} s", limit.as_secs()),
        )
    }

    /// 429: the tenant already has as many runs going as it may.
    pub fn too_many_runs(cap: usize) -> Self {
        let mut e = Self::new(
            StatusCode::TOO_MANY_REQUESTS,
            "rate_limit_error",
            "too_many_runs",
            format!("this key already has {cap} runs going; try again when one ends"),
        );
        e.retry_after = Some(1);
        e
    }

    /// 429: the tenant keeps as much as it may (`what` names the limit); nothing frees
    /// on its own, so no `Retry-After`.
    pub fn quota(what: &str) -> Self {
        Self::new(StatusCode::TOO_MANY_REQUESTS, "rate_limit_error", "quota_exceeded", what.to_string())
    }

    /// 429: as many clients as may read this run's events already do.
    pub fn too_many_readers(cap: usize) -> Self {
        let mut e = Self::new(
            StatusCode::TOO_MANY_REQUESTS,
            "rate_limit_error",
            "too_many_readers",
            format!(
                "{cap} clients already read this run's events (the limit of readers per run); try again when one stops"
            ),
        );
        e.retry_after = Some(1);
        e
    }

    /// 413: a session's metadata is over the limit.
    pub fn metadata_too_large(bytes: usize, limit: usize) -> Self {
        Self::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "invalid_request_error",
            "metadata_too_large",
            format!("`metadata`: {bytes} bytes as JSON, over the limit of {limit} bytes per session"),
        )
    }

    /// 503: the server is stopping, or its database does not answer.
    pub fn unavailable(message: impl Into<String>) -> Self {
        let mut e = Self::new(StatusCode::SERVICE_UNAVAILABLE, "server_error", "unavailable", message);
        e.retry_after = Some(1);
        e
    }

    /// 500: something failed on the server's side; the message is redacted of secrets.
    pub fn internal(message: impl std::fmt::Display) -> Self {
        let message = lucid::redact::redact(&message.to_string()).into_owned();
        tracing::error!("{message}");
        Self::new(StatusCode::INTERNAL_SERVER_ERROR, "server_error", "internal", message)
    }

    /// The body: `{"error": {"message", "type", "param", "code"}}`.
    pub fn body(&self) -> serde_json::Value {
        json!({"error": {"message": self.message, "type": self.kind, "param": self.param, "code": self.code}})
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}: {}", self.status.as_u16(), self.code, self.message)
    }
}

impl std::error::Error for ApiError {}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response = (self.status, axum::Json(self.body())).into_response();
        if let Some(secs) = self.retry_after {
            response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
        response
    }
}

impl From<crate::db::DbError> for ApiError {
    fn from(e: crate::db::DbError) -> Self {
        ApiError::internal(e)
    }
}

impl From<lucid::store::StoreError> for ApiError {
    fn from(e: lucid::store::StoreError) -> Self {
        lucid::Error::from(e).into()
    }
}

impl From<lucid::Error> for ApiError {
    fn from(e: lucid::Error) -> Self {
        match e {
            lucid::Error::Store(lucid::store::StoreError::Busy { id, .. }) => {
                ApiError::conflict("session_busy", format!("session `{id}` already has a run going"))
            }
            other => ApiError::internal(other),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_invalid_field_is_a_400_naming_it() {
        let e = ApiError::invalid("input", "required, a string");
        assert_eq!(e.status.as_u16(), 400);
        assert_eq!(e.message, "`input`: required, a string");
        assert_eq!(e.body()["error"]["param"], "input");
    }

    #[test]
    fn every_body_has_a_param_null_when_no_field_is_at_fault() {
        let body = ApiError::unauthorized().body();
        let error = body["error"].as_object().unwrap();
        assert_eq!(error.get("param"), Some(&serde_json::Value::Null), "{body}");
        let keys: Vec<&str> = error.keys().map(String::as_str).collect();
        assert_eq!(keys.len(), 4, "message, type, param, code: {keys:?}");
    }
}
