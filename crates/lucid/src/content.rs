//! Content parts: the text, images, documents and audio a user message or a tool result
//! carries.
//!
//! A message that is only text keeps its plain `content` string (and serializes exactly as
//! before parts existed). A message with attachments lists its whole content, in order, as
//! [`Part`]s; each codec maps them to its provider's wire shape (`image_url`, `input_image`,
//! `image`/`document` blocks, `inlineData`, …).
//!
//! ```
//! use lucid::{Message, Part};
//! let png = b"\x89PNG\r\n\x1a\n....".to_vec();
//! let m = Message::user_parts(vec![Part::text("What is in this picture?"), Part::image_bytes("image/png", png)]);
//! assert_eq!(m.text(), "What is in this picture?");
//! assert_eq!(m.parts().len(), 2);
//! ```

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;
use bytes::Bytes;
use serde::{Deserialize, Serialize};

/// One piece of a message's content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Part {
    /// Text.
    Text {
        /// The text.
        text: String,
    },
    /// An image (PNG, JPEG, GIF, WebP).
    Image(Media),
    /// A document: a PDF (`application/pdf`) or plain text (`text/plain`).
    Document(Media),
    /// Audio (WAV, MP3).
    Audio(Media),
}

/// What kind of content a part is, as capabilities and errors name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum PartKind {
    /// Text.
    Text,
    /// An image.
    Image,
    /// A PDF document.
    Pdf,
    /// A plain-text document.
    TextDocument,
    /// Audio.
    Audio,
}

impl PartKind {
    /// The name used in errors and settings: `text`, `image`, `pdf`, `text_document`, `audio`.
    pub fn as_str(self) -> &'static str {
        match self {
            PartKind::Text => "text",
            PartKind::Image => "image",
            PartKind::Pdf => "pdf",
            PartKind::TextDocument => "text_document",
            PartKind::Audio => "audio",
        }
    }
}

impl std::fmt::Display for PartKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Binary content with its media type: inline bytes or a URL the provider fetches.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "MediaWire", into = "MediaWire")]
pub struct Media {
    /// The IANA media type (`image/png`, `application/pdf`, `audio/wav`, …).
    pub media_type: String,
    /// Where the content is.
    pub source: MediaSource,
    /// A file name, when one is known (sent where a provider takes one: `filename`).
    pub name: Option<String>,
}

/// Where a [`Media`]'s content is.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum MediaSource {
    /// The content itself (sent base64-encoded).
    Bytes(Bytes),
    /// An `http(s)` URL the provider fetches.
    Url(String),
}

/// The serialized form of a [`Media`]: `data` (base64) or `url`.
#[derive(Serialize, Deserialize)]
struct MediaWire {
    media_type: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    data: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    name: Option<String>,
}

impl TryFrom<MediaWire> for Media {
    type Error = String;
    fn try_from(w: MediaWire) -> Result<Self, String> {
        let source = match (w.data, w.url) {
            (Some(d), None) => {
                MediaSource::Bytes(B64.decode(d.as_bytes()).map_err(|e| format!("bad base64 in `data`: {e}"))?.into())
            }
            (None, Some(u)) => MediaSource::Url(u),
            _ => return Err("a media part needs exactly one of `data` and `url`".into()),
        };
        Ok(Media { media_type: w.media_type, source, name: w.name })
    }
}

impl From<Media> for MediaWire {
    fn from(m: Media) -> Self {
        let (data, url) = match m.source {
            MediaSource::Bytes(b) => (Some(B64.encode(&b)), None),
            MediaSource::Url(u) => (None, Some(u)),
        };
        MediaWire { media_type: m.media_type, data, url, name: m.name }
    }
}

impl Media {
    /// Inline bytes of this media type.
    pub fn bytes(media_type: impl Into<String>, data: impl Into<Bytes>) -> Self {
        Media { media_type: media_type.into(), source: MediaSource::Bytes(data.into()), name: None }
    }

    /// The content as base64 (empty for a URL).
    pub fn base64(&self) -> String {
        match &self.source {
            MediaSource::Bytes(b) => B64.encode(b),
            MediaSource::Url(_) => String::new(),
        }
    }

