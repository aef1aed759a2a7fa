//! Evaluates Lucid agents on datasets: the cases ([`Dataset`], from YAML, JSON or JSONL
//! files in the shape pydantic-evals writes) and the judges that score an agent's answers
//! ([`JudgeSpec`], giving [`Verdict`]s).
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
//! let answer = serde_json::json!("4");
//! for judge in case.evaluators.iter().chain(&dataset.evaluators) {
//!     let verdict = judge.judge(&answer, case.expected_output.as_ref()).unwrap();
//!     assert!(verdict.passed, "{verdict:?}");
//! }
//! # Ok::<(), lucid_eval::DatasetError>(())
//! ```

mod dataset;
mod judge;

pub use dataset::{Case, Dataset, DatasetError};
pub use judge::{JudgeSpec, Verdict};
