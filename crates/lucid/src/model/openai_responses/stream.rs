//! The Responses API's typed stream events into [`StreamEvent`]s.
//!
//! Each output item has its `output_index`; fragments find their item by it, falling back
//! to the item id. The answer is built from the items as `response.output_item.done`
//! delivered them (only then is a reasoning item's `encrypted_content` complete); an item
//! that never got its `done` is kept as far as it came, and a function call among those is
//! reported incomplete so it is never executed. Usage comes from the terminal event
//! (`response.completed`, or `response.incomplete`), never from a sum.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::model::ProviderError;
use crate::model::error::{ModelError, Result};
use crate::model::http::StreamDecoder;
use crate::model::sse::SseEvent;
use crate::model::stream::Assembler;
use crate::model::{ChatResponse, StreamEvent};

use super::{from_output, raw_finish, response_error, usage};

/// One output item as far as the stream has delivered it.
#[derive(Debug, Default)]
struct Item {
    id: Option<String>,
    kind: String,
    call_id: Option<String>,
    name: Option<String>,
    arguments: String,
    text: String,
    done: Option<Value>,
}

/// Decodes a Responses SSE stream.
///
/// ```
/// use lucid::model::{http::StreamDecoder, openai_responses::ResponsesStreamDecoder, sse::SseEvent};
/// let mut d = ResponsesStreamDecoder::new("openai");
/// let mut out = Vec::new();
/// for data in [
///     r#"{"type":"response.output_text.delta","output_index":0,"item_id":"msg_1","content_index":0,"delta":"Hel"}"#,
///     r#"{"type":"response.output_text.delta","output_index":0,"item_id":"msg_1","content_index":0,"delta":"lo"}"#,
///     r#"{"type":"response.completed","response":{"status":"completed","output":[],"usage":{"input_tokens":3,"output_tokens":2}}}"#,
/// ] {
///     d.event(&SseEvent { event: None, data: data.into() }, &mut out).unwrap();
/// }
/// let r = d.finish().unwrap();
/// assert_eq!(r.message.content, "Hello");
/// assert_eq!(r.usage.unwrap().input_tokens, 3);
/// ```
#[derive(Debug)]
pub struct ResponsesStreamDecoder {
    provider: String,
    asm: Assembler,
    items: BTreeMap<u64, Item>,
    terminal: Option<Value>,
    model: Option<String>,
}

impl ResponsesStreamDecoder {
    /// A decoder for one stream from `provider`.
    pub fn new(provider: &str) -> Self {
        ResponsesStreamDecoder {
            provider: provider.to_string(),
            asm: Assembler::default(),
            items: BTreeMap::new(),
            terminal: None,
            model: None,
        }
    }

    /// The output index of an event: its own, or the one of the item it names.
    fn index(&self, e: &Value) -> Option<u64> {
        e["output_index"].as_u64().or_else(|| {
            let id = e["item_id"].as_str()?;
            self.items.iter().find(|(_, it)| it.id.as_deref() == Some(id)).map(|(ix, _)| *ix)
        })
    }

    /// Records an item (`added` or `done`) and reports a function call's start.
    fn item(&mut self, ix: u64, v: &Value, done: bool, out: &mut Vec<StreamEvent>) {
        let slot = self.items.entry(ix).or_default();
        let s = |k: &str| v[k].as_str().filter(|s| !s.is_empty()).map(str::to_string);
        slot.id = slot.id.take().or_else(|| s("id"));
        if slot.kind.is_empty() {
            slot.kind = v["type"].as_str().unwrap_or_default().to_string();
        }
        if slot.kind == "function_call" {
            slot.call_id = slot.call_id.take().or_else(|| s("call_id"));
            slot.name = slot.name.take().or_else(|| s("name"));
            let (call_id, name) = (slot.call_id.clone(), slot.name.clone());
            // Arguments the deltas have not delivered yet (all of them, from a server that
            // sends none).
            let full = v["arguments"].as_str().unwrap_or_default();
            let rest = full.strip_prefix(slot.arguments.as_str()).unwrap_or_default().to_string();
            slot.arguments.push_str(&rest);
            self.asm.tool_call(Some(ix), call_id.as_deref(), name.as_deref(), Some(&rest), out);
        }
        if done {
            self.items.entry(ix).or_default().done = Some(v.clone());
        }
    }
}

