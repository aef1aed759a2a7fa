//! What the model may write, as a Lark grammar for llguidance: plain text, or tool calls
//! whose JSON matches one of the offered tools' schemas, in the Hermes form Qwen is trained
//! on (`<tool_call>\n{"name": …, "arguments": {…}}\n</tool_call>`), as the bare JSON
//! object small Qwen models write, or in the Markdown fence they write as often
//! (`` ```json\n{…}\n``` ``): free text cannot open like any of these, so a call written
//! in any of these forms is a schema-checked call, never text. `tool_choice` narrows the choice (none: text only,
//! prose without braces or fences when the conversation has tools, since a small model writes its call as text;
//! required: calls only; a named tool: that tool only), and a response format replaces the
//! free text with JSON (any object, or one matching a schema). llguidance compiles the
//! JSON schemas itself (`%json`), so an invalid call cannot be sampled.

use lucid::model::{ChatOptions, ResponseFormat, ToolChoice};
use lucid::tool::ToolSpec;
use serde_json::{Value, json};

/// How the output of one call is to be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// Text only (no tools offered, or `tool_choice: none`).
    Text,
    /// Text or tool calls.
    TextOrCalls,
    /// Tool calls only.
    Calls,
}

/// The grammar of one call (`None`: unconstrained text) and how to read its output.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// A Lark grammar (llguidance's dialect), or none when anything goes.
    pub lark: Option<String>,
    /// Whether the output may hold tool calls.
    pub shape: Shape,
}

/// The grammar for `tools` under `options`; `relaxed` names tools whose parameter schema
/// llguidance rejected, which get "any JSON object" arguments instead.
pub fn plan(tools: &[ToolSpec], options: &ChatOptions, relaxed: &[String]) -> Plan {
    let answer = answer_rule(options.response_format.as_ref());
    let offered: Vec<&ToolSpec> = match &options.tool_choice {
        Some(ToolChoice::None) => Vec::new(),
        Some(ToolChoice::Tool(name)) => tools.iter().filter(|t| t.name() == name).collect(),
        _ => tools.iter().collect(),
    };
    if offered.is_empty() {
        let lark = match answer {
            Some(a) => Some(format!("start: {a}\n")),
            // Tools the conversation knows but this step does not offer (`tool_choice:
            // none`, as `RepeatedCalls` asks after a call made for nothing): a small model
            // still writes calls as text, opening like one, after an empty fence, or with a
            // key misspelt; this step's answer is prose, with no braces and no fences.
            None if !tools.is_empty() => Some(format!("start: PROSE\n{PROSE}")),
            None => None,
        };
        return Plan { lark, shape: Shape::Text };
    }
    let calls_only = matches!(options.tool_choice, Some(ToolChoice::Required | ToolChoice::Tool(_)));
    let schema = json!({ "anyOf": offered.iter().map(|t| call_schema(t, relaxed)).collect::<Vec<_>>() });
    // One call per answer unless parallel calls are asked for: small models, given the
    // room, repeat the same call several times in one answer.
    let calls = if options.parallel_tool_calls == Some(true) { "call (\"\\n\" call)*" } else { "call" };
    let mut lark = String::new();
    if calls_only {
        lark.push_str("start: calls\n");
    } else {
        let text = answer.unwrap_or_else(|| "TEXT".to_string());
        lark.push_str(&format!("start: answer | calls\nanswer: {text}\n"));
        lark.push_str(TEXT);
    }
    lark.push_str(&format!("calls: {calls}\n"));
    lark.push_str("call: \"<tool_call>\\n\" body \"\\n</tool_call>\" | body | \"```json\\n\" body \"\\n```\"\n");
    lark.push_str(&format!("body: %json {schema}\n"));
    Plan { lark: Some(lark), shape: if calls_only { Shape::Calls } else { Shape::TextOrCalls } }
}

/// Free text that does not open like a call: its first character is not `{` or `<`, and it
/// is not a fenced JSON object (another fence, a code answer, is text).
const TEXT: &str = "TEXT: /[^{<\\s](.|\\n)*/ & ~/```[a-zA-Z]*\\s*\\{(.|\\n)*/\n";

/// Text without braces or backticks, not opening with `<` or a space.
const PROSE: &str = "PROSE: /[^{}<`\\s][^{}`]*/\n";

/// The rule for an answer under a response format; `None` for free text.
fn answer_rule(format: Option<&ResponseFormat>) -> Option<String> {
    match format {
        Some(ResponseFormat::JsonObject) => Some(format!("%json {}", json!({"type": "object"}))),
        Some(ResponseFormat::JsonSchema { schema, .. }) => Some(format!("%json {schema}")),
        _ => None,
    }
}

