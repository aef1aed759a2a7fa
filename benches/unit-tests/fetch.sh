#!/usr/bin/env bash
# Downloads the unit-test benchmark's pinned projects (suite.toml), checks each sha256, unpacks
# them into a cache outside the repository and prepares for each a work copy with its own tests
# held out. Idempotent: what is already there and matches is kept (the work copies too, unless
# --reset).
#   bash benches/unit-tests/fetch.sh [--slice NAME[,NAME]] [--reset]
# Cache: ${LUCID_BENCH_CACHE:-$HOME/.cache/lucid-bench/unit-tests}
set -euo pipefail
exec python3 "$(dirname "$0")/suite.py" fetch "$@"
