//! `lucid serve` as a process: agents from the configuration file, the loopback rule, a
//! run through the API, SIGTERM, and the official Python `openai` SDK as a client of the
//! OpenAI-compatible facade.

#[path = "../common/mod.rs"]
mod common;
mod instances;
mod process;
mod sdk;

use std::path::Path;
use std::process::{Child, Command};
use std::time::Duration;

use common::{real_part, test_dir, text};
use lucid_mock::{
    MockServer, RecordedRequest, Reply, text_completion, text_stream, tool_call_completion, tool_call_stream,
};
use serde_json::{Value, json};

/// Answers every model call with "Hello from the mock.", streamed when asked.
fn hello(req: &RecordedRequest) -> Reply {
    let body = req.json();
    // Offered the client's `weather` tool: calls it, and reads its result back.
    let offered = body["tools"].as_array().is_some_and(|t| t.iter().any(|t| t["function"]["name"] == "weather"));
    let last = body["messages"].as_array().and_then(|m| m.last()).cloned().unwrap_or_default();
    if offered && last["role"] == "tool" {
        return Reply::json(200, &text_completion(&format!("The weather: {}", last["content"].as_str().unwrap_or(""))));
    }
    if offered {
        let calls = [("call_w", "weather", r#"{"city":"Paris"}"#)];
        return if body["stream"] == true {
            Reply::sse(&tool_call_stream(&calls))
        } else {
            Reply::json(200, &tool_call_completion(&calls))
        };
    }
    if body["stream"] == true {
        Reply::sse(&text_stream(&["Hello ", "from the mock."]))
    } else {
        Reply::json(200, &text_completion("Hello from the mock."))
    }
}

/// A configuration with the `default` agent and `support`, both on the mock.
fn write_config(dir: &Path, mock: &MockServer) -> std::path::PathBuf {
    let path = dir.join("config.toml");
    let text = format!(
        "base_url = \"{}/v1\"\nmodel = \"mock-model\"\ncontext_window = 8192\ntools = []\n\
         [agents.support]\nsystem = \"You answer support tickets.\"\n",
        mock.url()
    );
    std::fs::write(&path, text).unwrap();
    path
}

/// `lucid serve` started in `dir` on a free loopback port, its store `serve.db` there;
/// returns the process and its URL once it listens.
fn serve(dir: &Path, config: &Path, keys: Option<&str>) -> (Child, String) {
    let store = dir.join("serve.db").display().to_string();
    serve_with(dir, config, &["--store", &store], keys)
}

/// `lucid serve` started in `dir` on a free loopback port with these further arguments.
fn serve_with(dir: &Path, config: &Path, args: &[&str], keys: Option<&str>) -> (Child, String) {
    let mut cmd = common::lucid_command();
    cmd.args(["serve", "--listen", "127.0.0.1:0"])
        .args(args)
        .arg("--config")
        .arg(config)
        .current_dir(dir)
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", dir);
    if let Some(k) = keys {
        cmd.env("LUCID_SERVE_API_KEYS", k);
    }
    let (child, url, _) = common::until_listening(&mut cmd);
    (child, url)
}

fn stop(mut child: Child) -> std::process::ExitStatus {
    // SAFETY: kill(2) on the pid of a child this test started.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGTERM);
    }
    for _ in 0..200 {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    let _ = child.kill();
    panic!("lucid serve did not stop on SIGTERM");
}

/// The JSON a request is answered with.
async fn json_of(request: reqwest::RequestBuilder) -> Value {
    request.send().await.unwrap().json().await.unwrap()
}

/// A fresh database on the test Postgres for one test (the serve tables are shared by every
/// instance on a database, so a test's runs must not meet another's); dropped at the end.
#[cfg(feature = "postgres")]
use lucid_mock::PgDatabase as TestDatabase;

/// The events of an SSE body read so far, and what is left of an unfinished one.
#[cfg(feature = "postgres")]
fn take_events(buffer: &mut String) -> Vec<(u64, String, Value)> {
    let mut out = Vec::new();
    while let Some(end) = buffer.find("\n\n") {
        let block: String = buffer.drain(..end + 2).collect();
        let (mut id, mut event, mut data) = (None, String::new(), String::new());
        for line in block.lines() {
            if let Some(v) = line.strip_prefix("id:") {
                id = v.trim().parse().ok();
            } else if let Some(v) = line.strip_prefix("event:") {
                event = v.trim().to_string();
            } else if let Some(v) = line.strip_prefix("data:") {
                data.push_str(v.trim_start());
            }
        }
        if let Some(id) = id {
            out.push((id, event, serde_json::from_str(&data).unwrap_or(Value::Null)));
        }
    }
    out
}

/// Kills the processes still running when a test ends early (a failed assertion), so none
/// outlives it.
struct KillOnDrop(Vec<u32>);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        for pid in &self.0 {
            // SAFETY: kill(2) on the pid of a child this test started (already gone: ESRCH).
            unsafe {
                libc::kill(*pid as i32, libc::SIGKILL);
            }
        }
    }
}

/// `lucid serve` on `store` in `dir` with a short lease.
#[cfg(feature = "postgres")]
fn serve_on(dir: &Path, config: &Path, store: &str) -> (Child, String) {
    serve_with(dir, config, &["--lease", "3", "--store", store], None)
}

/// `lucid serve` started without keys in `dir` with these further arguments and the soft
/// open-files limit lowered to `open_files`; returns the process, its URL and its standard
/// error as it comes.
fn serve_logged(
    dir: &Path,
    config: &Path,
    args: &[&str],
    open_files: libc::rlim_t,
) -> (Child, String, std::sync::Arc<std::sync::Mutex<String>>) {
    use std::os::unix::process::CommandExt;
    let store = dir.join("serve.db").display().to_string();
    let mut cmd = common::lucid_command();
    cmd.args(["serve", "--listen", "127.0.0.1:0", "--store", &store])
        .args(args)
        .arg("--config")
        .arg(config)
        .current_dir(dir)
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", dir);
    // SAFETY: only setrlimit(2), async-signal-safe, between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
            libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit);
            limit.rlim_cur = limit.rlim_cur.min(open_files);
            libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
            Ok(())
        });
    }
    common::until_listening(&mut cmd)
}

/// The soft and hard open-files limits of process `pid`, from `/proc/PID/limits`.
fn open_files_limits(pid: u32) -> (String, String) {
    let limits = std::fs::read_to_string(format!("/proc/{pid}/limits")).unwrap();
    let line = limits.lines().find(|l| l.starts_with("Max open files")).unwrap().to_string();
    let fields: Vec<&str> = line["Max open files".len()..].split_whitespace().collect();
    (fields[0].to_string(), fields[1].to_string())
}
