#!/usr/bin/env bash
# lucid-eval vs pydantic-evals: the harness's own CPU and peak memory on the same N scripted
# cases (eval-bench's), each a two-call agent run (the `add` tool, then the answer) against
# one `lucid-mock-server --eval`, judged by EqualsExpected, Contains and IsInstance. One command:
#   bash benches/eval_compare.sh [N] [C...]        (default: 1000 cases at C=1 and C=50)
# Then the same without the agent (`--no-agent`: each case answered in-process from its
# prompt), the harness alone. Prints one JSON line per run and a table. The Python side runs in $LUCID_EVALBENCH_PYTHON,
# else in a venv under /tmp made from benches/eval_pydantic.requirements.
# LUCID_EVALBENCH_ONLY=lucid runs the Lucid side alone (no Python needed).
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:-1000}"
shift || true
concurrencies=("$@")
[ ${#concurrencies[@]} -gt 0 ] || concurrencies=(1 50)
target="${CARGO_TARGET_DIR:-target}"
only="${LUCID_EVALBENCH_ONLY:-}"
cargo build --profile speed -q -p lucid-bench --bin eval-bench -p lucid-mock --bin lucid-mock-server
bin="$target/speed"

python=""
if [ "$only" != lucid ]; then
  python="${LUCID_EVALBENCH_PYTHON:-}"
  if [ -z "$python" ]; then
    hash="$(cat benches/eval_pydantic.requirements .ci/python-evals/requirements.lock | sha256sum | cut -c1-16)"
    venv="/tmp/lucid-evalbench-py-$hash"
    if [ ! -f "$venv/installed" ]; then
      rm -rf "$venv"
      python3 -m venv "$venv"
      (cd benches && "$venv/bin/pip" install -q -r eval_pydantic.requirements)
      touch "$venv/installed"
    fi
    python="$venv/bin/python"
  fi
  # Both harnesses must run the very same cases.
  if ! diff -q <("$bin/eval-bench" --print-cases --n "$n") <("$python" benches/eval_pydantic.py --print-cases --n "$n") >/dev/null; then
    echo "eval-bench and eval_pydantic.py disagree on the cases" >&2
    exit 1
  fi
fi

stats() { # the mock's counters: {"tool_calls": T, "answers": A, "other": O}
  python3 -c 'import sys, urllib.request; print(urllib.request.urlopen(urllib.request.Request(sys.argv[1] + "/stats", data=b"{}", method="POST")).read().decode())' "$1"
}

results=()
for c in "${concurrencies[@]}"; do
  for harness in lucid pydantic; do
    [ -n "$only" ] && [ "$harness" != "$only" ] && continue
    # A fresh mock per run, so its counters are this run's alone.
    urlfile="$(mktemp)"
    "$bin/lucid-mock-server" --eval > "$urlfile" &
    mock=$!
    trap 'kill $mock 2>/dev/null; rm -f "$urlfile"' EXIT
    for _ in $(seq 50); do [ -s "$urlfile" ] && break; sleep 0.1; done
    url="$(head -n1 "$urlfile")"
    if [ "$harness" = lucid ]; then
      line="$("$bin/eval-bench" --base-url "$url" --n "$n" --concurrency "$c")"
    else
      line="$("$python" benches/eval_pydantic.py --base-url "$url" --n "$n" --concurrency "$c")"
    fi
    line="$(python3 -c 'import json, sys; d = json.loads(sys.argv[1]); d["mock"] = json.loads(sys.argv[2]); print(json.dumps(d))' "$line" "$(stats "$url")")"
    kill $mock 2>/dev/null || true
    wait $mock 2>/dev/null || true
    rm -f "$urlfile"
    trap - EXIT
    echo "$line"
    results+=("$line")
  done
done
for c in "${concurrencies[@]}"; do
  for harness in lucid pydantic; do
    [ -n "$only" ] && [ "$harness" != "$only" ] && continue
    if [ "$harness" = lucid ]; then
      line="$("$bin/eval-bench" --no-agent --n "$n" --concurrency "$c")"
    else
      line="$("$python" benches/eval_pydantic.py --no-agent --n "$n" --concurrency "$c")"
    fi
    echo "$line"
    results+=("$line")
  done
done
printf '%s\n' "${results[@]}" | python3 benches/eval_compare_table.py
