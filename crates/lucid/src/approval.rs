//! Approvals from outside the process: the calls a turn left waiting for a person's word,
//! and the answers that let it go on. Plain data, at the bottom of the library beside the
//! messages.
//!
//! An agent whose [`PermissionPolicy`](crate::tool::permission::PermissionPolicy) defers
//! its asks ([`defer_asks`](crate::tool::permission::PermissionPolicy::defer_asks)) ends a
//! turn with [`StopReason::Deferred`](crate::StopReason::Deferred) when the model calls a
//! tool marked `ask` and no approver is attached. The session keeps the waiting calls (in
//! its store, for a stored session: they survive restarts and can be answered from
//! another process); [`Session::pending_approvals`](crate::Session::pending_approvals)
//! lists them as [`PendingCall`]s, [`Session::decide`](crate::Session::decide) records one
//! [`Answer`], and [`Session::resume_with`](crate::Session::resume_with) records several
//! and goes on.
//!
//! ```
//! use lucid::approval::{Answer, Decision};
//! let yes = Answer::allow("call_1").remember();
//! let edited = Answer::edit("call_2", serde_json::json!({"command": "git status"}));
//! let no = Answer::deny("call_3", "Not on a Friday.");
//! assert!(yes.remember && matches!(edited.decision, Decision::Allow { arguments: Some(_) }));
//! let wire = serde_json::to_value(&no).unwrap();
//! assert_eq!(wire, serde_json::json!({"call_id": "call_3", "decision": "deny", "message": "Not on a Friday.", "remember": false}));
//! ```

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Metadata key prefix of one call's answer (`approval:CALL_ID`): one key per call, so two
/// answers written at once by two processes never overwrite each other.
pub const DECISION_KEY_PREFIX: &str = "approval:";
/// Metadata key prefix of a tool allowed for the rest of the session (`approved_tool:NAME`).
pub const REMEMBERED_KEY_PREFIX: &str = "approved_tool:";
/// Metadata key prefix of what a waiting call's tool says a person should read before
/// approving it (`review:CALL_ID`, [`Tool::review`](crate::tool::Tool::review)).
pub const REVIEW_KEY_PREFIX: &str = "review:";
/// Metadata key of the time (milliseconds since the Unix epoch) the waiting calls were
/// deferred.
pub const DEFERRED_AT_KEY: &str = "deferred_at";

/// A tool call waiting for approval.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PendingCall {
    /// The call's id (what an [`Answer`] names).
    pub call_id: String,
    /// The tool.
    pub tool: String,
    /// The arguments the model gave (a JSON string holding the raw text when they do not
    /// parse).
    pub arguments: Value,
    /// When the turn deferred it, milliseconds since the Unix epoch (`None` for calls
    /// deferred before this was kept).
    pub requested_at: Option<i64>,
    /// Whether an answer is recorded (the call runs, or is refused, at the next resume).
    pub answered: bool,
    /// What its tool says a person should read before approving it, made when the call
    /// was deferred ([`Tool::review`](crate::tool::Tool::review): a migration's rehearsal).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review: Option<String>,
}

/// What a person decided about one call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "decision", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Decision {
    /// Run it: with the model's arguments, or with these (a JSON object, checked against
    /// the tool's schema when the answer is recorded).
    Allow {
        /// Edited arguments.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        arguments: Option<Value>,
    },
    /// Do not run it; the model reads the message (a default one without it).
    Deny {
        /// What the model reads.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message: Option<String>,
    },
}

/// One answer: a call, its decision, and whether to allow its tool for the rest of the
/// session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Answer {
    /// The call answered.
    pub call_id: String,
    /// The decision.
    #[serde(flatten)]
    pub decision: Decision,
    /// Allow the call's tool for the rest of the session (an allow only).
    #[serde(default)]
    pub remember: bool,
}

impl Answer {
    /// Run the call as the model asked.
    pub fn allow(call_id: impl Into<String>) -> Self {
        Answer { call_id: call_id.into(), decision: Decision::Allow { arguments: None }, remember: false }
    }

