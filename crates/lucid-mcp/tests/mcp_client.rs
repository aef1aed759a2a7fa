//! The MCP client against real servers: npm's `@modelcontextprotocol/server-everything`
//! and `server-filesystem`, installed by `.ci/run` into `LUCID_TEST_MCP_DIR`.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use lucid::ToolCall;
use lucid::tool::{Tool, ToolContext, ToolRegistry};
use lucid_mcp::{McpClient, McpError, McpServer, tool_set};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

/// The `node_modules/.bin` folder holding the servers' commands.
fn bin_dir() -> Option<PathBuf> {
    lucid_mock::real_part("LUCID_TEST_MCP_DIR", ".ci/run installs the pinned npm MCP servers and sets it")
        .map(|d| PathBuf::from(d).join("node_modules/.bin"))
}

fn everything(bin: &std::path::Path) -> McpServer {
    McpServer::stdio(bin.join("mcp-server-everything").display().to_string(), ["stdio"])
}

async fn call(tools: &ToolRegistry, name: &str, args: Value) -> lucid::tool::ToolOutcome {
    tools.execute(&ToolCall::new("c", name, args), ToolContext::default(), None).await
}

fn registry(client: &McpClient) -> ToolRegistry {
    let mut r = ToolRegistry::new();
    for t in client.tools() {
        r.add_arc(t);
    }
    r
}

#[tokio::test]
async fn stdio_server_lists_calls_and_reports_errors() {
    let Some(bin) = bin_dir() else { return };
    let client = everything(&bin).name("everything").connect().await.expect("server-everything starts");
    assert_eq!(client.name(), "everything");
    assert!(client.protocol_version().is_some_and(|v| v.starts_with("20")));
    let tools = registry(&client);
    let names: Vec<&str> = tools.specs().iter().map(|s| s.name()).collect();
    assert!(names.contains(&"everything__echo") && names.contains(&"everything__get-sum"), "{names:?}");

    let echo = call(&tools, "everything__echo", json!({"message": "hello"})).await;
    assert_eq!((echo.content.as_str(), echo.is_error), ("Echo: hello", false));
    let sum = call(&tools, "everything__get-sum", json!({"a": 2, "b": 3})).await;
    assert!(!sum.is_error && sum.content.contains('5'), "{sum:?}");
    let image = call(&tools, "everything__get-tiny-image", json!({})).await;
    assert!(image.content.contains("[image: image/png, "), "{image:?}");
    // The image itself reaches the model as a part beside the text that names it.
    let ctx = ToolContext::default();
    tools.execute(&ToolCall::new("c", "everything__get-tiny-image", json!({})), ctx.clone(), None).await;
    let parts = ctx.attachments.take();
    assert_eq!(parts.len(), 1, "{parts:?}");
    assert_eq!(parts[0].kind(), lucid::content::PartKind::Image);
    let media = parts[0].media().unwrap();
    let lucid::content::MediaSource::Bytes(bytes) = &media.source else { panic!("inline bytes") };
    assert_eq!(lucid::content::sniff(bytes), Some("image/png"), "the decoded bytes are a PNG");

    // The same validation as any tool: a missing argument never reaches the server.
    let bad = call(&tools, "everything__get-sum", json!({"a": 2})).await;
    assert!(bad.is_error && bad.content.contains("missing required property `b`"), "{bad:?}");
    // Past validation, the server's own refusal (isError or a JSON-RPC error) is an error.
    let tool = tools.get("everything__get-sum").expect("get-sum");
    let refused = tool.invoke(json!({"a": "two", "b": 3}), ToolContext::default()).await;
    assert!(refused.is_err(), "{refused:?}");

    // Every schema the server sends survives Gemini's subset.
    for spec in tools.specs() {
        let converted = lucid::model::gemini::schema(spec.parameters()).to_string();
        assert!(!converted.contains("$schema") && !converted.contains("additionalProperties"), "{converted}");
        assert!(converted.contains("\"OBJECT\""), "{}: {converted}", spec.name());
    }

    // server-everything registers more tools once it knows the client, and says so.
    let mut changed = client.tools_changed();
    tokio::time::timeout(Duration::from_secs(10), changed.wait_for(|g| *g >= 1))
        .await
        .expect("notifications/tools/list_changed arrives")
        .expect("the client is alive");
    assert!(client.remote_tools().iter().any(|t| t.name == "simulate-research-query"));
}

#[tokio::test]
async fn a_slow_call_is_stopped_by_the_timeout_or_the_cancel_and_the_server_goes_on() {
    let Some(bin) = bin_dir() else { return };
    let client = everything(&bin).timeout(Duration::from_millis(1500)).connect().await.expect("starts");
    let tools = registry(&client);
    let slow = json!({"duration": 30, "steps": 30});
    let name = "mcp-server-everything__trigger-long-running-operation";
    let timed_out = call(&tools, name, slow.clone()).await;
    assert!(timed_out.is_error && timed_out.content.contains("did not answer"), "{timed_out:?}");

    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(200)).await;
        trigger.cancel();
    });
    let ctx = ToolContext { call_id: "c".into(), cancel, ..Default::default() };
    let cancelled = tools.execute(&ToolCall::new("c", name, slow), ctx, None).await;
    assert!(cancelled.is_error && cancelled.content.contains("cancelled"), "{cancelled:?}");

    let echo = call(&tools, "mcp-server-everything__echo", json!({"message": "still here"})).await;
    assert_eq!(echo.content, "Echo: still here");
}

