//! Runs a dataset's cases against a [`Subject`] (an agent, usually: [`AgentSubject`]) and
//! judges each attempt into a [`Report`].
//!
//! Each case runs `repeats` times, up to `concurrency` attempts at once. An attempt is
//! bounded by the case's budget (tokens, cost and model calls, through
//! [`lucid::agent::budget`]; time, by the runner) and stopped at it, scored as over budget;
//! the run is bounded by its own budget, after which no attempt starts. A cancellation
//! (Ctrl-C) stops the attempts running and keeps every one that finished. With a
//! [`CassetteServer`] each attempt talks to the model through its own tape: recorded, or
//! replayed offline.

mod agent;
mod judging;
mod scratch;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use futures::StreamExt;
use futures::future::BoxFuture;
use lucid::agent::budget::Limits;
use lucid::model::prices::Prices;
use serde_json::Value;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use crate::cassette::CassetteServer;
use crate::dataset::{AgentSpec, Case, Dataset};
use crate::judge::{FromEnv, Judge, JudgeModels, Spent};
use crate::report::{Attempt, CaseReport, Report, Status};
use crate::trajectory::Call;
pub use agent::{AgentSubject, run_agent};
pub use scratch::{MAX_PROJECT_BYTES, MAX_PROJECT_ENTRIES};

/// One attempt at a case, as the subject gets it.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Trial<'a> {
    /// The case.
    pub case: &'a Case,
    /// Its name in the report.
    pub name: &'a str,
    /// Which repeat, from 0.
    pub repeat: u32,
    /// The base URL to give the model's provider when a cassette stands between them.
    pub base_url: Option<String>,
    /// The attempt's budget: attach it to the agent (`AgentBuilder::budget`).
    pub limits: Limits,
    /// The folder the case's attachment paths are relative to (the dataset file's).
    pub folder: Option<&'a std::path::Path>,
    /// The attempt's own folder, when the case has a project or a database: a fresh copy
    /// of the project (or an empty folder) to run the agent's tools in. Removed once the
    /// attempt is judged.
    pub workdir: Option<&'a std::path::Path>,
    /// The attempt's copy of the case's database.
    pub database: Option<&'a std::path::Path>,
    /// The agent the case runs (its own, else the dataset's), for a subject that knows it.
    pub agent: Option<&'a AgentSpec>,
}

/// What a subject did with a case.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct Outcome {
    /// The answer: text as a JSON string, or a structured answer.
    pub output: Value,
    /// The tool calls made, in order.
    pub calls: Vec<Call>,
    /// Tokens used (input and output).
    pub tokens: u64,
    /// Model calls made.
    pub model_calls: u64,
    /// The cost in US dollars; `None` when a price is unknown.
    pub cost_usd: Option<f64>,
    /// Why the subject stopped at its budget, when it did.
    pub over_budget: Option<String>,
    /// The folder the agent worked in (a case's project), for the judges that look at it
    /// (a `Command` runs there).
    pub workdir: Option<std::path::PathBuf>,
}

impl Outcome {
    /// An outcome that is this answer and nothing else.
    pub fn answer(output: impl Into<Value>) -> Self {
        Outcome { output: output.into(), cost_usd: Some(0.0), ..Outcome::default() }
    }

    /// With the tool calls made.
    pub fn calls(self, calls: Vec<Call>) -> Self {
        Outcome { calls, ..self }
    }

    /// With what it spent: tokens, model calls and dollars (`None`: a price is unknown).
    pub fn spent(self, tokens: u64, model_calls: u64, cost_usd: Option<f64>) -> Self {
        Outcome { tokens, model_calls, cost_usd, ..self }
    }

    /// With the folder the agent worked in.
    pub fn workdir(self, dir: impl Into<std::path::PathBuf>) -> Self {
        Outcome { workdir: Some(dir.into()), ..self }
    }

    /// Stopped at its budget, for this reason.
    pub fn over_budget(self, why: impl Into<String>) -> Self {
        Outcome { over_budget: Some(why.into()), ..self }
    }
}

/// What the runner runs: given a case attempt, an [`Outcome`] or an error in words.
pub trait Subject: Send + Sync {
    /// Runs one attempt.
    fn run<'a>(&'a self, trial: &'a Trial<'a>) -> BoxFuture<'a, Result<Outcome, String>>;
}

/// How far a run has come, told after each attempt.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct Progress {
    /// Attempts done (finished or not run).
    pub done: usize,
    /// Attempts in all.
    pub total: usize,
    /// Attempts that passed so far.
    pub passed: usize,
}

