//! One client for every provider: a [`Codec`] joined to the shared transport.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::Duration;

use bytes::Bytes;
use futures::FutureExt;
use futures::future::BoxFuture;
use reqwest::header::HeaderMap;
use serde_json::Value;

use crate::model::ProviderError;
use crate::model::catalogue::{self, Capabilities};
use crate::model::error::{ModelError, Result};
use crate::model::http::{HttpRequest, HttpTransport, StreamDecoder};
use crate::model::retry::RetryPolicy;
use crate::model::{ChatModel, ChatRequest, ChatResponse, EventStream, Provider};

/// A provider's wire format: pure translation, no I/O.
///
/// A new provider is one codec; [`HttpModel`] joins it to the shared transport (timeouts,
/// retries, transcript). A codec can also reuse another, e.g. for a gateway that speaks
/// Chat Completions but names the deployment in the path:
///
/// ```
/// use lucid::model::openai::{OpenAiCodec, OpenAiStreamDecoder};
/// use lucid::model::{ChatRequest, ChatResponse, Codec, HttpModel, Preset, Result};
/// use lucid::ProviderError;
///
/// #[derive(Debug, Clone)]
/// struct Deployments(OpenAiCodec);
///
/// impl Codec for Deployments {
///     type Stream = OpenAiStreamDecoder;
///     fn url(&self, base_url: &str, model: &str, _stream: bool) -> String {
///         format!("{base_url}/deployments/{model}/chat/completions")
///     }
///     fn encode(&self, request: &ChatRequest<'_>, model: &str, stream: bool) -> serde_json::Value {
///         self.0.encode(request, model, stream)
///     }
///     fn decode(&self, provider: &str, body: &[u8]) -> Result<ChatResponse> {
///         self.0.decode(provider, body)
///     }
///     fn decode_error(&self, provider: &str, status: u16, body: &[u8]) -> ProviderError {
///         self.0.decode_error(provider, status, body)
///     }
///     fn stream_decoder(&self, provider: &str) -> OpenAiStreamDecoder {
///         self.0.stream_decoder(provider)
///     }
/// }
///
/// let quirks = Preset::find("openai").unwrap().quirks;
/// // (A codec of a provider's record: `OpenAiCodec::for_preset(Preset::find("zhipu").unwrap())`.)
/// let headers = lucid::model::http::bearer_headers(Some("sk-…"), &[])?;
/// let model = HttpModel::with_codec("gateway", "https://llm.example.com/v1", "gpt-4o", headers,
///                                   Deployments(OpenAiCodec::new(quirks)))?;
/// assert_eq!(model.endpoint(false), "https://llm.example.com/v1/deployments/gpt-4o/chat/completions");
/// let agent = lucid::Agent::builder(model).build();
/// # Ok::<(), lucid::Error>(())
/// ```
pub trait Codec: Send + Sync + 'static {
    /// The streaming decoder.
    type Stream: StreamDecoder;
    /// The URL of a call, from the base URL (no trailing slash) and the model.
    fn url(&self, base_url: &str, model: &str, stream: bool) -> String;
    /// Refuses a request the provider would reject with a 400, before it is sent (a
    /// setting its API has no field for, or one the model refuses). Accepts everything
    /// unless the codec says otherwise.
    fn check(&self, _request: &ChatRequest<'_>, _model: &str) -> Result<()> {
        Ok(())
    }
    /// The request body.
    fn encode(&self, request: &ChatRequest<'_>, model: &str, stream: bool) -> Value;
    /// The body in another accepted form, for a provider whose evidence on what it accepts
    /// conflicts (Zhipu's 1214 to the `content` beside tool calls): the form of fallback
    /// `step` (1, 2, …), or `None` when there are no more. The client resends with the
    /// next form once [`Codec::wants_fallback`] says so, and keeps the form that worked.
    fn encode_fallback(&self, _request: &ChatRequest<'_>, _model: &str, _stream: bool, _step: u8) -> Option<Value> {
        None
    }
    /// Whether `error` is one another form of `request` may avoid (a 400 means nothing
    /// was generated, so resending is safe).
    fn wants_fallback(&self, _request: &ChatRequest<'_>, _error: &ModelError) -> bool {
        false
    }
    /// A whole 2xx response body.
    fn decode(&self, provider: &str, body: &[u8]) -> Result<ChatResponse>;
    /// An error body, with what this client knows of its provider (its quota rules).
    fn decode_error(&self, provider: &str, status: u16, body: &[u8]) -> ProviderError;
    /// A decoder for one streamed answer.
    fn stream_decoder(&self, provider: &str) -> Self::Stream;
    /// See [`ChatModel::format_with_tools`]. Default: no.
    fn format_with_tools(&self) -> bool {
        false
    }
}

