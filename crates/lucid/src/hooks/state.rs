//! What a hook keeps with a session ([`HookState`]) and what it may change when a turn
//! opens ([`TurnStart`]).

use std::collections::BTreeSet;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::context::Context;
use crate::error::{Error, Result};
use crate::message::Usage;
use crate::model::ChatModel;
use crate::tokens::TokenCounter;

/// State that hooks keep with a session: JSON values under keys of their choosing. A stored
/// session writes each changed key to its store's metadata (at its top level) with the
/// turn, and loads them back with the session, so the state lives and goes with it. A
/// session kept only in memory keeps it as long as it lives; a dropped turn puts it back
/// as it was.
///
/// Lucid's own keys (the spend, deferred calls, approvals) cannot be written here; the
/// built-in memory keeps its summaries under [`SUMMARIES_KEY`](crate::store::SUMMARIES_KEY).
///
/// ```
/// use lucid::hooks::HookState;
/// let mut state = HookState::default();
/// state.set("notes", vec!["the user's cat is Tom"])?;
/// assert_eq!(state.get::<Vec<String>>("notes").unwrap(), ["the user's cat is Tom"]);
/// assert!(state.set("spend", 1).is_err(), "Lucid's own key");
/// state.set_local("seen", 3);
/// assert_eq!(state.get::<u32>("seen"), Some(3));
/// # Ok::<(), lucid::Error>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HookState {
    kept: Map<String, Value>,
    changed: BTreeSet<String>,
    local: Map<String, Value>,
}

impl HookState {
    /// The state in a stored session's metadata: every key but Lucid's own.
    pub(crate) fn from_metadata(metadata: &Value) -> Self {
        let kept = metadata
            .as_object()
            .map(|m| m.iter().filter(|(k, _)| !is_reserved(k)).map(|(k, v)| (k.clone(), v.clone())).collect())
            .unwrap_or_default();
        HookState { kept, ..HookState::default() }
    }

    /// The value under `key` (kept or local), read as `T`; `None` when there is none or
    /// it does not read as `T` (said in the log: state written by another version).
    pub fn get<T: DeserializeOwned>(&self, key: &str) -> Option<T> {
        let value = self.value(key)?;
        serde_json::from_value(value.clone())
            .inspect_err(|e| tracing::warn!(key, error = %e, "hook state cannot be read; ignored"))
            .ok()
    }

    /// The value under `key` as JSON: the local one first, then the kept one.
    pub fn value(&self, key: &str) -> Option<&Value> {
        self.local.get(key).or_else(|| self.kept.get(key))
    }

    /// Keeps `value` under `key` with the session (written to its store with the turn).
    /// Fails on a key Lucid keeps itself, or a value that is not JSON.
    pub fn set(&mut self, key: &str, value: impl Serialize) -> Result<()> {
        if is_reserved(key) {
            return Err(Error::Config(format!(
                "`{key}` is a key Lucid keeps itself in a session's metadata; a hook keeps its state under a key of its own"
            )));
        }
        let value = serde_json::to_value(value)
            .map_err(|e| Error::Config(format!("the hook state `{key}` is not JSON: {e}")))?;
        if self.kept.get(key) != Some(&value) {
            self.kept.insert(key.to_string(), value);
            self.changed.insert(key.to_string());
        }
        Ok(())
    }

    /// Forgets `key` (removed from the store with the turn).
    pub fn remove(&mut self, key: &str) {
        self.local.remove(key);
        if self.kept.remove(key).is_some() {
            self.changed.insert(key.to_string());
        }
    }

    /// Keeps `value` under `key` in this process only: what the store need not hold (what
    /// the last turn recalled, a cache). It hides a kept value of the same key.
    pub fn set_local(&mut self, key: &str, value: impl Serialize) {
        match serde_json::to_value(value) {
            Ok(v) => {
                self.local.insert(key.to_string(), v);
            }
            Err(e) => tracing::warn!(key, error = %e, "local hook state is not JSON; not kept"),
        }
    }

