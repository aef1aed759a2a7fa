//! `ask_user`: the tool an agent calls when it needs the user to clarify something.
//!
//! Where a person is at hand (a chat), an [`Interviewer`] asks the questions and the
//! answers go back to the model as the tool's output. Where nobody can answer (a script,
//! a server), the deferred form stops the run with [`StopReason::NeedsInput`] and the
//! questions in [`AgentResult::questions`]; the user's next message carries the answers.
//!
//! [`StopReason::NeedsInput`]: crate::StopReason::NeedsInput
//! [`AgentResult::questions`]: crate::AgentResult::questions

use std::sync::Arc;

use futures::FutureExt;
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Tool, ToolContext, ToolError, ToolSpec, parse_args};

/// Asks the user questions on the agent's behalf (a terminal prompt, a web form…).
///
/// ```
/// use futures::future::{BoxFuture, FutureExt};
/// struct Always(&'static str);
/// impl lucid::tool::Interviewer for Always {
///     fn ask<'a>(&'a self, questions: &'a [String]) -> BoxFuture<'a, Option<Vec<String>>> {
///         async move { Some(questions.iter().map(|_| self.0.to_string()).collect()) }.boxed()
///     }
/// }
/// let tool = lucid::tool::AskUser::new(std::sync::Arc::new(Always("yes")));
/// # use lucid::Tool;
/// assert_eq!(tool.spec().name(), "ask_user");
/// ```
pub trait Interviewer: Send + Sync + 'static {
    /// Asks `questions`; returns one answer per question, or `None` when the user cannot
    /// be asked now (the run then stops with the questions, as the deferred tool does).
    fn ask<'a>(&'a self, questions: &'a [String]) -> BoxFuture<'a, Option<Vec<String>>>;
}

/// The `ask_user` tool: questions for the user, answered by an [`Interviewer`] within the
/// run, or (nobody to ask) deferred to the user's next message with
/// [`StopReason::NeedsInput`](crate::StopReason::NeedsInput).
pub struct AskUser {
    spec: ToolSpec,
    interviewer: Option<Arc<dyn Interviewer>>,
}

impl std::fmt::Debug for AskUser {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AskUser").field("interactive", &self.interviewer.is_some()).finish()
    }
}

/// The arguments of `ask_user`.
#[derive(Deserialize, schemars::JsonSchema)]
struct AskArgs {
    /// The questions, each short and answerable on its own.
    #[schemars(length(min = 1))]
    questions: Vec<String>,
}

const DESCRIPTION: &str = "Ask the user clarifying questions when the task is ambiguous or information only \
     they have is missing. Ask everything you need at once; do not guess instead.";

impl AskUser {
    /// `ask_user` answered by `interviewer`.
    pub fn new(interviewer: Arc<dyn Interviewer>) -> Self {
        AskUser { spec: ToolSpec::for_args::<AskArgs>("ask_user", DESCRIPTION), interviewer: Some(interviewer) }
    }

    /// `ask_user` where nobody can answer now: calling it stops the run with the
    /// questions ([`ToolError::needs_input`]).
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// use lucid::Tool;
    /// let tool = lucid::tool::AskUser::deferred();
    /// let err = tool.invoke(serde_json::json!({"questions": ["Which city?"]}), Default::default()).await.unwrap_err();
    /// assert_eq!(err.questions(), ["Which city?"]);
    /// # });
    /// ```
    pub fn deferred() -> Self {
        AskUser { spec: ToolSpec::for_args::<AskArgs>("ask_user", DESCRIPTION), interviewer: None }
    }
}

impl Tool for AskUser {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn invoke<'a>(&'a self, args: Value, _ctx: ToolContext) -> BoxFuture<'a, Result<String, ToolError>> {
        async move {
            let AskArgs { questions } = parse_args(args)?;
            let answers = match &self.interviewer {
                Some(i) => i.ask(&questions).await,
                None => None,
            };
            let Some(answers) = answers else { return Err(ToolError::needs_input(questions)) };
            Ok(answers_json(&questions, &answers))
        }
        .boxed()
    }
}

/// One question and its answer, in that order whatever serde_json's features are.
#[derive(Serialize)]
struct Answered<'a> {
    question: &'a str,
    answer: &'a str,
}

/// The answers to questions as the JSON array the model reads:
/// `[{"question": …, "answer": …}, …]`, `"(no answer)"` where an answer is missing.
///
/// ```
/// let json = lucid::tool::answers_json(&["Which city?".to_string()], &[]);
/// assert_eq!(json, r#"[{"question":"Which city?","answer":"(no answer)"}]"#);
/// ```
pub fn answers_json(questions: &[String], answers: &[String]) -> String {
    let pairs: Vec<Answered<'_>> = questions
        .iter()
        .enumerate()
        .map(|(i, q)| Answered { question: q, answer: answers.get(i).map_or("(no answer)", String::as_str) })
        .collect();
    serde_json::to_string(&pairs).unwrap_or_else(|_| "[]".into())
}
