//! The variables editors write in their `mcp.json`, resolved as they resolve them: VS Code's
//! and Cursor's predefined `${workspaceFolder}`, `${workspaceFolderBasename}`,
//! `${userHome}`, `${pathSeparator}` / `${/}` and `${cwd}`, and VS Code's `${input:ID}`
//! (the input's `default`, since nobody can be asked). `${env:NAME}` and `${NAME}` are left
//! as they are: the environment is read when the server starts (`expand`), so a
//! secret is never held in the configuration nor shown by `lucid mcp list`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

/// VS Code's variables that name what is open in the editor: nothing outside one.
const EDITOR_ONLY: &[&str] = &[
    "file",
    "fileWorkspaceFolder",
    "relativeFile",
    "relativeFileDirname",
    "fileBasename",
    "fileBasenameNoExtension",
    "fileExtname",
    "fileDirname",
    "fileDirnameBasename",
    "lineNumber",
    "columnNumber",
    "selectedText",
    "execPath",
    "defaultBuildTask",
];

/// What the predefined variables stand for while Lucid reads one `mcp.json`.
#[derive(Debug, Clone)]
pub struct EditorVars {
    /// `${workspaceFolder}`: the project root Lucid runs in.
    workspace: PathBuf,
    /// `${userHome}`.
    home: Option<PathBuf>,
    /// VS Code's `inputs`, by id: each one's `default`, if it has one.
    inputs: BTreeMap<String, Option<String>>,
}

impl EditorVars {
    /// The variables for a file read in `workspace`, with `home` as `${userHome}`.
    pub fn new(workspace: &Path, home: Option<PathBuf>) -> Self {
        EditorVars { workspace: workspace.to_path_buf(), home, inputs: BTreeMap::new() }
    }

    /// VS Code's top-level `inputs` (`[{"id": …, "default": …}]`); entries without an `id`
    /// are ignored.
    pub fn with_inputs(mut self, inputs: Option<&Value>) -> Self {
        for input in inputs.and_then(Value::as_array).into_iter().flatten() {
            if let Some(id) = input.get("id").and_then(Value::as_str) {
                let default = input.get("default").and_then(Value::as_str).map(str::to_string);
                self.inputs.insert(id.to_string(), default);
            }
        }
        self
    }

    /// `${workspaceFolder}`.
    pub fn workspace(&self) -> &Path {
        &self.workspace
    }

    /// `value` with every predefined variable and input replaced; `${env:NAME}` and
    /// `${NAME}` kept for the start. The error names the variable that cannot be resolved.
    ///
    /// ```ignore
    /// let vars = EditorVars::new(Path::new("/proj"), None);
    /// assert_eq!(vars.expand("${workspaceFolder}/.env")?, "/proj/.env");
    /// ```
    pub fn expand(&self, value: &str) -> Result<String, String> {
        substitute(value, |var| self.resolve(var))
    }

    /// What `${var}` stands for, `None` when it is the environment's (left for the start).
    fn resolve(&self, var: &str) -> Result<Option<String>, String> {
        let path = |p: &Path| Some(p.to_string_lossy().into_owned());
        Ok(match var {
            "workspaceFolder" | "cwd" => path(&self.workspace),
            "workspaceFolderBasename" => {
                Some(self.workspace.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default())
            }
            "userHome" => match &self.home {
                Some(home) => path(home),
                None => return Err("${userHome}: the home folder is unknown (HOME is not set)".into()),
            },
            "pathSeparator" | "/" => Some(std::path::MAIN_SEPARATOR_STR.to_string()),
            v if EDITOR_ONLY.contains(&v) => {
                return Err(format!("${{{v}}} names what is open in the editor, which Lucid has not"));
            }
            v => match v.split_once(':') {
                None | Some(("env", _)) => None,
                Some(("input", id)) => match self.inputs.get(id) {
                    Some(Some(default)) => Some(default.clone()),
                    _ => {
                        return Err(format!(
                            "${{input:{id}}} is a value VS Code asks its user for, which Lucid cannot do; give the input a `default`, or write ${{env:NAME}} and set that variable"
                        ));
                    }
                },
                Some((kind, _)) => return Err(format!("${{{v}}}: Lucid does not resolve `{kind}:` variables")),
            },
        })
    }
}

