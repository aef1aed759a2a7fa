//! SQL read as far as the guard needs it: words (quoted names unquoted), `;`, parentheses
//! and periods, with strings, quoted names and comments recognised as each database reads
//! them, so that a `;` or a keyword inside one is never taken for a statement's.
//!
//! What each database reads, and this lexer too: `'…'` strings with `''` (Postgres'
//! `E'…'` with backslash escapes, `$tag$…$tag$` dollar quotes), `"…"` names with `""`
//! (SQLite's `` `…` `` and `[…]` as well), `--` line comments and `/* */` block comments
//! (nested in Postgres). Anything left open (a string, a name, a comment) is an error, so
//! a script this lexer cannot read to its end is refused, not guessed at. Everything else
//! is one `Other` character at a time: the guard looks at statements' first words only.
//!
//! (A full SQL parser such as `sqlparser` reads the same, but its tokenizer takes its
//! dialect as a trait object whose methods reach the whole parser: 1.3 MB in `lucid`.)

use std::fmt;

/// One piece of SQL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Token {
    /// A keyword or a name; a quoted name unquoted (`"a""b"` is `a"b`), with `quoted` set.
    Word {
        value: String,
        quoted: bool,
    },
    SemiColon,
    LParen,
    RParen,
    Period,
    /// A `--` or `/* */` comment.
    Comment,
    /// Spaces, tabs and line breaks.
    Space,
    /// A string, a number or an operator character.
    Other,
}

/// A token and where it stands in the text (byte offsets, `end` exclusive).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Lexed {
    pub token: Token,
    pub start: usize,
    pub end: usize,
}

/// Something left open at the end of the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct LexError {
    what: &'static str,
    at: usize,
}

impl fmt::Display for LexError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} opened at byte {} is not closed", self.what, self.at)
    }
}

/// Whose rules: SQLite's (backtick and bracket names, flat comments) or Postgres'
/// (`E'…'`, dollar quotes, nested comments, `$` inside names).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Rules {
    Sqlite,
    Postgres,
}

/// The tokens of `sql`, in order, covering all of it.
pub(super) fn lex(sql: &str, rules: Rules) -> Result<Vec<Lexed>, LexError> {
    let bytes = sql.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let start = i;
        let c = sql[i..].chars().next().unwrap_or(' ');
        let next = bytes.get(i + 1).copied();
        let token = match c {
            c if c.is_whitespace() => {
                i = skip_while(sql, i, char::is_whitespace);
                Token::Space
            }
            '-' if next == Some(b'-') => {
                i = sql[i..].find('\n').map_or(bytes.len(), |n| i + n + 1);
                Token::Comment
            }
            '/' if next == Some(b'*') => {
                i = block_comment(bytes, i, rules == Rules::Postgres)?;
                Token::Comment
            }
            '\'' => {
                i = quoted(bytes, i, b'\'', "a string")?;
                Token::Other
            }
            'e' | 'E' if rules == Rules::Postgres && next == Some(b'\'') && !continues_word(&out, start) => {
                i = escaped_string(bytes, i + 1)?;
                Token::Other
            }
            '"' => {
                i = quoted(bytes, i, b'"', "a quoted name")?;
                Token::Word { value: sql[start + 1..i - 1].replace("\"\"", "\""), quoted: true }
            }
            '`' if rules == Rules::Sqlite => {
                i = quoted(bytes, i, b'`', "a quoted name")?;
                Token::Word { value: sql[start + 1..i - 1].replace("``", "`"), quoted: true }
            }
            '[' if rules == Rules::Sqlite => {
                let close = sql[i..].find(']').ok_or(LexError { what: "a bracketed name", at: i })?;
                i += close + 1;
                Token::Word { value: sql[start + 1..i - 1].to_string(), quoted: true }
            }
            '$' if rules == Rules::Postgres => match dollar_tag(sql, i) {
                Some(tag) => {
                    let body = i + tag.len();
                    let close = sql[body..].find(tag).ok_or(LexError { what: "a dollar-quoted string", at: i })?;
                    i = body + close + tag.len();
                    Token::Other
                }
                None => {
                    i += 1;
                    Token::Other
                }
            },
            c if c.is_alphabetic() || c == '_' => {
                let dollar = rules == Rules::Postgres;
                i = skip_while(sql, i, |c| c.is_alphanumeric() || c == '_' || (dollar && c == '$'));
                Token::Word { value: sql[start..i].to_string(), quoted: false }
            }
            c if c.is_ascii_digit() => {
                i = skip_while(sql, i, |c| c.is_alphanumeric() || c == '_' || c == '.');
                Token::Other
            }
            ';' | '(' | ')' | '.' => {
                i += 1;
                match c {
                    ';' => Token::SemiColon,
                    '(' => Token::LParen,
                    ')' => Token::RParen,
                    _ => Token::Period,
                }
            }
            c => {
                i += c.len_utf8();
                Token::Other
            }
        };
        out.push(Lexed { token, start, end: i });
    }
    Ok(out)
}

