//! Secrets stay secret: one redaction function for everything Lucid writes or sends on.
//!
//! API keys are registered as they are given to a client ([`crate::model::http::insert_secret`]
//! does it, so every built-in client registers its key); [`redact`] replaces each one with
//! `***` wherever it appears. Lucid runs it on the transcript, on provider error messages,
//! on messages before they enter a conversation (and so before they are stored or sent
//! back to a model), on every run's result and on every event a streamed run yields (text
//! pieces through a stream redactor that holds back what could be the start of a key cut
//! between two pieces), and [`Redacting`] puts it in front of a log writer so the
//! `tracing` output at any level carries no key. [`redact_json`] does the same for a JSON
//! value a program built from them.
//!
//! It knows only the registered secrets: a key nobody registered, or one the model
//! rewrote (reversed, split with spaces, encoded), passes.
//!
//! ```
//! lucid::redact::register("sk-live-0123456789");
//! assert_eq!(lucid::redact::redact("key=sk-live-0123456789!"), "key=***!");
//! assert_eq!(lucid::redact::redact("nothing here"), "nothing here");
//! ```

use std::borrow::Cow;
use std::io::Write;
use std::sync::RwLock;

/// Secrets shorter than this are not registered: redacting a few common characters
/// everywhere would mangle ordinary text, and no provider issues keys that short.
pub const MIN_SECRET_LEN: usize = 6;

static SECRETS: RwLock<Vec<String>> = RwLock::new(Vec::new());

/// Adds `secret` to what [`redact`] removes (from now on, in this process). A bearer
/// header value is registered without its `Bearer ` prefix.
pub fn register(secret: &str) {
    let secret = secret.strip_prefix("Bearer ").unwrap_or(secret).trim();
    if secret.len() < MIN_SECRET_LEN {
        return;
    }
    let mut secrets = SECRETS.write().unwrap_or_else(|p| p.into_inner());
    if !secrets.iter().any(|s| s == secret) {
        secrets.push(secret.to_string());
        // Longest first, so a key that contains another is replaced whole.
        secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
    }
}

/// `text` with every registered secret replaced by `***`; borrowed when none occurs.
pub fn redact(text: &str) -> Cow<'_, str> {
    let secrets = SECRETS.read().unwrap_or_else(|p| p.into_inner());
    let mut out = Cow::Borrowed(text);
    for s in secrets.iter() {
        if out.contains(s.as_str()) {
            out = Cow::Owned(out.replace(s.as_str(), "***"));
        }
    }
    out
}

/// Whether any secret is registered (nothing to redact otherwise).
fn any_secret() -> bool {
    !SECRETS.read().unwrap_or_else(|p| p.into_inner()).is_empty()
}

/// Replaces `s` with its redaction; true when something was replaced.
pub(crate) fn fix(s: &mut String) -> bool {
    match redact(s) {
        Cow::Borrowed(_) => false,
        Cow::Owned(r) => {
            *s = r;
            true
        }
    }
}

/// Redacts every string of a JSON value in place (object keys included); true when
/// something was replaced.
///
/// ```
/// lucid::redact::register("sk-json-0123456789");
/// let mut v = serde_json::json!({"answer": "the key is sk-json-0123456789", "n": [1, "sk-json-0123456789"]});
/// assert!(lucid::redact::redact_json(&mut v));
/// assert_eq!(v, serde_json::json!({"answer": "the key is ***", "n": [1, "***"]}));
/// ```
pub fn redact_json(value: &mut serde_json::Value) -> bool {
    use serde_json::Value;
    if !any_secret() {
        return false;
    }
    match value {
        Value::String(s) => fix(s),
        Value::Array(items) => items.iter_mut().fold(false, |changed, v| redact_json(v) | changed),
        Value::Object(map) => {
            let mut changed = false;
            if map.keys().any(|k| matches!(redact(k), Cow::Owned(_))) {
                let old = std::mem::take(map);
                for (k, v) in old {
                    map.insert(redact(&k).into_owned(), v);
                }
                changed = true;
            }
            map.values_mut().fold(changed, |changed, v| redact_json(v) | changed)
        }
        _ => false,
    }
}

