//! A workflow whose agent step calls a tool marked `ask`, on a policy that defers its
//! asks, stops with the calls waiting; the paused workflow is a value (serialized and read
//! back, as a program would store it), takes answers — allow, deny with a message the
//! model reads, edited arguments checked against the schema, expiry — and resumes from
//! that step: the finished steps are not run again and their outputs stand.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use lucid::approval::{Answer, ApprovalError};
use lucid::message::AssistantMessage;
use lucid::model::ScriptedModel;
use lucid::prelude::*;
use lucid::tool::permission::{Permission, PermissionPolicy};
use lucid_orchestrate::workflow::{PausedWorkflow, Step, Workflow};
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

fn agent(model: &ScriptedModel) -> Agent {
    Agent::builder(model.clone())
        .tool(echo)
        .permissions(PermissionPolicy::allow_all().set("echo", Permission::Ask).defer_asks(true))
        .build()
}

/// `first` (counted), the agent step `act`, then `after` (counted) reading `act`.
fn flow(model: &ScriptedModel, first: &Arc<AtomicUsize>, after: &Arc<AtomicUsize>) -> Workflow {
    let (first, after) = (Arc::clone(first), Arc::clone(after));
    Workflow::new("approve")
        .input("topic")
        .step(Step::func("first", move |i| {
            first.fetch_add(1, Ordering::SeqCst);
            let topic = i.input("topic").cloned();
            async move { Ok(json!({"topic": topic})) }
        }))
        .step(Step::agent("act", &agent(model), "Work on {{ first.topic }}."))
        .step(Step::func("after", move |i| {
            after.fetch_add(1, Ordering::SeqCst);
            let act = i.get("act").cloned();
            async move { Ok(json!({"act": act})) }
        }))
}

/// Serialized and read back, as a program keeps it between processes.
fn stored(paused: &PausedWorkflow) -> PausedWorkflow {
    let text = serde_json::to_string(paused).unwrap();
    let back: PausedWorkflow = serde_json::from_str(&text).unwrap();
    assert_eq!(&back, paused);
    back
}

#[tokio::test]
async fn a_step_waiting_for_approval_pauses_the_workflow_and_resumes_from_that_step() {
    let model = script(vec![
        calls(&[("c1", json!({"text": "a"})), ("c2", json!({"text": "b"})), ("c3", json!({"text": "c"}))]),
        AssistantMessage::text("three answered"),
    ]);
    let (first, after) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let flow = flow(&model, &first, &after);
    let run = flow.run(json!({"topic": "tides"})).await.unwrap();
    assert!(run.is_paused());
    assert_eq!(run.output, serde_json::Value::Null);
    assert_eq!(run.outputs["first"], json!({"topic": "tides"}), "the finished step's output is there");
    assert!(!run.outputs.contains_key("after"));
    assert_eq!((first.load(Ordering::SeqCst), after.load(Ordering::SeqCst)), (1, 0));
    let mut paused = stored(run.paused.as_ref().unwrap());
    let pending = paused.pending_approvals();
    assert_eq!(pending.len(), 3);
    assert_eq!((pending[0].step.as_str(), pending[0].path.as_str()), ("act", "act"));
    assert_eq!(pending[2].call.call_id, "c3");
    assert_eq!(pending[2].call.arguments, json!({"text": "c"}));
    assert!(pending.iter().all(|p| !p.call.answered));

    // Refused answers: an unknown call, edited arguments that do not match the schema.
    let err = paused.decide(&flow, Answer::allow("c9")).await.unwrap_err();
    assert!(matches!(err, lucid::Error::Approval(ApprovalError::NotPending { .. })), "{err}");
    let err = paused.decide(&flow, Answer::edit("c3", json!({"text": 5}))).await.unwrap_err();
    assert!(matches!(err, lucid::Error::Approval(ApprovalError::InvalidArguments { .. })), "{err}");

    paused.decide(&flow, Answer::allow("c1")).await.unwrap();
    paused.decide(&flow, Answer::deny("c2", "Not b.")).await.unwrap();
    paused.decide(&flow, Answer::edit("c3", json!({"text": "edited"}))).await.unwrap();
    assert!(paused.pending_approvals().iter().all(|p| p.call.answered));
    let paused = stored(&paused);

    let run = flow.resume(paused).await.unwrap();
    assert!(!run.is_paused());
    assert_eq!(run.output, json!({"act": "three answered"}));
    assert_eq!(run.outputs["first"], json!({"topic": "tides"}));
    assert_eq!(run.outputs["act"], json!("three answered"));
    assert_eq!((first.load(Ordering::SeqCst), after.load(Ordering::SeqCst)), (1, 1), "first did not run again");
    assert_eq!(
        model.last_tool_results(),
        [("c1".into(), "echo: a".into()), ("c2".into(), "Not b.".into()), ("c3".into(), "echo: edited".into())]
    );
    assert_eq!(model.requests().len(), 2, "the step went on from its waiting calls, not from its prompt");
    let names: Vec<&str> = run.steps.iter().map(|s| s.step.as_str()).collect();
    assert_eq!(names, ["first", "act", "after"], "the records of the first run are kept");
}

