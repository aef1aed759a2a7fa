//! Zhipu's record sends `content: ""` beside tool calls from the first request, as the
//! design asks ("no 1214 errors"): a GLM that refuses any other form with 1214 sees exactly
//! the two requests of a one-tool task, streamed or not, from the `zhipu` preset and from
//! a provider of one's own defined in a configuration file with the preset's fields.

mod common;

use common::{run_in as lucid, text};
use lucid_mock::{
    MockServer, RecordedRequest, Reply, text_completion, text_stream, tool_call_completion, tool_call_stream,
};
use serde_json::json;

/// A strict GLM: a calculator call first; then the answer, if the assistant message with
/// the call carries `content: ""`, else its 1214.
async fn glm() -> MockServer {
    MockServer::start(|req: &RecordedRequest| {
        let body = req.json();
        let stream = body["stream"] == true;
        let messages = body["messages"].as_array().cloned().unwrap_or_default();
        let Some(call) = messages.iter().find(|m| m["tool_calls"].is_array()) else {
            let calls = [("call_1", "calculator", r#"{"expression":"2+3"}"#)];
            return if stream {
                Reply::sse(&tool_call_stream(&calls))
            } else {
                Reply::json(200, &tool_call_completion(&calls))
            };
        };
        if call.get("content") != Some(&json!("")) {
            return Reply::json(
                400,
                &json!({"error": {"code": "1214", "message": "messages[1]:content和tool_calls 字段不能同时为空"}}),
            );
        }
        if stream {
            Reply::sse(&text_stream(&["It is ", "5."]))
        } else {
            Reply::json(200, &text_completion("It is 5."))
        }
    })
    .await
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tool_task_on_glm_is_two_requests_with_empty_content_from_the_first() {
    let dir = common::test_dir("zhipu-content");
    for own in [false, true] {
        for stream in [false, true] {
            let server = glm().await;
            let url = server.url();
            let config = dir.join("c.toml");
            let zhipu = lucid::model::Provider::find("zhipu").unwrap();
            std::fs::write(&config, common::provider_section("own-glm", zhipu, &url)).unwrap();
            let provider = if own { "own-glm" } else { "zhipu" };
            let config = config.display().to_string();
            let mut args = vec!["run", "--config", &config, "-p", provider, "-m", "glm-4.6", "--tools", "calculator"];
            if !own {
                args.extend(["--base-url", &url]);
            }
            if stream {
                args.push("--stream");
            }
            args.push("What is 2 + 3?");
            let out = lucid(&dir, &args, &[("ZHIPUAI_API_KEY", "k")]).await;
            let case = format!("{provider}, stream={stream}");
            assert_eq!(out.status.code(), Some(0), "{case}: {}", text(&out.stderr));
            assert!(text(&out.stdout).contains("It is 5."), "{case}: {}", text(&out.stdout));
            assert_eq!(server.requests().len(), 2, "{case}: a tool call, then the answer; no 1214 first");
        }
    }
}
