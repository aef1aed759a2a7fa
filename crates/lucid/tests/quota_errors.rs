//! Each provider's quota table: what means "the money or quota ran out" (never retried)
//! and what is only a rate limit (retried).

use lucid::ProviderError;
use lucid::ProviderErrorKind::{QuotaExhausted, RateLimited};
use lucid::model::{Codec, Provider, anthropic, gemini, openai, openai_responses::ResponsesCodec};

/// An error body decoded as the client of `provider`'s record decodes it: the quota codes
/// are the record's, not looked up by the name.
fn decode_error(provider: &str, status: u16, body: &[u8]) -> ProviderError {
    openai::OpenAiCodec::for_preset(Provider::find(provider).unwrap()).decode_error(provider, status, body)
}

#[test]
fn zhipu_account_and_usage_limit_codes_are_quota_its_rate_limits_are_not() {
    for code in ["1110", "1113", "1121", "1304", "1308", "1309", "1310"] {
        let body = format!(r#"{{"error":{{"code":"{code}","message":"limit"}}}}"#);
        let e = decode_error("zhipu", 429, body.as_bytes());
        assert_eq!((e.kind, e.retryable), (QuotaExhausted, false), "{code}");
    }
    for code in ["1302", "1303", "1305"] {
        let body = format!(r#"{{"error":{{"code":"{code}","message":"too many requests"}}}}"#);
        let e = decode_error("zhipu", 429, body.as_bytes());
        assert_eq!((e.kind, e.retryable), (RateLimited, true), "{code}");
    }
    // Zhipu's codes mean nothing for another provider.
    let e = decode_error("groq", 429, br#"{"error":{"code":"1113","message":"x"}}"#);
    assert_eq!(e.kind, RateLimited);
}

#[test]
fn dashscope_arrearage_in_both_of_its_shapes() {
    let compat = decode_error("qwen", 400, br#"{"error":{"code":"Arrearage","message":"Access denied"}}"#);
    let native = decode_error("qwen", 400, br#"{"code":"Arrearage","message":"Access denied","request_id":"r"}"#);
    assert_eq!((compat.kind, native.kind), (QuotaExhausted, QuotaExhausted));
    assert_eq!(native.message, "Access denied");
}

#[test]
fn openai_quota_codes_in_both_openai_codecs() {
    let e = openai::decode_error("openai", 429, br#"{"error":{"type":"insufficient_quota","message":"quota"}}"#);
    assert_eq!(e.kind, QuotaExhausted);
    let e = ResponsesCodec::default().decode_error(
        "openai",
        429,
        br#"{"error":{"code":"insufficient_quota","message":"quota"}}"#,
    );
    assert_eq!((e.kind, e.retryable), (QuotaExhausted, false));
}

#[test]
fn anthropic_billing_error() {
    let e = anthropic::decode_error(
        "anthropic",
        402,
        br#"{"type":"error","error":{"type":"billing_error","message":"Payment required"}}"#,
    );
    assert_eq!((e.kind, e.retryable), (QuotaExhausted, false));
    let rate = anthropic::decode_error(
        "anthropic",
        429,
        br#"{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}"#,
    );
    assert_eq!((rate.kind, rate.retryable), (RateLimited, true));
}

#[test]
fn gemini_per_day_quota_is_final_per_minute_is_retried() {
    let body = |quota_id: &str| {
        format!(
            r#"{{"error":{{"code":429,"status":"RESOURCE_EXHAUSTED","message":"quota","details":[
            {{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{{"quotaId":"{quota_id}"}}]}},
            {{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"20s"}}]}}}}"#
        )
    };
    let day = gemini::decode_error("gemini", 429, body("GenerateRequestsPerDayPerProjectPerModel-FreeTier").as_bytes());
    assert_eq!((day.kind, day.retryable, day.retry_after), (QuotaExhausted, false, None));
    let minute =
        gemini::decode_error("gemini", 429, body("GenerateRequestsPerMinutePerProjectPerModel-FreeTier").as_bytes());
    assert_eq!((minute.kind, minute.retryable), (RateLimited, true));
}

#[tokio::test]
async fn openai_insufficient_quota_is_one_request_on_every_compatible_preset() {
    use lucid::model::{Preset, Protocol};
    let quota = serde_json::json!({"error": {"message": "You exceeded your current quota, please check your plan and billing details.",
        "type": "insufficient_quota", "param": null, "code": "insufficient_quota"}});
    for preset in Preset::all().iter().filter(|p| p.protocol == Protocol::OpenAiChat) {
        let body = quota.clone();
        let server = lucid_mock::MockServer::start(move |_| lucid_mock::Reply::json(429, &body)).await;
        let model = preset.client().key("k").model("m").base_url(server.url()).build().unwrap();
        let err = lucid::Agent::builder(model).build().session().run("hi").await.unwrap_err();
        assert!(
            matches!(err.provider(), Some(e) if e.kind == QuotaExhausted && !e.retryable),
            "{}: {err:?}",
            preset.name
        );
        assert_eq!(server.requests().len(), 1, "{}: the quota error was retried", preset.name);
    }
}
