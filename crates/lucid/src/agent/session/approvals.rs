//! Calls waiting for approval: what the session lists, and the answers it records (in
//! its store's metadata for a stored session, so any process can answer and resume).

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::Session;
use super::recovery::open_calls;
use crate::agent::AgentResult;
use crate::approval::{Answer, ApprovalError, Approvals, Decision, PendingCall};
use crate::error::{Error, Result};
use crate::message::Message;
use crate::store::{DEFERRED_KEY, SessionInfo, StoredSession};

/// A session kept as a value, without a store: its history and what it knows of approvals
/// (the step of a paused workflow waiting for answers). It serializes to JSON, so a paused
/// session can wait in a file or a column and continue in another process
/// ([`Session::state`], [`Session::from_state`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionState {
    /// The history after the system prompt.
    messages: Vec<Message>,
    /// The metadata a stored session would keep: deferred calls, answers, remembered tools.
    metadata: Value,
}

impl Session {
    /// The calls of the last turn waiting for approval (the turn ended
    /// [`StopReason::Deferred`](crate::StopReason::Deferred) because the agent's policy
    /// [defers its asks](crate::tool::permission::PermissionPolicy::defer_asks)), in call
    /// order, each saying whether it is answered (an answer recorded, or its tool allowed
    /// for the session by an earlier `remember`: an answer of its own still overrides
    /// that). Empty when none waits.
    ///
    /// ```no_run
    /// # async fn demo(agent: lucid::Agent) -> lucid::Result<()> {
    /// use lucid::approval::Answer;
    /// let mut session = agent.session_with_id("job-7").await?;
    /// for call in session.pending_approvals() {
    ///     println!("{} wants {} with {}", call.call_id, call.tool, call.arguments);
    ///     session.decide(Answer::allow(&call.call_id)).await?;
    /// }
    /// let result = session.resume().await?;
    /// # Ok(()) }
    /// ```
    pub fn pending_approvals(&self) -> Vec<PendingCall> {
        let messages = self.context.messages();
        let Some((at, answered)) = open_calls(messages) else { return Vec::new() };
        let Message::Assistant(a) = &messages[at] else { return Vec::new() };
        let policy = &self.agent.config.permissions;
        a.tool_calls[answered..]
            .iter()
            .filter(|c| self.deferred.contains(&c.id) && policy.defers(c))
            .map(|c| PendingCall {
                call_id: c.id.clone(),
                tool: c.name.clone(),
                arguments: c.parse_arguments().unwrap_or_else(|_| Value::String(c.arguments.clone())),
                requested_at: self.approvals.deferred_at(),
                answered: self.approvals.decision(&c.id).is_some() || self.approvals.remembers(&c.name),
                review: self.approvals.review(&c.id).map(str::to_string),
            })
            .collect()
    }

    /// What the session knows of approvals: the answers recorded and the tools allowed
    /// for the rest of it.
    pub fn approvals(&self) -> &Approvals {
        &self.approvals
    }

    /// Records the answer to one waiting call (a later answer to the same call replaces
    /// it); the call runs, or is refused, at the next [`Session::resume`]. Edited
    /// arguments are checked against the tool's schema first. A stored session keeps the
    /// answer in its store at once, so another process may resume.
    ///
    /// Fails with [`Error::Approval`]: no such call waits, the edited arguments do not
    /// match the schema, or `remember` goes with a deny.
    pub async fn decide(&mut self, answer: Answer) -> Result<()> {
        let pending = self.pending_approvals();
        let Some(call) = pending.iter().find(|p| p.call_id == answer.call_id) else {
            return Err(ApprovalError::NotPending { call_id: answer.call_id }.into());
        };
        match &answer.decision {
            Decision::Allow { arguments: Some(args) } => self.check_arguments(&call.call_id, &call.tool, args)?,
            Decision::Deny { .. } if answer.remember => {
                return Err(ApprovalError::RememberDeny { call_id: answer.call_id }.into());
            }
            _ => {}
        }
        let mut patch = self.approvals.record(&answer);
        if answer.remember {
            crate::store::merge_json(&mut patch, self.approvals.remember(&call.tool));
        }
        let (Some(store), Some(id)) = (&self.agent.config.store, &self.id) else { return Ok(()) };
        store.merge_metadata(id, patch).await.map_err(|e| match e {
            crate::store::StoreError::Failed { store, message, source } => {
                Error::from(crate::store::StoreError::Failed {
                    store,
                    message: format!(
                        "the answer to the call `{}` of session `{id}` cannot be kept: {message}",
                        call.call_id
                    ),
                    source,
                })
            }
            other => other.into(),
        })
    }

