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
