//! A fake Hugging Face hub on loopback, answering as the real one does: `HEAD`/`GET` of
//! `/ORG/REPO/resolve/REV/FILE` redirect (302) to a "CDN" path with `X-Repo-Commit`,
//! `X-Linked-Etag` (the sha256) and `X-Linked-Size`; the CDN serves the bytes with
//! `ETag`, `Content-Length` and `Range` requests (206); `/api/models/ORG/REPO/revision/REV`
//! lists the files. It can cut a body halfway and announce a wrong sha256.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Path, State};
use axum::http::{HeaderMap, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

/// The commit every revision of the fake hub points at.
pub const COMMIT: &str = "0123456789abcdef0123456789abcdef01234567";

/// One file of the fake hub.
#[derive(Clone)]
pub struct HubFile {
    pub repo: String,
    pub name: String,
    pub bytes: Vec<u8>,
    /// The sha256 the hub announces (the true one unless a test lies).
    pub announced: String,
}

impl HubFile {
    pub fn new(repo: &str, name: &str, bytes: Vec<u8>) -> Self {
        let announced = sha256(&bytes);
        HubFile { repo: repo.into(), name: name.into(), bytes, announced }
    }
}

/// A request the hub saw.
#[derive(Debug, Clone)]
pub struct Seen {
    pub method: String,
    pub path: String,
    pub range: Option<String>,
    pub authorization: Option<String>,
}

struct Hub {
    files: Vec<HubFile>,
    seen: Mutex<Vec<Seen>>,
    /// How many of the next CDN bodies are cut halfway.
    cuts: AtomicUsize,
    url: String,
    /// The "CDN": another port, so another origin than the hub's.
    cdn: String,
}

/// The running fake hub.
pub struct FakeHub {
    state: Arc<Hub>,
}

impl FakeHub {
    pub async fn start(files: Vec<HubFile>) -> FakeHub {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let cdn_listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let cdn_url = format!("http://{}", cdn_listener.local_addr().unwrap());
        let state = Arc::new(Hub { files, seen: Mutex::new(Vec::new()), cuts: AtomicUsize::new(0), url, cdn: cdn_url });
        let app = Router::new()
            .route("/{org}/{repo}/resolve/{rev}/{*file}", get(resolve))
            .route("/api/models/{org}/{repo}/revision/{rev}", get(listing))
            .with_state(Arc::clone(&state));
        let cdn_app = Router::new().route("/cdn/{sha}", get(cdn)).with_state(Arc::clone(&state));
        tokio::spawn(async move { axum::serve(listener, app).await });
        tokio::spawn(async move { axum::serve(cdn_listener, cdn_app).await });
        FakeHub { state }
    }

    /// The endpoint (`HF_ENDPOINT`).
    pub fn url(&self) -> String {
        self.state.url.clone()
    }

    /// Cuts the next `n` CDN bodies halfway.
    pub fn cut_next(&self, n: usize) {
        self.state.cuts.store(n, Ordering::SeqCst);
    }

    /// The requests so far.
    pub fn seen(&self) -> Vec<Seen> {
        self.state.seen.lock().unwrap().clone()
    }

    /// The requests so far, as `METHOD PATH`.
    pub fn lines(&self) -> Vec<String> {
        self.seen().iter().map(|s| format!("{} {}", s.method, s.path)).collect()
    }
}

fn record(hub: &Hub, method: &Method, path: String, headers: &HeaderMap) {
    let h = |n: &str| headers.get(n).and_then(|v| v.to_str().ok()).map(str::to_string);
    hub.seen.lock().unwrap().push(Seen {
        method: method.to_string(),
        path,
        range: h("range"),
        authorization: h("authorization"),
    });
}

async fn resolve(
    State(hub): State<Arc<Hub>>,
    method: Method,
    headers: HeaderMap,
    Path((org, repo, rev, file)): Path<(String, String, String, String)>,
) -> Response {
    record(&hub, &method, format!("/{org}/{repo}/resolve/{rev}/{file}"), &headers);
    let repo = format!("{org}/{repo}");
    let Some(f) = hub.files.iter().find(|f| f.repo == repo && f.name == file) else {
        return (StatusCode::NOT_FOUND, [("x-error-code", "EntryNotFound")], "Entry not found").into_response();
    };
    Response::builder()
        .status(StatusCode::FOUND)
        .header("location", format!("{}/cdn/{}", hub.cdn, f.announced))
        .header("x-repo-commit", COMMIT)
        .header("x-linked-etag", format!("\"{}\"", f.announced))
        .header("x-linked-size", f.bytes.len().to_string())
        // The git pointer's own ETag, which the linked one takes precedence over.
        .header("etag", "\"a1b2c3d4e5f60718293a4b5c6d7e8f9012345678\"")
        .body(Body::empty())
        .unwrap()
}

async fn cdn(State(hub): State<Arc<Hub>>, method: Method, headers: HeaderMap, Path(sha): Path<String>) -> Response {
    record(&hub, &method, format!("/cdn/{sha}"), &headers);
    let Some(f) = hub.files.iter().find(|f| f.announced == sha) else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let start = headers
        .get("range")
        .and_then(|v| v.to_str().ok())
        .and_then(|r| r.strip_prefix("bytes="))
        .and_then(|r| r.strip_suffix('-'))
        .and_then(|n| n.parse::<usize>().ok());
    let len = f.bytes.len();
    if start.is_some_and(|s| s >= len) {
        return (StatusCode::RANGE_NOT_SATISFIABLE, [("content-range", format!("bytes */{len}"))]).into_response();
    }
    let from = start.unwrap_or(0);
    let rest = Bytes::copy_from_slice(&f.bytes[from..]);
    let mut b = Response::builder()
        .status(if start.is_some() { StatusCode::PARTIAL_CONTENT } else { StatusCode::OK })
        .header("etag", format!("\"{sha}\""))
        .header("accept-ranges", "bytes")
        .header("content-length", rest.len().to_string());
    if start.is_some() {
        b = b.header("content-range", format!("bytes {from}-{}/{len}", len - 1));
    }
    let cut = method == Method::GET
        && hub.cuts.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1)).is_ok();
    if cut {
        let half = rest.slice(..rest.len() / 2);
        // The half is sent (the pause lets the server flush it), then the connection drops.
        let chunks = futures::stream::unfold(Some(half), |state| async move {
            match state {
                Some(half) => Some((Ok(half), None)),
                None => {
                    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
                    Some((Err(std::io::Error::other("connection cut by the fake hub")), None))
                }
            }
        });
        return b.body(Body::from_stream(chunks)).unwrap();
    }
    b.body(Body::from(rest)).unwrap()
}

async fn listing(
    State(hub): State<Arc<Hub>>,
    method: Method,
    headers: HeaderMap,
    Path((org, repo, rev)): Path<(String, String, String)>,
) -> Response {
    record(&hub, &method, format!("/api/models/{org}/{repo}/revision/{rev}"), &headers);
    let repo = format!("{org}/{repo}");
    let siblings: Vec<_> = hub
        .files
        .iter()
        .filter(|f| f.repo == repo)
        .map(|f| serde_json::json!({"rfilename": f.name}))
        .chain([serde_json::json!({"rfilename": "README.md"})])
        .collect();
    axum::Json(serde_json::json!({"id": repo, "sha": COMMIT, "siblings": siblings})).into_response()
}

/// The sha256 of `bytes`, in hex (with `sha256sum`, so the test does not share the
/// code under test's hashing).
pub fn sha256(bytes: &[u8]) -> String {
    use std::io::Write;
    let mut child = std::process::Command::new("sha256sum")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("sha256sum");
    child.stdin.take().unwrap().write_all(bytes).unwrap();
    let out = child.wait_with_output().unwrap();
    String::from_utf8(out.stdout).unwrap().split_whitespace().next().unwrap().to_string()
}
