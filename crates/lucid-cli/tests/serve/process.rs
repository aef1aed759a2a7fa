//! The process: loopback without keys, SIGTERM, keys from the CLI, web pages and connection caps.

use super::*;

#[tokio::test]
async fn without_keys_only_loopback_is_served() {
    let dir = test_dir("serve-bind");
    let out = common::run_in(&dir, &["serve", "--listen", "0.0.0.0:0", "--store", "s.db"], &[]).await;
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("binds loopback addresses only"), "{}", text(&out.stderr));
    let out = common::run_in(&dir, &["serve", "--store", "s.db"], &[("LUCID_SERVE_API_KEYS", "acme")]).await;
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("entry 1 is not `name:key`"), "{}", text(&out.stderr));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_configured_agents_answer_over_http_and_sigterm_stops_the_server() {
    let mock = MockServer::start(hello).await;
    let dir = test_dir("serve-agents");
    let config = write_config(&dir, &mock);
    let (child, url) = tokio::task::block_in_place(|| serve(&dir, &config, Some("acme:acme-key-0123456789")));
    let http = lucid::model::http::reqwest_client_builder().build().unwrap();
    let models: Value = json_of(http.get(format!("{url}/v1/models")).bearer_auth("acme-key-0123456789")).await;
    let ids: Vec<&str> = models["data"].as_array().unwrap().iter().map(|m| m["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["default", "support"]);
    let session: Value = json_of(
        http.post(format!("{url}/v1/sessions")).bearer_auth("acme-key-0123456789").json(&json!({"agent": "support"})),
    )
    .await;
    let id = session["id"].as_str().unwrap();
    let run: Value = json_of(
        http.post(format!("{url}/v1/sessions/{id}/runs"))
            .bearer_auth("acme-key-0123456789")
            .json(&json!({"input": "My order is late"})),
    )
    .await;
    assert_eq!(
        (run["status"].as_str(), run["result"]["content"].as_str()),
        (Some("completed"), Some("Hello from the mock."))
    );
    let sent = mock.requests().last().unwrap().json();
    assert_eq!(sent["messages"][0]["content"], "You answer support tickets.", "the agent's own system prompt");
    assert_eq!(sent["model"], "mock-model", "the rest from the top level");
    let status = tokio::task::block_in_place(|| stop(child));
    assert!(status.success(), "{status:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_created_with_the_cli_are_the_only_way_in() {
    let mock = MockServer::start(hello).await;
    let dir = test_dir("serve-keys");
    let config = write_config(&dir, &mock);
    let store = dir.join("serve.db").display().to_string();
    let out = common::run_in(&dir, &["serve", "keys", "create", "acme", "--store", &store], &[]).await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let key = text(&out.stdout).trim().to_string();
    assert!(key.starts_with("lk_") && text(&out.stderr).contains("shown only now"), "{key} {}", text(&out.stderr));
    let out = common::run_in(&dir, &["serve", "keys", "list", "--store", &store], &[]).await;
    let listed = text(&out.stdout);
    assert!(listed.contains("\tacme\t") && !listed.contains(&key), "{listed}");
    let out = common::run_in(&dir, &["serve", "keys", "revoke", "key_nothing", "--store", &store], &[]).await;
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));

    let (child, url) = tokio::task::block_in_place(|| serve(&dir, &config, None));
    let http = lucid::model::http::reqwest_client_builder().build().unwrap();
    let anonymous = http.get(format!("{url}/v1/models")).send().await.unwrap();
    assert_eq!(anonymous.status().as_u16(), 401, "a stored key makes every request need one");
    let models: Value = json_of(http.get(format!("{url}/v1/models")).bearer_auth(&key)).await;
    assert_eq!(models["data"][0]["id"], "default");
    let status = tokio::task::block_in_place(|| stop(child));
    assert!(status.success(), "{status:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_keyless_serve_refuses_web_pages_but_its_listed_origins_and_caps_its_connections() {
    let mock = MockServer::start(hello).await;
    let dir = test_dir("serve-edge");
    let config = write_config(&dir, &mock);
    let mut text = std::fs::read_to_string(&config).unwrap();
    text = text.replace("[agents.support]", "[serve]\nallow_origins = [\"http://a.example\"]\n\n[agents.support]");
    std::fs::write(&config, text).unwrap();
    let args = ["--allow-origin", "http://b.example:8000", "--max-connections", "2", "--header-timeout", "120"];
    let (child, url, log) = tokio::task::block_in_place(|| serve_logged(&dir, &config, &args, 256));
    let mut guard = KillOnDrop(vec![child.id()]);
    // The soft open-files limit was raised to the hard one.
    let (soft, hard) = open_files_limits(child.id());
    assert_eq!(soft, hard, "{}", log.lock().unwrap());

    // No connection kept for later: each request's place is free once it is answered.
    let http = lucid::model::http::reqwest_client_builder().pool_max_idle_per_host(0).build().unwrap();
    let chat = r#"{"model": "default", "messages": [{"role": "user", "content": "Hi"}]}"#;
    let no_cors = http
        .post(format!("{url}/v1/chat/completions"))
        .header("content-type", "text/plain;charset=UTF-8")
        .body(chat)
        .send()
        .await
        .unwrap();
    assert_eq!(no_cors.status().as_u16(), 415);
    assert!(mock.requests().is_empty(), "the agent never ran");
    let port = url.rsplit(':').next().unwrap();
    let rebound = http.get(format!("{url}/v1/sessions")).header("host", format!("evil.example:{port}")).send().await;
    assert_eq!(rebound.unwrap().status().as_u16(), 403);
    for (origin, status, cors) in
        [("http://a.example", 200, true), ("http://b.example:8000", 200, true), ("http://c.example", 403, false)]
    {
        let r = http.get(format!("{url}/v1/models")).header("origin", origin).send().await.unwrap();
        assert_eq!(r.status().as_u16(), status, "{origin}");
        assert_eq!(r.headers().get("access-control-allow-origin").is_some(), cors, "{origin}");
    }
    let r = http.post(format!("{url}/v1/chat/completions")).header("content-type", "application/json").body(chat);
    assert_eq!(json_of(r).await["choices"][0]["message"]["content"], "Hello from the mock.");

    // Two kept-alive connections hold both places; a third waits, with a warning, until one
    // closes.
    let addr: std::net::SocketAddr = url.trim_start_matches("http://").parse().unwrap();
    let hold = || {
        (0..2)
            .map(|_| {
                use std::io::{Read, Write};
                let mut c = std::net::TcpStream::connect(addr).unwrap();
                c.write_all(format!("GET /healthz HTTP/1.1\r\nHost: localhost:{port}\r\n\r\n").as_bytes()).unwrap();
                let mut buf = [0u8; 1024];
                let n = c.read(&mut buf).unwrap();
                assert!(buf[..n].starts_with(b"HTTP/1.1 200"));
                c
            })
            .collect::<Vec<std::net::TcpStream>>()
    };
    let held = tokio::task::block_in_place(hold);
    let third = tokio::spawn(http.get(format!("{url}/healthz")).send());
    let mut warned = false;
    for _ in 0..200 {
        warned = log.lock().unwrap().contains("connection cap reached");
        if warned {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(warned, "{}", log.lock().unwrap());
    assert!(!third.is_finished(), "not served while both places are held");
    drop(held);
    let answered = tokio::time::timeout(Duration::from_secs(30), third).await.expect("served once one closed");
    assert_eq!(answered.unwrap().unwrap().status().as_u16(), 200);

    // A key made with the CLI while it serves without keys is enforced without a restart.
    let store = dir.join("serve.db").display().to_string();
    let out = common::run_in(&dir, &["serve", "keys", "create", "acme", "--store", &store], &[]).await;
    assert_eq!(out.status.code(), Some(0), "{}", common::text(&out.stderr));
    let key = common::text(&out.stdout).trim().to_string();
    let mut status = 0;
    for _ in 0..120 {
        status = http.get(format!("{url}/v1/sessions")).send().await.unwrap().status().as_u16();
        if status == 401 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    assert_eq!(status, 401, "anonymous requests refused once a key is stored");
    let with_key = http.get(format!("{url}/v1/sessions")).bearer_auth(&key).send().await.unwrap();
    assert_eq!(with_key.status().as_u16(), 200);
    let metrics = http.get(format!("{url}/metrics")).send().await.unwrap();
    assert_eq!(metrics.status().as_u16(), 401);
    guard.0.clear();
    let status = tokio::task::block_in_place(|| stop(child));
    assert!(status.success(), "{status:?}");
}
