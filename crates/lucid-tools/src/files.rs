//! File tools confined to a workspace root: `read_file`, `list_dir`, `search_files`,
//! `write_file`, `edit_file`.
//!
//! Every path is relative to the root. Absolute paths, `..` components and symbolic links
//! that lead outside the root are refused with a tool error the model can read.
//!
//! Some paths are never written, whatever the permission policy says, because a write
//! there becomes code execution: version control internals (`.git/`, `.hg/`, `.svn/`,
//! where hooks and `core.fsmonitor` run on the next `git status`), environment files a
//! shell loads on its own (`.envrc`, `.env*`) and editor task files (`.vscode/tasks.json`).
//! [`Workspace::unprotect`] lifts one of them by name.

use std::path::{Component, Path, PathBuf};

use lucid::tool::{ToolContext, ToolError};
use lucid::tools;

/// The most bytes `read_file` returns at once.
const READ_CAP: usize = 256 * 1024;
/// The most matches `search_files` reports.
const MATCH_CAP: usize = 200;
/// The most entries `list_dir` reports.
const LIST_CAP: usize = 1000;
/// Files larger than this are skipped by `search_files`.
const SEARCH_FILE_CAP: u64 = 2 * 1024 * 1024;
/// Paths the writing tools refuse: a folder name (any component), a file name (a trailing
/// `*` matches any rest) or a path from the root.
pub const PROTECTED: &[&str] = &[".git", ".hg", ".svn", ".envrc", ".env*", ".vscode/tasks.json"];
/// Directories `search_files` does not enter.
const SKIPPED_DIRS: &[&str] = &[".git", "target", "node_modules", ".venv", "__pycache__"];

/// A workspace root and the file tools working inside it.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// use lucid::tool::{Tool, ToolSet};
/// let dir = std::env::temp_dir().join(format!("lucid-doc-ws-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let ws = std::sync::Arc::new(lucid_tools::Workspace::new(&dir).unwrap());
/// let tools = ws.clone().tools();
/// let names: Vec<&str> = tools.iter().map(|t| t.spec().name()).collect();
/// assert_eq!(names, ["read_file", "list_dir", "search_files", "write_file", "edit_file"]);
/// assert!(ws.resolve("../etc/passwd").unwrap_err().message().contains("outside the workspace"));
/// # });
/// ```
#[derive(Debug, Clone)]
pub struct Workspace {
    root: PathBuf,
    protected: Vec<String>,
}

impl Workspace {
    /// A workspace rooted at `root` (which must exist), with the [`PROTECTED`] paths
    /// refused to the writing tools.
    pub fn new(root: impl AsRef<Path>) -> std::io::Result<Self> {
        Ok(Workspace {
            root: std::fs::canonicalize(root)?,
            protected: PROTECTED.iter().map(|p| p.to_string()).collect(),
        })
    }

    /// Lets the writing tools write to one of the [`PROTECTED`] paths, named as it is
    /// there (`".env*"`, `".vscode/tasks.json"`…).
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// use lucid::tool::ToolSet;
    /// let dir = std::env::temp_dir().join(format!("lucid-doc-unprotect-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir).unwrap();
    /// let strict = std::sync::Arc::new(lucid_tools::Workspace::new(&dir).unwrap()).tools();
    /// let args = serde_json::json!({"path": ".env.example", "content": "PORT=8080\n"});
    /// assert!(strict[3].invoke(args.clone(), Default::default()).await.unwrap_err().message().contains("protected"));
    /// let relaxed = lucid_tools::Workspace::new(&dir).unwrap().unprotect(".env*");
    /// assert!(std::sync::Arc::new(relaxed).tools()[3].invoke(args, Default::default()).await.is_ok());
    /// # });
    /// ```
    pub fn unprotect(mut self, name: &str) -> Self {
        self.protected.retain(|p| p != name);
        self
    }