#[tokio::test]
async fn an_unanswered_call_pauses_again_and_expiry_denies_it() {
    let model = script(vec![
        calls(&[("c1", json!({"text": "a"})), ("c2", json!({"text": "b"}))]),
        AssistantMessage::text("both answered"),
    ]);
    let (first, after) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let flow = flow(&model, &first, &after);
    let paused = flow.run(json!({"topic": "x"})).await.unwrap().paused.unwrap();

    let run = flow.resume_with(paused, [Answer::allow("c1")]).await.unwrap();
    let mut paused = run.paused.expect("c2 has no answer: still waiting");
    let pending = paused.pending_approvals();
    // The allowed call ran; the other still waits.
    assert_eq!(pending.iter().map(|p| (p.call.call_id.as_str(), p.call.answered)).collect::<Vec<_>>(), [("c2", false)]);
    assert_eq!(model.requests().len(), 1);

    assert!(paused.expire_approvals(&flow, Duration::from_secs(3600)).await.unwrap().is_empty(), "not due yet");
    assert_eq!(paused.expire_approvals(&flow, Duration::ZERO).await.unwrap(), ["c2"]);
    let run = flow.resume(paused).await.unwrap();
    assert_eq!(run.output, json!({"act": "both answered"}));
    let results = model.last_tool_results();
    assert_eq!(results[0], ("c1".to_string(), "echo: a".to_string()));
    assert_eq!(results[1].1, lucid::approval::expired_denial("echo"));
    assert_eq!(first.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn parallel_and_loop_steps_keep_what_finished_beside_the_waiting_one() {
    let waiting = script(vec![calls(&[("w1", json!({"text": "w"}))]), AssistantMessage::text("waited")]);
    let quick = script(vec![AssistantMessage::text("quick")]);
    let looped = script(vec![
        AssistantMessage::text("round 1"),
        calls(&[("l1", json!({"text": "l"}))]),
        AssistantMessage::text("round 2"),
    ]);
    let quick_agent = Agent::builder(quick.clone()).build();
    let flow = Workflow::new("groups")
        .step(Step::parallel(
            "both",
            vec![Step::agent("slow", &agent(&waiting), "slow"), Step::agent("fast", &quick_agent, "fast")],
        ))
        .step(Step::repeat(
            "rounds",
            vec![Step::agent("round", &agent(&looped), "round {{ rounds.iteration }}")],
            lucid_orchestrate::workflow::Condition::equals("round", "round 2"),
            3,
        ));
    let run = flow.run(json!({})).await.unwrap();
    let paused = stored(run.paused.as_ref().unwrap());
    assert_eq!(paused.pending_approvals()[0].path, "both.slow");
    assert_eq!(quick.requests().len(), 1, "the sibling finished");

    let run = flow.resume_with(paused, [Answer::allow("w1")]).await.unwrap();
    let paused = stored(run.paused.as_ref().expect("the loop's second round waits"));
    assert_eq!(run.outputs["both"], json!({"slow": "waited", "fast": "quick"}));
    assert_eq!(paused.pending_approvals()[0].path, "rounds.2.round");
    assert_eq!(quick.requests().len(), 1, "the finished sibling did not run again");

    let run = flow.resume_with(paused, [Answer::deny("l1", "No.")]).await.unwrap();
    assert!(!run.is_paused());
    assert_eq!(run.output, json!("round 2"));
    assert_eq!(run.outputs["both"], json!({"slow": "waited", "fast": "quick"}));
    assert_eq!(looped.requests().len(), 3, "round 1 did not run again");
    assert_eq!(looped.last_tool_results(), [("l1".to_string(), "No.".to_string())]);
}

#[tokio::test]
async fn a_paused_workflow_resumes_only_with_its_own_workflow() {
    let model = script(vec![calls(&[("c1", json!({"text": "a"}))])]);
    let (first, after) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let paused = flow(&model, &first, &after).run(json!({"topic": "x"})).await.unwrap().paused.unwrap();
    let other = Workflow::new("other").step(Step::value("v", json!(1)));
    let err = other.resume(paused.clone()).await.unwrap_err();
    assert!(err.to_string().contains("resume it with the workflow that paused"), "{err}");
    let mut paused = paused;
    let err = paused.decide(&other, Answer::allow("c1")).await.unwrap_err();
    assert!(err.to_string().contains("resume it with the workflow that paused"), "{err}");
}
