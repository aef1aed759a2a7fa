//! Lucid's in-process model: a GGUF file (Qwen2/2.5/3, Llama and the other architectures
//! llama.cpp runs) loaded into this process and served as a [`lucid::model::ChatModel`],
//! with no server and no key.
//!
//! - **Engine:** llama.cpp itself (through `llama-cpp-2`), built for the CPU baseline with
//!   its SIMD kernels (x86-64-v3 on x86-64, NEON on ARM64) and optimised in every profile.
//!   A CPU without those instructions is refused before any call into llama.cpp
//!   ([`check_cpu`]), not crashed by SIGILL.
//! - **Prompt:** the file's own chat template (`tokenizer.chat_template`), rendered with
//!   minijinja as transformers renders it, tools included (Hermes `<tool_call>` for Qwen).
//! - **Tool calls that cannot be malformed:** decoding is constrained by a grammar built from
//!   the request (llguidance): plain text, or calls whose JSON matches one of the offered
//!   tools' schemas, in the tagged or the bare-JSON form; `tool_choice` and response formats
//!   go through the same grammar.
//! - **KV cache kept across calls:** a call prefills only the tokens after the prefix it
//!   shares with the previous call (the system prompt, the tools, the earlier turns).
//! - Streaming, usage (prompt, completion and reused prompt tokens), cancellation (dropping
//!   the call stops the generation between two tokens) and the context window from the
//!   file's metadata.
//!
//! ```no_run
//! # async fn demo() -> lucid::Result<()> {
//! use lucid_local::{LocalModel, LocalOptions};
//! let model = LocalModel::load("qwen2.5-0.5b-instruct-q4_k_m.gguf", LocalOptions::default())?;
//! let agent = lucid::Agent::builder(model).build();
//! let answer = agent.run("Say hi").await?;
//! println!("{}", answer.content);
//! # Ok(()) }
//! ```

mod cpu;
mod engine;
mod grammar;
mod llama_log;
mod output;
mod pool;
mod prefix_cache;
mod template;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, mpsc};

use futures::StreamExt;
use futures::future::BoxFuture;
use lucid::model::{ChatModel, ChatRequest, ChatResponse, EventStream, ModelError, StreamEvent};

pub use cpu::{UnsupportedCpu, check_cpu, required_cpu_features};
pub use engine::{MIN_CONTEXT, PROVIDER};
pub use template::{FUEL as TEMPLATE_FUEL, MAX_SOURCE as MAX_TEMPLATE_BYTES};

/// The context window used when [`LocalOptions::context_size`] is unset (or the file's own
/// training context, when that is smaller): a KV cache of 8,192 tokens is ~100 MB for a
/// 0.5B model, and an agent's turns fit in it.
pub const DEFAULT_CONTEXT: u32 = 8192;

/// The most bytes a chat template may write for a window of `window` tokens: 64 bytes a
/// token (a token is 4 on average), and at least 1 MiB. A prompt that long cannot fit the
/// window anyway; the bound keeps a hostile template from writing gigabytes.
fn prompt_bound(window: u32) -> usize {
    (window as usize).saturating_mul(64).max(1 << 20)
}

/// How a GGUF model is loaded and run.
///
/// ```
/// let o = lucid_local::LocalOptions { context_size: Some(4096), ..Default::default() };
/// assert_eq!(o.batch_size, 512);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct LocalOptions {
    /// Tokens the KV cache holds (default [`DEFAULT_CONTEXT`], never more than the file's
    /// training context).
    pub context_size: Option<u32>,
    /// CPU threads (default: the physical cores).
    pub threads: Option<usize>,
    /// Prompt tokens computed per step of the prefill.
    pub batch_size: u32,
    /// A Jinja chat template to use instead of the file's own.
    pub chat_template: Option<String>,
    /// A directory for the on-disk cache of conversations' fixed prefix (system prompt and
    /// tools): a new process loads its computed state instead of prefilling it. `None`: no
    /// disk cache (the default of the library; the CLI uses `~/.cache/lucid/kv`).
    pub prefix_cache: Option<PathBuf>,
    /// The most bytes the prefix cache keeps (least recently used files go first).
    pub prefix_cache_bytes: u64,
    /// The model's name in logs, responses and usage (default: the file's stem).
    pub name: Option<String>,
}

