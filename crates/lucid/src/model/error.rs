//! What a model call's failures are: [`ModelError`], the model layer's own error
//! (transport, provider, decoding). A [`ChatModel`](super::ChatModel), a
//! [`Codec`](super::Codec) and the HTTP transport fail with it; it converts into
//! [`lucid::Error`](crate::Error) keeping its shape (`ModelError::Provider` becomes
//! [`Error::Provider`](crate::Error::Provider), and so on), so `?` works in a turn.

use std::time::Duration;

use crate::error::{Error, ProviderError};

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
/// assert!(matches!(lucid, lucid::Error::Provider(p) if p.status == Some(503)));
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

impl From<ModelError> for Error {
    fn from(e: ModelError) -> Self {
        match e {
            ModelError::Provider(p) => Error::Provider(p),
            ModelError::Network { provider, url, message, retryable, reached, source } => {
                Error::Network { provider, url, message, retryable, reached, source }
            }
            ModelError::Decode { provider, message } => Error::Decode { provider, message },
            ModelError::StreamTruncated { provider, message } => Error::StreamTruncated { provider, message },
            ModelError::TooLarge { provider, message } => Error::TooLarge { provider, message },
            ModelError::Config(message) => Error::Config(message),
            e @ ModelError::Unsupported { .. } => Error::Config(e.to_string()),
            ModelError::Cancelled => Error::Cancelled,
            ModelError::Io { path, source } => Error::Io { path, source },
        }
    }
}
