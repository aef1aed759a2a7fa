//! A scripted OpenAI-compatible server on loopback, for tests and benchmarks.
//!
//! [`MockServer::start`] serves replies chosen by a handler; [`MockServer::sequence`]
//! serves a fixed list of replies in order. Every request is recorded so tests can assert
//! the exact body Lucid sent. [`bench_handler`] answers the `lucid-bench` task (a tool call
//! `add {"a": 2, "b": 3}`, then `"The answer is 5."`), streamed or not as asked, with
//! pre-built bodies so the server costs as little as possible; at `/v1/responses` it
//! answers the same task through a strict, stateless Responses API ([`responses`]).

use std::collections::VecDeque;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use futures::StreamExt;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

pub mod eval;
pub mod images;
pub mod responses;

/// A request the server received.
#[derive(Debug, Clone)]
pub struct RecordedRequest {
    /// Request path (`/v1/chat/completions`).
    pub path: String,
    /// Headers, lower-case names.
    pub headers: Vec<(String, String)>,
    /// Raw body.
    pub body: Bytes,
}

impl RecordedRequest {
    /// The body parsed as JSON (`Null` when it is not JSON).
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or(Value::Null)
    }

    /// A header's value.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    /// The text of the last `user` message of a Chat Completions body (`""` when none).
    pub fn last_user(&self) -> String {
        let body = self.json();
        body["messages"]
            .as_array()
            .and_then(|m| m.iter().rev().find(|m| m["role"] == "user"))
            .and_then(|m| m["content"].as_str())
            .unwrap_or_default()
            .to_string()
    }
}

/// One scripted reply.
#[derive(Debug, Clone)]
pub enum Reply {
    /// A complete body.
    Body {
        /// HTTP status.
        status: u16,
        /// Extra headers.
        headers: Vec<(String, String)>,
        /// Content type.
        content_type: &'static str,
        /// The body.
        body: Bytes,
    },
    /// A streamed SSE body sent in these chunks.
    Sse {
        /// Raw chunks (framing included).
        chunks: Vec<Bytes>,
        /// Pause before each chunk.
        delay: Duration,
        /// Drop the connection after the chunks instead of ending the body cleanly.
        cut: bool,
    },
    /// Holds the reply until as many requests wait at `gate` as it was made for (proof that
    /// they were in flight at the same time); answers 504 if the others do not come within
    /// `timeout`.
    Gate {
        /// Where the requests meet.
        gate: Arc<tokio::sync::Barrier>,
        /// How long to wait for the others.
        timeout: Duration,
        /// The reply once they are all there.
        reply: Box<Reply>,
    },
}

impl Reply {
    /// A JSON body with a status.
    pub fn json(status: u16, body: &Value) -> Reply {
        Reply::Body { status, headers: vec![], content_type: "application/json", body: Bytes::from(body.to_string()) }
    }

    /// Adds a response header.
    pub fn with_header(mut self, name: &str, value: &str) -> Reply {
        if let Reply::Body { headers, .. } = &mut self {
            headers.push((name.to_string(), value.to_string()));
        }
        self
    }

    /// A complete SSE body made of these `data:` payloads (each becomes one chunk), ending
    /// with `data: [DONE]`.
    pub fn sse(payloads: &[Value]) -> Reply {
        let mut chunks: Vec<Bytes> = payloads.iter().map(|p| Bytes::from(format!("data: {p}\n\n"))).collect();
        chunks.push(Bytes::from_static(b"data: [DONE]\n\n"));
        Reply::Sse { chunks, delay: Duration::ZERO, cut: false }
    }

    /// Pauses before each SSE chunk.
    pub fn with_delay(mut self, d: Duration) -> Reply {
        if let Reply::Sse { delay, .. } = &mut self {
            *delay = d;
        }
        self
    }

    /// Holds this reply until every request sharing `gate` has arrived (see [`Reply::Gate`]).
    pub fn behind(self, gate: &Arc<tokio::sync::Barrier>, timeout: Duration) -> Reply {
        Reply::Gate { gate: Arc::clone(gate), timeout, reply: Box::new(self) }
    }

    /// Keeps only the first `n` SSE chunks, then drops the connection.
    pub fn cut_after(mut self, n: usize) -> Reply {
        if let Reply::Sse { chunks, cut, .. } = &mut self {
            chunks.truncate(n);
            *cut = true;
        }
        self
    }
}

