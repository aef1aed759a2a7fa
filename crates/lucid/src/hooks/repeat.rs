//! A tool called again for nothing: [`RepeatedCalls`].
//!
//! Small models repeat a call whose answer they already have: `calculator("23*19")` gives
//! 437, then the model calls `calculator("437")`, or the first call again, until the turn's
//! iterations run out. A framework sees what a model of that size cannot. This hook does
//! not run such a call: the model reads, as the call's result, that it was answered before
//! and what the answer was; and the next model call offers text only (`tool_choice:
//! none`), so the model answers from what it has.

use std::borrow::Cow;

use futures::future::BoxFuture;
use serde_json::Value;

use super::{Hook, HookContext, ModelCall, ModelCallDecision, ToolCallDecision};
use crate::message::{Message, ToolCall};
use crate::model::ToolChoice;

/// Leaves out a tool call that asks again what the conversation already answers: the same
/// tool with the same arguments (as JSON, whatever their spacing or key order) after a
/// result that is not an error, or a call whose arguments are only an earlier result of
/// the same tool. The step after a step of such calls offers text only.
///
/// On by default for the in-process model in `lucid`; any agent may attach it.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use lucid::prelude::*;
/// use lucid::hooks::RepeatedCalls;
/// use lucid::model::{ScriptedModel, ToolChoice};
/// use serde_json::json;
///
/// /// Computes an expression.
/// #[tool]
/// async fn calculator(expression: String) -> Result<String, ToolError> {
///     Ok(if expression == "23*19" { "437".into() } else { expression })
/// }
///
/// let model = ScriptedModel::new()
///     .call("calculator", json!({"expression": "23*19"}))
///     .call("calculator", json!({"expression": "437"}))
///     .text("23 * 19 = 437.");
/// let agent = Agent::builder(model.clone()).tool(calculator).hook(RepeatedCalls::default()).build();
/// let result = agent.session().run("What is 23 * 19?").await?;
/// assert_eq!(result.content, "23 * 19 = 437.");
/// // The second call did not run, and the last model call offered text only.
/// assert!(model.last_tool_results().last().unwrap().1.contains("answered 437 before"));
/// assert_eq!(model.requests().last().unwrap().options.tool_choice, Some(ToolChoice::None));
/// # Ok::<(), lucid::Error>(()) }).unwrap();
/// ```
#[derive(Debug, Clone, Copy, Default)]
#[non_exhaustive]
pub struct RepeatedCalls;

impl Hook for RepeatedCalls {
    fn before_tool_call<'a>(&'a self, cx: &'a HookContext<'a>, call: &'a ToolCall) -> BoxFuture<'a, ToolCallDecision> {
        let decision = match answered(cx.messages, call) {
            None => ToolCallDecision::Allow,
            Some(Answered::Same(result)) => ToolCallDecision::Deny(format!(
                "`{}` was called with these arguments before and answered {result}. Now reply to the user with that result in one sentence.",
                call.name
            )),
            Some(Answered::IsTheResult(result)) => ToolCallDecision::Deny(format!(
                "`{}` answered {result} before: that is the result. Now reply to the user with it in one sentence.",
                call.name
            )),
        };
        Box::pin(std::future::ready(decision))
    }

    fn before_model_call<'a>(
        &'a self,
        _cx: &'a HookContext<'a>,
        call: &'a mut ModelCall<'_>,
    ) -> BoxFuture<'a, ModelCallDecision> {
        if last_step_repeated(&call.messages) {
            call.options.to_mut().tool_choice = Some(ToolChoice::None);
        }
        Box::pin(std::future::ready(ModelCallDecision::Continue))
    }
}

/// How the conversation already answers a call.
#[derive(Debug, PartialEq)]
enum Answered<'m> {
    /// The same call, with this result.
    Same(&'m str),
    /// The call's arguments are this result of the same tool.
    IsTheResult(&'m str),
}

/// Whether `messages` answer `call` already (see [`RepeatedCalls`]).
fn answered<'m>(messages: &'m [Message], call: &ToolCall) -> Option<Answered<'m>> {
    let args = call.parse_arguments().ok()?;
    let leaves = leaves(&args);
    let mut found = None;
    for m in messages {
        let Message::Tool(r) = m else { continue };
        if r.is_error || r.name != call.name || r.call_id == call.id {
            continue;
        }
        let result = r.content.trim();
        if made(messages, &r.call_id).is_some_and(|earlier| earlier.parse_arguments().ok().as_ref() == Some(&args)) {
            return Some(Answered::Same(result));
        }
        if !result.is_empty() && !leaves.is_empty() && leaves.iter().all(|l| l.trim() == result) {
            found = Some(Answered::IsTheResult(result));
        }
    }
    found
}

