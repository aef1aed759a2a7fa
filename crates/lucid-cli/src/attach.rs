//! Attachments: `lucid run --attach FILE`, `/attach FILE` in `lucid chat` and the
//! `attachments` of an `--input` request become content parts, their kind sniffed from the
//! bytes (PNG, JPEG, GIF, WebP, PDF, WAV, MP3; otherwise UTF-8 text), not the extension.

use std::path::Path;

use lucid::Part;
use lucid::content::Media;
use serde_json::Value;

use crate::config::ConfigError;

/// The largest file attached: 20 MiB (what sessions store, above what providers take).
const MAX_FILE: u64 = lucid::store::encoding::MAX_ATTACHMENT_BYTES as u64;

/// A file as a part. A file that is not a known image, PDF or audio format, nor UTF-8
/// text, or over the size cap, is refused with its name and the reason.
pub fn load(path: &Path) -> Result<Part, ConfigError> {
    let size =
        std::fs::metadata(path).map_err(|e| ConfigError(format!("cannot attach {}: {e}", path.display())))?.len();
    if size > MAX_FILE {
        return Err(ConfigError(format!(
            "cannot attach {}: {size} bytes is over the cap of {MAX_FILE}",
            path.display()
        )));
    }
    let data = std::fs::read(path).map_err(|e| ConfigError(format!("cannot attach {}: {e}", path.display())))?;
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
    Part::from_file_bytes(data, name.as_deref()).ok_or_else(|| {
        ConfigError(format!(
            "cannot attach {}: it is neither an image (PNG, JPEG, GIF, WebP), a PDF, audio (WAV, MP3) nor UTF-8 text",
            path.display()
        ))
    })
}

/// Parts of a message: its text first, then the attachments.
pub fn message_parts(text: String, attachments: Vec<Part>) -> Vec<Part> {
    let mut parts = Vec::with_capacity(attachments.len() + 1);
    if !text.is_empty() {
        parts.push(Part::text(text));
    }
    parts.extend(attachments);
    parts
}

/// One entry of a request's `attachments`: `{"path": FILE}`, `{"url": "https://…"}` (an
/// image), or `{"mediaType": "image/png", "data": BASE64, "name": …}`; an error names the
/// field (`attachments[1].data`) and says what is wrong.
pub fn from_request(i: usize, v: &Value) -> Result<Part, (String, String)> {
    let field = |k: &str| format!("attachments[{i}]{}{k}", if k.is_empty() { "" } else { "." });
    let Value::Object(o) = v else { return Err(bad(field(""), "must be an object")) };
    if let Some(unknown) = o.keys().find(|k| !matches!(k.as_str(), "path" | "url" | "mediaType" | "data" | "name")) {
        return Err(bad(field(unknown), "is not an attachment field (path, url, mediaType, data, name)"));
    }
    let text = |k: &str| match o.get(k) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(bad(field(k), "must be a string")),
    };
    match (text("path")?, text("url")?, text("data")?) {
        (Some(path), None, None) => load(Path::new(&path)).map_err(|e| bad(field("path"), e.0)),
        (None, Some(url), None) if url.starts_with("https://") || url.starts_with("http://") => {
            Ok(Part::image_url(url))
        }
        (None, Some(_), None) => Err(bad(field("url"), "must be an http(s) URL")),
        (None, None, Some(data)) => {
            let bytes = Media::from_data_url(&format!("data:application/octet-stream;base64,{data}"))
                .and_then(|m| match m.source {
                    lucid::content::MediaSource::Bytes(b) => Some(b),
                    _ => None,
                })
                .ok_or_else(|| bad(field("data"), "is not base64"))?;
            let sniffed = Part::from_file_bytes(bytes.clone(), None);
            let media_type = match text("mediaType")? {
                Some(t) => t,
                None => sniffed
                    .as_ref()
                    .and_then(|p| p.media())
                    .map(|m| m.media_type.clone())
                    .ok_or_else(|| bad(field("mediaType"), "is missing and the data is no known format"))?,
            };
            let media = Media { name: text("name")?, ..Media::bytes(media_type.clone(), bytes) };
            Ok(match media_type.split('/').next() {
                Some("image") => Part::Image(media),
                Some("audio") => Part::Audio(media),
                _ => Part::Document(media),
            })
        }
        _ => Err(bad(field(""), "needs exactly one of `path`, `url` and `data`")),
    }
}

/// A request error: the field and the message.
fn bad(field: impl Into<String>, message: impl Into<String>) -> (String, String) {
    (field.into(), message.into())
}
