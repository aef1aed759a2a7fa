//! Every Gemini case of the recorded provider traffic decodes to its `expected.json`.

mod common;

use lucid::model::gemini::{GeminiStreamDecoder, decode, decode_error};

#[test]
fn recorded_gemini_cases_decode_to_expected() {
    let Some(root) = common::fixtures_dir() else { return };
    let checked = common::check_cases(
        &root,
        &[root.join("gemini")],
        &common::Decoders {
            json: &|b| decode("fixture", b),
            error: &|s, b| decode_error("fixture", s, b),
            stream: &|| Box::new(GeminiStreamDecoder::new("fixture")),
        },
    );
    assert!(checked >= 22, "found {checked} cases");
}

#[test]
fn thought_signatures_stay_on_their_calls() {
    let Some(root) = common::fixtures_dir() else { return };
    let body = std::fs::read(root.join("gemini/function_calls_parallel.response.json")).unwrap();
    let r = decode("fixture", &body).unwrap();
    assert_eq!(r.message.tool_calls[0].signature.as_deref(), Some("signature_REDACTED_1"));
    assert_eq!(r.message.tool_calls[1].signature, None);
    assert_ne!(r.message.tool_calls[0].id, r.message.tool_calls[1].id, "parallel calls pair by minted id");
}