    /// The protected pattern `relative` falls under, if any.
    fn protection(&self, relative: &str) -> Option<&str> {
        let parts: Vec<&str> = Path::new(relative)
            .components()
            .filter_map(|c| match c {
                Component::Normal(p) => p.to_str(),
                _ => None,
            })
            .collect();
        let joined = parts.join("/");
        self.protected.iter().map(String::as_str).find(|pattern| {
            if pattern.contains('/') {
                joined == *pattern || joined.starts_with(&format!("{pattern}/"))
            } else if let Some(prefix) = pattern.strip_suffix('*') {
                parts.last().is_some_and(|name| name.starts_with(prefix))
            } else {
                parts.iter().any(|p| p == pattern)
            }
        })
    }

    /// [`Workspace::resolve`] for a write: protected paths are refused too.
    fn resolve_for_write(&self, relative: &str) -> Result<PathBuf, ToolError> {
        if let Some(pattern) = self.protection(relative) {
            return Err(ToolError::new(format!(
                "`{relative}` is protected (`{pattern}`: writing there can run code); it is not written"
            )));
        }
        let real = self.resolve(relative)?;
        // The same check on the real path: a link inside the workspace may lead to `.git`.
        let inside = real.strip_prefix(&self.root).unwrap_or(&real).to_string_lossy().into_owned();
        if let Some(pattern) = self.protection(&inside) {
            return Err(ToolError::new(format!(
                "`{relative}` leads to `{inside}`, which is protected (`{pattern}`); it is not written"
            )));
        }
        Ok(real)
    }

    /// The root, canonical.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The real path of `relative` inside the root, or a tool error saying why not.
    /// A path that does not exist yet is checked through its nearest existing ancestor.
    pub fn resolve(&self, relative: &str) -> Result<PathBuf, ToolError> {
        let rel = Path::new(relative.trim());
        if rel.is_absolute() || relative.trim_start().starts_with('~') {
            return Err(ToolError::new(format!(
                "`{relative}` is absolute; give a path relative to the workspace root"
            )));
        }
        for c in rel.components() {
            match c {
                Component::Normal(_) | Component::CurDir => {}
                _ => {
                    return Err(ToolError::new(format!(
                        "`{relative}` points outside the workspace (`..` is not allowed); give a path inside it"
                    )));
                }
            }
        }
        let joined = self.root.join(rel);
        // The longest prefix that exists *as an entry*: `symlink_metadata` does not follow
        // links, so a dangling link is found here (and refused below) instead of passing as
        // a name that does not exist yet. `exists()` would follow it.
        let mut existing = joined.as_path();
        let mut rest = Vec::new();
        loop {
            match std::fs::symlink_metadata(existing) {
                Ok(_) => break,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(ToolError::new(format!("cannot resolve `{relative}`: {e}"))),
            }
            match (existing.parent(), existing.file_name()) {
                (Some(p), Some(name)) => {
                    rest.push(name.to_owned());
                    existing = p;
                }
                _ => break,
            }
        }
        let mut real = std::fs::canonicalize(existing).map_err(|e| {
            if std::fs::symlink_metadata(existing).is_ok_and(|m| m.file_type().is_symlink()) {
                ToolError::new(format!(
                    "`{relative}` goes through a symbolic link whose target does not exist; it is refused"
                ))
            } else {
                ToolError::new(format!("cannot resolve `{relative}`: {e}"))
            }
        })?;
        if !real.starts_with(&self.root) {
            return Err(ToolError::new(format!(
                "`{relative}` leads outside the workspace through a symbolic link; it is refused"
            )));
        }
        for name in rest.into_iter().rev() {
            real.push(name);
        }
        Ok(real)
    }

    fn display(&self, path: &Path) -> String {
        let rel = path.strip_prefix(&self.root).unwrap_or(path);
        let s = rel.to_string_lossy().into_owned();
        if s.is_empty() { ".".into() } else { s }
    }
}

