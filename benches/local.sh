#!/usr/bin/env bash
# The in-process model's speed on one GGUF file, and llama.cpp's llama-server on the same
# file beside it when one is given: prefill and generation tokens per second, the second
# turn's prefill, peak RSS.
#   bash benches/local.sh FILE.gguf [LLAMA_SERVER_BINARY]
# Lucid's side is crates/lucid-local/examples/local_bench.rs, built in the dev profile: the
# hot code is the same as in a release build (llama.cpp is CMake's Release -O3 in every
# profile, llguidance opt-level 3), and a dev build spares the fat-LTO release link.
# llama-server: ../shared/realmodel/setup.sh builds one (GGML_NATIVE=ON, 2 threads).
set -euo pipefail
gguf="${1:?usage: benches/local.sh FILE.gguf [llama-server]}"
server="${2:-}"
cd "$(dirname "$0")/.."
words="${WORDS:-400}"
gen="${GEN:-64}"
echo "== lucid-local ($gguf, ~$words-word prompt, $gen tokens)"
cargo run -q -p lucid-local --example local_bench -- "$gguf" "$words" "$gen"
[ -n "$server" ] || exit 0
echo "== llama-server ($server, same file, 2 threads)"
port="${PORT:-8097}"
"$server" -m "$gguf" --host 127.0.0.1 --port "$port" -c 8192 -t 2 -np 1 --no-webui >/tmp/lucid-bench-llama-server.log 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
for _ in $(seq 120); do curl -sf "http://127.0.0.1:$port/health" >/dev/null && break; sleep 1; done
python3 - "$port" "$words" "$gen" <<'PY'
import json, sys, urllib.request
port, words, gen = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
filler = " ".join(f"item{i % 97}" for i in range(words))
def chat(messages, n):
    body = {"messages": messages, "max_tokens": n, "temperature": 0, "cache_prompt": True}
    req = urllib.request.Request(f"http://127.0.0.1:{port}/v1/chat/completions", json.dumps(body).encode(), {"Content-Type": "application/json"})
    return json.load(urllib.request.urlopen(req))
msgs = [{"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": f"Here is a list: {filler}. Count from 1 to 100, separated by commas."}]
t = chat(msgs, 1)["timings"]
print(f"prefill: {t['prompt_n']} tokens in {t['prompt_ms']/1000:.2f} s = {t['prompt_per_second']:.1f} tok/s")
r = chat(msgs, gen)
t = r["timings"]
print(f"generation: {t['predicted_n']} tokens, {t['predicted_per_second']:.1f} tok/s (cached prompt {t.get('cache_n', '?')})")
msgs += [{"role": "assistant", "content": r["choices"][0]["message"]["content"]},
         {"role": "user", "content": "Now count down from 10 to 1."}]
t = chat(msgs, 1)["timings"]
print(f"second turn: {t['prompt_n']} new tokens prefilled in {t['prompt_ms']/1000:.2f} s ({t['prompt_per_second']:.1f} tok/s)")
PY
rss=$(grep VmHWM "/proc/$pid/status" | awk '{print $2}')
echo "peak RSS: $((rss / 1024)) MiB"
