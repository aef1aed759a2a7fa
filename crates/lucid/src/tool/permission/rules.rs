//! Permission rules by argument: `shell(cargo test*)`, `write_file(src/**)`,
//! `sql_query(read)`, `github__create_issue(repo=me/*)`.
//!
//! A rule is a permission (allow, ask, deny), a tool-name glob and, in parentheses, what
//! the call's arguments must be. What the parentheses hold depends on the tool:
//!
//! | tool | pattern | matches |
//! |---|---|---|
//! | `shell` | a glob of the command (`cargo test*`; `git status:*` is `git status` alone or followed by arguments) | the `command`, runs of spaces made one |
//! | `read_file`, `write_file`, `edit_file`, `list_dir`, `search_files` | a path glob (`src/**`, `docs/*.md`) | the `path`, normalised (`./a//b/../c` is `a/c`) |
//! | `sql_query`, `sql_schema` (any `sql_*`) | statement kinds: `read`, `write`, `ddl`, comma-separated | each statement of the `sql` |
//! | any other (MCP tools: `server__tool`) | `name=glob`, comma-separated (`\,` for a comma) | the named arguments (a non-text value as its JSON) |
//!
//! A rule that restricts (deny, ask) and one that permits (allow) read a call
//! differently, so that neither can be slipped past:
//!
//! - **shell**: the command is read as bash reads it (a parser, not a split at
//!   operators). A deny or ask rule matches when the whole command *or any command it
//!   runs* matches: every simple command in lists, pipelines, `!`, `{ …; }`, subshells,
//!   `if`/`elif`/`else`, `case` arms, `for`/`while`/`until` bodies, function bodies,
//!   `$(…)`, backticks and process substitutions, and the command a wrapper runs (`env`,
//!   `command`, `exec`, `nohup`, `nice`, `timeout`, `sudo`, `xargs`, `find -exec`,
//!   `sh -c '…'`, `bash -c`, `eval`, `trap`; `/bin/rm` is `rm`), its words with quotes
//!   removed and escapes resolved. What is only known when the command runs (`$VAR`,
//!   `$(…)`, `~`, an unquoted `*`) stands for anything: `shell(rm *)` catches `{ rm x; }`,
//!   `if true; then rm x; fi`, `for f in a; do rm $f; done`, `sh -c 'rm x'`. A command
//!   that cannot be read with certainty (it does not parse, its command's name is an
//!   expansion, it runs a string only known then: `eval "$x"`, `sh -c "$x"`, `… | sh`)
//!   matches every deny and ask rule of `shell`, and the refusal says why. An allow rule
//!   matches only a *simple* command as a whole: a command holding any of
//!   `; & | ` `` ` `` ` $ ( ) < >` or a line break (even quoted), or more than one
//!   command, matches no allow rule, so `cargo test; rm -rf /`, `cargo test && x`,
//!   `cargo test | sh`, `cargo test $(x)` fall through to the next rule or the tool's
//!   permission. A script the command runs (`./build.sh`, `make`) is not read.
//! - **paths**: a path that is absolute or climbs out (`../x`, `a/../../x`) matches no
//!   allow rule and every deny or ask rule of its tool. Under a root
//!   ([`Rule::matches_in`]; the policy's is the current directory unless
//!   [set](super::PermissionPolicy::root)) the path is also read where its links lead: a
//!   deny or ask rule matches the path as written *or* its real place (`ok/key` with
//!   `ok -> secrets` meets `read_file(secrets/**)`), an allow rule needs both; a path
//!   whose real place is outside the root or cannot be resolved (a dangling link) matches
//!   every deny or ask rule and no allow rule.
//! - **SQL**: an allow rule matches when every statement is of its kinds; a deny or ask
//!   rule when any is, and a statement of no known kind (`CALL`, `PRAGMA`, …) matches
//!   every deny or ask rule and no allow rule. A statement is a read only if no word of a
//!   write or schema change appears in it (`WITH d AS (DELETE …) SELECT` is a write).
//! - Arguments that cannot be read (not JSON, the argument missing) match no allow rule
//!   and every deny or ask rule with a pattern.
//!
//! ```
//! use lucid::tool::permission::{Permission, Rule};
//! use lucid::ToolCall;
//! let tests = Rule::parse(Permission::Allow, "shell(cargo test*)").unwrap();
//! let run = |cmd: &str| ToolCall::new("c", "shell", serde_json::json!({"command": cmd}));
//! assert!(tests.matches(&run("cargo test --lib")));
//! assert!(!tests.matches(&run("cargo test; rm -rf /")));
//! assert_eq!(tests.to_string(), "allow shell(cargo test*)");
//! ```