/// Writes `bytes` to `path`, refusing to follow a symbolic link at the last component:
/// [`Workspace::resolve`] checked the path, and `O_NOFOLLOW` makes sure a link put there
/// since (or a link the check missed) is not what gets written through.
async fn write_no_follow(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use tokio::io::AsyncWriteExt;
    let mut options = tokio::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    options.custom_flags(libc::O_NOFOLLOW);
    let mut file = options.open(path).await.map_err(|e| {
        if e.raw_os_error() == Some(libc::ELOOP) {
            std::io::Error::other("it is a symbolic link, which is not written through")
        } else {
            e
        }
    })?;
    file.write_all(bytes).await?;
    file.flush().await
}

/// Files up to this size have their lines counted to the end when a read stops early.
const COUNT_CAP: u64 = 64 * 1024 * 1024;

/// Lines `start..` (1-based) of a file, at most `limit` and [`READ_CAP`] bytes, read
/// through `reader` without holding more than what is returned. A first line longer than
/// the cap comes as its first piece, with the `byte_offset` to read on from.
async fn read_lines(
    mut reader: tokio::io::BufReader<tokio::fs::File>,
    start: usize,
    limit: Option<usize>,
    size: u64,
) -> std::io::Result<String> {
    use tokio::io::{AsyncBufReadExt, AsyncReadExt};
    let mut pos: u64 = 0;
    let mut line_no = 1;
    // Skip to the first line wanted without keeping what is skipped.
    while line_no < start {
        let chunk = reader.fill_buf().await?;
        if chunk.is_empty() {
            break;
        }
        let (used, ended) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        reader.consume(used);
        pos += used as u64;
        line_no += usize::from(ended);
    }
    let mut out = String::new();
    let mut shown = 0;
    let mut line = Vec::new();
    let mut at_eof = false;
    loop {
        if limit.is_some_and(|l| shown >= l) {
            break;
        }
        line.clear();
        let line_start = pos;
        // Read at most one byte past the cap, so a line too long to show is not held whole.
        let room = (READ_CAP - out.len()) as u64 + 1;
        let n = (&mut reader).take(room).read_until(b'\n', &mut line).await?;
        if n == 0 {
            at_eof = true;
            break;
        }
        let ended = line.last() == Some(&b'\n');
        if !ended && n as u64 == room {
            if shown > 0 {
                // The next line does not fit beside what is shown: it comes in the next read.
                break;
            }
            // A first line longer than the cap: its first piece, cut at a character.
            let cut = char_floor(&line, READ_CAP);
            let text = std::str::from_utf8(&line[..cut]).map_err(|_| std::io::ErrorKind::InvalidData)?;
            let next = line_start + cut as u64;
            return Ok(format!(
                "{text}\n[line {line_no} is longer than 256 KiB: bytes {line_start}-{next} of the file shown; \
                 read on with byte_offset={next}]\n"
            ));
        }
        pos += n as u64;
        let mut body = &line[..];
        if let Some(b) = body.strip_suffix(b"\n") {
            body = b.strip_suffix(b"\r").unwrap_or(b);
        }
        out.push_str(std::str::from_utf8(body).map_err(|_| std::io::ErrorKind::InvalidData)?);
        out.push('\n');
        shown += 1;
    }
    let end = start - 1 + shown;
    if !at_eof && !reader.fill_buf().await?.is_empty() {
        if size <= COUNT_CAP {
            let total = end + count_lines(&mut reader).await?;
            out.push_str(&format!("[lines {start}-{end} of {total}; read on with offset={}]\n", end + 1));
        } else {
            out.push_str(&format!("[lines {start}-{end} of a {size}-byte file; read on with offset={}]\n", end + 1));
        }
    }
    Ok(out)
}

/// The lines left in `reader`, counted as `str::lines` would (a last line without a
/// newline counts).
async fn count_lines(reader: &mut tokio::io::BufReader<tokio::fs::File>) -> std::io::Result<usize> {
    use tokio::io::AsyncBufReadExt;
    let mut lines = 0;
    let mut last = b'\n';
    loop {
        let chunk = reader.fill_buf().await?;
        let Some(&end) = chunk.last() else { break };
        lines += chunk.iter().filter(|&&b| b == b'\n').count();
        last = end;
        let n = chunk.len();
        reader.consume(n);
    }
    Ok(lines + usize::from(last != b'\n'))
}

