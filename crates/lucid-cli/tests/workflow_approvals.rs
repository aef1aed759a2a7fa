//! Approvals through `lucid workflow run --json --session`: an agent step whose model calls
//! `write_file` (permission `ask`) stops the workflow with `stop_reason:
//! "needs_approval"`, the waiting calls (with their step) and exit code 5, the state kept
//! in the SQLite store; `--resume FILE` with `approvals` (allow, deny with a message the
//! model reads, edited arguments checked against the schema) continues from that step,
//! the finished steps' outputs kept as they were. And expiry outside the server: with
//! `--approval-timeout 0`, answers that come late deny the calls, in a workflow and in
//! `lucid run --session`.

mod common;

use std::path::Path;

use common::{run_in, test_dir, text};
use lucid_mock::MockServer;
use serde_json::{Value, json};

fn write(id: &str, path: &str, content: &str) -> Value {
    json!([id, "write_file", {"path": path, "content": content}])
}

/// `seed` reads seed.txt, `act` is the agent step (its prompt the calls), `after` reads
/// the file the first call writes.
fn setup(dir: &Path, mock: &MockServer) {
    let config = format!(
        "base_url = \"{}/v1\"\nmodel = \"mock-model\"\ntools = [\"write_file\"]\n[permissions]\nwrite_file = \"ask\"\n",
        mock.url()
    );
    std::fs::write(dir.join("config.toml"), config).unwrap();
    let flow = r#"
name: approve
inputs:
  calls: {}
agents:
  writer:
    tools: [write_file]
steps:
  - name: seed
    tool: read_file
    args: { path: seed.txt }
  - name: act
    agent: writer
    prompt: "{{ input.calls }}"
  - name: after
    tool: read_file
    args: { path: a.txt }
"#;
    std::fs::write(dir.join("flow.yaml"), flow).unwrap();
    std::fs::write(dir.join("seed.txt"), "one").unwrap();
}

/// `lucid workflow run flow.yaml --json --session NAME` with `extra`: exit code, the JSON
/// it printed, its standard error.
async fn workflow(dir: &Path, session: &str, extra: &[&str]) -> (Option<i32>, Value, String) {
    let mut args = vec!["--config", "config.toml", "workflow", "run", "flow.yaml", "--store", "sessions.db"];
    args.extend(["--json", "--session", session]);
    args.extend(extra);
    let out = run_in(dir, &args, &[]).await;
    let v = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (out.status.code(), v, text(&out.stderr))
}

