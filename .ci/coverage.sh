#!/usr/bin/env bash
# Line coverage of the workspace, for .ci/run (issue 15: fail below 60%).
#
#   bash .ci/coverage.sh tools
#       Prints the folder holding llvm-profdata and llvm-cov of rustc's own LLVM major
#       version (Debian's llvm-N and libllvmN, unpacked outside the clone in
#       /tmp/lucid-ci-llvm-N and reused); the system's older LLVM cannot read the files
#       rustc's LLVM writes.
#   bash .ci/coverage.sh report LLVM_BIN COVERAGE_DIR MIN_PERCENT
#       After `cargo test --workspace --all-features` ran with RUSTC_WORKSPACE_WRAPPER=
#       .ci/coverage-rustc and LLVM_PROFILE_FILE=COVERAGE_DIR/profraw/%p-%m.profraw (still
#       set): merges the .profraw files, asks cargo (all fresh, nothing rebuilt) which
#       instrumented tests, binaries and proc-macro libraries that run built, measures
#       the lines of crates/*/src/ they map, prints a line per crate and the total, and
#       fails when the total is below MIN_PERCENT.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"

tools() {
  local major dir stage
  major="$(rustc -vV | sed -n 's/^LLVM version: \([0-9]*\).*/\1/p')"
  [ -n "$major" ] || { echo "error: rustc -vV names no LLVM version" >&2; exit 1; }
  dir="${LUCID_CI_LLVMDIR:-/tmp/lucid-ci-llvm-$major}"
  if [ ! -x "$dir/bin/llvm-cov" ] || ! "$dir/bin/llvm-profdata" --version > /dev/null 2>&1; then
    stage="$(mktemp -d "${TMPDIR:-/tmp}/lucid-ci-llvm-stage.XXXXXX")"
    # The package lists may not know llvm-N yet on a fresh machine: refresh them once.
    if ! (cd "$stage" && apt-get download -q "llvm-$major" "libllvm$major" > /dev/null 2>&1); then
      apt-get update -qq > /dev/null
      (cd "$stage" && apt-get download -q "llvm-$major" "libllvm$major" > /dev/null) || {
        echo "error: Debian's llvm-$major (rustc's LLVM major version) could not be downloaded" >&2
        exit 1
      }
    fi
    for deb in "$stage"/*.deb; do dpkg-deb -x "$deb" "$stage/root"; done
    rm -rf "$dir.new" && mkdir -p "$dir.new/bin" "$dir.new/lib"
    cp "$stage/root/usr/lib/llvm-$major/bin/llvm-profdata" "$stage/root/usr/lib/llvm-$major/bin/llvm-cov" "$dir.new/bin/"
    # The tools find libLLVM through their RUNPATH, $ORIGIN/../lib.
    cp "$stage/root/usr/lib/x86_64-linux-gnu/libLLVM.so.$major"* "$dir.new/lib/"
    rm -rf "$stage"
    "$dir.new/bin/llvm-cov" --version > "$dir.new/version"
    rm -rf "$dir" && mv "$dir.new" "$dir"
  fi
  echo "$dir/bin"
}

report() {
  local bin="$1" out="$2" min="$3"
  local objects="$out/objects"
  LLVM_PROFILE_FILE=/dev/null cargo test -q --workspace --all-features --no-run --message-format=json |
    python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    # The workspace'"'"'s own packages are the path ones; a proc-macro runs inside rustc.
    if m.get("reason") != "compiler-artifact" or not m["package_id"].startswith("path+"):
        continue
    if m.get("executable"):
        print(m["executable"])
    elif "proc-macro" in m["target"]["kind"]:
        print(*[f for f in m["filenames"] if f.endswith(".so")], sep="\n")' > "$objects"
  find "$out/profraw" -name '*.profraw' > "$out/profraw-files"
  echo "$(wc -l < "$out/profraw-files") profile files from $(wc -l < "$objects") instrumented binaries"
  # --failure-mode=all: a file cut short (a test kills a `lucid` while it writes) is
  # skipped with a warning rather than failing the merge.
  "$bin/llvm-profdata" merge -sparse --failure-mode=all -f "$out/profraw-files" -o "$out/lucid.profdata"
  local args=()
  while read -r obj; do args+=(-object "$obj"); done < "$objects"
  "$bin/llvm-cov" export -summary-only -instr-profile="$out/lucid.profdata" "${args[@]}" > "$out/summary.json"
  python3 - "$out/summary.json" "$root" "$min" <<'PY'
import collections, json, re, sys
summary, root, minimum = sys.argv[1], sys.argv[2], float(sys.argv[3])
counted = re.compile(re.escape(root) + r"/crates/([^/]+)/src/")
crates = collections.defaultdict(lambda: [0, 0])
for data in json.load(open(summary))["data"]:
    for f in data["files"]:
        m = counted.match(f["filename"])
        if m:
            lines = f["summary"]["lines"]
            crates[m.group(1)][0] += lines["covered"]
            crates[m.group(1)][1] += lines["count"]
covered = sum(c for c, _ in crates.values())
total = sum(n for _, n in crates.values())
for name, (c, n) in sorted(crates.items()):
    print(f"  {name:<14} {c:>6} of {n:>6} lines  {100 * c / max(n, 1):5.1f}%")
percent = 100 * covered / max(total, 1)
print(f"line coverage: {percent:.1f}% ({covered} of {total} lines of crates/*/src)")
if total == 0 or percent < minimum:
    print(f"FAIL: line coverage {percent:.1f}% is below {minimum:g}%")
    sys.exit(1)
PY
}

case "${1:-}" in
  tools) tools ;;
  report) shift; report "$@" ;;
  *) echo "usage: $0 tools | report LLVM_BIN COVERAGE_DIR MIN_PERCENT" >&2; exit 2 ;;
esac
