//! `lucid mcp serve`: over stdio in its folder, over HTTP with its token, caps and timeouts, the conformance suite.

use super::*;

/// A fresh folder holding `a.txt`, for `lucid mcp serve` to work in.
pub(super) fn serve_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lucid-cli-serve-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("a.txt"), "hello from a file\n").unwrap();
    dir
}

pub(super) async fn call(client: &lucid_mcp::McpClient, tool: &str, args: Value) -> lucid::tool::ToolOutcome {
    let mut tools = lucid::tool::ToolRegistry::new();
    for t in client.tools() {
        tools.add_arc(t);
    }
    tools.execute(&lucid::ToolCall::new("c", tool, args), lucid::tool::ToolContext::default(), None).await
}

#[tokio::test(flavor = "multi_thread")]
async fn mcp_serve_answers_a_real_client_over_stdio_inside_its_folder() {
    let dir = serve_dir("stdio");
    let client = lucid_mcp::McpServer::stdio(
        env!("CARGO_BIN_EXE_lucid"),
        ["mcp", "serve", "--tools", "read_file,write_file,calculator"],
    )
    .name("lucid")
    .cwd(&dir)
    .env("HOME", dir.display().to_string())
    .connect()
    .await
    .expect("lucid mcp serve answers the handshake");
    let names: Vec<String> = client.remote_tools().iter().map(|t| t.name.to_string()).collect();
    assert_eq!(names, ["read_file", "write_file", "calculator"]);

    let read = call(&client, "lucid__read_file", serde_json::json!({"path": "a.txt"})).await;
    assert!(!read.is_error && read.content.contains("hello from a file"), "{read:?}");
    let sum = call(&client, "lucid__calculator", serde_json::json!({"expression": "2+3"})).await;
    assert_eq!((sum.content.as_str(), sum.is_error), ("5", false));
    let write = call(&client, "lucid__write_file", serde_json::json!({"path": "b.txt", "content": "written"})).await;
    assert!(!write.is_error, "{write:?}");
    assert_eq!(std::fs::read_to_string(dir.join("b.txt")).unwrap(), "written");
    // Confinement holds: outside the folder is an error result, not a read.
    let outside = call(&client, "lucid__read_file", serde_json::json!({"path": "../../etc/passwd"})).await;
    assert!(outside.is_error, "{outside:?}");

    // By default only the tools that read are served.
    let default = lucid_mcp::McpServer::stdio(env!("CARGO_BIN_EXE_lucid"), ["mcp", "serve"])
        .cwd(&dir)
        .env("HOME", dir.display().to_string())
        .connect()
        .await
        .expect("starts");
    let names: Vec<String> = default.remote_tools().iter().map(|t| t.name.to_string()).collect();
    assert!(names.contains(&"read_file".to_string()), "{names:?}");
    assert!(!names.iter().any(|n| n == "write_file" || n == "shell" || n == "ask_user"), "{names:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn mcp_serve_http_refuses_a_public_address() {
    let dir = serve_dir("public");
    let out = lucid(&dir, &["mcp", "serve", "--http", "0.0.0.0:0"]).await;
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("loopback"), "{}", text(&out.stderr));
}

/// `lucid mcp serve --http 127.0.0.1:0` in `dir` with these variables: the process, its
/// URL, and the token it printed (or `None` when it said it took the variable's).
pub(super) async fn serve_http(
    dir: &Path,
    tools: &str,
    vars: &[(&str, &str)],
) -> (tokio::process::Child, String, Option<String>) {
    let mut cmd = tokio::process::Command::from(common::lucid_command());
    let mut server = cmd
        .args(["mcp", "serve", "--tools", tools, "--http", "127.0.0.1:0"])
        .current_dir(dir)
        .env("HOME", dir)
        .envs(vars.iter().copied())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stderr = tokio::io::BufReader::new(server.stderr.take().unwrap());
    let mut line = String::new();
    tokio::io::AsyncBufReadExt::read_line(&mut stderr, &mut line).await.unwrap();
    let url = line.trim().strip_prefix("serving MCP at ").unwrap_or_else(|| panic!("{line}")).to_string();
    line.clear();
    tokio::io::AsyncBufReadExt::read_line(&mut stderr, &mut line).await.unwrap();
    let token = line.trim().strip_prefix("bearer token: ").unwrap_or_else(|| panic!("{line}"));
    let token = (!token.contains("LUCID_MCP_TOKEN")).then(|| token.to_string());
    // Keep reading what it writes: a closed pipe would end it (SIGPIPE).
    tokio::spawn(async move {
        let mut rest = Vec::new();
        let _ = tokio::io::AsyncReadExt::read_to_end(&mut stderr, &mut rest).await;
    });
    (server, url, token)
}

