//! Which tool calls may run: allow, ask the user, or deny, per tool.
//!
//! The policy is checked by the agent loop before a call runs; a denied call becomes a
//! tool result saying so, which the model reads like any other failure. `Ask` goes to an
//! [`Approver`] (the CLI asks y/n/always on the terminal); with none, asking means no.

use std::collections::{HashMap, HashSet};
use std::path::{Component, Path};
use std::sync::{Arc, Mutex};

use futures::FutureExt;
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::Value;

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
    /// Run it, and later calls like it without asking: any call of the tool, or, for a
    /// tool taking a `path` (the file tools), calls whose path is in the same folder (a
    /// file at the root: that file only). Never every tool.
    Always,
}

/// Decides calls the policy marks [`Permission::Ask`] (a terminal prompt, a UI dialog…).
pub trait Approver: Send + Sync + 'static {
    /// Whether `call` may run.
    fn approve<'a>(&'a self, call: &'a ToolCall) -> BoxFuture<'a, Approval>;
}

/// Permissions per tool, with a default for the rest.
///
/// ```
/// use lucid::tool::permission::{Permission, PermissionPolicy};
/// let policy = PermissionPolicy::recommended().set("shell", Permission::Deny);
/// assert_eq!(policy.permission("read_file"), Permission::Allow);
/// assert_eq!(policy.permission("write_file"), Permission::Ask);
/// assert_eq!(policy.permission("shell"), Permission::Deny);
/// ```
#[derive(Clone)]
pub struct PermissionPolicy {
    default: Permission,
    tools: HashMap<String, Permission>,
    approver: Option<Arc<dyn Approver>>,
    /// What the approver answered "always" for.
    always: Arc<Mutex<Remembered>>,
    /// An `ask` with no approver defers the call instead of refusing it.
    defer: bool,
}

impl std::fmt::Debug for PermissionPolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PermissionPolicy")
            .field("default", &self.default)
            .field("tools", &self.tools)
            .field("approver", &self.approver.is_some())
            .field("defer", &self.defer)
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
            approver: None,
            always: Arc::default(),
            defer: false,
        }
    }

    /// Reading allowed; the built-in tools that write (files, the shell: those the
    /// [catalogue](crate::tool::builtin::CATALOGUE) marks `writes`) ask first.
    pub fn recommended() -> Self {
        #[cfg(feature = "builtin-tools")]
        let writing = super::builtin::CATALOGUE.iter().filter(|t| t.writes).map(|t| t.name);
        #[cfg(not(feature = "builtin-tools"))]
        let writing = std::iter::empty::<&str>();
        writing.fold(PermissionPolicy::allow_all(), |p, name| p.set(name, Permission::Ask))
    }

    /// Sets one tool's permission.
    pub fn set(mut self, tool: impl Into<String>, permission: Permission) -> Self {
        self.tools.insert(tool.into(), permission);
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
        self.defer && self.approver.is_none() && self.permission_of(call) == Permission::Ask
    }

    /// Whether every call may run without asking (then an agent's loop skips the policy).
    ///
    /// ```
    /// use lucid::tool::permission::{Permission, PermissionPolicy};
    /// assert!(PermissionPolicy::allow_all().allows_everything());
    /// assert!(!PermissionPolicy::allow_all().set("shell", Permission::Ask).allows_everything());
    /// ```
    pub fn allows_everything(&self) -> bool {
        self.default == Permission::Allow && self.tools.values().all(|p| *p == Permission::Allow)
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

    /// The permission of this call: [`PermissionPolicy::permission`], or `Allow` when an
    /// "always" answer covers the call's path.
    fn permission_of(&self, call: &ToolCall) -> Permission {
        let p = self.permission(&call.name);
        if p == Permission::Ask
            && let Some(CallPath { path, plain }) = call_path(call)
            && self.always.lock().map(|a| a.covers(&call.name, &path, plain)).unwrap_or(false)
        {
            return Permission::Allow;
        }
        p
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
        if self.permission(tool.spec().name()) == Permission::Allow {
            return tool;
        }
        Arc::new(Guarded { tool, policy: self.clone() })
    }

    /// `Ok` when the call may run, else the text the model reads instead of its output.
    pub(crate) async fn check(&self, call: &ToolCall) -> Result<(), String> {
        match self.permission_of(call) {
            Permission::Allow => Ok(()),
            Permission::Deny => {
                Err(format!("The tool `{}` is not allowed here (permission policy: deny). Do without it.", call.name))
            }
            Permission::Ask => {
                let Some(approver) = &self.approver else {
                    return Err(format!(
                        "The tool `{}` needs the user's approval and nobody can give it here. Do without it.",
                        call.name
                    ));
                };
                match approver.approve(call).await {
                    Approval::Yes => Ok(()),
                    Approval::Always => {
                        if let Ok(mut a) = self.always.lock() {
                            a.remember(call);
                        }
                        Ok(())
                    }
                    Approval::No => Err(format!(
                        "The user declined this call of `{}`. Do not repeat it; ask them or take another way.",
                        call.name
                    )),
                }
            }
        }
    }
}

/// What "always" answers allowed: whole tools, and folders (or single files) per tool.
#[derive(Debug, Default)]
struct Remembered {
    tools: HashSet<String>,
    /// `(tool, prefix)`: a folder ends with `/`; anything else is one exact path.
    paths: HashSet<(String, String)>,
}

impl Remembered {
    fn remember(&mut self, call: &ToolCall) {
        match call_path(call) {
            Some(CallPath { path, plain }) => {
                let folder = Path::new(&path).parent().map(|p| p.to_string_lossy().into_owned());
                let scope = match folder {
                    Some(dir) if plain && !dir.is_empty() => format!("{dir}/"),
                    _ => path,
                };
                self.paths.insert((call.name.clone(), scope));
            }
            None => {
                self.tools.insert(call.name.clone());
            }
        }
    }

    fn covers(&self, tool: &str, path: &str, plain: bool) -> bool {
        self.paths.iter().any(|(t, scope)| {
            t == tool && if plain && scope.ends_with('/') { path.starts_with(scope.as_str()) } else { path == scope }
        })
    }
}

/// A call's `path` argument: normalised (`./a//b` is `a/b`) when it is a plain relative
/// path; as given, and never widened to its folder, when it is not (`..`, absolute).
struct CallPath {
    path: String,
    plain: bool,
}

fn call_path(call: &ToolCall) -> Option<CallPath> {
    let args: Value = serde_json::from_str(&call.arguments).ok()?;
    let raw = args.get("path")?.as_str()?;
    let mut parts = Vec::new();
    for c in Path::new(raw).components() {
        match c {
            Component::Normal(p) => parts.push(p.to_str()?),
            Component::CurDir => {}
            _ => return Some(CallPath { path: raw.to_string(), plain: false }),
        }
    }
    Some(CallPath { path: parts.join("/"), plain: true })
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
            self.policy.check(&call).await.map_err(ToolError::new)?;
            self.tool.invoke(args, ctx).await
        }
        .boxed()
    }

    fn idempotent(&self) -> bool {
        self.tool.idempotent()
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
