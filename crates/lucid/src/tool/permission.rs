//! Which tool calls may run: allow, ask the user, or deny, per tool and by [`Rule`]s on
//! the calls' arguments (`shell(cargo test*)`, `write_file(src/**)`, see [`rules`]).
//!
//! The policy is checked by the agent loop before a call runs; a denied call becomes a
//! tool result saying so, which the model reads like any other failure. `Ask` goes to an
//! [`Approver`] (the CLI asks y/n/always on the terminal); with none, asking means no.
//!
//! A call is decided by the first of: a deny rule that matches it, an "always" answer
//! that covers it, an ask rule, an allow rule (each kind in the order the rules were
//! given), and last the tool's own permission ([`PermissionPolicy::set`], else the
//! default). The rule that decided is named in the denial the model reads, in the
//! approver's question ([`Approver::approve_asked`]) and in the log.

mod matchers;
pub mod rules;
mod shell;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use futures::FutureExt;
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use matchers::SqlKind;
pub use rules::{Rule, RuleError};

use super::{Tool, ToolContext, ToolError, ToolSpec};
use crate::message::ToolCall;

/// What a policy says about a tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Permission {
    /// Run it.
    Allow,
    /// Ask the approver first.
    Ask,
    /// Never run it.
    Deny,
}

/// An approver's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Approval {
    /// Run this call.
    Yes,
    /// Do not run it.
    No,
    /// Run it, and later calls like it without asking: the rule [`Rule::always`] makes of
    /// the call (the same `shell` command, paths in the same folder for a file tool, the
    /// same statement kinds for SQL, …; without one, this call only). Never every tool.
    Always,
}

/// Decides calls the policy marks [`Permission::Ask`] (a terminal prompt, a UI dialog…).
pub trait Approver: Send + Sync + 'static {
    /// Whether `call` may run.
    fn approve<'a>(&'a self, call: &'a ToolCall) -> BoxFuture<'a, Approval>;

    /// Whether `call` may run, knowing the rule that asks (`None`: the tool's own
    /// permission asks). By default the same as [`Approver::approve`].
    fn approve_asked<'a>(&'a self, call: &'a ToolCall, rule: Option<&'a Rule>) -> BoxFuture<'a, Approval> {
        let _ = rule;
        self.approve(call)
    }

    /// Whether `call` may run, knowing the rule that asks and what its tool says a
    /// person should read first ([`Tool::review`]: a migration's rehearsal). By default
    /// [`Approver::approve_asked`] with the call shown as [`reviewed_call`] makes it: the
    /// review beside the arguments, so an approver that shows the arguments shows it too.
    fn approve_reviewed<'a>(
        &'a self,
        call: &'a ToolCall,
        rule: Option<&'a Rule>,
        review: Option<&'a str>,
    ) -> BoxFuture<'a, Approval> {
        match review {
            None => self.approve_asked(call, rule),
            Some(review) => {
                let shown = reviewed_call(call, review);
                Box::pin(async move { self.approve_asked(&shown, rule).await })
            }
        }
    }
}

/// The key of the review in the arguments [`reviewed_call`] shows.
pub const REVIEW_KEY: &str = "lucid_review";

/// `call` as an approver that shows arguments should see it with its tool's review: the
/// arguments (an object) with the review beside them under [`REVIEW_KEY`], one string a
/// line, so a pretty-printed call reads line by line. The call that runs is the original.
///
/// ```
/// use lucid::tool::permission::reviewed_call;
/// let call = lucid::ToolCall::new("c1", "sql_migrate", serde_json::json!({"up": "DROP TABLE t"}));
/// let shown = reviewed_call(&call, "Data lost: 3 rows of table t\nLint: …");
/// let args = shown.parse_arguments().unwrap();
/// assert_eq!(args["up"], "DROP TABLE t");
/// assert_eq!(args["lucid_review"], serde_json::json!(["Data lost: 3 rows of table t", "Lint: …"]));
/// ```
pub fn reviewed_call(call: &ToolCall, review: &str) -> ToolCall {
    let lines: Vec<Value> = review.lines().map(|l| Value::String(l.to_string())).collect();
    let arguments = match call.parse_arguments() {
        Ok(Value::Object(mut map)) => {
            map.insert(REVIEW_KEY.into(), Value::Array(lines));
            Value::Object(map)
        }
        Ok(other) => serde_json::json!({"arguments": other, REVIEW_KEY: lines}),
        Err(_) => serde_json::json!({"arguments": call.arguments, REVIEW_KEY: lines}),
    };
    ToolCall { arguments: arguments.to_string(), ..call.clone() }
}

