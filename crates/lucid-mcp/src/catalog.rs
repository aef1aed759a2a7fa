//! Resources and prompts a served MCP server offers besides its tools (feature `mcp-server`).
//!
//! A [`Catalog`] is what a configuration says: resources (text written inline, or a file's
//! bytes; a URI with `{name}` placeholders is a resource template whose variables are put
//! into the text) and prompts (messages of text with `{argument}` placeholders, images
//! read from files, or a served resource embedded by URI). [`ToolServer::catalog`]
//! serves one; `lucid mcp serve` reads it from `[mcp.serve]`.
//!
//! ```
//! // `lucid mcp serve` reads the same fields from `[mcp.serve]` in TOML.
//! let catalog: lucid_mcp::Catalog = serde_json::from_value(serde_json::json!({
//!     "resources": [
//!         {"uri": "notes://readme", "name": "readme", "text": "Read me first."},
//!         {"uri": "notes://day/{date}", "name": "day", "text": "Notes for {date}."}
//!     ],
//!     "prompts": [{
//!         "name": "review",
//!         "description": "Reviews a file",
//!         "arguments": [{"name": "path", "completions": ["src/main.rs"]}],
//!         "messages": [{"text": "Review {path}, briefly."}]
//!     }]
//! })).unwrap();
//! catalog.check().unwrap();
//! let day = catalog.read("notes://day/monday").unwrap();
//! assert!(matches!(day, rmcp::model::ResourceContents::TextResourceContents { text, .. } if text == "Notes for monday."));
//! assert_eq!(catalog.resources.len(), 2);
//! ```
//!
//! [`ToolServer::catalog`]: super::ToolServer::catalog

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use base64::Engine as _;
use rmcp::model::{ContentBlock, PromptMessage, ResourceContents, Role};
use serde::Deserialize;

/// The most bytes one file-backed resource or image may hold.
const MAX_FILE: u64 = 8 << 20;

/// Resources and prompts to serve, as a configuration describes them.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct Catalog {
    /// The resources and resource templates.
    #[serde(default)]
    pub resources: Vec<ResourceSpec>,
    /// The prompts.
    #[serde(default)]
    pub prompts: Vec<PromptSpec>,
    /// The folder relative `file`/`image` paths are read from (default: the current one).
    #[serde(skip)]
    pub base: PathBuf,
}

/// One resource, or a template when its URI has `{name}` placeholders.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct ResourceSpec {
    /// Its URI, or URI template (`notes://day/{date}`).
    pub uri: String,
    /// Its name.
    pub name: String,
    /// What it holds.
    #[serde(default)]
    pub description: Option<String>,
    /// Its MIME type (default: from the file's extension, else `text/plain`).
    #[serde(default)]
    pub mime_type: Option<String>,
    /// Its text; a template's `{name}` placeholders are replaced with the URI's values.
    #[serde(default)]
    pub text: Option<String>,
    /// A file whose bytes it serves, read at each read (not for templates).
    #[serde(default)]
    pub file: Option<PathBuf>,
    /// Values `completion/complete` offers for each template variable.
    #[serde(default)]
    pub completions: BTreeMap<String, Vec<String>>,
}

/// One prompt.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct PromptSpec {
    /// Its name.
    pub name: String,
    /// What it is for.
    #[serde(default)]
    pub description: Option<String>,
    /// Its arguments.
    #[serde(default)]
    pub arguments: Vec<ArgumentSpec>,
    /// Its messages, in order.
    pub messages: Vec<MessageSpec>,
}

/// One prompt argument.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct ArgumentSpec {
    /// Its name, the `{name}` placeholder in the messages.
    pub name: String,
    /// What it means.
    #[serde(default)]
    pub description: Option<String>,
    /// Whether a `prompts/get` must give it (default true).
    #[serde(default = "yes")]
    pub required: bool,
    /// Values `completion/complete` offers for it.
    #[serde(default)]
    pub completions: Vec<String>,
}

fn yes() -> bool {
    true
}

