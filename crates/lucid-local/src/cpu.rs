//! The CPU check that runs before any call into llama.cpp. ggml's CPU back end is compiled
//! for a fixed instruction set (no run-time dispatch in a single-file build: see
//! docs/architecture.md), so on a CPU without one of those instructions the first matrix
//! product would die of SIGILL. The build script reads the set from llama-cpp-sys-2's CMake
//! cache (x86-64-v3 in Lucid's builds: SSE4.2, AVX, AVX2, FMA, F16C, BMI2); ARM64 builds
//! use `-march=armv8-a` (NEON, which every ARM64 CPU has), so there is nothing to check.

use std::fmt;

/// The x86-64 features ggml was compiled to use, comma-separated (from build.rs, which
/// always sets it for rustc; rustdoc compiling the doctests may not see it).
const BUILT_FOR: &str = match option_env!("LUCID_LOCAL_X86_FEATURES") {
    Some(features) => features,
    None => "",
};

/// The CPU lacks instructions the embedded llama.cpp engine was compiled to use: loading a
/// model would crash the process (SIGILL), so [`check_cpu`] refuses first.
///
/// ```
/// let e = lucid_local::UnsupportedCpu { missing: vec!["avx2"], required: vec!["avx", "avx2"] };
/// assert!(e.to_string().contains("AVX2"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct UnsupportedCpu {
    /// The features this CPU lacks (`is_x86_feature_detected!` names).
    pub missing: Vec<&'static str>,
    /// Every feature the engine was compiled for.
    pub required: Vec<&'static str>,
}

impl fmt::Display for UnsupportedCpu {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let upper = |v: &[&str]| v.iter().map(|s| s.to_ascii_uppercase()).collect::<Vec<_>>().join(", ");
        write!(
            f,
            "this CPU lacks {}, which the embedded llama.cpp engine was compiled to use (it needs {}: \
             x86-64 CPUs from 2013-2015 on), so it cannot run a local model here; use a hosted provider \
             or a model server built for this CPU instead",
            upper(&self.missing),
            upper(&self.required),
        )
    }
}

/// The x86-64 features ggml's CPU back end was compiled for, in `is_x86_feature_detected!`
/// spelling; empty on other architectures.
///
/// ```
/// let f = lucid_local::required_cpu_features();
/// if cfg!(target_arch = "x86_64") {
///     assert!(f.contains(&"avx2"), "Lucid's builds are x86-64-v3: {f:?}");
/// }
/// ```
pub fn required_cpu_features() -> Vec<&'static str> {
    if cfg!(target_arch = "x86_64") { BUILT_FOR.split(',').filter(|s| !s.is_empty()).collect() } else { Vec::new() }
}

/// Whether this CPU has everything the engine was compiled for. [`crate::LocalModel::load`]
/// calls it before touching llama.cpp; call it first to decide not to download a model.
///
/// # Errors
/// [`UnsupportedCpu`] naming the missing features.
///
/// ```
/// // On the machines that build and test Lucid, the CPU runs the engine.
/// assert!(lucid_local::check_cpu().is_ok());
/// ```
pub fn check_cpu() -> Result<(), UnsupportedCpu> {
    check_against(required_cpu_features(), detected)
}

/// [`check_cpu`] with the CPU's features given by `has`: the check as a pure function.
fn check_against(required: Vec<&'static str>, has: impl Fn(&str) -> bool) -> Result<(), UnsupportedCpu> {
    let missing: Vec<&'static str> = required.iter().copied().filter(|f| !has(f)).collect();
    if missing.is_empty() { Ok(()) } else { Err(UnsupportedCpu { missing, required }) }
}

/// Whether this CPU has `feature` (a name build.rs may write; any other counts as absent,
/// AMX's included: its detection is not stable Rust, and Lucid's builds do not use it).
#[cfg(target_arch = "x86_64")]
fn detected(feature: &str) -> bool {
    match feature {
        "sse4.2" => is_x86_feature_detected!("sse4.2"),
        "avx" => is_x86_feature_detected!("avx"),
        "avx2" => is_x86_feature_detected!("avx2"),
        "fma" => is_x86_feature_detected!("fma"),
        "f16c" => is_x86_feature_detected!("f16c"),
        "bmi2" => is_x86_feature_detected!("bmi2"),
        "avxvnni" => is_x86_feature_detected!("avxvnni"),
        "avx512f" => is_x86_feature_detected!("avx512f"),
        "avx512cd" => is_x86_feature_detected!("avx512cd"),
        "avx512vl" => is_x86_feature_detected!("avx512vl"),
        "avx512dq" => is_x86_feature_detected!("avx512dq"),
        "avx512bw" => is_x86_feature_detected!("avx512bw"),
        "avx512vbmi" => is_x86_feature_detected!("avx512vbmi"),
        "avx512vnni" => is_x86_feature_detected!("avx512vnni"),
        "avx512bf16" => is_x86_feature_detected!("avx512bf16"),
        _ => false,
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn detected(_feature: &str) -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    const V3: [&str; 6] = ["sse4.2", "avx", "avx2", "fma", "f16c", "bmi2"];

    #[test]
    fn the_build_records_the_x86_64_v3_set_lucid_builds_with() {
        // .cargo/config.toml turns these on; the build script must have read them back.
        if cfg!(target_arch = "x86_64") {
            let mut got = required_cpu_features();
            got.sort_unstable();
            let mut want = V3.to_vec();
            want.sort_unstable();
            assert_eq!(got, want);
        } else {
            assert!(required_cpu_features().is_empty());
        }
    }

    #[test]
    fn a_cpu_with_every_feature_passes() {
        assert_eq!(check_against(V3.to_vec(), |_| true), Ok(()));
        assert_eq!(check_against(Vec::new(), |_| false), Ok(()));
    }

    #[test]
    fn a_cpu_before_haswell_is_refused_with_the_missing_features_named() {
        // Sandy/Ivy Bridge: SSE4.2, AVX and (Ivy) F16C, no AVX2, FMA or BMI2.
        let ivy = ["sse4.2", "avx", "f16c"];
        let e = check_against(V3.to_vec(), |f| ivy.contains(&f)).unwrap_err();
        assert_eq!(e.missing, vec!["avx2", "fma", "bmi2"]);
        let text = e.to_string();
        assert!(text.contains("this CPU lacks AVX2, FMA, BMI2"), "{text}");
        assert!(text.contains("it needs SSE4.2, AVX, AVX2, FMA, F16C, BMI2"), "{text}");
        assert!(text.contains("hosted provider"), "{text}");
    }

    #[test]
    fn an_unknown_feature_name_counts_as_missing() {
        assert!(!detected("no-such-feature"));
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn detection_agrees_with_the_standard_library() {
        assert_eq!(detected("avx2"), std::is_x86_feature_detected!("avx2"));
        assert_eq!(detected("avx512f"), std::is_x86_feature_detected!("avx512f"));
    }
}
