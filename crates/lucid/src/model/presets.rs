//! Providers, declared as data.
//!
//! Anthropic and Gemini have codecs of their own ([`super::anthropic`], [`super::gemini`]).
//! One codec ([`super::openai`]) speaks Chat Completions; each compatible vendor is a [`Preset`]: its
//! default base URL (ending where the vendor's official SDK puts it — the codec appends
//! `/chat/completions`), the environment variable holding its key, a default model, and
//! the few [`Quirks`] where it departs from OpenAI. Decoding needs no per-vendor switch:
//! the stream decoder tolerates every known deviation (repeated roles, repeated empty ids,
//! calls all at index 0, usage on the finish chunk). Quirks only shape what we *send*.

/// How an assistant message that carries tool calls but no text sends `content`.
///
/// Providers disagree: the OpenAI spec allows `null`; Zhipu GLM answers error 1214 to an
/// empty string beside tool calls; some chat templates (vLLM, llama.cpp) fail on `null`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContentPolicy {
    /// Leave the `content` key out.
    Omit,
    /// `"content": null`.
    Null,
    /// `"content": ""`.
    Empty,
    /// `"content": "<text>"`, for servers that reject an empty assistant text.
    Placeholder(&'static str),
}

/// Whether and how reasoning text is sent back to the provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReasoningEcho {
    /// Never sent back.
    Never,
    /// Sent back in this field for assistant messages of the current turn (after the last
    /// user message): DeepSeek and GLM need it during a tool-call chain and reject or
    /// ignore it from earlier turns.
    CurrentTurn(&'static str),
}

/// Where a compatible server departs from OpenAI in what it accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Quirks {
    /// `content` of a tool-calling assistant message without text.
    pub content_policy: ContentPolicy,
    /// Reasoning round-trip.
    pub reasoning_echo: ReasoningEcho,
    /// Send `stream_options: {include_usage: true}` when streaming.
    pub stream_usage: bool,
    /// The field carrying the output token limit: OpenAI deprecated `max_tokens` for
    /// `max_completion_tokens` (its reasoning models reject the old name); compatible
    /// servers take `max_tokens`.
    pub max_tokens_field: &'static str,
    /// One call may carry tools and a JSON schema for the answer and still call the tools.
    /// Servers that enforce the schema with a grammar (llama.cpp, vLLM) force the answer
    /// instead, so a structured run there calls the tools first and asks for the answer in
    /// a last call without them.
    pub format_with_tools: bool,
}

impl Quirks {
    /// OpenAI's own behaviour.
    pub const OPENAI: Quirks = Quirks {
        content_policy: ContentPolicy::Null,
        reasoning_echo: ReasoningEcho::Never,
        stream_usage: true,
        max_tokens_field: "max_completion_tokens",
        format_with_tools: true,
    };

    /// What most compatible servers accept: OpenAI's shapes with the classic `max_tokens`.
    pub const COMPATIBLE: Quirks =
        Quirks { max_tokens_field: "max_tokens", format_with_tools: false, ..Quirks::OPENAI };
}

/// Which codec a provider speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    /// OpenAI Chat Completions (and every compatible server).
    OpenAiChat,
    /// Anthropic Messages.
    Anthropic,
    /// Google Gemini `generateContent`.
    Gemini,
}

/// A provider: its protocol, default base URL, key variables, default model and quirks.
///
/// ```
/// use lucid::model::Preset;
/// let glm = Preset::find("zhipu").unwrap();
/// assert_eq!(glm.base_url, "https://open.bigmodel.cn/api/paas/v4");
/// assert_eq!(glm.key_vars, ["ZHIPUAI_API_KEY"]);
/// assert_eq!(Preset::find("gemini").unwrap().key_vars, ["GEMINI_API_KEY", "GOOGLE_API_KEY"]);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Preset {
    /// Name used on the command line and in `provider:model` strings.
    pub name: &'static str,
    /// Default base URL (the codec appends `/chat/completions`).
    pub base_url: &'static str,
    /// The wire protocol.
    pub protocol: Protocol,
    /// Environment variables holding the API key, tried in order; empty for local servers.
    pub key_vars: &'static [&'static str],
    /// Model used when none is given; empty when the user must name one.
    pub default_model: &'static str,
    /// What it accepts differently.
    pub quirks: Quirks,
    /// One line for the README's provider table.
    pub notes: &'static str,
}

