//! `lucid run --output-format seed`: the answer in the seed's response shape, for programs
//! written against it.
//!
//! ```json
//! {"text": "There are 42 orders.",
//!  "toolCalls": [{"toolName": "sql_query", "callId": "call_1", "args": {"sql": "SELECT count(*) FROM orders"}}],
//!  "requiresToolCalls": true,
//!  "metadata": {"tokensUsed": 431, "model": "gpt-4o-mini", "timestamp": 1764012345678}}
//! ```
//!
//! `requiresToolCalls` says whether answering took tool calls (for a planned run, whether
//! any step ran: its calls stay inside the steps).
//!
//! `tokensUsed` is the input and output tokens of every model call of the run; `model` is
//! the model that answered (as configured, or a backup's `provider:model` after a switch); `timestamp` is when the answer
//! was written, in milliseconds since the Unix epoch (the seed's programs are Java and
//! JavaScript, whose clocks count milliseconds: `System.currentTimeMillis()`, `Date.now()`).
//! An answer that needs the user's answers first carries `"needsInterview": true` and the
//! `questions` in `metadata` (the seed's interview shape); nothing else is added, so a
//! strict reader of the shape accepts every answer. The exit code says how the run ended.

use std::borrow::Cow;

use serde::Serialize;
use serde_json::Value;

/// The seed's response.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SeedAnswer<'a> {
    text: Cow<'a, str>,
    tool_calls: Vec<SeedToolCall<'a>>,
    requires_tool_calls: bool,
    metadata: SeedMetadata<'a>,
}

/// One tool call the model made, with its arguments.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct SeedToolCall<'a> {
    tool_name: &'a str,
    call_id: &'a str,
    args: &'a Value,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct SeedMetadata<'a> {
    tokens_used: u64,
    model: &'a str,
    timestamp: u64,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    needs_interview: bool,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    questions: &'a [String],
}

impl<'a> SeedAnswer<'a> {
    /// A run's answer. `model` is the configured model's name, `primary` its
    /// `provider:model` label: a result answered by it says `model`, one a backup answered
    /// names the backup.
    pub fn of_run(r: &'a lucid::AgentResult, model: &'a str, primary: &str) -> Self {
        let tool_calls: Vec<SeedToolCall<'_>> = r
            .tool_calls
            .iter()
            .map(|c| SeedToolCall { tool_name: &c.name, call_id: &c.id, args: &c.arguments })
            .collect();
        let needs_interview = r.stop_reason == lucid::StopReason::NeedsInput;
        let text = if needs_interview { interview_text(&r.content) } else { Cow::Borrowed(r.content.as_str()) };
        SeedAnswer {
            text,
            requires_tool_calls: !tool_calls.is_empty(),
            tool_calls,
            metadata: SeedMetadata {
                tokens_used: r.usage.input_tokens + r.usage.output_tokens,
                model: r.model.as_deref().filter(|m| *m != primary).unwrap_or(model),
                timestamp: now_millis(),
                needs_interview,
                questions: &r.questions,
            },
        }
    }

    /// A planned run's answer (its steps' tool calls stay inside the steps; `steps_ran`:
    /// whether any ran).
    pub fn of_plan(answer: &'a str, usage: lucid::Usage, model: &'a str, steps_ran: bool) -> Self {
        SeedAnswer {
            text: Cow::Borrowed(answer),
            tool_calls: Vec::new(),
            requires_tool_calls: steps_ran,
            metadata: SeedMetadata {
                tokens_used: usage.input_tokens + usage.output_tokens,
                model,
                timestamp: now_millis(),
                needs_interview: false,
                questions: &[],
            },
        }
    }