    /// A `data:` URL of inline bytes, or the URL itself.
    ///
    /// ```
    /// let m = lucid::content::Media::bytes("image/png", vec![1u8, 2, 3]);
    /// assert_eq!(m.data_url(), "data:image/png;base64,AQID");
    /// ```
    pub fn data_url(&self) -> String {
        match &self.source {
            MediaSource::Bytes(b) => format!("data:{};base64,{}", self.media_type, B64.encode(b)),
            MediaSource::Url(u) => u.clone(),
        }
    }

    /// The size of inline bytes (0 for a URL).
    pub fn len(&self) -> usize {
        match &self.source {
            MediaSource::Bytes(b) => b.len(),
            MediaSource::Url(_) => 0,
        }
    }

    /// True when there are no inline bytes (a URL, or an empty file).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// With a file name.
    pub fn named(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }
}

impl Part {
    /// A text part.
    pub fn text(text: impl Into<String>) -> Self {
        Part::Text { text: text.into() }
    }

    /// An image from its bytes.
    pub fn image_bytes(media_type: impl Into<String>, data: impl Into<Bytes>) -> Self {
        Part::Image(Media::bytes(media_type, data))
    }

    /// An image the provider fetches from a URL (or a `data:` URL, decoded here).
    ///
    /// ```
    /// use lucid::Part;
    /// assert_eq!(Part::image_url("data:image/png;base64,AQID"), Part::image_bytes("image/png", vec![1u8, 2, 3]));
    /// ```
    pub fn image_url(url: impl Into<String>) -> Self {
        let url = url.into();
        if let Some(media) = Media::from_data_url(&url) {
            return Part::Image(media);
        }
        let media_type = media_type_of_name(&url).unwrap_or("image/jpeg");
        Part::Image(Media { media_type: media_type.into(), source: MediaSource::Url(url), name: None })
    }

    /// A PDF document from its bytes.
    pub fn pdf(data: impl Into<Bytes>) -> Self {
        Part::Document(Media::bytes("application/pdf", data))
    }

    /// A plain-text document (sent as a document where the provider has one, else as text).
    pub fn text_document(text: impl Into<String>, name: Option<String>) -> Self {
        Part::Document(Media { name, ..Media::bytes("text/plain", text.into()) })
    }

    /// Audio from its bytes (`audio/wav`, `audio/mpeg`).
    pub fn audio_bytes(media_type: impl Into<String>, data: impl Into<Bytes>) -> Self {
        Part::Audio(Media::bytes(media_type, data))
    }

    /// A part from a file's bytes, its kind sniffed from the content (magic bytes), never
    /// from the name (kept as the part's name). `None` when the content is neither a known
    /// binary format nor UTF-8 text.
    ///
    /// ```
    /// use lucid::{Part, content::PartKind};
    /// let p = Part::from_file_bytes(b"%PDF-1.7\n...".to_vec(), Some("report.bin")).unwrap();
    /// assert_eq!(p.kind(), PartKind::Pdf);
    /// let t = Part::from_file_bytes(b"plain words".to_vec(), Some("notes.png")).unwrap();
    /// assert_eq!(t.kind(), PartKind::TextDocument);
    /// ```
    pub fn from_file_bytes(data: impl Into<Bytes>, name: Option<&str>) -> Option<Self> {
        let data: Bytes = data.into();
        let name = name.map(str::to_string);
        let media = |mt: &str, data: Bytes| Media {
            media_type: mt.into(),
            source: MediaSource::Bytes(data),
            name: name.clone(),
        };
        Some(match sniff(&data) {
            Some(mt) if mt.starts_with("image/") => Part::Image(media(mt, data)),
            Some(mt) if mt.starts_with("audio/") => Part::Audio(media(mt, data)),
            Some(mt) => Part::Document(media(mt, data)),
            // Text: UTF-8 without NUL bytes (which no text file holds).
            None if !data.contains(&0) && std::str::from_utf8(&data).is_ok() => {
                Part::Document(media("text/plain", data))
            }
            None => return None,
        })
    }

    /// The kind of this part.
    pub fn kind(&self) -> PartKind {
        match self {
            Part::Text { .. } => PartKind::Text,
            Part::Image(_) => PartKind::Image,
            Part::Document(m) if m.media_type == "application/pdf" => PartKind::Pdf,
            Part::Document(_) => PartKind::TextDocument,
            Part::Audio(_) => PartKind::Audio,
        }
    }

