//! Cancelling a run "now" or "after this turn".

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use tokio_util::sync::CancellationToken;

#[derive(Debug, Default)]
struct State {
    now: Mutex<CancellationToken>,
    after_turn: AtomicBool,
}

/// A handle that cancels the session's current run; clone it freely (e.g. into a Ctrl-C
/// handler). It stays valid across runs.
///
/// * [`Canceller::cancel_now`] aborts the model call in flight and running tools (they
///   see [`ToolContext::cancel`](crate::tool::ToolContext) fire); unanswered calls get an
///   "interrupted" result, so the history stays valid.
/// * [`Canceller::cancel_after_turn`] lets the current model call and its tools finish,
///   then stops before the next model call.
///
/// ```
/// # let model = std::sync::Arc::new(lucid::model::OpenAiCompatible::new("http://127.0.0.1:9/v1", None, "m").unwrap());
/// let agent = lucid::Agent::builder(model).build();
/// let session = agent.session();
/// let cancel = session.canceller();
/// cancel.cancel_after_turn();
/// ```
#[derive(Debug, Clone, Default)]
pub struct Canceller {
    state: Arc<State>,
}

impl Canceller {
    /// Stops the current run as soon as possible.
    pub fn cancel_now(&self) {
        if let Ok(token) = self.state.now.lock() {
            token.cancel();
        }
    }

    /// Stops the current run before its next model call.
    pub fn cancel_after_turn(&self) {
        self.state.after_turn.store(true, Ordering::SeqCst);
    }

    /// The token of the run starting now (a fresh one if the last was cancelled).
    pub(crate) fn begin(&self) -> CancellationToken {
        let mut token = self.state.now.lock().unwrap_or_else(|e| e.into_inner());
        if token.is_cancelled() {
            *token = CancellationToken::new();
        }
        token.clone()
    }

    /// Whether "after this turn" was asked; clears the request when the run ends.
    pub(crate) fn after_turn_requested(&self) -> bool {
        self.state.after_turn.load(Ordering::SeqCst)
    }

    pub(crate) fn end(&self) {
        self.state.after_turn.store(false, Ordering::SeqCst);
    }
}
