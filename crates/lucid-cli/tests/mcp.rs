//! `lucid mcp list` and `lucid run` with MCP servers: the real binary, npm's
//! server-everything (`LUCID_TEST_MCP_DIR`, installed by `.ci/run`) and a scripted model.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::text;

use lucid_mock::{MockServer, Reply, text_completion, text_stream, tool_call_completion, tool_call_stream};
use serde_json::Value;

/// The npm install folder, or `None` (skipped, reason printed; a failure under CI=true).
fn mcp_dir() -> Option<PathBuf> {
    match std::env::var("LUCID_TEST_MCP_DIR") {
        Ok(v) if !v.is_empty() => Some(PathBuf::from(v)),
        _ if std::env::var("CI").is_ok_and(|v| v == "true") => panic!("LUCID_TEST_MCP_DIR is not set under CI=true"),
        _ => {
            eprintln!("skipped: LUCID_TEST_MCP_DIR is not set (.ci/run installs the npm MCP servers and sets it)");
            None
        }
    }
}

/// A folder holding `mcp.json` naming server-everything as `everything`.
fn config_dir(name: &str, npm: &Path) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lucid-cli-mcp-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let bin = npm.join("node_modules/.bin/mcp-server-everything");
    let json = serde_json::json!({"mcpServers": {
        "everything": {"command": bin, "args": ["stdio"]},
    }});
    std::fs::write(dir.join("mcp.json"), json.to_string()).unwrap();
    dir
}

async fn lucid(dir: &Path, args: &[&str]) -> Output {
    common::run_in(dir, args, &[]).await
}

#[tokio::test(flavor = "multi_thread")]
async fn mcp_list_shows_the_servers_tools() {
    let Some(npm) = mcp_dir() else { return };
    let dir = config_dir("list", &npm);
    let out = lucid(&dir, &["mcp", "list", "--mcp-config", "mcp.json"]).await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("everything (") && stdout.contains("ok, MCP 20"), "{stdout}");
    assert!(stdout.lines().any(|l| l.contains("everything__echo") && l.contains("Echo")), "{stdout}");

    let out = lucid(&dir, &["mcp", "list", "--json", "--mcp-config", "mcp.json"]).await;
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v[0]["status"], "ok");
    assert!(v[0]["tools"].as_array().unwrap().iter().any(|t| t["name"] == "everything__echo"));
}

/// `lucid` in `dir` with `input` on its stdin, bounded to two minutes.
async fn lucid_with_input(dir: &Path, args: &[&str], input: &str) -> Output {
    use tokio::io::AsyncWriteExt;
    let mut cmd = tokio::process::Command::from(common::lucid_command());
    cmd.args(args).current_dir(dir).env("HOME", dir).kill_on_drop(true);
    cmd.stdin(std::process::Stdio::piped()).stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input.as_bytes()).await.unwrap();
    drop(stdin);
    tokio::time::timeout(std::time::Duration::from_secs(120), child.wait_with_output())
        .await
        .unwrap_or_else(|_| panic!("lucid {args:?} hung"))
        .unwrap()
}

