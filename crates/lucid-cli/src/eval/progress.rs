//! The run's progress on stderr: a bar redrawn in place on a terminal; elsewhere a line
//! at each tenth of the way (a log file gets no carriage returns).

use std::io::Write;
use std::sync::Mutex;
use std::time::Instant;

use lucid_eval::run::Progress;

/// The progress of one run.
pub struct Bar {
    total: usize,
    terminal: bool,
    started: Instant,
    /// The last tenth told (off a terminal).
    told: Mutex<usize>,
}

impl Bar {
    /// A bar for `total` attempts.
    pub fn new(total: usize, terminal: bool) -> Self {
        Bar { total, terminal, started: Instant::now(), told: Mutex::new(0) }
    }

    /// Shows how far the run has come.
    pub fn show(&self, p: Progress) {
        if self.terminal {
            const WIDTH: usize = 30;
            let filled = (p.done * WIDTH).checked_div(self.total).unwrap_or(WIDTH);
            let mut err = std::io::stderr().lock();
            let _ = write!(
                err,
                "\r[{}{}] {}/{} attempts, {} passed, {:.0} s",
                "=".repeat(filled),
                " ".repeat(WIDTH - filled),
                p.done,
                p.total,
                p.passed,
                self.started.elapsed().as_secs_f64()
            );
            if p.done == p.total {
                let _ = writeln!(err);
            }
            return;
        }
        let tenth = (p.done * 10).checked_div(self.total).unwrap_or(10);
        let Ok(mut told) = self.told.lock() else { return };
        if tenth > *told || p.done == p.total {
            *told = tenth;
            eprintln!("lucid: {}/{} attempts, {} passed", p.done, p.total, p.passed);
        }
    }
}
