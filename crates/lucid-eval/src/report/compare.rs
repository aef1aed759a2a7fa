//! A run held against a baseline: the regression gate.

use serde::{Deserialize, Serialize};

use super::Report;

/// A score that fell between the baseline and this run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Drop {
    /// What fell: `pass_rate`, `pass_at_k`, `judge Contains pass_rate`, `judge X mean_score`.
    pub metric: String,
    /// Its value in the baseline.
    pub baseline: f64,
    /// Its value now.
    pub current: f64,
    /// Whether it fell more than the threshold.
    pub regression: bool,
}

/// This run against a baseline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Comparison {
    /// The most a score may fall (0.05: five points of a rate) before it is a regression.
    pub threshold: f64,
    /// Every score both reports have, with how it moved.
    pub metrics: Vec<Drop>,
    /// Cases that passed in the baseline and do not now.
    pub newly_failing: Vec<String>,
    /// Cases that failed in the baseline and pass now.
    pub newly_passing: Vec<String>,
}

impl Comparison {
    /// Whether any score fell more than the threshold: the gate's answer.
    pub fn regressed(&self) -> bool {
        self.metrics.iter().any(|m| m.regression)
    }
}

/// Holds `current` against `baseline`: the run's pass rates and each judge's pass rate and
/// mean score, and which cases changed.
///
/// ```
/// use lucid_eval::report::{Attempt, CaseReport, Report, Status, compare};
/// let run = |passed: bool| {
///     let mut r = Report::new("d");
///     let mut case = CaseReport::new("c", serde_json::Value::Null);
///     let mut attempt = Attempt::new(0, Status::Done);
///     attempt.passed = passed;
///     case.attempts.push(attempt);
///     r.cases.push(case);
///     r.summarise();
///     r
/// };
/// let c = compare(&run(false), &run(true), 0.05);
/// assert!(c.regressed());
/// assert_eq!(c.newly_failing, ["c"]);
/// assert!(!compare(&run(true), &run(false), 0.05).regressed());
/// ```
pub fn compare(current: &Report, baseline: &Report, threshold: f64) -> Comparison {
    let (now, then) = (&current.summary, &baseline.summary);
    let mut metrics = vec![metric("pass_rate", then.pass_rate, now.pass_rate, threshold)];
    metrics.push(metric("pass_at_k", then.pass_at_k, now.pass_at_k, threshold));
    for (name, before) in &then.judges {
        let Some(after) = now.judges.get(name) else { continue };
        metrics.push(metric(&format!("judge {name} pass_rate"), before.pass_rate, after.pass_rate, threshold));
        if let (Some(b), Some(a)) = (before.mean_score, after.mean_score) {
            metrics.push(metric(&format!("judge {name} mean_score"), b, a, threshold));
        }
    }
    let mut newly_failing = Vec::new();
    let mut newly_passing = Vec::new();
    for case in &current.cases {
        let Some(old) = baseline.cases.iter().find(|c| c.name == case.name) else { continue };
        if old.unfinished() || case.unfinished() {
            continue;
        }
        match (old.passed_all(), case.passed_all()) {
            (true, false) => newly_failing.push(case.name.clone()),
            (false, true) => newly_passing.push(case.name.clone()),
            _ => {}
        }
    }
    Comparison { threshold, metrics, newly_failing, newly_passing }
}

fn metric(name: &str, baseline: f64, current: f64, threshold: f64) -> Drop {
    // A hair of float noise is no regression.
    let regression = baseline - current > threshold + 1e-9;
    Drop { metric: name.to_string(), baseline, current, regression }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::Verdict;
    use crate::report::{Attempt, CaseReport, Status};

    fn report(results: &[(&str, bool, f64)]) -> Report {
        let mut r = Report::new("d");
        for (name, passed, score) in results {
            let mut case = CaseReport::new(*name, serde_json::Value::Null);
            let v = Verdict::new("ToolTrajectory", *passed).score(*score);
            case.attempts.push(Attempt { passed: *passed, verdicts: vec![v], ..Attempt::new(0, Status::Done) });
            r.cases.push(case);
        }
        r.summarise();
        r
    }

    #[test]
    fn a_drop_within_the_threshold_passes_the_gate_and_one_beyond_fails_it() {
        let base = report(&[("a", true, 1.0), ("b", true, 1.0), ("c", true, 1.0), ("d", false, 0.5)]);
        let same = report(&[("a", true, 1.0), ("b", true, 1.0), ("c", true, 1.0), ("d", false, 0.5)]);
        assert!(!compare(&same, &base, 0.0).regressed());
        let worse = report(&[("a", true, 1.0), ("b", false, 0.9), ("c", true, 1.0), ("d", true, 1.0)]);
        // Cases changed places: the pass rate stays at 3/4 and the mean score rises.
        let c = compare(&worse, &base, 0.0);
        assert_eq!(c.newly_failing, ["b"]);
        assert_eq!(c.newly_passing, ["d"]);
        assert!(!c.regressed(), "{c:?}");
        let much_worse = report(&[("a", false, 0.0), ("b", false, 0.0), ("c", true, 1.0), ("d", false, 0.5)]);
        let c = compare(&much_worse, &base, 0.25);
        assert!(c.regressed());
        let fell: Vec<&str> = c.metrics.iter().filter(|m| m.regression).map(|m| m.metric.as_str()).collect();
        assert_eq!(
            fell,
            ["pass_rate", "pass_at_k", "judge ToolTrajectory pass_rate", "judge ToolTrajectory mean_score"]
        );
        assert!(!compare(&much_worse, &base, 0.6).regressed());
    }
}
