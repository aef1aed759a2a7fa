// llama.cpp's own speed through its C API, linked against the very libraries Lucid's engine
// is built from (llama-cpp-sys-2's static libllama and ggml in the cargo target dir: the
// same source, flags and CPU baseline): the reference `benches/local.sh` compares
// lucid-local with when no llama-server is given, or beside it. The same three measures
// as crates/lucid-local/examples/local_bench.rs, with the same prompt, printed the same way:
//   prefill of the prompt (one token sampled), generation of GEN tokens greedily after the
//   first, the second turn's prefill (the answer and a short question only), peak RSS.
//   llama_ref FILE.gguf [PREFILL_WORDS] [GEN_TOKENS]     (THREADS: 2)
#include "ggml-cpu.h"
#include "llama.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

static double now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

static double peak_rss_mib() {
    std::ifstream f("/proc/self/status");
    std::string line;
    while (std::getline(f, line)) {
        if (line.rfind("VmHWM:", 0) == 0) return std::atof(line.c_str() + 6) / 1024.0;
    }
    return 0.0;
}

static void quiet(ggml_log_level, const char *, void *) {}

int main(int argc, char ** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: llama_ref FILE.gguf [PREFILL_WORDS] [GEN_TOKENS]\n");
        return 2;
    }
    const int words = argc > 2 ? std::atoi(argv[2]) : 400;
    const int gen = argc > 3 ? std::atoi(argv[3]) : 64;
    const int threads = std::getenv("THREADS") ? std::atoi(std::getenv("THREADS")) : 2;
    llama_log_set(quiet, nullptr);
    llama_backend_init();

    double t = now();
    llama_model * model = llama_model_load_from_file(argv[1], llama_model_default_params());
    if (!model) return 1;
    llama_context_params cp = llama_context_default_params();
    // lucid-local's settings (LocalOptions's defaults, engine.rs).
    cp.n_ctx = 8192;
    cp.n_batch = 512;
    cp.n_ubatch = 512;
    cp.n_threads = threads;
    cp.n_threads_batch = threads;
    llama_context * ctx = llama_init_from_model(model, cp);
    if (!ctx) return 1;
    // A thread pool of its own, as lucid-local (pool.rs) and llama-server attach.
    ggml_threadpool_params tpp = ggml_threadpool_params_default(threads);
    ggml_threadpool * pool = ggml_threadpool_new(&tpp);
    llama_attach_threadpool(ctx, pool, pool);
    const llama_vocab * vocab = llama_model_get_vocab(model);
    std::printf("load: %.2f s\n", now() - t);

    std::string filler;
    for (int i = 0; i < words; i++) filler += (i ? " item" : "item") + std::to_string(i % 97);
    const std::string user = "Here is a list: " + filler + ". Count from 1 to 100, separated by commas.";
    // Qwen's template (ChatML), as the file's template renders these messages.
    const std::string prompt = "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\n" + user +
                               "<|im_end|>\n<|im_start|>assistant\n";
    auto tokenize = [&](const std::string & text) {
        std::vector<llama_token> toks(text.size() + 8);
        int n = llama_tokenize(vocab, text.c_str(), (int) text.size(), toks.data(), (int) toks.size(), false, true);
        toks.resize(n < 0 ? 0 : n);
        return toks;
    };
    auto decode = [&](std::vector<llama_token> & toks) {
        for (size_t i = 0; i < toks.size(); i += 512) {
            const int n = (int) std::min<size_t>(512, toks.size() - i);
            if (llama_decode(ctx, llama_batch_get_one(toks.data() + i, n)) != 0) std::exit(1);
        }
    };
    llama_sampler * greedy = llama_sampler_chain_init(llama_sampler_chain_default_params());
    llama_sampler_chain_add(greedy, llama_sampler_init_greedy());

    // Prefill, one token sampled.
    std::vector<llama_token> toks = tokenize(prompt);
    t = now();
    decode(toks);
    llama_token tok = llama_sampler_sample(greedy, ctx, -1);
    double dt = now() - t;
    std::printf("prefill: %zu tokens in %.2f s = %.2f tok/s\n", toks.size(), dt, toks.size() / dt);

    // Generation: GEN tokens from there (the first is the one just sampled).
    std::string answer;
    int generated = 1;
    t = now();
    for (; generated < gen && !llama_vocab_is_eog(vocab, tok); generated++) {
        char piece[256];
        int n = llama_token_to_piece(vocab, tok, piece, sizeof piece, 0, false);
        if (n > 0) answer.append(piece, n);
        if (llama_decode(ctx, llama_batch_get_one(&tok, 1)) != 0) return 1;
        tok = llama_sampler_sample(greedy, ctx, -1);
    }
    dt = now() - t;
    std::printf("generation: %d tokens, %.2f tok/s after the first\n", generated, (generated - 1) / dt);

    // Second turn: the last token, the end of the answer and a short question.
    std::vector<llama_token> more{tok};
    for (llama_token x : tokenize("<|im_end|>\n<|im_start|>user\nNow count down from 10 to 1.<|im_end|>\n<|im_start|>assistant\n"))
        more.push_back(x);
    t = now();
    decode(more);
    llama_sampler_sample(greedy, ctx, -1);
    dt = now() - t;
    std::printf("second turn: %zu new tokens prefilled in %.2f s (%.1f tok/s)\n", more.size(), dt, more.size() / dt);
    std::printf("peak RSS: %.0f MiB\n", peak_rss_mib());

    llama_sampler_free(greedy);
    llama_free(ctx);
    ggml_threadpool_free(pool);
    llama_model_free(model);
    return 0;
}