/// A text answer: streamed in two pieces (split at the middle character boundary) when
/// `stream`, else one `chat.completion`.
pub fn text_reply(stream: bool, text: &str) -> Reply {
    if stream {
        let mid = (0..=text.len() / 2).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
        Reply::sse(&text_stream(&[&text[..mid], &text[mid..]]))
    } else {
        Reply::json(200, &text_completion(text))
    }
}

/// An answer calling tools `(id, name, arguments JSON text)`: streamed when `stream`, else
/// one `chat.completion`.
pub fn tool_call_reply(stream: bool, calls: &[(&str, &str, &str)]) -> Reply {
    if stream { Reply::sse(&tool_call_stream(calls)) } else { Reply::json(200, &tool_call_completion(calls)) }
}

/// A handler whose model does as the user says: a user message `[[id, tool, {args}], …]`
/// is those calls (none, or not such a list: the text "nothing to do"); after tool results,
/// an answer listing every result of the step, `results: r1 | r2 | …`. It streams when the
/// request asks to.
///
/// ```
/// use lucid_mock::{RecordedRequest, Reply, calls_as_told};
/// let said = serde_json::json!({"messages": [{"role": "user", "content": r#"[["c1", "add", {"a": 1}]]"#}]});
/// let req = RecordedRequest { path: "/v1/chat/completions".into(), headers: vec![], body: said.to_string().into() };
/// let Reply::Body { status, body, .. } = calls_as_told(&req) else { panic!("a body") };
/// assert_eq!(status, 200);
/// assert!(String::from_utf8_lossy(&body).contains(r#""name":"add""#));
/// ```
pub fn calls_as_told(req: &RecordedRequest) -> Reply {
    let body = req.json();
    let stream = body["stream"] == true;
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let last = messages.last().cloned().unwrap_or(Value::Null);
    if last["role"] == "tool" {
        let from = messages.iter().rposition(|m| m["role"] == "assistant").unwrap_or(0);
        let results: Vec<&str> = messages[from..].iter().filter_map(|m| m["content"].as_str()).collect();
        let text = format!("results: {}", results.join(" | "));
        return if stream { Reply::sse(&text_stream(&[&text])) } else { Reply::json(200, &text_completion(&text)) };
    }
    let said: Value = serde_json::from_str(last["content"].as_str().unwrap_or("[]")).unwrap_or(json!([]));
    let calls: Vec<(String, String, String)> = said
        .as_array()
        .map(|a| {
            a.iter()
                .map(|c| {
                    (
                        c[0].as_str().unwrap_or_default().into(),
                        c[1].as_str().unwrap_or_default().into(),
                        c[2].to_string(),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    if calls.is_empty() {
        return Reply::json(200, &text_completion("nothing to do"));
    }
    let calls: Vec<(&str, &str, &str)> = calls.iter().map(|(a, b, c)| (a.as_str(), b.as_str(), c.as_str())).collect();
    tool_call_reply(stream, &calls)
}

/// An OpenAI `chat.completion` answering with text.
pub fn text_completion(text: &str) -> Value {
    json!({
        "id": "chatcmpl-mock", "object": "chat.completion", "created": 0, "model": "mock",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 20, "completion_tokens": 5, "total_tokens": 25}
    })
}

/// An OpenAI `chat.completion` answering with tool calls `(id, name, arguments JSON text)`.
pub fn tool_call_completion(calls: &[(&str, &str, &str)]) -> Value {
    let calls: Vec<Value> = calls
        .iter()
        .map(|(id, name, args)| json!({"id": id, "type": "function", "function": {"name": name, "arguments": args}}))
        .collect();
    json!({
        "id": "chatcmpl-mock", "object": "chat.completion", "created": 0, "model": "mock",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": null, "tool_calls": calls}, "finish_reason": "tool_calls"}],
        "usage": {"prompt_tokens": 30, "completion_tokens": 10, "total_tokens": 40}
    })
}

/// Stream chunks answering with text, split into the given pieces, then a usage chunk.
pub fn text_stream(pieces: &[&str]) -> Vec<Value> {
    let mut v = vec![chunk(json!({"role": "assistant", "content": ""}), None)];
    v.extend(pieces.iter().map(|p| chunk(json!({"content": p}), None)));
    v.push(chunk(json!({}), Some("stop")));
    v.push(json!({"id": "chatcmpl-mock", "object": "chat.completion.chunk", "model": "mock", "choices": [],
                  "usage": {"prompt_tokens": 20, "completion_tokens": 5, "total_tokens": 25}}));
    v
}

/// Stream chunks answering with tool calls, arguments split in two fragments each.
pub fn tool_call_stream(calls: &[(&str, &str, &str)]) -> Vec<Value> {
    let mut v = vec![chunk(json!({"role": "assistant", "content": null}), None)];
    for (i, (id, name, args)) in calls.iter().enumerate() {
        let mid = args.len() / 2;
        let mid = (0..=mid).rev().find(|m| args.is_char_boundary(*m)).unwrap_or(0);
        v.push(chunk(json!({"tool_calls": [{"index": i, "id": id, "type": "function", "function": {"name": name, "arguments": ""}}]}), None));
        v.push(chunk(json!({"tool_calls": [{"index": i, "function": {"arguments": &args[..mid]}}]}), None));
        v.push(chunk(json!({"tool_calls": [{"index": i, "function": {"arguments": &args[mid..]}}]}), None));
    }
    v.push(chunk(json!({}), Some("tool_calls")));
    v.push(json!({"id": "chatcmpl-mock", "object": "chat.completion.chunk", "model": "mock", "choices": [],
                  "usage": {"prompt_tokens": 30, "completion_tokens": 10, "total_tokens": 40}}));
    v
}

fn chunk(delta: Value, finish: Option<&str>) -> Value {
    json!({"id": "chatcmpl-mock", "object": "chat.completion.chunk", "model": "mock",
           "choices": [{"index": 0, "delta": delta, "finish_reason": finish}], "usage": null})
}

type Handler = dyn Fn(&RecordedRequest) -> Reply + Send + Sync;

/// A running server; stopped when dropped.
pub struct MockServer {
    addr: SocketAddr,
    requests: Arc<Mutex<Vec<RecordedRequest>>>,
    task: JoinHandle<()>,
}

impl Drop for MockServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl MockServer {
    /// Starts a server on `127.0.0.1` (port chosen by the OS) answering with `handler`.
    pub async fn start(handler: impl Fn(&RecordedRequest) -> Reply + Send + Sync + 'static) -> MockServer {
        Self::start_on(0, Arc::new(handler), true).await.expect("bind a loopback port")
    }

    /// Starts a server serving `replies` in order (then 500s saying the script ran out).
    pub async fn sequence(replies: Vec<Reply>) -> MockServer {
        let queue = Mutex::new(VecDeque::from(replies));
        Self::start(move |_| {
            queue.lock().ok().and_then(|mut q| q.pop_front()).unwrap_or_else(|| {
                Reply::json(500, &json!({"error": {"message": "mock script exhausted", "type": "server_error"}}))
            })
        })
        .await
    }

    /// Starts a server on `port`; `record` keeps every request for [`MockServer::requests`].
    pub async fn start_on(port: u16, handler: Arc<Handler>, record: bool) -> std::io::Result<MockServer> {
        let listener = TcpListener::bind(("127.0.0.1", port)).await?;
        let addr = listener.local_addr()?;
        let requests = Arc::new(Mutex::new(Vec::new()));
        let log = requests.clone();
        let task = tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    continue;
                };
                let _ = stream.set_nodelay(true);
                let handler = handler.clone();
                let log = log.clone();
                tokio::spawn(async move {
                    let service = service_fn(move |req: Request<Incoming>| {
                        let handler = handler.clone();
                        let log = log.clone();
                        async move { Ok::<_, Infallible>(serve(req, &*handler, record.then_some(&*log)).await) }
                    });
                    let _ = http1::Builder::new().serve_connection(TokioIo::new(stream), service).await;
                });
            }
        });
        Ok(MockServer { addr, requests, task })
    }

    /// The OpenAI-style base URL, ending in `/v1`.
    pub fn url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// The socket address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Every request received so far.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.requests.lock().map(|r| r.clone()).unwrap_or_default()
    }
}

