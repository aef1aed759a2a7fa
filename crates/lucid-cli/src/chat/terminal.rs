//! The terminal side of `lucid chat`: a line editor on its own thread (rustyline blocks),
//! and slash-command completion.

use std::path::PathBuf;
use std::sync::mpsc;

use rustyline::completion::{Completer, Pair};
use rustyline::error::ReadlineError;
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::history::DefaultHistory;
use rustyline::validate::Validator;
use rustyline::{Context, Editor, Helper};
use tokio::sync::oneshot;

use super::commands::COMMANDS;

/// What a read gave.
#[derive(Debug)]
pub enum Input {
    /// A line (continuation lines ending in `\` joined with newlines).
    Line(String),
    /// Ctrl-C at the prompt.
    Interrupted,
    /// Ctrl-D, or the input ended.
    Eof,
}

/// A request to the editor thread.
struct Read {
    prompt: String,
    /// Keep the line in the history (not for y/n answers).
    remember: bool,
    reply: oneshot::Sender<Input>,
}

/// The line editor, running on its own thread.
pub struct Reader {
    tx: mpsc::Sender<Read>,
}

impl Reader {
    /// Starts the editor thread; history is loaded from and saved to `history`.
    pub fn start(history: Option<PathBuf>) -> anyhow::Result<Reader> {
        let config = rustyline::Config::builder().auto_add_history(false).max_history_size(2000)?.build();
        let mut editor: Editor<SlashHelper, DefaultHistory> = Editor::with_config(config)?;
        editor.set_helper(Some(SlashHelper));
        if let Some(h) = &history {
            let _ = editor.load_history(h);
        }
        let (tx, rx) = mpsc::channel::<Read>();
        std::thread::spawn(move || {
            while let Ok(req) = rx.recv() {
                let input = read_joined(&mut editor, &req.prompt);
                if let (Input::Line(l), true) = (&input, req.remember)
                    && !l.trim().is_empty()
                {
                    let _ = editor.add_history_entry(l.as_str());
                    if let Some(h) = &history {
                        if let Some(dir) = h.parent() {
                            let _ = std::fs::create_dir_all(dir);
                        }
                        let _ = editor.save_history(h);
                    }
                }
                let _ = req.reply.send(input);
            }
        });
        Ok(Reader { tx })
    }

    /// Reads one input with `prompt`.
    pub async fn read(&self, prompt: &str, remember: bool) -> Input {
        let (reply, rx) = oneshot::channel();
        if self.tx.send(Read { prompt: prompt.to_string(), remember, reply }).is_err() {
            return Input::Eof;
        }
        rx.await.unwrap_or(Input::Eof)
    }
}

/// Reads a line, and more lines while one ends in a backslash.
fn read_joined(editor: &mut Editor<SlashHelper, DefaultHistory>, prompt: &str) -> Input {
    let mut text = String::new();
    let mut p = prompt.to_string();
    loop {
        match editor.readline(&p) {
            Ok(line) => match line.strip_suffix('\\') {
                Some(head) => {
                    text.push_str(head);
                    text.push('\n');
                    p = "… ".into();
                }
                None => {
                    text.push_str(&line);
                    return Input::Line(text);
                }
            },
            Err(ReadlineError::Interrupted) => return Input::Interrupted,
            Err(_) => return Input::Eof,
        }
    }
}

/// Completes slash commands.
pub struct SlashHelper;

impl Completer for SlashHelper {
    type Candidate = Pair;

    fn complete(&self, line: &str, pos: usize, _ctx: &Context<'_>) -> rustyline::Result<(usize, Vec<Pair>)> {
        let head = &line[..pos];
        if !head.starts_with('/') || head.contains(' ') {
            return Ok((pos, Vec::new()));
        }
        let found = COMMANDS
            .iter()
            .filter(|(name, _)| name.starts_with(head))
            .map(|(name, _)| Pair { display: name.to_string(), replacement: format!("{name} ") })
            .collect();
        Ok((0, found))
    }
}

impl Hinter for SlashHelper {
    type Hint = String;
}
impl Highlighter for SlashHelper {}
impl Validator for SlashHelper {}
impl Helper for SlashHelper {}
