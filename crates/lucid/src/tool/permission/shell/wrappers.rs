//! The commands that run another command given after their own options (`env`, `sudo`,
//! `xargs`, `timeout`, …): where that command starts among their arguments.

use super::Word;

/// Where a wrapper's command starts among its arguments.
pub(super) struct Start {
    /// The index of the command's name; `None` when it is only known when it runs.
    pub(super) at: Option<usize>,
    /// A string the wrapper splits into the command (`env -S '…'`).
    pub(super) split: Option<String>,
    /// `xargs -I R`: the text replaced by each input.
    pub(super) replace: Option<String>,
    /// An option's value is only known when it runs.
    hidden: bool,
}

/// How a wrapper reads its options before the command it runs.
pub(super) struct Spec {
    /// Short options that take a value.
    short: &'static str,
    /// Long options that take a value (without `--`).
    long: &'static [&'static str],
    /// Operands before the command (`timeout DURATION`, `chroot DIR`).
    operands: usize,
    /// `NAME=value` words may come before the command (`env`, `sudo`).
    assignments: bool,
}

/// The wrappers: commands that run the command given after their own options.
pub(super) fn wrapper(name: &str) -> Option<Spec> {
    let spec = |short, long, operands, assignments| Some(Spec { short, long, operands, assignments });
    match name {
        "command" | "builtin" | "nohup" | "setsid" | "unbuffer" | "pkexec" | "caffeinate" | "busybox" => {
            spec("", &[], 0, false)
        }
        "exec" => spec("a", &[], 0, false),
        "time" => spec("fo", &["format", "output"], 0, false),
        "nice" => spec("n", &["adjustment"], 0, false),
        "ionice" => spec("cnp", &["class", "classdata", "pid"], 0, false),
        "timeout" => spec("sk", &["signal", "kill-after"], 1, false),
        "stdbuf" => spec("ioe", &["input", "output", "error"], 0, false),
        "chroot" => spec("", &["userspec", "groups"], 1, false),
        "taskset" | "chrt" => spec("", &[], 1, false),
        "env" => spec("uCS", &["unset", "chdir", "split-string"], 0, true),
        "sudo" => spec(
            "ugCDhpRrtTU",
            &[
                "user",
                "group",
                "close-from",
                "chdir",
                "host",
                "prompt",
                "role",
                "type",
                "other-user",
                "command-timeout",
            ],
            0,
            true,
        ),
        "doas" => spec("uC", &[], 0, false),
        "xargs" => spec(
            "IadELnPs",
            &[
                "arg-file",
                "delimiter",
                "eof",
                "replace",
                "max-lines",
                "max-args",
                "max-procs",
                "max-chars",
                "process-slot-var",
            ],
            0,
            false,
        ),
        _ => None,
    }
}

impl Spec {
    pub(super) fn start(&self, words: &[Word]) -> Start {
        let mut out = Start { at: None, split: None, replace: None, hidden: false };
        let mut i = 0;
        while let Some(w) = words.get(i) {
            let Some(text) = &w.literal else { return out };
            if text == "--" {
                i += 1;
                break;
            }
            if self.assignments && text.split_once('=').is_some_and(|(n, _)| is_name(n)) {
                i += 1;
                continue;
            }
            if let Some(long) = text.strip_prefix("--") {
                let (name, value) = match long.split_once('=') {
                    Some((n, v)) => (n, Some(v.to_string())),
                    None => (long, None),
                };
                let takes = self.long.contains(&name);
                let value = match value {
                    None if takes => words.get(i + 1).and_then(|w| w.literal.clone()),
                    v => v,
                };
                self.note(&mut out, name, value, words, i);
                i += if takes && !long.contains('=') { 2 } else { 1 };
                continue;
            }
            let Some(letters) = text.strip_prefix('-').filter(|l| !l.is_empty()) else { break };
            match letters.char_indices().find(|(_, c)| self.short.contains(*c)) {
                Some((k, c)) => {
                    let attached = &letters[k + c.len_utf8()..];
                    let value = if attached.is_empty() {
                        words.get(i + 1).and_then(|w| w.literal.clone())
                    } else {
                        Some(attached.to_string())
                    };
                    self.note(&mut out, &c.to_string(), value, words, i);
                    i += if attached.is_empty() { 2 } else { 1 };
                }
                None => {
                    if letters.contains('i') && self.long.contains(&"replace") {
                        out.replace = Some("{}".into()); // `xargs -i`
                    }
                    i += 1;
                }
            }
        }
        let at = i + self.operands;
        out.at = Some(at);
        // An option's value only known when it runs hides where the command starts.
        if out.hidden || words[..at.min(words.len())].iter().any(|w| w.literal.is_none()) {
            out.at = None;
        }
        out
    }

    /// What an option says about the command: `env -S STRING`, `xargs -I R`.
    fn note(&self, out: &mut Start, option: &str, value: Option<String>, words: &[Word], i: usize) {
        if matches!(option, "S" | "split-string") && self.assignments {
            let rest: Option<Vec<String>> = words.iter().skip(i + 2).map(|w| w.literal.clone()).collect();
            match (value.clone(), rest) {
                (Some(v), Some(rest)) => out.split = Some(std::iter::once(v).chain(rest).collect::<Vec<_>>().join(" ")),
                _ => out.hidden = true,
            }
        }
        if matches!(option, "I" | "replace") && self.long.contains(&"replace") {
            out.replace = Some(value.unwrap_or_else(|| "{}".into()));
        }
    }
}

/// How many of `watch`'s words are its own options.
pub(super) fn watch_options(words: &[String]) -> usize {
    let mut i = 0;
    while let Some(w) = words.get(i) {
        match w.as_str() {
            "--" => return i + 1,
            "-n" | "--interval" | "-q" | "--equexit" => i += 2,
            w if w.starts_with('-') => i += 1,
            _ => break,
        }
    }
    i
}

fn is_name(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}
