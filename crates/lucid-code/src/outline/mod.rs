//! `code_outline`: the symbols of a source file — kind, name, signature, line range and
//! first doc line — from a tree-sitter grammar (Rust, Python, Java, JavaScript,
//! TypeScript, TSX, Go), so a model can find its way in a file without reading all of it.
//!
//! The answer is JSON:
//!
//! ```json
//! {"path": "src/lib.rs", "language": "rust", "lines": 40,
//!  "symbols": [{"kind": "function", "name": "add", "signature": "pub fn add(a: i32, b: i32) -> i32",
//!               "lines": [3, 5], "doc": "Adds two numbers."},
//!              {"kind": "method", "name": "new", "parent": "Counter", "signature": "pub fn new() -> Self",
//!               "lines": [12, 14]}]}
//! ```
//!
//! A file in a language it does not know, a file over the size limit (1 MiB unless set:
//! [`CodeOutline::max_bytes`]) and a file that is not text are tool errors that say so; a
//! file with syntax errors is outlined as far as the parser recovered, with
//! `"syntax_errors": true`.
//!
//! Bounded in time as well as in size: the parse, the query and the walk over its
//! matches run on a blocking thread that checks a stop flag at every step (tree-sitter's
//! progress callbacks, then each match), and the flag is set when the call ends — at the
//! outline's own time limit ([`CodeOutline::timeout`], 20 s unless set), when the run is
//! cancelled, or when the caller stops waiting (the tool's timeout drops the call) — so
//! no thread goes on working for a call nobody waits for. After the parse, the work is
//! linear in the number of symbols but for the symbols shown (1000 at most): tree-sitter
//! finds a node's parent and previous sibling by walking its siblings, so only those are
//! described, and the rest counted.

mod languages;

use std::collections::HashSet;
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use futures::FutureExt;
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use streaming_iterator::StreamingIterator;
use tree_sitter::{Node, ParseOptions, Parser, QueryCursor, QueryCursorOptions};

use languages::{ALL, Lang};
use lucid::tool::{Tool, ToolContext, ToolError, ToolSpec, parse_args};
use lucid_tools::Workspace;

/// The most symbols an answer lists; the definitions past them are counted as the query
/// finds them (`symbols_not_shown`: a function bound to a `const` in a function body
/// included).
const SYMBOL_CAP: usize = 1000;
/// The longest signature kept, in characters.
const SIGNATURE_CAP: usize = 240;

/// The `code_outline` tool, reading files of a [`Workspace`].
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use lucid::Tool;
/// let dir = std::env::temp_dir().join(format!("lucid-doc-outline-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// std::fs::write(dir.join("calc.py"), "def add(a, b):\n    \"\"\"Adds two numbers.\"\"\"\n    return a + b\n").unwrap();
/// let outline = lucid_code::CodeOutline::new(&dir).unwrap();
/// let out = outline.invoke(serde_json::json!({"path": "calc.py"}), Default::default()).await.unwrap();
/// let v: serde_json::Value = serde_json::from_str(&out).unwrap();
/// assert_eq!(v["symbols"][0]["name"], "add");
/// assert_eq!(v["symbols"][0]["doc"], "Adds two numbers.");
/// assert_eq!(v["symbols"][0]["lines"], serde_json::json!([1, 3]));
/// # });
/// ```
#[derive(Debug, Clone)]
pub struct CodeOutline {
    spec: ToolSpec,
    workspace: Arc<Workspace>,
    max_bytes: u64,
    timeout: Duration,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct OutlineArgs {
    /// The source file, relative to the workspace root.
    path: String,
}

/// One symbol of the answer.
#[derive(Debug, Serialize)]
struct Symbol {
    kind: String,
    name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    parent: Option<String>,
    signature: String,
    /// First and last line, 1-based, inclusive.
    lines: [usize; 2],
    #[serde(skip_serializing_if = "Option::is_none")]
    doc: Option<String>,
    /// Byte range of the definition, to find parents.
    #[serde(skip)]
    bytes: std::ops::Range<usize>,
}

impl CodeOutline {
    /// The outline of files under `root` (which must exist), 1 MiB at most per file.
    pub fn new(root: impl Into<PathBuf>) -> std::io::Result<Self> {
        Ok(Self::in_workspace(Arc::new(Workspace::new(root.into())?)))
    }

