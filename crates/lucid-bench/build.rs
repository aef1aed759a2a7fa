//! Records the optimisation level the benchmark was built at, so that a build with the
//! size-first `release` profile says on stderr that its figures are not the library's.

fn main() {
    let level = std::env::var("OPT_LEVEL").unwrap_or_default();
    println!("cargo:rustc-env=LUCID_BENCH_OPT_LEVEL={level}");
}
