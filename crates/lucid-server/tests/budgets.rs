//! Budgets through the HTTP API: a tenant's daily budget (429 `quota_exceeded` naming the
//! limit once spent, another tenant unaffected, the runs and chat completions alike), a
//! run stopped by its agent's budget with the spend in its result, the cost in every
//! result and in the metrics. On SQLite and on the real PostgreSQL
//! (`LUCID_TEST_POSTGRES_URL`). The day is checked before every model call (a long run
//! stops cleanly, `budget_exceeded`, once it is spent) and counted as each call is
//! answered (the calls of a completion dropped with its client count).

mod common;

use common::{Api, start, start_on, temp_dir};
use lucid::Agent;
use lucid::agent::budget::{Budget, Limits};
use lucid::model::prices::Price;
use lucid_mock::{
    MockServer, RecordedRequest, Reply, text_completion, text_stream, tool_call_completion, tool_call_stream,
};
use lucid_server::{ApiKeys, Database, ServerConfig};
use serde_json::json;

/// Answers with text (20 prompt + 5 answer tokens), or, asked to loop, with a tool call.
fn replies(req: &RecordedRequest) -> Reply {
    let body = req.json();
    let (stream, looping) = (body["stream"] == true, body.to_string().contains("loop"));
    let call = [("c", "calculator", r#"{"expression": "1+1"}"#)];
    match (stream, looping) {
        (true, true) => Reply::sse(&tool_call_stream(&call)),
        (true, false) => Reply::sse(&text_stream(&["hi"])),
        (false, true) => Reply::json(200, &tool_call_completion(&call)),
        (false, false) => Reply::json(200, &text_completion("hi")),
    }
}

fn model(mock: &MockServer) -> lucid::model::OpenAiCompatible {
    lucid::model::OpenAiCompatible::new(&format!("{}/v1", mock.url()), None, "mock").unwrap()
}

/// $1000 per million prompt tokens, $2000 per million answer tokens: a turn costs $0.03.
fn priced(mock: &MockServer) -> Agent {
    Agent::builder(model(mock)).price("mock", Price::new(1000.0, 2000.0)).build()
}

fn tuned(mock: &MockServer) -> impl FnOnce(ServerConfig) -> ServerConfig {
    let strict = Agent::builder(model(mock))
        .tool(lucid_tools::calculator)
        .price("mock", Price::new(1000.0, 2000.0))
        .budget(Budget::default().run(Limits::default().max_model_calls(2)))
        .build();
    move |c: ServerConfig| {
        c.keys(ApiKeys::parse("acme:acme-key-0123456789,globex:globex-key-0123456789").unwrap())
            .agent("strict", strict)
            .tenant_daily_budget(Limits::default().max_cost(0.10))
    }
}

async fn run(api: &Api, agent: &str, input: &str) -> (u16, serde_json::Value) {
    let (status, session) = api.post("/v1/sessions", json!({"agent": agent})).await;
    assert_eq!(status, 201, "{session}");
    let id = session["id"].as_str().unwrap();
    api.post(&format!("/v1/sessions/{id}/runs"), json!({ "input": input })).await
}

async fn a_tenant_spends_its_day_and_a_run_its_budget(api: Api) {
    let (acme, globex) = (api.as_key("acme-key-0123456789"), api.as_key("globex-key-0123456789"));
    for _ in 0..4 {
        let (status, r) = run(&acme, "default", "hello").await;
        assert_eq!((status, r["status"].as_str()), (200, Some("completed")), "{r}");
        assert!((r["result"]["cost_usd"].as_f64().unwrap() - 0.03).abs() < 1e-9, "{r}");
    }
    // $0.12 spent, past the $0.10 of the day: the next turn is refused, naming the limit.
    let (status, body) = run(&acme, "default", "hello").await;
    assert_eq!((status, body["error"]["code"].as_str()), (429, Some("quota_exceeded")), "{body}");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(message.contains("the limit of dollars per tenant per day ($0.10)"), "{message}");
    assert!(message.contains("spent $0.1200 today"), "{message}");
    let req = acme.req(reqwest::Method::POST, "/v1/chat/completions");
    let resp = req.json(&json!({"model": "default", "messages": [{"role": "user", "content": "hi"}]})).send().await;
    assert_eq!(resp.unwrap().status().as_u16(), 429, "the facade is held to the same day");

    // Another tenant's day is its own; its agent's run budget stops a looping run.
    let (status, r) = run(&globex, "strict", "loop forever").await;
    assert_eq!(status, 200, "{r}");
    assert_eq!(r["result"]["stop_reason"], "budget_exceeded", "{r}");
    assert_eq!(r["result"]["iterations"], 2);
    assert!((r["result"]["cost_usd"].as_f64().unwrap() - 0.1).abs() < 1e-9, "two calls of 30 + 10 tokens: {r}");
    let why = r["result"]["stop_message"].as_str().unwrap();
    assert!(
        why.contains("the run's max_model_calls (2) is reached: spent $0.1000, 80 tokens in 2 model calls"),
        "{why}"
    );

    let metrics = acme.get_text("/metrics").await;
    assert!(metrics.lines().any(|l| l.starts_with("lucid_cost_usd_total 0.22")), "{metrics}");
    assert!(metrics.contains("lucid_unpriced_turns_total 0"), "{metrics}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn budgets_on_sqlite() {
    let mock = MockServer::start(replies).await;
    a_tenant_spends_its_day_and_a_run_its_budget(start("budgets", priced(&mock), tuned(&mock)).await).await;
}

#[cfg(feature = "postgres")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn budgets_on_postgres() {
    let Some(admin) = common::postgres_url() else { return };
    let database = lucid_mock::PgDatabase::create(&admin, "lucid_budgets").await;
    let url = database.url.clone();
    let mock = MockServer::start(replies).await;
    let api = start_on(temp_dir("budgets-pg"), Database::Postgres(url), priced(&mock), tuned(&mock)).await;
    a_tenant_spends_its_day_and_a_run_its_budget(api).await;
    database.drop_now().await;
}

/// Waits for nothing but a test's word, then answers.
#[lucid::tool]
async fn slow() -> Result<String, lucid::ToolError> {
    SLOW_STARTED.store(true, std::sync::atomic::Ordering::SeqCst);
    tokio::time::sleep(std::time::Duration::from_secs(120)).await;
    Ok("done".into())
}

static SLOW_STARTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// "loop": the calculator again and again; "slow": the slow tool; else text.
fn looping(req: &RecordedRequest) -> Reply {
    let body = req.json();
    let text = body.to_string();
    if body["messages"].as_array().and_then(|m| m.last()).is_some_and(|m| m["content"] == "slow") {
        return Reply::json(200, &tool_call_completion(&[("s", "slow", "{}")]));
    }
    let call = [("c", "calculator", r#"{"expression": "1+1"}"#)];
    match (body["stream"] == true, text.contains("loop")) {
        (true, true) => Reply::sse(&tool_call_stream(&call)),
        (false, true) => Reply::json(200, &tool_call_completion(&call)),
        (true, false) => Reply::sse(&text_stream(&["hi"])),
        (false, false) => Reply::json(200, &text_completion("hi")),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_run_stops_when_the_tenants_day_is_spent_mid_run() {
    let mock = MockServer::start(looping).await;
    let agent = Agent::builder(model(&mock)).tool(lucid_tools::calculator).max_iterations(10).build();
    let api = start("budgets-mid-run", agent, |c| {
        c.keys(ApiKeys::parse("acme:acme-key-0123456789").unwrap())
            .tenant_daily_budget(Limits::default().max_model_calls(3))
    })
    .await
    .as_key("acme-key-0123456789");
    // The day allows 3 model calls: the run that would make 10 stops before the fourth.
    let (status, r) = run(&api, "default", "loop forever").await;
    assert_eq!(status, 200, "{r}");
    assert_eq!(r["result"]["stop_reason"], "budget_exceeded", "{r}");
    assert_eq!(r["result"]["iterations"], 3, "{r}");
    let why = r["result"]["stop_message"].as_str().unwrap();
    assert!(why.contains("spent 3 model calls today, the limit of model calls per tenant per day (3)"), "{why}");
    assert_eq!(mock.requests().len(), 3, "no fourth call was made");
    let (status, body) = run(&api, "default", "hello").await;
    assert_eq!((status, body["error"]["code"].as_str()), (429, Some("quota_exceeded")), "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_calls_of_a_completion_dropped_with_its_client_count_in_the_day() {
    let mock = MockServer::start(looping).await;
    let agent = Agent::builder(model(&mock)).tool(slow).build();
    let api = start("budgets-dropped", agent, |c| {
        c.keys(ApiKeys::parse("acme:acme-key-0123456789").unwrap())
            .tenant_daily_budget(Limits::default().max_model_calls(1))
    })
    .await
    .as_key("acme-key-0123456789");
    let body = json!({"model": "default", "messages": [{"role": "user", "content": "slow"}]});
    let request = api.req(reqwest::Method::POST, "/v1/chat/completions").json(&body);
    let pending = tokio::spawn(request.send());
    for _ in 0..400 {
        if SLOW_STARTED.load(std::sync::atomic::Ordering::SeqCst) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    assert!(SLOW_STARTED.load(std::sync::atomic::Ordering::SeqCst), "the model's call was answered, the tool runs");
    // The client goes away: the turn is dropped before its end, its one model call made.
    pending.abort();
    let _ = pending.await;
    let req = api.req(reqwest::Method::POST, "/v1/chat/completions");
    let resp = req.json(&json!({"model": "default", "messages": [{"role": "user", "content": "hi"}]})).send().await;
    let resp = resp.unwrap();
    assert_eq!(resp.status().as_u16(), 429, "the dropped completion's call counted in the day");
    let body: serde_json::Value = resp.json().await.unwrap();
    assert!(body["error"]["message"].as_str().unwrap().contains("spent 1 model calls today"), "{body}");
}
