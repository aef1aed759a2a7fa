//! The turn's decisions, without I/O: given what the model answered and where the turn
//! stands, what comes next. [`Session`](super::Session) carries each decision out.

use serde_json::Value;

use crate::message::AssistantMessage;
use crate::model::{ChatOptions, ChatResponse, ResponseFormat};

/// Where the turn stands when an answer arrives.
pub(crate) struct Facts<'a> {
    /// Model calls made in this turn, the one answered included.
    pub iterations: usize,
    pub max_iterations: usize,
    /// The structured report still to ask for, when the turn has one.
    pub report: Option<&'a ChatOptions>,
    /// How an answer in the application's shape asks questions.
    pub questions: Option<&'a crate::structured::QuestionsOf>,
}

/// What the turn does with a model's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Next {
    /// The tools are done and the answer is not the report yet: ask for it in one more
    /// call with the format and without tools. This answer is not kept.
    AskForReport,
    /// Out of iterations with a report to give: leave these calls out (answering them
    /// "not run" would read as their result to a small model) and ask for the report.
    ReportInstead,
    /// The answer is the turn's last word.
    Finish,
    /// Keep the message; its calls were cut off by the output token limit: answer them
    /// "not run" and end the turn (asking again usually hits the same limit).
    StopCutOff,
    /// Keep the message; the iteration limit is reached: answer its calls "not run" and
    /// end the turn.
    StopAtLimit,
    /// Keep the message and run its calls.
    RunTools,
}

/// Decides what follows an answer.
pub(crate) fn after_answer(message: &AssistantMessage, cut_off: bool, facts: &Facts<'_>) -> Next {
    if message.tool_calls.is_empty() {
        return match facts.report {
            Some(report) if !answers_format(report, &message.content, facts.questions) => Next::AskForReport,
            _ => Next::Finish,
        };
    }
    let at_limit = facts.iterations >= facts.max_iterations;
    if at_limit && facts.report.is_some() {
        return Next::ReportInstead;
    }
    if cut_off {
        Next::StopCutOff
    } else if at_limit {
        Next::StopAtLimit
    } else {
        Next::RunTools
    }
}

/// Whether `content` already is the answer a structured run asks for (JSON matching the
/// format), or questions for the user (which the extraction reports as they are).
fn answers_format(options: &ChatOptions, content: &str, questions: Option<&crate::structured::QuestionsOf>) -> bool {
    let schema = match &options.response_format {
        Some(ResponseFormat::JsonSchema { schema, .. }) => schema.clone(),
        _ => serde_json::json!({"type": "object"}),
    };
    crate::structured::parse::<Value>(content, &schema).is_ok()
        || crate::structured::questions_in(content, questions).is_some()
}

/// The JSON answer of a structured run delivered as a call to the schema's tool
/// (Anthropic answers a schema through a forced tool: its input is the answer).
pub(crate) fn structured_answer(options: Option<&ChatOptions>, response: &mut ChatResponse) {
    let Some(ResponseFormat::JsonSchema { name, .. }) = options.and_then(|o| o.response_format.as_ref()) else {
        return;
    };
    if let [call] = response.message.tool_calls.as_slice()
        && &call.name == name
    {
        let answer = call.arguments.clone();
        response.message.content = answer;
        response.message.tool_calls.clear();
    }
}

/// Whether a structured run with tools asks for its report last: servers that enforce a
/// schema with a grammar (llama.cpp, vLLM's guided decoding) would otherwise force the
/// report on the first call and never let a tool run.
pub(crate) fn report_last(options: &ChatOptions, has_tools: bool, format_with_tools: bool) -> bool {
    matches!(options.response_format, Some(ResponseFormat::JsonSchema { .. } | ResponseFormat::JsonObject))
        && has_tools
        && !format_with_tools
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::ToolCall;

    fn with_calls(n: usize) -> AssistantMessage {
        AssistantMessage {
            tool_calls: (0..n).map(|i| ToolCall::new(format!("c{i}"), "add", serde_json::json!({}))).collect(),
            ..Default::default()
        }
    }

    #[test]
    fn decisions() {
        let facts = |iterations, report| Facts { iterations, max_iterations: 3, report, questions: None };
        let text = AssistantMessage { content: "done".into(), ..Default::default() };
        assert_eq!(after_answer(&text, false, &facts(1, None)), Next::Finish);
        assert_eq!(after_answer(&with_calls(1), false, &facts(1, None)), Next::RunTools);
        assert_eq!(after_answer(&with_calls(1), true, &facts(1, None)), Next::StopCutOff);
        assert_eq!(after_answer(&with_calls(2), false, &facts(3, None)), Next::StopAtLimit);
        let report = ChatOptions { response_format: Some(ResponseFormat::JsonObject), ..Default::default() };
        assert_eq!(after_answer(&text, false, &facts(1, Some(&report))), Next::AskForReport);
        let json = AssistantMessage { content: "{\"a\": 1}".into(), ..Default::default() };
        assert_eq!(after_answer(&json, false, &facts(1, Some(&report))), Next::Finish);
        assert_eq!(after_answer(&with_calls(1), false, &facts(3, Some(&report))), Next::ReportInstead);
        let asks = serde_json::json!({"needs_interview": true, "questions": ["Which?"]}).to_string();
        let asks = AssistantMessage { content: asks, ..Default::default() };
        assert_eq!(after_answer(&asks, false, &facts(1, Some(&report))), Next::Finish, "the library's own shape");
        let mine = AssistantMessage { content: "QUESTION: which?".into(), ..Default::default() };
        assert_eq!(after_answer(&mine, false, &facts(1, Some(&report))), Next::AskForReport);
        let shape: crate::structured::QuestionsOf =
            std::sync::Arc::new(|a: &str| a.strip_prefix("QUESTION: ").map(|q| vec![q.to_string()]));
        let with_shape = Facts { iterations: 1, max_iterations: 3, report: Some(&report), questions: Some(&shape) };
        assert_eq!(after_answer(&mine, false, &with_shape), Next::Finish, "the application's shape");
    }
}
