//! Compression: which old turns leave the window, how they are grouped into topics and
//! summarised, and the trimming that is the last resort when no summary can be made.

use std::ops::Range;

use futures::future::BoxFuture;

use super::{Compaction, Compress, ConversationMemory, Env, SessionMemory, Summary, TOPIC_BREAK};
use crate::context::{Context, ContextLimits};
use crate::error::Result;
use crate::memory::vector::dot;
use crate::message::{Message, Usage};
use crate::model::{ChatModel, ChatOptions, ChatRequest};
use crate::store::now_ms;
use crate::tokens::count_messages;

const SUMMARY_PROMPT: &str = "You compress conversations for long-term memory. Summarize the conversation \
excerpt the user gives you in at most {N} tokens. Keep every fact, name, number, preference, decision and \
open question; drop pleasantries. Write plain sentences in the third person, no preamble. When the excerpt \
covers several distinct topics, write one paragraph per topic with a line holding only --- between them.";

/// Most summary calls one compression makes: topics beyond it are merged with a neighbour.
const MAX_TOPICS: usize = 4;

impl ConversationMemory {
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
                return Err(crate::model::ModelError::Decode {
                    provider: env.model.provider().to_string(),
                    message: "the summary call answered no text".into(),
                }
                .into());
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
    pub(super) fn trim(&self, env: &Env<'_>, context: &mut Context) -> usize {
        let trigger = self.config.budget(env.window_budget) as f64 * self.config.compression_threshold;
        let limits = ContextLimits {
            max_messages: Some(self.config.short_term_capacity),
            max_tokens: Some((trigger / env.calibration) as usize),
        };
        context.trim_with(&limits, env.counter)
    }

    /// Ranges of `old` (whole turns), one per topic.
    async fn topics(&self, old: &[Message]) -> Vec<Range<usize>> {
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
            Message::User { content, .. } => {
                out.push_str(&format!("user: {content}\n"));
                // The summariser reads text: attachments are named, not sent.
                for p in m.attachments() {
                    out.push_str(&format!("user attached {}\n", p.describe()));
                }
            }
            Message::Assistant(a) => {
                if !a.content.is_empty() {
                    out.push_str(&format!("assistant: {}\n", a.content));
                }
                for c in &a.tool_calls {
                    out.push_str(&format!("assistant called {}({})\n", c.name, c.arguments));
                }
            }
            Message::Tool(r) => {
                out.push_str(&format!("tool {} returned: {}\n", r.name, r.content));
                for p in m.attachments() {
                    out.push_str(&format!("tool {} attached {}\n", r.name, p.describe()));
                }
            }
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
