//! `lucid workflow run` and `lucid run --plan`.

use super::*;

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