/// Keeps the progress a call relays.
#[derive(Default)]
struct Recorder(std::sync::Mutex<Vec<(f64, Option<f64>)>>);

impl lucid::tool::ToolHost for Recorder {
    fn progress<'a>(&'a self, done: f64, total: Option<f64>, _: Option<&'a str>) -> futures::future::BoxFuture<'a, ()> {
        self.0.lock().unwrap().push((done, total));
        Box::pin(async {})
    }
}

#[tokio::test]
async fn a_servers_progress_notifications_reach_the_calls_context() {
    let Some(bin) = bin_dir() else { return };
    let client = everything(&bin).connect().await.expect("starts");
    let tools = registry(&client);
    let recorder = Arc::new(Recorder::default());
    let host = lucid::tool::Host::from(recorder.clone() as Arc<dyn lucid::tool::ToolHost>);
    let ctx = ToolContext { call_id: "c".into(), host, ..Default::default() };
    let name = "mcp-server-everything__trigger-long-running-operation";
    // A second between steps; the last step's notification comes with the answer, and
    // rmcp hands each notification to a task of its own, so that one may be too late.
    let done = tools.execute(&ToolCall::new("c", name, json!({"duration": 3, "steps": 3})), ctx, None).await;
    assert!(!done.is_error, "{done:?}");
    let seen = recorder.0.lock().unwrap().clone();
    assert_eq!(seen[..2], [(1.0, Some(3.0)), (2.0, Some(3.0))], "{seen:?}");
    assert!(seen.len() == 2 || seen[2] == (3.0, Some(3.0)), "{seen:?}");
}

/// Kills the server (the pid its wrapper wrote in `file` at its last start) while a long
/// call runs; returns that call's outcome.
async fn kill_during_call(tools: &ToolRegistry, file: &std::path::Path) -> lucid::tool::ToolOutcome {
    let pid: i32 = std::fs::read_to_string(file).expect("pid file").trim().parse().expect("a pid");
    let slow = call(tools, "crashy__trigger-long-running-operation", json!({"duration": 30, "steps": 30}));
    tokio::pin!(slow);
    tokio::select! {
        o = &mut slow => panic!("the call ended early: {o:?}"),
        _ = tokio::time::sleep(Duration::from_millis(300)) => {}
    }
    // SAFETY: kill(2) with a pid this test's server wrote; no memory is involved.
    unsafe { libc::kill(pid, libc::SIGKILL) };
    slow.await
}

