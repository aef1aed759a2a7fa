//! The session's own layers: what takes part in a turn at the points a public
//! [`Hook`](crate::agent::hooks::Hook) cannot reach, because it works on the session's
//! state. The layered memory compresses and recalls when the user's message arrives; durable
//! steps commit each step to the store. The agent attaches the ones it is configured with
//! ([`AgentBuilder::memory`](crate::AgentBuilder::memory),
//! [`AgentBuilder::durable_steps`](crate::AgentBuilder::durable_steps)); the turn calls
//! every layer at every point and knows none of them by name.

use futures::future::BoxFuture;

use std::sync::Arc;

use super::Session;
use super::turn::memory_env;
use crate::agent::AgentConfig;
use crate::memory::ConversationMemory;
use crate::message::Usage;

/// The layers an agent's configuration asks for, in the order they run: the memory
/// before the commit, so a step is written after the memory rewrote the window.
pub(crate) fn for_config(config: &AgentConfig) -> Vec<Arc<dyn Layer>> {
    let mut layers: Vec<Arc<dyn Layer>> = Vec::new();
    if let Some(memory) = &config.memory {
        layers.push(Arc::new(MemoryLayer(memory.clone())));
    }
    if config.durable_steps {
        layers.push(Arc::new(DurableSteps));
    }
    layers
}

impl Session {
    /// Every layer's word on the user's message.
    pub(super) async fn layers_on_user_message(&mut self, config: &AgentConfig, prompt: &str, usage: &mut Usage) {
        for layer in &config.layers {
            layer.user_message(self, prompt, usage).await;
        }
    }

    /// Every layer's word on the step just taken.
    pub(super) async fn layers_on_step(&mut self, config: &AgentConfig) {
        for layer in &config.layers {
            layer.step(self).await;
        }
    }
}

/// One of the session's layers; every point has a no-op default.
pub(crate) trait Layer: Send + Sync + 'static {
    /// The user's message `prompt` is the context's last; what calls the layer makes are
    /// added to `usage`.
    fn user_message<'a>(
        &'a self,
        session: &'a mut Session,
        prompt: &'a str,
        usage: &'a mut Usage,
    ) -> BoxFuture<'a, ()> {
        let _ = (session, prompt, usage);
        Box::pin(std::future::ready(()))
    }

    /// A step (the user's message, a model message with calls, a tool result) is in the
    /// history.
    fn step<'a>(&'a self, session: &'a mut Session) -> BoxFuture<'a, ()> {
        let _ = session;
        Box::pin(std::future::ready(()))
    }
}

/// The layered memory: before the turn, older turns are compressed into summaries and
/// the relevant ones recalled ([`ConversationMemory::before_turn`]).
pub(crate) struct MemoryLayer(pub ConversationMemory);

impl Layer for MemoryLayer {
    fn user_message<'a>(
        &'a self,
        session: &'a mut Session,
        prompt: &'a str,
        usage: &'a mut Usage,
    ) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            let config = std::sync::Arc::clone(&session.agent.config);
            let id = session.id.clone();
            let env = memory_env(&config, session.calibration, id.as_deref());
            // A trim rewrites the store with the window, as a compression does: it never
            // holds turns the window no longer knows (whose call ids a new turn could repeat).
            let edited = self.0.before_turn(&env, &mut session.context, &mut session.memory, prompt, usage).await;
            session.edited |= edited;
        })
    }
}

/// Durable steps: a stored session commits each step as it happens, not only at the end
/// of the turn.
pub(crate) struct DurableSteps;

impl Layer for DurableSteps {
    fn step<'a>(&'a self, session: &'a mut Session) -> BoxFuture<'a, ()> {
        Box::pin(session.commit())
    }
}