    /// The keys changed since the store last took them, as a metadata patch (a removed
    /// key as `null`); `None` when nothing changed.
    pub(crate) fn changes(&self) -> Option<Value> {
        if self.changed.is_empty() {
            return None;
        }
        let patch: Map<String, Value> =
            self.changed.iter().map(|k| (k.clone(), self.kept.get(k).cloned().unwrap_or(Value::Null))).collect();
        Some(Value::Object(patch))
    }

    /// The store took the changes.
    pub(crate) fn saved(&mut self) {
        self.changed.clear();
    }

    /// Forgets everything: each kept key is removed from the store at the next save.
    pub(crate) fn clear(&mut self) {
        let keys: Vec<String> = self.kept.keys().cloned().collect();
        self.changed.extend(keys);
        self.kept.clear();
        self.local.clear();
    }
}

/// A key Lucid keeps itself in a session's metadata.
fn is_reserved(key: &str) -> bool {
    key == crate::store::SPEND_KEY
        || key == crate::store::DEFERRED_KEY
        || key == crate::approval::DEFERRED_AT_KEY
        || key.starts_with(crate::approval::DECISION_KEY_PREFIX)
        || key.starts_with(crate::approval::REMEMBERED_KEY_PREFIX)
}

/// A turn opening, as [`Hook::before_turn`](super::Hook::before_turn) sees it: the user's
/// message is the window's last, nothing is sent yet.
#[non_exhaustive]
pub struct TurnStart<'a> {
    /// The text of the user's message.
    pub prompt: &'a str,
    /// The session's window. A hook may rewrite it: summarise or drop older turns, pin
    /// what to recall ([`Context::set_recall`]). When it changes messages the store
    /// already holds, it sets [`TurnStart::rewritten`].
    pub context: &'a mut Context,
    /// The session's hook state ([`HookState`]).
    pub state: &'a mut HookState,
    /// What the hook's own model calls used (summaries): counted in the turn's usage and
    /// cost, priced as the agent's model.
    pub usage: Usage,
    /// Messages the store already holds were changed: the turn's save writes the whole
    /// history instead of appending.
    pub rewritten: bool,
    /// The agent's model (for a summary call).
    pub model: &'a dyn ChatModel,
    /// How the agent counts tokens.
    pub counter: &'a dyn TokenCounter,
    /// What the provider counted over the counter's estimate, smoothed (multiply an
    /// estimate by it).
    pub calibration: f64,
    /// The window's token budget, when the agent or its model has one.
    pub window_budget: Option<usize>,
    /// The stored session's id.
    pub session_id: Option<&'a str>,
}

impl std::fmt::Debug for TurnStart<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TurnStart")
            .field("prompt", &self.prompt)
            .field("messages", &self.context.len())
            .field("usage", &self.usage)
            .field("rewritten", &self.rewritten)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_are_a_patch_and_lucid_keys_stay_out() {
        let metadata = serde_json::json!({"notes": [1], "spend": {"usd": 1.0}, "approval:c1": {}});
        let mut s = HookState::from_metadata(&metadata);
        assert_eq!(s.value("notes"), Some(&serde_json::json!([1])));
        assert_eq!(s.value("spend"), None, "Lucid's own keys are not hook state");
        assert!(s.changes().is_none());
        s.set("notes", [1]).unwrap();
        assert!(s.changes().is_none(), "the same value is no change");
        s.set("notes", [2]).unwrap();
        s.remove("gone");
        s.set("other", "x").unwrap();
        assert_eq!(s.changes(), Some(serde_json::json!({"notes": [2], "other": "x"})));
        s.saved();
        s.clear();
        assert_eq!(s.changes(), Some(serde_json::json!({"notes": null, "other": null})));
        assert!(s.set("approved_tool:shell", true).is_err());
    }
}