async fn resume(dir: &Path, session: &str, approvals: Value, extra: &[&str]) -> (Option<i32>, Value, String) {
    std::fs::write(dir.join("answers.json"), json!({ "approvals": approvals }).to_string()).unwrap();
    let mut args = vec!["--resume", "answers.json"];
    args.extend(extra);
    workflow(dir, session, &args).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_workflow_step_stops_for_approval_and_resume_continues_from_it() {
    let mock = MockServer::start(lucid_mock::calls_as_told).await;
    let dir = test_dir("workflow-approvals");
    setup(&dir, &mock);
    let calls = json!([write("c1", "a.txt", "A"), write("c2", "b.txt", "B"), write("c3", "c.txt", "C")]);
    let input = format!("calls={calls}");
    let (code, v, err) = workflow(&dir, "wf", &["--input", &input]).await;
    assert_eq!(code, Some(5), "{v} {err}");
    assert_eq!(v["stop_reason"], "needs_approval", "{v}");
    let pending = v["pending_approvals"].as_array().unwrap();
    assert_eq!(pending.len(), 3, "{v}");
    assert_eq!((pending[2]["call_id"].as_str(), pending[2]["step"].as_str()), (Some("c3"), Some("act")));
    assert_eq!(pending[2]["arguments"], json!({"path": "c.txt", "content": "C"}));
    assert!(v["outputs"]["seed"].to_string().contains("one"), "the finished step's output: {v}");
    assert!(v["outputs"].get("after").is_none(), "{v}");
    assert!(err.contains("wait for approval") && err.contains("--resume"), "{err}");
    assert!(!dir.join("a.txt").exists(), "nothing ran yet");

    // The first step must not run again: what it would read now differs.
    std::fs::write(dir.join("seed.txt"), "two").unwrap();

    // A new run of the session while the workflow waits is refused, as are answers the
    // session would not record; nothing changes.
    let (code, v, _) = workflow(&dir, "wf", &["--input", &input]).await;
    assert_eq!(code, Some(2), "{v}");
    assert!(v["error"]["message"].as_str().unwrap().contains("waiting for approval"), "{v}");
    for (answer, field) in [
        (
            json!({"call_id": "c3", "decision": "allow", "arguments": {"path": 5, "content": "x"}}),
            "approvals[0].arguments",
        ),
        (json!({"call_id": "c9", "decision": "allow"}), "approvals[0].call_id"),
        (json!({"call_id": "c1", "decision": "perhaps"}), "approvals[0].decision"),
    ] {
        let (code, v, _) = resume(&dir, "wf", json!([answer]), &[]).await;
        assert_eq!((code, v["error"]["field"].as_str()), (Some(2), Some(field)), "{v}");
    }
    assert!(!dir.join("a.txt").exists());

    let approvals = json!([
        {"call_id": "c1", "decision": "allow"},
        {"call_id": "c2", "decision": "deny", "message": "Leave b.txt alone."},
        {"call_id": "c3", "decision": "allow", "arguments": {"path": "edited.txt", "content": "edited"}},
    ]);
    let (code, v, err) = resume(&dir, "wf", approvals, &[]).await;
    assert_eq!(code, Some(0), "{v} {err}");
    assert_eq!(v["stop_reason"], "completed", "{v}");
    let act = v["outputs"]["act"].as_str().unwrap();
    assert!(act.contains(" | Leave b.txt alone. | "), "the model read the denial: {act}");
    assert!(v["outputs"]["seed"].to_string().contains("one"), "the first step kept its output: {v}");
    assert!(v["outputs"]["after"].to_string().contains('A'), "the step after ran: {v}");
    assert_eq!(std::fs::read_to_string(dir.join("a.txt")).unwrap(), "A");
    assert_eq!(std::fs::read_to_string(dir.join("edited.txt")).unwrap(), "edited", "the edited arguments ran");
    assert!(!dir.join("b.txt").exists() && !dir.join("c.txt").exists());

    // Nothing waits any more.
    let (code, v, _) = resume(&dir, "wf", json!([{"call_id": "c1", "decision": "allow"}]), &[]).await;
    assert_eq!(code, Some(2), "{v}");
    assert!(v["error"]["message"].as_str().unwrap().contains("no workflow waits"), "{v}");

    // Without a session nothing could continue the workflow: `ask` refuses, as it did.
    let out =
        run_in(&dir, &["--config", "config.toml", "workflow", "run", "flow.yaml", "--json", "--input", &input], &[])
            .await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["outputs"]["act"].as_str().unwrap().contains("needs the user's approval"), "{v}");
    std::fs::remove_dir_all(&dir).ok();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_after_the_approval_timeout_deny_the_waiting_calls() {
    let mock = MockServer::start(lucid_mock::calls_as_told).await;
    let dir = test_dir("approvals-expire");
    setup(&dir, &mock);

    // A workflow: the late allow is dropped, the call denied, the workflow goes on.
    let input = format!("calls={}", json!([write("c1", "late.txt", "L")]));
    let (code, v, err) = workflow(&dir, "wf-late", &["--input", &input]).await;
    assert_eq!(code, Some(5), "{v} {err}");
    let (code, v, err) =
        resume(&dir, "wf-late", json!([{"call_id": "c1", "decision": "allow"}]), &["--approval-timeout", "0"]).await;
    assert_eq!(code, Some(1), "the step after reads a file nobody wrote: {v} {err}");
    assert!(err.contains("longer than 0 s") && err.contains("c1"), "{err}");
    assert!(err.contains("after"), "{err}");
    assert!(!dir.join("late.txt").exists());
    let (code, v, _) = resume(&dir, "wf-late", json!([{"call_id": "c1", "decision": "allow"}]), &[]).await;
    assert_eq!(code, Some(2), "the failed workflow waits no more: {v}");

    // In time: the answer holds.
    let (code, _, _) =
        workflow(&dir, "wf-soon", &["--input", &format!("calls={}", json!([write("c1", "a.txt", "A")]))]).await;
    assert_eq!(code, Some(5));
    let (code, v, err) =
        resume(&dir, "wf-soon", json!([{"call_id": "c1", "decision": "allow"}]), &["--approval-timeout", "3600"]).await;
    assert_eq!((code, v["stop_reason"].as_str()), (Some(0), Some("completed")), "{v} {err}");
    assert!(v.get("expired_approvals").is_none(), "{v}");

    // `lucid run --session`: the same through a request.
    let request = |body: Value| {
        std::fs::write(dir.join("request.json"), body.to_string()).unwrap();
    };
    let run = ["--config", "config.toml", "run", "--store", "sessions.db", "--input", "request.json"];
    request(json!({"sessionId": "r", "text": json!([write("r1", "run-late.txt", "R")]).to_string()}));
    let out = run_in(&dir, &run, &[]).await;
    assert_eq!(out.status.code(), Some(5), "{}", text(&out.stderr));
    request(json!({"sessionId": "r", "approvals": [{"call_id": "r1", "decision": "allow"}]}));
    let mut late = run.to_vec();
    late.extend(["--approval-timeout", "0"]);
    let out = run_in(&dir, &late, &[]).await;
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    assert_eq!((out.status.code(), v["stop_reason"].as_str()), (Some(0), Some("completed")), "{v}");
    assert_eq!(v["expired_approvals"], json!(["r1"]), "{v}");
    let expired = format!("results: {}", lucid::approval::expired_denial("write_file"));
    assert_eq!(v["content"].as_str(), Some(expired.as_str()), "{v}");
    assert!(!dir.join("run-late.txt").exists());
    std::fs::remove_dir_all(&dir).ok();
}
