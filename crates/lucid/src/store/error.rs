//! What a session store's failures are: [`StoreError`], the store layer's own error.
//! [`lucid::Error`](crate::Error) wraps it whole as [`Error::Store`](crate::Error::Store)
//! (`?` works in a turn), so a busy session is `Error::Store(StoreError::Busy { .. })`.

/// The result of a store operation.
pub type Result<T, E = StoreError> = std::result::Result<T, E>;

/// A session store's failure.
///
/// ```
/// use lucid::store::StoreError;
/// let e = StoreError::failed("map", "no session `s`");
/// assert_eq!(e.to_string(), "the map session store failed: no session `s`");
/// let lucid: lucid::Error = e.into();
/// assert!(matches!(lucid, lucid::Error::Store(StoreError::Failed { store: "map", .. })));
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The database said no, a stored message is unreadable…
    #[error("the {store} session store failed: {message}")]
    Failed {
        /// Which store.
        store: &'static str,
        /// What went wrong.
        message: String,
        /// The driver's or decoder's own error, when there is one.
        #[source]
        source: Option<Box<dyn std::error::Error + Send + Sync>>,
    },
    /// Another turn of the session holds its turn lock.
    #[error("{}", busy_message(id, owner, *in_this_process))]
    Busy {
        /// The session.
        id: String,
        /// Who holds the lock (`host:pid:nonce`).
        owner: String,
        /// The holder is this process.
        in_this_process: bool,
    },
    /// The store's file could not be opened or made.
    #[error("i/o error on {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The store was set up wrong (a bad connection string…).
    #[error("{0}")]
    Config(String),
}

impl StoreError {
    /// A failure described in words.
    pub fn failed(store: &'static str, message: impl Into<String>) -> Self {
        StoreError::Failed { store, message: message.into(), source: None }
    }

    /// A failure caused by `source` (the driver's error), kept as the source.
    pub fn caused(store: &'static str, source: impl std::error::Error + Send + Sync + 'static) -> Self {
        StoreError::Failed { store, message: source.to_string(), source: Some(Box::new(source)) }
    }
}

/// The words for a session whose turn lock `owner` holds.
fn busy_message(id: &str, owner: &str, in_this_process: bool) -> String {
    let here = if in_this_process { ", in this process" } else { "" };
    format!("session `{id}` is busy: another turn is running ({owner}{here})")
}
