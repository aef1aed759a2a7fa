//! The commands a shell command line runs, read with a bash parser (`brush-parser`), for
//! `shell(...)` rules: every simple command in every construct (lists, pipelines, `!`,
//! `{ …; }`, subshells, `if`/`elif`/`else`, `case` arms, `for`/`while`/`until` bodies,
//! function bodies, `$(…)`, backticks, process substitutions, redirections' words), and
//! the command a wrapper runs (`env`, `command`, `exec`, `nohup`, `nice`, `timeout`,
//! `sudo`, `xargs`, `find -exec`, `sh -c '…'`, `eval`, `trap`, …).
//!
//! Each command becomes a glob of its words, quotes removed and escapes resolved, with
//! what is only known when it runs (`$VAR`, `$(…)`, `~`, an unquoted `*`) as `*`: a rule
//! meets the command when some value of those would make it match. A line that cannot be
//! read with certainty (it does not parse, nests too deeply, runs a string only known when
//! it runs, a command whose name is an expansion) says why, and then meets every rule that
//! restricts.

use brush_parser::ast::{
    self, AndOr, Command, CommandPrefixOrSuffixItem, CompoundCommand, CompoundList, ExtendedTestExpr,
    IoFileRedirectTarget, IoRedirect, SimpleCommand,
};
use brush_parser::word::{WordPiece, WordPieceWithSource};
use brush_parser::{Parser, ParserOptions, SourceInfo};

use super::matchers::{Glob, Piece};

mod wrappers;

use wrappers::{watch_options, wrapper};

/// The longest command line read; a longer one is uncertain.
const MAX_LEN: usize = 64 * 1024;
/// How deeply constructs may nest (brackets, keywords, strings run by a wrapper) before a
/// line is uncertain: the parser recurses, and a thread's stack is not unbounded.
const MAX_DEPTH: usize = 48;

/// What a command line runs.
#[derive(Debug, Default)]
pub(super) struct Line {
    /// Each command, as a glob of its words; a wrapped command a second time, alone.
    pub commands: Vec<Glob>,
    /// Why the line cannot be read with certainty, if it cannot.
    pub uncertain: Option<String>,
    /// How many simple commands the line holds.
    simple: usize,
}

impl Line {
    /// Whether the line is exactly one simple command whose name is plain text.
    pub fn is_one_plain_command(&self) -> bool {
        self.uncertain.is_none() && self.simple == 1
    }

    /// Whether `glob` matches one of the commands for some value of their expansions.
    pub fn meets(&self, glob: &Glob) -> bool {
        self.commands.iter().any(|c| c.meets(glob))
    }
}

/// Reads `command` as bash would.
pub(super) fn read(command: &str) -> Line {
    let mut walker = Walker::default();
    walker.line(command, 0);
    walker.out
}

/// One word of a command: its glob pieces, and its text when it has no expansion.
#[derive(Debug, Clone)]
struct Word {
    pieces: Vec<Piece>,
    literal: Option<String>,
}

impl Word {
    fn wild() -> Word {
        Word { pieces: vec![Piece::Star], literal: None }
    }
}

#[derive(Default)]
struct Walker {
    out: Line,
}

impl Walker {
    fn uncertain(&mut self, why: impl Into<String>) {
        if self.out.uncertain.is_none() {
            self.out.uncertain = Some(why.into());
        }
    }

    /// A whole line (the call's command, or a string a command runs as one).
    fn line(&mut self, text: &str, depth: usize) {
        if text.len() > MAX_LEN {
            return self.uncertain(format!("it is longer than {MAX_LEN} bytes"));
        }
        if depth > MAX_DEPTH || nesting(text) > MAX_DEPTH {
            return self.uncertain("it nests too deeply");
        }
        let options = ParserOptions::default();
        match Parser::new(text.as_bytes(), &options, &SourceInfo::default()).parse_program() {
            Ok(program) => program.complete_commands.iter().for_each(|c| self.list(c, depth)),
            Err(e) => self.uncertain(format!("it does not parse as a shell command ({e})")),
        }
    }

