#!/usr/bin/env bash
# Lucid vs a raw reqwest client on the lucid-bench task (shared/BENCH.md), in all four
# modes, against the local mock server. One command:
#   bash benches/compare.sh [N]
# Prints one JSON line per run and a table of CPU per task.
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:-5000}"
target="${CARGO_TARGET_DIR:-target}"
cargo build --release -q -p lucid-bench -p lucid-mock
bin="$target/release"
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
printf '%s\n' "${results[@]}" | python3 -c '
import json, sys
rows = [json.loads(l) for l in sys.stdin]
print(f"{\"mode\":10} {\"C\":>4} {\"raw cpu/task\":>13} {\"lucid cpu/task\":>15} {\"ratio\":>6} {\"raw p50\":>9} {\"lucid p50\":>10} {\"ok\":>12}")
for raw, lucid in zip(rows[0::2], rows[1::2]):
    r = raw["cpu_s"] / raw["n"] * 1e3
    l = lucid["cpu_s"] / lucid["n"] * 1e3
    print(f"{raw[\"mode\"]:10} {raw[\"concurrency\"]:>4} {r:>10.3f} ms {l:>12.3f} ms {l / r:>6.2f} {raw[\"lat_p50_ms\"]:>7.3f}ms {lucid[\"lat_p50_ms\"]:>8.3f}ms {lucid[\"ok\"]:>5}/{lucid[\"n\"]}")
    if lucid["ok"] != lucid["n"] or raw["ok"] != raw["n"]:
        print("FAILED: not every task answered", lucid["first_error"] or raw["first_error"]); sys.exit(1)
'
