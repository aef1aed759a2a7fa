//! What a migration (`sql_migrate`) or a proposal (`schema_history save` with DDL) may
//! contain: its statements are found with [`super::lexer`] (quotes, comments and
//! dollar-quoting as each database reads them), and a statement that would end, begin or
//! step out of the one transaction the script runs in, reach another file, or change a
//! setting of the connection is refused before anything runs, naming the statement.
//!
//! This is the first wall, not the only one: the statements found here are what runs,
//! one at a time, and each database checks that each is exactly one statement (Postgres
//! prepares it, which takes one; SQLite runs with an authorizer that denies transaction
//! control, `ATTACH`, `DETACH` and `PRAGMA`, and with no database to attach). So a
//! statement this scan reads differently from the database is an error, never an escape.
//!
//! Also here: identifiers quoted for the SQL made from names, and a check that a piece of
//! SQL read from a schema (a type, a key's target, an index's columns) is one fragment.

// The names and fragments serve the SQL made from a schema, which the SQLite file's
// schema history makes; a build with Postgres alone runs migrations only.
#![cfg_attr(not(feature = "sqlite"), allow(dead_code))]

use super::SqlError;
use super::lexer::{LexError, Lexed, Rules, Token, lex};

/// Whose SQL a script is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(not(feature = "postgres"), allow(dead_code))]
pub(super) enum Dialect {
    Sqlite,
    Postgres,
}

/// The statements of `sql`, as written (without their `;`), each checked: an error names
/// the first one refused, and then nothing has run. `what` names the script in errors
/// ("the migration", "the proposed DDL").
pub(super) fn statements<'s>(sql: &'s str, dialect: Dialect, what: &str) -> Result<Vec<&'s str>, SqlError> {
    let tokens = tokenize(sql, dialect)
        .map_err(|e| SqlError::Refused(format!("{what} could not be read as SQL ({e}); nothing was run")))?;
    let mut out = Vec::new();
    for (n, statement) in split(sql, &tokens).into_iter().enumerate() {
        if let Some(why) = refused(&statement.words, dialect) {
            return Err(SqlError::Refused(format!(
                "{what} was refused at its statement {} (`{}`): {why}; nothing was run",
                n + 1,
                shown(statement.text)
            )));
        }
        out.push(statement.text);
    }
    if out.is_empty() {
        return Err(SqlError::Refused(format!("{what} has no statement; nothing was run")));
    }
    Ok(out)
}

/// `name` as a quoted identifier (`"` doubled), the same in SQLite and Postgres.
pub(super) fn ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// The words SQLite or Postgres reserve (a name that is one must be quoted), sorted.
const RESERVED: &[&str] = &[
    "ADD",
    "ALL",
    "ALTER",
    "ANALYSE",
    "ANALYZE",
    "AND",
    "ANY",
    "ARRAY",
    "AS",
    "ASC",
    "ASYMMETRIC",
    "AUTOINCREMENT",
    "BETWEEN",
    "BOTH",
    "BY",
    "CASE",
    "CAST",
    "CHECK",
    "COLLATE",
    "COLUMN",
    "COMMIT",
    "CONSTRAINT",
    "CREATE",
    "CROSS",
    "CURRENT_CATALOG",
    "CURRENT_DATE",
    "CURRENT_ROLE",
    "CURRENT_TIME",
    "CURRENT_TIMESTAMP",
    "CURRENT_USER",
    "DEFAULT",
    "DEFERRABLE",
    "DELETE",
    "DESC",
    "DISTINCT",
    "DO",
    "DROP",
    "ELSE",
    "END",
    "ESCAPE",
    "EXCEPT",
    "EXISTS",
    "FALSE",
    "FETCH",
    "FOR",
    "FOREIGN",
    "FROM",
    "FULL",
    "GRANT",
    "GROUP",
    "HAVING",
    "IN",
    "INDEX",
    "INITIALLY",
    "INNER",
    "INSERT",
    "INTERSECT",
    "INTO",
    "IS",
    "ISNULL",
    "JOIN",
    "LATERAL",
    "LEADING",
    "LEFT",
    "LIKE",
    "LIMIT",
    "LOCALTIME",
    "LOCALTIMESTAMP",
    "NATURAL",
    "NOT",
    "NOTNULL",
    "NULL",
    "OFFSET",
    "ON",
    "ONLY",
    "OR",
    "ORDER",
    "OUTER",
    "PLACING",
    "PRIMARY",
    "REFERENCES",
    "RETURNING",
    "RIGHT",
    "ROLLBACK",
    "SELECT",
    "SESSION_USER",
    "SET",
    "SOME",
    "SYMMETRIC",
    "SYSTEM_USER",
    "TABLE",
    "THEN",
    "TO",
    "TRAILING",
    "TRANSACTION",
    "TRUE",
    "UNION",
    "UNIQUE",
    "UPDATE",
    "USER",
    "USING",
    "VALUES",
    "VARIADIC",
    "WHEN",
    "WHERE",
    "WINDOW",
    "WITH",
];

