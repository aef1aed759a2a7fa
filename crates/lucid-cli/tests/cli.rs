//! `lucid run` as a user runs it: the real binary against a local scripted server.

mod common;

use std::process::Output;

use common::{lucid_command, run_in, test_dir, text};
use lucid_mock::{MockServer, Reply, text_completion, text_stream, tool_call_completion};
use serde_json::{Value, json};

fn lucid(args: &[&str]) -> Output {
    lucid_command()
        .args(args)
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", std::env::temp_dir())
        .output()
        .expect("run lucid")
}

/// Runs `lucid` on a blocking thread so the in-process server keeps serving.
async fn run(args: Vec<String>) -> Output {
    tokio::task::spawn_blocking(move || lucid(&args.iter().map(String::as_str).collect::<Vec<_>>())).await.unwrap()
}

/// `lucid run --base-url SERVER -m m` with these further arguments.
async fn run_on(server: &MockServer, rest: &[&str]) -> Output {
    let mut args = vec!["run".to_string(), "--base-url".into(), server.url(), "-m".into(), "m".into()];
    args.extend(rest.iter().map(|a| a.to_string()));
    run(args).await
}

#[tokio::test(flavor = "multi_thread")]
async fn run_json_executes_the_calculator_and_prints_one_object() {
    let server = MockServer::sequence(vec![
        Reply::json(200, &tool_call_completion(&[("call_1", "calculator", r#"{"expression":"(2+3)*4"}"#)])),
        Reply::json(200, &text_completion("It is 20.")),
    ])
    .await;
    let out = run_on(&server, &["--json", "What is (2+3)*4?"]).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["content"], "It is 20.");
    assert_eq!(v["stop_reason"], "completed");
    assert_eq!(v["iterations"], 2);
    assert_eq!(v["usage"], json!({"input_tokens": 50, "output_tokens": 15}));
    assert_eq!(
        v["tool_calls"],
        json!([{"id": "call_1", "name": "calculator", "arguments": {"expression": "(2+3)*4"}, "output": "20", "is_error": false}])
    );
    let tools: Vec<String> = server.requests()[0].json()["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(tools, ["calculator", "current_time", "ask_user"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn run_stream_prints_the_answer_as_it_comes() {
    let server = MockServer::sequence(vec![Reply::sse(&text_stream(&["Hello", ", ", "world."]))]).await;
    let out = run_on(&server, &["--stream", "hi"]).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "Hello, world.\n");
}

#[tokio::test(flavor = "multi_thread")]
async fn at_the_iteration_limit_the_last_text_is_printed_with_a_note() {
    let mut with_text = tool_call_completion(&[("c1", "calculator", r#"{"expression":"1+1"}"#)]);
    with_text["choices"][0]["message"]["content"] = json!("Working on it: 1+1 first.");
    let bare = tool_call_completion(&[("c2", "calculator", r#"{"expression":"2+2"}"#)]);
    let server = MockServer::sequence(vec![Reply::json(200, &with_text), Reply::json(200, &bare)]).await;
    let out = run_on(&server, &["--max-iterations", "2", "loop"]).await;
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(text(&out.stdout), "Working on it: 1+1 first.\n");
    let err = text(&out.stderr);
    assert!(err.contains("stopped after 2 model calls (--max-iterations) and 1 tool calls"), "{err}");
    assert!(err.contains("above is the last text the model wrote"), "{err}");
    // Nothing written at all: no empty line, and the note says so.
    let server = MockServer::sequence(vec![Reply::json(200, &bare), Reply::json(200, &bare)]).await;
    let out = run_on(&server, &["--max-iterations", "2", "loop"]).await;
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(text(&out.stdout), "");
    assert!(text(&out.stderr).contains("the model wrote no text"), "{}", text(&out.stderr));
}

#[tokio::test(flavor = "multi_thread")]
async fn temperature_and_max_tokens_come_from_flags_or_the_file() {
    let server = MockServer::start(|_| Reply::json(200, &text_completion("ok"))).await;
    let out = run_on(&server, &["--temperature", "0.2", "--max-tokens", "64", "hi"]).await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let sent = server.requests()[0].json();
    assert_eq!((sent["temperature"].as_f64(), sent["max_tokens"].as_u64()), (Some(0.2), Some(64)), "{sent}");
    let dir = test_dir("sampling");
    std::fs::write(dir.join("c.toml"), "temperature = 0.7\nmax_tokens = 300\n").unwrap();
    let url = server.url();
    let out = run_in(&dir, &["run", "--config", "c.toml", "--base-url", &url, "-m", "m", "hi"], &[]).await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let sent = server.requests()[1].json();
    assert_eq!((sent["temperature"].as_f64(), sent["max_tokens"].as_u64()), (Some(0.7), Some(300)), "{sent}");
    let bad = run_on(&server, &["--temperature", "-1", "hi"]).await;
    assert_eq!(bad.status.code(), Some(2));
    assert!(text(&bad.stderr).contains("temperature -1 is not a number of 0 or more"), "{}", text(&bad.stderr));
    assert_eq!(server.requests().len(), 2, "nothing sent with a bad temperature");
    std::fs::remove_dir_all(dir).ok();
}

#[tokio::test(flavor = "multi_thread")]
async fn max_iterations_exits_3_and_still_prints_json() {
    let call = || Reply::json(200, &tool_call_completion(&[("c", "calculator", r#"{"expression":"1+1"}"#)]));
    let server = MockServer::sequence(vec![call(), call()]).await;
    let out = run_on(&server, &["--json", "--max-iterations", "2", "loop"]).await;
    assert_eq!(out.status.code(), Some(3));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["stop_reason"], "max_iterations");
    assert_eq!(v["tool_calls"][1]["output"], Value::Null);
}

#[tokio::test(flavor = "multi_thread")]
async fn provider_errors_exit_1_with_the_providers_message() {
    let server = MockServer::sequence(vec![Reply::json(
        401,
        &json!({"error": {"message": "Incorrect API key provided: sk-bad.", "type": "invalid_request_error", "code": "invalid_api_key"}}),
    )])
    .await;
    let out = run_on(&server, &["--api-key", "sk-bad", "hi"]).await;
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr).trim(),
        // The provider's own words, with the key it echoes redacted (issue 16).
        "lucid: openai returned 401 invalid_api_key: Incorrect API key provided: ***."
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_transcript_records_every_exchange_without_the_key() {
    let server = MockServer::sequence(vec![Reply::json(200, &text_completion("ok"))]).await;
    let dir = std::env::temp_dir().join(format!("lucid-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("t.jsonl");
    let out = run_on(&server, &["--api-key", "sk-secret-123", "--transcript", &path.display().to_string(), "hi"]).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let log = std::fs::read_to_string(&path).unwrap();
    assert!(!log.contains("sk-secret-123"));
    let line: Value = serde_json::from_str(log.lines().next().unwrap()).unwrap();
    assert_eq!(line["status"], 200);
    assert_eq!(line["request_headers"]["authorization"], "***");
    assert_eq!(line["request"]["messages"][0]["content"], "hi");
    assert_eq!(line["response"]["choices"][0]["message"]["content"], "ok");
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn no_provider_exits_2_and_says_what_to_do() {
    // With the local engine built in, the default model is tried first: from an empty
    // cache and a hub that cannot be reached, that fails, with the same advice.
    let cache = test_dir("no-provider-cache");
    let out = lucid_command()
        .args(["run", "hello"])
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", std::env::temp_dir())
        .env("HF_HUB_CACHE", &cache)
        .env("HF_ENDPOINT", "http://127.0.0.1:9")
        .output()
        .expect("run lucid");
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    for needle in
        ["no model provider found", "OPENAI_API_KEY", "DEEPSEEK_API_KEY", "--base-url http://HOST:PORT/v1", "Ollama"]
    {
        assert!(err.contains(needle), "missing {needle:?} in:\n{err}");
    }
}

#[test]
fn missing_key_and_unknown_provider_exit_2() {
    let out = lucid(&["run", "--provider", "deepseek", "hello"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr).trim(),
        "lucid: no API key for deepseek: set the environment variable DEEPSEEK_API_KEY (or pass --api-key)"
    );
    let out = lucid(&["run", "--provider", "nope", "hello"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("unknown provider `nope`"));
}

#[test]
fn help_and_providers_list() {
    let out = lucid(&["run", "--help"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stdout).contains("--max-iterations"));
    let out = lucid(&["providers"]);
    let list = text(&out.stdout);
    for p in [
        "openai",
        "anthropic",
        "gemini",
        "zhipu",
        "qwen",
        "deepseek",
        "ollama",
        "vllm",
        "llamacpp",
        "openrouter",
        "groq",
    ] {
        assert!(list.contains(p), "{p} missing");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn provider_anthropic_speaks_the_messages_api() {
    let server = MockServer::sequence(vec![Reply::json(
        200,
        &json!({"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test",
                "content": [{"type": "text", "text": "Bonjour."}], "stop_reason": "end_turn",
                "usage": {"input_tokens": 9, "output_tokens": 3}}),
    )])
    .await;
    let root = server.url().trim_end_matches("/v1").to_string();
    let out = run(vec![
        "run".into(),
        "--provider".into(),
        "anthropic".into(),
        "--base-url".into(),
        root,
        "--api-key".into(),
        "k".into(),
        "--json".into(),
        "Say hello in French".into(),
    ])
    .await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["content"], "Bonjour.");
    let req = &server.requests()[0];
    assert_eq!(req.path, "/v1/messages");
    assert_eq!(req.json()["model"], "claude-sonnet-4-5", "the preset's default model");
}

#[test]
fn gemini_key_falls_back_to_google_api_key() {
    let out = lucid(&["run", "--provider", "gemini", "hello"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("GEMINI_API_KEY or GOOGLE_API_KEY"), "{}", text(&out.stderr));
}

#[tokio::test(flavor = "multi_thread")]
async fn sessions_persist_and_the_sessions_command_shows_them() {
    let server = MockServer::start(|_| Reply::json(200, &text_completion("Noted."))).await;
    let dir = std::env::temp_dir().join(format!("lucid-cli-sessions-{}", std::process::id()));
    let db = dir.join("s.db").display().to_string();
    for prompt in ["Remember: my cat is Tom.", "What is my cat's name?"] {
        let out = run_on(&server, &["--session", "pets", "--store", &db, prompt]).await;
        assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    }
    let second = server.requests()[1].json();
    assert_eq!(second["messages"][0]["content"], "Remember: my cat is Tom.", "the second run continues the first");
    let list = lucid(&["sessions", "--store", &db, "list"]);
    assert!(text(&list.stdout).contains("pets") && text(&list.stdout).contains("4 msgs"), "{}", text(&list.stdout));
    let md = lucid(&["sessions", "--store", &db, "export", "pets", "--format", "markdown"]);
    assert!(text(&md.stdout).starts_with("# Remember: my cat is Tom."), "{}", text(&md.stdout));
    let js = lucid(&["sessions", "--store", &db, "export", "pets", "--format", "json"]);
    let v: Value = serde_json::from_slice(&js.stdout).unwrap();
    assert_eq!(v["messages"].as_array().unwrap().len(), 4);
    assert_eq!(lucid(&["sessions", "--store", &db, "delete", "pets"]).status.code(), Some(0));
    let gone = lucid(&["sessions", "--store", &db, "show", "pets"]);
    assert_eq!(gone.status.code(), Some(2));
    std::fs::remove_dir_all(dir).ok();
}

/// SIGKILL in the middle of turns, many times over: every reload is a valid history made of
/// whole turns, and no completed turn is lost.
#[tokio::test(flavor = "multi_thread")]
async fn a_process_killed_mid_turn_never_leaves_a_broken_session() {
    let server = MockServer::start(|req| {
        let body = req.json();
        let last_is_tool = body["messages"].as_array().and_then(|m| m.last()).is_some_and(|m| m["role"] == "tool");
        let reply = if last_is_tool {
            Reply::sse(&lucid_mock::text_stream(&["The", " answer", " is", " 2."]))
        } else {
            Reply::sse(&lucid_mock::tool_call_stream(&[("c1", "calculator", r#"{"expression":"1+1"}"#)]))
        };
        reply.with_delay(std::time::Duration::from_millis(2))
    })
    .await;
    let dir = std::env::temp_dir().join(format!("lucid-cli-kill-{}", std::process::id()));
    let db = dir.join("k.db").display().to_string();
    // Every turn stays in the store: no summaries replace the oldest.
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("config.toml");
    std::fs::write(&config, "[memory]\nenabled = false\n").unwrap();
    let config = config.display().to_string();
    let mut completed = 0;
    let mut seed = 0x9e37_79b9_u32;
    for i in 0..30 {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        let wait_ms = u64::from(seed % 160);
        let mut child = lucid_command()
            .args(["--config", &config, "run", "--base-url", &server.url(), "-m", "m", "--session", "k"])
            .args(["--store", &db, "--stream"])
            .arg(format!("turn {i}"))
            .env("HOME", std::env::temp_dir())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        tokio::time::sleep(std::time::Duration::from_millis(wait_ms)).await;
        let finished = child.try_wait().unwrap().is_some_and(|s| s.success());
        if finished {
            completed += 1;
        } else {
            child.kill().unwrap();
            child.wait().unwrap();
        }
    }
    let store = lucid::store::SqliteStore::open(dir.join("k.db")).unwrap();
    use lucid::store::SessionStore;
    let stored = store.load("k").await.unwrap().map(|s| s.messages).unwrap_or_default();
    assert!(lucid::history::validate(&stored).is_ok(), "{:?}", lucid::history::validate(&stored));
    assert_eq!(stored.len() % 4, 0, "only whole turns are stored");
    assert!(stored.len() / 4 >= completed, "{} turns stored, {completed} completed", stored.len() / 4);
    // The killed processes' locks do not block the next turn.
    let out = run_on(&server, &["--config", &config, "--session", "k", "--store", &db, "--stream", "last"]).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let after = store.load("k").await.unwrap().unwrap().messages;
    assert!(lucid::history::validate(&after).is_ok());
    assert_eq!(after.len(), stored.len() + 4, "the last, uninterrupted turn is stored whole after the others");
    eprintln!("{completed} of 30 runs completed before the kill; {} turns stored", stored.len() / 4);
    std::fs::remove_dir_all(dir).ok();
}

#[tokio::test(flavor = "multi_thread")]
async fn run_schema_prints_validated_json_after_a_correction() {
    // The tools are on: the first call offers them without the schema; an answer that
    // does not match it brings the report call (the schema, no tools); a wrong report is
    // sent back for correction.
    let server = MockServer::sequence(vec![
        Reply::json(200, &text_completion("Tokyo, with about 37 million people.")),
        Reply::json(200, &text_completion("{\"name\": \"Tokyo\"}")),
        Reply::json(200, &text_completion("{\"name\": \"Tokyo\", \"population\": 37400000}")),
    ])
    .await;
    let dir = std::env::temp_dir().join(format!("lucid-cli-schema-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let schema = dir.join("city.json");
    std::fs::write(
        &schema,
        r#"{"type": "object", "properties": {"name": {"type": "string"}, "population": {"type": "integer"}}, "required": ["name", "population"]}"#,
    )
    .unwrap();
    let out = run_on(&server, &["--schema", &schema.display().to_string(), "Largest city in Japan?"]).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v, json!({"name": "Tokyo", "population": 37400000}));
    let sent: Vec<Value> = server.requests().iter().map(|r| r.json()).collect();
    assert!(sent[0]["tools"].is_array() && sent[0].get("response_format").is_none(), "{}", sent[0]);
    assert_eq!(sent[1]["response_format"]["json_schema"]["name"], "city");
    assert!(sent[1].get("tools").is_none(), "the report call offers no tools: {}", sent[1]);
    std::fs::remove_dir_all(dir).ok();
}

#[tokio::test(flavor = "multi_thread")]
async fn questions_nobody_can_answer_exit_4_and_are_printed() {
    let server = MockServer::sequence(vec![Reply::json(
        200,
        &tool_call_completion(&[("q1", "ask_user", r#"{"questions": ["Which city?", "For how many nights?"]}"#)]),
    )])
    .await;
    let out = run_on(&server, &["Book a hotel"]).await;
    assert_eq!(out.status.code(), Some(4), "stderr: {}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "The model needs more information:\n  1. Which city?\n  2. For how many nights?\n");
    assert_eq!(server.requests().len(), 1);

    // The JSON protocol's shape in a plain answer means the same.
    let server = MockServer::sequence(vec![Reply::json(
        200,
        &text_completion(r#"{"needs_interview": true, "questions": ["Which city?"]}"#),
    )])
    .await;
    let out = run_on(&server, &["Book"]).await;
    assert_eq!(out.status.code(), Some(4), "stderr: {}", text(&out.stderr));
    assert!(text(&out.stdout).contains("1. Which city?"));

    // With --json: exactly one object, the questions in it, whichever way they were asked,
    // the seed's `{"text", "metadata": {"needsInterview", "questions"}}` shape included.
    let seed = r#"{"text": "Some details first.", "metadata": {"needsInterview": true, "questions": ["Which city?"]}}"#;
    for reply in [
        tool_call_completion(&[("q1", "ask_user", r#"{"questions": ["Which city?"]}"#)]),
        text_completion(r#"{"needs_interview": true, "questions": ["Which city?"]}"#),
        text_completion(seed),
    ] {
        let server = MockServer::sequence(vec![Reply::json(200, &reply)]).await;
        let out = run_on(&server, &["--json", "Book"]).await;
        assert_eq!(out.status.code(), Some(4), "stderr: {}", text(&out.stderr));
        let v: Value = serde_json::from_slice(&out.stdout).expect("stdout is one JSON object and nothing else");
        assert_eq!(v["stop_reason"], "needs_input", "{v}");
        assert_eq!(v["questions"], json!(["Which city?"]), "{v}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn workflow_run_executes_a_file_with_inputs() {
    let server = MockServer::start(|req| {
        let body = req.json();
        let prompt = body["messages"].as_array().unwrap().last().unwrap()["content"].as_str().unwrap().to_string();
        Reply::json(200, &text_completion(&format!("<{prompt}>")))
    })
    .await;
    let dir = std::env::temp_dir().join(format!("lucid-cli-wf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("flow.yaml");
    std::fs::write(
        &file,
        "name: demo
inputs:
  topic: {}
  n: { default: 2 }
steps:
  - name: title
    prompt: 'Title for {{ input.topic }}'
  - name: math
    tool: calculator
    args: { expression: '{{ input.n }} * 21' }
  - name: final
    value: done
",
    )
    .unwrap();
    let f = file.to_string_lossy().to_string();
    let out = run(vec![
        "workflow".into(),
        "run".into(),
        f.clone(),
        "--input".into(),
        "topic=owls".into(),
        "--base-url".into(),
        server.url(),
        "-m".into(),
        "m".into(),
        "--json".into(),
    ])
    .await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["outputs"]["title"], "<Title for owls>");
    assert_eq!(v["outputs"]["math"], 42);
    assert_eq!(v["output"], "done");

    let out =
        run(vec!["workflow".into(), "run".into(), f, "--base-url".into(), server.url(), "-m".into(), "m".into()]).await;
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(text(&out.stderr), "lucid: the workflow needs the input `topic` (give it with --input topic=VALUE)\n");
}

/// A workflow agent reads `notes.txt` and writes its text to `out.txt`; a tool step reads
/// `out.txt` back. Writing needs `allow` in the configuration, as in `lucid run`.
#[tokio::test(flavor = "multi_thread")]
async fn workflow_agents_and_tool_steps_use_the_file_tools_under_the_permission_policy() {
    let server = MockServer::start(|req| {
        let body = req.json();
        let last = body["messages"].as_array().unwrap().last().unwrap().clone();
        let reply = match (last["role"].as_str(), last["content"].as_str().unwrap_or_default()) {
            (Some("user"), _) => tool_call_completion(&[("c1", "read_file", r#"{"path": "notes.txt"}"#)]),
            (Some("tool"), text) if text.starts_with("remember") => {
                let args = json!({"path": "out.txt", "content": text}).to_string();
                tool_call_completion(&[("c2", "write_file", &args)])
            }
            (_, text) => text_completion(&format!("done: {text}")),
        };
        Reply::json(200, &reply)
    })
    .await;
    let dir = test_dir("wf-files");
    std::fs::write(dir.join("notes.txt"), "remember the milk\n").unwrap();
    std::fs::write(
        dir.join("flow.yaml"),
        "name: files
agents:
  clerk:
    tools: [read_file, write_file]
steps:
  - name: copy
    agent: clerk
    prompt: Copy notes.txt to out.txt
  - name: check
    tool: read_file
    args: { path: out.txt }
",
    )
    .unwrap();
    std::fs::write(dir.join("allow.toml"), "[permissions]\nwrite_file = \"allow\"\n").unwrap();
    let url = server.url();
    let flow = ["workflow", "run", "flow.yaml", "--base-url", &url, "-m", "m"];

    let out = run_in(&dir, &[&flow[..], &["--config", "allow.toml", "--json"]].concat(), &[]).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["outputs"]["check"], "remember the milk\n", "the tool step read what the agent wrote");
    assert!(v["outputs"]["copy"].as_str().unwrap().starts_with("done: "), "{v}");
    assert_eq!(std::fs::read_to_string(dir.join("out.txt")).unwrap(), "remember the milk\n");
    let offered: Vec<Value> = server.requests()[0].json()["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].clone())
        .collect();
    assert_eq!(offered, [json!("read_file"), json!("write_file")]);

    // Without `allow`, nobody can approve the write: the model is told so and the file
    // stays unwritten, so the tool step reading it fails.
    std::fs::remove_file(dir.join("out.txt")).unwrap();
    let asked = server.requests().len();
    let out = run_in(&dir, &flow, &[]).await;
    assert_eq!(out.status.code(), Some(1), "stderr: {}", text(&out.stderr));
    assert!(text(&out.stderr).contains("step `check` failed"), "{}", text(&out.stderr));
    assert!(!dir.join("out.txt").exists());
    let refusal = server.requests()[asked..]
        .iter()
        .filter_map(|r| r.json()["messages"].as_array().and_then(|m| m.last().cloned()))
        .any(|m| {
            m["role"] == "tool" && m["content"].as_str().unwrap_or_default().contains("needs the user's approval")
        });
    assert!(refusal, "the model reads why the write was refused");

    // A tool step is held to the same policy.
    std::fs::write(
        dir.join("direct.yaml"),
        "name: direct\nsteps:\n  - name: save\n    tool: write_file\n    args: { path: out.txt, content: x }\n",
    )
    .unwrap();
    let out = run_in(&dir, &["workflow", "run", "direct.yaml"], &[]).await;
    assert_eq!(out.status.code(), Some(1), "stderr: {}", text(&out.stderr));
    assert!(text(&out.stderr).contains("needs the user's approval"), "{}", text(&out.stderr));
    assert!(!dir.join("out.txt").exists());
    std::fs::remove_dir_all(dir).ok();
}

/// A workflow file's `foreach` calls `code_outline` once per file of an input list; the
/// output lists each file's outline in the list's order.
#[cfg(feature = "code-outline")]
#[tokio::test(flavor = "multi_thread")]
async fn a_workflow_foreach_outlines_each_file_of_an_input_list() {
    let dir = test_dir("wf-foreach");
    std::fs::write(dir.join("calc.py"), "def add(a, b):\n    return a + b\n").unwrap();
    std::fs::write(dir.join("main.go"), "package main\n\n// Run runs.\nfunc Run() {}\n").unwrap();
    std::fs::write(
        dir.join("outline.yaml"),
        "name: outlines
inputs:
  files: {}
steps:
  - name: each
    foreach:
      over: input.files
      concurrency: 2
      steps:
        - name: outline
          tool: code_outline
          args: { path: '{{ each.item }}' }
",
    )
    .unwrap();
    let args = ["workflow", "run", "outline.yaml", "--input", r#"files=["calc.py", "main.go"]"#, "--json"];
    let out = run_in(&dir, &args, &[]).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let outlines = v["output"].as_array().unwrap();
    assert_eq!(outlines.len(), 2, "{v}");
    assert_eq!(
        (outlines[0]["language"].as_str(), outlines[0]["symbols"][0]["name"].as_str()),
        (Some("python"), Some("add"))
    );
    assert_eq!(outlines[1]["symbols"][0]["doc"], "Run runs.", "{v}");
    std::fs::remove_dir_all(dir).ok();
}

/// An agent naming `model = "deepseek:…"` goes through the configuration like the
/// default model: `[providers.deepseek]`'s base URL and key variable, `--transcript` and
/// `--max-retries`.
#[tokio::test(flavor = "multi_thread")]
async fn a_workflow_agent_naming_its_model_gets_the_configured_provider_transcript_and_retries() {
    let server = MockServer::start(|_| Reply::json(200, &text_completion("named"))).await;
    let dir = test_dir("wf-named");
    let config = |url: &str| format!("[providers.deepseek]\nbase_url = \"{url}\"\nkey_env = \"TEST_DS_KEY\"\n");
    std::fs::write(dir.join("config.toml"), config(&server.url())).unwrap();
    std::fs::write(
        dir.join("flow.toml"),
        "name = \"named\"\n[agents.writer]\nmodel = \"deepseek:ds-test\"\n\
         [[steps]]\nname = \"say\"\nagent = \"writer\"\nprompt = \"hi\"\n",
    )
    .unwrap();
    let key = [("TEST_DS_KEY", "sk-ds-secret-42")];
    let flow = ["workflow", "run", "flow.toml", "--config", "config.toml"];
    let out = run_in(&dir, &[&flow[..], &["--transcript", "t.jsonl"]].concat(), &key).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "named\n");
    let req = &server.requests()[0];
    assert_eq!(req.path, "/v1/chat/completions");
    assert_eq!(req.json()["model"], "ds-test");
    assert_eq!(req.header("authorization"), Some("Bearer sk-ds-secret-42"));
    let log = std::fs::read_to_string(dir.join("t.jsonl")).unwrap();
    assert!(!log.contains("sk-ds-secret-42"));
    let line: Value = serde_json::from_str(log.lines().next().unwrap()).unwrap();
    assert_eq!((line["provider"].as_str(), line["model"].as_str()), (Some("deepseek"), Some("ds-test")));
    assert_eq!(line["request_headers"]["authorization"], "***");

    // `--max-retries 0`: one attempt at an overloaded server, then the step fails.
    let busy =
        MockServer::start(|_| Reply::json(503, &json!({"error": {"message": "overloaded", "type": "server_error"}})))
            .await;
    std::fs::write(dir.join("config.toml"), config(&busy.url())).unwrap();
    let out = run_in(&dir, &[&flow[..], &["--max-retries", "0"]].concat(), &key).await;
    assert_eq!(out.status.code(), Some(1), "stderr: {}", text(&out.stderr));
    assert_eq!(busy.requests().len(), 1, "no retry");
    std::fs::remove_dir_all(dir).ok();
}

#[tokio::test(flavor = "multi_thread")]
async fn run_plan_shows_the_plan_and_each_step_then_answers() {
    let server = MockServer::start(|req| {
        let body = req.json();
        let prompt = body["messages"].as_array().unwrap().last().unwrap()["content"].as_str().unwrap().to_string();
        let reply = if prompt.starts_with("Make a plan") {
            json!({"steps": [{"id": "s1", "task": "Compute 6*7", "depends_on": []}]}).to_string()
        } else if prompt.starts_with("Every step is done") {
            "The answer is 42.".to_string()
        } else {
            json!({"success": true, "result": "42"}).to_string()
        };
        Reply::json(200, &text_completion(&reply))
    })
    .await;
    let out = run_on(&server, &["--plan", "What is 6*7?"]).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "The answer is 42.\n");
    let err = text(&out.stderr);
    assert!(err.contains("plan:\n  s1. Compute 6*7\n"), "{err}");
    assert!(err.contains("[s1] started") && err.contains("[s1] done in"), "{err}");
}

#[test]
fn config_init_writes_a_starter_that_config_show_resolves_with_profiles_and_masked_keys() {
    let dir = std::env::temp_dir().join(format!("lucid-cli-config-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("config.toml");
    let f = file.to_string_lossy().to_string();
    let out = lucid(&["config", "init", "--config", &f]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(std::fs::read_to_string(&file).unwrap().contains("[permissions]"));
    let again = lucid(&["config", "init", "--config", &f]);
    assert_eq!(again.status.code(), Some(2));
    assert!(text(&again.stderr).contains("exists; pass --force"));

    std::fs::write(
        &file,
        "provider = \"openai\"\nmodel = \"gpt-4o-mini\"\nsystem = \"Be brief.\"\n\
         [permissions]\nshell = \"deny\"\n\
         [providers.deepseek]\nkey_env = \"MY_DS_KEY\"\n\
         [profiles.ds]\nprovider = \"deepseek\"\nmodel = \"deepseek-chat\"\ntemperature = 0.1\n",
    )
    .unwrap();
    let out = lucid_command()
        .args(["config", "show", "--config", &f, "--profile", "ds"])
        .env("HOME", &dir)
        .env("MY_DS_KEY", "sk-deepseek-secret-1234")
        .output()
        .unwrap();
    let shown = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(shown.contains("provider = \"deepseek\""), "{shown}");
    assert!(shown.contains("model = \"deepseek-chat\""), "{shown}");
    assert!(shown.contains("api_key = \"sk-…1234\"  # from MY_DS_KEY"), "{shown}");
    assert!(!shown.contains("secret"), "the key is masked");
    assert!(shown.contains("system = \"Be brief.\""), "{shown}");
    assert!(shown.contains("shell = \"deny\"") && shown.contains("write_file = \"ask\""), "{shown}");
    assert!(shown.contains("temperature = 0.1") && shown.contains("max_tokens = (the server's default)"), "{shown}");
    // Both commands' default tools: chat's and run's differ.
    assert!(shown.contains("\"read_file\"") && shown.contains("  # lucid chat"), "{shown}");
    assert!(shown.contains("# lucid run: tools = [\"calculator\", \"current_time\", \"ask_user\"]"), "{shown}");
    // Flags override the file.
    let out = lucid_command()
        .args(["config", "show", "--config", &f, "--provider", "ollama", "--model", "llama3.2"])
        .env("HOME", &dir)
        .output()
        .unwrap();
    let shown = text(&out.stdout);
    assert!(shown.contains("provider = \"ollama\"") && shown.contains("model = \"llama3.2\""), "{shown}");
    let bad = lucid(&["config", "show", "--config", &f, "--profile", "nope"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(text(&bad.stderr).contains("no profile `nope`"), "{}", text(&bad.stderr));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_tools_help_lists_every_built_in_tool_of_the_catalogue() {
    for sub in ["run", "chat"] {
        let help = text(&lucid(&[sub, "--help"]).stdout);
        for t in lucid::tool::builtin::CATALOGUE {
            assert!(
                help.contains(t.name) && help.contains(t.summary),
                "`lucid {sub} --help` lacks {}:\n{help}",
                t.name
            );
        }
    }
}

#[test]
fn completions_and_every_help_come_from_one_definition() {
    for shell in ["bash", "zsh", "fish"] {
        let out = lucid(&["completions", shell]);
        assert_eq!(out.status.code(), Some(0));
        let script = text(&out.stdout);
        for sub in ["chat", "run", "workflow", "sessions", "config", "completions"] {
            assert!(script.contains(sub), "{shell} completion lacks {sub}");
        }
    }
    for sub in ["chat", "run", "workflow", "sessions", "config", "completions", "providers"] {
        let out = lucid(&[sub, "--help"]);
        assert_eq!(out.status.code(), Some(0), "{sub} --help");
        assert!(text(&out.stdout).contains("Usage: lucid"), "{sub}");
    }
    assert!(text(&lucid(&["chat", "--help"]).stdout).contains("--session"));
}

#[tokio::test]
async fn sessions_repair_rebuilds_a_session_with_an_unreadable_message() {
    use lucid::store::SessionStore;
    let dir = std::env::temp_dir().join(format!("lucid-cli-repair-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("r.db");
    let store = lucid::store::SqliteStore::open(&db).unwrap();
    store.create("hurt", json!({})).await.unwrap();
    let call = lucid::ToolCall::new("c1", "calculator", json!({"expression": "1+1"}));
    store
        .append(
            "hurt",
            &[
                lucid::Message::user("what is 1+1?"),
                lucid::Message::Assistant(lucid::AssistantMessage { tool_calls: vec![call], ..Default::default() }),
                lucid::Message::tool_result("c1", "calculator", "2", false),
                lucid::Message::assistant("2"),
            ],
        )
        .await
        .unwrap();
    // The assistant's call is corrupted on disk, and the count with it.
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute("UPDATE messages SET body = 'not json' WHERE session_id = 'hurt' AND seq = 1", []).unwrap();
    conn.execute("UPDATE sessions SET message_count = -3 WHERE id = 'hurt'", []).unwrap();
    let db_arg = db.display().to_string();
    let show = run(vec!["sessions".into(), "--store".into(), db_arg.clone(), "show".into(), "hurt".into()]).await;
    assert_eq!(show.status.code(), Some(1));
    assert!(text(&show.stderr).contains("session `hurt`: stored message 2 is unreadable"), "{}", text(&show.stderr));

    let fixed = run(vec!["sessions".into(), "--store".into(), db_arg.clone(), "repair".into(), "hurt".into()]).await;
    assert_eq!(fixed.status.code(), Some(0), "stderr: {}", text(&fixed.stderr));
    let said = text(&fixed.stdout);
    assert!(said.contains("2 messages kept; 1 unreadable dropped (at 2); 1 orphaned"), "{said}");
    let s = store.load("hurt").await.unwrap().unwrap();
    assert_eq!(s.messages, [lucid::Message::user("what is 1+1?"), lucid::Message::assistant("2")]);
    assert_eq!(s.info.message_count, 2);
    assert!(lucid::history::validate(&s.messages).is_ok());
    std::fs::remove_dir_all(dir).ok();
}

#[tokio::test(flavor = "multi_thread")]
async fn the_api_key_is_in_no_log_transcript_error_or_stored_message() {
    const KEY: &str = "sk-leak-0123456789abcdef";
    let server = MockServer::sequence(vec![
        Reply::json(200, &text_completion(&format!("Your key is {KEY}, keep it safe."))),
        Reply::json(
            401,
            &json!({"error": {"message": format!("Incorrect API key provided: {KEY}."), "type": "invalid_request_error", "code": "invalid_api_key"}}),
        ),
    ])
    .await;
    let dir = test_dir("secrets");
    let url = server.url();
    let common =
        ["run", "-vv", "--base-url", &url, "-m", "m", "--session", "s", "--store", "s.db", "--transcript", "t.jsonl"];
    let first = run_in(&dir, &[&common[..], &["what is my key?"]].concat(), &[("OPENAI_API_KEY", KEY)]).await;
    assert_eq!(first.status.code(), Some(0), "stderr: {}", text(&first.stderr));
    assert!(text(&first.stderr).contains("Bearer") || text(&first.stderr).contains("request"), "-vv logs the exchange");
    let second = run_in(&dir, &[&common[..], &["again"]].concat(), &[("OPENAI_API_KEY", KEY)]).await;
    assert_eq!(second.status.code(), Some(1));
    let shown = text(&second.stderr);
    assert!(shown.contains("Incorrect API key provided: ***."), "{shown}");
    for (what, body) in [
        ("the first run's log", text(&first.stderr)),
        ("the second run's log and error", shown),
        ("the transcript", std::fs::read_to_string(dir.join("t.jsonl")).unwrap()),
        ("the store", {
            use lucid::store::SessionStore;
            let store = lucid::store::SqliteStore::open(dir.join("s.db")).unwrap();
            let stored = store.load("s").await.unwrap().unwrap().messages;
            assert_eq!(stored[1].text(), "Your key is ***, keep it safe.");
            serde_json::to_string(&stored).unwrap()
        }),
    ] {
        assert!(!body.contains(KEY), "the key is in {what}: {body}");
    }
    assert_eq!(server.requests()[0].header("authorization"), Some(format!("Bearer {KEY}").as_str()), "it was sent");
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn every_printing_subcommand_ends_quietly_when_its_reader_is_gone() {
    use std::os::unix::process::ExitStatusExt;
    let dir = test_dir("pipe");
    let store = dir.join("p.db").display().to_string();
    for args in [
        vec!["providers"],
        vec!["config", "show"],
        vec!["completions", "bash"],
        vec!["--help"],
        vec!["run", "--help"],
        vec!["sessions", "--store", &store, "list"],
    ] {
        // The reading end is closed before the command starts: its first print fails.
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = lucid_command()
            .args(&args)
            .current_dir(&dir)
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", &dir)
            .stdout(writer)
            .stderr(std::process::Stdio::piped())
            .output()
            .unwrap();
        let stderr = text(&out.stderr);
        assert!(!stderr.contains("panicked") && !stderr.contains("Broken pipe"), "{args:?}: {stderr}");
        assert!(
            out.status.success() || out.status.signal() == Some(libc::SIGPIPE),
            "{args:?}: {:?} {stderr}",
            out.status
        );
    }
    std::fs::remove_dir_all(dir).ok();
}

#[tokio::test(flavor = "multi_thread")]
async fn timeout_bounds_the_wait_between_chunks_too() {
    // The answer begins at once, then pauses 1.2 s before each piece.
    let server = MockServer::start(|_| {
        Reply::sse(&text_stream(&["slow but fine"])).with_delay(std::time::Duration::from_millis(1200))
    })
    .await;
    let short = run_on(&server, &["--stream", "--max-retries", "0", "--timeout", "1", "hi"]).await;
    assert_eq!(short.status.code(), Some(1), "stdout: {}", text(&short.stdout));
    assert!(text(&short.stderr).contains("no data for 1.0 s mid-answer"), "{}", text(&short.stderr));
    let long = run_on(&server, &["--stream", "--max-retries", "0", "--timeout", "5", "hi"]).await;
    assert_eq!(long.status.code(), Some(0), "stderr: {}", text(&long.stderr));
    assert_eq!(text(&long.stdout).trim(), "slow but fine");
}

#[tokio::test(flavor = "multi_thread")]
async fn log_lines_carry_no_colour_codes_when_stderr_is_not_a_terminal() {
    // A 503 first: the retry is logged at WARN.
    let server = MockServer::sequence(vec![
        Reply::json(503, &json!({"error": {"message": "overloaded", "type": "server_error"}})),
        Reply::json(200, &text_completion("ok")),
    ])
    .await;
    let out = run_on(&server, &["hi"]).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let log = text(&out.stderr);
    assert!(log.contains("WARN") && log.contains("retrying"), "{log}");
    assert!(!log.contains('\x1b'), "colour codes in a piped log: {log:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_python_tool_computes_across_calls_and_a_missing_interpreter_stops_at_startup() {
    let dir = test_dir("python");
    std::fs::write(dir.join("lucid.toml"), "[permissions]\npython = \"allow\"\n").unwrap();
    let server = MockServer::sequence(vec![
        Reply::json(200, &tool_call_completion(&[("c1", "python", r#"{"code":"import math\nr = math.sqrt(2)"}"#)])),
        Reply::json(200, &tool_call_completion(&[("c2", "python", r#"{"code":"round(r, 4)"}"#)])),
        Reply::json(200, &text_completion("About 1.4142.")),
    ])
    .await;
    let url = server.url();
    let args =
        ["--config", "lucid.toml", "run", "--base-url", &url, "-m", "m", "--tools", "python", "--json", "sqrt 2"];
    let out = run_in(&dir, &args, &[]).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["tool_calls"][1]["output"], "[value]\n1.4142", "{v}");

    std::fs::write(dir.join("lucid.toml"), "python = \"no-such-python-3\"\n").unwrap();
    let out = run_in(&dir, &args, &[]).await;
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("`no-such-python-3` was not found on PATH"), "{err}");
    assert_eq!(server.requests().len(), 3, "no model call is made with a tool missing");
    std::fs::remove_dir_all(dir).ok();
}

#[tokio::test(flavor = "multi_thread")]
async fn db_gives_the_model_the_sql_tools_on_a_read_only_database() {
    let dir = test_dir("sql");
    rusqlite::Connection::open(dir.join("shop.db"))
        .unwrap()
        .execute_batch(
            "CREATE TABLE item (name TEXT, price REAL); INSERT INTO item VALUES ('tea', 3.5), ('cake', 4.0);",
        )
        .unwrap();
    let server = MockServer::sequence(vec![
        Reply::json(
            200,
            &tool_call_completion(&[("c1", "sql_query", r#"{"sql":"SELECT name FROM item WHERE price > 3.9"}"#)]),
        ),
        Reply::json(200, &tool_call_completion(&[("c2", "sql_query", r#"{"sql":"DELETE FROM item"}"#)])),
        Reply::json(200, &text_completion("Cake.")),
    ])
    .await;
    let url = server.url();
    let args = ["run", "--base-url", &url, "-m", "m", "--db", "shop.db", "--json", "what costs more than 3.9?"];
    let out = run_in(&dir, &args, &[]).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["tool_calls"][0]["output"], "| name |\n| --- |\n| cake |\n\n1 row", "{v}");
    assert_eq!(v["tool_calls"][1]["is_error"], true, "{v}");
    let tools: Vec<String> = server.requests()[0].json()["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(tools, ["calculator", "current_time", "ask_user", "sql_query", "sql_schema"]);
    let count: i64 = rusqlite::Connection::open(dir.join("shop.db"))
        .unwrap()
        .query_row("SELECT count(*) FROM item", [], |r| r.get(0))
        .unwrap();
    assert_eq!(count, 2, "the DELETE was refused");

    let out = run_in(&dir, &["run", "--base-url", &url, "-m", "m", "--tools", "sql_query", "hi"], &[]).await;
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("`sql_query` needs a database: pass --db"), "{}", text(&out.stderr));
    let out = run_in(&dir, &["run", "--base-url", &url, "-m", "m", "--db", "missing.db", "hi"], &[]).await;
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("no SQLite database at missing.db"), "{}", text(&out.stderr));
    std::fs::remove_dir_all(dir).ok();
}

/// `lucid ARGS` in `dir` with `input` on standard input.
async fn run_with_stdin(dir: &std::path::Path, args: &[&str], input: &str) -> Output {
    use std::io::Write;
    let mut cmd = lucid_command();
    cmd.args(args)
        .current_dir(dir)
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", dir)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let input = input.to_string();
    tokio::task::spawn_blocking(move || {
        let mut child = cmd.spawn().expect("run lucid");
        child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
        child.wait_with_output().unwrap()
    })
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn run_input_answers_the_seeds_request_shape_and_names_a_malformed_field() {
    let dir = test_dir("input");
    let server = MockServer::sequence(vec![
        Reply::json(200, &tool_call_completion(&[("c1", "calculator", r#"{"expression":"3*14"}"#)])),
        Reply::json(200, &text_completion("Ana has 42.")),
    ])
    .await;
    let url = server.url();
    let args = ["run", "--base-url", &url, "-m", "m", "--input", "-"];
    let request = r#"{"sessionId": "order-7", "text": "How many points?", "context": {"user": "ana", "points": "3*14"},
                      "requiredTools": ["calculator"]}"#;
    let out = run_with_stdin(&dir, &args, request).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["content"], "Ana has 42.");
    assert_eq!(
        (v["model"].as_str(), v["sessionId"].as_str(), v["requiresToolCalls"].as_bool()),
        (Some("m"), Some("order-7"), Some(true))
    );
    let stamp = v["timestamp"].as_str().unwrap();
    assert!(stamp.len() == 20 && stamp.ends_with('Z') && stamp.as_bytes()[10] == b'T', "{stamp}");
    assert_eq!(v["tool_calls"][0]["output"], "42");
    let first = server.requests()[0].json();
    let tools: Vec<&str> =
        first["tools"].as_array().unwrap().iter().map(|t| t["function"]["name"].as_str().unwrap()).collect();
    assert_eq!(tools, ["calculator"], "requiredTools are the request's tools");
    let user = first["messages"].as_array().unwrap().last().unwrap()["content"].as_str().unwrap().to_string();
    // The context's keys come in either order (serde_json's preserve_order may be on).
    let (context, rest) = user.strip_prefix("<context>\n").and_then(|u| u.split_once("\n</context>\n\n")).unwrap();
    assert_eq!(serde_json::from_str::<Value>(context).unwrap(), serde_json::json!({"user": "ana", "points": "3*14"}));
    assert!(rest.starts_with("How many points?"), "{user}");

    // A request narrows the run's tools; it cannot add one the run was not given.
    let bad = run_with_stdin(&dir, &args, r#"{"text": "x", "requiredTools": ["calculator", "shell"]}"#).await;
    assert_eq!(bad.status.code(), Some(2), "stderr: {}", text(&bad.stderr));
    let e: Value = serde_json::from_slice(&bad.stdout).unwrap();
    assert_eq!(e["error"]["field"], "requiredTools[1]", "{e}");
    assert!(e["error"]["message"].as_str().unwrap().contains("`shell` is not one of this run's tools"), "{e}");
    let bad = run_with_stdin(&dir, &args, r#"{"text": "x", "requiredTools": ["calculator", "teleport"]}"#).await;
    assert_eq!(bad.status.code(), Some(2));
    let e: Value = serde_json::from_slice(&bad.stdout).unwrap();
    assert_eq!(e["error"]["field"], "requiredTools[1]", "{e}");
    assert!(e["error"]["message"].as_str().unwrap().contains("`teleport` is not a tool"), "{e}");
    let bad = run_with_stdin(&dir, &args, "not json").await;
    assert_eq!(bad.status.code(), Some(2));
    assert_eq!(serde_json::from_slice::<Value>(&bad.stdout).unwrap()["error"]["field"], "");
    assert_eq!(server.requests().len(), 2, "no model call for a malformed request");
    std::fs::remove_dir_all(dir).ok();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_session_is_kept_within_the_context_window_given() {
    // The summariser keeps what the user said; the model answers "ok".
    let server = MockServer::start(|req| {
        let body = req.json();
        let messages = body["messages"].as_array().unwrap();
        if messages[0]["content"].as_str().unwrap_or_default().contains("compress conversations") {
            let said = messages[1]["content"].as_str().unwrap_or_default();
            return Reply::json(200, &text_completion(&format!("SUMMARY of {}", &said[..said.len().min(12)])));
        }
        Reply::json(200, &text_completion("ok"))
    })
    .await;
    let dir = test_dir("window");
    let url = server.url();
    let db = dir.join("s.db").display().to_string();
    let first = format!("FIRST {}", "a".repeat(2400));
    let second = format!("SECOND {}", "b".repeat(2400));
    let off = dir.join("off.toml");
    std::fs::write(&off, "[memory]\nenabled = false\n").unwrap();
    let off = off.display().to_string();
    for (session, config) in [("w", None), ("t", Some(off.as_str()))] {
        for prompt in [&first, &second] {
            let mut args = config.map_or(vec![], |c| vec!["--config", c]);
            args.extend([
                "run",
                "--base-url",
                &url,
                "-m",
                "m",
                "--tools",
                "none",
                "--store",
                &db,
                "--session",
                session,
            ]);
            args.extend(["--context-window", "1000", prompt.as_str()]);
            let out = run_in(&dir, &args, &[]).await;
            assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        }
    }
    let sent: Vec<String> = server.requests().iter().map(|r| r.json().to_string()).collect();
    // With the memory (the default): the first turn is summarised out of the window, and
    // the summary is pinned to the second turn's request and kept with the session.
    assert_eq!(sent.len(), 5, "two turns, one summary call, then two turns without memory");
    assert!(sent[1].contains("compress conversations") && sent[1].contains("FIRST"), "{:.300}", sent[1]);
    assert!(sent[2].contains("SECOND") && !sent[2].contains("FIRST a") && sent[2].contains("SUMMARY of user: FIRST"));
    let show = text(&run_in(&dir, &["sessions", "--store", &db, "show", "w"], &[]).await.stdout);
    assert!(show.contains("## Summaries of earlier turns") && show.contains("SUMMARY of user: FIRST"), "{show}");
    assert!(!show.contains("## User\n\nFIRST"), "the summarised turn left the stored window: {show}");
    // Without it, the older turn is trimmed from the request, and the store keeps both.
    assert!(sent[4].contains("SECOND") && !sent[4].contains("FIRST"), "the older turn left the request");
    let show = run_in(&dir, &["sessions", "--store", &db, "show", "t"], &[]).await;
    assert!(text(&show.stdout).contains("FIRST"), "{}", text(&show.stdout));
    std::fs::remove_dir_all(dir).ok();
}

/// Answers `--plan auto`'s classification by whether the request has several parts, and
/// scripts the planner and the direct answer.
fn triaging(req: &lucid_mock::RecordedRequest) -> Reply {
    let body = req.json();
    let said = body["messages"].as_array().unwrap().last().unwrap()["content"].as_str().unwrap_or_default().to_string();
    if body["response_format"]["json_schema"]["name"] == "TriageAnswer" {
        let needs = said.contains(" and then ");
        return Reply::json(200, &text_completion(&json!({"needs_plan": needs}).to_string()));
    }
    if said.starts_with("Make a plan") {
        let plan = json!({"steps": [{"id": "a", "task": "Add 2 and 3", "depends_on": []}]});
        return Reply::json(200, &text_completion(&plan.to_string()));
    }
    if said.starts_with("Every step is done") {
        return Reply::json(200, &text_completion("Planned answer: 5."));
    }
    if said.contains("Your step: ") {
        return Reply::json(200, &text_completion(r#"{"success": true, "result": "5"}"#));
    }
    Reply::json(200, &text_completion("Hello!"))
}

#[tokio::test(flavor = "multi_thread")]
async fn plan_auto_answers_a_simple_request_at_once_and_plans_a_complex_one() {
    let server = MockServer::start(triaging).await;
    let out = run_on(&server, &["--plan=auto", "--json", "--tools", "none", "hi there"]).await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["content"], "Hello!");
    assert_eq!(v["plan"]["mode"], "auto");
    assert_eq!(v["plan"]["planned"], false);
    let triage_in = v["plan"]["usage"]["input_tokens"].as_u64().unwrap();
    assert!(
        triage_in > 0 && v["usage"]["input_tokens"].as_u64().unwrap() > triage_in,
        "the classification counts: {v}"
    );
    assert_eq!(server.requests().len(), 2, "one classification, one answer");

    let server = MockServer::start(triaging).await;
    let out = run_on(&server, &["--plan=auto", "--json", "--tools", "none", "add 2 and 3 and then report"]).await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["answer"], "Planned answer: 5.");
    assert_eq!(v["plan"]["planned"], true);
    assert_eq!(v["steps"][0]["result"], "5");

    // The configuration's `plan = "auto"`, and --no-plan over it.
    let server = MockServer::start(triaging).await;
    let dir = test_dir("plan-auto");
    std::fs::write(dir.join("c.toml"), "plan = \"auto\"\ntools = []\n").unwrap();
    let url = server.url();
    let args = ["run", "--config", "c.toml", "--base-url", &url, "-m", "m", "--no-plan", "add 2 and 3 and then report"];
    let out = run_in(&dir, &args, &[]).await;
    assert_eq!((out.status.code(), text(&out.stdout)), (Some(0), "Hello!\n".to_string()), "{}", text(&out.stderr));
    assert_eq!(server.requests().len(), 1, "no classification with --no-plan");
    let out = run_in(&dir, &["run", "--config", "c.toml", "--base-url", &url, "-m", "m", "a and then b"], &[]).await;
    assert_eq!(text(&out.stdout), "Planned answer: 5.\n", "{}", text(&out.stderr));
    std::fs::remove_dir_all(dir).ok();
}

/// A plan the model cannot make (a small model's output that is not a plan) or a
/// classification it cannot answer does not leave the task unanswered: the run answers it
/// directly.
#[tokio::test(flavor = "multi_thread")]
async fn a_plan_that_fails_falls_back_to_answering_directly() {
    let unplannable = |req: &lucid_mock::RecordedRequest| {
        let body = req.json();
        let said =
            body["messages"].as_array().unwrap().last().unwrap()["content"].as_str().unwrap_or_default().to_string();
        if body["response_format"]["json_schema"]["name"] == "TriageAnswer" {
            return Reply::json(200, &text_completion(r#"{"needs_plan": true}"#));
        }
        if said.starts_with("Make a plan") || said.contains("plan again") || body["response_format"].is_object() {
            return Reply::json(200, &text_completion("Sure! Step one: think."));
        }
        Reply::json(200, &text_completion("Directly: 5."))
    };
    for mode in ["--plan", "--plan=auto"] {
        let server = MockServer::start(unplannable).await;
        let out = run_on(&server, &[mode, "--tools", "none", "add 2 and 3 and then report"]).await;
        assert_eq!(out.status.code(), Some(0), "{mode}: {}", text(&out.stderr));
        assert_eq!(text(&out.stdout), "Directly: 5.\n", "{mode}");
        assert!(text(&out.stderr).contains("planning failed"), "{mode}: {}", text(&out.stderr));
    }
    // The classification itself unanswerable: the task is answered.
    let server = MockServer::start(|req: &lucid_mock::RecordedRequest| {
        let structured = req.json()["response_format"].is_object();
        Reply::json(200, &text_completion(if structured { "no idea" } else { "Directly: 5." }))
    })
    .await;
    let out = run_on(&server, &["--plan=auto", "--tools", "none", "add 2 and 3 and then report"]).await;
    assert_eq!(
        (out.status.code(), text(&out.stdout)),
        (Some(0), "Directly: 5.\n".to_string()),
        "{}",
        text(&out.stderr)
    );
    assert!(text(&out.stderr).contains("could not decide whether to plan"), "{}", text(&out.stderr));
}

/// `lucid run --session` has the layered memory with the provider's embeddings: OpenAI's
/// `/embeddings` (its documented response shape) finds the summary a question is about.
#[tokio::test(flavor = "multi_thread")]
async fn run_session_summarises_and_recalls_with_the_providers_embeddings() {
    fn vector(text: &str) -> Vec<f32> {
        // One dimension per known word: texts about the same thing are near.
        let words = ["cat", "tom", "tabby", "bread", "flour", "chess", "opening", "orbit"];
        let lower = text.to_lowercase();
        words.iter().map(|w| if lower.contains(w) { 1.0 } else { 0.0 }).chain([0.1]).collect()
    }
    let server = MockServer::start(|req| {
        let body = req.json();
        if req.path.ends_with("/embeddings") {
            let data: Vec<Value> = body["input"]
                .as_array()
                .unwrap()
                .iter()
                .enumerate()
                .map(|(i, t)| json!({"object": "embedding", "index": i, "embedding": vector(t.as_str().unwrap())}))
                .collect();
            return Reply::json(
                200,
                &json!({"object": "list", "data": data, "model": body["model"], "usage": {"prompt_tokens": 8, "total_tokens": 8}}),
            );
        }
        let messages = body["messages"].as_array().unwrap();
        if messages[0]["content"].as_str().unwrap_or_default().contains("compress conversations") {
            let said = messages[1]["content"].as_str().unwrap_or_default();
            let user: Vec<&str> = said.lines().filter_map(|l| l.strip_prefix("user: ")).collect();
            return Reply::json(200, &text_completion(&format!("The user said: {}", user.join(" "))));
        }
        let recall = messages.iter().filter_map(|m| m["content"].as_str()).find(|c| c.starts_with("Relevant earlier"));
        Reply::json(200, &text_completion(recall.unwrap_or("ok")))
    })
    .await;
    let dir = test_dir("memory-embeddings");
    let config = dir.join("config.toml");
    std::fs::write(&config, "[memory]\nshort_term_capacity = 4\nrecall_top_k = 1\n").unwrap();
    let (url, db, config) = (server.url(), dir.join("m.db").display().to_string(), config.display().to_string());
    let turns = [
        "My cat is called Tom, a grey tabby.",
        "Bread needs flour and water.",
        "A chess opening controls the centre.",
        "A geostationary orbit is high.",
        "What is my cat called?",
    ];
    let mut last = String::new();
    for said in turns {
        let args = [
            "--config",
            &config,
            "run",
            "--provider",
            "openai",
            "--api",
            "chat",
            "--base-url",
            &url,
            "-m",
            "gpt-4o-mini",
        ];
        let mut args = args.to_vec();
        args.extend(["--tools", "none", "--store", &db, "--session", "m", said]);
        let out = run_in(&dir, &args, &[("OPENAI_API_KEY", "sk-test")]).await;
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        last = text(&out.stdout);
    }
    let embeddings: Vec<Value> =
        server.requests().iter().filter(|r| r.path.ends_with("/embeddings")).map(|r| r.json()).collect();
    assert!(!embeddings.is_empty(), "the provider's endpoint was used");
    assert!(embeddings.iter().all(|b| b["model"] == "text-embedding-3-small"), "{embeddings:?}");
    assert!(last.contains("The user said: My cat is called Tom"), "the cat's summary is recalled: {last}");
    assert!(!last.contains("flour"), "only the most relevant one (recall_top_k = 1): {last}");
    std::fs::remove_dir_all(dir).ok();
}
