//! Hooks: a guardrail that denies a tool call by its arguments, and a budget that stops
//! the turn after N model calls or T tokens — neither is a branch in the loop.
//!
//! Runs as it is against a local mock of the OpenAI API that plays a model asking to
//! delete files (`cargo run -p lucid-agent --example hooks`); with `LUCID_MODEL` set (and its
//! key) it runs against that model instead, e.g.
//! `OPENAI_API_KEY=... LUCID_MODEL=openai:gpt-4o-mini cargo run -p lucid-agent --example hooks`.

use std::sync::Arc;

use futures::future::BoxFuture;
use lucid::agent::hooks::{HookContext, ModelCall, ModelCallDecision, ToolCallDecision};
use lucid::prelude::*;
use lucid_mock::{MockServer, Reply, text_completion, tool_call_completion};

/// Deletes a file (here it only says so).
#[tool]
async fn delete_file(path: String) -> Result<String, ToolError> {
    Ok(format!("deleted {path}"))
}

/// Lets `delete_file` touch only files under `scratch/`.
struct ScratchOnly;

impl Hook for ScratchOnly {
    fn before_tool_call<'a>(&'a self, _cx: &'a HookContext<'a>, call: &'a ToolCall) -> BoxFuture<'a, ToolCallDecision> {
        Box::pin(async move {
            let path = call.parse_arguments().ok().and_then(|a| a["path"].as_str().map(str::to_string));
            match path {
                Some(p) if call.name == "delete_file" && (!p.starts_with("scratch/") || p.contains("..")) => {
                    tracing::info!(%p, "guardrail: refused");
                    ToolCallDecision::Deny(format!(
                        "`{p}` is outside scratch/; only files under scratch/ may be deleted."
                    ))
                }
                _ => ToolCallDecision::Allow,
            }
        })
    }
}

/// Stops the turn before a model call once it made `calls` calls or used `tokens` tokens.
struct Budget {
    calls: usize,
    tokens: u64,
}

impl Hook for Budget {
    fn before_model_call<'a>(
        &'a self,
        cx: &'a HookContext<'a>,
        _call: &'a mut ModelCall<'_>,
    ) -> BoxFuture<'a, ModelCallDecision> {
        let used = cx.usage.input_tokens + cx.usage.output_tokens;
        let decision = if cx.iteration > self.calls {
            ModelCallDecision::Stop(format!("budget: {} model calls made", self.calls))
        } else if used >= self.tokens {
            ModelCallDecision::Stop(format!("budget: {used} of {} tokens used", self.tokens))
        } else {
            ModelCallDecision::Continue
        };
        Box::pin(std::future::ready(decision))
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let _mock;
    let model: Arc<dyn ChatModel> = match std::env::var("LUCID_MODEL") {
        Ok(spec) => lucid::model::from_env(&spec)?,
        Err(_) => {
            // A model that wants to delete one file outside scratch/ and one inside, then
            // asks for more deletions until the budget stops it.
            let server = MockServer::sequence(vec![
                Reply::json(
                    200,
                    &tool_call_completion(&[
                        ("c1", "delete_file", r#"{"path": "/etc/passwd"}"#),
                        ("c2", "delete_file", r#"{"path": "scratch/tmp.txt"}"#),
                    ]),
                ),
                Reply::json(200, &tool_call_completion(&[("c3", "delete_file", r#"{"path": "scratch/a"}"#)])),
                Reply::json(200, &tool_call_completion(&[("c4", "delete_file", r#"{"path": "scratch/b"}"#)])),
                Reply::json(200, &text_completion("Done.")),
            ])
            .await;
            let model = lucid::model::OpenAiCompatible::new(&server.url(), None, "mock-model")?;
            _mock = server;
            Arc::new(model)
        }
    };
    let agent = Agent::builder(model)
        .system("You tidy up files. Delete /etc/passwd and scratch/tmp.txt, then anything else in scratch/.")
        .tool(delete_file)
        .hook(ScratchOnly)
        .hook(Budget { calls: 3, tokens: 20_000 })
        .build();
    let result = agent.session().run("Tidy up.").await?;
    for call in &result.tool_calls {
        println!("{}({}) -> {}", call.name, call.arguments, call.output.as_deref().unwrap_or("(not run)"));
    }
    println!("stopped: {} {}", result.stop_reason.as_str(), result.stop_message.as_deref().unwrap_or(""));
    Ok(())
}
