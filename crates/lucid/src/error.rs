//! Errors as types for the programmer: [`Error`], what a run, a session or a model call
//! made through the library failed with.
//!
//! Each layer has its own error and `Error` wraps it whole, keeping its shape for
//! matching: a model call's failure is [`Error::Model`] holding a [`ModelError`] (the
//! provider's own error, [`ProviderError`], the network, a malformed or truncated
//! response), a session store's is [`Error::Store`] holding a [`StoreError`] (a busy
//! session too), an approval's answer is [`Error::Approval`]. The rest are the turn's own:
//! configuration, cancellation, a structured answer that never matched, questions for the
//! user, a turn not saved, an orchestration's failure. Inside the agent loop, tool
//! failures become tool results the model reads; they never reach this type.

use std::time::Duration;

use crate::approval::ApprovalError;
use crate::model::error::ModelError;
pub use crate::model::error::{ProviderError, ProviderErrorKind};
use crate::store::error::StoreError;

/// The library's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can fail outside the agent loop's tool calls.
///
/// A layer's error is wrapped, not copied: match through it.
///
/// ```
/// use lucid::model::ModelError;
/// use lucid::store::StoreError;
/// use lucid::{Error, ProviderError};
///
/// fn what_to_do(e: &Error) -> &'static str {
///     match e {
///         Error::Model(ModelError::Provider(p)) if p.is_context_overflow() => "shorten the history",
///         Error::Model(ModelError::Network { .. }) => "check the connection",
///         Error::Store(StoreError::Busy { .. }) => "wait for the other turn",
///         _ => "read the message",
///     }
/// }
/// let e = Error::from(ProviderError::new("anthropic", Some(400), "prompt is too long"));
/// assert_eq!(what_to_do(&e), "shorten the history");
/// assert_eq!(e.to_string(), "anthropic returned 400: prompt is too long");
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A model call failed: the provider answered with an error, the network failed, the
    /// answer could not be decoded or ended early, a model setting is wrong
    /// ([`ModelError`]).
    #[error(transparent)]
    Model(#[from] ModelError),
    /// A session store failed, or another turn of the session holds its turn lock
    /// ([`StoreError`]).
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A setting of the agent or the run is missing or invalid (no session store, an empty
    /// session id…). A model's or a store's own settings fail inside [`Error::Model`] and
    /// [`Error::Store`]; [`Error::is_config`] answers for all three.
    #[error("{0}")]
    Config(String),
    /// The run was cancelled before it finished. A model call cancelled under it is
    /// [`ModelError::Cancelled`] inside [`Error::Model`]; [`Error::is_cancelled`] answers
    /// for both.
    #[error("the run was cancelled")]
    Cancelled,
    /// An answer to a call waiting for approval was not recorded
    /// ([`Session::decide`](crate::Session::decide)).
    #[error(transparent)]
    Approval(#[from] ApprovalError),
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
}

/// A provider's error is a model call's: `?` on a [`ProviderError`] gives
/// `Error::Model(ModelError::Provider(..))`.
impl From<ProviderError> for Error {
    fn from(e: ProviderError) -> Self {
        Error::Model(ModelError::Provider(e))
    }
}

impl Error {
    /// The provider's own error, when a model call failed with one.
    ///
    /// ```
    /// use lucid::{Error, ProviderError};
    /// let e = Error::from(ProviderError::new("openai", Some(429), "Rate limit reached"));
    /// assert_eq!(e.provider().and_then(|p| p.status), Some(429));
    /// assert!(Error::Cancelled.provider().is_none());
    /// ```
    pub fn provider(&self) -> Option<&ProviderError> {
        match self {
            Error::Model(e) => e.provider_error(),
            _ => None,
        }
    }

    /// Whether retrying the same request may succeed (a model call's retryable failure).
    ///
    /// ```
    /// use lucid::{Error, ProviderError};
    /// assert!(Error::from(ProviderError::new("openai", Some(503), "overloaded")).is_retryable());
    /// assert!(!Error::from(ProviderError::new("openai", Some(401), "bad key")).is_retryable());
    /// ```
    pub fn is_retryable(&self) -> bool {
        match self {
            Error::Model(e) => e.is_retryable(),
            _ => false,
        }
    }

    /// How long the provider asked us to wait before retrying, if it said.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            Error::Model(e) => e.retry_after(),
            _ => None,
        }
    }

    /// Whether the run or a model call under it was cancelled ([`Error::Cancelled`] or
    /// [`ModelError::Cancelled`]).
    ///
    /// ```
    /// use lucid::Error;
    /// use lucid::model::ModelError;
    /// assert!(Error::Cancelled.is_cancelled());
    /// assert!(Error::from(ModelError::Cancelled).is_cancelled());
    /// assert!(!Error::Config("no key".into()).is_cancelled());
    /// ```
    pub fn is_cancelled(&self) -> bool {
        matches!(self, Error::Cancelled | Error::Model(ModelError::Cancelled))
    }

    /// Whether a setting is at fault, not the run: the agent's ([`Error::Config`]), a
    /// model's (no API key, a bad URL, an input the model does not take) or a store's (a
    /// bad connection string). Fixing the configuration helps; retrying does not.
    ///
    /// ```
    /// use lucid::Error;
    /// use lucid::model::ModelError;
    /// use lucid::store::StoreError;
    /// assert!(Error::from(ModelError::Config("no API key for openai".into())).is_config());
    /// assert!(Error::from(StoreError::Config("invalid Postgres URL".into())).is_config());
    /// assert!(!Error::from(StoreError::failed("map", "no session `s`")).is_config());
    /// ```
    pub fn is_config(&self) -> bool {
        matches!(
            self,
            Error::Config(_)
                | Error::Model(ModelError::Config(_) | ModelError::Unsupported { .. })
                | Error::Store(StoreError::Config(_))
        )
    }
}
