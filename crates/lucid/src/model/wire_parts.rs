//! Content parts on each provider's wire: the one place that knows how an image, a
//! document or audio is written for Chat Completions, Responses, Anthropic and Gemini.
//!
//! Shapes, from each provider's documentation:
//! - Chat Completions: `{"type":"image_url","image_url":{"url":"data:image/png;base64,…"}}`,
//!   `{"type":"file","file":{"filename":"a.pdf","file_data":"data:application/pdf;base64,…"}}`
//!   (PDF only), `{"type":"input_audio","input_audio":{"data":"…","format":"wav"}}`; a text
//!   document is sent as its text. llama.cpp's and vLLM's servers take the same `image_url`.
//! - Responses: `{"type":"input_image","image_url":"data:…"}`, `{"type":"input_file",
//!   "filename":"a.pdf","file_data":"data:…"}` or `"file_url"`; no audio input.
//! - Anthropic: `{"type":"image","source":{"type":"base64","media_type":"image/png","data":"…"}}`
//!   or `{"type":"url","url":"…"}`; `document` blocks with a `base64` PDF, a `text` source
//!   for plain text, or a `url`; the same blocks inside a `tool_result`'s `content`.
//! - Gemini: `{"inlineData":{"mimeType":"image/png","data":"…"}}` and
//!   `{"fileData":{"mimeType":"…","fileUri":"…"}}`.
//!
//! A part a wire cannot carry at all (audio on Responses or Anthropic) is written as its
//! one-line description: the capability check ([`crate::model::catalogue::capabilities`])
//! refuses such a request before it is sent for the models the catalogue knows.

use serde_json::{Value, json};

use crate::content::{Media, MediaSource, Part, PartKind};

fn file_name(m: &Media) -> String {
    m.name
        .clone()
        .unwrap_or_else(|| if m.media_type == "application/pdf" { "document.pdf" } else { "document.txt" }.into())
}

/// The text of a plain-text document, headed by its name, for wires without text documents.
fn document_text(p: &Part, m: &Media) -> String {
    let text = p.as_text().map(str::to_string).unwrap_or_else(|| p.describe());
    match &m.name {
        Some(n) => format!("{n}:\n{text}"),
        None => text,
    }
}

/// The OpenAI `input_audio` format name of a media type.
fn audio_format(media_type: &str) -> &str {
    match media_type {
        "audio/wav" | "audio/x-wav" | "audio/wave" => "wav",
        "audio/mpeg" | "audio/mp3" => "mp3",
        other => other.rsplit('/').next().unwrap_or(other),
    }
}

/// One Chat Completions content part.
pub(crate) fn chat_part(p: &Part) -> Value {
    match (p, p.media()) {
        (Part::Image(m), _) => json!({"type": "image_url", "image_url": {"url": m.data_url()}}),
        (Part::Audio(m), _) if matches!(m.source, MediaSource::Bytes(_)) => {
            json!({"type": "input_audio", "input_audio": {"data": m.base64(), "format": audio_format(&m.media_type)}})
        }
        (Part::Document(m), _) if p.kind() == PartKind::Pdf && matches!(m.source, MediaSource::Bytes(_)) => {
            json!({"type": "file", "file": {"filename": file_name(m), "file_data": m.data_url()}})
        }
        (Part::Document(m), _) if p.kind() == PartKind::TextDocument => {
            json!({"type": "text", "text": document_text(p, m)})
        }
        (Part::Text { text }, _) => json!({"type": "text", "text": text}),
        _ => json!({"type": "text", "text": p.describe()}),
    }
}

/// One Responses input content part.
pub(crate) fn responses_part(p: &Part) -> Value {
    match p {
        Part::Text { text } => json!({"type": "input_text", "text": text}),
        Part::Image(m) => json!({"type": "input_image", "image_url": m.data_url()}),
        Part::Document(m) => match &m.source {
            MediaSource::Bytes(_) => json!({"type": "input_file", "filename": file_name(m), "file_data": m.data_url()}),
            MediaSource::Url(u) => json!({"type": "input_file", "file_url": u}),
        },
        _ => json!({"type": "input_text", "text": p.describe()}),
    }
}

/// One Anthropic content block (also valid inside a `tool_result`).
pub(crate) fn anthropic_block(p: &Part) -> Value {
    let source = |m: &Media| match &m.source {
        MediaSource::Bytes(_) => json!({"type": "base64", "media_type": m.media_type, "data": m.base64()}),
        MediaSource::Url(u) => json!({"type": "url", "url": u}),
    };
    match p {
        Part::Text { text } => json!({"type": "text", "text": text}),
        Part::Image(m) => json!({"type": "image", "source": source(m)}),
        Part::Document(m) if p.kind() == PartKind::TextDocument => {
            let mut block = json!({"type": "document", "source": {"type": "text", "media_type": "text/plain",
                "data": p.as_text().unwrap_or_default()}});
            if let Some(n) = &m.name {
                block["title"] = json!(n);
            }
            block
        }
        Part::Document(m) => {
            let mut block = json!({"type": "document", "source": source(m)});
            if let Some(n) = &m.name {
                block["title"] = json!(n);
            }
            block
        }
        _ => json!({"type": "text", "text": p.describe()}),
    }
}

