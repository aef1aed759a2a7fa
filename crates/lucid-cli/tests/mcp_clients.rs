//! Other clients' `mcp.json` files through the real `lucid`: Cline's (`autoApprove`,
//! `disabled`, `timeout`), Roo's (`alwaysAllow`), VS Code's (`servers`, `type`, `envFile`,
//! `inputs`), Cursor's and Windsurf's (`serverUrl`) with the editors' variables, each naming
//! `lucid mcp serve` as a real server. What loads, the one warning, the entries skipped, and
//! that no permission is raised by the file.

mod common;

use std::path::Path;
use std::process::Output;

use common::text;
use lucid_mock::{MockServer, Reply, text_completion, tool_call_completion};
use serde_json::{Value, json};

/// `lucid` in `dir` (HOME too), killed and the test failed if it has not ended in two minutes.
async fn lucid(dir: &Path, args: &[&str]) -> Output {
    lucid_with(dir, args, &[]).await
}

/// `lucid` in `dir` (HOME too) with these variables.
async fn lucid_with(dir: &Path, args: &[&str], vars: &[(&str, &str)]) -> Output {
    let mut cmd = tokio::process::Command::from(common::lucid_command());
    cmd.args(args)
        .envs(vars.iter().copied())
        .current_dir(dir)
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", dir)
        .kill_on_drop(true);
    tokio::time::timeout(std::time::Duration::from_secs(120), cmd.output())
        .await
        .unwrap_or_else(|_| panic!("lucid {args:?} hung"))
        .unwrap()
}

/// The real stdio server every file names: `lucid mcp serve`, serving its reading tools.
fn lucid_server() -> Value {
    json!({"command": env!("CARGO_BIN_EXE_lucid"), "args": ["mcp", "serve"]})
}

/// `server` with these keys added.
fn with(mut server: Value, extra: Value) -> Value {
    if let (Some(s), Value::Object(extra)) = (server.as_object_mut(), extra) {
        s.extend(extra);
    }
    server
}

/// A fresh folder holding `a.txt` and the file `mcp.json` (at `path` inside it) holding `json`.
fn folder(name: &str, path: &str, json: &Value) -> std::path::PathBuf {
    let dir = common::test_dir(&format!("mcp-clients-{name}"));
    std::fs::write(dir.join("a.txt"), "hello from a file").unwrap();
    let file = dir.join(path);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(file, serde_json::to_string_pretty(json).unwrap()).unwrap();
    dir
}

