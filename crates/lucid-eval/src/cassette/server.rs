//! The loopback server between an agent and its provider: records or replays each case
//! attempt's exchanges on a tape of its own.

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tokio::net::TcpListener;

use super::tape::Tape;
use super::{CASSETTE_FORMAT, Cassette, CassetteError, Exchange};

/// The largest request or recorded response the server holds (a model's answer is far
/// smaller).
const MAX_BODY: usize = 64 * 1024 * 1024;

/// Where the answers come from.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Mode {
    /// Forward every request to the provider at `upstream` (its base URL, the one the
    /// agent would use) and keep the exchanges in `dir`.
    Record {
        /// The cassettes' folder.
        dir: PathBuf,
        /// The provider's base URL.
        upstream: String,
    },
    /// Answer from the cassettes in `dir`, with no network.
    Replay {
        /// The cassettes' folder.
        dir: PathBuf,
    },
}

impl Mode {
    /// `record` or `replay`.
    pub fn name(&self) -> &'static str {
        match self {
            Mode::Record { .. } => "record",
            Mode::Replay { .. } => "replay",
        }
    }
}

/// What one attempt's tape holds once it is closed.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct TapeResult {
    /// The exchanges that happened.
    pub exchanges: Vec<Exchange>,
    /// Why the replay did not match its cassette, when it did not.
    pub mismatch: Option<String>,
}

struct State {
    mode: Mode,
    client: Option<reqwest::Client>,
    tapes: Mutex<HashMap<u64, (String, u32, Tape)>>,
    next: std::sync::atomic::AtomicU64,
}

/// The cassette server, on 127.0.0.1; it stops when dropped.
///
/// ```no_run
/// # async fn demo() -> Result<(), lucid_eval::cassette::CassetteError> {
/// use lucid_eval::cassette::{CassetteServer, Mode};
/// let server = CassetteServer::start(Mode::Replay { dir: "tests/cassettes".into() }).await?;
/// let (tape, base_url) = server.open("two plus two", 0)?;
/// // … run the agent with `base_url` as its provider's base URL …
/// let result = server.close(tape)?;
/// assert!(result.mismatch.is_none());
/// # Ok(()) }
/// ```
pub struct CassetteServer {
    addr: SocketAddr,
    state: Arc<State>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for CassetteServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl std::fmt::Debug for CassetteServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CassetteServer").field("addr", &self.addr).field("mode", &self.state.mode).finish()
    }
}

impl CassetteServer {
    /// Starts the server on a free loopback port.
    pub async fn start(mode: Mode) -> Result<CassetteServer, CassetteError> {
        let client = match &mode {
            Mode::Record { .. } => Some(
                lucid::model::http::reqwest_client_builder()
                    .build()
                    .map_err(|e| CassetteError::Server(std::io::Error::other(e)))?,
            ),
            Mode::Replay { .. } => None,
        };
        let listener = TcpListener::bind(("127.0.0.1", 0)).await.map_err(CassetteError::Server)?;
        let addr = listener.local_addr().map_err(CassetteError::Server)?;
        let state = Arc::new(State { mode, client, tapes: Mutex::default(), next: Default::default() });
        let shared = state.clone();
        let task = tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else { continue };
                let state = shared.clone();
                tokio::spawn(async move {
                    let service = service_fn(move |req| {
                        let state = state.clone();
                        async move { Ok::<_, Infallible>(handle(&state, req).await) }
                    });
                    let _ = http1::Builder::new().serve_connection(TokioIo::new(stream), service).await;
                });
            }
        });
        Ok(CassetteServer { addr, state, task })
    }

    /// Whether it records or replays.
    pub fn mode(&self) -> &Mode {
        &self.state.mode
    }

    /// Opens the tape of a case attempt: returns its handle and the base URL to give the
    /// agent's provider. Replaying, the cassette is read now (a missing one is an error).
    pub fn open(&self, case: &str, repeat: u32) -> Result<(u64, String), CassetteError> {
        let recorded = match &self.state.mode {
            Mode::Replay { dir } => Some(Cassette::load(dir, case, repeat)?.exchanges),
            Mode::Record { .. } => None,
        };
        let id = self.state.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let tape = Tape { recorded, ..Tape::default() };
        self.state.tapes.lock().expect("tapes").insert(id, (case.to_string(), repeat, tape));
        Ok((id, format!("http://{}/tape/{id}", self.addr)))
    }

    /// Closes a tape: recording, writes its cassette; replaying, says whether the attempt
    /// matched it to the end.
    pub fn close(&self, tape: u64) -> Result<TapeResult, CassetteError> {
        let Some((case, repeat, tape)) = self.state.tapes.lock().expect("tapes").remove(&tape) else {
            return Ok(TapeResult::default());
        };
        let mismatch = tape.verdict();
        if let Mode::Record { dir, .. } = &self.state.mode {
            let cassette = Cassette { format: CASSETTE_FORMAT, case, repeat, exchanges: tape.taken.clone() };
            cassette.save(dir)?;
        }
        Ok(TapeResult { exchanges: tape.taken, mismatch })
    }
}

type Reply = Response<Full<Bytes>>;

fn reply(status: u16, content_type: Option<&str>, body: impl Into<Bytes>) -> Reply {
    let mut r = Response::builder().status(status);
    if let Some(ct) = content_type {
        r = r.header(hyper::header::CONTENT_TYPE, ct);
    }
    r.body(Full::new(body.into())).unwrap_or_else(|_| Response::new(Full::new(Bytes::new())))
}