/// [`READ_CAP`] bytes from byte `at`, trimmed to whole characters.
async fn read_bytes(mut reader: tokio::io::BufReader<tokio::fs::File>, at: u64, size: u64) -> std::io::Result<String> {
    use tokio::io::{AsyncReadExt, AsyncSeekExt};
    if at >= size {
        return Ok(format!("[byte_offset {at} is at or past the end of the file ({size} bytes)]\n"));
    }
    reader.seek(std::io::SeekFrom::Start(at)).await?;
    let mut buf = Vec::with_capacity(READ_CAP.min((size - at) as usize));
    (&mut reader).take(READ_CAP as u64).read_to_end(&mut buf).await?;
    // Skip the tail of a character the offset fell into, and stop before a cut one.
    let skip = buf.iter().take(3).take_while(|&&b| b & 0xC0 == 0x80).count();
    let end = if at + (buf.len() as u64) < size { char_floor(&buf, buf.len()) } else { buf.len() };
    let text = std::str::from_utf8(&buf[skip..end.max(skip)]).map_err(|_| std::io::ErrorKind::InvalidData)?;
    let (from, to) = (at + skip as u64, at + end.max(skip) as u64);
    let mut out = text.to_string();
    if to < size {
        out.push_str(&format!("\n[bytes {from}-{to} of {size}; read on with byte_offset={to}]\n"));
    }
    Ok(out)
}

/// The largest index `<= at` that does not fall inside a UTF-8 character of `bytes`.
fn char_floor(bytes: &[u8], at: usize) -> usize {
    let mut i = at.min(bytes.len());
    while i > 0 && i < bytes.len() && bytes[i] & 0xC0 == 0x80 {
        i -= 1;
    }
    i
}

/// An image, PDF or audio file: attached for a model that takes its kind (the answer says
/// so), refused with the reason for one that does not; `None` for any other file.
async fn media_file(
    file: &mut tokio::fs::File,
    path: &str,
    size: u64,
    ctx: &ToolContext,
) -> Result<Option<String>, ToolError> {
    use tokio::io::{AsyncReadExt, AsyncSeekExt};
    let mut head = [0u8; 16];
    let n = file.read(&mut head).await.map_err(|e| io_error("read", path, e))?;
    file.rewind().await.map_err(|e| io_error("read", path, e))?;
    let Some(media_type) = lucid::content::sniff(&head[..n]) else { return Ok(None) };
    let kind = lucid::content::Part::from_file_bytes(head[..n].to_vec(), None).map(|p| p.kind());
    let Some(kind) = kind.filter(|_| ctx.accepts.zip(kind).is_some_and(|(a, k)| a.accepts(k))) else {
        return Err(ToolError::new(format!(
            "`{path}` is {media_type} ({size} bytes), not text, and this model takes no such input: it cannot be shown"
        )));
    };
    if size > lucid::store::encoding::MAX_ATTACHMENT_BYTES as u64 {
        return Err(ToolError::new(format!("`{path}` ({media_type}, {size} bytes) is too large to attach")));
    }
    let mut data = Vec::with_capacity(size as usize);
    file.read_to_end(&mut data).await.map_err(|e| io_error("read", path, e))?;
    let name = path.rsplit('/').next().unwrap_or(path);
    let part = lucid::content::Part::from_file_bytes(data, Some(name)).ok_or_else(|| ToolError::new("unreadable"))?;
    ctx.attachments.attach(part);
    Ok(Some(format!("`{path}` is {media_type} ({size} bytes): attached for you to see ({kind}).")))
}

fn io_error(what: &str, path: &str, e: std::io::Error) -> ToolError {
    ToolError::new(format!("cannot {what} `{path}`: {e}"))
}

