//! The OpenAI Responses API (`POST /v1/responses`), served strictly.
//!
//! [`ResponsesServer`] answers the `lucid-bench` task the way OpenAI's reasoning models do
//! (a reasoning item with encrypted content and a function call, then the answer) and
//! refuses with a 400, as OpenAI does, every request that breaks the API's rules:
//! tools not in the flat form, `store` not `false` (it keeps nothing between requests, so
//! the whole conversation must come back), a reasoning item it issued missing, altered or
//! not followed by its call, a call it issued sent back without its reasoning, and a
//! `function_call_output` that answers no `function_call` before it.

use std::sync::Mutex;

use bytes::Bytes;
use serde_json::{Value, json};

use crate::{RecordedRequest, Reply};

/// What the server issued: each reasoning item, and the function call it came with.
#[derive(Debug, Default)]
struct Issued {
    pairs: Vec<(Value, Value)>,
    count: u64,
}

/// A strict, stateless Responses server for the `lucid-bench` task.
///
/// ```
/// use lucid_mock::responses::ResponsesServer;
/// let server = ResponsesServer::default();
/// let body = serde_json::json!({"model": "m", "store": false, "input": [], "tools": [{"type": "function", "function": {"name": "add"}}]});
/// let refusal = server.check(&body).unwrap_err();
/// assert!(refusal.contains("tools[0]"));
/// ```
#[derive(Debug, Default)]
pub struct ResponsesServer {
    issued: Mutex<Issued>,
}

fn refuse(message: String) -> Reply {
    Reply::json(
        400,
        &json!({"error": {"message": message, "type": "invalid_request_error", "param": null, "code": null}}),
    )
}

impl ResponsesServer {
    /// Checks a request body against the rules in the module docs.
    pub fn check(&self, body: &Value) -> Result<(), String> {
        if body.get("messages").is_some() {
            return Err("Unsupported parameter: 'messages'. The Responses API takes 'input'.".into());
        }
        if body["store"] != false {
            return Err("This server keeps nothing: send 'store': false and the whole conversation.".into());
        }
        if body.get("previous_response_id").is_some_and(|v| !v.is_null()) {
            return Err("Previous response cannot be used: 'store' is false.".into());
        }
        for (i, t) in body["tools"].as_array().map_or(&[][..], Vec::as_slice).iter().enumerate() {
            if t.get("function").is_some() || !t["name"].is_string() || t["type"] != "function" {
                return Err(format!("Missing required parameter: 'tools[{i}].name'."));
            }
        }
        let input = body["input"].as_array().map_or(&[][..], Vec::as_slice);
        let mut calls_seen = Vec::new();
        for (i, item) in input.iter().enumerate() {
            match item["type"].as_str() {
                Some("function_call") => calls_seen.push(item["call_id"].as_str().unwrap_or_default()),
                Some("function_call_output") => {
                    let id = item["call_id"].as_str().unwrap_or_default();
                    if !calls_seen.contains(&id) {
                        return Err(format!("No tool call found for function call output with call_id {id}."));
                    }
                }
                _ => {}
            }
            if item["type"] == "reasoning" {
                let issued = self.issued.lock().map_err(|_| "server state poisoned".to_string())?;
                let Some((rs, call)) = issued.pairs.iter().find(|(rs, _)| rs["id"] == item["id"]) else {
                    return Err(format!("Item with id '{}' not found.", item["id"]));
                };
                if item != rs {
                    return Err(format!(
                        "Reasoning item '{}' was altered (its encrypted_content must come back as sent).",
                        item["id"]
                    ));
                }
                if input.get(i + 1).is_none_or(|next| next["call_id"] != call["call_id"]) {
                    return Err(format!(
                        "Item '{}' of type 'reasoning' was provided without its required following item.",
                        item["id"]
                    ));
                }
            }
        }
        let issued = self.issued.lock().map_err(|_| "server state poisoned".to_string())?;
        for (rs, call) in &issued.pairs {
            let sent = input.iter().any(|i| i["type"] == "function_call" && i["call_id"] == call["call_id"]);
            let with_reasoning = input.iter().any(|i| i["type"] == "reasoning" && i["id"] == rs["id"]);
            if sent && !with_reasoning {
                return Err(format!(
                    "Item '{}' of type 'function_call' was provided without its required 'reasoning' item: '{}'.",
                    call["id"], rs["id"]
                ));
            }
        }
        Ok(())
    }