/// `value` with every `${VAR}` (or VS Code's `${env:VAR}`) replaced by the variable's value;
/// a missing variable is an error naming it (never the value), and VS Code's
/// `${input:ID}` (a prompt Lucid cannot show) an error saying to use a variable.
pub fn expand(value: &str, lookup: impl Fn(&str) -> Option<String>) -> Result<String, String> {
    substitute(value, |var| {
        if var.starts_with("input:") {
            return Err(format!(
                "${{{var}}} is VS Code's prompt for a value, which Lucid cannot show: set an environment variable and write ${{NAME}}"
            ));
        }
        let var = var.strip_prefix("env:").unwrap_or(var);
        lookup(var).map(Some).ok_or_else(|| format!("the environment variable {var} is not set"))
    })
}

/// `value` with each `${var}` replaced by what `resolve` gives for `var`; `None` keeps the
/// `${var}` as written, and an unclosed `${` is kept as text.
fn substitute(value: &str, mut resolve: impl FnMut(&str) -> Result<Option<String>, String>) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = value;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[start..]);
            return Ok(out);
        };
        match resolve(&after[..end])? {
            Some(value) => out.push_str(&value),
            None => out.push_str(&rest[start..start + 2 + end + 1]),
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expansion_takes_variables_and_names_a_missing_one() {
        let lookup = |v: &str| (v == "TOKEN").then(|| "s3cret".to_string());
        assert_eq!(expand("Bearer ${TOKEN}", lookup).unwrap(), "Bearer s3cret");
        assert_eq!(expand("plain", lookup).unwrap(), "plain");
        let e = expand("${NOPE}", lookup).unwrap_err();
        assert!(e.contains("NOPE") && !e.contains("s3cret"));
        // VS Code's forms: `${env:VAR}` reads the variable, `${input:ID}` cannot be asked.
        assert_eq!(expand("Bearer ${env:TOKEN}", lookup).unwrap(), "Bearer s3cret");
        let e = expand("${input:api-key}", lookup).unwrap_err();
        assert!(e.contains("input:api-key") && e.contains("environment variable"), "{e}");
    }
    use serde_json::json;

    #[test]
    fn predefined_variables_and_inputs_resolve_and_the_environment_waits() {
        let inputs =
            json!([{"id": "region", "type": "promptString", "default": "eu"}, {"id": "key", "password": true}]);
        let vars = EditorVars::new(Path::new("/w/proj"), Some("/home/u".into())).with_inputs(Some(&inputs));
        let sep = std::path::MAIN_SEPARATOR_STR;
        assert_eq!(vars.expand("${workspaceFolder}/a").unwrap(), "/w/proj/a");
        assert_eq!(vars.expand("${workspaceFolderBasename}-${userHome}${/}x").unwrap(), format!("proj-/home/u{sep}x"));
        assert_eq!(vars.expand("${input:region}").unwrap(), "eu");
        assert_eq!(vars.expand("Bearer ${env:T} ${T} $HOME ${").unwrap(), "Bearer ${env:T} ${T} $HOME ${");
        let e = vars.expand("${input:key}").unwrap_err();
        assert!(e.contains("input:key") && e.contains("default"), "{e}");
        assert!(vars.expand("${input:nope}").is_err());
        assert!(vars.expand("${file}").unwrap_err().contains("${file}"));
        assert!(vars.expand("${config:editor.x}").unwrap_err().contains("config:"));
        let homeless = EditorVars::new(Path::new("/w"), None);
        assert!(homeless.expand("${userHome}").unwrap_err().contains("HOME"));
    }
}
