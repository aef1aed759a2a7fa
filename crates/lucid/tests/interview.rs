//! Asking the user: `ask_user` with and without someone to answer, and the
//! `needs_interview` answer shape.

use std::sync::Arc;

use futures::FutureExt;
use futures::future::BoxFuture;
use lucid::history::validate;
use lucid::model::OpenAiCompatible;
use lucid::tool::{AskUser, Interviewer};
use lucid::{Agent, Error, StopReason};
use lucid_mock::{MockServer, Reply, text_completion, tool_call_completion};
use serde_json::json;

fn agent(server: &MockServer, ask: AskUser) -> Agent {
    Agent::builder(Arc::new(OpenAiCompatible::new(&server.url(), None, "m").unwrap())).tool(ask).build()
}

const ASK: &str = r#"{"questions": ["Which city?", "Which dates?"]}"#;

#[tokio::test]
async fn with_nobody_to_ask_the_run_stops_with_the_questions_and_the_answers_continue_it() {
    let server = MockServer::sequence(vec![
        Reply::json(200, &tool_call_completion(&[("q1", "ask_user", ASK)])),
        Reply::json(200, &text_completion("Booked Lisbon for 3-5 May.")),
    ])
    .await;
    let agent = agent(&server, AskUser::deferred());
    let mut session = agent.session();
    let r = session.run("Book me a hotel").await.unwrap();
    assert_eq!(r.stop_reason, StopReason::NeedsInput);
    assert_eq!(r.questions, ["Which city?", "Which dates?"]);
    assert_eq!(r.iterations, 1, "no second model call without the answers");
    assert!(validate(session.messages()).is_ok(), "the call has its result");
    let r = session.run("Lisbon, 3-5 May").await.unwrap();
    assert_eq!((r.stop_reason, r.content.as_str()), (StopReason::Completed, "Booked Lisbon for 3-5 May."));
    let sent = server.requests()[1].json();
    let roles: Vec<&str> = sent["messages"].as_array().unwrap().iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["user", "assistant", "tool", "user"]);
    assert_eq!(serde_json::to_value(&r).unwrap().get("questions"), None, "no questions, no field");
}

struct Scripted;

impl Interviewer for Scripted {
    fn ask<'a>(&'a self, questions: &'a [String]) -> BoxFuture<'a, Option<Vec<String>>> {
        async move { Some(questions.iter().map(|q| format!("answer to {q}")).collect()) }.boxed()
    }
}

#[tokio::test]
async fn an_interviewer_answers_within_the_run() {
    let server = MockServer::sequence(vec![
        Reply::json(200, &tool_call_completion(&[("q1", "ask_user", ASK)])),
        Reply::json(200, &text_completion("Done.")),
    ])
    .await;
    let r = agent(&server, AskUser::new(Arc::new(Scripted))).session().run("Book me a hotel").await.unwrap();
    assert_eq!(r.stop_reason, StopReason::Completed);
    let output: serde_json::Value = serde_json::from_str(r.tool_calls[0].output.as_deref().unwrap()).unwrap();
    assert_eq!(
        output,
        json!([
            {"question": "Which city?", "answer": "answer to Which city?"},
            {"question": "Which dates?", "answer": "answer to Which dates?"}
        ])
    );
}

#[tokio::test]
async fn extraction_reports_a_needs_interview_answer_as_a_typed_error() {
    #[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Booking {
        city: String,
    }
    let server = MockServer::sequence(vec![Reply::json(
        200,
        &text_completion(r#"{"needs_interview": true, "questions": ["Which city?"]}"#),
    )])
    .await;
    let agent = Agent::builder(Arc::new(OpenAiCompatible::new(&server.url(), None, "m").unwrap())).build();
    match agent.session().extract::<Booking>("Book me a hotel").await.unwrap_err() {
        Error::NeedsInput { questions } => assert_eq!(questions, ["Which city?"]),
        other => panic!("{other:?}"),
    }
    assert_eq!(server.requests().len(), 1, "a question is not a malformed answer: no corrective retry");
}

/// Asks the user for a city, and reports its progress (a tool using [`ToolContext`]).
///
/// [`ToolContext`]: lucid::tool::ToolContext
#[lucid::tool]
async fn pick_city(ctx: lucid::tool::ToolContext) -> Result<String, lucid::ToolError> {
    ctx.progress(1.0, Some(2.0), Some("asking")).await;
    let schema = json!({"type": "object", "properties": {
        "city": {"type": "string"}, "nights": {"type": "integer", "default": 2}}});
    let answer = ctx.elicit("Which city?", schema).await?;
    ctx.progress(2.0, Some(2.0), None).await;
    match answer {
        lucid::tool::Elicited::Accept(content) => Ok(serde_json::Value::Object(content).to_string()),
        other => Ok(format!("{other:?}")),
    }
}

/// Answers every question with Porto.
struct Porto;

impl lucid::tool::Elicitor for Porto {
    fn elicit(&self, question: lucid::tool::Elicitation) -> lucid::tool::ElicitFuture<'_> {
        assert_eq!((question.server.as_str(), question.message.as_str()), ("pick_city", "Which city?"));
        Box::pin(async { lucid::tool::Elicited::Accept(serde_json::Map::from_iter([("city".into(), json!("Porto"))])) })
    }
}

#[tokio::test]
async fn a_tool_asks_the_agents_elicitor_and_its_progress_streams_as_events() {
    use futures::StreamExt;
    let server = MockServer::sequence(vec![
        Reply::sse(&lucid_mock::tool_call_stream(&[("c1", "pick_city", "{}")])),
        Reply::sse(&lucid_mock::text_stream(&["Porto it is."])),
    ])
    .await;
    let model = Arc::new(OpenAiCompatible::new(&server.url(), None, "m").unwrap());
    let agent = Agent::builder(model).tool(pick_city).elicitor(Porto).build();
    let mut session = agent.session();
    let events: Vec<lucid::AgentEvent> = session.run_stream("Book a trip").collect().await;
    let progress: Vec<(f64, Option<String>)> = events
        .iter()
        .filter_map(|e| match e {
            lucid::AgentEvent::ToolProgress { id, name, done, total, message } => {
                assert_eq!((id.as_str(), name.as_str(), *total), ("c1", "pick_city", Some(2.0)));
                Some((*done, message.clone()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(progress, [(1.0, Some("asking".to_string())), (2.0, None)], "{events:?}");
    let Some(lucid::AgentEvent::Completed(r)) = events.last() else { panic!("{events:?}") };
    let output: serde_json::Value = serde_json::from_str(r.tool_calls[0].output.as_deref().unwrap()).unwrap();
    assert_eq!(output, json!({"city": "Porto", "nights": 2}), "the schema's default filled in");
}

#[tokio::test]
async fn a_tool_asking_with_nobody_to_answer_stops_the_run_with_its_question() {
    let server =
        MockServer::sequence(vec![Reply::json(200, &tool_call_completion(&[("c1", "pick_city", "{}")]))]).await;
    let model = Arc::new(OpenAiCompatible::new(&server.url(), None, "m").unwrap());
    let r = Agent::builder(model).tool(pick_city).build().session().run("Book a trip").await.unwrap();
    assert_eq!(
        (r.stop_reason, r.questions.as_slice()),
        (StopReason::NeedsInput, ["Which city?".to_string()].as_slice())
    );
}
