//! The HTTP API end to end: a `Server` on loopback whose agents talk to the scripted
//! OpenAI-compatible mock, driven by a plain HTTP client.

use std::sync::Arc;
use std::time::Duration;

use lucid::prelude::*;
use lucid::tool::AskUser;
use lucid_mock::{MockServer, RecordedRequest, Reply, bench_handler, text_stream, tool_call_stream};
use lucid_server::{ApiKeys, Server, ServerConfig};
use serde_json::{Value, json};

/// Adds two integers.
#[tool]
async fn add(
    /// first operand
    a: i64,
    /// second operand
    b: i64,
) -> Result<i64, ToolError> {
    Ok(a + b)
}

struct Api {
    url: String,
    http: reqwest::Client,
    key: Option<String>,
    mock: Arc<MockServer>,
    /// The server's folder, when the test did not keep it itself.
    _dir: Option<Arc<TempDir>>,
}

/// A folder removed when the test ends.
struct TempDir(std::path::PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn temp_dir(name: &str) -> TempDir {
    let dir = std::env::temp_dir().join(format!("lucid-server-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    TempDir(dir)
}

/// A server with the agent `default` (tools: add, ask_user) on a mock answering with
/// `handler`; `tune` adjusts the configuration.
async fn start(
    name: &str,
    handler: impl Fn(&RecordedRequest) -> Reply + Send + Sync + 'static,
    tune: impl FnOnce(ServerConfig) -> ServerConfig,
) -> Api {
    let mock = MockServer::start(handler).await;
    let model = lucid::model::OpenAiCompatible::new(&format!("{}/v1", mock.url()), None, "mock").unwrap();
    let agent = Agent::builder(model).system("You add numbers.").tool(add).tool(AskUser::deferred()).build();
    start_agent(name, mock, agent, tune).await
}

/// A server with `agent` as `default`, its database in a new folder `name`.
async fn start_agent(
    name: &str,
    mock: MockServer,
    agent: Agent,
    tune: impl FnOnce(ServerConfig) -> ServerConfig,
) -> Api {
    let dir = temp_dir(name);
    let config = tune(ServerConfig::new(dir.0.join("serve.db")).agent("default", agent));
    Api {
        url: listen(Server::open(config).await.unwrap()).await,
        http: lucid::model::http::reqwest_client_builder().build().unwrap(),
        key: None,
        mock: Arc::new(mock),
        _dir: Some(Arc::new(dir)),
    }
}

/// Serves `server` on a free loopback port until the test ends; its base URL.
async fn listen(server: Server) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(server.serve(listener, std::future::pending()));
    url
}

impl Api {
    /// A client of the server at `url`, its agents on `mock`.
    fn at(url: String, mock: &Arc<MockServer>) -> Api {
        Api {
            url,
            http: lucid::model::http::reqwest_client_builder().build().unwrap(),
            key: None,
            mock: Arc::clone(mock),
            _dir: None,
        }
    }

    fn as_key(&self, key: &str) -> Api {
        Api {
            url: self.url.clone(),
            http: self.http.clone(),
            key: Some(key.to_string()),
            mock: Arc::clone(&self.mock),
            _dir: self._dir.clone(),
        }
    }

    fn req(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        let r = self.http.request(method, format!("{}{path}", self.url));
        match &self.key {
            Some(k) => r.bearer_auth(k),
            None => r,
        }
    }

    async fn send(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> (u16, Value) {
        let mut r = self.req(method, path);
        if let Some(b) = body {
            r = r.json(&b);
        }
        let resp = r.send().await.unwrap();
        let status = resp.status().as_u16();
        let text = resp.text().await.unwrap();
        (status, serde_json::from_str(&text).unwrap_or(Value::String(text)))
    }

    async fn post(&self, path: &str, body: Value) -> (u16, Value) {
        self.send(reqwest::Method::POST, path, Some(body)).await
    }

    async fn get(&self, path: &str) -> (u16, Value) {
        self.send(reqwest::Method::GET, path, None).await
    }

    async fn session(&self) -> String {
        let (status, s) = self.post("/v1/sessions", json!({"agent": "default", "metadata": {"user": "u1"}})).await;
        assert_eq!(status, 201, "{s}");
        s["id"].as_str().unwrap().to_string()
    }
}

/// One Server-Sent Event.
#[derive(Debug, Clone, PartialEq)]
struct Sse {
    id: Option<u64>,
    event: Option<String>,
    data: String,
}

fn parse_sse(text: &str) -> Vec<Sse> {
    text.split("\n\n")
        .filter_map(|block| {
            let mut e = Sse { id: None, event: None, data: String::new() };
            let mut any = false;
            for line in block.lines() {
                if let Some(v) = line.strip_prefix("id:") {
                    e.id = v.trim().parse().ok();
                } else if let Some(v) = line.strip_prefix("event:") {
                    e.event = Some(v.trim().to_string());
                } else if let Some(v) = line.strip_prefix("data:") {
                    e.data.push_str(v.strip_prefix(' ').unwrap_or(v));
                    any = true;
                }
            }
            any.then_some(e)
        })
        .collect()
}

fn error_code(body: &Value) -> &str {
    body["error"]["code"].as_str().unwrap_or_else(|| panic!("not the error shape: {body}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_runs_a_task_keeps_its_messages_and_is_counted() {
    let api = start("basic", bench_handler(), |c| c).await;
    let id = api.session().await;
    let (status, run) = api.post(&format!("/v1/sessions/{id}/runs"), json!({"input": "What is 2 + 3?"})).await;
    assert_eq!(status, 200, "{run}");
    assert_eq!(run["status"], "completed", "{run}");
    assert_eq!(run["result"]["content"], "The answer is 5.");
    assert_eq!(run["result"]["tool_calls"][0]["output"], "5");
    let (_, again) = api.get(&format!("/v1/runs/{}", run["id"].as_str().unwrap())).await;
    assert_eq!((again["status"].as_str(), again["session_id"].as_str()), (Some("completed"), Some(id.as_str())));

    let (status, session) = api.get(&format!("/v1/sessions/{id}")).await;
    assert_eq!(status, 200);
    let roles: Vec<&str> =
        session["messages"].as_array().unwrap().iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["user", "assistant", "tool", "assistant"]);
    assert_eq!(session["metadata"]["user"], "u1");

    let second = api.session().await;
    let (_, page) = api.get("/v1/sessions?limit=1").await;
    assert_eq!((page["data"].as_array().unwrap().len(), page["has_more"].as_bool()), (1, Some(true)));
    let (_, rest) = api.get("/v1/sessions?limit=1&offset=1").await;
    assert_eq!(rest["has_more"], false);
    let listed = [page["data"][0]["id"].as_str().unwrap(), rest["data"][0]["id"].as_str().unwrap()];
    assert!(listed.contains(&id.as_str()) && listed.contains(&second.as_str()), "{listed:?}");

    let resp = api.req(reqwest::Method::DELETE, &format!("/v1/sessions/{second}")).send().await.unwrap();
    assert_eq!(resp.status().as_u16(), 204);
    assert_eq!(api.get(&format!("/v1/sessions/{second}")).await.0, 404);

    let (status, health) = api.get("/healthz").await;
    assert_eq!((status, health["status"].as_str()), (200, Some("ok")));
    assert_eq!(api.get("/readyz").await.0, 200);
    let metrics = api.req(reqwest::Method::GET, "/metrics").send().await.unwrap().text().await.unwrap();
    for line in [
        "lucid_runs_total{status=\"completed\"} 1",
        "lucid_model_calls_total 2",
        "lucid_tool_calls_total{outcome=\"ok\"} 1",
    ] {
        assert!(metrics.lines().any(|l| l == line), "{line} missing from:\n{metrics}");
    }
}

/// The benchmark task's mock, where the first request of each run (no tool result yet)
/// waits at `gate` until as many requests as it was made for arrived.
fn gated(gate: &Arc<tokio::sync::Barrier>) -> impl Fn(&RecordedRequest) -> Reply + Send + Sync + 'static {
    let gate = Arc::clone(gate);
    let inner = bench_handler();
    move |req| {
        let reply = inner(req);
        if String::from_utf8_lossy(&req.body).contains("\"role\":\"tool\"") {
            reply
        } else {
            reply.behind(&gate, Duration::from_secs(20))
        }
    }
}

/// Sends a request of the test's own to the mock's gate.
async fn pass_gate(api: &Api) {
    let url = format!("{}/v1/chat/completions", api.mock.url());
    lucid::model::http::reqwest_client_builder().build().unwrap().post(url).body("{}").send().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_gets_its_status_and_loses_nothing() {
    let gate = Arc::new(tokio::sync::Barrier::new(3));
    let api = start("bad-input", gated(&gate), |c| c.max_runs_per_tenant(2).body_limit(4096)).await;
    let id = api.session().await;
    let runs = format!("/v1/sessions/{id}/runs");

    // Labelled JSON (without keys an unlabelled body is a 415, see tests/edge.rs).
    let json_body =
        |body: String| api.req(reqwest::Method::POST, &runs).header("content-type", "application/json").body(body);
    let resp = json_body("{\"input\": ".into()).send().await.unwrap();
    assert_eq!(resp.status().as_u16(), 400);
    assert_eq!(error_code(&resp.json().await.unwrap()), "invalid_json");
    let resp = json_body(format!("{{\"input\": \"{}\"}}", "x".repeat(5000))).send().await.unwrap();
    assert_eq!(resp.status().as_u16(), 413);
    assert_eq!(error_code(&resp.json().await.unwrap()), "body_too_large");
    let (status, body) = api.post(&runs, json!({"input": 3})).await;
    assert_eq!(
        (status, body["error"]["message"].as_str()),
        (400, Some("`input`: must be a string or a list of content parts, not a number"))
    );
    let (status, body) = api.post(&runs, json!({"input": "hi", "temperature": 2})).await;
    assert_eq!(status, 400);
    assert!(body["error"]["message"].as_str().unwrap().starts_with("`temperature`: unknown field"), "{body}");
    let (status, body) = api.post("/v1/sessions", json!({"agent": "nobody"})).await;
    assert_eq!(status, 400);
    assert!(body["error"]["message"].as_str().unwrap().starts_with("`agent`: no agent `nobody`"), "{body}");
    assert_eq!(body["error"]["type"], "invalid_request_error");
    let (status, body) = api.post("/v1/sessions/sess_nope/runs", json!({"input": "hi"})).await;
    assert_eq!((status, error_code(&body)), (404, "not_found"));
    assert_eq!(api.get("/v1/runs/run_nope").await.0, 404);
    let (status, body) = api.get("/v1/sessions?limit=many").await;
    assert_eq!(
        (status, body["error"]["message"].as_str()),
        (400, Some("`limit`: must be a whole number from 0 to 100"))
    );

    // A run held at the gate; a second run of the same session is refused.
    let first = api
        .req(reqwest::Method::POST, &runs)
        .json(&json!({"input": "What is 2 + 3?", "stream": true}))
        .send()
        .await
        .unwrap();
    assert_eq!(first.status().as_u16(), 200);
    let run_id = first.headers()["lucid-run-id"].to_str().unwrap().to_string();
    let (status, body) = api.post(&runs, json!({"input": "And 4 + 5?"})).await;
    assert_eq!((status, error_code(&body)), (409, "session_busy"));
    let resp = api.req(reqwest::Method::DELETE, &format!("/v1/sessions/{id}")).send().await.unwrap();
    assert_eq!(resp.status().as_u16(), 409, "a session with a run going is not deleted");
    // The tenant's second slot goes to another session's run; a third is one too many.
    let other = api.session().await;
    let second = api
        .req(reqwest::Method::POST, &format!("/v1/sessions/{other}/runs"))
        .json(&json!({"input": "What is 2 + 3?", "stream": true}))
        .send()
        .await
        .unwrap();
    assert_eq!(second.status().as_u16(), 200);
    let third_session = api.session().await;
    let resp = api
        .req(reqwest::Method::POST, &format!("/v1/sessions/{third_session}/runs"))
        .json(&json!({"input": "hi"}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 429);
    assert_eq!(resp.headers()["retry-after"], "1");
    assert_eq!(error_code(&resp.json().await.unwrap()), "too_many_runs");

    // Both held requests pass the gate with the test's own; each run finishes whole.
    let (a, b, ()) = tokio::join!(first.text(), second.text(), pass_gate(&api));
    for text in [a.unwrap(), b.unwrap()] {
        let events = parse_sse(&text);
        assert_eq!(events.last().unwrap().event.as_deref(), Some("completed"), "{text}");
    }
    let (_, run) = api.get(&format!("/v1/runs/{run_id}")).await;
    assert_eq!(run["status"], "completed");
    let (_, session) = api.get(&format!("/v1/sessions/{id}")).await;
    assert_eq!(session["messages"].as_array().unwrap().len(), 4, "only the accepted run's turn: {session}");
    assert_eq!(session["messages"][0]["content"], "What is 2 + 3?");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tenants_see_only_their_own_sessions_and_runs() {
    let keys = ApiKeys::parse("acme:acme-key-0123456789,globex:globex-key-0123456789").unwrap();
    let api = start("tenants", bench_handler(), |c| c.keys(keys)).await;
    let (acme, globex) = (api.as_key("acme-key-0123456789"), api.as_key("globex-key-0123456789"));
    let (status, body) = api.get("/v1/sessions").await;
    assert_eq!((status, error_code(&body)), (401, "invalid_api_key"));
    assert_eq!(api.as_key("wrong-key-0123456789").get("/v1/models").await.0, 401);

    let id = acme.session().await;
    let (_, run) = acme.post(&format!("/v1/sessions/{id}/runs"), json!({"input": "What is 2 + 3?"})).await;
    let run_id = run["id"].as_str().unwrap();
    assert_eq!(run["status"], "completed");
    for path in [format!("/v1/sessions/{id}"), format!("/v1/runs/{run_id}"), format!("/v1/runs/{run_id}/events")] {
        let (status, body) = globex.get(&path).await;
        assert_eq!((status, error_code(&body)), (404, "not_found"), "{path}");
    }
    assert_eq!(globex.post(&format!("/v1/sessions/{id}/runs"), json!({"input": "hi"})).await.0, 404);
    assert_eq!(globex.post(&format!("/v1/runs/{run_id}/cancel"), json!({})).await.0, 404);
    let resp = globex.req(reqwest::Method::DELETE, &format!("/v1/sessions/{id}")).send().await.unwrap();
    assert_eq!(resp.status().as_u16(), 404);
    let (_, list) = globex.get("/v1/sessions").await;
    assert_eq!(list["data"], json!([]));
    let (_, list) = acme.get("/v1/sessions").await;
    assert_eq!(list["data"][0]["id"], id.as_str());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_stored_in_the_database_are_tenants_until_revoked() {
    let dir = temp_dir("stored-keys");
    let database: lucid_server::Database = dir.0.join("serve.db").into();
    let initech = lucid_server::keys::create(&database, "initech").await.unwrap();
    assert!(initech.key.starts_with("lk_") && initech.key.len() == 51, "{initech:?}");
    assert!(!format!("{initech:?}").contains(&initech.key), "Debug never shows the key");
    assert!(lucid_server::keys::create(&database, "no spaces").await.is_err());
    let listed = lucid_server::keys::list(&database).await.unwrap();
    assert_eq!((listed.len(), listed[0].id.as_str(), listed[0].tenant.as_str()), (1, initech.id.as_str(), "initech"));
    let stored = rusqlite::Connection::open(dir.0.join("serve.db"))
        .unwrap()
        .query_row("SELECT hash FROM serve_keys", [], |r| r.get::<_, String>(0))
        .unwrap();
    assert_eq!(stored, lucid_server::keys::hash(&initech.key), "only the hash is kept");

    let mock = Arc::new(MockServer::start(bench_handler()).await);
    let open = || async {
        let model = lucid::model::OpenAiCompatible::new(&format!("{}/v1", mock.url()), None, "mock").unwrap();
        let agent = Agent::builder(model).tool(add).build();
        // No keys in the environment: the stored one alone makes every request need a key.
        let server = Server::open(ServerConfig::new(database.clone()).agent("default", agent)).await.unwrap();
        assert!(server.check_bind("0.0.0.0:8080".parse().unwrap()).is_ok(), "stored keys allow other hosts");
        assert!(server.check_bind("127.0.0.1:8080".parse().unwrap()).is_ok());
        Api::at(listen(server).await, &mock)
    };
    let api = open().await;
    assert_eq!(api.get("/v1/sessions").await.0, 401);
    assert_eq!(api.as_key("lk_0000000000000000000000000000000000000000000000000").get("/v1/sessions").await.0, 401);
    let client = api.as_key(&initech.key);
    let id = client.session().await;
    let (_, run) = client.post(&format!("/v1/sessions/{id}/runs"), json!({"input": "What is 2 + 3?"})).await;
    assert_eq!(run["status"], "completed", "{run}");

    let hooli = lucid_server::keys::create(&database, "hooli").await.unwrap();
    let (status, list) = api.as_key(&hooli.key).get("/v1/sessions").await;
    assert_eq!((status, &list["data"]), (200, &json!([])), "another stored tenant sees nothing of initech's");

    assert!(lucid_server::keys::revoke(&database, &initech.id).await.unwrap());
    assert!(!lucid_server::keys::revoke(&database, &initech.id).await.unwrap());
    // A server opened after the revocation (no cached lookup) refuses the key.
    let api = open().await;
    assert_eq!(api.as_key(&initech.key).get("/v1/sessions").await.0, 401);
    assert_eq!(api.as_key(&hooli.key).get("/v1/sessions").await.0, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_lost_the_stream_resumes_after_its_last_event_id_and_sees_each_event_once() {
    // Slow chunks: the run is still going when the client comes back.
    let handler = |req: &RecordedRequest| {
        let body = String::from_utf8_lossy(&req.body).into_owned();
        let reply = if body.contains("\"role\":\"tool\"") {
            Reply::sse(&text_stream(&["The ", "answer ", "is ", "5."]))
        } else {
            Reply::sse(&tool_call_stream(&[("call_1", "add", r#"{"a": 2, "b": 3}"#)]))
        };
        reply.with_delay(Duration::from_millis(15))
    };
    let api = start("resume", handler, |c| c).await;
    let id = api.session().await;
    let resp = api
        .req(reqwest::Method::POST, &format!("/v1/sessions/{id}/runs"))
        .json(&json!({"input": "What is 2 + 3?", "stream": true}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.headers()["content-type"], "text/event-stream");
    let run_id = resp.headers()["lucid-run-id"].to_str().unwrap().to_string();
    // Read until the first two events arrived, then drop the connection.
    let mut seen = String::new();
    let mut resp = resp;
    while parse_sse(&seen).len() < 2 || !seen.ends_with("\n\n") {
        seen.push_str(&String::from_utf8_lossy(&resp.chunk().await.unwrap().unwrap()));
    }
    drop(resp);
    let before = parse_sse(&seen);
    let last = before.last().unwrap().id.unwrap();
    let rest = api
        .req(reqwest::Method::GET, &format!("/v1/runs/{run_id}/events"))
        .header("Last-Event-ID", last.to_string())
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let after = parse_sse(&rest);
    let all = parse_sse(
        &api.req(reqwest::Method::GET, &format!("/v1/runs/{run_id}/events"))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap(),
    );
    let joined: Vec<Sse> = before.into_iter().chain(after).collect();
    assert_eq!(joined, all, "every event once, in order");
    let ids: Vec<u64> = all.iter().map(|e| e.id.unwrap()).collect();
    assert_eq!(ids, (1..=all.len() as u64).collect::<Vec<_>>());
    let text: String = all
        .iter()
        .filter(|e| e.event.as_deref() == Some("text_delta"))
        .map(|e| serde_json::from_str::<Value>(&e.data).unwrap()["text"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(text, "The answer is 5.");
    let kinds: Vec<&str> = all.iter().filter_map(|e| e.event.as_deref()).filter(|k| *k != "text_delta").collect();
    assert_eq!(kinds, ["iteration", "tool_call_started", "tool_call_finished", "iteration", "completed"]);
    let (status, body) = api
        .req(reqwest::Method::GET, &format!("/v1/runs/{run_id}/events"))
        .header("Last-Event-ID", "soon")
        .send()
        .await
        .map(|r| r.status().as_u16())
        .map(|s| (s, ()))
        .unwrap();
    assert_eq!((status, body), (400, ()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_that_asks_the_user_waits_for_input_then_goes_on() {
    let handler = |req: &RecordedRequest| {
        let body = String::from_utf8_lossy(&req.body).into_owned();
        let reply = if body.contains("Paris") {
            text_stream(&["Paris it is."])
        } else {
            tool_call_stream(&[("call_q", "ask_user", r#"{"questions": ["Which city?"]}"#)])
        };
        Reply::sse(&reply)
    };
    let api = start("input", handler, |c| c).await;
    let id = api.session().await;
    let (_, run) = api.post(&format!("/v1/sessions/{id}/runs"), json!({"input": "Book a trip"})).await;
    assert_eq!(run["status"], "needs_input", "{run}");
    assert_eq!(run["result"]["questions"], json!(["Which city?"]));
    let run_id = run["id"].as_str().unwrap();
    let (status, body) = api.post(&format!("/v1/runs/{run_id}/input"), json!({})).await;
    assert_eq!((status, body["error"]["message"].as_str()), (400, Some("`input`: required")));
    let (status, done) = api.post(&format!("/v1/runs/{run_id}/input"), json!({"input": "Paris"})).await;
    assert_eq!(status, 200, "{done}");
    assert_eq!(
        (done["status"].as_str(), done["result"]["content"].as_str()),
        (Some("completed"), Some("Paris it is."))
    );
    let (status, body) = api.post(&format!("/v1/runs/{run_id}/input"), json!({"input": "again"})).await;
    assert_eq!((status, error_code(&body)), (409, "run_not_waiting"));
    let all = parse_sse(
        &api.req(reqwest::Method::GET, &format!("/v1/runs/{run_id}/events"))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap(),
    );
    let ids: Vec<u64> = all.iter().map(|e| e.id.unwrap()).collect();
    assert_eq!(ids, (1..=all.len() as u64).collect::<Vec<_>>(), "the numbering goes on after the answer");
    assert!(all.iter().any(|e| e.event.as_deref() == Some("needs_input")));
    assert_eq!(all.last().unwrap().event.as_deref(), Some("completed"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_run_stops_and_its_session_takes_the_next() {
    // The first model call would take minutes; the others answer at once.
    let calls = std::sync::atomic::AtomicUsize::new(0);
    let arrived = Arc::new(tokio::sync::Notify::new());
    let (inner, signal) = (bench_handler(), Arc::clone(&arrived));
    let handler = move |req: &RecordedRequest| match calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst) {
        0 => {
            signal.notify_one();
            Reply::sse(&text_stream(&["never"])).with_delay(Duration::from_secs(300))
        }
        _ => inner(req),
    };
    let api = start("cancel", handler, |c| c).await;
    let id = api.session().await;
    let stream = api
        .req(reqwest::Method::POST, &format!("/v1/sessions/{id}/runs"))
        .json(&json!({"input": "What is 2 + 3?", "stream": true}))
        .send()
        .await
        .unwrap();
    let run_id = stream.headers()["lucid-run-id"].to_str().unwrap().to_string();
    arrived.notified().await;
    let (status, run) = api.post(&format!("/v1/runs/{run_id}/cancel"), json!({})).await;
    assert_eq!((status, run["status"].as_str()), (200, Some("cancelled")), "{run}");
    let events = parse_sse(&stream.text().await.unwrap());
    assert_eq!(events.last().unwrap().event.as_deref(), Some("cancelled"));
    let (_, next) = api.post(&format!("/v1/sessions/{id}/runs"), json!({"input": "What is 2 + 3?"})).await;
    assert_eq!(next["status"], "completed", "{next}");
    let (_, session) = api.get(&format!("/v1/sessions/{id}")).await;
    let users = session["messages"].as_array().unwrap().iter().filter(|m| m["role"] == "user").count();
    assert_eq!(users, 2, "the cancelled turn's message stays, the history valid: {session}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_openai_facade_answers_streamed_and_not_with_usage() {
    let api = start("openai", bench_handler(), |c| c).await;
    let (_, models) = api.get("/v1/models").await;
    assert_eq!(models["data"][0]["id"], "default");
    assert_eq!(models["object"], "list");
    let ask = json!({"model": "default", "messages": [{"role": "user", "content": "What is 2 + 3?"}]});
    let (status, reply) = api.post("/v1/chat/completions", ask.clone()).await;
    assert_eq!(status, 200, "{reply}");
    assert_eq!(reply["object"], "chat.completion");
    assert_eq!(reply["choices"][0]["message"]["content"], "The answer is 5.");
    assert_eq!(reply["choices"][0]["finish_reason"], "stop");
    assert_eq!(reply["usage"], json!({"prompt_tokens": 50, "completion_tokens": 15, "total_tokens": 65}));

    let mut streamed = ask.clone();
    streamed["stream"] = json!(true);
    let text = api
        .req(reqwest::Method::POST, "/v1/chat/completions")
        .json(&streamed)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let events = parse_sse(&text);
    assert_eq!(events.last().unwrap().data, "[DONE]");
    let chunks: Vec<Value> =
        events[..events.len() - 1].iter().map(|e| serde_json::from_str(&e.data).unwrap()).collect();
    assert!(chunks.iter().all(|c| c["object"] == "chat.completion.chunk"));
    let content: String = chunks.iter().filter_map(|c| c["choices"][0]["delta"]["content"].as_str()).collect();
    assert_eq!(content, "The answer is 5.");
    let last = chunks.last().unwrap();
    assert_eq!(last["choices"][0]["finish_reason"], "stop");
    assert_eq!(last["usage"]["total_tokens"], 65);

    let (status, body) = api.post("/v1/chat/completions", json!({"model": "gpt-9", "messages": []})).await;
    assert_eq!((status, error_code(&body)), (404, "model_not_found"));
    let tool = json!({"model": "default", "messages": [{"role": "tool", "content": "5"}]});
    let (status, body) = api.post("/v1/chat/completions", tool).await;
    assert_eq!(status, 400);
    // A `tool` message answers one of the client's tool calls: it must name one.
    assert!(body["error"]["message"].as_str().unwrap().starts_with("`messages[0].tool_call_id`"), "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_gives_up_runs_still_going_after_the_grace_and_a_restart_continues_them() {
    // The first model call outlives the short grace period; the one after the restart answers.
    let arrived = Arc::new(tokio::sync::Notify::new());
    let signal = Arc::clone(&arrived);
    let calls = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = Arc::clone(&calls);
    let mock = MockServer::start(move |_req: &RecordedRequest| {
        if counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst) == 0 {
            signal.notify_one();
            return Reply::sse(&text_stream(&["late"])).with_delay(Duration::from_secs(300));
        }
        Reply::sse(&text_stream(&["Hello ", "again."]))
    })
    .await;
    let mock = Arc::new(mock);
    let model = lucid::model::OpenAiCompatible::new(&format!("{}/v1", mock.url()), None, "mock").unwrap();
    let agent = Agent::builder(model).build();
    let dir = temp_dir("shutdown");
    let config =
        || ServerConfig::new(dir.0.join("serve.db")).agent("default", agent.clone()).grace(Duration::from_millis(100));
    let server = Server::open(config()).await.unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let api = Api::at(format!("http://{}", listener.local_addr().unwrap()), &mock);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(server.serve(listener, async {
        let _ = stopped.await;
    }));
    let id = api.session().await;
    let stream = api
        .req(reqwest::Method::POST, &format!("/v1/sessions/{id}/runs"))
        .json(&json!({"input": "hi", "stream": true}))
        .send()
        .await
        .unwrap();
    let run_id = stream.headers()["lucid-run-id"].to_str().unwrap().to_string();
    arrived.notified().await;
    stop.send(()).unwrap();
    let before = parse_sse(&stream.text().await.unwrap());
    assert!(
        before.iter().all(|e| !matches!(e.event.as_deref(), Some("cancelled" | "completed" | "error"))),
        "given up, not ended: {before:?}"
    );
    serving.await.unwrap().unwrap();

    // The same database opened again: the run is continued from its last step and ends.
    let api = Api::at(listen(Server::open(config()).await.unwrap()).await, &mock);
    let last = before.last().and_then(|e| e.id).unwrap();
    let after = api
        .req(reqwest::Method::GET, &format!("/v1/runs/{run_id}/events"))
        .header("last-event-id", last.to_string())
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let after = parse_sse(&after);
    assert_eq!(after.last().unwrap().event.as_deref(), Some("completed"), "{after:?}");
    let ids: Vec<u64> = before.iter().chain(&after).filter_map(|e| e.id).collect();
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "every event once, in order: {ids:?}");
    let (_, run) = api.get(&format!("/v1/runs/{run_id}")).await;
    assert_eq!((run["status"].as_str(), run["result"]["content"].as_str()), (Some("completed"), Some("Hello again.")));
    let (_, session) = api.get(&format!("/v1/sessions/{id}")).await;
    let contents: Vec<&str> =
        session["messages"].as_array().unwrap().iter().filter_map(|m| m["content"].as_str()).collect();
    assert_eq!(contents, ["hi", "Hello again."], "the input once, then the answer: {session}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_left_going_by_a_dead_process_is_continued_at_the_next_start() {
    let dir = temp_dir("abandoned");
    // A process that died before its turn's first step leaves its row `running` with a
    // lease that expired; write one as it would.
    let db = dir.0.join("serve.db");
    let model = lucid::model::OpenAiCompatible::new("http://127.0.0.1:9/v1", None, "mock").unwrap();
    let server = Server::open(ServerConfig::new(&db).agent("default", Agent::builder(model).build())).await.unwrap();
    drop(server);
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch(
        "INSERT INTO serve_sessions (id, tenant, agent, metadata, created_at) VALUES ('sess_x', 'local', 'default', '{}', 1);
         INSERT INTO serve_runs (id, tenant, session_id, status, created_at, updated_at, owner, lease_until, input)
             VALUES ('run_x', 'local', 'sess_x', 'running', 1, 1, 'elsewhere:1:0', 1, 'What is 2 + 3?');",
    )
    .unwrap();
    drop(conn);
    let mock = Arc::new(MockServer::start(bench_handler()).await);
    let model = lucid::model::OpenAiCompatible::new(&format!("{}/v1", mock.url()), None, "mock").unwrap();
    let server =
        Server::open(ServerConfig::new(&db).agent("default", Agent::builder(model).tool(add).build())).await.unwrap();
    let api = Api::at(listen(server).await, &mock);
    let events = api.req(reqwest::Method::GET, "/v1/runs/run_x/events").send().await.unwrap().text().await.unwrap();
    let events = parse_sse(&events);
    assert_eq!(events.last().unwrap().event.as_deref(), Some("completed"), "{events:?}");
    assert!(events.iter().all(|e| e.id.unwrap() > 1 << 32), "numbered as the run's second owner: {events:?}");
    let (_, run) = api.get("/v1/runs/run_x").await;
    assert_eq!(
        (run["status"].as_str(), run["result"]["content"].as_str()),
        (Some("completed"), Some("The answer is 5."))
    );
    let (_, next) = api.post("/v1/sessions/sess_x/runs", json!({"input": "What is 2 + 3?"})).await;
    assert_eq!(next["status"], "completed", "{next}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_provider_key_never_reaches_a_client_or_the_metrics() {
    const KEY: &str = "sk-provider-secret-0123456789";
    // A provider that quotes the key back in its error, as some gateways do.
    let mock = MockServer::start(|_req: &RecordedRequest| {
        Reply::json(401, &json!({"error": {"message": format!("Incorrect API key provided: {KEY}"), "type": "invalid_request_error"}}))
    })
    .await;
    let model = lucid::model::OpenAiCompatible::new(&format!("{}/v1", mock.url()), Some(KEY.into()), "mock").unwrap();
    let api = start_agent("secret", mock, Agent::builder(model).build(), |c| c).await;
    let (url, http) = (&api.url, &api.http);
    let id = api.session().await;
    let run = http
        .post(format!("{url}/v1/sessions/{id}/runs"))
        .json(&json!({"input": "hi"}))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let run_json: Value = serde_json::from_str(&run).unwrap();
    assert_eq!(
        (run_json["status"].as_str(), run_json["error"]["code"].as_str()),
        (Some("failed"), Some("provider_error")),
        "{run}"
    );
    let events = http
        .get(format!("{url}/v1/runs/{}/events", run_json["id"].as_str().unwrap()))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let ask = json!({"model": "default", "messages": [{"role": "user", "content": "hi"}]});
    let facade = http.post(format!("{url}/v1/chat/completions")).json(&ask).send().await.unwrap();
    assert_eq!(facade.status().as_u16(), 502);
    let facade = facade.text().await.unwrap();
    let metrics = http.get(format!("{url}/metrics")).send().await.unwrap().text().await.unwrap();
    for (what, text) in [("run", &run), ("events", &events), ("facade", &facade), ("metrics", &metrics)] {
        assert!(!text.contains(KEY), "the key is in the {what}: {text}");
    }
    assert!(run.contains("Incorrect API key provided: ***"), "the provider's words stay, the key redacted: {run}");
}
