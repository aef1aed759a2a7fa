//! Datasets as files: a [`Dataset`] of [`Case`]s read from YAML, JSON or JSONL, in the
//! shape pydantic-evals writes (`name`, `cases` with `name`, `inputs`, `expected_output`,
//! `metadata`, `evaluators`, and the dataset's `evaluators`), plus Lucid's `tags`. A file
//! that does not read says where: the file, the line and column, and the field.

use std::path::Path;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::judge::JudgeSpec;

/// A set of cases and the judges every case gets.
///
/// ```
/// let yaml = "
/// name: capitals
/// cases:
///   - name: france
///     inputs: What is the capital of France?
///     expected_output: Paris
///     tags: [geography]
/// evaluators:
///   - EqualsExpected
/// ";
/// let dataset = lucid_eval::Dataset::from_yaml(yaml, "capitals.yaml")?;
/// assert_eq!(dataset.cases[0].prompt(), Some("What is the capital of France?"));
/// assert_eq!(dataset.evaluators.len(), 1);
/// # Ok::<(), lucid_eval::DatasetError>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Dataset {
    /// The dataset's name.
    #[serde(default)]
    pub name: Option<String>,
    /// The cases, in order.
    pub cases: Vec<Case>,
    /// Judges every case gets, after its own.
    #[serde(default)]
    pub evaluators: Vec<JudgeSpec>,
    /// The folder of the file the dataset was read from ([`Dataset::from_file`]): the cases'
    /// attachments are found from it. Not part of the file.
    #[serde(skip)]
    #[schemars(skip)]
    pub folder: Option<std::path::PathBuf>,
}

/// One case: what the agent is given, what is expected, and the judges of its own.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Case {
    /// The case's name (unique in its dataset; a case without one is named by its index).
    #[serde(default)]
    pub name: Option<String>,
    /// What the agent is given: a prompt (text), or any JSON value a task reads.
    pub inputs: Value,
    /// The answer expected, when there is one.
    #[serde(default)]
    pub expected_output: Option<Value>,
    /// Anything else about the case (difficulty, source…), kept in the report.
    #[serde(default)]
    pub metadata: Option<Value>,
    /// Labels to select cases by.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// Files sent with the prompt (images, PDFs, audio, text), as paths relative to the
    /// dataset's file (Lucid's own field).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attachments: Vec<String>,
    /// Judges for this case only.
    #[serde(default)]
    pub evaluators: Vec<JudgeSpec>,
}

impl Case {
    /// The inputs as a prompt, when they are text.
    pub fn prompt(&self) -> Option<&str> {
        self.inputs.as_str()
    }
}

/// A dataset file that does not read: where, and why.
///
/// ```
/// let e = lucid_eval::Dataset::from_yaml("cases:\n  - name: a\n    inputs: x\n    expected: y\n", "d.yaml").unwrap_err();
/// assert_eq!((e.line, e.field.as_deref()), (Some(4), Some("cases[0].expected")));
/// assert!(e.to_string().starts_with("d.yaml:4:"), "{e}");
/// ```
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{file}{}{}: {message}", location(*line, *column), field.as_deref().map(|f| format!(": field `{f}`")).unwrap_or_default())]
#[non_exhaustive]
pub struct DatasetError {
    /// The file.
    pub file: String,
    /// The line, from 1, when known.
    pub line: Option<usize>,
    /// The column, from 1, when known.
    pub column: Option<usize>,
    /// The field at fault, as a path (`cases[2].expected_output`), when known.
    pub field: Option<String>,
    /// What is wrong.
    pub message: String,
}

fn location(line: Option<usize>, column: Option<usize>) -> String {
    match (line, column) {
        (Some(l), Some(c)) => format!(":{l}:{c}"),
        (Some(l), None) => format!(":{l}"),
        _ => String::new(),
    }
}

/// The field path of a deserialisation error, `None` at the top.
fn field_of(path: &serde_path_to_error::Path) -> Option<String> {
    let p = path.to_string();
    (p != ".").then_some(p)
}

