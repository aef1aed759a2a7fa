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

use crate::content::{MediaSource, Part, PartKind};
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
            Message::User { content, parts } => content_tokens(counter, content, parts),
            Message::Tool(r) => content_tokens(counter, &r.content, &r.parts),
            other => counter.count(other.text()),
        }
}

fn content_tokens(counter: &dyn TokenCounter, content: &str, parts: &[Part]) -> usize {
    if parts.is_empty() {
        return counter.count(content);
    }
    parts.iter().map(|p| part_tokens(counter, p)).sum()
}

/// Tokens of one content part. Text is counted with `counter`; the rest is a stated
/// estimate that errs high, so a request estimated to fit does fit:
/// - an image: the larger of OpenAI's high-detail rule (fit in 2048×2048, shortest side
///   768, 170 per 512-pixel tile + 85) and Anthropic's (`width × height / 750` after fitting
///   in 1568 pixels), from the size in a PNG, GIF, JPEG or WebP header; 1,600 when the
///   size is unknown (a URL), Anthropic's figure for its largest image;
/// - a PDF: 3,000 per page (Anthropic's upper figure for a page's text and image), pages
///   counted from the file's `/Type /Page` objects; 3,000 for a URL;
/// - audio: 32 per second (Gemini's rate), seconds read from a WAV header or assumed at
///   128 kbit/s for MP3;
/// - a plain-text document: its text.
///
/// ```
/// use lucid::{Part, tokens::{Heuristic, part_tokens}};
/// // A 1024×1024 PNG: OpenAI 765, Anthropic ⌈1024·1024/750⌉ = 1399.
/// let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
/// png.extend_from_slice(&1024u32.to_be_bytes());
/// png.extend_from_slice(&1024u32.to_be_bytes());
/// assert_eq!(part_tokens(&Heuristic, &Part::image_bytes("image/png", png)), 1399);
/// assert_eq!(part_tokens(&Heuristic, &Part::image_url("https://example.com/a.png")), 1600);
/// ```
pub fn part_tokens(counter: &dyn TokenCounter, p: &Part) -> usize {
    if let Some(text) = p.as_text() {
        return counter.count(text);
    }
    let Some(m) = p.media() else { return 0 };
    let bytes = match &m.source {
        MediaSource::Bytes(b) => Some(&b[..]),
        MediaSource::Url(_) => None,
    };
    match p.kind() {
        PartKind::Image => bytes.and_then(image_size).map_or(1_600, |(w, h)| image_tokens(w, h)),
        PartKind::Pdf => bytes.map_or(3_000, |b| 3_000 * pdf_pages(b).max(1)),
        PartKind::Audio => bytes.map_or(1_000, |b| 32 * audio_seconds(&m.media_type, b).max(1)),
        _ => p.describe().len().div_ceil(4),
    }
}

/// The larger of OpenAI's high-detail and Anthropic's token rule for a `w`×`h` image.
fn image_tokens(w: u32, h: u32) -> usize {
    let (w, h) = (f64::from(w.max(1)), f64::from(h.max(1)));
    // OpenAI: fit within 2048×2048, then scale the shortest side to 768.
    let s = (2048.0 / w.max(h)).min(1.0);
    let (ow, oh) = (w * s, h * s);
    let s = (768.0 / ow.min(oh)).min(1.0);
    let (ow, oh) = (ow * s, oh * s);
    let openai = 85 + 170 * ((ow / 512.0).ceil() * (oh / 512.0).ceil()) as usize;
    // Anthropic: fit within 1568 on the long edge, then width × height / 750.
    let s = (1568.0 / w.max(h)).min(1.0);
    let anthropic = ((w * s) * (h * s) / 750.0).ceil() as usize;
    openai.max(anthropic)
}

/// Width and height from an image header (PNG, GIF, WebP, JPEG).
fn image_size(b: &[u8]) -> Option<(u32, u32)> {
    let be32 = |i: usize| Some(u32::from_be_bytes(b.get(i..i + 4)?.try_into().ok()?));
    let le16 = |i: usize| Some(u32::from(u16::from_le_bytes(b.get(i..i + 2)?.try_into().ok()?)));
    let be16 = |i: usize| Some(u32::from(u16::from_be_bytes(b.get(i..i + 2)?.try_into().ok()?)));
    match crate::content::sniff(b)? {
        "image/png" => Some((be32(16)?, be32(20)?)),
        "image/gif" => Some((le16(6)?, le16(8)?)),
        "image/webp" => match b.get(12..16)? {
            b"VP8X" => {
                let le24 = |i: usize| Some(u32::from_le_bytes([*b.get(i)?, *b.get(i + 1)?, *b.get(i + 2)?, 0]) + 1);
                Some((le24(24)?, le24(27)?))
            }
            b"VP8 " => Some((le16(26)? & 0x3FFF, le16(28)? & 0x3FFF)),
            b"VP8L" => {
                let v = u32::from_le_bytes(b.get(21..25)?.try_into().ok()?);
                Some(((v & 0x3FFF) + 1, ((v >> 14) & 0x3FFF) + 1))
            }
            _ => None,
        },
        "image/jpeg" => {
            // Walk the segments to the first start-of-frame marker.
            let mut i = 2;
            while i + 9 < b.len() {
                if b[i] != 0xFF {
                    return None;
                }
                let marker = b[i + 1];
                let len = be16(i + 2)? as usize;
                if matches!(marker, 0xC0..=0xCF) && !matches!(marker, 0xC4 | 0xC8 | 0xCC) {
                    return Some((be16(i + 7)?, be16(i + 5)?));
                }
                i += 2 + len;
            }
            None
        }
        _ => None,
    }
}

/// Pages of a PDF: its `/Type /Page` objects (not `/Pages`).
fn pdf_pages(b: &[u8]) -> usize {
    let mut n = 0;
    for needle in [&b"/Type /Page"[..], b"/Type/Page"] {
        n += memchr::memmem::find_iter(b, needle).filter(|&i| b.get(i + needle.len()) != Some(&b's')).count();
    }
    n
}

/// Seconds of audio: a WAV's data size over its byte rate, else 128 kbit/s.
fn audio_seconds(media_type: &str, b: &[u8]) -> usize {
    if media_type.contains("wav") && b.len() > 44 {
        let rate = u32::from_le_bytes([b[28], b[29], b[30], b[31]]) as usize;
        if rate > 0 {
            return (b.len() - 44).div_ceil(rate);
        }
    }
    b.len().div_ceil(16_000)
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