/// A raw HTTP/1.1 request to `url`: `method`, extra header lines, a body; returns the
/// answer's head (status line and headers).
pub(super) async fn raw(url: &str, method: &str, headers: &str, body: &str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let host = url.strip_prefix("http://").and_then(|r| r.split('/').next()).unwrap();
    let request = format!(
        "{method} /mcp HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n{headers}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let mut stream = tokio::net::TcpStream::connect(host).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    // The head is enough: an SSE answer may stay open.
    let mut chunk = [0u8; 4096];
    while !text(&answer).contains("\r\n\r\n") {
        match tokio::time::timeout(std::time::Duration::from_secs(10), stream.read(&mut chunk)).await {
            Ok(Ok(n)) if n > 0 => answer.extend_from_slice(&chunk[..n]),
            _ => break,
        }
    }
    text(&answer).split("\r\n\r\n").next().unwrap_or_default().to_string()
}

/// The status line of a raw `initialize` POST to `url` with this `Authorization` header.
pub(super) async fn initialize_status(url: &str, authorization: Option<&str>) -> String {
    let auth = authorization.map(|a| format!("Authorization: {a}\r\n")).unwrap_or_default();
    raw(url, "POST", &auth, INITIALIZE).await.lines().next().unwrap_or_default().to_string()
}

#[tokio::test(flavor = "multi_thread")]
async fn mcp_serve_http_answers_only_a_client_with_its_bearer_token() {
    let dir = serve_dir("http");
    let (mut server, url, token) = serve_http(&dir, "calculator,read_file", &[]).await;
    let token = token.expect("a token is made and printed");
    assert_eq!(token.len(), 64, "{token}");
    // Any local process can reach the port: without the token (or with another) it gets 401.
    assert_eq!(initialize_status(&url, None).await, "HTTP/1.1 401 Unauthorized");
    assert_eq!(initialize_status(&url, Some("Bearer wrong-token-0123456789")).await, "HTTP/1.1 401 Unauthorized");
    assert_eq!(initialize_status(&url, Some(&format!("Bearer {token}"))).await, "HTTP/1.1 200 OK");
    let refused =
        lucid_mcp::McpServer::http(&url).name("lucid").timeout(std::time::Duration::from_secs(5)).connect().await;
    assert!(refused.is_err(), "a client without the token is refused");

    let client = lucid_mcp::McpServer::http(&url)
        .name("lucid")
        .header("Authorization", format!("Bearer {token}"))
        .connect()
        .await
        .expect("connects over HTTP with the token");
    let sum = call(&client, "lucid__calculator", serde_json::json!({"expression": "6*7"})).await;
    assert_eq!(sum.content, "42");
    let _ = server.kill().await;

    // The token may come from the environment, and is then not printed.
    let chosen = "chosen-token-0123456789abcdef";
    let (mut server, url, printed) = serve_http(&dir, "calculator", &[("LUCID_MCP_TOKEN", chosen)]).await;
    assert_eq!(printed, None);
    assert_eq!(initialize_status(&url, Some(&format!("Bearer {chosen}"))).await, "HTTP/1.1 200 OK");
    assert_eq!(initialize_status(&url, None).await, "HTTP/1.1 401 Unauthorized");
    let _ = server.kill().await;
    let out = common::run_in(&dir, &["mcp", "serve", "--http", "127.0.0.1:0"], &[("LUCID_MCP_TOKEN", "short")]).await;
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("LUCID_MCP_TOKEN must be at least 16 characters"), "{}", text(&out.stderr));
}

/// The tools `lucid mcp serve --tools calculator,read_file` serves, built in-process.
pub(super) fn served(dir: &Path, names: &[&str]) -> lucid::tool::ToolRegistry {
    let setup = lucid::tool::catalogue::Setup::new(dir);
    let mut tools = lucid::tool::ToolRegistry::new();
    for name in names {
        tools.add_arc(
            lucid::tool::catalogue::Catalogue::new()
                .with(lucid_tools::TOOLS)
                .with(lucid_sandbox::TOOLS)
                .find(name)
                .unwrap()
                .build(&setup)
                .unwrap(),
        );
    }
    tools
}

