//! The repair pass that keeps every history valid (DESIGN promise 2).
//!
//! [`repair`] runs before every request and after every reload. It makes the history one
//! every provider accepts: each assistant tool call is answered by exactly one tool result,
//! placed right after it in call order; a call that never got a result (a crash, a timeout,
//! a cancellation, an iteration limit) gets an explicit "interrupted" error result; tool
//! results that answer nothing are dropped, and so are assistant messages with neither text
//! nor calls; a call id used twice (some servers number calls per answer) is renamed with
//! its result. It never reorders turns and never cuts one in the middle.

use std::collections::HashSet;

use crate::message::mint_call_id;
use crate::message::{Message, ToolResult};

/// The text of the result added for a call that never got one.
pub const INTERRUPTED: &str = "The tool call was interrupted before it returned a result.";

/// What [`repair`] changed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RepairReport {
    /// Tool results dropped because no preceding assistant message made that call.
    pub orphaned_results_dropped: usize,
    /// Duplicate results for one call that were dropped.
    pub duplicate_results_dropped: usize,
    /// "Interrupted" results added for unanswered calls.
    pub interrupted_results_added: usize,
    /// Empty assistant messages dropped.
    pub empty_messages_dropped: usize,
    /// Messages before the first user message (after the system prompt) dropped.
    pub leading_messages_dropped: usize,
    /// Tool calls whose id was empty or already used earlier, given a fresh id (their
    /// results follow the rename). Anthropic rejects a request with two equal ids.
    pub duplicate_ids_renamed: usize,
}

impl RepairReport {
    /// True when nothing had to change.
    pub fn is_clean(&self) -> bool {
        *self == RepairReport::default()
    }
}

/// Repairs `messages` in place; see the module docs.
///
/// ```
/// use lucid::{Message, ToolCall};
/// use lucid::history::{repair, validate};
/// use lucid::message::AssistantMessage;
/// let mut h = vec![
///     Message::user("weather?"),
///     Message::Assistant(AssistantMessage {
///         tool_calls: vec![ToolCall::new("a", "weather", serde_json::json!({})),
///                          ToolCall::new("b", "weather", serde_json::json!({}))],
///         ..Default::default()
///     }),
///     Message::tool_result("b", "weather", "sunny", false),
///     Message::tool_result("zzz", "weather", "orphan", false),
/// ];
/// let report = repair(&mut h);
/// assert_eq!((report.interrupted_results_added, report.orphaned_results_dropped), (1, 1));
/// assert!(validate(&h).is_ok());
/// assert!(matches!(&h[2], Message::Tool(r) if r.call_id == "a" && r.is_error));
/// assert!(matches!(&h[3], Message::Tool(r) if r.call_id == "b" && !r.is_error));
/// ```
pub fn repair(messages: &mut Vec<Message>) -> RepairReport {
    let mut report = RepairReport::default();
    if validate(messages).is_ok() {
        return report;
    }
    let input = std::mem::take(messages);
    let mut out: Vec<Message> = Vec::with_capacity(input.len() + 2);
    let mut seen: HashSet<String> = HashSet::new();
    let mut iter = input.into_iter().peekable();
    while let Some(m) = iter.next() {
        match m {
            Message::Assistant(a) if a.is_empty() => report.empty_messages_dropped += 1,
            Message::Assistant(mut a) if !a.tool_calls.is_empty() => {
                let mut results: Vec<ToolResult> = Vec::new();
                while let Some(Message::Tool(_)) = iter.peek() {
                    if let Some(Message::Tool(r)) = iter.next() {
                        results.push(r);
                    }
                }
                let mut answers = Vec::with_capacity(a.tool_calls.len());
                for call in &mut a.tool_calls {
                    let answer = results.iter().position(|r| r.call_id == call.id).map(|p| results.remove(p));
                    if call.id.is_empty() || !seen.insert(call.id.clone()) {
                        call.id = mint_call_id();
                        seen.insert(call.id.clone());
                        report.duplicate_ids_renamed += 1;
                    }
                    answers.push(match answer {
                        Some(mut r) => {
                            r.call_id.clone_from(&call.id);
                            Message::Tool(r)
                        }
                        None => {
                            report.interrupted_results_added += 1;
                            Message::tool_result(call.id.clone(), call.name.clone(), INTERRUPTED, true)
                        }
                    });
                }
                let answered: HashSet<&str> = a.tool_calls.iter().map(|c| c.id.as_str()).collect();
                for r in &results {
                    if answered.contains(r.call_id.as_str())
                        || answers.iter().any(|m| matches!(m, Message::Tool(t) if t.call_id == r.call_id))
                    {
                        report.duplicate_results_dropped += 1;
                    } else {
                        report.orphaned_results_dropped += 1;
                    }
                }
                out.push(Message::Assistant(a));
                out.extend(answers);
            }
            Message::Tool(_) => report.orphaned_results_dropped += 1,
            other => out.push(other),
        }
    }
    let start = out.iter().take_while(|m| matches!(m, Message::System { .. })).count();
    let first_user =
        out[start..].iter().position(|m| matches!(m, Message::User { .. })).map_or(out.len(), |p| p + start);
    if first_user > start {
        report.leading_messages_dropped += first_user - start;
        out.drain(start..first_user);
    }
    *messages = out;
    report
}

/// Checks that a history is one every provider accepts; the error says what is wrong.
///
/// ```
/// use lucid::Message;
/// assert!(lucid::history::validate(&[Message::system("s"), Message::user("hi"), Message::assistant("hello")]).is_ok());
/// assert!(lucid::history::validate(&[Message::user("hi"), Message::tool_result("x", "t", "out", false)]).is_err());
/// ```
pub fn validate(messages: &[Message]) -> Result<(), String> {
    let mut i = 0;
    let mut seen_user = false;
    let mut seen_ids: HashSet<&str> = HashSet::new();
    while i < messages.len() {
        match &messages[i] {
            Message::System { .. } if i == 0 => {}
            Message::System { .. } => {}
            Message::User { .. } => seen_user = true,
            Message::Tool(r) => {
                return Err(format!("message {i}: tool result for `{}` follows no tool call", r.call_id));
            }
            Message::Assistant(a) => {
                if !seen_user {
                    return Err(format!("message {i}: an assistant message comes before any user message"));
                }
                if a.is_empty() {
                    return Err(format!("message {i}: assistant message with neither text nor tool calls"));
                }
                for (k, c) in a.tool_calls.iter().enumerate() {
                    if !seen_ids.insert(c.id.as_str()) {
                        return Err(format!("message {i}: tool call id `{}` is used twice", c.id));
                    }
                    match messages.get(i + 1 + k) {
                        Some(Message::Tool(r)) if r.call_id == c.id => {}
                        _ => {
                            return Err(format!(
                                "message {i}: tool call `{}` is not answered at position {}",
                                c.id,
                                i + 1 + k
                            ));
                        }
                    }
                }
                i += a.tool_calls.len();
            }
        }
        i += 1;
    }
    Ok(())
}
