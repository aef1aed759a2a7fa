//! [`ConversationMemory`] as a [`Hook`]: it works at the opening of each turn, through
//! the public hook point only, and keeps its summaries in the session's [`HookState`].

use futures::future::BoxFuture;

use super::{Compress, ConversationMemory, Env, SessionMemory};
use crate::hooks::{Hook, HookContext, HookState, TurnStart};
use crate::store::SUMMARIES_KEY;

/// Where the summaries the last turn recalled are kept, in this process only.
const RECALLED_KEY: &str = "summaries_recalled";

impl SessionMemory {
    /// The memory kept in a session's hook state.
    pub(crate) fn from_state(state: &HookState) -> Self {
        SessionMemory {
            summaries: state.get(SUMMARIES_KEY).unwrap_or_default(),
            recalled: state.get(RECALLED_KEY).unwrap_or_default(),
            dirty: false,
        }
    }

    /// Puts the memory back into the hook state; its summaries are written with the turn
    /// when they changed.
    pub(crate) fn write_to(&self, state: &mut HookState) {
        if self.dirty
            && let Err(e) = state.set(SUMMARIES_KEY, &self.summaries)
        {
            tracing::warn!(error = %e, "the summaries cannot be kept");
        }
        state.set_local(RECALLED_KEY, &self.recalled);
    }
}

impl Hook for ConversationMemory {
    /// Compresses what the thresholds require (trimming when no summary can be made) and
    /// recalls the summaries relevant to the user's message.
    fn before_turn<'a>(&'a self, _cx: &'a HookContext<'a>, turn: &'a mut TurnStart<'_>) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            let env = Env {
                model: turn.model,
                counter: turn.counter,
                calibration: turn.calibration,
                window_budget: turn.window_budget,
                session_id: turn.session_id,
            };
            let mut memory = SessionMemory::from_state(turn.state);
            let edited = self.open_turn(&env, turn.context, &mut memory, turn.prompt, &mut turn.usage).await;
            memory.write_to(turn.state);
            // A trim rewrites the store with the window, as a compression does: it never
            // holds turns the window no longer knows (whose call ids a new turn could repeat).
            turn.rewritten |= edited;
        })
    }
}

impl ConversationMemory {
    /// [`Session::compact`](crate::Session::compact): every turn but the newest
    /// summarised now, the memory kept in `state`.
    pub(crate) async fn compact(
        &self,
        env: &Env<'_>,
        context: &mut crate::context::Context,
        state: &mut HookState,
        focus: Option<&str>,
        usage: &mut crate::message::Usage,
    ) -> crate::error::Result<super::Compaction> {
        let mut memory = SessionMemory::from_state(state);
        let done = self.compress(env, context, &mut memory, Compress::All { focus }, usage).await;
        memory.write_to(state);
        done
    }
}
