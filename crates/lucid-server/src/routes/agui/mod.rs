//! AG-UI, the protocol CopilotKit and other agent front ends speak: `POST
//! /v1/agui/{agent}` with a `RunAgentInput` (`threadId`, `runId`, `messages`, `tools`,
//! `context`, `state`, `forwardedProps`) runs that agent over the messages and answers
//! with the run as AG-UI events over Server-Sent Events ([`stream`]).
//!
//! Like the OpenAI facades it keeps nothing: the front end holds the thread and sends it
//! whole with each run. The agent's own tools run here and stream with their results;
//! the front end's `tools` join them ([`client_tools`](super::openai::client_tools)), and
//! a call to one ends the run with the call streamed and named in `RUN_FINISHED`'s
//! `pendingToolCallIds`, for the front end to run and send back as a `tool` message in
//! the next run's `messages`, from which the agent goes on. System and developer
//! messages, `context` and a non-empty `state` are the client's system text, placed as
//! the agent's `client_system` says (a `refuse` agent answers 400 naming the field);
//! `state` comes back as a `STATE_SNAPSHOT` (the agent reads it but does not change it).
//! `forwardedProps` is accepted and unused. Keys, tenants, concurrent-run quotas and
//! daily budgets hold as on every route; a request the server refuses is answered with
//! its JSON error before any event, a run that fails once started ends with `RUN_ERROR`.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::response::Response;
use lucid::Session;

use crate::body::JsonObject;
use crate::routes::openai::variant;
use crate::{ApiError, AppState, Tenant};

mod input;
mod stream;

use input::RunInput;

/// `POST /v1/agui/{agent}`.
pub async fn run(
    State(server): State<Arc<AppState>>,
    tenant: Tenant,
    Path(name): Path<String>,
    body: JsonObject,
) -> Result<Response, ApiError> {
    let agent = server.agents.get(&name).ok_or_else(|| ApiError::not_found("agent", &name))?;
    let mode = server.client_system.get(&name).copied().unwrap_or_default();
    let RunInput { thread_id, run_id, parent_run_id, history, prompt, system, tools, state } =
        RunInput::read(&body, agent, mode)?;
    let agent = variant(agent, system, agent.options().clone(), tools);
    crate::spend::within_daily_budget(&server, &tenant.0).await?;
    let slot = server.runs.reserve(&tenant.0, server.max_runs)?;
    // A session of its own, kept in memory only (no id, so never saved): the front end
    // holds the thread.
    let mut session = Session::with_messages(agent, history);
    session.set_owner(Some(tenant.0.clone()));
    let echo = stream::Echo { thread_id, run_id, parent_run_id, state };
    Ok(stream::answer(server, session, prompt, echo, slot))
}