impl Default for LocalOptions {
    fn default() -> Self {
        LocalOptions {
            context_size: None,
            threads: None,
            batch_size: 512,
            chat_template: None,
            prefix_cache: None,
            prefix_cache_bytes: 512 << 20,
            name: None,
        }
    }
}

/// A GGUF model running in this process, behind [`ChatModel`].
///
/// The weights, the llama.cpp context and its KV cache live on one worker thread; calls are
/// served one at a time in the order they come (clones share the worker). Calls of one
/// session share their prefix with the previous call and prefill only what is new.
#[derive(Clone)]
pub struct LocalModel {
    inner: Arc<Inner>,
}

struct Inner {
    name: String,
    path: PathBuf,
    template: template::ChatTemplate,
    context_window: u32,
    train_context: u32,
    jobs: Mutex<mpsc::Sender<engine::Job>>,
    generated: Arc<AtomicU64>,
}

impl std::fmt::Debug for LocalModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalModel")
            .field("path", &self.inner.path)
            .field("context_window", &self.inner.context_window)
            .finish_non_exhaustive()
    }
}

impl LocalModel {
    /// Loads the GGUF file at `path` (memory-mapped) and starts its worker thread. Blocks
    /// while the file loads (about a second for a 0.5B model): from async code, call it in
    /// `tokio::task::spawn_blocking`.
    ///
    /// # Errors
    /// [`ModelError::Config`] when this CPU lacks instructions the engine was compiled for
    /// ([`check_cpu`], checked before any call into llama.cpp), the file is missing, is not a
    /// GGUF model llama.cpp can run (with llama.cpp's own reason), its context window is
    /// under [`MIN_CONTEXT`] tokens or not a number llama.cpp can hold, or it has no usable
    /// chat template (none, over [`MAX_TEMPLATE_BYTES`], or not compiling).
    pub fn load(path: impl AsRef<Path>, options: LocalOptions) -> Result<LocalModel, ModelError> {
        check_cpu().map_err(|e| ModelError::Config(e.to_string()))?;
        let path = path.as_ref().to_path_buf();
        if !path.is_file() {
            return Err(ModelError::Config(format!("no model file at {}", path.display())));
        }
        let stem = path.file_stem().map_or_else(|| "local".to_string(), |s| s.to_string_lossy().into_owned());
        let name = options.name.clone().unwrap_or(stem);
        let (ready_tx, ready_rx) = mpsc::channel();
        let (jobs_tx, jobs_rx) = mpsc::channel();
        let worker_path = path.clone();
        let generated = Arc::new(AtomicU64::new(0));
        let counter = Arc::clone(&generated);
        std::thread::Builder::new()
            .name("lucid-local".into())
            .spawn(move || engine::run(worker_path, options, ready_tx, jobs_rx, counter))
            .map_err(|e| ModelError::Config(format!("starting the model thread: {e}")))?;
        let loaded = ready_rx
            .recv()
            .map_err(|_| ModelError::Config("the model thread stopped while loading".into()))?
            .map_err(ModelError::Config)?;
        let template = template::ChatTemplate::new(
            &loaded.template,
            &loaded.bos,
            &loaded.eos,
            prompt_bound(loaded.context_window),
        )
        .map_err(|e| ModelError::Config(format!("{}: {e}", path.display())))?;
        tracing::info!(path = %path.display(), context = loaded.context_window, "local model loaded");
        Ok(LocalModel {
            inner: Arc::new(Inner {
                name,
                path,
                template,
                context_window: loaded.context_window,
                train_context: loaded.train_context,
                jobs: Mutex::new(jobs_tx),
                generated,
            }),
        })
    }

