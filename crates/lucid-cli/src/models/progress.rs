//! The download's progress on stderr: a bar redrawn in place on a terminal, and only a
//! line at the end otherwise (a log file gets no carriage returns).

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

/// Progress of one download.
pub struct Progress {
    label: String,
    total: Option<u64>,
    done: u64,
    started: Instant,
    resumed_at: u64,
    drawn: Option<Instant>,
    terminal: bool,
}

impl Progress {
    /// A bar for `label` (shown inert), `done` bytes of `total` already there (a resumed
    /// download).
    pub fn new(label: &str, done: u64, total: Option<u64>) -> Self {
        Progress {
            label: super::checked::shown(label),
            total,
            done,
            started: Instant::now(),
            resumed_at: done,
            drawn: None,
            terminal: std::io::stderr().is_terminal(),
        }
    }

    /// `n` more bytes arrived.
    pub fn add(&mut self, n: u64) {
        self.done += n;
        if self.terminal && self.drawn.is_none_or(|t| t.elapsed() >= Duration::from_millis(100)) {
            self.draw();
        }
    }

    /// The download ended (whole or not): the last state, and a new line.
    pub fn finish(&mut self) {
        if self.terminal {
            self.draw();
            eprintln!();
        } else {
            eprintln!("lucid: {} {}", self.label, self.amount());
        }
    }

    fn draw(&mut self) {
        self.drawn = Some(Instant::now());
        const WIDTH: usize = 30;
        let bar = match self.total {
            Some(t) if t > 0 => {
                let filled = ((self.done.min(t) as f64 / t as f64) * WIDTH as f64) as usize;
                format!("[{}{}] {:>3}% ", "=".repeat(filled), " ".repeat(WIDTH - filled), self.done.min(t) * 100 / t)
            }
            _ => String::new(),
        };
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r\x1b[2K{} {bar}{}", self.label, self.amount());
        let _ = err.flush();
    }

    /// `120.3 MB of 639.4 MB, 12.1 MB/s`.
    fn amount(&self) -> String {
        let secs = self.started.elapsed().as_secs_f64().max(0.001);
        let rate = (self.done - self.resumed_at) as f64 / secs;
        match self.total {
            Some(t) => format!("{} of {}, {}/s", size(self.done), size(t), size(rate as u64)),
            None => format!("{}, {}/s", size(self.done), size(rate as u64)),
        }
    }
}

/// Bytes as people read them: `639.4 MB`.
pub fn size(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "kB", "MB", "GB", "TB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1000.0 && unit < UNITS.len() - 1 {
        value /= 1000.0;
        unit += 1;
    }
    if unit == 0 { format!("{bytes} B") } else { format!("{value:.1} {}", UNITS[unit]) }
}

#[cfg(test)]
mod tests {
    #[test]
    fn sizes_read_in_decimal_units() {
        assert_eq!(super::size(999), "999 B");
        assert_eq!(super::size(639_446_688), "639.4 MB");
        assert_eq!(super::size(1_500_000_000), "1.5 GB");
    }
}
