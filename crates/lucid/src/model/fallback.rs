//! Backup models: [`Fallback`], a [`ChatModel`] that sends a call to its primary model and,
//! when that fails for a reason worth switching for, sends the same history to the next
//! model in line, each in its own provider's wire format.
//!
//! What is worth switching for ([`worth_switching`]): the transport's retries ran out on a
//! 429 rate limit or a 5xx/529 overload, the account's quota ran out, the connection was
//! refused or timed out or broke off, the key was refused (401/403) or the model is unknown
//! (404). Not a 400 or another 4xx about the request itself: the next model would be sent
//! the same request, and the error would hide a bug.
//!
//! A bad key or an unknown model on the primary switches too: they are about the primary's
//! account or name, not the request, and the switch is never silent (a `warn` log line, a
//! transcript line, [`StreamEvent::Fallback`], [`ChatResponse::fallbacks`], and in an
//! agent's run an [`AgentEvent::Fallback`](crate::AgentEvent::Fallback) and the answering
//! model in [`AgentResult::model`](crate::AgentResult::model)).
//!
//! A stream switches only before its first event: once text was streamed, an error stands.

use std::path::Path;
use std::sync::Arc;

use futures::future::BoxFuture;
use futures::{FutureExt, StreamExt};
use serde::Serialize;
use serde_json::json;

use crate::message::Message;
use crate::model::ProviderErrorKind;
use crate::model::error::{ModelError, Result};
use crate::model::transcript::Transcript;
use crate::model::{ChatModel, ChatOptions, ChatRequest, ChatResponse, EventStream, IntoChatModel, StreamEvent};
use crate::tool::ToolSpec;

/// One switch from a model that failed to the next one in line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct ModelSwitch {
    /// The model that failed, as `provider:model`.
    pub from: String,
    /// The model tried next, as `provider:model`.
    pub to: String,
    /// Why: the failed call's error, in words.
    pub error: String,
}

/// A model with backups: calls go to the first model; one that fails for a reason worth
/// switching for ([`worth_switching`]) goes to the next, with the same messages, tools and
/// options (less [`ChatOptions::model`] and [`ChatOptions::extra`], which name the primary's
/// model and carry its provider's own fields: each backup uses its own model name).
///
/// [`ChatModel::provider`] and [`ChatModel::model_name`] are the primary's.
///
/// Any clients mix (`Anthropic::new(key, "claude-haiku-4-5")`, `Gemini`, a preset's…):
///
/// ```
/// use lucid::model::{Fallback, OpenAiCompatible};
/// let primary = OpenAiCompatible::new("http://127.0.0.1:8000/v1", None, "big")?;
/// let backup = OpenAiCompatible::new("http://127.0.0.1:8001/v1", None, "small")?;
/// let model = Fallback::new(primary).backup(backup);
/// assert_eq!(model.labels(), ["openai:big", "openai:small"]);
/// let agent = lucid::Agent::builder(model).build();
/// # Ok::<(), lucid::Error>(())
/// ```
pub struct Fallback {
    models: Vec<Arc<dyn ChatModel>>,
    transcript: Option<Arc<Transcript>>,
}

impl std::fmt::Debug for Fallback {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fallback").field("models", &self.labels()).finish()
    }
}

impl Fallback {
    /// A model with no backups yet: add them with [`Fallback::backup`].
    pub fn new(primary: impl IntoChatModel) -> Self {
        Fallback { models: vec![primary.into_chat_model()], transcript: None }
    }

    /// Adds a backup, tried after the models before it.
    pub fn backup(mut self, model: impl IntoChatModel) -> Self {
        self.models.push(model.into_chat_model());
        self
    }

    /// Writes a line to this JSONL transcript at each switch (`{"ts", "fallback": {"from",
    /// "to", "error"}}`); give it the file the clients' transports write to, so the switch
    /// sits between the exchanges it joins.
    pub fn transcript(mut self, path: &Path) -> Result<Self> {
        self.transcript = Some(Arc::new(Transcript::open(path)?));
        Ok(self)
    }

    /// The models in the order they are tried, as `provider:model`.
    pub fn labels(&self) -> Vec<String> {
        self.models.iter().map(|m| label(&**m, None)).collect()
    }

    /// Records a switch: log, transcript.
    fn switch(&self, from: usize, options: Option<&ChatOptions>, error: &ModelError) -> ModelSwitch {
        let switch = ModelSwitch {
            from: label(&*self.models[from], options),
            to: label(&*self.models[from + 1], None),
            error: error.to_string(),
        };
        tracing::warn!(from = %switch.from, to = %switch.to, error = %switch.error, "model call failed; switching to the backup model");
        if let Some(t) = &self.transcript {
            t.note(json!({ "fallback": &switch }));
        }
        switch
    }

    fn is_last(&self, i: usize) -> bool {
        i + 1 == self.models.len()
    }
}

/// `provider:model`, with the options' model name when they set one.
pub(crate) fn label(model: &dyn ChatModel, options: Option<&ChatOptions>) -> String {
    let name = options.and_then(|o| o.model.as_deref()).unwrap_or(model.model_name());
    format!("{}:{name}", model.provider())
}

