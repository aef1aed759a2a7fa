//! The `otel` feature: `lucid run` with `OTEL_EXPORTER_OTLP_ENDPOINT` sends its GenAI spans
//! to a collector over OTLP/HTTP (JSON here, so the test reads them as they arrive).

mod common;

use common::{test_dir, text};
use lucid_mock::{MockServer, RecordedRequest, Reply, text_completion, tool_call_completion};
use serde_json::{Value, json};

/// Every span of the collector's requests, as the exporter sent it.
fn all_spans(requests: &[RecordedRequest]) -> Vec<Value> {
    let mut out = Vec::new();
    for r in requests.iter().filter(|r| r.path == "/v1/traces") {
        let body = r.json();
        for rs in body["resourceSpans"].as_array().into_iter().flatten() {
            for ss in rs["scopeSpans"].as_array().into_iter().flatten() {
                out.extend(ss["spans"].as_array().into_iter().flatten().cloned());
            }
        }
    }
    out
}

/// OTLP's `[{key, value}]` attributes as an object (key → JSON value).
fn attributes(of: &Value) -> Value {
    let mut attrs = serde_json::Map::new();
    for a in of["attributes"].as_array().into_iter().flatten() {
        attrs.insert(a["key"].as_str().unwrap_or_default().to_string(), a["value"].clone());
    }
    Value::Object(attrs)
}

/// Every span name and its attributes in the collector's requests.
fn spans(requests: &[RecordedRequest]) -> Vec<(String, Value)> {
    all_spans(requests).iter().map(|s| (s["name"].as_str().unwrap_or_default().to_string(), attributes(s))).collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_run_sends_its_genai_spans_to_the_otlp_collector() {
    let model = MockServer::sequence(vec![
        Reply::json(200, &tool_call_completion(&[("call_1", "calculator", r#"{"expression":"2+3"}"#)])),
        Reply::json(200, &text_completion("It is 5.")),
    ])
    .await;
    let collector = MockServer::start(|_req: &RecordedRequest| Reply::json(200, &json!({}))).await;
    // The mock's URL ends in `/v1`; the exporter adds `/v1/traces` to the endpoint.
    let endpoint = collector.url().trim_end_matches("/v1").to_string();
    let dir = test_dir("otel");
    let out = common::run_in(
        &dir,
        &["run", "--base-url", &model.url(), "-m", "mock-model", "What is 2+3?"],
        &[("OTEL_EXPORTER_OTLP_ENDPOINT", &endpoint), ("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json")],
    )
    .await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout).trim(), "It is 5.");
    let spans = spans(&collector.requests());
    let mut names: Vec<&str> = spans.iter().map(|(n, _)| n.as_str()).collect();
    names.sort_unstable();
    assert_eq!(names, ["chat mock-model", "chat mock-model", "execute_tool calculator", "invoke_agent"], "{spans:?}");
    let chat = &spans.iter().find(|(n, _)| n.starts_with("chat")).unwrap().1;
    assert_eq!(chat["gen_ai.operation.name"]["stringValue"], "chat");
    assert_eq!(chat["gen_ai.request.model"]["stringValue"], "mock-model");
    assert!(chat.get("gen_ai.usage.input_tokens").is_some(), "{chat}");
    assert!(chat.get("gen_ai.input.messages").is_none(), "no content unless opted in: {chat}");
    let tool = &spans.iter().find(|(n, _)| n.starts_with("execute_tool")).unwrap().1;
    assert_eq!(tool["gen_ai.tool.call.id"]["stringValue"], "call_1");
}

/// Every span event's span name, name and attributes.
fn events(requests: &[RecordedRequest]) -> Vec<(String, String, Value)> {
    let mut out = Vec::new();
    for span in all_spans(requests) {
        let span_name = span["name"].as_str().unwrap_or_default();
        for e in span["events"].as_array().into_iter().flatten() {
            out.push((span_name.to_string(), e["name"].as_str().unwrap_or_default().to_string(), attributes(e)));
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread")]
async fn an_eval_sends_each_verdict_as_a_gen_ai_evaluation_result_in_its_case_span() {
    let model = MockServer::sequence(vec![
        Reply::json(200, &text_completion("Paris")),
        Reply::json(200, &text_completion("Lyon")),
    ])
    .await;
    let collector = MockServer::start(|_req: &RecordedRequest| Reply::json(200, &json!({}))).await;
    let endpoint = collector.url().trim_end_matches("/v1").to_string();
    let dir = test_dir("otel-eval");
    std::fs::write(
        dir.join("capitals.yaml"),
        "cases:\n  - {name: france, inputs: Capital of France?}\n  - {name: again, inputs: Capital of France?}\nevaluators: [{Contains: Paris}]\n",
    )
    .unwrap();
    let out = common::run_in(
        &dir,
        &["eval", "run", "capitals.yaml", "--base-url", &model.url(), "-m", "mock-model"],
        &[("OTEL_EXPORTER_OTLP_ENDPOINT", &endpoint), ("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json")],
    )
    .await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let events = events(&collector.requests());
    let results: Vec<_> = events.iter().filter(|(_, name, _)| name == "gen_ai.evaluation.result").collect();
    assert_eq!(results.len(), 2, "{events:?}");
    let label = |case: &str| {
        let (_, _, attrs) = results.iter().find(|(span, _, _)| span == &format!("eval {case}")).unwrap();
        assert_eq!(attrs["gen_ai.evaluation.name"]["stringValue"], "Contains");
        attrs["gen_ai.evaluation.score.label"]["stringValue"].clone()
    };
    assert_eq!(label("france"), "pass");
    assert_eq!(label("again"), "fail");
    let spans = spans(&collector.requests());
    assert!(spans.iter().any(|(n, _)| n == "invoke_agent"), "the agents' spans go out beside: {spans:?}");
}
