//! Conversation memory: a short-term window, summaries of what left it, and recall.
//!
//! Before each turn, [`ConversationMemory`] checks the context: when it holds more than
//! `short_term_capacity` messages, or its estimated size passes `compression_threshold`
//! of the budget, the oldest whole turns (never the current one) leave the window until
//! it is back to half of both. Those turns are grouped into topics — consecutive turns
//! whose embeddings are close, when there is an embedder, and the boundaries the
//! summariser marks — and each group is summarised in one call whose `max_tokens` comes
//! from `summary_target_tokens`. The [`Summary`]s are kept with the session (in its
//! store's metadata, under [`crate::store::SUMMARIES_KEY`]), at most `long_term_capacity`
//! of them (the oldest of the least recalled go first). Then the `recall_top_k` summaries
//! most relevant to the new user message (the newest, without an embedder) are placed
//! right after the system prompt, for this turn only, as far as the budget allows.
//!
//! When no summary can be made (the model fails, times out or answers nothing), the oldest
//! turns are trimmed instead: the session stays valid and the turn goes on.

use std::sync::Arc;

use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::embed::Embedder;
use super::vector::{MemoryFilter, MemoryRecord, VectorIndex, dot, top_k};
use crate::context::{Context, ContextLimits};
use crate::error::Result;
use crate::message::{Message, Usage};
use crate::model::{ChatModel, ChatOptions, ChatRequest};
use crate::store::now_ms;
use crate::tokens::{PER_MESSAGE, TokenCounter, count_messages};

/// The budget when neither the configuration nor the model's window gives one (seed 004).
pub const DEFAULT_MAX_CONTEXT_TOKENS: usize = 4000;

/// The numbers of [`ConversationMemory`]; every one can be changed. The defaults are those
/// of Lucid's seed design (4000 tokens, 0.8, 20, 1000, 500, 3).
///
/// ```
/// let c = lucid::memory::MemoryConfig::default();
/// assert_eq!((c.compression_threshold, c.short_term_capacity, c.recall_top_k), (0.8, 20, 3));
/// // No window known and none set: the seed's 4000 tokens.
/// assert_eq!(c.budget(None), 4000);
/// assert_eq!(c.budget(Some(96_000)), 96_000);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct MemoryConfig {
    /// The context budget in tokens; `None` (the default): the agent's budget from the
    /// model's window, else [`DEFAULT_MAX_CONTEXT_TOKENS`].
    pub max_context_tokens: Option<usize>,
    /// Compress when the estimate passes this share of the budget (default 0.8).
    pub compression_threshold: f64,
    /// Most messages kept in the window (default 20).
    pub short_term_capacity: usize,
    /// Most summaries kept per session (default 1000).
    pub long_term_capacity: usize,
    /// Target length of a summary in tokens (default 500).
    pub summary_target_tokens: usize,
    /// Summaries recalled per turn (default 3).
    pub recall_top_k: usize,
    /// Recalled summaries must be at least this similar to the question (default 0.1).
    pub min_score: f32,
    /// Consecutive turns less similar than this start a new topic (default 0.5).
    pub topic_similarity: f32,
    /// Remember per user across sessions instead of per session (needs a vector index).
    pub user_id: Option<String>,
}

impl Default for MemoryConfig {
    fn default() -> Self {
        MemoryConfig {
            max_context_tokens: None,
            compression_threshold: 0.8,
            short_term_capacity: 20,
            long_term_capacity: 1000,
            summary_target_tokens: 500,
            recall_top_k: 3,
            min_score: 0.1,
            topic_similarity: 0.5,
            user_id: None,
        }
    }
}

impl MemoryConfig {
    /// The budget in force: the configured one, else `window_budget` (the agent's, from
    /// the model's window), else [`DEFAULT_MAX_CONTEXT_TOKENS`].
    pub fn budget(&self, window_budget: Option<usize>) -> usize {
        self.max_context_tokens.or(window_budget).unwrap_or(DEFAULT_MAX_CONTEXT_TOKENS)
    }
}

/// The header of the recalled-memory message.
pub const RECALL_HEADER: &str = "Relevant earlier conversation (summaries of turns no longer shown):";

/// The line a summariser puts between the summaries of two topics.
pub const TOPIC_BREAK: &str = "---";

