//! What the tests of tenants' data share: a `Server` on loopback in a fresh folder, a plain
//! HTTP client of it, and Server-Sent Events parsed. Each test file uses part of it.
#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::Arc;

use lucid::Agent;
use lucid_server::{Server, ServerConfig};
use serde_json::Value;

/// Adds two integers: the tool of the agent under test.
#[lucid::prelude::tool]
pub async fn add(
    /// first operand
    a: i64,
    /// second operand
    b: i64,
) -> Result<i64, lucid::ToolError> {
    Ok(a + b)
}

/// The agent `default`: system prompt "You add numbers.", tool `add`, on the mock.
pub fn adder(mock: &lucid_mock::MockServer) -> Agent {
    let llm = lucid::model::OpenAiCompatible::new(&format!("{}/v1", mock.url()), None, "mock").unwrap();
    Agent::builder(llm).system("You add numbers.").tool(add).build()
}

/// Runs the Node script `script` with `args`: its standard output, read as JSON (the test
/// fails with the script's standard error when it fails).
pub async fn node_json(script: &'static str, args: Vec<String>) -> Value {
    let out = tokio::task::spawn_blocking(move || {
        std::process::Command::new("node").arg(script).args(args).output().unwrap()
    })
    .await
    .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the script failed:\n{stderr}");
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\n{stderr}", String::from_utf8_lossy(&out.stdout)))
}

/// A folder removed when the test ends.
pub struct TempDir(pub PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A fresh folder named after the test.
pub fn temp_dir(name: &str) -> TempDir {
    let dir = std::env::temp_dir().join(format!("lucid-server-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    TempDir(dir)
}

/// A client of a server under test.
pub struct Api {
    pub url: String,
    pub http: reqwest::Client,
    pub key: Option<String>,
    /// The server's folder.
    pub dir: Arc<TempDir>,
}

/// Serves `server` on a free loopback port until the test ends; its base URL.
pub async fn listen(server: Server) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(server.serve(listener, std::future::pending()));
    url
}

/// A server with `agent` as `default`, its SQLite database `serve.db` in a new folder
/// `name`; `tune` adjusts the configuration.
pub async fn start(name: &str, agent: Agent, tune: impl FnOnce(ServerConfig) -> ServerConfig) -> Api {
    let dir = temp_dir(name);
    let database = dir.0.join("serve.db").into();
    start_on(dir, database, agent, tune).await
}

/// A server with `agent` as `default` on `database`, `dir` its folder.
pub async fn start_on(
    dir: TempDir,
    database: lucid_server::Database,
    agent: Agent,
    tune: impl FnOnce(ServerConfig) -> ServerConfig,
) -> Api {
    let config = tune(ServerConfig::new(database).agent("default", agent));
    Api {
        url: listen(Server::open(config).await.unwrap()).await,
        http: lucid::model::http::reqwest_client_builder().build().unwrap(),
        key: None,
        dir: Arc::new(dir),
    }
}

impl Api {
    /// The same server, as the tenant of `key`.
    pub fn as_key(&self, key: &str) -> Api {
        Api { url: self.url.clone(), http: self.http.clone(), key: Some(key.to_string()), dir: Arc::clone(&self.dir) }
    }

    pub fn req(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        let r = self.http.request(method, format!("{}{path}", self.url));
        match &self.key {
            Some(k) => r.bearer_auth(k),
            None => r,
        }
    }

    /// The status and body (JSON, else the text as a JSON string).
    pub async fn send(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> (u16, Value) {
        let (status, text) = self.send_text(method, path, body).await;
        (status, serde_json::from_str(&text).unwrap_or(Value::String(text)))
    }

    /// The status and the body's text.
    pub async fn send_text(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> (u16, String) {
        let mut r = self.req(method, path);
        if let Some(b) = body {
            r = r.json(&b);
        }
        let resp = r.send().await.unwrap();
        (resp.status().as_u16(), resp.text().await.unwrap())
    }

    pub async fn post(&self, path: &str, body: Value) -> (u16, Value) {
        self.send(reqwest::Method::POST, path, Some(body)).await
    }

    pub async fn get(&self, path: &str) -> (u16, Value) {
        self.send(reqwest::Method::GET, path, None).await
    }

    pub async fn get_text(&self, path: &str) -> String {
        self.send_text(reqwest::Method::GET, path, None).await.1
    }

    /// A new session of `default`; its id.
    pub async fn session(&self) -> String {
        let (status, s) = self.post("/v1/sessions", serde_json::json!({"agent": "default"})).await;
        assert_eq!(status, 201, "{s}");
        s["id"].as_str().unwrap().to_string()
    }
}

/// The body of the answer to `request`, as text.
pub async fn body_text(request: reqwest::RequestBuilder) -> String {
    request.send().await.unwrap().text().await.unwrap()
}

/// One Server-Sent Event.
#[derive(Debug, Clone, PartialEq)]
pub struct Sse {
    pub id: Option<u64>,
    pub event: Option<String>,
    pub data: String,
}

pub fn parse_sse(text: &str) -> Vec<Sse> {
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

/// The test Postgres server (`LUCID_TEST_POSTGRES_URL`): `None` (the test prints why and
/// skips) when unset, a failure under `CI=true`, where `.ci/run` starts one.
pub fn postgres_url() -> Option<String> {
    real_part("LUCID_TEST_POSTGRES_URL", ".ci/run starts PostgreSQL and sets it")
}

pub use lucid_mock::real_part;

#[cfg(feature = "postgres")]
#[allow(unused_imports, reason = "each test binary includes this module; some use no Postgres")]
pub use lucid_mock::PgDatabase;

pub fn error_code(body: &Value) -> &str {
    body["error"]["code"].as_str().unwrap_or_else(|| panic!("not the error shape: {body}"))
}
