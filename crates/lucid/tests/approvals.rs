//! Approvals as a run state: a call whose permission is `ask`, on a policy that defers its
//! asks, ends the turn `Deferred`; the session keeps the pending calls in its store, and a
//! new `Session` (another process, as far as the store knows) records answers — allow,
//! deny with a message the model reads, edited arguments checked against the schema,
//! remember, expiry — and resumes.

mod common;

use std::sync::Arc;
use std::time::Duration;

use lucid::approval::{Answer, ApprovalError};
use lucid::message::AssistantMessage;
use lucid::model::ScriptedModel;
use lucid::prelude::*;
use lucid::store::SessionStore;
use lucid::tool::permission::{Permission, PermissionPolicy};
use lucid_sqlite::SqliteStore;
use serde_json::json;

/// A scripted model answering `lines` in order, then "(script over)".
fn script(lines: Vec<AssistantMessage>) -> ScriptedModel {
    ScriptedModel::new().answers(lines).otherwise(AssistantMessage::text("(script over)"))
}

/// An answer calling `echo` with these call ids and arguments.
fn calls(calls: &[(&str, serde_json::Value)]) -> AssistantMessage {
    AssistantMessage::calling(calls.iter().map(|(id, args)| ToolCall::new(*id, "echo", args.clone())))
}

/// Echoes its text.
#[lucid::tool]
async fn echo(text: String) -> Result<String, ToolError> {
    Ok(format!("echo: {text}"))
}

fn agent(model: &ScriptedModel, store: Arc<dyn SessionStore>) -> Agent {
    Agent::builder(model.clone())
        .tool(echo)
        .permissions(PermissionPolicy::allow_all().set("echo", Permission::Ask).defer_asks(true))
        .store(store)
        .build()
}

fn sqlite_store(name: &str) -> Arc<dyn SessionStore> {
    let dir = std::env::temp_dir().join(format!("lucid-approvals-{name}-{}-{}", std::process::id(), fastrand()));
    std::fs::create_dir_all(&dir).unwrap();
    Arc::new(SqliteStore::open(dir.join("s.db")).unwrap())
}

fn fastrand() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64
}

/// Allow, deny with a message, edit (valid and schema-invalid), an unknown call, then
/// remember: each answer recorded by a fresh session, the resume by another.
async fn allow_deny_edit_remember(store: Arc<dyn SessionStore>, id: &str) {
    let model = script(vec![
        calls(&[("c1", json!({"text": "a"})), ("c2", json!({"text": "b"})), ("c3", json!({"text": "c"}))]),
        AssistantMessage::text("three answered"),
        calls(&[("c4", json!({"text": "d"})), ("c4b", json!({"text": "dd"}))]),
        AssistantMessage::text("four done"),
        calls(&[("c5", json!({"text": "e"}))]),
        AssistantMessage::text("five done"),
    ]);
    let agent = agent(&model, store);
    let r = agent.session_with_id(id).await.unwrap().run("go").await.unwrap();
    assert_eq!(r.stop_reason, StopReason::Deferred);
    assert_eq!(r.deferred.iter().map(|c| c.id.as_str()).collect::<Vec<_>>(), ["c1", "c2", "c3"]);

    let mut s = agent.session_with_id(id).await.unwrap();
    let pending = s.pending_approvals();
    assert_eq!(pending.len(), 3);
    assert_eq!((pending[1].call_id.as_str(), pending[1].tool.as_str()), ("c2", "echo"));
    assert_eq!(pending[1].arguments, json!({"text": "b"}));
    assert!(pending[0].requested_at.is_some() && !pending[0].answered);
    s.decide(Answer::allow("c1")).await.unwrap();
    s.decide(Answer::deny("c2", "Not b, use c.")).await.unwrap();
    for bad in [json!({"text": 5}), json!({"other": "x"}), json!("a string")] {
        let e = s.decide(Answer::edit("c3", bad.clone())).await.unwrap_err();
        assert!(
            matches!(&e, lucid::Error::Approval(ApprovalError::InvalidArguments { call_id, .. }) if call_id == "c3"),
            "{bad}: {e}"
        );
    }
    let e = s.decide(Answer::allow("nope")).await.unwrap_err();
    assert!(matches!(e, lucid::Error::Approval(ApprovalError::NotPending { .. })), "{e}");

    // Two of three answered: a resume runs those before the unanswered one and defers again.
    let mut again = agent.session_with_id(id).await.unwrap();
    assert!(again.pending_approvals()[0].answered);
    let r = again.resume().await.unwrap();
    assert_eq!(r.stop_reason, StopReason::Deferred);
    assert_eq!(model.requests().len(), 1, "no model call while a call waits");
    assert_eq!(again.pending_approvals().iter().map(|p| p.call_id.as_str()).collect::<Vec<_>>(), ["c3"]);

    let mut last = agent.session_with_id(id).await.unwrap();
    let r = last.resume_with([Answer::edit("c3", json!({"text": "C"}))]).await.unwrap();
    assert_eq!(r.stop_reason, StopReason::Completed);
    assert_eq!(r.content, "three answered");
    assert_eq!(
        model.last_tool_results(),
        [
            ("c1".to_string(), "echo: a".to_string()),
            ("c2".into(), "Not b, use c.".into()),
            ("c3".into(), "echo: C".into())
        ],
        "the model reads the allowed output, the denial's message and the edited call's output"
    );
    assert!(last.pending_approvals().is_empty());
    let meta = store_metadata(&agent, id).await;
    assert!(meta.as_object().unwrap().keys().all(|k| !k.starts_with("approval:")), "answers forgotten: {meta}");

    // Remember: allowed for the rest of the session, in any process.
    let r = last.run("again").await.unwrap();
    assert_eq!(r.stop_reason, StopReason::Deferred);
    let e = last.decide(Answer::deny("c4", "no").remember()).await.unwrap_err();
    assert!(matches!(e, lucid::Error::Approval(ApprovalError::RememberDeny { .. })), "{e}");
    last.decide(Answer::allow("c4").remember()).await.unwrap();
    assert!(last.pending_approvals().iter().all(|p| p.answered), "the other call of the tool is answered too");
    let r = last.resume().await.unwrap();
    assert_eq!(r.content, "four done");
    let results = model.last_tool_results();
    assert_eq!(
        results[results.len() - 2..],
        [("c4".to_string(), "echo: d".to_string()), ("c4b".into(), "echo: dd".into())]
    );
    let r = agent.session_with_id(id).await.unwrap().run("once more").await.unwrap();
    assert_eq!((r.stop_reason, r.content.as_str()), (StopReason::Completed, "five done"));
    assert_eq!(r.tool_calls[0].output.as_deref(), Some("echo: e"));
}

