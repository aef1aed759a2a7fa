//! Structured output: typed answers in each provider's native form, with corrective retries.

use std::sync::Arc;

use lucid::model::{Anthropic, OpenAiCompatible};
use lucid::prelude::*;
use lucid_mock::{MockServer, Reply, text_completion, tool_call_completion};
use serde_json::json;

#[derive(Debug, PartialEq, serde::Deserialize, schemars::JsonSchema)]
struct Weather {
    /// the city asked about
    city: String,
    temp_c: i64,
    conditions: Option<String>,
}

#[tokio::test]
async fn extraction_succeeds_after_one_invalid_answer() {
    let server = MockServer::sequence(vec![
        Reply::json(200, &text_completion("Sure! {\"city\": \"Paris\", \"temp_c\": \"warm\"}")),
        Reply::json(200, &text_completion("```json\n{\"city\": \"Paris\", \"temp_c\": 18}\n```")),
    ])
    .await;
    let agent = Agent::builder(Arc::new(OpenAiCompatible::new(&server.url(), None, "m").unwrap())).build();
    let mut s = agent.session();
    let w: Weather = s.extract("Weather in Paris?").await.unwrap();
    assert_eq!(w, Weather { city: "Paris".into(), temp_c: 18, conditions: None });
    let reqs = server.requests();
    let format = &reqs[0].json()["response_format"];
    assert_eq!(format["type"], "json_schema");
    assert_eq!(format["json_schema"]["name"], "Weather");
    assert_eq!(format["json_schema"]["strict"], false, "an optional field rules strict mode out");
    assert_eq!(format["json_schema"]["schema"]["properties"]["city"]["description"], "the city asked about");
    let retry = reqs[1].json();
    let feedback = retry["messages"].as_array().unwrap().last().unwrap()["content"].as_str().unwrap().to_string();
    assert!(feedback.contains("did not match the required JSON schema: the answer is not valid JSON"), "{feedback}");
    assert!(lucid::history::validate(s.messages()).is_ok());
}

