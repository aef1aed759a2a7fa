//! The one agent factory of `lucid run`, `lucid chat` and `lucid serve`: resolved model
//! and settings become an [`AgentBuilder`] with the model, limits, call options, system
//! prompt, built-in and extra (MCP) tools, permission policy and context window.

use std::sync::Arc;

use lucid::tool::permission::Approver;
use lucid::tool::{Interviewer, Tool};
use lucid::{Agent, AgentBuilder};

use crate::config::{AgentSettings, ModelConfig};

/// Who answers for the user: `ask_user`'s questions and a tool's (`ToolContext::elicit`;
/// else the run stops with them) and a permission policy's `ask` (else the call is refused).
#[derive(Default, Clone)]
pub struct People {
    pub interviewer: Option<Arc<dyn Interviewer>>,
    pub approver: Option<Arc<dyn Approver>>,
}

/// The agent `cfg` and `settings` describe, with `extra` tools beside the built-in ones;
/// the caller adds a store if it keeps sessions.
pub async fn builder(
    cfg: &ModelConfig,
    settings: &AgentSettings,
    people: People,
    extra: &[Arc<dyn Tool>],
) -> anyhow::Result<AgentBuilder> {
    let mut b = Agent::builder(cfg.build()?)
        .max_iterations(settings.max_iterations)
        .options(settings.chat_options())
        .permissions(crate::tools::policy(settings, people.approver))
        .budget(settings.budget)
        // The seed's interview shape (`metadata.needsInterview`) asks the user, as the
        // library's own `needs_interview` does.
        .questions_in(Arc::new(crate::seed::questions));
    for (model, price) in &settings.prices {
        b = b.price(model.clone(), *price);
    }
    // Small models call a tool again for an answer they have; the in-process one is small.
    if settings.skip_repeated_calls.unwrap_or(cfg.provider == crate::config::LOCAL) {
        b = b.hook(lucid::hooks::RepeatedCalls::default());
    }
    if let Some(s) = &settings.system {
        b = b.system(s.clone());
    }
    // A tool's questions (`ToolContext::elicit`) are asked as `ask_user`'s are; without
    // anyone to ask, they stop the run with the question.
    #[cfg(feature = "mcp")]
    if let Some(i) = &people.interviewer {
        b = b.elicitor(crate::mcp::InterviewElicitor(Arc::clone(i), "tool"));
    }
    for t in crate::tools::build(settings, people.interviewer)? {
        b = b.tool_arc(t);
    }
    for t in extra {
        b = b.tool_arc(Arc::clone(t));
    }
    if let Some(window) = crate::config::context_window(cfg, settings).await {
        b = b.context_window(window, window / 4);
    }
    Ok(b)
}