/// The call with this id among the model's messages.
fn made<'m>(messages: &'m [Message], id: &str) -> Option<&'m ToolCall> {
    messages.iter().rev().find_map(|m| match m {
        Message::Assistant(a) => a.tool_calls.iter().find(|c| c.id == id),
        _ => None,
    })
}

/// The scalar values of a call's arguments, as text.
fn leaves(v: &Value) -> Vec<Cow<'_, str>> {
    match v {
        Value::Object(m) => m.values().flat_map(leaves).collect(),
        Value::Array(items) => items.iter().flat_map(leaves).collect(),
        Value::String(s) => vec![Cow::Borrowed(s.as_str())],
        Value::Null => Vec::new(),
        other => vec![Cow::Owned(other.to_string())],
    }
}

/// Whether the model's last message called tools and every call was one the conversation
/// before it already answered.
fn last_step_repeated(messages: &[Message]) -> bool {
    let Some(at) = messages.iter().rposition(|m| matches!(m, Message::Assistant(_))) else { return false };
    let Message::Assistant(last) = &messages[at] else { return false };
    !last.tool_calls.is_empty() && last.tool_calls.iter().all(|c| answered(&messages[..at], c).is_some())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::AssistantMessage;

    fn asked(id: &str, name: &str, args: &str) -> Message {
        let call = ToolCall { id: id.into(), name: name.into(), arguments: args.into(), signature: None };
        Message::Assistant(AssistantMessage { tool_calls: vec![call], ..Default::default() })
    }

    fn call(id: &str, name: &str, args: &str) -> ToolCall {
        ToolCall { id: id.into(), name: name.into(), arguments: args.into(), signature: None }
    }

    #[test]
    fn the_same_call_after_its_result_or_the_result_as_arguments_is_answered() {
        let history = [
            Message::user("What is 23 * 19?"),
            asked("c1", "calculator", r#"{"expression": "23*19"}"#),
            Message::tool_result("c1", "calculator", "437", false),
        ];
        let same = call("c2", "calculator", r#"{ "expression":"23*19" }"#);
        assert_eq!(answered(&history, &same), Some(Answered::Same("437")));
        let result_again = call("c2", "calculator", r#"{"expression": "437"}"#);
        assert_eq!(answered(&history, &result_again), Some(Answered::IsTheResult("437")));
        // Another tool, other arguments, or an earlier failure: run it.
        assert_eq!(answered(&history, &call("c2", "calc2", r#"{"expression": "23*19"}"#)), None);
        assert_eq!(answered(&history, &call("c2", "calculator", r#"{"expression": "23*20"}"#)), None);
        let failed = [
            asked("c1", "calculator", r#"{"expression": "23*19"}"#),
            Message::tool_result("c1", "calculator", "timed out", true),
        ];
        assert_eq!(answered(&failed, &same), None);
        // A call is never its own earlier answer.
        assert_eq!(answered(&history, &call("c1", "calculator", r#"{"expression": "23*19"}"#)), None);
    }

    #[test]
    fn only_a_step_of_answered_calls_is_followed_by_text_only() {
        let mut messages = vec![
            Message::user("What is 23 * 19?"),
            asked("c1", "calculator", r#"{"expression": "23*19"}"#),
            Message::tool_result("c1", "calculator", "437", false),
        ];
        assert!(!last_step_repeated(&messages), "a first call is not a repeat");
        messages.push(asked("c2", "calculator", r#"{"expression": "437"}"#));
        messages.push(Message::tool_result("c2", "calculator", "Not run: …", true));
        assert!(last_step_repeated(&messages));
        messages.push(asked("c3", "calculator", r#"{"expression": "1+1"}"#));
        assert!(!last_step_repeated(&messages));
    }
}
