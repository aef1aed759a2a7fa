//! Text shown on the terminal by `lucid run` and `lucid chat`.
//!
//! Everything that came from a model, a tool or a server goes through [`safe`] before it
//! reaches a terminal, so it cannot move the cursor, erase what is shown (an approval
//! prompt, say), set the window title, write the clipboard (OSC 52) or reorder text with
//! bidi controls.

use std::borrow::Cow;
use std::fmt::Write;
use std::sync::atomic::{AtomicBool, Ordering};

/// Whether the chat's spinner is drawn on the last line of stderr.
static SPINNER_SHOWN: AtomicBool = AtomicBool::new(false);

/// Says whether the spinner is on the last line of stderr (so a log line erases it first).
pub fn set_spinner_shown(shown: bool) {
    SPINNER_SHOWN.store(shown, Ordering::Relaxed);
}

/// One log event's writer on stderr: when the spinner is shown, its line is erased
/// before the event's first byte, so a warning starts on a clean line instead of after
/// "thinking… 1.2s" (the spinner draws itself again on the next line). Holds the stderr
/// lock for the event, so no frame lands inside it.
pub struct LogLine {
    err: std::io::StderrLock<'static>,
    started: bool,
}

impl LogLine {
    /// A writer for one event.
    pub fn new() -> LogLine {
        LogLine { err: std::io::stderr().lock(), started: false }
    }
}

impl std::io::Write for LogLine {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if !self.started {
            self.started = true;
            if SPINNER_SHOWN.load(Ordering::Relaxed) {
                self.err.write_all(b"\r\x1b[K")?;
            }
        }
        self.err.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.err.flush()
    }
}

/// Whether `c` would act on a terminal instead of being shown: C0 controls but newline and
/// tab, DEL, C1 controls, and the bidi embedding, override and isolate characters.
fn acts(c: char) -> bool {
    matches!(c, '\0'..='\x08' | '\x0b'..='\x1f' | '\x7f'..='\u{9f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `s` with every character that would act on a terminal shown as its escape: the
/// window-title sequence `ESC ] 0 ; t BEL` is shown as the text `\u{1b}]0;t\u{7}`.
pub fn safe(s: &str) -> Cow<'_, str> {
    if !s.chars().any(acts) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        if acts(c) {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// `s` on one line (runs of whitespace, newlines included, become one space), cut to `n`
/// characters with an ellipsis, made [`safe`].
pub fn truncate(s: &str, n: usize) -> String {
    let one_line = s.split_whitespace().collect::<Vec<_>>().join(" ");
    let cut = if one_line.chars().count() > n {
        format!("{}…", one_line.chars().take(n).collect::<String>())
    } else {
        one_line
    };
    safe(&cut).into_owned()
}

/// `s` made [`safe`], each line after the first indented by `indent` spaces, so a
/// multi-line description stays under the column it started in. Blank lines are dropped.
pub fn hanging(s: &str, indent: usize) -> String {
    let pad = " ".repeat(indent);
    let mut lines = s.lines().map(str::trim_end).filter(|l| !l.trim().is_empty());
    let mut out = lines.next().map(|l| safe(l.trim_start()).into_owned()).unwrap_or_default();
    for line in lines {
        out.push('\n');
        out.push_str(&pad);
        out.push_str(&safe(line.trim_start()));
    }
    out
}

/// A library message with the settings it names given as this program's flags: the
/// library says `HttpTransportBuilder::deadline`, a `lucid` user sets `--deadline`.
pub fn with_flags(text: &str) -> String {
    const FLAGS: [(&str, &str); 6] = [
        ("HttpTransportBuilder::deadline", "--deadline"),
        ("HttpTransportBuilder::request_timeout", "--timeout"),
        ("HttpTransportBuilder::read_timeout sets it", "the read timeout; --timeout sets it"),
        ("the client's `model` argument", "e.g. --model NAME"),
        ("Preset::with_api(Api::Chat)", "--api chat"),
        ("Preset::with_api(Api::Responses)", "--api responses"),
    ];
    FLAGS.iter().fold(text.to_string(), |t, (setting, flag)| t.replace(setting, flag))
}

/// A cost as people read it: `$0.0123`, or `cost unknown` for a model without a price
/// (never `$0`).
pub fn dollars(cost: Option<f64>) -> String {
    match cost {
        Some(c) => format!("${c:.4}"),
        None => "cost unknown".to_string(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn later_lines_hang_under_the_first() {
        assert_eq!(
            super::hanging("Reads a file.\n\n  Paths are relative.\nNo links.", 4),
            "Reads a file.\n    Paths are relative.\n    No links."
        );
        assert_eq!(super::hanging("one line", 4), "one line");
        assert_eq!(super::hanging("a\x1b[2J\nb", 2), "a\\u{1b}[2J\n  b");
    }

    #[test]
    fn one_line_cut_with_an_ellipsis() {
        assert_eq!(super::truncate("a\r\n  b\tc", 10), "a b c");
        assert_eq!(super::truncate("abcdef", 3), "abc…");
        assert_eq!(super::truncate("a\x1b[2Jb", 10), "a\\u{1b}[2Jb");
    }

    #[test]
    fn controls_escapes_and_bidi_are_shown_not_obeyed() {
        use super::safe;
        assert!(matches!(safe("plain text\n\twith tabs, ünïcode ✓"), std::borrow::Cow::Borrowed(_)));
        // Erase the line and draw another, set the title, write the clipboard, C1 CSI,
        // carriage return, and a right-to-left override.
        let hostile = "rm -rf ~\r\x1b[2K\x1b[1Aecho hi\x1b]0;title\x07\x1b]52;c;ZWNobw==\x07\u{9b}31m\u{202e}txt.exe";
        let shown = safe(hostile);
        assert!(!shown.chars().any(|c| c.is_control() || ('\u{202a}'..='\u{202e}').contains(&c)), "{shown}");
        assert_eq!(
            shown,
            "rm -rf ~\\u{d}\\u{1b}[2K\\u{1b}[1Aecho hi\\u{1b}]0;title\\u{7}\\u{1b}]52;c;ZWNobw==\\u{7}\\u{9b}31m\\u{202e}txt.exe"
        );
    }

    #[test]
    fn library_settings_become_flags() {
        use super::with_flags;
        assert_eq!(
            with_flags("the call's deadline of 2 s passed (retries included; HttpTransportBuilder::deadline sets it)"),
            "the call's deadline of 2 s passed (retries included; --deadline sets it)"
        );
        assert_eq!(
            with_flags("use Chat Completions (Preset::with_api(Api::Chat))"),
            "use Chat Completions (--api chat)"
        );
    }
}
