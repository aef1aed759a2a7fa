//! Tenants: each sees only its own, stored keys until revoked, provider keys never shown.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tenants_see_only_their_own_sessions_and_runs() {
    let keys = ApiKeys::parse("acme:acme-key-0123456789,globex:globex-key-0123456789").unwrap();
    let api = start("tenants", bench_handler(), |c| c.keys(keys)).await;
    let (acme, globex) = (api.as_key("acme-key-0123456789"), api.as_key("globex-key-0123456789"));
    let (status, body) = api.get("/v1/sessions").await;
    assert_eq!((status, error_code(&body)), (401, "invalid_api_key"));
    assert_eq!(api.as_key("wrong-key-0123456789").get("/v1/models").await.0, 401);

    let id = acme.session().await;
    let (_, run) = acme.post(&format!("/v1/sessions/{id}/runs"), json!({"input": "What is 2 + 3?"})).await;
    let run_id = run["id"].as_str().unwrap();
    assert_eq!(run["status"], "completed");
    for path in [format!("/v1/sessions/{id}"), format!("/v1/runs/{run_id}"), format!("/v1/runs/{run_id}/events")] {
        let (status, body) = globex.get(&path).await;
        assert_eq!((status, error_code(&body)), (404, "not_found"), "{path}");
    }
    assert_eq!(globex.post(&format!("/v1/sessions/{id}/runs"), json!({"input": "hi"})).await.0, 404);
    assert_eq!(globex.post(&format!("/v1/runs/{run_id}/cancel"), json!({})).await.0, 404);
    let resp = globex.req(reqwest::Method::DELETE, &format!("/v1/sessions/{id}")).send().await.unwrap();
    assert_eq!(resp.status().as_u16(), 404);
    let (_, list) = globex.get("/v1/sessions").await;
    assert_eq!(list["data"], json!([]));
    let (_, list) = acme.get("/v1/sessions").await;
    assert_eq!(list["data"][0]["id"], id.as_str());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_stored_in_the_database_are_tenants_until_revoked() {
    let dir = temp_dir("stored-keys");
    let database: lucid_server::Database = dir.0.join("serve.db").into();
    let initech = lucid_server::keys::create(&database, "initech").await.unwrap();
    assert!(initech.key.starts_with("lk_") && initech.key.len() == 51, "{initech:?}");
    assert!(!format!("{initech:?}").contains(&initech.key), "Debug never shows the key");
    assert!(lucid_server::keys::create(&database, "no spaces").await.is_err());
    let listed = lucid_server::keys::list(&database).await.unwrap();
    assert_eq!((listed.len(), listed[0].id.as_str(), listed[0].tenant.as_str()), (1, initech.id.as_str(), "initech"));
    let stored = rusqlite::Connection::open(dir.0.join("serve.db"))
        .unwrap()
        .query_row("SELECT hash FROM serve_keys", [], |r| r.get::<_, String>(0))
        .unwrap();
    assert_eq!(stored, lucid_server::keys::hash(&initech.key), "only the hash is kept");

    let mock = Arc::new(MockServer::start(bench_handler()).await);
    let open = || async {
        let model = lucid::model::OpenAiCompatible::new(&format!("{}/v1", mock.url()), None, "mock").unwrap();
        let agent = Agent::builder(model).tool(add).build();
        // No keys in the environment: the stored one alone makes every request need a key.
        let server = Server::open(ServerConfig::new(database.clone()).agent("default", agent)).await.unwrap();
        assert!(server.check_bind("0.0.0.0:8080".parse().unwrap()).is_ok(), "stored keys allow other hosts");
        assert!(server.check_bind("127.0.0.1:8080".parse().unwrap()).is_ok());
        Api::at(listen(server).await, &mock)
    };
    let api = open().await;
    assert_eq!(api.get("/v1/sessions").await.0, 401);
    assert_eq!(api.as_key("lk_0000000000000000000000000000000000000000000000000").get("/v1/sessions").await.0, 401);
    let client = api.as_key(&initech.key);
    let id = client.session().await;
    let (_, run) = client.post(&format!("/v1/sessions/{id}/runs"), json!({"input": "What is 2 + 3?"})).await;
    assert_eq!(run["status"], "completed", "{run}");

    let hooli = lucid_server::keys::create(&database, "hooli").await.unwrap();
    let (status, list) = api.as_key(&hooli.key).get("/v1/sessions").await;
    assert_eq!((status, &list["data"]), (200, &json!([])), "another stored tenant sees nothing of initech's");

    assert!(lucid_server::keys::revoke(&database, &initech.id).await.unwrap());
    assert!(!lucid_server::keys::revoke(&database, &initech.id).await.unwrap());
    // A server opened after the revocation (no cached lookup) refuses the key.
    let api = open().await;
    assert_eq!(api.as_key(&initech.key).get("/v1/sessions").await.0, 401);
    assert_eq!(api.as_key(&hooli.key).get("/v1/sessions").await.0, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_provider_key_never_reaches_a_client_or_the_metrics() {
    const KEY: &str = "sk-provider-secret-0123456789";
    // A provider that quotes the key back in its error, as some gateways do.
    let mock = MockServer::start(|_req: &RecordedRequest| {
        Reply::json(401, &json!({"error": {"message": format!("Incorrect API key provided: {KEY}"), "type": "invalid_request_error"}}))
    })
    .await;
    let model = lucid::model::OpenAiCompatible::new(&format!("{}/v1", mock.url()), Some(KEY.into()), "mock").unwrap();
    let api = start_agent("secret", mock, Agent::builder(model).build(), |c| c).await;
    let (url, http) = (&api.url, &api.http);
    let id = api.session().await;
    let run = body_text(http.post(format!("{url}/v1/sessions/{id}/runs")).json(&json!({"input": "hi"}))).await;
    let run_json: Value = serde_json::from_str(&run).unwrap();
    assert_eq!(
        (run_json["status"].as_str(), run_json["error"]["code"].as_str()),
        (Some("failed"), Some("provider_error")),
        "{run}"
    );
    let events = body_text(http.get(format!("{url}/v1/runs/{}/events", run_json["id"].as_str().unwrap()))).await;
    let ask = json!({"model": "default", "messages": [{"role": "user", "content": "hi"}]});
    let facade = http.post(format!("{url}/v1/chat/completions")).json(&ask).send().await.unwrap();
    assert_eq!(facade.status().as_u16(), 502);
    let facade = facade.text().await.unwrap();
    let metrics = http.get(format!("{url}/metrics")).send().await.unwrap().text().await.unwrap();
    for (what, text) in [("run", &run), ("events", &events), ("facade", &facade), ("metrics", &metrics)] {
        assert!(!text.contains(KEY), "the key is in the {what}: {text}");
    }
    assert!(run.contains("Incorrect API key provided: ***"), "the provider's words stay, the key redacted: {run}");
}
