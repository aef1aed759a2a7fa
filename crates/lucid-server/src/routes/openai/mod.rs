//! The OpenAI-compatible facade: `GET /v1/models` lists the agents, and `POST
//! /v1/chat/completions` with `model` = an agent's name runs that agent over the messages
//! the client sends (its own tools run here; the request's function tools are the
//! client's to run: [`client_tools`]) and answers with the final answer, as one
//! `chat.completion` or as `chat.completion.chunk`s, usage included either way. Nothing
//! is stored: the client holds the conversation, as with any Chat Completions server.
//!
//! The request's sampling, length, format and tool options reach the model, or a 400
//! names the field that cannot be honoured ([`request`]); a client's system messages are
//! placed after the operator's system prompt unless the agent says otherwise
//! ([`ClientSystem`](crate::ClientSystem)).
//!
//! `/v1/responses` is the same run in the Responses API's shapes ([`responses`]), with these
//! parts shared.
//!
//! Text the model writes beside tool calls is streamed as it comes too (a stream cannot
//! know a step will call tools until the step ends); the non-streamed `content` is the
//! last answer only.

use std::collections::BTreeSet;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Instant;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use futures::future::BoxFuture;
use lucid::agent::hooks::{Hook, HookContext, ModelCall, ModelCallDecision};
use lucid::model::{ChatOptions, ModelError, ToolChoice};
use lucid::tool::permission::Permission;
use lucid::{Agent, AgentEvent, AgentResult, FinishReason, Session, StopReason, Tool};
use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::body::JsonObject;
use crate::config::ClientSystem;
use crate::events::{Outcome, error_body};
use crate::{ApiError, AppState, Tenant};

pub(in crate::routes) mod client_tools;
pub(in crate::routes) mod request;
pub mod responses;

use client_tools::DeferClientTools;
use request::ChatRequest;

/// `GET /v1/models`: one model per agent.
pub async fn models(State(server): State<Arc<AppState>>, _tenant: Tenant) -> Response {
    let data: Vec<Value> = server.agents.keys().map(|name| model_object(&server, name)).collect();
    axum::Json(json!({"object": "list", "data": data})).into_response()
}

/// `GET /v1/models/{id}`: the model `GET /v1/models` lists with that id, or 404
/// `model_not_found`.
pub async fn model(
    State(server): State<Arc<AppState>>,
    _tenant: Tenant,
    axum::extract::Path(id): axum::extract::Path<String>,
) -> Result<Response, ApiError> {
    if !server.agents.contains_key(&id) {
        return Err(ApiError {
            code: "model_not_found",
            param: Some("model".into()),
            ..ApiError::not_found("model", &id)
        });
    }
    Ok(axum::Json(model_object(&server, &id)).into_response())
}

/// An agent as OpenAI's `model` object.
fn model_object(server: &AppState, name: &str) -> Value {
    json!({"id": name, "object": "model", "created": server.started, "owned_by": "lucid"})
}

fn finish_reason(result: &AgentResult) -> &'static str {
    if client_calls(result).is_some() {
        return "tool_calls";
    }
    match (result.stop_reason, result.finish_reason) {
        (StopReason::MaxIterations, _) | (_, Some(FinishReason::Length)) => "length",
        (_, Some(FinishReason::ContentFilter)) => "content_filter",
        _ => "stop",
    }
}

fn usage(result: &AgentResult) -> Value {
    let u = result.usage;
    json!({"prompt_tokens": u.input_tokens, "completion_tokens": u.output_tokens,
           "total_tokens": u.input_tokens + u.output_tokens})
}

/// The calls to the client's tools a turn ended with (deferred by [`DeferClientTools`]),
/// as OpenAI's `tool_calls`; `None` when the turn did not end waiting for them.
fn client_calls(result: &AgentResult) -> Option<Value> {
    if result.stop_reason != StopReason::Deferred || result.deferred.is_empty() {
        return None;
    }
    Some(Value::Array(result.deferred.iter().map(client_tools::wire).collect()))
}

/// The answer a client reads: the text, or the questions of `ask_user` when the agent
/// needs input nobody gave.
pub(in crate::routes) fn answer(result: &AgentResult) -> String {
    if result.stop_reason == StopReason::NeedsInput && result.content.trim().is_empty() {
        return result.questions.join("\n");
    }
    result.content.clone()
}