/// `name` as written in a schema listing: bare when it is a plain word that neither
/// SQLite nor Postgres reserves, else quoted, so the listing reads as the SQL that made it.
pub(super) fn ident_if_needed(name: &str) -> String {
    let plain = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && RESERVED.binary_search(&name.to_ascii_uppercase().as_str()).is_err();
    if plain { name.to_string() } else { ident(name) }
}

/// Whether `sql` is one fragment of a statement: it reads as SQL, ends no statement, has
/// no comment and closes every parenthesis it opens (a type, `table(column)`, an index's
/// `(columns)`).
pub(super) fn is_fragment(sql: &str) -> bool {
    let Ok(tokens) = lex(sql, Rules::Postgres) else { return false };
    let mut depth = 0usize;
    for t in tokens {
        match t.token {
            Token::SemiColon | Token::Comment => return false,
            Token::LParen => depth += 1,
            Token::RParen => match depth.checked_sub(1) {
                Some(d) => depth = d,
                None => return false,
            },
            _ => {}
        }
    }
    depth == 0
}

/// The dotted parts of a name written as SQL (`main.t`, `"my schema"."t"`), unquoted, and
/// the rest of the text after them; `None` when it starts with no name.
pub(super) fn leading_name(sql: &str) -> Option<(Vec<String>, &str)> {
    let tokens = lex(sql, Rules::Postgres).ok()?;
    let mut parts = Vec::new();
    let mut end = 0;
    let mut want_word = true;
    for t in &tokens {
        match (&t.token, want_word) {
            (Token::Word { value, .. }, true) => {
                parts.push(value.clone());
                end = t.end;
                want_word = false;
            }
            (Token::Period, false) => want_word = true,
            (Token::Space, _) if parts.is_empty() => {}
            _ => break,
        }
    }
    (!parts.is_empty()).then(|| (parts, &sql[end..]))
}

fn tokenize(sql: &str, dialect: Dialect) -> Result<Vec<Lexed>, LexError> {
    lex(
        sql,
        match dialect {
            Dialect::Sqlite => Rules::Sqlite,
            Dialect::Postgres => Rules::Postgres,
        },
    )
}

/// One statement: its text and its first words (unquoted keywords upper-cased; anything
/// else as an empty word), enough to classify it.
struct Found<'s> {
    text: &'s str,
    words: Vec<String>,
}

/// How many leading words classify a statement; `CONCURRENTLY` is looked for in all.
const LEADING: usize = 4;

/// Splits at each `;` that ends a statement: not inside parentheses (a Postgres rule's
/// actions), nor inside the `BEGIN … END` body of a SQLite trigger or a Postgres
/// `BEGIN ATOMIC` function (where `CASE … END` nests).
fn split<'s>(sql: &'s str, tokens: &[Lexed]) -> Vec<Found<'s>> {
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    let mut words: Vec<String> = Vec::new();
    let mut concurrently = false;
    let (mut parens, mut blocks) = (0usize, 0usize);
    let mut end = 0;
    for t in tokens {
        match &t.token {
            Token::Space | Token::Comment => continue,
            Token::SemiColon if parens == 0 && blocks == 0 => {
                if let Some(s) = start.take() {
                    out.push(found(&sql[s..end], std::mem::take(&mut words), concurrently));
                }
                concurrently = false;
                continue;
            }
            _ => {}
        }
        if start.is_none() {
            start = Some(t.start);
        }
        end = t.end;
        let word = match &t.token {
            Token::Word { value, quoted: false } => value.to_ascii_uppercase(),
            _ => String::new(),
        };
        match t.token {
            Token::LParen => parens += 1,
            Token::RParen => parens = parens.saturating_sub(1),
            _ => {}
        }
        if word == "CONCURRENTLY" {
            concurrently = true;
        }
        if has_body(&words) {
            match word.as_str() {
                "BEGIN" => blocks += 1,
                "CASE" if blocks > 0 => blocks += 1,
                "END" if blocks > 0 => blocks -= 1,
                _ => {}
            }
        }
        if words.len() < LEADING {
            words.push(word);
        }
    }
    if let Some(s) = start {
        out.push(found(&sql[s..end], words, concurrently));
    }
    out
}