use std::path::Path;

use serde_json::Value;

use super::Permission;
use super::matchers::{self, Glob, SqlKind};
use super::shell;
use crate::message::ToolCall;

/// The built-in file tools, whose rules hold a path glob.
const FILE_TOOLS: &[&str] = &["read_file", "write_file", "edit_file", "list_dir", "search_files"];

/// A rule that cannot be read, with why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("permission rule `{rule}`: {reason}")]
pub struct RuleError {
    /// The rule as written.
    pub rule: String,
    /// What is wrong with it.
    pub reason: String,
}

/// What a rule asks of the arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Pattern {
    /// Every call of the tool.
    Any,
    /// `shell`'s command: any of these globs.
    Command(Vec<Glob>),
    /// The file tools' path.
    Path(Glob),
    /// The SQL tools' statements.
    Sql(Vec<SqlKind>),
    /// Named arguments.
    Args(Vec<(String, Glob)>),
}

/// One permission rule: see the [module docs](self) for the syntax and what matches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    permission: Permission,
    tool: Glob,
    pattern: Pattern,
    /// The rule as written, `tool(pattern)`.
    text: String,
}

impl std::fmt::Display for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let word = match self.permission {
            Permission::Allow => "allow",
            Permission::Ask => "ask",
            Permission::Deny => "deny",
        };
        write!(f, "{word} {}", self.text)
    }
}

impl Rule {
    /// Reads a rule, `TOOL` or `TOOL(PATTERN)`, `TOOL` a glob of tool names.
    ///
    /// ```
    /// use lucid::tool::permission::{Permission, Rule};
    /// assert!(Rule::parse(Permission::Deny, "sql_query(write, ddl)").is_ok());
    /// assert!(Rule::parse(Permission::Allow, "sql_query(everything)").is_err());
    /// assert!(Rule::parse(Permission::Allow, "github__*(repo=me/*)").is_ok());
    /// ```
    pub fn parse(permission: Permission, text: &str) -> Result<Rule, RuleError> {
        let text = text.trim();
        let err = |reason: &str| RuleError { rule: text.to_string(), reason: reason.to_string() };
        let (tool, inner) = match text.find('(') {
            None => (text, None),
            Some(open) => {
                let Some(inner) = text[open + 1..].strip_suffix(')') else {
                    return Err(err("a pattern in parentheses must end the rule: `tool(pattern)`"));
                };
                (text[..open].trim(), Some(inner))
            }
        };
        if tool.is_empty() || tool.contains(char::is_whitespace) {
            return Err(err("the rule must start with a tool name (a glob), without spaces"));
        }
        let pattern = match inner {
            None => Pattern::Any,
            Some(inner) if inner.trim().is_empty() => return Err(err("the parentheses are empty")),
            Some(inner) if tool == "shell" => {
                let inner = matchers::squeeze(inner);
                Pattern::Command(match inner.strip_suffix(":*") {
                    // `git status:*`: the command alone, or followed by arguments.
                    Some(prefix) => {
                        let prefix = prefix.trim_end();
                        vec![Glob::new(prefix, false), Glob::new(&format!("{prefix} *"), false)]
                    }
                    None => vec![Glob::new(&inner, false)],
                })
            }
            Some(inner) if FILE_TOOLS.contains(&tool) => Pattern::Path(Glob::new(inner.trim(), true)),
            Some(inner) if tool.starts_with("sql_") => {
                let kinds: Option<Vec<SqlKind>> = inner.split(',').map(SqlKind::parse).collect();
                Pattern::Sql(kinds.ok_or_else(|| err("SQL rules name statement kinds: read, write, ddl"))?)
            }
            Some(inner) => {
                let mut args = Vec::new();
                for pair in split_unescaped(inner) {
                    let Some((name, glob)) = pair.split_once('=') else {
                        return Err(err("an argument pattern is `name=glob`, comma-separated"));
                    };
                    if name.trim().is_empty() {
                        return Err(err("an argument pattern needs the argument's name"));
                    }
                    args.push((name.trim().to_string(), Glob::new(glob.trim(), false)));
                }
                Pattern::Args(args)
            }
        };
        Ok(Rule { permission, tool: Glob::new(tool, false), pattern, text: text.to_string() })
    }

