//! Conversation memory: a short-term window, summaries of what left it, and recall.
//!
//! Before each turn, [`ConversationMemory`] checks the context: when it holds more than
//! `window_messages` messages, or its estimated size passes `compress_at` of
//! `max_context_tokens`, the oldest whole turns are summarised by the model (about
//! `summary_tokens` long), the summary is embedded and stored in the vector index, and
//! those turns leave the window. Then the `recall_k` stored summaries most relevant to the
//! new user message are placed right after the system prompt, for this turn only.

use std::sync::Arc;

use serde_json::json;

use super::embed::Embedder;
use super::vector::{MemoryFilter, MemoryRecord, VectorIndex};
use crate::context::Context;
use crate::error::Result;
use crate::message::Message;
use crate::model::{ChatModel, ChatOptions, ChatRequest};
use crate::store::now_ms;
use crate::tokens::{TokenCounter, count_messages};

/// The numbers of [`ConversationMemory`]; every one can be changed.
#[derive(Debug, Clone, PartialEq)]
pub struct MemoryConfig {
    /// Most messages kept in the window (default 20).
    pub window_messages: usize,
    /// The context budget in tokens (default 4000).
    pub max_context_tokens: usize,
    /// Compress when the estimate passes this share of the budget (default 0.8).
    pub compress_at: f64,
    /// Target length of a summary in tokens (default 500).
    pub summary_tokens: usize,
    /// Summaries recalled per turn (default 3).
    pub recall_k: usize,
    /// Recalled summaries must be at least this similar to the question (default 0.1).
    pub min_score: f32,
    /// Remember per user across sessions instead of per session.
    pub user_id: Option<String>,
}

impl Default for MemoryConfig {
    fn default() -> Self {
        MemoryConfig {
            window_messages: 20,
            max_context_tokens: 4000,
            compress_at: 0.8,
            summary_tokens: 500,
            recall_k: 3,
            min_score: 0.1,
            user_id: None,
        }
    }
}

/// The header of the recalled-memory message.
pub const RECALL_HEADER: &str = "Relevant earlier conversation (summaries of turns no longer shown):";

const SUMMARY_PROMPT: &str = "You compress conversations for long-term memory. Summarize the conversation \
excerpt the user gives you in at most {N} tokens. Keep every fact, name, number, preference, decision and \
open question; drop pleasantries. Write plain sentences in the third person, no preamble.";

/// Long-term memory for sessions: see the module docs.
///
/// ```no_run
/// # async fn demo() -> lucid::Result<()> {
/// use std::sync::Arc;
/// use lucid::memory::{ConversationMemory, LocalEmbedder, MemoryConfig, SqliteVectorIndex};
/// let memory = ConversationMemory::new(
///     Arc::new(LocalEmbedder::load("/models/all-MiniLM-L6-v2")?),
///     Arc::new(SqliteVectorIndex::open("memory.db")?),
/// )
/// .with_config(MemoryConfig { max_context_tokens: 8000, ..Default::default() });
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct ConversationMemory {
    embedder: Arc<dyn Embedder>,
    index: Arc<dyn VectorIndex>,
    config: MemoryConfig,
}

impl std::fmt::Debug for ConversationMemory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConversationMemory")
            .field("embedder", &self.embedder.model_name())
            .field("config", &self.config)
            .finish()
    }
}

/// What [`ConversationMemory::prepare`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Prepared {
    /// Messages summarised out of the window (the history changed when > 0).
    pub compressed_messages: usize,
    /// Summaries recalled into the context.
    pub recalled: usize,
    /// What the summary calls cost (counted in the session's usage).
    pub usage: crate::message::Usage,
}

impl ConversationMemory {
    /// Memory with the default numbers.
    pub fn new(embedder: Arc<dyn Embedder>, index: Arc<dyn VectorIndex>) -> Self {
        ConversationMemory { embedder, index, config: MemoryConfig::default() }
    }

    /// Changes the numbers.
    pub fn with_config(mut self, config: MemoryConfig) -> Self {
        self.config = config;
        self
    }

    /// The numbers in force.
    pub fn config(&self) -> &MemoryConfig {
        &self.config
    }

    fn filter(&self, session_id: Option<&str>) -> MemoryFilter {
        MemoryFilter {
            session_id: if self.config.user_id.is_some() { None } else { session_id.map(str::to_string) },
            user_id: self.config.user_id.clone(),
            kind: Some("summary".into()),
        }
    }

