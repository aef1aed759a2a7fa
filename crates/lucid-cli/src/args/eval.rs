//! `lucid eval …`: run a dataset against an agent, render a report, compare two reports.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use super::{AgentArgs, ModelArgs};

/// `lucid eval …`.
#[derive(Debug, Subcommand)]
#[allow(clippy::large_enum_variant, reason = "parsed once per process")]
pub enum EvalAction {
    /// Run every case of DATASET (YAML, JSON or JSONL, pydantic-evals' shape) against the
    /// agent, judge the answers and print a table; write the report as JSON, JUnit XML or
    /// HTML on request. Exit code 1 when a baseline's gate fails or the pass rate is under
    /// `--fail-under`, 2 for a dataset that does not read, 130 when interrupted (what
    /// finished is reported).
    Run(EvalRunArgs),
    /// Render a saved JSON report: a table (the default), JUnit XML or HTML.
    Report {
        /// The report (`lucid eval run --json FILE`).
        report: PathBuf,
        /// Write JUnit XML here.
        #[arg(long, value_name = "FILE")]
        junit: Option<PathBuf>,
        /// Write the HTML page here (one file, everything inlined).
        #[arg(long, value_name = "FILE")]
        html: Option<PathBuf>,
    },
    /// Compare a report with a baseline report: exit code 1 when a score fell more than
    /// the threshold (the regression gate).
    Compare {
        /// This run's report.
        report: PathBuf,
        /// The baseline's report.
        baseline: PathBuf,
        /// The most a score (a rate from 0 to 1) may fall.
        #[arg(long, default_value_t = 0.0, value_name = "RATE")]
        threshold: f64,
        /// Print the comparison as JSON.
        #[arg(long)]
        json: bool,
    },
}

/// `lucid eval run`.
#[derive(Debug, Args)]
pub struct EvalRunArgs {
    /// The dataset file.
    pub dataset: PathBuf,
    #[command(flatten)]
    pub model: ModelArgs,
    #[command(flatten)]
    pub agent: AgentArgs,
    /// Attempts per case: the report gives pass@k (some attempt passed), pass^k (every
    /// attempt passed) and the flaky cases.
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub repeats: u32,
    /// Attempts run at once.
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub concurrency: usize,
    /// Only the cases with this tag (repeatable: any of them).
    #[arg(long, value_name = "TAG")]
    pub tag: Vec<String>,
    /// The longest one attempt may take, in seconds; a longer one is stopped and scored
    /// over budget. (`--max-cost`, `--max-total-tokens` and `--max-model-calls` bound each
    /// attempt too.)
    #[arg(long, value_name = "SECONDS")]
    pub case_timeout: Option<f64>,
    /// The most the whole run may cost, in US dollars: no attempt starts after.
    #[arg(long, value_name = "USD")]
    pub run_max_cost: Option<f64>,
    /// The most tokens the whole run may use: no attempt starts after.
    #[arg(long, value_name = "N")]
    pub run_max_tokens: Option<u64>,
    /// Record each attempt's HTTP exchanges with the provider into this folder of
    /// cassettes (no headers or keys are kept).
    #[arg(long, value_name = "DIR", conflicts_with = "replay")]
    pub record: Option<PathBuf>,
    /// Replay the cassettes in this folder instead of calling the provider: offline and
    /// deterministic; a request that no longer matches its cassette fails its case.
    #[arg(long, value_name = "DIR")]
    pub replay: Option<PathBuf>,
    /// Write the report as JSON here.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write JUnit XML here.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Write the HTML page here.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Compare with this baseline report; exit code 1 when a score fell more than
    /// `--threshold`.
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// The most a score may fall against the baseline.
    #[arg(long, default_value_t = 0.0, value_name = "RATE", requires = "baseline")]
    pub threshold: f64,
    /// Exit code 1 when the pass rate (cases whose every attempt passed) is under RATE.
    #[arg(long, value_name = "RATE")]
    pub fail_under: Option<f64>,
}
