//! Request bodies: JSON objects within the size limit, their fields checked one by one so
//! a 400 names the field that is wrong.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use axum::http::StatusCode;
use serde_json::{Map, Value};

use crate::{ApiError, AppState};

/// A request body that is a JSON object.
#[derive(Debug, Default)]
pub struct JsonObject(pub Map<String, Value>);

impl FromRequest<Arc<AppState>> for JsonObject {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &Arc<AppState>) -> Result<Self, Self::Rejection> {
        // A client sending its body slowly holds a connection: it has a time limit too.
        let read = tokio::time::timeout(state.body_timeout, Bytes::from_request(req, state));
        let bytes = read.await.map_err(|_| ApiError::body_timeout(state.body_timeout))?.map_err(|e| {
            if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
                ApiError::too_large(state.body_limit)
            } else {
                ApiError::malformed(e.body_text())
            }
        })?;
        match serde_json::from_slice::<Value>(&bytes) {
            Ok(Value::Object(map)) => Ok(JsonObject(map)),
            Ok(other) => Err(ApiError::malformed(format!("it is {}", kind(&other)))),
            Err(e) => Err(ApiError::malformed(e)),
        }
    }
}

/// What a JSON value is, in words (`a number`, `an array`…).
pub fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

impl JsonObject {
    /// Refuses fields other than `known`.
    pub fn only(&self, known: &[&str]) -> Result<(), ApiError> {
        match self.0.keys().find(|k| !known.contains(&k.as_str())) {
            Some(k) => Err(ApiError::invalid(k, &format!("unknown field (fields: {})", known.join(", ")))),
            None => Ok(()),
        }
    }

    /// A required non-empty string.
    pub fn text(&self, field: &str) -> Result<&str, ApiError> {
        match self.0.get(field) {
            Some(Value::String(s)) if !s.trim().is_empty() => Ok(s),
            Some(Value::String(_)) => Err(ApiError::invalid(field, "must not be empty")),
            Some(other) => Err(ApiError::invalid(field, &format!("must be a string, not {}", kind(other)))),
            None => Err(ApiError::invalid(field, "required")),
        }
    }

    /// An optional boolean (false when absent or null).
    pub fn flag(&self, field: &str) -> Result<bool, ApiError> {
        match self.0.get(field) {
            None | Some(Value::Null) => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(other) => Err(ApiError::invalid(field, &format!("must be true or false, not {}", kind(other)))),
        }
    }

    /// An optional object (empty when absent or null).
    pub fn object(&self, field: &str) -> Result<Value, ApiError> {
        match self.0.get(field) {
            None | Some(Value::Null) => Ok(Value::Object(Map::new())),
            Some(v @ Value::Object(_)) => Ok(v.clone()),
            Some(other) => Err(ApiError::invalid(field, &format!("must be an object, not {}", kind(other)))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_wrong_field_is_named() {
        let body =
            JsonObject(serde_json::from_str(r#"{"input": 3, "stream": "yes", "metadata": [], "x": 1}"#).unwrap());
        assert_eq!(body.text("input").unwrap_err().message, "`input`: must be a string, not a number");
        assert_eq!(body.text("agent").unwrap_err().message, "`agent`: required");
        assert_eq!(body.flag("stream").unwrap_err().message, "`stream`: must be true or false, not a string");
        assert_eq!(body.object("metadata").unwrap_err().message, "`metadata`: must be an object, not an array");
        assert!(body.only(&["input", "stream", "metadata"]).unwrap_err().message.starts_with("`x`: unknown field"));
        assert!(!body.flag("absent").unwrap());
    }
}
