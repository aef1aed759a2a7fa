//! Errors as types for the programmer.
//!
//! Inside the agent loop, tool failures become tool results the model reads; they never
//! reach this type. What does reach it says which part failed and keeps the cause:
//! a provider's own error ([`ProviderError`]), the network, a malformed or truncated
//! response, configuration, or cancellation.

use std::time::Duration;

/// The library's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can fail outside the agent loop's tool calls.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The provider answered with an error (HTTP ≥ 400, or an error event in a stream).
    #[error(transparent)]
    Provider(#[from] ProviderError),
    /// The request never got an answer: connection refused, DNS, TLS (the server was not
    /// reached), or a server that took the connection and then did not answer in time or
    /// broke it off (`reached`).
    #[error("{}", crate::error::network_headline(provider, url, message, *reached))]
    Network {
        /// Provider name.
        provider: String,
        /// The URL called (no secrets: keys travel in headers).
        url: String,
        /// What went wrong, in words.
        message: String,
        /// Whether trying again may help (connect errors and timeouts).
        retryable: bool,
        /// The server took the connection: it is up, but did not answer (a timeout) or
        /// broke the exchange off.
        reached: bool,
        /// The transport's error.
        #[source]
        source: Option<Box<dyn std::error::Error + Send + Sync>>,
    },
    /// The provider answered 2xx with a body Lucid could not understand.
    #[error("{provider} sent a response Lucid could not decode: {message}")]
    Decode {
        /// Provider name.
        provider: String,
        /// What was wrong with it.
        message: String,
    },
    /// A streamed answer ended before the provider said it was complete.
    #[error("the stream from {provider} ended early: {message}")]
    StreamTruncated {
        /// Provider name.
        provider: String,
        /// What was missing.
        message: String,
    },
    /// A response went past a size limit of the transport (its whole size, or one line of
    /// a stream without a line break); reading stopped there.
    #[error("the response from {provider} is too large: {message}")]
    TooLarge {
        /// Provider name.
        provider: String,
        /// Which limit, and how to raise it.
        message: String,
    },
    /// A setting is missing or invalid (no API key, unknown provider, bad URL…).
    #[error("{0}")]
    Config(String),
    /// The run was cancelled before it finished.
    #[error("the run was cancelled")]
    Cancelled,
    /// An answer to a call waiting for approval was not recorded
    /// ([`Session::decide`](crate::Session::decide)).
    #[error(transparent)]
    Approval(#[from] crate::approval::ApprovalError),
    /// A structured answer still did not match its schema after the corrective retries.
    #[error("the answer did not match the schema after {attempts} attempts: {message}")]
    Extraction {
        /// Answers tried.
        attempts: usize,
        /// The last problem found.
        message: String,
        /// The last answer, as received.
        answer: String,
    },
    /// The model needs the user's answers to these questions before it can answer (it
    /// called `ask_user` with nobody to ask, or answered with `needs_interview: true`).
    #[error("the model needs more information: {}", questions.join(" / "))]
    NeedsInput {
        /// The questions, in the model's words.
        questions: Vec<String>,
    },
    /// A workflow, plan or team failed: its own error
    /// (`lucid_orchestrate`'s `WorkflowError`,
    /// `PlanError`, `TeamError`)
    /// is the source (`source().downcast_ref()`), so `?` works in a function returning
    /// [`lucid::Result`].
    #[error("{source}")]
    Orchestration {
        /// The orchestration's own error.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// A session store failed (the database said no, a stored message is unreadable…).
    #[error("the {store} session store failed: {message}")]
    Store {
        /// Which store.
        store: &'static str,
        /// What went wrong.
        message: String,
        /// The driver's or decoder's own error, when there is one.
        #[source]
        source: Option<Box<dyn std::error::Error + Send + Sync>>,
    },
    /// The turn ran to its end but could not be saved. The answer is not lost: it is in
    /// `result` (print it), and the session still holds the turn in memory and writes its
    /// whole history at the next save.
    #[error("the answer is below, but the turn could not be saved to session `{session}`: {source}")]
    TurnNotSaved {
        /// The session.
        session: String,
        /// The turn's result, as `run` would have returned it.
        result: Box<crate::outcome::AgentResult>,
        /// Why the store refused.
        #[source]
        source: Box<Error>,
    },
    /// Another turn of this session is running (in this process or another).
    #[error("{}", busy_message(id, owner, *in_this_process))]
    SessionBusy {
        /// The session.
        id: String,
        /// Who holds the turn lock (`host:pid:nonce`).
        owner: String,
        /// The holder is this process: another `Session` on the same id has a turn under
        /// way (a dropped turn releases its lock itself).
        in_this_process: bool,
    },
    /// Writing the transcript or another local file failed.
    #[error("i/o error on {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
}

impl Error {
    /// Whether retrying the same request may succeed.
    pub fn is_retryable(&self) -> bool {
        match self {
            Error::Provider(p) => p.retryable,
            Error::Network { retryable, .. } => *retryable,
            _ => false,
        }
    }

    /// How long the provider asked us to wait before retrying, if it said.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            Error::Provider(p) => p.retry_after,
            _ => None,
        }
    }
}

