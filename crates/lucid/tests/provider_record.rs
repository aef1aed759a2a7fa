//! A client carries its provider's record, and the record alone decides: a record of one's
//! own with a preset's fields (as a configuration file defines one) behaves as the preset
//! on the same strict mocks, and nothing looks the provider up by its name.

use lucid::ProviderErrorKind::{QuotaExhausted, RateLimited};
use lucid::model::http::HttpTransport;
use lucid::model::retry::RetryPolicy;
use lucid::model::{Protocol, Provider};
use lucid_mock::{MockServer, Reply};
use serde_json::{Value, json};

/// `p` under another name, every other field the preset's.
fn twin(p: &Provider) -> Provider {
    let mut own = p.renamed(&format!("own-{}", p.name));
    own.telemetry_name.clone_from(&p.telemetry_name);
    own.catalogue.clone_from(&p.catalogue);
    own
}

/// The provider's own quota error, as it sends it.
fn quota_error(provider: &str) -> Option<(u16, Value)> {
    Some(match provider {
        "zhipu" => (429, json!({"error": {"code": "1113", "message": "余额不足或无可用资源包,请充值。"}})),
        "qwen" => (400, json!({"error": {"code": "Arrearage", "type": "Arrearage", "message": "Access denied"}})),
        "deepseek" => (402, json!({"error": {"message": "Insufficient Balance", "type": "unknown_error"}})),
        "openrouter" => (402, json!({"error": {"code": 402, "message": "Insufficient credits"}})),
        _ => return None,
    })
}

async fn first_error(record: &Provider, status: u16, body: Value) -> (lucid::Error, usize) {
    let server = MockServer::start(move |_| Reply::json(status, &body).with_header("retry-after", "0")).await;
    let transport = HttpTransport::builder().retry(RetryPolicy { max_retries: 2, ..RetryPolicy::default() }).build();
    let model =
        record.client().key("k").model("m").base_url(server.url()).transport(transport.unwrap()).build().unwrap();
    let err = lucid::Agent::builder(model).build().session().run("hi").await.unwrap_err();
    (err, server.requests().len())
}

#[tokio::test]
async fn a_record_of_ones_own_with_a_presets_fields_passes_the_presets_quota_mocks() {
    for preset in Provider::all().iter().filter(|p| p.protocol == Protocol::OpenAiChat) {
        let Some((status, body)) = quota_error(&preset.name) else { continue };
        for record in [preset.clone(), twin(preset)] {
            let (err, requests) = first_error(&record, status, body.clone()).await;
            assert!(
                matches!(err.provider(), Some(e) if e.kind == QuotaExhausted && !e.retryable),
                "{}: {err:?}",
                record.name
            );
            assert_eq!(requests, 1, "{}: the quota error was retried", record.name);
        }
    }
}

#[tokio::test]
async fn the_client_carries_the_record_for_telemetry_the_catalogue_and_prices() {
    for preset in Provider::all() {
        let own = twin(preset);
        let model = own.client().key("k").model("gpt-4o-mini").base_url("http://127.0.0.1:9/v1").build().unwrap();
        assert_eq!(model.record(), Some(&own), "{}", preset.name);
        assert_eq!(model.provider(), own.name);
        assert_eq!(lucid::telemetry::system_name(&*model), preset.telemetry_name, "{}", preset.name);
        let named = preset.client().key("k").model("gpt-4o-mini").base_url("http://127.0.0.1:9/v1").build().unwrap();
        let prices = lucid::model::prices::Prices::default();
        assert_eq!(prices.price_for(&*model), prices.price_for(&*named), "{}", preset.name);
    }
    let openai = Provider::find("openai").unwrap();
    let model = twin(openai).client().key("k").model("gpt-4o-mini").build().unwrap();
    assert!(
        lucid::model::prices::Prices::default().price_for(&*model).is_some(),
        "OpenAI's row, by its catalogue name"
    );
    // A model with backups is known by its primary's record.
    let gemini = Provider::find("gemini").unwrap().client().key("k").build().unwrap();
    let backup = Provider::find("zhipu").unwrap().client().key("k").build().unwrap();
    let with_backup = lucid::model::Fallback::new(gemini).backup(backup);
    assert_eq!(lucid::telemetry::system_name(&with_backup), "gcp.gemini");
    // Groq's own rows of the catalogue, for a gateway that says it serves Groq's models.
    let mut gateway = Provider::compatible().renamed("gateway");
    gateway.catalogue = "groq".into();
    let m = gateway.client().model("llama-3.3-70b-versatile").base_url("http://127.0.0.1:9/v1").build().unwrap();
    assert_eq!(m.capabilities(), Some(lucid::model::catalogue::Capabilities::TEXT));
    assert_eq!(m.catalogue_name(), "groq");
}

#[tokio::test]
async fn the_record_decides_not_the_name() {
    // A record named `zhipu` without Zhipu's quota codes: 1113 is only a rate limit for it.
    let not_glm = Provider::compatible().renamed("zhipu");
    let (err, requests) = first_error(&not_glm, 429, json!({"error": {"code": "1113", "message": "arrears"}})).await;
    assert!(matches!(err.provider(), Some(e) if e.kind == RateLimited), "{err:?}");
    assert_eq!(requests, 3, "retried as a rate limit");
    // Zhipu's record under any name keeps them.
    let glm = Provider::find("zhipu").unwrap().renamed("glm-prod");
    let (err, requests) = first_error(&glm, 429, json!({"error": {"code": "1113", "message": "arrears"}})).await;
    assert!(matches!(err.provider(), Some(e) if e.kind == QuotaExhausted), "{err:?}");
    assert_eq!(requests, 1);
}

#[tokio::test]
async fn a_native_protocols_record_adds_its_own_quota_codes() {
    // An Anthropic-protocol gateway whose record says `spend_cap` means the money ran out.
    let mut gateway = Provider::find("anthropic").unwrap().renamed("claude-gateway");
    gateway.quota.push(lucid::model::presets::QuotaRule::code("spend_cap"));
    let body = json!({"type": "error", "error": {"type": "spend_cap", "message": "Monthly spend cap reached"}});
    let server = MockServer::start(move |_| Reply::json(429, &body).with_header("retry-after", "0")).await;
    let transport = HttpTransport::builder().retry(RetryPolicy { max_retries: 2, ..RetryPolicy::default() }).build();
    let base = server.url().trim_end_matches("/v1").to_string();
    let model = gateway.client().key("k").model("m").base_url(base).transport(transport.unwrap()).build().unwrap();
    let err = lucid::Agent::builder(model).build().session().run("hi").await.unwrap_err();
    assert!(matches!(err.provider(), Some(e) if e.kind == QuotaExhausted && !e.retryable), "{err:?}");
    assert_eq!(server.requests().len(), 1);
}
