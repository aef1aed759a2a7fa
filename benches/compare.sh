#!/usr/bin/env bash
# Lucid vs a raw reqwest client on the lucid-bench task (shared/BENCH.md), in all four
# modes, against the local mock server. One command:
#   bash benches/compare.sh [N]
# Prints one JSON line per run and a table of CPU per task.
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:-5000}"
target="${CARGO_TARGET_DIR:-target}"
# The speed profile (opt-level 3, as an application built with --release gets the
# library); the workspace's release profile is size-first for the shipped `lucid` binary.
cargo build --profile speed -q -p lucid-bench -p lucid-mock
bin="$target/speed"
"$bin/lucid-mock-server" > /tmp/lucid-mock-url.$$ &
mock=$!
trap 'kill $mock 2>/dev/null; rm -f /tmp/lucid-mock-url.$$' EXIT
for _ in $(seq 50); do [ -s /tmp/lucid-mock-url.$$ ] && break; sleep 0.1; done
url="$(head -n1 /tmp/lucid-mock-url.$$)"
results=()
for mode in nonstream stream; do
  for c in 1 100; do
    for client in raw-bench lucid-bench; do
      line="$("$bin/$client" --base-url "$url" --n "$n" --concurrency "$c" --mode "$mode")"
      echo "$line"
      results+=("$line")
    done
  done
done
printf '%s\n' "${results[@]}" | python3 benches/compare_table.py
