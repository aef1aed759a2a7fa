//! What a permission rule compares: globs (and whether two globs can match one text),
//! normalised paths, SQL statement kinds. Plain text functions, no I/O, but for
//! [`real_path`], which follows a path's links on the disk.

use std::path::{Component, Path};

/// The characters that make a shell command more than one simple command, or let it run
/// another one: `;` `&` `|` (sequences, `&&`, `||`, pipes, background), `` ` `` and `$`
/// (substitution, expansion), `(` `)` (subshells), `<` `>` (redirections, process
/// substitution) and line breaks. A command holding one (even quoted) meets no allow rule.
pub(super) const SHELL_OPERATORS: &[char] = &[';', '&', '|', '`', '$', '(', ')', '<', '>', '\n', '\r', '\0'];

/// One piece of a glob.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Piece {
    Char(char),
    /// `?`: one character (not `/` in a path glob).
    One,
    /// `*`: any run of characters (not `/` in a path glob).
    Star,
    /// `**` in a path glob: any run of characters, `/` included.
    Deep,
}

/// A glob: `*` any run of characters, `?` one character, `\*` `\?` `\\` those characters
/// themselves (any other `\` is itself). In a path glob `*` and `?` stop at `/` and `**`
/// crosses folders.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Glob {
    pieces: Vec<Piece>,
    path: bool,
}

impl Glob {
    pub fn new(pattern: &str, path: bool) -> Glob {
        let mut pieces = Vec::new();
        let mut chars = pattern.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\\' => match chars.peek() {
                    Some(&e @ ('*' | '?' | '\\')) => {
                        chars.next();
                        pieces.push(Piece::Char(e));
                    }
                    _ => pieces.push(Piece::Char('\\')),
                },
                '*' if path && chars.peek() == Some(&'*') => {
                    chars.next();
                    pieces.push(Piece::Deep);
                }
                '*' => pieces.push(Piece::Star),
                '?' => pieces.push(Piece::One),
                c => pieces.push(Piece::Char(c)),
            }
        }
        Glob { pieces, path }
    }

    /// A command glob made of these pieces.
    pub fn from_pieces(pieces: Vec<Piece>) -> Glob {
        Glob { pieces, path: false }
    }

    /// Whether some text matches both globs (command globs: `*` and `?` cross `/`). A
    /// shell command whose expansions are `*` meets a rule when one value of them would
    /// make the rule match.
    pub fn meets(&self, other: &Glob) -> bool {
        let (a, b) = (&self.pieces, &other.pieces);
        let width = b.len() + 1;
        let mut seen = vec![false; (a.len() + 1) * width];
        let mut todo = vec![(0usize, 0usize)];
        let star = |p: Option<&Piece>| matches!(p, Some(Piece::Star | Piece::Deep));
        while let Some((i, j)) = todo.pop() {
            if std::mem::replace(&mut seen[i * width + j], true) {
                continue;
            }
            if i == a.len() && j == b.len() {
                return true;
            }
            let (pa, pb) = (a.get(i), b.get(j));
            if star(pa) {
                todo.push((i + 1, j));
            }
            if star(pb) {
                todo.push((i, j + 1));
            }
            let (Some(pa), Some(pb)) = (pa, pb) else { continue };
            if let (Piece::Char(x), Piece::Char(y)) = (pa, pb)
                && x != y
            {
                continue;
            }
            // One character read by both; a star stays where it is.
            let (ni, nj) = (if star(Some(pa)) { i } else { i + 1 }, if star(Some(pb)) { j } else { j + 1 });
            if (ni, nj) != (i, j) {
                todo.push((ni, nj));
            }
        }
        false
    }

    /// Whether the whole of `text` matches.
    pub fn matches(&self, text: &str) -> bool {
        let text: Vec<char> = text.chars().collect();
        // can[j]: the pieces so far match text[..j].
        let mut can = vec![false; text.len() + 1];
        can[0] = true;
        for piece in &self.pieces {
            let mut next = vec![false; text.len() + 1];
            match piece {
                Piece::Star | Piece::Deep => {
                    let crosses = *piece == Piece::Deep || !self.path;
                    for j in 0..=text.len() {
                        next[j] = can[j] || (j > 0 && next[j - 1] && (crosses || text[j - 1] != '/'));
                    }
                }
                Piece::One => {
                    for j in 1..=text.len() {
                        next[j] = can[j - 1] && !(self.path && text[j - 1] == '/');
                    }
                }
                Piece::Char(c) => {
                    for j in 1..=text.len() {
                        next[j] = can[j - 1] && text[j - 1] == *c;
                    }
                }
            }
            can = next;
        }
        can[text.len()]
    }
}

