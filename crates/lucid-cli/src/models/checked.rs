//! Names checked before they touch the disk or the terminal.
//!
//! Everything `lucid models` builds a cache path from — the repository, a file's path in
//! it, a revision, a commit, a blob's hash — comes from a model name, a URL or the hub,
//! and each is one of the types here, made only by its checking constructor. The cache's
//! path functions take these types, so no path can be built from a name that was not
//! checked: a file path is a relative path of normal segments (no `..`, no `.`, no empty
//! segment, not absolute, no backslash, no control or bidi character), so it stays inside
//! its snapshot folder; a revision is the same (`refs/pr/1` stays inside `refs/`); a
//! commit is 40 lowercase hex digits; a blob is a sha256 (or, for a small file, a git
//! sha1), the only names a download can be checked against.
//!
//! [`shown`] is the other half: a name that failed its check is still quoted in the error,
//! with every character that would act on a terminal written as its escape.

use std::fmt;

use anyhow::bail;

/// The longest file path and revision accepted (bytes), and the longest segment.
const MAX_PATH: usize = 1024;
const MAX_SEGMENT: usize = 255;

/// The largest file the hub may announce a git sha1 ETag for: the hub keeps every file
/// over 10 MB in LFS, whose ETag is its sha256.
pub const SMALL_FILE: u64 = 10 * 1024 * 1024;

/// `name` as it may be printed: control characters (newline and tab included), DEL, C1
/// controls and bidi controls written as `\u{…}` escapes, so a hostile name cannot move the
/// cursor, recolour or rewrite what the terminal shows.
pub fn shown(name: &str) -> String {
    crate::display::safe(&name.replace('\n', "\\u{a}").replace('\t', "\\u{9}")).into_owned()
}

/// Whether `c` is a control character or a bidi embedding, override or isolate.
fn hostile_char(c: char) -> bool {
    c.is_control() || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// What is wrong with one segment of a relative path, if anything.
fn segment_problem(segment: &str) -> Option<&'static str> {
    if segment.is_empty() {
        Some("it has an empty segment (a leading, doubled or trailing `/`)")
    } else if segment == "." || segment == ".." {
        Some("it has a `.` or `..` segment")
    } else if segment.len() > MAX_SEGMENT {
        Some("a segment is longer than 255 bytes")
    } else if segment.contains('\\') {
        Some("it has a backslash")
    } else if segment.chars().any(hostile_char) {
        Some("it has a control or bidi character")
    } else {
        None
    }
}

/// What keeps `path` from being a relative path of normal segments, if anything.
fn relative_problem(path: &str) -> Option<&'static str> {
    if path.is_empty() {
        Some("it is empty")
    } else if path.starts_with('/') {
        Some("it is an absolute path")
    } else if path.len() > MAX_PATH {
        Some("it is longer than 1024 bytes")
    } else {
        path.split('/').find_map(segment_problem)
    }
}

/// `ORG/NAME`: two segments of ASCII letters, digits, `-`, `_` and `.` (not `.` or `..`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RepoId(String);

impl RepoId {
    /// The repository `ORG/NAME`, if it is one.
    pub fn parse(repo: &str) -> Option<RepoId> {
        let ok = |s: &str| {
            !s.is_empty()
                && s.len() <= 96
                && s != "."
                && s != ".."
                && s.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
        };
        match repo.split_once('/') {
            Some((org, name)) if ok(org) && ok(name) => Some(RepoId(repo.to_string())),
            _ => None,
        }
    }

    /// The cache's folder name, `models--ORG--NAME`.
    pub fn folder(&self) -> String {
        format!("models--{}", self.0.replace('/', "--"))
    }
}

/// A file's path in a repository: relative, `/`-separated, of normal segments only.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RepoPath(String);

impl RepoPath {
    /// The path, if it stays inside the repository's folder (see the module's page).
    pub fn parse(path: &str) -> anyhow::Result<RepoPath> {
        match relative_problem(path) {
            None => Ok(RepoPath(path.to_string())),
            Some(why) => bail!("`{}` is not a file path inside the repository: {why}", shown(path)),
        }
    }

    /// The path, `/`-separated.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// How many folders deep the file is (`a/b/m.gguf`: 2).
    pub fn depth(&self) -> usize {
        self.0.matches('/').count()
    }
}

/// A branch, tag or commit, as the cache's `refs/` names it (`main`, `v1.0`, `refs/pr/1`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Revision(String);

impl Revision {
    /// `main`.
    pub fn main() -> Revision {
        Revision("main".into())
    }

    /// The revision (already percent-decoded), if it stays inside `refs/`.
    pub fn parse(revision: &str) -> anyhow::Result<Revision> {
        match relative_problem(revision) {
            None => Ok(Revision(revision.to_string())),
            Some(why) => bail!("`{}` is not a revision: {why}", shown(revision)),
        }
    }

    /// The revision.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The commit it is, when it is a commit hash itself.
    pub fn commit(&self) -> Option<Commit> {
        Commit::parse(&self.0)
    }
}

/// A commit: 40 lowercase hex digits.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Commit(String);

