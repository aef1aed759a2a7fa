//! Every Anthropic case of the recorded provider traffic decodes to its `expected.json`.

mod common;

use lucid::model::anthropic::{AnthropicStreamDecoder, decode, decode_error};

#[test]
fn recorded_anthropic_cases_decode_to_expected() {
    let Some(root) = common::fixtures_dir() else { return };
    let checked = common::check_cases(
        &root,
        &[root.join("anthropic")],
        &common::Decoders {
            json: &|b| decode("fixture", b),
            error: &|s, b| decode_error("fixture", s, b),
            stream: &|| Box::new(AnthropicStreamDecoder::new("fixture")),
        },
    );
    assert!(checked >= 19, "found {checked} cases");
}

#[test]
fn thinking_blocks_keep_their_signature_for_the_next_turn() {
    let Some(root) = common::fixtures_dir() else { return };
    let body = std::fs::read(root.join("anthropic/stream_thinking_then_text.response.sse")).unwrap();
    let (r, _) = common::decode_sse(&body, 5, AnthropicStreamDecoder::new("fixture")).unwrap();
    let blocks = &r.message.reasoning.as_ref().unwrap().blocks;
    assert_eq!(blocks.len(), 1);
    assert_eq!(blocks[0]["type"], "thinking");
    assert!(blocks[0]["signature"].as_str().is_some_and(|s| s.len() > 20));
    assert_eq!(blocks[0]["thinking"], r.message.reasoning.as_ref().unwrap().text);
}