/// `text` as a glob matching exactly itself.
pub(super) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '*' | '?' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A command with its runs of spaces and tabs made one space, trimmed.
pub(super) fn squeeze(command: &str) -> String {
    command.split([' ', '\t']).filter(|w| !w.is_empty()).collect::<Vec<_>>().join(" ")
}

/// Whether `command` is one simple command: none of [`SHELL_OPERATORS`], even quoted.
pub(super) fn is_simple(command: &str) -> bool {
    !command.contains(SHELL_OPERATORS)
}

/// A relative path with `.` and `a/..` resolved and `/` between its parts; `None` when it
/// is absolute or climbs above where it starts (`../x`, `a/../../x`).
pub(super) fn normal_path(raw: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for c in Path::new(raw).components() {
        match c {
            Component::Normal(p) => parts.push(p.to_str()?),
            Component::CurDir => {}
            Component::ParentDir => {
                parts.pop()?;
            }
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(if parts.is_empty() { ".".to_string() } else { parts.join("/") })
}

/// Where `relative` (a [`normal_path`]) really is under `root`, its symbolic links
/// followed (for a path that does not exist yet, those of its longest existing prefix), as
/// a [`normal_path`] from the root's real place; `None` when that cannot be resolved (a
/// dangling link, an unreadable folder) or leads outside the root.
pub(super) fn real_path(root: &Path, relative: &str) -> Option<String> {
    let root = std::fs::canonicalize(root).ok()?;
    let joined = root.join(relative);
    // The longest prefix that exists as an entry (`symlink_metadata` does not follow a
    // link, so a dangling one is found, and refused by `canonicalize` below).
    let mut existing = joined.as_path();
    let mut rest = Vec::new();
    loop {
        match std::fs::symlink_metadata(existing) {
            Ok(_) => break,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(_) => return None,
        }
        rest.push(existing.file_name()?);
        existing = existing.parent()?;
    }
    let mut real = std::fs::canonicalize(existing).ok()?;
    real.extend(rest.into_iter().rev());
    normal_path(real.strip_prefix(&root).ok()?.to_str()?)
}

/// What a SQL statement does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SqlKind {
    /// Reads: `SELECT`, `WITH … SELECT`, `EXPLAIN`, `SHOW`, `VALUES`, `TABLE`, `DESCRIBE`.
    Read,
    /// Changes rows: `INSERT`, `UPDATE`, `DELETE`, `MERGE`, `REPLACE`, `UPSERT`, `COPY`.
    Write,
    /// Changes the schema or rights: `CREATE`, `ALTER`, `DROP`, `TRUNCATE`, `RENAME`,
    /// `COMMENT`, `GRANT`, `REVOKE`.
    Ddl,
}

impl SqlKind {
    /// The word of a rule: `read`, `write`, `ddl`.
    pub fn as_str(self) -> &'static str {
        match self {
            SqlKind::Read => "read",
            SqlKind::Write => "write",
            SqlKind::Ddl => "ddl",
        }
    }

    pub(super) fn parse(word: &str) -> Option<SqlKind> {
        match word.trim().to_ascii_lowercase().as_str() {
            "read" => Some(SqlKind::Read),
            "write" => Some(SqlKind::Write),
            "ddl" => Some(SqlKind::Ddl),
            _ => None,
        }
    }
}

const WRITE_WORDS: &[&str] = &["insert", "update", "delete", "merge", "replace", "upsert", "copy"];
const DDL_WORDS: &[&str] = &["create", "alter", "drop", "truncate", "rename", "comment", "grant", "revoke"];
const READ_WORDS: &[&str] = &["select", "with", "explain", "show", "values", "table", "describe", "desc"];

/// The kind of each statement of `sql` (split at `;` outside quotes and comments); `None`
/// for a statement of no known kind (`CALL`, `DO`, `PRAGMA`, `SET`, …). A statement is a
/// read only when no word of a write or a schema change appears anywhere in it (outside
/// quotes): `WITH d AS (DELETE …) SELECT …` is a write.
pub(super) fn sql_kinds(sql: &str) -> Vec<Option<SqlKind>> {
    let mut out = Vec::new();
    for words in sql_statements(sql) {
        let Some(first) = words.first() else { continue };
        let has = |set: &[&str]| words.iter().any(|w| set.contains(&w.as_str()));
        let kind = if DDL_WORDS.contains(&first.as_str()) || (first != "comment" && has(DDL_WORDS)) {
            Some(SqlKind::Ddl)
        } else if WRITE_WORDS.contains(&first.as_str()) || has(WRITE_WORDS) {
            Some(SqlKind::Write)
        } else if READ_WORDS.contains(&first.as_str()) {
            Some(SqlKind::Read)
        } else {
            None
        };
        out.push(kind);
    }
    out
}