/// A [`ChatModel`] speaking `C` over HTTP: provider name, model, base URL, headers
/// (authentication included) and the transport (timeouts, retries, transcript).
#[derive(Debug, Clone)]
pub struct HttpModel<C> {
    provider: String,
    model: String,
    base_url: String,
    headers: HeaderMap,
    codec: C,
    transport: HttpTransport,
    /// The fallback form that worked ([`Codec::encode_fallback`]); 0 for the codec's own.
    /// Shared by clones: what one learned, all use.
    fallback: Arc<AtomicU8>,
    /// What the model takes besides text, when set ([`HttpModel::with_capabilities`]);
    /// else the catalogue's row.
    capabilities: Option<Capabilities>,
    /// The provider's record, when the client was made from one.
    record: Option<Arc<Provider>>,
}

impl<C: Codec> HttpModel<C> {
    /// A client from its parts; the base URL must be http(s) and the model non-empty.
    pub fn with_codec(provider: &str, base_url: &str, model: &str, headers: HeaderMap, codec: C) -> Result<Self> {
        if model.is_empty() {
            return Err(ModelError::Config(format!(
                "no model given for {provider}: name one (the client's `model` argument)"
            )));
        }
        Ok(HttpModel {
            provider: provider.to_string(),
            model: model.to_string(),
            base_url: check_base_url(base_url)?,
            headers,
            codec,
            transport: HttpTransport::default(),
            fallback: Arc::new(AtomicU8::new(0)),
            capabilities: None,
            record: None,
        })
    }

    /// Carries the provider's record (and goes by its name): telemetry, the catalogue and
    /// the price table read it ([`ChatModel::record`]). The codec keeps what it was made
    /// with.
    pub fn with_record(mut self, record: Arc<Provider>) -> Self {
        self.provider.clone_from(&record.name);
        self.record = Some(record);
        self
    }

    /// Sends requests to another base URL.
    pub fn with_base_url(mut self, base_url: &str) -> Result<Self> {
        self.base_url = check_base_url(base_url)?;
        Ok(self)
    }

    /// Declares what the model takes besides text (images, PDFs, audio), for a model the
    /// catalogue does not know or knows wrong. A request with a part it does not take
    /// fails before it is sent.
    pub fn with_capabilities(mut self, capabilities: Capabilities) -> Self {
        self.capabilities = Some(capabilities);
        self
    }

    /// Names the provider in errors and logs (and its record, which it then also goes by
    /// in telemetry and the catalogue: [`Provider::renamed`]).
    pub fn with_provider_name(mut self, name: &str) -> Self {
        self.provider = name.to_string();
        if let Some(r) = &mut self.record {
            *r = Arc::new(r.renamed(name));
        }
        self
    }

    /// Uses this transport (timeouts, retry policy, transcript).
    pub fn with_transport(mut self, transport: HttpTransport) -> Self {
        self.transport = transport;
        self
    }

    /// Shorthand for a transport with this retry policy and timeout, and optionally a
    /// JSONL transcript.
    pub fn with_http(self, retry: RetryPolicy, request_timeout: Duration, transcript: Option<PathBuf>) -> Result<Self> {
        let mut b = HttpTransport::builder().retry(retry).request_timeout(request_timeout);
        if let Some(p) = transcript {
            b = b.transcript(p);
        }
        Ok(self.with_transport(b.build()?))
    }

    /// The URL a request for the default model goes to.
    pub fn endpoint(&self, stream: bool) -> String {
        self.codec.url(&self.base_url, &self.model, stream)
    }

    /// The codec.
    pub fn codec(&self) -> &C {
        &self.codec
    }

    pub(crate) fn codec_mut(&mut self) -> &mut C {
        &mut self.codec
    }

    /// The URL and body of a request in fallback form `step` (0: the codec's own form);
    /// `None` when the codec has no such form.
    fn request(&self, req: &ChatRequest<'_>, stream: bool, step: u8) -> Result<Option<(String, Bytes)>> {
        let model = req.options.model.as_deref().unwrap_or(&self.model);
        self.codec.check(req, model)?;
        let caps = self.capabilities.or_else(|| catalogue::capabilities(self.catalogue_name(), model));
        catalogue::check_parts(&self.provider, model, caps, req.messages)?;
        let body = match step {
            0 => Some(self.codec.encode(req, model, stream)),
            n => self.codec.encode_fallback(req, model, stream, n),
        };
        let Some(body) = body else { return Ok(None) };
        let body = serde_json::to_vec(&body)
            .map_err(|e| ModelError::Config(format!("could not serialize the request: {e}")))?;
        Ok(Some((self.codec.url(&self.base_url, model, stream), Bytes::from(body))))
    }

