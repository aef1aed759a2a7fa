//! A turn's input (`input` of `POST /v1/sessions/{id}/runs` and `POST /v1/runs/{id}/input`):
//! text, or a list of content parts in `lucid::Part`'s own JSON shape —
//! `{"type": "text", "text": …}`, and `{"type": "image" | "document" | "audio",
//! "media_type": …, "data": <base64> | "url": <http(s) URL>, "name"?: …}` (a document is
//! `application/pdf` or `text/plain`). Here it is read (each wrong part a 400 naming it),
//! checked against what the agent's model takes, kept with its run (each attachment once
//! by SHA-256 in the session store's blobs), shown (attachments described, not inlined),
//! and read back for a run continued after its instance was gone.

use lucid::content::{Media, MediaSource, Part, PartKind};
use lucid::model::ChatModel;
use lucid::store::encoding::{self, Blob, MAX_ATTACHMENT_BYTES};
use lucid::{Message, store::StoreError};
use serde_json::Value;

use crate::ApiError;
use crate::body::JsonObject;
use crate::db::{Db, RunInput};

/// The part types a request may send.
const TYPES: &str = "text, image, document, audio";

/// The body of a turn, `{input, stream}`: the input's parts and whether to stream.
pub fn turn(body: &JsonObject) -> Result<(Vec<Part>, bool), ApiError> {
    body.only(&["input", "stream"])?;
    Ok((read(body.0.get("input"))?, body.flag("stream")?))
}

/// Reads `input`: a non-empty string, or a non-empty list of parts. Text is redacted (the
/// input is stored with its run, and no registered secret goes into a history).
fn read(input: Option<&Value>) -> Result<Vec<Part>, ApiError> {
    let redacted = |s: &str| lucid::redact::redact(s).into_owned();
    match input {
        Some(Value::String(s)) if !s.trim().is_empty() => Ok(vec![Part::text(redacted(s))]),
        Some(Value::String(_)) => Err(ApiError::invalid("input", "must not be empty")),
        Some(Value::Array(items)) if !items.is_empty() => {
            items.iter().enumerate().map(|(i, v)| read_part(&format!("input[{i}]"), v, redacted)).collect()
        }
        Some(Value::Array(_)) => Err(ApiError::invalid("input", "must hold at least one part")),
        Some(other) => Err(ApiError::invalid(
            "input",
            &format!("must be a string or a list of content parts, not {}", crate::body::kind(other)),
        )),
        None => Err(ApiError::invalid("input", "required")),
    }
}

fn read_part(at: &str, v: &Value, redacted: impl Fn(&str) -> String) -> Result<Part, ApiError> {
    let field = |name: &str| format!("{at}.{name}");
    let Some(obj) = v.as_object() else {
        return Err(ApiError::invalid(at, &format!("must be a content part, an object with `type` ({TYPES})")));
    };
    let ty = obj.get("type").and_then(Value::as_str).unwrap_or_default();
    let known: &[&str] = match ty {
        "text" => &["type", "text"],
        "image" | "document" | "audio" => &["type", "media_type", "data", "url", "name"],
        _ => return Err(ApiError::invalid(&field("type"), &format!("unknown part type `{ty}` (types: {TYPES})"))),
    };
    if let Some(k) = obj.keys().find(|k| !known.contains(&k.as_str())) {
        return Err(ApiError::invalid(
            &field(k),
            &format!("unknown field of a {ty} part (fields: {})", known.join(", ")),
        ));
    }
    let text = |name: &str| match obj.get(name) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.as_str())),
        Some(_) => Err(ApiError::invalid(&field(name), "must be a string")),
    };
    if ty == "text" {
        let t = text("text")?.ok_or_else(|| ApiError::invalid(&field("text"), "required"))?;
        return Ok(Part::text(redacted(t)));
    }
    let media_type = text("media_type")?.ok_or_else(|| ApiError::invalid(&field("media_type"), "required"))?;
    let fits = match ty {
        "image" => media_type.starts_with("image/"),
        "audio" => media_type.starts_with("audio/"),
        _ => media_type == "application/pdf" || media_type == "text/plain",
    };
    if !fits {
        let want = match ty {
            "image" => "an image/… type",
            "audio" => "an audio/… type",
            _ => "application/pdf or text/plain",
        };
        return Err(ApiError::invalid(&field("media_type"), &format!("`{media_type}` is not {want}")));
    }
    let source = match (text("data")?, text("url")?) {
        (Some(data), None) => {
            // Decoded as the library decodes a data URL; the type is set below.
            let bytes = match Media::from_data_url(&format!("data:x;base64,{data}")).map(|m| m.source) {
                Some(MediaSource::Bytes(b)) => b,
                _ => return Err(ApiError::invalid(&field("data"), "must be standard base64")),
            };
            if bytes.len() > MAX_ATTACHMENT_BYTES {
                return Err(ApiError::invalid(
                    &field("data"),
                    &format!("the attachment is {} bytes, over the cap of {MAX_ATTACHMENT_BYTES} bytes", bytes.len()),
                ));
            }
            if media_type == "text/plain" && std::str::from_utf8(&bytes).is_err() {
                return Err(ApiError::invalid(&field("data"), "a text/plain document must be UTF-8"));
            }
            MediaSource::Bytes(bytes)
        }
        (None, Some(url)) if url.starts_with("https://") || url.starts_with("http://") => {
            MediaSource::Url(url.to_string())
        }
        (None, Some(_)) => return Err(ApiError::invalid(&field("url"), "must be an http(s) URL (bytes go in `data`)")),
        _ => return Err(ApiError::invalid(at, "needs exactly one of `data` (base64) and `url`")),
    };
    let media = Media { media_type: media_type.to_string(), source, name: text("name")?.map(str::to_string) };
    Ok(match ty {
        "image" => Part::Image(media),
        "audio" => Part::Audio(media),
        _ => Part::Document(media),
    })
}

