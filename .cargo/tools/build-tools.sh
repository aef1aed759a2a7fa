#!/bin/sh
# The C/C++ build tools llama.cpp's Rust bindings (llama-cpp-sys-2, behind lucid-local) need
# at build time and a fresh machine may lack: the `cmake` binary and libclang (for bindgen).
# Both come from PyPI wheels (no root, no system package), pinned, installed once into a
# cache outside the clone keyed by their versions:
#   ${LUCID_BUILD_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/lucid-build-tools}/cmake-V-libclang-V
# Prints that directory. `.cargo/config.toml` points CMAKE and LLVM_CONFIG_PATH at the
# wrappers beside this file, which call this first; a CMAKE or LIBCLANG_PATH already set in
# the environment wins (cargo's [env] does not override it). Safe to delete: the next build
# installs it again.
set -eu
CMAKE_VERSION=3.31.6
LIBCLANG_VERSION=18.1.1
base="${LUCID_BUILD_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/lucid-build-tools}"
dir="$base/cmake-$CMAKE_VERSION-libclang-$LIBCLANG_VERSION"
if [ ! -f "$dir/ok" ]; then
  mkdir -p "$base"
  tmp="$(mktemp -d "$base/.install.XXXXXX")"
  echo "lucid: installing cmake $CMAKE_VERSION and libclang $LIBCLANG_VERSION (PyPI) into $dir" >&2
  python3 -m pip install -q --disable-pip-version-check --no-deps --target "$tmp/site" \
    "cmake==$CMAKE_VERSION" "libclang==$LIBCLANG_VERSION" >&2
  mkdir -p "$tmp/bin" "$tmp/llvm/lib"
  ln -s ../site/cmake/data/bin/cmake "$tmp/bin/cmake"
  ln -s ../../site/clang/native/libclang.so "$tmp/llvm/lib/libclang.so"
  "$tmp/bin/cmake" --version >/dev/null
  touch "$tmp/ok"
  # Another build may have finished the same install meanwhile: keep the first.
  mv -T "$tmp" "$dir" 2>/dev/null || rm -rf "$tmp"
fi
printf '%s\n' "$dir"