impl Dataset {
    /// Reads a dataset file; its extension says the format (`.yaml`/`.yml`, `.json`,
    /// `.jsonl`).
    pub fn from_file(path: impl AsRef<Path>) -> Result<Dataset, DatasetError> {
        let path = path.as_ref();
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| DatasetError {
            file: file.clone(),
            line: None,
            column: None,
            field: None,
            message: format!("cannot be read: {e}"),
        })?;
        let read = match path.extension().and_then(|e| e.to_str()) {
            Some("yaml" | "yml") => Dataset::from_yaml(&text, &file),
            Some("json") => Dataset::from_json(&text, &file),
            Some("jsonl") => Dataset::from_jsonl(&text, &file),
            other => Err(DatasetError {
                file,
                line: None,
                column: None,
                field: None,
                message: format!(
                    "the extension {} names no dataset format (.yaml, .yml, .json or .jsonl)",
                    other.map_or_else(|| "(none)".to_string(), |e| format!("`.{e}`"))
                ),
            }),
        };
        read.map(|d| Dataset { folder: path.parent().map(Path::to_path_buf), ..d })
    }

    /// Reads a dataset in YAML; `file` names it in errors.
    pub fn from_yaml(text: &str, file: &str) -> Result<Dataset, DatasetError> {
        let de = serde_norway::Deserializer::from_str(text);
        serde_path_to_error::deserialize(de)
            .map_err(|e| {
                let field = field_of(e.path());
                let inner = e.into_inner();
                let at = inner.location();
                DatasetError {
                    file: file.to_string(),
                    line: at.as_ref().map(|l| l.line()),
                    column: at.as_ref().map(|l| l.column()),
                    field,
                    message: strip_location(&inner.to_string()),
                }
            })
            .and_then(|d: Dataset| d.checked(file))
    }

    /// Reads a dataset in JSON; `file` names it in errors.
    pub fn from_json(text: &str, file: &str) -> Result<Dataset, DatasetError> {
        let mut de = serde_json::Deserializer::from_str(text);
        serde_path_to_error::deserialize(&mut de)
            .map_err(|e| json_error(e, file, None))
            .and_then(|d: Dataset| d.checked(file))
    }

    /// Reads cases from JSON Lines, one case per line (blank lines skipped); the dataset
    /// is named after the file and has no judges of its own.
    pub fn from_jsonl(text: &str, file: &str) -> Result<Dataset, DatasetError> {
        let mut cases = Vec::new();
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let mut de = serde_json::Deserializer::from_str(line);
            let case: Case = serde_path_to_error::deserialize(&mut de).map_err(|e| json_error(e, file, Some(i + 1)))?;
            cases.push(case);
        }
        let name = Path::new(file).file_stem().map(|s| s.to_string_lossy().into_owned());
        Dataset { name, cases, evaluators: Vec::new(), folder: None }.checked(file)
    }

    /// The JSON Schema of the dataset format (for editors, and for the documentation).
    pub fn json_schema() -> Value {
        serde_json::to_value(schemars::schema_for!(Dataset)).unwrap_or_default()
    }

    /// The name each case goes by: its own, else `case_N` (from 1).
    pub fn case_names(&self) -> Vec<String> {
        self.cases
            .iter()
            .enumerate()
            .map(|(i, c)| c.name.clone().unwrap_or_else(|| format!("case_{}", i + 1)))
            .collect()
    }

    /// Refuses two cases of one name: a report could not tell them apart.
    fn checked(self, file: &str) -> Result<Dataset, DatasetError> {
        let names = self.case_names();
        for (i, name) in names.iter().enumerate() {
            if names[..i].contains(name) {
                return Err(DatasetError {
                    file: file.to_string(),
                    line: None,
                    column: None,
                    field: Some(format!("cases[{i}].name")),
                    message: format!("the case name `{name}` is taken by an earlier case"),
                });
            }
        }
        Ok(self)
    }
}

/// A JSON error with its place; `line` (of a JSONL file) overrides the parser's.
fn json_error(e: serde_path_to_error::Error<serde_json::Error>, file: &str, line: Option<usize>) -> DatasetError {
    let field = field_of(e.path());
    let inner = e.into_inner();
    DatasetError {
        file: file.to_string(),
        line: line.or(Some(inner.line()).filter(|l| *l > 0)),
        column: Some(inner.column()).filter(|c| *c > 0),
        field,
        message: strip_location(&inner.to_string()),
    }
}

/// The parser's message without the " at line L column C" it appends (the error says it).
fn strip_location(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(at) => message[..at].to_string(),
        None => message.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_format_reads_the_same_cases() {
        let yaml = "name: d\ncases:\n  - name: a\n    inputs: hi\n    expected_output: HI\n";
        let json = r#"{"name": "d", "cases": [{"name": "a", "inputs": "hi", "expected_output": "HI"}]}"#;
        let jsonl = "{\"name\": \"a\", \"inputs\": \"hi\", \"expected_output\": \"HI\"}\n\n";
        let from_yaml = Dataset::from_yaml(yaml, "d.yaml").unwrap();
        assert_eq!(from_yaml, Dataset::from_json(json, "d.json").unwrap());
        assert_eq!(from_yaml, Dataset::from_jsonl(jsonl, "d.jsonl").unwrap());
    }

    #[test]
    fn a_bad_file_names_its_line_and_field() {
        let jsonl = "{\"inputs\": \"a\"}\n{\"inputs\": \"b\", \"expected_output\": 1, \"metadata\": {}, \"oops\": 2}\n";
        let e = Dataset::from_jsonl(jsonl, "cases.jsonl").unwrap_err();
        assert_eq!((e.line, e.field.as_deref()), (Some(2), Some("oops")), "{e}");
        assert!(e.message.contains("unknown field `oops`"), "{e}");

        let json = "{\"cases\": [{\"inputs\": 1}, {\"inputs\": 2, \"tags\": \"x\"}]}";
        let e = Dataset::from_json(json, "d.json").unwrap_err();
        assert_eq!(e.field.as_deref(), Some("cases[1].tags"), "{e}");
        assert_eq!(e.line, Some(1));

        let yaml = "cases:\n  - inputs: a\n  - inputs: b\n    evaluators:\n      - Nonsense\n";
        let e = Dataset::from_yaml(yaml, "d.yaml").unwrap_err();
        assert_eq!(e.field.as_deref(), Some("cases[1].evaluators[0]"), "{e}");
        assert!(e.message.contains("Nonsense"), "{e}");

        let e = Dataset::from_yaml("cases:\n  - name: a\n    inputs: 1\n  - name: a\n    inputs: 2\n", "d.yaml")
            .unwrap_err();
        assert_eq!(e.field.as_deref(), Some("cases[1].name"));
        let e = Dataset::from_file("/nonexistent/d.csv").unwrap_err();
        assert!(e.message.contains("cannot be read"), "{e}");
    }

    #[test]
    fn the_schema_describes_cases_and_judges() {
        let schema = Dataset::json_schema().to_string();
        for word in ["cases", "expected_output", "EqualsExpected", "Contains"] {
            assert!(schema.contains(word), "{word}");
        }
    }
}