/// `lucid mcp show | read | prompt | call`: a server's resources and prompts listed, read
/// and fetched; a tool's elicitation asked on stdin (accepted with defaults, declined).
#[tokio::test(flavor = "multi_thread")]
async fn mcp_commands_show_read_prompt_and_answer_elicitation() {
    let Some(npm) = mcp_dir() else { return };
    let dir = config_dir("inspect", &npm);
    let mcp = ["--mcp-config", "mcp.json"];
    let out = lucid(&dir, &[&["mcp", "show", "everything"][..], &mcp].concat()).await;
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("demo://resource/static/document/architecture.md"), "{stdout}");
    assert!(stdout.contains("args-prompt city [state]"), "{stdout}");
    // Declared capability: the server offers its elicitation tool only to a client that can answer.
    assert!(stdout.contains("trigger-elicitation-request"), "{stdout}");

    let out = lucid(&dir, &[&["mcp", "read", "everything", "demo://resource/dynamic/text/7"][..], &mcp].concat()).await;
    assert!(text(&out.stdout).starts_with("Resource 7:"), "{}{}", text(&out.stdout), text(&out.stderr));
    let out =
        lucid(&dir, &[&["mcp", "prompt", "everything", "args-prompt", r#"{"city": "Paris"}"#][..], &mcp].concat())
            .await;
    assert_eq!(text(&out.stdout).trim(), "user: What's weather in Paris?", "{}", text(&out.stderr));

    let call = [&["mcp", "call", "everything", "trigger-elicitation-request"][..], &mcp].concat();
    let out = lucid_with_input(&dir, &call, &format!("y\n{}", "\n".repeat(20))).await;
    let stdout = text(&out.stdout);
    assert!(stdout.contains(r#""action": "accept""#) && stdout.contains(r#""integer": 42"#), "{stdout}");
    assert!(text(&out.stderr).contains("The MCP server everything asks:"), "{}", text(&out.stderr));
    let out = lucid_with_input(&dir, &call, "n\n").await;
    assert!(text(&out.stdout).contains("decline"), "{}", text(&out.stdout));
}

#[tokio::test(flavor = "multi_thread")]
async fn run_lets_the_model_call_an_allowed_mcp_tool_streamed_or_not() {
    let Some(npm) = mcp_dir() else { return };
    let dir = config_dir("run", &npm);
    let args = r#"{"message":"hi from mcp"}"#;
    let server = MockServer::sequence(vec![
        Reply::json(200, &tool_call_completion(&[("c1", "everything__echo", args)])),
        Reply::json(200, &text_completion("It said: Echo: hi from mcp")),
        Reply::sse(&tool_call_stream(&[("c2", "everything__echo", args)])),
        Reply::sse(&text_stream(&["It said: ", "Echo: hi from mcp"])),
        // Without --allow the call is refused: a run cannot ask.
        Reply::json(200, &tool_call_completion(&[("c3", "everything__echo", args)])),
        Reply::json(200, &text_completion("refused")),
    ])
    .await;
    let base = ["run", "--base-url", &server.url(), "-m", "m", "--mcp-config", "mcp.json"];
    let out = lucid(&dir, &[&base[..], &["--allow", "everything__*", "--json", "echo"]].concat()).await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["tool_calls"][0]["output"], "Echo: hi from mcp");
    assert_eq!(v["tool_calls"][0]["is_error"], false);
    let tools = server.requests()[0].json()["tools"].to_string();
    assert!(tools.contains("everything__echo") && tools.contains("calculator"), "{tools}");

    let out = lucid(&dir, &[&base[..], &["--allow", "everything__*", "--stream", "echo"]].concat()).await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("It said: Echo: hi from mcp"));
    let reqs = server.requests();
    assert!(reqs[3].json()["messages"].to_string().contains("Echo: hi from mcp"));

    let out = lucid(&dir, &[&base[..], &["--json", "echo"]].concat()).await;
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["tool_calls"][0]["is_error"], true, "{v}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_that_fails_to_start_stops_the_run_with_its_name_and_stderr() {
    let dir = std::env::temp_dir().join(format!("lucid-cli-mcp-broken-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let json = r#"{"mcpServers": {"broken": {"command": "sh", "args": ["-c", "echo 'no token' >&2; exit 1"]}}}"#;
    std::fs::write(dir.join("mcp.json"), json).unwrap();
    let out =
        lucid(&dir, &["run", "--base-url", "http://127.0.0.1:9", "-m", "m", "--mcp-config", "mcp.json", "hi"]).await;
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("`broken`") && err.contains("no token"), "{err}");
    // --mcp none leaves it out; the run then fails on the (absent) model instead.
    let out = lucid(&dir, &["mcp", "list", "--mcp-config", "mcp.json", "--mcp", "none"]).await;
    assert!(text(&out.stdout).contains("no MCP servers configured"), "{}", text(&out.stdout));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_workflow_tool_step_calls_an_mcp_tool_when_allowed() {
    let Some(npm) = mcp_dir() else { return };
    let dir = config_dir("workflow", &npm);
    std::fs::write(
        dir.join("flow.yaml"),
        "name: echo\nsteps:\n  - name: say\n    tool: everything__echo\n    args: { message: from a step }\n",
    )
    .unwrap();
    let flow = ["workflow", "run", "flow.yaml", "--mcp-config", "mcp.json"];
    let out = lucid(&dir, &[&flow[..], &["--allow", "everything__echo"]].concat()).await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("Echo: from a step"), "{}", text(&out.stdout));
    let out = lucid(&dir, &flow).await;
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("needs the user's approval"), "{}", text(&out.stderr));
}

/// A fresh folder holding `a.txt`, for `lucid mcp serve` to work in.
fn serve_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lucid-cli-serve-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("a.txt"), "hello from a file\n").unwrap();
    dir
}

