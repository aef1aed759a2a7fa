//! Token estimates for trimming the context.
//!
//! Exact counts need the provider's tokenizer; trimming only needs a safe estimate. The
//! heuristic is about 4 characters of English per token (one per character for text that
//! is mostly non-ASCII: CJK runs close to a token per character), plus a fixed overhead per
//! message and per tool call for the wire framing. It errs on the high side, so a budget
//! it respects is respected by the real tokenizer too for ordinary text.

use crate::message::Message;

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

/// Estimated tokens of a message, framing included.
pub fn estimate_message(m: &Message) -> usize {
    PER_MESSAGE
        + match m {
            Message::Assistant(a) => {
                estimate_text(&a.content)
                    + a.tool_calls
                        .iter()
                        .map(|c| PER_TOOL_CALL + estimate_text(&c.name) + estimate_text(&c.arguments))
                        .sum::<usize>()
            }
            other => estimate_text(other.text()),
        }
}

/// Estimated tokens of a whole history.
pub fn estimate_messages(messages: &[Message]) -> usize {
    messages.iter().map(estimate_message).sum()
}
