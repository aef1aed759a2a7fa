//! The `foreach` step: its body once per item of a list, some at a time.

use std::sync::Arc;

use futures::{StreamExt, TryStreamExt};
use serde_json::{Map, Value, json};

use super::step::Step;
use super::{Runner, WorkflowError, WorkflowEvent, lookup};

/// The list at `path` in `scope`: an array, or a string holding a JSON array (a tool's
/// or an agent's answer).
pub(super) fn items(scope: &Map<String, Value>, path: &str) -> Result<Vec<Value>, String> {
    match lookup(scope, path) {
        Some(Value::Array(items)) => Ok(items.clone()),
        Some(Value::String(s)) => match serde_json::from_str::<Value>(s) {
            Ok(Value::Array(items)) => Ok(items),
            _ => Err(format!("`{path}` is a text, not a list (a JSON array)")),
        },
        Some(other) => Err(format!("`{path}` is not a list: {other}")),
        None => Err(format!("`{path}` is not set")),
    }
}

impl Runner<'_> {
    /// Runs `body` once per item of `items`, at most `concurrency` at a time; the output is
    /// the list of each run's last output, in the items' order. While a run goes,
    /// `{{ NAME.item }}` is its item and `{{ NAME.index }}` its place (from 0).
    pub(super) async fn run_foreach(
        &self,
        step: &Step,
        items: Vec<Value>,
        body: &[Step],
        concurrency: usize,
        scope: &Arc<Map<String, Value>>,
    ) -> Result<Value, WorkflowError> {
        let runs = futures::stream::iter(items.into_iter().enumerate())
            .map(|(index, item)| {
                let mut local = Arc::clone(scope);
                Arc::make_mut(&mut local).insert(step.name.clone(), json!({ "item": item, "index": index }));
                async move {
                    self.emit(WorkflowEvent::ForEachItem { step: step.name.clone(), index });
                    self.run_sequence(body, local).await.map(|(_, last)| last)
                }
            })
            .buffered(concurrency.max(1));
        let outputs: Vec<Value> = runs.try_collect().await?;
        Ok(Value::Array(outputs))
    }
}