    /// What the rule says when it matches.
    pub fn permission(&self) -> Permission {
        self.permission
    }

    /// The rule without its permission, as written: `shell(cargo test*)`.
    pub fn pattern(&self) -> &str {
        &self.text
    }

    /// Whether the rule concerns every call of the tools it names (it has no pattern).
    pub fn is_whole_tool(&self) -> bool {
        self.pattern == Pattern::Any
    }

    /// Whether the rule names `tool` (its arguments aside).
    pub fn names(&self, tool: &str) -> bool {
        self.tool.matches(tool)
    }

    /// Whether `call` matches: its tool, and its arguments read as the module docs say
    /// (a deny or ask rule reads them widely, an allow rule narrowly). A path is read as
    /// written; [`Rule::matches_in`] follows its links too.
    pub fn matches(&self, call: &ToolCall) -> bool {
        self.matching(call, None)
    }

    /// [`Rule::matches`], with a file tool's path also read where its symbolic links lead
    /// under `root` (the folder the file tools' paths are relative to): a deny or ask rule
    /// matches the path as written or its real place, an allow rule needs both.
    pub fn matches_in(&self, call: &ToolCall, root: &Path) -> bool {
        self.matching(call, Some(root))
    }

    /// Why this rule matches `call` without reading it with certainty: the reason a
    /// `shell` command cannot be read (`None` when it can, or for other rules).
    pub fn uncertainty(&self, call: &ToolCall) -> Option<String> {
        if self.permission == Permission::Allow || !self.tool.matches(&call.name) {
            return None;
        }
        let Pattern::Command(_) = self.pattern else { return None };
        let args: Value = serde_json::from_str(&call.arguments).ok()?;
        let command = args.get("command")?.as_str()?;
        shell::read(command).uncertain.map(|why| format!("the command cannot be read with certainty: {why}"))
    }

    fn matching(&self, call: &ToolCall, root: Option<&Path>) -> bool {
        if !self.tool.matches(&call.name) {
            return false;
        }
        if self.pattern == Pattern::Any {
            return true;
        }
        let restricts = self.permission != Permission::Allow;
        let args: Option<Value> = serde_json::from_str(&call.arguments).ok();
        let text_arg = |name: &str| args.as_ref().and_then(|a| a.get(name)).and_then(Value::as_str);
        match &self.pattern {
            Pattern::Any => true,
            Pattern::Command(globs) => {
                let Some(command) = text_arg("command") else { return restricts };
                let whole = matchers::squeeze(command);
                let matches = |c: &str| globs.iter().any(|g| g.matches(c));
                let line = shell::read(command);
                if restricts {
                    line.uncertain.is_some() || matches(&whole) || globs.iter().any(|g| line.meets(g))
                } else {
                    matchers::is_simple(command) && line.is_one_plain_command() && matches(&whole)
                }
            }
            Pattern::Path(glob) => {
                let Some(Some(path)) = text_arg("path").map(matchers::normal_path) else { return restricts };
                let Some(root) = root else { return glob.matches(&path) };
                match matchers::real_path(root, &path) {
                    Some(real) if restricts => glob.matches(&path) || glob.matches(&real),
                    Some(real) => glob.matches(&path) && glob.matches(&real),
                    None => restricts,
                }
            }
            Pattern::Sql(kinds) => {
                let Some(sql) = text_arg("sql") else { return restricts };
                let found = matchers::sql_kinds(sql);
                let of_rule = |k: &Option<SqlKind>| k.is_some_and(|k| kinds.contains(&k));
                if restricts {
                    found.iter().any(|k| k.is_none() || of_rule(k))
                } else {
                    !found.is_empty() && found.iter().all(of_rule)
                }
            }
            Pattern::Args(patterns) => {
                let Some(Value::Object(args)) = &args else { return restricts };
                patterns.iter().all(|(name, glob)| match args.get(name) {
                    Some(Value::String(s)) => glob.matches(s),
                    Some(v) => glob.matches(&v.to_string()),
                    None => restricts,
                })
            }
        }
    }

