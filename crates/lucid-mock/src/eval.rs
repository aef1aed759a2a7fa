//! The `eval-bench` task: a calculator model for an evaluation harness's benchmark. A
//! question `What is A + B?…` gets a call to the `add` tool with `{"a": A, "b": B}`; once
//! the request carries the tool's result `R` the answer is `The answer is R.` The server
//! counts what it answered, so a benchmark can check that every case really made its two
//! model calls: `POST …/stats` answers `{"tool_calls": T, "answers": A, "other": O}`.

use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{Value, json};

use crate::{RecordedRequest, Reply, text_reply, tool_call_reply};

/// The eval task's model, with its counters (see the module's documentation).
///
/// ```
/// use lucid_mock::eval::EvalModel;
/// use lucid_mock::{RecordedRequest, Reply};
/// let model = EvalModel::default();
/// let ask = |messages: serde_json::Value| RecordedRequest {
///     path: "/v1/chat/completions".into(),
///     headers: vec![],
///     body: serde_json::json!({"messages": messages}).to_string().into(),
/// };
/// let Reply::Body { body, .. } = model.reply(&ask(serde_json::json!([{"role": "user", "content": "What is 40 + 2?"}])))
/// else { panic!("a body") };
/// assert!(String::from_utf8_lossy(&body).contains(r#"{\"a\":40,\"b\":2}"#));
/// let Reply::Body { body, .. } = model.reply(&ask(serde_json::json!([
///     {"role": "user", "content": "What is 40 + 2?"},
///     {"role": "tool", "tool_call_id": "call_add", "content": "42"},
/// ]))) else { panic!("a body") };
/// assert!(String::from_utf8_lossy(&body).contains("The answer is 42."));
/// assert_eq!(model.stats(), serde_json::json!({"tool_calls": 1, "answers": 1, "other": 0}));
/// ```
#[derive(Debug, Default)]
pub struct EvalModel {
    tool_calls: AtomicU64,
    answers: AtomicU64,
    other: AtomicU64,
}

impl EvalModel {
    /// The reply to one request: `…/stats` gives the counters, any other path is a model
    /// call (streamed when the request says `"stream": true`).
    pub fn reply(&self, req: &RecordedRequest) -> Reply {
        if req.path.ends_with("/stats") {
            return Reply::json(200, &self.stats());
        }
        let body = req.json();
        let stream = body["stream"].as_bool().unwrap_or(false);
        let last = body["messages"].as_array().and_then(|m| m.last()).cloned().unwrap_or_default();
        if last["role"] == "tool" {
            self.answers.fetch_add(1, Ordering::Relaxed);
            let result = match &last["content"] {
                Value::String(s) => s.trim().trim_matches('"').to_string(),
                other => other.to_string(),
            };
            return text_reply(stream, &format!("The answer is {result}."));
        }
        match operands(&req.last_user()) {
            Some((a, b)) => {
                self.tool_calls.fetch_add(1, Ordering::Relaxed);
                let args = json!({"a": a, "b": b}).to_string();
                tool_call_reply(stream, &[("call_add", "add", &args)])
            }
            None => {
                self.other.fetch_add(1, Ordering::Relaxed);
                text_reply(stream, "I do not know.")
            }
        }
    }

    /// The counters: tool calls made, answers given after a tool result, other replies.
    pub fn stats(&self) -> Value {
        json!({
            "tool_calls": self.tool_calls.load(Ordering::Relaxed),
            "answers": self.answers.load(Ordering::Relaxed),
            "other": self.other.load(Ordering::Relaxed),
        })
    }
}

/// `A` and `B` of `What is A + B?…`.
fn operands(question: &str) -> Option<(i64, i64)> {
    let sum = question.split_once("What is ")?.1.split_once('?')?.0;
    let (a, b) = sum.split_once(" + ")?;
    Some((a.trim().parse().ok()?, b.trim().parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::operands;

    #[test]
    fn reads_the_operands_of_a_sum_and_nothing_else() {
        assert_eq!(operands("What is 2 + 3? Use the add tool."), Some((2, 3)));
        assert_eq!(operands("Quick: What is -7 + 1200?"), Some((-7, 1200)));
        assert_eq!(operands("What is a + b?"), None);
        assert_eq!(operands("What is 2 + 3"), None);
    }
}
