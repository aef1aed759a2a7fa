//! Token counts for trimming the context and compressing memory.
//!
//! A [`TokenCounter`] counts a text's tokens. With the `tiktoken` feature, OpenAI-family
//! models get their real encoding ([`counter_for_model`] picks `o200k_base` or
//! `cl100k_base`); every other model gets [`Heuristic`], and the agent scales either by
//! the ratio of the prompt tokens the provider reports to the count it made (see
//! `Session::token_calibration`). The
//! heuristic is about 4 characters of English per token (one per character for text that
//! is mostly non-ASCII: CJK runs close to a token per character), plus a fixed overhead per
//! message and per tool call for the wire framing. It errs on the high side, so a budget
//! it respects is respected by the real tokenizer too for ordinary text.

use std::sync::Arc;

use crate::message::Message;

/// Counts tokens of a text.
pub trait TokenCounter: Send + Sync + 'static {
    /// Tokens in `text`.
    fn count(&self, text: &str) -> usize;
    /// The encoding's name (`heuristic`, `o200k_base`, …).
    fn name(&self) -> &str;
}

/// The documented estimate of [`estimate_text`], for any model.
#[derive(Debug, Clone, Copy, Default)]
pub struct Heuristic;

impl TokenCounter for Heuristic {
    fn count(&self, text: &str) -> usize {
        estimate_text(text)
    }
    fn name(&self) -> &str {
        "heuristic"
    }
}

/// A model's real BPE encoding (the `tiktoken` feature).
#[cfg(feature = "tiktoken")]
pub struct Tiktoken {
    bpe: tiktoken_rs::CoreBPE,
    name: &'static str,
}

#[cfg(feature = "tiktoken")]
impl Tiktoken {
    /// The encoding of an OpenAI model, if it is one tiktoken knows.
    ///
    /// ```
    /// use lucid::tokens::{Tiktoken, TokenCounter};
    /// let t = Tiktoken::for_model("gpt-4o-mini").unwrap();
    /// assert_eq!(t.name(), "o200k_base");
    /// assert_eq!(t.count("hello world"), 2);
    /// assert!(Tiktoken::for_model("claude-sonnet-4-5").is_none());
    /// ```
    pub fn for_model(model: &str) -> Option<Self> {
        let name = match model {
            m if m.starts_with("gpt-4o")
                || m.starts_with("gpt-4.1")
                || m.starts_with("gpt-5")
                || m.starts_with('o') && m[1..].starts_with(|c: char| c.is_ascii_digit()) =>
            {
                "o200k_base"
            }
            m if m.starts_with("gpt-4") || m.starts_with("gpt-3.5") || m.starts_with("text-embedding") => "cl100k_base",
            _ => return None,
        };
        let bpe = if name == "o200k_base" { tiktoken_rs::o200k_base() } else { tiktoken_rs::cl100k_base() };
        bpe.ok().map(|bpe| Tiktoken { bpe, name })
    }
}

#[cfg(feature = "tiktoken")]
impl TokenCounter for Tiktoken {
    fn count(&self, text: &str) -> usize {
        self.bpe.encode_ordinary(text).len()
    }
    fn name(&self) -> &str {
        self.name
    }
}

/// The best counter for a model: its tiktoken encoding for OpenAI models (with the
/// `tiktoken` feature), else [`Heuristic`].
///
/// ```
/// let c = lucid::tokens::counter_for_model("claude-sonnet-4-5");
/// assert_eq!(c.name(), "heuristic");
/// ```
pub fn counter_for_model(model: &str) -> Arc<dyn TokenCounter> {
    #[cfg(feature = "tiktoken")]
    if let Some(t) = Tiktoken::for_model(model) {
        return Arc::new(t);
    }
    let _ = model;
    Arc::new(Heuristic)
}

/// Tokens of a message with `counter`, framing included.
pub fn count_message(counter: &dyn TokenCounter, m: &Message) -> usize {
    PER_MESSAGE
        + match m {
            Message::Assistant(a) => {
                counter.count(&a.content)
                    + a.tool_calls
                        .iter()
                        .map(|c| PER_TOOL_CALL + counter.count(&c.name) + counter.count(&c.arguments))
                        .sum::<usize>()
            }
            other => counter.count(other.text()),
        }
}

/// Tokens of a history with `counter`.
pub fn count_messages(counter: &dyn TokenCounter, messages: &[Message]) -> usize {
    messages.iter().map(|m| count_message(counter, m)).sum()
}

/// Framing tokens per message (role, separators).
pub const PER_MESSAGE: usize = 4;
/// Framing tokens per tool call (id, type, name wrapper).
pub const PER_TOOL_CALL: usize = 8;

/// Estimated tokens of a text.
///
/// ```
/// assert_eq!(lucid::tokens::estimate_text("hello world!"), 3);
/// assert_eq!(lucid::tokens::estimate_text(""), 0);
/// ```
pub fn estimate_text(text: &str) -> usize {
    if text.is_empty() {
        return 0;
    }
    let chars = text.chars().count();
    let non_ascii = text.chars().filter(|c| !c.is_ascii()).count();
    if non_ascii * 2 > chars { chars } else { chars.div_ceil(4) }
}

/// Estimated tokens of a message, framing included ([`Heuristic`]).
pub fn estimate_message(m: &Message) -> usize {
    count_message(&Heuristic, m)
}

/// Estimated tokens of a whole history ([`Heuristic`]).
pub fn estimate_messages(messages: &[Message]) -> usize {
    count_messages(&Heuristic, messages)
}