type OnProgress = Arc<dyn Fn(Progress) + Send + Sync>;

/// Runs datasets.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use futures::FutureExt;
/// use lucid_eval::run::{Outcome, Runner, Subject, Trial};
/// struct Doubler;
/// impl Subject for Doubler {
///     fn run<'a>(&'a self, t: &'a Trial<'a>) -> futures::future::BoxFuture<'a, Result<Outcome, String>> {
///         let n = t.case.inputs.as_f64().unwrap_or(0.0);
///         async move { Ok(Outcome::answer(n * 2.0)) }.boxed()
///     }
/// }
/// let dataset = lucid_eval::Dataset::from_yaml("
/// cases:
///   - {inputs: 2, expected_output: 4}
///   - {inputs: 3, expected_output: 7}
/// evaluators: [EqualsExpected]
/// ", "double.yaml").unwrap();
/// let report = Runner::new().repeats(2).run(&dataset, &Doubler).await;
/// assert_eq!((report.summary.passed, report.summary.finished), (1, 2));
/// # });
/// ```
#[derive(Clone)]
pub struct Runner {
    repeats: u32,
    concurrency: usize,
    case_limits: Limits,
    case_time: Option<Duration>,
    run_limits: Limits,
    judge_time: Duration,
    cancel: CancellationToken,
    cassette: Option<Arc<CassetteServer>>,
    progress: Option<OnProgress>,
    models: Arc<dyn JudgeModels>,
    prices: Arc<Prices>,
    judges: Vec<Arc<dyn Judge>>,
}

impl Default for Runner {
    fn default() -> Self {
        Runner::new()
    }
}

impl std::fmt::Debug for Runner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runner")
            .field("repeats", &self.repeats)
            .field("concurrency", &self.concurrency)
            .field("case_limits", &self.case_limits)
            .field("case_time", &self.case_time)
            .field("run_limits", &self.run_limits)
            .finish_non_exhaustive()
    }
}

impl Runner {
    /// One attempt per case, one at a time, no budget.
    pub fn new() -> Self {
        Runner {
            repeats: 1,
            concurrency: 1,
            case_limits: Limits::default(),
            case_time: None,
            run_limits: Limits::default(),
            judge_time: Duration::from_secs(600),
            cancel: CancellationToken::new(),
            cassette: None,
            progress: None,
            models: Arc::new(FromEnv::new()),
            prices: Arc::new(Prices::default()),
            judges: Vec::new(),
        }
    }

    /// Attempts per case (at least 1): pass@k and pass^k are over them.
    pub fn repeats(mut self, n: u32) -> Self {
        self.repeats = n.max(1);
        self
    }

    /// Attempts run at once (at least 1).
    pub fn concurrency(mut self, n: usize) -> Self {
        self.concurrency = n.max(1);
        self
    }

    /// Each attempt's budget of tokens, cost and model calls.
    pub fn case_limits(mut self, limits: Limits) -> Self {
        self.case_limits = limits;
        self
    }

    /// The longest an attempt may run; one that takes longer is stopped, over budget.
    pub fn case_time(mut self, d: Duration) -> Self {
        self.case_time = Some(d);
        self
    }

    /// The whole run's budget: once spent, no attempt starts (they are reported not run).
    pub fn run_limits(mut self, limits: Limits) -> Self {
        self.run_limits = limits;
        self
    }

    /// The longest one judge may take (default ten minutes); one that takes longer, or
    /// panics, fails its verdict and not the run.
    pub fn judge_time(mut self, d: Duration) -> Self {
        self.judge_time = d;
        self
    }

    /// Cancelling this token stops the run, keeping what finished.
    pub fn cancel_on(mut self, token: CancellationToken) -> Self {
        self.cancel = token;
        self
    }

    /// Puts a cassette between the subject and its model.
    pub fn cassette(mut self, server: Arc<CassetteServer>) -> Self {
        self.cassette = Some(server);
        self
    }

    /// Where an LLM judge's model comes from (default: [`FromEnv`], which names none by
    /// default: a dataset's `LLMJudge` then names its model).
    pub fn judge_models(mut self, models: Arc<dyn JudgeModels>) -> Self {
        self.models = models;
        self
    }

    /// The prices an LLM judge's cost is reckoned with.
    pub fn prices(mut self, prices: Prices) -> Self {
        self.prices = Arc::new(prices);
        self
    }

    /// Adds a judge written in Rust: it judges every attempt, after the dataset's judges.
    pub fn judge(mut self, judge: impl Judge + 'static) -> Self {
        self.judges.push(Arc::new(judge));
        self
    }