/// `{"name": NAME, "arguments": PARAMETERS}`, nothing else.
fn call_schema(tool: &ToolSpec, relaxed: &[String]) -> Value {
    let parameters = if relaxed.iter().any(|r| r == tool.name()) || !tool.parameters().is_object() {
        json!({"type": "object"})
    } else {
        tool.parameters().clone()
    };
    json!({
        "type": "object",
        "properties": { "name": { "const": tool.name() }, "arguments": parameters },
        "required": ["name", "arguments"],
        "additionalProperties": false
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether the grammar `lark` accepts `text` whole, with llguidance itself over a
    /// one-byte-per-token vocabulary.
    fn accepts(lark: &str, text: &str) -> bool {
        let env = toktrie::ApproximateTokEnv::single_byte_env();
        let mut factory = llguidance::ParserFactory::new_simple(&env).unwrap();
        factory.quiet();
        let parser = factory.create_parser(llguidance::api::TopLevelGrammar::from_lark(lark.to_string())).unwrap();
        let mut m = llguidance::Matcher::new(Ok(parser));
        let tokens: Vec<u32> = text.bytes().map(u32::from).collect();
        m.consume_tokens(&tokens).is_ok() && m.is_accepting().unwrap_or(false)
    }

    #[test]
    fn a_call_in_any_form_is_schema_checked_and_text_cannot_pass_for_one() {
        let lark = plan(&[calc()], &ChatOptions::default(), &[]).lark.unwrap();
        let call = r#"{"name":"calculator","arguments":{"expression":"23*19"}}"#;
        for form in [format!("<tool_call>\n{call}\n</tool_call>"), call.to_string(), format!("```json\n{call}\n```")] {
            assert!(accepts(&lark, &form), "{form}");
        }
        // What a small model writes when free text may hold a fenced object: refused,
        // whether the call is wrong or right (a right one must be the fenced call form).
        assert!(!accepts(&lark, "```json\n{\"name\": \"calculator\", \"arguments\": {\"expr\": 1}}\n```"));
        assert!(!accepts(&lark, "```json\n{\"name\":\"nope\",\"arguments\":{}}\n```"));
        assert!(!accepts(&lark, r#"``` {"name":"calculator"}"#));
        // Answers stay free, code fences included.
        for text in ["The answer is 437.", "```python\nprint(23 * 19)\n```", "```json\n[1, 2]\n```", "Use `{x}`."] {
            assert!(accepts(&lark, text), "{text}");
        }
    }

    fn calc() -> ToolSpec {
        ToolSpec::new(
            "calculator",
            "math",
            json!({"type": "object", "properties": {"expression": {"type": "string"}}, "required": ["expression"]}),
        )
        .unwrap()
    }

    #[test]
    fn no_tools_and_no_format_is_unconstrained_text() {
        let p = plan(&[], &ChatOptions::default(), &[]);
        assert_eq!(p, Plan { lark: None, shape: Shape::Text });
        let none = ChatOptions { tool_choice: Some(ToolChoice::None), ..Default::default() };
        let p = plan(&[calc()], &none, &[]);
        assert_eq!(p.shape, Shape::Text);
        // Tools known but not offered: prose, which cannot hold a call.
        assert_eq!(p.lark.as_deref(), Some(format!("start: PROSE\n{PROSE}").as_str()));
    }

    #[test]
    fn tools_give_text_or_schema_checked_calls_and_required_gives_calls_only() {
        let auto = plan(&[calc()], &ChatOptions::default(), &[]);
        assert_eq!(auto.shape, Shape::TextOrCalls);
        let lark = auto.lark.unwrap();
        assert!(lark.starts_with("start: answer | calls\n"), "{lark}");
        assert!(lark.contains(r#""name":{"const":"calculator"}"#), "{lark}");
        assert!(lark.contains(r#""required":["expression"]"#), "the tool's own schema: {lark}");
        let required = ChatOptions { tool_choice: Some(ToolChoice::Required), ..Default::default() };
        let p = plan(&[calc()], &required, &[]);
        assert_eq!(p.shape, Shape::Calls);
        assert!(p.lark.unwrap().starts_with("start: calls\n"));
    }

    #[test]
    fn a_named_tool_choice_offers_that_tool_only_and_relaxed_tools_take_any_object() {
        let other = ToolSpec::new("other", "x", json!({"type": "object"})).unwrap();
        let only = ChatOptions { tool_choice: Some(ToolChoice::Tool("other".into())), ..Default::default() };
        let lark = plan(&[calc(), other], &only, &[]).lark.unwrap();
        assert!(!lark.contains("calculator") && lark.contains(r#""const":"other""#), "{lark}");
        let lark = plan(&[calc()], &ChatOptions::default(), &["calculator".into()]).lark.unwrap();
        assert!(!lark.contains("expression"), "{lark}");
        assert!(lark.contains("calls: call\n"), "one call per answer by default: {lark}");
        let parallel = ChatOptions { parallel_tool_calls: Some(true), ..Default::default() };
        assert!(plan(&[calc()], &parallel, &[]).lark.unwrap().contains("calls: call (\"\\n\" call)*\n"));
    }

    #[test]
    fn a_response_format_replaces_the_free_text() {
        let schema = json!({"type": "object", "properties": {"n": {"type": "integer"}}});
        let o = ChatOptions {
            response_format: Some(ResponseFormat::JsonSchema { name: "a".into(), schema, strict: true }),
            ..Default::default()
        };
        let p = plan(&[], &o, &[]);
        assert_eq!(p.shape, Shape::Text);
        assert!(p.lark.unwrap().starts_with("start: %json {"));
    }
}