async fn call(client: &lucid::mcp::McpClient, tool: &str, args: Value) -> lucid::tool::ToolOutcome {
    let mut tools = lucid::tool::ToolRegistry::new();
    for t in client.tools() {
        tools.add_arc(t);
    }
    tools.execute(&lucid::ToolCall::new("c", tool, args), lucid::tool::ToolContext::default(), None).await
}

#[tokio::test(flavor = "multi_thread")]
async fn mcp_serve_answers_a_real_client_over_stdio_inside_its_folder() {
    let dir = serve_dir("stdio");
    let client = lucid::mcp::McpServer::stdio(
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
    let default = lucid::mcp::McpServer::stdio(env!("CARGO_BIN_EXE_lucid"), ["mcp", "serve"])
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
async fn serve_http(dir: &Path, tools: &str, vars: &[(&str, &str)]) -> (tokio::process::Child, String, Option<String>) {
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
async fn raw(url: &str, method: &str, headers: &str, body: &str) -> String {
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

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;

/// The status line of a raw `initialize` POST to `url` with this `Authorization` header.
async fn initialize_status(url: &str, authorization: Option<&str>) -> String {
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
        lucid::mcp::McpServer::http(&url).name("lucid").timeout(std::time::Duration::from_secs(5)).connect().await;
    assert!(refused.is_err(), "a client without the token is refused");

    let client = lucid::mcp::McpServer::http(&url)
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
fn served(dir: &Path, names: &[&str]) -> lucid::tool::ToolRegistry {
    let setup = lucid::tool::builtin::Setup::new(dir);
    let mut tools = lucid::tool::ToolRegistry::new();
    for name in names {
        tools.add_arc(lucid::tool::builtin::find(name).unwrap().build(&setup).unwrap());
    }
    tools
}

/// Serves `tools` in-process with `options`; returns the URL and the stop token.
async fn serve_in_process(
    tools: lucid::tool::ToolRegistry,
    options: lucid::mcp::HttpOptions,
) -> (String, tokio_util::sync::CancellationToken) {
    let stop = tokio_util::sync::CancellationToken::new();
    let (tx, rx) = tokio::sync::oneshot::channel();
    let addr = "127.0.0.1:0".parse().unwrap();
    tokio::spawn(lucid::mcp::serve_http(tools, addr, options, stop.clone(), move |bound| {
        let _ = tx.send(bound);
    }));
    (format!("http://{}/mcp", rx.await.unwrap()), stop)
}

#[tokio::test(flavor = "multi_thread")]
async fn mcp_serve_http_caps_sessions_and_times_calls_out() {
    let dir = serve_dir("caps");
    let options = lucid::mcp::HttpOptions::with_token("a-token-of-sixteen-or-more")
        .max_sessions(1)
        .call_timeout(std::time::Duration::from_secs(1));
    let (url, stop) = serve_in_process(served(&dir, &["shell"]), options).await;
    let client = |name: &str| {
        lucid::mcp::McpServer::http(&url)
            .name(name)
            .header("Authorization", "Bearer a-token-of-sixteen-or-more")
            .timeout(std::time::Duration::from_secs(10))
            .connect()
    };
    let first = client("first").await.expect("the first session opens");
    let second = client("second").await.expect_err("past the session cap");
    assert!(
        second.to_string().contains("503") || second.to_string().to_lowercase().contains("unavailable"),
        "{second}"
    );
    assert_eq!(
        initialize_status(&url, Some("Bearer a-token-of-sixteen-or-more")).await,
        "HTTP/1.1 503 Service Unavailable"
    );

    let slow = call(&first, "first__shell", serde_json::json!({"command": "sleep 30"})).await;
    assert!(slow.is_error && slow.content.contains("did not finish within 1.0 s"), "{slow:?}");
    stop.cancel();

    // A session the client ends (DELETE) frees its place.
    let options = lucid::mcp::HttpOptions::with_token("a-token-of-sixteen-or-more").max_sessions(1);
    let (url, stop) = serve_in_process(served(&dir, &["calculator"]), options).await;
    let auth = "Authorization: Bearer a-token-of-sixteen-or-more\r\n";
    let head = raw(&url, "POST", auth, INITIALIZE).await;
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    let id = head.lines().find_map(|l| l.strip_prefix("mcp-session-id: ")).unwrap_or_else(|| panic!("{head}"));
    assert!(raw(&url, "POST", auth, INITIALIZE).await.starts_with("HTTP/1.1 503"));
    let deleted = raw(&url, "DELETE", &format!("{auth}mcp-session-id: {id}\r\n"), "").await;
    assert!(deleted.starts_with("HTTP/1.1 2"), "{deleted}");
    assert!(raw(&url, "POST", auth, INITIALIZE).await.starts_with("HTTP/1.1 200"));
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
        serve_in_process(served(&dir, &["calculator", "read_file"]), lucid::mcp::HttpOptions::without_token()).await;
    for scenario in CONFORMANCE {
        let out =
            common::conformance(&npm).args(["server", "--url", &url, "--scenario", scenario]).output().await.unwrap();
        let report = text(&out.stdout) + &text(&out.stderr);
        assert!(report.contains(" 0 failed"), "{scenario}: {report}");
        assert!(!report.contains("FAILURE"), "{scenario}: {report}");
    }
    stop.cancel();
}

/// `lucid chat` with a server that fails to start the first time: the chat goes on without
/// it, `/mcp` says why, and `/mcp restart NAME` starts it and gives the agent its tools.
#[tokio::test(flavor = "multi_thread")]
async fn chat_starts_a_server_that_failed_at_start_with_mcp_restart() {
    use expectrl::Session;
    let Some(npm) = mcp_dir() else { return };
    let dir = config_dir("restart", &npm);
    let bin = npm.join("node_modules/.bin/mcp-server-everything");
    let marker = dir.join("tried-once");
    let script = dir.join("flaky.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nif [ ! -e '{m}' ]; then touch '{m}'; echo 'not ready yet' >&2; exit 3; fi\nexec '{b}' stdio\n",
            m = marker.display(),
            b = bin.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let json = serde_json::json!({"mcpServers": {"flaky": {"command": script}}});
    std::fs::write(dir.join("mcp.json"), json.to_string()).unwrap();
    let server = MockServer::start(|_| Reply::sse(&text_stream(&["Hello."]))).await;
    let url = server.url();
    tokio::task::spawn_blocking(move || {
        let mut cmd = common::lucid_command();
        cmd.current_dir(&dir)
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", &dir)
            .args(["chat", "--base-url", &url, "-m", "m", "--no-plan", "--mcp-config", "mcp.json"])
            .arg("--store")
            .arg(dir.join("sessions.db"))
            .env("TERM", "xterm")
            .env("NO_COLOR", "1");
        let mut p = Session::spawn(cmd).expect("spawn lucid chat");
        p.set_expect_timeout(Some(std::time::Duration::from_secs(20)));
        p.expect("not ready yet").unwrap();
        p.expect("> ").unwrap();
        p.send_line("/mcp").unwrap();
        p.expect("flaky failed:").unwrap();
        p.send_line("/mcp restart flaky").unwrap();
        p.expect("restarted flaky").unwrap();
        p.send_line("/tools").unwrap();
        p.expect("flaky__echo").unwrap();
        p.send_line("/mcp").unwrap();
        p.expect("ok, MCP 20").unwrap();
        p.send_line("/mcp restart nope").unwrap();
        p.expect("no MCP server named nope").unwrap();
        p.send_line("/exit").unwrap();
        p.expect(expectrl::Eof).unwrap();
    })
    .await
    .unwrap();
}

/// `lucid chat` answers a server's elicitation at its prompt, as it answers `ask_user`:
/// the question, then a line per field; empty lines keep the defaults.
#[tokio::test(flavor = "multi_thread")]
async fn chat_asks_a_servers_elicitation_at_the_prompt() {
    use expectrl::Session;
    let Some(npm) = mcp_dir() else { return };
    let dir = config_dir("chat-elicit", &npm);
    let server = MockServer::sequence(vec![
        Reply::sse(&tool_call_stream(&[("c1", "everything__trigger-elicitation-request", "{}")])),
        Reply::sse(&text_stream(&["All set."])),
    ])
    .await;
    let url = server.url();
    tokio::task::spawn_blocking(move || {
        let mut cmd = common::lucid_command();
        cmd.current_dir(&dir)
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", &dir)
            .args(["chat", "--base-url", &url, "-m", "m", "--no-plan", "--mcp-config", "mcp.json"])
            .args(["--allow", "everything__*", "--store"])
            .arg(dir.join("sessions.db"))
            .env("TERM", "xterm")
            .env("NO_COLOR", "1");
        let mut p = Session::spawn(cmd).expect("spawn lucid chat");
        p.set_expect_timeout(Some(std::time::Duration::from_secs(30)));
        p.expect("> ").unwrap();
        p.send_line("fill the form").unwrap();
        p.expect("The MCP server everything asks:").unwrap();
        p.expect("answer> ").unwrap();
        p.send_line("y").unwrap();
        // One question per field, in the schema's order; an empty answer keeps its default.
        let mut asked = String::new();
        for _ in 0..20 {
            let m = p.expect(expectrl::Regex("answer> |All set\\.")).unwrap();
            asked.push_str(&String::from_utf8_lossy(m.before()));
            if m.get(0).is_some_and(|b| b.starts_with(b"All")) {
                break;
            }
            p.send_line("").unwrap();
        }
        assert!(asked.contains("integer (integer default 42)"), "{asked}");
        p.send_line("/exit").unwrap();
        p.expect(expectrl::Eof).unwrap();
    })
    .await
    .unwrap();
    let second = &server.requests()[1];
    let body = String::from_utf8_lossy(&second.body);
    assert!(
        body.contains("User provided the requested information") && body.contains("Favorite Integer: 42"),
        "{body}"
    );
}

/// A folder whose `mcp.json` names the hostile test server in `mode` as `hostile`, with
/// these extra settings.
fn hostile_dir(name: &str, mode: &str, extra: Value) -> PathBuf {
    let dir = common::test_dir(&format!("mcp-hostile-{name}"));
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../lucid/tests/mcp/hostile_server.py");
    let mut server = serde_json::json!({"command": "python3", "args": [script, mode]});
    if let (Some(s), Value::Object(extra)) = (server.as_object_mut(), extra) {
        s.extend(extra);
    }
    std::fs::write(dir.join("mcp.json"), serde_json::json!({"mcpServers": {"hostile": server}}).to_string()).unwrap();
    dir
}

/// `lucid` in `dir`, killed (and the test failed) if it has not ended within two minutes.
async fn lucid_bounded(dir: &Path, args: &[&str]) -> Output {
    let mut cmd = tokio::process::Command::from(common::lucid_command());
    cmd.args(args)
        .current_dir(dir)
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", dir)
        .kill_on_drop(true);
    tokio::time::timeout(std::time::Duration::from_secs(120), cmd.output())
        .await
        .unwrap_or_else(|_| panic!("lucid {args:?} hung"))
        .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn mcp_list_shows_a_servers_text_with_escapes_neutralised_and_never_a_bare_builtin_name() {
    let dir = hostile_dir("list", "builtin", serde_json::json!({"prefix": false}));
    let out = lucid_bounded(&dir, &["mcp", "list", "--mcp-config", "mcp.json"]).await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(!stdout.contains(['\x1b', '\x07', '\r', '\u{202e}']), "{stdout:?}");
    assert!(stdout.contains(r"\u{1b}]0;pwned\u{7}\u{1b}[31mred"), "{stdout}");
    assert!(stdout.contains("hostile__shell") && stdout.contains("hostile__write_file"), "{stdout}");
    assert!(stdout.lines().any(|l| l.trim_start().starts_with("fancy ")), "{stdout}");
}

#[tokio::test(flavor = "multi_thread")]
async fn list_and_run_end_when_the_tool_list_never_comes_or_is_one_huge_line() {
    let silent = hostile_dir("silent", "silent", serde_json::json!({"timeout_s": 2}));
    let out = lucid_bounded(&silent, &["mcp", "list", "--mcp-config", "mcp.json"]).await;
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("hostile (") && stdout.contains("no complete answer to tools/list within 2.0 s"),
        "{stdout}"
    );
    let run = ["run", "--base-url", "http://127.0.0.1:9", "-m", "m", "--mcp-config", "mcp.json", "hi"];
    let out = lucid_bounded(&silent, &run).await;
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("`hostile`: no complete answer to tools/list"), "{}", text(&out.stderr));

    // The 17 MB line ends the start at once, whatever the (long) timeout.
    let huge = hostile_dir("huge", "huge-line", serde_json::json!({"timeout_s": 3600}));
    let out = lucid_bounded(&huge, &["mcp", "list", "--mcp-config", "mcp.json"]).await;
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stdout).contains("sent a message longer than 8388608 bytes"), "{}", text(&out.stdout));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_servers_result_cap_is_read_from_the_configuration() {
    let dir = hostile_dir("cap", "big-result", serde_json::json!({"result_cap": 100, "permission": "allow"}));
    let server = MockServer::sequence(vec![
        Reply::json(200, &tool_call_completion(&[("c1", "hostile__dump", "{}")])),
        Reply::json(200, &text_completion("done")),
    ])
    .await;
    let out = lucid_bounded(
        &dir,
        &["run", "--base-url", &server.url(), "-m", "m", "--mcp-config", "mcp.json", "--json", "dump"],
    )
    .await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let output = v["tool_calls"][0]["output"].as_str().unwrap();
    assert_eq!(output, format!("{}\n[result cut: 1999900 more bytes not shown]", "y".repeat(100)));
}

#[cfg(feature = "server")]
#[tokio::test(flavor = "multi_thread")]
async fn serve_ends_at_start_naming_a_server_whose_tool_list_never_comes() {
    let dir = common::test_dir("mcp-hostile-serve");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../lucid/tests/mcp/hostile_server.py");
    let config = format!(
        "base_url = \"http://127.0.0.1:9/v1\"\nmodel = \"m\"\ntools = []\n\
         [mcp.servers.hostile]\ncommand = \"python3\"\nargs = [{:?}, \"silent\"]\ntimeout_s = 2\n",
        script.display().to_string()
    );
    std::fs::write(dir.join("config.toml"), config).unwrap();
    let args = ["serve", "--listen", "127.0.0.1:0", "--store", "s.db", "--config", "config.toml"];
    let out = lucid_bounded(&dir, &args).await;
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("`hostile`: no complete answer to tools/list within 2.0 s"),
        "{}",
        text(&out.stderr)
    );
}
