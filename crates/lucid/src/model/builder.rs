//! One way to make a client: a provider's record ([`Preset`]), then whatever differs from
//! its defaults — model, key, base URL, API, prompt cache, transport — in any order.

use std::sync::Arc;

use super::catalogue::Capabilities;
use super::client::{Codec, HttpModel};
use super::http::HttpTransport;
use super::openai::OpenAiCodec;
use super::openai_responses::ResponsesCodec;
use super::presets::{Api, Preset, Protocol, Provider};
use super::{Anthropic, ChatModel, Gemini};
use crate::model::error::{ModelError, Result};

/// A client being put together; [`Preset::client`] starts one, [`ModelBuilder::build`]
/// finishes it. Every part is optional where the record has a default: the model (the
/// record's default model), the key (its key variables, read from the environment at
/// `build` unless a key was given), the base URL, the API (for OpenAI-protocol
/// providers), the prompt cache (on) and the transport.
///
/// ```
/// use lucid::model::{Api, ChatModel, Preset};
/// let claude = Preset::find("anthropic").unwrap().client().key("sk-ant-test").build()?;
/// assert_eq!((claude.provider(), claude.model_name()), ("anthropic", "claude-sonnet-4-5"));
///
/// let gateway = Preset::compatible()
///     .client()
///     .base_url("http://127.0.0.1:4000/v1")
///     .model("gpt-4o")
///     .api(Api::Chat)
///     .build()?;
/// assert_eq!(gateway.model_name(), "gpt-4o");
/// # Ok::<(), lucid::Error>(())
/// ```
#[derive(Debug, Clone)]
#[must_use = "a model builder does nothing until `build`"]
pub struct ModelBuilder {
    preset: Preset,
    name: Option<String>,
    model: Option<String>,
    /// `Some` once a key (or explicitly none) was given: the environment is not read.
    key: Option<Option<String>>,
    base_url: Option<String>,
    api: Option<Api>,
    prompt_cache: bool,
    transport: Option<HttpTransport>,
    accepts: Option<Capabilities>,
}

impl Preset {
    /// A client of this provider, to configure and [`build`](ModelBuilder::build).
    pub fn client(&self) -> ModelBuilder {
        ModelBuilder {
            preset: self.clone(),
            name: None,
            model: None,
            key: None,
            base_url: None,
            api: None,
            prompt_cache: true,
            transport: None,
            accepts: None,
        }
    }
}

impl ModelBuilder {
    /// The provider's name in errors, logs, transcripts, telemetry and the catalogue
    /// (default: the record's): a provider of your own on [`Preset::compatible`] keeps its
    /// own name ([`Provider::renamed`](super::Provider::renamed)).
    ///
    /// ```
    /// use lucid::model::{ChatModel, Preset};
    /// let acme = Preset::compatible().client().name("acme").base_url("http://127.0.0.1:9/v1").model("a1").build()?;
    /// assert_eq!(acme.provider(), "acme");
    /// # Ok::<(), lucid::Error>(())
    /// ```
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// The model (default: the record's default model).
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    /// The API key (default: the first of the record's key variables that is set).
    pub fn key(mut self, key: impl Into<String>) -> Self {
        self.key = Some(Some(key.into()));
        self
    }

    /// The API key as resolved elsewhere, or explicitly none: the environment is not read.
    pub fn api_key(mut self, key: Option<String>) -> Self {
        self.key = Some(key);
        self
    }

    /// The base URL (default: the record's).
    pub fn base_url(mut self, base_url: impl Into<String>) -> Self {
        self.base_url = Some(base_url.into());
        self
    }

    /// Which OpenAI API to speak (default: the record's protocol); an error at `build`
    /// for a provider with an API of its own.
    pub fn api(mut self, api: Api) -> Self {
        self.api = Some(api);
        self
    }

    /// Prompt-cache breakpoints, for the providers that take them (Anthropic); default on.
    pub fn prompt_cache(mut self, on: bool) -> Self {
        self.prompt_cache = on;
        self
    }

    /// The transport: timeouts, retries, transcript (default: [`HttpTransport::default`]).
    pub fn transport(mut self, transport: HttpTransport) -> Self {
        self.transport = Some(transport);
        self
    }

    /// What the model takes besides text, overriding the catalogue (for a model it does
    /// not know): a request with another kind of part fails before it is sent.
    ///
    /// ```
    /// use lucid::model::{Preset, catalogue::Capabilities};
    /// let m = Preset::find("llamacpp").unwrap().client().model("qwen2.5-vl").accepts(Capabilities::IMAGE).build()?;
    /// assert_eq!(m.capabilities(), Some(Capabilities::IMAGE));
    /// # Ok::<(), lucid::Error>(())
    /// ```
    pub fn accepts(mut self, capabilities: Capabilities) -> Self {
        self.accepts = Some(capabilities);
        self
    }

    /// The client.
    pub fn build(self) -> Result<Arc<dyn ChatModel>> {
        let mut preset = match self.api {
            Some(api) => self.preset.with_api(api)?,
            None => self.preset,
        };
        if let Some(name) = &self.name {
            preset = preset.renamed(name);
        }
        let key = match self.key {
            Some(key) => key,
            None => preset.key_from_env(),
        };
        let model = self.model.unwrap_or_else(|| preset.default_model.clone());
        let base_url = self.base_url.unwrap_or_else(|| preset.base_url.clone());
        if base_url.is_empty() {
            return Err(ModelError::Config(format!(
                "no base URL for {}: give one (ModelBuilder::base_url)",
                preset.name
            )));
        }
        let record = Arc::new(preset);
        let finish = Finish {
            base_url: &base_url,
            transport: self.transport,
            record: Arc::clone(&record),
            accepts: self.accepts,
        };
        match record.protocol {
            Protocol::OpenAiChat => finish.done(HttpModel::with_codec(
                &record.name,
                &base_url,
                &model,
                super::http::bearer_headers(key.as_deref(), &[])?,
                OpenAiCodec::for_record(Arc::clone(&record)),
            )?),
            Protocol::OpenAiResponses => finish.done(HttpModel::with_codec(
                &record.name,
                &base_url,
                &model,
                super::http::bearer_headers(key.as_deref(), &[])?,
                ResponsesCodec::for_record(Arc::clone(&record)),
            )?),
            Protocol::Anthropic => {
                finish.done(Anthropic::new(key.unwrap_or_default(), &model)?.with_prompt_cache(self.prompt_cache))
            }
            Protocol::Gemini => finish.done(Gemini::new(key.unwrap_or_default(), &model)?),
        }
    }
}

/// What every protocol's client gets last: its base URL, record and transport.
struct Finish<'a> {
    base_url: &'a str,
    transport: Option<HttpTransport>,
    record: Arc<Provider>,
    accepts: Option<Capabilities>,
}

impl Finish<'_> {
    fn done<C: Codec>(self, model: HttpModel<C>) -> Result<Arc<dyn ChatModel>> {
        let mut model = model.with_base_url(self.base_url)?.with_record(self.record);
        if let Some(c) = self.accepts {
            model = model.with_capabilities(c);
        }
        Ok(Arc::new(match self.transport {
            Some(t) => model.with_transport(t),
            None => model,
        }))
    }
}