/// One Gemini part.
pub(crate) fn gemini_part(p: &Part) -> Value {
    match (p, p.media()) {
        (Part::Text { text }, _) => json!({"text": text}),
        (_, Some(m)) => match &m.source {
            MediaSource::Bytes(_) => json!({"inlineData": {"mimeType": m.media_type, "data": m.base64()}}),
            MediaSource::Url(u) => json!({"fileData": {"mimeType": m.media_type, "fileUri": u}}),
        },
        _ => json!({"text": p.describe()}),
    }
}

/// The text a wire without parts in tool results shows in the result itself: the text
/// parts and, for each attachment, its description (the attachment follows in a user
/// message).
pub(crate) fn tool_text_with_notes(content: &str, parts: &[Part]) -> String {
    if parts.is_empty() {
        return content.to_string();
    }
    let notes: Vec<String> = parts
        .iter()
        .map(|p| match p {
            Part::Text { text } => text.clone(),
            other => format!("{} (attached below)", other.describe()),
        })
        .collect();
    notes.join("\n")
}

/// Reads one Chat Completions content part (`text`, `image_url` with an `http(s)` or
/// `data:` URL, `input_audio`, `file` with `file_data`), as a server receiving OpenAI
/// requests needs it. The error names what is wrong.
///
/// ```
/// use lucid::{Part, model::openai::decode_content_part};
/// let p = decode_content_part(&serde_json::json!({"type": "image_url", "image_url": {"url": "data:image/png;base64,AQID"}}));
/// assert_eq!(p.unwrap(), Part::image_bytes("image/png", vec![1u8, 2, 3]));
/// ```
pub fn decode_chat_part(v: &Value) -> Result<Part, String> {
    let s = |v: &Value| v.as_str().map(str::to_string);
    match v["type"].as_str() {
        Some("text") => Ok(Part::text(s(&v["text"]).ok_or("a text part needs `text`")?)),
        Some("image_url") => {
            let url = s(&v["image_url"]["url"])
                .or_else(|| s(&v["image_url"]))
                .ok_or("an image_url part needs `image_url.url`")?;
            image_from_url(url)
        }
        Some("input_audio") => {
            let data = v["input_audio"]["data"].as_str().ok_or("an input_audio part needs `input_audio.data`")?;
            let media_type = match v["input_audio"]["format"].as_str() {
                Some("mp3") => "audio/mpeg",
                Some("wav") => "audio/wav",
                other => return Err(format!("unsupported input_audio format {other:?} (wav or mp3)")),
            };
            let media = Media::from_data_url(&format!("data:{media_type};base64,{data}"))
                .ok_or("input_audio.data is not base64")?;
            Ok(Part::Audio(media))
        }
        Some("file") => {
            let f = &v["file"];
            let data =
                f["file_data"].as_str().ok_or("a file part needs `file.file_data` (uploaded file ids are not kept)")?;
            let mut media = Media::from_data_url(data)
                .or_else(|| Media::from_data_url(&format!("data:application/pdf;base64,{data}")))
                .ok_or("file.file_data is not a base64 data URL")?;
            media.name = s(&f["filename"]);
            Ok(Part::Document(media))
        }
        other => Err(format!("unsupported content part type {other:?}")),
    }
}

/// Reads one Responses input content part (`input_text`, `input_image`, `input_file`).
///
/// ```
/// use lucid::{Part, model::openai_responses::decode_input_part};
/// let p = decode_input_part(&serde_json::json!({"type": "input_image", "image_url": "https://example.com/a.png"}));
/// assert_eq!(p.unwrap(), Part::image_url("https://example.com/a.png"));
/// ```
pub fn decode_responses_part(v: &Value) -> Result<Part, String> {
    let s = |k: &str| v[k].as_str().map(str::to_string);
    match v["type"].as_str() {
        Some("input_text" | "text" | "output_text") => Ok(Part::text(s("text").ok_or("a text part needs `text`")?)),
        Some("input_image") => {
            image_from_url(s("image_url").ok_or("an input_image part needs `image_url` (file ids are not kept)")?)
        }
        Some("input_file") => {
            if let Some(data) = s("file_data") {
                let mut media = Media::from_data_url(&data)
                    .or_else(|| Media::from_data_url(&format!("data:application/pdf;base64,{data}")))
                    .ok_or("input_file.file_data is not base64")?;
                media.name = s("filename");
                Ok(Part::Document(media))
            } else if let Some(url) = s("file_url") {
                Ok(Part::Document(Media {
                    media_type: "application/pdf".into(),
                    source: MediaSource::Url(url),
                    name: s("filename"),
                }))
            } else {
                Err("an input_file part needs `file_data` or `file_url` (file ids are not kept)".into())
            }
        }
        other => Err(format!("unsupported content part type {other:?}")),
    }
}

fn image_from_url(url: String) -> Result<Part, String> {
    if url.starts_with("data:") {
        return Media::from_data_url(&url)
            .map(Part::Image)
            .ok_or_else(|| "the image data URL is not base64".to_string());
    }
    if !(url.starts_with("https://") || url.starts_with("http://")) {
        return Err("an image URL must be http(s) or a base64 data URL".into());
    }
    Ok(Part::image_url(url))
}
