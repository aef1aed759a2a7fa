//! Hostile servers: escapes in their text, a tool list that never comes or is one huge line, result caps.

use super::*;

/// A folder whose `mcp.json` names the hostile test server in `mode` as `hostile`, with
/// these extra settings.
fn hostile_dir(name: &str, mode: &str, extra: Value) -> PathBuf {
    let dir = common::test_dir(&format!("mcp-hostile-{name}"));
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../lucid-mcp/tests/mcp/hostile_server.py");
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
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../lucid-mcp/tests/mcp/hostile_server.py");
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
