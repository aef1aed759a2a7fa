//! The one HTTP transport every provider shares.
//!
//! It knows nothing of providers: it posts a JSON body with the headers a codec gives it,
//! retries what [`RetryPolicy`] says may be retried (never a stream whose body has begun),
//! and bounds every call: time to connect, time to the response headers and between two
//! chunks of the body (per attempt), a deadline for the whole call with its retries, the
//! size of a response and of one line of a stream. It makes every exchange visible: a
//! `tracing` span per call, request and response bodies at `debug` level, and, when asked,
//! a JSONL transcript file with API keys redacted ([`crate::model::transcript`]).
//!
//! The transport is here; what a request is ([`HttpRequest`], with [`insert_secret`] and
//! [`bearer_headers`] for its headers) is in `request`, reading a streamed answer in
//! `stream`, and the errors a call ends with are worded in `errors`.

mod errors;
pub(crate) mod request;
mod stream;

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant, SystemTime};

use bytes::Bytes;
use futures::StreamExt;
use tracing::Instrument;

use crate::model::ProviderError;
use crate::model::error::{ModelError, Result};
use crate::model::retry::{RetryPolicy, retry_after};
use crate::model::sse::SseEvent;
use crate::model::transcript::{Body, Transcript};
use crate::model::{ChatResponse, EventStream, StreamEvent};
use errors::{
    deadline_passed, error_chain, is_stale_connection, network_error, seconds, snippet, timed_out, too_large,
};
use request::OwnedRequest;
pub use request::{HttpRequest, bearer_headers, insert_secret};
use stream::SseState;

/// A codec's streaming half: SSE events in, [`StreamEvent`]s out.
pub trait StreamDecoder: Send + 'static {
    /// Decodes one SSE event, pushing what it yields to `out`. An error event inside the
    /// stream becomes `Err`.
    fn event(&mut self, event: &SseEvent, out: &mut Vec<StreamEvent>) -> Result<()>;
    /// The stream's body ended: returns the complete answer, or an error when the stream
    /// stopped before the provider said it was complete.
    fn finish(self) -> Result<ChatResponse>;
}

/// Turns a provider's error body into a [`ProviderError`].
pub type ErrorDecoder<'a> = &'a (dyn Fn(&str, u16, &[u8]) -> ProviderError + Send + Sync);

/// Shared HTTP client with retry and transcript.
///
/// ```
/// use std::time::Duration;
/// use lucid::model::http::HttpTransport;
/// use lucid::model::retry::RetryPolicy;
/// let t = HttpTransport::builder()
///     .connect_timeout(Duration::from_secs(5))
///     .retry(RetryPolicy::none())
///     .build()
///     .unwrap();
/// # let _ = t;
/// ```
#[derive(Debug, Clone)]
pub struct HttpTransport {
    client: reqwest::Client,
    /// A client that keeps no idle connection, built on the first stale one found: the
    /// request that met a connection the server had already closed goes again on it.
    fresh: Arc<OnceLock<reqwest::Client>>,
    /// How `client` was built, to build `fresh` alike (`None` for a caller's own client).
    settings: Option<ClientSettings>,
    retry: RetryPolicy,
    transcript: Option<Arc<Transcript>>,
    limits: Limits,
}

/// The settings of a client the builder made.
#[derive(Debug, Clone, Copy)]
struct ClientSettings {
    connect_timeout: Duration,
    read_timeout: Duration,
}

impl ClientSettings {
    fn build(self, keep_idle: bool) -> Result<reqwest::Client> {
        let mut b = reqwest_client_builder()
            .connect_timeout(self.connect_timeout)
            .read_timeout(self.read_timeout)
            .user_agent(concat!("lucid/", env!("CARGO_PKG_VERSION")));
        if !keep_idle {
            b = b.pool_max_idle_per_host(0);
        }
        b.build().map_err(|e| ModelError::Config(format!("could not build the HTTP client: {e}")))
    }
}

