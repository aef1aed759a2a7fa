//! A provider's record: everything Lucid knows about one provider, as one owned value.
//!
//! A preset is a row of it ([`Provider::find`]); a provider defined in a configuration
//! file is another value of it, built field by field. A client holds its record
//! ([`ChatModel::record`](super::ChatModel::record)) and every part of Lucid that needs a
//! provider's quirks (the codec's `content` policy, the quota codes, telemetry's system
//! name, the catalogue's and price table's rows, the embeddings endpoint, the key
//! variables) reads them from the record it carries, never by looking the name up.

use std::sync::LazyLock;

use super::presets::{ContentPolicy, Protocol, Quirks, QuotaRule};
use crate::model::error::{ModelError, Result};
use crate::model::presets::Api;

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

static PRESETS: LazyLock<Vec<Provider>> = LazyLock::new(super::presets::rows);

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
                super::presets::GLM_REFUSALS,
                &[ContentPolicy::Empty, ContentPolicy::Placeholder(super::openai::TOOL_CALL_PLACEHOLDER)],
            ),
            quota: Vec::new(),
            telemetry_name: "openai".into(),
            catalogue: "openai".into(),
            embeddings: None,
            hosting: Hosting::Hosted,
            notes: "any OpenAI-compatible server, by its URL".into(),
        }
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
