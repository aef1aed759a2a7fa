//! The `checklist` tool: the hybrid mode without a classification call.
//!
//! A request that is simple (a question, one lookup, one calculation) is answered at once;
//! one with several parts gets a checklist, which the model opens itself by calling this
//! tool with its steps and calls again as it ticks them off — the way coding agents keep
//! their to-do lists. Nothing is asked of the model before a message, so a simple message
//! costs what it costs without planning, and a model that never calls the tool simply
//! answers. The tool keeps no state: every call carries the whole list, so the list lives
//! in the conversation (and its history) like any other tool call.
//!
//! `lucid chat` offers it unless planning is off (`/plan never`), and shows the list as
//! ticked boxes; `lucid run --input` offers it to a `schema_design` request.

use std::sync::Arc;

use futures::future::BoxFuture;
use lucid::ToolError;
use lucid::tool::{Tool, ToolContext, ToolSpec};
use serde::Deserialize;
use serde_json::{Value, json};

/// The tool's name.
pub const NAME: &str = "checklist";

/// The most steps a list may have: a list longer than this is no longer a checklist.
const MAX_STEPS: usize = 20;

/// One step of the list, as the model sends it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Step {
    step: String,
    #[serde(default)]
    done: bool,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Args {
    steps: Vec<Step>,
}

/// The `checklist` tool (stateless: see the module docs).
pub struct Checklist {
    spec: ToolSpec,
}

/// The tool, ready for an agent's tools.
pub fn tool() -> Arc<dyn Tool> {
    // Kept short: the spec travels with every model call of the chat.
    let parameters = json!({
        "type": "object",
        "properties": {"steps": {"type": "array", "items": {
            "type": "object",
            "properties": {"step": {"type": "string"}, "done": {"type": "boolean"}},
            "required": ["step", "done"]
        }}},
        "required": ["steps"]
    });
    let description = "A checklist for a request with several parts: call it first with the steps, then \
        again with the whole list as each step is done. Not for a question, one lookup or one calculation: \
        answer those directly.";
    let spec = ToolSpec::new(NAME, description, parameters).expect("`checklist` is a valid tool name");
    Arc::new(Checklist { spec })
}

impl Tool for Checklist {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn invoke<'a>(&'a self, args: Value, _ctx: ToolContext) -> BoxFuture<'a, Result<String, ToolError>> {
        Box::pin(async move {
            let args: Args = serde_json::from_value(args).map_err(|e| {
                ToolError::new(format!("the checklist is {{\"steps\": [{{\"step\", \"done\"}}]}}: {e}"))
            })?;
            let steps: Vec<Step> = args.steps.into_iter().filter(|s| !s.step.trim().is_empty()).collect();
            if steps.is_empty() {
                return Err(ToolError::new(
                    "the checklist has no steps: a request that needs none is answered directly",
                ));
            }
            if steps.len() > MAX_STEPS {
                return Err(ToolError::new(format!(
                    "the checklist has {} steps; keep it to {MAX_STEPS} or fewer",
                    steps.len()
                )));
            }
            Ok(render(&steps))
        })
    }

    fn idempotent(&self) -> bool {
        true
    }
}

/// The list as the model reads it back and the chat shows it: a count, then one line per
/// step (`☑`/`☐`), then what to do next.
fn render(steps: &[Step]) -> String {
    let done = steps.iter().filter(|s| s.done).count();
    let mut out = format!("Checklist ({done}/{} done):\n", steps.len());
    for s in steps {
        let mark = if s.done { '☑' } else { '☐' };
        out.push_str(&format!("{mark} {}\n", s.step.trim().replace('\n', " ")));
    }
    out.push_str(if done == steps.len() {
        "All steps are done: answer the user."
    } else {
        "Work on the next open step; call checklist again when it is done."
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn call(args: Value) -> Result<String, ToolError> {
        tool().invoke(args, ToolContext::default()).await
    }

    #[tokio::test]
    async fn the_list_is_rendered_with_its_ticks_and_what_comes_next() {
        let out =
            call(json!({"steps": [{"step": "Read the schema", "done": true}, {"step": "Propose DDL", "done": false}]}))
                .await
                .unwrap();
        assert_eq!(
            out,
            "Checklist (1/2 done):\n☑ Read the schema\n☐ Propose DDL\n\
             Work on the next open step; call checklist again when it is done."
        );
        let all = call(json!({"steps": [{"step": "one", "done": true}]})).await.unwrap();
        assert!(all.ends_with("All steps are done: answer the user."), "{all}");
    }

    #[tokio::test]
    async fn an_empty_or_malformed_list_is_an_error_the_model_reads() {
        let empty = call(json!({"steps": [{"step": " ", "done": false}]})).await.unwrap_err();
        assert!(empty.to_string().contains("answered directly"), "{empty}");
        let wrong = call(json!({"items": []})).await.unwrap_err();
        assert!(wrong.to_string().contains("\"steps\""), "{wrong}");
        let long: Vec<Value> = (0..21).map(|i| json!({"step": format!("s{i}"), "done": false})).collect();
        assert!(call(json!({"steps": long})).await.unwrap_err().to_string().contains("21 steps"));
    }
}
