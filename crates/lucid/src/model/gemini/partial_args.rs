//! Vertex AI's streamed `partialArgs`: a call's arguments sent as pieces addressed by JSON
//! path, assembled into one object.

use serde_json::{Value, json};

/// A call whose arguments arrive as `partialArgs` (Vertex AI).
#[derive(Debug)]
pub(super) struct PartialCall {
    pub(super) id: Option<String>,
    pub(super) name: String,
    pub(super) args: Value,
    pub(super) signature: Option<String>,
}

/// Sets one `partialArgs` entry: `jsonPath` like `$.recipe.ingredients[3].name`; string
/// values for the same path are concatenated.
pub(super) fn apply_partial(args: &mut Value, arg: &Value) {
    let Some(path) = arg["jsonPath"].as_str().and_then(|p| p.strip_prefix('$')) else { return };
    let mut keys: Vec<Result<usize, String>> = Vec::new();
    for seg in path.split('.').filter(|s| !s.is_empty()) {
        let (name, rest) = seg.split_once('[').map_or((seg, ""), |(n, r)| (n, r));
        if !name.is_empty() {
            keys.push(Err(name.to_string()));
        }
        for idx in rest.split('[').filter(|s| !s.is_empty()) {
            if let Ok(i) = idx.trim_end_matches(']').parse::<usize>() {
                keys.push(Ok(i));
            }
        }
    }
    let mut node = args;
    for key in keys {
        node = match key {
            Err(name) => {
                if !node.is_object() {
                    *node = json!({});
                }
                node.as_object_mut().map(|m| m.entry(name).or_insert(Value::Null)).unwrap_or_else(|| unreachable!())
            }
            Ok(i) => {
                if !node.is_array() {
                    *node = json!([]);
                }
                let arr = node.as_array_mut().unwrap_or_else(|| unreachable!());
                while arr.len() <= i {
                    arr.push(Value::Null);
                }
                &mut arr[i]
            }
        };
    }
    if let Some(s) = arg.get("stringValue").and_then(Value::as_str) {
        match node {
            Value::String(existing) => existing.push_str(s),
            other => *other = json!(s),
        }
    } else if let Some(n) = arg.get("numberValue") {
        *node = n.clone();
    } else if let Some(b) = arg.get("boolValue") {
        *node = b.clone();
    } else if arg.get("nullValue").is_some() {
        *node = Value::Null;
    }
}