/// A failed run as the facade answers it: 502 for the provider's failure, else 500.
pub(in crate::routes) fn failure(e: &lucid::Error) -> ApiError {
    let body = error_body(e);
    let status = match e {
        lucid::Error::Model(
            ModelError::Provider(_) | ModelError::Network { .. } | ModelError::StreamTruncated { .. },
        ) => StatusCode::BAD_GATEWAY,
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    };
    let code = match body["error"]["code"].as_str() {
        Some("provider_error") => "provider_error",
        Some("network_error") => "network_error",
        _ => "run_failed",
    };
    ApiError {
        status,
        message: body["error"]["message"].as_str().unwrap_or_default().to_string(),
        kind: "server_error",
        code,
        param: None,
        retry_after: None,
    }
}

/// The agent the request's `model` names (404 when none), and how it takes a client's
/// system text.
fn agent_named<'a>(server: &'a AppState, body: &JsonObject) -> Result<(String, &'a Agent, ClientSystem), ApiError> {
    let model = body.text("model")?.to_string();
    let agent = server.agents.get(&model).ok_or_else(|| ApiError {
        status: StatusCode::NOT_FOUND,
        code: "model_not_found",
        ..ApiError::invalid("model", &format!("no agent `{model}`; GET /v1/models lists them"))
    })?;
    let mode = server.client_system.get(&model).copied().unwrap_or_default();
    Ok((model, agent, mode))
}

