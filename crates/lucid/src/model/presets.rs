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

use std::sync::LazyLock;

pub use super::provider::TOOL_CALL_PLACEHOLDER;
pub use super::provider::{
    Api, ContentPolicy, ContentRetry, Embeddings, Hosting, KeyVars, Protocol, Provider, Quirks, QuotaRule,
    ReasoningEcho,
};

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
            notes: "Responses API by default (stateless: store false, reasoning replayed); Chat Completions on request".into(),
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
            // `""` first, as the original design asks; should GLM refuse it after all, `null`
            // then a placeholder (the evidence on which form it accepts conflicts).
            content_retry: ContentRetry::on(
                GLM_REFUSALS,
                &[ContentPolicy::Null, ContentPolicy::Placeholder(TOOL_CALL_PLACEHOLDER)],
            ),
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
            notes: "local; no key; the model named must be the one served".into(),
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

static PRESETS: LazyLock<Vec<Provider>> = LazyLock::new(rows);

/// The rows, and the record of a server known only by its URL.
impl Provider {
    /// Every known preset, in the order `lucid run` tries them.
    pub fn all() -> &'static [Provider] {
        &PRESETS
    }

    /// The preset with this name (`llama.cpp` and `dashscope` are accepted as aliases):
    /// for configuration, before a client is made. A client carries its record.
    pub fn find(name: &str) -> Option<&'static Provider> {
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

    /// The record of a server known only by its URL: Chat Completions with
    /// [`Quirks::COMPATIBLE`], named `openai` (OpenAI's quota codes apply), no key
    /// variables and no base URL (give one to its [`client`](Provider::client)). Should
    /// it answer Zhipu's 1214 or 1213 to the `content` beside tool calls (GLM behind a
    /// gateway), it is sent `""`, then a placeholder text.
    ///
    /// ```
    /// use lucid::model::{Preset, Protocol};
    /// let any = Preset::compatible();
    /// assert_eq!((any.protocol, any.base_url.as_str()), (Protocol::OpenAiChat, ""));
    /// ```
    pub fn compatible() -> Provider {
        Provider {
            name: "openai".into(),
            base_url: String::new(),
            protocol: Protocol::OpenAiChat,
            key_vars: KeyVars::default(),
            default_model: String::new(),
            quirks: Quirks::COMPATIBLE,
            content_retry: ContentRetry::on(
                GLM_REFUSALS,
                &[ContentPolicy::Empty, ContentPolicy::Placeholder(TOOL_CALL_PLACEHOLDER)],
            ),
            quota: Vec::new(),
            telemetry_name: "openai".into(),
            catalogue: "openai".into(),
            embeddings: None,
            hosting: Hosting::Hosted,
            notes: "any OpenAI-compatible server, by its URL".into(),
        }
    }
}
