//! A provider's record: everything Lucid knows about one provider, as one owned value.
//!
//! A preset is a row of it ([`Provider::find`]); a provider defined in a configuration
//! file is another value of it, built field by field. A client holds its record
//! ([`ChatModel::record`](super::ChatModel::record)) and every part of Lucid that needs a
//! provider's quirks (the codec's `content` policy, the quota codes, telemetry's system
//! name, the catalogue's and price table's rows, the embeddings endpoint, the key
//! variables) reads them from the record it carries, never by looking the name up.

use std::borrow::Cow;

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
/// ([`Provider::quota`]) or, for a native API, to its codec.
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

/// The text sent beside tool calls by [`ContentPolicy::Placeholder`] in the presets'
/// [`ContentRetry`] (a short sentence: some servers reject an empty assistant text).
pub const TOOL_CALL_PLACEHOLDER: &str = "Calling tools.";

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

/// A provider: its protocol, default base URL, key variables, default model, quirks,
/// quota codes, telemetry name, catalogue name, embeddings endpoint and hosting.
///
/// ```
/// use lucid::model::Provider;
/// let glm = Provider::find("zhipu").unwrap();
/// assert_eq!(glm.base_url, "https://open.bigmodel.cn/api/paas/v4");
/// assert_eq!(glm.key_vars, ["ZHIPUAI_API_KEY"]);
/// assert_eq!(Provider::find("gemini").unwrap().key_vars, ["GEMINI_API_KEY", "GOOGLE_API_KEY"]);
///
/// // A provider of your own: another value of the same record.
/// let mut own = Provider::compatible();
/// own.name = "acme".into();
/// own.base_url = "https://llm.acme.example/v1".into();
/// own.key_vars = ["ACME_API_KEY"].into();
/// assert!(own.key_vars.contains("ACME_API_KEY"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Provider {
    /// Name used on the command line, in `provider:model` strings, errors and logs.
    pub name: String,
    /// Default base URL (the codec appends `/chat/completions`); empty when the user must
    /// give one.
    pub base_url: String,
    /// The wire protocol.
    pub protocol: Protocol,
    /// Environment variables holding the API key, tried in order; empty for local servers.
    pub key_vars: KeyVars,
    /// Model used when none is given; empty when the user must name one.
    pub default_model: String,
    /// What it accepts differently (the `content` beside tool calls among them).
    pub quirks: Quirks,
    /// What is resent when it refuses the `content` beside tool calls.
    pub content_retry: ContentRetry,
    /// Its errors meaning the account's money or quota ran out (beside OpenAI's codes for
    /// an OpenAI-protocol provider).
    pub quota: Vec<QuotaRule>,
    /// Its `gen_ai.provider.name` in telemetry (the OpenTelemetry conventions' value where
    /// there is one).
    pub telemetry_name: String,
    /// The name its models go by in the model [catalogue](super::catalogue) and the
    /// [price table](super::prices) (a preset's own name).
    pub catalogue: String,
    /// Its own embeddings endpoint, when it serves one beside chat.
    pub embeddings: Option<Embeddings>,
    /// Hosted, or a server on the user's machine.
    pub hosting: Hosting,
    /// One line for the README's provider table.
    pub notes: String,
}

/// The environment variables holding a provider's key, in the order they are tried.
///
/// ```
/// use lucid::model::provider::KeyVars;
/// let vars = KeyVars::from(["GEMINI_API_KEY", "GOOGLE_API_KEY"]);
/// assert!(vars.contains("GOOGLE_API_KEY"));
/// assert_eq!(vars.join(" or "), "GEMINI_API_KEY or GOOGLE_API_KEY");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KeyVars(Vec<String>);

impl KeyVars {
    /// Whether `name` (a `str`, `&str` or `String`) is one of them.
    pub fn contains<Q: ?Sized>(&self, name: &Q) -> bool
    where
        String: PartialEq<Q>,
    {
        self.0.iter().any(|v| v == name)
    }

    /// The variables, in order.
    pub fn as_slice(&self) -> &[String] {
        &self.0
    }
}

impl std::ops::Deref for KeyVars {
    type Target = [String];

    fn deref(&self) -> &[String] {
        &self.0
    }
}

impl<S: Into<String>, const N: usize> From<[S; N]> for KeyVars {
    fn from(vars: [S; N]) -> Self {
        KeyVars(vars.into_iter().map(Into::into).collect())
    }
}

impl From<Vec<String>> for KeyVars {
    fn from(vars: Vec<String>) -> Self {
        KeyVars(vars)
    }
}

impl<S: Into<String>> FromIterator<S> for KeyVars {
    fn from_iter<I: IntoIterator<Item = S>>(iter: I) -> Self {
        KeyVars(iter.into_iter().map(Into::into).collect())
    }
}