/// `POST /v1/chat/completions`.
pub async fn chat_completions(
    State(server): State<Arc<AppState>>,
    tenant: Tenant,
    body: JsonObject,
) -> Result<Response, ApiError> {
    let (model, agent, mode) = agent_named(&server, &body)?;
    let stream = body.flag("stream")?;
    let ChatRequest { history, prompt, system, options, include_usage, tools } = ChatRequest::read(&body, agent, mode)?;
    let agent = variant(agent, system, options, tools);
    crate::spend::within_daily_budget(&server, &tenant.0).await?;
    let slot = server.runs.reserve(&tenant.0, server.max_runs)?;
    // A session of its own, kept in memory only (no id, so never saved): the client holds
    // the conversation.
    let mut session = Session::with_messages(agent, history);
    session.set_owner(Some(tenant.0.clone()));
    let id = crate::new_id("chatcmpl");
    let created = crate::now_ms() / 1000;
    let started = Instant::now();
    if !stream {
        let outcome = match prompt {
            Some(prompt) => session.run_parts(prompt).await,
            None => session.resume().await,
        };
        drop(slot);
        return match outcome {
            Ok(result) => {
                for call in &result.tool_calls {
                    if let Some(took) = call.duration {
                        server.metrics.tool_call(call.is_error, took);
                    }
                }
                record(&server, &result, started).await;
                let mut message = json!({"role": "assistant", "content": answer(&result)});
                if let Some(calls) = client_calls(&result) {
                    message["tool_calls"] = calls;
                    if result.content.is_empty() {
                        message["content"] = Value::Null;
                    }
                }
                let body = json!({
                    "id": id, "object": "chat.completion", "created": created, "model": model,
                    "choices": [{"index": 0, "message": message,
                                 "finish_reason": finish_reason(&result), "logprobs": null}],
                    "usage": usage(&result),
                });
                Ok(axum::Json(body).into_response())
            }
            Err(e) => {
                server.metrics.turn_ended(Outcome::of_error(&e).status, started.elapsed());
                Err(failure(&e))
            }
        };
    }
    let (tx, rx) = mpsc::channel::<Value>(64);
    // With `stream_options.include_usage`, as OpenAI documents it: every chunk has `usage:
    // null`, and one more chunk before `[DONE]` has `choices: []` and the usage.
    let chunk = move |delta: Option<Value>, finish: Value, usage: Value| {
        let choices = match delta {
            Some(delta) => json!([{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": null}]),
            None => json!([]),
        };
        json!({"id": id, "object": "chat.completion.chunk", "created": created, "model": model,
               "choices": choices, "usage": usage})
    };
    let task_server = server.clone();
    tokio::spawn(async move {
        let _slot = slot;
        let canceller = session.canceller();
        let mut events = crate::routes::shared::prompt_or_resume(&mut session, prompt);
        let mut open =
            tx.send(chunk(Some(json!({"role": "assistant", "content": ""})), Value::Null, Value::Null)).await.is_ok();
        while let Some(event) = events.next().await {
            let message = match event {
                AgentEvent::TextDelta(t) => {
                    chunk(Some(json!({"content": lucid::redact::redact(&t)})), Value::Null, Value::Null)
                }
                AgentEvent::ToolCallFinished { is_error, duration, .. } => {
                    task_server.metrics.tool_call(is_error, duration);
                    continue;
                }
                AgentEvent::Completed(result) => {
                    record(&task_server, &result, started).await;
                    // Without `include_usage`, the usage rides on the finish chunk (as it
                    // always has here); with it, on a chunk of its own.
                    let on_finish = if include_usage { Value::Null } else { usage(&result) };
                    let mut last = chunk(Some(json!({})), json!(finish_reason(&result)), on_finish);
                    if result.stop_reason == StopReason::NeedsInput && result.content.trim().is_empty() {
                        last["choices"][0]["delta"] = json!({"content": answer(&result)});
                    }
                    if let Some(Value::Array(calls)) = client_calls(&result) {
                        // As OpenAI streams them: each call in a delta of its own, by index.
                        for (index, mut call) in calls.into_iter().enumerate() {
                            call["index"] = json!(index);
                            let delta = json!({"tool_calls": [call]});
                            open = open && tx.send(chunk(Some(delta), Value::Null, Value::Null)).await.is_ok();
                        }
                    }
                    if include_usage {
                        let extra = chunk(None, Value::Null, usage(&result));
                        open = open && tx.send(last).await.is_ok();
                        extra
                    } else {
                        last
                    }
                }
                AgentEvent::Error(e) => {
                    task_server.metrics.turn_ended(Outcome::of_error(&e).status, started.elapsed());
                    error_body(&e)
                }
                _ => continue,
            };
            if open && tx.send(message).await.is_err() {
                // The client went away: nobody reads the answer.
                open = false;
                canceller.cancel_now();
            }
        }
    });
    let chunks = futures::stream::unfold(rx, |mut rx| async move { rx.recv().await.map(|v| (v, rx)) })
        .map(|v| Ok::<_, Infallible>(Event::default().data(v.to_string())))
        .chain(futures::stream::once(async { Ok(Event::default().data("[DONE]")) }));
    Ok(Sse::new(chunks).keep_alive(KeepAlive::default()).into_response())
}

pub(in crate::routes) async fn record(server: &AppState, result: &AgentResult, started: Instant) {
    crate::spend::record(server, result);
    server.metrics.turn_ended(Outcome::of_result(result).status, started.elapsed());
}

/// The agent as this request runs it: its system prompt and options as the request set
/// them, the client's tools beside its own, and the request's `tool_choice` on the first
/// model call only (as OpenAI applies it to one completion; later steps of the run choose
/// freely, or a forced tool would be called until the iterations run out).
pub(in crate::routes) fn variant(
    agent: &Agent,
    system: Option<String>,
    mut options: ChatOptions,
    tools: Vec<Arc<dyn Tool>>,
) -> Agent {
    let first = options.tool_choice.take();
    // A completion has no run to wait in: an `ask` nobody answers refuses the call here, as
    // it always did (the runs of `/v1/sessions` wait for approvals instead).
    let mut builder = agent.to_builder().options(options).permissions(agent.permissions().clone().defer_asks(false));
    if !tools.is_empty() {
        // The client's tools are offered beside the agent's; a call to one is deferred (never
        // run here), whatever the agent's default permission says.
        let names: BTreeSet<String> = tools.iter().map(|t| t.spec().name().to_string()).collect();
        let mut permissions = agent.permissions().clone().defer_asks(false);
        for name in &names {
            permissions = permissions.set(name.clone(), Permission::Allow);
        }
        for tool in tools {
            builder = builder.tool_arc(tool);
        }
        builder = builder.permissions(permissions).hook(DeferClientTools(names));
    }
    if let Some(system) = system {
        builder = builder.system(system);
    }
    if let Some(choice) = first {
        builder = builder.hook(FirstCallChoice(choice));
    }
    builder.build()
}

/// Sets `tool_choice` on a run's first model call.
struct FirstCallChoice(ToolChoice);

impl Hook for FirstCallChoice {
    fn before_model_call<'a>(
        &'a self,
        cx: &'a HookContext<'a>,
        call: &'a mut ModelCall<'_>,
    ) -> BoxFuture<'a, ModelCallDecision> {
        if cx.iteration <= 1 {
            call.options.to_mut().tool_choice = Some(self.0.clone());
        }
        Box::pin(std::future::ready(ModelCallDecision::Continue))
    }
}