    /// Run the call with these arguments instead.
    pub fn edit(call_id: impl Into<String>, arguments: Value) -> Self {
        Answer { call_id: call_id.into(), decision: Decision::Allow { arguments: Some(arguments) }, remember: false }
    }

    /// Refuse the call; the model reads `message`.
    pub fn deny(call_id: impl Into<String>, message: impl Into<String>) -> Self {
        Answer { call_id: call_id.into(), decision: Decision::Deny { message: Some(message.into()) }, remember: false }
    }

    /// Also allow the call's tool for the rest of the session.
    pub fn remember(mut self) -> Self {
        self.remember = true;
        self
    }
}

/// Why an answer was not recorded.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ApprovalError {
    /// No call of that id waits for approval in the session.
    #[error("no call `{call_id}` waits for approval in this session")]
    NotPending {
        /// The id answered.
        call_id: String,
    },
    /// The edited arguments do not match the tool's schema.
    #[error("the edited arguments of the call `{call_id}` of `{tool}` do not match its schema: {}", problems.join("; "))]
    InvalidArguments {
        /// The call.
        call_id: String,
        /// Its tool.
        tool: String,
        /// What is wrong, one problem a line.
        problems: Vec<String>,
    },
    /// `remember` was asked with a deny.
    #[error("`remember` allows a tool for the session; it goes with an allow, not a deny (call `{call_id}`)")]
    RememberDeny {
        /// The call.
        call_id: String,
    },
}

/// What a session knows of approvals: the answers given to its waiting calls, the tools
/// allowed for the rest of it, and when its calls were deferred. A hook reads it from
/// [`HookContext::approvals`](crate::agent::hooks::HookContext::approvals).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Approvals {
    decisions: BTreeMap<String, Decision>,
    remembered: BTreeSet<String>,
    reviews: BTreeMap<String, String>,
    deferred_at: Option<i64>,
}

impl Approvals {
    /// The decision recorded for a call.
    pub fn decision(&self, call_id: &str) -> Option<&Decision> {
        self.decisions.get(call_id)
    }

    /// Whether `tool` was allowed for the rest of the session.
    pub fn remembers(&self, tool: &str) -> bool {
        self.remembered.contains(tool)
    }

    /// What a waiting call's tool said a person should read before approving it.
    pub fn review(&self, call_id: &str) -> Option<&str> {
        self.reviews.get(call_id).map(String::as_str)
    }

    /// When the waiting calls were deferred (milliseconds since the Unix epoch).
    pub fn deferred_at(&self) -> Option<i64> {
        self.deferred_at
    }

    /// What a stored session's metadata holds.
    pub(crate) fn from_metadata(metadata: &Value) -> Self {
        let mut a = Approvals::default();
        let Some(map) = metadata.as_object() else { return a };
        for (k, v) in map {
            if let Some(id) = k.strip_prefix(DECISION_KEY_PREFIX)
                && let Ok(d) = serde_json::from_value::<Decision>(v.clone())
            {
                a.decisions.insert(id.to_string(), d);
            } else if let Some(id) = k.strip_prefix(REVIEW_KEY_PREFIX)
                && let Some(text) = v.as_str()
            {
                a.reviews.insert(id.to_string(), text.to_string());
            } else if let Some(tool) = k.strip_prefix(REMEMBERED_KEY_PREFIX)
                && v.as_bool() == Some(true)
            {
                a.remembered.insert(tool.to_string());
            }
        }
        a.deferred_at = map.get(DEFERRED_AT_KEY).and_then(Value::as_i64);
        a
    }

    /// Everything known, as the metadata keys a stored session keeps it under.
    pub(crate) fn to_metadata(&self) -> Map<String, Value> {
        let mut m = Map::new();
        for (id, d) in &self.decisions {
            m.insert(format!("{DECISION_KEY_PREFIX}{id}"), serde_json::to_value(d).unwrap_or(Value::Null));
        }
        for tool in &self.remembered {
            m.insert(format!("{REMEMBERED_KEY_PREFIX}{tool}"), Value::Bool(true));
        }
        for (id, text) in &self.reviews {
            m.insert(format!("{REVIEW_KEY_PREFIX}{id}"), Value::String(text.clone()));
        }
        if let Some(at) = self.deferred_at {
            m.insert(DEFERRED_AT_KEY.into(), Value::from(at));
        }
        m
    }

