//! What every test of the `lucid` binary needs: running it with a clean environment, a
//! fresh folder, and its output as text. Each test file uses part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Output bytes as text.
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// `lucid` run in the folder `dir` (HOME too, so no stray configuration file is read),
/// with these environment variables besides PATH and HOME, on a blocking thread so an
/// in-process server keeps serving.
pub async fn run_in(dir: &Path, args: &[&str], vars: &[(&str, &str)]) -> Output {
    let mut cmd = lucid_command();
    cmd.args(args)
        .current_dir(dir)
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", dir)
        .envs(vars.iter().copied());
    tokio::task::spawn_blocking(move || cmd.output().expect("run lucid")).await.unwrap()
}

/// The `lucid` binary with an empty environment, but for `LLVM_PROFILE_FILE` when it is
/// set: in `.ci/run`'s coverage run each `lucid` a test starts writes its profile there
/// too, instead of a `default_*.profraw` in its working folder.
pub fn lucid_command() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_lucid"));
    cmd.env_clear();
    if let Some(file) = std::env::var_os("LLVM_PROFILE_FILE") {
        cmd.env("LLVM_PROFILE_FILE", file);
    }
    cmd
}

/// A fresh folder for one test, named after it.
pub fn test_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lucid-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A real part a test needs, from its environment variable: `None` (the test prints why
/// and skips) when unset, and a failure under `CI=true`, where `.ci/run` provides it.
pub fn real_part(var: &str, how: &str) -> Option<String> {
    match std::env::var(var) {
        Ok(v) if !v.is_empty() => Some(v),
        _ if std::env::var("CI").is_ok_and(|v| v == "true") => panic!("{var} is not set under CI=true; {how}"),
        _ => {
            eprintln!("skipped: {var} is not set ({how})");
            None
        }
    }
}
