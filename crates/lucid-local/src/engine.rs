//! The worker thread that owns the weights, the llama.cpp context (its KV cache) and the
//! tokens in that cache. Calls are queued to it; each prefills only the tokens past the
//! common prefix with what the cache holds (the system prompt, the tools and the earlier
//! turns of the same session stay computed), then samples under the call's grammar and
//! streams what it writes.

use std::num::NonZeroU32;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;

use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::context::session::LlamaStateSeqFlags;
use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::LlamaModel;
use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::sampling::LlamaSampler;
use llama_cpp_2::token::LlamaToken;
use llguidance::api::TopLevelGrammar;
use llguidance::{Matcher, ParserFactory};
use lucid::message::Usage;
use lucid::model::stream::Assembler;
use lucid::model::{ChatOptions, ModelError, StreamEvent};
use lucid::tool::ToolSpec;
use lucid::{FinishReason, ProviderError};
use tokio::sync::mpsc::UnboundedSender;

use crate::LocalOptions;
use crate::grammar::{self, Plan};
use crate::llama_log;
use crate::output::OutputReader;
use crate::prefix_cache::{self, PrefixCache};

/// A prefix shorter than this is computed faster than a file is read.
const MIN_DISK_PREFIX: usize = 64;

/// The smallest context window the engine runs with: llama.cpp rounds a context up to a
/// multiple of 256 tokens, and a system prompt, a tool and a turn need a few hundred.
pub const MIN_CONTEXT: u32 = 256;

/// The provider name of the in-process model, in errors, logs and usage.
pub const PROVIDER: &str = "local";

/// What the worker learned from the file, sent back once the model is loaded.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub template: String,
    pub bos: String,
    pub eos: String,
    pub context_window: u32,
    pub train_context: u32,
}

/// One model call for the worker.
pub struct Job {
    pub prompt: String,
    /// The prompt's fixed prefix (system prompt and tools) as text; empty for none.
    pub prefix: String,
    pub tools: Vec<ToolSpec>,
    pub options: ChatOptions,
    pub events: UnboundedSender<Result<StreamEvent, ModelError>>,
    pub cancel: Arc<AtomicBool>,
    pub model_name: String,
}

