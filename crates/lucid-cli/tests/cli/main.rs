//! The `lucid` program as a user runs it: the real binary against a local scripted server.
//! `run`: `lucid run`'s flags, output and errors; `sessions`: what a session keeps across
//! runs; `workflows`: workflow files and plans; `commands`: help, configuration and the
//! tool flags.

mod commands;
#[path = "../common/mod.rs"]
mod common;
mod run;
mod sessions;
mod workflows;

use std::process::Output;

use common::{lucid_command, mock_run, run_in, run_with_stdin, test_dir, text};
use lucid_mock::{MockServer, Reply, text_completion, text_stream, tool_call_completion};
use serde_json::{Value, json};

fn lucid(args: &[&str]) -> Output {
    lucid_command()
        .args(args)
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", std::env::temp_dir())
        .output()
        .expect("run lucid")
}

/// Runs `lucid` on a blocking thread so the in-process server keeps serving.
async fn run(args: Vec<String>) -> Output {
    tokio::task::spawn_blocking(move || lucid(&args.iter().map(String::as_str).collect::<Vec<_>>())).await.unwrap()
}

/// `lucid run --base-url SERVER -m m` with these further arguments.
async fn run_on(server: &MockServer, rest: &[&str]) -> Output {
    let mut args = vec!["run".to_string(), "--base-url".into(), server.url(), "-m".into(), "m".into()];
    args.extend(rest.iter().map(|a| a.to_string()));
    run(args).await
}
