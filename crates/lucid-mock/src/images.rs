//! The image scenario: a strict Chat Completions and Responses server that checks every
//! image, file and audio part the way the real APIs do before answering.
//!
//! Chat Completions: `image_url` parts only in user messages, each a `data:` URL whose
//! base64 decodes to the declared format (magic bytes) or an `http(s)` URL; `file` parts
//! with a `filename` and a PDF `file_data` data URL; `input_audio` with `wav`/`mp3` data; a
//! tool message's content is text (a string, or text parts). Responses: `input_image` and
//! `input_file` the same way, in user messages or a `function_call_output`'s output.
//! A wrong part gets a 400 `invalid_request_error` naming it; a good request is answered
//! with text listing what was seen, `I see: image/png (16 bytes), application/pdf (9 bytes).`
//! (Responses: the same text as an output message.)

use base64::Engine as _;
use serde_json::{Value, json};

use crate::{RecordedRequest, Reply, text_completion};

/// The handler of the image scenario (see the module).
pub fn image_handler() -> impl Fn(&RecordedRequest) -> Reply + Send + Sync + 'static {
    |req| {
        let body = req.json();
        let checked = if req.path.ends_with("/responses") { check_responses(&body) } else { check_chat(&body) };
        match checked {
            Ok(seen) => {
                let text = if seen.is_empty() {
                    "I see no attachment.".to_string()
                } else {
                    format!("I see: {}.", seen.join(", "))
                };
                if req.path.ends_with("/responses") {
                    let response = json!({
                        "id": "resp_mock", "object": "response", "status": "completed", "model": body["model"],
                        "output": [{"id": "msg_mock", "type": "message", "status": "completed", "role": "assistant",
                                    "content": [{"type": "output_text", "text": text, "annotations": []}]}],
                        "usage": {"input_tokens": 20, "output_tokens": 5, "total_tokens": 25}
                    });
                    if body["stream"] == true {
                        let chunks = crate::responses::stream_events(&response);
                        Reply::Sse { chunks, delay: std::time::Duration::ZERO, cut: false }
                    } else {
                        Reply::json(200, &response)
                    }
                } else if body["stream"] == true {
                    Reply::sse(&crate::text_stream(&[&text]))
                } else {
                    Reply::json(200, &text_completion(&text))
                }
            }
            Err(message) => Reply::json(
                400,
                &json!({"error": {"message": message, "type": "invalid_request_error", "param": null, "code": null}}),
            ),
        }
    }
}

/// Magic bytes of a media type; `None` for types not checked.
fn matches_magic(media_type: &str, b: &[u8]) -> Option<bool> {
    Some(match media_type {
        "image/png" => b.starts_with(b"\x89PNG\r\n\x1a\n"),
        "image/jpeg" => b.starts_with(&[0xFF, 0xD8, 0xFF]),
        "image/gif" => b.starts_with(b"GIF8"),
        "image/webp" => b.len() >= 12 && &b[8..12] == b"WEBP",
        "application/pdf" => b.starts_with(b"%PDF-"),
        _ => return None,
    })
}

/// Checks a `data:` URL or an http(s) URL; what was seen.
fn check_url(url: &str, want: &str, at: &str) -> Result<String, String> {
    if url.starts_with("https://") || url.starts_with("http://") {
        return Ok(format!("{want} at {url}"));
    }
    let rest = url.strip_prefix("data:").ok_or_else(|| format!("{at}: not a data URL or an http(s) URL"))?;
    let (head, data) = rest.split_once(',').ok_or_else(|| format!("{at}: a data URL without a comma"))?;
    let media_type = head.strip_suffix(";base64").ok_or_else(|| format!("{at}: the data URL is not base64"))?;
    if !media_type.starts_with(want) {
        return Err(format!("{at}: {media_type} is not {want}"));
    }
    let bytes = base64::engine::general_purpose::STANDARD.decode(data).map_err(|e| format!("{at}: bad base64: {e}"))?;
    if matches_magic(media_type, &bytes) == Some(false) {
        return Err(format!("{at}: the bytes are not {media_type}"));
    }
    Ok(format!("{media_type} ({} bytes)", bytes.len()))
}

fn check_chat(body: &Value) -> Result<Vec<String>, String> {
    let mut seen = Vec::new();
    for (i, m) in body["messages"].as_array().ok_or("`messages` is missing")?.iter().enumerate() {
        let role = m["role"].as_str().unwrap_or_default();
        let Some(parts) = m["content"].as_array() else { continue };
        for (j, p) in parts.iter().enumerate() {
            let at = format!("messages[{i}].content[{j}]");
            match (role, p["type"].as_str()) {
                (_, Some("text")) if p["text"].is_string() => {}
                ("user", Some("image_url")) => seen.push(check_url(
                    p["image_url"]["url"].as_str().ok_or(format!("{at}.image_url.url is missing"))?,
                    "image/",
                    &at,
                )?),
                ("user", Some("file")) => {
                    if !p["file"]["filename"].is_string() {
                        return Err(format!("{at}.file.filename is missing"));
                    }
                    let data = p["file"]["file_data"].as_str().ok_or(format!("{at}.file.file_data is missing"))?;
                    seen.push(check_url(data, "application/pdf", &at)?);
                }
                ("user", Some("input_audio")) => {
                    let a = &p["input_audio"];
                    let format = a["format"].as_str().filter(|f| matches!(*f, "wav" | "mp3"));
                    let format = format.ok_or(format!("{at}.input_audio.format must be wav or mp3"))?;
                    let data = a["data"].as_str().ok_or(format!("{at}.input_audio.data is missing"))?;
                    let n =
                        base64::engine::general_purpose::STANDARD.decode(data).map_err(|e| format!("{at}: {e}"))?.len();
                    seen.push(format!("audio/{format} ({n} bytes)"));
                }
                (role, kind) => return Err(format!("{at}: a {kind:?} part is not allowed in a {role} message")),
            }
        }
    }
    Ok(seen)
}

fn check_responses(body: &Value) -> Result<Vec<String>, String> {
    let mut seen = Vec::new();
    let items = body["input"].as_array().ok_or("`input` is missing")?;
    for (i, item) in items.iter().enumerate() {
        let parts = match (item["type"].as_str(), item["role"].as_str()) {
            (Some("message") | None, Some("user")) => item["content"].as_array(),
            (Some("function_call_output"), _) => item["output"].as_array(),
            _ => None,
        };
        for (j, p) in parts.map_or(&[][..], Vec::as_slice).iter().enumerate() {
            let at = format!("input[{i}].content[{j}]");
            match p["type"].as_str() {
                Some("input_text") => {}
                Some("input_image") => seen.push(check_url(
                    p["image_url"].as_str().ok_or(format!("{at}.image_url is missing"))?,
                    "image/",
                    &at,
                )?),
                Some("input_file") => match (p["file_data"].as_str(), p["file_url"].as_str()) {
                    (Some(d), _) => {
                        if !p["filename"].is_string() {
                            return Err(format!("{at}.filename is missing"));
                        }
                        seen.push(check_url(d, "", &at)?)
                    }
                    (None, Some(u)) => seen.push(format!("a file at {u}")),
                    _ => return Err(format!("{at}: input_file needs file_data or file_url")),
                },
                other => return Err(format!("{at}: unknown part type {other:?}")),
            }
        }
    }
    Ok(seen)
}
