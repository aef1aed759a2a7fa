//! The MCP client against a hostile server (`tests/mcp/hostile_server.py`, run with the
//! `python3` on `PATH`): schemas that loop or explode, a tool list that never comes, comes
//! as one 17 MB line, never ends or is too big, results and stderr lines too long, and
//! tools named like built-in ones. Every case ends, with a message naming the server.

use std::sync::Arc;
use std::time::Duration;

use lucid::ToolCall;
use lucid::tool::{ToolContext, ToolRegistry};
use lucid_mcp::{McpClient, McpError, McpLimits, McpServer};
use serde_json::json;

/// The hostile server in `mode` (see the script's doc), named `hostile`.
fn hostile(mode: &str) -> McpServer {
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/hostile_server.py");
    McpServer::stdio("python3", [script.display().to_string(), mode.to_string()]).name("hostile")
}

fn registry(client: &McpClient) -> ToolRegistry {
    let mut r = ToolRegistry::new();
    for t in client.tools() {
        r.add_arc(t);
    }
    r
}

/// `connect`, failing the test (instead of hanging it) if it has not ended in 60 s.
async fn connect(server: McpServer) -> Result<McpClient, McpError> {
    tokio::time::timeout(Duration::from_secs(60), server.connect()).await.expect("connect ended")
}

#[test]
fn a_looping_schema_is_refused_and_other_tasks_go_on() {
    let (done, finished) = std::sync::mpsc::channel();
    // The runtime of a server with two workers; the test thread only watches it, so a
    // validator that spins forever fails the test instead of hanging it.
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        runtime.block_on(async move {
            let client = hostile("loop").connect().await.expect("the hostile server starts");
            let tools = Arc::new(registry(&client));
            let call = |name: &'static str| {
                let tools = tools.clone();
                tokio::spawn(async move {
                    let call = ToolCall::new("c", name, json!({"x": "a"}));
                    tools.execute(&call, ToolContext::default(), Some(Duration::from_secs(30))).await
                })
            };
            // Two calls of each hostile schema at once, as many as there are workers.
            let hostile = [call("hostile__loop"), call("hostile__loop"), call("hostile__fan"), call("hostile__fan")];
            // Another task (a health check, say) still runs while they are checked.
            let health = tokio::spawn(async { "ok" }).await.expect("the other task ran");
            let mut outcomes = Vec::new();
            for h in hostile {
                outcomes.push(h.await.expect("the call ended"));
            }
            let echo = tools
                .execute(&ToolCall::new("c", "hostile__echo", json!({"text": "hi"})), ToolContext::default(), None)
                .await;
            let _ = done.send((health, outcomes, echo));
        });
    });
    let (health, outcomes, echo) =
        finished.recv_timeout(Duration::from_secs(120)).expect("the runtime was not stopped by a hostile schema");
    assert_eq!(health, "ok");
    for (o, why) in outcomes.iter().zip(["loops", "loops", "too complex", "too complex"]) {
        assert!(o.is_error && o.content.contains(why) && o.content.contains("was not made"), "{o:?}");
    }
    assert!(outcomes[0].content.contains("`$ref` `#`"), "{:?}", outcomes[0]);
    assert_eq!((echo.content.as_str(), echo.is_error), (r#"echo: {"text": "hi"}"#, false));
}

#[tokio::test]
async fn a_looping_schema_converts_for_gemini_in_bounded_time_and_size() {
    let client = connect(hostile("loop")).await.expect("starts");
    let tools = registry(&client);
    let spec = tools.get("hostile__loop").expect("loop").spec().clone();
    assert!(spec.parameters().to_string().len() < 300, "a small schema");
    let (done, converted) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = done.send(lucid::model::gemini::schema(spec.parameters()).to_string().len());
    });
    let size = converted.recv_timeout(Duration::from_secs(60)).expect("the conversion ended");
    assert!(size < 1_000_000, "{size} bytes");
}

#[tokio::test]
async fn a_tool_list_that_never_comes_fails_within_the_timeout_naming_the_server() {
    let err = connect(hostile("silent").timeout(Duration::from_secs(2))).await.expect_err("no tool list");
    let text = err.to_string();
    assert!(matches!(err, McpError::Protocol { .. }), "{err:?}");
    assert!(text.contains("`hostile`") && text.contains("no complete answer to tools/list within 2.0 s"), "{text}");
}