/// One prompt message: exactly one of `text`, `image` (a file) and `resource` (the URI of a
/// resource this server serves, embedded).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct MessageSpec {
    /// `user` (default) or `assistant`.
    #[serde(default)]
    pub role: Option<String>,
    /// Text with `{argument}` placeholders.
    #[serde(default)]
    pub text: Option<String>,
    /// An image file.
    #[serde(default)]
    pub image: Option<PathBuf>,
    /// The URI (with `{argument}` placeholders) of a served resource to embed.
    #[serde(default)]
    pub resource: Option<String>,
}

/// Why a catalog entry cannot be served.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CatalogError {
    /// The configuration is inconsistent.
    #[error("{0}")]
    Invalid(String),
    /// No resource or template matches the URI.
    #[error("no resource `{0}`")]
    UnknownResource(String),
    /// No prompt has that name.
    #[error("no prompt `{0}`")]
    UnknownPrompt(String),
    /// A required argument is missing.
    #[error("prompt `{prompt}` needs the argument `{argument}`")]
    MissingArgument {
        /// The prompt.
        prompt: String,
        /// The argument.
        argument: String,
    },
    /// A file could not be read.
    #[error("cannot read {path}: {reason}")]
    File {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
}

impl ResourceSpec {
    /// Whether its URI is a template.
    pub fn is_template(&self) -> bool {
        self.uri.contains('{')
    }

    /// The template variables' values in `uri`, when it matches this template.
    fn matches(&self, uri: &str) -> Option<BTreeMap<String, String>> {
        let mut vars = BTreeMap::new();
        let (mut pattern, mut rest) = (self.uri.as_str(), uri);
        loop {
            let Some(open) = pattern.find('{') else {
                return (pattern == rest).then_some(vars);
            };
            rest = rest.strip_prefix(&pattern[..open])?;
            let close = open + pattern[open..].find('}')?;
            let name = &pattern[open + 1..close];
            pattern = &pattern[close + 1..];
            // A variable runs to the next literal part (or the end), never across a `/`.
            let literal_end = pattern.find('{').unwrap_or(pattern.len());
            let end = if literal_end == 0 {
                rest.find('/').unwrap_or(rest.len())
            } else {
                rest.find(&pattern[..literal_end])?
            };
            let value = &rest[..end];
            if value.is_empty() || value.contains('/') {
                return None;
            }
            vars.insert(name.to_string(), value.to_string());
            rest = &rest[end..];
        }
    }
}

/// `text` with each `{name}` of `vars` replaced by its value.
fn fill(text: &str, vars: &BTreeMap<String, String>) -> String {
    vars.iter().fold(text.to_string(), |t, (k, v)| t.replace(&format!("{{{k}}}"), v))
}

/// The MIME type of `path` from its extension.
fn mime_of(path: &Path) -> Option<&'static str> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    Some(match ext.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "svg" => "image/svg+xml",
        "wav" => "audio/wav",
        "mp3" => "audio/mpeg",
        "pdf" => "application/pdf",
        "json" => "application/json",
        "md" => "text/markdown",
        "html" | "htm" => "text/html",
        "csv" => "text/csv",
        "txt" | "log" => "text/plain",
        _ => return None,
    })
}

impl Catalog {
    /// Checks that each entry is servable: a resource has exactly one of `text` and `file`
    /// (a template only `text`), a message exactly one of `text`, `image` and `resource`,
    /// and names are unique.
    pub fn check(&self) -> Result<(), CatalogError> {
        let invalid = |m: String| Err(CatalogError::Invalid(m));
        for r in &self.resources {
            match (&r.text, &r.file) {
                (Some(_), None) => {}
                (None, Some(_)) if !r.is_template() => {}
                (None, Some(_)) => {
                    return invalid(format!("resource template `{}`: only `text` can be templated", r.uri));
                }
                _ => return invalid(format!("resource `{}`: give exactly one of `text` and `file`", r.uri)),
            }
        }
        for p in &self.prompts {
            if self.prompts.iter().filter(|q| q.name == p.name).count() > 1 {
                return invalid(format!("prompt `{}` is defined twice", p.name));
            }
            for m in &p.messages {
                let given = [m.text.is_some(), m.image.is_some(), m.resource.is_some()];
                if given.iter().filter(|g| **g).count() != 1 {
                    return invalid(format!(
                        "prompt `{}`: a message has exactly one of `text`, `image`, `resource`",
                        p.name
                    ));
                }
                if !matches!(m.role.as_deref(), None | Some("user" | "assistant")) {
                    return invalid(format!("prompt `{}`: a message's role is `user` or `assistant`", p.name));
                }
            }
        }
        Ok(())
    }

