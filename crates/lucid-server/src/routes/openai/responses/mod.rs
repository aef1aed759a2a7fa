//! The Responses facade: `POST /v1/responses` with `model` = an agent's name runs that
//! agent over the request's input items and answers with a `response` object, or with
//! its typed Server-Sent Events ([`stream`]). It shares the Chat Completions facade's
//! parts: the request's function tools join the agent's and a call to one comes back as
//! a `function_call` output item for the client to run (the next request sends its
//! `function_call_output`); `instructions` is a client's system text, placed as the
//! agent's `client_system` says; the options reach the model or a 400 names the field
//! ([`input`]).
//!
//! Stateless by default. With `store: true` the response and its conversation are kept
//! for the tenant ([`stored`]): `previous_response_id` continues from them, `GET` and
//! `DELETE /v1/responses/{id}` read and remove them, and another tenant's id is 404.

use std::sync::Arc;
use std::time::Instant;

use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use lucid::model::ChatOptions;
use lucid::{AgentResult, FinishReason, Session, StopReason, ToolCall};
use serde_json::{Value, json};

use super::{agent_named, answer, failure, record, variant};
use crate::body::JsonObject;
use crate::events::Outcome;
use crate::{ApiError, AppState, Tenant};

mod input;
mod stored;
mod stream;

use input::ResponsesRequest;

/// `POST /v1/responses`.
pub async fn create(
    State(server): State<Arc<AppState>>,
    tenant: Tenant,
    mut body: JsonObject,
) -> Result<Response, ApiError> {
    let (model, agent, mode) = agent_named(&server, &body)?;
    let metadata = metadata(&body)?;
    let stream = body.flag("stream")?;
    let previous = match body.0.get("previous_response_id") {
        None | Some(Value::Null) => None,
        Some(Value::String(id)) => Some(id.clone()),
        Some(_) => return Err(ApiError::invalid("previous_response_id", "must be a string")),
    };
    // A request silent on `store` is stored when the operator chose OpenAI's default.
    if server.responses_store_default && matches!(body.0.get("store"), None | Some(Value::Null)) {
        body.0.insert("store".into(), Value::Bool(true));
    }
    // What an `item_reference` names, read from the tenant's stored responses.
    stored::resolve_references(&server, &tenant, &mut body).await?;
    let stored = match &previous {
        Some(id) => stored::load(&server, &tenant, id).await?.messages,
        None => Vec::new(),
    };
    let ResponsesRequest { history, prompt, system, options, tools, store } =
        ResponsesRequest::read(&body, agent, mode, stored)?;
    let head = Head::new(&body, &model, &options, metadata, previous, store);
    let agent = variant(agent, system, options, tools);
    crate::spend::within_daily_budget(&server, &tenant.0).await?;
    let slot = server.runs.reserve(&tenant.0, server.max_runs)?;
    // A session of its own, kept in memory only: a stored response is saved apart, under
    // its own id, once it is complete.
    let mut session = Session::with_messages(agent, history);
    session.set_owner(Some(tenant.0.clone()));
    let started = Instant::now();
    if stream {
        return Ok(stream::answer(server, tenant, session, prompt, head, slot, started));
    }
    let outcome = match prompt {
        Some(prompt) => session.run_parts(prompt).await,
        None => session.resume().await,
    };
    drop(slot);
    let result = match outcome {
        Ok(result) => result,
        Err(e) => {
            server.metrics.turn_ended(Outcome::of_error(&e).status, started.elapsed());
            return Err(failure(&e));
        }
    };
    for call in &result.tool_calls {
        if let Some(took) = call.duration {
            server.metrics.tool_call(call.is_error, took);
        }
    }
    record(&server, &result, started).await;
    let mut output = Vec::new();
    let text = answer(&result);
    if !text.is_empty() {
        output.push(message_item(&head.message_id(), &text, "completed"));
    }
    output.extend(client_calls(&result).map(|c| call_item(&c, &c.arguments, "completed")));
    let response = head.done(&result, output);
    if head.store {
        stored::save(&server, &tenant, &response, session.messages()).await?;
    }
    Ok(axum::Json(response).into_response())
}

/// `GET /v1/responses/{id}`: a stored response of the tenant's.
pub async fn show(
    State(server): State<Arc<AppState>>,
    tenant: Tenant,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    Ok(axum::Json(stored::load(&server, &tenant, &id).await?.response).into_response())
}

/// `DELETE /v1/responses/{id}`.
pub async fn delete(
    State(server): State<Arc<AppState>>,
    tenant: Tenant,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    stored::delete(&server, &tenant, &id).await?;
    Ok(axum::Json(json!({"id": id, "object": "response", "deleted": true})).into_response())
}

/// `metadata`: at most 16 string values, keys up to 64 characters and values up to 512,
/// as OpenAI takes it; answered back as it came (and kept with a stored response).
fn metadata(body: &JsonObject) -> Result<Value, ApiError> {
    let m = body.object("metadata")?;
    let map = m.as_object().map_or(0, |o| o.len());
    let fits = m.as_object().is_some_and(|o| {
        o.iter().all(|(k, v)| k.chars().count() <= 64 && v.as_str().is_some_and(|s| s.chars().count() <= 512))
    });
    if map > 16 || !fits {
        return Err(ApiError::invalid(
            "metadata",
            "at most 16 pairs, keys up to 64 characters, values strings up to 512",
        ));
    }
    Ok(m)
}