    /// Records these answers ([`Session::decide`], stopping at the first refused) and
    /// resumes the turn: the allowed calls run, the refused ones are answered with their
    /// messages, and the model goes on. A call still without an answer defers the turn
    /// again.
    ///
    /// ```no_run
    /// # async fn demo(agent: lucid::Agent) -> lucid::Result<()> {
    /// use lucid::approval::Answer;
    /// let mut session = agent.session_with_id("job-7").await?;
    /// let result = session
    ///     .resume_with([Answer::allow("call_1").remember(), Answer::deny("call_2", "Not the production database.")])
    ///     .await?;
    /// # Ok(()) }
    /// ```
    pub async fn resume_with(&mut self, answers: impl IntoIterator<Item = Answer>) -> Result<AgentResult> {
        for answer in answers {
            self.decide(answer).await?;
        }
        self.resume().await
    }

    /// Denies every waiting call without an answer once `ttl` has passed since the calls
    /// were deferred (the model reads [`expired_denial`](crate::approval::expired_denial));
    /// the ids denied. Resume afterwards to go on.
    pub async fn expire_approvals(&mut self, ttl: Duration) -> Result<Vec<String>> {
        let now = crate::approval::now_ms();
        let due = self.approvals.deferred_at().is_some_and(|at| now.saturating_sub(at) >= ttl.as_millis() as i64);
        if !due {
            return Ok(Vec::new());
        }
        let mut denied = Vec::new();
        for call in self.pending_approvals().into_iter().filter(|c| !c.answered) {
            let message = crate::approval::expired_denial(&call.tool);
            self.decide(Answer::deny(&call.call_id, message)).await?;
            denied.push(call.call_id);
        }
        Ok(denied)
    }

    /// The session as a value ([`Session::from_state`] takes it back).
    ///
    /// ```
    /// use lucid::agent::SessionState;
    /// let model = lucid::model::ScriptedModel::new().text("Hello.");
    /// let agent = lucid::Agent::builder(model).build();
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let mut session = agent.session();
    /// session.run("Hi").await.unwrap();
    /// let json = serde_json::to_string(&session.state()).unwrap();
    /// let state: SessionState = serde_json::from_str(&json).unwrap();
    /// let again = lucid::Session::from_state(agent.clone(), state);
    /// assert_eq!(again.messages(), session.messages());
    /// # });
    /// ```
    pub fn state(&self) -> SessionState {
        let mut metadata = self.approvals.to_metadata();
        metadata.insert(DEFERRED_KEY.into(), serde_json::json!(self.deferred));
        SessionState { messages: self.context.history().to_vec(), metadata: Value::Object(metadata) }
    }

    /// A session of `agent`, kept only in memory, continuing `state`: its waiting calls
    /// still wait, its answers still hold.
    pub fn from_state(agent: crate::Agent, state: SessionState) -> Session {
        let mut s = Session::new(agent);
        let info = SessionInfo {
            id: String::new(),
            title: None,
            created_at: 0,
            updated_at: 0,
            message_count: state.messages.len(),
            metadata: state.metadata,
        };
        s.take_stored(Some(StoredSession { info, messages: state.messages }));
        s
    }

    fn check_arguments(&self, call_id: &str, tool: &str, args: &Value) -> Result<()> {
        let invalid = |problems: Vec<String>| -> Error {
            ApprovalError::InvalidArguments { call_id: call_id.into(), tool: tool.into(), problems }.into()
        };
        let Some(t) = self.agent.config.tools.get(tool) else {
            return Err(invalid(vec![format!("the agent has no tool `{tool}`")]));
        };
        if !args.is_object() {
            return Err(invalid(vec!["the arguments must be a JSON object".into()]));
        }
        let problems = crate::tool::validate::validate(t.spec().parameters(), args);
        if problems.is_empty() { Ok(()) } else { Err(invalid(problems)) }
    }
}
