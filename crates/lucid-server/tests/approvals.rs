//! Approvals over HTTP: a call whose permission is `ask` leaves the run `needs_approval`
//! with an `approval_requested` event per call; `GET /v1/runs/{id}` lists the pending
//! calls; `POST /v1/runs/{id}/approvals` answers one (allow, deny with a message the model
//! reads, edited arguments checked against the schema, remember) and the run goes on once
//! every call is answered; an unanswered call expires into a denial; another tenant gets
//! 404; bodies are checked field by field. On SQLite and on the real PostgreSQL
//! (`LUCID_TEST_POSTGRES_URL`).

mod common;

use std::time::Duration;

use common::{Api, add, error_code, parse_sse, start};
use lucid::prelude::*;
use lucid::tool::permission::{Permission, PermissionPolicy};
use lucid_mock::MockServer;
use lucid_server::{ApiKeys, ServerConfig};
use serde_json::{Value, json};

fn agent(mock: &MockServer) -> Agent {
    let model = lucid::model::OpenAiCompatible::new(&format!("{}/v1", mock.url()), None, "mock").unwrap();
    Agent::builder(model).tool(add).permissions(PermissionPolicy::allow_all().set("add", Permission::Ask)).build()
}

fn keys() -> ApiKeys {
    ApiKeys::parse("acme:acme-key-0123456789,globex:globex-key-0123456789").unwrap()
}

fn with_keys(c: ServerConfig) -> ServerConfig {
    c.keys(keys())
}

async fn run(api: &Api, session: &str, calls: Value) -> Value {
    let (status, run) = api.post(&format!("/v1/sessions/{session}/runs"), json!({"input": calls.to_string()})).await;
    assert_eq!(status, 200, "{run}");
    run
}

async fn answer(api: &Api, run: &str, body: Value) -> (u16, Value) {
    api.post(&format!("/v1/runs/{run}/approvals"), body).await
}