#[tools]
impl Workspace {
    /// Reads a text file of the workspace. Long files come in pieces: give `offset` (a
    /// 1-based line number) and `limit` (lines) to read further. A line too long to read
    /// whole is read in pieces with `byte_offset`, as the answer says. An image, PDF or
    /// audio file is shown to a model that takes it.
    #[tool]
    async fn read_file(
        &self,
        ctx: ToolContext,
        /// path relative to the workspace root
        path: String,
        /// first line to read (1-based; default 1)
        offset: Option<usize>,
        /// how many lines (default: as many as fit in 256 KiB)
        limit: Option<usize>,
        /// read 256 KiB from this byte of the file instead of whole lines
        byte_offset: Option<u64>,
    ) -> Result<String, ToolError> {
        let real = self.resolve(&path)?;
        let mut file = tokio::fs::File::open(&real).await.map_err(|e| io_error("read", &path, e))?;
        let size = file.metadata().await.map_err(|e| io_error("read", &path, e))?.len();
        if let Some(shown) = media_file(&mut file, &path, size, &ctx).await? {
            return Ok(shown);
        }
        let reader = tokio::io::BufReader::with_capacity(64 * 1024, file);
        let read = match byte_offset {
            Some(at) => read_bytes(reader, at, size).await,
            None => read_lines(reader, offset.unwrap_or(1).max(1), limit, size).await,
        };
        read.map_err(|e| match e.kind() {
            std::io::ErrorKind::InvalidData => ToolError::new(format!("`{path}` is not a text file")),
            _ => io_error("read", &path, e),
        })
    }

    /// Lists a directory of the workspace: one entry per line, directories ending in `/`.
    #[tool]
    async fn list_dir(
        &self,
        /// directory relative to the workspace root (default: the root)
        path: Option<String>,
    ) -> Result<String, ToolError> {
        let path = path.unwrap_or_else(|| ".".into());
        let real = self.resolve(&path)?;
        let mut entries = tokio::fs::read_dir(&real).await.map_err(|e| io_error("list", &path, e))?;
        let mut names = Vec::new();
        while let Some(e) = entries.next_entry().await.map_err(|e| io_error("list", &path, e))? {
            let dir = e.file_type().await.map(|t| t.is_dir()).unwrap_or(false);
            names.push(format!("{}{}", e.file_name().to_string_lossy(), if dir { "/" } else { "" }));
        }
        names.sort();
        let more = names.len().saturating_sub(LIST_CAP);
        names.truncate(LIST_CAP);
        let mut out = names.join("\n");
        if more > 0 {
            out.push_str(&format!("\n[{more} more entries not shown]"));
        }
        if out.is_empty() {
            out.push_str("(empty directory)");
        }
        Ok(out)
    }

    /// Searches the text files under a directory for a pattern (plain text, matched
    /// without regard to case); prints `path:line: text` for each match.
    #[tool]
    async fn search_files(
        &self,
        /// the text to look for
        pattern: String,
        /// directory to search, relative to the workspace root (default: the root)
        path: Option<String>,
        /// only files whose name matches this glob, e.g. `*.rs` (`*` and `?`)
        glob: Option<String>,
    ) -> Result<String, ToolError> {
        if pattern.is_empty() {
            return Err(ToolError::new("the pattern is empty"));
        }
        let path = path.unwrap_or_else(|| ".".into());
        let start = self.resolve(&path)?;
        let ws = self.clone();
        let needle = pattern.to_lowercase();
        tokio::task::spawn_blocking(move || ws.search(&start, &needle, glob.as_deref()))
            .await
            .map_err(|e| ToolError::new(format!("the search failed: {e}")))
    }

    /// Writes a text file of the workspace, replacing it if it exists (parent directories
    /// are created).
    #[tool]
    async fn write_file(
        &self,
        /// path relative to the workspace root
        path: String,
        /// the whole new content
        content: String,
    ) -> Result<String, ToolError> {
        let real = self.resolve_for_write(&path)?;
        if let Some(parent) = real.parent() {
            tokio::fs::create_dir_all(parent).await.map_err(|e| io_error("create the folder of", &path, e))?;
        }
        write_no_follow(&real, content.as_bytes()).await.map_err(|e| io_error("write", &path, e))?;
        Ok(format!("wrote {} bytes to {}", content.len(), self.display(&real)))
    }

