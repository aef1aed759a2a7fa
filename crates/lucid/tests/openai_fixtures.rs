//! Every OpenAI and OpenAI-compatible case of the recorded provider traffic decodes to its
//! `expected.json`, through the streaming or the non-streaming decoder as the case needs.

mod common;

use std::path::{Path, PathBuf};

use lucid::model::http::StreamDecoder;
use lucid::model::openai::{OpenAiStreamDecoder, decode, decode_error};
use lucid::model::sse::SseDecoder;
use lucid::model::{ChatResponse, StreamEvent};
use lucid::{Error, FinishReason};
use serde_json::Value;

fn cases(root: &Path) -> Vec<PathBuf> {
    let mut dirs = vec![root.join("openai")];
    if let Ok(entries) = std::fs::read_dir(root.join("openai-compatible")) {
        dirs.extend(entries.flatten().map(|e| e.path()).filter(|p| p.is_dir()));
    }
    let mut out = Vec::new();
    for d in dirs {
        for e in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("read {}: {e}", d.display())).flatten() {
            let name = e.file_name().to_string_lossy().to_string();
            if let Some(stem) = name.strip_suffix(".expected.json") {
                out.push(d.join(stem));
            }
        }
    }
    out.sort();
    out
}

fn file(case: &Path, suffix: &str) -> PathBuf {
    PathBuf::from(format!("{}{suffix}", case.display()))
}

/// Decodes an SSE body fed in chunks of `chunk` bytes; returns the response and how many
/// text deltas were emitted.
fn decode_stream(body: &[u8], chunk: usize) -> Result<(ChatResponse, String), Error> {
    let mut sse = SseDecoder::default();
    let mut dec = OpenAiStreamDecoder::new("fixture");
    let mut out = Vec::new();
    for piece in body.chunks(chunk.max(1)) {
        for ev in sse.feed(piece) {
            dec.event(&ev, &mut out)?;
        }
    }
    if let Some(ev) = sse.finish() {
        dec.event(&ev, &mut out)?;
    }
    let streamed: String = out
        .iter()
        .filter_map(|e| match e {
            StreamEvent::TextDelta(t) => Some(t.as_str()),
            _ => None,
        })
        .collect();
    Ok((dec.finish()?, streamed))
}

#[test]
fn recorded_openai_and_compatible_cases_decode_to_expected() {
    let Some(root) = common::fixtures_dir() else {
        return;
    };
    let cases = cases(&root);
    assert!(cases.len() >= 40, "expected the OpenAI-shaped fixture cases, found {}", cases.len());
    let mut failures = Vec::new();
    for case in &cases {
        let expected: Value = serde_json::from_slice(&std::fs::read(file(case, ".expected.json")).unwrap()).unwrap();
        let status: u16 = std::fs::read_to_string(file(case, ".status")).unwrap().trim().parse().unwrap();
        let sse = file(case, ".response.sse");
        let diffs = if status >= 400 {
            let body = std::fs::read(file(case, ".response.json")).unwrap();
            common::compare_error(&decode_error("fixture", status, &body), &expected["error"])
        } else if sse.exists() {
            let body = std::fs::read(&sse).unwrap();
            let mut diffs = Vec::new();
            for chunk in [body.len(), 1, 7, 64] {
                match decode_stream(&body, chunk) {
                    Ok((r, streamed)) => {
                        if streamed != r.message.content {
                            diffs.push(format!("chunk {chunk}: streamed text differs from the assembled text"));
                        }
                        diffs.extend(
                            common::compare_response(&r, &expected).into_iter().map(|d| format!("chunk {chunk}: {d}")),
                        );
                    }
                    Err(e) => diffs.push(format!("chunk {chunk}: {e}")),
                }
            }
            diffs
        } else {
            let body = std::fs::read(file(case, ".response.json")).unwrap();
            match decode("fixture", &body) {
                Ok(r) => common::compare_response(&r, &expected),
                Err(e) => vec![e.to_string()],
            }
        };
        if !diffs.is_empty() {
            failures.push(format!("{}:\n  {}", case.strip_prefix(&root).unwrap().display(), diffs.join("\n  ")));
        }
    }
    assert!(failures.is_empty(), "{} of {} cases differ:\n{}", failures.len(), cases.len(), failures.join("\n"));
    eprintln!("{} recorded cases decoded as expected", cases.len());
}

#[test]
fn a_stream_cut_before_its_end_is_an_error_not_an_answer() {
    let Some(root) = common::fixtures_dir() else {
        return;
    };
    let body = std::fs::read(root.join("openai/stream_tool_call_fragmented_args.response.sse")).unwrap();
    let cut = &body[..body.len() / 2];
    match decode_stream(cut, 13) {
        Err(Error::StreamTruncated { message, .. }) => assert!(message.contains("finish_reason")),
        other => panic!("expected a truncation error, got {other:?}"),
    }
}

#[test]
fn truncated_tool_arguments_are_reported_incomplete() {
    let Some(root) = common::fixtures_dir() else {
        return;
    };
    let body =
        std::fs::read(root.join("openai-compatible/deepseek/stream_tool_call_truncated_length.response.sse")).unwrap();
    let (r, _) = decode_stream(&body, 1 << 20).unwrap();
    assert_eq!(r.finish_reason, Some(FinishReason::Length));
    assert_eq!(r.incomplete_tool_calls().count(), 1);
}
