//! Secrets stay secret: one redaction function for everything Lucid writes or sends on.
//!
//! API keys are registered as they are given to a client ([`crate::model::http::insert_secret`]
//! does it, so every built-in client registers its key); [`redact`] replaces each one with
//! `***` wherever it appears. Lucid runs it on the transcript, on provider error messages,
//! on messages before they enter a conversation (and so before they are stored or sent
//! back to a model), and [`Redacting`] puts it in front of a log writer so the `tracing`
//! output at any level carries no key.
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

/// Redacts a message's text in place (content, reasoning, tool call arguments, tool
/// output); true when something was replaced.
pub(crate) fn redact_message(m: &mut crate::message::Message) -> bool {
    use crate::message::Message;
    fn fix(s: &mut String) -> bool {
        match redact(s) {
            Cow::Borrowed(_) => false,
            Cow::Owned(r) => {
                *s = r;
                true
            }
        }
    }
    if SECRETS.read().map(|s| s.is_empty()).unwrap_or(false) {
        return false;
    }
    match m {
        Message::System { content } | Message::User { content } => fix(content),
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
        Message::Tool(r) => fix(&mut r.content),
    }
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
}
