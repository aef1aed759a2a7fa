//! A tenant's bounds hold whatever the provider reports and however many requests come at
//! once: a model that reports no usage is still counted per call, runs at once cannot
//! together pass the day's budget (on SQLite and on the real PostgreSQL,
//! `LUCID_TEST_POSTGRES_URL`), `item_reference`s to a large stored answer cannot grow a
//! small body past the body's limit, and a request of 60,000 messages is read in time.

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::{Api, start, start_on, temp_dir};
use lucid::Agent;
use lucid::agent::budget::Limits;
use lucid::model::prices::Price;
use lucid_mock::{MockServer, RecordedRequest, Reply, text_completion};
use lucid_server::{ApiKeys, Database, ServerConfig};
use serde_json::{Value, json};

const KEY: &str = "acme-key-0123456789";

fn model(mock: &MockServer) -> lucid::model::OpenAiCompatible {
    lucid::model::OpenAiCompatible::new(&format!("{}/v1", mock.url()), None, "mock").unwrap()
}

fn keyed(limits: Limits) -> impl FnOnce(ServerConfig) -> ServerConfig {
    move |c: ServerConfig| {
        c.keys(ApiKeys::parse(&format!("acme:{KEY}")).unwrap()).tenant_daily_budget(limits).max_runs_per_tenant(64)
    }
}

/// A completion without any `usage`, after a pause (so that calls made at once overlap).
fn silent(_: &RecordedRequest) -> Reply {
    let body = json!({
        "id": "chatcmpl-mock", "object": "chat.completion", "created": 0, "model": "mock",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "hi"}, "finish_reason": "stop"}],
    });
    Reply::json(200, &body).with_delay(Duration::from_millis(300))
}

/// A completion reporting 1 prompt and 10 answer tokens, after a pause.
fn small(_: &RecordedRequest) -> Reply {
    let body = json!({
        "id": "chatcmpl-mock", "object": "chat.completion", "created": 0, "model": "mock",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "hi"}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 10, "total_tokens": 11},
    });
    Reply::json(200, &body).with_delay(Duration::from_millis(300))
}

async fn complete(api: &Api, max_tokens: Option<u32>) -> (u16, Value) {
    let mut body = json!({"model": "default", "messages": [{"role": "user", "content": "hi"}]});
    if let Some(n) = max_tokens {
        body["max_tokens"] = json!(n);
    }
    api.post("/v1/chat/completions", body).await
}