    /// The allow rule an "always" answer to `call` records: the exact command for
    /// `shell`; for a file tool the call's folder (`src/**`; a file at the top: that
    /// file); the call's statement kinds for SQL; the exact `path` argument for another
    /// tool taking one; else the whole tool. `None` when the arguments allow no such rule
    /// (they cannot be read, the path climbs out, a statement is of no known kind): the
    /// answer is then for this call only.
    ///
    /// ```
    /// use lucid::tool::permission::Rule;
    /// use lucid::ToolCall;
    /// let call = ToolCall::new("c", "shell", serde_json::json!({"command": "ls *.rs"}));
    /// assert_eq!(Rule::always(&call).unwrap().to_string(), "allow shell(ls \\*.rs)");
    /// let call = ToolCall::new("c", "write_file", serde_json::json!({"path": "./src/a.rs"}));
    /// assert_eq!(Rule::always(&call).unwrap().to_string(), "allow write_file(src/**)");
    /// let call = ToolCall::new("c", "write_file", serde_json::json!({"path": "../a.rs"}));
    /// assert!(Rule::always(&call).is_none());
    /// ```
    pub fn always(call: &ToolCall) -> Option<Rule> {
        let args: Value = serde_json::from_str(&call.arguments).ok()?;
        let text_arg = |name: &str| args.get(name).and_then(Value::as_str);
        let name = matchers::escape(&call.name);
        let pattern = if call.name == "shell" {
            Some(matchers::escape(&matchers::squeeze(text_arg("command")?)))
        } else if FILE_TOOLS.contains(&call.name.as_str()) {
            let path = matchers::normal_path(text_arg("path")?)?;
            Some(match path.rsplit_once('/') {
                Some((dir, _)) => format!("{}/**", matchers::escape(dir)),
                None => matchers::escape(&path),
            })
        } else if call.name.starts_with("sql_") {
            let kinds: Option<Vec<SqlKind>> = matchers::sql_kinds(text_arg("sql")?).into_iter().collect();
            let mut words: Vec<&str> = kinds?.iter().map(|k| k.as_str()).collect();
            words.sort_unstable();
            words.dedup();
            Some(words.join(", ")).filter(|w| !w.is_empty())
        } else {
            text_arg("path").map(|p| format!("path={}", matchers::escape(p).replace(',', "\\,")))
        };
        let text = match pattern {
            Some(p) => format!("{name}({p})"),
            None if call.name.starts_with("sql_") => return None,
            None => name,
        };
        Rule::parse(Permission::Allow, &text).ok()
    }
}