/// An error the agent's provider client reads as one (OpenAI's shape, and a message
/// any codec shows).
fn refuse(status: u16, message: &str) -> Reply {
    let body = json!({"error": {"message": format!("lucid eval cassette: {message}"), "type": "cassette_mismatch"}});
    reply(status, Some("application/json"), body.to_string())
}

async fn handle(state: &State, req: Request<Incoming>) -> Reply {
    let method = req.method().as_str().to_string();
    let path_and_query = req.uri().path_and_query().map(|p| p.as_str().to_string()).unwrap_or_default();
    let Some((id, rest)) = tape_of(&path_and_query) else {
        return refuse(404, &format!("{path_and_query} names no tape"));
    };
    let headers = req.headers().clone();
    let body = match Limited::new(req.into_body(), MAX_BODY).collect().await {
        Ok(b) => b.to_bytes(),
        Err(e) => return refuse(413, &format!("the request could not be read: {e}")),
    };
    let request =
        serde_json::from_slice(&body).unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&body).into()));
    let kept_path = redact_query(rest);
    match &state.mode {
        Mode::Replay { .. } => {
            let answer = {
                let mut tapes = state.tapes.lock().expect("tapes");
                let Some((_, _, tape)) = tapes.get_mut(&id) else {
                    return refuse(404, &format!("tape {id} is not open"));
                };
                tape.replay(&method, &kept_path, &request)
            };
            match answer {
                Ok(e) => reply(e.status, e.content_type.as_deref(), e.response),
                Err(why) => refuse(400, &why),
            }
        }
        Mode::Record { upstream, .. } => {
            let Some(client) = &state.client else { return refuse(500, "no HTTP client") };
            let url = format!("{}{rest}", upstream.trim_end_matches('/'));
            let exchange = match forward(client, &method, &url, headers, body).await {
                Ok((status, content_type, response)) => {
                    Exchange { method, path: kept_path, request, status, content_type, response }
                }
                Err(e) => return refuse(502, &format!("{url} did not answer: {e}")),
            };
            let out = reply(exchange.status, exchange.content_type.as_deref(), exchange.response.clone());
            if let Some((_, _, tape)) = state.tapes.lock().expect("tapes").get_mut(&id) {
                tape.taken.push(exchange);
            }
            out
        }
    }
}

/// Sends the request on to the provider as it came (its headers too, the key among
/// them) and reads the whole answer.
async fn forward(
    client: &reqwest::Client,
    method: &str,
    url: &str,
    headers: hyper::HeaderMap,
    body: Bytes,
) -> Result<(u16, Option<String>, String), String> {
    let method = reqwest::Method::from_bytes(method.as_bytes()).map_err(|e| e.to_string())?;
    let mut out = reqwest::header::HeaderMap::new();
    for (name, value) in &headers {
        // The connection's own headers are the client's to set.
        if matches!(name.as_str(), "host" | "content-length" | "connection" | "transfer-encoding") {
            continue;
        }
        if let (Ok(n), Ok(v)) = (
            reqwest::header::HeaderName::from_bytes(name.as_str().as_bytes()),
            reqwest::header::HeaderValue::from_bytes(value.as_bytes()),
        ) {
            out.append(n, v);
        }
    }
    let resp = client.request(method, url).headers(out).body(body).send().await.map_err(|e| e.to_string())?;
    let status = resp.status().as_u16();
    let content_type =
        resp.headers().get(reqwest::header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).map(str::to_string);
    let mut text = Vec::new();
    let mut resp = resp;
    while let Some(chunk) = resp.chunk().await.map_err(|e| e.to_string())? {
        if text.len() + chunk.len() > MAX_BODY {
            return Err(format!("the answer is over {MAX_BODY} bytes"));
        }
        text.extend_from_slice(&chunk);
    }
    Ok((status, content_type, String::from_utf8_lossy(&text).into_owned()))
}

/// `/tape/7/chat/completions?x=1` → (7, `/chat/completions?x=1`).
fn tape_of(path: &str) -> Option<(u64, &str)> {
    let rest = path.strip_prefix("/tape/")?;
    let (id, rest) = rest.find(['/', '?']).map_or((rest, ""), |i| rest.split_at(i));
    Some((id.parse().ok()?, rest))
}

/// The path with its query less any parameter that carries a key (Gemini's `key=`).
fn redact_query(path: &str) -> String {
    let Some((path, query)) = path.split_once('?') else { return path.to_string() };
    let kept: Vec<&str> = query
        .split('&')
        .filter(|p| {
            let name = p.split('=').next().unwrap_or_default().to_ascii_lowercase();
            !matches!(name.as_str(), "key" | "api_key" | "apikey" | "access_token" | "token")
        })
        .collect();
    if kept.is_empty() { path.to_string() } else { format!("{path}?{}", kept.join("&")) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_name_their_tape_and_lose_their_keys() {
        assert_eq!(tape_of("/tape/7/chat/completions"), Some((7, "/chat/completions")));
        assert_eq!(tape_of("/tape/7?x=1"), Some((7, "?x=1")));
        assert_eq!(tape_of("/tape/x/chat"), None);
        assert_eq!(tape_of("/v1/chat"), None);
        assert_eq!(
            redact_query("/models/g:streamGenerateContent?alt=sse&key=SECRET"),
            "/models/g:streamGenerateContent?alt=sse"
        );
        assert_eq!(redact_query("/m?key=SECRET"), "/m");
        assert_eq!(redact_query("/m"), "/m");
    }
}