fn found(text: &str, mut words: Vec<String>, concurrently: bool) -> Found<'_> {
    if concurrently {
        words.push("CONCURRENTLY".into());
    }
    Found { text, words }
}

/// A statement whose body may hold `;`: `CREATE [TEMP] TRIGGER` (SQLite) and `CREATE [OR
/// REPLACE] FUNCTION | PROCEDURE` (Postgres' `BEGIN ATOMIC`).
fn has_body(words: &[String]) -> bool {
    let w: Vec<&str> = words.iter().map(String::as_str).collect();
    matches!(
        w.as_slice(),
        ["CREATE", "TRIGGER", ..]
            | ["CREATE", "TEMP" | "TEMPORARY", "TRIGGER", ..]
            | ["CREATE", "FUNCTION" | "PROCEDURE", ..]
            | ["CREATE", "OR", "REPLACE", "FUNCTION" | "PROCEDURE", ..]
    )
}

/// Why a statement is refused, by its first words; `None` when it may run.
fn refused(words: &[String], dialect: Dialect) -> Option<&'static str> {
    const TRANSACTION: &str = "the script runs in one transaction, which it may not begin, end or step out of \
                               (BEGIN, START, COMMIT, END, ROLLBACK, ABORT, SAVEPOINT, RELEASE, PREPARE TRANSACTION)";
    let w: Vec<&str> = words.iter().map(String::as_str).collect();
    let first = w.first().copied().unwrap_or("");
    match first {
        "BEGIN" | "START" | "COMMIT" | "END" | "ROLLBACK" | "ABORT" | "SAVEPOINT" | "RELEASE" => {
            return Some(TRANSACTION);
        }
        "PREPARE" if w.get(1) == Some(&"TRANSACTION") => return Some(TRANSACTION),
        "VACUUM" => return Some("VACUUM cannot run in a transaction, and VACUUM INTO writes a file"),
        _ => {}
    }
    match dialect {
        Dialect::Sqlite => match first {
            "ATTACH" | "DETACH" => Some("ATTACH and DETACH reach other database files"),
            "PRAGMA" => Some("a PRAGMA changes the connection or the file, not the schema"),
            _ => None,
        },
        Dialect::Postgres => {
            let pair = (first, w.get(1).copied().unwrap_or(""));
            match pair {
                _ if w.contains(&"CONCURRENTLY") => {
                    Some("CONCURRENTLY cannot run in a transaction; run it outside the migration tool")
                }
                ("CREATE" | "DROP" | "ALTER", "DATABASE" | "TABLESPACE" | "SUBSCRIPTION") | ("ALTER", "SYSTEM") => {
                    Some("databases, tablespaces, subscriptions and server settings are not a migration's to change")
                }
                ("REINDEX", "DATABASE" | "SYSTEM") | ("CLUSTER" | "CHECKPOINT" | "DISCARD" | "LOAD", _) => {
                    Some("this statement cannot run in a transaction or reaches beyond the database's schema")
                }
                ("COPY", _) => {
                    Some("COPY reads or writes files and programs of the server; move data with INSERT … SELECT")
                }
                _ => None,
            }
        }
    }
}

