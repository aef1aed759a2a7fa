//! The chat template of a GGUF file (`tokenizer.chat_template`, Jinja), rendered with
//! minijinja the way Hugging Face `transformers.apply_chat_template` renders it: the
//! conversation as OpenAI-shaped messages, the tools as `{"type": "function", "function":
//! {...}}`, a Python-compatible `tojson`, Python's string methods (pycompat),
//! `raise_exception` and `strftime_now`, and trimmed blocks.
//!
//! The template comes with the model file, from whoever uploaded it, so it runs under
//! bounds: its source is at most [`MAX_SOURCE`] bytes, a rendering runs at most [`FUEL`]
//! instructions and writes at most the output bound given at construction, `tojson` nests
//! at most [`MAX_JSON_DEPTH`] deep with an indent of at most [`MAX_INDENT`], and a
//! rendering that writes nothing is an error. Each bound is a clear error, not an abort.

use std::fmt::Write as _;

use lucid::Message;
use lucid::tool::ToolSpec;
use minijinja::{Environment, ErrorKind, Value as JValue};
use serde_json::{Value, json};

/// The largest chat template compiled: real ones are a few kilobytes (the longest known,
/// with many tool-call formats, under 64 KiB).
pub const MAX_SOURCE: usize = 256 << 10;
/// Instructions one rendering may run: a conversation of thousands of messages with tools
/// takes well under a tenth of it; a template that loops runs out.
pub const FUEL: u64 = 5_000_000;
/// The largest `indent` of `tojson` (Python's `json.dumps` takes any; templates use 2 or 4).
pub const MAX_INDENT: usize = 16;
/// How deep `tojson` follows nested values (a namespace that holds itself is infinitely
/// deep).
pub const MAX_JSON_DEPTH: usize = 128;

/// A compiled chat template and the special tokens it may name.
#[derive(Debug)]
pub struct ChatTemplate {
    env: Environment<'static>,
    bos: String,
    eos: String,
    max_output: usize,
}

/// The template's name inside its environment.
const NAME: &str = "chat";

impl ChatTemplate {
    /// Compiles `source`; `bos` and `eos` are the model's special tokens as text;
    /// `max_output` bounds what one rendering writes, in bytes.
    pub fn new(source: &str, bos: &str, eos: &str, max_output: usize) -> Result<Self, String> {
        if source.len() > MAX_SOURCE {
            return Err(format!(
                "the chat template is {} bytes, over the {MAX_SOURCE} a chat template may have",
                source.len()
            ));
        }
        if source.trim().is_empty() {
            return Err("the chat template is empty".into());
        }
        let mut env = Environment::new();
        env.set_trim_blocks(true);
        env.set_lstrip_blocks(true);
        env.set_keep_trailing_newline(false);
        env.set_fuel(Some(FUEL));
        env.set_unknown_method_callback(minijinja_contrib::pycompat::unknown_method_callback);
        env.add_filter("tojson", move |value: JValue, kwargs: minijinja::value::Kwargs| {
            tojson(value, kwargs, max_output)
        });
        env.add_function("raise_exception", |msg: String| -> Result<JValue, minijinja::Error> {
            Err(minijinja::Error::new(ErrorKind::InvalidOperation, msg))
        });
        env.add_function("strftime_now", |format: String| strftime_now(&format));
        // `{% generation %}` (assistant-mask markers of some templates) has no meaning here.
        let source = source.replace("{% generation %}", "").replace("{% endgeneration %}", "");
        env.add_template_owned(NAME, source).map_err(|e| format!("the chat template does not compile: {e}"))?;
        Ok(ChatTemplate { env, bos: bos.to_string(), eos: eos.to_string(), max_output })
    }