/// The lower-cased words of each statement, quoted text and comments left out.
fn sql_statements(sql: &str) -> Vec<Vec<String>> {
    let mut statements = vec![Vec::new()];
    let mut word = String::new();
    let mut chars = sql.chars().peekable();
    let flush = |word: &mut String, statements: &mut Vec<Vec<String>>| {
        if !word.is_empty()
            && let Some(s) = statements.last_mut()
        {
            s.push(std::mem::take(word).to_ascii_lowercase());
        }
    };
    while let Some(c) = chars.next() {
        match c {
            '\'' | '"' | '`' => {
                flush(&mut word, &mut statements);
                for q in chars.by_ref() {
                    if q == c {
                        break;
                    }
                }
            }
            '-' if chars.peek() == Some(&'-') => {
                flush(&mut word, &mut statements);
                for n in chars.by_ref() {
                    if n == '\n' {
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                flush(&mut word, &mut statements);
                chars.next();
                let mut last = ' ';
                for n in chars.by_ref() {
                    if last == '*' && n == '/' {
                        break;
                    }
                    last = n;
                }
            }
            ';' => {
                flush(&mut word, &mut statements);
                statements.push(Vec::new());
            }
            c if c.is_alphanumeric() || c == '_' => word.push(c),
            _ => flush(&mut word, &mut statements),
        }
    }
    flush(&mut word, &mut statements);
    statements.retain(|s| !s.is_empty());
    statements
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_whole_texts_and_path_globs_stop_at_slashes() {
        let g = Glob::new("cargo test*", false);
        assert!(g.matches("cargo test") && g.matches("cargo test --lib a/b"));
        assert!(!g.matches("cargo tes") && !g.matches("xcargo test"));
        let p = Glob::new("src/*.rs", true);
        assert!(p.matches("src/lib.rs") && !p.matches("src/a/lib.rs"));
        let deep = Glob::new("src/**", true);
        assert!(deep.matches("src/a/b/c.rs") && deep.matches("src/x") && !deep.matches("srcx/a"));
        assert!(Glob::new("a\\*b", false).matches("a*b") && !Glob::new("a\\*b", false).matches("axb"));
        assert!(Glob::new(&escape("ls *.rs \\ ?"), false).matches("ls *.rs \\ ?"));
        assert!(!Glob::new(&escape("ls *.rs"), false).matches("ls main.rs"));
    }

    #[test]
    fn commands_with_an_operator_are_not_simple() {
        for compound in ["a; b", "a && b", "a || b", "a | b", "a & b", "a $(b)", "a `b`", "a\nb", "a > f", "(a)"] {
            assert!(!is_simple(compound), "{compound}");
        }
        assert!(is_simple("cargo test --lib -- 'x y'"));
    }

    #[test]
    fn two_globs_meet_when_one_text_matches_both() {
        let g = |p: &str| Glob::new(p, false);
        assert!(g("rm *").meets(&g("* x")), "`rm x`");
        assert!(g("git push *").meets(&g("git * --force")));
        assert!(g("a?c").meets(&g("*b*")) && g("*").meets(&g("")));
        assert!(!g("rm *").meets(&g("ls *")) && !g("git push").meets(&g("git pull*")));
        assert!(!g("a?").meets(&g("abc")) && !g("").meets(&g("?")));
    }

    #[test]
    fn paths_are_normalised_and_escapes_refused() {
        assert_eq!(normal_path("./src//a/../b.rs").as_deref(), Some("src/b.rs"));
        assert_eq!(normal_path(".").as_deref(), Some("."));
        for escaping in ["../x", "a/../../x", "/etc/passwd"] {
            assert_eq!(normal_path(escaping), None, "{escaping}");
        }
    }

    #[test]
    fn sql_statements_get_their_kind() {
        use SqlKind::*;
        assert_eq!(sql_kinds("SELECT 1"), [Some(Read)]);
        assert_eq!(sql_kinds("select 'drop table x' -- delete\n from t"), [Some(Read)]);
        assert_eq!(sql_kinds("WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d"), [Some(Write)]);
        assert_eq!(sql_kinds("SELECT 1; DROP TABLE t"), [Some(Read), Some(Ddl)]);
        assert_eq!(sql_kinds("update t set a = 1 /* select */"), [Some(Write)]);
        assert_eq!(sql_kinds("PRAGMA writable_schema = 1"), [None]);
        assert_eq!(sql_kinds("COMMENT ON TABLE t IS 'x'"), [Some(Ddl)]);
    }
}