    /// Replaces one exact piece of text in a file of the workspace. `old` must occur
    /// exactly once (include enough surrounding text to make it unique).
    #[tool]
    async fn edit_file(
        &self,
        /// path relative to the workspace root
        path: String,
        /// the exact text to replace
        old: String,
        /// the text to put in its place
        new: String,
    ) -> Result<String, ToolError> {
        let real = self.resolve_for_write(&path)?;
        let text = tokio::fs::read_to_string(&real).await.map_err(|e| io_error("read", &path, e))?;
        match text.matches(old.as_str()).count() {
            0 => Err(ToolError::new(format!("the text to replace was not found in `{path}`"))),
            1 => {
                let updated = text.replacen(old.as_str(), &new, 1);
                write_no_follow(&real, updated.as_bytes()).await.map_err(|e| io_error("write", &path, e))?;
                Ok(format!("edited {}", self.display(&real)))
            }
            n => Err(ToolError::new(format!(
                "the text to replace occurs {n} times in `{path}`; include more context so it occurs once"
            ))),
        }
    }
}

impl Workspace {
    fn search(&self, start: &Path, needle: &str, glob: Option<&str>) -> String {
        let mut out = Vec::new();
        let mut stack = vec![start.to_path_buf()];
        let mut truncated = false;
        'walk: while let Some(dir) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else { continue };
            let mut entries: Vec<_> = entries.flatten().collect();
            entries.sort_by_key(|e| e.file_name());
            for e in entries {
                let name = e.file_name().to_string_lossy().into_owned();
                // `file_type` does not follow links: a link is neither entered nor read.
                let Ok(kind) = e.file_type() else { continue };
                if kind.is_dir() {
                    if !SKIPPED_DIRS.contains(&name.as_str()) {
                        stack.push(e.path());
                    }
                    continue;
                }
                if !kind.is_file()
                    || glob.is_some_and(|g| !glob_match(g, &name))
                    || e.metadata().map(|m| m.len() > SEARCH_FILE_CAP).unwrap_or(true)
                {
                    continue;
                }
                let Ok(text) = std::fs::read_to_string(e.path()) else { continue };
                for (i, line) in text.lines().enumerate() {
                    if line.to_lowercase().contains(needle) {
                        if out.len() == MATCH_CAP {
                            truncated = true;
                            break 'walk;
                        }
                        let shown: String = line.trim().chars().take(200).collect();
                        out.push(format!("{}:{}: {shown}", self.display(&e.path()), i + 1));
                    }
                }
            }
        }
        if out.is_empty() {
            return "no matches".into();
        }
        let mut s = out.join("\n");
        if truncated {
            s.push_str(&format!("\n[stopped at {MATCH_CAP} matches; narrow the pattern or the path]"));
        }
        s
    }
}

/// `*` (any run) and `?` (one character) matching of a whole name.
fn glob_match(pattern: &str, name: &str) -> bool {
    fn go(p: &[char], n: &[char]) -> bool {
        match (p.first(), n.first()) {
            (None, None) => true,
            (Some('*'), _) => go(&p[1..], n) || (!n.is_empty() && go(p, &n[1..])),
            (Some('?'), Some(_)) => go(&p[1..], &n[1..]),
            (Some(a), Some(b)) if a == b => go(&p[1..], &n[1..]),
            _ => false,
        }
    }
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    go(&p, &n)
}

#[cfg(test)]
mod tests {
    use super::glob_match;

    #[test]
    fn globs_match_whole_names() {
        assert!(glob_match("*.rs", "main.rs"));
        assert!(!glob_match("*.rs", "main.rsx"));
        assert!(glob_match("a?c*", "abc.txt"));
        assert!(!glob_match("a?c", "ac"));
    }
}
