//! A response streamed as OpenAI streams one: typed Server-Sent Events (`event:` the
//! type, `data:` the JSON with its `type` and `sequence_number`) in OpenAI's order —
//! `response.created`, `response.in_progress`; the message's `response.output_item.added`,
//! `response.content_part.added`, `response.output_text.delta`s, `.output_text.done`,
//! `.content_part.done`, `.output_item.done`; each call to a client's tool as an item
//! with `response.function_call_arguments.delta` and `.done`; then `response.completed`
//! (or `response.failed`). No `[DONE]`: the Responses API ends with the stream.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Instant;

use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use lucid::{AgentEvent, AgentResult, Session, StopReason};
use serde_json::{Value, json};
use tokio::sync::mpsc;

use super::{Head, call_item, client_calls, message_item, stored, text_part};
use crate::events::Outcome;
use crate::runs::Slot;
use crate::{AppState, Tenant};

/// Numbers the events and sends them while the client reads.
struct Events {
    tx: mpsc::Sender<(&'static str, Value)>,
    seq: u64,
    open: bool,
}

impl Events {
    async fn send(&mut self, kind: &'static str, mut data: Value) {
        data["type"] = json!(kind);
        data["sequence_number"] = json!(self.seq);
        self.seq += 1;
        self.open = self.open && self.tx.send((kind, data)).await.is_ok();
    }
}

/// The assistant's message as it streams: its id and text so far.
struct Message {
    id: String,
    text: String,
}

impl Message {
    /// Opens the message item (output 0) and its text part.
    async fn open(events: &mut Events, id: String) -> Message {
        let item = message_item(&id, "", "in_progress");
        events.send("response.output_item.added", json!({"output_index": 0, "item": item})).await;
        let part = json!({"item_id": id, "output_index": 0, "content_index": 0, "part": text_part("")});
        events.send("response.content_part.added", part).await;
        Message { id, text: String::new() }
    }

    async fn delta(&mut self, events: &mut Events, text: &str) {
        self.text.push_str(text);
        let delta = json!({"item_id": self.id, "output_index": 0, "content_index": 0, "delta": text, "logprobs": []});
        events.send("response.output_text.delta", delta).await;
    }

    /// Closes the text, the part and the item; the item as done.
    async fn close(self, events: &mut Events) -> Value {
        let at = json!({"item_id": self.id, "output_index": 0, "content_index": 0});
        let mut done = at.clone();
        done["text"] = json!(self.text);
        done["logprobs"] = json!([]);
        events.send("response.output_text.done", done).await;
        let mut part = at;
        part["part"] = text_part(&self.text);
        events.send("response.content_part.done", part).await;
        let item = message_item(&self.id, &self.text, "completed");
        events.send("response.output_item.done", json!({"output_index": 0, "item": item.clone()})).await;
        item
    }
}

/// Runs the turn in a task of its own and answers with its events as they come.
pub fn answer(
    server: Arc<AppState>,
    tenant: Tenant,
    mut session: Session,
    prompt: Option<Vec<lucid::Part>>,
    head: Head,
    slot: Slot,
    started: Instant,
) -> Response {
    let (tx, rx) = mpsc::channel::<(&'static str, Value)>(64);
    tokio::spawn(async move {
        let _slot = slot;
        let mut events = Events { tx, seq: 0, open: true };
        events.send("response.created", json!({"response": head.started()})).await;
        events.send("response.in_progress", json!({"response": head.started()})).await;
        let canceller = session.canceller();
        let mut message: Option<Message> = None;
        let mut finished: Option<AgentResult> = None;
        {
            let mut run = crate::routes::shared::prompt_or_resume(&mut session, prompt);
            while let Some(event) = run.next().await {
                match event {
                    AgentEvent::TextDelta(t) => {
                        let m = match &mut message {
                            Some(m) => m,
                            None => message.insert(Message::open(&mut events, head.message_id()).await),
                        };
                        m.delta(&mut events, &lucid::redact::redact(&t)).await;
                    }
                    AgentEvent::ToolCallFinished { is_error, duration, .. } => {
                        server.metrics.tool_call(is_error, duration)
                    }
                    AgentEvent::Completed(result) => finished = Some(result),
                    AgentEvent::Error(e) => {
                        server.metrics.turn_ended(Outcome::of_error(&e).status, started.elapsed());
                        let failed = head.failed(&super::super::failure(&e));
                        events.send("response.failed", json!({"response": failed})).await;
                    }
                    _ => {}
                }
                if !events.open {
                    // The client went away: nobody reads the answer.
                    canceller.cancel_now();
                }
            }
        }
        let Some(result) = finished else { return };
        super::super::record(&server, &result, started).await;
        let mut output = Vec::new();
        if result.stop_reason == StopReason::NeedsInput && message.is_none() {
            let mut m = Message::open(&mut events, head.message_id()).await;
            m.delta(&mut events, &super::super::answer(&result)).await;
            message = Some(m);
        }
        if let Some(m) = message {
            output.push(m.close(&mut events).await);
        }
        for call in client_calls(&result) {
            let index = output.len();
            let item = call_item(&call, "", "in_progress");
            let id = item["id"].clone();
            events.send("response.output_item.added", json!({"output_index": index, "item": item})).await;
            let at = json!({"item_id": id, "output_index": index});
            let mut delta = at.clone();
            delta["delta"] = json!(call.arguments);
            events.send("response.function_call_arguments.delta", delta).await;
            let mut done = at;
            done["arguments"] = json!(call.arguments);
            done["name"] = json!(call.name);
            events.send("response.function_call_arguments.done", done).await;
            let item = call_item(&call, &call.arguments, "completed");
            events.send("response.output_item.done", json!({"output_index": index, "item": item.clone()})).await;
            output.push(item);
        }
        let response = head.done(&result, output);
        if head.store
            && let Err(e) = stored::save(&server, &tenant, &response, session.messages()).await
        {
            let body = json!({"code": e.code, "message": e.message, "param": null});
            events.send("error", body).await;
            return;
        }
        events.send("response.completed", json!({"response": response})).await;
    });
    let events = futures::stream::unfold(rx, |mut rx| async move { rx.recv().await.map(|v| (v, rx)) })
        .map(|(kind, data)| Ok::<_, Infallible>(Event::default().event(kind).data(data.to_string())));
    Sse::new(events).keep_alive(KeepAlive::default()).into_response()
}
