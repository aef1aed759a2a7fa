//! Teams against a scripted model server: each member is told apart by its system prompt.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use lucid::Agent;
use lucid::model::OpenAiCompatible;
use lucid_mock::{MockServer, RecordedRequest, Reply, text_completion, tool_call_completion};
use lucid_orchestrate::team::{Team, TeamEvent, Via};
use serde_json::{Value, json};

fn system(req: &RecordedRequest) -> String {
    req.json()["messages"][0]["content"].as_str().unwrap_or_default().to_string()
}

fn messages(req: &RecordedRequest) -> Vec<Value> {
    req.json()["messages"].as_array().cloned().unwrap_or_default()
}

/// Whether the request already carries a tool result (the member's second call).
fn has_tool_result(req: &RecordedRequest) -> bool {
    messages(req).iter().any(|m| m["role"] == "tool")
}

fn text(s: &str) -> Reply {
    Reply::json(200, &text_completion(s))
}

fn member(server: &MockServer, system: &str) -> Agent {
    Agent::builder(Arc::new(OpenAiCompatible::new(&server.url(), None, "m").unwrap())).system(system).build()
}

#[tokio::test]
async fn a_supervisor_delegates_to_two_members_at_once_and_every_run_is_reported() {
    let gate = Arc::new(tokio::sync::Barrier::new(2));
    let server = MockServer::start(move |req| match system(req).as_str() {
        "lead" if !has_tool_result(req) => Reply::json(
            200,
            &tool_call_completion(&[
                ("c1", "researcher", r#"{"task": "Facts on bicycles"}"#),
                ("c2", "writer", r#"{"task": "A title on bicycles"}"#),
            ]),
        ),
        "lead" => {
            let results: Vec<String> = messages(req)
                .iter()
                .filter(|m| m["role"] == "tool")
                .map(|m| m["content"].as_str().unwrap_or_default().to_string())
                .collect();
            text(&format!("Report: {}", results.join(" | ")))
        }
        "researcher" => text("Invented in 1817").behind(&gate, Duration::from_secs(10)),
        "writer" => text("Two Wheels").behind(&gate, Duration::from_secs(10)),
        other => panic!("unknown member {other}"),
    })
    .await;
    let team = Team::new()
        .member("lead", &member(&server, "lead"), "Coordinates.")
        .member("researcher", &member(&server, "researcher"), "Finds facts.")
        .member("writer", &member(&server, "writer"), "Writes titles.")
        .delegates("lead", ["researcher", "writer"]);
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&events);
    let run = team
        .run_with_events("lead", "A short report on bicycles", move |e| sink.lock().unwrap().push(e))
        .await
        .unwrap();
    assert_eq!(run.content, "Report: Invented in 1817 | Two Wheels");
    assert_eq!(run.final_agent, "lead");
    assert_eq!(run.model_calls, 4);
    let who: Vec<(&str, Option<&str>, usize, Via)> =
        run.runs.iter().map(|r| (r.agent.as_str(), r.parent.as_deref(), r.depth, r.via)).collect();
    assert_eq!(who.len(), 3);
    assert!(who.contains(&("researcher", Some("lead"), 1, Via::Delegation)));
    assert!(who.contains(&("writer", Some("lead"), 1, Via::Delegation)));
    assert_eq!(who[2], ("lead", None, 0, Via::Start), "the supervisor finishes last");
    assert_eq!(run.runs[2].tool_calls[0].output.as_deref(), Some("Invented in 1817"));
    assert_eq!(run.usage_by_agent["lead"].input_tokens, 30 + 20);
    assert_eq!(run.usage_by_agent["researcher"].input_tokens, 20);
    assert_eq!(run.usage.input_tokens, 30 + 20 + 20 + 20);
    let started: Vec<String> = events
        .lock()
        .unwrap()
        .iter()
        .filter_map(|e| match e {
            TeamEvent::AgentStarted { agent, .. } => Some(agent.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(started[0], "lead");
    assert_eq!(started.len(), 3);
    // The delegate received the task as its prompt, under its own system prompt.
    let delegated = server.requests().into_iter().find(|r| system(r) == "researcher").unwrap();
    assert_eq!(messages(&delegated)[1], json!({"role": "user", "content": "Facts on bicycles"}));
    let lead_tools = server.requests()[0].json()["tools"].clone();
    assert_eq!(lead_tools[0]["function"]["name"], "researcher");
    assert_eq!(lead_tools[0]["function"]["parameters"]["required"], json!(["task"]));
}

/// Members `a` and `b` that keep delegating to each other.
async fn ping_pong() -> (MockServer, Team) {
    let server = MockServer::start(|req| {
        let to = if system(req) == "a" { "b" } else { "a" };
        Reply::json(200, &tool_call_completion(&[("c1", to, r#"{"task": "go on"}"#)]))
    })
    .await;
    let team = Team::new()
        .member("a", &member(&server, "a"), "A.")
        .member("b", &member(&server, "b"), "B.")
        .delegates("a", ["b"])
        .delegates("b", ["a"]);
    (server, team)
}

#[tokio::test]
async fn runaway_delegation_stops_at_the_depth_limit_with_a_clear_error() {
    let (server, team) = ping_pong().await;
    let team = team.max_depth(2);
    let err = team.run("a", "start").await.unwrap_err();
    let team_error = std::error::Error::source(&err).and_then(|s| s.downcast_ref::<lucid_orchestrate::TeamError>());
    assert!(matches!(team_error, Some(lucid_orchestrate::TeamError::TooDeep { depth: 3, limit: 2, .. })), "{err:?}");
    assert_eq!(
        err.to_string(),
        "delegation from `a` to `b` would go 3 levels deep; the limit is 2 (raise it with Team::max_depth)"
    );
    assert_eq!(server.requests().len(), 3, "a (0), b (1), a (2); the third delegation is refused");
}

#[tokio::test]
async fn the_team_budget_of_model_calls_is_enforced() {
    let (server, team) = ping_pong().await;
    let team = team.max_depth(10).max_model_calls(12);
    let err = team.run("a", "start").await.unwrap_err();
    assert!(err.to_string().contains("budget of 12 model calls is spent"), "{err}");
    assert!(server.requests().len() <= 12);
}

#[tokio::test]
async fn a_hand_off_passes_the_conversation_to_the_next_member() {
    let server = MockServer::start(|req| match system(req).as_str() {
        "triage" => Reply::json(200, &tool_call_completion(&[("h1", "transfer_to_billing", "{}")])),
        "billing" => {
            let m = messages(req);
            assert_eq!(m[1], json!({"role": "user", "content": "I was charged twice"}), "{m:?}");
            assert!(m.iter().all(|x| x["content"] != "triage"), "the first member's prompt stays behind");
            text("Refunded the second charge.")
        }
        other => panic!("unknown member {other}"),
    })
    .await;
    let team = Team::new()
        .member("triage", &member(&server, "triage"), "Sorts requests.")
        .member("billing", &member(&server, "billing"), "Handles payments.")
        .handoffs("triage", ["billing"]);
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&events);
    let run =
        team.run_with_events("triage", "I was charged twice", move |e| sink.lock().unwrap().push(e)).await.unwrap();
    assert_eq!(run.content, "Refunded the second charge.");
    assert_eq!(run.final_agent, "billing");
    assert_eq!(run.runs[1].via, Via::Handoff);
    assert_eq!(run.runs[1].parent.as_deref(), Some("triage"));
    assert!(events.lock().unwrap().contains(&TeamEvent::HandedOff { from: "triage".into(), to: "billing".into() }));
    assert_eq!(server.requests().len(), 2, "triage stopped after its transfer call");
    let billing = &server.requests()[1];
    let tool_msg = messages(billing).into_iter().find(|m| m["role"] == "tool").unwrap();
    assert!(tool_msg["content"].as_str().unwrap().starts_with("Transferred to `billing`"));
}

#[tokio::test]
async fn the_router_picks_a_member_by_a_classification_call() {
    let server = MockServer::start(|req| match system(req).as_str() {
        "router" => Reply::json(200, &text_completion(r#"{"agent": "tech", "reason": "a device problem"}"#)),
        "tech" => text("Hold the power button for 10 seconds."),
        other => panic!("unexpected {other}"),
    })
    .await;
    let team = Team::new()
        .member("billing", &member(&server, "billing"), "Payments and refunds.")
        .member("tech", &member(&server, "tech"), "Devices that do not work.")
        .router(&member(&server, "router"));
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&events);
    let run = team.route_with_events("My phone will not start", move |e| sink.lock().unwrap().push(e)).await.unwrap();
    assert_eq!(run.final_agent, "tech");
    assert_eq!(run.content, "Hold the power button for 10 seconds.");
    assert!(
        events.lock().unwrap().contains(&TeamEvent::Routed { agent: "tech".into(), reason: "a device problem".into() })
    );
    let routing = server.requests()[0].json();
    assert_eq!(
        routing["response_format"]["json_schema"]["schema"]["properties"]["agent"]["enum"],
        json!(["billing", "tech"])
    );
    assert_eq!(run.usage_by_agent.keys().collect::<Vec<_>>(), ["router", "tech"]);
}

#[tokio::test]
async fn unknown_members_and_clashing_tool_names_are_refused() {
    let server = MockServer::sequence(vec![]).await;
    let team = Team::new().member("a", &member(&server, "a"), "A.").delegates("a", ["ghost"]);
    assert_eq!(
        team.run("a", "x").await.unwrap_err().to_string(),
        "team member `a` refers to `ghost`, which is not a member"
    );
    let with_tool = Agent::builder(Arc::new(OpenAiCompatible::new(&server.url(), None, "m").unwrap()))
        .tool(lucid_tools::calculator)
        .build();
    let team = Team::new()
        .member("a", &with_tool, "A.")
        .member("calculator", &member(&server, "c"), "C.")
        .delegates("a", ["calculator"]);
    assert!(team.run("a", "x").await.unwrap_err().to_string().contains("already has a tool named `calculator`"));
    assert!(server.requests().is_empty());
}