impl<const N: usize> PartialEq<[&str; N]> for KeyVars {
    fn eq(&self, other: &[&str; N]) -> bool {
        self.0.iter().map(String::as_str).eq(other.iter().copied())
    }
}

/// What a provider is sent again when it refuses the `content` of an assistant message
/// that carries tool calls and no text: the error codes saying so (with HTTP 400), and the
/// other forms tried then, in order, after the record's own
/// ([`Quirks::content_policy`]). The client keeps the form that worked.
///
/// ```
/// use lucid::model::{Provider, presets::ContentPolicy};
/// let glm = Provider::find("zhipu").unwrap();
/// assert_eq!(glm.quirks.content_policy, ContentPolicy::Empty);
/// assert_eq!(glm.content_retry.codes, ["1214", "1213"]);
/// assert!(Provider::find("deepseek").unwrap().content_retry.codes.is_empty());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ContentRetry {
    /// The error codes meaning "this `content` is refused" (Zhipu's 1214 and 1213).
    pub codes: Vec<String>,
    /// The forms tried after the record's own, in order.
    pub forms: Vec<ContentPolicy>,
}

impl ContentRetry {
    /// Never resent.
    pub fn none() -> Self {
        ContentRetry::default()
    }

    /// Resent in `forms` on a 400 with one of `codes`.
    pub fn on(codes: &[&str], forms: &[ContentPolicy]) -> Self {
        ContentRetry { codes: codes.iter().map(|c| c.to_string()).collect(), forms: forms.to_vec() }
    }
}

/// A provider's embeddings endpoint: the OpenAI-compatible `/embeddings`, or Gemini's
/// `batchEmbedContents` for the Gemini protocol.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Embeddings {
    /// The model used when none is named.
    pub default_model: String,
    /// The most texts one request may carry.
    pub batch: usize,
}

impl Embeddings {
    /// An endpoint whose default model is `default_model`, `batch` texts a request.
    pub fn new(default_model: impl Into<String>, batch: usize) -> Self {
        Embeddings { default_model: default_model.into(), batch }
    }
}

/// Where a provider runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Hosting {
    /// A hosted API that needs a key.
    Hosted,
    /// A server on the user's machine, no key; `detect`: looked for at its default address
    /// when no key is set (its context window is asked of the server, not the catalogue).
    Local {
        /// Whether `lucid run` looks for it when no key is set.
        detect: bool,
    },
}

impl Provider {
    /// This provider speaking `api` instead of its default; an error for a provider with a
    /// protocol of its own (Anthropic, Gemini).
    pub fn with_api(&self, api: Api) -> Result<Provider> {
        let protocol = match (self.protocol, api) {
            (Protocol::OpenAiChat | Protocol::OpenAiResponses, Api::Chat) => Protocol::OpenAiChat,
            (Protocol::OpenAiChat | Protocol::OpenAiResponses, Api::Responses) => Protocol::OpenAiResponses,
            (p, _) => {
                return Err(ModelError::Config(format!(
                    "{} speaks its own API ({}); Preset::with_api(Api::{api:?}) applies to OpenAI-protocol providers only",
                    self.name,
                    p.api_name()
                )));
            }
        };
        Ok(Provider { protocol, ..self.clone() })
    }

    /// A copy under another name, which it then also goes by in telemetry, the catalogue
    /// and the price table (a provider of your own on [`Provider::compatible`]).
    ///
    /// ```
    /// use lucid::model::Provider;
    /// let acme = Provider::compatible().renamed("acme");
    /// assert_eq!((acme.name.as_str(), acme.telemetry_name.as_str(), acme.catalogue.as_str()), ("acme", "acme", "acme"));
    /// ```
    pub fn renamed(&self, name: &str) -> Provider {
        Provider {
            name: name.to_string(),
            telemetry_name: name.to_string(),
            catalogue: name.to_string(),
            ..self.clone()
        }
    }

    /// True for servers that run on the user's machine and need no key.
    pub fn is_local(&self) -> bool {
        matches!(self.hosting, Hosting::Local { .. })
    }

    /// The API key from the first of [`Provider::key_vars`] that is set and not blank.
    pub fn key_from_env(&self) -> Option<String> {
        self.key_vars.iter().find_map(|v| std::env::var(v).ok().filter(|k| !k.trim().is_empty()))
    }

    /// Whether `name` is an environment variable holding a key of one of `records` (for a
    /// sandbox that must not hand the operator's keys to the code it runs).
    ///
    /// ```
    /// use lucid::model::Provider;
    /// assert!(Provider::holds_key(Provider::all(), "DEEPSEEK_API_KEY"));
    /// assert!(!Provider::holds_key(Provider::all(), "PATH"));
    /// ```
    pub fn holds_key<'a>(records: impl IntoIterator<Item = &'a Provider>, name: &str) -> bool {
        records.into_iter().any(|p| p.key_vars.contains(name))
    }
}