/// Serves `tools` in-process with `options`; returns the URL and the stop token.
pub(super) async fn serve_in_process(
    tools: lucid::tool::ToolRegistry,
    options: lucid_mcp::HttpOptions,
) -> (String, tokio_util::sync::CancellationToken) {
    let stop = tokio_util::sync::CancellationToken::new();
    let (tx, rx) = tokio::sync::oneshot::channel();
    let addr = "127.0.0.1:0".parse().unwrap();
    tokio::spawn(lucid_mcp::serve_http(tools, addr, options, stop.clone(), move |bound| {
        let _ = tx.send(bound);
    }));
    (format!("http://{}/mcp", rx.await.unwrap()), stop)
}

#[tokio::test(flavor = "multi_thread")]
async fn mcp_serve_http_caps_sessions_and_times_calls_out() {
    let dir = serve_dir("caps");
    let options = lucid_mcp::HttpOptions::with_token("a-token-of-sixteen-or-more")
        .max_sessions(1)
        .call_timeout(std::time::Duration::from_secs(1));
    let (url, stop) = serve_in_process(served(&dir, &["shell"]), options).await;
    let client = |name: &str| {
        lucid_mcp::McpServer::http(&url)
            .name(name)
            .header("Authorization", "Bearer a-token-of-sixteen-or-more")
            .timeout(std::time::Duration::from_secs(10))
            .connect()
    };
    let _first = client("first").await.expect("the first session opens");
    // Past the cap, the idle first session makes room for the second client.
    let second = client("second").await.expect("the least recently used idle session makes room");
    let slow = call(&second, "second__shell", serde_json::json!({"command": "sleep 30"})).await;
    assert!(slow.is_error && slow.content.contains("did not finish within 1.0 s"), "{slow:?}");
    stop.cancel();

    // A session closed for room is gone for its client (404: it starts a new one); one the
    // client ends (DELETE) is gone too.
    let options = lucid_mcp::HttpOptions::with_token("a-token-of-sixteen-or-more").max_sessions(1);
    let (url, stop) = serve_in_process(served(&dir, &["calculator"]), options).await;
    let auth = "Authorization: Bearer a-token-of-sixteen-or-more\r\n";
    let id = |head: &str| {
        head.lines().find_map(|l| l.strip_prefix("mcp-session-id: ")).unwrap_or_else(|| panic!("{head}")).to_string()
    };
    let first = id(&raw(&url, "POST", auth, INITIALIZE).await);
    let second = id(&raw(&url, "POST", auth, INITIALIZE).await);
    let ping = r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#;
    let on = |id: &str| format!("{auth}mcp-session-id: {id}\r\nmcp-protocol-version: 2025-06-18\r\n");
    assert!(raw(&url, "POST", &on(&first), ping).await.starts_with("HTTP/1.1 404"));
    let deleted = raw(&url, "DELETE", &on(&second), "").await;
    assert!(deleted.starts_with("HTTP/1.1 2"), "{deleted}");
    assert!(raw(&url, "POST", &on(&second), ping).await.starts_with("HTTP/1.1 404"));
    stop.cancel();
}

/// The server scenarios of the official conformance suite that a server of Lucid's default
/// built-in tools alone passes, with no catalog (all the suite's server scenarios, with its
/// fixtures, are in `mcp_serve_conformance.rs`). The suite cannot send a token, so it runs
/// against the same server in-process, without one.
const CONFORMANCE: &[&str] = &[
    "server-initialize",
    "ping",
    "tools-list",
    "dns-rebinding-protection",
    "server-sse-polling",
    "server-sse-multiple-streams",
];

#[tokio::test(flavor = "multi_thread")]
async fn mcp_serve_http_passes_the_conformance_suite() {
    let Some(npm) = mcp_dir() else { return };
    let dir = serve_dir("conformance");
    let (url, stop) =
        serve_in_process(served(&dir, &["calculator", "read_file"]), lucid_mcp::HttpOptions::without_token()).await;
    for scenario in CONFORMANCE {
        let out =
            common::conformance(&npm).args(["server", "--url", &url, "--scenario", scenario]).output().await.unwrap();
        let report = text(&out.stdout) + &text(&out.stderr);
        assert!(report.contains(" 0 failed"), "{scenario}: {report}");
        assert!(!report.contains("FAILURE"), "{scenario}: {report}");
    }
    stop.cancel();
}