    /// The media of a non-text part.
    pub fn media(&self) -> Option<&Media> {
        match self {
            Part::Text { .. } => None,
            Part::Image(m) | Part::Document(m) | Part::Audio(m) => Some(m),
        }
    }

    /// The text of a text part, or of a plain-text document.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Part::Text { text } => Some(text),
            Part::Document(Media { media_type, source: MediaSource::Bytes(b), .. })
                if media_type.starts_with("text/") =>
            {
                std::str::from_utf8(b).ok()
            }
            _ => None,
        }
    }

    /// A one-line description of a non-text part for logs and for providers that cannot
    /// take it (`[image: image/png, 1024 bytes]`); a text part's text.
    pub fn describe(&self) -> String {
        match self {
            Part::Text { text } => text.clone(),
            Part::Image(m) | Part::Document(m) | Part::Audio(m) => {
                let what = match self.kind() {
                    PartKind::Image => "image",
                    PartKind::Audio => "audio",
                    _ => "document",
                };
                let name = m.name.as_deref().map(|n| format!(" {n}")).unwrap_or_default();
                match &m.source {
                    MediaSource::Bytes(b) => format!("[{what}{name}: {}, {} bytes]", m.media_type, b.len()),
                    MediaSource::Url(u) => format!("[{what}{name}: {}, {u}]", m.media_type),
                }
            }
        }
    }
}

impl Media {
    /// Decodes a `data:<type>;base64,<data>` URL.
    ///
    /// ```
    /// let m = lucid::content::Media::from_data_url("data:image/gif;base64,R0lG").unwrap();
    /// assert_eq!((m.media_type.as_str(), m.len()), ("image/gif", 3));
    /// ```
    pub fn from_data_url(url: &str) -> Option<Self> {
        let rest = url.strip_prefix("data:")?;
        let (head, data) = rest.split_once(',')?;
        let media_type = head.strip_suffix(";base64")?;
        let bytes = B64.decode(data.trim().as_bytes()).ok()?;
        Some(Media::bytes(if media_type.is_empty() { "application/octet-stream" } else { media_type }, bytes))
    }
}

/// The text of parts joined: what [`crate::Message::text`] reads of a message with parts.
pub fn joined_text(parts: &[Part]) -> String {
    let texts: Vec<&str> = parts
        .iter()
        .filter_map(|p| match p {
            Part::Text { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    texts.join("\n")
}

/// The media type of content, from its first bytes: PNG, JPEG, GIF, WebP, PDF, WAV, MP3.
///
/// ```
/// assert_eq!(lucid::content::sniff(b"\x89PNG\r\n\x1a\n\0\0"), Some("image/png"));
/// assert_eq!(lucid::content::sniff(b"hello"), None);
/// ```
pub fn sniff(data: &[u8]) -> Option<&'static str> {
    let starts = |p: &[u8]| data.starts_with(p);
    if starts(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if starts(&[0xFF, 0xD8, 0xFF]) {
        Some("image/jpeg")
    } else if starts(b"GIF87a") || starts(b"GIF89a") {
        Some("image/gif")
    } else if data.len() >= 12 && starts(b"RIFF") && &data[8..12] == b"WEBP" {
        Some("image/webp")
    } else if data.len() >= 12 && starts(b"RIFF") && &data[8..12] == b"WAVE" {
        Some("audio/wav")
    } else if starts(b"%PDF-") {
        Some("application/pdf")
    } else if starts(b"ID3") || (data.len() >= 2 && data[0] == 0xFF && data[1] & 0xE0 == 0xE0) {
        Some("audio/mpeg")
    } else {
        None
    }
}

/// A media type guessed from a file name or URL's extension (for URLs only: files are
/// sniffed by content).
fn media_type_of_name(name: &str) -> Option<&'static str> {
    let path = name.split(['?', '#']).next().unwrap_or(name);
    let ext = path.rsplit_once('.')?.1.to_ascii_lowercase();
    Some(match ext.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "pdf" => "application/pdf",
        _ => return None,
    })
}