/// Whether a token starting at `at` would continue the word just before it (`typE'x'` is
/// no `E'…'` string: the word reads on).
fn continues_word(out: &[Lexed], at: usize) -> bool {
    out.last().is_some_and(|t| t.end == at && matches!(t.token, Token::Word { quoted: false, .. }))
}

fn skip_while(sql: &str, from: usize, keep: impl Fn(char) -> bool) -> usize {
    sql[from..].char_indices().find(|&(_, c)| !keep(c)).map_or(sql.len(), |(n, _)| from + n)
}

/// The end of a `q…q` run opened at `from`, `qq` standing for one `q` inside.
fn quoted(bytes: &[u8], from: usize, q: u8, what: &'static str) -> Result<usize, LexError> {
    let mut i = from + 1;
    loop {
        match bytes.get(i) {
            None => return Err(LexError { what, at: from }),
            Some(&b) if b == q && bytes.get(i + 1) == Some(&q) => i += 2,
            Some(&b) if b == q => return Ok(i + 1),
            Some(_) => i += 1,
        }
    }
}

/// The end of Postgres' `E'…'` whose quote is at `from`: `\` escapes the next byte, `''`
/// is a quote.
fn escaped_string(bytes: &[u8], from: usize) -> Result<usize, LexError> {
    let mut i = from + 1;
    loop {
        match bytes.get(i) {
            None => return Err(LexError { what: "an E'…' string", at: from - 1 }),
            Some(b'\\') => i += 2,
            Some(b'\'') if bytes.get(i + 1) == Some(&b'\'') => i += 2,
            Some(b'\'') => return Ok(i + 1),
            Some(_) => i += 1,
        }
    }
}

/// The end of a block comment opened at `from`; Postgres nests them, SQLite does not.
fn block_comment(bytes: &[u8], from: usize, nested: bool) -> Result<usize, LexError> {
    let mut depth = 1usize;
    let mut i = from + 2;
    while i < bytes.len() {
        match (bytes[i], bytes.get(i + 1)) {
            (b'*', Some(b'/')) => {
                depth -= 1;
                i += 2;
                if depth == 0 {
                    return Ok(i);
                }
            }
            (b'/', Some(b'*')) if nested => {
                depth += 1;
                i += 2;
            }
            _ => i += 1,
        }
    }
    Err(LexError { what: "a comment", at: from })
}

/// The `$tag$` opening a dollar-quoted string at `from` (`$$` included), or `None` for a
/// `$` that opens none (a parameter such as `$1`).
fn dollar_tag(sql: &str, from: usize) -> Option<&str> {
    let rest = &sql[from + 1..];
    let first = rest.chars().next()?;
    if first == '$' {
        return Some(&sql[from..from + 2]);
    }
    if !(first.is_alphabetic() || first == '_') {
        return None;
    }
    let len = rest.char_indices().find(|&(_, c)| !(c.is_alphanumeric() || c == '_')).map(|(n, _)| n)?;
    rest[len..].starts_with('$').then(|| &sql[from..from + 1 + len + 1])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(sql: &str, rules: Rules) -> Vec<String> {
        lex(sql, rules)
            .unwrap()
            .into_iter()
            .filter_map(|t| match t.token {
                Token::Word { value, .. } => Some(value),
                Token::SemiColon => Some(";".into()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn strings_names_and_comments_hide_what_they_hold() {
        let sql = "CREATE TABLE \"a;\"\"b\" (x TEXT DEFAULT 'it''s; COMMIT'); -- COMMIT;\n/* COMMIT; */ SELECT 1";
        assert_eq!(words(sql, Rules::Sqlite), ["CREATE", "TABLE", "a;\"b", "x", "TEXT", "DEFAULT", ";", "SELECT"]);
        assert_eq!(words("SELECT [a;b], `c;d`", Rules::Sqlite), ["SELECT", "a;b", "c;d"]);
        let pg = "SELECT E'\\'; COMMIT', $f$ COMMIT; $f$, $$;$$, $1; /* a /* b */ COMMIT; */ SELECT a$b";
        assert_eq!(words(pg, Rules::Postgres), ["SELECT", ";", "SELECT", "a$b"]);
        // In SQLite a backslash escapes nothing and comments do not nest.
        assert_eq!(words("SELECT 'a\\'; /* /* */ X", Rules::Sqlite), ["SELECT", ";", "X"]);
    }

    #[test]
    fn spans_cover_the_text_and_what_is_left_open_is_an_error() {
        let sql = "é (x).y;";
        let tokens = lex(sql, Rules::Postgres).unwrap();
        assert_eq!(tokens.first().unwrap().start, 0);
        assert_eq!(tokens.last().unwrap().end, sql.len());
        assert!(tokens.windows(2).all(|w| w[0].end == w[1].start));
        for open in ["'x", "\"x", "/* x", "$a$ x", "E'\\'"] {
            assert!(lex(open, Rules::Postgres).is_err(), "{open}");
        }
        for open in ["`x", "[x", "/* x"] {
            assert!(lex(open, Rules::Sqlite).is_err(), "{open}");
        }
        assert!(lex("typE'x'", Rules::Postgres).is_ok());
    }
}