/// Redacts a run's result in place: its answer, every call's arguments and output, the
/// questions, the stop message and the deferred calls.
pub(crate) fn redact_result(r: &mut crate::outcome::AgentResult) {
    if !any_secret() {
        return;
    }
    fix(&mut r.content);
    for call in &mut r.tool_calls {
        redact_json(&mut call.arguments);
        if let Some(out) = &mut call.output {
            fix(out);
        }
    }
    r.questions.iter_mut().for_each(|q| {
        fix(q);
    });
    if let Some(m) = &mut r.stop_message {
        fix(m);
    }
    for c in &mut r.deferred {
        fix(&mut c.arguments);
    }
}

/// Redacts text that comes in pieces (a streamed answer): what [`StreamRedactor::push`]
/// gives back never holds a registered secret, even one cut between two pieces, because
/// the end of the text that could be the start of a secret (and any whole secret that
/// overlaps it) is held back, unredacted, until the next piece shows what it is (or until
/// [`StreamRedactor::finish`]). Each part handed out is redacted whole, so the parts
/// together read as the whole text redacted at once.
#[derive(Debug, Default)]
pub(crate) struct StreamRedactor {
    held: String,
}

impl StreamRedactor {
    /// Takes the next piece; the text that is safe to hand out now (empty while all of it
    /// could still be the start of a secret).
    pub(crate) fn push(&mut self, piece: &str) -> String {
        if self.held.is_empty() && !any_secret() {
            return piece.to_string();
        }
        self.held.push_str(piece);
        let keep = held_back(&self.held);
        let out = redact(&self.held[..keep]).into_owned();
        self.held.drain(..keep);
        out
    }

    /// The text still held back, redacted (the stream ended, or something else comes next).
    pub(crate) fn finish(&mut self) -> String {
        let held = std::mem::take(&mut self.held);
        redact(&held).into_owned()
    }
}

/// Where the part of `text` to hold back begins (`text.len()` for none): the earliest end
/// of it that could be the start of a registered secret, moved back before any whole
/// secret that overlaps it, so no secret is ever cut between two parts handed out.
fn held_back(text: &str) -> usize {
    let secrets = SECRETS.read().unwrap_or_else(|p| p.into_inner());
    let longest = secrets.first().map_or(0, String::len);
    let from = text.len().saturating_sub(longest.saturating_sub(1));
    let mut keep = (from..text.len())
        .filter(|&i| text.is_char_boundary(i))
        .find(|&i| secrets.iter().any(|s| s.len() > text.len() - i && s.starts_with(&text[i..])))
        .unwrap_or(text.len());
    // A whole secret across the cut goes with the held part (each move goes back, so
    // this ends).
    'moved: loop {
        for s in secrets.iter() {
            let start = keep.saturating_sub(s.len() - 1);
            let window = &text.as_bytes()[start..text.len().min(keep + s.len() - 1)];
            if let Some(at) = window.windows(s.len()).position(|w| w == s.as_bytes())
                && start + at < keep
            {
                keep = start + at;
                continue 'moved;
            }
        }
        return keep;
    }
}

/// Redacts a message's text in place (content, reasoning, tool call arguments, tool
/// output); true when something was replaced.
pub(crate) fn redact_message(m: &mut crate::message::Message) -> bool {
    use crate::message::Message;
    if !any_secret() {
        return false;
    }
    match m {
        Message::System { content } => fix(content),
        Message::User { content, parts } => fix(content) | fix_parts(parts),
        Message::Assistant(a) => {
            let mut changed = fix(&mut a.content);
            if let Some(r) = &mut a.reasoning {
                changed |= fix(&mut r.text);
            }
            for c in &mut a.tool_calls {
                changed |= fix(&mut c.arguments);
            }
            changed
        }
        Message::Tool(r) => fix(&mut r.content) | fix_parts(&mut r.parts),
    }
}