    /// The answer as one line of JSON.
    pub fn to_line(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// The text of an answer that asks questions: the `text` of the seed's own shape when the
/// model wrote that, nothing when it wrote the questions as other JSON (they are in
/// `metadata`), else what it wrote.
fn interview_text(content: &str) -> Cow<'_, str> {
    let fenced = content.trim().trim_start_matches("```json").trim_start_matches("```").trim_end_matches("```");
    match serde_json::from_str::<Value>(fenced.trim()) {
        Ok(v) => Cow::Owned(v["text"].as_str().unwrap_or_default().to_string()),
        Err(_) => Cow::Borrowed(content),
    }
}

/// The seed's names for Lucid's tools, accepted in a request's `requiredTools`.
pub const TOOL_ALIASES: &[(&str, &str)] =
    &[("schema", "sql_schema"), ("history", "schema_history"), ("query", "sql_query"), ("migrate", "sql_migrate")];

/// Lucid's name of a tool a request names (the seed's alias, or the name itself).
pub fn tool_name(name: &str) -> &str {
    TOOL_ALIASES.iter().find(|(alias, _)| *alias == name).map_or(name, |(_, lucid)| lucid)
}

/// The questions an answer in the seed's interview shape asks: `{"text", "metadata":
/// {"needsInterview": true, "questions": […]}}`, or `needsInterview` and `questions` at the
/// top (a Markdown code fence around it accepted). The library knows its own
/// `needs_interview` shape; this one is the seed's, given to the agents
/// (`AgentBuilder::questions_in`) and read from a run's answer.
pub fn questions(answer: &str) -> Option<Vec<String>> {
    let text = answer.trim();
    let text = text.strip_prefix("```json").or_else(|| text.strip_prefix("```")).unwrap_or(text);
    let text = text.trim().strip_suffix("```").unwrap_or(text).trim();
    if !text.starts_with('{') {
        return None;
    }
    let v: Value = serde_json::from_str(text).ok()?;
    let inner = match v.get("metadata") {
        Some(m) if m.is_object() => m,
        _ => &v,
    };
    let flag = inner.get("needsInterview")?.as_bool()?;
    let questions: Vec<String> = inner
        .get("questions")?
        .as_array()?
        .iter()
        .filter_map(|q| q.as_str().map(str::trim).filter(|q| !q.is_empty()).map(str::to_string))
        .collect();
    (flag && !questions.is_empty()).then_some(questions)
}

/// The questions a run's answer asks, in the library's shape or the seed's.
pub fn questions_of(answer: &str) -> Option<Vec<String>> {
    lucid::structured::Interview::detect(answer).map(|i| i.questions).or_else(|| questions(answer))
}

fn now_millis() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_interviews_text_is_the_models_words_not_its_json() {
        let seed = r#"{"text": "Details first.", "metadata": {"needsInterview": true, "questions": ["Which?"]}}"#;
        assert_eq!(interview_text(seed), "Details first.");
        assert_eq!(interview_text("```json\n{\"needs_interview\": true, \"questions\": [\"Which?\"]}\n```"), "");
        assert_eq!(interview_text("Which city?"), "Which city?");
    }

    #[test]
    fn the_seeds_interview_shape_is_read_here_and_the_librarys_there() {
        let seed = r#"{"text": "Details first.", "metadata": {"needsInterview": true, "questions": ["Which?", " "]}}"#;
        assert_eq!(questions(seed).unwrap(), ["Which?"]);
        assert_eq!(questions(r#"{"needsInterview": true, "questions": ["Top?"]}"#).unwrap(), ["Top?"]);
        assert!(questions(r#"{"metadata": {"needsInterview": false, "questions": ["No?"]}}"#).is_none());
        assert!(questions("Paris").is_none());
        assert!(lucid::structured::Interview::detect(seed).is_none(), "the library no longer knows the seed");
        let library = "```json\n{\"needs_interview\": true, \"questions\": [\"Lib?\"]}\n```";
        assert_eq!(questions_of(library).unwrap(), ["Lib?"]);
        assert_eq!(questions_of(seed).unwrap(), ["Which?"]);
    }

    #[test]
    fn the_shape_is_the_seeds_in_its_order() {
        let usage = lucid::Usage { input_tokens: 30, output_tokens: 12, ..Default::default() };
        let line = SeedAnswer::of_plan("done", usage, "m", false).to_line();
        let (head, tail) = line.split_once("\"timestamp\":").unwrap();
        assert_eq!(
            head,
            r#"{"text":"done","toolCalls":[],"requiresToolCalls":false,"metadata":{"tokensUsed":42,"model":"m","#
        );
        let stamp: u64 = tail.strip_suffix("}}").unwrap().parse().unwrap();
        assert!(stamp > 1_700_000_000_000, "milliseconds since the epoch: {stamp}");
    }
}