    /// Told after each attempt.
    pub fn on_progress(mut self, f: impl Fn(Progress) + Send + Sync + 'static) -> Self {
        self.progress = Some(Arc::new(f));
        self
    }

    /// Runs every case of `dataset`, `repeats` times each, and reports.
    pub async fn run(&self, dataset: &Dataset, subject: &dyn Subject) -> Report {
        let started = Instant::now();
        let names = dataset.case_names();
        let mut report = Report::new(dataset.name.clone().unwrap_or_else(|| "dataset".into()));
        report.repeats = self.repeats;
        report.mode = self.cassette.as_ref().map(|c| c.mode().name().to_string());
        report.cases = dataset
            .cases
            .iter()
            .zip(&names)
            .map(|(case, name)| {
                let mut r = CaseReport::new(name.clone(), case.inputs.clone());
                r.tags = case.tags.clone();
                r.expected_output = case.expected_output.clone();
                r.metadata = case.metadata.clone();
                r
            })
            .collect();
        let jobs: Vec<(usize, u32)> =
            (0..dataset.cases.len()).flat_map(|i| (0..self.repeats).map(move |r| (i, r))).collect();
        let total = jobs.len();
        let spent = Arc::new(std::sync::Mutex::new(lucid::Spend::default()));
        let stopped = AtomicBool::new(false);
        let mut done = 0;
        let mut passed = 0;
        let mut results = futures::stream::iter(jobs)
            .map(|(i, repeat)| {
                let (case, name) = (&dataset.cases[i], names[i].as_str());
                let spent = spent.clone();
                let stopped = &stopped;
                async move {
                    let over = self.run_limits_passed(&spent);
                    if self.cancel.is_cancelled() || over {
                        stopped.store(true, Ordering::Relaxed);
                        let mut a = Attempt::new(repeat, Status::NotRun);
                        a.error = Some(if over { "the run's budget was spent" } else { "the run was cancelled" }.into());
                        return (i, a);
                    }
                    // Beside the agent's GenAI spans, which nest in it (the same target).
                    let span = tracing::info_span!(target: "lucid::telemetry", "eval_case", otel.name = %format!("eval {name}"), case = name, repeat);
                    let attempt = self.attempt(dataset, case, name, repeat, subject).instrument(span).await;
                    if attempt.status == Status::Cancelled {
                        stopped.store(true, Ordering::Relaxed);
                    }
                    if let Ok(mut s) = spent.lock() {
                        let usage = lucid::Usage { input_tokens: attempt.tokens, ..lucid::Usage::default() };
                        s.add(usage, attempt.model_calls, attempt.cost_usd);
                    }
                    (i, attempt)
                }
            })
            .buffer_unordered(self.concurrency);
        while let Some((i, attempt)) = results.next().await {
            done += 1;
            passed += usize::from(attempt.passed);
            report.cases[i].attempts.push(attempt);
            if let Some(p) = &self.progress {
                p(Progress { done, total, passed });
            }
        }
        drop(results);
        for case in &mut report.cases {
            case.attempts.sort_by_key(|a| a.repeat);
        }
        report.interrupted = stopped.load(Ordering::Relaxed);
        report.duration_ms = started.elapsed().as_millis() as u64;
        report.summarise();
        report
    }

    /// Whether the run has spent its budget.
    fn run_limits_passed(&self, spent: &std::sync::Mutex<lucid::Spend>) -> bool {
        let Ok(s) = spent.lock() else { return false };
        let l = &self.run_limits;
        l.max_total_tokens.is_some_and(|m| s.total_tokens() >= m)
            || l.max_model_calls.is_some_and(|m| s.model_calls >= m)
            || l.max_cost.is_some_and(|m| s.cost_usd.is_some_and(|c| c >= m))
    }

