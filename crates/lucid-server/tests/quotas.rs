//! What one tenant may keep and read: sessions, a session's metadata and stored bytes are
//! capped per tenant (429 naming the limit; 413 for metadata), list pages leave metadata
//! out unless asked, and a run has at most so many readers of its events at once. On
//! SQLite and on the real PostgreSQL (`LUCID_TEST_POSTGRES_URL`).

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::{Api, add, error_code, parse_sse, start, start_on, temp_dir};
use lucid::prelude::*;
use lucid_mock::{MockServer, RecordedRequest, bench_handler};
use lucid_server::{ApiKeys, Database, ServerConfig};
use serde_json::json;

fn agent(mock: &MockServer) -> Agent {
    let model = lucid::model::OpenAiCompatible::new(&format!("{}/v1", mock.url()), None, "mock").unwrap();
    Agent::builder(model).tool(add).build()
}

fn keys() -> ApiKeys {
    ApiKeys::parse("acme:acme-key-0123456789,globex:globex-key-0123456789").unwrap()
}

/// Three sessions, 100 bytes of metadata and 600 stored bytes per tenant.
fn capped(c: ServerConfig) -> ServerConfig {
    c.keys(keys()).max_sessions_per_tenant(3).max_metadata_bytes(100).max_stored_bytes_per_tenant(600)
}

async fn create(api: &Api, metadata: serde_json::Value) -> (u16, serde_json::Value) {
    api.post("/v1/sessions", json!({"agent": "default", "metadata": metadata})).await
}

