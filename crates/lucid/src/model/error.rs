//! What a model call's failures are: [`ModelError`], the model layer's own error
//! (transport, provider, decoding), and [`ProviderError`], what a provider said when it
//! refused. A [`ChatModel`](super::ChatModel), a [`Codec`](super::Codec) and the HTTP
//! transport fail with it; [`lucid::Error`](crate::Error) wraps it whole as
//! [`Error::Model`](crate::Error::Model), so `?` works in a turn and a caller matches
//! `Error::Model(ModelError::Provider(p))`.

use std::time::Duration;

/// The result of a model call or a model-layer setting.
pub type Result<T, E = ModelError> = std::result::Result<T, E>;

/// A model call's failure: the provider said no, the network failed, or the answer could
/// not be read.
///
/// ```
/// use lucid::model::ModelError;
/// use lucid::ProviderError;
/// let e = ModelError::from(ProviderError::new("openai", Some(503), "overloaded"));
/// assert!(e.is_retryable());
/// let lucid: lucid::Error = e.into();
/// assert!(matches!(lucid, lucid::Error::Model(ModelError::Provider(p)) if p.status == Some(503)));
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ModelError {
    /// The provider answered with an error (HTTP ≥ 400, or an error event in a stream).
    #[error(transparent)]
    Provider(#[from] ProviderError),
    /// The request never got an answer: connection refused, DNS, TLS (the server was not
    /// reached), or a server that took the connection and then did not answer in time or
    /// broke it off (`reached`).
    #[error("{}", network_headline(provider, url, message, *reached))]
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
    /// A client setting is missing or invalid (no API key, unknown provider, bad URL…).
    #[error("{0}")]
    Config(String),
    /// The request holds a content part the model does not take; nothing was sent.
    #[error(
        "the model {model} ({provider}) does not take {kind} input; remove the attachment, pick a model that takes it, or declare what the model takes (ModelBuilder::accepts, `accepts` in the CLI's config)"
    )]
    Unsupported {
        /// Provider name.
        provider: String,
        /// The model.
        model: String,
        /// The kind of part it refuses.
        kind: crate::content::PartKind,
    },
    /// The call was cancelled before it finished.
    #[error("the model call was cancelled")]
    Cancelled,
    /// Writing the transcript failed.
    #[error("i/o error on {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
}

impl ModelError {
    /// Whether retrying the same request may succeed.
    pub fn is_retryable(&self) -> bool {
        match self {
            ModelError::Provider(p) => p.retryable,
            ModelError::Network { retryable, .. } => *retryable,
            _ => false,
        }
    }

    /// How long the provider asked us to wait before retrying, if it said.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            ModelError::Provider(p) => p.retry_after,
            _ => None,
        }
    }

    /// The provider's own error, when it answered with one.
    pub fn provider_error(&self) -> Option<&ProviderError> {
        match self {
            ModelError::Provider(p) => Some(p),
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
fn network_headline(provider: &str, url: &str, message: &str, reached: bool) -> String {
    if reached {
        format!("{provider} at {url} took the connection but did not answer: {message}")
    } else {
        format!("could not reach {provider} at {url}: {message}")
    }
}
