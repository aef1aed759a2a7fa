//! Several instances on Postgres: a SIGKILL mid-run, cancels across instances, fallbacks, a daily budget.

use super::*;

#[cfg(feature = "postgres")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_instances_on_postgres_survive_a_sigkill_mid_run_and_cancel_across_instances() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let Some(admin) = real_part("LUCID_TEST_POSTGRES_URL", ".ci/run starts PostgreSQL") else { return };
    let database = TestDatabase::create(&admin, "lucid_serve_kill").await;
    // The model: a shell call that counts in a file, then (after its result) an answer the
    // first time held until the instance is killed; "Hold on" is held until cancelled.
    let held = Arc::new(tokio::sync::Notify::new());
    let answers = Arc::new(AtomicUsize::new(0));
    let (signal, count) = (Arc::clone(&held), Arc::clone(&answers));
    let mock = MockServer::start(move |req: &RecordedRequest| {
        let body = req.json();
        let messages = body["messages"].as_array().cloned().unwrap_or_default();
        let last = messages.last().cloned().unwrap_or(Value::Null);
        let stream = body["stream"] == true;
        let reply = |pieces: &[&str]| {
            if stream { Reply::sse(&text_stream(pieces)) } else { Reply::json(200, &text_completion(&pieces.concat())) }
        };
        if last["content"] == "Hold on" {
            signal.notify_one();
            return reply(&["never"]).with_delay(Duration::from_secs(300));
        }
        if last["role"] == "user" {
            let call = [("call_count_1", "shell", r#"{"command": "echo ran >> counter.txt"}"#)];
            return if stream {
                Reply::sse(&lucid_mock::tool_call_stream(&call))
            } else {
                Reply::json(200, &lucid_mock::tool_call_completion(&call))
            };
        }
        if count.fetch_add(1, Ordering::SeqCst) == 0 {
            signal.notify_one();
            return reply(&["too late"]).with_delay(Duration::from_secs(300));
        }
        reply(&["Counted ", "once."])
    })
    .await;
    let dir = common::test_dir("serve-kill");
    let config = dir.join("config.toml");
    std::fs::write(
        &config,
        format!(
            "base_url = \"{}/v1\"\nmodel = \"mock-model\"\ntools = [\"shell\"]\n[permissions]\nshell = \"allow\"\n",
            mock.url()
        ),
    )
    .unwrap();
    let (first, url_a) = tokio::task::block_in_place(|| serve_on(&dir, &config, &database.url));
    let (second, url_b) = tokio::task::block_in_place(|| serve_on(&dir, &config, &database.url));
    let mut _guard = KillOnDrop(vec![first.id(), second.id()]);
    let http = lucid::model::http::reqwest_client_builder().build().unwrap();
    let session: Value = json_of(http.post(format!("{url_a}/v1/sessions")).json(&json!({"agent": "default"}))).await;
    let id = session["id"].as_str().unwrap().to_string();

    // The run starts on the first instance; its stream is read until the tool has run and
    // the next model call is under way, then that instance is killed.
    let mut stream = http
        .post(format!("{url_a}/v1/sessions/{id}/runs"))
        .json(&json!({"input": "Count once", "stream": true}))
        .send()
        .await
        .unwrap();
    let run_id = stream.headers()["lucid-run-id"].to_str().unwrap().to_string();
    let (mut buffer, mut seen) = (String::new(), Vec::new());
    while !seen.iter().any(|(_, kind, _): &(u64, String, Value)| kind == "tool_call_finished") {
        let chunk = stream.chunk().await.unwrap().expect("the stream ended before the tool ran");
        buffer.push_str(std::str::from_utf8(&chunk).unwrap());
        seen.extend(take_events(&mut buffer));
    }
    held.notified().await;
    let mut first = first;
    first.kill().unwrap();
    first.wait().unwrap();
    // Whatever was still on its way from the killed instance.
    while let Ok(Some(chunk)) = stream.chunk().await {
        buffer.push_str(std::str::from_utf8(&chunk).unwrap());
        seen.extend(take_events(&mut buffer));
    }

    // The client reattaches to the other instance after the last event it saw.
    let last = seen.last().unwrap().0;
    let rest = common::body_text(
        http.get(format!("{url_b}/v1/runs/{run_id}/events")).header("last-event-id", last.to_string()),
    )
    .await;
    buffer = rest;
    seen.extend(take_events(&mut buffer));
    let ids: Vec<u64> = seen.iter().map(|e| e.0).collect();
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "every event once, in order: {ids:?}");
    let kinds: Vec<&str> = seen.iter().map(|e| e.1.as_str()).collect();
    assert_eq!(kinds.iter().filter(|k| **k == "tool_call_started").count(), 1, "{kinds:?}");
    assert_eq!(kinds.iter().filter(|k| **k == "tool_call_finished").count(), 1, "{kinds:?}");
    assert_eq!(kinds.last(), Some(&"completed"), "{kinds:?}");
    assert!(seen.last().unwrap().0 > 1 << 32, "ended by the run's second owner: {ids:?}");
    assert_eq!(std::fs::read_to_string(dir.join("counter.txt")).unwrap(), "ran\n", "the tool ran exactly once");
    let run: Value = json_of(http.get(format!("{url_b}/v1/runs/{run_id}"))).await;
    assert_eq!((run["status"].as_str(), run["result"]["content"].as_str()), (Some("completed"), Some("Counted once.")));
    let session: Value = json_of(http.get(format!("{url_b}/v1/sessions/{id}"))).await;
    let roles: Vec<&str> =
        session["messages"].as_array().unwrap().iter().map(|m| m["role"].as_str().unwrap_or("?")).collect();
    assert_eq!(roles, ["user", "assistant", "tool", "assistant"], "nothing lost, nothing twice: {session}");

    // Cancel sent to an instance that is not running the run.
    let (third, url_c) = tokio::task::block_in_place(|| serve_on(&dir, &config, &database.url));
    _guard.0.push(third.id());
    let session: Value = json_of(http.post(format!("{url_b}/v1/sessions")).json(&json!({"agent": "default"}))).await;
    let id = session["id"].as_str().unwrap().to_string();
    let going = http
        .post(format!("{url_b}/v1/sessions/{id}/runs"))
        .json(&json!({"input": "Hold on", "stream": true}))
        .send()
        .await
        .unwrap();
    let run_id = going.headers()["lucid-run-id"].to_str().unwrap().to_string();
    held.notified().await;
    let cancelled: Value = json_of(http.post(format!("{url_c}/v1/runs/{run_id}/cancel"))).await;
    assert_eq!(cancelled["status"], "cancelled", "{cancelled}");
    let events = going.text().await.unwrap();
    assert!(events.contains("event: cancelled"), "{events}");
    for child in [second, third] {
        let status = tokio::task::block_in_place(|| stop(child));
        assert!(status.success(), "{status:?}");
    }
    _guard.0.clear();
    database.drop_now().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_of_the_configuration_switches_to_its_fallback_and_the_run_shows_it() {
    let dir = test_dir("serve-fallback");
    let store = dir.join("serve.db").display().to_string();
    fallback_through_serve(&dir, &store).await;
}

#[cfg(feature = "postgres")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fallback_after_an_overload_on_postgres_keeps_the_history_and_stores_the_event() {
    let Some(admin) = real_part("LUCID_TEST_POSTGRES_URL", ".ci/run starts PostgreSQL") else { return };
    let database = TestDatabase::create(&admin, "lucid_serve_fallback").await;
    let dir = test_dir("serve-fallback-pg");
    fallback_through_serve(&dir, &database.url).await;
    database.drop_now().await;
}

