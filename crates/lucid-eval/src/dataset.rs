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
    /// The agent every case runs unless it names its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<AgentSpec>,
    /// pydantic-evals' judges of a whole report (a confusion matrix…), which its
    /// `Dataset.to_file` writes (as `[]` when there are none). Lucid has none yet: a dataset
    /// that lists one is refused, saying so.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub report_evaluators: Vec<Value>,
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
    /// A folder beside the dataset's file the agent starts in: each attempt works in a
    /// fresh copy of it (its tools' root, where a `Command` judge runs), so no attempt sees
    /// another's changes (Lucid's own field).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
    /// A SQLite database file beside the dataset's file: each attempt gets a fresh copy
    /// (in its project's copy when the file is inside the project, else in the attempt's
    /// folder) as the agent's database (Lucid's own field).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub database: Option<String>,
    /// The agent this case runs, over the dataset's (Lucid's own field).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<AgentSpec>,
    /// Judges for this case only.
    #[serde(default)]
    pub evaluators: Vec<JudgeSpec>,
}

/// The agent a case runs: a name the runner's subject knows (for `lucid eval`, an agent
/// as `--agent` names it: the configuration's, the user's or a shipped one), or a
/// configuration (for `lucid eval`, the keys of an `[agents.NAME]` section that shape the
/// agent: `system`, `tools`, `max_iterations`…).
///
/// ```
/// let d = lucid_eval::Dataset::from_yaml("
/// agent: db-design
/// cases:
///   - {inputs: List the tables.}
///   - {inputs: hi, agent: {system: Answer in one word., tools: []}}
/// ", "d.yaml")?;
/// assert_eq!(d.agent, Some(lucid_eval::AgentSpec::Named("db-design".into())));
/// assert!(matches!(d.cases[1].agent, Some(lucid_eval::AgentSpec::Config(_))));
/// # Ok::<(), lucid_eval::DatasetError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum AgentSpec {
    /// An agent by name.
    Named(String),
    /// An agent's configuration.
    Config(serde_json::Map<String, Value>),
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
                file: file.clone(),
                line: None,
                column: None,
                field: None,
                message: format!(
                    "the extension {} names no dataset format (.yaml, .yml, .json or .jsonl)",
                    other.map_or_else(|| "(none)".to_string(), |e| format!("`.{e}`"))
                ),
            }),
        };
        let folder = path.parent().map(Path::to_path_buf);
        read.and_then(|d| Dataset { folder, ..d }.files_inside(&file))
    }

    /// Refuses a case whose attachment, project or database is not a file (or, for a
    /// project, a folder) inside the dataset's folder: a dataset cannot send the user's
    /// other files to a model.
    fn files_inside(self, file: &str) -> Result<Dataset, DatasetError> {
        for (i, case) in self.cases.iter().enumerate() {
            let named = case.attachments.iter().enumerate().map(|(j, a)| (format!("attachments[{j}]"), a, false));
            let named = named
                .chain(case.project.iter().map(|p| ("project".to_string(), p, true)))
                .chain(case.database.iter().map(|d| ("database".to_string(), d, false)));
            for (field, name, folder) in named {
                let bad = |message: String| DatasetError {
                    file: file.to_string(),
                    line: None,
                    column: None,
                    field: Some(format!("cases[{i}].{field}")),
                    message,
                };
                let path = inside(self.folder.as_deref(), name).map_err(bad)?;
                if path.is_dir() != folder {
                    let want = if folder { "a folder" } else { "a file" };
                    return Err(bad(format!("`{name}` is not {want}")));
                }
            }
        }
        Ok(self)
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
        Dataset { name, cases, evaluators: Vec::new(), agent: None, report_evaluators: Vec::new(), folder: None }
            .checked(file)
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

    /// Refuses two cases of one name (a report could not tell them apart) and the report
    /// judges Lucid does not have.
    fn checked(self, file: &str) -> Result<Dataset, DatasetError> {
        if !self.report_evaluators.is_empty() {
            return Err(DatasetError {
                file: file.to_string(),
                line: None,
                column: None,
                field: Some("report_evaluators".into()),
                message: "judges of a whole report are not supported yet: judge each case (`evaluators`)".into(),
            });
        }
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

/// `name` (relative, as a dataset gives it) found in `folder` (else the current
/// directory): refused when it is absolute, missing, or resolves (through `..` or a link)
/// outside the folder.
pub(crate) fn inside(folder: Option<&Path>, name: &str) -> Result<std::path::PathBuf, String> {
    if Path::new(name).is_absolute() {
        return Err(format!("`{name}` must be a path relative to the dataset's folder"));
    }
    let base = match folder.filter(|f| !f.as_os_str().is_empty()) {
        Some(f) => f.to_path_buf(),
        None => std::env::current_dir().map_err(|e| format!("the current directory: {e}"))?,
    };
    let root = std::fs::canonicalize(&base).map_err(|e| format!("{}: {e}", base.display()))?;
    let path = std::fs::canonicalize(base.join(name)).map_err(|e| format!("`{name}`: {e}"))?;
    if !path.starts_with(&root) {
        return Err(format!("`{name}` is outside the dataset's folder {}", root.display()));
    }
    Ok(path)
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
        let e = Dataset::from_yaml("cases: []\nreport_evaluators: [ConfusionMatrixEvaluator]\n", "d.yaml").unwrap_err();
        assert_eq!(e.field.as_deref(), Some("report_evaluators"), "{e}");
        assert!(Dataset::from_yaml("cases: []\nreport_evaluators: []\n", "d.yaml").is_ok());
        let e = Dataset::from_file("/nonexistent/d.csv").unwrap_err();
        assert!(e.message.contains("cannot be read"), "{e}");
    }

    #[test]
    fn a_case_names_only_files_inside_the_datasets_folder() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("proj")).unwrap();
        std::fs::write(dir.path().join("app.db"), "").unwrap();
        let at = |body: &str| {
            let path = dir.path().join("d.yaml");
            std::fs::write(&path, format!("cases:\n  - inputs: x\n  - inputs: y\n    {body}\n")).unwrap();
            Dataset::from_file(&path)
        };
        let d = at("project: proj\n    database: app.db").unwrap();
        assert_eq!((d.cases[1].project.as_deref(), d.cases[1].database.as_deref()), (Some("proj"), Some("app.db")));
        for (body, field, says) in [
            ("project: /etc", "cases[1].project", "relative"),
            ("project: ../", "cases[1].project", "outside the dataset's folder"),
            ("project: app.db", "cases[1].project", "is not a folder"),
            ("database: proj", "cases[1].database", "is not a file"),
            ("database: gone.db", "cases[1].database", "gone.db"),
            ("attachments: [../../etc/passwd]", "cases[1].attachments[0]", ""),
        ] {
            let e = at(body).unwrap_err();
            assert_eq!(e.field.as_deref(), Some(field), "{body}: {e}");
            assert!(e.message.contains(says), "{body}: {e}");
        }
    }

    #[test]
    fn the_schema_describes_cases_and_judges() {
        let schema = Dataset::json_schema().to_string();
        for word in ["cases", "expected_output", "EqualsExpected", "Contains"] {
            assert!(schema.contains(word), "{word}");
        }
    }
}
