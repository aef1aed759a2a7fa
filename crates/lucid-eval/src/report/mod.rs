//! What a run found: a [`Report`] of every case and attempt, with its verdicts, spending
//! and HTTP exchanges, summed up in a [`Summary`]. A report is JSON on disk
//! ([`Report::to_json`], [`Report::from_file`]); the other forms are rendered from it
//! (JUnit XML, HTML, a terminal table), and [`compare`] holds one against a baseline.

mod compare;
mod html;
mod junit;
mod table;

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::cassette::Exchange;
use crate::judge::Verdict;
use crate::trajectory::Call;
pub use compare::{Comparison, Drop, compare};
pub use table::TABLE_WIDTH;

/// The version of the report's JSON shape; a report of another version is refused.
pub const REPORT_FORMAT: u32 = 1;

/// One run of a dataset.
///
/// ```
/// use lucid_eval::report::{Attempt, CaseReport, Report, Status};
/// let mut report = Report::new("sums");
/// let mut case = CaseReport::new("two plus two", serde_json::json!("What is 2 + 2?"));
/// let mut attempt = Attempt::new(0, Status::Done);
/// attempt.passed = true;
/// case.attempts.push(attempt);
/// report.cases.push(case);
/// report.summarise();
/// assert_eq!(report.summary.pass_rate, 1.0);
/// let back = Report::from_json(&report.to_json(), "r.json").unwrap();
/// assert_eq!(back, report);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Report {
    /// [`REPORT_FORMAT`].
    pub format: u32,
    /// The dataset's name (its file's stem when it has none).
    pub dataset: String,
    /// The agent that ran the cases, as its configuration names it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// The model it ran on (`provider:model`), when one model answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Where the model's answers came from: `live`, `record` or `replay` (a cassette).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// When the run started, in milliseconds since the Unix epoch.
    pub started_ms: u64,
    /// How long it took, in milliseconds.
    pub duration_ms: u64,
    /// Attempts per case.
    pub repeats: u32,
    /// Whether the run was cut short (Ctrl-C, or its budget spent): the cases it did not
    /// finish say so.
    #[serde(default)]
    pub interrupted: bool,
    /// The cases, in the dataset's order.
    pub cases: Vec<CaseReport>,
    /// The totals ([`Report::summarise`]).
    pub summary: Summary,
}

/// One case and its attempts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CaseReport {
    /// The case's name.
    pub name: String,
    /// Its tags.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// What the agent was given.
    pub inputs: Value,
    /// What was expected.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_output: Option<Value>,
    /// The case's metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Value>,
    /// One per repeat, in order.
    pub attempts: Vec<Attempt>,
}

/// How an attempt ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Status {
    /// The agent answered and the judges gave their verdicts.
    Done,
    /// The agent's run failed (the error says why).
    Error,
    /// Stopped at the case's budget (tokens, cost or time); scored as failed.
    OverBudget,
    /// A request no longer matched the cassette it was replayed from.
    CassetteMismatch,
    /// Cut short by a cancellation (Ctrl-C).
    Cancelled,
    /// Never started: the run was cancelled or its budget spent first.
    NotRun,
}

impl Status {
    /// The word reports use.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Done => "done",
            Status::Error => "error",
            Status::OverBudget => "over_budget",
            Status::CassetteMismatch => "cassette_mismatch",
            Status::Cancelled => "cancelled",
            Status::NotRun => "not_run",
        }
    }
}

/// One attempt at a case.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Attempt {
    /// Which repeat, from 0.
    pub repeat: u32,
    /// How it ended.
    pub status: Status,
    /// Whether it passed: done, and every verdict passed.
    pub passed: bool,
    /// The agent's answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<Value>,
    /// Why it did not finish, when it did not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The judges' verdicts, in the order they ran.
    #[serde(default)]
    pub verdicts: Vec<Verdict>,
    /// The tool calls the agent made.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub calls: Vec<Call>,
    /// Tokens the agent's model calls used (input and output).
    #[serde(default)]
    pub tokens: u64,
    /// Model calls made.
    #[serde(default)]
    pub model_calls: u64,
    /// What the attempt cost in US dollars; `None` when a price is unknown.
    #[serde(default)]
    pub cost_usd: Option<f64>,
    /// How long the agent took, in milliseconds (judging not included).
    #[serde(default)]
    pub duration_ms: u64,
    /// The HTTP exchanges with the model, redacted (no headers, no keys), when a cassette
    /// recorded or replayed them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exchanges: Vec<Exchange>,
}

impl Attempt {
    /// An attempt that ended so, with nothing else known yet.
    pub fn new(repeat: u32, status: Status) -> Self {
        Attempt {
            repeat,
            status,
            passed: false,
            output: None,
            error: None,
            verdicts: Vec::new(),
            calls: Vec::new(),
            tokens: 0,
            model_calls: 0,
            cost_usd: Some(0.0),
            duration_ms: 0,
            exchanges: Vec::new(),
        }
    }

    /// Whether the attempt was not run to its end by the harness (cancelled or never started):
    /// such attempts count in no rate.
    pub fn unfinished(&self) -> bool {
        matches!(self.status, Status::Cancelled | Status::NotRun)
    }
}

