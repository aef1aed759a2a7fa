//! The chain of hooks a turn runs: the permission policy first, then the built-in memory,
//! then the hooks attached, each point calling them in order.

use std::sync::Arc;

use crate::approval::Decision;
use crate::error::Error;
use crate::hooks::{
    Delta, Hook, HookContext, InvalidToolCall, ModelCall, ModelCallDecision, SpanOf, Step, ToolCallDecision, TurnStart,
};
use crate::message::ToolCall;
use crate::model::ChatResponse;
use crate::outcome::AgentResult;
use crate::tool::ToolOutcome;
use futures::future::BoxFuture;

/// The agent's permission policy as the first hook: a call it refuses is denied with the
/// text the model reads. A call it would ask about with nobody to ask, on a policy that
/// defers its asks, takes the session's recorded answer, or is deferred until one is
/// recorded ([`crate::approval`]).
impl Hook for crate::tool::permission::PermissionPolicy {
    fn before_tool_call<'a>(&'a self, cx: &'a HookContext<'a>, call: &'a ToolCall) -> BoxFuture<'a, ToolCallDecision> {
        Box::pin(async move {
            if self.defers(call) {
                // The call's own answer first, then a `remember` of its tool.
                return match cx.approvals.decision(&call.id) {
                    None if cx.approvals.remembers(&call.name) => ToolCallDecision::Allow,
                    None => ToolCallDecision::Defer,
                    Some(Decision::Allow { arguments: None }) => ToolCallDecision::Allow,
                    Some(Decision::Allow { arguments: Some(a) }) => ToolCallDecision::Replace(a.to_string()),
                    Some(Decision::Deny { message }) => ToolCallDecision::Deny(
                        message.clone().unwrap_or_else(|| crate::approval::default_denial(&call.name)),
                    ),
                };
            }
            match self.check(call).await {
                Ok(()) => ToolCallDecision::Allow,
                Err(refused) => ToolCallDecision::Deny(refused),
            }
        })
    }
}

/// The agent's permission policy as the chain runs it: as the policy's own hook, but a
/// call it asks about is first reviewed by its tool ([`crate::tool::Tool::review`]), and
/// the review goes to the approver.
struct PolicyOfTools {
    policy: crate::tool::permission::PermissionPolicy,
    tools: crate::tool::ToolRegistry,
}

impl Hook for PolicyOfTools {
    fn before_tool_call<'a>(&'a self, cx: &'a HookContext<'a>, call: &'a ToolCall) -> BoxFuture<'a, ToolCallDecision> {
        Box::pin(async move {
            if self.policy.defers(call) {
                return self.policy.before_tool_call(cx, call).await;
            }
            match self.policy.check_reviewed(call, self.tools.get(&call.name).map(|t| t.as_ref())).await {
                Ok(()) => ToolCallDecision::Allow,
                Err(refused) => ToolCallDecision::Deny(refused),
            }
        })
    }
}

/// The agent's hooks in order; every point runs them all, a decision stops at the first
/// hook that does not continue.
#[derive(Clone, Default)]
pub(crate) struct Hooks(Vec<Arc<dyn Hook>>);

impl Hooks {
    /// The chain a turn runs: the permission policy (unless it allows everything), the
    /// conversation memory (when the agent has one), then the attached hooks.
    pub fn chain(
        permissions: &crate::tool::permission::PermissionPolicy,
        tools: &crate::tool::ToolRegistry,
        memory: Option<&crate::memory::ConversationMemory>,
        attached: &[Arc<dyn Hook>],
    ) -> Self {
        let mut all: Vec<Arc<dyn Hook>> = Vec::with_capacity(attached.len() + 2);
        if !permissions.allows_everything() {
            all.push(Arc::new(PolicyOfTools { policy: permissions.clone(), tools: tools.clone() }));
        }
        if let Some(memory) = memory {
            all.push(Arc::new(memory.clone()));
        }
        all.extend(attached.iter().cloned());
        all.push(Arc::new(super::telemetry_hook::Telemetry));
        Hooks(all)
    }

    /// The first span a hook gives (the telemetry's, when no earlier hook gives one).
    pub fn span(&self, cx: &HookContext<'_>, of: SpanOf<'_>) -> tracing::Span {
        self.0.iter().find_map(|h| h.span(cx, of)).unwrap_or_else(tracing::Span::none)
    }

    pub async fn on_model_error(&self, cx: &HookContext<'_>, error: &Error) {
        for h in &self.0 {
            h.on_model_error(cx, error).await;
        }
    }

    pub async fn before_turn(&self, cx: &HookContext<'_>, turn: &mut TurnStart<'_>) {
        for h in &self.0 {
            h.before_turn(cx, turn).await;
        }
    }

    pub async fn on_stream_delta(&self, cx: &HookContext<'_>, delta: Delta<'_>) {
        for h in &self.0 {
            h.on_stream_delta(cx, delta).await;
        }
    }

    pub async fn on_invalid_tool_call(
        &self,
        cx: &HookContext<'_>,
        call: &ToolCall,
        problem: &InvalidToolCall,
        message: &mut String,
    ) {
        for h in &self.0 {
            h.on_invalid_tool_call(cx, call, problem, message).await;
        }
    }

    pub async fn on_error(&self, cx: &HookContext<'_>, error: &Error) {
        for h in &self.0 {
            h.on_error(cx, error).await;
        }
    }

    pub async fn before_model_call(&self, cx: &HookContext<'_>, call: &mut ModelCall<'_>) -> ModelCallDecision {
        for h in &self.0 {
            match h.before_model_call(cx, call).await {
                ModelCallDecision::Continue => {}
                stop => return stop,
            }
        }
        ModelCallDecision::Continue
    }

    pub async fn after_model_response(&self, cx: &HookContext<'_>, response: &mut ChatResponse) {
        for h in &self.0 {
            h.after_model_response(cx, response).await;
        }
    }

    /// The first word that is not "allow"; a replacement is passed on to the later hooks,
    /// which see the call with the new arguments.
    pub async fn before_tool_call(&self, cx: &HookContext<'_>, call: &ToolCall) -> ToolCallDecision {
        let mut replaced: Option<ToolCall> = None;
        for h in &self.0 {
            let current = replaced.as_ref().unwrap_or(call);
            match h.before_tool_call(cx, current).await {
                ToolCallDecision::Allow => {}
                ToolCallDecision::Replace(arguments) => {
                    replaced = Some(ToolCall { arguments, ..current.clone() });
                }
                other => return other,
            }
        }
        match replaced {
            Some(c) => ToolCallDecision::Replace(c.arguments),
            None => ToolCallDecision::Allow,
        }
    }

    pub async fn after_tool_result(&self, cx: &HookContext<'_>, call: &ToolCall, outcome: &mut ToolOutcome) {
        for h in &self.0 {
            h.after_tool_result(cx, call, outcome).await;
        }
    }

    pub async fn after_step(&self, cx: &HookContext<'_>, step: Step<'_>) {
        for h in &self.0 {
            h.after_step(cx, step).await;
        }
    }

    pub async fn turn_end(&self, cx: &HookContext<'_>, result: &AgentResult) {
        for h in &self.0 {
            h.turn_end(cx, result).await;
        }
    }
}

impl std::fmt::Debug for Hooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Hooks({})", self.0.len())
    }
}