async fn store_metadata(agent: &Agent, id: &str) -> serde_json::Value {
    agent.store().unwrap().load(id).await.unwrap().unwrap().info.metadata
}

#[tokio::test]
async fn answers_recorded_by_one_session_let_another_resume_on_sqlite() {
    allow_deny_edit_remember(sqlite_store("flow"), "job").await;
}

#[tokio::test]
async fn answers_recorded_by_one_session_let_another_resume_on_postgres() {
    let Some(url) = common::postgres_url() else { return };
    let store = Arc::new(lucid_postgres::PostgresStore::connect(&url).await.unwrap());
    allow_deny_edit_remember(store, &format!("approvals-{}-{}", std::process::id(), fastrand())).await;
}

#[tokio::test]
async fn an_unanswered_call_expires_into_a_denial_the_model_reads() {
    let model = script(vec![calls(&[("c1", json!({"text": "a"}))]), AssistantMessage::text("gave up")]);
    let agent = agent(&model, sqlite_store("expire"));
    let r = agent.session_with_id("e").await.unwrap().run("go").await.unwrap();
    assert_eq!(r.stop_reason, StopReason::Deferred);
    let mut s = agent.session_with_id("e").await.unwrap();
    assert!(s.expire_approvals(Duration::from_secs(3600)).await.unwrap().is_empty(), "not due yet");
    assert_eq!(s.expire_approvals(Duration::ZERO).await.unwrap(), ["c1"]);
    let r = agent.session_with_id("e").await.unwrap().resume().await.unwrap();
    assert_eq!(r.content, "gave up");
    assert_eq!(model.last_tool_results()[0].1, lucid::approval::expired_denial("echo"));
}

#[tokio::test]
async fn without_defer_asks_nobody_to_ask_still_means_no() {
    let model = script(vec![calls(&[("c1", json!({"text": "a"}))]), AssistantMessage::text("done")]);
    let agent = Agent::builder(model.clone())
        .tool(echo)
        .permissions(PermissionPolicy::allow_all().set("echo", Permission::Ask))
        .build();
    let mut s = agent.session();
    let r = s.run("go").await.unwrap();
    assert_eq!(r.stop_reason, StopReason::Completed);
    assert!(r.tool_calls[0].output.as_deref().unwrap().contains("nobody can give it here"));
    assert!(s.pending_approvals().is_empty());
}

#[tokio::test]
async fn an_unsaved_session_keeps_its_pending_calls_in_memory() {
    let model = script(vec![calls(&[("c1", json!({"text": "a"}))]), AssistantMessage::text("done")]);
    let agent = Agent::builder(model.clone())
        .tool(echo)
        .permissions(PermissionPolicy::allow_all().set("echo", Permission::Ask).defer_asks(true))
        .build();
    let mut s = agent.session();
    assert_eq!(s.run("go").await.unwrap().stop_reason, StopReason::Deferred);
    assert_eq!(s.pending_approvals().len(), 1);
    let r = s.resume_with([Answer::allow("c1")]).await.unwrap();
    assert_eq!((r.content.as_str(), r.tool_calls[0].output.as_deref()), ("done", Some("echo: a")));
}

#[tokio::test]
async fn a_rule_that_asks_defers_only_the_calls_it_matches() {
    use lucid::tool::permission::Rule;
    // `echo` asks, but `echo(text=safe*)` is allowed: that call runs, the other waits.
    let model = script(vec![
        calls(&[("c1", json!({"text": "safe one"})), ("c2", json!({"text": "risky"}))]),
        AssistantMessage::text("done"),
    ]);
    let policy = PermissionPolicy::allow_all()
        .set("echo", Permission::Ask)
        .rule(Rule::parse(Permission::Allow, "echo(text=safe*)").unwrap())
        .defer_asks(true);
    let agent = Agent::builder(model.clone()).tool(echo).permissions(policy).build();
    let mut s = agent.session();
    let r = s.run("go").await.unwrap();
    assert_eq!(r.stop_reason, StopReason::Deferred);
    assert_eq!(r.tool_calls[0].output.as_deref(), Some("echo: safe one"), "the allowed call ran");
    let pending = s.pending_approvals();
    assert_eq!(pending.iter().map(|p| p.call_id.as_str()).collect::<Vec<_>>(), ["c2"]);
    let r = s.resume_with([Answer::deny("c2", "No risks.")]).await.unwrap();
    assert_eq!(r.content, "done");
    assert_eq!(model.last_tool_results()[1], ("c2".to_string(), "No risks.".to_string()));
}
