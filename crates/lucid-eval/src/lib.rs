//! Evaluates Lucid agents on datasets: the cases ([`Dataset`], from YAML, JSON or JSONL
//! files in the shape pydantic-evals writes), the judges that score an agent's answers
//! and its tool calls ([`JudgeSpec`] on an [`Answer`], giving [`Verdict`]s), the
//! [`Runner`] that runs every case (repeated, concurrently, within budgets) into a
//! [`Report`], and [`cassette`]s that record a run's HTTP exchanges with the model and
//! replay them offline.
//!
//! Judges that compare answer at once ([`JudgeSpec::judge`]); every judge, the `Command`
//! and `LLMJudge` of a dataset and judges written in Rust, answers through the [`Judge`]
//! trait in a [`JudgeEnv`] that says where an LLM judge's model comes from ([`JudgeModels`],
//! [`FromEnv`]). An answer carries what its run [`Spent`] (tokens, cost, time), which the
//! limit judges (`MaxDuration`, `MaxTokens`, `MaxCost`) read.
//!
//! ```
//! use lucid_eval::Dataset;
//! let dataset = Dataset::from_yaml("
//! cases:
//!   - inputs: What is 2 + 2?
//!     expected_output: '4'
//!     evaluators: [{Numeric: 0}]
//! evaluators: [EqualsExpected]
//! ", "sums.yaml")?;
//! let case = &dataset.cases[0];
//! let output = serde_json::json!("4");
//! let answer = lucid_eval::Answer::new(&output).expected(case.expected_output.as_ref());
//! for judge in case.evaluators.iter().chain(&dataset.evaluators) {
//!     let verdict = judge.judge(&answer).unwrap();
//!     assert!(verdict.passed, "{verdict:?}");
//! }
//! # Ok::<(), lucid_eval::DatasetError>(())
//! ```

pub mod cassette;
mod dataset;
mod judge;
pub mod report;
pub mod run;
mod trajectory;

pub use dataset::{AgentSpec, Case, Dataset, DatasetError};
pub use judge::{Answer, CommandLine, FromEnv, Judge, JudgeEnv, JudgeError, JudgeModels, JudgeSpec, Spent, Verdict};
pub use report::Report;
pub use run::Runner;
pub use trajectory::{Call, Match};