#[tokio::test]
async fn a_server_killed_mid_call_restarts_once_then_stays_down() {
    let Some(bin) = bin_dir() else { return };
    let dir = std::env::temp_dir().join(format!("lucid-mcp-crash-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let pid_file = dir.join("pid");
    // A wrapper that records the pid of the node process it becomes, at every start.
    let script = format!(
        "echo $$ > '{}.new' && mv '{0}.new' '{0}' && exec '{}' stdio",
        pid_file.display(),
        bin.join("mcp-server-everything").display()
    );
    let client = McpServer::stdio("sh", ["-c", &script]).name("crashy").connect().await.expect("starts");
    let tools = registry(&client);
    let crashed = kill_during_call(&tools, &pid_file).await;
    assert!(crashed.is_error && crashed.content.contains("stopped during the call"), "{crashed:?}");
    assert!(crashed.content.contains("will be restarted"), "{crashed:?}");

    // The next call restarts it.
    let echo = call(&tools, "crashy__echo", json!({"message": "back"})).await;
    assert_eq!((echo.content.as_str(), echo.is_error), ("Echo: back", false));

    let again = kill_during_call(&tools, &pid_file).await;
    assert!(again.is_error && again.content.contains("stays down"), "{again:?}");
    let down = call(&tools, "crashy__echo", json!({"message": "x"})).await;
    assert!(down.is_error && down.content.contains("crashed 2 times and stays down"), "{down:?}");
    assert!(client.down_reason().await.is_some());

    // `restart` brings it back and forgets the crashes.
    client.restart().await.expect("restarts");
    let echo = call(&tools, "crashy__echo", json!({"message": "again"})).await;
    assert_eq!(echo.content, "Echo: again");
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn a_server_that_cannot_start_names_itself_its_command_and_its_stderr() {
    let err = McpServer::stdio("sh", ["-c", "echo 'boom: missing API key' >&2; exit 3"])
        .name("broken")
        .connect()
        .await
        .expect_err("it exits at once");
    let text = err.to_string();
    assert!(matches!(err, McpError::Start { .. }), "{err:?}");
    assert!(text.contains("`broken`") && text.contains("sh -c") && text.contains("boom: missing API key"), "{text}");

    let missing = McpServer::stdio("/nonexistent/lucid-mcp-server", Vec::<String>::new()).connect().await;
    assert!(missing.expect_err("no such file").to_string().contains("/nonexistent/lucid-mcp-server"));
}

/// A free loopback port.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").expect("bind").local_addr().expect("addr").port()
}

#[tokio::test]
async fn http_server_and_name_collisions_between_servers() {
    let Some(bin) = bin_dir() else { return };
    let port = free_port();
    let mut http = tokio::process::Command::new(bin.join("mcp-server-everything"))
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("server-everything over HTTP");
    // Started before the server listens: the connect retries cover the first attempts.
    let url = format!("http://127.0.0.1:{port}/mcp");
    let mut remote = None;
    for _ in 0..40 {
        match McpServer::http(&url).name("same").prefix(false).header("X-Test", "1").connect().await {
            Ok(c) => {
                remote = Some(c);
                break;
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    }
    let remote = remote.expect("server-everything answers over Streamable HTTP");
    let tools = registry(&remote);
    let echo = call(&tools, "echo", json!({"message": "over http"})).await;
    assert_eq!(echo.content, "Echo: over http");

    let local = everything(&bin).name("same").prefix(false).connect().await.expect("stdio");
    let err = tool_set(&[local.clone(), remote.clone()]).map(|t| t.len()).expect_err("bare names clash");
    assert!(matches!(&err, McpError::NameCollision { name, .. } if name == "echo"), "{err:?}");

    // Prefixed names that sanitise alike stay apart with a hash.
    let files_a = McpServer::stdio(bin.join("mcp-server-filesystem").display().to_string(), [".".to_string()])
        .name("fs a")
        .connect();
    let files_b = McpServer::stdio(bin.join("mcp-server-filesystem").display().to_string(), [".".to_string()])
        .name("fs_a")
        .connect();
    let (a, b) = tokio::join!(files_a, files_b);
    let set: Vec<Arc<lucid_mcp::McpTool>> =
        tool_set(&[a.expect("filesystem a"), b.expect("filesystem b")]).expect("no clash");
    let names: Vec<&str> = set.iter().map(|t| t.spec().name()).collect();
    let unique: std::collections::HashSet<&&str> = names.iter().collect();
    assert_eq!(unique.len(), names.len(), "{names:?}");
    assert!(names.contains(&"fs_a__read_text_file"), "{names:?}");
    assert!(
        names.iter().any(|n| n.starts_with("fs_a__read_text_file_") && n.len() == "fs_a__read_text_file".len() + 9)
    );
    let _ = http.kill().await;
}

/// The notifications the recording server logged, once `wanted` of them are there.
async fn logged(file: &std::path::Path, wanted: usize) -> Vec<Value> {
    for _ in 0..100 {
        let lines: Vec<Value> = std::fs::read_to_string(file)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .filter(|v: &Value| v["method"] == "notifications/cancelled")
            .collect();
        if lines.len() >= wanted {
            return lines;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the server did not receive {wanted} notifications/cancelled: {:?}", std::fs::read_to_string(file));
}

#[tokio::test]
async fn the_timeout_and_the_runs_cancel_send_notifications_cancelled() {
    // Node is there when the npm servers are.
    let Some(_) = bin_dir() else { return };
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/recording_server.js");
    let log = std::env::temp_dir().join(format!("lucid-mcp-cancel-{}.jsonl", std::process::id()));
    let _ = std::fs::remove_file(&log);
    let client = McpServer::stdio("node", [script.display().to_string(), log.display().to_string()])
        .name("rec")
        // Long enough for node to start on a loaded machine (0.3 s was not), since the
        // same limit bounds `initialize` and the call that must time out.
        .timeout(Duration::from_secs(2))
        .connect()
        .await
        .expect("the recording server starts");
    let tools = registry(&client);
    let timed_out = call(&tools, "rec__wait", json!({})).await;
    assert!(timed_out.is_error && timed_out.content.contains("did not answer"), "{timed_out:?}");
    let first = logged(&log, 1).await;
    assert!(first[0]["params"]["requestId"].is_number() || first[0]["params"]["requestId"].is_string());

    let cancel = CancellationToken::new();
    let ctx = ToolContext { call_id: "c".into(), cancel: cancel.clone(), ..Default::default() };
    let wait = ToolCall::new("c", "rec__wait", json!({}));
    let call = tools.execute(&wait, ctx, None);
    tokio::pin!(call);
    tokio::select! {
        o = &mut call => panic!("ended early: {o:?}"),
        _ = tokio::time::sleep(Duration::from_millis(100)) => cancel.cancel(),
    }
    assert!(call.await.content.contains("cancelled"));
    let both = logged(&log, 2).await;
    assert_ne!(both[0]["params"]["requestId"], both[1]["params"]["requestId"]);
    let _ = std::fs::remove_file(&log);
}
