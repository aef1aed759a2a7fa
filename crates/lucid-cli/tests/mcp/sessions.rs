//! `lucid mcp serve --http`'s sessions: one client's many sessions leave room for another,
//! an idle session is closed after the idle time, and a client whose sessions all have
//! calls in progress is refused alone.

use std::time::{Duration, Instant};

use super::serve::{call, raw, serve_dir, serve_http, serve_in_process, served};
use super::*;

const TOKEN: &str = "a-token-of-sixteen-or-more";
const AUTH: &str = "Authorization: Bearer a-token-of-sixteen-or-more\r\n";
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
const PING: &str = r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#;

/// The session id in an answer's head.
fn session_id(head: &str) -> String {
    head.lines().find_map(|l| l.strip_prefix("mcp-session-id: ")).unwrap_or_else(|| panic!("{head}")).to_string()
}

/// The headers of a request on session `id`.
fn on(id: &str) -> String {
    format!("{AUTH}mcp-session-id: {id}\r\nmcp-protocol-version: 2025-06-18\r\n")
}

#[tokio::test(flavor = "multi_thread")]
async fn seventeen_idle_sessions_of_one_client_leave_room_for_another() {
    let dir = serve_dir("many-sessions");
    let (mut server, url, token) = serve_http(&dir, "calculator", &[]).await;
    let token = token.expect("a token is printed");
    let auth = format!("Authorization: Bearer {token}\r\n");
    // One client opens 17 sessions (more than the 16 the server keeps) and leaves them idle.
    for _ in 0..17 {
        let head = raw(&url, "POST", &auth, INITIALIZE).await;
        assert!(head.starts_with("HTTP/1.1 "), "{head}");
    }
    let other = lucid_mcp::McpServer::http(&url)
        .name("other")
        .header("Authorization", format!("Bearer {token}"))
        .timeout(Duration::from_secs(10))
        .connect()
        .await
        .expect("another client still opens a session");
    let sum = call(&other, "other__calculator", serde_json::json!({"expression": "6*7"})).await;
    assert_eq!((sum.is_error, sum.content.as_str()), (false, "42"), "{sum:?}");
    let _ = server.kill().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_idle_session_is_closed_after_the_idle_time() {
    let dir = serve_dir("idle-session");
    let options = lucid_mcp::HttpOptions::with_token(TOKEN).idle_timeout(Duration::from_secs(1));
    let (url, stop) = serve_in_process(served(&dir, &["calculator"]), options).await;
    let id = session_id(&raw(&url, "POST", AUTH, INITIALIZE).await);
    assert!(raw(&url, "POST", &on(&id), INITIALIZED).await.starts_with("HTTP/1.1 202"));
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        // Each look uses the session: the next one waits well past the idle time.
        tokio::time::sleep(Duration::from_secs(3)).await;
        let head = raw(&url, "POST", &on(&id), PING).await;
        if head.starts_with("HTTP/1.1 404") {
            break;
        }
        assert!(head.starts_with("HTTP/1.1 200"), "{head}");
        assert!(Instant::now() < deadline, "the idle session is still open");
    }
    stop.cancel();
}

/// A raw request to `url` from the local address `from`, its connection kept open: the
/// stream and the answer's head.
async fn open_from(from: &str, url: &str, headers: &str, body: &str) -> (tokio::net::TcpStream, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let host = url.strip_prefix("http://").and_then(|r| r.split('/').next()).unwrap();
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind(format!("{from}:0").parse().unwrap()).unwrap();
    let mut stream = socket.connect(host.parse().unwrap()).await.unwrap();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n{headers}Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    let mut chunk = [0u8; 4096];
    while !text(&answer).contains("\r\n\r\n") {
        match tokio::time::timeout(Duration::from_secs(10), stream.read(&mut chunk)).await {
            Ok(Ok(n)) if n > 0 => answer.extend_from_slice(&chunk[..n]),
            _ => break,
        }
    }
    (stream, text(&answer).split("\r\n\r\n").next().unwrap_or_default().to_string())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_client_whose_sessions_are_all_busy_is_refused_alone() {
    let dir = serve_dir("busy-client");
    let options = lucid_mcp::HttpOptions::with_token(TOKEN).max_sessions(4).max_sessions_per_client(1);
    let (url, stop) = serve_in_process(served(&dir, &["shell"]), options).await;
    // The client at 127.0.0.2 opens its one session and keeps a call running in it.
    let (_s, head) = open_from("127.0.0.2", &url, AUTH, INITIALIZE).await;
    let id = session_id(&head);
    let (_s, head) = open_from("127.0.0.2", &url, &on(&id), INITIALIZED).await;
    assert!(head.starts_with("HTTP/1.1 202"), "{head}");
    let sleep = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"shell","arguments":{"command":"sleep 20"}}}"#;
    let (_call, head) = open_from("127.0.0.2", &url, &on(&id), sleep).await;
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    // Its next session is refused, to it alone: another address still gets one.
    let (_s, head) = open_from("127.0.0.2", &url, AUTH, INITIALIZE).await;
    assert!(head.starts_with("HTTP/1.1 429"), "{head}");
    assert!(head.to_lowercase().contains("retry-after: "), "{head}");
    let (_s, head) = open_from("127.0.0.1", &url, AUTH, INITIALIZE).await;
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    stop.cancel();
}