/// Redacts the text parts of a message's content parts.
fn fix_parts(parts: &mut [crate::content::Part]) -> bool {
    let mut changed = false;
    for p in parts {
        if let crate::content::Part::Text { text } = p {
            changed |= fix(text);
        }
    }
    changed
}

/// A writer that redacts what goes through it: put it in front of a log destination,
/// e.g. `tracing_subscriber::fmt().with_writer(|| Redacting(std::io::stderr()))`.
/// Each `write` call is redacted on its own (a log line is written in one call).
#[derive(Debug)]
pub struct Redacting<W>(pub W);

impl<W: Write> Write for Redacting<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match std::str::from_utf8(buf) {
            Ok(text) => {
                self.0.write_all(redact(text).as_bytes())?;
                Ok(buf.len())
            }
            Err(_) => self.0.write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_replaced_everywhere_and_short_strings_are_not_registered() {
        register("Bearer sk-unit-abcdef123");
        register("abc");
        assert_eq!(redact("a sk-unit-abcdef123 b sk-unit-abcdef123"), "a *** b ***");
        assert_eq!(redact("abc"), "abc");
        let mut m = crate::message::Message::tool_result("c", "t", "the key is sk-unit-abcdef123", false);
        assert!(redact_message(&mut m));
        assert_eq!(m.text(), "the key is ***");
        let mut out = Redacting(Vec::new());
        out.write_all(b"DEBUG body={\"key\":\"sk-unit-abcdef123\"}\n").unwrap();
        assert_eq!(String::from_utf8(out.0).unwrap(), "DEBUG body={\"key\":\"***\"}\n");
    }

    #[test]
    fn a_secret_cut_between_pieces_of_a_stream_is_redacted_and_the_rest_passes_whole() {
        register("sk-stream-abcdef987");
        let pieces = ["The key: s", "k-str", "eam-abc", "def987, and sk-s", "ure thing."];
        let mut r = StreamRedactor::default();
        let mut out: Vec<String> = pieces.iter().map(|p| r.push(p)).collect();
        out.push(r.finish());
        assert_eq!(out.concat(), "The key: ***, and sk-sure thing.");
        assert!(out.iter().all(|o| !o.contains("sk-stream-abcdef987")));
        // Held back only while it could be a secret's start; then handed out.
        assert_eq!(out[0], "The key: ");
        let mut r = StreamRedactor::default();
        assert_eq!(r.push("plain words."), "plain words.");
        assert_eq!(r.finish(), "");
        assert_eq!(r.push("it says"), "it say", "an `s` could begin `sk-…`");
        assert_eq!(r.push(" no"), "s no");
    }

    #[test]
    fn a_stream_cut_anywhere_reads_as_the_whole_text_redacted() {
        // Secrets that overlap, and one that begins another.
        for s in ["pfx-secret-1", "pfx-secret-1-longer", "abcd-0123", "0123-wxyz"] {
            register(s);
        }
        let text = "a pfx-secret-1-longer, a pfx-secret-1! abcd-0123-wxyz and é pfx-secret-";
        let whole = redact(text).into_owned();
        assert!(!whole.contains("secret-1") && !whole.contains("0123"), "{whole}");
        let cuts: Vec<usize> = (0..=text.len()).filter(|&i| text.is_char_boundary(i)).collect();
        for (n, &i) in cuts.iter().enumerate() {
            for &j in &cuts[n..] {
                let mut r = StreamRedactor::default();
                let parts = [r.push(&text[..i]), r.push(&text[i..j]), r.push(&text[j..]), r.finish()];
                assert_eq!(parts.concat(), whole, "cut at {i} and {j}: {parts:?}");
            }
        }
    }
}
