#!/usr/bin/env bash
# Go for the Go sample projects of crates/lucid-code/tests/code_tools.rs and
# crates/lucid-cli/tests/agents/ (`go test -json`, `go test -coverprofile`): Debian's
# golang-go (its compiler package and its standard library's sources), fetched with
# `apt-get download` and unpacked with `dpkg -x` (no root needed) into a cache outside the
# clone keyed by the package version; the unpacked `go` finds its GOROOT from its own path.
#
# Prints the folder of the `go` binary; prints nothing (and says why on stderr) when apt
# cannot fetch it: the Go tests then skip.
set -euo pipefail

if command -v go >/dev/null; then
  dirname "$(command -v go)"
  exit 0
fi
for tool in apt-get apt-cache dpkg; do
  if ! command -v "$tool" >/dev/null; then
    echo "note: $tool not found; no Go for the Go tests" >&2
    exit 0
  fi
done
# golang-go depends on golang-X.Y-go, which depends on golang-X.Y-src.
compiler="$(apt-cache depends golang-go 2>/dev/null | sed -n 's/^ *Depends: \(golang-[0-9.]*-go\)$/\1/p' | head -1)"
if [ -z "$compiler" ]; then
  apt-get update -q >/dev/null 2>&1 || true
  compiler="$(apt-cache depends golang-go 2>/dev/null | sed -n 's/^ *Depends: \(golang-[0-9.]*-go\)$/\1/p' | head -1)"
fi
if [ -z "$compiler" ]; then
  echo "note: golang-go is not known to apt; no Go for the Go tests" >&2
  exit 0
fi
sources="${compiler%-go}-src"
version="$(apt-cache show --no-all-versions "$compiler" | sed -n 's/^Version: //p' | head -1)"
dir="${LUCID_CI_GODIR:-/tmp/lucid-ci-go-$version}"
bin="$(echo "$dir"/root/usr/lib/go-*/bin)"
if [ -f "$dir/ready" ] && [ -x "$bin/go" ]; then
  echo "$bin"
  exit 0
fi
rm -rf "$dir"
mkdir -p "$dir/debs"
if ! (cd "$dir/debs" && apt-get download -q "$compiler" "$sources" >/dev/null 2>"$dir/download.log"); then
  echo "note: apt-get download failed (see $dir/download.log); no Go for the Go tests" >&2
  exit 0
fi
for deb in "$dir"/debs/*.deb; do
  dpkg -x "$deb" "$dir/root"
done
rm -rf "$dir/debs"
bin="$(echo "$dir"/root/usr/lib/go-*/bin)"
"$bin/go" version >&2
touch "$dir/ready"
echo "$bin"
