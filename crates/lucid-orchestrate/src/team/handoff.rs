//! Hand-off: the `transfer_to_<name>` tool a member gets for each hand-off target, and the
//! slot it leaves the target in for the member run to pick up.

use std::sync::{Arc, Mutex, OnceLock};

use futures::FutureExt;
use futures::future::BoxFuture;
use serde_json::{Value, json};

use lucid::agent::Canceller;
use lucid::tool::{Tool, ToolContext, ToolError, ToolSpec};

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
