//! An incremental Server-Sent-Events decoder.
//!
//! Feed it bytes as they arrive, in chunks of any size (a chunk may end inside a line, a
//! UTF-8 character or a `\r\n` pair); it returns each complete event once. Lines may end
//! with `\n`, `\r\n` or `\r`, as the SSE specification allows; Gemini uses `\r\n\r\n`
//! between events, OpenAI and Anthropic `\n\n`.

use std::borrow::Cow;

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SseEvent {
    /// The `event:` field, if the event had one.
    pub event: Option<String>,
    /// The `data:` lines joined with `\n`.
    pub data: String,
}

/// The decoder's state between chunks.
///
/// ```
/// use lucid::model::sse::SseDecoder;
/// let mut d = SseDecoder::default();
/// let mut events = d.feed(b"event: ping\ndata: {\"a\"");
/// assert!(events.is_empty());
/// events = d.feed(b":1}\r\n\r\n");
/// assert_eq!(events[0].event.as_deref(), Some("ping"));
/// assert_eq!(events[0].data, "{\"a\":1}");
/// ```
#[derive(Debug, Default)]
pub struct SseDecoder {
    buf: Vec<u8>,
    skip_lf: bool,
    pending: Pending,
}

/// The fields of the event being read.
#[derive(Debug, Default)]
struct Pending {
    event: Option<String>,
    data: Option<String>,
}

impl SseDecoder {
    /// Decodes what `chunk` completes and returns the events dispatched by it.
    pub fn feed(&mut self, chunk: &[u8]) -> Vec<SseEvent> {
        let mut out = Vec::new();
        self.feed_into(chunk, &mut out);
        out
    }

    /// [`SseDecoder::feed`], appending the events to `out` (a stream reuses one vector).
    ///
    /// Lines wholly inside `chunk` are read where they lie; only a line the chunk cuts off
    /// is copied, to be completed by the next one.
    pub fn feed_into(&mut self, chunk: &[u8], out: &mut Vec<SseEvent>) {
        let mut rest = chunk;
        if self.skip_lf && !rest.is_empty() {
            self.skip_lf = false;
            if rest[0] == b'\n' {
                rest = &rest[1..];
            }
        }
        while let Some(end) = memchr::memchr2(b'\n', b'\r', rest) {
            if self.buf.is_empty() {
                self.pending.line(&rest[..end], out);
            } else {
                self.buf.extend_from_slice(&rest[..end]);
                self.pending.line(&self.buf, out);
                self.buf.clear();
            }
            let cr = rest[end] == b'\r';
            rest = &rest[end + 1..];
            if cr {
                match rest.first() {
                    Some(b'\n') => rest = &rest[1..],
                    Some(_) => {}
                    None => self.skip_lf = true,
                }
            }
        }
        self.buf.extend_from_slice(rest);
    }

    /// Bytes of a line begun but not ended yet (held until its line break comes): what a
    /// caller bounds to refuse an endless line.
    pub fn pending_len(&self) -> usize {
        self.buf.len()
    }

    /// Ends the input. An event whose lines all ended but which lacks the closing blank
    /// line is still dispatched (some servers end with a single `\n`); a line cut off
    /// mid-way is discarded with its event, since its data is incomplete.
    pub fn finish(&mut self) -> Option<SseEvent> {
        if !self.buf.is_empty() {
            self.buf.clear();
            self.pending = Pending::default();
            return None;
        }
        self.pending.dispatch()
    }
}

impl Pending {
    fn line(&mut self, line: &[u8], out: &mut Vec<SseEvent>) {
        // Borrowed unless the line holds invalid UTF-8: no allocation per line.
        let line = match std::str::from_utf8(line) {
            Ok(s) => Cow::Borrowed(s),
            Err(_) => String::from_utf8_lossy(line),
        };
        let line = line.as_ref();
        if line.is_empty() {
            out.extend(self.dispatch());
            return;
        }
        if line.starts_with(':') {
            return;
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        match field {
            "data" => match &mut self.data {
                Some(d) => {
                    d.push('\n');
                    d.push_str(value);
                }
                None => self.data = Some(value.to_string()),
            },
            "event" => self.event = Some(value.to_string()),
            _ => {}
        }
    }

    fn dispatch(&mut self) -> Option<SseEvent> {
        let event = self.event.take();
        self.data.take().map(|data| SseEvent { event, data })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(chunks: &[&[u8]]) -> Vec<SseEvent> {
        let mut d = SseDecoder::default();
        let mut v: Vec<SseEvent> = chunks.iter().flat_map(|c| d.feed(c)).collect();
        v.extend(d.finish());
        v
    }

    #[test]
    fn crlf_split_between_chunks_is_one_line_end() {
        let v = all(&[b"data: a\r", b"\n\r", b"\ndata: b\r\n\r\n"]);
        assert_eq!(v.iter().map(|e| e.data.as_str()).collect::<Vec<_>>(), ["a", "b"]);
    }

    #[test]
    fn multi_line_data_and_comments() {
        let v = all(&[b": keepalive\ndata: x\ndata: y\n\n"]);
        assert_eq!(v, [SseEvent { event: None, data: "x\ny".into() }]);
    }

    #[test]
    fn last_event_without_blank_line_is_flushed_but_a_cut_line_is_not() {
        let v = all(&[b"data: {\"done\":true}\n"]);
        assert_eq!(v[0].data, "{\"done\":true}");
        assert!(all(&[b"data: {\"done\":tr"]).is_empty());
    }

    #[test]
    fn utf8_split_inside_a_character() {
        let s = "data: 日本\n\n".as_bytes();
        let v = all(&[&s[..8], &s[8..]]);
        assert_eq!(v[0].data, "日本");
    }
}
