//! Lucid as an MCP client: list, show, read, prompt, call, elicitation, and MCP tools in runs, workflows and chat.

use super::*;

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
