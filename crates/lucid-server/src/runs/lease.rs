//! The lease keeper: renews this instance's runs, passes on cancels asked on other
//! instances, stops the runs another instance took over, and continues the runs of
//! instances that are gone from where their sessions were last committed.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use lucid::{AgentEvent, AgentResult, Message, StopReason};

use super::{Turn, start};
use crate::AppState;
use crate::db::{Claimed, RunStatus, StoredEvent, first_seq_of_generation};
use crate::events::{self, Outcome};

/// How many runs of instances that are gone one lease tick takes over at most.
const CLAIM_BATCH: usize = 16;

/// Renews this instance's leases, passes on the cancels asked elsewhere, stops the runs
/// whose lease another instance took, and (unless stopping) continues the runs of
/// instances that are gone. Runs once now, then every third of a lease (at most 1 s)
/// while the server lives.
pub async fn keep_leases(server: &Arc<AppState>) {
    lease_tick(server).await;
    let every = (server.lease / 3).min(Duration::from_secs(1));
    let weak = Arc::downgrade(server);
    tokio::spawn(async move {
        let mut ticks = tokio::time::interval(every);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        ticks.tick().await;
        loop {
            ticks.tick().await;
            let Some(server) = weak.upgrade() else { return };
            lease_tick(&server).await;
        }
    });
}

/// One turn of [`keep_leases`].
async fn lease_tick(server: &Arc<AppState>) {
    let now = crate::now_ms();
    let until = server.lease_until(now);
    match server.db.renew(&server.owner, until).await {
        Ok(renewed) => {
            for r in renewed.iter().filter(|r| r.cancel_requested) {
                if let Some(live) = server.runs.get(&r.id)
                    && !live.cancel_asked.swap(true, Ordering::Relaxed)
                {
                    tracing::info!(run = %r.id, "cancel asked on another instance");
                    live.canceller.cancel_now();
                }
            }
            for live in server.runs.all() {
                if !live.is_over() && !renewed.iter().any(|r| r.id == live.id) && !live.released.load(Ordering::Relaxed)
                {
                    tracing::warn!(run = %live.id, "another instance took this run over: stopping it here");
                    live.lost.store(true, Ordering::Relaxed);
                    live.canceller.cancel_now();
                }
            }
        }
        Err(e) => tracing::warn!("renewing the runs' leases: {e}"),
    }
    if server.runs.stopping.load(Ordering::Relaxed) {
        return;
    }
    let gone = match server.db.other_owners(&server.owner, now).await {
        Ok(owners) => owners.into_iter().filter(|o| lucid::store::lock::is_stale(o, i64::MAX, now)).collect(),
        Err(e) => {
            tracing::warn!("looking for runs of instances that are gone: {e}");
            return;
        }
    };
    match server.db.claim(&server.owner, until, now, gone, CLAIM_BATCH).await {
        Ok(claimed) => {
            for run in claimed {
                recover(server, run).await;
            }
        }
        Err(e) => tracing::warn!("claiming runs of instances that are gone: {e}"),
    }
    expire_approvals(server, now).await;
}

/// Runs that waited for approval longer than the server's approval timeout go on: taken
/// by this instance (one instance only, the database's rule), their unanswered calls
/// denied (the model reads that nobody approved them in time).
async fn expire_approvals(server: &Arc<AppState>, now: i64) {
    let timeout = server.approval_timeout;
    let before = now.saturating_sub(timeout.as_millis() as i64);
    let waiting = match server.db.waiting_since(before, CLAIM_BATCH).await {
        Ok(w) => w,
        Err(e) => return tracing::warn!("looking for approvals that expired: {e}"),
    };
    for run in waiting {
        let Some(agent) = server.agents.get(&run.agent) else { continue };
        let first_seq = match server.db.last_event(&run.id).await {
            Ok(n) => n + 1,
            Err(e) => return tracing::warn!(run = %run.id, "reading the run's events: {e}"),
        };
        match server
            .db
            .continue_run(&run.id, RunStatus::NeedsApproval, None, &server.owner, server.lease_until(now), now)
            .await
        {
            Ok(true) => {}
            Ok(false) => continue,
            Err(e) => return tracing::warn!(run = %run.id, "taking a run whose approvals expired: {e}"),
        }
        let mut session = match agent.session_with_id(&run.session_id).await {
            Ok(s) => s,
            Err(e) => {
                let claimed = Claimed {
                    id: run.id.clone(),
                    tenant: run.tenant.clone(),
                    session_id: run.session_id.clone(),
                    agent: run.agent.clone(),
                    generation: 0,
                    cancel_requested: false,
                    input: crate::db::RunInput::default(),
                };
                return end_claimed(server, &claimed, first_seq, &AgentEvent::Error(e)).await;
            }
        };
        session.set_owner(Some(run.tenant.clone()));
        match session.expire_approvals(timeout).await {
            Ok(denied) => tracing::info!(run = %run.id, calls = denied.len(), "approvals expired: denied"),
            Err(e) => tracing::warn!(run = %run.id, "the expired approvals could not be recorded: {e}"),
        }
        let slot = server.runs.slot(&run.tenant);
        start(server, &run.id, session, Turn::Resume, first_seq, slot);
    }
}

