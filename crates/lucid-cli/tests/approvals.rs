//! Approvals through the `lucid` binary. `lucid run --input` of a stored session: a
//! `write_file` call (permission `ask`) ends the run with `stop_reason: "needs_approval"`,
//! the pending calls and exit code 5; the next request carrying `approvals` (allow, deny
//! with a message the model reads, edited arguments, checked against the schema, remember)
//! continues it. `lucid serve` on PostgreSQL: a run waiting for approval on an instance
//! killed with SIGKILL is answered and finished on a second instance; another tenant gets
//! 404; a third instance with `--approval-timeout 0` denies what nobody answered.

mod common;

use std::path::Path;

use common::{run_in, test_dir, text};
use lucid_mock::MockServer;
use serde_json::{Value, json};

fn write_config(dir: &Path, mock: &MockServer) {
    let config = format!(
        "base_url = \"{}/v1\"\nmodel = \"mock-model\"\ntools = [\"write_file\"]\n[permissions]\nwrite_file = \"ask\"\n",
        mock.url()
    );
    std::fs::write(dir.join("config.toml"), config).unwrap();
}

/// `lucid run --input REQUEST` in `dir` on its configuration and store: exit code and the
/// JSON it printed.
async fn request(dir: &Path, body: Value) -> (Option<i32>, Value, String) {
    std::fs::write(dir.join("request.json"), body.to_string()).unwrap();
    let args = ["--config", "config.toml", "run", "--store", "sessions.db", "--input", "request.json"];
    let out = run_in(dir, &args, &[]).await;
    let v = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (out.status.code(), v, text(&out.stderr))
}