    /// How many leading history messages (whole turns, never the newest) must leave the
    /// window so what remains fits it. `calibration` scales the token estimate (the
    /// provider's reported usage over the estimate, see [`crate::tokens`]).
    fn overflow(&self, context: &Context, counter: &dyn TokenCounter, calibration: f64) -> usize {
        let history = context.history();
        let start = context.messages().len() - history.len();
        let turns: Vec<usize> = context.turn_starts().into_iter().map(|i| i - start).collect();
        let budget = (self.config.max_context_tokens as f64 * self.config.compress_at) as usize;
        let pinned = count_messages(counter, &context.messages()[..start]);
        let fits = |from: usize| {
            let rest = &history[from..];
            rest.len() <= self.config.window_messages
                && ((pinned + count_messages(counter, rest)) as f64 * calibration) as usize <= budget
        };
        if fits(0) {
            return 0;
        }
        // The newest turn always stays; cut at the first turn boundary that fits.
        let candidates = turns.iter().copied().skip(1);
        let mut cut = 0;
        for t in candidates {
            cut = t;
            if fits(t) {
                break;
            }
        }
        cut
    }

    /// Before a turn (the user message already pushed): compresses the oldest turns out of
    /// the window if needed, then recalls summaries relevant to `user_text`. Tokens are
    /// counted with `counter`, scaled by `calibration`.
    pub async fn prepare(
        &self,
        model: &dyn ChatModel,
        context: &mut Context,
        session_id: Option<&str>,
        user_text: &str,
        counter: &dyn TokenCounter,
        calibration: f64,
    ) -> Result<Prepared> {
        let mut done = Prepared::default();
        context.set_recall(None);
        let cut = self.overflow(context, counter, calibration);
        if cut > 0 {
            let old: Vec<Message> = context.history()[..cut].to_vec();
            let (summary, usage) = self.summarize(model, &old).await?;
            done.usage += usage;
            let vectors = self.embedder.embed(std::slice::from_ref(&summary)).await?;
            let record = MemoryRecord {
                id: format!("mem_{:016x}", fastrand::u64(..)),
                text: summary,
                kind: "summary".into(),
                session_id: session_id.map(str::to_string),
                user_id: self.config.user_id.clone(),
                created_at: now_ms(),
                metadata: json!({"messages": old.len()}),
            };
            let vector = vectors.into_iter().next().unwrap_or_default();
            self.index.add(&[(record, vector)]).await?;
            context.drain_front(cut);
            context.repair();
            done.compressed_messages = cut;
            tracing::debug!(messages = cut, "summarised old turns out of the window");
        }
        if self.config.recall_k > 0 && !user_text.trim().is_empty() {
            let query = self.embedder.embed(&[user_text.to_string()]).await?;
            let query = query.into_iter().next().unwrap_or_default();
            let hits = self.index.search(&query, self.config.recall_k, &self.filter(session_id)).await?;
            let lines: Vec<String> = hits
                .iter()
                .filter(|h| h.score >= self.config.min_score)
                .map(|h| format!("- {}", h.record.text))
                .collect();
            if !lines.is_empty() {
                done.recalled = lines.len();
                context.set_recall(Some(format!("{RECALL_HEADER}\n{}", lines.join("\n"))));
            }
        }
        Ok(done)
    }

    /// One summary of `old`, and what the call cost. Its length is bounded by the call's
    /// `max_tokens` (a little over the target, so a summary is not cut mid-sentence), not
    /// only asked for in the prompt.
    async fn summarize(&self, model: &dyn ChatModel, old: &[Message]) -> Result<(String, crate::message::Usage)> {
        let mut transcript = String::new();
        for m in old {
            match m {
                Message::User { content } => transcript.push_str(&format!("user: {content}\n")),
                Message::Assistant(a) => {
                    if !a.content.is_empty() {
                        transcript.push_str(&format!("assistant: {}\n", a.content));
                    }
                    for c in &a.tool_calls {
                        transcript.push_str(&format!("assistant called {}({})\n", c.name, c.arguments));
                    }
                }
                Message::Tool(r) => transcript.push_str(&format!("tool {} returned: {}\n", r.name, r.content)),
                Message::System { .. } => {}
            }
        }
        let messages = [
            Message::system(SUMMARY_PROMPT.replace("{N}", &self.config.summary_tokens.to_string())),
            Message::user(transcript),
        ];
        let limit = u32::try_from(self.config.summary_tokens + self.config.summary_tokens / 4).unwrap_or(u32::MAX);
        let options = ChatOptions { max_tokens: Some(limit.max(32)), ..ChatOptions::default() };
        let r = model.chat(ChatRequest::new(&messages, &[], &options)).await?;
        Ok((r.message.content.trim().to_string(), r.usage.unwrap_or_default()))
    }
}
