//! Providers, declared as data.
//!
//! Anthropic and Gemini have codecs of their own ([`super::anthropic`], [`super::gemini`]).
//! One codec ([`super::openai`]) speaks Chat Completions, another
//! ([`super::openai_responses`]) the Responses API, which the `openai` preset uses by
//! default ([`Preset::with_api`] switches); each compatible vendor is a [`Preset`]: its
//! default base URL (ending where the vendor's official SDK puts it — the codec appends
//! `/chat/completions` or `/responses`), the environment variable holding its key, a default model, and
//! the few [`Quirks`] where it departs from OpenAI. Decoding needs no per-vendor switch:
//! the stream decoder tolerates every known deviation (repeated roles, repeated empty ids,
//! calls all at index 0, usage on the finish chunk). Quirks only shape what we *send*.

use std::borrow::Cow;

pub use super::provider::{ContentRetry, Embeddings, Hosting, KeyVars, Provider};
use crate::model::error::{ModelError, Result};

/// How an assistant message that carries tool calls but no text sends `content`.
///
/// Providers disagree: the OpenAI spec allows `null`; Zhipu GLM has answered error 1214
/// ("content and tool_calls cannot both be empty") to `null` and, by some reports, to an
/// empty string (its record sends `""` and settles the rest with its
/// [`ContentRetry`]); some chat templates (vLLM, llama.cpp) fail on `null`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
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
#[non_exhaustive]
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

/// One row of a provider's table of errors meaning its account's money or quota ran out
/// (never retried; reported as [`QuotaExhausted`](crate::ProviderErrorKind::QuotaExhausted)
/// with the provider's own message). A provider adds its rows to its preset
/// ([`Preset::quota`]) or, for a native API, to its codec.
///
/// ```
/// use lucid::ProviderError;
/// use lucid::model::presets::QuotaRule;
/// let rules = [QuotaRule::code("1113"), QuotaRule::Status(402)];
/// let arrears = ProviderError::new("zhipu", Some(429), "Your account is in arrears").with_code("1113");
/// assert!(QuotaRule::matches_any(&rules, &arrears));
/// assert!(!QuotaRule::matches_any(&rules, &ProviderError::new("zhipu", Some(429), "slow down").with_code("1302")));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum QuotaRule {
    /// The error's `code` or `type` is this.
    Code(Cow<'static, str>),
    /// The HTTP status is this.
    Status(u16),
    /// The message contains this text (for providers that say it only in words).
    Message(Cow<'static, str>),
}

impl QuotaRule {
    /// The error's `code` or `type` is `code`.
    pub const fn code(code: &'static str) -> QuotaRule {
        QuotaRule::Code(Cow::Borrowed(code))
    }

    /// The message contains `text`.
    pub const fn message(text: &'static str) -> QuotaRule {
        QuotaRule::Message(Cow::Borrowed(text))
    }

    /// Whether `e` matches this row.
    pub fn matches(&self, e: &crate::ProviderError) -> bool {
        match self {
            QuotaRule::Code(c) => [&e.code, &e.error_type].into_iter().flatten().any(|s| s == c),
            QuotaRule::Status(s) => e.status == Some(*s),
            QuotaRule::Message(m) => e.message.contains(m.as_ref()),
        }
    }

    /// Whether `e` matches any row of `rules`.
    pub fn matches_any(rules: &[QuotaRule], e: &crate::ProviderError) -> bool {
        rules.iter().any(|r| r.matches(e))
    }

    /// `e`, marked [`quota_exhausted`](crate::ProviderError::quota_exhausted) when a row
    /// of `rules` matches.
    pub fn apply(rules: &[QuotaRule], e: crate::ProviderError) -> crate::ProviderError {
        if QuotaRule::matches_any(rules, &e) { e.quota_exhausted() } else { e }
    }
}

/// OpenAI's quota and billing codes (compatible servers mirror them).
pub const OPENAI_QUOTA: &[QuotaRule] = &[
    QuotaRule::code("insufficient_quota"),
    QuotaRule::code("billing_hard_limit_reached"),
    QuotaRule::code("billing_not_active"),
];

/// Anthropic's quota table: `billing_error`, and the 400 saying the credit balance is
/// too low.
pub const ANTHROPIC_QUOTA: &[QuotaRule] =
    &[QuotaRule::code("billing_error"), QuotaRule::message("credit balance is too low")];

/// Zhipu's account codes (1110 inactive, 1111 no such account, 1112 locked, 1113 in
/// arrears, 1120 account unreachable, 1121 locked for irregular activity) and usage
/// limits (1304 daily call limit, 1308 plan usage limit until its reset, 1309 plan
/// expired, 1310 weekly or monthly limit).
pub const ZHIPU_QUOTA: &[QuotaRule] = &[
    QuotaRule::code("1110"),
    QuotaRule::code("1111"),
    QuotaRule::code("1112"),
    QuotaRule::code("1113"),
    QuotaRule::code("1120"),
    QuotaRule::code("1121"),
    QuotaRule::code("1304"),
    QuotaRule::code("1308"),
    QuotaRule::code("1309"),
    QuotaRule::code("1310"),
];

/// DashScope: `Arrearage` (overdue payment) and a free quota used up with
/// "free tier only" set.
pub const DASHSCOPE_QUOTA: &[QuotaRule] =
    &[QuotaRule::code("Arrearage"), QuotaRule::code("AllocationQuota.FreeTierOnly")];

/// DeepSeek: HTTP 402 "Insufficient Balance".
pub const DEEPSEEK_QUOTA: &[QuotaRule] = &[QuotaRule::Status(402), QuotaRule::message("Insufficient Balance")];

/// OpenRouter: HTTP 402 (insufficient credits), and OpenAI's codes passed through.
pub const OPENROUTER_QUOTA: &[QuotaRule] = &[
    QuotaRule::Status(402),
    QuotaRule::code("insufficient_quota"),
    QuotaRule::code("billing_hard_limit_reached"),
    QuotaRule::code("billing_not_active"),
];

/// Which codec a provider speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Protocol {
    /// OpenAI Chat Completions (and every compatible server).
    OpenAiChat,
    /// OpenAI Responses (and every server that implements it).
    OpenAiResponses,
    /// Anthropic Messages.
    Anthropic,
    /// Google Gemini `generateContent`.
    Gemini,
}