    /// The prompt for `messages` and `tools`, ending with the assistant's generation prompt.
    /// An empty prompt is an error: there is nothing for the model to continue.
    pub fn render(&self, messages: &[Message], tools: &[ToolSpec]) -> Result<String, String> {
        let prompt = self.render_with(messages, tools, true)?;
        if prompt.trim().is_empty() {
            return Err("the chat template rendered an empty prompt".into());
        }
        Ok(prompt)
    }

    /// The fixed prefix every conversation of an agent starts with: what the template
    /// writes before the first user message's text (the system prompt, a default one if the
    /// template has it, the tools, the user turn's header). Found as the common start of two
    /// renderings that differ only in that text, so it holds for any template. Empty when
    /// the conversation has no user message.
    pub fn render_prefix(&self, messages: &[Message], tools: &[ToolSpec]) -> Result<String, String> {
        let Some(first) = messages.iter().position(|m| matches!(m, Message::User { .. })) else {
            return Ok(String::new());
        };
        let with = |text: &str| {
            let mut m = messages[..=first].to_vec();
            m[first] = Message::user(text);
            self.render_with(&m, tools, false)
        };
        let (a, b) = (with("A")?, with("B")?);
        let end =
            a.char_indices().zip(b.chars()).find(|((_, x), y)| x != y).map_or(a.len().min(b.len()), |((i, _), _)| i);
        Ok(a[..end].to_string())
    }

    fn render_with(&self, messages: &[Message], tools: &[ToolSpec], generate: bool) -> Result<String, String> {
        let messages: Vec<JValue> = messages.iter().map(|m| JValue::from_serialize(message_json(m))).collect();
        // Ordered maps (minijinja's preserve_order): the keys of a tool reach the prompt in
        // the order transformers writes them, as the model saw them in training.
        let tools: Vec<JValue> = tools
            .iter()
            .map(|t| {
                let function = JValue::from_iter([
                    ("name", JValue::from(t.name())),
                    ("description", JValue::from(t.description())),
                    ("parameters", JValue::from_serialize(t.parameters())),
                ]);
                JValue::from_iter([("type", JValue::from("function")), ("function", function)])
            })
            .collect();
        let mut ctx: Vec<(&str, JValue)> = vec![
            ("messages", JValue::from(messages)),
            ("add_generation_prompt", JValue::from(generate)),
            // Qwen3: answer without a thinking block (an agent's turns stay short and cheap).
            ("enable_thinking", JValue::from(false)),
            ("bos_token", JValue::from(self.bos.as_str())),
            ("eos_token", JValue::from(self.eos.as_str())),
        ];
        if !tools.is_empty() {
            ctx.push(("tools", JValue::from(tools)));
        }
        let ctx = JValue::from_iter(ctx);
        let template = self.env.get_template(NAME).map_err(|e| e.to_string())?;
        let mut out = Bounded { bytes: Vec::new(), max: self.max_output, over: false };
        match template.render_captured_to(ctx, &mut out) {
            Ok(_) => {}
            Err(_) if out.over => {
                return Err(format!(
                    "rendering the chat template: its output is over {} bytes (the bound for this context window)",
                    self.max_output
                ));
            }
            Err(e) if e.kind() == ErrorKind::OutOfFuel => {
                return Err(format!(
                    "rendering the chat template: it ran over {FUEL} instructions (a template that loops?)"
                ));
            }
            Err(e) => return Err(format!("rendering the chat template: {e}")),
        }
        String::from_utf8(out.bytes).map_err(|_| "rendering the chat template: its output is not UTF-8".into())
    }
}

/// Where a rendering writes: refuses to grow past `max` bytes.
struct Bounded {
    bytes: Vec<u8>,
    max: usize,
    over: bool,
}

