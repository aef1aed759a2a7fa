//! A fake Hugging Face hub on loopback, answering as the real one does: `HEAD`/`GET` of
//! `/ORG/REPO/resolve/REV/FILE` redirect (302) to a "CDN" path with `X-Repo-Commit`,
//! `X-Linked-Etag` (the sha256) and `X-Linked-Size`; the CDN serves the bytes with
//! `ETag`, `Content-Length` and `Range` requests (206); `/api/models/ORG/REPO/revision/REV`
//! lists the files. It can cut a body halfway and announce a wrong sha256, and a test can
//! make it hostile ([`Hostile`]): list names that leave the repository, answer any path,
//! send an ETag that is no hash, hide the size, send more bytes than it announced.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
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

/// What a hostile hub does; all off by default.
#[derive(Default)]
pub struct Hostile {
    /// Names listed besides the files (`../x.gguf`, `/tmp/x.gguf`, `a\x1b[31m.gguf`).
    pub listed: Vec<String>,
    /// Any resolve path, known or not, is answered with the first file's headers.
    pub stand_in: bool,
    /// The `X-Linked-Etag` sent instead of the sha256.
    pub etag: Option<String>,
    /// No `X-Linked-Size`: the size is not announced.
    pub hide_size: bool,
    /// CDN bodies go on past the file's end (up to [`OVERLONG`] bytes), without a
    /// `Content-Length`.
    pub overlong: bool,
}

/// How many bytes an overlong CDN body has at most.
pub const OVERLONG: u64 = 256 << 20;

struct Hub {
    files: Vec<HubFile>,
    hostile: Mutex<Hostile>,
    /// Bytes of CDN bodies handed to the server so far.
    sent: AtomicU64,
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
        let state = Arc::new(Hub {
            files,
            hostile: Mutex::new(Hostile::default()),
            sent: AtomicU64::new(0),
            seen: Mutex::new(Vec::new()),
            cuts: AtomicUsize::new(0),
            url,
            cdn: cdn_url,
        });
        let app = Router::new()
            .route("/{org}/{repo}/resolve/{rev}/{*file}", get(resolve))
            .route("/api/models/{org}/{repo}/revision/{rev}", get(listing))
            .fallback(stand_in)
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

    /// Makes the hub hostile.
    pub fn hostile(&self, change: impl FnOnce(&mut Hostile)) {
        change(&mut self.state.hostile.lock().unwrap());
    }

    /// Bytes of CDN bodies sent (handed to the server) so far.
    pub fn sent(&self) -> u64 {
        self.state.sent.load(Ordering::SeqCst)
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
    match hub.files.iter().find(|f| f.repo == repo && f.name == file) {
        Some(f) => redirect(&hub, f),
        None => not_found(&hub),
    }
}

/// Any other path: a hostile hub answers it with the first file (the client normalised
/// a `../` in the URL away).
async fn stand_in(State(hub): State<Arc<Hub>>, method: Method, headers: HeaderMap, uri: axum::http::Uri) -> Response {
    record(&hub, &method, uri.path().to_string(), &headers);
    not_found(&hub)
}

fn not_found(hub: &Hub) -> Response {
    match hub.files.first() {
        Some(f) if hub.hostile.lock().unwrap().stand_in => redirect(hub, f),
        _ => (StatusCode::NOT_FOUND, [("x-error-code", "EntryNotFound")], "Entry not found").into_response(),
    }
}

/// The hub's answer for a file kept in LFS: a redirect to the CDN with its metadata.
fn redirect(hub: &Hub, f: &HubFile) -> Response {
    let hostile = hub.hostile.lock().unwrap();
    let mut b = Response::builder()
        .status(StatusCode::FOUND)
        .header("location", format!("{}/cdn/{}", hub.cdn, f.announced))
        .header("x-repo-commit", COMMIT)
        .header("x-linked-etag", format!("\"{}\"", hostile.etag.as_deref().unwrap_or(&f.announced)))
        // The git pointer's own ETag, which the linked one takes precedence over.
        .header("etag", "\"a1b2c3d4e5f60718293a4b5c6d7e8f9012345678\"");
    if !hostile.hide_size {
        b = b.header("x-linked-size", f.bytes.len().to_string());
    }
    b.body(Body::empty()).unwrap()
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
    if hub.hostile.lock().unwrap().overlong && method == Method::GET {
        // The bytes, then more, 64 KiB at a time, without a Content-Length.
        let hub = Arc::clone(&hub);
        let chunks = futures::stream::unfold(0u64, move |sent| {
            let hub = Arc::clone(&hub);
            let rest = rest.clone();
            async move {
                if sent >= OVERLONG {
                    return None;
                }
                let chunk = match rest.len() as u64 {
                    n if sent < n => rest.slice(sent as usize..(sent as usize + 65_536).min(rest.len())),
                    _ => Bytes::from(vec![b'x'; 65_536]),
                };
                hub.sent.fetch_add(chunk.len() as u64, Ordering::SeqCst);
                Some((Ok::<_, std::io::Error>(chunk.clone()), sent + chunk.len() as u64))
            }
        });
        return Response::builder()
            .status(StatusCode::OK)
            .header("etag", format!("\"{sha}\""))
            .body(Body::from_stream(chunks))
            .unwrap();
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
        .chain(hub.hostile.lock().unwrap().listed.iter().map(|n| serde_json::json!({"rfilename": n})))
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