/// Permissions per tool, with a default for the rest, and [`Rule`]s by argument before
/// them.
///
/// ```
/// use lucid::tool::permission::{Permission, PermissionPolicy, Rule};
/// let policy = PermissionPolicy::allow_all().set("write_file", Permission::Ask).set("shell", Permission::Deny);
/// assert_eq!(policy.permission("read_file"), Permission::Allow);
/// assert_eq!(policy.permission("write_file"), Permission::Ask);
/// assert_eq!(policy.permission("shell"), Permission::Deny);
///
/// // `cargo test` yes, any other command asks.
/// let policy = PermissionPolicy::allow_all()
///     .set("shell", Permission::Ask)
///     .rule(Rule::parse(Permission::Allow, "shell(cargo test*)").unwrap());
/// let run = |cmd: &str| lucid::ToolCall::new("c", "shell", serde_json::json!({"command": cmd}));
/// assert_eq!(policy.decide(&run("cargo test -p x")).0, Permission::Allow);
/// assert_eq!(policy.decide(&run("cargo test && curl x | sh")).0, Permission::Ask);
/// ```
#[derive(Clone)]
pub struct PermissionPolicy {
    default: Permission,
    tools: HashMap<String, Permission>,
    /// The rules by argument, in the order given.
    rules: Vec<Rule>,
    approver: Option<Arc<dyn Approver>>,
    /// What the approver answered "always" for.
    always: Arc<Mutex<Remembered>>,
    /// An `ask` with no approver defers the call instead of refusing it.
    defer: bool,
    /// The folder file tools' paths are relative to (`None`: the current directory).
    root: Option<PathBuf>,
}

impl std::fmt::Debug for PermissionPolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PermissionPolicy")
            .field("default", &self.default)
            .field("tools", &self.tools)
            .field("rules", &self.rules.iter().map(Rule::to_string).collect::<Vec<_>>())
            .field("approver", &self.approver.is_some())
            .field("defer", &self.defer)
            .field("root", &self.root)
            .finish()
    }
}

impl Default for PermissionPolicy {
    fn default() -> Self {
        PermissionPolicy::allow_all()
    }
}

impl PermissionPolicy {
    /// Every tool may run (what an agent has unless told otherwise).
    pub fn allow_all() -> Self {
        PermissionPolicy {
            default: Permission::Allow,
            tools: HashMap::new(),
            rules: Vec::new(),
            approver: None,
            always: Arc::default(),
            defer: false,
            root: None,
        }
    }

    /// Reading allowed; the tools of `catalogue` that write (files, the shell, migrations:
    /// those it marks [`writes`](crate::tool::catalogue::BuiltinTool::writes)) ask first.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use lucid::tool::catalogue::{BuiltinTool, Catalogue};
    /// use lucid::tool::permission::{Permission, PermissionPolicy};
    /// fn none(_: &lucid::tool::catalogue::Setup) -> std::io::Result<Arc<dyn lucid::Tool>> { Err(std::io::Error::other("")) }
    /// const TOOLS: &[BuiltinTool] = &[BuiltinTool::new("look", "", false, &[], none), BuiltinTool::new("touch", "", true, &[], none)];
    /// let policy = PermissionPolicy::asking_before_writes(&Catalogue::new().with(TOOLS));
    /// assert_eq!((policy.permission("look"), policy.permission("touch")), (Permission::Allow, Permission::Ask));
    /// ```
    pub fn asking_before_writes(catalogue: &crate::tool::catalogue::Catalogue) -> Self {
        catalogue.iter().filter(|t| t.writes).fold(PermissionPolicy::allow_all(), |p, t| p.set(t.name, Permission::Ask))
    }

    /// Sets one tool's permission.
    pub fn set(mut self, tool: impl Into<String>, permission: Permission) -> Self {
        self.tools.insert(tool.into(), permission);
        self
    }

    /// Adds a rule by argument, after those already given (see [`rules`]).
    pub fn rule(mut self, rule: Rule) -> Self {
        self.rules.push(rule);
        self
    }

    /// The rules, in the order given.
    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    /// The folder the file tools' paths are relative to (their
    /// `Workspace` root, in `lucid-tools`), where path rules follow a
    /// path's symbolic links ([`Rule::matches_in`]). Unset: the current directory, read at
    /// each call.
    pub fn root(mut self, root: impl Into<PathBuf>) -> Self {
        self.root = Some(root.into());
        self
    }