    /// The reply to one request: a 400 for a broken rule, else a reasoning item and a
    /// tool call (`calculator` when offered, else `add`), then the answer once the input
    /// holds a tool result; streamed when the body says `"stream": true`.
    pub fn reply(&self, req: &RecordedRequest) -> Reply {
        let body = req.json();
        if let Err(message) = self.check(&body) {
            return refuse(message);
        }
        let input = body["input"].as_array().map_or(&[][..], Vec::as_slice);
        let answered = input.iter().any(|i| i["type"] == "function_call_output");
        let stream = body["stream"] == true;
        let output = if answered {
            vec![json!({"id": "msg_mock_answer", "type": "message", "status": "completed", "role": "assistant",
                        "content": [{"type": "output_text", "text": "The answer is 5.", "annotations": []}]})]
        } else {
            let Ok(mut issued) = self.issued.lock() else {
                return refuse("server state poisoned".into());
            };
            issued.count += 1;
            let n = issued.count;
            let offered = |name: &str| body["tools"].as_array().is_some_and(|t| t.iter().any(|t| t["name"] == name));
            let (name, args) = if offered("calculator") {
                ("calculator", r#"{"expression":"2+3"}"#)
            } else {
                ("add", r#"{"a":2,"b":3}"#)
            };
            let rs = json!({"id": format!("rs_mock_{n}"), "type": "reasoning",
                            "summary": [{"type": "summary_text", "text": "Adding two numbers: a tool call."}],
                            "encrypted_content": format!("gAAAAB-mock-{n}-{}", "x".repeat(24))});
            let call = json!({"id": format!("fc_mock_{n}"), "type": "function_call", "status": "completed",
                              "call_id": format!("call_mock_{n}"), "name": name, "arguments": args});
            issued.pairs.push((rs.clone(), call.clone()));
            vec![rs, call]
        };
        let response = json!({
            "id": "resp_mock", "object": "response", "status": "completed", "model": body["model"],
            "output": output, "store": false,
            "usage": {"input_tokens": 40, "input_tokens_details": {"cached_tokens": 32},
                      "output_tokens": 12, "output_tokens_details": {"reasoning_tokens": 6}, "total_tokens": 52}
        });
        if stream {
            Reply::Sse { chunks: stream_events(&response), delay: std::time::Duration::ZERO, cut: false }
        } else {
            Reply::json(200, &response)
        }
    }
}

/// The SSE events that stream `response` (a complete `response` object): each item added,
/// its text or arguments in two deltas, done, then `response.completed`.
///
/// ```
/// let r = serde_json::json!({"status": "completed", "output": [], "usage": null});
/// let chunks = lucid_mock::responses::stream_events(&r);
/// assert!(String::from_utf8_lossy(&chunks[chunks.len() - 1]).contains("response.completed"));
/// ```
pub fn stream_events(response: &Value) -> Vec<Bytes> {
    let mut seq = 0u64;
    let mut events = Vec::new();
    let mut push = |kind: &str, mut data: Value| {
        data["type"] = json!(kind);
        data["sequence_number"] = json!(seq);
        seq += 1;
        events.push(Bytes::from(format!("event: {kind}\ndata: {data}\n\n")));
    };
    let mut in_progress = response.clone();
    in_progress["status"] = json!("in_progress");
    in_progress["output"] = json!([]);
    in_progress["usage"] = Value::Null;
    push("response.created", json!({"response": in_progress}));
    for (ix, item) in response["output"].as_array().map_or(&[][..], Vec::as_slice).iter().enumerate() {
        let id = item["id"].clone();
        let halves = |s: &str| {
            let mid = (0..=s.len() / 2).rev().find(|m| s.is_char_boundary(*m)).unwrap_or(0);
            (s[..mid].to_string(), s[mid..].to_string())
        };
        match item["type"].as_str() {
            Some("function_call") => {
                let mut added = item.clone();
                added["arguments"] = json!("");
                added["status"] = json!("in_progress");
                push("response.output_item.added", json!({"output_index": ix, "item": added}));
                let args = item["arguments"].as_str().unwrap_or_default();
                let (a, b) = halves(args);
                for d in [a, b] {
                    push(
                        "response.function_call_arguments.delta",
                        json!({"output_index": ix, "item_id": id, "delta": d}),
                    );
                }
                push(
                    "response.function_call_arguments.done",
                    json!({"output_index": ix, "item_id": id, "name": item["name"], "arguments": args}),
                );
            }
            Some("message") => {
                let mut added = item.clone();
                added["content"] = json!([]);
                added["status"] = json!("in_progress");
                push("response.output_item.added", json!({"output_index": ix, "item": added}));
                let text = item["content"][0]["text"].as_str().unwrap_or_default();
                let (a, b) = halves(text);
                for d in [a, b] {
                    push(
                        "response.output_text.delta",
                        json!({"output_index": ix, "item_id": id, "content_index": 0, "delta": d, "logprobs": []}),
                    );
                }
            }
            _ => {
                let mut added = item.clone();
                added["summary"] = json!([]);
                push("response.output_item.added", json!({"output_index": ix, "item": added}));
                for (si, s) in item["summary"].as_array().map_or(&[][..], Vec::as_slice).iter().enumerate() {
                    push(
                        "response.reasoning_summary_text.delta",
                        json!({"output_index": ix, "item_id": id, "summary_index": si, "delta": s["text"]}),
                    );
                }
            }
        }
        push("response.output_item.done", json!({"output_index": ix, "item": item}));
    }
    push("response.completed", json!({"response": response}));
    events
}
