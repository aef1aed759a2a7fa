//! Shutdown and restart: runs given up after the grace, and continued at the next start.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_gives_up_runs_still_going_after_the_grace_and_a_restart_continues_them() {
    // The first model call outlives the short grace period; the one after the restart answers.
    let arrived = Arc::new(tokio::sync::Notify::new());
    let signal = Arc::clone(&arrived);
    let calls = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = Arc::clone(&calls);
    let mock = MockServer::start(move |_req: &RecordedRequest| {
        if counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst) == 0 {
            signal.notify_one();
            return Reply::sse(&text_stream(&["late"])).with_delay(Duration::from_secs(300));
        }
        Reply::sse(&text_stream(&["Hello ", "again."]))
    })
    .await;
    let mock = Arc::new(mock);
    let model = lucid::model::OpenAiCompatible::new(&format!("{}/v1", mock.url()), None, "mock").unwrap();
    let agent = Agent::builder(model).build();
    let dir = temp_dir("shutdown");
    let config =
        || ServerConfig::new(dir.0.join("serve.db")).agent("default", agent.clone()).grace(Duration::from_millis(100));
    let server = Server::open(config()).await.unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let api = Api::at(format!("http://{}", listener.local_addr().unwrap()), &mock);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(server.serve(listener, async {
        let _ = stopped.await;
    }));
    let id = api.session().await;
    let stream = api
        .req(reqwest::Method::POST, &format!("/v1/sessions/{id}/runs"))
        .json(&json!({"input": "hi", "stream": true}))
        .send()
        .await
        .unwrap();
    let run_id = stream.headers()["lucid-run-id"].to_str().unwrap().to_string();
    arrived.notified().await;
    stop.send(()).unwrap();
    let before = parse_sse(&stream.text().await.unwrap());
    assert!(
        before.iter().all(|e| !matches!(e.event.as_deref(), Some("cancelled" | "completed" | "error"))),
        "given up, not ended: {before:?}"
    );
    serving.await.unwrap().unwrap();

    // The same database opened again: the run is continued from its last step and ends.
    let api = Api::at(listen(Server::open(config()).await.unwrap()).await, &mock);
    let last = before.last().and_then(|e| e.id).unwrap();
    let after = body_text(
        api.req(reqwest::Method::GET, &format!("/v1/runs/{run_id}/events")).header("last-event-id", last.to_string()),
    )
    .await;
    let after = parse_sse(&after);
    assert_eq!(after.last().unwrap().event.as_deref(), Some("completed"), "{after:?}");
    let ids: Vec<u64> = before.iter().chain(&after).filter_map(|e| e.id).collect();
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "every event once, in order: {ids:?}");
    let (_, run) = api.get(&format!("/v1/runs/{run_id}")).await;
    assert_eq!((run["status"].as_str(), run["result"]["content"].as_str()), (Some("completed"), Some("Hello again.")));
    let (_, session) = api.get(&format!("/v1/sessions/{id}")).await;
    let contents: Vec<&str> =
        session["messages"].as_array().unwrap().iter().filter_map(|m| m["content"].as_str()).collect();
    assert_eq!(contents, ["hi", "Hello again."], "the input once, then the answer: {session}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_left_going_by_a_dead_process_is_continued_at_the_next_start() {
    let dir = temp_dir("abandoned");
    // A process that died before its turn's first step leaves its row `running` with a
    // lease that expired; write one as it would.
    let db = dir.0.join("serve.db");
    let model = lucid::model::OpenAiCompatible::new("http://127.0.0.1:9/v1", None, "mock").unwrap();
    let server = Server::open(ServerConfig::new(&db).agent("default", Agent::builder(model).build())).await.unwrap();
    drop(server);
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch(
        "INSERT INTO serve_sessions (id, tenant, agent, metadata, created_at) VALUES ('sess_x', 'local', 'default', '{}', 1);
         INSERT INTO serve_runs (id, tenant, session_id, status, created_at, updated_at, owner, lease_until, input)
             VALUES ('run_x', 'local', 'sess_x', 'running', 1, 1, 'elsewhere:1:0', 1, 'What is 2 + 3?');",
    )
    .unwrap();
    drop(conn);
    let mock = Arc::new(MockServer::start(bench_handler()).await);
    let model = lucid::model::OpenAiCompatible::new(&format!("{}/v1", mock.url()), None, "mock").unwrap();
    let server =
        Server::open(ServerConfig::new(&db).agent("default", Agent::builder(model).tool(add).build())).await.unwrap();
    let api = Api::at(listen(server).await, &mock);
    let events = api.req(reqwest::Method::GET, "/v1/runs/run_x/events").send().await.unwrap().text().await.unwrap();
    let events = parse_sse(&events);
    assert_eq!(events.last().unwrap().event.as_deref(), Some("completed"), "{events:?}");
    assert!(events.iter().all(|e| e.id.unwrap() > 1 << 32), "numbered as the run's second owner: {events:?}");
    let (_, run) = api.get("/v1/runs/run_x").await;
    assert_eq!(
        (run["status"].as_str(), run["result"]["content"].as_str()),
        (Some("completed"), Some("The answer is 5."))
    );
    let (_, next) = api.post("/v1/sessions/sess_x/runs", json!({"input": "What is 2 + 3?"})).await;
    assert_eq!(next["status"], "completed", "{next}");
}