    /// The permission of tools not named.
    pub fn default_permission(mut self, permission: Permission) -> Self {
        self.default = permission;
        self
    }

    /// Who answers [`Permission::Ask`].
    pub fn approver(mut self, approver: Arc<dyn Approver>) -> Self {
        self.approver = Some(approver);
        self
    }

    /// With `true`, a call this policy would ask about while no approver is attached is
    /// deferred instead of refused: the turn ends with
    /// [`StopReason::Deferred`](crate::StopReason::Deferred) and the call waits for an
    /// answer from outside ([`crate::approval`]).
    ///
    /// ```
    /// use lucid::tool::permission::{Permission, PermissionPolicy};
    /// let policy = PermissionPolicy::allow_all().set("shell", Permission::Ask).defer_asks(true);
    /// let call = lucid::ToolCall::new("c1", "shell", serde_json::json!({"command": "ls"}));
    /// assert!(policy.defers(&call));
    /// ```
    pub fn defer_asks(mut self, defer: bool) -> Self {
        self.defer = defer;
        self
    }

    /// Whether this call waits for an answer from outside: the policy defers its asks
    /// ([`PermissionPolicy::defer_asks`]), asks about this call, and has no approver.
    pub fn defers(&self, call: &ToolCall) -> bool {
        self.defer && self.approver.is_none() && self.decide(call).0 == Permission::Ask
    }

    /// Whether every call may run without asking (then an agent's loop skips the policy).
    ///
    /// ```
    /// use lucid::tool::permission::{Permission, PermissionPolicy};
    /// assert!(PermissionPolicy::allow_all().allows_everything());
    /// assert!(!PermissionPolicy::allow_all().set("shell", Permission::Ask).allows_everything());
    /// ```
    pub fn allows_everything(&self) -> bool {
        self.default == Permission::Allow
            && self.tools.values().all(|p| *p == Permission::Allow)
            && self.rules.iter().all(|r| r.permission() == Permission::Allow)
    }

    /// The permission of `tool` (an "always" answer for every call of it makes it
    /// `Allow`; one limited to a folder does not).
    pub fn permission(&self, tool: &str) -> Permission {
        let p = self.tools.get(tool).copied().unwrap_or(self.default);
        if p == Permission::Ask && self.always.lock().map(|a| a.tools.contains(tool)).unwrap_or(false) {
            return Permission::Allow;
        }
        p
    }

    /// What this policy says of `call`, with the rule that decided (`None`: the tool's own
    /// permission did): a deny rule, an "always" answer, an ask rule, an allow rule, the
    /// tool's permission, in that order.
    pub fn decide(&self, call: &ToolCall) -> (Permission, Option<Rule>) {
        let current;
        let root: &Path = match &self.root {
            Some(root) => root,
            None => {
                // Unreadable, it resolves nothing: path rules then meet every deny and ask.
                current = std::env::current_dir().unwrap_or_default();
                &current
            }
        };
        let matches = |r: &Rule| r.matches_in(call, root);
        let first = |p: Permission| self.rules.iter().find(|r| r.permission() == p && matches(r)).cloned();
        if let Some(rule) = first(Permission::Deny) {
            return (Permission::Deny, Some(rule));
        }
        let remembered = self.always.lock().ok().and_then(|a| a.rules.iter().find(|r| matches(r)).cloned());
        if let Some(rule) = remembered {
            return (Permission::Allow, Some(rule));
        }
        for p in [Permission::Ask, Permission::Allow] {
            if let Some(rule) = first(p) {
                return (p, Some(rule));
            }
        }
        (self.permission(&call.name), None)
    }

    /// `tool`, checked against this policy before each call: for tools that run outside
    /// an agent's loop (a workflow's tool steps) or inside agents that do not carry this
    /// policy. A refused call fails with the text the loop would give the model. A tool the
    /// policy allows outright comes back as it is.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// use lucid::prelude::*;
    /// use lucid::tool::permission::{Permission, PermissionPolicy};
    ///
    /// /// Deletes everything.
    /// #[tool]
    /// fn wipe() -> String { "wiped".into() }
    ///
    /// let policy = PermissionPolicy::allow_all().set("wipe", Permission::Ask);
    /// let guarded = policy.guard(std::sync::Arc::new(wipe));
    /// let refused = guarded.invoke(serde_json::json!({}), Default::default()).await.unwrap_err();
    /// assert!(refused.message().contains("needs the user's approval"));
    /// # });
    /// ```
    pub fn guard(&self, tool: Arc<dyn Tool>) -> Arc<dyn Tool> {
        let name = tool.spec().name();
        let ruled = self.rules.iter().any(|r| r.permission() != Permission::Allow && r.names(name));
        if self.permission(name) == Permission::Allow && !ruled {
            return tool;
        }
        Arc::new(Guarded { tool, policy: self.clone() })
    }