    /// The resources that are not templates.
    pub fn listed_resources(&self) -> impl Iterator<Item = &ResourceSpec> {
        self.resources.iter().filter(|r| !r.is_template())
    }

    /// The resource templates.
    pub fn templates(&self) -> impl Iterator<Item = &ResourceSpec> {
        self.resources.iter().filter(|r| r.is_template())
    }

    /// A file's bytes, bounded.
    fn file(&self, path: &Path) -> Result<(PathBuf, Vec<u8>), CatalogError> {
        let path = self.base.join(path);
        let err = |reason: String| CatalogError::File { path: path.clone(), reason };
        let size = std::fs::metadata(&path).map_err(|e| err(e.to_string()))?.len();
        if size > MAX_FILE {
            return Err(err(format!("{size} bytes, over the {MAX_FILE}-byte limit")));
        }
        let bytes = std::fs::read(&path).map_err(|e| err(e.to_string()))?;
        Ok((path, bytes))
    }

    /// The contents of resource `uri` (a listed one, or one a template matches).
    pub fn read(&self, uri: &str) -> Result<ResourceContents, CatalogError> {
        let (spec, vars) = self
            .listed_resources()
            .find(|r| r.uri == uri)
            .map(|r| (r, BTreeMap::new()))
            .or_else(|| self.templates().find_map(|r| r.matches(uri).map(|v| (r, v))))
            .ok_or_else(|| CatalogError::UnknownResource(uri.to_string()))?;
        if let Some(text) = &spec.text {
            let mime = spec.mime_type.clone().unwrap_or_else(|| "text/plain".into());
            return Ok(ResourceContents::text(fill(text, &vars), uri).with_mime_type(mime));
        }
        let Some(file) = &spec.file else { return Err(CatalogError::UnknownResource(uri.to_string())) };
        let (path, bytes) = self.file(file)?;
        let mime = spec.mime_type.as_deref().or(mime_of(&path));
        let texty = mime.is_none_or(|m| m.starts_with("text/") || m == "application/json");
        match String::from_utf8(bytes) {
            Ok(text) if texty => Ok(ResourceContents::text(text, uri).with_mime_type(mime.unwrap_or("text/plain"))),
            Ok(text) => Ok(blob(text.into_bytes(), uri, mime)),
            Err(e) => Ok(blob(e.into_bytes(), uri, mime)),
        }
    }

    /// The file behind resource `uri` (`None` for text), or why it is not served.
    pub fn file_of(&self, uri: &str) -> Result<Option<PathBuf>, CatalogError> {
        if let Some(r) = self.listed_resources().find(|r| r.uri == uri) {
            return Ok(r.file.as_ref().map(|f| self.base.join(f)));
        }
        match self.templates().any(|r| r.matches(uri).is_some()) {
            true => Ok(None),
            false => Err(CatalogError::UnknownResource(uri.to_string())),
        }
    }

