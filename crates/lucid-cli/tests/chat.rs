//! `lucid chat` as a person uses it: the real binary in a pseudo-terminal, against a local
//! scripted server.

mod common;

use std::time::Duration;

use expectrl::{ControlCode, Session};
use lucid_mock::{MockServer, RecordedRequest, Reply, text_completion, text_stream, tool_call_stream};
use serde_json::{Value, json};

/// Replies by what the conversation says last; always streamed (the chat streams).
fn script(req: &RecordedRequest) -> Reply {
    let body = req.json();
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let last = messages.last().cloned().unwrap_or(Value::Null);
    if body["stream"] != true {
        // The planner's calls (`/plan always`) are not streamed.
        let said = last["content"].as_str().unwrap_or_default();
        let text = if said.starts_with("Make a plan") {
            json!({"steps": [{"id": "sum", "task": "Add 2 and 3", "depends_on": []}]}).to_string()
        } else if said.contains("Your step: ") {
            json!({"success": true, "result": "5"}).to_string()
        } else {
            "Planned answer: 5.".to_string()
        };
        return Reply::json(200, &text_completion(&text));
    }
    if last["role"] == "tool" {
        let content = last["content"].as_str().unwrap_or_default();
        // The model's own checklist: ticked once the work is done, then the answer.
        if content.starts_with("Checklist (0/2 done)") {
            return Reply::sse(&tool_call_stream(&[("call_c2", "checklist", CHECKLIST_DONE)]));
        }
        if content.starts_with("Checklist (2/2 done)") {
            return Reply::sse(&text_stream(&["Checked answer: 5."]));
        }
        return Reply::sse(&text_stream(&["Tool said: ", content]));
    }
    let said = last["content"].as_str().unwrap_or_default();
    if said.contains("sneaky") {
        // Escape sequences that would erase the real call and draw a harmless one.
        Reply::sse(&tool_call_stream(&[(
            "call_s",
            "write_file",
            r#"{"path":"\u001b[2K\u001b[1A\u001b[2K? write_file notes.txt\u202e","content":"pwned"}"#,
        )]))
    } else if said.contains("slowly") {
        Reply::sse(&text_stream(&["Took a while."])).with_delay(Duration::from_millis(1200))
    } else if said.contains("title") {
        Reply::sse(&text_stream(&["\x1b]0;pwned\x07\x1b]52;c;ZWNobw==\x07", "visible"]))
    } else if said.contains("plan this") {
        Reply::sse(&tool_call_stream(&[("call_c1", "checklist", CHECKLIST_OPEN)]))
    } else if said.contains("2+3") {
        Reply::sse(&tool_call_stream(&[("call_a", "calculator", r#"{"expression":"2+3"}"#)]))
    } else if said.contains("file") {
        Reply::sse(&tool_call_stream(&[("call_w", "write_file", r#"{"path":"x.txt","content":"hi"}"#)]))
    } else if said.contains("both") {
        Reply::sse(&tool_call_stream(&[
            ("call_1", "calculator", r#"{"expression":"6*7"}"#),
            ("call_2", "calculator", r#"{"expression":"1+1"}"#),
        ]))
    } else if said.starts_with("My answers to your questions") {
        Reply::sse(&text_stream(&["Noted: ", said]))
    } else if said.contains("flight") {
        // The seed's interview shape, as a plain answer.
        Reply::sse(&text_stream(&[
            r#"{"text": "Details first.", "metadata": {"needsInterview": true, "questions": ["Which airport?"]}}"#,
        ]))
    } else if said.contains("hotel") {
        Reply::sse(&tool_call_stream(&[("call_q", "ask_user", r#"{"questions":["Which city?"]}"#)]))
    } else if said.contains("long") {
        let pieces: Vec<String> = (0..40).map(|i| format!("word{i} ")).collect();
        let refs: Vec<&str> = pieces.iter().map(String::as_str).collect();
        Reply::sse(&text_stream(&refs)).with_delay(Duration::from_millis(100))
    } else {
        Reply::sse(&text_stream(&["Hello", " there."]))
    }
}

const CHECKLIST_OPEN: &str =
    r#"{"steps":[{"step":"Add 2 and 3","done":false},{"step":"Report the sum","done":false}]}"#;
const CHECKLIST_DONE: &str = r#"{"steps":[{"step":"Add 2 and 3","done":true},{"step":"Report the sum","done":true}]}"#;

fn spawn(url: &str, dir: &std::path::Path) -> Session {
    let mut cmd = common::lucid_command();
    cmd.args(["chat", "--base-url", url, "-m", "m", "--session", "work", "--tools", "calculator,write_file,ask_user"])
        .arg("--store")
        .arg(dir.join("sessions.db"))
        .current_dir(dir)
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", dir)
        .env("TERM", "xterm")
        .env("NO_COLOR", "1");
    let mut s = Session::spawn(cmd).expect("spawn lucid chat");
    s.set_expect_timeout(Some(Duration::from_secs(20)));
    s
}

#[tokio::test(flavor = "multi_thread")]
async fn a_person_chats_uses_tools_commands_and_resumes_the_session() {
    let server = MockServer::start(script).await;
    let url = server.url();
    let dir = std::env::temp_dir().join(format!("lucid-chat-pty-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let d = dir.clone();
    tokio::task::spawn_blocking(move || {
        let mut p = spawn(&url, &d);
        p.expect("session work (new)").unwrap();
        p.expect("> ").unwrap();

        // The first model call of a turn shows the spinner until the answer begins.
        p.send_line("answer slowly").unwrap();
        // Any tenth of the second second: on a loaded machine a tick can skip "1.0s".
        p.expect(expectrl::Regex("thinking… 1\\.[0-9]s")).unwrap();
        p.expect("Took a while.").unwrap();
        p.send_line("/undo").unwrap();
        p.expect("(dropped the last turn: 2 messages)").unwrap();

        // A question answered through a tool call, streamed, with a footer.
        p.send_line("What is 2+3?").unwrap();
        p.expect("⚙ calculator {\"expression\":\"2+3\"}").unwrap();
        p.expect("✓ calculator").unwrap();
        p.expect("Tool said: 5").unwrap();
        p.expect("── ").unwrap();
        p.expect("out │ m │").unwrap();
        // The model is unknown and the server does not say: the default window.
        p.expect("ctx ").unwrap();
        p.expect("% of 8.2k").unwrap();

        // The conversation saved as Markdown (the format of `lucid sessions export`).
        p.send_line("/save conv.md").unwrap();
        p.expect("(saved to conv.md)").unwrap();
        let saved = std::fs::read_to_string(d.join("conv.md")).unwrap();
        assert!(saved.starts_with("# work\n"), "{saved}");
        assert!(saved.contains("\n## User\n\nWhat is 2+3?\n"), "{saved}");
        assert!(saved.contains("- tool call `call_a` `calculator`"), "{saved}");

        // Calls of one answer are shown as a group.
        p.send_line("compute both").unwrap();
        p.expect("⚙ 2 tool calls at once:").unwrap();
        p.expect("⚙ calculator {\"expression\":\"6*7\"}").unwrap();
        p.expect("⚙ calculator {\"expression\":\"1+1\"}").unwrap();
        p.expect("✓ calculator").unwrap();
        p.expect("Tool said: 2").unwrap();
        p.send_line("/undo").unwrap();
        p.expect("(dropped the last turn: 5 messages)").unwrap();

        // The history as the model sees it.
        p.send_line("/history").unwrap();
        p.expect("[user] What is 2+3?").unwrap();
        p.expect("[tool call call_a] calculator").unwrap();
        p.expect("[tool result call_a] 5").unwrap();

        // A call the policy asks about, answered "n".
        p.send_line("please write a file").unwrap();
        p.expect("? write_file").unwrap();
        p.expect("allow? [y]es / [n]o / [a]lways: ").unwrap();
        p.send_line("n").unwrap();
        p.expect("✗ write_file failed").unwrap();
        p.expect("Tool said: The user declined").unwrap();
        assert!(!d.join("x.txt").exists(), "the declined call did not run");

        // Escapes in a call's arguments are shown as text, in the parsed arguments.
        p.send_line("a sneaky one").unwrap();
        p.expect("? write_file").unwrap();
        p.expect(r#""path": "\u001b[2K\u001b[1A\u001b[2K? write_file notes.txt\u{202e}""#).unwrap();
        p.expect("allow? [y]es / [n]o / [a]lways: ").unwrap();
        p.send_line("n").unwrap();
        p.expect("Tool said: The user declined").unwrap();
        // Model text cannot set the title or write the clipboard.
        p.send_line("set the title").unwrap();
        p.expect(r"\u{1b}]0;pwned\u{7}\u{1b}]52;c;ZWNobw==\u{7}visible").unwrap();
        p.send_line("/undo").unwrap();
        p.expect("(dropped the last turn: 2 messages)").unwrap();
        p.send_line("/undo").unwrap();
        p.expect("(dropped the last turn: 4 messages)").unwrap();

        // The agent's questions are asked at the prompt and the answers go back to it.
        p.send_line("book a hotel").unwrap();
        p.expect("The agent asks:").unwrap();
        p.expect("? Which city?").unwrap();
        p.expect("answer> ").unwrap();
        p.send_line("Lisbon").unwrap();
        p.expect(r#"Tool said: [{"question":"Which city?","answer":"Lisbon"}]"#).unwrap();
        p.send_line("/undo").unwrap();
        p.expect("(dropped the last turn: 4 messages)").unwrap();

        // A message with several parts (`--plan auto` is the chat's default): the model
        // opens a checklist through its tool and ticks it; no call decides first.
        p.send_line("plan this: add 2 and 3, and then report").unwrap();
        p.expect("⚙ checklist").unwrap();
        p.expect("☐ Add 2 and 3").unwrap();
        p.expect("☐ Report the sum").unwrap();
        p.expect("☑ Add 2 and 3").unwrap();
        p.expect("☑ Report the sum").unwrap();
        p.expect("Checked answer: 5.").unwrap();
        p.send_line("/undo").unwrap();
        p.expect("(dropped the last turn: 6 messages)").unwrap();

        // `/plan always` runs the planner: its checklist is ticked, the answer joins the
        // conversation.
        p.send_line("/plan always").unwrap();
        p.expect("(plan: always)").unwrap();
        p.send_line("plan this: add 2 and 3, and then report").unwrap();
        p.expect("Plan:").unwrap();
        p.expect("☐ sum Add 2 and 3").unwrap();
        p.expect("☑ sum").unwrap();
        p.expect("Planned answer: 5.").unwrap();
        p.expect("── planned: 1 steps").unwrap();
        p.send_line("/undo").unwrap();
        p.expect("(dropped the last turn: 2 messages)").unwrap();
        p.send_line("/plan auto").unwrap();
        p.expect("(plan: auto)").unwrap();

        // An answer in the JSON protocol's interview shape is asked the same way, and the
        // answers go back at once.
        p.send_line("book a flight").unwrap();
        p.expect("? Which airport?").unwrap();
        p.expect("answer> ").unwrap();
        p.send_line("OSL").unwrap();
        p.expect(r#"Noted: My answers to your questions: [{"question":"Which airport?","answer":"OSL"}]"#).unwrap();
        p.send_line("/undo").unwrap();
        p.expect("(dropped the last turn: 2 messages)").unwrap();
        p.send_line("/undo").unwrap();
        p.expect("(dropped the last turn: 2 messages)").unwrap();

        // Undo drops that turn.
        p.send_line("/undo").unwrap();
        p.expect("(dropped the last turn: 4 messages)").unwrap();

        // Ctrl-C in the middle of a streamed answer stops it; the chat goes on.
        p.send_line("tell me something long").unwrap();
        p.expect("word3 ").unwrap();
        p.send(ControlCode::EndOfText).unwrap();
        p.expect("(interrupted; the conversation is kept)").unwrap();
        p.expect("> ").unwrap();
        p.send_line("hi").unwrap();
        p.expect("Hello there.").unwrap();

        // Multi-line input: a trailing backslash, and a bracketed paste.
        p.send_line("first line \\").unwrap();
        p.expect("… ").unwrap();
        p.send_line("second line").unwrap();
        p.expect("Hello there.").unwrap();
        p.expect("> ").unwrap();
        p.send("\x1b[200~pasted one\npasted two\x1b[201~").unwrap();
        p.send_line("").unwrap();
        p.expect("Hello there.").unwrap();

        // Tab completion of slash commands.
        p.send("/his\t").unwrap();
        p.send_line("").unwrap();
        p.expect("[user] hi").unwrap();

        p.send_line("/exit").unwrap();
        p.expect(expectrl::Eof).unwrap();

        // The session is still there in a second run.
        let mut p = spawn(&url, &d);
        p.expect("session work (resumed, ").unwrap();
        p.send_line("/history").unwrap();
        p.expect("[user] What is 2+3?").unwrap();
        p.expect("[user] tell me something long").unwrap();
        // The memory: compact now with a focus, then see the summary.
        p.send_line("/compact the calculator").unwrap();
        p.expect("(compacted ").unwrap();
        p.send_line("/memory").unwrap();
        p.expect("recall 3 (the newest, no embeddings)").unwrap();
        p.expect("recalled 0×: Planned answer: 5.").unwrap();
        p.send_line("/clear").unwrap();
        p.expect("(conversation cleared)").unwrap();
        p.send_line("/history").unwrap();
        p.expect("(empty conversation)").unwrap();
        p.expect("> ").unwrap();
        p.send(ControlCode::EndOfTransmission).unwrap();
        p.expect(expectrl::Eof).unwrap();
    })
    .await
    .unwrap();
    let said: Vec<String> = server
        .requests()
        .iter()
        .filter_map(|r| r.json()["messages"].as_array()?.last()?["content"].as_str().map(str::to_string))
        .collect();
    assert!(said.contains(&"first line \nsecond line".to_string()), "{said:?}");
    assert!(said.contains(&"pasted one\npasted two".to_string()), "{said:?}");
    let focus =
        server.requests().iter().any(|r| r.json().to_string().contains("Give the most room to: the calculator."));
    assert!(focus, "/compact's focus reaches the summary call");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs what the user writes after `run: ` with `shell`, and `6*7` with the calculator.
fn shell_script(req: &RecordedRequest) -> Reply {
    let body = req.json();
    let last = body["messages"].as_array().and_then(|m| m.last().cloned()).unwrap_or(Value::Null);
    if last["role"] == "tool" {
        return Reply::sse(&text_stream(&["Tool said: ", last["content"].as_str().unwrap_or_default()]));
    }
    let said = last["content"].as_str().unwrap_or_default();
    match said.strip_prefix("run: ") {
        Some(command) => {
            let args = json!({ "command": command }).to_string();
            Reply::sse(&tool_call_stream(&[("call_sh", "shell", args.as_str())]))
        }
        None => Reply::sse(&tool_call_stream(&[("call_c", "calculator", r#"{"expression":"6*7"}"#)])),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn rules_are_named_at_the_prompt_and_always_remembers_the_exact_command() {
    let server = MockServer::start(shell_script).await;
    let url = server.url();
    let dir = std::env::temp_dir().join(format!("lucid-chat-rules-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let d = dir.clone();
    tokio::task::spawn_blocking(move || {
        let mut cmd = common::lucid_command();
        cmd.args(["chat", "--base-url", &url, "-m", "m", "--tools", "calculator,shell"])
            .args(["--deny", "shell(rm *)", "--ask", "calculator(expression=6*)", "--allow", "shell(echo ok*)"])
            .arg("--store")
            .arg(d.join("sessions.db"))
            .current_dir(&d)
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", &d)
            .env("TERM", "xterm")
            .env("NO_COLOR", "1");
        let mut p = Session::spawn(cmd).expect("spawn lucid chat");
        p.set_expect_timeout(Some(Duration::from_secs(20)));
        p.expect("> ").unwrap();

        // An allow rule: no question.
        p.send_line("run: echo ok fine").unwrap();
        let seen = p.expect("Tool said: exit code 0").unwrap();
        assert!(!String::from_utf8_lossy(seen.before()).contains("allow?"), "asked for an allowed command");
        p.expect("ok fine").unwrap();
        // The footer's cost: the model `m` has no price.
        p.expect("· cost unknown (session cost unknown) │ session").unwrap();
        p.expect("> ").unwrap();

        // The same prefix in a compound command is asked, by the tool's own permission.
        p.send_line("run: echo ok; touch pwned").unwrap();
        p.expect("? shell (asks by its permission)").unwrap();
        p.expect("allow? [y]es / [n]o / [a]lways: ").unwrap();
        p.send_line("n").unwrap();
        p.expect("Tool said: The user declined").unwrap();
        p.expect("> ").unwrap();
        assert!(!d.join("pwned").exists());

        // A deny rule, named in what the model reads.
        p.send_line("run: rm -rf /tmp/nothing-here").unwrap();
        p.expect("Tool said: The tool `shell` is not allowed here (permission rule: deny shell(rm *))").unwrap();
        p.expect("> ").unwrap();

        // An ask rule is named at the prompt.
        p.send_line("multiply").unwrap();
        p.expect("? calculator (asks by the rule ask calculator(expression=6*))").unwrap();
        p.expect("allow? [y]es / [n]o / [a]lways: ").unwrap();
        p.send_line("y").unwrap();
        p.expect("Tool said: 42").unwrap();
        p.expect("> ").unwrap();

        // "always" records the exact command, not the whole tool.
        p.send_line("run: echo hello").unwrap();
        p.expect("allow? [y]es / [n]o / [a]lways: ").unwrap();
        p.send_line("a").unwrap();
        p.expect("(allowed from now on: allow shell(echo hello))").unwrap();
        p.expect("Tool said: exit code 0").unwrap();
        p.expect("hello").unwrap();
        p.expect("> ").unwrap();
        p.send_line("run: echo hello").unwrap();
        let seen = p.expect("Tool said: exit code 0").unwrap();
        assert!(!String::from_utf8_lossy(seen.before()).contains("allow?"), "asked again for a remembered command");
        p.expect("hello").unwrap();
        p.expect("> ").unwrap();
        p.send_line("run: echo other").unwrap();
        p.expect("allow? [y]es / [n]o / [a]lways: ").unwrap();
        p.send_line("n").unwrap();
        p.expect("Tool said: The user declined").unwrap();
        p.expect("> ").unwrap();
        p.send_line("/exit").unwrap();
        p.expect(expectrl::Eof).unwrap();
    })
    .await
    .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}

/// The hybrid mode's cost per simple message (issue 30): `lucid chat` with `--plan auto`
/// (its default) sends what `lucid run` sends — no classification call first, the
/// `checklist` tool offered instead. Before, this message cost three calls: the triage
/// (a structured call without tools), the calculator call and the answer.
#[tokio::test(flavor = "multi_thread")]
async fn a_simple_message_costs_no_classification_call() {
    let server = MockServer::start(|req| {
        let body = req.json();
        if body["stream"] != true {
            // A classification call, answered as cheaply as it can be: no plan needed.
            return Reply::json(200, &text_completion(r#"{"needs_plan": false}"#));
        }
        let messages = body["messages"].as_array().cloned().unwrap_or_default();
        let last = messages.last().cloned().unwrap_or(Value::Null);
        if last["role"] == "tool" {
            return Reply::sse(&text_stream(&["23 * 19 = ", last["content"].as_str().unwrap_or_default()]));
        }
        Reply::sse(&tool_call_stream(&[("call_m", "calculator", r#"{"expression":"23*19"}"#)]))
    })
    .await;
    let url = server.url();
    let dir = std::env::temp_dir().join(format!("lucid-chat-cost-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let d = dir.clone();
    tokio::task::spawn_blocking(move || {
        let mut p = spawn(&url, &d);
        p.expect("> ").unwrap();
        p.send_line("What is 23 * 19? Use the calculator.").unwrap();
        p.expect("23 * 19 = 437").unwrap();
        p.expect("── ").unwrap();
        p.expect("> ").unwrap();
        p.send_line("/exit").unwrap();
        p.expect(expectrl::Eof).unwrap();
    })
    .await
    .unwrap();
    let requests = server.requests();
    let bytes: usize = requests.iter().map(|r| r.json().to_string().len()).sum();
    // The numbers of the issue's measurement, printed for `--nocapture`.
    eprintln!("simple message: {} model calls, {bytes} request bytes", requests.len());
    let structured = requests.iter().filter(|r| !r.json()["response_format"].is_null()).count();
    assert_eq!(structured, 0, "no classification call before the message");
    assert_eq!(requests.len(), 2, "the calculator call and the answer");
    let first = requests[0].json();
    let tools: Vec<&str> =
        first["tools"].as_array().unwrap().iter().filter_map(|t| t["function"]["name"].as_str()).collect();
    assert!(tools.contains(&"checklist") && tools.contains(&"calculator"), "{tools:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
