#!/usr/bin/env bash
# The in-process model's speed on one GGUF file beside llama.cpp's own: prefill and
# generation tokens per second, the second turn's prefill, peak RSS, then the ratios
# Lucid / llama.cpp, with the load average before and after (the machine may be shared:
# compare runs at similar loads only). llama.cpp is benches/llama_ref.cpp, its C API linked
# against the very static libraries Lucid's engine is built from (same source, flags and
# CPU baseline; REF=0 skips it), and llama-server when a binary is given.
#   bash benches/local.sh FILE.gguf [LLAMA_SERVER_BINARY]
# Lucid's side is crates/lucid-local/examples/local_bench.rs, built in the dev profile: the
# hot code is the same as in a release build (llama.cpp is CMake's Release -O3 in every
# profile, llguidance opt-level 3), and a dev build spares the fat-LTO release link.
# llama-server: `bash benches/llama_server.sh` builds one with the flags Lucid's engine gets;
# ../shared/realmodel/setup.sh builds one for the native CPU, which is a different
# comparison.
set -euo pipefail
gguf="${1:?usage: benches/local.sh FILE.gguf [llama-server]}"
server="${2:-}"
cd "$(dirname "$0")/.."
words="${WORDS:-400}"
gen="${GEN:-64}"
out="$(mktemp -d)"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
cargo build -q -p lucid-local --example local_bench
echo "== lucid-local ($gguf, ~$words-word prompt, $gen tokens)"
cargo run -q -p lucid-local --example local_bench -- "$gguf" "$words" "$gen" | tee "$out/lucid"
if [ "${REF:-1}" != 0 ]; then
  # llama-cpp-sys-2's build of llama.cpp that the example above just linked.
  target="${CARGO_TARGET_DIR:-target}"
  lib="$(ls -td "$target"/debug/build/llama-cpp-sys-2-*/out/lib/libllama.a | head -1)"
  sys="$(dirname "$(dirname "$lib")")"
  ${CXX:-c++} -O2 -std=c++17 -I"$sys/include" benches/llama_ref.cpp -o "$out/llama_ref" \
    "$sys/lib/libllama.a" "$sys/lib/libggml.a" "$sys/lib/libggml-cpu.a" "$sys/lib/libggml-base.a" -lpthread -ldl
  echo "== llama.cpp C API (the same static build: $sys)"
  "$out/llama_ref" "$gguf" "$words" "$gen" | tee "$out/ref"
fi
ratios() {
  python3 - "$out/lucid" "$out/$1" <<'PY'
import re, sys
def grab(path):
    t = open(path).read()
    num = lambda pat: float(re.search(pat, t).group(1))
    return {
        "prefill": num(r"prefill: \d+ tokens in [\d.]+ s = ([\d.]+) tok/s"),
        "generation": num(r"generation: \d+ tokens, ([\d.]+) tok/s"),
        "turn2_tokens": num(r"second turn: (\d+) new tokens"),
        "turn2_s": num(r"second turn: \d+ new tokens.*? in ([\d.]+) s"),
        "rss": num(r"peak RSS: ([\d.]+) MiB"),
    }
l, s = grab(sys.argv[1]), grab(sys.argv[2])
print(f"prefill tok/s       {l['prefill']:.2f} / {s['prefill']:.2f} = {l['prefill'] / s['prefill']:.2f}x (goal >= 0.5)")
print(f"generation tok/s    {l['generation']:.2f} / {s['generation']:.2f} = {l['generation'] / s['generation']:.2f}x (goal >= 0.8)")
print(f"second-turn prefill {l['turn2_tokens']:.0f} / {s['turn2_tokens']:.0f} new tokens, "
      f"{l['turn2_s']:.2f} / {s['turn2_s']:.2f} s = {l['turn2_s'] / s['turn2_s']:.2f}x")
print(f"peak RSS MiB        {l['rss']:.0f} / {s['rss']:.0f} = {l['rss'] / s['rss']:.2f}x")
PY
}
if [ -z "$server" ]; then
  echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
  if [ -f "$out/ref" ]; then echo "== Lucid / llama.cpp C API"; ratios ref; fi
  rm -rf "$out"
  exit 0
fi
echo "== llama-server ($server, same file, 2 threads)"
port="${PORT:-8097}"
"$server" -m "$gguf" --host 127.0.0.1 --port "$port" -c 8192 -t 2 -np 1 --no-webui >/tmp/lucid-bench-llama-server.log 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
for _ in $(seq 120); do curl -sf "http://127.0.0.1:$port/health" >/dev/null && break; sleep 1; done
python3 - "$port" "$words" "$gen" <<'PY' | tee "$out/server"
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
print(f"prefill: {t['prompt_n']} tokens in {t['prompt_ms']/1000:.2f} s = {t['prompt_per_second']:.2f} tok/s")
r = chat(msgs, gen)
t = r["timings"]
print(f"generation: {t['predicted_n']} tokens, {t['predicted_per_second']:.2f} tok/s (cached prompt {t.get('cache_n', '?')})")
msgs += [{"role": "assistant", "content": r["choices"][0]["message"]["content"]},
         {"role": "user", "content": "Now count down from 10 to 1."}]
t = chat(msgs, 1)["timings"]
print(f"second turn: {t['prompt_n']} new tokens prefilled in {t['prompt_ms']/1000:.2f} s ({t['prompt_per_second']:.1f} tok/s)")
PY
rss=$(grep VmHWM "/proc/$pid/status" | awk '{print $2}')
echo "peak RSS: $((rss / 1024)) MiB" | tee -a "$out/server"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ -f "$out/ref" ]; then echo "== Lucid / llama.cpp C API"; ratios ref; fi
echo "== Lucid / llama-server"
ratios server
rm -rf "$out"
