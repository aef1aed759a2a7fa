//! `lucid serve` as a process: agents from the configuration file, the loopback rule, a
//! run through the API, SIGTERM, and the official Python `openai` SDK as a client of the
//! OpenAI-compatible facade.

mod common;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use common::{real_part, test_dir, text};
use lucid_mock::{MockServer, RecordedRequest, Reply, text_completion, text_stream};
use serde_json::{Value, json};

/// Answers every model call with "Hello from the mock.", streamed when asked.
fn hello(req: &RecordedRequest) -> Reply {
    if req.json()["stream"] == true {
        Reply::sse(&text_stream(&["Hello ", "from the mock."]))
    } else {
        Reply::json(200, &text_completion("Hello from the mock."))
    }
}

/// A configuration with the `default` agent and `support`, both on the mock.
fn write_config(dir: &Path, mock: &MockServer) -> std::path::PathBuf {
    let path = dir.join("config.toml");
    let text = format!(
        "base_url = \"{}/v1\"\nmodel = \"mock-model\"\ncontext_window = 8192\ntools = []\n\
         [agents.support]\nsystem = \"You answer support tickets.\"\n",
        mock.url()
    );
    std::fs::write(&path, text).unwrap();
    path
}

/// `lucid serve` started in `dir` on a free loopback port; returns the process and its URL
/// once it listens.
fn serve(dir: &Path, config: &Path, keys: Option<&str>) -> (Child, String) {
    let mut cmd = common::lucid_command();
    cmd.args(["serve", "--listen", "127.0.0.1:0", "--store"])
        .arg(dir.join("serve.db"))
        .arg("--config")
        .arg(config)
        .current_dir(dir)
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", dir)
        .stderr(Stdio::piped());
    if let Some(k) = keys {
        cmd.env("LUCID_SERVE_API_KEYS", k);
    }
    let mut child = cmd.spawn().expect("start lucid serve");
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let mut seen = String::new();
    let url = loop {
        let line = lines.next().unwrap_or_else(|| panic!("lucid serve ended early:\n{seen}")).unwrap();
        seen.push_str(&line);
        seen.push('\n');
        if let Some(rest) = line.split("listening on ").nth(1) {
            break rest.split_whitespace().next().unwrap().to_string();
        }
    };
    // Keep reading so the server never blocks on a full pipe.
    std::thread::spawn(move || lines.for_each(drop));
    (child, url)
}

fn stop(mut child: Child) -> std::process::ExitStatus {
    // SAFETY: kill(2) on the pid of a child this test started.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGTERM);
    }
    for _ in 0..200 {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    let _ = child.kill();
    panic!("lucid serve did not stop on SIGTERM");
}