    /// The outline of the files of `workspace` (paths confined to it as the file tools').
    pub fn in_workspace(workspace: Arc<Workspace>) -> Self {
        let names: Vec<&str> = ALL.iter().map(|(_, n)| *n).collect();
        let description = format!(
            "Lists the symbols of a source file ({}): kind, name, signature, line range and first doc \
             line, as JSON, from a real parser. Read the lines of one symbol with read_file's offset and limit.",
            names.join(", ")
        );
        CodeOutline {
            spec: ToolSpec::for_args::<OutlineArgs>("code_outline", &description),
            workspace,
            max_bytes: 1024 * 1024,
            timeout: Duration::from_secs(20),
        }
    }

    /// The largest file outlined, in bytes (1 MiB unless set).
    pub fn max_bytes(mut self, bytes: u64) -> Self {
        self.max_bytes = bytes;
        self
    }

    /// How long one outline may take (20 s unless set): then its parse stops and the call
    /// answers an error saying so.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    async fn outline(&self, path: &str, ctx: &ToolContext) -> Result<String, ToolError> {
        let lang = Lang::of(path).ok_or_else(|| {
            let names: Vec<&str> = ALL.iter().map(|(_, n)| *n).collect();
            ToolError::new(format!(
                "`{path}` is not in a language code_outline reads (by its extension: {}); read it with read_file",
                names.join(", ")
            ))
        })?;
        let real = self.workspace.resolve(path)?;
        let meta =
            tokio::fs::metadata(&real).await.map_err(|e| ToolError::new(format!("cannot read `{path}`: {e}")))?;
        if !meta.is_file() {
            return Err(ToolError::new(format!("`{path}` is not a file")));
        }
        if meta.len() > self.max_bytes {
            return Err(ToolError::new(format!(
                "`{path}` is too large to outline ({} bytes; the limit is {}); read parts of it with read_file or search_files",
                meta.len(),
                self.max_bytes
            )));
        }
        let bytes = tokio::fs::read(&real).await.map_err(|e| ToolError::new(format!("cannot read `{path}`: {e}")))?;
        let source = String::from_utf8(bytes).map_err(|_| ToolError::new(format!("`{path}` is not UTF-8 text")))?;
        // Set however this call ends, the future dropped included: the thread stops.
        let stop = StopOnDrop(Arc::new(AtomicBool::new(false)));
        let flag = Arc::clone(&stop.0);
        let mut work = tokio::task::spawn_blocking(move || outline_until(lang, &source, &flag));
        let outline = tokio::select! {
            done = &mut work => done.map_err(|e| ToolError::new(format!("the parser failed: {e}")))??,
            _ = tokio::time::sleep(self.timeout) => {
                return Err(ToolError::new(format!(
                    "`{path}` took longer than {:.0} s to outline and was stopped; read parts of it with read_file or \
                     search_files",
                    self.timeout.as_secs_f64()
                )));
            }
            _ = ctx.cancel.cancelled() => return Err(ToolError::new("the outline was cancelled")),
        };
        let mut answer = serde_json::json!({
            "path": path,
            "language": lang.name(),
            "lines": outline.lines,
            "symbols": outline.symbols,
        });
        if outline.syntax_errors {
            answer["syntax_errors"] = Value::Bool(true);
        }
        if outline.dropped > 0 {
            answer["symbols_not_shown"] = outline.dropped.into();
        }
        Ok(answer.to_string())
    }
}

/// The symbols of one file.
struct Outline {
    symbols: Vec<Symbol>,
    lines: usize,
    syntax_errors: bool,
    dropped: usize,
}

/// Sets its flag when dropped: however the call that made it ends.
struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// Parses `source` and lists its symbols in the order they start.
#[cfg(test)]
fn outline_source(lang: Lang, source: &str) -> Result<Outline, ToolError> {
    outline_until(lang, source, &AtomicBool::new(false))
}

