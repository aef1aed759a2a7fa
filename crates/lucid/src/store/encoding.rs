//! Messages as stored: one JSON document per message, the same in every store.

use base64::Engine as _;
use serde_json::Value;

use super::error::{Result, StoreError};
use crate::content::MediaSource;
use crate::message::Message;

/// A message as the JSON text a store keeps.
///
/// ```
/// use lucid::store::encoding::{decode_message, encode_message};
/// let m = lucid::Message::user("hi");
/// assert_eq!(decode_message("example", &encode_message(&m)?)?, m);
/// # Ok::<(), lucid::Error>(())
/// ```
pub fn encode_message(m: &Message) -> Result<String> {
    serde_json::to_string(m).map_err(|e| StoreError::caused("encode", e))
}

/// A stored message back; `store` names the store in the error.
pub fn decode_message(store: &'static str, body: &str) -> Result<Message> {
    serde_json::from_str(body).map_err(|e| StoreError::Failed {
        store,
        message: format!("a stored message is unreadable: {e}"),
        source: Some(Box::new(e)),
    })
}

/// Message `position` (0-based) of session `session` back from its stored JSON; an
/// unreadable one is an error naming both, so a corrupted row can be found and repaired.
pub fn decode_stored(store: &'static str, session: &str, position: usize, body: &str) -> Result<Message> {
    serde_json::from_str(body).map_err(|e| StoreError::Failed {
        store,
        message: format!("session `{session}`: stored message {} is unreadable: {e}", position + 1),
        source: Some(Box::new(e)),
    })
}

/// A stored message count as a length: a negative value (a corrupted row) reads as 0.
/// Stores never size anything from it; loading derives the count from the rows.
///
/// ```
/// assert_eq!(lucid::store::encoding::stored_count(-5), 0);
/// assert_eq!(lucid::store::encoding::stored_count(12), 12);
/// ```
pub fn stored_count(n: i64) -> usize {
    usize::try_from(n).unwrap_or(0)
}

/// Sets a loaded session's count to the messages found, noting (at `warn`) a stored
/// count that disagreed.
pub fn checked_count(store: &'static str, info: &mut super::SessionInfo, messages: &[Message]) {
    if info.message_count != messages.len() {
        tracing::warn!(
            store,
            session = %info.id,
            stored = info.message_count,
            found = messages.len(),
            "the stored message count disagrees with the rows; using the rows"
        );
        info.message_count = messages.len();
    }
}

/// The largest attachment (one image, document or audio part) a store keeps: 20 MiB,
/// above what providers take inline (Anthropic 5 MB an image, 32 MB a request; OpenAI
/// 20 MB; Gemini 20 MB a request).
pub const MAX_ATTACHMENT_BYTES: usize = 20 << 20;

/// An arbitrary constant naming the PostgreSQL advisory lock between writers of
/// attachments (taken shared, in the writing transaction) and the deletion of those no
/// session refers to (exclusive), so a blob a writer is about to refer to is never deleted
/// under it. A writer outside `PostgresStore` that puts
/// blobs in `lucid_blobs` (as `lucid serve` does for a run's input) takes it too.
pub const POSTGRES_BLOB_LOCK: i64 = 0x6c75_6369_6400_0002;

/// An attachment's bytes, stored once under the SHA-256 of its content.
#[derive(Debug, Clone, PartialEq)]
pub struct Blob {
    /// Lower-case hex SHA-256 of `data`.
    pub sha256: String,
    /// The media type it was attached with.
    pub media_type: String,
    /// The content.
    pub data: bytes::Bytes,
}