/// Whether a failed call should go to the next model: rate limits and overloads (the
/// transport already retried them), quota, authentication and unknown-model errors, and
/// network failures (refused, timed out, broken off, including a stream that ended before
/// its answer). Never an invalid request (400 and the other 4xx), an unreadable 2xx body,
/// an over-large answer, a setting or a cancellation.
///
/// ```
/// use lucid::model::{ModelError, fallback::worth_switching};
/// use lucid::ProviderError;
/// assert!(worth_switching(&ProviderError::new("anthropic", Some(529), "Overloaded").into()));
/// assert!(!worth_switching(&ProviderError::new("openai", Some(400), "bad temperature").into()));
/// ```
pub fn worth_switching(error: &ModelError) -> bool {
    match error {
        ModelError::Provider(p) => match p.kind {
            ProviderErrorKind::InvalidRequest => false,
            ProviderErrorKind::RateLimited
            | ProviderErrorKind::QuotaExhausted
            | ProviderErrorKind::Authentication
            | ProviderErrorKind::NotFound
            | ProviderErrorKind::Server => true,
        },
        ModelError::Network { .. } | ModelError::StreamTruncated { .. } => true,
        _ => false,
    }
}

/// The options a backup gets: the primary's, less its model name and provider fields.
fn for_backup(options: &ChatOptions) -> ChatOptions {
    ChatOptions { model: None, extra: None, ..options.clone() }
}

impl ChatModel for Fallback {
    fn provider(&self) -> &str {
        self.models[0].provider()
    }

    fn record(&self) -> Option<&crate::model::Provider> {
        self.models[0].record()
    }

    fn model_name(&self) -> &str {
        self.models[0].model_name()
    }

    fn format_with_tools(&self) -> bool {
        self.models.iter().all(|m| m.format_with_tools())
    }

    fn capabilities(&self) -> Option<crate::model::catalogue::Capabilities> {
        self.models[0].capabilities()
    }

    fn chat<'a>(&'a self, request: ChatRequest<'a>) -> BoxFuture<'a, Result<ChatResponse>> {
        async move {
            let backup = for_backup(request.options);
            let mut switches = Vec::new();
            let mut i = 0;
            loop {
                let options = if i == 0 { request.options } else { &backup };
                match self.models[i].chat(ChatRequest { options, ..request }).await {
                    Ok(mut r) => {
                        switches.append(&mut r.fallbacks);
                        r.fallbacks = switches;
                        return Ok(r);
                    }
                    Err(e) if !self.is_last(i) && worth_switching(&e) => {
                        switches.push(self.switch(i, (i == 0).then_some(request.options), &e));
                        i += 1;
                    }
                    Err(e) => return Err(e),
                }
            }
        }
        .boxed()
    }

    fn chat_stream<'a>(&'a self, request: ChatRequest<'a>) -> BoxFuture<'a, Result<EventStream<'a>>> {
        async move {
            let mut switches: Vec<ModelSwitch> = Vec::new();
            let mut i = 0;
            loop {
                let model = &*self.models[i];
                let opened = if i == 0 {
                    model.chat_stream(request).await
                } else {
                    owned_stream(model, request.messages, request.tools, for_backup(request.options)).await
                };
                let failed = match opened {
                    Ok(mut events) => match events.next().await {
                        Some(Err(e)) => e,
                        first => return Ok(announce(switches, first, events)),
                    },
                    Err(e) => e,
                };
                if self.is_last(i) || !worth_switching(&failed) {
                    return Err(failed);
                }
                switches.push(self.switch(i, (i == 0).then_some(request.options), &failed));
                i += 1;
            }
        }
        .boxed()
    }
}

/// The stream of the model that answered: the switches first, then its first event and the
/// rest, its final answer carrying the switches.
fn announce<'a>(
    switches: Vec<ModelSwitch>,
    first: Option<Result<StreamEvent>>,
    rest: EventStream<'a>,
) -> EventStream<'a> {
    let told: Vec<Result<StreamEvent>> = switches.iter().cloned().map(|s| Ok(StreamEvent::Fallback(s))).collect();
    let answer = futures::stream::iter(first).chain(rest).map(move |event| match event {
        Ok(StreamEvent::Done(mut r)) => {
            let mut all = switches.clone();
            all.append(&mut r.fallbacks);
            r.fallbacks = all;
            Ok(StreamEvent::Done(r))
        }
        other => other,
    });
    futures::stream::iter(told).chain(answer).boxed()
}

/// A model's stream over options the stream itself owns (a backup's, made for the call).
///
/// The inner stream borrows the options, so a driver future owns both and forwards the
/// events through a channel; the returned stream polls the driver and the channel together
/// (no task is spawned). Opening errors come from the returned future, as
/// [`ChatModel::chat_stream`] requires.
async fn owned_stream<'a>(
    model: &'a dyn ChatModel,
    messages: &'a [Message],
    tools: &'a [ToolSpec],
    options: ChatOptions,
) -> Result<EventStream<'a>> {
    use futures::channel::{mpsc, oneshot};
    use futures::future::FusedFuture;
    use futures::{SinkExt, future};
    let (opened_tx, opened_rx) = oneshot::channel::<Result<()>>();
    let (mut tx, rx) = mpsc::channel::<Result<StreamEvent>>(0);
    let mut driver = async move {
        let options = options;
        match model.chat_stream(ChatRequest::new(messages, tools, &options)).await {
            Err(e) => {
                let _ = opened_tx.send(Err(e));
            }
            Ok(mut events) => {
                let _ = opened_tx.send(Ok(()));
                while let Some(event) = events.next().await {
                    if tx.send(event).await.is_err() {
                        break;
                    }
                }
            }
        }
    }
    .boxed()
    .fuse();
    let mut opened_rx = opened_rx.fuse();
    let first = futures::select_biased! {
        opened = opened_rx => Some(opened),
        () = driver => None,
    };
    // The driver may end in the poll that sent the opening: its message is there then.
    let opened = match first {
        Some(opened) => opened,
        None => opened_rx.await,
    };
    opened.unwrap_or(Err(ModelError::Cancelled))?;
    if driver.is_terminated() {
        return Ok(rx.boxed());
    }
    let driving = driver.into_stream().filter_map(|()| future::ready(None));
    Ok(futures::stream::select(driving, rx).boxed())
}