    /// The messages of prompt `name` with `args` put in.
    pub fn prompt(&self, name: &str, args: &BTreeMap<String, String>) -> Result<Vec<PromptMessage>, CatalogError> {
        let spec =
            self.prompts.iter().find(|p| p.name == name).ok_or_else(|| CatalogError::UnknownPrompt(name.into()))?;
        if let Some(missing) = spec.arguments.iter().find(|a| a.required && !args.contains_key(&a.name)) {
            return Err(CatalogError::MissingArgument { prompt: name.into(), argument: missing.name.clone() });
        }
        let mut vars = args.clone();
        for a in &spec.arguments {
            vars.entry(a.name.clone()).or_default();
        }
        let mut messages = Vec::new();
        for m in &spec.messages {
            let role = if m.role.as_deref() == Some("assistant") { Role::Assistant } else { Role::User };
            let content = if let Some(text) = &m.text {
                ContentBlock::text(fill(text, &vars))
            } else if let Some(image) = &m.image {
                let (path, bytes) = self.file(image)?;
                let data = base64::engine::general_purpose::STANDARD.encode(bytes);
                ContentBlock::image(data, mime_of(&path).unwrap_or("image/png"))
            } else {
                let uri = fill(m.resource.as_deref().unwrap_or_default(), &vars);
                ContentBlock::resource(self.read(&uri)?)
            };
            messages.push(PromptMessage::new(role, content));
        }
        Ok(messages)
    }

    /// What `completion/complete` offers: the values configured for argument `argument` of
    /// prompt `prompt` (or template `template`'s variable) that start with `prefix`.
    pub fn complete(&self, prompt: Option<&str>, template: Option<&str>, argument: &str, prefix: &str) -> Vec<String> {
        let values: &[String] = match (prompt, template) {
            (Some(p), _) => self
                .prompts
                .iter()
                .find(|s| s.name == p)
                .and_then(|s| s.arguments.iter().find(|a| a.name == argument))
                .map_or(&[], |a| &a.completions),
            (None, Some(t)) => self
                .templates()
                .find(|r| r.uri == t)
                .and_then(|r| r.completions.get(argument))
                .map_or(&[], |v| v.as_slice()),
            (None, None) => &[],
        };
        values.iter().filter(|v| v.starts_with(prefix)).take(100).cloned().collect()
    }

    /// Whether it offers anything.
    pub fn is_empty(&self) -> bool {
        self.resources.is_empty() && self.prompts.is_empty()
    }
}

/// Binary contents, base64.
fn blob(bytes: Vec<u8>, uri: &str, mime: Option<&str>) -> ResourceContents {
    let data = base64::engine::general_purpose::STANDARD.encode(bytes);
    ResourceContents::blob(data, uri).with_mime_type(mime.unwrap_or("application/octet-stream"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(uri: &str) -> ResourceSpec {
        ResourceSpec {
            uri: uri.into(),
            name: "r".into(),
            description: None,
            mime_type: None,
            text: Some("{id}".into()),
            file: None,
            completions: BTreeMap::new(),
        }
    }

    #[test]
    fn templates_match_one_path_segment_per_variable() {
        let t = spec("test://template/{id}/data");
        assert_eq!(t.matches("test://template/123/data").unwrap()["id"], "123");
        assert!(t.matches("test://template/1/2/data").is_none());
        assert!(t.matches("test://template//data").is_none());
        assert!(t.matches("test://other/1/data").is_none());
        let tail = spec("notes://{a}/{b}");
        let vars = tail.matches("notes://x/y").unwrap();
        assert_eq!((vars["a"].as_str(), vars["b"].as_str()), ("x", "y"));
    }

    #[test]
    fn a_resource_needs_one_source_and_prompts_need_their_required_arguments() {
        let mut both = spec("a://b");
        both.file = Some("x".into());
        let catalog = Catalog { resources: vec![both], ..Default::default() };
        assert!(catalog.check().is_err());
        let catalog: Catalog = serde_json::from_value(serde_json::json!({
            "prompts": [{"name": "p", "arguments": [{"name": "x"}], "messages": [{"text": "x={x}"}]}]
        }))
        .unwrap();
        catalog.check().unwrap();
        assert!(matches!(catalog.prompt("p", &BTreeMap::new()), Err(CatalogError::MissingArgument { .. })));
        let messages = catalog.prompt("p", &BTreeMap::from([("x".into(), "1".into())])).unwrap();
        assert_eq!(messages[0].content.as_text().unwrap().text, "x=1");
    }
}