    fn list(&mut self, list: &CompoundList, depth: usize) {
        for item in &list.0 {
            let and_or = &item.0;
            self.pipeline(&and_or.first, depth);
            for next in &and_or.additional {
                let (AndOr::And(p) | AndOr::Or(p)) = next;
                self.pipeline(p, depth);
            }
        }
    }

    fn pipeline(&mut self, pipeline: &ast::Pipeline, depth: usize) {
        for command in &pipeline.seq {
            match command {
                Command::Simple(simple) => self.simple(simple, depth),
                Command::Compound(compound, redirects) => {
                    self.compound(compound, depth);
                    redirects.iter().flat_map(|r| &r.0).for_each(|r| self.redirect(r, depth));
                }
                Command::Function(function) => {
                    self.compound(&function.body.0, depth);
                    function.body.1.iter().flat_map(|r| &r.0).for_each(|r| self.redirect(r, depth));
                }
                Command::ExtendedTest(test) => self.test(&test.expr, depth),
            }
        }
    }

    fn compound(&mut self, compound: &CompoundCommand, depth: usize) {
        match compound {
            CompoundCommand::Arithmetic(a) => {
                self.arithmetic(&a.expr.value);
                // The parser reads `( ( rm x ) )` (nested subshells for bash) as `((…))`:
                // what parses as commands is read as commands too.
                let text = &a.expr.value;
                let options = ParserOptions::default();
                if Parser::new(text.as_bytes(), &options, &SourceInfo::default()).parse_program().is_ok() {
                    self.line(text, depth + 1);
                }
            }
            CompoundCommand::ArithmeticForClause(f) => {
                for e in [&f.initializer, &f.condition, &f.updater].into_iter().flatten() {
                    self.arithmetic(&e.value);
                }
                self.list(&f.body.list, depth);
            }
            CompoundCommand::BraceGroup(b) => self.list(&b.list, depth),
            CompoundCommand::Subshell(s) => self.list(&s.list, depth),
            CompoundCommand::ForClause(f) => {
                f.values.iter().flatten().for_each(|w| drop(self.word(&w.value, depth)));
                self.list(&f.body.list, depth);
            }
            CompoundCommand::CaseClause(c) => {
                self.word(&c.value.value, depth);
                for item in &c.cases {
                    item.patterns.iter().for_each(|w| drop(self.word(&w.value, depth)));
                    if let Some(cmd) = &item.cmd {
                        self.list(cmd, depth);
                    }
                }
            }
            CompoundCommand::IfClause(i) => {
                self.list(&i.condition, depth);
                self.list(&i.then, depth);
                for other in i.elses.iter().flatten() {
                    if let Some(condition) = &other.condition {
                        self.list(condition, depth);
                    }
                    self.list(&other.body, depth);
                }
            }
            CompoundCommand::WhileClause(w) | CompoundCommand::UntilClause(w) => {
                self.list(&w.0, depth);
                self.list(&w.1.list, depth);
            }
        }
    }

    fn test(&mut self, expr: &ExtendedTestExpr, depth: usize) {
        match expr {
            ExtendedTestExpr::And(a, b) | ExtendedTestExpr::Or(a, b) => {
                self.test(a, depth);
                self.test(b, depth);
            }
            ExtendedTestExpr::Not(e) | ExtendedTestExpr::Parenthesized(e) => self.test(e, depth),
            ExtendedTestExpr::UnaryTest(_, w) => drop(self.word(&w.value, depth)),
            ExtendedTestExpr::BinaryTest(_, a, b) => {
                self.word(&a.value, depth);
                self.word(&b.value, depth);
            }
        }
    }

    fn arithmetic(&mut self, text: &str) {
        if text.contains("$(") || text.contains('`') {
            self.uncertain("it runs a command inside an arithmetic expression");
        }
    }

    fn redirect(&mut self, redirect: &IoRedirect, depth: usize) {
        match redirect {
            IoRedirect::File(_, _, IoFileRedirectTarget::Filename(w) | IoFileRedirectTarget::Duplicate(w))
            | IoRedirect::HereString(_, w)
            | IoRedirect::OutputAndError(w, _) => drop(self.word(&w.value, depth)),
            IoRedirect::File(_, _, IoFileRedirectTarget::ProcessSubstitution(_, s)) => self.list(&s.list, depth),
            IoRedirect::File(_, _, IoFileRedirectTarget::Fd(_)) => {}
            IoRedirect::HereDocument(_, doc) => {
                if doc.requires_expansion && (doc.doc.value.contains("$(") || doc.doc.value.contains('`')) {
                    self.uncertain("a here-document runs a command substitution");
                }
            }
        }
    }

