//! Reading the model's output as it is generated: text streams out as it comes; output that
//! opens like a tool call (`<tool_call>`, a bare `{` or a `` ```json `` fence) is held back
//! and read as calls at the end: Hermes `<tool_call>\n{"name": …, "arguments": {…}}\n</tool_call>`
//! blocks, bare JSON objects of that shape, or such objects in a fence.

use lucid::model::StreamEvent;
use lucid::model::stream::Assembler;
use serde_json::Value;

use crate::grammar::Shape;

const OPEN: &str = "<tool_call>";
const CLOSE: &str = "</tool_call>";
const FENCE: &str = "```json";
const FENCE_END: &str = "```";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Undecided,
    Text,
    Calls,
}

/// Turns generated text into stream events (through the [`Assembler`] that also builds the
/// final answer).
#[derive(Debug)]
pub struct OutputReader {
    shape: Shape,
    state: State,
    held: String,
}

impl OutputReader {
    /// A reader for output of this shape.
    pub fn new(shape: Shape) -> Self {
        let state = if shape == Shape::Text { State::Text } else { State::Undecided };
        OutputReader { shape, state, held: String::new() }
    }

    /// Feeds the next piece of generated text.
    pub fn push(&mut self, piece: &str, asm: &mut Assembler, out: &mut Vec<StreamEvent>) {
        match self.state {
            State::Text => asm.text(piece, out),
            State::Calls => self.held.push_str(piece),
            State::Undecided => {
                self.held.push_str(piece);
                let t = self.held.trim_start();
                if t.is_empty() || ((OPEN.starts_with(t) || FENCE.starts_with(t)) && self.shape != Shape::Text) {
                    return;
                }
                if t.starts_with('{') || t.starts_with(OPEN) || t.starts_with(FENCE) {
                    self.state = State::Calls;
                } else {
                    self.state = State::Text;
                    let held = std::mem::take(&mut self.held);
                    asm.text(&held, out);
                }
            }
        }
    }

    /// Ends the output: held-back calls are read and emitted. Output that opened like a call
    /// but holds none (cut short before its name) is kept as text.
    pub fn finish(self, asm: &mut Assembler, out: &mut Vec<StreamEvent>) {
        if self.state == State::Text || self.held.trim().is_empty() {
            return;
        }
        let calls = read_calls(&self.held);
        if calls.is_empty() {
            asm.text(&self.held, out);
            return;
        }
        for (i, (name, arguments)) in calls.iter().enumerate() {
            asm.tool_call(Some(i as u64), None, Some(name), Some(arguments), out);
        }
    }
}

/// The calls in `text`, in order, as (name, arguments JSON text). A call cut short keeps
/// its name and the arguments text as far as it got (the agent does not run a call whose
/// arguments are not JSON after a `length` finish).
pub fn read_calls(text: &str) -> Vec<(String, String)> {
    let mut calls = Vec::new();
    let mut rest = text.trim_start();
    while !rest.is_empty() {
        let tagged = rest.starts_with(OPEN);
        let fenced = !tagged && rest.starts_with(FENCE);
        if tagged {
            rest = rest[OPEN.len()..].trim_start();
        } else if fenced {
            rest = rest[FENCE.len()..].trim_start();
        }
        if !rest.starts_with('{') {
            break;
        }
        let mut values = serde_json::Deserializer::from_str(rest).into_iter::<Value>();
        match values.next() {
            Some(Ok(v)) => {
                let used = values.byte_offset();
                if let Some(name) = v.get("name").and_then(Value::as_str) {
                    let args = v.get("arguments").or_else(|| v.get("parameters")).cloned().unwrap_or(Value::Null);
                    let args = match args {
                        Value::String(s) => s,
                        Value::Null => "{}".to_string(),
                        other => other.to_string(),
                    };
                    calls.push((name.to_string(), args));
                }
                rest = rest[used..].trim_start();
                if tagged && rest.starts_with(CLOSE) {
                    rest = rest[CLOSE.len()..].trim_start();
                } else if fenced && rest.starts_with(FENCE_END) {
                    rest = rest[FENCE_END.len()..].trim_start();
                }
            }
            _ => {
                // Cut short: the name if it got that far, and the arguments' text so far.
                if let Some((name, args)) = cut_call(rest) {
                    calls.push((name, args));
                }
                break;
            }
        }
    }
    calls
}