impl std::io::Write for Bounded {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.bytes.len() + buf.len() > self.max {
            self.over = true;
            return Err(std::io::Error::other("the chat template's output is over its bound"));
        }
        self.bytes.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// One message as the templates expect it (OpenAI's shape; a tool call's arguments as an
/// object, which templates pass through `tojson`).
fn message_json(m: &Message) -> Value {
    match m {
        Message::System { content } => json!({"role": "system", "content": content}),
        Message::User { content, .. } => json!({"role": "user", "content": content}),
        Message::Assistant(a) => {
            let mut v = json!({"role": "assistant", "content": a.content});
            if !a.tool_calls.is_empty() {
                let calls: Vec<Value> = a
                    .tool_calls
                    .iter()
                    .map(|c| {
                        let args = c.parse_arguments().unwrap_or_else(|_| Value::String(c.arguments.clone()));
                        json!({"id": c.id, "type": "function", "function": {"name": c.name, "arguments": args}})
                    })
                    .collect();
                v["tool_calls"] = Value::Array(calls);
            }
            v
        }
        Message::Tool(r) => json!({"role": "tool", "content": r.content, "tool_call_id": r.call_id, "name": r.name}),
        other => serde_json::to_value(other).unwrap_or(Value::Null),
    }
}

/// Python's `json.dumps` as transformers' `tojson` calls it: `", "` and `": "` separators
/// (or `indent=N`, at most [`MAX_INDENT`]), non-ASCII kept, keys in the value's order; at
/// most `max_output` bytes and [`MAX_JSON_DEPTH`] levels.
fn tojson(value: JValue, kwargs: minijinja::value::Kwargs, max_output: usize) -> Result<JValue, minijinja::Error> {
    let indent: Option<i64> = kwargs.get("indent")?;
    let _: Option<bool> = kwargs.get("ensure_ascii")?;
    let _: Option<bool> = kwargs.get("sort_keys")?;
    kwargs.assert_all_used()?;
    let indent = match indent {
        None => None,
        Some(n) if (0..=MAX_INDENT as i64).contains(&n) => Some(n as usize),
        Some(n) => {
            return Err(minijinja::Error::new(
                ErrorKind::InvalidOperation,
                format!("tojson: an indent of {n}, where at most {MAX_INDENT} is allowed"),
            ));
        }
    };
    let mut out = JsonOut { text: String::new(), indent, max: max_output };
    out.value(&value, 0)?;
    Ok(JValue::from_safe_string(out.text))
}

/// `tojson`'s writer, bounded in size and depth.
struct JsonOut {
    text: String,
    indent: Option<usize>,
    max: usize,
}

impl JsonOut {
    fn push(&mut self, s: &str) -> Result<(), minijinja::Error> {
        if self.text.len() + s.len() > self.max {
            return Err(minijinja::Error::new(
                ErrorKind::InvalidOperation,
                format!("tojson: the JSON is over {} bytes", self.max),
            ));
        }
        self.text.push_str(s);
        Ok(())
    }

    fn newline(&mut self, depth: usize) -> Result<(), minijinja::Error> {
        if let Some(n) = self.indent {
            self.push("\n")?;
            // Bounded: n ≤ MAX_INDENT and depth ≤ MAX_JSON_DEPTH.
            self.push(&" ".repeat(n * depth))?;
        }
        Ok(())
    }

    fn string(&mut self, s: &str) -> Result<(), minijinja::Error> {
        if s.len() > self.max {
            return self.push(s);
        }
        self.push(&Value::String(s.to_string()).to_string())
    }