#[tokio::test]
async fn extraction_gives_up_with_a_typed_error() {
    let bad = || Reply::json(200, &text_completion("{\"city\": \"Paris\"}"));
    let server = MockServer::sequence(vec![bad(), bad()]).await;
    let agent = Agent::builder(Arc::new(OpenAiCompatible::new(&server.url(), None, "m").unwrap())).build();
    let err = agent.session().extract::<Weather>("Weather?").retries(1).await.unwrap_err();
    match err {
        lucid::Error::Extraction { attempts, message, answer } => {
            assert_eq!(attempts, 2);
            assert!(message.contains("missing required property `temp_c`"), "{message}");
            assert_eq!(answer, "{\"city\": \"Paris\"}");
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn anthropic_answers_through_a_forced_tool() {
    let server = MockServer::sequence(vec![Reply::json(
        200,
        &json!({"id": "m", "type": "message", "role": "assistant", "model": "c",
                "content": [{"type": "tool_use", "id": "toolu_1", "name": "Weather", "input": {"city": "Oslo", "temp_c": -3, "conditions": "snow"}}],
                "stop_reason": "tool_use", "usage": {"input_tokens": 10, "output_tokens": 10}}),
    )])
    .await;
    let base = server.url().trim_end_matches("/v1").to_string();
    let model = Anthropic::new("k", "claude-test").unwrap().with_base_url(&base).unwrap();
    let mut s = Agent::builder(Arc::new(model)).build().session();
    let w: Weather = s.extract("Weather in Oslo?").await.unwrap();
    assert_eq!(w.conditions.as_deref(), Some("snow"));
    let body = server.requests()[0].json();
    assert_eq!(body["tool_choice"], json!({"type": "tool", "name": "Weather"}));
    assert_eq!(body["tools"][0]["name"], "Weather");
    assert!(lucid::history::validate(s.messages()).is_ok(), "the answer is stored as text, not a dangling tool call");
    assert!(matches!(s.messages().last(), Some(Message::Assistant(a)) if a.tool_calls.is_empty()));
}

#[tokio::test]
async fn anthropic_with_other_tools_may_use_them_before_answering_through_the_schema() {
    let reply = |content: serde_json::Value, stop: &str| {
        Reply::json(
            200,
            &json!({"id": "m", "type": "message", "role": "assistant", "model": "c", "content": content,
                    "stop_reason": stop, "usage": {"input_tokens": 10, "output_tokens": 10}}),
        )
    };
    let server = MockServer::sequence(vec![
        reply(
            json!([{"type": "tool_use", "id": "toolu_1", "name": "calculator", "input": {"expression": "20 - 23"}}]),
            "tool_use",
        ),
        reply(
            json!([{"type": "tool_use", "id": "toolu_2", "name": "Weather", "input": {"city": "Oslo", "temp_c": -3}}]),
            "tool_use",
        ),
    ])
    .await;
    let base = server.url().trim_end_matches("/v1").to_string();
    let model = Anthropic::new("k", "claude-test").unwrap().with_base_url(&base).unwrap();
    let agent = Agent::builder(Arc::new(model)).tool(lucid_tools::calculator).build();
    let w: Weather = agent.session().extract("Weather in Oslo, 23 degrees colder than 20?").await.unwrap();
    assert_eq!(w.temp_c, -3);
    let first = server.requests()[0].json();
    assert_eq!(first["tool_choice"], json!({"type": "any"}), "forcing the schema's tool would rule the calculator out");
    let names: Vec<&str> = first["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["calculator", "Weather"]);
}

/// A model behind a server that enforces `response_format` with a grammar, as llama.cpp
/// does: a request carrying it gets only JSON in that shape (whatever tools it offers).
/// Without it, the model computes with the calculator, then says the result in words.
fn grammar_bound(req: &lucid_mock::RecordedRequest) -> Reply {
    let body = req.json();
    let messages = body["messages"].as_array().unwrap();
    let tool_output = messages.iter().rev().find(|m| m["role"] == "tool").map(|m| m["content"].as_str().unwrap());
    if body.get("response_format").is_some() {
        let result = tool_output.unwrap_or("0");
        return Reply::json(200, &text_completion(&json!({"result": result, "success": true}).to_string()));
    }
    match tool_output {
        None => Reply::json(200, &tool_call_completion(&[("c1", "calculator", r#"{"expression": "12 * 12"}"#)])),
        Some(out) => Reply::json(200, &text_completion(&format!("12 * 12 is {out}."))),
    }
}

#[tokio::test]
async fn with_tools_on_a_grammar_bound_server_the_tools_run_first_and_the_report_comes_last() {
    let server = MockServer::start(grammar_bound).await;
    let agent =
        Agent::builder(OpenAiCompatible::new(&server.url(), None, "m").unwrap()).tool(lucid_tools::calculator).build();
    let format = lucid::model::ResponseFormat::JsonSchema {
        name: "report".into(),
        schema: json!({"type": "object", "properties": {"result": {"type": "string"}, "success": {"type": "boolean"}},
                       "required": ["result", "success"]}),
        strict: false,
    };
    let mut s = agent.session();
    let v = s.extract_json("Compute 12 * 12 with the calculator", format).await.unwrap();
    assert_eq!(v, json!({"result": "144", "success": true}));
    let reqs: Vec<serde_json::Value> = server.requests().iter().map(|r| r.json()).collect();
    assert_eq!(reqs.len(), 3, "tool call, the answer in words, the report");
    for r in &reqs[..2] {
        assert!(r.get("response_format").is_none() && r["tools"].is_array(), "tools without the format: {r}");
    }
    assert!(reqs[2]["response_format"].is_object() && reqs[2].get("tools").is_none(), "the format without tools");
    // The answer in words is not kept: the report is the turn's answer.
    let last = s.messages().last().unwrap();
    assert_eq!(last.text(), r#"{"result":"144","success":true}"#);
    assert!(lucid::history::validate(s.messages()).is_ok());
}

#[tokio::test]
async fn an_answer_that_already_matches_the_schema_needs_no_report_call() {
    let server = MockServer::sequence(vec![
        Reply::json(200, &tool_call_completion(&[("c1", "calculator", r#"{"expression": "2 + 2"}"#)])),
        Reply::json(200, &text_completion(r#"{"result": "4", "success": true}"#)),
    ])
    .await;
    let agent =
        Agent::builder(OpenAiCompatible::new(&server.url(), None, "m").unwrap()).tool(lucid_tools::calculator).build();
    let format = lucid::model::ResponseFormat::JsonObject;
    let v = agent.session().extract_json("2 + 2?", format).await.unwrap();
    assert_eq!(v["result"], "4");
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn a_model_that_never_stops_calling_tools_still_reports_at_the_iteration_limit() {
    // Like a small local model: calls the calculator again and again; the grammar forces
    // the report when the format is present.
    let server = MockServer::start(|req| {
        let body = req.json();
        if body.get("response_format").is_some() {
            return Reply::json(200, &text_completion(r#"{"result": "144", "success": true}"#));
        }
        Reply::json(200, &tool_call_completion(&[("c", "calculator", r#"{"expression": "12 * 12"}"#)]))
    })
    .await;
    let agent = Agent::builder(OpenAiCompatible::new(&server.url(), None, "m").unwrap())
        .tool(lucid_tools::calculator)
        .max_iterations(3)
        .build();
    let mut s = agent.session();
    let v = s.extract_json("Compute 12 * 12", lucid::model::ResponseFormat::JsonObject).await.unwrap();
    assert_eq!(v["result"], "144");
    assert_eq!(server.requests().len(), 4, "three calls with tools, then the report");
    assert!(lucid::history::validate(s.messages()).is_ok());
}