/// What a response says of the request, the same from `response.created` to the end.
pub struct Head {
    base: Value,
    store: bool,
}

impl Head {
    /// What `body` asked, run with `options` (the agent's, as the request set them).
    fn new(
        body: &JsonObject,
        model: &str,
        options: &ChatOptions,
        metadata: Value,
        previous: Option<String>,
        store: bool,
    ) -> Head {
        let field = |f: &str| body.0.get(f).cloned().unwrap_or(Value::Null);
        let or = |f: &str, default: Value| body.0.get(f).filter(|v| !v.is_null()).cloned().unwrap_or(default);
        let base = json!({
            "id": crate::new_id("resp"),
            "object": "response",
            "created_at": crate::now_ms() / 1000,
            "status": "in_progress",
            "background": false,
            "error": null,
            "incomplete_details": null,
            "instructions": field("instructions"),
            "max_output_tokens": options.max_tokens,
            "max_tool_calls": null,
            "model": model,
            "output": [],
            "parallel_tool_calls": options.parallel_tool_calls.unwrap_or(true),
            "previous_response_id": previous,
            "reasoning": {"effort": options.reasoning_effort, "summary": null},
            "service_tier": "default",
            "store": store,
            "temperature": options.temperature.unwrap_or(1.0),
            "text": or("text", json!({"format": {"type": "text"}})),
            "tool_choice": or("tool_choice", json!("auto")),
            "tools": or("tools", json!([])),
            "top_logprobs": 0,
            "top_p": options.top_p.unwrap_or(1.0),
            "truncation": "disabled",
            "usage": null,
            "user": field("user"),
            "metadata": metadata,
        });
        Head { base, store }
    }

    /// The id of the response's message item: `msg_` and the tail of the response's id,
    /// so that an `item_reference` to it finds the response it is kept with
    /// ([`stored::resolve_references`]).
    fn message_id(&self) -> String {
        let id = self.base["id"].as_str().unwrap_or_default();
        format!("msg_{}", id.strip_prefix("resp_").unwrap_or(id))
    }

    /// The response as it starts: in progress, no output yet.
    fn started(&self) -> Value {
        self.base.clone()
    }

    /// The response of a finished run, with its `output` items.
    fn done(&self, result: &AgentResult, output: Vec<Value>) -> Value {
        let mut r = self.base.clone();
        let incomplete = match (result.stop_reason, result.finish_reason) {
            _ if result.stop_reason == StopReason::Deferred => None,
            (StopReason::MaxIterations, _) | (_, Some(FinishReason::Length)) => Some("max_output_tokens"),
            (_, Some(FinishReason::ContentFilter)) => Some("content_filter"),
            _ => None,
        };
        r["status"] = json!(if incomplete.is_some() { "incomplete" } else { "completed" });
        r["incomplete_details"] = incomplete.map_or(Value::Null, |reason| json!({"reason": reason}));
        r["completed_at"] = json!(crate::now_ms() / 1000);
        r["output"] = Value::Array(output);
        let u = result.usage;
        r["usage"] = json!({
            "input_tokens": u.input_tokens,
            "input_tokens_details": {"cached_tokens": u.cached_input_tokens.max(u.cache_read_input_tokens),
                                     "cache_write_tokens": u.cache_creation_input_tokens},
            "output_tokens": u.output_tokens,
            "output_tokens_details": {"reasoning_tokens": u.reasoning_tokens},
            "total_tokens": u.input_tokens + u.output_tokens,
        });
        r
    }

    /// The response of a run that failed with `error`.
    fn failed(&self, error: &ApiError) -> Value {
        let mut r = self.base.clone();
        r["status"] = json!("failed");
        r["error"] = json!({"code": "server_error", "message": error.message});
        r
    }
}

/// The calls to the client's tools a turn ended with (deferred for the client to run).
fn client_calls(result: &AgentResult) -> impl Iterator<Item = ToolCall> + '_ {
    let deferred = result.stop_reason == StopReason::Deferred;
    result.deferred.iter().filter(move |_| deferred).cloned()
}

/// An assistant's `message` output item with one `output_text` part.
fn message_item(id: &str, text: &str, status: &str) -> Value {
    let parts = if status == "completed" { json!([text_part(text)]) } else { json!([]) };
    json!({"id": id, "type": "message", "status": status, "role": "assistant", "content": parts})
}

fn text_part(text: &str) -> Value {
    json!({"type": "output_text", "text": text, "annotations": [], "logprobs": []})
}

/// A `function_call` output item; `arguments` as far as they are known.
fn call_item(call: &ToolCall, arguments: &str, status: &str) -> Value {
    json!({"id": format!("fc_{}", call.id), "type": "function_call", "status": status, "call_id": call.id,
           "name": call.name, "arguments": arguments})
}