    /// The context window in tokens: the KV cache's size.
    pub fn context_window(&self) -> u32 {
        self.inner.context_window
    }

    /// The context the model was trained with (`<arch>.context_length` in the file).
    pub fn train_context(&self) -> u32 {
        self.inner.train_context
    }

    /// Tokens generated since the model was loaded, by every call (a cancelled call counts
    /// what it generated before it stopped).
    pub fn generated_tokens(&self) -> u64 {
        self.inner.generated.load(Ordering::Relaxed)
    }

    /// The file this model was loaded from.
    pub fn path(&self) -> &Path {
        &self.inner.path
    }

    /// The prompt a request becomes: the file's chat template over its messages and tools.
    ///
    /// # Errors
    /// [`ModelError::Config`] when the template fails on these messages (its own
    /// `raise_exception`, for instance), runs over [`TEMPLATE_FUEL`] instructions, writes
    /// more than 64 bytes per token of the context window (at least 1 MiB), or writes
    /// nothing.
    pub fn render(&self, request: &ChatRequest<'_>) -> Result<String, ModelError> {
        self.inner.template.render(request.messages, request.tools).map_err(ModelError::Config)
    }

    fn start(&self, request: &ChatRequest<'_>) -> Result<EventStream<'static>, ModelError> {
        lucid::model::catalogue::check_parts(
            PROVIDER,
            &self.inner.name,
            Some(lucid::model::catalogue::Capabilities::TEXT),
            request.messages,
        )?;
        let prompt = self.render(request)?;
        // The fixed prefix, for the disk cache: an error here only means no disk cache.
        let prefix = self.inner.template.render_prefix(request.messages, request.tools).unwrap_or_default();
        let (events, rx) = tokio::sync::mpsc::unbounded_channel();
        let cancel = Arc::new(AtomicBool::new(false));
        let job = engine::Job {
            prompt,
            prefix,
            tools: request.tools.to_vec(),
            options: request.options.clone(),
            events,
            cancel: Arc::clone(&cancel),
            model_name: self.inner.name.clone(),
        };
        let jobs = self.inner.jobs.lock().unwrap_or_else(|p| p.into_inner());
        jobs.send(job).map_err(|_| ModelError::Config("the model thread has stopped".into()))?;
        let guard = CancelOnDrop(cancel);
        let stream = futures::stream::unfold((rx, guard), |(mut rx, guard)| async move {
            rx.recv().await.map(|item| (item, (rx, guard)))
        });
        Ok(stream.boxed())
    }
}

/// Stops the worker's generation when the caller drops the call (between two tokens).
struct CancelOnDrop(Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

impl ChatModel for LocalModel {
    fn provider(&self) -> &str {
        PROVIDER
    }

    fn model_name(&self) -> &str {
        &self.inner.name
    }

    fn chat<'a>(&'a self, request: ChatRequest<'a>) -> BoxFuture<'a, lucid::model::Result<ChatResponse>> {
        Box::pin(async move {
            let mut stream = self.start(&request)?;
            while let Some(event) = stream.next().await {
                if let StreamEvent::Done(response) = event? {
                    return Ok(response);
                }
            }
            Err(ModelError::StreamTruncated { provider: PROVIDER.into(), message: "the model thread stopped".into() })
        })
    }

    fn chat_stream<'a>(&'a self, request: ChatRequest<'a>) -> BoxFuture<'a, lucid::model::Result<EventStream<'a>>> {
        Box::pin(async move { self.start(&request) })
    }

    /// The embedded engine renders a text prompt: no images, documents or audio.
    fn capabilities(&self) -> Option<lucid::model::catalogue::Capabilities> {
        Some(lucid::model::catalogue::Capabilities::TEXT)
    }
}