/// A message as stored JSON with its attachments' bytes taken out: each inline part keeps
/// `sha256` instead of `data`, and the bytes come back as [`Blob`]s to store once by hash.
/// An attachment over [`MAX_ATTACHMENT_BYTES`] is an error naming its size and the cap.
///
/// ```
/// use lucid::{Message, Part};
/// use lucid::store::encoding::{decode_with_blobs, encode_with_blobs};
/// let m = Message::user_parts(vec![Part::text("see"), Part::image_bytes("image/png", b"\x89PNG....".to_vec())]);
/// let (body, blobs) = encode_with_blobs(&m)?;
/// assert!(!body.contains("\"data\"") && body.contains(&blobs[0].sha256));
/// let back = decode_with_blobs("example", "s", 0, &body, |h| Ok(blobs.iter().find(|b| b.sha256 == h).map(|b| b.data.clone())))?;
/// assert_eq!(back, m);
/// # Ok::<(), lucid::Error>(())
/// ```
pub fn encode_with_blobs(m: &Message) -> Result<(String, Vec<Blob>)> {
    let parts = match m {
        Message::User { parts, .. } => parts,
        Message::Tool(t) => &t.parts,
        _ => return Ok((encode_message(m)?, Vec::new())),
    };
    if parts.iter().all(|p| !matches!(p.media().map(|m| &m.source), Some(MediaSource::Bytes(_)))) {
        return Ok((encode_message(m)?, Vec::new()));
    }
    let mut v = serde_json::to_value(m).map_err(|e| StoreError::caused("encode", e))?;
    let mut blobs = Vec::new();
    for (i, p) in parts.iter().enumerate() {
        let Some(media) = p.media() else { continue };
        let MediaSource::Bytes(data) = &media.source else { continue };
        if data.len() > MAX_ATTACHMENT_BYTES {
            return Err(StoreError::failed(
                "encode",
                format!(
                    "an attachment ({}, {} bytes) is over the session store's cap of {} bytes per attachment",
                    media.media_type,
                    data.len(),
                    MAX_ATTACHMENT_BYTES
                ),
            ));
        }
        let sha256 = hex_sha256(data);
        if let Some(obj) = v["parts"][i].as_object_mut() {
            obj.remove("data");
            obj.insert("sha256".into(), Value::String(sha256.clone()));
        }
        if !blobs.iter().any(|b: &Blob| b.sha256 == sha256) {
            blobs.push(Blob { sha256, media_type: media.media_type.clone(), data: data.clone() });
        }
    }
    Ok((v.to_string(), blobs))
}

/// The hashes a stored message body refers to (empty for a message without attachments).
pub fn blob_refs(body: &str) -> Vec<String> {
    if !body.contains("\"sha256\"") {
        return Vec::new();
    }
    let Ok(v) = serde_json::from_str::<Value>(body) else { return Vec::new() };
    v["parts"]
        .as_array()
        .map_or(&[][..], Vec::as_slice)
        .iter()
        .filter_map(|p| p["sha256"].as_str().map(str::to_string))
        .collect()
}

/// A stored message back, its attachments' bytes fetched by hash with `fetch`; a missing
/// blob is an error naming the session, the message and the hash.
pub fn decode_with_blobs(
    store: &'static str,
    session: &str,
    position: usize,
    body: &str,
    mut fetch: impl FnMut(&str) -> Result<Option<bytes::Bytes>>,
) -> Result<Message> {
    if !body.contains("\"sha256\"") {
        return decode_stored(store, session, position, body);
    }
    let mut v: Value = serde_json::from_str(body).map_err(|e| StoreError::Failed {
        store,
        message: format!("session `{session}`: stored message {} is unreadable: {e}", position + 1),
        source: Some(Box::new(e)),
    })?;
    if let Some(parts) = v["parts"].as_array_mut() {
        for p in parts {
            let Some(obj) = p.as_object_mut() else { continue };
            let Some(Value::String(hash)) = obj.remove("sha256") else { continue };
            let data = fetch(&hash)?.ok_or_else(|| {
                StoreError::failed(
                    store,
                    format!(
                        "session `{session}`: stored message {} refers to a missing attachment {hash}",
                        position + 1
                    ),
                )
            })?;
            obj.insert("data".into(), Value::String(base64::engine::general_purpose::STANDARD.encode(&data)));
        }
    }
    serde_json::from_value(v).map_err(|e| StoreError::Failed {
        store,
        message: format!("session `{session}`: stored message {} is unreadable: {e}", position + 1),
        source: Some(Box::new(e)),
    })
}

/// Lower-case hex SHA-256.
///
/// ```
/// let h = lucid::store::encoding::hex_sha256(b"abc");
/// assert_eq!(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
/// ```
pub fn hex_sha256(data: &[u8]) -> String {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(data);
    digest.iter().map(|b| format!("{b:02x}")).collect()
}
