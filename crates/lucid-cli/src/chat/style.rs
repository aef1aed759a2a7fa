//! How `lucid chat` looks: styles that respect `NO_COLOR` and non-terminals, and the
//! "thinking…" spinner on stderr.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

use tokio::sync::oneshot;

/// How output looks: colors only on a terminal without `NO_COLOR`.
#[derive(Debug, Clone, Copy)]
pub struct Style {
    pub color: bool,
    /// stderr is a terminal: a spinner may draw there.
    pub spinner: bool,
}

impl Style {
    /// From the environment and the streams.
    pub fn detect(no_color: bool) -> Style {
        let tty = std::io::stdout().is_terminal();
        Style { color: tty && !no_color, spinner: std::io::stderr().is_terminal() }
    }

    fn wrap(self, code: &str, s: &str) -> String {
        if self.color { format!("\x1b[{code}m{s}\x1b[0m") } else { s.to_string() }
    }

    /// Dimmed.
    pub fn dim(self, s: &str) -> String {
        self.wrap("2", s)
    }

    /// Cyan.
    pub fn cyan(self, s: &str) -> String {
        self.wrap("36", s)
    }

    /// Green.
    pub fn green(self, s: &str) -> String {
        self.wrap("32", s)
    }

    /// Red.
    pub fn red(self, s: &str) -> String {
        self.wrap("31", s)
    }

    /// Bold.
    pub fn bold(self, s: &str) -> String {
        self.wrap("1", s)
    }
}

/// "thinking… 1.2s" on stderr until stopped (dropped).
pub struct Spinner {
    stop: Option<oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<()>>,
}

impl Spinner {
    /// Starts spinning if the style allows it.
    pub fn start(style: Style) -> Spinner {
        if !style.spinner {
            return Spinner { stop: None, task: None };
        }
        let (stop, mut stopped) = oneshot::channel::<()>();
        crate::display::set_spinner_shown(true);
        let task = tokio::spawn(async move {
            let frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
            let started = Instant::now();
            let mut i = 0;
            loop {
                {
                    let mut err = std::io::stderr().lock();
                    let _ =
                        write!(err, "\r{} thinking… {:.1}s", frames[i % frames.len()], started.elapsed().as_secs_f64());
                    let _ = err.flush();
                }
                i += 1;
                tokio::select! {
                    _ = &mut stopped => break,
                    _ = tokio::time::sleep(Duration::from_millis(100)) => {}
                }
            }
            let mut err = std::io::stderr().lock();
            crate::display::set_spinner_shown(false);
            let _ = write!(err, "\r\x1b[K");
            let _ = err.flush();
        });
        Spinner { stop: Some(stop), task: Some(task) }
    }

    /// Stops and erases it; waits until the line is clean.
    pub async fn stop(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.task.take() {
            let _ = t.await;
        }
    }
}