    fn value(&mut self, v: &JValue, depth: usize) -> Result<(), minijinja::Error> {
        use minijinja::value::ValueKind;
        if depth > MAX_JSON_DEPTH {
            return Err(minijinja::Error::new(
                ErrorKind::InvalidOperation,
                format!("tojson: the value nests over {MAX_JSON_DEPTH} levels deep"),
            ));
        }
        let sep = if self.indent.is_some() { "," } else { ", " };
        match v.kind() {
            ValueKind::Undefined | ValueKind::None => self.push("null")?,
            ValueKind::Bool => self.push(if v.is_true() { "true" } else { "false" })?,
            ValueKind::Number => self.push(&v.to_string())?,
            ValueKind::String | ValueKind::Bytes | ValueKind::Invalid | ValueKind::Plain => {
                self.string(&v.to_string())?
            }
            ValueKind::Seq | ValueKind::Iterable => {
                self.push("[")?;
                let mut empty = true;
                for (i, item) in v.try_iter()?.enumerate() {
                    if i > 0 {
                        self.push(sep)?;
                    }
                    self.newline(depth + 1)?;
                    self.value(&item, depth + 1)?;
                    empty = false;
                }
                if !empty {
                    self.newline(depth)?;
                }
                self.push("]")?;
            }
            ValueKind::Map => {
                self.push("{")?;
                let mut empty = true;
                for (i, k) in v.try_iter()?.enumerate() {
                    if i > 0 {
                        self.push(sep)?;
                    }
                    self.newline(depth + 1)?;
                    self.string(&k.to_string())?;
                    self.push(": ")?;
                    self.value(&v.get_item(&k)?, depth + 1)?;
                    empty = false;
                }
                if !empty {
                    self.newline(depth)?;
                }
                self.push("}")?;
            }
            _ => self.string(&v.to_string())?,
        }
        Ok(())
    }
}

/// `strftime_now(format)` of Llama 3.x templates: the current UTC date and time, for the
/// usual directives (`%d %b %B %Y %y %m %H %M %S %A %a %j %%`).
fn strftime_now(format: &str) -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    strftime(format, secs)
}

