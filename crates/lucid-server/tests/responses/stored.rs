//! Stored responses: `previous_response_id` per tenant, quotas and the daily budget.

use super::*;

fn two_tenants(c: ServerConfig) -> ServerConfig {
    c.keys(ApiKeys::parse("acme:acme-key-0123456789,globex:globex-key-0123456789").unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stored_response_continues_with_previous_response_id_for_its_tenant_only_on_sqlite() {
    let (api, mock) = serve("responses-stored", two_tenants).await;
    stored_responses(api, mock).await;
}

#[cfg(feature = "postgres")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stored_response_continues_with_previous_response_id_for_its_tenant_only_on_postgres() {
    let Some(admin) = common::postgres_url() else { return };
    let db = common::PgDatabase::create(&admin, "lucid_responses").await;
    let mock = Arc::new(MockServer::start(model).await);
    let database = lucid_server::Database::Postgres(db.url.clone());
    let api = common::start_on(common::temp_dir("responses-stored-pg"), database, adder(&mock), two_tenants).await;
    stored_responses(api, Arc::clone(&mock)).await;
    let database = lucid_server::Database::Postgres(db.url.clone());
    let api = common::start_on(common::temp_dir("responses-quota-pg"), database, adder(&mock), capped).await;
    stored_responses_count_in_the_quota(api).await;
    db.drop_now().await;
}

/// Two tenants, each keeping at most 5,000 bytes.
fn capped(c: ServerConfig) -> ServerConfig {
    two_tenants(c).max_stored_bytes_per_tenant(5_000)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stored_responses_count_in_the_tenants_quota_on_sqlite() {
    let (api, _mock) = serve("responses-quota", capped).await;
    stored_responses_count_in_the_quota(api).await;
}

/// Storing responses fills the tenant's quota until a 429 names it; one not stored still
/// answers, the other tenant still stores, and deleting frees the room.
async fn stored_responses_count_in_the_quota(api: Api) {
    let (acme, globex) = (api.as_key("acme-key-0123456789"), api.as_key("globex-key-0123456789"));
    let ask = json!({"model": "default", "input": "one", "store": true});
    let mut kept = Vec::new();
    let refused = loop {
        let (status, body) = acme.post("/v1/responses", ask.clone()).await;
        match status {
            200 => kept.push(body["id"].as_str().unwrap().to_string()),
            _ => break (status, body),
        }
        assert!(kept.len() < 10, "ten stored responses and the quota of 5,000 bytes never met");
    };
    assert_eq!((refused.0, error_code(&refused.1)), (429, "quota_exceeded"), "{}", refused.1);
    assert!(!kept.is_empty());
    let (status, _) = acme.post("/v1/responses", json!({"model": "default", "input": "one"})).await;
    assert_eq!(status, 200, "a response not stored takes no room");
    assert_eq!(globex.post("/v1/responses", ask.clone()).await.0, 200, "the other tenant has its own quota");
    for id in &kept {
        assert_eq!(acme.send(reqwest::Method::DELETE, &format!("/v1/responses/{id}"), None).await.0, 200);
    }
    assert_eq!(acme.post("/v1/responses", ask).await.0, 200, "deleted, their room is free again");
}

/// Stored responses: continued by their tenant, unknown to another; read and deleted.
async fn stored_responses(api: Api, mock: Arc<MockServer>) {
    let (acme, globex) = (api.as_key("acme-key-0123456789"), api.as_key("globex-key-0123456789"));
    let (status, first) = acme.post("/v1/responses", json!({"model": "default", "input": "one", "store": true})).await;
    assert_eq!(status, 200, "{first}");
    assert_eq!(first["store"], true);
    let id = first["id"].as_str().unwrap();
    let (status, next) =
        acme.post("/v1/responses", json!({"model": "default", "input": "two", "previous_response_id": id})).await;
    assert_eq!(status, 200, "{next}");
    assert_eq!(next["previous_response_id"], id);
    assert_eq!(next["output"][0]["content"][0]["text"], "You said 2 things.", "the stored conversation came first");
    let sent = mock.requests().last().unwrap().json();
    assert_eq!(sent["messages"][2], json!({"role": "assistant", "content": "You said 1 things."}));
    // Not stored (the default): nothing to continue from.
    let (status, _) = acme.get(&format!("/v1/responses/{}", next["id"].as_str().unwrap())).await;
    assert_eq!(status, 404);
    assert_eq!(acme.get(&format!("/v1/responses/{id}")).await, (200, first.clone()));

    // Another tenant's id is unknown, to continue from, to read or to delete.
    let (status, body) =
        globex.post("/v1/responses", json!({"model": "default", "input": "two", "previous_response_id": id})).await;
    assert_eq!((status, error_code(&body)), (404, "not_found"), "{body}");
    assert_eq!(globex.get(&format!("/v1/responses/{id}")).await.0, 404);
    assert_eq!(globex.send(reqwest::Method::DELETE, &format!("/v1/responses/{id}"), None).await.0, 404);

    // A client's tool call, stored: the next request sends only the output.
    let user = json!({"role": "user", "content": "Weather in Paris, and 2 + 3?"});
    let (status, r) = acme
        .post("/v1/responses", json!({"model": "default", "input": [user], "tools": [weather()], "store": true}))
        .await;
    assert_eq!(status, 200, "{r}");
    let output = json!([{"type": "function_call_output", "call_id": "call_w", "output": "sunny"}]);
    let (status, r) = acme
        .post(
            "/v1/responses",
            json!({"model": "default", "input": output, "tools": [weather()], "previous_response_id": r["id"]}),
        )
        .await;
    assert_eq!(status, 200, "{r}");
    assert_eq!(r["output"][0]["content"][0]["text"], "Paris is sunny; 2 + 3 = 5.");

    // Streamed and stored, then deleted.
    let events = stream(&acme, json!({"model": "default", "input": "three", "store": true, "stream": true})).await;
    let streamed = &events.last().unwrap().1["response"];
    let sid = streamed["id"].as_str().unwrap();
    assert_eq!(acme.get(&format!("/v1/responses/{sid}")).await, (200, streamed.clone()));
    let (status, gone) = acme.send(reqwest::Method::DELETE, &format!("/v1/responses/{sid}"), None).await;
    assert_eq!((status, gone), (200, json!({"id": sid, "object": "response", "deleted": true})));
    assert_eq!(acme.get(&format!("/v1/responses/{sid}")).await.0, 404);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_response_counts_in_the_tenants_daily_budget() {
    let budget = lucid::agent::budget::Limits::default().max_model_calls(1);
    let (api, mock) = serve("responses-budget", |c| two_tenants(c).tenant_daily_budget(budget)).await;
    let acme = api.as_key("acme-key-0123456789");
    let (status, r) = acme.post("/v1/responses", json!({"model": "default", "input": "one"})).await;
    assert_eq!(status, 200, "{r}");
    let (status, body) = acme.post("/v1/responses", json!({"model": "default", "input": "two", "stream": true})).await;
    assert_eq!((status, error_code(&body)), (429, "quota_exceeded"), "the day's one model call is spent: {body}");
    assert_eq!(mock.requests().len(), 1);
}
