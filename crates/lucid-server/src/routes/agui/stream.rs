//! A run as AG-UI events: each a Server-Sent Event whose `data` is one event's JSON (no
//! `event:` line, as AG-UI's HTTP binding has it), in the protocol's order —
//! `RUN_STARTED`; `STATE_SNAPSHOT` when the client sent state; per model call, the
//! answer's `TEXT_MESSAGE_START` / `_CONTENT`s / `_END` and each call to one of the
//! agent's tools as `TOOL_CALL_START` / `_ARGS` / `_END` then `TOOL_CALL_RESULT`; the
//! calls to the front end's tools as `TOOL_CALL_START` / `_ARGS` / `_END` with no result;
//! then `RUN_FINISHED` (its outcome naming those calls in `pendingToolCallIds`, and the
//! run's token usage) or `RUN_ERROR`.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Instant;

use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use lucid::{AgentEvent, AgentResult, Session, StopReason};
use serde::Serialize;
use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::AppState;
use crate::events::{Outcome, error_body};
use crate::routes::openai::{answer as answer_text, record};
use crate::runs::Slot;

/// One AG-UI event, as `@ag-ui/core`'s schemas name its type and fields.
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "SCREAMING_SNAKE_CASE", rename_all_fields = "camelCase")]
enum AgUi {
    RunStarted {
        thread_id: String,
        run_id: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        parent_run_id: Option<String>,
    },
    StateSnapshot {
        snapshot: Value,
    },
    TextMessageStart {
        message_id: String,
        role: &'static str,
    },
    TextMessageContent {
        message_id: String,
        delta: String,
    },
    TextMessageEnd {
        message_id: String,
    },
    ToolCallStart {
        tool_call_id: String,
        tool_call_name: String,
        parent_message_id: String,
    },
    ToolCallArgs {
        tool_call_id: String,
        delta: String,
    },
    ToolCallEnd {
        tool_call_id: String,
    },
    ToolCallResult {
        message_id: String,
        tool_call_id: String,
        content: String,
        role: &'static str,
    },
    RunFinished {
        thread_id: String,
        run_id: String,
        outcome: Value,
        usage: Vec<Value>,
    },
    RunError {
        message: String,
        code: String,
    },
}

/// An event with the time it was sent (milliseconds since the epoch).
#[derive(Serialize)]
struct Stamped {
    #[serde(flatten)]
    event: AgUi,
    timestamp: i64,
}

/// What the events answer back as the client gave it: the run's ids, and its state.
pub struct Echo {
    pub thread_id: String,
    pub run_id: String,
    pub parent_run_id: Option<String>,
    pub state: Option<Value>,
}

/// Sends events while the client reads.
struct Out {
    tx: mpsc::Sender<Value>,
    open: bool,
}

impl Out {
    async fn send(&mut self, event: AgUi) {
        let stamped = Stamped { event, timestamp: crate::now_ms() };
        let value =
            serde_json::to_value(&stamped).unwrap_or_else(|e| json!({"type": "RUN_ERROR", "message": e.to_string()}));
        self.open = self.open && self.tx.send(value).await.is_ok();
    }

    /// A call the model made: its start, its arguments whole, its end.
    async fn call(&mut self, id: &str, name: &str, arguments: &str, parent: &str) {
        let start = AgUi::ToolCallStart {
            tool_call_id: id.to_string(),
            tool_call_name: name.to_string(),
            parent_message_id: parent.to_string(),
        };
        self.send(start).await;
        if !arguments.is_empty() {
            self.send(AgUi::ToolCallArgs { tool_call_id: id.to_string(), delta: arguments.to_string() }).await;
        }
        self.send(AgUi::ToolCallEnd { tool_call_id: id.to_string() }).await;
    }
}

/// One model call's assistant message: its id (the parent of its tool calls too) and
/// whether its text is open.
struct Step {
    id: String,
    open: bool,
}

impl Step {
    fn new() -> Step {
        Step { id: crate::new_id("msg"), open: false }
    }

    async fn text(&mut self, out: &mut Out, delta: &str) {
        if delta.is_empty() {
            return;
        }
        if !self.open {
            self.open = true;
            out.send(AgUi::TextMessageStart { message_id: self.id.clone(), role: "assistant" }).await;
        }
        out.send(AgUi::TextMessageContent { message_id: self.id.clone(), delta: delta.to_string() }).await;
    }

    async fn end_text(&mut self, out: &mut Out) {
        if std::mem::take(&mut self.open) {
            out.send(AgUi::TextMessageEnd { message_id: self.id.clone() }).await;
        }
    }
}

