//! A quota or billing error from any of the seven hosted providers ends `lucid run` with a
//! non-zero status after exactly one request, saying what the provider said: named as a
//! preset, or defined in a configuration file with the preset's fields under a name of
//! its own (the client carries that record, so it knows the same codes).

mod common;

use std::process::Output;

use lucid_mock::{MockServer, Reply};
use serde_json::json;

async fn lucid(args: Vec<String>, key_var: &str) -> Output {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    common::run_in(&std::env::temp_dir(), &args, &[(key_var, "sk-test")]).await
}

#[tokio::test(flavor = "multi_thread")]
async fn a_quota_error_is_reported_after_one_request_for_every_provider() {
    every_provider(false).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_provider_from_the_configuration_file_with_a_presets_fields_is_that_preset() {
    every_provider(true).await;
}

/// The quota mocks, for each preset named or (`own`) written out in a configuration file.
async fn every_provider(own: bool) {
    let gemini_per_day = json!({"error": {"code": 429, "status": "RESOURCE_EXHAUSTED",
        "message": "You exceeded your current quota, please check your plan and billing details.",
        "details": [
            {"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": [{
                "quotaMetric": "generativelanguage.googleapis.com/generate_content_free_tier_requests",
                "quotaId": "GenerateRequestsPerDayPerProjectPerModel-FreeTier",
                "quotaDimensions": {"location": "global", "model": "gemini-2.5-flash"}, "quotaValue": "250"}]},
            {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "1s"}]}});
    let cases = [
        (
            "openai",
            "OPENAI_API_KEY",
            429,
            json!({"error": {"message": "You exceeded your current quota, please check your plan and billing details.", "type": "insufficient_quota", "param": null, "code": "insufficient_quota"}}),
            "You exceeded your current quota",
        ),
        (
            "anthropic",
            "ANTHROPIC_API_KEY",
            400,
            json!({"type": "error", "error": {"type": "billing_error", "message": "Your credit balance is too low to access the Anthropic API."}}),
            "credit balance is too low",
        ),
        ("gemini", "GEMINI_API_KEY", 429, gemini_per_day, "You exceeded your current quota"),
        (
            "zhipu",
            "ZHIPUAI_API_KEY",
            429,
            json!({"error": {"code": "1113", "message": "余额不足或无可用资源包,请充值。"}}),
            "余额不足",
        ),
        (
            "qwen",
            "DASHSCOPE_API_KEY",
            400,
            json!({"error": {"code": "Arrearage", "type": "Arrearage", "param": null, "message": "Access denied, please make sure your account is in good standing."}, "request_id": "0ba7"}),
            "good standing",
        ),
        (
            "deepseek",
            "DEEPSEEK_API_KEY",
            402,
            json!({"error": {"message": "Insufficient Balance", "type": "unknown_error", "param": null, "code": "invalid_request_error"}}),
            "Insufficient Balance",
        ),
        (
            "openrouter",
            "OPENROUTER_API_KEY",
            402,
            json!({"error": {"code": 402, "message": "Insufficient credits. Add more using https://openrouter.ai/settings/credits"}}),
            "Insufficient credits",
        ),
    ];
    for (provider, key_var, status, body, said) in cases {
        let server = MockServer::start(move |_| Reply::json(status, &body).with_header("retry-after", "0")).await;
        let base = server.url();
        // Anthropic's and Gemini's base URLs end before their version segment.
        let base =
            if matches!(provider, "anthropic" | "gemini") { base.trim_end_matches("/v1").to_string() } else { base };
        let mut args = ["run", "-p", provider, "-m", "m", "--base-url", &base, "--max-retries", "3", "hi"]
            .map(str::to_string)
            .to_vec();
        if own {
            // No preset is named: `own-zhipu` is known by its section alone.
            let dir = common::test_dir(&format!("quota-own-{provider}"));
            let record = lucid::model::Provider::find(provider).unwrap();
            let config = dir.join("c.toml");
            std::fs::write(&config, common::provider_section(&format!("own-{provider}"), record, &base)).unwrap();
            args = vec!["run".into(), "--config".into(), config.display().to_string()];
            args.extend(["-p", &format!("own-{provider}"), "-m", "m", "--max-retries", "3", "hi"].map(str::to_string));
        }
        let out = lucid(args, key_var).await;
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{provider}: {stderr}");
        assert_eq!(server.requests().len(), 1, "{provider}: retried a quota error");
        assert!(stderr.contains(said), "{provider}: {stderr}");
    }
}