const SUMMARY_PROMPT: &str = "You compress conversations for long-term memory. Summarize the conversation \
excerpt the user gives you in at most {N} tokens. Keep every fact, name, number, preference, decision and \
open question; drop pleasantries. Write plain sentences in the third person, no preamble. When the excerpt \
covers several distinct topics, write one paragraph per topic with a line holding only --- between them.";

/// Most summary calls one compression makes: topics beyond it are merged with a neighbour.
const MAX_TOPICS: usize = 4;

/// A summary of turns that left the window, kept with its session.
///
/// ```
/// let s: lucid::memory::Summary = serde_json::from_value(serde_json::json!(
///     {"id": "sum_1", "text": "The user's cat is Tom.", "messages": 6, "created_at": 0}
/// )).unwrap();
/// assert_eq!(s.recalled, 0);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Unique id (also its id in a vector index).
    pub id: String,
    /// The summary.
    pub text: String,
    /// How many messages the summarised stretch held.
    pub messages: usize,
    /// When it was made, milliseconds since the Unix epoch.
    pub created_at: i64,
    /// How many turns recalled it.
    #[serde(default)]
    pub recalled: u32,
    /// Its embedding, when the memory has an embedder but no vector index.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub embedding: Option<Vec<f32>>,
}

/// What a compression did ([`crate::Session::compact`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Compaction {
    /// Messages summarised out of the window.
    pub messages: usize,
    /// Summaries made.
    pub summaries: usize,
    /// What the calls cost (counted in the session's usage).
    pub usage: Usage,
}

/// A session's long-term memory: its summaries and what the last turn recalled.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct SessionMemory {
    pub summaries: Vec<Summary>,
    pub recalled: Vec<String>,
    /// Changed since the store last saw it.
    pub dirty: bool,
}

/// What the memory needs to know of the session and its agent for one step.
pub(crate) struct Env<'a> {
    pub model: &'a dyn ChatModel,
    pub counter: &'a dyn TokenCounter,
    pub calibration: f64,
    pub window_budget: Option<usize>,
    pub session_id: Option<&'a str>,
}

/// Which turns a compression takes.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Compress<'a> {
    /// As many as the thresholds require.
    Needed,
    /// Every turn but the newest, with an optional focus for the summaries.
    All { focus: Option<&'a str> },
}

/// Long-term memory for sessions: see the module docs.
///
/// Without an embedder, summaries are still made and the newest are recalled; with one,
/// topics are found by similarity and the most relevant summaries recalled. Vectors go to
/// a [`VectorIndex`] when one is given (which can span sessions, see
/// [`MemoryConfig::user_id`]), else they are kept with the summaries themselves.
///
/// ```no_run
/// # async fn demo() -> lucid::Result<()> {
/// use std::sync::Arc;
/// use lucid::memory::{ConversationMemory, LocalEmbedder, MemoryConfig, SqliteVectorIndex};
/// let plain = ConversationMemory::default(); // summaries pinned newest-first
/// let memory = ConversationMemory::new(
///     Arc::new(LocalEmbedder::load("/models/all-MiniLM-L6-v2")?),
///     Arc::new(SqliteVectorIndex::open("memory.db")?),
/// )
/// .with_config(MemoryConfig { max_context_tokens: Some(8000), ..Default::default() });
/// # Ok(()) }
/// ```
#[derive(Clone, Default)]
pub struct ConversationMemory {
    embedder: Option<Arc<dyn Embedder>>,
    index: Option<Arc<dyn VectorIndex>>,
    config: MemoryConfig,
    /// Embeddings failed once already: later failures are logged at debug level.
    warned: Arc<std::sync::atomic::AtomicBool>,
}

impl std::fmt::Debug for ConversationMemory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConversationMemory")
            .field("embedder", &self.embedder.as_ref().map(|e| e.model_name().to_string()))
            .field("index", &self.index.is_some())
            .field("config", &self.config)
            .finish()
    }
}

impl ConversationMemory {
    /// Memory with the default numbers, an embedder and a vector index.
    pub fn new(embedder: Arc<dyn Embedder>, index: Arc<dyn VectorIndex>) -> Self {
        ConversationMemory { embedder: Some(embedder), index: Some(index), ..ConversationMemory::default() }
    }