    fn simple(&mut self, simple: &SimpleCommand, depth: usize) {
        self.out.simple += 1;
        let mut words = Vec::new();
        let prefix = simple.prefix.iter().flat_map(|p| &p.0);
        let suffix = simple.suffix.iter().flat_map(|s| &s.0);
        for item in prefix {
            match item {
                // `X=1 cmd`: the assignment is not a word of the command.
                CommandPrefixOrSuffixItem::AssignmentWord(_, w) => drop(self.word(&w.value, depth)),
                other => self.item(other, &mut words, depth),
            }
        }
        if let Some(name) = &simple.word_or_name {
            words.push(self.word(&name.value, depth));
        }
        for item in suffix {
            self.item(item, &mut words, depth);
        }
        if !words.is_empty() {
            self.command(&words, depth);
        }
    }

    fn item(&mut self, item: &CommandPrefixOrSuffixItem, words: &mut Vec<Word>, depth: usize) {
        match item {
            CommandPrefixOrSuffixItem::Word(w) | CommandPrefixOrSuffixItem::AssignmentWord(_, w) => {
                words.push(self.word(&w.value, depth));
            }
            CommandPrefixOrSuffixItem::IoRedirect(r) => self.redirect(r, depth),
            CommandPrefixOrSuffixItem::ProcessSubstitution(_, s) => {
                self.list(&s.list, depth);
                words.push(Word::wild());
            }
        }
    }

    /// A word as its glob pieces; the commands its substitutions run are read too.
    fn word(&mut self, raw: &str, depth: usize) -> Word {
        let options = ParserOptions::default();
        match brush_parser::word::parse(raw, &options) {
            Ok(pieces) => {
                let mut out = Vec::new();
                self.pieces(raw, &pieces, false, &mut out, depth);
                let literal = out
                    .iter()
                    .map(|p| match p {
                        Piece::Char(c) => Some(*c),
                        _ => None,
                    })
                    .collect();
                Word { pieces: out, literal }
            }
            Err(_) => {
                self.uncertain(format!("the word `{raw}` does not parse"));
                Word::wild()
            }
        }
    }

    fn pieces(&mut self, raw: &str, pieces: &[WordPieceWithSource], quoted: bool, out: &mut Vec<Piece>, depth: usize) {
        for p in pieces {
            match &p.piece {
                WordPiece::Text(text) if quoted => out.extend(text.chars().map(Piece::Char)),
                WordPiece::Text(text) if text.contains(['[', '{', '(']) => {
                    // A bracket or brace expansion (or an extglob) may become any words.
                    out.push(Piece::Star);
                }
                WordPiece::Text(text) => out.extend(text.chars().map(|c| match c {
                    '*' | '?' => Piece::Star,
                    c => Piece::Char(c),
                })),
                WordPiece::SingleQuotedText(text) => out.extend(text.chars().map(Piece::Char)),
                WordPiece::AnsiCQuotedText(text) if !text.contains('\\') => out.extend(text.chars().map(Piece::Char)),
                WordPiece::DoubleQuotedSequence(inner) | WordPiece::GettextDoubleQuotedSequence(inner) => {
                    self.pieces(raw, inner, true, out, depth);
                }
                WordPiece::EscapeSequence(s) => {
                    let escaped = s.strip_prefix('\\').unwrap_or(s);
                    if escaped != "\n" {
                        out.extend(escaped.chars().map(Piece::Char));
                    }
                }
                WordPiece::CommandSubstitution(inner) => {
                    self.line(inner, depth + 1);
                    out.push(Piece::Star);
                }
                WordPiece::BackquotedCommandSubstitution(inner) => {
                    self.line(&unescape_backquoted(inner), depth + 1);
                    out.push(Piece::Star);
                }
                WordPiece::ParameterExpansion(_) => {
                    let source = raw.get(p.start_index..p.end_index).unwrap_or(raw);
                    if source.contains("$(") || source.contains('`') {
                        self.uncertain("it runs a command inside a parameter expansion");
                    }
                    out.push(Piece::Star);
                }
                WordPiece::ArithmeticExpression(e) => {
                    self.arithmetic(&e.value);
                    out.push(Piece::Star);
                }
                WordPiece::AnsiCQuotedText(_) | WordPiece::TildePrefix(_) => out.push(Piece::Star),
            }
        }
    }