#[tokio::test]
async fn a_17_mb_line_disconnects_the_server_at_once() {
    // A timeout far beyond the test's watchdog: only the line limit can end it in time.
    let err = connect(hostile("huge-line").timeout(Duration::from_secs(600))).await.expect_err("line too long");
    let text = err.to_string();
    assert!(text.contains("`hostile`") && text.contains("longer than 8388608 bytes"), "{text}");
}

#[tokio::test]
async fn endless_pages_stop_at_the_page_cap() {
    let err = connect(hostile("endless")).await.expect_err("endless pages");
    assert!(err.to_string().contains("`hostile`: tools/list went on past 64 pages"), "{err}");
    let mut limits = McpLimits::default();
    limits.max_pages = 3;
    let err = connect(hostile("endless").limits(limits)).await.expect_err("endless pages");
    assert!(err.to_string().contains("past 3 pages"), "{err}");
}

#[tokio::test]
async fn too_many_tools_or_too_big_definitions_are_refused() {
    let many = connect(hostile("many")).await.expect_err("5,000 tools");
    assert!(many.to_string().contains("`hostile`: it offers more than 1024 tools"), "{many}");
    let big = connect(hostile("big-schema")).await.expect_err("a 300 KB schema");
    assert!(big.to_string().contains("the tool `big` is described in") && big.to_string().contains("65536"), "{big}");
    let mut limits = McpLimits::default();
    limits.max_tool_bytes = 1 << 20;
    limits.max_tools_bytes = 100_000;
    let total = connect(hostile("big-schema").limits(limits)).await.expect_err("over the total");
    assert!(total.to_string().contains("described in more than 100000 bytes in all"), "{total}");
    let mut limits = McpLimits::default();
    limits.max_tool_bytes = 1 << 20;
    limits.max_tools_bytes = 1 << 20;
    assert!(connect(hostile("big-schema").limits(limits)).await.is_ok(), "raised caps let it through");
}

#[tokio::test]
async fn a_big_result_is_cut_at_the_servers_cap() {
    let client = connect(hostile("big-result").result_cap(1000)).await.expect("starts");
    let tools = registry(&client);
    let out = tools.execute(&ToolCall::new("c", "hostile__dump", json!({})), ToolContext::default(), None).await;
    assert!(!out.is_error, "{out:?}");
    assert!(out.content.starts_with(&"y".repeat(1000)), "{}", &out.content[..50]);
    assert!(out.content.ends_with("\n[result cut: 1999000 more bytes not shown]"), "{}", &out.content[990..]);
    let default = connect(hostile("big-result")).await.expect("starts");
    let out =
        registry(&default).execute(&ToolCall::new("c", "hostile__dump", json!({})), ToolContext::default(), None).await;
    assert!(out.content.len() < 70_000 && out.content.contains("[result cut: "), "{}", out.content.len());
}

#[tokio::test]
async fn a_long_stderr_line_is_kept_cut() {
    let err = connect(hostile("stderr")).await.expect_err("it exits");
    let McpError::Start { stderr, .. } = &err else { panic!("{err:?}") };
    assert!(stderr.len() < 10_000, "{} bytes of stderr kept", stderr.len());
    assert!(
        stderr.starts_with(&"E".repeat(4096)) && stderr.contains("[line cut: 4995904 more bytes]"),
        "{stderr:.200}"
    );
    assert!(stderr.ends_with("the last words"), "{}", &stderr[stderr.len() - 60..]);
}

#[tokio::test]
async fn a_bare_name_equal_to_a_reserved_name_keeps_its_prefix() {
    let unreserved = connect(hostile("builtin").prefix(false)).await.expect("starts");
    let names: Vec<String> = unreserved.tools().iter().map(|t| t.spec().name().to_string()).collect();
    assert_eq!(names, ["shell", "write_file", "fancy"], "nothing reserved: the bare names stay");
    let client =
        connect(hostile("builtin").prefix(false).reserve(["shell", "write_file", "read_file"])).await.expect("starts");
    let names: Vec<String> = client.tools().iter().map(|t| t.spec().name().to_string()).collect();
    assert_eq!(names, ["hostile__shell", "hostile__write_file", "fancy"]);
    let tools = registry(&client);
    let out = tools.execute(&ToolCall::new("c", "hostile__shell", json!({})), ToolContext::default(), None).await;
    assert_eq!(out.content, "echo: {}");
}
