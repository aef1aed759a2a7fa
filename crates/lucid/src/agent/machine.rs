//! The turn as a state machine without I/O: one serializable value, [`TurnState`], told
//! what happened ([`Event`]) and answering what to do next ([`Action`]). The session's
//! driver (`session/turn.rs`) does the I/O each action asks for and tells the result back;
//! the hooks take part at the driver's points.
//!
//! ```text
//!   Recovered ─► Stop(Cancelled) | Stop(Deferred: calls wait, no new message) | Open ─► Begin
//!   StepTaken ─► Commit (durable steps) | Continue
//!
//!            ┌────────────── Begin / ToolsDone (none waiting) ──────────────┐
//!            ▼                                                              │
//!       CallModel ── Answered ──► RunTools ── ToolsDone ─────────────────────┘
//!        │   ▲          │           └─ deferred ► Stop(Deferred), asked ► Stop(NeedsInput)
//!        │   └ AskAgain ┤ (the structured report, or a tighter window after OverWindow)
//!        │              ├─► Finish ► Stop(Completed)
//!        │              └─► KeepAndStop (calls answered "not run") ► MaxIterations | OutputLimit
//!        └─ Cancelled ► Stop(Cancelled), HookStopped ► Stop(Stopped | BudgetExceeded)
//! ```

use serde::{Deserialize, Serialize};

use super::decide::{self, Facts, Next};
use crate::message::AssistantMessage;
use crate::model::ChatOptions;
use crate::outcome::StopReason;

/// Why a call of the model's answer is answered without running.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum NotRun {
    /// The turn reached its iteration limit.
    Limit,
    /// Its arguments were cut off by the output token limit.
    Truncated,
    /// Another call of the step was cut off.
    StepCut,
}

impl NotRun {
    /// The result text the model reads.
    pub fn text(self) -> &'static str {
        match self {
            NotRun::Limit => "Not executed: the agent reached its iteration limit.",
            NotRun::Truncated => {
                "Not executed: the arguments were cut off by the output token limit. Call the tool again with shorter arguments."
            }
            NotRun::StepCut => "Not executed: another call of this step was cut off by the output token limit.",
        }
    }
}

/// What happened, told to the turn.
pub(crate) enum Event<'a> {
    /// The turn's start, after the calls a stored history left open were answered:
    /// whether that was cancelled, whether calls still wait for an approval, and whether a
    /// new user message came.
    Recovered { cancelled: bool, waiting: bool, prompted: bool },
    /// A step (the user's message, a model message with calls, a tool result) is in the
    /// history.
    StepTaken,
    /// The turn opened (the user's message in, the hooks' `before_turn` done).
    Begin,
    /// The run was cancelled (or a stop after the turn was asked for, between calls).
    Cancelled,
    /// A hook refused the model call: the turn stops with `reason`, `why` in words.
    HookStopped { reason: StopReason, why: String },
    /// The provider said the request is over its context window, with the estimate of
    /// what was sent.
    OverWindow { sent: usize },
    /// The model answered; `cut` lists the calls cut off by the output token limit.
    Answered { message: &'a AssistantMessage, cut: &'a [String], questions: Option<&'a crate::structured::QuestionsOf> },
    /// The answer's calls ran: some are deferred (waiting for an approval), some asked
    /// the user questions nobody could answer.
    ToolsDone { deferred: bool, questions: bool },
}

/// What the driver does next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Action {
    /// Give up the calls still waiting (a new message answers them "interrupted"), take the
    /// user's message in and run the hooks' `before_turn`; then [`Event::Begin`].
    Open,
    /// Commit the history to the store now (durable steps).
    Commit,
    /// Nothing to do at this point.
    Continue,
    /// Call the model with [`TurnState::options`], offering the tools unless
    /// [`TurnState::reporting`].
    CallModel,
    /// Drop the answer (its calls, if `record`, kept in the record as not run) and call
    /// the model again, as for [`Action::CallModel`].
    AskAgain { record: bool },
    /// Keep the answer: the turn is complete.
    Finish,
    /// Keep the answer, answer each of its calls "not run" for the reason given, and stop.
    KeepAndStop { not_run: Vec<(String, NotRun)>, reason: StopReason },
    /// Keep the answer and run its calls.
    RunTools,
    /// Fail with the provider's error: the window was tightened once already.
    Fail,
    /// The turn is over.
    Stop(StopReason),
}

/// Where a turn stands: every decision of the turn is made here, from this value alone.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct TurnState {
    /// Model calls made (the one under way included).
    pub iterations: usize,
    pub max_iterations: usize,
    /// Options for this run only (structured output).
    pub options: Option<ChatOptions>,
    /// A structured run with tools: the options of its report call, made once the model
    /// answers without calling a tool.
    pub report: Option<ChatOptions>,
    /// The report call is under way: no tools are offered.
    pub reporting: bool,
    /// A tighter token budget after the provider said the request was over its window
    /// (set once per turn: a second such error fails the turn).
    pub cap: Option<usize>,
    /// Why the turn stopped, in words.
    pub stop_message: Option<String>,
    /// The output token limit in force, for the words of an `OutputLimit` stop.
    pub max_tokens: Option<u32>,
    /// Each step is committed as it is taken ([`crate::AgentBuilder::durable_steps`]).
    pub durable: bool,
}