    /// A simple command's words (at least one): the command itself, and what it runs.
    fn command(&mut self, words: &[Word], depth: usize) {
        let Some(name) = &words[0].literal else {
            let shown: String = words[0].pieces.iter().map(|p| if let Piece::Char(c) = p { *c } else { '*' }).collect();
            self.uncertain(format!("the name of the command `{shown}` is only known when it runs"));
            return;
        };
        self.out.commands.push(joined(words));
        let base = name.rsplit('/').next().unwrap_or(name);
        if base != name && !base.is_empty() {
            // `/bin/rm x` is `rm x`.
            let mut renamed = words.to_vec();
            renamed[0] = Word { pieces: base.chars().map(Piece::Char).collect(), literal: Some(base.to_string()) };
            self.out.commands.push(joined(&renamed));
        }
        if depth > MAX_DEPTH {
            return self.uncertain("it nests too deeply");
        }
        let rest = &words[1..];
        if let Some(spec) = wrapper(base) {
            let start = spec.start(rest);
            if let Some(split) = &start.split {
                self.line(split, depth + 1);
            }
            match start.at {
                Some(i) if i < rest.len() => {
                    let mut inner = rest[i..].to_vec();
                    if base == "xargs" {
                        let replace = start.replace.as_deref().unwrap_or("{}");
                        wild_where(&mut inner[1..], |t| start.replace.is_some() && t.contains(replace));
                        inner.push(Word::wild());
                    }
                    self.command(&inner, depth + 1);
                }
                Some(_) => {}
                None => self.uncertain(format!("the command `{base}` runs is only known when it runs")),
            }
            return;
        }
        match base {
            "sh" | "bash" | "dash" | "zsh" | "ksh" | "mksh" | "ash" | "yash" | "posh" => self.shell(base, rest, depth),
            "su" => {
                // `su [user] -c '…'`, `su --command=…`.
                let mut texts = rest.iter().map(|w| w.literal.as_deref());
                while let Some(word) = texts.next() {
                    let string = match word {
                        Some("-c" | "--command") => texts.next(),
                        Some(w) => match w.strip_prefix("--command=") {
                            Some(v) => Some(Some(v)),
                            None => continue,
                        },
                        None => continue,
                    };
                    match string {
                        Some(Some(script)) => self.line(script, depth + 1),
                        Some(None) => self.uncertain("`su -c` runs a string only known when it runs"),
                        None => {}
                    }
                }
            }
            "eval" | "watch" => match rest.iter().map(|w| w.literal.clone()).collect::<Option<Vec<_>>>() {
                Some(parts) => {
                    let skip = if base == "watch" { watch_options(&parts) } else { 0 };
                    self.line(&parts[skip..].join(" "), depth + 1);
                }
                None => self.uncertain(format!("`{base}` runs a string only known when it runs")),
            },
            "trap" => match rest.iter().find(|w| w.literal.as_deref().is_none_or(|t| !t.starts_with('-'))) {
                Some(Word { literal: Some(action), .. }) => self.line(action, depth + 1),
                Some(_) => self.uncertain("`trap` runs a string only known when it runs"),
                None => {}
            },
            "alias" => {
                for value in
                    rest.iter().filter_map(|w| w.literal.as_deref()?.split_once('=').map(|(_, v)| v.to_string()))
                {
                    self.line(&value, depth + 1);
                }
            }
            "find" => self.find(rest, depth),
            _ => {}
        }
    }

