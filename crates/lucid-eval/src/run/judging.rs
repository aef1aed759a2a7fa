//! Judging an attempt: the case's judges, the dataset's, then the runner's own (written in
//! Rust), each verdict also told to OpenTelemetry as a `gen_ai.evaluation.result` event in
//! the attempt's span.
//!
//! The judges that compare answer at once, in place. The others (a command, an LLM judge,
//! a judge written in Rust) each run on a thread of their own with owned copies of what they
//! read, bounded by the runner's time for a judge: one that panics, hangs (even blocking its
//! thread without yielding) or errs gives a failed verdict saying so, and the run goes on.

use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use futures::FutureExt;
use lucid::model::prices::Prices;
use serde_json::Value;

use crate::dataset::Case;
use crate::judge::{Answer, Judge, JudgeEnv, JudgeModels, JudgeSpec, Spent, Verdict};
use crate::trajectory::Call;

/// What the judges of one attempt read, owned, so a judge can run on a thread of its own.
#[derive(Debug, Clone)]
pub(super) struct Judged {
    pub(super) output: Value,
    pub(super) expected: Option<Value>,
    pub(super) calls: Vec<Call>,
    pub(super) inputs: Value,
    pub(super) metadata: Option<Value>,
    pub(super) spent: Spent,
    pub(super) workdir: Option<PathBuf>,
    pub(super) dataset_dir: Option<PathBuf>,
}

impl Judged {
    pub(super) fn answer(&self) -> Answer<'_> {
        Answer::new(&self.output)
            .expected(self.expected.as_ref())
            .calls(&self.calls)
            .inputs(Some(&self.inputs))
            .metadata(self.metadata.as_ref())
            .spent(self.spent)
            .workdir(self.workdir.as_deref())
            .dataset_dir(self.dataset_dir.as_deref())
    }
}

/// Where judges that need a model or prices get them.
#[derive(Clone)]
pub(super) struct Judging {
    pub(super) limit: Duration,
    pub(super) models: Arc<dyn JudgeModels>,
    pub(super) prices: Arc<Prices>,
    pub(super) extra: Vec<Arc<dyn Judge>>,
}

impl Judging {
    /// The verdicts on an attempt, in order: the case's judges, the dataset's, the runner's.
    pub(super) async fn judge(&self, specs: Vec<&JudgeSpec>, judged: Judged, case: &str) -> Vec<Verdict> {
        let judged = Arc::new(judged);
        let mut verdicts = Vec::new();
        for spec in specs {
            let verdict = if spec.is_sync() {
                spec.judge(&judged.answer())
            } else {
                self.guarded(Arc::new(spec.clone()), spec.name().to_string(), judged.clone()).await
            };
            verdicts.extend(verdict);
        }
        for judge in &self.extra {
            verdicts.extend(self.guarded(judge.clone(), judge.name(), judged.clone()).await);
        }
        for v in &verdicts {
            tell(case, v);
        }
        verdicts
    }

    /// Runs one judge on a thread of its own, bounded by the time for a judge. A plain
    /// thread, not the runtime's blocking pool: the runtime waits for its blocking tasks
    /// when it shuts down, and a judge that never returns would hold the process.
    async fn guarded(&self, judge: Arc<dyn Judge>, name: String, judged: Arc<Judged>) -> Option<Verdict> {
        let (models, prices) = (self.models.clone(), self.prices.clone());
        let handle = tokio::runtime::Handle::current();
        let (tx, rx) = tokio::sync::oneshot::channel();
        let spawned = std::thread::Builder::new().name(format!("judge {name}")).spawn(move || {
            let env = JudgeEnv::new(&*models).prices(&prices);
            let answer = judged.answer();
            let _ = tx.send(handle.block_on(AssertUnwindSafe(judge.judge(&answer, &env)).catch_unwind()));
        });
        let failed = |why: String| Some(Verdict::new(name.clone(), false).reason(why));
        if let Err(e) = spawned {
            return failed(format!("the judge's thread could not start: {e}"));
        }
        match tokio::time::timeout(self.limit, rx).await {
            Err(_) => failed(format!("the judge did not answer within {}", super::shown(self.limit))),
            Ok(Err(_)) => failed("the judge's thread ended without an answer".into()),
            Ok(Ok(Err(panic))) => failed(format!("the judge panicked: {}", panic_text(&*panic))),
            Ok(Ok(Ok(Err(e)))) => failed(format!("the judge failed: {e}")),
            Ok(Ok(Ok(Ok(verdict)))) => verdict,
        }
    }
}

/// A panic's message, when it has one.
fn panic_text(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(no message)".into())
}

/// The judges a case gets from the dataset: its own, then every case's.
pub(super) fn specs<'a>(case: &'a Case, dataset: &'a [JudgeSpec]) -> Vec<&'a JudgeSpec> {
    case.evaluators.iter().chain(dataset).collect()
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
