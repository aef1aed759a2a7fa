//! Choosing OpenAI's API from the command line and the config file: `openai` speaks the
//! Responses API unless told `--api chat`, every other preset Chat Completions, and any
//! server speaks Responses with `--base-url URL --api responses`.

mod common;

use std::path::PathBuf;
use std::sync::Arc;

use common::{run_in as lucid, text};

use lucid_mock::responses::ResponsesServer;
use lucid_mock::{MockServer, RecordedRequest, Reply, text_completion, tool_call_completion};

fn test_dir(name: &str) -> PathBuf {
    common::test_dir(&format!("api-{name}"))
}

async fn responses_server() -> MockServer {
    let rules = Arc::new(ResponsesServer::default());
    MockServer::start(move |req: &RecordedRequest| rules.reply(req)).await
}

fn chat_script() -> Vec<Reply> {
    vec![
        Reply::json(200, &tool_call_completion(&[("call_1", "calculator", r#"{"expression":"2+3"}"#)])),
        Reply::json(200, &text_completion("It is 5.")),
    ]
}

#[tokio::test(flavor = "multi_thread")]
async fn the_done_when_command_runs_a_tool_task_on_a_strict_responses_server_streamed_or_not() {
    let dir = test_dir("done-when");
    for stream in [false, true] {
        let server = responses_server().await;
        let url = server.url();
        let mut args = vec!["run", "--provider", "openai", "--api", "responses", "--model", "gpt-5.6-sol"];
        args.extend(["--base-url", &url, "--tools", "calculator"]);
        if stream {
            args.push("--stream");
        }
        args.push("What is 2 + 3? Use the calculator.");
        let out = lucid(&dir, &args, &[("OPENAI_API_KEY", "sk-test")]).await;
        assert_eq!(out.status.code(), Some(0), "stream={stream}: {}", text(&out.stderr));
        assert!(text(&out.stdout).contains("The answer is 5."), "{}", text(&out.stdout));
        let reqs = server.requests();
        assert_eq!(reqs.len(), 2, "a tool call, then the answer");
        assert!(reqs.iter().all(|r| r.path == "/v1/responses"));
        let second = reqs[1].json();
        assert_eq!(second["input"][1]["type"], "reasoning", "{second}");
        assert_eq!(second["input"][2]["name"], "calculator");
        assert_eq!(second["stream"] == true, stream);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn openai_defaults_to_responses_and_api_chat_switches_back() {
    let dir = test_dir("default");
    let server = responses_server().await;
    let url = server.url();
    let key = [("OPENAI_API_KEY", "sk-test")];
    let out = lucid(
        &dir,
        &["run", "-p", "openai", "-m", "gpt-5.6-sol", "--base-url", &url, "--tools", "calculator", "2+3?"],
        &key,
    )
    .await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(server.requests()[0].path, "/v1/responses");

    let chat = MockServer::sequence(chat_script()).await;
    let url = chat.url();
    let args = [
        "run",
        "-p",
        "openai",
        "--api",
        "chat",
        "-m",
        "gpt-4o-mini",
        "--base-url",
        &url,
        "--tools",
        "calculator",
        "2+3?",
    ];
    let out = lucid(&dir, &args, &key).await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout).trim(), "It is 5.");
    assert!(chat.requests().iter().all(|r| r.path == "/v1/chat/completions"));
    assert!(chat.requests()[0].json()["messages"].is_array());
}

#[tokio::test(flavor = "multi_thread")]
async fn the_config_file_chooses_the_api_per_provider_profile_or_top_level() {
    let dir = test_dir("config");
    let key = [("OPENAI_API_KEY", "sk-test")];
    for config in [
        "provider = \"openai\"\n[providers.openai]\napi = \"chat\"\n",
        "provider = \"openai\"\napi = \"chat\"\n",
        "[profiles.p]\nprovider = \"openai\"\napi = \"chat\"\n",
    ] {
        std::fs::write(dir.join("c.toml"), config).unwrap();
        let chat = MockServer::sequence(chat_script()).await;
        let url = chat.url();
        let mut args =
            vec!["run", "--config", "c.toml", "-m", "gpt-4o-mini", "--base-url", &url, "--tools", "calculator"];
        if config.contains("profiles") {
            args.extend(["--profile", "p"]);
        }
        args.push("2+3?");
        let out = lucid(&dir, &args, &key).await;
        assert_eq!(out.status.code(), Some(0), "{config}: {}", text(&out.stderr));
        assert_eq!(chat.requests()[0].path, "/v1/chat/completions", "{config}");
    }
    // The flag wins over the file.
    std::fs::write(dir.join("c.toml"), "provider = \"openai\"\napi = \"chat\"\n").unwrap();
    let server = responses_server().await;
    let url = server.url();
    let args = ["run", "--config", "c.toml", "--api", "responses", "-m", "gpt-5.6-sol", "--base-url", &url, "hi"];
    let out = lucid(&dir, &args, &key).await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(server.requests()[0].path, "/v1/responses");
    let shown = lucid(&dir, &["config", "show", "--config", "c.toml"], &key).await;
    assert!(text(&shown.stdout).contains("api = \"chat\""), "{}", text(&shown.stdout));
}

#[tokio::test(flavor = "multi_thread")]
async fn any_server_speaks_responses_by_url_and_native_providers_refuse_the_flag() {
    let dir = test_dir("by-url");
    let server = responses_server().await;
    let url = server.url();
    let out = lucid(&dir, &["run", "--base-url", &url, "-m", "qwen3", "--api", "responses", "hi"], &[]).await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(server.requests()[0].path, "/v1/responses");

    let out = lucid(&dir, &["run", "-p", "anthropic", "--api", "responses", "hi"], &[("ANTHROPIC_API_KEY", "k")]).await;
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("anthropic speaks its own API (messages)"), "{}", text(&out.stderr));
}

#[tokio::test(flavor = "multi_thread")]
async fn providers_lists_the_api_each_speaks() {
    let dir = test_dir("providers");
    let out = lucid(&dir, &["providers"], &[]).await;
    let list = text(&out.stdout);
    let api = |name: &str| {
        list.lines()
            .find(|l| l.split_whitespace().next() == Some(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .map(str::to_string)
    };
    assert_eq!(api("openai").as_deref(), Some("responses"), "{list}");
    assert_eq!(api("zhipu").as_deref(), Some("chat"));
    assert_eq!(api("anthropic").as_deref(), Some("messages"));
}