/// llama.cpp's back end, initialised once per process.
fn backend() -> Result<&'static LlamaBackend, String> {
    static BACKEND: std::sync::OnceLock<Result<LlamaBackend, String>> = std::sync::OnceLock::new();
    BACKEND
        .get_or_init(|| {
            // llama.cpp's own log lines (its loader's notes on every file) are dropped, or
            // sent to `tracing` when LUCID_LOCAL_LOG is set; its warnings and errors are
            // kept to explain its failures (`llama_log`).
            llama_log::install(std::env::var_os("LUCID_LOCAL_LOG").is_some());
            LlamaBackend::init().map_err(|e| e.to_string())
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// Loads the model on this thread, reports through `ready`, then serves `jobs` until the
/// last sender is dropped.
pub fn run(
    path: PathBuf,
    options: LocalOptions,
    ready: mpsc::Sender<Result<Loaded, String>>,
    jobs: mpsc::Receiver<Job>,
    generated: Arc<AtomicU64>,
) {
    let loaded = (|| -> Result<_, String> {
        let backend = backend()?;
        llama_log::clear();
        let model = LlamaModel::load_from_file(backend, &path, &LlamaModelParams::default())
            .map_err(|e| format!("loading {}: {e}{}", path.display(), llama_log::reason()))?;
        let train_context = train_context(&model).map_err(|e| format!("{}: {e}", path.display()))?;
        let (window, batch) =
            window_and_batch(&options, train_context).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok((backend, model, train_context, window, batch))
    })();
    let (backend, model, train_context, context_window, batch) = match loaded {
        Ok(x) => x,
        Err(e) => {
            let _ = ready.send(Err(e));
            return;
        }
    };
    let threads = options.threads.unwrap_or_else(default_threads).clamp(1, 512) as i32;
    let params = LlamaContextParams::default()
        .with_n_ctx(NonZeroU32::new(context_window))
        .with_n_batch(batch)
        .with_n_ubatch(batch)
        .with_n_threads(threads)
        .with_n_threads_batch(threads);
    llama_log::clear();
    let ctx = match model.new_context(backend, params) {
        Ok(c) => c,
        Err(e) => {
            let _ = ready.send(Err(format!("creating the llama.cpp context: {e}{}", llama_log::reason())));
            return;
        }
    };
    // What llama.cpp made of the request (it rounds the context up, bounds the batch by it).
    let batch = batch.min(ctx.n_batch()).max(1);
    let context_window = context_window.min(ctx.n_ctx());
    // Declared before the worker that owns the context, so dropped after it.
    let _pool = crate::pool::attach(&ctx, threads);
    let template = match options.chat_template.clone().map(Ok).unwrap_or_else(|| {
        model.chat_template(None).map_err(|e| e.to_string()).and_then(|t| t.to_string().map_err(|e| e.to_string()))
    }) {
        Ok(t) => t,
        Err(e) => {
            let _ = ready.send(Err(format!("{} has no chat template (tokenizer.chat_template): {e}", path.display())));
            return;
        }
    };
    let piece = |t: LlamaToken| String::from_utf8_lossy(&model.vocab().token_to_piece(t, true, None)).into_owned();
    let vocab = model.vocab();
    let bos = if vocab.bos().0 >= 0 { piece(vocab.bos()) } else { String::new() };
    let eos = if vocab.eos().0 >= 0 { piece(vocab.eos()) } else { String::new() };
    let prefix_cache = options.prefix_cache.as_deref().and_then(|dir| {
        let key = data_offset(&path).and_then(|offset| prefix_cache::model_key(&path, offset).ok());
        if key.is_none() {
            tracing::warn!(path = %path.display(), "the model file's content cannot be read for the prefix cache: no disk cache");
        }
        Some(PrefixCache::new(dir, options.prefix_cache_bytes, &key?, &template))
    });
    let _ = ready.send(Ok(Loaded { template, bos, eos, context_window, train_context }));
    let mut worker = Worker {
        model: &model,
        ctx,
        history: Vec::new(),
        factory: None,
        batch: batch as usize,
        window: context_window as usize,
        generated,
        prefix_cache,
    };
    for job in jobs {
        let events = job.events.clone();
        match worker.serve(&job) {
            Ok(done) => {
                let _ = events.send(Ok(StreamEvent::Done(done)));
            }
            Err(e) => {
                let _ = events.send(Err(e));
            }
        }
    }
}

/// The context the model was trained with, read as the file states it: a value llama.cpp
/// cannot represent (over 2^31 - 1) is an error, not a panic.
fn train_context(model: &LlamaModel) -> Result<u32, String> {
    let arch = model.meta_val_str("general.architecture").unwrap_or_default();
    let key = format!("{arch}.context_length");
    if let Ok(v) = model.meta_val_str(&key) {
        match v.trim().parse::<u64>() {
            Ok(n) if n <= i32::MAX as u64 => {}
            _ => return Err(format!("{key} is {v}, not a context length")),
        }
    }
    Ok(model.n_ctx_train())
}

/// The context window and the batch size, checked against each other and the model's
/// training context before llama.cpp sees them: the window is the one asked for (default
/// [`crate::DEFAULT_CONTEXT`]) within the training context and at least [`MIN_CONTEXT`];
/// the batch is at most the window.
fn window_and_batch(options: &LocalOptions, train_context: u32) -> Result<(u32, u32), String> {
    if options.batch_size == 0 {
        return Err("batch_size is 0: at least one prompt token per step".into());
    }
    if train_context < MIN_CONTEXT {
        return Err(format!(
            "the model's training context (context_length in the file) is {train_context} tokens, under the \
             {MIN_CONTEXT} the engine needs"
        ));
    }
    let window = options.context_size.unwrap_or(crate::DEFAULT_CONTEXT).min(train_context);
    if window < MIN_CONTEXT {
        return Err(format!("context_size is {window} tokens, under the {MIN_CONTEXT} the engine needs"));
    }
    Ok((window, options.batch_size.min(window)))
}

/// Where the tensor data of the GGUF file at `path` starts: its header and tensor index
/// are the bytes before it. `None` when the file cannot be read as GGUF.
fn data_offset(path: &Path) -> Option<u64> {
    let c_path = std::ffi::CString::new(path.to_str()?).ok()?;
    let params = llama_cpp_sys_2::gguf_init_params { no_alloc: true, ctx: std::ptr::null_mut() };
    // SAFETY: a NUL-terminated path and `no_alloc` (metadata only); the context is freed
    // below, once, and not used after.
    unsafe {
        let ctx = llama_cpp_sys_2::gguf_init_from_file(c_path.as_ptr(), params);
        if ctx.is_null() {
            return None;
        }
        let offset = llama_cpp_sys_2::gguf_get_data_offset(ctx);
        llama_cpp_sys_2::gguf_free(ctx);
        Some(offset as u64)
    }
}

/// The physical cores, as llama.cpp counts threads (hyper-threads only slow the matmuls):
/// half the logical CPUs on machines with more than four, all of them on small ones.
fn default_threads() -> usize {
    let n = std::thread::available_parallelism().map_or(4, |n| n.get());
    if n > 4 { n / 2 } else { n }
}

struct Worker<'m> {
    model: &'m LlamaModel,
    ctx: LlamaContext<'m>,
    /// The tokens the KV cache holds, in order (sequence 0).
    history: Vec<LlamaToken>,
    /// The grammar compiler over this model's vocabulary, built on first use.
    factory: Option<ParserFactory>,
    /// Prompt tokens per decode: never more than llama.cpp's own batch.
    batch: usize,
    /// The context window checked before every call (at most llama.cpp's context).
    window: usize,
    generated: Arc<AtomicU64>,
    prefix_cache: Option<PrefixCache>,
}

fn engine_error(message: impl Into<String>) -> ModelError {
    ModelError::Provider(ProviderError::new(PROVIDER, None, message))
}

impl Worker<'_> {
    fn serve(&mut self, job: &Job) -> Result<lucid::model::ChatResponse, ModelError> {
        let prompt = self.model.vocab().tokenize(job.prompt.as_bytes(), false, true);
        let window = self.window;
        if prompt.is_empty() {
            return Err(ModelError::Config("the chat template rendered a prompt of no tokens".into()));
        }
        if prompt.len() + 1 >= window {
            return Err(ModelError::Provider(ProviderError::new(
                PROVIDER,
                Some(400),
                format!("the prompt ({} tokens) exceeds the context window ({window} tokens)", prompt.len()),
            )));
        }
        let before = common_len(&self.history, &prompt);
        let loaded = self.prefix_from_disk(&prompt, &job.prefix, &job.cancel)?;
        let common = self.prefill(&prompt, &job.cancel)?;
        // Reused: what the cache held before this call, or what was loaded from disk.
        let cached = if loaded { common } else { common.min(before) };
        let plan = grammar::plan(&job.tools, &job.options, &[]);
        let plan_shape = plan.shape;
        let mut sampler = self.sampler(job, plan)?;
        let room = window - prompt.len();
        let max_new = job.options.max_tokens.map_or(room, |m| (m as usize).min(room));
        let mut reader = OutputReader::new(plan_shape);
        let mut asm = Assembler::default();
        let mut out = Vec::new();
        let mut utf8 = Vec::new();
        let mut generated = 0usize;
        let mut text = String::new();
        let mut logits_at = -1;
        let mut batch = LlamaBatch::new(1, 1);
        let finish = loop {
            if job.cancel.load(Ordering::Relaxed) {
                return Err(ModelError::Cancelled);
            }
            if generated >= max_new {
                break "length";
            }
            let token = sampler.sample(&self.ctx, logits_at);
            if self.model.vocab().is_eog(token) {
                break "stop";
            }
            generated += 1;
            self.generated.fetch_add(1, Ordering::Relaxed);
            utf8.extend(self.model.vocab().token_to_piece(token, false, None));
            let piece = take_utf8(&mut utf8);
            text.push_str(&piece);
            reader.push(&piece, &mut asm, &mut out);
            for event in out.drain(..) {
                if job.events.send(Ok(event)).is_err() {
                    return Err(ModelError::Cancelled);
                }
            }
            if job.options.stop.iter().any(|s| !s.is_empty() && text.contains(s.as_str())) {
                break "stop";
            }
            batch.clear();
            batch.add(token, self.history.len() as i32, &[0], true).map_err(|e| engine_error(format!("batch: {e}")))?;
            llama_log::clear();
            self.ctx.decode(&mut batch).map_err(|e| engine_error(format!("decoding: {e}{}", llama_log::reason())))?;
            self.history.push(token);
            logits_at = 0;
        };
        reader.finish(&mut asm, &mut out);
        for event in out.drain(..) {
            let _ = job.events.send(Ok(event));
        }
        asm.set_finish(finish);
        asm.set_usage(Usage {
            input_tokens: prompt.len() as u64,
            output_tokens: generated as u64,
            cached_input_tokens: cached as u64,
            ..Usage::default()
        });
        asm.set_model(&job.model_name);
        tracing::debug!(prompt = prompt.len(), cached, generated, finish, "local model call");
        Ok(asm.finish(FinishReason::from_openai))
    }

    /// Puts `prompt` into the KV cache, computing only what follows the prefix it already
    /// holds; returns how many tokens were reused. The last token is always computed again
    /// when everything matches: sampling needs its logits.
    fn prefill(&mut self, prompt: &[LlamaToken], cancel: &AtomicBool) -> Result<usize, ModelError> {
        let mut common = common_len(&self.history, prompt);
        if common == prompt.len() {
            common = common.saturating_sub(1);
        }
        if common < self.history.len() && self.ctx.kv_cache_seq_rm(0, Some(common as u32), None).is_err() {
            // A cache that cannot be cut (recurrent models) starts over.
            self.ctx.clear_kv_cache();
            common = 0;
        }
        self.history.truncate(common);
        let todo = &prompt[common..];
        let mut batch = LlamaBatch::new(self.batch, 1);
        for (n, chunk) in todo.chunks(self.batch).enumerate() {
            if cancel.load(Ordering::Relaxed) {
                return Err(ModelError::Cancelled);
            }
            batch.clear();
            let last_chunk = (n + 1) * self.batch >= todo.len();
            for (i, &token) in chunk.iter().enumerate() {
                let pos = self.history.len() as i32;
                batch
                    .add(token, pos, &[0], last_chunk && i + 1 == chunk.len())
                    .map_err(|e| engine_error(format!("batch: {e}")))?;
                self.history.push(token);
            }
            llama_log::clear();
            if let Err(e) = self.ctx.decode(&mut batch) {
                // What was not computed is not in the cache.
                self.history.truncate(self.history.len() - chunk.len());
                return Err(engine_error(format!("prefill: {e}{}", llama_log::reason())));
            }
        }
        Ok(common)
    }

    /// Puts the prompt's fixed prefix into the KV cache from the disk cache when the KV cache
    /// does not hold it yet: loads its state if a file has it (true), else computes it and
    /// saves it for the next process (false). Anything failing here costs speed, not the
    /// call: the prefill that follows computes whatever is missing.
    fn prefix_from_disk(
        &mut self,
        prompt: &[LlamaToken],
        prefix: &str,
        cancel: &AtomicBool,
    ) -> Result<bool, ModelError> {
        let Some(cache) = self.prefix_cache.clone() else { return Ok(false) };
        if prefix.is_empty() {
            return Ok(false);
        }
        let n = common_len(&self.model.vocab().tokenize(prefix.as_bytes(), false, true), prompt);
        if n < MIN_DISK_PREFIX || n >= prompt.len() || common_len(&self.history, prompt) >= n {
            return Ok(false);
        }
        let tokens = &prompt[..n];
        let file = cache.file_for(tokens);
        if let Some(stored) = cache.load(&file, tokens) {
            self.ctx.clear_kv_cache();
            self.history.clear();
            llama_log::clear();
            // SAFETY: the bytes are a state llama.cpp wrote for this model's content, this
            // template and this engine version (the file's name), verified against their
            // checksum; llama.cpp checks their shapes against the context and refuses (0)
            // what does not fit.
            let read = unsafe { self.ctx.state_seq_set_data_ext(&stored.state, 0, LlamaStateSeqFlags::empty()) };
            if read {
                self.history = stored.tokens;
                PrefixCache::touch(&file);
                tracing::debug!(tokens = n, file = %file.display(), "prefix loaded from the disk cache");
                return Ok(true);
            }
            tracing::warn!(file = %file.display(), reason = %llama_log::reason(), "llama.cpp refused a prefix cache file: removed");
            self.ctx.clear_kv_cache();
            let _ = std::fs::remove_file(&file);
        }
        self.prefill(tokens, cancel)?;
        let flags = LlamaStateSeqFlags::empty();
        let size = self.ctx.state_seq_get_size_ext(0, flags);
        if size == 0 || size as u64 > cache.max_bytes() {
            return Ok(false);
        }
        let mut state = vec![0u8; size];
        // SAFETY: `state` holds the `size` bytes llama.cpp just said this sequence needs.
        let written = unsafe { self.ctx.state_seq_get_data_ext(state.as_mut_ptr(), 0, flags) };
        if written != size {
            tracing::warn!(size, written, "llama.cpp wrote another size of state than it announced: not cached");
            return Ok(false);
        }
        match cache.store(&file, &self.history, &state) {
            Ok(()) => tracing::debug!(tokens = n, file = %file.display(), "prefix saved to the disk cache"),
            Err(e) => tracing::warn!(error = %e, file = %file.display(), "the prefix cache could not be written"),
        }
        Ok(false)
    }

    /// The sampler chain: the grammar (when the call has one), then greedy decoding, or
    /// top-p and temperature with the call's seed when a temperature above 0 is asked for.
    fn sampler(&mut self, job: &Job, plan: Plan) -> Result<LlamaSampler, ModelError> {
        let mut chain = Vec::new();
        if let Some(matcher) = self.matcher(job, plan)? {
            chain.push(LlamaSampler::from(matcher));
        }
        match job.options.temperature {
            Some(t) if t > 0.0 => {
                if let Some(p) = job.options.top_p {
                    chain.push(LlamaSampler::top_p(p as f32, 1));
                }
                chain.push(LlamaSampler::temp(t as f32));
                chain.push(LlamaSampler::dist(job.options.seed.map_or(0xC0FFEE, |s| s as u32)));
            }
            _ => chain.push(LlamaSampler::greedy()),
        }
        Ok(LlamaSampler::chain_simple(chain))
    }

    /// The grammar matcher of this call. A tool schema llguidance cannot compile makes all
    /// the call's tools take any JSON object as arguments (logged), never an error.
    fn matcher(&mut self, job: &Job, plan: Plan) -> Result<Option<Matcher>, ModelError> {
        let Some(lark) = plan.lark else { return Ok(None) };
        let factory = match &self.factory {
            Some(f) => f,
            None => {
                let env = LlamaSampler::llguidance_tok_env(self.model);
                let mut f =
                    ParserFactory::new_simple(&env).map_err(|e| engine_error(format!("grammar engine: {e}")))?;
                f.quiet();
                self.factory.insert(f)
            }
        };
        match factory.create_parser(TopLevelGrammar::from_lark(lark)) {
            Ok(parser) => Ok(Some(Matcher::new(Ok(parser)))),
            Err(e) => {
                tracing::warn!(error = %e, "a tool's parameter schema has no grammar: its arguments are any JSON object");
                let names: Vec<String> = job.tools.iter().map(|t| t.name().to_string()).collect();
                let relaxed = grammar::plan(&job.tools, &job.options, &names);
                let lark = relaxed.lark.unwrap_or_default();
                let parser = factory
                    .create_parser(TopLevelGrammar::from_lark(lark))
                    .map_err(|e| ModelError::Config(format!("the request's grammar does not compile: {e}")))?;
                Ok(Some(Matcher::new(Ok(parser))))
            }
        }
    }
}