    /// Uses this embedder (vectors kept with the summaries unless an index is given).
    pub fn with_embedder(mut self, embedder: Arc<dyn Embedder>) -> Self {
        self.embedder = Some(embedder);
        self
    }

    /// Keeps vectors in this index.
    pub fn with_index(mut self, index: Arc<dyn VectorIndex>) -> Self {
        self.index = Some(index);
        self
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

    /// The embedder's model, if there is one.
    pub fn embedder_name(&self) -> Option<&str> {
        self.embedder.as_ref().map(|e| e.model_name())
    }

    /// An embedder or index failure costs only similarity: said once as a warning.
    fn degraded(&self, what: &str, error: &dyn std::fmt::Display) {
        if self.warned.swap(true, std::sync::atomic::Ordering::Relaxed) {
            tracing::debug!(%error, "{what}");
        } else {
            tracing::warn!(%error, "{what} (later failures are logged at debug level)");
        }
    }

    fn filter(&self, session_id: Option<&str>) -> MemoryFilter {
        MemoryFilter {
            id: None,
            session_id: if self.config.user_id.is_some() { None } else { session_id.map(str::to_string) },
            user_id: self.config.user_id.clone(),
            kind: Some("summary".into()),
        }
    }

    /// How many leading history messages (whole turns, never the newest) leave the window.
    fn cut(&self, env: &Env<'_>, context: &Context, mode: Compress<'_>) -> usize {
        let history = context.history();
        let start = context.messages().len() - history.len();
        let turns: Vec<usize> = context.turn_starts().into_iter().map(|i| i - start).collect();
        if let Compress::All { .. } = mode {
            return turns.last().copied().unwrap_or(0);
        }
        let trigger = self.config.budget(env.window_budget) as f64 * self.config.compression_threshold;
        let pinned = count_messages(env.counter, &context.messages()[..start]);
        let fits = |from: usize, tokens: f64, messages: usize| {
            let rest = &history[from..];
            rest.len() <= messages && (pinned + count_messages(env.counter, rest)) as f64 * env.calibration <= tokens
        };
        if fits(0, trigger, self.config.short_term_capacity) {
            return 0;
        }
        // Down to half of both, so compression comes in batches rather than every turn.
        let (tokens, messages) = (trigger / 2.0, (self.config.short_term_capacity / 2).max(1));
        let mut cut = 0;
        for t in turns.iter().copied().skip(1) {
            cut = t;
            if fits(t, tokens, messages) {
                break;
            }
        }
        cut
    }

    /// Before a turn (its user message pushed): compresses what the thresholds require,
    /// trimming instead when no summary can be made, then recalls for `text`. Returns
    /// whether the history changed. Boxed, as [`Self::compress`]: one copy of this code
    /// however many ways the loop is entered.
    pub(crate) fn before_turn<'a>(
        &'a self,
        env: &'a Env<'a>,
        context: &'a mut Context,
        memory: &'a mut SessionMemory,
        text: &'a str,
        usage: &'a mut Usage,
    ) -> BoxFuture<'a, bool> {
        Box::pin(async move {
            let edited = match self.compress(env, context, memory, Compress::Needed, usage).await {
                Ok(c) => c.messages > 0,
                Err(e) => {
                    // The last resort: the oldest turns leave the window without a summary.
                    let dropped = self.trim(env, context);
                    tracing::warn!(error = %e, dropped_turns = dropped, "could not summarise old turns; trimmed them instead");
                    dropped > 0
                }
            };
            self.recall(env, context, memory, text).await;
            edited
        })
    }

    /// Summarises the oldest turns out of the window (see [`Compress`]). On `Err` nothing
    /// changed, but what the calls made before the failure cost is in `usage`.
    pub(crate) fn compress<'a>(
        &'a self,
        env: &'a Env<'a>,
        context: &'a mut Context,
        memory: &'a mut SessionMemory,
        mode: Compress<'a>,
        usage: &'a mut Usage,
    ) -> BoxFuture<'a, Result<Compaction>> {
        Box::pin(self.compress_now(env, context, memory, mode, usage))
    }

    async fn compress_now(
        &self,
        env: &Env<'_>,
        context: &mut Context,
        memory: &mut SessionMemory,
        mode: Compress<'_>,
        usage: &mut Usage,
    ) -> Result<Compaction> {
        let cut = self.cut(env, context, mode);
        if cut == 0 {
            return Ok(Compaction::default());
        }
        let focus = match mode {
            Compress::All { focus } => focus,
            Compress::Needed => None,
        };
        let old = &context.history()[..cut];
        let mut made = Vec::new();
        let mut cost = Usage::default();
        for group in self.topics(old).await {
            let part = &old[group];
            let outcome = self.summarize(env.model, part, focus).await;
            let (text, u) = match outcome {
                Ok(r) => r,
                Err(e) => {
                    *usage += cost;
                    return Err(e);
                }
            };
            cost += u;
            let pieces = split_topics(&text);
            if pieces.is_empty() {
                // Turns are never dropped for an empty summary.
                *usage += cost;
                return Err(crate::error::Error::Decode {
                    provider: env.model.provider().to_string(),
                    message: "the summary call answered no text".into(),
                });
            }
            for piece in pieces {
                made.push(Summary {
                    id: format!("sum_{:016x}", fastrand::u64(..)),
                    text: piece,
                    messages: part.len(),
                    created_at: now_ms(),
                    recalled: 0,
                    embedding: None,
                });
            }
        }
        *usage += cost;
        self.embed_summaries(env.session_id, &mut made).await;
        let done = Compaction { messages: cut, summaries: made.len(), usage: cost };
        memory.summaries.extend(made);
        self.cap(memory).await;
        memory.dirty = true;
        context.drain_front(cut);
        context.repair();
        tracing::debug!(messages = cut, summaries = done.summaries, "summarised old turns out of the window");
        Ok(done)
    }

    /// The last resort when no summary could be made: the oldest whole turns are dropped
    /// from the window until it is within the thresholds (a stored session then holds the
    /// window, as after a compression).
    fn trim(&self, env: &Env<'_>, context: &mut Context) -> usize {
        let trigger = self.config.budget(env.window_budget) as f64 * self.config.compression_threshold;
        let limits = ContextLimits {
            max_messages: Some(self.config.short_term_capacity),
            max_tokens: Some((trigger / env.calibration) as usize),
        };
        context.trim_with(&limits, env.counter)
    }

    /// Ranges of `old` (whole turns), one per topic.
    async fn topics(&self, old: &[Message]) -> Vec<std::ops::Range<usize>> {
        let mut starts: Vec<usize> =
            old.iter().enumerate().filter(|(_, m)| matches!(m, Message::User { .. })).map(|(i, _)| i).collect();
        if starts.first() != Some(&0) {
            starts.insert(0, 0);
        }
        let whole = std::iter::once(0..old.len()).collect();
        let Some(embedder) = &self.embedder else { return whole };
        if starts.len() < 2 {
            return whole;
        }
        let texts: Vec<String> = starts
            .iter()
            .enumerate()
            .map(|(i, &s)| {
                let end = starts.get(i + 1).copied().unwrap_or(old.len());
                transcript(&old[s..end]).chars().take(2000).collect()
            })
            .collect();
        let vectors = match embedder.embed(&texts).await {
            Ok(v) if v.len() == texts.len() => v,
            Ok(v) => {
                self.degraded(
                    "could not find the topics of old turns",
                    &format!("{} vectors for {} texts", v.len(), texts.len()),
                );
                return whole;
            }
            Err(e) => {
                self.degraded("could not embed old turns to find their topics; summarising them together", &e);
                return whole;
            }
        };
        // The least similar neighbours below the threshold become topic boundaries.
        let mut breaks: Vec<(f32, usize)> = (1..vectors.len())
            .map(|i| (dot(&vectors[i - 1], &vectors[i]), i))
            .filter(|(score, _)| *score < self.config.topic_similarity)
            .collect();
        breaks.sort_by(|a, b| a.0.total_cmp(&b.0));
        breaks.truncate(MAX_TOPICS - 1);
        let mut cuts: Vec<usize> = breaks.into_iter().map(|(_, i)| starts[i]).collect();
        cuts.sort_unstable();
        let mut ranges = Vec::new();
        let mut from = 0;
        for c in cuts.into_iter().chain([old.len()]) {
            ranges.push(from..c);
            from = c;
        }
        ranges
    }

    /// Embeds new summaries: into the index when there is one, else kept with them. A
    /// failure only costs their recall by similarity.
    async fn embed_summaries(&self, session_id: Option<&str>, made: &mut [Summary]) {
        let Some(embedder) = &self.embedder else { return };
        let texts: Vec<String> = made.iter().map(|s| s.text.clone()).collect();
        let vectors = match embedder.embed(&texts).await {
            Ok(v) if v.len() == made.len() => v,
            Ok(v) => {
                self.degraded(
                    "could not embed the new summaries",
                    &format!("{} vectors for {} texts", v.len(), texts.len()),
                );
                return;
            }
            Err(e) => {
                self.degraded("could not embed the new summaries; they are recalled only as the newest", &e);
                return;
            }
        };
        match &self.index {
            Some(index) => {
                let records: Vec<(MemoryRecord, Vec<f32>)> = made
                    .iter()
                    .zip(vectors)
                    .map(|(s, v)| {
                        let record = MemoryRecord {
                            id: s.id.clone(),
                            text: s.text.clone(),
                            kind: "summary".into(),
                            session_id: session_id.map(str::to_string),
                            user_id: self.config.user_id.clone(),
                            created_at: s.created_at,
                            metadata: json!({"messages": s.messages}),
                        };
                        (record, v)
                    })
                    .collect();
                if let Err(e) = index.add(&records).await {
                    self.degraded("could not index the new summaries", &e);
                }
            }
            None => made.iter_mut().zip(vectors).for_each(|(s, v)| s.embedding = Some(v)),
        }
    }

    /// Keeps at most `long_term_capacity` summaries: the least recalled go first, the
    /// oldest of them first.
    async fn cap(&self, memory: &mut SessionMemory) {
        while memory.summaries.len() > self.config.long_term_capacity {
            let Some((at, _)) = memory.summaries.iter().enumerate().min_by_key(|(_, s)| (s.recalled, s.created_at))
            else {
                break;
            };
            let gone = memory.summaries.remove(at);
            if let Some(index) = &self.index {
                let filter = MemoryFilter { id: Some(gone.id), ..MemoryFilter::default() };
                if let Err(e) = index.delete(&filter).await {
                    tracing::warn!(error = %e, "could not remove a dropped summary from the index");
                }
            }
        }
    }

    /// Pins the summaries most relevant to `user_text` after the system prompt, as far as
    /// the budget allows. Never fails: without similarity, the newest are recalled.
    async fn recall(&self, env: &Env<'_>, context: &mut Context, memory: &mut SessionMemory, text: &str) {
        context.set_recall(None);
        memory.recalled.clear();
        let k = self.config.recall_top_k;
        // Nothing to recall (an index may hold other sessions' summaries of this user).
        if k == 0 || text.trim().is_empty() || (memory.summaries.is_empty() && self.index.is_none()) {
            return;
        }
        let picks = match self.similar(env, memory, text, k).await {
            Some(p) => p,
            None => memory.summaries.iter().rev().take(k).map(|s| (Some(s.id.clone()), s.text.clone())).collect(),
        };
        let budget = self.config.budget(env.window_budget) as f64;
        let mut used = context.count_tokens(env.counter) as f64 * env.calibration
            + (PER_MESSAGE + env.counter.count(RECALL_HEADER)) as f64;
        let mut lines = Vec::new();
        for (id, text) in picks {
            let line = format!("- {text}");
            let cost = (env.counter.count(&line) + 1) as f64 * env.calibration;
            if used + cost > budget {
                continue;
            }
            used += cost;
            if let Some(s) = id.and_then(|id| memory.summaries.iter_mut().find(|s| s.id == id)) {
                s.recalled += 1;
                memory.dirty = true;
            }
            memory.recalled.push(text);
            lines.push(line);
        }
        if !lines.is_empty() {
            context.set_recall(Some(format!("{RECALL_HEADER}\n{}", lines.join("\n"))));
        }
    }

    /// The `k` summaries most similar to `text` (ids and texts), or `None` when there is
    /// no similarity to go by.
    async fn similar(
        &self,
        env: &Env<'_>,
        memory: &SessionMemory,
        text: &str,
        k: usize,
    ) -> Option<Vec<(Option<String>, String)>> {
        let embedder = self.embedder.as_ref()?;
        let query = match embedder.embed(&[text.to_string()]).await {
            Ok(v) => v.into_iter().next()?,
            Err(e) => {
                self.degraded("could not embed the message; recalling the newest summaries", &e);
                return None;
            }
        };
        let min = self.config.min_score;
        if let Some(index) = &self.index {
            return match index.search(&query, k, &self.filter(env.session_id)).await {
                Ok(hits) => Some(
                    hits.into_iter().filter(|h| h.score >= min).map(|h| (Some(h.record.id), h.record.text)).collect(),
                ),
                Err(e) => {
                    self.degraded("could not search the memory index; recalling the newest summaries", &e);
                    None
                }
            };
        }
        let scores: Vec<(f32, usize)> = memory
            .summaries
            .iter()
            .enumerate()
            .filter_map(|(i, s)| s.embedding.as_ref().map(|v| (dot(&query, v), i)))
            .collect();
        if scores.is_empty() && !memory.summaries.is_empty() {
            return None;
        }
        Some(
            top_k(scores, k)
                .into_iter()
                .filter(|(score, _)| *score >= min)
                .map(|(_, i)| (Some(memory.summaries[i].id.clone()), memory.summaries[i].text.clone()))
                .collect(),
        )
    }

    /// One summary of `old` (topics separated by [`TOPIC_BREAK`] lines), and what the call
    /// cost. Its length is bounded by the call's `max_tokens` (a little over the target, so
    /// a summary is not cut mid-sentence), not only asked for in the prompt.
    async fn summarize(&self, model: &dyn ChatModel, old: &[Message], focus: Option<&str>) -> Result<(String, Usage)> {
        let mut prompt = SUMMARY_PROMPT.replace("{N}", &self.config.summary_target_tokens.to_string());
        if let Some(f) = focus.map(str::trim).filter(|f| !f.is_empty()) {
            prompt.push_str(&format!(" Give the most room to: {f}."));
        }
        let messages = [Message::system(prompt), Message::user(transcript(old))];
        let target = self.config.summary_target_tokens;
        let limit = u32::try_from(target + target / 4).unwrap_or(u32::MAX);
        let options = ChatOptions { max_tokens: Some(limit.max(32)), ..ChatOptions::default() };
        let r = model.chat(ChatRequest::new(&messages, &[], &options)).await?;
        Ok((r.message.content.trim().to_string(), r.usage.unwrap_or_default()))
    }
}