impl CaseReport {
    /// A case with no attempt yet.
    pub fn new(name: impl Into<String>, inputs: Value) -> Self {
        CaseReport {
            name: name.into(),
            tags: Vec::new(),
            inputs,
            expected_output: None,
            metadata: None,
            attempts: Vec::new(),
        }
    }

    /// The attempts run to their end.
    pub fn finished(&self) -> impl Iterator<Item = &Attempt> {
        self.attempts.iter().filter(|a| !a.unfinished())
    }

    /// Whether some attempt passed (pass@k, k the attempts finished).
    pub fn passed_any(&self) -> bool {
        self.finished().any(|a| a.passed)
    }

    /// Whether every attempt passed (pass^k): what "the case passes" means. A case with
    /// no finished attempt does not pass.
    pub fn passed_all(&self) -> bool {
        let mut finished = self.finished().peekable();
        finished.peek().is_some() && finished.all(|a| a.passed)
    }

    /// Whether some attempts passed and some did not.
    pub fn flaky(&self) -> bool {
        self.passed_any() && !self.passed_all()
    }

    /// Whether no attempt was run to its end.
    pub fn unfinished(&self) -> bool {
        self.finished().next().is_none()
    }
}

/// The run's totals.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Summary {
    /// Cases in the dataset.
    pub cases: usize,
    /// Cases with at least one attempt run to its end.
    pub finished: usize,
    /// Cases whose every attempt passed (pass^k).
    pub passed: usize,
    /// `passed` over `finished` (0 when nothing finished): the run's score.
    pub pass_rate: f64,
    /// Cases with some attempt passing, over `finished` (pass@k).
    pub pass_at_k: f64,
    /// Cases that passed some attempts and failed others.
    pub flaky: usize,
    /// Attempts by how they ended (`done`, `error`, …).
    pub statuses: BTreeMap<String, usize>,
    /// Each judge's verdicts over every finished attempt.
    pub judges: BTreeMap<String, JudgeSummary>,
    /// Tokens over every attempt.
    pub tokens: u64,
    /// Cost over every attempt; `None` when any price is unknown.
    pub cost_usd: Option<f64>,
    /// The attempts' durations added up, in milliseconds.
    pub agent_ms: u64,
}

/// One judge's verdicts over a run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct JudgeSummary {
    /// Verdicts given.
    pub verdicts: usize,
    /// Verdicts that passed.
    pub passed: usize,
    /// `passed` over `verdicts`.
    pub pass_rate: f64,
    /// The mean of the scores given, when the judge gives scores.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_score: Option<f64>,
}

/// A report file that does not read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReportError {
    /// The file could not be read or written.
    #[error("{file}: {source}")]
    Io {
        /// The file.
        file: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// Not a report: what is wrong, where.
    #[error("{file}: {message}")]
    Invalid {
        /// The file.
        file: String,
        /// What is wrong.
        message: String,
    },
}

impl Report {
    /// An empty report of `dataset`, started now.
    pub fn new(dataset: impl Into<String>) -> Self {
        let started_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as u64)
            .unwrap_or_default();
        Report {
            format: REPORT_FORMAT,
            dataset: dataset.into(),
            agent: None,
            model: None,
            mode: None,
            started_ms,
            duration_ms: 0,
            repeats: 1,
            interrupted: false,
            cases: Vec::new(),
            summary: Summary::default(),
        }
    }

    /// Computes [`Report::summary`] from the cases.
    pub fn summarise(&mut self) {
        let mut s = Summary { cases: self.cases.len(), cost_usd: Some(0.0), ..Summary::default() };
        let mut scores: BTreeMap<String, (f64, usize)> = BTreeMap::new();
        let mut at_k = 0;
        for case in &self.cases {
            for a in &case.attempts {
                *s.statuses.entry(a.status.as_str().to_string()).or_default() += 1;
                s.tokens += a.tokens;
                s.agent_ms += a.duration_ms;
                s.cost_usd = s.cost_usd.zip(a.cost_usd).map(|(x, y)| x + y);
            }
            if case.unfinished() {
                continue;
            }
            s.finished += 1;
            s.passed += usize::from(case.passed_all());
            at_k += usize::from(case.passed_any());
            s.flaky += usize::from(case.flaky());
            for v in case.finished().flat_map(|a| &a.verdicts) {
                let j = s.judges.entry(v.judge.clone()).or_default();
                j.verdicts += 1;
                j.passed += usize::from(v.passed);
                if let Some(score) = v.score {
                    let e = scores.entry(v.judge.clone()).or_default();
                    e.0 += score;
                    e.1 += 1;
                }
            }
        }
        for (name, j) in &mut s.judges {
            j.pass_rate = ratio(j.passed, j.verdicts);
            j.mean_score = scores.get(name).map(|(sum, n)| sum / *n as f64);
        }
        s.pass_rate = ratio(s.passed, s.finished);
        s.pass_at_k = ratio(at_k, s.finished);
        self.summary = s;
    }

    /// The report as pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a report is plain data")
    }

    /// Writes the report as JSON to `path`.
    pub fn write(&self, path: &Path) -> Result<(), ReportError> {
        std::fs::write(path, self.to_json() + "\n")
            .map_err(|source| ReportError::Io { file: path.display().to_string(), source })
    }

    /// Reads a report from JSON text; `file` names it in errors.
    pub fn from_json(text: &str, file: &str) -> Result<Report, ReportError> {
        let invalid = |message: String| ReportError::Invalid { file: file.to_string(), message };
        let value: Value = serde_json::from_str(text).map_err(|e| invalid(format!("not JSON: {e}")))?;
        match value.get("format").and_then(Value::as_u64) {
            Some(f) if f == u64::from(REPORT_FORMAT) => {}
            Some(f) => return Err(invalid(format!("report format {f}; this Lucid reads format {REPORT_FORMAT}"))),
            None => return Err(invalid("not a Lucid eval report (no `format` field)".into())),
        }
        serde_path_to_error::deserialize(value).map_err(|e| {
            let path = e.path().to_string();
            invalid(format!("field `{path}`: {}", e.into_inner()))
        })
    }

    /// Reads a report file.
    pub fn from_file(path: &Path) -> Result<Report, ReportError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| ReportError::Io { file: file.clone(), source })?;
        Report::from_json(&text, &file)
    }
}