/// `lucid serve` on `store` with an agent whose model is overloaded and whose backup
/// answers: the run completes on the backup, with the history intact, and its stored
/// events replay the switch.
async fn fallback_through_serve(dir: &Path, store: &str) {
    let primary = MockServer::start(|_| {
        Reply::json(529, &json!({"error": {"message": "Overloaded", "type": "overloaded_error"}}))
            .with_header("retry-after", "0")
    })
    .await;
    let backup = MockServer::start(hello).await;
    let config = dir.join("config.toml");
    let text = format!(
        "base_url = \"{}/v1\"\nmodel = \"mock-model\"\ncontext_window = 8192\ntools = []\n\
         [providers.spare]\nbase_url = \"{}\"\n\
         [agents.support]\nsystem = \"You answer support tickets.\"\nfallback = [\"spare:backup-model\"]\n",
        primary.url(),
        backup.url()
    );
    std::fs::write(&config, text).unwrap();
    let (child, url) = tokio::task::block_in_place(|| {
        serve_with(dir, &config, &["--store", store, "--max-retries", "1"], Some("acme:acme-key-0123456789"))
    });
    let _guard = KillOnDrop(vec![child.id()]);
    let http = lucid::model::http::reqwest_client_builder().build().unwrap();
    let key = "acme-key-0123456789";
    let session: Value =
        json_of(http.post(format!("{url}/v1/sessions")).bearer_auth(key).json(&json!({"agent": "support"}))).await;
    let id = session["id"].as_str().unwrap();
    let run: Value = json_of(
        http.post(format!("{url}/v1/sessions/{id}/runs")).bearer_auth(key).json(&json!({"input": "My order is late"})),
    )
    .await;
    assert_eq!(run["status"], "completed", "{run:#}");
    assert_eq!(run["result"]["content"], "Hello from the mock.");
    assert_eq!(run["result"]["model"], "spare:backup-model", "{run:#}");
    assert_eq!(primary.requests().len(), 2, "the primary was retried once");
    // The backup got the agent's history: its system prompt and the user's message.
    let sent = backup.requests().last().unwrap().json();
    assert_eq!(sent["model"], "backup-model");
    assert_eq!(sent["messages"][0]["content"], "You answer support tickets.");
    assert_eq!(sent["messages"][1]["content"], "My order is late");
    let run_id = run["id"].as_str().unwrap();
    let events = http.get(format!("{url}/v1/runs/{run_id}/events")).bearer_auth(key).send().await.unwrap();
    let events = events.text().await.unwrap();
    assert!(events.contains("event: fallback"), "{events}");
    assert!(events.contains("\"to\":\"spare:backup-model\""), "{events}");
    // The default agent has no backups: its run fails on the overload.
    let session: Value =
        json_of(http.post(format!("{url}/v1/sessions")).bearer_auth(key).json(&json!({"agent": "default"}))).await;
    let id = session["id"].as_str().unwrap();
    let run: Value =
        json_of(http.post(format!("{url}/v1/sessions/{id}/runs")).bearer_auth(key).json(&json!({"input": "hi"}))).await;
    assert_eq!(run["status"], "failed", "{run:#}");
    let status = tokio::task::block_in_place(|| stop(child));
    assert!(status.success(), "{status:?}");
}