#[tokio::test]
async fn without_keys_only_loopback_is_served() {
    let dir = test_dir("serve-bind");
    let out = common::run_in(&dir, &["serve", "--listen", "0.0.0.0:0", "--store", "s.db"], &[]).await;
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("binds loopback addresses only"), "{}", text(&out.stderr));
    let out = common::run_in(&dir, &["serve", "--store", "s.db"], &[("LUCID_SERVE_API_KEYS", "acme")]).await;
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("entry 1 is not `name:key`"), "{}", text(&out.stderr));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_configured_agents_answer_over_http_and_sigterm_stops_the_server() {
    let mock = MockServer::start(hello).await;
    let dir = test_dir("serve-agents");
    let config = write_config(&dir, &mock);
    let (child, url) = tokio::task::block_in_place(|| serve(&dir, &config, Some("acme:acme-key-0123456789")));
    let http = lucid::model::http::client_builder().build().unwrap();
    let models: Value = json_of(http.get(format!("{url}/v1/models")).bearer_auth("acme-key-0123456789")).await;
    let ids: Vec<&str> = models["data"].as_array().unwrap().iter().map(|m| m["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["default", "support"]);
    let session: Value = json_of(
        http.post(format!("{url}/v1/sessions")).bearer_auth("acme-key-0123456789").json(&json!({"agent": "support"})),
    )
    .await;
    let id = session["id"].as_str().unwrap();
    let run: Value = json_of(
        http.post(format!("{url}/v1/sessions/{id}/runs"))
            .bearer_auth("acme-key-0123456789")
            .json(&json!({"input": "My order is late"})),
    )
    .await;
    assert_eq!(
        (run["status"].as_str(), run["result"]["content"].as_str()),
        (Some("completed"), Some("Hello from the mock."))
    );
    let sent = mock.requests().last().unwrap().json();
    assert_eq!(sent["messages"][0]["content"], "You answer support tickets.", "the agent's own system prompt");
    assert_eq!(sent["model"], "mock-model", "the rest from the top level");
    let status = tokio::task::block_in_place(|| stop(child));
    assert!(status.success(), "{status:?}");
}

/// The Python used by the test of the official SDK.
const SDK_SCRIPT: &str = r#"
import json, sys
import openai
base, key = sys.argv[1], sys.argv[2]
client = openai.OpenAI(base_url=base + "/v1", api_key=key, max_retries=0, timeout=30)
ask = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Say hello"}]
out = {"version": openai.__version__, "models": [m.id for m in client.models.list()]}
reply = client.chat.completions.create(model="default", messages=ask)
out["content"] = reply.choices[0].message.content
out["finish"] = reply.choices[0].finish_reason
out["usage"] = reply.usage.total_tokens
parts, usage, finish = [], None, None
for chunk in client.chat.completions.create(model="default", messages=ask, stream=True,
                                            stream_options={"include_usage": True}):
    assert chunk.object == "chat.completion.chunk"
    if chunk.choices:
        parts.append(chunk.choices[0].delta.content or "")
        finish = chunk.choices[0].finish_reason or finish
    if chunk.usage:
        usage = chunk.usage.total_tokens
out["streamed"], out["stream_finish"], out["stream_usage"] = "".join(parts), finish, usage
try:
    client.chat.completions.create(model="nobody", messages=ask)
except openai.NotFoundError as e:
    out["unknown_model"] = [e.status_code, e.body.get("code") if isinstance(e.body, dict) else None]
try:
    openai.OpenAI(base_url=base + "/v1", api_key="wrong-key-0123456789", max_retries=0).models.list()
except openai.AuthenticationError as e:
    out["wrong_key"] = e.status_code
print(json.dumps(out))
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_official_openai_python_sdk_talks_to_the_facade() {
    let Some(python) = real_part("LUCID_TEST_OPENAI_PYTHON", ".ci/run installs PyPI's openai in a venv and sets it")
    else {
        return;
    };
    let mock = MockServer::start(hello).await;
    let dir = test_dir("serve-sdk");
    let config = write_config(&dir, &mock);
    let (child, url) = tokio::task::block_in_place(|| serve(&dir, &config, Some("acme:acme-key-0123456789")));
    let out = tokio::task::spawn_blocking(move || {
        Command::new(python).args(["-c", SDK_SCRIPT, &url, "acme-key-0123456789"]).output().unwrap()
    })
    .await
    .unwrap();
    let status = tokio::task::block_in_place(|| stop(child));
    assert!(out.status.success(), "the SDK script failed:\n{}", text(&out.stderr));
    let got: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(got["models"], json!(["default", "support"]), "{got}");
    assert_eq!((got["content"].as_str(), got["finish"].as_str()), (Some("Hello from the mock."), Some("stop")));
    assert_eq!(got["usage"], 25, "the mock's usage, passed on");
    assert_eq!((got["streamed"].as_str(), got["stream_finish"].as_str()), (Some("Hello from the mock."), Some("stop")));
    assert_eq!(got["stream_usage"], 25);
    assert_eq!(got["unknown_model"], json!([404, "model_not_found"]));
    assert_eq!(got["wrong_key"], 401);
    assert!(status.success());
}

/// The JSON a request is answered with.
async fn json_of(request: reqwest::RequestBuilder) -> Value {
    request.send().await.unwrap().json().await.unwrap()
}