    /// One attempt: the subject's run, bounded, through its tape, then judged.
    async fn attempt(&self, dataset: &Dataset, case: &Case, name: &str, repeat: u32, subject: &dyn Subject) -> Attempt {
        let mut attempt = Attempt::new(repeat, Status::Done);
        let tape = match &self.cassette {
            Some(server) => match server.open(name, repeat) {
                Ok(t) => Some(t),
                Err(e) => {
                    attempt.status = Status::CassetteMismatch;
                    attempt.error = Some(e.to_string());
                    return attempt;
                }
            },
            None => None,
        };
        let scratch = match prepared(dataset, case).await {
            Ok(s) => s,
            Err(e) => {
                if let (Some(server), Some((id, _))) = (&self.cassette, &tape) {
                    let _ = server.close(*id);
                }
                attempt.status = Status::Error;
                attempt.error = Some(e);
                return attempt;
            }
        };
        let trial = Trial {
            case,
            name,
            repeat,
            base_url: tape.as_ref().map(|(_, url)| url.clone()),
            limits: self.case_limits,
            folder: dataset.folder.as_deref(),
            workdir: scratch.as_ref().map(|s| s.workdir.as_path()),
            database: scratch.as_ref().and_then(|s| s.database.as_deref()),
            agent: case.agent.as_ref().or(dataset.agent.as_ref()),
        };
        let started = Instant::now();
        let run = subject.run(&trial);
        let bounded = async {
            match self.case_time {
                Some(d) => tokio::time::timeout(d, run).await.map_err(|_| d),
                None => Ok(run.await),
            }
        };
        let result = tokio::select! {
            r = bounded => Some(r),
            () = self.cancel.cancelled() => None,
        };
        attempt.duration_ms = started.elapsed().as_millis() as u64;
        if let (Some(server), Some((id, _))) = (&self.cassette, &tape) {
            match server.close(*id) {
                Ok(t) => {
                    attempt.exchanges = t.exchanges;
                    if let Some(m) = t.mismatch.filter(|_| result.is_some()) {
                        attempt.status = Status::CassetteMismatch;
                        attempt.error = Some(m);
                        return attempt;
                    }
                }
                Err(e) => {
                    attempt.status = Status::Error;
                    attempt.error = Some(e.to_string());
                    return attempt;
                }
            }
        }
        let outcome = match result {
            None => {
                attempt.status = Status::Cancelled;
                attempt.error = Some("cancelled while running".into());
                return attempt;
            }
            Some(Err(limit)) => {
                attempt.status = Status::OverBudget;
                attempt.error = Some(format!("stopped after {}, the case's time budget", shown(limit)));
                return attempt;
            }
            Some(Ok(Err(e))) => {
                attempt.status = Status::Error;
                attempt.error = Some(e);
                return attempt;
            }
            Some(Ok(Ok(outcome))) => outcome,
        };
        attempt.tokens = outcome.tokens;
        attempt.model_calls = outcome.model_calls;
        attempt.cost_usd = outcome.cost_usd;
        attempt.calls.clone_from(&outcome.calls);
        attempt.output = Some(outcome.output.clone());
        if let Some(why) = outcome.over_budget {
            attempt.status = Status::OverBudget;
            attempt.error = Some(why);
            return attempt;
        }
        let judged = judging::Judged {
            output: outcome.output,
            expected: case.expected_output.clone(),
            calls: outcome.calls,
            inputs: case.inputs.clone(),
            metadata: case.metadata.clone(),
            spent: Spent {
                tokens: attempt.tokens,
                cost_usd: attempt.cost_usd,
                duration: Duration::from_millis(attempt.duration_ms),
                model_calls: attempt.model_calls,
            },
            workdir: outcome.workdir.or_else(|| scratch.as_ref().map(|s| s.workdir.clone())),
            dataset_dir: dataset.folder.as_ref().map(|f| if f.as_os_str().is_empty() { ".".into() } else { f.clone() }),
        };
        let judging = judging::Judging {
            limit: self.judge_time,
            models: self.models.clone(),
            prices: self.prices.clone(),
            extra: self.judges.clone(),
        };
        attempt.verdicts = judging.judge(judging::specs(case, &dataset.evaluators), judged, name).await;
        attempt.passed = attempt.verdicts.iter().all(|v| v.passed);
        attempt
    }
}

/// The attempt's folder for `case` (see [`scratch`]), made off the runtime's threads.
async fn prepared(dataset: &Dataset, case: &Case) -> Result<Option<scratch::Scratch>, String> {
    if case.project.is_none() && case.database.is_none() {
        return Ok(None);
    }
    let (folder, case) = (dataset.folder.clone(), case.clone());
    tokio::task::spawn_blocking(move || scratch::prepare(folder.as_deref(), &case))
        .await
        .map_err(|e| format!("preparing the attempt's folder: {e}"))?
}

/// "300 ms", "1.5 s", "2 min 3 s".
fn shown(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s < 1.0 {
        format!("{} ms", d.as_millis())
    } else if s < 60.0 {
        format!("{s:.1} s")
    } else {
        format!("{} min {} s", d.as_secs() / 60, d.as_secs() % 60)
    }
}
