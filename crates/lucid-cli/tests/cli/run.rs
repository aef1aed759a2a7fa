//! `lucid run`'s flags, output, exit codes and provider errors.

use super::*;

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
            let store = lucid_sqlite::SqliteStore::open(dir.join("s.db")).unwrap();
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
