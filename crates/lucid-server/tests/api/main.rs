//! The HTTP API end to end: a `Server` on loopback whose agents talk to the scripted
//! OpenAI-compatible mock, driven by a plain HTTP client. `runs`: sessions and runs;
//! `tenants`: what each tenant sees; `restarts`: shutdown and restart.

#[path = "../common/mod.rs"]
mod common;
mod restarts;
mod runs;
mod tenants;

use std::sync::Arc;
use std::time::Duration;

use common::{Sse, add, body_text, parse_sse};
use lucid::prelude::*;
use lucid::tool::AskUser;
use lucid_mock::{MockServer, RecordedRequest, Reply, bench_handler, text_stream, tool_call_stream};
use lucid_server::{ApiKeys, Server, ServerConfig};
use serde_json::{Value, json};

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
fn error_code(body: &Value) -> &str {
    body["error"]["code"].as_str().unwrap_or_else(|| panic!("not the error shape: {body}"))
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