impl Commit {
    /// The commit, if `hash` is one.
    pub fn parse(hash: &str) -> Option<Commit> {
        (hash.len() == 40 && hash.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)))
            .then(|| Commit(hash.to_string()))
    }

    /// The hash.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Which hash a blob's name is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HashKind {
    /// The sha256 of the bytes (an LFS file).
    Sha256,
    /// The git blob sha1 (`blob <len>\0` and the bytes): a small file kept in git.
    GitSha1,
}

/// A blob's name in the cache: the hash its bytes are checked against before it is
/// linked. An ETag that is neither hash gives none, so nothing unchecked is ever linked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlobHash {
    hex: String,
    kind: HashKind,
}

impl BlobHash {
    /// The hash an ETag names (quotes and a weak `W/` dropped, hex lowercased): a sha256,
    /// or a git sha1 for a file announced at no more than [`SMALL_FILE`] bytes.
    pub fn from_etag(etag: &str, size: Option<u64>) -> anyhow::Result<BlobHash> {
        let bare = etag.trim().trim_start_matches("W/").trim_matches('"');
        let hex = bare.to_ascii_lowercase();
        let is_hex = hex.bytes().all(|b| b.is_ascii_hexdigit());
        match hex.len() {
            64 if is_hex => Ok(BlobHash { hex, kind: HashKind::Sha256 }),
            40 if is_hex && size.is_some_and(|s| s <= SMALL_FILE) => Ok(BlobHash { hex, kind: HashKind::GitSha1 }),
            40 if is_hex => bail!(
                "the hub names the file by a git sha1 ETag ({hex}) but announces {}, not a small file kept in git; \
                 lucid links only a download it has checked against a sha256",
                size.map_or_else(|| "no size".to_string(), |s| format!("{s} bytes"))
            ),
            _ => bail!(
                "the hub's ETag for the file, `{}`, is not a sha256 (nor a git sha1), so a download could not be \
                 checked; lucid does not link an unchecked file into the cache",
                shown(bare)
            ),
        }
    }

    /// The hash in lowercase hex (the blob's file name).
    pub fn as_str(&self) -> &str {
        &self.hex
    }

    /// Which hash it is.
    pub fn kind(&self) -> HashKind {
        self.kind
    }
}

impl fmt::Display for RepoId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Display for RepoPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Display for Revision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_paths_stay_inside_the_repository() {
        for good in ["m.gguf", "sub dir/m-Q8_0.gguf", ".gitattributes", "a/b/c/ünï.gguf", "x..y.gguf"] {
            assert_eq!(RepoPath::parse(good).unwrap().as_str(), good);
        }
        for bad in [
            "",
            "/etc/passwd",
            "../x.gguf",
            "a/../../x.gguf",
            "a/./b",
            "a//b",
            "a/",
            "..",
            "a\\..\\b",
            "a\0b",
            "a\x1b[2Jb",
            "a\nb",
            "a\u{202e}b",
            &"x".repeat(256),
            &"a/".repeat(600),
        ] {
            assert!(RepoPath::parse(bad).is_err(), "{bad:?} accepted");
        }
        assert_eq!(RepoPath::parse("a/b/m.gguf").unwrap().depth(), 2);
        let err = RepoPath::parse("\x1b[31mred/../x").unwrap_err().to_string();
        assert!(!err.contains('\x1b') && err.contains("\\u{1b}[31m"), "{err}");
    }

    #[test]
    fn revisions_commits_and_repositories_are_checked() {
        for good in ["main", "v1.0", "refs/pr/1"] {
            assert_eq!(Revision::parse(good).unwrap().as_str(), good);
        }
        for bad in ["", "..", "../..", "/abs", "a/../../b", "main\x1b]0;t\x07"] {
            assert!(Revision::parse(bad).is_err(), "{bad:?} accepted");
        }
        let commit = "0123456789abcdef0123456789abcdef01234567";
        assert_eq!(Revision::parse(commit).unwrap().commit().unwrap().as_str(), commit);
        for bad in ["0123456789ABCDEF0123456789abcdef01234567", "../../../../../../../../../../../../../x", "main"] {
            assert!(Commit::parse(bad).is_none(), "{bad}");
        }
        assert_eq!(RepoId::parse("Org/Re.po_1-x").unwrap().folder(), "models--Org--Re.po_1-x");
        for bad in ["a", "a/b/c", "../x", "a/..", "a/.", "/a", "a/b c", "a/\x1b"] {
            assert!(RepoId::parse(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn only_a_hash_names_a_blob() {
        let sha256 = "5891B5B522D5DF086D0FF0B110FBD9D21BB4FC7163AF34D08286A2E846F6BE03";
        let b = BlobHash::from_etag(&format!("W/\"{sha256}\""), None).unwrap();
        assert_eq!((b.as_str(), b.kind()), (sha256.to_ascii_lowercase().as_str(), HashKind::Sha256));
        let sha1 = "ce013625030ba8dba906f756967f9e9ca394464a";
        assert_eq!(BlobHash::from_etag(sha1, Some(6)).unwrap().kind(), HashKind::GitSha1);
        assert!(BlobHash::from_etag(sha1, None).is_err(), "a sha1 without a size");
        assert!(BlobHash::from_etag(sha1, Some(SMALL_FILE + 1)).is_err(), "a sha1 for a big file");
        for bad in ["not-a-hash", "\"\"", "../../x", &"g".repeat(64), "abc"] {
            assert!(BlobHash::from_etag(bad, Some(1)).is_err(), "{bad}");
        }
    }
}
