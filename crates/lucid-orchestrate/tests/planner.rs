//! The planner against a scripted model server: concurrent steps, a failure, a re-plan.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use lucid::Agent;
use lucid::model::OpenAiCompatible;
use lucid_mock::{MockServer, Reply, text_completion};
use lucid_orchestrate::planner::{PlanEvent, Planner};
use serde_json::json;

fn answer(v: serde_json::Value) -> Reply {
    Reply::json(200, &text_completion(&v.to_string()))
}

fn report(success: bool, result: &str) -> Reply {
    answer(json!({"success": success, "result": result}))
}

#[tokio::test]
async fn a_failed_step_is_replanned_and_the_answer_uses_every_result() {
    // The first plan's two independent steps are held until both have arrived.
    let gate = Arc::new(tokio::sync::Barrier::new(2));
    let replans = Arc::new(AtomicUsize::new(0));
    let r = Arc::clone(&replans);
    let server = MockServer::start(move |req| {
        let prompt = req.last_user();
        if prompt.starts_with("Make a plan") {
            return answer(json!({"steps": [
                {"id": "fr", "task": "Find the area of France", "depends_on": []},
                {"id": "es", "task": "Find the area of Spain", "depends_on": []},
                {"id": "cmp", "task": "Compare the two areas", "depends_on": ["fr", "es"]}
            ]}));
        }
        if prompt.starts_with("Step `es` failed") {
            r.fetch_add(1, Ordering::SeqCst);
            return answer(json!({"steps": [
                {"id": "es2", "task": "Look up Spain's area in the atlas", "depends_on": []},
                {"id": "cmp2", "task": "Compare the two areas", "depends_on": ["fr", "es2"]}
            ]}));
        }
        if prompt.starts_with("Every step is done") {
            return Reply::json(200, &text_completion("France is larger than Spain."));
        }
        let step = prompt.lines().find_map(|l| l.strip_prefix("Your step: ")).unwrap_or_default().to_string();
        match step.as_str() {
            "Find the area of France" => report(true, "551,695 km²").behind(&gate, Duration::from_secs(10)),
            "Find the area of Spain" => {
                report(false, "the encyclopedia was unreachable").behind(&gate, Duration::from_secs(10))
            }
            "Look up Spain's area in the atlas" => report(true, "505,990 km²"),
            "Compare the two areas" => {
                assert!(prompt.contains("551,695") && prompt.contains("505,990"), "results feed later steps: {prompt}");
                report(true, "France is larger by 45,705 km²")
            }
            other => panic!("unexpected request: {other:?} in {prompt}"),
        }
    })
    .await;
    let model = Arc::new(OpenAiCompatible::new(&server.url(), None, "m").unwrap());
    let agent = Agent::builder(model).build();
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&events);
    let run = Planner::new(&agent, &agent)
        .run_with_events("Which is larger, France or Spain?", move |e| sink.lock().unwrap().push(e))
        .await
        .unwrap();
    assert_eq!(run.answer, "France is larger than Spain.");
    assert_eq!(replans.load(Ordering::SeqCst), 1);
    assert_eq!(run.plans.len(), 2);
    let ran: Vec<(&str, bool)> = run.steps.iter().map(|s| (s.id.as_str(), s.success)).collect();
    assert!(ran.contains(&("fr", true)) && ran.contains(&("es", false)));
    assert_eq!(&ran[2..], [("es2", true), ("cmp2", true)], "cmp never ran: it needed the failed step");
    let events = events.lock().unwrap();
    assert!(
        events.contains(&PlanEvent::Replanning {
            failed: "es".into(),
            reason: "the encyclopedia was unreachable".into()
        })
    );
    assert!(matches!(events.last(), Some(PlanEvent::Synthesizing)));
    // Plan, 2 + 2 steps, re-plan, answer: 7 calls of 20 prompt tokens.
    assert_eq!(run.usage.input_tokens, 7 * 20);
    let plan_request = server.requests()[0].json();
    assert_eq!(plan_request["response_format"]["json_schema"]["strict"], true);
}

