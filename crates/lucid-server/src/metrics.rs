//! `GET /metrics`: counters and histograms in the Prometheus text format, kept with
//! atomics (no metrics crate). Labels are statuses and outcomes only: no tenant, session,
//! prompt or key ever becomes a label.

use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use crate::db::RunStatus;

/// Upper bounds (seconds) of the latency histograms' buckets.
const BUCKETS: [f64; 12] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0];

/// A latency histogram.
#[derive(Debug, Default)]
struct Histogram {
    buckets: [AtomicU64; BUCKETS.len()],
    count: AtomicU64,
    sum_micros: AtomicU64,
}

impl Histogram {
    fn observe(&self, d: Duration) {
        let secs = d.as_secs_f64();
        for (bound, bucket) in BUCKETS.iter().zip(&self.buckets) {
            if secs <= *bound {
                bucket.fetch_add(1, Ordering::Relaxed);
            }
        }
        self.count.fetch_add(1, Ordering::Relaxed);
        self.sum_micros.fetch_add(d.as_micros() as u64, Ordering::Relaxed);
    }

    fn write(&self, out: &mut String, name: &str, help: &str) {
        let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} histogram");
        for (bound, bucket) in BUCKETS.iter().zip(&self.buckets) {
            let _ = writeln!(out, "{name}_bucket{{le=\"{bound}\"}} {}", bucket.load(Ordering::Relaxed));
        }
        let count = self.count.load(Ordering::Relaxed);
        let _ = writeln!(out, "{name}_bucket{{le=\"+Inf\"}} {count}");
        let _ = writeln!(out, "{name}_sum {}", self.sum_micros.load(Ordering::Relaxed) as f64 / 1e6);
        let _ = writeln!(out, "{name}_count {count}");
    }
}

/// What the server counts.
#[derive(Debug, Default)]
pub struct Metrics {
    runs: [AtomicU64; 6],
    model_calls: AtomicU64,
    input_tokens: AtomicU64,
    output_tokens: AtomicU64,
    /// Billionths of a dollar, over turns whose cost was known.
    cost_nanos: AtomicU64,
    /// Turns whose cost was not known (a model without a price).
    unpriced_turns: AtomicU64,
    tool_calls_ok: AtomicU64,
    tool_calls_failed: AtomicU64,
    run_seconds: Histogram,
    tool_seconds: Histogram,
}

const STATUSES: [RunStatus; 6] = [
    RunStatus::Queued,
    RunStatus::Running,
    RunStatus::Completed,
    RunStatus::Failed,
    RunStatus::Cancelled,
    RunStatus::NeedsInput,
];

impl Metrics {
    /// A turn of a run (or of a chat completion) ended in `status` after `took`.
    pub fn turn_ended(&self, status: RunStatus, took: Duration) {
        if let Some(i) = STATUSES.iter().position(|s| *s == status) {
            self.runs[i].fetch_add(1, Ordering::Relaxed);
        }
        self.run_seconds.observe(took);
    }

    /// A model call finished with this usage.
    pub fn model_calls(&self, calls: usize, usage: &lucid::Usage) {
        self.model_calls.fetch_add(calls as u64, Ordering::Relaxed);
        self.input_tokens.fetch_add(usage.input_tokens, Ordering::Relaxed);
        self.output_tokens.fetch_add(usage.output_tokens, Ordering::Relaxed);
    }

    /// A turn's cost: dollars, or `None` when a model it used has no known price.
    pub fn cost(&self, dollars: Option<f64>) {
        match dollars {
            Some(d) => self.cost_nanos.fetch_add((d.max(0.0) * 1e9).round() as u64, Ordering::Relaxed),
            None => self.unpriced_turns.fetch_add(1, Ordering::Relaxed),
        };
    }

    /// A tool call finished.
    pub fn tool_call(&self, failed: bool, took: Duration) {
        let counter = if failed { &self.tool_calls_failed } else { &self.tool_calls_ok };
        counter.fetch_add(1, Ordering::Relaxed);
        self.tool_seconds.observe(took);
    }