fn strftime(format: &str, secs: u64) -> String {
    const MONTHS: [&str; 12] = [
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ];
    const DAYS: [&str; 7] = ["Thursday", "Friday", "Saturday", "Sunday", "Monday", "Tuesday", "Wednesday"];
    let days = (secs / 86_400) as i64;
    let tod = secs % 86_400;
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let cumulative = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334];
    let yday = cumulative[(month - 1) as usize] + day + i64::from(leap && month > 2);
    let weekday = DAYS[days.rem_euclid(7) as usize];
    let month_name = MONTHS[(month - 1) as usize];
    let mut out = String::new();
    let mut chars = format.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let _ = match chars.next() {
            Some('d') => write!(out, "{day:02}"),
            Some('b') => write!(out, "{}", &month_name[..3]),
            Some('B') => write!(out, "{month_name}"),
            Some('Y') => write!(out, "{year}"),
            Some('y') => write!(out, "{:02}", year % 100),
            Some('m') => write!(out, "{month:02}"),
            Some('H') => write!(out, "{:02}", tod / 3_600),
            Some('M') => write!(out, "{:02}", tod % 3_600 / 60),
            Some('S') => write!(out, "{:02}", tod % 60),
            Some('A') => write!(out, "{weekday}"),
            Some('a') => write!(out, "{}", &weekday[..3]),
            Some('j') => write!(out, "{yday:03}"),
            Some('%') => write!(out, "%"),
            Some(other) => write!(out, "%{other}"),
            None => write!(out, "%"),
        };
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use lucid::ToolCall;
    use lucid::message::{AssistantMessage, ToolResult};

    /// The tool part of Qwen2.5's template, as its GGUF files carry it.
    const QWEN25: &str = r#"{%- if tools %}
    {{- '<|im_start|>system\n' }}
    {%- if messages[0]['role'] == 'system' %}
        {{- messages[0]['content'] }}
    {%- else %}
        {{- 'You are Qwen, created by Alibaba Cloud. You are a helpful assistant.' }}
    {%- endif %}
    {{- "\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\nYou are provided with function signatures within <tools></tools> XML tags:\n<tools>" }}
    {%- for tool in tools %}
        {{- "\n" }}
        {{- tool | tojson }}
    {%- endfor %}
    {{- "\n</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call><|im_end|>\n" }}
{%- else %}
    {%- if messages[0]['role'] == 'system' %}
        {{- '<|im_start|>system\n' + messages[0]['content'] + '<|im_end|>\n' }}
    {%- endif %}
{%- endif %}
{%- for message in messages %}
    {%- if (message.role == "user") or (message.role == "system" and not loop.first) or (message.role == "assistant" and not message.tool_calls) %}
        {{- '<|im_start|>' + message.role + '\n' + message.content + '<|im_end|>' + '\n' }}
    {%- elif message.role == "assistant" %}
        {{- '<|im_start|>' + message.role }}
        {%- if message.content %}
            {{- '\n' + message.content }}
        {%- endif %}
        {%- for tool_call in message.tool_calls %}
            {%- if tool_call.function is defined %}
                {%- set tool_call = tool_call.function %}
            {%- endif %}
            {{- '\n<tool_call>\n{"name": "' }}
            {{- tool_call.name }}
            {{- '", "arguments": ' }}
            {{- tool_call.arguments | tojson }}
            {{- '}\n</tool_call>' }}
        {%- endfor %}
        {{- '<|im_end|>\n' }}
    {%- elif message.role == "tool" %}
        {%- if (loop.index0 == 0) or (messages[loop.index0 - 1].role != "tool") %}
            {{- '<|im_start|>user' }}
        {%- endif %}
        {{- '\n<tool_response>\n' }}
        {{- message.content }}
        {{- '\n</tool_response>' }}
        {%- if loop.last or (messages[loop.index0 + 1].role != "tool") %}
            {{- '<|im_end|>\n' }}
        {%- endif %}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
    {{- '<|im_start|>assistant\n' }}
{%- endif %}
"#;

    #[test]
    fn qwen_renders_tools_calls_and_results_as_transformers_does() {
        let t = ChatTemplate::new(QWEN25, "", "<|im_end|>", 1 << 20).unwrap();
        let tool = ToolSpec::new(
            "calculator",
            "Evaluates arithmetic",
            json!({"type": "object", "properties": {"expression": {"type": "string"}}}),
        )
        .unwrap();
        let call = ToolCall::new("c1", "calculator", json!({"expression": "2+2"}));
        let messages = [
            Message::system("Be brief."),
            Message::user("What is 2+2?"),
            Message::Assistant(AssistantMessage { tool_calls: vec![call], ..Default::default() }),
            Message::Tool(ToolResult {
                call_id: "c1".into(),
                name: "calculator".into(),
                content: "4".into(),
                parts: Vec::new(),
                is_error: false,
            }),
        ];
        let prompt = t.render(&messages, &[tool]).unwrap();
        let expected = "<|im_start|>system\nBe brief.\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\nYou are provided with function signatures within <tools></tools> XML tags:\n<tools>\n{\"type\": \"function\", \"function\": {\"name\": \"calculator\", \"description\": \"Evaluates arithmetic\", \"parameters\": {\"type\": \"object\", \"properties\": {\"expression\": {\"type\": \"string\"}}}}}\n</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call><|im_end|>\n<|im_start|>user\nWhat is 2+2?<|im_end|>\n<|im_start|>assistant\n<tool_call>\n{\"name\": \"calculator\", \"arguments\": {\"expression\": \"2+2\"}}\n</tool_call><|im_end|>\n<|im_start|>user\n<tool_response>\n4\n</tool_response><|im_end|>\n<|im_start|>assistant\n";
        assert_eq!(prompt, expected);
    }

    #[test]
    fn the_prefix_is_what_comes_before_the_first_user_text_even_without_a_system_message() {
        let t = ChatTemplate::new(QWEN25, "", "<|im_end|>", 1 << 20).unwrap();
        let prefix = t.render_prefix(&[Message::user("Hello"), Message::user("more")], &[]).unwrap();
        assert_eq!(prefix, "<|im_start|>user\n", "no system message, no tools: only the user header");
        let tool = ToolSpec::new("f", "d", json!({"type": "object"})).unwrap();
        let messages = [Message::system("S"), Message::user("Hello")];
        let prefix = t.render_prefix(&messages, std::slice::from_ref(&tool)).unwrap();
        assert!(
            prefix.starts_with("<|im_start|>system\nS\n\n# Tools")
                && prefix.ends_with("<|im_end|>\n<|im_start|>user\n"),
            "{prefix}"
        );
        assert!(t.render(&messages, &[tool]).unwrap().starts_with(&prefix));
        assert_eq!(t.render_prefix(&[Message::system("S")], &[]).unwrap(), "");
    }

    #[test]
    fn python_string_methods_raise_exception_and_tojson_indent_work() {
        let t = ChatTemplate::new(
            "{% if messages[0].content.startswith('x') %}{{ raise_exception('no x') }}{% endif %}{{ messages[0].content.strip() }}|{{ {'a': [1, 'é']} | tojson(indent=2) }}",
            "",
            "",
            1 << 20,
        )
        .unwrap();
        assert_eq!(t.render(&[Message::user("  hi ")], &[]).unwrap(), "hi|{\n  \"a\": [\n    1,\n    \"é\"\n  ]\n}");
        let err = t.render(&[Message::user("xy")], &[]).unwrap_err();
        assert!(err.contains("no x"), "{err}");
    }

    /// A hostile template's error, from a template made in the test.
    fn hostile(source: &str) -> String {
        let t = match ChatTemplate::new(source, "", "", 1 << 20) {
            Ok(t) => t,
            Err(e) => return e,
        };
        t.render(&[Message::user("hi")], &[]).expect_err("a hostile template renders to an error")
    }

    #[test]
    fn a_template_that_loops_runs_out_of_fuel() {
        let e = hostile("{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}x");
        assert!(e.contains("instructions"), "{e}");
    }

    #[test]
    fn a_template_that_writes_gigabytes_stops_at_its_output_bound() {
        let e = hostile("{% for i in range(100000) %}{{ 'x' * 10000000 }}{% endfor %}");
        assert!(e.contains("over 1048576 bytes"), "{e}");
        // One expression as large as the bound.
        let e = hostile("{{ 'x' * 2000000 }}");
        assert!(e.contains("over 1048576 bytes"), "{e}");
    }

    #[test]
    fn a_huge_template_is_refused_before_compiling() {
        let source = format!("{{{{ '{}' }}}}", "x".repeat(MAX_SOURCE));
        let e = hostile(&source);
        assert!(e.contains("bytes, over the"), "{e}");
    }

    #[test]
    fn a_template_that_renders_nothing_is_an_error() {
        let e = hostile("{% if false %}x{% endif %}  \n");
        assert!(e.contains("empty prompt"), "{e}");
        assert!(ChatTemplate::new("  ", "", "", 1 << 20).is_err());
    }

    #[test]
    fn tojson_refuses_an_absurd_indent_and_a_value_that_holds_itself() {
        let e = hostile("{{ messages | tojson(indent=4611686018427387904) }}");
        assert!(e.contains("indent of 4611686018427387904"), "{e}");
        let e = hostile("{{ messages | tojson(indent=-1) }}");
        assert!(e.contains("indent of -1"), "{e}");
        let e = hostile("{% set ns = namespace(a=1) %}{% set ns.me = ns %}{{ ns | tojson }}");
        assert!(e.contains("levels deep"), "{e}");
        let e = hostile("{{ ['x' * 90000000] | tojson }}");
        assert!(e.contains("over 1048576 bytes"), "{e}");
    }

    #[test]
    fn strftime_formats_a_known_instant() {
        // 2024-07-26 17:05:09 UTC, a Friday, day 208 of a leap year.
        assert_eq!(strftime("%d %b %Y %H:%M:%S %A %j %%", 1_722_013_509), "26 Jul 2024 17:05:09 Friday 208 %");
    }
}