fn cut_call(text: &str) -> Option<(String, String)> {
    let after = &text[text.find("\"name\"")? + 6..];
    let after = after.trim_start().strip_prefix(':')?.trim_start().strip_prefix('"')?;
    let name = &after[..after.find('"')?];
    let args = after.find("\"arguments\"").map_or("", |i| {
        let a = &after[i + 11..];
        a.trim_start().strip_prefix(':').unwrap_or(a).trim_start()
    });
    Some((name.to_string(), args.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(shape: Shape, pieces: &[&str]) -> (Vec<StreamEvent>, lucid::model::ChatResponse) {
        let mut reader = OutputReader::new(shape);
        let mut asm = Assembler::default();
        let mut out = Vec::new();
        for p in pieces {
            reader.push(p, &mut asm, &mut out);
        }
        reader.finish(&mut asm, &mut out);
        asm.set_finish("stop");
        (out, asm.finish(lucid::FinishReason::from_openai))
    }

    #[test]
    fn text_streams_as_it_comes() {
        let (events, r) = run(Shape::TextOrCalls, &["The", " answer", " is 4."]);
        assert_eq!(events[0], StreamEvent::TextDelta("The".into()), "not held back once it is text");
        assert_eq!(r.message.content, "The answer is 4.");
        assert!(r.message.tool_calls.is_empty());
    }

    #[test]
    fn hermes_and_bare_json_calls_are_read_into_tool_calls() {
        let (events, r) = run(
            Shape::TextOrCalls,
            &["<tool", "_call>\n{\"name\": \"calculator\", \"arguments\": {\"expression\": \"2+2\"}}\n</tool_call>"],
        );
        assert!(matches!(&events[0], StreamEvent::ToolCallStarted { name, .. } if name == "calculator"));
        assert_eq!(r.message.content, "");
        assert_eq!(r.message.tool_calls[0].arguments, r#"{"expression":"2+2"}"#);
        let (_, r) = run(
            Shape::TextOrCalls,
            &[" {\"name\": \"a\", \"arguments\": {}}\n{\"name\": \"b\", \"arguments\": {\"x\": 1}}"],
        );
        let names: Vec<_> = r.message.tool_calls.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["a", "b"]);
        assert_eq!(r.finish_reason, Some(lucid::FinishReason::ToolCalls));
        let (events, r) = run(
            Shape::TextOrCalls,
            &["``", "`json\n{\"name\": \"calculator\", \"arguments\": {\"expression\": \"1\"}}\n```"],
        );
        assert!(!events.iter().any(|e| matches!(e, StreamEvent::TextDelta(_))), "a fenced call is no text: {events:?}");
        assert_eq!(r.message.tool_calls[0].name, "calculator");
        assert_eq!(r.message.content, "");
        let (_, r) = run(Shape::TextOrCalls, &["```json\n[1, 2]\n```"]);
        assert_eq!(r.message.content, "```json\n[1, 2]\n```", "a fenced value that is no call is text");
    }

    #[test]
    fn text_only_output_is_never_read_as_calls_and_a_cut_call_keeps_its_name() {
        let (_, r) = run(Shape::Text, &["{\"name\": \"a\", \"arguments\": {}}"]);
        assert!(r.message.tool_calls.is_empty());
        assert_eq!(r.message.content, "{\"name\": \"a\", \"arguments\": {}}");
        assert_eq!(
            read_calls("<tool_call>\n{\"name\": \"calc\", \"arguments\": {\"expr"),
            [("calc".to_string(), "{\"expr".to_string())]
        );
        let (_, r) = run(Shape::TextOrCalls, &["<tool_"]);
        assert_eq!(r.message.content, "<tool_", "an unfinished tag with no call is text");
    }
}