    /// The Prometheus text, with the number of runs going now.
    pub fn render(&self, active_runs: usize) -> String {
        let mut out = String::with_capacity(4096);
        out.push_str(
            "# HELP lucid_runs_total Turns of runs and chat completions ended, by the status they ended in.\n",
        );
        out.push_str("# TYPE lucid_runs_total counter\n");
        for (status, n) in STATUSES.iter().zip(&self.runs) {
            if status.is_active() {
                continue;
            }
            let _ = writeln!(out, "lucid_runs_total{{status=\"{}\"}} {}", status.as_str(), n.load(Ordering::Relaxed));
        }
        let _ = writeln!(
            out,
            "# HELP lucid_runs_active Runs going in this instance.\n# TYPE lucid_runs_active gauge\nlucid_runs_active {active_runs}"
        );
        let _ = writeln!(
            out,
            "# HELP lucid_model_calls_total Model calls made.\n# TYPE lucid_model_calls_total counter\nlucid_model_calls_total {}",
            self.model_calls.load(Ordering::Relaxed)
        );
        let _ = writeln!(
            out,
            "# HELP lucid_tokens_total Tokens the providers reported.\n# TYPE lucid_tokens_total counter\n\
             lucid_tokens_total{{kind=\"input\"}} {}\nlucid_tokens_total{{kind=\"output\"}} {}",
            self.input_tokens.load(Ordering::Relaxed),
            self.output_tokens.load(Ordering::Relaxed)
        );
        let _ = writeln!(
            out,
            "# HELP lucid_cost_usd_total Dollars the turns cost, from the models' prices (turns of unpriced models \
             are not in it).\n# TYPE lucid_cost_usd_total counter\nlucid_cost_usd_total {}",
            self.cost_nanos.load(Ordering::Relaxed) as f64 / 1e9
        );
        let _ = writeln!(
            out,
            "# HELP lucid_unpriced_turns_total Turns whose cost is unknown: a model without a price.\n\
             # TYPE lucid_unpriced_turns_total counter\nlucid_unpriced_turns_total {}",
            self.unpriced_turns.load(Ordering::Relaxed)
        );
        let _ = writeln!(
            out,
            "# HELP lucid_tool_calls_total Tool calls finished, by outcome.\n# TYPE lucid_tool_calls_total counter\n\
             lucid_tool_calls_total{{outcome=\"ok\"}} {}\nlucid_tool_calls_total{{outcome=\"error\"}} {}",
            self.tool_calls_ok.load(Ordering::Relaxed),
            self.tool_calls_failed.load(Ordering::Relaxed)
        );
        self.run_seconds.write(&mut out, "lucid_run_duration_seconds", "How long turns of runs took.");
        self.tool_seconds.write(&mut out, "lucid_tool_call_duration_seconds", "How long tool calls took.");
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_has_every_family_with_cumulative_buckets() {
        let m = Metrics::default();
        m.turn_ended(RunStatus::Completed, Duration::from_millis(30));
        m.turn_ended(RunStatus::Failed, Duration::from_secs(60));
        m.model_calls(2, &lucid::Usage { input_tokens: 10, output_tokens: 4, ..Default::default() });
        m.tool_call(true, Duration::from_millis(1));
        m.cost(Some(0.25));
        m.cost(None);
        let text = m.render(3);
        for line in [
            "lucid_runs_total{status=\"completed\"} 1",
            "lucid_runs_total{status=\"failed\"} 1",
            "lucid_runs_active 3",
            "lucid_model_calls_total 2",
            "lucid_tokens_total{kind=\"input\"} 10",
            "lucid_tool_calls_total{outcome=\"error\"} 1",
            "lucid_cost_usd_total 0.25",
            "lucid_unpriced_turns_total 1",
            "lucid_run_duration_seconds_bucket{le=\"0.05\"} 1",
            "lucid_run_duration_seconds_bucket{le=\"+Inf\"} 2",
            "lucid_run_duration_seconds_count 2",
        ] {
            assert!(text.lines().any(|l| l == line), "{line} missing from:\n{text}");
        }
        assert!(!text.contains("status=\"running\""));
    }
}