#[tokio::test(flavor = "multi_thread")]
async fn a_cline_file_lists_its_server_warns_once_and_leaves_the_disabled_one_off() {
    let cline = json!({"mcpServers": {
        "lucid": with(lucid_server(), json!({"autoApprove": ["read_file"], "disabled": false, "timeout": 30,
                                             "description": "Lucid's own tools"})),
        // Would fail to start: being disabled, it is never started.
        "off": {"command": "/nonexistent/server", "autoApprove": [], "disabled": true},
    }});
    let dir = folder("cline", "cline_mcp_settings.json", &cline);
    let out = lucid(&dir, &["mcp", "list", "--mcp-config", "cline_mcp_settings.json"]).await;
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    assert!(stdout.contains("lucid (") && stdout.contains("ok, MCP 20"), "{stdout}");
    assert!(stdout.contains("lucid__read_file"), "{stdout}");
    assert!(stdout.lines().any(|l| l.starts_with("off (/nonexistent/server) — disabled")), "{stdout}");
    assert_eq!(stderr.matches("warning:").count(), 1, "{stderr}");
    let warning = stderr.lines().find(|l| l.starts_with("warning:")).unwrap();
    assert!(warning.contains("server `lucid`: autoApprove, description"), "{warning}");
    assert!(warning.contains("server `off`: autoApprove") && warning.contains("allow no tool"), "{warning}");

    let out = lucid(&dir, &["mcp", "list", "--json", "--mcp-config", "cline_mcp_settings.json"]).await;
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!((v[0]["name"].as_str(), v[0]["status"].as_str()), (Some("lucid"), Some("ok")));
    assert_eq!((v[1]["name"].as_str(), v[1]["status"].as_str()), (Some("off"), Some("disabled")));

    // A run starts the enabled server only (the disabled one would fail its start), and the
    // tool `autoApprove` names still needs approval, which nobody gives in a run.
    let model = MockServer::sequence(vec![
        Reply::json(200, &tool_call_completion(&[("c1", "lucid__read_file", r#"{"path":"a.txt"}"#)])),
        Reply::json(200, &text_completion("refused")),
    ])
    .await;
    let run =
        ["run", "--base-url", &model.url(), "-m", "m", "--mcp-config", "cline_mcp_settings.json", "--json", "read"];
    let out = lucid(&dir, &run).await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["tool_calls"][0]["is_error"], true, "{v}");
    assert!(!v["tool_calls"][0]["output"].as_str().unwrap().contains("hello from a file"), "{v}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_roo_files_always_allow_allows_nothing_and_lucids_allow_does() {
    let roo = json!({"mcpServers": {
        "files": with(lucid_server(), json!({"type": "stdio", "alwaysAllow": ["read_file"], "disabled": false})),
    }});
    let dir = folder("roo", ".roo/mcp.json", &roo);
    let model = MockServer::sequence(vec![
        Reply::json(200, &tool_call_completion(&[("c1", "files__read_file", r#"{"path":"a.txt"}"#)])),
        Reply::json(200, &text_completion("refused")),
        Reply::json(200, &tool_call_completion(&[("c2", "files__read_file", r#"{"path":"a.txt"}"#)])),
        Reply::json(200, &text_completion("read")),
    ])
    .await;
    let run = ["run", "--base-url", &model.url(), "-m", "m", "--mcp-config", ".roo/mcp.json", "--json"];
    let out = lucid(&dir, &[&run[..], &["read a.txt"]].concat()).await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["tool_calls"][0]["is_error"], true, "alwaysAllow allowed the tool: {v}");
    let stderr = text(&out.stderr);
    assert!(stderr.contains("server `files`: alwaysAllow") && stderr.contains("allow no tool"), "{stderr}");

    // Lucid's own grant is what allows it.
    let out = lucid(&dir, &[&run[..], &["--allow", "files__read_file", "read a.txt"]].concat()).await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["tool_calls"][0]["is_error"], false, "{v}");
    assert!(v["tool_calls"][0]["output"].as_str().unwrap().contains("hello from a file"), "{v}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_vs_code_file_starts_its_server_with_its_env_files_variables() {
    // The server starts only when the envFile's variable reached it, and `env` won over the
    // file on the name both set.
    let check = r#"test "$FROM_FILE" = "a # b" && test "$BOTH" = from-env && exec "$0" mcp serve"#;
    let server = |env_file: &str| {
        json!({"type": "stdio", "command": "sh", "args": ["-c", check, env!("CARGO_BIN_EXE_lucid")],
               "env": {"BOTH": "from-env"}, "envFile": env_file})
    };
    let vscode = json!({"inputs": [], "servers": {"lucid": server("srv.env")}});
    // The file is in `.vscode/`, run from its parent: `srv.env` is found beside the file.
    let dir = folder("vscode", ".vscode/mcp.json", &vscode);
    std::fs::write(dir.join(".vscode/srv.env"), "# for the server\nFROM_FILE=\"a # b\"\nBOTH=from-file\n").unwrap();
    let out = lucid(&dir, &["mcp", "list", "--mcp-config", ".vscode/mcp.json"]).await;
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    assert!(stdout.contains("lucid (sh -c") && stdout.contains("ok, MCP 20"), "{stdout}");
    assert!(!stderr.contains("warning:"), "VS Code's `inputs` is read: {stderr}");

    // Without the file's variable the same server does not start: the check above is real.
    std::fs::write(dir.join(".vscode/srv.env"), "BOTH=from-file\n").unwrap();
    let out = lucid(&dir, &["mcp", "list", "--mcp-config", ".vscode/mcp.json"]).await;
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));

    // A missing envFile is an error naming it.
    let missing = json!({"servers": {"lucid": server("nowhere.env")}});
    std::fs::write(dir.join(".vscode/mcp.json"), missing.to_string()).unwrap();
    let out = lucid(&dir, &["mcp", "list", "--mcp-config", ".vscode/mcp.json"]).await;
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("`lucid`") && stderr.contains("cannot read envFile") && stderr.contains(".vscode/nowhere.env"),
        "{stderr}"
    );
}

/// A folder for an editor's file, its path canonical (what the server sees as its folder),
/// with `sub/` and a `.env` setting `FROM_FILE=yes`.
fn editor_folder(name: &str, path: &str, json: impl Fn(&str) -> Value) -> std::path::PathBuf {
    let dir = common::test_dir(&format!("mcp-clients-{name}")).canonicalize().unwrap();
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::write(dir.join(".env"), "FROM_FILE=yes\n").unwrap();
    let file = dir.join(path);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(file, serde_json::to_string_pretty(&json(dir.to_str().unwrap())).unwrap()).unwrap();
    dir
}

/// The skipped-entry warning on `stderr` naming `name`, with `why` in it.
fn skipped(stderr: &str, name: &str, why: &str) {
    let line = stderr
        .lines()
        .find(|l| l.contains(&format!("MCP server `{name}` skipped")))
        .unwrap_or_else(|| panic!("{stderr}"));
    assert!(line.contains("WARN") && line.contains(why), "{line}");
}

#[tokio::test(flavor = "multi_thread")]
async fn cursor_and_vs_code_files_resolve_the_workspace_folder_and_skip_the_entry_lucid_cannot_use() {
    // The server starts only if each variable reached it exactly as the editors resolve it.
    let lucid_bin = env!("CARGO_BIN_EXE_lucid");
    let cursor = |dir: &str| {
        let base = Path::new(dir).file_name().unwrap().to_str().unwrap().to_string();
        let check = format!(
            r#"test "$0" = "{dir}/arg" && test "$(pwd -P)" = "{dir}/sub" && test "$FROM_FILE" = yes && test "$SEEN_HOME" = "{dir}" && test "$BASE" = "{base}" && exec "$1" mcp serve"#
        );
        json!({"mcpServers": {
            "lucid": {"command": "sh", "args": ["-c", check, "${workspaceFolder}/arg", lucid_bin], "cwd": "${workspaceFolder}/sub",
                      "envFile": "${workspaceFolder}/.env", "env": {"SEEN_HOME": "${userHome}", "BASE": "${workspaceFolderBasename}"}},
            "broken": {"type": "websocket", "url": "ws://127.0.0.1:1/mcp"},
        }})
    };
    let dir = editor_folder("cursor", ".cursor/mcp.json", cursor);
    let out = lucid(&dir, &["mcp", "list", "--mcp-config", ".cursor/mcp.json"]).await;
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    assert!(stdout.contains("lucid (sh -c") && stdout.contains("ok, MCP 20"), "{stdout}");
    assert!(!stdout.contains("broken"), "{stdout}");
    skipped(&stderr, "broken", "unknown type \"websocket\"");

    let vscode = |dir: &str| {
        let check = format!(
            r#"test "$0" = "{dir}/arg" && test "$2" = fast && test "$(pwd -P)" = "{dir}" && test "$FROM_FILE" = yes && exec "$1" mcp serve"#
        );
        json!({"inputs": [{"id": "mode", "type": "promptString", "default": "fast"},
                          {"id": "key", "type": "promptString", "password": true}],
               "servers": {
            "lucid": {"type": "stdio", "command": "sh", "args": ["-c", check, "${workspaceFolder}/arg", lucid_bin, "${input:mode}"],
                      "cwd": "${workspaceFolder}", "envFile": "${workspaceFolder}/.env"},
            "needs-key": {"type": "http", "url": "http://127.0.0.1:1/mcp", "headers": {"Authorization": "Bearer ${input:key}"}},
        }})
    };
    let dir = editor_folder("vscode-vars", ".vscode/mcp.json", vscode);
    let out = lucid(&dir, &["mcp", "list", "--mcp-config", ".vscode/mcp.json"]).await;
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    assert!(stdout.contains("lucid (sh -c") && stdout.contains("ok, MCP 20"), "{stdout}");
    assert!(!stdout.contains("needs-key"), "{stdout}");
    skipped(&stderr, "needs-key", "input:key");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_windsurf_file_reaches_its_server_url_with_its_environments_token() {
    // Lucid's own tools served over HTTP with a token, as a remote server Windsurf names.
    let stop = tokio_util::sync::CancellationToken::new();
    let (tx, rx) = tokio::sync::oneshot::channel();
    let mut tools = lucid::tool::ToolRegistry::new();
    tools.add_arc(
        lucid::tool::catalogue::Catalogue::new()
            .with(lucid_tools::TOOLS)
            .find("calculator")
            .unwrap()
            .build(&lucid::tool::catalogue::Setup::new("."))
            .unwrap(),
    );
    let options = lucid_mcp::HttpOptions::with_token("windsurf-token-0123456789");
    tokio::spawn(lucid_mcp::serve_http(tools, "127.0.0.1:0".parse().unwrap(), options, stop.clone(), move |a| {
        let _ = tx.send(a);
    }));
    let url = format!("http://{}/mcp", rx.await.unwrap());
    let windsurf = |_: &str| {
        json!({"mcpServers": {
            "remote": {"serverUrl": "${env:WS_URL}", "headers": {"Authorization": "Bearer ${env:WS_TOKEN}"}},
            "broken": {"command": "x", "serverUrl": "http://127.0.0.1:1/mcp"},
        }})
    };
    let dir = editor_folder("windsurf", ".codeium/windsurf/mcp_config.json", windsurf);
    let args = ["mcp", "list", "--mcp-config", ".codeium/windsurf/mcp_config.json"];
    let out = lucid_with(&dir, &args, &[("WS_URL", &url), ("WS_TOKEN", "windsurf-token-0123456789")]).await;
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    assert!(stdout.contains(&format!("remote ({url})")) && stdout.contains("remote__calculator"), "{stdout}");
    assert!(!stdout.contains("broken"), "{stdout}");
    skipped(&stderr, "broken", "both a `command` and a `url`");
    stop.cancel();
}
