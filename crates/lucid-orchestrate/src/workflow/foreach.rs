//! The `foreach` step: its body once per item of a list, some at a time.

use std::sync::Arc;

use futures::{StreamExt, TryStreamExt};
use serde_json::{Map, Value, json};

use super::run::{Halt, Runner, unless_paused};
use super::step::Step;
use super::{WorkflowError, WorkflowEvent, lookup};

/// The list at `path` in `scope`: an array, or a string holding a JSON array (a tool's
/// or an agent's answer).
fn items(scope: &Map<String, Value>, path: &str) -> Result<Vec<Value>, String> {
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
    /// Runs `body` once per item of the list at `over` (failing the step's `attempt` when
    /// there is none), at most `concurrency` at a time; the output is
    /// the list of each run's last output, in the items' order. While a run goes,
    /// `{{ NAME.item }}` is its item and `{{ NAME.index }}` its place (from 0), and its
    /// steps' paths are under `PATH.INDEX.`. An item waiting for approval does not stop
    /// the others; the step waits once they are done.
    #[allow(clippy::too_many_arguments, reason = "the step's parts, as the runner holds them")]
    pub(super) async fn run_foreach(
        &self,
        step: &Step,
        over: &str,
        attempt: usize,
        body: &[Step],
        concurrency: usize,
        scope: &Arc<Map<String, Value>>,
        path: &str,
    ) -> Result<Value, Halt> {
        let items = items(scope, over).map_err(|message| {
            Halt::Failed(WorkflowError::StepFailed {
                step: step.name.clone(),
                attempts: attempt,
                message,
                source: None,
            })
        })?;
        let runs = futures::stream::iter(items.into_iter().enumerate())
            .map(|(index, item)| {
                let mut local = Arc::clone(scope);
                Arc::make_mut(&mut local).insert(step.name.clone(), json!({ "item": item, "index": index }));
                async move {
                    self.emit(WorkflowEvent::ForEachItem { step: step.name.clone(), index });
                    let prefix = format!("{path}.{index}.");
                    unless_paused(self.run_sequence(body, local, &prefix).await.map(|(_, last)| last))
                }
            })
            .buffered(concurrency.max(1));
        let outputs: Vec<Option<Value>> = runs.try_collect().await?;
        let outputs: Option<Vec<Value>> = outputs.into_iter().collect();
        outputs.map(Value::Array).ok_or(Halt::Paused)
    }
}
