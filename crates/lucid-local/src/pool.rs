//! One persistent ggml thread pool for the context.
//!
//! Built without OpenMP, ggml runs each graph (every decoded token) on a thread pool it
//! creates for that graph and joins after it, unless the context has a pool of its own. On
//! a machine whose cores are busy the new threads start late and the others spin at ggml's
//! barrier waiting for them: measured with `benches/llama_ref.cpp` on 2 cores at load 4,
//! 2.3 tokens/s without a pool and 38.4 with one (prefill 36 → 145 tokens/s); on idle
//! cores both run at the same speed. `llama-server` attaches one too.
//!
//! llama-cpp-2 (pinned at 0.1.160) creates the context and keeps its pointer private, so
//! [`attach`] reads it from the wrapper's `Debug` output (`LlamaContext { context: 0x… }`)
//! and checks it against what the wrapper says of its context before using it; a later
//! version that prints something else gets no pool (a warning), not a wrong pointer.

use std::ptr::NonNull;

use llama_cpp_2::context::LlamaContext;
use llama_cpp_sys_2 as sys;

/// A thread pool attached to a context; freed on drop, which must come after the
/// context's.
pub(crate) struct Pool(NonNull<sys::ggml_threadpool>);

// SAFETY: the pool is a C object with no thread affinity; only the engine's thread uses it.
unsafe impl Send for Pool {}

impl Drop for Pool {
    fn drop(&mut self) {
        // SAFETY: made by `ggml_threadpool_new` in `attach`, freed once here.
        unsafe { sys::ggml_threadpool_free(self.0.as_ptr()) }
    }
}

/// Gives `ctx` a pool of `threads` for both prefill and generation; `None` (after a
/// warning) when the context's pointer cannot be read or the pool cannot be made, and
/// ggml keeps making one per graph.
pub(crate) fn attach(ctx: &LlamaContext<'_>, threads: i32) -> Option<Pool> {
    let Some(raw) = context_pointer(ctx) else {
        tracing::warn!("cannot attach a thread pool to the llama.cpp context; each token starts its own threads");
        return None;
    };
    // SAFETY: plain data, filled by ggml.
    let mut params = unsafe { sys::ggml_threadpool_params_default(threads) };
    // SAFETY: `params` is valid for the call; the pool it returns is owned by `Pool`.
    let pool = NonNull::new(unsafe { sys::ggml_threadpool_new(&mut params) })?;
    // SAFETY: `raw` is the live context (checked by `context_pointer`), the pool outlives it
    // (the caller drops the context first), and both pools may be the same one.
    unsafe { sys::llama_attach_threadpool(raw, pool.as_ptr(), pool.as_ptr()) };
    Some(Pool(pool))
}

/// The `llama_context` pointer inside `ctx`, when its `Debug` output shows one that is the
/// context's: the same context size and batch size as the wrapper reports.
pub(crate) fn context_pointer(ctx: &LlamaContext<'_>) -> Option<*mut sys::llama_context> {
    let shown = format!("{ctx:?}");
    let hex = shown.split("context: 0x").nth(1)?.split(|c: char| !c.is_ascii_hexdigit()).next()?;
    let address = usize::from_str_radix(hex, 16).ok().filter(|a| *a != 0)?;
    let raw = std::ptr::with_exposed_provenance_mut::<sys::llama_context>(address);
    // SAFETY: with the pinned llama-cpp-2 the address is the context's own pointer, which
    // lives as long as `ctx`; these calls only read two of its settings.
    let same = unsafe { sys::llama_n_ctx(raw) == ctx.n_ctx() && sys::llama_n_batch(raw) == ctx.n_batch() };
    same.then_some(raw)
}
