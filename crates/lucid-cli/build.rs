//! Link options for the released `lucid` binary (see the release profile in the
//! workspace's Cargo.toml: the binary is kept under 10,000,000 bytes).
//!
//! In release builds for x86_64 Linux with glibc, where Rust links with LLD:
//! - `--icf=all`: functions whose machine code is identical (generic code instantiated for
//!   types of the same layout: serde visitors, drop glue, futures' state machines) are kept
//!   once. Rust promises nothing about two functions' addresses being distinct, so this
//!   changes no behaviour.
//! - `-z pack-relative-relocs` (RELR): the ~17,000 relative relocations of a
//!   position-independent executable take 5 KB instead of 400 KB. The binary keeps its
//!   address-space randomisation; it needs glibc 2.36 or newer to start, so the option is
//!   only given when the glibc of the machine building it is that new (a native build).
//!
//! `LUCID_PLAIN_LINK=1` turns both off (for a linker other than LLD).

fn main() {
    println!("cargo:rerun-if-env-changed=LUCID_PLAIN_LINK");
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    let release = var("PROFILE") == "release";
    let target = var("TARGET");
    if !release || target != "x86_64-unknown-linux-gnu" || std::env::var_os("LUCID_PLAIN_LINK").is_some() {
        return;
    }
    println!("cargo:rustc-link-arg-bins=-Wl,--icf=all");
    if var("HOST") == target && host_glibc_at_least(2, 36) {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}

/// Whether the glibc this build script runs on is at least `major.minor`.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn host_glibc_at_least(major: u32, minor: u32) -> bool {
    // SAFETY: gnu_get_libc_version returns a pointer to a static NUL-terminated string.
    let version = unsafe { std::ffi::CStr::from_ptr(libc::gnu_get_libc_version()) };
    let mut parts = version.to_str().unwrap_or("").split('.').map(|p| p.parse::<u32>().unwrap_or(0));
    let found = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    found >= (major, minor)
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn host_glibc_at_least(_major: u32, _minor: u32) -> bool {
    false
}