    /// `sh -c '…'` reads the string; `sh` without a script reads its input, unknown here.
    fn shell(&mut self, base: &str, rest: &[Word], depth: usize) {
        let (mut runs_string, mut reads_input) = (false, false);
        let mut i = 0;
        while let Some(w) = rest.get(i) {
            let Some(text) = &w.literal else { break };
            if text == "--" || text == "-" {
                i += 1;
                break;
            }
            let (sign, letters) = match text.split_at_checked(1) {
                Some((s @ ("-" | "+"), l)) if !l.is_empty() => (s, l),
                _ => break,
            };
            if letters.starts_with('-') {
                // `--rcfile FILE`, `--init-file FILE`; other long options stand alone.
                i += if matches!(letters, "-rcfile" | "-init-file") { 2 } else { 1 };
                continue;
            }
            runs_string |= sign == "-" && letters.contains('c');
            reads_input |= sign == "-" && letters.contains('s');
            i += if letters.ends_with(['o', 'O']) { 2 } else { 1 };
        }
        match rest.get(i) {
            Some(Word { literal: Some(script), .. }) if runs_string => self.line(script, depth + 1),
            Some(_) if runs_string => self.uncertain(format!("`{base} -c` runs a string only known when it runs")),
            None => self.uncertain(format!("`{base}` reads the commands it runs from its input")),
            Some(_) if reads_input => self.uncertain(format!("`{base} -s` reads the commands it runs from its input")),
            Some(_) => {}
        }
    }

    /// `find … -exec cmd {} ;` (and `-execdir`, `-ok`, `-okdir`).
    fn find(&mut self, rest: &[Word], depth: usize) {
        let mut i = 0;
        while i < rest.len() {
            let action = rest[i].literal.as_deref();
            if matches!(action, Some("-exec" | "-execdir" | "-ok" | "-okdir")) {
                let end = rest[i + 1..]
                    .iter()
                    .position(|w| matches!(w.literal.as_deref(), Some(";" | "+")))
                    .map_or(rest.len(), |e| i + 1 + e);
                let mut inner = rest[i + 1..end].to_vec();
                if !inner.is_empty() {
                    wild_where(&mut inner[1..], |t| t.contains("{}"));
                    self.command(&inner, depth + 1);
                }
                i = end;
            }
            i += 1;
        }
    }
}

/// The words of a command, one space between them.
fn joined(words: &[Word]) -> Glob {
    let mut pieces = Vec::new();
    for (i, w) in words.iter().enumerate() {
        if i > 0 {
            pieces.push(Piece::Char(' '));
        }
        pieces.extend(w.pieces.iter().cloned());
    }
    Glob::from_pieces(pieces)
}

/// Makes `*` of the words whose text `pick` chooses (what `xargs -I` or `find` replaces).
fn wild_where(words: &mut [Word], pick: impl Fn(&str) -> bool) {
    for w in words {
        if w.literal.as_deref().is_some_and(&pick) {
            *w = Word::wild();
        }
    }
}

/// The text of a backquoted substitution as the shell reads it: `\\`, `` \` `` and `\$`
/// lose their backslash.
fn unescape_backquoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\'
            && let Some(&n @ ('\\' | '`' | '$')) = chars.peek()
        {
            out.push(n);
            chars.next();
            continue;
        }
        out.push(c);
    }
    out
}

/// How deeply `text` may nest, counted generously: brackets (quoted ones too) and the
/// keywords that open and close a construct.
fn nesting(text: &str) -> usize {
    let (mut depth, mut most) = (0usize, 0usize);
    for token in text.split(|c: char| c.is_whitespace() || c == ';' || c == '&' || c == '|') {
        let keyword = match token {
            "if" | "case" | "for" | "while" | "until" | "select" | "function" => 1,
            "fi" | "esac" | "done" => -1,
            _ => 0,
        };
        let brackets = token
            .chars()
            .map(|c| match c {
                '(' | '{' | '[' | '`' => 1,
                ')' | '}' | ']' => -1,
                _ => 0,
            })
            .collect::<Vec<i32>>();
        for step in std::iter::once(keyword).chain(brackets) {
            if step > 0 {
                depth += 1;
                most = most.max(depth);
            } else if step < 0 {
                depth = depth.saturating_sub(1);
            }
        }
    }
    most
}

#[cfg(test)]
mod tests;