/// `text` split at commas not preceded by `\` (which is dropped).
fn split_unescaped(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&',') => {
                chars.next();
                current.push(',');
            }
            ',' => out.push(std::mem::take(&mut current)),
            c => current.push(c),
        }
    }
    out.push(current);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool::permission::PermissionPolicy;

    fn call(tool: &str, args: Value) -> ToolCall {
        ToolCall::new("c", tool, args)
    }

    fn shell(command: &str) -> ToolCall {
        call("shell", serde_json::json!({ "command": command }))
    }

    fn rule(p: Permission, text: &str) -> Rule {
        Rule::parse(p, text).unwrap()
    }

    #[test]
    fn cargo_test_is_allowed_and_every_other_command_asks() {
        let policy = PermissionPolicy::allow_all()
            .set("shell", Permission::Ask)
            .rule(rule(Permission::Allow, "shell(cargo test*)"));
        for allowed in ["cargo test", "cargo  test --lib -p x", " cargo test 'a b'"] {
            let (p, r) = policy.decide(&shell(allowed));
            assert_eq!((p, r.map(|r| r.to_string())), (Permission::Allow, Some("allow shell(cargo test*)".into())));
        }
        for compound in [
            "cargo test; rm -rf /",
            "cargo test && rm -rf /",
            "cargo test || rm -rf /",
            "cargo test | sh",
            "cargo test & rm -rf /",
            "cargo test $(rm -rf /)",
            "cargo test `rm -rf /`",
            "cargo test\nrm -rf /",
            "cargo test > ~/.bashrc",
            "cargo test <(curl x)",
            "cargo test \"; rm -rf /\"",
            "cargo build",
            "echo cargo test",
        ] {
            assert_eq!(policy.decide(&shell(compound)), (Permission::Ask, None), "{compound:?}");
        }
        // Unreadable arguments are not allowed by a rule.
        assert_eq!(policy.decide(&ToolCall::new("c", "shell", Value::Null)).0, Permission::Ask);
    }

    #[test]
    fn deny_comes_before_ask_before_allow_and_reads_inside_compound_commands() {
        let policy = PermissionPolicy::allow_all()
            .rule(rule(Permission::Allow, "shell(git *)"))
            .rule(rule(Permission::Ask, "shell(git push:*)"))
            .rule(rule(Permission::Deny, "shell(rm *)"));
        assert_eq!(policy.decide(&shell("git status")).0, Permission::Allow);
        assert_eq!(policy.decide(&shell("git push")).0, Permission::Ask);
        assert_eq!(policy.decide(&shell("git push origin main")).0, Permission::Ask);
        assert_eq!(policy.decide(&shell("git pushy")).0, Permission::Allow, "`:*` wants a word boundary");
        assert_eq!(policy.decide(&shell("git status && git push")).0, Permission::Ask);
        let (p, r) = policy.decide(&shell("git status; echo $(rm -rf /)"));
        assert_eq!((p, r.unwrap().to_string()), (Permission::Deny, "deny shell(rm *)".to_string()));
        assert!(!policy.allows_everything());
    }

    #[test]
    fn path_rules_match_normalised_paths_and_never_allow_an_escape() {
        let policy = PermissionPolicy::allow_all()
            .set("write_file", Permission::Ask)
            .rule(rule(Permission::Allow, "write_file(src/**)"))
            .rule(rule(Permission::Deny, "write_file(src/secrets/*)"))
            .rule(rule(Permission::Allow, "read_file(docs/*.md)"))
            .set("read_file", Permission::Deny);
        let w = |p: &str| policy.decide(&call("write_file", serde_json::json!({"path": p, "content": ""}))).0;
        assert_eq!(w("src/lib.rs"), Permission::Allow);
        assert_eq!(w("./src//a/b.rs"), Permission::Allow);
        assert_eq!(w("src/secrets/key"), Permission::Deny);
        assert_eq!(w("src/x/../secrets/key"), Permission::Deny, "normalised before matching");
        for outside in ["src/../Cargo.toml", "srcx/a.rs"] {
            assert_eq!(w(outside), Permission::Ask, "{outside}");
        }
        // A path that climbs out or is absolute meets every deny rule of its tool.
        for escaping in ["src/../../etc/passwd", "/work/src/a.rs"] {
            assert_eq!(w(escaping), Permission::Deny, "{escaping}");
        }
        let r = |p: &str| policy.decide(&call("read_file", serde_json::json!({ "path": p }))).0;
        assert_eq!(
            (r("docs/a.md"), r("docs/a/b.md"), r("docs/a.txt")),
            (Permission::Allow, Permission::Deny, Permission::Deny)
        );
    }

    #[test]
    fn sql_rules_match_statement_kinds() {
        let policy = PermissionPolicy::allow_all()
            .set("sql_query", Permission::Ask)
            .rule(rule(Permission::Allow, "sql_query(read)"))
            .rule(rule(Permission::Deny, "sql_query(ddl)"));
        let q = |sql: &str| policy.decide(&call("sql_query", serde_json::json!({ "sql": sql }))).0;
        assert_eq!(q("SELECT * FROM t"), Permission::Allow);
        assert_eq!(q("with x as (select 1) select * from x"), Permission::Allow);
        assert_eq!(q("INSERT INTO t VALUES (1)"), Permission::Ask);
        assert_eq!(q("WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d"), Permission::Ask);
        assert_eq!(q("SELECT 1; DROP TABLE t"), Permission::Deny);
        assert_eq!(q("PRAGMA writable_schema = 1"), Permission::Deny, "unknown kinds meet every deny rule");
        assert!(Rule::parse(Permission::Allow, "sql_query(reads)").is_err());
    }

    #[test]
    fn mcp_rules_match_named_arguments() {
        let policy = PermissionPolicy::allow_all()
            .set("github__create_issue", Permission::Ask)
            .rule(rule(Permission::Allow, "github__*(repo=me/*, draft=true)"))
            .rule(rule(Permission::Deny, "github__*(repo=me/secret)"));
        let issue = |args: Value| policy.decide(&call("github__create_issue", args)).0;
        assert_eq!(issue(serde_json::json!({"repo": "me/site", "draft": true})), Permission::Allow);
        assert_eq!(issue(serde_json::json!({"repo": "me/site", "draft": false})), Permission::Ask);
        assert_eq!(issue(serde_json::json!({"repo": "me/site"})), Permission::Ask, "a missing argument allows nothing");
        assert_eq!(issue(serde_json::json!({"repo": "you/site", "draft": true})), Permission::Ask);
        assert_eq!(issue(serde_json::json!({"repo": "me/secret", "draft": true})), Permission::Deny);
        assert!(rule(Permission::Ask, "a__b(q=x\\,y)").matches(&call("a__b", serde_json::json!({"q": "x,y"}))));
        for bad in ["", "shell(", "shell()", "a b", "mcp__x(noequals)", "(x)"] {
            assert!(Rule::parse(Permission::Allow, bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn always_records_the_narrowest_rule_of_the_calls_shape() {
        let text = |c: &ToolCall| Rule::always(c).map(|r| r.to_string());
        assert_eq!(text(&shell("cargo  build --release")).as_deref(), Some("allow shell(cargo build --release)"));
        let compound = Rule::always(&shell("make && make install")).unwrap();
        assert!(!compound.matches(&shell("make && make install")), "a compound command is asked every time");
        assert_eq!(
            text(&call("sql_query", serde_json::json!({"sql": "select 1; insert into t values (1)"}))).as_deref(),
            Some("allow sql_query(read, write)")
        );
        assert_eq!(text(&call("sql_query", serde_json::json!({"sql": "call f()"}))), None);
        assert_eq!(
            text(&call("calculator", serde_json::json!({"expression": "1"}))).as_deref(),
            Some("allow calculator")
        );
        assert_eq!(
            text(&call("m__read", serde_json::json!({"path": "/a,b"}))).as_deref(),
            Some("allow m__read(path=/a\\,b)")
        );
        assert!(
            Rule::always(&call("m__read", serde_json::json!({"path": "/a,b"})))
                .unwrap()
                .matches(&call("m__read", serde_json::json!({"path": "/a,b"})))
        );
    }
}
