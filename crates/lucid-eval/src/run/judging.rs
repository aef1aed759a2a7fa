//! Judging an attempt: the case's judges, then the dataset's, each verdict also told to
//! OpenTelemetry as a `gen_ai.evaluation.result` event in the attempt's span.

use std::time::Duration;

use crate::dataset::{Case, Dataset};
use crate::judge::{Answer, Verdict};

use super::Outcome;

/// The verdicts on an outcome, in order: the case's judges, then the dataset's.
pub(super) async fn judge(
    _limit: Duration,
    dataset: &Dataset,
    case: &Case,
    outcome: &Outcome,
    name: &str,
) -> Vec<Verdict> {
    let answer = Answer::new(&outcome.output).expected(case.expected_output.as_ref()).calls(&outcome.calls);
    let verdicts: Vec<Verdict> =
        case.evaluators.iter().chain(&dataset.evaluators).filter_map(|judge| judge.judge(&answer)).collect();
    for v in &verdicts {
        tell(name, v);
    }
    verdicts
}

/// The verdict as the OpenTelemetry GenAI event `gen_ai.evaluation.result`.
fn tell(case: &str, v: &Verdict) {
    let score = v.score.unwrap_or(if v.passed { 1.0 } else { 0.0 });
    // The macro takes a literal target: `lucid::telemetry::TARGET`'s value (tested below),
    // which the CLI's OpenTelemetry export listens to.
    tracing::event!(
        target: "lucid::telemetry",
        tracing::Level::INFO,
        gen_ai.evaluation.name = %v.judge,
        gen_ai.evaluation.score.value = score,
        gen_ai.evaluation.score.label = if v.passed { "pass" } else { "fail" },
        gen_ai.evaluation.explanation = v.reason.as_deref().unwrap_or_default(),
        case,
        "gen_ai.evaluation.result"
    );
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_events_go_where_the_telemetry_spans_go() {
        assert_eq!(lucid::telemetry::TARGET, "lucid::telemetry");
    }
}