/// The tenant's day as the SQLite file keeps it: cost in billionths, tokens, model calls.
fn day_in_sqlite(api: &Api) -> (i64, i64, i64) {
    let db = rusqlite::Connection::open(api.dir.0.join("serve.db")).unwrap();
    db.query_row("SELECT cost_nanos, tokens, model_calls FROM serve_spend WHERE tenant = 'acme'", [], |r| {
        Ok((r.get(0)?, r.get(1)?, r.get(2)?))
    })
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_model_that_reports_no_usage_is_counted_per_call() {
    let mock = MockServer::start(silent).await;
    let api =
        start("bounds-no-usage", Agent::builder(model(&mock)).build(), keyed(Limits::default().max_model_calls(3)))
            .await
            .as_key(KEY);
    for n in 1..=3 {
        let (status, body) = complete(&api, None).await;
        assert_eq!(status, 200, "call {n}: {body}");
    }
    let (status, body) = complete(&api, None).await;
    assert_eq!((status, body["error"]["code"].as_str()), (429, Some("quota_exceeded")), "{body}");
    assert_eq!(mock.requests().len(), 3, "no fourth call reached the model");
    let (_, tokens, calls) = day_in_sqlite(&api);
    assert_eq!(calls, 3);
    assert!(tokens > 0, "what a silent model read and wrote is counted by its estimate");
}

/// Makes `n` completions at once; the statuses.
async fn at_once(api: &Api, n: usize, max_tokens: Option<u32>) -> Vec<u16> {
    let api = Arc::new(api.as_key(KEY));
    let tasks: Vec<_> = (0..n)
        .map(|_| {
            let api = Arc::clone(&api);
            tokio::spawn(async move { complete(&api, max_tokens).await.0 })
        })
        .collect();
    let mut statuses = Vec::new();
    for t in tasks {
        statuses.push(t.await.unwrap());
    }
    statuses
}

async fn calls_at_once_stop_at_the_limit(api: Api, mock: &MockServer) {
    let statuses = at_once(&api, 10, None).await;
    assert!(statuses.iter().all(|s| *s == 200 || *s == 429), "{statuses:?}");
    assert_eq!(mock.requests().len(), 3, "10 runs at once, 3 model calls a day: {statuses:?}");
}

/// `spent` (billionths of a dollar) is within a $0.10 day, and not nothing.
fn within_the_day(spent: i64, statuses: &[u16]) {
    assert!(statuses.iter().all(|s| *s == 200 || *s == 429), "{statuses:?}");
    assert!(spent > 0, "{statuses:?}");
    assert!(spent <= 100_000_000, "{} runs at once spent ${} of a $0.10 day", statuses.len(), spent as f64 / 1e9);
}

/// $1000 per million tokens in and out: a token costs $0.001.
fn priced(mock: &MockServer) -> Agent {
    Agent::builder(model(mock)).price("mock", Price::new(1000.0, 1000.0)).build()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn runs_at_once_cannot_pass_the_days_budget_on_sqlite() {
    let mock = MockServer::start(silent).await;
    let limits = Limits::default().max_model_calls(3);
    let api = start("bounds-at-once", Agent::builder(model(&mock)).build(), keyed(limits)).await;
    calls_at_once_stop_at_the_limit(api.as_key(KEY), &mock).await;
    assert_eq!(day_in_sqlite(&api).2, 3);

    let mock = MockServer::start(small).await;
    let api = start("bounds-at-once-cost", priced(&mock), keyed(Limits::default().max_cost(0.10))).await;
    // Each call costs $0.011 and holds $0.01 and its prompt.
    let statuses = at_once(&api, 16, Some(10)).await;
    within_the_day(day_in_sqlite(&api).0, &statuses);
}

#[cfg(feature = "postgres")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn runs_at_once_cannot_pass_the_days_budget_on_postgres() {
    let Some(admin) = common::postgres_url() else { return };
    let db = common::PgDatabase::create(&admin, "lucid_bounds").await;
    let mock = MockServer::start(silent).await;
    let limits = Limits::default().max_model_calls(3);
    let database = Database::Postgres(db.url.clone());
    let api = start_on(temp_dir("bounds-pg"), database, Agent::builder(model(&mock)).build(), keyed(limits)).await;
    calls_at_once_stop_at_the_limit(api.as_key(KEY), &mock).await;
    assert_eq!(day_in_postgres(&db.url).await.1, 3);
    db.drop_now().await;

    // A second instance on the same database: the holds are the database's, not a process's.
    let db = common::PgDatabase::create(&admin, "lucid_bounds_cost").await;
    let mock = MockServer::start(small).await;
    let limits = Limits::default().max_cost(0.10);
    let one = start_on(temp_dir("bounds-pg-1"), Database::Postgres(db.url.clone()), priced(&mock), keyed(limits)).await;
    let two = start_on(temp_dir("bounds-pg-2"), Database::Postgres(db.url.clone()), priced(&mock), keyed(limits)).await;
    let (a, b) = tokio::join!(at_once(&one, 8, Some(10)), at_once(&two, 8, Some(10)));
    within_the_day(day_in_postgres(&db.url).await.0, &[a, b].concat());
    db.drop_now().await;
}

/// The tenant's day as PostgreSQL keeps it: cost in billionths, model calls.
#[cfg(feature = "postgres")]
async fn day_in_postgres(url: &str) -> (i64, i64) {
    let (client, conn) = tokio_postgres::connect(url, tokio_postgres::NoTls).await.unwrap();
    tokio::spawn(conn);
    let row =
        client.query_one("SELECT cost_nanos, model_calls FROM serve_spend WHERE tenant = 'acme'", &[]).await.unwrap();
    (row.get(0), row.get(1))
}

/// Answers every request with the same long text.
fn long_answer(_: &RecordedRequest) -> Reply {
    Reply::json(200, &text_completion(&"x".repeat(200_000)))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn item_references_to_a_large_stored_answer_are_held_to_the_body_limit() {
    let mock = MockServer::start(long_answer).await;
    let api = start("bounds-references", Agent::builder(model(&mock)).build(), |c| c).await;
    let (status, first) = api.post("/v1/responses", json!({"model": "default", "input": "Hi", "store": true})).await;
    assert_eq!(status, 200, "{first}");
    let item = first["output"][0]["id"].clone();
    let calls = mock.requests().len();
    // A 10 KB body naming a 200 KB answer 200 times: 40 MB once expanded.
    let mut input: Vec<Value> = vec![json!({"type": "item_reference", "id": item}); 200];
    input.push(json!({"role": "user", "content": "Again"}));
    let (status, refused) = api.post("/v1/responses", json!({"model": "default", "input": input})).await;
    assert_eq!((status, refused["error"]["param"].as_str()), (413, Some("input")), "{refused}");
    assert!(refused["error"]["message"].as_str().unwrap().contains("item_references expanded"), "{refused}");
    assert_eq!(mock.requests().len(), calls, "the refused request never reached the model");
    // Once is within the limit.
    let input = json!([{"type": "item_reference", "id": item}, {"role": "user", "content": "Again"}]);
    let (status, body) = api.post("/v1/responses", json!({"model": "default", "input": input})).await;
    assert_eq!(status, 200, "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sixty_thousand_input_messages_are_read_in_time() {
    let mock = MockServer::start(|_: &RecordedRequest| Reply::json(200, &text_completion("ok"))).await;
    // A window as a known model has: the history is trimmed to it before the call.
    let agent = Agent::builder(model(&mock)).context_window(32_000, 4_000).build();
    let api = start("bounds-many-messages", agent, |c| c.body_limit(16 << 20)).await;
    let messages: Vec<Value> = (0..60_000)
        .map(|i| match i % 2 {
            0 => json!({"role": "user", "content": format!("question {i}")}),
            _ => json!({"role": "assistant", "content": format!("answer {i}")}),
        })
        .chain([json!({"role": "user", "content": "last"})])
        .collect();
    let inputs: Vec<Value> =
        messages.iter().map(|m| json!({"type": "message", "role": m["role"], "content": m["content"]})).collect();
    let chat = api.post("/v1/chat/completions", json!({"model": "default", "messages": messages}));
    let (status, body) = tokio::time::timeout(Duration::from_secs(120), chat).await.expect("answered within 120 s");
    assert_eq!(status, 200, "{body}");
    let responses = api.post("/v1/responses", json!({"model": "default", "input": inputs}));
    let (status, body) =
        tokio::time::timeout(Duration::from_secs(120), responses).await.expect("answered within 120 s");
    assert_eq!(status, 200, "{body}");
}
