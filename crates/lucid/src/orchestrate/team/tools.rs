//! The tools a member gets: one per delegate (`<name>`, taking a `task`) and one per
//! hand-off target (`transfer_to_<name>`).

use std::sync::{Arc, Mutex, OnceLock};

use futures::FutureExt;
use futures::future::BoxFuture;
use serde_json::{Value, json};

use super::Via;
use super::run::{Shared, Start, run_member};
use crate::agent::Canceller;
use crate::error::Error;
use crate::tool::{Tool, ToolContext, ToolError, ToolSpec};

/// Delegation: a member as a tool of another.
pub(super) struct Delegate {
    spec: ToolSpec,
    shared: Arc<Shared>,
    from: String,
    to: String,
    depth: usize,
}

impl Delegate {
    pub(super) fn new(shared: Arc<Shared>, from: &str, to: &str, description: &str, depth: usize) -> Self {
        let spec = ToolSpec::new(
            to,
            format!("Delegate a task to the team member `{to}`: {description} Give it a complete, self-contained task; it answers with its result."),
            json!({
                "type": "object",
                "properties": {"task": {"type": "string", "description": "The task, with everything it needs to know."}},
                "required": ["task"],
                "additionalProperties": false
            }),
        )
        .expect("member names are checked by Team::validate");
        Delegate { spec, shared, from: from.to_string(), to: to.to_string(), depth }
    }
}

impl Tool for Delegate {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn invoke<'a>(&'a self, args: Value, ctx: ToolContext) -> BoxFuture<'a, std::result::Result<String, ToolError>> {
        async move {
            let task = args["task"].as_str().unwrap_or_default().to_string();
            let limit = self.shared.team.inner.max_depth;
            if self.depth > limit {
                let e = Error::TeamLimit(format!(
                    "delegation from `{}` to `{}` would go {} levels deep; the limit is {limit} (raise it with Team::max_depth)",
                    self.from, self.to, self.depth
                ));
                return Err(ToolError::new(self.shared.fail(e).to_string()));
            }
            let start = Start {
                member: self.to.clone(),
                task,
                depth: self.depth,
                parent: Some(self.from.clone()),
                via: Via::Delegation,
            };
            match run_member(Arc::clone(&self.shared), start, ctx.cancel).await {
                Ok((_, answer)) => Ok(answer),
                Err(e) => Err(ToolError::new(format!("`{}` could not finish: {e}", self.to))),
            }
        }
        .boxed()
    }
}

/// Where a transfer tool leaves its target for the member run to pick up.
#[derive(Default)]
pub(super) struct HandoffSlot {
    pub(super) target: Mutex<Option<String>>,
    pub(super) canceller: OnceLock<Canceller>,
}

/// Hand-off: `transfer_to_<name>`.
pub(super) struct Transfer {
    spec: ToolSpec,
    to: String,
    slot: Arc<HandoffSlot>,
}

impl Transfer {
    pub(super) fn new(to: &str, description: &str, slot: Arc<HandoffSlot>) -> Self {
        let spec = ToolSpec::new(
            format!("transfer_to_{to}"),
            format!("Hand this conversation over to `{to}` ({description}), who continues it from here."),
            json!({"type": "object", "properties": {}, "additionalProperties": false}),
        )
        .expect("hand-off tool names are checked by Team::validate");
        Transfer { spec, to: to.to_string(), slot }
    }
}

impl Tool for Transfer {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn invoke<'a>(&'a self, _args: Value, _ctx: ToolContext) -> BoxFuture<'a, std::result::Result<String, ToolError>> {
        async move {
            *self.slot.target.lock().unwrap_or_else(|p| p.into_inner()) = Some(self.to.clone());
            if let Some(c) = self.slot.canceller.get() {
                c.cancel_after_turn();
            }
            Ok(format!("Transferred to `{}`, who continues the conversation.", self.to))
        }
        .boxed()
    }
}