#[tokio::test]
async fn failures_past_the_replan_limit_and_invalid_plans_are_clear_errors() {
    let server = MockServer::start(|req| {
        let prompt = req.last_user();
        if prompt.starts_with("Make a plan") || prompt.contains("failed") {
            answer(json!({"steps": [{"id": format!("s{}", prompt.len()), "task": "Try", "depends_on": []}]}))
        } else {
            report(false, "no luck")
        }
    })
    .await;
    let agent = Agent::builder(Arc::new(OpenAiCompatible::new(&server.url(), None, "m").unwrap())).build();
    let err = Planner::new(&agent, &agent).max_replans(1).run("Do it").await.unwrap_err();
    let plan_error = std::error::Error::source(&err).and_then(|s| s.downcast_ref::<lucid_orchestrate::PlanError>());
    assert!(matches!(plan_error, Some(lucid_orchestrate::PlanError::StepFailed { allowed: 1, .. })), "{err:?}");
    assert!(err.to_string().contains("no re-plans are left (1 allowed): no luck"), "{err}");

    let cyclic = MockServer::start(|_| {
        answer(json!({"steps": [
            {"id": "a", "task": "A", "depends_on": ["b"]},
            {"id": "b", "task": "B", "depends_on": ["a"]}
        ]}))
    })
    .await;
    let agent = Agent::builder(Arc::new(OpenAiCompatible::new(&cyclic.url(), None, "m").unwrap())).build();
    let err = Planner::new(&agent, &agent).run("Do it").await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "planning failed: the plan is still invalid after 3 tries: the steps a, b depend on each other in a cycle"
    );
    let correction = cyclic.requests()[1].last_user();
    assert!(correction.starts_with("That plan cannot run: the steps a, b depend on each other"), "{correction}");
}

#[tokio::test]
async fn an_answer_cut_off_by_the_iteration_limit_is_an_error_not_silence() {
    let server = MockServer::start(|req| {
        let prompt = req.last_user();
        if prompt.starts_with("Make a plan") {
            return answer(json!({"steps": [{"id": "a", "task": "Add 2 and 3", "depends_on": []}]}));
        }
        if prompt.starts_with("Every step is done") {
            // Instead of answering, the model calls a tool: with one call allowed, the
            // answer never comes.
            return Reply::json(
                200,
                &lucid_mock::tool_call_completion(&[("c1", "calculator", r#"{"expression":"2+3"}"#)]),
            );
        }
        report(true, "5")
    })
    .await;
    let model = Arc::new(OpenAiCompatible::new(&server.url(), None, "m").unwrap());
    let planner_agent = Agent::builder(model.clone()).tool(lucid_tools::calculator).max_iterations(1).build();
    let executor = Agent::builder(model).build();
    let err = Planner::new(&planner_agent, &executor).run("What is 2 + 3?").await.unwrap_err().to_string();
    assert!(err.contains("writing the answer reached the planning agent's limit of 1 model calls"), "{err}");
}

/// Like llama.cpp, whose grammar forces the answer when `response_format` is present: a
/// step that needs a tool still gets to call it, and reports what it computed.
#[tokio::test]
async fn steps_use_their_tools_on_a_server_that_enforces_the_report_format() {
    let server = MockServer::start(|req| {
        let body = req.json();
        let prompt = req.last_user();
        let tool_output = body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .rev()
            .find(|m| m["role"] == "tool")
            .map(|m| m["content"].as_str().unwrap().to_string());
        let formatted = body.get("response_format").is_some();
        if prompt.starts_with("Make a plan") {
            return if formatted {
                answer(
                    json!({"steps": [{"id": "sq", "task": "Compute 12 * 12 with the calculator", "depends_on": []}]}),
                )
            } else {
                Reply::json(200, &text_completion("One step: compute 12 * 12."))
            };
        }
        if prompt.starts_with("Every step is done") {
            return Reply::json(200, &text_completion("12 * 12 = 144"));
        }
        match (formatted, tool_output) {
            (true, out) => report(true, out.as_deref().unwrap_or("0")),
            (false, None) => Reply::json(
                200,
                &lucid_mock::tool_call_completion(&[("c1", "calculator", r#"{"expression": "12 * 12"}"#)]),
            ),
            (false, Some(out)) => Reply::json(200, &text_completion(&format!("The product is {out}."))),
        }
    })
    .await;
    let model = Arc::new(OpenAiCompatible::new(&server.url(), None, "m").unwrap());
    let agent = Agent::builder(model).tool(lucid_tools::calculator).build();
    let run = Planner::new(&agent, &agent).run("Compute 12 * 12 with the calculator").await.unwrap();
    assert_eq!(run.steps.len(), 1);
    assert!(run.steps[0].success);
    assert_eq!(run.steps[0].result, "144", "the calculator ran before the report");
    assert_eq!(run.answer, "12 * 12 = 144");
}