impl Protocol {
    /// The name `lucid providers` shows: `chat`, `responses`, `messages`, `generateContent`.
    pub fn api_name(self) -> &'static str {
        match self {
            Protocol::OpenAiChat => "chat",
            Protocol::OpenAiResponses => "responses",
            Protocol::Anthropic => "messages",
            Protocol::Gemini => "generateContent",
        }
    }
}

/// Which of OpenAI's two APIs an OpenAI-protocol provider speaks (`--api chat|responses`,
/// `api = "..."` in the config).
///
/// ```
/// use lucid::model::{Api, Preset, Protocol};
/// let openai = Preset::find("openai").unwrap();
/// assert_eq!(openai.protocol, Protocol::OpenAiResponses);
/// let chat = openai.with_api(Api::Chat).unwrap();
/// assert_eq!(chat.protocol, Protocol::OpenAiChat);
/// assert!(Preset::find("anthropic").unwrap().with_api(Api::Responses).is_err());
/// assert_eq!("responses".parse::<Api>().unwrap(), Api::Responses);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Api {
    /// `POST /chat/completions`.
    Chat,
    /// `POST /responses`.
    Responses,
}

impl Api {
    /// `chat` or `responses`.
    pub fn as_str(self) -> &'static str {
        match self {
            Api::Chat => "chat",
            Api::Responses => "responses",
        }
    }
}

impl std::str::FromStr for Api {
    type Err = ModelError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "chat" | "chat-completions" | "chat_completions" => Ok(Api::Chat),
            "responses" => Ok(Api::Responses),
            other => Err(ModelError::Config(format!("unknown API `{other}`: use `chat` or `responses`"))),
        }
    }
}

