//! The model factory: a resolved [`ModelConfig`] (see `resolve`) builds the client. `lucid
//! run`, `lucid chat` and `lucid workflow run` (its agents naming their own
//! `provider:model` too) all take their models from here, so providers, transcript and
//! retry settings apply everywhere.
//!
//! Provider `local` is the in-process engine: its model is a GGUF file (`--model-file`,
//! `model_file`) or a name resolved through the Hugging Face cache by `crate::models`
//! (downloaded first when missing). With no key and no local server, and the `local`
//! feature built in, it is the default, with [`crate::models::DEFAULT_MODEL`].

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use lucid::model::http::HttpTransport;
use lucid::model::retry::RetryPolicy;
use lucid::model::{Api, ChatModel, Fallback, Provider};

/// A fully resolved model choice.
#[derive(Debug, Clone)]
pub struct ModelConfig {
    pub provider: String,
    /// The record the client carries: a preset's, with its `[providers.NAME]` fields laid
    /// over it; a provider of one's own's; any OpenAI-compatible server's for a bare base
    /// URL. `None` for the in-process engine.
    pub record: Option<Provider>,
    pub model: String,
    pub base_url: String,
    /// The OpenAI API asked for (flag, config); `None` keeps the preset's own.
    pub api: Option<Api>,
    /// Prompt-cache breakpoints (`cache = "off"` turns them off).
    pub prompt_cache: bool,
    /// What the model takes besides text (`accepts`), overriding the catalogue.
    pub accepts: Option<lucid::model::catalogue::Capabilities>,
    pub api_key: Option<String>,
    pub transcript: Option<PathBuf>,
    pub max_retries: u32,
    pub timeout: Duration,
    pub deadline: Option<Duration>,
    /// The backup models, in order (`fallback`, `--fallback`); each its own client.
    pub fallback: Vec<ModelConfig>,
    /// Provider `local`: the GGUF file, once known (given, or found in the cache).
    pub model_file: Option<PathBuf>,
    /// Models come only from the cache (`--offline`, `HF_HUB_OFFLINE=1`).
    pub offline: bool,
}

/// The provider name of the in-process engine.
pub const LOCAL: &str = "local";

impl ModelConfig {
    /// The client this configuration describes: its record's (an OpenAI-compatible one
    /// for a bare base URL), carrying the record, on a transport with its retries, timeout and transcript.
    pub fn build(&self) -> lucid::Result<Arc<dyn ChatModel>> {
        let primary = self.build_one()?;
        if self.fallback.is_empty() {
            return Ok(primary);
        }
        let mut model = Fallback::new(primary);
        for backup in &self.fallback {
            model = model.backup(backup.build_one()?);
        }
        if let Some(path) = &self.transcript {
            model = model.transcript(path)?;
        }
        Ok(Arc::new(model))
    }

    /// This configuration's own client, without its backups.
    fn build_one(&self) -> lucid::Result<Arc<dyn ChatModel>> {
        let Some(record) = &self.record else {
            let path = match &self.model_file {
                Some(p) => p.clone(),
                None => locate_blocking(&self.model, self.offline)?,
            };
            return crate::models::local_chat_model(&path, &self.model)
                .map_err(|e| lucid::Error::Config(format!("{e:#}")));
        };
        let mut client = record
            .client()
            .model(&self.model)
            .api_key(self.api_key.clone())
            .base_url(&self.base_url)
            .prompt_cache(self.prompt_cache)
            .transport(self.transport()?);
        if let Some(api) = self.api {
            client = client.api(api);
        }
        if let Some(c) = self.accepts {
            client = client.accepts(c);
        }
        Ok(client.build()?)
    }

    /// The transport of this configuration's calls: its retries, timeout and transcript
    /// (the model's, and its embeddings').
    pub fn transport(&self) -> lucid::Result<HttpTransport> {
        let retry = RetryPolicy { max_retries: self.max_retries, ..RetryPolicy::default() };
        let mut transport =
            HttpTransport::builder().retry(retry).request_timeout(self.timeout).read_timeout(self.timeout);
        if let Some(d) = self.deadline {
            transport = transport.deadline(d);
        }
        if let Some(path) = &self.transcript {
            transport = transport.transcript(path);
        }
        Ok(transport.build()?)
    }

    /// The API the client speaks: `chat`, `responses`, `messages` or `generateContent`.
    pub fn api_name(&self) -> &'static str {
        match (&self.record, self.api) {
            (Some(p), Some(api)) => p.with_api(api).map_or(p.protocol, |p| p.protocol).api_name(),
            (Some(p), None) => p.protocol.api_name(),
            (None, api) => api.unwrap_or(Api::Chat).as_str(),
        }
    }
}

/// Where the resolved API key came from (a flag or an environment variable's name), for
/// `lucid config show`.
#[derive(Debug, Clone, Default)]
pub struct KeySource(pub Option<String>);

/// The file of a local model name, for a client built outside an async function's reach
/// (a workflow's agents, backup models): the same [`crate::models::Hub::locate`], run to
/// completion on this thread.
fn locate_blocking(name: &str, offline: bool) -> lucid::Result<PathBuf> {
    let hub = super::hub(offline);
    let located = async move { hub.locate(name).await.map_err(|e| lucid::Error::Config(format!("{e:#}"))) };
    match tokio::runtime::Handle::try_current() {
        Ok(handle) if handle.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => {
            tokio::task::block_in_place(|| handle.block_on(located))
        }
        // No runtime here, or one whose only thread must not block: a thread of its own.
        _ => std::thread::scope(|s| {
            s.spawn(|| {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .map_err(|e| lucid::Error::Config(format!("could not start a runtime to locate {name}: {e}")))?;
                rt.block_on(located)
            })
            .join()
            .unwrap_or_else(|_| Err(lucid::Error::Config("locating the local model failed".into())))
        }),
    }
}