    /// `Ok` when the call may run, else the text the model reads instead of its output.
    pub(crate) async fn check(&self, call: &ToolCall) -> Result<(), String> {
        self.check_reviewed(call, None).await
    }

    /// [`check`](Self::check), asking `tool` for its [review](Tool::review) of the call
    /// before asking the approver; a review that fails refuses the call without asking.
    pub(crate) async fn check_reviewed(&self, call: &ToolCall, tool: Option<&dyn Tool>) -> Result<(), String> {
        let (permission, rule) = self.decide(call);
        let by = match &rule {
            Some(r) => match r.uncertainty(call) {
                Some(why) => format!("permission rule: {r}; {why}"),
                None => format!("permission rule: {r}"),
            },
            None => format!("permission policy: {}", word(permission)),
        };
        if rule.is_some() || permission != Permission::Allow {
            tracing::info!(tool = %call.name, call_id = %call.id, decision = word(permission), by = %by, "permission");
        }
        match permission {
            Permission::Allow => Ok(()),
            Permission::Deny => Err(format!("The tool `{}` is not allowed here ({by}). Do without it.", call.name)),
            Permission::Ask => {
                let Some(approver) = &self.approver else {
                    return Err(format!(
                        "The tool `{}` needs the user's approval ({by}) and nobody can give it here. Do without it.",
                        call.name
                    ));
                };
                let review = match tool {
                    Some(tool) => {
                        let args = call.parse_arguments().unwrap_or(Value::Null);
                        tool.review(&args).await.map_err(|e| {
                            format!("The call of `{}` was refused before asking the user: {}", call.name, e.message())
                        })?
                    }
                    None => None,
                };
                match approver.approve_reviewed(call, rule.as_ref(), review.as_deref()).await {
                    Approval::Yes => Ok(()),
                    Approval::Always => {
                        if let Ok(mut a) = self.always.lock() {
                            a.remember(call);
                        }
                        Ok(())
                    }
                    Approval::No => Err(format!(
                        "The user declined this call of `{}` ({by}). Do not repeat it; ask them or take another way.",
                        call.name
                    )),
                }
            }
        }
    }
}

fn word(p: Permission) -> &'static str {
    match p {
        Permission::Allow => "allow",
        Permission::Ask => "ask",
        Permission::Deny => "deny",
    }
}

/// What "always" answers allowed: whole tools (those whose calls make no narrower rule),
/// and the rules [`Rule::always`] made.
#[derive(Debug, Default)]
struct Remembered {
    tools: HashSet<String>,
    rules: Vec<Rule>,
}

impl Remembered {
    fn remember(&mut self, call: &ToolCall) {
        match Rule::always(call) {
            Some(rule) if rule.is_whole_tool() => {
                self.tools.insert(call.name.clone());
            }
            Some(rule) => {
                tracing::info!(rule = %rule, "remembered the user's \"always\"");
                self.rules.push(rule);
            }
            None => {}
        }
    }
}

/// A tool that asks its policy before each call ([`PermissionPolicy::guard`]).
struct Guarded {
    tool: Arc<dyn Tool>,
    policy: PermissionPolicy,
}

impl Tool for Guarded {
    fn spec(&self) -> &ToolSpec {
        self.tool.spec()
    }