const PRESETS: &[Preset] = &[
    Preset {
        name: "openai",
        protocol: Protocol::OpenAiChat,
        base_url: "https://api.openai.com/v1",
        key_vars: &["OPENAI_API_KEY"],
        default_model: "gpt-4o-mini",
        quirks: Quirks::OPENAI,
        notes: "reference behaviour",
    },
    Preset {
        name: "anthropic",
        protocol: Protocol::Anthropic,
        base_url: "https://api.anthropic.com",
        key_vars: &["ANTHROPIC_API_KEY"],
        default_model: "claude-sonnet-4-5",
        quirks: Quirks::OPENAI,
        notes: "native Messages API; thinking blocks sent back verbatim",
    },
    Preset {
        name: "gemini",
        protocol: Protocol::Gemini,
        base_url: "https://generativelanguage.googleapis.com",
        key_vars: &["GEMINI_API_KEY", "GOOGLE_API_KEY"],
        default_model: "gemini-2.5-flash",
        quirks: Quirks::OPENAI,
        notes: "native generateContent API; thought signatures sent back",
    },
    Preset {
        name: "zhipu",
        protocol: Protocol::OpenAiChat,
        base_url: "https://open.bigmodel.cn/api/paas/v4",
        key_vars: &["ZHIPUAI_API_KEY"],
        default_model: "glm-4.6",
        quirks: Quirks {
            content_policy: ContentPolicy::Null,
            reasoning_echo: ReasoningEcho::CurrentTurn("reasoning_content"),
            stream_usage: false,
            ..Quirks::COMPATIBLE
        },
        notes: "GLM; `content: \"\"` beside tool calls is error 1214, so null is sent; api.z.ai/api/paas/v4 outside China",
    },
    Preset {
        name: "qwen",
        protocol: Protocol::OpenAiChat,
        base_url: "https://dashscope.aliyuncs.com/compatible-mode/v1",
        key_vars: &["DASHSCOPE_API_KEY"],
        default_model: "qwen-plus",
        quirks: Quirks { content_policy: ContentPolicy::Empty, ..Quirks::COMPATIBLE },
        notes: "DashScope compatible mode; dashscope-intl.aliyuncs.com outside China",
    },
    Preset {
        name: "deepseek",
        protocol: Protocol::OpenAiChat,
        base_url: "https://api.deepseek.com",
        key_vars: &["DEEPSEEK_API_KEY"],
        default_model: "deepseek-chat",
        quirks: Quirks { reasoning_echo: ReasoningEcho::CurrentTurn("reasoning_content"), ..Quirks::COMPATIBLE },
        notes: "reasoning_content sent back within a tool-call chain",
    },
    Preset {
        name: "ollama",
        protocol: Protocol::OpenAiChat,
        base_url: "http://127.0.0.1:11434/v1",
        key_vars: &[],
        default_model: "llama3.2",
        quirks: Quirks {
            content_policy: ContentPolicy::Empty,
            reasoning_echo: ReasoningEcho::CurrentTurn("reasoning"),
            ..Quirks::COMPATIBLE
        },
        notes: "local; no key",
    },
    Preset {
        name: "vllm",
        protocol: Protocol::OpenAiChat,
        base_url: "http://127.0.0.1:8000/v1",
        key_vars: &[],
        default_model: "",
        quirks: Quirks { content_policy: ContentPolicy::Empty, ..Quirks::COMPATIBLE },
        notes: "local; no key; --model must name the served model",
    },
    Preset {
        name: "llamacpp",
        protocol: Protocol::OpenAiChat,
        base_url: "http://127.0.0.1:8080/v1",
        key_vars: &[],
        default_model: "local",
        quirks: Quirks { content_policy: ContentPolicy::Empty, ..Quirks::COMPATIBLE },
        notes: "local llama-server (start it with --jinja for tools); no key",
    },
    Preset {
        name: "openrouter",
        protocol: Protocol::OpenAiChat,
        base_url: "https://openrouter.ai/api/v1",
        key_vars: &["OPENROUTER_API_KEY"],
        default_model: "openai/gpt-4o-mini",
        quirks: Quirks::COMPATIBLE,
        notes: "",
    },
    Preset {
        name: "groq",
        protocol: Protocol::OpenAiChat,
        base_url: "https://api.groq.com/openai/v1",
        key_vars: &["GROQ_API_KEY"],
        default_model: "llama-3.3-70b-versatile",
        quirks: Quirks::COMPATIBLE,
        notes: "",
    },
];

impl Preset {
    /// Every known preset, in the order `lucid run` tries them.
    pub fn all() -> &'static [Preset] {
        PRESETS
    }

    /// The preset with this name (`llama.cpp` and `dashscope` are accepted as aliases).
    pub fn find(name: &str) -> Option<&'static Preset> {
        let name = match name {
            "llama.cpp" | "llama-cpp" => "llamacpp",
            "dashscope" => "qwen",
            "glm" => "zhipu",
            "claude" => "anthropic",
            "google" => "gemini",
            other => other,
        };
        PRESETS.iter().find(|p| p.name == name)
    }

    /// True for servers that run on the user's machine and need no key.
    pub fn is_local(&self) -> bool {
        self.key_vars.is_empty()
    }

    /// The API key from the first of [`Preset::key_vars`] that is set and not blank.
    pub fn key_from_env(&self) -> Option<String> {
        self.key_vars.iter().find_map(|v| std::env::var(v).ok().filter(|k| !k.trim().is_empty()))
    }
}