/// A tenant's daily budget from `[serve]`, summed in Postgres over two instances: the
/// turn after the limit is spent gets 429 naming it, on either instance; every result
/// carries its cost from `[prices]`.
#[cfg(feature = "postgres")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tenants_daily_budget_holds_over_two_instances_on_postgres() {
    let Some(admin) = real_part("LUCID_TEST_POSTGRES_URL", ".ci/run starts PostgreSQL") else { return };
    let database = TestDatabase::create(&admin, "lucid_serve_budget").await;
    let mock = MockServer::start(hello).await;
    let dir = common::test_dir("serve-budget");
    let config = dir.join("config.toml");
    // $1000 per million prompt tokens, $2000 per million answer tokens: 20 + 5 tokens a turn
    // cost $0.03.
    std::fs::write(
        &config,
        format!(
            "base_url = \"{}/v1\"\nmodel = \"mock-model\"\ntools = []\n\
             [prices.\"mock-model\"]\ninput = 1000.0\noutput = 2000.0\n\
             [serve]\ntenant_daily_max_cost = 0.05\n",
            mock.url()
        ),
    )
    .unwrap();
    let (first, url_a) = tokio::task::block_in_place(|| serve_on(&dir, &config, &database.url));
    let (second, url_b) = tokio::task::block_in_place(|| serve_on(&dir, &config, &database.url));
    let _guard = KillOnDrop(vec![first.id(), second.id()]);
    let http = lucid::model::http::reqwest_client_builder().build().unwrap();
    let turn = |url: String| {
        let http = http.clone();
        async move {
            let session: Value =
                json_of(http.post(format!("{url}/v1/sessions")).json(&json!({"agent": "default"}))).await;
            let id = session["id"].as_str().unwrap();
            let resp =
                http.post(format!("{url}/v1/sessions/{id}/runs")).json(&json!({"input": "hi"})).send().await.unwrap();
            (resp.status().as_u16(), resp.json::<Value>().await.unwrap())
        }
    };
    for url in [&url_a, &url_b] {
        let (status, run) = turn(url.clone()).await;
        assert_eq!((status, run["status"].as_str()), (200, Some("completed")), "{run}");
        assert!((run["result"]["cost_usd"].as_f64().unwrap() - 0.03).abs() < 1e-9, "{run}");
    }
    for url in [&url_a, &url_b] {
        let (status, body) = turn(url.clone()).await;
        assert_eq!((status, body["error"]["code"].as_str()), (429, Some("quota_exceeded")), "{body}");
        let message = body["error"]["message"].as_str().unwrap();
        assert!(message.contains("the limit of dollars per tenant per day ($0.05)"), "{message}");
    }
    let metrics = http.get(format!("{url_a}/metrics")).send().await.unwrap().text().await.unwrap();
    assert!(metrics.lines().any(|l| l == "lucid_cost_usd_total 0.03"), "this instance's turn: {metrics}");
}