/// Allow, deny, edit (valid and not), remember, other tenants, bad bodies.
async fn approvals_over_http(api: Api) {
    let (acme, globex) = (api.as_key("acme-key-0123456789"), api.as_key("globex-key-0123456789"));
    let session = acme.session().await;
    let three =
        json!([["c1", "add", {"a": 1, "b": 2}], ["c2", "add", {"a": 3, "b": 4}], ["c3", "add", {"a": 5, "b": 6}]]);
    let r = run(&acme, &session, three).await;
    assert_eq!(r["status"], "needs_approval", "{r}");
    assert_eq!(r["pending_approvals"].as_array().map(Vec::len), Some(3), "the run's answer lists them: {r}");
    let id = r["id"].as_str().unwrap().to_string();

    let (status, shown) = acme.get(&format!("/v1/runs/{id}")).await;
    assert_eq!(status, 200);
    let pending = shown["pending_approvals"].as_array().unwrap();
    assert_eq!(pending.len(), 3, "{shown}");
    assert_eq!((pending[1]["call_id"].as_str(), pending[1]["tool"].as_str()), (Some("c2"), Some("add")));
    assert_eq!(pending[1]["arguments"], json!({"a": 3, "b": 4}));
    assert!(pending[0]["expires_at"].as_i64().unwrap() > pending[0]["requested_at"].as_i64().unwrap());
    let events = parse_sse(&acme.get_text(&format!("/v1/runs/{id}/events")).await);
    let kinds: Vec<&str> = events.iter().filter_map(|e| e.event.as_deref()).collect();
    assert_eq!(kinds.iter().filter(|k| **k == "approval_requested").count(), 3, "{kinds:?}");
    assert_eq!(kinds.last(), Some(&"needs_approval"), "{kinds:?}");
    let requested: Value =
        serde_json::from_str(&events[kinds.iter().position(|k| *k == "approval_requested").unwrap()].data).unwrap();
    assert_eq!(
        (requested["call_id"].as_str(), requested["tool"].as_str(), &requested["arguments"]),
        (Some("c1"), Some("add"), &json!({"a": 1, "b": 2}))
    );

    // Another tenant sees none of it.
    assert_eq!(globex.get(&format!("/v1/runs/{id}")).await.0, 404);
    let (status, body) = answer(&globex, &id, json!({"call_id": "c1", "decision": "allow"})).await;
    assert_eq!((status, error_code(&body)), (404, "not_found"), "{body}");

    // Bodies checked field by field.
    for (bad, field) in [
        (json!({"call_id": "c1", "decision": "yes"}), "decision"),
        (json!({"call_id": "c9", "decision": "allow"}), "call_id"),
        (json!({"call_id": "c3", "decision": "allow", "arguments": {"a": "five", "b": 6}}), "arguments"),
        (json!({"call_id": "c3", "decision": "allow", "arguments": {"b": 6}}), "arguments"),
        (json!({"call_id": "c1", "decision": "deny", "remember": true}), "remember"),
        (json!({"call_id": "c1", "decision": "allow", "extra": 1}), "extra"),
    ] {
        let (status, body) = answer(&acme, &id, bad.clone()).await;
        assert_eq!(status, 400, "{bad}: {body}");
        assert!(body["error"]["message"].as_str().unwrap().starts_with(&format!("`{field}`")), "{bad}: {body}");
    }

    let (status, after) = answer(&acme, &id, json!({"call_id": "c1", "decision": "allow"})).await;
    assert_eq!((status, after["status"].as_str()), (200, Some("needs_approval")), "{after}");
    assert_eq!(after["pending_approvals"][0]["answered"], true, "{after}");
    let (_, after) =
        answer(&acme, &id, json!({"call_id": "c2", "decision": "deny", "message": "No sevens today."})).await;
    assert_eq!(after["status"], "needs_approval", "one call still waits: {after}");
    let (status, done) =
        answer(&acme, &id, json!({"call_id": "c3", "decision": "allow", "arguments": {"a": 10, "b": 20}})).await;
    assert_eq!(status, 200, "{done}");
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"]["content"], "results: 3 | No sevens today. | 30", "{done}");
    assert!(done.get("pending_approvals").is_none());
    let (status, body) = answer(&acme, &id, json!({"call_id": "c1", "decision": "allow"})).await;
    assert_eq!((status, error_code(&body)), (409, "run_not_waiting"), "{body}");

    // Remember: the tool is allowed for the rest of the session.
    let r = run(&acme, &session, json!([["c4", "add", {"a": 1, "b": 1}]])).await;
    assert_eq!(r["status"], "needs_approval", "{r}");
    let id = r["id"].as_str().unwrap();
    let (_, done) = answer(&acme, id, json!({"call_id": "c4", "decision": "allow", "remember": true})).await;
    assert_eq!(done["result"]["content"], "results: 2", "{done}");
    let r = run(&acme, &session, json!([["c5", "add", {"a": 2, "b": 2}]])).await;
    assert_eq!((r["status"].as_str(), r["result"]["content"].as_str()), (Some("completed"), Some("results: 4")), "{r}");
    // A new session asks again.
    let other = acme.session().await;
    assert_eq!(run(&acme, &other, json!([["c6", "add", {"a": 0, "b": 0}]])).await["status"], "needs_approval");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn approvals_on_sqlite() {
    let mock = MockServer::start(lucid_mock::calls_as_told).await;
    approvals_over_http(start("approvals", agent(&mock), with_keys).await).await;
}

#[cfg(feature = "postgres")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn approvals_on_postgres() {
    let Some(admin) = common::postgres_url() else { return };
    let database = lucid_mock::PgDatabase::create(&admin, "lucid_approvals").await;
    let url = database.url.clone();
    let mock = MockServer::start(lucid_mock::calls_as_told).await;
    let api = common::start_on(
        common::temp_dir("approvals-pg"),
        lucid_server::Database::Postgres(url),
        agent(&mock),
        with_keys,
    )
    .await;
    approvals_over_http(api).await;
    database.drop_now().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unanswered_call_expires_into_a_denial_and_the_run_goes_on() {
    let mock = MockServer::start(lucid_mock::calls_as_told).await;
    let api =
        start("approvals-expire", agent(&mock), |c| c.approval_timeout(Duration::ZERO).lease(Duration::from_secs(1)))
            .await;
    let session = api.session().await;
    let r = run(&api, &session, json!([["c1", "add", {"a": 1, "b": 2}]])).await;
    let id = r["id"].as_str().unwrap();
    // The lease keeper (every third of a second here) takes it on; bounded wait.
    let mut shown = Value::Null;
    for _ in 0..200 {
        shown = api.get(&format!("/v1/runs/{id}")).await.1;
        if shown["status"] == "completed" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(shown["status"], "completed", "{shown}");
    let expected = format!("results: {}", lucid::approval::expired_denial("add"));
    assert_eq!(shown["result"]["content"].as_str(), Some(expected.as_str()), "{shown}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_waiting_calls_arguments_are_shown_redacted() {
    const SECRET: &str = "sk-approvals-test-0123456789abcdef";
    lucid::redact::register(SECRET);
    let mock = MockServer::start(lucid_mock::calls_as_told).await;
    let api = start("approvals-redacted", agent(&mock), |c| c).await;
    let session = api.session().await;
    let r = run(&api, &session, json!([["c1", "add", {"a": 1, "b": 2, "note": SECRET}]])).await;
    assert_eq!(r["status"], "needs_approval", "{r}");
    let id = r["id"].as_str().unwrap();
    let shown = api.get_text(&format!("/v1/runs/{id}")).await;
    let events = api.get_text(&format!("/v1/runs/{id}/events")).await;
    for text in [r.to_string(), shown, events.clone()] {
        assert!(!text.contains(SECRET), "{text}");
    }
    assert!(events.contains("event: approval_requested") && events.contains("***"), "{events}");
}
