//! The usual subject: a Lucid agent, built afresh for each attempt, given the case's
//! inputs as its prompt (or as a conversation) with the case's attachments.

use std::path::Path;

use futures::FutureExt;
use futures::future::BoxFuture;
use lucid::agent::budget::Budget;
use lucid::store::encoding::MAX_ATTACHMENT_BYTES;
use lucid::{AgentBuilder, Message, Part, Session, StopReason};
use serde_json::Value;

use super::{Outcome, Subject, Trial};
use crate::trajectory::Call;

/// Runs an agent on each case: `make` builds it for the attempt (pointing its provider at
/// [`Trial::base_url`] when a cassette is in use), the runner attaches the case's budget,
/// and the case's inputs are the prompt (text as it is; other JSON as its text).
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use lucid::model::ScriptedModel;
/// use lucid_eval::run::{AgentSubject, Runner};
/// let model = ScriptedModel::new().text("4");
/// let subject = AgentSubject::new(move |_trial| Ok(lucid::Agent::builder(model.clone())));
/// let dataset = lucid_eval::Dataset::from_yaml(
///     "cases: [{inputs: 'What is 2 + 2?', expected_output: '4'}]\nevaluators: [EqualsExpected]",
///     "sums.yaml",
/// ).unwrap();
/// let report = Runner::new().run(&dataset, &subject).await;
/// assert_eq!(report.summary.passed, 1);
/// # });
/// ```
pub struct AgentSubject<F> {
    make: F,
}

impl<F> AgentSubject<F>
where
    F: Fn(&Trial<'_>) -> Result<AgentBuilder, String> + Send + Sync,
{
    /// A subject whose agent `make` builds for each attempt.
    pub fn new(make: F) -> Self {
        AgentSubject { make }
    }
}

impl<F> std::fmt::Debug for AgentSubject<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AgentSubject")
    }
}

impl<F> Subject for AgentSubject<F>
where
    F: Fn(&Trial<'_>) -> Result<AgentBuilder, String> + Send + Sync,
{
    fn run<'a>(&'a self, trial: &'a Trial<'a>) -> BoxFuture<'a, Result<Outcome, String>> {
        async move { run_agent((self.make)(trial)?, trial).await }.boxed()
    }
}

/// Runs the agent `builder` makes on a case attempt: attaches the attempt's budget, gives
/// the case's inputs as the prompt (text as it is; a conversation, a list of `{role,
/// content}` messages ending with the user's, as the history and its last message; other
/// JSON as its text), with the case's attachments, and reads the outcome from the run's
/// result. What [`AgentSubject`] does, for a subject that builds
/// its agent some other way (asynchronously, from a configuration).
pub async fn run_agent(mut builder: AgentBuilder, trial: &Trial<'_>) -> Result<Outcome, String> {
    let budget = Budget::default().run(trial.limits);
    if !budget.is_unlimited() {
        builder = builder.budget(budget);
    }
    let agent = builder.build();
    let (history, prompt) = conversation(&trial.case.inputs);
    let mut parts = Vec::new();
    for name in &trial.case.attachments {
        parts.push(attachment(trial.folder, name)?);
    }
    let mut session = Session::with_messages(agent, history);
    let result = if parts.is_empty() {
        session.run(prompt).await
    } else {
        parts.insert(0, Part::text(prompt));
        session.run_parts(parts).await
    };
    let result = result.map_err(|e| e.to_string())?;
    let over_budget = (result.stop_reason == StopReason::BudgetExceeded)
        .then(|| result.stop_message.clone().unwrap_or_else(|| "the case's budget was spent".into()));
    Ok(Outcome {
        output: Value::String(result.content),
        calls: result.tool_calls.into_iter().map(|c| Call::new(c.name, c.arguments)).collect(),
        tokens: result.usage.input_tokens + result.usage.output_tokens,
        model_calls: result.iterations as u64,
        cost_usd: result.cost_usd,
        over_budget,
        workdir: None,
    })
}

/// The history and the prompt of a case's inputs: a conversation (`[{role, content}, …]`,
/// roles `system`, `user` and `assistant`, the last one the user's) is the history before
/// its last message; anything else is a prompt alone (text as it is, other JSON as its text).
fn conversation(inputs: &Value) -> (Vec<Message>, String) {
    let as_prompt = || match inputs {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let Some(items) = inputs.as_array().filter(|a| !a.is_empty()) else { return (Vec::new(), as_prompt()) };
    let mut messages = Vec::new();
    for item in items {
        let (Some(role), Some(content)) = (item["role"].as_str(), item["content"].as_str()) else {
            return (Vec::new(), as_prompt());
        };
        messages.push((role, content));
    }
    match messages.pop() {
        Some(("user", last)) => {
            let mut history = Vec::new();
            for (role, content) in messages {
                history.push(match role {
                    "system" => Message::system(content),
                    "user" => Message::user(content),
                    "assistant" => Message::assistant(content),
                    _ => return (Vec::new(), as_prompt()),
                });
            }
            (history, last.to_string())
        }
        _ => (Vec::new(), as_prompt()),
    }
}

/// A case's attachment, read from the dataset's folder (bounded as Lucid bounds any
/// attachment) and sent as what its content is.
fn attachment(folder: Option<&Path>, name: &str) -> Result<Part, String> {
    let path = crate::dataset::inside(folder, name).map_err(|e| format!("attachment {e}"))?;
    let size = std::fs::metadata(&path).map_err(|e| format!("attachment {}: {e}", path.display()))?.len();
    if size > MAX_ATTACHMENT_BYTES as u64 {
        return Err(format!("attachment {}: {size} bytes, over the {MAX_ATTACHMENT_BYTES}-byte limit", path.display()));
    }
    let bytes = std::fs::read(&path).map_err(|e| format!("attachment {}: {e}", path.display()))?;
    let file_name = path.file_name().map(|n| n.to_string_lossy().into_owned());
    Part::from_file_bytes(bytes, file_name.as_deref())
        .ok_or_else(|| format!("attachment {}: not an image, PDF, audio or text file", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_conversation_is_its_history_and_its_last_user_message() {
        let (history, prompt) = conversation(&json!([
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "My name is Ann."},
            {"role": "assistant", "content": "Hello Ann."},
            {"role": "user", "content": "What is my name?"}
        ]));
        assert_eq!(prompt, "What is my name?");
        assert_eq!(
            history,
            [Message::system("Be brief."), Message::user("My name is Ann."), Message::assistant("Hello Ann.")]
        );
        // Not a conversation (it ends with the assistant): the JSON is the prompt.
        let ends_with_assistant = json!([{"role": "assistant", "content": "last"}]);
        let (history, prompt) = conversation(&ends_with_assistant);
        assert!(history.is_empty());
        assert_eq!(prompt, ends_with_assistant.to_string());
        assert_eq!(conversation(&json!("hi")).1, "hi");
        assert_eq!(conversation(&json!([1, 2])).1, "[1,2]");
    }

    #[test]
    fn an_attachment_is_read_from_the_datasets_folder_or_says_why_not() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("notes.txt"), "remember the milk").unwrap();
        let part = attachment(Some(dir.path()), "notes.txt").unwrap();
        assert!(part.describe().contains("notes.txt"), "{}", part.describe());
        let e = attachment(Some(dir.path()), "missing.png").unwrap_err();
        assert!(e.starts_with("attachment ") && e.contains("missing.png"), "{e}");
    }
}