impl StreamDecoder for ResponsesStreamDecoder {
    fn event(&mut self, event: &SseEvent, out: &mut Vec<StreamEvent>) -> Result<()> {
        let data = event.data.trim();
        if data.is_empty() || data == "[DONE]" {
            return Ok(());
        }
        let e: Value = serde_json::from_str(data).map_err(|err| ModelError::Decode {
            provider: self.provider.clone(),
            message: format!("{err} in stream event {}", &data[..data.floor_char_boundary(300)]),
        })?;
        let kind = e["type"].as_str().or(event.event.as_deref()).unwrap_or_default();
        match kind {
            "response.created" | "response.in_progress" => {
                if let Some(m) = e["response"]["model"].as_str() {
                    self.model.get_or_insert_with(|| m.to_string());
                }
            }
            "response.output_item.added" | "response.output_item.done" => {
                if let Some(ix) = self.index(&e) {
                    self.item(ix, &e["item"], kind.ends_with("done"), out);
                }
            }
            "response.output_text.delta" | "response.refusal.delta" => {
                let delta = e["delta"].as_str().unwrap_or_default();
                if let Some(ix) = self.index(&e) {
                    let slot = self.items.entry(ix).or_default();
                    if slot.kind.is_empty() {
                        slot.kind = "message".into();
                    }
                    slot.text.push_str(delta);
                }
                self.asm.text(delta, out);
            }
            "response.reasoning_summary_text.delta" | "response.reasoning_text.delta" => {
                self.asm.reasoning(e["delta"].as_str().unwrap_or_default(), out);
            }
            "response.function_call_arguments.delta" | "response.function_call_arguments.done" => {
                let Some(ix) = self.index(&e) else { return Ok(()) };
                let slot = self.items.entry(ix).or_default();
                let piece = if kind.ends_with("delta") {
                    e["delta"].as_str().unwrap_or_default().to_string()
                } else {
                    let full = e["arguments"].as_str().unwrap_or_default();
                    full.strip_prefix(slot.arguments.as_str()).unwrap_or_default().to_string()
                };
                slot.arguments.push_str(&piece);
                let (call_id, name) = (slot.call_id.clone(), slot.name.clone());
                self.asm.tool_call(Some(ix), call_id.as_deref(), name.as_deref(), Some(&piece), out);
            }
            "response.completed" | "response.incomplete" => self.terminal = Some(e["response"].clone()),
            "response.failed" => return Err(response_error(&self.provider, &e["response"]).into()),
            "error" => {
                let message = e["message"].as_str().map_or_else(|| e.to_string(), str::to_string);
                let mut err = ProviderError::new(&self.provider, None, message);
                err.mid_stream = true;
                if let Some(code) = e["code"].as_str() {
                    err = err.with_type(code).with_code(code);
                }
                return Err(err.into());
            }
            _ => {}
        }
        Ok(())
    }

    fn finish(self) -> Result<ChatResponse> {
        let Some(response) = self.terminal else {
            return Err(ModelError::StreamTruncated {
                provider: self.provider,
                message: "the body ended without response.completed or response.incomplete".into(),
            });
        };
        let mut incomplete = Vec::new();
        let mut items = Vec::with_capacity(self.items.len());
        for (_, it) in self.items {
            match it.done {
                Some(done) => {
                    if done["type"] == "function_call" && done["status"] == "incomplete" {
                        incomplete.extend(done["call_id"].as_str().map(str::to_string));
                    }
                    items.push(done);
                }
                // Cut before its `done`: a reasoning item's encrypted content is not
                // whole, so it is left out; text is kept; a call is never run.
                None => match it.kind.as_str() {
                    "message" if !it.text.is_empty() => items.push(json!({
                        "type": "message", "role": "assistant", "status": "incomplete",
                        "content": [{"type": "output_text", "text": it.text, "annotations": []}]
                    })),
                    "function_call" => {
                        let call_id = it.call_id.unwrap_or_default();
                        incomplete.push(call_id.clone());
                        items.push(json!({
                            "type": "function_call", "call_id": call_id, "name": it.name.unwrap_or_default(),
                            "arguments": it.arguments, "status": "incomplete"
                        }));
                    }
                    _ => {}
                },
            }
        }
        let model = response["model"].as_str().map(str::to_string).or(self.model);
        Ok(from_output(items, incomplete, raw_finish(&response), usage(&response["usage"]), model))
    }
}