fn write(id: &str, path: &str, content: &str) -> Value {
    json!([id, "write_file", {"path": path, "content": content}])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_stops_for_approval_and_a_request_with_approvals_continues_it() {
    let mock = MockServer::start(lucid_mock::calls_as_told).await;
    let dir = test_dir("approvals-run");
    write_config(&dir, &mock);
    let calls = json!([write("c1", "a.txt", "A"), write("c2", "b.txt", "B"), write("c3", "c.txt", "C")]);
    let (code, v, err) = request(&dir, json!({"sessionId": "w", "text": calls.to_string()})).await;
    assert_eq!(code, Some(5), "{v} {err}");
    assert_eq!(v["stop_reason"], "needs_approval", "{v}");
    let pending = v["pending_approvals"].as_array().unwrap();
    assert_eq!(pending.len(), 3, "{v}");
    assert_eq!((pending[2]["call_id"].as_str(), pending[2]["tool"].as_str()), (Some("c3"), Some("write_file")));
    assert_eq!(pending[2]["arguments"], json!({"path": "c.txt", "content": "C"}));
    assert!(err.contains("wait for approval"), "{err}");
    assert!(!dir.join("a.txt").exists(), "nothing ran yet");

    // Refused answers name their field; nothing is recorded or run.
    for (answer, field) in [
        (
            json!({"call_id": "c3", "decision": "allow", "arguments": {"path": 5, "content": "x"}}),
            "approvals[0].arguments",
        ),
        (json!({"call_id": "c9", "decision": "allow"}), "approvals[0].call_id"),
        (json!({"call_id": "c1", "decision": "perhaps"}), "approvals[0].decision"),
    ] {
        let (code, v, _) = request(&dir, json!({"sessionId": "w", "approvals": [answer]})).await;
        assert_eq!((code, v["error"]["field"].as_str()), (Some(2), Some(field)), "{v}");
    }
    assert!(!dir.join("a.txt").exists());

    let approvals = json!([
        {"call_id": "c1", "decision": "allow", "remember": true},
        {"call_id": "c2", "decision": "deny", "message": "Leave b.txt alone."},
        {"call_id": "c3", "decision": "allow", "arguments": {"path": "edited.txt", "content": "edited"}},
    ]);
    let (code, v, err) = request(&dir, json!({"sessionId": "w", "approvals": approvals})).await;
    assert_eq!(code, Some(0), "{v} {err}");
    assert_eq!(v["stop_reason"], "completed", "{v}");
    let content = v["content"].as_str().unwrap();
    assert!(content.contains(" | Leave b.txt alone. | "), "the model read the denial: {content}");
    assert_eq!(std::fs::read_to_string(dir.join("a.txt")).unwrap(), "A");
    assert_eq!(std::fs::read_to_string(dir.join("edited.txt")).unwrap(), "edited", "the edited arguments ran");
    assert!(!dir.join("b.txt").exists() && !dir.join("c.txt").exists());

    // Remembered: `write_file` runs without asking for the rest of the session.
    let (code, v, err) =
        request(&dir, json!({"sessionId": "w", "text": json!([write("c4", "d.txt", "D")]).to_string()})).await;
    assert_eq!((code, v["stop_reason"].as_str()), (Some(0), Some("completed")), "{v} {err}");
    assert_eq!(std::fs::read_to_string(dir.join("d.txt")).unwrap(), "D");

    // Without a session nothing could continue the run: `ask` refuses, as it did.
    let args = ["--config", "config.toml", "run", "--json", &json!([write("c5", "e.txt", "E")]).to_string()];
    let out = run_in(&dir, &args, &[]).await;
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((out.status.code(), v["tool_calls"][0]["is_error"].as_bool()), (Some(0), Some(true)), "{v}");
    assert!(!dir.join("e.txt").exists());
    std::fs::remove_dir_all(&dir).ok();
}

#[cfg(feature = "postgres")]
mod serve {
    use std::process::Child;
    use std::time::Duration;

    use super::*;

    const KEYS: &str = "acme:acme-key-0123456789,globex:globex-key-0123456789";
    const ACME: &str = "acme-key-0123456789";

    fn serve(dir: &Path, store: &str, extra: &[&str]) -> (Child, String) {
        let mut cmd = common::lucid_command();
        cmd.args(["serve", "--listen", "127.0.0.1:0", "--lease", "2", "--store", store, "--config", "config.toml"])
            .args(extra)
            .current_dir(dir)
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", dir)
            .env("LUCID_SERVE_API_KEYS", KEYS);
        let (child, url, _) = common::until_listening(&mut cmd);
        (child, url)
    }

    /// Kills what a failed assertion leaves running.
    struct KillOnDrop(Vec<u32>);

    impl Drop for KillOnDrop {
        fn drop(&mut self) {
            for pid in &self.0 {
                // SAFETY: kill(2) on the pid of a child this test started (already gone: ESRCH).
                unsafe {
                    libc::kill(*pid as i32, libc::SIGKILL);
                }
            }
        }
    }

    async fn call(
        http: &reqwest::Client,
        method: reqwest::Method,
        url: String,
        key: &str,
        body: Option<Value>,
    ) -> (u16, Value) {
        let mut r = http.request(method, url).bearer_auth(key);
        if let Some(b) = body {
            r = r.json(&b);
        }
        let resp = r.send().await.unwrap();
        (resp.status().as_u16(), resp.json().await.unwrap_or(Value::Null))
    }

    async fn post(http: &reqwest::Client, url: String, body: Value) -> (u16, Value) {
        call(http, reqwest::Method::POST, url, ACME, Some(body)).await
    }

    async fn get(http: &reqwest::Client, url: String) -> (u16, Value) {
        call(http, reqwest::Method::GET, url, ACME, None).await
    }

    /// A session of `default` on the server at `url`, and a run on it of these calls.
    async fn waiting_run(http: &reqwest::Client, url: &str, calls: Value) -> (String, Value) {
        let (_, session) = post(http, format!("{url}/v1/sessions"), json!({"agent": "default"})).await;
        let session = session["id"].as_str().unwrap().to_string();
        let (status, run) =
            post(http, format!("{url}/v1/sessions/{session}/runs"), json!({"input": calls.to_string()})).await;
        assert_eq!((status, run["status"].as_str()), (200, Some("needs_approval")), "{run}");
        (run["id"].as_str().unwrap().to_string(), run)
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_approval_waiting_on_a_killed_instance_is_answered_on_another() {
        let Some(admin) = common::real_part("LUCID_TEST_POSTGRES_URL", ".ci/run starts PostgreSQL") else { return };
        let database = lucid_mock::PgDatabase::create(&admin, "lucid_serve_approvals").await;
        let store = database.url.clone();
        let mock = MockServer::start(lucid_mock::calls_as_told).await;
        let dir = test_dir("approvals-serve");
        write_config(&dir, &mock);
        let http = lucid::model::http::reqwest_client_builder().build().unwrap();

        let (mut first, url_a) = tokio::task::block_in_place(|| serve(&dir, &store, &[]));
        let mut guard = KillOnDrop(vec![first.id()]);
        let (run, shown) =
            waiting_run(&http, &url_a, json!([write("c1", "a.txt", "A"), write("c2", "b.txt", "B")])).await;
        assert_eq!(shown["pending_approvals"][1]["arguments"], json!({"path": "b.txt", "content": "B"}), "{shown}");
        first.kill().unwrap(); // SIGKILL
        first.wait().unwrap();

        let (second, url_b) = tokio::task::block_in_place(|| serve(&dir, &store, &[]));
        guard.0.push(second.id());
        let (status, shown) = get(&http, format!("{url_b}/v1/runs/{run}")).await;
        assert_eq!((status, shown["status"].as_str()), (200, Some("needs_approval")), "{shown}");
        assert_eq!(shown["pending_approvals"].as_array().map(Vec::len), Some(2), "{shown}");
        let (status, _) =
            call(&http, reqwest::Method::GET, format!("{url_b}/v1/runs/{run}"), "globex-key-0123456789", None).await;
        assert_eq!(status, 404, "another tenant sees nothing");
        let (status, _) = call(
            &http,
            reqwest::Method::POST,
            format!("{url_b}/v1/runs/{run}/approvals"),
            "globex-key-0123456789",
            Some(json!({"call_id": "c1", "decision": "allow"})),
        )
        .await;
        assert_eq!(status, 404, "nor answers anything");
        let approvals = format!("{url_b}/v1/runs/{run}/approvals");
        let (status, body) =
            post(&http, approvals.clone(), json!({"call_id": "c2", "decision": "allow", "arguments": {"path": 1}}))
                .await;
        assert_eq!(status, 400, "{body}");
        assert!(body["error"]["message"].as_str().unwrap().starts_with("`arguments`"), "{body}");
        let (_, after) =
            post(&http, approvals.clone(), json!({"call_id": "c1", "decision": "deny", "message": "Not a.txt."})).await;
        assert_eq!(after["status"], "needs_approval", "{after}");
        let (status, done) = post(
            &http,
            approvals,
            json!({"call_id": "c2", "decision": "allow", "arguments": {"path": "b2.txt", "content": "B2"}}),
        )
        .await;
        assert_eq!((status, done["status"].as_str()), (200, Some("completed")), "{done}");
        assert!(done["result"]["content"].as_str().unwrap().starts_with("results: Not a.txt. | "), "{done}");
        assert_eq!(std::fs::read_to_string(dir.join("b2.txt")).unwrap(), "B2");
        assert!(!dir.join("a.txt").exists() && !dir.join("b.txt").exists());
        let events = http.get(format!("{url_b}/v1/runs/{run}/events")).bearer_auth(ACME).send().await.unwrap();
        let events = events.text().await.unwrap();
        assert_eq!(events.matches("event: approval_requested").count(), 2, "{events}");
        assert!(events.contains("event: needs_approval") && events.contains("event: completed"), "{events}");

        // Nobody answers within `--approval-timeout`: the call is denied and the run goes on.
        let (third, url_c) = tokio::task::block_in_place(|| serve(&dir, &store, &["--approval-timeout", "0"]));
        guard.0.push(third.id());
        let (run, _) = waiting_run(&http, &url_c, json!([write("c1", "late.txt", "L")])).await;
        let mut shown = Value::Null;
        for _ in 0..200 {
            shown = get(&http, format!("{url_c}/v1/runs/{run}")).await.1;
            if shown["status"] == "completed" {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert_eq!(shown["status"], "completed", "{shown}");
        let expired = format!("results: {}", lucid::approval::expired_denial("write_file"));
        assert_eq!(shown["result"]["content"].as_str(), Some(expired.as_str()), "{shown}");
        assert!(!dir.join("late.txt").exists());

        for mut child in [second, third] {
            child.kill().unwrap();
            child.wait().unwrap();
        }
        guard.0.clear();
        database.drop_now().await;
        std::fs::remove_dir_all(&dir).ok();
    }
}