/// What kind of provider error this is, as far as a caller needs to act on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ProviderErrorKind {
    /// 429: too many requests right now; retrying later helps.
    RateLimited,
    /// The account's money or quota ran out (OpenAI `insufficient_quota`, Zhipu 1113,
    /// DeepSeek 402, …; each provider's table says which): retrying cannot help.
    QuotaExhausted,
    /// 401/403: bad or missing key.
    Authentication,
    /// 404: unknown model or endpoint.
    NotFound,
    /// 400 and other 4xx: the request itself is wrong.
    InvalidRequest,
    /// 5xx, 529, Gemini `UNAVAILABLE`: the provider is overloaded or failing.
    Server,
}

/// An error reported by the provider, with what it said kept intact.
///
/// ```
/// use lucid::{ProviderError, ProviderErrorKind};
/// let e = ProviderError::new("openai", Some(429), "Rate limit reached")
///     .with_type("requests")
///     .with_code("rate_limit_exceeded");
/// assert!(e.retryable);
/// assert_eq!(e.kind, ProviderErrorKind::RateLimited);
/// assert_eq!(e.to_string(), "openai returned 429 rate_limit_exceeded: Rate limit reached");
/// ```
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{provider} returned {}: {message}", self.headline())]
pub struct ProviderError {
    /// Provider name (`openai`, `deepseek`, …).
    pub provider: String,
    /// HTTP status; `None` for an error inside an HTTP 200 stream.
    pub status: Option<u16>,
    /// The provider's error type (`rate_limit_error`, `invalid_request_error`, …).
    pub error_type: Option<String>,
    /// The provider's error code as a string (`insufficient_quota`, `invalid_api_key`, …).
    pub code: Option<String>,
    /// The provider's own message.
    pub message: String,
    /// The normalized kind.
    pub kind: ProviderErrorKind,
    /// Whether retrying may succeed.
    pub retryable: bool,
    /// How long to wait before retrying, when the provider said (header or body).
    pub retry_after: Option<Duration>,
    /// True when the error arrived inside an HTTP 200 stream.
    pub mid_stream: bool,
}

impl ProviderError {
    /// An error with the given status and message; kind and retryability follow from the
    /// status until a type or code says otherwise.
    pub fn new(provider: impl Into<String>, status: Option<u16>, message: impl Into<String>) -> Self {
        let mut e = ProviderError {
            provider: provider.into(),
            status,
            error_type: None,
            code: None,
            // Some providers echo the key they refused; it is not shown on.
            message: crate::redact::redact(&message.into()).into_owned(),
            kind: ProviderErrorKind::Server,
            retryable: false,
            retry_after: None,
            mid_stream: false,
        };
        e.classify();
        e
    }

    /// Sets the provider's error type and re-classifies.
    pub fn with_type(mut self, t: impl Into<String>) -> Self {
        self.error_type = Some(t.into());
        self.classify();
        self
    }

    /// Sets the provider's error code and re-classifies.
    pub fn with_code(mut self, c: impl Into<String>) -> Self {
        self.code = Some(c.into());
        self.classify();
        self
    }

    /// Sets the wait the provider asked for.
    pub fn with_retry_after(mut self, d: Option<Duration>) -> Self {
        if d.is_some() {
            self.retry_after = d;
        }
        self
    }

