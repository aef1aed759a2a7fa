#!/usr/bin/env bash
# Builds llama.cpp's `llama-server` for benches/local.sh's comparison, with the CPU flags
# Lucid's engine gets (.cargo/config.toml: x86-64-v3, not the build machine's CPU; no
# OpenMP), from the llama.cpp that PyPI's llama-cpp-python 0.3.36 sdist vendors (the one
# llama-cpp-sys-2 vendors ships no server sources). About 20 minutes on 2 cores, once;
# ccache speeds up a rebuild. Prints the binary's path.
#   bash benches/llama_server.sh [DIR]      (default /tmp/lucid-llama-server)
set -euo pipefail
dir="${1:-/tmp/lucid-llama-server}"
cmake="${CMAKE:-$(command -v cmake || true)}"
[ -n "$cmake" ] || { echo "cmake not found (set CMAKE; .cargo/tools/cmake installs one)" >&2; exit 1; }
mkdir -p "$dir"
[ -f "$dir/dl/llama_cpp_python-0.3.36.tar.gz" ] || pip download -q --no-deps llama-cpp-python==0.3.36 -d "$dir/dl" >&2
[ -d "$dir/src/llama_cpp_python-0.3.36" ] || { mkdir -p "$dir/src"; tar xzf "$dir/dl/llama_cpp_python-0.3.36.tar.gz" -C "$dir/src"; }
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
"$cmake" -S "$dir/src/llama_cpp_python-0.3.36/vendor/llama.cpp" -B "$dir/build" -DCMAKE_BUILD_TYPE=Release \
  -DBUILD_SHARED_LIBS=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_UI=OFF \
  -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_OPENSSL=OFF -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON \
  -DGGML_F16C=ON -DGGML_BMI2=ON -DGGML_OPENMP=OFF "${launcher[@]}" >&2
"$cmake" --build "$dir/build" --target llama-server -j"$(nproc)" >&2
echo "$dir/build/bin/llama-server"