impl std::fmt::Display for Api {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A provider's record, by the name its rows have always had: every preset is a
/// [`Provider`], and so is a provider of your own.
///
/// ```
/// use lucid::model::Preset;
/// let glm = Preset::find("zhipu").unwrap();
/// assert_eq!(glm.base_url, "https://open.bigmodel.cn/api/paas/v4");
/// assert_eq!(glm.key_vars, ["ZHIPUAI_API_KEY"]);
/// assert_eq!(Preset::find("gemini").unwrap().key_vars, ["GEMINI_API_KEY", "GOOGLE_API_KEY"]);
/// ```
pub type Preset = Provider;

/// The codes with which Zhipu GLM refuses the `content` beside tool calls (1214: "content
/// and tool_calls cannot both be empty", 1213).
pub const GLM_REFUSALS: &[&str] = &["1214", "1213"];

/// The presets, in the order `lucid run` tries them.
pub(super) fn rows() -> Vec<Provider> {
    vec![
    Provider {
        name: "openai".into(),
        protocol: Protocol::OpenAiResponses,
        base_url: "https://api.openai.com/v1".into(),
        key_vars: ["OPENAI_API_KEY"].into(),
        default_model: "gpt-4o-mini".into(),
        quirks: Quirks::OPENAI,
        quota: OPENAI_QUOTA.to_vec(),
        content_retry: ContentRetry::none(),
        telemetry_name: "openai".into(),
        catalogue: "openai".into(),
        embeddings: Some(Embeddings { default_model: "text-embedding-3-small".into(), batch: 64 }),
        hosting: Hosting::Hosted,
        notes: "Responses API by default (stateless: store false, reasoning replayed); --api chat for Chat Completions".into(),
    },
    Provider {
        name: "anthropic".into(),
        protocol: Protocol::Anthropic,
        base_url: "https://api.anthropic.com".into(),
        key_vars: ["ANTHROPIC_API_KEY"].into(),
        default_model: "claude-sonnet-4-5".into(),
        quirks: Quirks::OPENAI,
        quota: ANTHROPIC_QUOTA.to_vec(),
        content_retry: ContentRetry::none(),
        telemetry_name: "anthropic".into(),
        catalogue: "anthropic".into(),
        embeddings: None,
        hosting: Hosting::Hosted,
        notes: "native Messages API; thinking blocks sent back verbatim".into(),
    },
    Provider {
        name: "gemini".into(),
        protocol: Protocol::Gemini,
        base_url: "https://generativelanguage.googleapis.com".into(),
        key_vars: ["GEMINI_API_KEY", "GOOGLE_API_KEY"].into(),
        default_model: "gemini-2.5-flash".into(),
        quirks: Quirks::OPENAI,
        // Per-day RESOURCE_EXHAUSTED violations are read from the error details by the codec.
        quota: Vec::new(),
        content_retry: ContentRetry::none(),
        telemetry_name: "gcp.gemini".into(),
        catalogue: "gemini".into(),
        embeddings: Some(Embeddings { default_model: "gemini-embedding-001".into(), batch: 64 }),
        hosting: Hosting::Hosted,
        notes: "native generateContent API; thought signatures sent back".into(),
    },
    Provider {
        name: "zhipu".into(),
        protocol: Protocol::OpenAiChat,
        base_url: "https://open.bigmodel.cn/api/paas/v4".into(),
        key_vars: ["ZHIPUAI_API_KEY"].into(),
        default_model: "glm-4.6".into(),
        quirks: Quirks {
            content_policy: ContentPolicy::Empty,
            reasoning_echo: ReasoningEcho::CurrentTurn("reasoning_content"),
            stream_usage: false,
            ..Quirks::COMPATIBLE
        },
        quota: ZHIPU_QUOTA.to_vec(),
        content_retry: ContentRetry::on(GLM_REFUSALS, &[ContentPolicy::Null, ContentPolicy::Placeholder(super::openai::TOOL_CALL_PLACEHOLDER)]),
        telemetry_name: "zhipu".into(),
        catalogue: "zhipu".into(),
        embeddings: Some(Embeddings { default_model: "embedding-3".into(), batch: 64 }),
        hosting: Hosting::Hosted,
        notes: "GLM; \"\" content beside tool calls, then null or a placeholder if GLM answers 1214; api.z.ai/api/paas/v4 outside China".into(),
    },
    Provider {
        name: "qwen".into(),
        protocol: Protocol::OpenAiChat,
        base_url: "https://dashscope.aliyuncs.com/compatible-mode/v1".into(),
        key_vars: ["DASHSCOPE_API_KEY"].into(),
        default_model: "qwen-plus".into(),
        quirks: Quirks { content_policy: ContentPolicy::Empty, ..Quirks::COMPATIBLE },
        quota: DASHSCOPE_QUOTA.to_vec(),
        content_retry: ContentRetry::none(),
        telemetry_name: "qwen".into(),
        catalogue: "qwen".into(),
        embeddings: Some(Embeddings { default_model: "text-embedding-v4".into(), batch: 10 }),
        hosting: Hosting::Hosted,
        notes: "DashScope compatible mode; dashscope-intl.aliyuncs.com outside China".into(),
    },
    Provider {
        name: "deepseek".into(),
        protocol: Protocol::OpenAiChat,
        base_url: "https://api.deepseek.com".into(),
        key_vars: ["DEEPSEEK_API_KEY"].into(),
        default_model: "deepseek-chat".into(),
        quirks: Quirks { reasoning_echo: ReasoningEcho::CurrentTurn("reasoning_content"), ..Quirks::COMPATIBLE },
        quota: DEEPSEEK_QUOTA.to_vec(),
        content_retry: ContentRetry::none(),
        telemetry_name: "deepseek".into(),
        catalogue: "deepseek".into(),
        embeddings: None,
        hosting: Hosting::Hosted,
        notes: "reasoning_content sent back within a tool-call chain".into(),
    },
    Provider {
        name: "ollama".into(),
        protocol: Protocol::OpenAiChat,
        base_url: "http://127.0.0.1:11434/v1".into(),
        key_vars: KeyVars::default(),
        default_model: "llama3.2".into(),
        quirks: Quirks {
            content_policy: ContentPolicy::Empty,
            reasoning_echo: ReasoningEcho::CurrentTurn("reasoning"),
            ..Quirks::COMPATIBLE
        },
        quota: Vec::new(),
        content_retry: ContentRetry::none(),
        telemetry_name: "ollama".into(),
        catalogue: "ollama".into(),
        embeddings: Some(Embeddings { default_model: "nomic-embed-text".into(), batch: 64 }),
        hosting: Hosting::Local { detect: true },
        notes: "local; no key".into(),
    },
    Provider {
        name: "vllm".into(),
        protocol: Protocol::OpenAiChat,
        base_url: "http://127.0.0.1:8000/v1".into(),
        key_vars: KeyVars::default(),
        default_model: "".into(),
        quirks: Quirks { content_policy: ContentPolicy::Empty, ..Quirks::COMPATIBLE },
        quota: Vec::new(),
        content_retry: ContentRetry::none(),
        telemetry_name: "vllm".into(),
        catalogue: "vllm".into(),
        embeddings: None,
        hosting: Hosting::Local { detect: false },
        notes: "local; no key; --model must name the served model".into(),
    },
    Provider {
        name: "llamacpp".into(),
        protocol: Protocol::OpenAiChat,
        base_url: "http://127.0.0.1:8080/v1".into(),
        key_vars: KeyVars::default(),
        default_model: "local".into(),
        quirks: Quirks { content_policy: ContentPolicy::Empty, ..Quirks::COMPATIBLE },
        quota: Vec::new(),
        content_retry: ContentRetry::none(),
        telemetry_name: "llamacpp".into(),
        catalogue: "llamacpp".into(),
        embeddings: None,
        hosting: Hosting::Local { detect: true },
        notes: "local llama-server (start it with --jinja for tools); no key".into(),
    },
    Provider {
        name: "openrouter".into(),
        protocol: Protocol::OpenAiChat,
        base_url: "https://openrouter.ai/api/v1".into(),
        key_vars: ["OPENROUTER_API_KEY"].into(),
        default_model: "openai/gpt-4o-mini".into(),
        quirks: Quirks::COMPATIBLE,
        quota: OPENROUTER_QUOTA.to_vec(),
        content_retry: ContentRetry::none(),
        telemetry_name: "openrouter".into(),
        catalogue: "openrouter".into(),
        embeddings: None,
        hosting: Hosting::Hosted,
        notes: "".into(),
    },
    Provider {
        name: "groq".into(),
        protocol: Protocol::OpenAiChat,
        base_url: "https://api.groq.com/openai/v1".into(),
        key_vars: ["GROQ_API_KEY"].into(),
        default_model: "llama-3.3-70b-versatile".into(),
        quirks: Quirks::COMPATIBLE,
        quota: OPENAI_QUOTA.to_vec(),
        content_retry: ContentRetry::none(),
        telemetry_name: "groq".into(),
        catalogue: "groq".into(),
        embeddings: None,
        hosting: Hosting::Hosted,
        notes: "".into(),
    },
    ]
}
