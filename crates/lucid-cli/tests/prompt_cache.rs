//! Prompt caching from the command line: `lucid run --json` reports cached input tokens,
//! and `cache = "off"` takes Anthropic's breakpoints away.

mod common;

use std::path::PathBuf;
use std::process::Output;
use std::sync::Arc;

use common::run_in as lucid;

use lucid_mock::responses::ResponsesServer;
use lucid_mock::{MockServer, RecordedRequest, Reply};
use serde_json::{Value, json};

fn test_dir(name: &str) -> PathBuf {
    common::test_dir(&format!("cache-{name}"))
}

fn json_out(out: &Output) -> Value {
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn run_json_reports_cached_and_reasoning_tokens() {
    let dir = test_dir("json");
    let rules = Arc::new(ResponsesServer::default());
    let server = MockServer::start(move |req: &RecordedRequest| rules.reply(req)).await;
    let url = server.url();
    let args =
        ["run", "-p", "openai", "-m", "gpt-5.6-sol", "--base-url", &url, "--tools", "calculator", "--json", "2+3?"];
    let v = json_out(&lucid(&dir, &args, &[("OPENAI_API_KEY", "k")]).await);
    assert_eq!(
        v["usage"],
        json!({"input_tokens": 80, "output_tokens": 24, "cached_input_tokens": 64, "reasoning_tokens": 12})
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn anthropic_breakpoints_by_default_none_with_cache_off() {
    let dir = test_dir("anthropic");
    let answer = json!({"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": [{"type": "text", "text": "Hi."}], "stop_reason": "end_turn",
        "usage": {"input_tokens": 12, "output_tokens": 3, "cache_read_input_tokens": 1800, "cache_creation_input_tokens": 40}});
    for (config, cached) in
        [("", true), ("cache = \"off\"\n", false), ("[providers.anthropic]\ncache = \"off\"\n", false)]
    {
        std::fs::write(dir.join("c.toml"), config).unwrap();
        let a = answer.clone();
        let server = MockServer::start(move |_| Reply::json(200, &a)).await;
        let base = server.url().trim_end_matches("/v1").to_string();
        let args = [
            "run",
            "--config",
            "c.toml",
            "-p",
            "anthropic",
            "--base-url",
            &base,
            "--system",
            "Be brief.",
            "--json",
            "hi",
        ];
        let v = json_out(&lucid(&dir, &args, &[("ANTHROPIC_API_KEY", "k")]).await);
        assert_eq!(v["usage"]["cache_read_input_tokens"], 1800);
        assert_eq!(v["usage"]["cache_creation_input_tokens"], 40);
        let body = server.requests()[0].json();
        assert_eq!(body.to_string().contains("cache_control"), cached, "{config:?}: {body}");
    }
    std::fs::write(dir.join("c.toml"), "cache = \"maybe\"\n").unwrap();
    let out = lucid(&dir, &["run", "--config", "c.toml", "-p", "anthropic", "hi"], &[("ANTHROPIC_API_KEY", "k")]).await;
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("use \"on\" or \"off\""));
}