impl TurnState {
    /// A turn allowed `max_iterations` model calls, with this run's options; a structured
    /// run with tools on a model that cannot take both asks for its report last.
    pub fn new(max_iterations: usize, options: Option<&ChatOptions>, has_tools: bool, format_with_tools: bool) -> Self {
        let (options, report) = match options {
            Some(o) if decide::report_last(o, has_tools, format_with_tools) => {
                (Some(ChatOptions { response_format: None, ..o.clone() }), Some(o.clone()))
            }
            o => (o.cloned(), None),
        };
        TurnState { max_iterations, options, report, ..TurnState::default() }
    }

    /// The next action after `event`.
    pub fn on(&mut self, event: Event<'_>) -> Action {
        match event {
            Event::Recovered { cancelled: true, .. } => Action::Stop(StopReason::Cancelled),
            Event::Recovered { waiting: true, prompted: false, .. } => Action::Stop(StopReason::Deferred),
            Event::Recovered { .. } => Action::Open,
            Event::StepTaken if self.durable => Action::Commit,
            Event::StepTaken => Action::Continue,
            Event::Begin => self.call(),
            Event::Cancelled => Action::Stop(StopReason::Cancelled),
            Event::HookStopped { reason, why } => {
                // The call was not made.
                self.iterations -= 1;
                self.stop_message = Some(why);
                Action::Stop(reason)
            }
            Event::OverWindow { sent } => {
                if self.cap.is_some() {
                    return Action::Fail;
                }
                // Keep 60% of what was sent (older turns go first, never the current one).
                self.cap = Some(sent * 6 / 10);
                self.iterations -= 1;
                self.call()
            }
            Event::Answered { message, cut, questions } => self.answered(message, cut, questions),
            Event::ToolsDone { deferred: true, .. } => Action::Stop(StopReason::Deferred),
            Event::ToolsDone { questions: true, .. } => Action::Stop(StopReason::NeedsInput),
            Event::ToolsDone { .. } => self.call(),
        }
    }

    fn call(&mut self) -> Action {
        Action::CallModel
    }

    /// The driver makes the call [`Action::CallModel`] asked for (it was not cancelled
    /// first): it counts as an iteration, and the hooks see it counted.
    pub fn calling(&mut self) {
        self.iterations += 1;
    }

