//! Which tool calls may run: allow, ask the user, or deny, per tool.
//!
//! The policy is checked by the agent loop before a call runs; a denied call becomes a
//! tool result saying so, which the model reads like any other failure. `Ask` goes to an
//! [`Approver`] (the CLI asks y/n/always on the terminal); with none, asking means no.

use std::collections::{HashMap, HashSet};
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
pub enum Approval {
    /// Run this call.
    Yes,
    /// Do not run it.
    No,
    /// Run it, and every later call of this tool without asking.
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
    /// Tools the approver answered "always" for.
    always: Arc<Mutex<HashSet<String>>>,
}

impl std::fmt::Debug for PermissionPolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PermissionPolicy")
            .field("default", &self.default)
            .field("tools", &self.tools)
            .field("approver", &self.approver.is_some())
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
        PermissionPolicy { default: Permission::Allow, tools: HashMap::new(), approver: None, always: Arc::default() }
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

    /// The permission of `tool` (an "always" answer makes it `Allow`).
    pub fn permission(&self, tool: &str) -> Permission {
        let p = self.tools.get(tool).copied().unwrap_or(self.default);
        if p == Permission::Ask && self.always.lock().map(|a| a.contains(tool)).unwrap_or(false) {
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
        match self.permission(&call.name) {
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
                            a.insert(call.name.clone());
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
}
