//! Records which x86-64 instructions ggml's CPU back end was compiled to use, so the library
//! can check the CPU for them before its first call into llama.cpp (a missing one would be
//! a SIGILL, not an error). The source of truth is the CMake cache of llama-cpp-sys-2's build
//! (found through its `links = "llama"` metadata); the `GGML_*` environment variables it was
//! given are the fallback. The result is `LUCID_LOCAL_X86_FEATURES` at compile time, the
//! features comma-separated in `is_x86_feature_detected!` spelling (empty off x86-64, where
//! the builds use the architecture's baseline: NEON on ARM64).

use std::collections::HashMap;
use std::path::PathBuf;

/// ggml's CMake options and the compiler flags they add (ggml/src/ggml-cpu/CMakeLists.txt,
/// the GCC/Clang branch), in `is_x86_feature_detected!` names.
const OPTIONS: &[(&str, &[&str])] = &[
    ("GGML_SSE42", &["sse4.2"]),
    ("GGML_AVX", &["avx"]),
    ("GGML_AVX2", &["avx2"]),
    ("GGML_FMA", &["fma"]),
    ("GGML_F16C", &["f16c"]),
    ("GGML_BMI2", &["bmi2"]),
    ("GGML_AVX_VNNI", &["avxvnni"]),
    ("GGML_AVX512", &["avx512f", "avx512cd", "avx512vl", "avx512dq", "avx512bw"]),
    ("GGML_AVX512_VBMI", &["avx512vbmi"]),
    ("GGML_AVX512_VNNI", &["avx512vnni"]),
    ("GGML_AVX512_BF16", &["avx512bf16"]),
    ("GGML_AMX_TILE", &["amx-tile"]),
    ("GGML_AMX_INT8", &["amx-int8"]),
    ("GGML_AMX_BF16", &["amx-bf16"]),
];

fn on(value: &str) -> bool {
    matches!(value.to_ascii_uppercase().as_str(), "ON" | "1" | "TRUE" | "YES" | "Y")
}

/// `KEY:TYPE=VALUE` lines of a CMakeCache.txt.
fn cmake_cache() -> Option<(PathBuf, HashMap<String, String>)> {
    // DEP_LLAMA_GGML_CMAKE_DIR is OUT_DIR/lib/cmake (or lib64) of the sys crate; its
    // CMake build directory is OUT_DIR/build.
    let cmake_dir = PathBuf::from(std::env::var_os("DEP_LLAMA_GGML_CMAKE_DIR")?);
    let path = cmake_dir.parent()?.parent()?.join("build").join("CMakeCache.txt");
    let text = std::fs::read_to_string(&path).ok()?;
    let values = text
        .lines()
        .filter_map(|l| {
            let (key, value) = l.split_once('=')?;
            Some((key.split(':').next()?.to_string(), value.to_string()))
        })
        .collect();
    Some((path, values))
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=DEP_LLAMA_GGML_CMAKE_DIR");
    let arch = std::env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    let mut features: Vec<&str> = Vec::new();
    if arch == "x86_64" {
        let values: HashMap<String, String> = match cmake_cache() {
            Some((path, values)) => {
                println!("cargo:rerun-if-changed={}", path.display());
                values
            }
            None => {
                println!(
                    "cargo:warning=llama-cpp-sys-2's CMake cache not found: CPU features read from GGML_* variables"
                );
                let keys =
                    OPTIONS.iter().map(|(k, _)| *k).chain(["GGML_NATIVE", "GGML_BACKEND_DL", "GGML_CPU_ALL_VARIANTS"]);
                keys.filter_map(|k| {
                    println!("cargo:rerun-if-env-changed={k}");
                    Some((k.to_string(), std::env::var(k).ok()?))
                })
                .collect()
            }
        };
        let is_on = |k: &str| values.get(k).is_some_and(|v| on(v));
        if is_on("GGML_BACKEND_DL") && is_on("GGML_CPU_ALL_VARIANTS") {
            // ggml picks the variant at run time: nothing beyond x86-64 itself.
        } else if is_on("GGML_NATIVE") {
            // -march=native: the build machine's CPU. rustc's view of it (target-cpu=native
            // is what turns GGML_NATIVE on) names what the kernels may use.
            let target = std::env::var("CARGO_CFG_TARGET_FEATURE").unwrap_or_default();
            for (_, names) in OPTIONS {
                features.extend(names.iter().filter(|n| target.split(',').any(|t| t == **n)));
            }
        } else {
            for (key, names) in OPTIONS {
                if is_on(key) {
                    features.extend(names.iter());
                }
            }
        }
    }
    println!("cargo:rustc-env=LUCID_LOCAL_X86_FEATURES={}", features.join(","));
}
