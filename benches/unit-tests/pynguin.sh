#!/usr/bin/env bash
# The unit-test benchmark's baseline without a model: Pynguin (pinned) on each Python module of
# suite.toml, its tests measured with coverage.py; results in benches/unit-tests/results/pynguin.json.
#   bash benches/unit-tests/pynguin.sh [--slice NAME[,NAME]] [--module DOTTED[,DOTTED]]
#                                      [--search-time 60] [--seed 42]
# Runs fetch.sh's preparation first if needed. Pynguin executes the code under test: it runs
# only on the copies in the cache (PYNGUIN_DANGER_AWARE=1 is set for it).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cache="${LUCID_BENCH_CACHE:-$HOME/.cache/lucid-bench/unit-tests}"
pins="pynguin==0.48.0 coverage==7.10.7"
venv="$cache/venvs/pynguin-0.48.0"
if [ ! -x "$venv/bin/pynguin" ] || [ "$(cat "$venv/lucid-bench-pins" 2>/dev/null)" != "$pins" ]; then
  rm -rf "$venv"
  python3 -m venv "$venv"
  # shellcheck disable=SC2086
  "$venv/bin/pip" install --quiet $pins
  echo "$pins" > "$venv/lucid-bench-pins"
fi
exec python3 "$here/pynguin.py" --venv "$venv" "$@"