/// How many tokens `a` and `b` share from the start.
fn common_len(a: &[LlamaToken], b: &[LlamaToken]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

/// The longest complete UTF-8 text at the front of `bytes`, taken out of it (a token may end
/// inside a character; the rest waits for the next token). Invalid bytes become U+FFFD.
fn take_utf8(bytes: &mut Vec<u8>) -> String {
    let mut out = String::new();
    loop {
        match std::str::from_utf8(bytes) {
            Ok(s) => {
                out.push_str(s);
                bytes.clear();
                return out;
            }
            Err(e) => {
                out.push_str(std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or_default());
                match e.error_len() {
                    // Not UTF-8: one replacement character, and on.
                    Some(bad) => {
                        out.push('\u{FFFD}');
                        bytes.drain(..e.valid_up_to() + bad);
                    }
                    // A character not complete yet: wait for its last bytes.
                    None => {
                        bytes.drain(..e.valid_up_to());
                        return out;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_split_across_tokens_waits_for_its_last_byte() {
        let mut b = vec![b'a', 0xC3];
        assert_eq!(take_utf8(&mut b), "a");
        b.push(0xA9);
        assert_eq!(take_utf8(&mut b), "é");
        assert!(b.is_empty());
        let mut bad = vec![0xFF, b'x'];
        assert_eq!(take_utf8(&mut bad), "\u{FFFD}x");
    }
}

#[cfg(test)]
mod pool_tests {
    use std::num::NonZeroU32;

    use llama_cpp_2::context::params::LlamaContextParams;
    use llama_cpp_2::model::LlamaModel;
    use llama_cpp_2::model::params::LlamaModelParams;

    /// With the pinned llama-cpp-2, the context's pointer is found and a pool attached: a
    /// version whose `Debug` shows something else fails here, not in users' hands.
    #[test]
    fn the_context_gets_a_pool_of_its_own() {
        let Some(path) = std::env::var_os("LUCID_TEST_GGUF").filter(|p| !p.is_empty()) else {
            if std::env::var("CI").is_ok_and(|v| v == "true") {
                panic!("LUCID_TEST_GGUF is not set under CI=true; .ci/gguf.sh prints one");
            }
            eprintln!(
                "skipped: LUCID_TEST_GGUF is unset (the path of a Qwen2.5 instruct GGUF; .ci/gguf.sh prints one)"
            );
            return;
        };
        let backend = super::backend().unwrap();
        let model = LlamaModel::load_from_file(backend, path, &LlamaModelParams::default()).unwrap();
        let params = LlamaContextParams::default().with_n_ctx(NonZeroU32::new(512)).with_n_batch(64).with_n_threads(2);
        let ctx = model.new_context(backend, params).unwrap();
        assert!(crate::pool::context_pointer(&ctx).is_some(), "{ctx:?}");
        let pool = crate::pool::attach(&ctx, 2);
        assert!(pool.is_some());
        drop(ctx);
        drop(pool);
    }
}