    fn invoke<'a>(&'a self, args: Value, ctx: ToolContext) -> BoxFuture<'a, Result<String, ToolError>> {
        async move {
            let call = ToolCall::new(ctx.call_id.clone(), self.tool.spec().name(), args.clone());
            self.policy.check_reviewed(&call, Some(self.tool.as_ref())).await.map_err(ToolError::new)?;
            self.tool.invoke(args, ctx).await
        }
        .boxed()
    }

    fn idempotent(&self) -> bool {
        self.tool.idempotent()
    }

    fn review<'a>(&'a self, args: &'a Value) -> BoxFuture<'a, Result<Option<String>, ToolError>> {
        self.tool.review(args)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    /// Answers "always", counting how often it was asked.
    struct Always(AtomicUsize);

    impl Approver for Always {
        fn approve<'a>(&'a self, _call: &'a ToolCall) -> BoxFuture<'a, Approval> {
            self.0.fetch_add(1, Ordering::SeqCst);
            async { Approval::Always }.boxed()
        }
    }

    fn call(tool: &str, path: &str) -> ToolCall {
        ToolCall::new("c", tool, serde_json::json!({"path": path, "content": "x"}))
    }

    /// Reviews its calls: an `up` of `bad` it would refuse.
    struct Reviewed(ToolSpec);

    impl Tool for Reviewed {
        fn spec(&self) -> &ToolSpec {
            &self.0
        }

        fn invoke<'a>(&'a self, _args: Value, _ctx: ToolContext) -> BoxFuture<'a, Result<String, ToolError>> {
            async { Ok("ran".to_string()) }.boxed()
        }

        fn review<'a>(&'a self, args: &'a Value) -> BoxFuture<'a, Result<Option<String>, ToolError>> {
            async move {
                match args["up"].as_str() {
                    Some("bad") => Err(ToolError::new("it would break")),
                    _ => Ok(Some("Data lost: none\nLint: clean".to_string())),
                }
            }
            .boxed()
        }
    }

    /// Approves every call, keeping what it was shown.
    struct Keeps(Mutex<Vec<ToolCall>>);

    impl Approver for Keeps {
        fn approve<'a>(&'a self, call: &'a ToolCall) -> BoxFuture<'a, Approval> {
            self.0.lock().unwrap().push(call.clone());
            async { Approval::Yes }.boxed()
        }
    }

    #[tokio::test]
    async fn the_approver_reads_the_tools_review_and_a_call_it_refuses_asks_nobody() {
        let keeps = Arc::new(Keeps(Mutex::default()));
        let policy = PermissionPolicy::allow_all().set("migrate", Permission::Ask).approver(keeps.clone());
        let spec = ToolSpec::new("migrate", "Migrates.", serde_json::json!({"type": "object"})).unwrap();
        let tool = policy.guard(Arc::new(Reviewed(spec)));
        let ok = tool.invoke(serde_json::json!({"up": "ok"}), ToolContext::default()).await;
        assert_eq!(ok.unwrap(), "ran");
        let err = tool.invoke(serde_json::json!({"up": "bad"}), ToolContext::default()).await.unwrap_err();
        assert!(err.message().contains("refused before asking the user: it would break"), "{err}");
        let seen = keeps.0.lock().unwrap();
        assert_eq!(seen.len(), 1, "the refused call was never asked about");
        assert_eq!(
            seen[0].parse_arguments().unwrap(),
            serde_json::json!({"up": "ok", "lucid_review": ["Data lost: none", "Lint: clean"]})
        );
    }

    #[tokio::test]
    async fn always_for_a_file_tool_covers_its_folder_and_that_tool_only() {
        let approver = Arc::new(Always(AtomicUsize::new(0)));
        let policy = PermissionPolicy::allow_all()
            .set("write_file", Permission::Ask)
            .set("edit_file", Permission::Ask)
            .approver(approver.clone());
        let asked = || approver.0.load(Ordering::SeqCst);
        policy.check(&call("write_file", "src/lib.rs")).await.unwrap();
        assert_eq!(asked(), 1);
        for covered in ["src/main.rs", "./src//deep/mod.rs"] {
            policy.check(&call("write_file", covered)).await.unwrap();
            assert_eq!(asked(), 1, "{covered} is under src/");
        }
        assert_eq!(policy.permission("write_file"), Permission::Ask, "not blanket for the tool");
        for (tool, other) in [
            ("write_file", "docs/a.md"),
            ("write_file", "src/../x"),
            ("write_file", "srcx/a"),
            ("edit_file", "src/lib.rs"),
        ] {
            let before = asked();
            policy.check(&call(tool, other)).await.unwrap();
            assert_eq!(asked(), before + 1, "{tool} {other} is asked again");
        }
        // A file at the root: that file only.
        policy.check(&call("write_file", "README.md")).await.unwrap();
        let before = asked();
        policy.check(&call("write_file", "README.md")).await.unwrap();
        assert_eq!(asked(), before);
        policy.check(&call("write_file", "Cargo.toml")).await.unwrap();
        assert_eq!(asked(), before + 1);
    }
}