/// Refuses, before any run is made, a part the model does not take: 400 with the
/// library's own message, naming the model and the kind (a run would fail on it the same
/// way, after its message had entered the session's history).
pub fn check_model(model: &dyn ChatModel, parts: &[Part]) -> Result<(), ApiError> {
    if parts.iter().all(|p| p.kind() == PartKind::Text) {
        return Ok(());
    }
    let message = [Message::user_parts(parts.to_vec())];
    lucid::model::catalogue::check_parts(model.provider(), model.model_name(), model.capabilities(), &message)
        .map_err(|e| ApiError::invalid("input", &e.to_string()))
}

/// A message as stored JSON with each inline attachment described by its `sha256` and
/// `size` in place of its bytes, and the bytes as blobs.
pub fn described(m: &Message) -> Result<(Value, Vec<Blob>), StoreError> {
    let (body, blobs) = encoding::encode_with_blobs(m)?;
    let mut v: Value = serde_json::from_str(&body).map_err(|e| StoreError::caused("encode", e))?;
    if let Some(parts) = v["parts"].as_array_mut() {
        for p in parts {
            let size = blobs.iter().find(|b| p["sha256"] == b.sha256.as_str()).map(|b| b.data.len());
            if let (Some(obj), Some(size)) = (p.as_object_mut(), size) {
                obj.insert("size".into(), size.into());
            }
        }
    }
    Ok((v, blobs))
}

/// The input as its run keeps it, and the attachments to keep for it.
pub fn stored(parts: &[Part]) -> Result<RunInput, ApiError> {
    let text = lucid::content::joined_text(parts);
    if parts.iter().all(|p| p.kind() == PartKind::Text) {
        return Ok(RunInput { bytes: text.len() as i64, text, parts: None, blobs: Vec::new() });
    }
    let (message, blobs) =
        described(&Message::user_parts(parts.to_vec())).map_err(|e| ApiError::invalid("input", &e.to_string()))?;
    let body = message.to_string();
    let bytes = text.len() + body.len() + blobs.iter().map(|b| b.data.len()).sum::<usize>();
    Ok(RunInput { text, parts: Some(body), bytes: bytes as i64, blobs })
}

/// The parts of a stored input, its attachments read back by hash.
pub async fn parts(db: &Db, session: &str, input: &RunInput) -> lucid::Result<Vec<Part>> {
    let Some(body) = &input.parts else { return Ok(vec![Part::text(input.text.clone())]) };
    let found = db
        .attachments(encoding::blob_refs(body))
        .await
        .map_err(|e| lucid::Error::Config(format!("reading the run's attachments: {e}")))?;
    let m = encoding::decode_with_blobs("serve", session, 0, body, |h| Ok(found.get(h).map(|d| d.clone().into())))?;
    Ok(m.parts())
}