    fn answered(
        &mut self,
        message: &AssistantMessage,
        cut: &[String],
        questions: Option<&crate::structured::QuestionsOf>,
    ) -> Action {
        let facts = Facts {
            iterations: self.iterations,
            max_iterations: self.max_iterations,
            report: self.report.as_ref(),
            questions,
        };
        match decide::after_answer(message, !cut.is_empty(), &facts) {
            Next::AskForReport | Next::ReportInstead => {
                // Small models may never stop calling: their calls are left out and one
                // last call, without tools, asks for the report from the results so far.
                let record = !message.tool_calls.is_empty();
                self.options = self.report.take();
                self.reporting = true;
                Action::AskAgain { record }
            }
            Next::Finish => Action::Finish,
            Next::RunTools => Action::RunTools,
            Next::StopAtLimit => Action::KeepAndStop {
                not_run: message.tool_calls.iter().map(|c| (c.id.clone(), NotRun::Limit)).collect(),
                reason: StopReason::MaxIterations,
            },
            Next::StopCutOff => {
                let names: Vec<&str> =
                    message.tool_calls.iter().filter(|c| cut.contains(&c.id)).map(|c| c.name.as_str()).collect();
                let limit = match self.max_tokens {
                    Some(n) => format!("the output token limit ({n} tokens, ChatOptions::max_tokens)"),
                    None => "the model's output token limit (raise it with ChatOptions::max_tokens)".into(),
                };
                self.stop_message = Some(format!(
                    "the arguments of the tool call `{}` were cut off by {limit}; the turn ended instead of asking the model again",
                    names.join("`, `")
                ));
                let not_run = message
                    .tool_calls
                    .iter()
                    .map(|c| (c.id.clone(), if cut.contains(&c.id) { NotRun::Truncated } else { NotRun::StepCut }))
                    .collect();
                Action::KeepAndStop { not_run, reason: StopReason::OutputLimit }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::ToolCall;
    use crate::model::ResponseFormat;

    fn calls(n: usize) -> AssistantMessage {
        AssistantMessage {
            tool_calls: (0..n).map(|i| ToolCall::new(format!("c{i}"), "add", serde_json::json!({}))).collect(),
            ..Default::default()
        }
    }

    fn text(t: &str) -> AssistantMessage {
        AssistantMessage { content: t.into(), ..Default::default() }
    }

    /// The value goes through JSON between every two events, as a turn kept in a store
    /// would: the decisions are the same.
    fn through_json(t: &TurnState) -> TurnState {
        let back: TurnState = serde_json::from_str(&serde_json::to_string(t).unwrap()).unwrap();
        assert_eq!(&back, t);
        back
    }

    fn answered<'a>(m: &'a AssistantMessage) -> Event<'a> {
        Event::Answered { message: m, cut: &[], questions: None }
    }

    #[test]
    fn a_turn_with_tools_then_an_answer() {
        let mut t = TurnState::new(3, None, true, true);
        assert_eq!(t.on(Event::Begin), Action::CallModel);
        t.calling();
        let mut t = through_json(&t);
        assert_eq!(t.on(answered(&calls(1))), Action::RunTools);
        let mut t = through_json(&t);
        assert_eq!(t.on(Event::ToolsDone { deferred: false, questions: false }), Action::CallModel);
        t.calling();
        let mut t = through_json(&t);
        assert_eq!(t.on(answered(&text("5"))), Action::Finish);
        assert_eq!(t.iterations, 2);
    }

    #[test]
    fn stops_with_their_reasons() {
        let mut t = TurnState::new(1, None, true, true);
        t.on(Event::Begin);
        t.calling();
        let stop = t.on(answered(&calls(2)));
        let not_run = vec![("c0".to_string(), NotRun::Limit), ("c1".to_string(), NotRun::Limit)];
        assert_eq!(stop, Action::KeepAndStop { not_run, reason: StopReason::MaxIterations });

        let mut t = TurnState { max_tokens: Some(64), ..TurnState::new(5, None, true, true) };
        t.on(Event::Begin);
        t.calling();
        let cut = ["c1".to_string()];
        let stop = t.on(Event::Answered { message: &calls(2), cut: &cut, questions: None });
        let not_run = vec![("c0".to_string(), NotRun::StepCut), ("c1".to_string(), NotRun::Truncated)];
        assert_eq!(stop, Action::KeepAndStop { not_run, reason: StopReason::OutputLimit });
        assert!(t.stop_message.as_deref().unwrap().contains("(64 tokens"));

        let mut t = TurnState::new(5, None, true, true);
        t.on(Event::Begin);
        t.calling();
        assert_eq!(t.on(Event::ToolsDone { deferred: true, questions: true }), Action::Stop(StopReason::Deferred));
        assert_eq!(t.on(Event::ToolsDone { deferred: false, questions: true }), Action::Stop(StopReason::NeedsInput));
        t.calling();
        let why = "the budget is spent".to_string();
        assert_eq!(
            t.on(Event::HookStopped { reason: StopReason::BudgetExceeded, why }),
            Action::Stop(StopReason::BudgetExceeded)
        );
        assert_eq!(t.iterations, 1, "the refused call is not counted");
        assert_eq!(t.on(Event::Cancelled), Action::Stop(StopReason::Cancelled));
    }

    #[test]
    fn the_opening_and_the_commits() {
        let mut t = TurnState { durable: true, ..TurnState::default() };
        let opened = |cancelled, waiting, prompted| Event::Recovered { cancelled, waiting, prompted };
        assert_eq!(t.on(opened(true, true, true)), Action::Stop(StopReason::Cancelled));
        assert_eq!(t.on(opened(false, true, false)), Action::Stop(StopReason::Deferred), "calls wait, no message");
        assert_eq!(t.on(opened(false, true, true)), Action::Open, "a new message gives the waiting calls up");
        assert_eq!(t.on(opened(false, false, false)), Action::Open, "a resume");
        assert_eq!(t.on(Event::StepTaken), Action::Commit);
        let mut t = through_json(&TurnState::default());
        assert_eq!(t.on(Event::StepTaken), Action::Continue);
    }

    #[test]
    fn the_window_is_tightened_once() {
        let mut t = TurnState::new(5, None, false, true);
        t.on(Event::Begin);
        t.calling();
        assert_eq!(t.on(Event::OverWindow { sent: 1000 }), Action::CallModel);
        assert_eq!((t.cap, t.iterations), (Some(600), 0), "the refused call is not counted");
        let mut t = through_json(&t);
        assert_eq!(t.on(Event::OverWindow { sent: 600 }), Action::Fail);
    }

    #[test]
    fn a_structured_run_with_tools_asks_for_its_report_last() {
        let format = ChatOptions { response_format: Some(ResponseFormat::JsonObject), ..Default::default() };
        let mut t = TurnState::new(2, Some(&format), true, false);
        assert_eq!(t.options.as_ref().unwrap().response_format, None, "no format while tools run");
        t.on(Event::Begin);
        t.calling();
        assert_eq!(t.on(answered(&text("done"))), Action::AskAgain { record: false });
        assert!(t.reporting && t.report.is_none());
        assert_eq!(t.options.as_ref().unwrap().response_format, Some(ResponseFormat::JsonObject));
        let mut t = through_json(&t);
        assert_eq!(t.on(answered(&text("{\"a\": 1}"))), Action::Finish);

        let mut t = TurnState::new(1, Some(&format), true, false);
        t.on(Event::Begin);
        t.calling();
        assert_eq!(t.on(answered(&calls(1))), Action::AskAgain { record: true }, "out of calls: the report instead");
        assert_eq!(t.iterations, 1);
    }
}