/// The first line of a statement, cut, for an error.
fn shown(text: &str) -> String {
    let line = text.lines().next().unwrap_or("").trim();
    let cut: String = line.chars().take(80).collect();
    if cut.len() < text.trim().len() { format!("{cut}…") } else { cut }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(sql: &str, dialect: Dialect) -> Result<Vec<&str>, String> {
        statements(sql, dialect, "the migration").map_err(|e| e.to_string())
    }

    #[test]
    fn statements_are_split_where_the_database_splits_them() {
        let sql = "CREATE TABLE a (x TEXT DEFAULT ';'); -- a comment; COMMIT;\n\
                   INSERT INTO a VALUES ('it''s; fine') /* COMMIT; */ ;;\n\
                   CREATE TRIGGER t AFTER INSERT ON a BEGIN UPDATE a SET x = CASE WHEN 1 THEN 'y' END; DELETE FROM a; END;\n\
                   CREATE TABLE \"COMMIT; x\" (y)";
        assert_eq!(
            texts(sql, Dialect::Sqlite).unwrap(),
            [
                "CREATE TABLE a (x TEXT DEFAULT ';')",
                "INSERT INTO a VALUES ('it''s; fine')",
                "CREATE TRIGGER t AFTER INSERT ON a BEGIN UPDATE a SET x = CASE WHEN 1 THEN 'y' END; DELETE FROM a; END",
                "CREATE TABLE \"COMMIT; x\" (y)",
            ]
        );
        let pg = "CREATE FUNCTION f() RETURNS int LANGUAGE plpgsql AS $body$ BEGIN COMMIT; RETURN 1; END $body$;\n\
                  CREATE FUNCTION g() RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT 1; SELECT CASE WHEN true THEN 2 END; END;\n\
                  SELECT 'é' || E'\\'; COMMIT'";
        let found = texts(pg, Dialect::Postgres).unwrap();
        assert_eq!(found.len(), 3, "{found:?}");
        assert!(found[1].ends_with("END; END"), "{found:?}");
        assert_eq!(found[2], "SELECT 'é' || E'\\'; COMMIT'");
    }

    #[test]
    fn what_ends_the_transaction_or_reaches_a_file_is_refused_by_name() {
        for (sql, dialect) in [
            ("CREATE TABLE a(x); COMMIT; CREATE TABLE b(", Dialect::Sqlite),
            ("CREATE TABLE a(x);\n  end", Dialect::Sqlite),
            ("ATTACH '/tmp/x.db' AS x", Dialect::Sqlite),
            ("VACUUM INTO '/tmp/x.db'", Dialect::Sqlite),
            ("pragma journal_mode = off", Dialect::Sqlite),
            ("SAVEPOINT s", Dialect::Sqlite),
            ("CREATE INDEX CONCURRENTLY i ON t (x)", Dialect::Postgres),
            ("PREPARE TRANSACTION 'x'", Dialect::Postgres),
            ("COPY t TO '/tmp/x'", Dialect::Postgres),
            ("CREATE TABLE a (x int); ROLLBACK", Dialect::Postgres),
        ] {
            let err = texts(sql, dialect).unwrap_err();
            assert!(err.contains("was refused at its statement") && err.ends_with("nothing was run"), "{sql}: {err}");
        }
        let err = texts("CREATE TABLE a(x); COMMIT; CREATE TABLE b(", Dialect::Sqlite).unwrap_err();
        assert!(err.contains("statement 2 (`COMMIT`)"), "{err}");
        assert!(texts("  -- only a comment\n;", Dialect::Sqlite).unwrap_err().contains("no statement"));
        assert!(texts("SELECT 'unclosed", Dialect::Sqlite).unwrap_err().contains("could not be read"));
    }

    #[test]
    fn names_are_quoted_and_fragments_checked() {
        assert_eq!(ident("x\"; DROP TABLE y; --"), "\"x\"\"; DROP TABLE y; --\"");
        assert_eq!(ident_if_needed("city_name"), "city_name");
        assert_eq!(ident_if_needed("order"), "\"order\"");
        assert_eq!(ident_if_needed("a b"), "\"a b\"");
        assert!(is_fragment("numeric(10, 2)") && is_fragment("\"a;b\"(\"c\")"));
        assert!(!is_fragment("x); DROP TABLE y; --") && !is_fragment("INT) , b (") && !is_fragment("a -- b"));
        let (parts, rest) = leading_name("\"my.schema\".\"i x\" unique (a)").unwrap();
        assert_eq!((parts, rest), (vec!["my.schema".to_string(), "i x".to_string()], " unique (a)"));
    }
}