/// Continues a run claimed from an instance that is gone, from the session's last commit:
/// completed tool calls are kept, a call that was in flight is run again if its tool is
/// idempotent and answered "interrupted" otherwise, the model call in flight is repeated.
async fn recover(server: &Arc<AppState>, run: Claimed) {
    let first_seq = first_seq_of_generation(run.generation);
    tracing::info!(run = %run.id, session = %run.session_id, generation = run.generation, "continuing a run whose instance is gone");
    if run.cancel_requested {
        let result = bare_result(String::new(), StopReason::Cancelled);
        return end_claimed(server, &run, first_seq, &AgentEvent::Completed(result)).await;
    }
    let Some(agent) = server.agents.get(&run.agent) else {
        let e = lucid::Error::Config(format!("the agent `{}` is no longer served", run.agent));
        return end_claimed(server, &run, first_seq, &AgentEvent::Error(e)).await;
    };
    if let Some(store) = agent.store() {
        // The session's turn lock died with the instance that held the run's lease.
        if let Err(e) = store.break_lock(&run.session_id).await {
            tracing::warn!(session = %run.session_id, "the gone instance's turn lock could not be broken: {e}");
        }
    }
    let mut session = match agent.session_with_id(&run.session_id).await {
        Ok(s) => s,
        Err(e) => return end_claimed(server, &run, first_seq, &AgentEvent::Error(e)).await,
    };
    session.set_owner(Some(run.tenant.clone()));
    let input = match crate::input::parts(&server.db, &run.session_id, &run.input).await {
        Ok(parts) => parts,
        Err(e) => return end_claimed(server, &run, first_seq, &AgentEvent::Error(e)).await,
    };
    let turn = match where_the_turn_is(session.messages(), &input) {
        TurnState::NotStarted => Turn::Prompt(input),
        TurnState::Going => Turn::Resume,
        TurnState::Answered(content) => {
            let result = bare_result(content, StopReason::Completed);
            return end_claimed(server, &run, first_seq, &AgentEvent::Completed(result)).await;
        }
    };
    let slot = server.runs.slot(&run.tenant);
    start(server, &run.id, session, turn, first_seq, slot);
}

/// How far the stored session got with a run's turn.
#[derive(Debug, PartialEq)]
enum TurnState {
    /// The turn's input is not in the history: it never began.
    NotStarted,
    /// The input is there, the answer not yet.
    Going,
    /// The input and the final answer are there; only the run's end was not recorded.
    Answered(String),
}

/// Where the turn on `input` stands in `messages` (the input, text and attachments, is the
/// last user message once the turn began: it is committed before the first model call).
/// One case reads wrong: the same input sent twice in a row, the process gone before the
/// second turn's first commit — the earlier answer is then taken for this run's.
fn where_the_turn_is(messages: &[Message], input: &[lucid::Part]) -> TurnState {
    let Some(last_user) = messages.iter().rposition(|m| matches!(m, Message::User { .. })) else {
        return TurnState::NotStarted;
    };
    if messages[last_user].parts() != input {
        return TurnState::NotStarted;
    }
    match messages.last() {
        Some(Message::Assistant(a)) if a.tool_calls.is_empty() && messages.len() > last_user + 1 => {
            TurnState::Answered(a.content.clone())
        }
        _ => TurnState::Going,
    }
}

/// A result with nothing but an answer and why the run stopped.
fn bare_result(content: String, stop_reason: StopReason) -> AgentResult {
    AgentResult::new(content, stop_reason)
}

/// Ends a claimed run without a turn: its last event is `event`.
async fn end_claimed(server: &AppState, run: &Claimed, seq: u64, event: &AgentEvent) {
    let outcome = match event {
        AgentEvent::Completed(r) => Outcome::of_result(r),
        AgentEvent::Error(e) => Outcome::of_error(e),
        _ => Outcome::of_error(&lucid::Error::Config("the run ended without a result".into())),
    };
    let (kind, data) = events::encode(event);
    let last = StoredEvent { seq, kind, data: data.to_string() };
    let now = crate::now_ms();
    match server
        .db
        .finish_run(&run.id, &server.owner, outcome.status, outcome.result, outcome.error, vec![last], now)
        .await
    {
        Ok(true) => server.metrics.turn_ended(outcome.status, Duration::ZERO),
        Ok(false) => tracing::warn!(run = %run.id, "the claimed run was taken by another instance"),
        Err(e) => tracing::error!(run = %run.id, "the claimed run's end could not be stored: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use lucid::{Message, Part};

    use super::{TurnState, where_the_turn_is};

    #[test]
    fn a_turn_is_found_by_its_text_and_its_attachments() {
        let png = |b: u8| Part::image_bytes("image/png", vec![0x89, b'P', b'N', b'G', b]);
        let input = vec![Part::text("And now?"), png(2)];
        let earlier = vec![Part::text("And now?"), png(1)];
        let answered = [Message::user_parts(input.clone()), Message::assistant("A cat.")];
        assert_eq!(where_the_turn_is(&answered, &input), TurnState::Answered("A cat.".into()));
        assert_eq!(where_the_turn_is(&answered[..1], &input), TurnState::Going);
        let other_image = [Message::user_parts(earlier), Message::assistant("A dog.")];
        assert_eq!(where_the_turn_is(&other_image, &input), TurnState::NotStarted, "the same text, another image");
        let text = [Message::user("hi"), Message::assistant("Hello.")];
        assert_eq!(where_the_turn_is(&text, &[Part::text("hi")]), TurnState::Answered("Hello.".into()));
    }
}