    /// Records an answer; the metadata patch that keeps it.
    pub(crate) fn record(&mut self, answer: &Answer) -> Value {
        let mut patch = Map::new();
        self.decisions.insert(answer.call_id.clone(), answer.decision.clone());
        patch.insert(
            format!("{DECISION_KEY_PREFIX}{}", answer.call_id),
            serde_json::to_value(&answer.decision).unwrap_or(Value::Null),
        );
        Value::Object(patch)
    }

    /// Remembers `tool` for the session; the metadata patch that keeps it.
    pub(crate) fn remember(&mut self, tool: &str) -> Value {
        self.remembered.insert(tool.to_string());
        serde_json::json!({ format!("{REMEMBERED_KEY_PREFIX}{tool}"): true })
    }

    /// Keeps a waiting call's review; the metadata patch that keeps it.
    pub(crate) fn set_review(&mut self, call_id: &str, review: String) -> (String, Value) {
        self.reviews.insert(call_id.to_string(), review.clone());
        (format!("{REVIEW_KEY_PREFIX}{call_id}"), Value::String(review))
    }

    /// Forgets the answers and reviews of calls no longer waiting and sets when the
    /// waiting ones were deferred; the metadata patch that does the same in the store.
    pub(crate) fn settle(&mut self, waiting: &[String], deferred_at: Option<i64>) -> Map<String, Value> {
        let mut patch = Map::new();
        let reviewed: Vec<String> = self.reviews.keys().filter(|id| !waiting.contains(id)).cloned().collect();
        for id in reviewed {
            self.reviews.remove(&id);
            patch.insert(format!("{REVIEW_KEY_PREFIX}{id}"), Value::Null);
        }
        let gone: Vec<String> = self.decisions.keys().filter(|id| !waiting.contains(id)).cloned().collect();
        for id in gone {
            self.decisions.remove(&id);
            patch.insert(format!("{DECISION_KEY_PREFIX}{id}"), Value::Null);
        }
        self.deferred_at = deferred_at;
        patch.insert(DEFERRED_AT_KEY.into(), deferred_at.map_or(Value::Null, Value::from));
        patch
    }
}

/// What the model reads when a call is refused without a message of the person's.
pub(crate) fn default_denial(tool: &str) -> String {
    format!("The user declined this call of `{tool}`. Do not repeat it; ask them or take another way.")
}

/// What the model reads when nobody answered in time.
pub fn expired_denial(tool: &str) -> String {
    format!("Nobody approved this call of `{tool}` in time; it was not run. Do not repeat it; take another way.")
}

/// Milliseconds since the Unix epoch.
pub(crate) fn now_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn answers_round_trip_through_metadata_and_settle_forgets_the_answered() {
        let mut a = Approvals::default();
        let mut meta = json!({});
        crate::store::merge_json(&mut meta, a.record(&Answer::edit("c1", json!({"x": 1}))));
        crate::store::merge_json(&mut meta, a.record(&Answer::deny("c2", "no")));
        crate::store::merge_json(&mut meta, a.remember("shell"));
        let (key, value) = a.set_review("c1", "Data lost: none".into());
        crate::store::merge_json(&mut meta, json!({ key: value }));
        let back = Approvals::from_metadata(&meta);
        assert_eq!(back, a);
        assert!(back.remembers("shell") && !back.remembers("python"));
        assert_eq!(back.review("c1"), Some("Data lost: none"));
        let patch = a.settle(&["c2".into()], Some(5));
        assert!(a.decision("c1").is_none() && a.decision("c2").is_some());
        assert!(a.review("c1").is_none(), "the review of a call no longer waiting is forgotten");
        crate::store::merge_json(&mut meta, Value::Object(patch));
        assert_eq!(Approvals::from_metadata(&meta), a);
        assert_eq!(Approvals::from_metadata(&Value::Object(a.to_metadata())), a);
    }
}