/// A summariser's answer cut at its [`TOPIC_BREAK`] lines, one text per topic.
fn split_topics(text: &str) -> Vec<String> {
    let mut pieces = vec![String::new()];
    for line in text.lines() {
        if line.trim() == TOPIC_BREAK {
            pieces.push(String::new());
        } else if let Some(last) = pieces.last_mut() {
            last.push_str(line);
            last.push('\n');
        }
    }
    pieces.into_iter().map(|p| p.trim().to_string()).filter(|p| !p.is_empty()).collect()
}

/// Old messages as the plain text a summariser reads.
fn transcript(old: &[Message]) -> String {
    let mut out = String::new();
    for m in old {
        match m {
            Message::User { content } => out.push_str(&format!("user: {content}\n")),
            Message::Assistant(a) => {
                if !a.content.is_empty() {
                    out.push_str(&format!("assistant: {}\n", a.content));
                }
                for c in &a.tool_calls {
                    out.push_str(&format!("assistant called {}({})\n", c.name, c.arguments));
                }
            }
            Message::Tool(r) => out.push_str(&format!("tool {} returned: {}\n", r.name, r.content)),
            Message::System { .. } => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_summary_splits_at_topic_breaks_only() {
        let text =
            "Rome was a republic.\n---\nSourdough needs a starter.\n ---  \n\nJazz uses tritone subs.\n--- not a break";
        assert_eq!(
            split_topics(text),
            ["Rome was a republic.", "Sourdough needs a starter.", "Jazz uses tritone subs.\n--- not a break"]
        );
        assert!(split_topics("---\n").is_empty());
    }
}