    /// Marks the error as the account's money or quota running out: never retried, since
    /// waiting does not help. Codecs call it for the rows of their provider's table
    /// ([`crate::model::presets::QuotaRule`]); the provider's own message is kept.
    ///
    /// ```
    /// use lucid::{ProviderError, ProviderErrorKind};
    /// let e = ProviderError::new("zhipu", Some(429), "Your account is in arrears").with_code("1113").quota_exhausted();
    /// assert_eq!((e.kind, e.retryable), (ProviderErrorKind::QuotaExhausted, false));
    /// ```
    pub fn quota_exhausted(mut self) -> Self {
        self.kind = ProviderErrorKind::QuotaExhausted;
        self.retryable = false;
        self.retry_after = None;
        self
    }

    /// The retry policy of DESIGN promise 6 applied to status, type and code.
    fn classify(&mut self) {
        let status = self.status.unwrap_or(0);
        self.kind = match status {
            429 => ProviderErrorKind::RateLimited,
            401 | 403 => ProviderErrorKind::Authentication,
            404 => ProviderErrorKind::NotFound,
            400..=499 if !matches!(status, 408 | 409 | 425) => ProviderErrorKind::InvalidRequest,
            _ => ProviderErrorKind::Server,
        };
        self.retryable = match self.status {
            Some(s) => matches!(s, 408 | 409 | 425 | 429 | 500 | 502 | 503 | 504 | 529),
            None => matches!(
                self.error_type.as_deref(),
                Some("overloaded_error" | "rate_limit_error" | "api_error" | "server_error")
            ),
        };
        if self.status.is_none() && self.error_type.as_deref() == Some("rate_limit_error") {
            self.kind = ProviderErrorKind::RateLimited;
        }
    }

    fn headline(&self) -> String {
        let status = self.status.map_or_else(|| "an error mid-stream".to_string(), |s| s.to_string());
        match self
            .code
            .as_deref()
            .filter(|c| Some(*c) != self.status.map(|s| s.to_string()).as_deref())
            .or(self.error_type.as_deref())
        {
            Some(label) => format!("{status} {label}"),
            None => status,
        }
    }
}

impl ProviderError {
    /// Whether the provider refused the request for being longer than the model's context
    /// window. Each provider words it its own way: OpenAI, DeepSeek, vLLM, Groq and
    /// OpenRouter `context_length_exceeded` / "maximum context length"; Anthropic "prompt is
    /// too long"; Gemini "input token count … exceeds the maximum"; Zhipu code 1261;
    /// DashScope "Range of input length"; llama.cpp `exceed_context_size_error`.
    ///
    /// ```
    /// use lucid::ProviderError;
    /// let e = ProviderError::new("anthropic", Some(400), "prompt is too long: 210034 tokens > 200000 maximum")
    ///     .with_type("invalid_request_error");
    /// assert!(e.is_context_overflow());
    /// assert!(!ProviderError::new("openai", Some(400), "Invalid value for 'temperature'").is_context_overflow());
    /// ```
    pub fn is_context_overflow(&self) -> bool {
        const CODES: &[&str] =
            &["context_length_exceeded", "exceed_context_size_error", "1261", "string_above_max_length"];
        const PHRASES: &[&str] = &[
            "maximum context length",
            "context length exceeded",
            "context_length_exceeded",
            "prompt is too long",
            "exceeds the maximum number of tokens",
            "exceeds the available context size",
            "exceeds the context window",
            "range of input length should be",
            "too many tokens",
            "reduce the length of the messages",
            "prompt exceeds max length",
            "input is too long",
        ];
        if !matches!(self.status, Some(400 | 413 | 422) | None) {
            return false;
        }
        let code = self.code.as_deref().unwrap_or_default();
        let kind = self.error_type.as_deref().unwrap_or_default();
        if CODES.contains(&code) || CODES.contains(&kind) {
            return true;
        }
        let message = self.message.to_ascii_lowercase();
        PHRASES.iter().any(|p| message.contains(p))
    }
}

/// The first words of a network error: a server not reached, or one that took the
/// connection and did not answer.
pub(crate) fn network_headline(provider: &str, url: &str, message: &str, reached: bool) -> String {
    if reached {
        format!("{provider} at {url} took the connection but did not answer: {message}")
    } else {
        format!("could not reach {provider} at {url}: {message}")
    }
}

/// The words for a session whose turn lock `owner` holds, here and in
/// [`StoreError::Busy`](crate::store::StoreError::Busy).
pub(crate) fn busy_message(id: &str, owner: &str, in_this_process: bool) -> String {
    let here = if in_this_process { ", in this process" } else { "" };
    format!("session `{id}` is busy: another turn is running ({owner}{here})")
}