/// A `reqwest` client builder set up as Lucid's own clients are: with the `tls` feature,
/// TLS through rustls with the `ring` crypto provider and the platform's certificate roots
/// (on Linux the system store, or the file `SSL_CERT_FILE` names); without it, plain HTTP.
///
/// `reqwest` is built without a crypto provider of its own, so a client built with plain
/// `reqwest::Client::builder()` before anything has installed one panics; this installs
/// `ring` as the process's default provider once, unless the application installed another
/// first (then that one is kept). Use it for a client handed to
/// [`HttpTransportBuilder::reqwest_client`].
///
/// ```
/// let client = lucid::model::http::reqwest_client_builder()
///     .connect_timeout(std::time::Duration::from_secs(5))
///     .build()
///     .unwrap();
/// let transport = lucid::model::http::HttpTransport::builder().reqwest_client(client).build();
/// # drop(transport);
/// ```
pub fn reqwest_client_builder() -> reqwest::ClientBuilder {
    #[cfg(feature = "tls")]
    install_crypto_provider();
    reqwest::Client::builder()
}

/// Installs `ring` as rustls' process-wide crypto provider, once (a provider the
/// application installed first is kept): what [`reqwest_client_builder`] does before building, for
/// HTTP clients made elsewhere (an exporter's, say) on the same reqwest.
///
/// ```
/// lucid::model::http::install_crypto_provider();
/// assert!(rustls::crypto::CryptoProvider::get_default().is_some());
/// ```
#[cfg(feature = "tls")]
pub fn install_crypto_provider() {
    static PROVIDER: std::sync::Once = std::sync::Once::new();
    PROVIDER.call_once(|| {
        // Err only when a provider is installed already, which is then the one used.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

/// Refuses an `https://` URL when Lucid was built without TLS (the `tls` feature), with a
/// message that says so, instead of reqwest's "scheme is not http" at the first request.
///
/// ```
/// let checked = lucid::model::http::require_tls_for("https://api.openai.com/v1");
/// assert_eq!(checked.is_ok(), cfg!(feature = "tls"));
/// assert!(lucid::model::http::require_tls_for("http://127.0.0.1:8080/v1").is_ok());
/// ```
pub fn require_tls_for(url: &str) -> Result<()> {
    // With TLS built in there is nothing to check: every request passes through here.
    if cfg!(feature = "tls") {
        return Ok(());
    }
    if url.get(..8).is_some_and(|s| s.eq_ignore_ascii_case("https://")) {
        return Err(ModelError::Config(format!(
            "{url} needs HTTPS, and this build of Lucid has no TLS: turn on the `tls` feature of \
             `lucid-agent` (features = [\"tls\"])"
        )));
    }
    Ok(())
}

/// What bounds one call.
#[derive(Debug, Clone, Copy)]
struct Limits {
    headers_timeout: Duration,
    read_timeout: Duration,
    deadline: Duration,
    max_response_bytes: usize,
    max_sse_line: usize,
}

/// The most bytes of an error body read (the rest is not needed to say what went wrong).
const MAX_ERROR_BODY: usize = 1024 * 1024;
/// A response's size limit unless set: generous for any real answer.
pub const DEFAULT_MAX_RESPONSE_BYTES: usize = 64 * 1024 * 1024;
/// The longest line of a stream unless set.
pub const DEFAULT_MAX_SSE_LINE: usize = 16 * 1024 * 1024;

/// Builds an [`HttpTransport`].
#[derive(Debug)]
pub struct HttpTransportBuilder {
    connect_timeout: Duration,
    request_timeout: Duration,
    read_timeout: Duration,
    deadline: Option<Duration>,
    max_response_bytes: usize,
    max_sse_line: usize,
    retry: RetryPolicy,
    transcript: Option<PathBuf>,
    client: Option<reqwest::Client>,
}

impl HttpTransportBuilder {
    /// Time allowed to open a connection.
    pub fn connect_timeout(mut self, d: Duration) -> Self {
        self.connect_timeout = d;
        self
    }
    /// Time one attempt may wait for the response headers (a server that accepts the
    /// connection and never answers fails with "no response headers after …").
    pub fn request_timeout(mut self, d: Duration) -> Self {
        self.request_timeout = d;
        self
    }
    /// Time allowed for a whole call: every attempt, the waits between them and the body
    /// (a stream's too). Default: three times the request timeout.
    pub fn deadline(mut self, d: Duration) -> Self {
        self.deadline = Some(d);
        self
    }
    /// The most bytes one response may have (default [`DEFAULT_MAX_RESPONSE_BYTES`]); a
    /// larger one fails with [`ModelError::TooLarge`] without being held.
    pub fn max_response_bytes(mut self, n: usize) -> Self {
        self.max_response_bytes = n.max(1);
        self
    }
    /// The longest line of a stream (default [`DEFAULT_MAX_SSE_LINE`]); a longer one fails
    /// with [`ModelError::TooLarge`].
    pub fn max_sse_line(mut self, n: usize) -> Self {
        self.max_sse_line = n.max(1);
        self
    }
    /// Longest silence allowed between two reads of a body.
    pub fn read_timeout(mut self, d: Duration) -> Self {
        self.read_timeout = d;
        self
    }
    /// The retry policy.
    pub fn retry(mut self, r: RetryPolicy) -> Self {
        self.retry = r;
        self
    }
    /// Append every exchange to this JSONL file.
    pub fn transcript(mut self, path: impl Into<PathBuf>) -> Self {
        self.transcript = Some(path.into());
        self
    }
    /// The escape hatch to the HTTP stack: use this `reqwest::Client` instead of building
    /// one (its timeouts then apply).
    pub fn reqwest_client(mut self, c: reqwest::Client) -> Self {
        self.client = Some(c);
        self
    }
    /// Builds the transport; fails when the transcript file cannot be opened.
    pub fn build(self) -> Result<HttpTransport> {
        let settings = ClientSettings { connect_timeout: self.connect_timeout, read_timeout: self.read_timeout };
        let (client, settings) = match self.client {
            Some(c) => (c, None),
            None => (settings.build(true)?, Some(settings)),
        };
        let transcript = self.transcript.map(|p| Transcript::open(&p)).transpose()?.map(Arc::new);
        let limits = Limits {
            headers_timeout: self.request_timeout,
            read_timeout: self.read_timeout,
            deadline: self.deadline.unwrap_or(self.request_timeout.saturating_mul(3)),
            max_response_bytes: self.max_response_bytes,
            max_sse_line: self.max_sse_line,
        };
        Ok(HttpTransport { client, fresh: Arc::default(), settings, retry: self.retry, transcript, limits })
    }
}

impl Default for HttpTransport {
    fn default() -> Self {
        HttpTransport::builder().build().expect("the default HTTP client builds")
    }
}

impl HttpTransport {
    /// A builder with the default timeouts and retry policy.
    pub fn builder() -> HttpTransportBuilder {
        HttpTransportBuilder {
            connect_timeout: super::DEFAULT_CONNECT_TIMEOUT,
            request_timeout: super::DEFAULT_REQUEST_TIMEOUT,
            read_timeout: Duration::from_secs(120),
            deadline: None,
            max_response_bytes: DEFAULT_MAX_RESPONSE_BYTES,
            max_sse_line: DEFAULT_MAX_SSE_LINE,
            retry: RetryPolicy::default(),
            transcript: None,
            client: None,
        }
    }

    /// The retry policy in force.
    pub fn retry_policy(&self) -> RetryPolicy {
        self.retry
    }

    /// The client that opens a new connection for every request (built once, when first
    /// needed), or the caller's own client when one was given.
    fn fresh_client(&self) -> &reqwest::Client {
        let Some(settings) = self.settings else { return &self.client };
        self.fresh.get_or_init(|| settings.build(false).unwrap_or_else(|_| self.client.clone()))
    }

    /// Posts the request and reads the whole JSON answer, retrying as the policy says.
    pub async fn post_json(&self, req: &HttpRequest<'_>, decode_error: ErrorDecoder<'_>) -> Result<Bytes> {
        let span = tracing::debug_span!("model_call", provider = req.provider, model = req.model, stream = false);
        async {
            let deadline = tokio::time::Instant::now() + self.limits.deadline;
            let (resp, attempt, started) = self.send(req, decode_error, deadline).await?;
            let status = resp.status().as_u16();
            let body = match tokio::time::timeout_at(deadline, read_capped(resp, self.limits.max_response_bytes)).await {
                Ok(Ok(Capped::Whole(body))) => body,
                Ok(Ok(Capped::Cut(_))) => {
                    return Err(too_large(req, format!(
                        "over {} bytes; stopped reading (raise HttpTransportBuilder::max_response_bytes)",
                        self.limits.max_response_bytes
                    )));
                }
                Ok(Err(e)) => return Err(network_error(req, e)),
                Err(_) => return Err(deadline_passed(req, self.limits.deadline, "while reading the answer")),
            };
            tracing::debug!(status, elapsed_ms = started.elapsed().as_millis() as u64, body = %Lossy(&body), "response");
            if let Some(t) = &self.transcript {
                t.record(req, attempt, Some(status), Body::Json(&body), started.elapsed(), None);
            }
            Ok(body)
        }
        .instrument(span)
        .await
    }

    /// Posts the request and returns the answer as a stream of events decoded by `decoder`.
    /// Retries happen only before the body begins.
    pub async fn post_sse<D: StreamDecoder>(
        &self,
        req: &HttpRequest<'_>,
        decode_error: ErrorDecoder<'_>,
        decoder: D,
    ) -> Result<EventStream<'static>> {
        let span = tracing::debug_span!("model_call", provider = req.provider, model = req.model, stream = true);
        let deadline = tokio::time::Instant::now() + self.limits.deadline;
        let (resp, attempt, started) = self.send(req, decode_error, deadline).instrument(span.clone()).await?;
        // A 200 that is not an event stream (an HTML page from a proxy, a JSON error) is
        // read, shown and recorded, not decoded as nothing.
        let content_type =
            resp.headers().get(reqwest::header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).map(str::to_string);
        if let Some(ct) = content_type.filter(|ct| !ct.starts_with("text/event-stream")) {
            let status = resp.status().as_u16();
            let body = match read_capped(resp, MAX_ERROR_BODY).await {
                Ok(Capped::Whole(b) | Capped::Cut(b)) => b,
                Err(e) => Bytes::from(e.to_string()),
            };
            let message = format!("expected an event stream but got `{ct}` (status {status}): {}", snippet(&body));
            if let Some(t) = &self.transcript {
                t.record(req, attempt, Some(status), Body::Json(&body), started.elapsed(), Some(&message));
            }
            return Err(ModelError::Decode { provider: req.provider.to_string(), message });
        }
        let record = self.transcript.clone().map(|t| (t, OwnedRequest::from(req), attempt, Vec::new(), started));
        let state = SseState::new(resp, decoder, req.provider, record, span, self.limits, deadline);
        // Boxed once, so each item moves a pointer rather than the whole state.
        Ok(futures::stream::unfold(Box::new(state), SseState::next).boxed())
    }

    /// Sends the request until an attempt gets a success status or the policy gives up.
    /// Returns the response, its attempt number and when that attempt was sent.
    async fn send(
        &self,
        req: &HttpRequest<'_>,
        decode_error: ErrorDecoder<'_>,
        deadline: tokio::time::Instant,
    ) -> Result<(reqwest::Response, u32, Instant)> {
        require_tls_for(req.url)?;
        let mut attempt = 0u32;
        // Whether this call already went again on a fresh connection after a stale one.
        let mut on_fresh = false;
        loop {
            let started = Instant::now();
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            if left.is_zero() {
                return Err(deadline_passed(req, self.limits.deadline, "before an answer came"));
            }
            let wait = left.min(self.limits.headers_timeout);
            if tracing::enabled!(tracing::Level::DEBUG) {
                tracing::debug!(url = req.url, attempt, body = %Lossy(&req.body), "request");
            }
            let client = if on_fresh { self.fresh_client() } else { &self.client };
            let sent = client
                .post(req.url)
                .headers(req.headers.clone())
                .header(reqwest::header::CONTENT_TYPE, "application/json")
                .body(req.body.clone())
                .send();
            let sent = match tokio::time::timeout(wait, sent).await {
                Ok(Err(e)) if !on_fresh && is_stale_connection(&e) => {
                    // A kept-alive connection the server had closed (llama.cpp closes one
                    // after each streamed answer): nothing was read, so nothing was
                    // generated. Go again at once on a new connection; no retry is spent.
                    tracing::debug!(provider = req.provider, error = %error_chain(&e), "stale connection; sending again on a new one");
                    on_fresh = true;
                    continue;
                }
                Ok(sent) => sent.map_err(|e| network_error(req, e)),
                Err(_) if wait < self.limits.headers_timeout => {
                    Err(deadline_passed(req, self.limits.deadline, "waiting for the response headers"))
                }
                Err(_) => Err(timed_out(
                    req,
                    format!(
                        "no response headers after {} (the connection was accepted; HttpTransportBuilder::request_timeout sets the wait)",
                        seconds(wait)
                    ),
                    true,
                )),
            };
            let err = match sent {
                Ok(resp) if resp.status().is_success() => return Ok((resp, attempt, started)),
                Ok(resp) => {
                    let status = resp.status().as_u16();
                    let asked = retry_after(resp.headers(), SystemTime::now());
                    let body = match tokio::time::timeout_at(deadline, read_capped(resp, MAX_ERROR_BODY)).await {
                        Ok(Ok(Capped::Whole(b) | Capped::Cut(b))) => b,
                        _ => Bytes::new(),
                    };
                    tracing::debug!(status, body = %Lossy(&body), "error response");
                    if let Some(t) = &self.transcript {
                        t.record(req, attempt, Some(status), Body::Json(&body), started.elapsed(), None);
                    }
                    let mut e = decode_error(req.provider, status, &body);
                    if e.retry_after.is_none() {
                        e.retry_after = asked;
                    }
                    ModelError::Provider(e)
                }
                Err(err) => {
                    if let Some(t) = &self.transcript {
                        t.record(req, attempt, None, Body::None, started.elapsed(), Some(&err.to_string()));
                    }
                    err
                }
            };
            let asked = err.retry_after();
            if !err.is_retryable()
                || attempt >= self.retry.max_retries
                || asked.is_some_and(|a| a > self.retry.max_wait)
            {
                return Err(err);
            }
            let pause = self.retry.delay(attempt, asked);
            if tokio::time::Instant::now() + pause >= deadline {
                // No time left to try again: say what the last attempt got.
                return Err(err);
            }
            tracing::warn!(provider = req.provider, attempt = attempt + 1, wait_ms = pause.as_millis() as u64, error = %err, "retrying");
            tokio::time::sleep(pause).await;
            attempt += 1;
        }
    }
}

/// A body read up to a cap: whole, or cut at the cap (the rest left unread).
enum Capped {
    Whole(Bytes),
    Cut(Bytes),
}

/// Reads `resp`'s body, holding at most `cap` bytes.
async fn read_capped(mut resp: reqwest::Response, cap: usize) -> std::result::Result<Capped, reqwest::Error> {
    if resp.content_length().is_some_and(|n| n > cap as u64) {
        return Ok(Capped::Cut(Bytes::new()));
    }
    let mut body = Vec::new();
    while let Some(chunk) = resp.chunk().await? {
        if body.len() + chunk.len() > cap {
            let room = cap - body.len();
            body.extend_from_slice(&chunk[..room]);
            return Ok(Capped::Cut(body.into()));
        }
        if body.is_empty() && chunk.len() == resp.content_length().unwrap_or(0) as usize {
            // The whole body in one chunk: no copy.
            return Ok(Capped::Whole(chunk));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(Capped::Whole(body.into()))
}

/// Displays bytes as (lossy) UTF-8 without allocating unless needed.
struct Lossy<'a>(&'a [u8]);

impl std::fmt::Display for Lossy<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&String::from_utf8_lossy(self.0))
    }
}