/// The run's token usage, in AG-UI's names.
fn usage(result: &AgentResult) -> Value {
    let u = result.usage;
    json!({
        "inputTokens": u.input_tokens,
        "outputTokens": u.output_tokens,
        "totalTokens": u.input_tokens + u.output_tokens,
        "reasoningTokens": u.reasoning_tokens,
        "cachedInputTokens": u.cached_input_tokens.max(u.cache_read_input_tokens),
        "cacheWriteInputTokens": u.cache_creation_input_tokens,
    })
}

/// Runs the turn in a task of its own and answers with its events as they come.
pub fn answer(
    server: Arc<AppState>,
    mut session: Session,
    prompt: Option<Vec<lucid::Part>>,
    echo: Echo,
    slot: Slot,
) -> Response {
    let started = Instant::now();
    let (tx, rx) = mpsc::channel::<Value>(64);
    tokio::spawn(async move {
        let _slot = slot;
        let mut out = Out { tx, open: true };
        let Echo { thread_id, run_id, parent_run_id, state } = echo;
        out.send(AgUi::RunStarted { thread_id: thread_id.clone(), run_id: run_id.clone(), parent_run_id }).await;
        if let Some(snapshot) = state {
            out.send(AgUi::StateSnapshot { snapshot }).await;
        }
        let canceller = session.canceller();
        let mut step = Step::new();
        let mut wrote = false;
        let mut finished: Option<AgentResult> = None;
        {
            let mut run = crate::routes::shared::prompt_or_resume(&mut session, prompt);
            while let Some(event) = run.next().await {
                match event {
                    AgentEvent::Iteration(_) => {
                        step.end_text(&mut out).await;
                        step = Step::new();
                    }
                    AgentEvent::TextDelta(t) => {
                        let t = lucid::redact::redact(&t);
                        wrote |= !t.is_empty();
                        step.text(&mut out, &t).await;
                    }
                    AgentEvent::ToolCallStarted { id, name, arguments } => {
                        step.end_text(&mut out).await;
                        out.call(&id, &name, &lucid::redact::redact(&arguments), &step.id).await;
                    }
                    AgentEvent::ToolCallFinished { id, output, is_error, duration, .. } => {
                        server.metrics.tool_call(is_error, duration);
                        let result = AgUi::ToolCallResult {
                            message_id: crate::new_id("msg"),
                            tool_call_id: id,
                            content: lucid::redact::redact(&output).into_owned(),
                            role: "tool",
                        };
                        out.send(result).await;
                    }
                    AgentEvent::Completed(result) => finished = Some(result),
                    AgentEvent::Error(e) => {
                        server.metrics.turn_ended(Outcome::of_error(&e).status, started.elapsed());
                        step.end_text(&mut out).await;
                        let body = error_body(&e);
                        let message = body["error"]["message"].as_str().unwrap_or_default().to_string();
                        let code = body["error"]["code"].as_str().unwrap_or("run_failed").to_string();
                        out.send(AgUi::RunError { message, code }).await;
                    }
                    _ => {}
                }
                if !out.open {
                    // The client went away: nobody reads the answer.
                    canceller.cancel_now();
                }
            }
        }
        let Some(result) = finished else { return };
        record(&server, &result, started).await;
        if result.stop_reason == StopReason::NeedsInput && !wrote {
            // `ask_user` with nobody to answer: its questions are the answer, a message of
            // their own after the call's result (AG-UI clients append text to the message
            // an id names, and the step's already holds the call).
            step.end_text(&mut out).await;
            step = Step::new();
            step.text(&mut out, &answer_text(&result)).await;
        }
        step.end_text(&mut out).await;
        let deferred = if result.stop_reason == StopReason::Deferred { result.deferred.as_slice() } else { &[] };
        for call in deferred {
            out.call(&call.id, &call.name, &call.arguments, &step.id).await;
        }
        let mut outcome = json!({"type": "success"});
        if !deferred.is_empty() {
            outcome["pendingToolCallIds"] = deferred.iter().map(|c| c.id.clone()).collect();
        }
        out.send(AgUi::RunFinished { thread_id, run_id, outcome, usage: vec![usage(&result)] }).await;
    });
    let events = futures::stream::unfold(rx, |mut rx| async move { rx.recv().await.map(|v| (v, rx)) })
        .map(|v| Ok::<_, Infallible>(Event::default().data(v.to_string())));
    Sse::new(events).keep_alive(KeepAlive::default()).into_response()
}