/// [`outline_source`], stopping with an error as soon as `stop` is set.
fn outline_until(lang: Lang, source: &str, stop: &AtomicBool) -> Result<Outline, ToolError> {
    #[cfg(test)]
    let _running = tests::Running::start(source.len());
    let stopped = || ToolError::new("the outline was stopped before it finished");
    let mut go_on = |_: &tree_sitter::ParseState| {
        if stop.load(Ordering::Relaxed) { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
    };
    let mut parser = Parser::new();
    parser.set_language(&lang.grammar()).map_err(|e| ToolError::new(format!("the {} grammar: {e}", lang.name())))?;
    let bytes = source.as_bytes();
    let tree = parser
        .parse_with_options(
            &mut |i, _| bytes.get(i..).unwrap_or_default(),
            None,
            Some(ParseOptions::new().progress_callback(&mut go_on)),
        )
        .ok_or_else(|| {
            if stop.load(Ordering::Relaxed) { stopped() } else { ToolError::new("the parser gave up on this file") }
        })?;
    let query = lang.query().map_err(ToolError::new)?;
    let names = query.capture_names();
    let name_index = query.capture_index_for_name("name");
    let mut cursor = QueryCursor::new();
    let mut go_on = |_: &tree_sitter::QueryCursorState| {
        if stop.load(Ordering::Relaxed) { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
    };
    let options = QueryCursorOptions::new().progress_callback(&mut go_on);
    let mut matches = cursor.matches_with_options(query, tree.root_node(), bytes, options);
    let mut symbols: Vec<Symbol> = Vec::new();
    let mut seen = HashSet::new();
    let mut dropped = 0;
    while let Some(m) = matches.next() {
        if stop.load(Ordering::Relaxed) {
            return Err(stopped());
        }
        let mut def = None;
        let mut name = None;
        for c in m.captures() {
            if Some(c.index) == name_index {
                name = Some(c.node);
            } else {
                def = Some((names[c.index as usize], c.node));
            }
        }
        let (Some((capture, node)), Some(name)) = (def, name) else { continue };
        let (kind, top_only) = match capture.strip_suffix(".top") {
            Some(k) => (k, true),
            None => (capture, false),
        };
        // Past the cap a definition is counted, not described: finding what wraps it and
        // the comments above it walks its siblings, which would make the whole quadratic.
        if symbols.len() >= SYMBOL_CAP {
            dropped += usize::from(seen.insert((node.start_byte(), node.end_byte())));
            continue;
        }
        let outer = outer(node);
        if top_only && outer.parent().is_some_and(|p| p.parent().is_some()) {
            continue;
        }
        if !seen.insert((outer.start_byte(), outer.end_byte())) {
            continue;
        }
        symbols.push(Symbol {
            kind: kind_of(lang, kind, node),
            name: text(name, source).to_string(),
            parent: None,
            signature: signature(node, source),
            lines: [outer.start_position().row + 1, outer.end_position().row + 1],
            doc: doc(lang, node, outer, source),
            bytes: outer.start_byte()..outer.end_byte(),
        });
    }
    if stop.load(Ordering::Relaxed) {
        return Err(stopped());
    }
    symbols.sort_by_key(|s| (s.bytes.start, std::cmp::Reverse(s.bytes.end)));
    // The innermost symbol holding another is its parent; a function in a type is a method.
    // Sorted by start (the longer first), the symbols holding one are a stack.
    let mut holders: Vec<usize> = Vec::new();
    for i in 0..symbols.len() {
        while let Some(&j) = holders.last() {
            if symbols[j].bytes.start <= symbols[i].bytes.start && symbols[i].bytes.end <= symbols[j].bytes.end {
                break;
            }
            holders.pop();
        }
        if let Some(&j) = holders.last() {
            let (parent_kind, parent_name) = (symbols[j].kind.clone(), symbols[j].name.clone());
            let typed = ["impl", "trait", "class", "interface", "struct", "enum"].contains(&parent_kind.as_str());
            if symbols[i].kind == "function" && typed {
                symbols[i].kind = "method".into();
            }
            symbols[i].parent = Some(parent_name);
        }
        holders.push(i);
    }
    let lines = source.lines().count();
    Ok(Outline { symbols, lines, syntax_errors: tree.root_node().has_error(), dropped })
}

/// The node a definition's comments and line range belong to: the `export` or decorated
/// statement around it, or (Go) the `type`/`const` declaration of a single spec.
fn outer(node: Node<'_>) -> Node<'_> {
    let mut n = node;
    while let Some(p) = n.parent() {
        let wraps = match p.kind() {
            "export_statement" | "decorated_definition" => true,
            "type_declaration" | "const_declaration" | "lexical_declaration" | "variable_declaration" => {
                p.named_child_count() == 1 || n.kind().ends_with("declarator")
            }
            "variable_declarator" => true,
            _ => false,
        };
        if !wraps {
            break;
        }
        n = p;
    }
    n
}

/// The kind said in the answer: Go's `type` specs become `struct` or `interface` by
/// what they declare.
fn kind_of(lang: Lang, kind: &str, node: Node<'_>) -> String {
    if lang == Lang::Go && kind == "type" {
        match node.child_by_field_name("type").map(|t| t.kind()) {
            Some("struct_type") => return "struct".into(),
            Some("interface_type") => return "interface".into(),
            _ => {}
        }
    }
    kind.to_string()
}

fn text<'s>(node: Node<'_>, source: &'s str) -> &'s str {
    source.get(node.start_byte()..node.end_byte()).unwrap_or("")
}

/// The definition's head: its text up to its body (or its first line), on one line.
fn signature(node: Node<'_>, source: &str) -> String {
    let start = node.start_byte();
    let end = match node.child_by_field_name("body") {
        Some(body) if body.start_byte() > start => body.start_byte(),
        _ => {
            let t = text(node, source);
            start + t.find('\n').unwrap_or(t.len())
        }
    };
    let head = source.get(start..end).unwrap_or("");
    let mut one_line = head.split_whitespace().collect::<Vec<_>>().join(" ");
    while one_line.ends_with(['{', ':', '=', ' ']) {
        one_line.pop();
    }
    if one_line.chars().count() > SIGNATURE_CAP {
        one_line = one_line.chars().take(SIGNATURE_CAP).collect::<String>() + "…";
    }
    one_line
}

/// The first line of the definition's documentation: Python's docstring, else the
/// comments right above it (attributes and annotations between them skipped).
fn doc(lang: Lang, node: Node<'_>, outer: Node<'_>, source: &str) -> Option<String> {
    if lang == Lang::Python {
        let first = node.child_by_field_name("body")?.named_child(0)?;
        if first.kind() == "expression_statement" {
            let string = first.named_child(0).filter(|s| s.kind() == "string")?;
            let raw = text(string, source).trim_start_matches(|c: char| c.is_ascii_alphabetic());
            let inner = raw.trim_matches(|c| c == '"' || c == '\'');
            return first_line(inner);
        }
        return None;
    }
    let mut comments = Vec::new();
    let mut below = outer;
    let mut sibling = outer.prev_sibling();
    while let Some(s) = sibling {
        let adjacent = s.end_position().row + 1 >= below.start_position().row;
        if !adjacent {
            break;
        }
        if s.kind().contains("comment") {
            comments.push(s);
        } else if !(s.kind() == "attribute_item" || s.kind() == "decorator") {
            break;
        }
        below = s;
        sibling = s.prev_sibling();
    }
    comments.reverse();
    comments.into_iter().find_map(|c| {
        let raw = text(c, source);
        // `//!` and `/*!` document the enclosing item, not this one.
        if raw.starts_with("//!") || raw.starts_with("/*!") {
            return None;
        }
        first_line(raw)
    })
}

/// The first line with words in a comment or docstring, its markers taken off.
fn first_line(raw: &str) -> Option<String> {
    raw.lines()
        .map(|l| {
            l.trim()
                .trim_start_matches("/**")
                .trim_start_matches("/*")
                .trim_start_matches("///")
                .trim_start_matches("//")
                .trim_start_matches('#')
                .trim_end_matches("*/")
                .trim_start_matches('*')
                .trim()
        })
        .find(|l| !l.is_empty())
        .map(str::to_string)
}

impl Tool for CodeOutline {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn invoke<'a>(&'a self, args: Value, ctx: ToolContext) -> BoxFuture<'a, Result<String, ToolError>> {
        async move {
            let OutlineArgs { path } = parse_args(args)?;
            self.outline(&path, &ctx).await
        }
        .boxed()
    }
}

#[cfg(test)]
mod tests;