type Body = BoxBody<Bytes, std::io::Error>;

async fn serve(req: Request<Incoming>, handler: &Handler, log: Option<&Mutex<Vec<RecordedRequest>>>) -> Response<Body> {
    let path = req.uri().path().to_string();
    // A client asking what the server is (llama.cpp's `GET /props`, vLLM's `GET
    // /v1/models`, Ollama's `POST /api/show`) is not a model call: 404, not recorded, not
    // given to the script.
    if req.method() == hyper::Method::GET || path.ends_with("/api/show") {
        return Response::builder()
            .status(404)
            .header("content-type", "application/json")
            .body(
                Full::new(Bytes::from_static(br#"{"error": {"message": "not a model call"}}"#))
                    .map_err(|never| match never {})
                    .boxed(),
            )
            .unwrap_or_else(|_| Response::new(empty()));
    }
    let headers =
        req.headers().iter().map(|(k, v)| (k.as_str().to_string(), v.to_str().unwrap_or("").to_string())).collect();
    let body = req.into_body().collect().await.map(|b| b.to_bytes()).unwrap_or_default();
    let recorded = RecordedRequest { path, headers, body };
    let mut reply = handler(&recorded);
    if let Some(mut l) = log.and_then(|log| log.lock().ok()) {
        l.push(recorded);
    }
    while let Reply::Gate { gate, timeout, reply: inner } = reply {
        reply = match tokio::time::timeout(timeout, gate.wait()).await {
            Ok(_) => *inner,
            Err(_) => Reply::json(
                504,
                &json!({"error": {"message": "the other gated requests never arrived", "type": "gate_timeout"}}),
            ),
        };
    }
    match reply {
        Reply::Body { status, headers, content_type, body } => {
            let mut b = Response::builder().status(status).header("content-type", content_type);
            for (k, v) in headers {
                b = b.header(k, v);
            }
            b.body(Full::new(body).map_err(|never| match never {}).boxed()).unwrap_or_else(|_| Response::new(empty()))
        }
        Reply::Sse { chunks, delay, cut } => {
            let frames = futures::stream::iter(chunks).then(move |c| async move {
                if !delay.is_zero() {
                    tokio::time::sleep(delay).await;
                }
                Ok::<_, std::io::Error>(Frame::data(c))
            });
            let tail = futures::stream::iter(cut.then(|| Err(std::io::Error::other("connection cut by the script"))));
            Response::builder()
                .status(200)
                .header("content-type", "text/event-stream")
                .body(BodyExt::boxed(StreamBody::new(frames.chain(tail))))
                .unwrap_or_else(|_| Response::new(empty()))
        }
        Reply::Gate { .. } => unreachable!("gates are opened above"),
    }
}

fn empty() -> Body {
    Full::new(Bytes::new()).map_err(|never| match never {}).boxed()
}

/// Pre-built replies for the `lucid-bench` task.
#[derive(Debug, Clone)]
pub struct BenchReplies {
    tool_json: Bytes,
    answer_json: Bytes,
    tool_sse: Vec<Bytes>,
    answer_sse: Vec<Bytes>,
}

impl Default for BenchReplies {
    fn default() -> Self {
        let sse = |payloads: Vec<Value>| {
            let mut v: Vec<Bytes> = payloads.iter().map(|p| Bytes::from(format!("data: {p}\n\n"))).collect();
            v.push(Bytes::from_static(b"data: [DONE]\n\n"));
            v
        };
        BenchReplies {
            tool_json: Bytes::from(tool_call_completion(&[("call_add_1", "add", r#"{"a": 2, "b": 3}"#)]).to_string()),
            answer_json: Bytes::from(text_completion("The answer is 5.").to_string()),
            tool_sse: sse(tool_call_stream(&[("call_add_1", "add", r#"{"a": 2, "b": 3}"#)])),
            answer_sse: sse(text_stream(&["The answer", " is 5."])),
        }
    }
}

/// Answers the benchmark task: a tool call first, the final answer once the request
/// carries a tool result; streamed when the request says `"stream": true`. Requests to
/// `…/responses` go to a [`responses::ResponsesServer`].
pub fn bench_handler() -> impl Fn(&RecordedRequest) -> Reply + Send + Sync + 'static {
    let r = BenchReplies::default();
    let responses = responses::ResponsesServer::default();
    move |req| {
        if req.path.ends_with("/responses") {
            return responses.reply(req);
        }
        let body = &req.body[..];
        let has_tool_result = contains(body, br#""role":"tool""#) || contains(body, br#""role": "tool""#);
        let stream = contains(body, br#""stream":true"#) || contains(body, br#""stream": true"#);
        match (stream, has_tool_result) {
            (false, false) => body_reply(&r.tool_json),
            (false, true) => body_reply(&r.answer_json),
            (true, false) => Reply::Sse { chunks: r.tool_sse.clone(), delay: Duration::ZERO, cut: false },
            (true, true) => Reply::Sse { chunks: r.answer_sse.clone(), delay: Duration::ZERO, cut: false },
        }
    }
}

fn body_reply(b: &Bytes) -> Reply {
    Reply::Body { status: 200, headers: vec![], content_type: "application/json", body: b.clone() }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// A real part a test needs (a database, a real client's interpreter…), named by the
/// environment variable `var`: its value, or `None` when unset — the test prints why and
/// skips — and a panic under `CI=true`, where `.ci/run` sets it (`how` says so).
///
/// ```
/// // Unset outside CI: the test skips with a printed reason.
/// if std::env::var("CI").as_deref() != Ok("true") {
///     assert_eq!(lucid_mock::real_part("LUCID_TEST_NOTHING_SUCH", ".ci/run never sets it"), None);
/// }
/// ```
pub fn real_part(var: &str, how: &str) -> Option<String> {
    match std::env::var(var) {
        Ok(v) if !v.is_empty() => Some(v),
        _ if std::env::var("CI").is_ok_and(|v| v == "true") => panic!("{var} is not set under CI=true; {how}"),
        _ => {
            eprintln!("skipped: {var} is not set ({how})");
            None
        }
    }
}

/// Whether a live (not zombie) process of this system has `marker` in its command line
/// (Linux: read from `/proc`; elsewhere always false).
pub fn running(marker: &str) -> bool {
    std::fs::read_dir("/proc").into_iter().flatten().flatten().any(|e| {
        let dir = e.path();
        let cmdline = std::fs::read(dir.join("cmdline")).unwrap_or_default();
        let stat = std::fs::read_to_string(dir.join("stat")).unwrap_or_default();
        let zombie = stat.rsplit_once(')').is_some_and(|(_, s)| s.trim_start().starts_with('Z'));
        !zombie && String::from_utf8_lossy(&cmdline).contains(marker)
    })
}

/// The test Postgres server (`LUCID_TEST_POSTGRES_URL`, a [`real_part`]).
pub fn postgres_url() -> Option<String> {
    real_part("LUCID_TEST_POSTGRES_URL", ".ci/run starts a Postgres with pgvector and sets it")
}

/// A database of its own on the test Postgres server for one test (tables are shared by
/// everything on a database), created afresh and dropped with [`PgDatabase::drop_now`].
#[derive(Debug)]
pub struct PgDatabase {
    admin: String,
    /// Its name: the name asked for and this process's id.
    pub name: String,
    /// Its URL: the admin URL's server, user and query, this database.
    pub url: String,
}

impl PgDatabase {
    /// Creates `name` (with this process's id) on the server of `admin`, an URL, dropping
    /// one left by an earlier run.
    pub async fn create(admin: &str, name: &str) -> PgDatabase {
        let name = format!("{name}_{}", std::process::id());
        execute(admin, &format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)")).await;
        execute(admin, &format!("CREATE DATABASE {name}")).await;
        let (base, query) = admin.split_once('?').map_or((admin, None), |(b, q)| (b, Some(q)));
        let base = base.rsplit_once('/').map_or(base, |(b, _)| b);
        let url = format!("{base}/{name}{}", query.map_or(String::new(), |q| format!("?{q}")));
        PgDatabase { admin: admin.to_string(), name, url }
    }

    /// Drops it (its connections closed by force).
    pub async fn drop_now(self) {
        execute(&self.admin, &format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name)).await;
    }
}

/// Runs `sql` on the server of `admin` (a test's setup: panics on failure).
async fn execute(admin: &str, sql: &str) {
    let (client, conn) = tokio_postgres::connect(admin, tokio_postgres::NoTls).await.expect("the test Postgres server");
    tokio::spawn(conn);
    client.batch_execute(sql).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
}

/// The `PATH` under which a test runs `go`: the folder in `LUCID_TEST_GO` (where
/// `.ci/go.sh` unpacks Debian's golang-go) first, then the process's own. `None`, with the
/// reason printed, when no `go` runs there, even under `CI=true` (Go may skip).
pub fn go_path() -> Option<String> {
    let inherited = std::env::var("PATH").unwrap_or_default();
    let path = match std::env::var("LUCID_TEST_GO").ok().filter(|g| !g.is_empty()) {
        Some(bin) => format!("{bin}:{inherited}"),
        None => inherited,
    };
    let found = std::process::Command::new("go").arg("version").env("PATH", &path).output();
    if !found.is_ok_and(|o| o.status.success()) {
        eprintln!("skipped: go is not on PATH and LUCID_TEST_GO is not set (.ci/go.sh unpacks Debian's golang-go)");
        return None;
    }
    Some(path)
}