/// The quotas, as any tenant meets them, on whichever database `api` serves.
async fn a_tenant_meets_its_quotas_and_the_other_does_not(api: Api) {
    let (acme, globex) = (api.as_key("acme-key-0123456789"), api.as_key("globex-key-0123456789"));

    let (status, body) = create(&acme, json!({"note": "x".repeat(200)})).await;
    assert_eq!((status, error_code(&body)), (413, "metadata_too_large"), "{body}");
    assert!(body["error"]["message"].as_str().unwrap().contains("limit of 100 bytes"), "{body}");

    let mut ids = Vec::new();
    for i in 0..3 {
        let (status, s) = create(&acme, json!({"n": i})).await;
        assert_eq!(status, 201, "{s}");
        ids.push(s["id"].as_str().unwrap().to_string());
    }
    let (status, body) = create(&acme, json!({})).await;
    assert_eq!((status, error_code(&body)), (429, "quota_exceeded"), "{body}");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(message.contains("limit of sessions per tenant (3)"), "the limit named: {message}");
    let (status, other) = create(&globex, json!({})).await;
    assert_eq!(status, 201, "another tenant's quota is its own: {other}");

    // A list page leaves the metadata out unless asked.
    let (_, page) = acme.get("/v1/sessions").await;
    assert_eq!(page["data"].as_array().unwrap().len(), 3);
    assert!(page["data"][0].get("metadata").is_none(), "{page}");
    let (_, page) = acme.get("/v1/sessions?metadata=true").await;
    assert_eq!(page["data"][0]["metadata"]["n"], 2, "{page}");
    assert_eq!(acme.get("/v1/sessions?metadata=yes").await.0, 400);

    // Deleting one makes room again.
    let resp = acme.req(reqwest::Method::DELETE, &format!("/v1/sessions/{}", ids.pop().unwrap())).send().await;
    assert_eq!(resp.unwrap().status().as_u16(), 204);
    let (status, s) = create(&acme, json!({})).await;
    assert_eq!(status, 201, "{s}");

    // A run stores its input, result and events; once they pass 600 bytes the next run
    // (and the next session) is refused, naming the limit.
    let (_, run) = acme.post(&format!("/v1/sessions/{}/runs", ids[0]), json!({"input": "What is 2 + 3?"})).await;
    assert_eq!(run["status"], "completed", "{run}");
    let (status, body) = acme.post(&format!("/v1/sessions/{}/runs", ids[1]), json!({"input": "And 4 + 5?"})).await;
    assert_eq!((status, error_code(&body)), (429, "quota_exceeded"), "{body}");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(message.contains("the limit of stored bytes per tenant is 600"), "{message}");
    let resp = acme.req(reqwest::Method::DELETE, &format!("/v1/sessions/{}", ids[1])).send().await;
    assert_eq!(resp.unwrap().status().as_u16(), 204);
    assert_eq!(create(&acme, json!({})).await.0, 429, "still over its bytes");
    let other = other["id"].as_str().unwrap();
    let (_, run) = globex.post(&format!("/v1/sessions/{other}/runs"), json!({"input": "What is 2 + 3?"})).await;
    assert_eq!(run["status"], "completed", "globex keeps its own bytes: {run}");
    // Deleting the session that holds the run frees its bytes.
    let resp = acme.req(reqwest::Method::DELETE, &format!("/v1/sessions/{}", ids[0])).send().await;
    assert_eq!(resp.unwrap().status().as_u16(), 204);
    assert_eq!(create(&acme, json!({})).await.0, 201, "the bytes freed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quotas_on_sqlite() {
    let mock = MockServer::start(bench_handler()).await;
    a_tenant_meets_its_quotas_and_the_other_does_not(start("quotas", agent(&mock), capped).await).await;
}

#[cfg(feature = "postgres")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quotas_on_postgres() {
    let Some(admin) = common::postgres_url() else { return };
    let database = lucid_mock::PgDatabase::create(&admin, "lucid_quotas").await;
    let url = database.url.clone();
    let mock = MockServer::start(bench_handler()).await;
    let api = start_on(temp_dir("quotas-pg"), Database::Postgres(url), agent(&mock), capped).await;
    a_tenant_meets_its_quotas_and_the_other_does_not(api).await;
    database.drop_now().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_has_at_most_its_readers_at_once() {
    // The run's first model call waits at the gate until the test's own request comes.
    let gate = Arc::new(tokio::sync::Barrier::new(2));
    let (inner, held) = (bench_handler(), Arc::clone(&gate));
    let handler = move |req: &RecordedRequest| {
        let reply = inner(req);
        if String::from_utf8_lossy(&req.body).contains("\"role\":\"tool\"") {
            reply
        } else {
            reply.behind(&held, Duration::from_secs(20))
        }
    };
    let mock = MockServer::start(handler).await;
    let api = start("readers", agent(&mock), |c| c.max_readers_per_run(2)).await;
    let id = api.session().await;
    let first = api
        .req(reqwest::Method::POST, &format!("/v1/sessions/{id}/runs"))
        .json(&json!({"input": "What is 2 + 3?", "stream": true}))
        .send()
        .await
        .unwrap();
    let run_id = first.headers()["lucid-run-id"].to_str().unwrap().to_string();
    let events = format!("/v1/runs/{run_id}/events");
    let second = api.req(reqwest::Method::GET, &events).send().await.unwrap();
    assert_eq!(second.status().as_u16(), 200);
    let third = api.req(reqwest::Method::GET, &events).send().await.unwrap();
    assert_eq!(third.status().as_u16(), 429);
    assert_eq!(third.headers()["retry-after"], "1");
    let body: serde_json::Value = third.json().await.unwrap();
    assert_eq!(error_code(&body), "too_many_readers");
    assert!(body["error"]["message"].as_str().unwrap().contains("2 clients"), "{body}");

    let pass = lucid::model::http::reqwest_client_builder().build().unwrap();
    let (a, b, _) = tokio::join!(
        first.text(),
        second.text(),
        pass.post(format!("{}/v1/chat/completions", mock.url())).body("{}").send()
    );
    let (a, b) = (parse_sse(&a.unwrap()), parse_sse(&b.unwrap()));
    assert_eq!(a, b, "both readers saw every event once, in order");
    assert_eq!(a.last().unwrap().event.as_deref(), Some("completed"));
    // Their seats are free once their streams ended.
    let again = api.get_text(&events).await;
    assert_eq!(parse_sse(&again), a, "a reader after the run replays it whole");
}