/// `n / d`, 0 when `d` is 0.
fn ratio(n: usize, d: usize) -> f64 {
    if d == 0 { 0.0 } else { n as f64 / d as f64 }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(judge: &str, passed: bool, score: Option<f64>) -> Verdict {
        let v = Verdict::new(judge, passed);
        match score {
            Some(s) => v.score(s),
            None => v,
        }
    }

    fn attempt(repeat: u32, status: Status, verdicts: Vec<Verdict>) -> Attempt {
        let passed = status == Status::Done && verdicts.iter().all(|v| v.passed);
        Attempt { passed, verdicts, tokens: 10, cost_usd: Some(0.5), duration_ms: 7, ..Attempt::new(repeat, status) }
    }

    #[test]
    fn the_summary_counts_pass_at_k_pass_hat_k_and_flakiness() {
        let mut r = Report::new("d");
        r.repeats = 2;
        let mut steady = CaseReport::new("steady", Value::Null);
        steady.attempts = vec![
            attempt(0, Status::Done, vec![verdict("Equals", true, None)]),
            attempt(1, Status::Done, vec![verdict("Equals", true, None)]),
        ];
        let mut flaky = CaseReport::new("flaky", Value::Null);
        flaky.attempts = vec![
            attempt(0, Status::Done, vec![verdict("Equals", false, None)]),
            attempt(1, Status::Done, vec![verdict("Equals", true, None)]),
        ];
        let mut broken = CaseReport::new("broken", Value::Null);
        broken.attempts = vec![attempt(0, Status::Error, vec![]), attempt(1, Status::OverBudget, vec![])];
        let mut skipped = CaseReport::new("skipped", Value::Null);
        skipped.attempts = vec![Attempt::new(0, Status::NotRun), Attempt::new(1, Status::NotRun)];
        r.cases = vec![steady, flaky, broken, skipped];
        r.summarise();
        let s = &r.summary;
        assert_eq!((s.cases, s.finished, s.passed, s.flaky), (4, 3, 1, 1));
        assert!((s.pass_rate - 1.0 / 3.0).abs() < 1e-9);
        assert!((s.pass_at_k - 2.0 / 3.0).abs() < 1e-9);
        assert_eq!(s.judges["Equals"].verdicts, 4);
        assert_eq!(s.judges["Equals"].passed, 3);
        assert_eq!(s.statuses["not_run"], 2);
        assert_eq!(s.statuses["done"], 4);
        assert_eq!(s.tokens, 60);
        assert_eq!(s.cost_usd, Some(3.0));
    }

    #[test]
    fn an_unknown_price_leaves_the_total_unknown_and_scores_average() {
        let mut r = Report::new("d");
        let mut case = CaseReport::new("c", Value::Null);
        let mut a = attempt(0, Status::Done, vec![verdict("ToolTrajectory", true, Some(1.0))]);
        a.cost_usd = None;
        case.attempts = vec![a, attempt(1, Status::Done, vec![verdict("ToolTrajectory", false, Some(0.5))])];
        r.cases.push(case);
        r.summarise();
        assert_eq!(r.summary.cost_usd, None);
        assert_eq!(r.summary.judges["ToolTrajectory"].mean_score, Some(0.75));
    }

    #[test]
    fn a_report_of_another_format_or_shape_is_refused_naming_the_field() {
        let e = Report::from_json("{\"format\": 99}", "old.json").unwrap_err();
        assert!(e.to_string().contains("format 99"), "{e}");
        let e = Report::from_json("[1]", "x.json").unwrap_err();
        assert!(e.to_string().contains("not a Lucid eval report"), "{e}");
        let mut bad = serde_json::to_value(Report::new("d")).unwrap();
        bad["repeats"] = Value::from("two");
        let e = Report::from_json(&bad.to_string(), "bad.json").unwrap_err();
        assert!(e.to_string().contains("field `repeats`"), "{e}");
    }
}
