//! `lucid chat` with an MCP server's resources and prompts: the real binary in a
//! pseudo-terminal, a scripted model, and the MCP server another `lucid` (`lucid mcp serve`
//! over stdio, its resources and prompts from `[mcp.serve]` of its configuration).

mod common;

use std::time::Duration;

use expectrl::Session;
use lucid_mock::{MockServer, RecordedRequest, Reply, text_stream};
use serde_json::{Value, json};

/// The served configuration: one resource, one template, two prompts.
const SERVED: &str = r#"
[[mcp.serve.resources]]
uri = "notes://readme"
name = "readme"
description = "The project's readme"
text = "The launch code word is PELICAN."

[[mcp.serve.resources]]
uri = "notes://day/{date}"
name = "day"
text = "Nothing happened on {date}."

[[mcp.serve.prompts]]
name = "review"
description = "Reviews a file"
arguments = [{ name = "path" }, { name = "focus", required = false }]
messages = [{ text = "Review {path}, looking at {focus}." }, { role = "assistant", text = "Which parts matter most?" }]
"#;

/// Answers each streamed turn with what the user's message said, so the screen shows
/// what reached the model.
fn echo(req: &RecordedRequest) -> Reply {
    let body = req.json();
    let said = body["messages"].as_array().and_then(|m| m.last()).map(|m| m["content"].clone()).unwrap_or(Value::Null);
    let said = said.as_str().unwrap_or_default().replace('\n', " / ");
    Reply::sse(&text_stream(&["Model read: ", &said]))
}

/// The user messages of the conversation the model received (the streamed turns; not the
/// side calls, such as `--plan auto`'s triage, that quote them).
fn user_messages(server: &MockServer) -> Vec<String> {
    let mut seen = Vec::new();
    for r in server.requests().into_iter().filter(|r| r.json()["stream"] == true) {
        for m in r.json()["messages"].as_array().into_iter().flatten() {
            if m["role"] == "user" {
                let text = m["content"].as_str().unwrap_or_default().to_string();
                if !seen.contains(&text) {
                    seen.push(text);
                }
            }
        }
    }
    seen
}

#[tokio::test(flavor = "multi_thread")]
async fn chat_attaches_mcp_resources_and_runs_mcp_prompts_as_slash_commands() {
    let server = MockServer::start(echo).await;
    let url = server.url();
    let dir = common::test_dir("chat-mcp-context");
    std::fs::create_dir_all(dir.join("served")).unwrap();
    let served = dir.join("served/config.toml");
    std::fs::write(&served, SERVED).unwrap();
    let mcp = json!({"mcpServers": {"notes": {
        "command": env!("CARGO_BIN_EXE_lucid"),
        "args": ["--config", served, "mcp", "serve", "--tools", "calculator"],
    }}});
    std::fs::write(dir.join("mcp.json"), mcp.to_string()).unwrap();
    let d = dir.clone();
    tokio::task::spawn_blocking(move || {
        let mut cmd = common::lucid_command();
        cmd.args(["chat", "--base-url", &url, "-m", "m", "--session", "w", "--tools", "calculator"])
            .args(["--mcp-config", "mcp.json"])
            .arg("--store")
            .arg(d.join("sessions.db"))
            .current_dir(&d)
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", &d)
            .env("TERM", "xterm")
            .env("NO_COLOR", "1");
        let mut p = Session::spawn(cmd).expect("spawn lucid chat");
        p.set_expect_timeout(Some(Duration::from_secs(60)));
        p.expect("> ").unwrap();

        p.send_line("/resources").unwrap();
        p.expect("notes://readme").unwrap();
        p.expect("notes://day/{date}").unwrap();
        p.send_line("/prompts").unwrap();
        p.expect("/notes:review path=… [focus=…]").unwrap();
        p.expect("Reviews a file").unwrap();

        // A resource as context, with a question after it.
        p.send_line("/resource notes notes://readme What is the code word?").unwrap();
        p.expect("(attached notes://readme from notes: 32 bytes)").unwrap();
        p.expect("Model read: Resource notes://readme").unwrap();
        p.expect("PELICAN").unwrap();
        // A template's resource, alone.
        p.send_line("/resource notes notes://day/monday").unwrap();
        p.expect("Nothing happened on monday.").unwrap();

        // A prompt as a slash command, its arguments filled in.
        p.send_line(r#"/notes:review path=src/main.rs focus="error handling""#).unwrap();
        p.expect("(prompt review from notes)").unwrap();
        p.expect("Model read: Review src/main.rs").unwrap();
        p.expect("Which parts matter most?").unwrap();

        // Mistakes say what went wrong and the chat goes on.
        p.send_line("/notes:review").unwrap();
        p.expect("needs the argument `path`").unwrap();
        p.send_line("/resource nobody notes://readme").unwrap();
        p.expect("no running MCP server named nobody (running: notes)").unwrap();
        p.send_line("/resource notes notes://missing").unwrap();
        p.expect("no resource `notes://missing`").unwrap();
        p.send_line("/exit").unwrap();
        p.expect(expectrl::Eof).unwrap();
    })
    .await
    .unwrap();
    let said = user_messages(&server);
    assert_eq!(
        said,
        [
            "Resource notes://readme from MCP server notes:\n\nThe launch code word is PELICAN.\n\nWhat is the code word?",
            "Resource notes://day/monday from MCP server notes:\n\nNothing happened on monday.",
            "Review src/main.rs, looking at error handling.\n\n(assistant) Which parts matter most?",
        ]
    );
}
