//! `lucid serve` as a process: agents from the configuration file, the loopback rule, a
//! run through the API, SIGTERM, and the official Python `openai` SDK as a client of the
//! OpenAI-compatible facade.

mod common;

use std::path::Path;
use std::process::{Child, Command};
use std::time::Duration;

use common::{real_part, test_dir, text};
use lucid_mock::{
    MockServer, RecordedRequest, Reply, text_completion, text_stream, tool_call_completion, tool_call_stream,
};
use serde_json::{Value, json};

/// Answers every model call with "Hello from the mock.", streamed when asked.
fn hello(req: &RecordedRequest) -> Reply {
    let body = req.json();
    // Offered the client's `weather` tool: calls it, and reads its result back.
    let offered = body["tools"].as_array().is_some_and(|t| t.iter().any(|t| t["function"]["name"] == "weather"));
    let last = body["messages"].as_array().and_then(|m| m.last()).cloned().unwrap_or_default();
    if offered && last["role"] == "tool" {
        return Reply::json(200, &text_completion(&format!("The weather: {}", last["content"].as_str().unwrap_or(""))));
    }
    if offered {
        let calls = [("call_w", "weather", r#"{"city":"Paris"}"#)];
        return if body["stream"] == true {
            Reply::sse(&tool_call_stream(&calls))
        } else {
            Reply::json(200, &tool_call_completion(&calls))
        };
    }
    if body["stream"] == true {
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

/// `lucid serve` started in `dir` on a free loopback port, its store `serve.db` there;
/// returns the process and its URL once it listens.
fn serve(dir: &Path, config: &Path, keys: Option<&str>) -> (Child, String) {
    let store = dir.join("serve.db").display().to_string();
    serve_with(dir, config, &["--store", &store], keys)
}

/// `lucid serve` started in `dir` on a free loopback port with these further arguments.
fn serve_with(dir: &Path, config: &Path, args: &[&str], keys: Option<&str>) -> (Child, String) {
    let mut cmd = common::lucid_command();
    cmd.args(["serve", "--listen", "127.0.0.1:0"])
        .args(args)
        .arg("--config")
        .arg(config)
        .current_dir(dir)
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", dir);
    if let Some(k) = keys {
        cmd.env("LUCID_SERVE_API_KEYS", k);
    }
    let (child, url, _) = common::until_listening(&mut cmd);
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
    let http = lucid::model::http::reqwest_client_builder().build().unwrap();
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_created_with_the_cli_are_the_only_way_in() {
    let mock = MockServer::start(hello).await;
    let dir = test_dir("serve-keys");
    let config = write_config(&dir, &mock);
    let store = dir.join("serve.db").display().to_string();
    let out = common::run_in(&dir, &["serve", "keys", "create", "acme", "--store", &store], &[]).await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let key = text(&out.stdout).trim().to_string();
    assert!(key.starts_with("lk_") && text(&out.stderr).contains("shown only now"), "{key} {}", text(&out.stderr));
    let out = common::run_in(&dir, &["serve", "keys", "list", "--store", &store], &[]).await;
    let listed = text(&out.stdout);
    assert!(listed.contains("\tacme\t") && !listed.contains(&key), "{listed}");
    let out = common::run_in(&dir, &["serve", "keys", "revoke", "key_nothing", "--store", &store], &[]).await;
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));

    let (child, url) = tokio::task::block_in_place(|| serve(&dir, &config, None));
    let http = lucid::model::http::reqwest_client_builder().build().unwrap();
    let anonymous = http.get(format!("{url}/v1/models")).send().await.unwrap();
    assert_eq!(anonymous.status().as_u16(), 401, "a stored key makes every request need one");
    let models: Value = json_of(http.get(format!("{url}/v1/models")).bearer_auth(&key)).await;
    assert_eq!(models["data"][0]["id"], "default");
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
chunks = list(client.chat.completions.create(model="default", messages=ask, stream=True,
                                             stream_options={"include_usage": True}))
out["usage_chunk"] = [chunks[-1].choices, chunks[-1].usage.total_tokens, [c.usage for c in chunks[:-1]]]
reply = client.chat.completions.create(
    model="support", messages=ask, temperature=0.2, top_p=0.9, max_completion_tokens=64, stop=["END"], seed=3,
    response_format={"type": "json_schema", "json_schema": {"name": "greeting", "schema": {"type": "object"}}},
    user="u-1", metadata={"k": "v"}, n=1, logprobs=False, store=False)
out["options_finish"] = reply.choices[0].finish_reason
weather = {"type": "function", "function": {"name": "weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}
reply = client.chat.completions.create(model="default", messages=ask, tools=[weather])
call = reply.choices[0].message.tool_calls[0]
out["tool_call"] = [reply.choices[0].finish_reason, call.id, call.function.name, json.loads(call.function.arguments)]
calls = {}
for chunk in client.chat.completions.create(model="default", messages=ask, tools=[weather], stream=True):
    for c in (chunk.choices[0].delta.tool_calls or []) if chunk.choices else []:
        calls.setdefault(c.index, [c.id, ""])
        calls[c.index][1] += c.function.arguments or ""
    if chunk.choices and chunk.choices[0].finish_reason:
        out["stream_tool_finish"] = chunk.choices[0].finish_reason
out["stream_tool_calls"] = list(calls.values())
history = ask + [reply.choices[0].message.model_dump(exclude_none=True),
                 {"role": "tool", "tool_call_id": call.id, "content": "sunny"}]
out["after_tool"] = client.chat.completions.create(model="default", messages=history, tools=[weather]).choices[0].message.content
for name, extra in [("n", {"n": 2}), ("tools", {"tools": [{"type": "web_search"}]})]:
    try:
        client.chat.completions.create(model="default", messages=ask, **extra)
    except openai.BadRequestError as e:
        out["refused_" + name] = [e.status_code, e.body.get("message", "") if isinstance(e.body, dict) else ""]
try:
    client.chat.completions.create(model="strict", messages=ask)
except openai.BadRequestError as e:
    out["refused_system"] = [e.status_code, e.body.get("message", "") if isinstance(e.body, dict) else ""]
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
    let mut toml = std::fs::read_to_string(&config).unwrap();
    toml.push_str("[agents.strict]\nsystem = \"You keep your instructions.\"\nclient_system = \"refuse\"\n");
    std::fs::write(&config, toml).unwrap();
    let (child, url) = tokio::task::block_in_place(|| serve(&dir, &config, Some("acme:acme-key-0123456789")));
    let out = tokio::task::spawn_blocking(move || {
        Command::new(python).args(["-c", SDK_SCRIPT, &url, "acme-key-0123456789"]).output().unwrap()
    })
    .await
    .unwrap();
    let status = tokio::task::block_in_place(|| stop(child));
    assert!(out.status.success(), "the SDK script failed:\n{}", text(&out.stderr));
    let got: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(got["models"], json!(["default", "strict", "support"]), "{got}");
    assert_eq!((got["content"].as_str(), got["finish"].as_str()), (Some("Hello from the mock."), Some("stop")));
    assert_eq!(got["usage"], 25, "the mock's usage, passed on");
    assert_eq!((got["streamed"].as_str(), got["stream_finish"].as_str()), (Some("Hello from the mock."), Some("stop")));
    assert_eq!(got["stream_usage"], 25);
    assert_eq!(got["unknown_model"], json!([404, "model_not_found"]));
    assert_eq!(got["wrong_key"], 401);
    // `include_usage` as OpenAI documents it: a last chunk without choices, `usage: null` before.
    assert_eq!(got["usage_chunk"], json!([[], 25, vec![Value::Null; got["usage_chunk"][2].as_array().unwrap().len()]]));
    // The options reach the model; the operator's prompt stays, the client's comes after it.
    assert_eq!(got["options_finish"], "stop");
    let sent: Vec<Value> = mock.requests().iter().map(|r| r.json()).filter(|b| b["seed"] == 3).collect();
    assert_eq!(sent.len(), 1, "one request with the options");
    let body = &sent[0];
    assert_eq!((body["temperature"].as_f64(), body["top_p"].as_f64()), (Some(0.2), Some(0.9)), "{body}");
    assert!(body["max_tokens"] == 64 || body["max_completion_tokens"] == 64, "{body}");
    assert_eq!(body["stop"], json!(["END"]));
    assert_eq!(body["response_format"]["json_schema"]["name"], "greeting");
    assert_eq!(body["messages"][0], json!({"role": "system", "content": "You answer support tickets.\n\nBe brief."}));
    for name in ["refused_n", "refused_tools", "refused_system"] {
        assert_eq!(got[name][0], 400, "{name}: {got}");
    }
    assert!(got["refused_n"][1].as_str().unwrap().starts_with("`n`"), "{got}");
    assert!(got["refused_tools"][1].as_str().unwrap().starts_with("`tools[0].type`"), "{got}");
    // The client's own function tool: called, streamed, answered.
    assert_eq!(got["tool_call"], json!(["tool_calls", "call_w", "weather", {"city": "Paris"}]), "{got}");
    assert_eq!(got["stream_tool_calls"], json!([["call_w", r#"{"city":"Paris"}"#]]), "{got}");
    assert_eq!(got["stream_tool_finish"], "tool_calls");
    assert_eq!(got["after_tool"], "The weather: sunny");
    assert!(got["refused_system"][1].as_str().unwrap().contains("client_system"), "{got}");
    assert!(status.success());
}

/// The JSON a request is answered with.
async fn json_of(request: reqwest::RequestBuilder) -> Value {
    request.send().await.unwrap().json().await.unwrap()
}

/// A fresh database on the test Postgres for one test (the serve tables are shared by every
/// instance on a database, so a test's runs must not meet another's); dropped at the end.
#[cfg(feature = "postgres")]
struct TestDatabase {
    admin: String,
    name: String,
    url: String,
}

#[cfg(feature = "postgres")]
impl TestDatabase {
    async fn create(admin: &str, name: &str) -> TestDatabase {
        let name = format!("{name}_{}", std::process::id());
        let (client, conn) = tokio_postgres::connect(admin, tokio_postgres::NoTls).await.unwrap();
        tokio::spawn(conn);
        client.batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)")).await.unwrap();
        client.batch_execute(&format!("CREATE DATABASE {name}")).await.unwrap();
        let (base, query) = admin.split_once('?').map_or((admin, None), |(b, q)| (b, Some(q)));
        let base = base.rsplit_once('/').map_or(base, |(b, _)| b);
        let url = match query {
            Some(q) => format!("{base}/{name}?{q}"),
            None => format!("{base}/{name}"),
        };
        TestDatabase { admin: admin.to_string(), name, url }
    }

    async fn drop_now(self) {
        let (client, conn) = tokio_postgres::connect(&self.admin, tokio_postgres::NoTls).await.unwrap();
        tokio::spawn(conn);
        client.batch_execute(&format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name)).await.unwrap();
    }
}

/// The events of an SSE body read so far, and what is left of an unfinished one.
#[cfg(feature = "postgres")]
fn take_events(buffer: &mut String) -> Vec<(u64, String, Value)> {
    let mut out = Vec::new();
    while let Some(end) = buffer.find("\n\n") {
        let block: String = buffer.drain(..end + 2).collect();
        let (mut id, mut event, mut data) = (None, String::new(), String::new());
        for line in block.lines() {
            if let Some(v) = line.strip_prefix("id:") {
                id = v.trim().parse().ok();
            } else if let Some(v) = line.strip_prefix("event:") {
                event = v.trim().to_string();
            } else if let Some(v) = line.strip_prefix("data:") {
                data.push_str(v.trim_start());
            }
        }
        if let Some(id) = id {
            out.push((id, event, serde_json::from_str(&data).unwrap_or(Value::Null)));
        }
    }
    out
}

/// Kills the processes still running when a test ends early (a failed assertion), so none
/// outlives it.
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

/// `lucid serve` on `store` in `dir` with a short lease.
#[cfg(feature = "postgres")]
fn serve_on(dir: &Path, config: &Path, store: &str) -> (Child, String) {
    serve_with(dir, config, &["--lease", "3", "--store", store], None)
}

#[cfg(feature = "postgres")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_instances_on_postgres_survive_a_sigkill_mid_run_and_cancel_across_instances() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let Some(admin) = real_part("LUCID_TEST_POSTGRES_URL", ".ci/run starts PostgreSQL") else { return };
    let database = TestDatabase::create(&admin, "lucid_serve_kill").await;
    // The model: a shell call that counts in a file, then (after its result) an answer the
    // first time held until the instance is killed; "Hold on" is held until cancelled.
    let held = Arc::new(tokio::sync::Notify::new());
    let answers = Arc::new(AtomicUsize::new(0));
    let (signal, count) = (Arc::clone(&held), Arc::clone(&answers));
    let mock = MockServer::start(move |req: &RecordedRequest| {
        let body = req.json();
        let messages = body["messages"].as_array().cloned().unwrap_or_default();
        let last = messages.last().cloned().unwrap_or(Value::Null);
        let stream = body["stream"] == true;
        let reply = |pieces: &[&str]| {
            if stream { Reply::sse(&text_stream(pieces)) } else { Reply::json(200, &text_completion(&pieces.concat())) }
        };
        if last["content"] == "Hold on" {
            signal.notify_one();
            return reply(&["never"]).with_delay(Duration::from_secs(300));
        }
        if last["role"] == "user" {
            let call = [("call_count_1", "shell", r#"{"command": "echo ran >> counter.txt"}"#)];
            return if stream {
                Reply::sse(&lucid_mock::tool_call_stream(&call))
            } else {
                Reply::json(200, &lucid_mock::tool_call_completion(&call))
            };
        }
        if count.fetch_add(1, Ordering::SeqCst) == 0 {
            signal.notify_one();
            return reply(&["too late"]).with_delay(Duration::from_secs(300));
        }
        reply(&["Counted ", "once."])
    })
    .await;
    let dir = common::test_dir("serve-kill");
    let config = dir.join("config.toml");
    std::fs::write(
        &config,
        format!(
            "base_url = \"{}/v1\"\nmodel = \"mock-model\"\ntools = [\"shell\"]\n[permissions]\nshell = \"allow\"\n",
            mock.url()
        ),
    )
    .unwrap();
    let (first, url_a) = tokio::task::block_in_place(|| serve_on(&dir, &config, &database.url));
    let (second, url_b) = tokio::task::block_in_place(|| serve_on(&dir, &config, &database.url));
    let mut _guard = KillOnDrop(vec![first.id(), second.id()]);
    let http = lucid::model::http::reqwest_client_builder().build().unwrap();
    let session: Value = json_of(http.post(format!("{url_a}/v1/sessions")).json(&json!({"agent": "default"}))).await;
    let id = session["id"].as_str().unwrap().to_string();

    // The run starts on the first instance; its stream is read until the tool has run and
    // the next model call is under way, then that instance is killed.
    let mut stream = http
        .post(format!("{url_a}/v1/sessions/{id}/runs"))
        .json(&json!({"input": "Count once", "stream": true}))
        .send()
        .await
        .unwrap();
    let run_id = stream.headers()["lucid-run-id"].to_str().unwrap().to_string();
    let (mut buffer, mut seen) = (String::new(), Vec::new());
    while !seen.iter().any(|(_, kind, _): &(u64, String, Value)| kind == "tool_call_finished") {
        let chunk = stream.chunk().await.unwrap().expect("the stream ended before the tool ran");
        buffer.push_str(std::str::from_utf8(&chunk).unwrap());
        seen.extend(take_events(&mut buffer));
    }
    held.notified().await;
    let mut first = first;
    first.kill().unwrap();
    first.wait().unwrap();
    // Whatever was still on its way from the killed instance.
    while let Ok(Some(chunk)) = stream.chunk().await {
        buffer.push_str(std::str::from_utf8(&chunk).unwrap());
        seen.extend(take_events(&mut buffer));
    }

    // The client reattaches to the other instance after the last event it saw.
    let last = seen.last().unwrap().0;
    let rest = http
        .get(format!("{url_b}/v1/runs/{run_id}/events"))
        .header("last-event-id", last.to_string())
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    buffer = rest;
    seen.extend(take_events(&mut buffer));
    let ids: Vec<u64> = seen.iter().map(|e| e.0).collect();
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "every event once, in order: {ids:?}");
    let kinds: Vec<&str> = seen.iter().map(|e| e.1.as_str()).collect();
    assert_eq!(kinds.iter().filter(|k| **k == "tool_call_started").count(), 1, "{kinds:?}");
    assert_eq!(kinds.iter().filter(|k| **k == "tool_call_finished").count(), 1, "{kinds:?}");
    assert_eq!(kinds.last(), Some(&"completed"), "{kinds:?}");
    assert!(seen.last().unwrap().0 > 1 << 32, "ended by the run's second owner: {ids:?}");
    assert_eq!(std::fs::read_to_string(dir.join("counter.txt")).unwrap(), "ran\n", "the tool ran exactly once");
    let run: Value = json_of(http.get(format!("{url_b}/v1/runs/{run_id}"))).await;
    assert_eq!((run["status"].as_str(), run["result"]["content"].as_str()), (Some("completed"), Some("Counted once.")));
    let session: Value = json_of(http.get(format!("{url_b}/v1/sessions/{id}"))).await;
    let roles: Vec<&str> =
        session["messages"].as_array().unwrap().iter().map(|m| m["role"].as_str().unwrap_or("?")).collect();
    assert_eq!(roles, ["user", "assistant", "tool", "assistant"], "nothing lost, nothing twice: {session}");

    // Cancel sent to an instance that is not running the run.
    let (third, url_c) = tokio::task::block_in_place(|| serve_on(&dir, &config, &database.url));
    _guard.0.push(third.id());
    let session: Value = json_of(http.post(format!("{url_b}/v1/sessions")).json(&json!({"agent": "default"}))).await;
    let id = session["id"].as_str().unwrap().to_string();
    let going = http
        .post(format!("{url_b}/v1/sessions/{id}/runs"))
        .json(&json!({"input": "Hold on", "stream": true}))
        .send()
        .await
        .unwrap();
    let run_id = going.headers()["lucid-run-id"].to_str().unwrap().to_string();
    held.notified().await;
    let cancelled: Value = json_of(http.post(format!("{url_c}/v1/runs/{run_id}/cancel"))).await;
    assert_eq!(cancelled["status"], "cancelled", "{cancelled}");
    let events = going.text().await.unwrap();
    assert!(events.contains("event: cancelled"), "{events}");
    for child in [second, third] {
        let status = tokio::task::block_in_place(|| stop(child));
        assert!(status.success(), "{status:?}");
    }
    _guard.0.clear();
    database.drop_now().await;
}

/// `lucid serve` started without keys in `dir` with these further arguments and the soft
/// open-files limit lowered to `open_files`; returns the process, its URL and its standard
/// error as it comes.
fn serve_logged(
    dir: &Path,
    config: &Path,
    args: &[&str],
    open_files: libc::rlim_t,
) -> (Child, String, std::sync::Arc<std::sync::Mutex<String>>) {
    use std::os::unix::process::CommandExt;
    let store = dir.join("serve.db").display().to_string();
    let mut cmd = common::lucid_command();
    cmd.args(["serve", "--listen", "127.0.0.1:0", "--store", &store])
        .args(args)
        .arg("--config")
        .arg(config)
        .current_dir(dir)
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", dir);
    // SAFETY: only setrlimit(2), async-signal-safe, between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
            libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit);
            limit.rlim_cur = limit.rlim_cur.min(open_files);
            libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
            Ok(())
        });
    }
    common::until_listening(&mut cmd)
}

/// The soft and hard open-files limits of process `pid`, from `/proc/PID/limits`.
fn open_files_limits(pid: u32) -> (String, String) {
    let limits = std::fs::read_to_string(format!("/proc/{pid}/limits")).unwrap();
    let line = limits.lines().find(|l| l.starts_with("Max open files")).unwrap().to_string();
    let fields: Vec<&str> = line["Max open files".len()..].split_whitespace().collect();
    (fields[0].to_string(), fields[1].to_string())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_keyless_serve_refuses_web_pages_but_its_listed_origins_and_caps_its_connections() {
    let mock = MockServer::start(hello).await;
    let dir = test_dir("serve-edge");
    let config = write_config(&dir, &mock);
    let mut text = std::fs::read_to_string(&config).unwrap();
    text = text.replace("[agents.support]", "[serve]\nallow_origins = [\"http://a.example\"]\n\n[agents.support]");
    std::fs::write(&config, text).unwrap();
    let args = ["--allow-origin", "http://b.example:8000", "--max-connections", "2", "--header-timeout", "120"];
    let (child, url, log) = tokio::task::block_in_place(|| serve_logged(&dir, &config, &args, 256));
    let mut guard = KillOnDrop(vec![child.id()]);
    // The soft open-files limit was raised to the hard one.
    let (soft, hard) = open_files_limits(child.id());
    assert_eq!(soft, hard, "{}", log.lock().unwrap());

    // No connection kept for later: each request's place is free once it is answered.
    let http = lucid::model::http::reqwest_client_builder().pool_max_idle_per_host(0).build().unwrap();
    let chat = r#"{"model": "default", "messages": [{"role": "user", "content": "Hi"}]}"#;
    let no_cors = http
        .post(format!("{url}/v1/chat/completions"))
        .header("content-type", "text/plain;charset=UTF-8")
        .body(chat)
        .send()
        .await
        .unwrap();
    assert_eq!(no_cors.status().as_u16(), 415);
    assert!(mock.requests().is_empty(), "the agent never ran");
    let port = url.rsplit(':').next().unwrap();
    let rebound = http.get(format!("{url}/v1/sessions")).header("host", format!("evil.example:{port}")).send().await;
    assert_eq!(rebound.unwrap().status().as_u16(), 403);
    for (origin, status, cors) in
        [("http://a.example", 200, true), ("http://b.example:8000", 200, true), ("http://c.example", 403, false)]
    {
        let r = http.get(format!("{url}/v1/models")).header("origin", origin).send().await.unwrap();
        assert_eq!(r.status().as_u16(), status, "{origin}");
        assert_eq!(r.headers().get("access-control-allow-origin").is_some(), cors, "{origin}");
    }
    let r = http.post(format!("{url}/v1/chat/completions")).header("content-type", "application/json").body(chat);
    assert_eq!(json_of(r).await["choices"][0]["message"]["content"], "Hello from the mock.");

    // Two kept-alive connections hold both places; a third waits, with a warning, until one
    // closes.
    let addr: std::net::SocketAddr = url.trim_start_matches("http://").parse().unwrap();
    let hold = || {
        (0..2)
            .map(|_| {
                use std::io::{Read, Write};
                let mut c = std::net::TcpStream::connect(addr).unwrap();
                c.write_all(format!("GET /healthz HTTP/1.1\r\nHost: localhost:{port}\r\n\r\n").as_bytes()).unwrap();
                let mut buf = [0u8; 1024];
                let n = c.read(&mut buf).unwrap();
                assert!(buf[..n].starts_with(b"HTTP/1.1 200"));
                c
            })
            .collect::<Vec<std::net::TcpStream>>()
    };
    let held = tokio::task::block_in_place(hold);
    let third = tokio::spawn(http.get(format!("{url}/healthz")).send());
    let mut warned = false;
    for _ in 0..200 {
        warned = log.lock().unwrap().contains("connection cap reached");
        if warned {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(warned, "{}", log.lock().unwrap());
    assert!(!third.is_finished(), "not served while both places are held");
    drop(held);
    let answered = tokio::time::timeout(Duration::from_secs(30), third).await.expect("served once one closed");
    assert_eq!(answered.unwrap().unwrap().status().as_u16(), 200);

    // A key made with the CLI while it serves without keys is enforced without a restart.
    let store = dir.join("serve.db").display().to_string();
    let out = common::run_in(&dir, &["serve", "keys", "create", "acme", "--store", &store], &[]).await;
    assert_eq!(out.status.code(), Some(0), "{}", common::text(&out.stderr));
    let key = common::text(&out.stdout).trim().to_string();
    let mut status = 0;
    for _ in 0..120 {
        status = http.get(format!("{url}/v1/sessions")).send().await.unwrap().status().as_u16();
        if status == 401 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    assert_eq!(status, 401, "anonymous requests refused once a key is stored");
    let with_key = http.get(format!("{url}/v1/sessions")).bearer_auth(&key).send().await.unwrap();
    assert_eq!(with_key.status().as_u16(), 200);
    let metrics = http.get(format!("{url}/metrics")).send().await.unwrap();
    assert_eq!(metrics.status().as_u16(), 401);
    guard.0.clear();
    let status = tokio::task::block_in_place(|| stop(child));
    assert!(status.success(), "{status:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_of_the_configuration_switches_to_its_fallback_and_the_run_shows_it() {
    let dir = test_dir("serve-fallback");
    let store = dir.join("serve.db").display().to_string();
    fallback_through_serve(&dir, &store).await;
}

#[cfg(feature = "postgres")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fallback_after_an_overload_on_postgres_keeps_the_history_and_stores_the_event() {
    let Some(admin) = real_part("LUCID_TEST_POSTGRES_URL", ".ci/run starts PostgreSQL") else { return };
    let database = TestDatabase::create(&admin, "lucid_serve_fallback").await;
    let dir = test_dir("serve-fallback-pg");
    fallback_through_serve(&dir, &database.url).await;
    database.drop_now().await;
}

/// `lucid serve` on `store` with an agent whose model is overloaded and whose backup
/// answers: the run completes on the backup, with the history intact, and its stored
/// events replay the switch.
async fn fallback_through_serve(dir: &Path, store: &str) {
    let primary = MockServer::start(|_| {
        Reply::json(529, &json!({"error": {"message": "Overloaded", "type": "overloaded_error"}}))
            .with_header("retry-after", "0")
    })
    .await;
    let backup = MockServer::start(hello).await;
    let config = dir.join("config.toml");
    let text = format!(
        "base_url = \"{}/v1\"\nmodel = \"mock-model\"\ncontext_window = 8192\ntools = []\n\
         [providers.spare]\nbase_url = \"{}\"\n\
         [agents.support]\nsystem = \"You answer support tickets.\"\nfallback = [\"spare:backup-model\"]\n",
        primary.url(),
        backup.url()
    );
    std::fs::write(&config, text).unwrap();
    let (child, url) = tokio::task::block_in_place(|| {
        serve_with(dir, &config, &["--store", store, "--max-retries", "1"], Some("acme:acme-key-0123456789"))
    });
    let _guard = KillOnDrop(vec![child.id()]);
    let http = lucid::model::http::reqwest_client_builder().build().unwrap();
    let key = "acme-key-0123456789";
    let session: Value =
        json_of(http.post(format!("{url}/v1/sessions")).bearer_auth(key).json(&json!({"agent": "support"}))).await;
    let id = session["id"].as_str().unwrap();
    let run: Value = json_of(
        http.post(format!("{url}/v1/sessions/{id}/runs")).bearer_auth(key).json(&json!({"input": "My order is late"})),
    )
    .await;
    assert_eq!(run["status"], "completed", "{run:#}");
    assert_eq!(run["result"]["content"], "Hello from the mock.");
    assert_eq!(run["result"]["model"], "spare:backup-model", "{run:#}");
    assert_eq!(primary.requests().len(), 2, "the primary was retried once");
    // The backup got the agent's history: its system prompt and the user's message.
    let sent = backup.requests().last().unwrap().json();
    assert_eq!(sent["model"], "backup-model");
    assert_eq!(sent["messages"][0]["content"], "You answer support tickets.");
    assert_eq!(sent["messages"][1]["content"], "My order is late");
    let run_id = run["id"].as_str().unwrap();
    let events = http.get(format!("{url}/v1/runs/{run_id}/events")).bearer_auth(key).send().await.unwrap();
    let events = events.text().await.unwrap();
    assert!(events.contains("event: fallback"), "{events}");
    assert!(events.contains("\"to\":\"spare:backup-model\""), "{events}");
    // The default agent has no backups: its run fails on the overload.
    let session: Value =
        json_of(http.post(format!("{url}/v1/sessions")).bearer_auth(key).json(&json!({"agent": "default"}))).await;
    let id = session["id"].as_str().unwrap();
    let run: Value =
        json_of(http.post(format!("{url}/v1/sessions/{id}/runs")).bearer_auth(key).json(&json!({"input": "hi"}))).await;
    assert_eq!(run["status"], "failed", "{run:#}");
    let status = tokio::task::block_in_place(|| stop(child));
    assert!(status.success(), "{status:?}");
}

/// A tenant's daily budget from `[serve]`, summed in Postgres over two instances: the
/// turn after the limit is spent gets 429 naming it, on either instance; every result
/// carries its cost from `[prices]`.
#[cfg(feature = "postgres")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tenants_daily_budget_holds_over_two_instances_on_postgres() {
    let Some(admin) = real_part("LUCID_TEST_POSTGRES_URL", ".ci/run starts PostgreSQL") else { return };
    let database = TestDatabase::create(&admin, "lucid_serve_budget").await;
    let mock = MockServer::start(hello).await;
    let dir = common::test_dir("serve-budget");
    let config = dir.join("config.toml");
    // $1000 per million prompt tokens, $2000 per million answer tokens: 20 + 5 tokens a turn
    // cost $0.03.
    std::fs::write(
        &config,
        format!(
            "base_url = \"{}/v1\"\nmodel = \"mock-model\"\ntools = []\n\
             [prices.\"mock-model\"]\ninput = 1000.0\noutput = 2000.0\n\
             [serve]\ntenant_daily_max_cost = 0.05\n",
            mock.url()
        ),
    )
    .unwrap();
    let (first, url_a) = tokio::task::block_in_place(|| serve_on(&dir, &config, &database.url));
    let (second, url_b) = tokio::task::block_in_place(|| serve_on(&dir, &config, &database.url));
    let _guard = KillOnDrop(vec![first.id(), second.id()]);
    let http = lucid::model::http::reqwest_client_builder().build().unwrap();
    let turn = |url: String| {
        let http = http.clone();
        async move {
            let session: Value =
                json_of(http.post(format!("{url}/v1/sessions")).json(&json!({"agent": "default"}))).await;
            let id = session["id"].as_str().unwrap();
            let resp =
                http.post(format!("{url}/v1/sessions/{id}/runs")).json(&json!({"input": "hi"})).send().await.unwrap();
            (resp.status().as_u16(), resp.json::<Value>().await.unwrap())
        }
    };
    for url in [&url_a, &url_b] {
        let (status, run) = turn(url.clone()).await;
        assert_eq!((status, run["status"].as_str()), (200, Some("completed")), "{run}");
        assert!((run["result"]["cost_usd"].as_f64().unwrap() - 0.03).abs() < 1e-9, "{run}");
    }
    for url in [&url_a, &url_b] {
        let (status, body) = turn(url.clone()).await;
        assert_eq!((status, body["error"]["code"].as_str()), (429, Some("quota_exceeded")), "{body}");
        let message = body["error"]["message"].as_str().unwrap();
        assert!(message.contains("the limit of dollars per tenant per day ($0.05)"), "{message}");
    }
    let metrics = http.get(format!("{url_a}/metrics")).send().await.unwrap().text().await.unwrap();
    assert!(metrics.lines().any(|l| l == "lucid_cost_usd_total 0.03"), "this instance's turn: {metrics}");
}