    /// Sends `req` with `send`, in the form learned so far; when the provider refuses that
    /// form in a way another may avoid, resends once with each next form, and remembers
    /// the one that worked.
    async fn with_fallback<'a, T, F>(&'a self, req: &ChatRequest<'a>, stream: bool, send: F) -> Result<T>
    where
        F: Fn(String, Bytes) -> BoxFuture<'a, Result<T>>,
    {
        let learned = self.fallback.load(Ordering::Relaxed);
        let mut step = learned;
        let mut first = self.request(req, stream, step)?;
        if first.is_none() {
            step = 0;
            first = self.request(req, stream, 0)?;
        }
        let Some((mut url, mut body)) = first else {
            return Err(ModelError::Config("the codec encoded no request".into()));
        };
        loop {
            match send(url, body).await {
                Err(e) if self.codec.wants_fallback(req, &e) => {
                    let Some(next) = self.request(req, stream, step + 1)? else { return Err(e) };
                    step += 1;
                    tracing::info!(provider = %self.provider, step, error = %e, "resending in the next accepted form");
                    (url, body) = next;
                }
                Err(e) => return Err(e),
                Ok(r) => {
                    if step != learned {
                        self.fallback.store(step, Ordering::Relaxed);
                        tracing::info!(provider = %self.provider, step, "this form is accepted: keeping it for this client");
                    }
                    return Ok(r);
                }
            }
        }
    }
}

impl<C: Codec> HttpModel<C> {
    /// An error body as the codec reads it, marked by the record's quota rules too (a
    /// codec of its own, Anthropic's or Gemini's, knows only its protocol's).
    fn decode_error(&self, provider: &str, status: u16, body: &[u8]) -> ProviderError {
        let e = self.codec.decode_error(provider, status, body);
        match &self.record {
            Some(r) => crate::model::provider::QuotaRule::apply(&r.quota, e),
            None => e,
        }
    }
}

impl<C> HttpModel<C> {
    fn http<'a>(&'a self, url: &'a str, body: Bytes, stream: bool) -> HttpRequest<'a> {
        HttpRequest { provider: &self.provider, model: &self.model, url, headers: &self.headers, body, stream }
    }
}

fn check_base_url(base_url: &str) -> Result<String> {
    let base = base_url.trim_end_matches('/');
    if !(base.starts_with("http://") || base.starts_with("https://")) {
        return Err(ModelError::Config(format!("the base URL `{base_url}` must start with http:// or https://")));
    }
    super::http::require_tls_for(base)?;
    Ok(base.to_string())
}

impl<C: Codec> ChatModel for HttpModel<C> {
    fn provider(&self) -> &str {
        &self.provider
    }

    fn record(&self) -> Option<&Provider> {
        self.record.as_deref()
    }

    fn model_name(&self) -> &str {
        &self.model
    }

    fn chat<'a>(&'a self, request: ChatRequest<'a>) -> BoxFuture<'a, Result<ChatResponse>> {
        async move {
            let body = self
                .with_fallback(&request, false, |url, body| {
                    async move {
                        self.transport
                            .post_json(&self.http(&url, body, false), &|p, s, b| self.decode_error(p, s, b))
                            .await
                    }
                    .boxed()
                })
                .await?;
            self.codec.decode(&self.provider, &body)
        }
        .boxed()
    }

    fn format_with_tools(&self) -> bool {
        self.codec.format_with_tools()
    }

    fn capabilities(&self) -> Option<Capabilities> {
        self.capabilities.or_else(|| catalogue::capabilities(self.catalogue_name(), &self.model))
    }

    fn chat_stream<'a>(&'a self, request: ChatRequest<'a>) -> BoxFuture<'a, Result<EventStream<'a>>> {
        async move {
            self.with_fallback(&request, true, |url, body| {
                async move {
                    let decoder = self.codec.stream_decoder(&self.provider);
                    let errors = |p: &str, s: u16, b: &[u8]| self.decode_error(p, s, b);
                    self.transport.post_sse(&self.http(&url, body, true), &errors, decoder).await
                }
                .boxed()
            })
            .await
        }
        .boxed()
    }
}
