//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::PathBuf;

use serde_json::{Value, json};

use lucid::model::ChatResponse;
use lucid::{ProviderError, Usage};

/// The recorded provider traffic folder, or `None` (with the reason printed) when
/// `LUCID_PROVIDER_FIXTURES` is unset.
pub fn fixtures_dir() -> Option<PathBuf> {
    match std::env::var_os("LUCID_PROVIDER_FIXTURES") {
        Some(p) => Some(PathBuf::from(p)),
        None => {
            eprintln!("skipped: LUCID_PROVIDER_FIXTURES is not set (.ci/run sets it to ../shared/fixtures/providers)");
            None
        }
    }
}

/// Usage in the normalized shape of the fixtures' `expected.json`.
pub fn usage_json(u: &Usage) -> Value {
    let mut v = json!({"input_tokens": u.input_tokens, "output_tokens": u.output_tokens});
    if u.reasoning_tokens > 0 {
        v["reasoning_tokens"] = json!(u.reasoning_tokens);
    }
    if u.cached_input_tokens > 0 {
        v["cached_input_tokens"] = json!(u.cached_input_tokens);
    }
    v
}

/// Compares a decoded response with an `expected.json`, returning the differences.
pub fn compare_response(r: &ChatResponse, expected: &Value) -> Vec<String> {
    let mut diffs = Vec::new();
    let mut check = |what: &str, ours: Value, theirs: &Value| {
        if &ours != theirs {
            diffs.push(format!("{what}: got {ours}, expected {theirs}"));
        }
    };
    check("text", json!(r.message.content), &expected["text"]);
    check("finish_reason", json!(r.finish_reason.map(|f| f.as_str())), &expected["finish_reason"]);
    check("raw_finish_reason", json!(r.raw_finish_reason), &expected["raw_finish_reason"]);
    check("usage", r.usage.as_ref().map_or(Value::Null, usage_json), &expected["usage"]);
    let reasoning = r.message.reasoning.as_ref().map(|x| x.text.clone()).filter(|t| !t.is_empty());
    check("reasoning", json!(reasoning), expected.get("reasoning").unwrap_or(&Value::Null));
    let want = expected["tool_calls"].as_array().cloned().unwrap_or_default();
    if want.len() != r.message.tool_calls.len() {
        diffs.push(format!("tool_calls: got {}, expected {}", r.message.tool_calls.len(), want.len()));
        return diffs;
    }
    for (i, (c, w)) in r.message.tool_calls.iter().zip(&want).enumerate() {
        match w["id"].as_str() {
            Some(id) if id != c.id => diffs.push(format!("tool_calls[{i}].id: got {}, expected {id}", c.id)),
            None if !c.id.starts_with("call_") || c.id.len() < 10 => {
                diffs.push(format!("tool_calls[{i}].id: expected a minted id, got {:?}", c.id))
            }
            _ => {}
        }
        if w["name"] != json!(c.name) {
            diffs.push(format!("tool_calls[{i}].name: got {}, expected {}", c.name, w["name"]));
        }
        match (&w["arguments"], c.parse_arguments()) {
            (Value::Null, Err(_)) => {
                if w["arguments_raw"] != json!(c.arguments) {
                    diffs.push(format!(
                        "tool_calls[{i}].arguments_raw: got {:?}, expected {}",
                        c.arguments, w["arguments_raw"]
                    ));
                }
            }
            (want, Ok(got)) if want == &got => {}
            (want, got) => diffs.push(format!("tool_calls[{i}].arguments: got {got:?}, expected {want}")),
        }
    }
    diffs
}

/// Compares a decoded error with an `expected.json` error object.
pub fn compare_error(e: &ProviderError, expected: &Value) -> Vec<String> {
    let mut diffs = Vec::new();
    let mut check = |what: &str, ours: Value, theirs: Option<&Value>| {
        let theirs = theirs.unwrap_or(&Value::Null);
        if &ours != theirs {
            diffs.push(format!("error.{what}: got {ours}, expected {theirs}"));
        }
    };
    check("status", json!(e.status), expected.get("status"));
    check("type", json!(e.error_type), expected.get("type"));
    check("code", json!(e.code), expected.get("code"));
    check("message", json!(e.message), expected.get("message"));
    check("retryable", json!(e.retryable), expected.get("retryable"));
    if let Some(secs) = expected.get("retry_after_seconds").and_then(Value::as_f64) {
        check("retry_after_seconds", json!(e.retry_after.map(|d| d.as_secs_f64())), Some(&json!(secs)));
    }
    diffs
}
