//! Cassettes: a case's HTTP exchanges with the model, recorded once against a real
//! provider and replayed offline, deterministically, afterwards (what CI runs).
//!
//! A [`CassetteServer`] on loopback stands between the agent and its provider: the agent's
//! base URL points at one of its tapes (one per case attempt). Recording, it forwards each
//! request to the real base URL and keeps the exchange; replaying, it answers each request
//! with the recorded response, after checking the request is the one recorded (method,
//! path and JSON body). A request that differs is not answered: the tape says where it
//! differs, and the case is reported as a cassette mismatch.
//!
//! A cassette file keeps no header and no key: only the path (query parameters that carry
//! keys removed), the request's JSON body and the response's status, content type and body.

mod server;
mod tape;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use server::{CassetteServer, Mode, TapeResult};

/// The version of the cassette file's shape.
pub const CASSETTE_FORMAT: u32 = 1;

/// One HTTP exchange with the model, as kept (redacted: no headers).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Exchange {
    /// The method (`POST`).
    pub method: String,
    /// The path below the provider's base URL (`/chat/completions`), with its query less
    /// any key.
    pub path: String,
    /// The request's body: JSON, or the text as a JSON string when it is not JSON.
    pub request: Value,
    /// The response's status.
    pub status: u16,
    /// The response's content type (`application/json`, `text/event-stream`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_type: Option<String>,
    /// The response's body, as text (a stream's events as they came).
    pub response: String,
}

/// A cassette file: one case attempt's exchanges.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Cassette {
    /// [`CASSETTE_FORMAT`].
    pub format: u32,
    /// The case's name.
    pub case: String,
    /// The attempt, from 0.
    pub repeat: u32,
    /// The exchanges, in order.
    pub exchanges: Vec<Exchange>,
}

/// A cassette that could not be read or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CassetteError {
    /// Replaying a case that has no recording.
    #[error("no cassette for case `{case}` attempt {repeat} ({file}): record it first (`lucid eval run --record`)")]
    Missing {
        /// The case.
        case: String,
        /// The attempt.
        repeat: u32,
        /// The file looked for.
        file: String,
    },
    /// The file could not be read or written.
    #[error("{file}: {source}")]
    Io {
        /// The file.
        file: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The file is not a cassette.
    #[error("{file}: not a cassette: {message}")]
    Invalid {
        /// The file.
        file: String,
        /// What is wrong.
        message: String,
    },
    /// The loopback server could not start.
    #[error("the cassette server could not start: {0}")]
    Server(std::io::Error),
}

/// The file that keeps a case attempt's cassette in `dir`: the case's name made safe for
/// a file name, and the attempt.
///
/// ```
/// let f = lucid_eval::cassette::file_for(std::path::Path::new("tapes"), "What's 2 + 2?", 1);
/// assert_eq!(f, std::path::Path::new("tapes/what-s-2-2.1.json"));
/// ```
pub fn file_for(dir: &Path, case: &str, repeat: u32) -> PathBuf {
    let mut slug = String::new();
    for c in case.chars() {
        if c.is_ascii_alphanumeric() {
            slug.push(c.to_ascii_lowercase());
        } else if !slug.ends_with('-') {
            slug.push('-');
        }
    }
    let slug = slug.trim_matches('-');
    let slug = if slug.is_empty() { "case" } else { slug };
    // Long names are cut; file systems allow 255 bytes.
    let slug: String = slug.chars().take(120).collect();
    dir.join(format!("{slug}.{repeat}.json"))
}

impl Cassette {
    /// Reads the cassette of a case attempt from `dir`.
    pub fn load(dir: &Path, case: &str, repeat: u32) -> Result<Cassette, CassetteError> {
        let path = file_for(dir, case, repeat);
        let file = path.display().to_string();
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(CassetteError::Missing { case: case.to_string(), repeat, file });
            }
            Err(source) => return Err(CassetteError::Io { file, source }),
        };
        let invalid = |message: String| CassetteError::Invalid { file: file.clone(), message };
        let cassette: Cassette = serde_json::from_str(&text).map_err(|e| invalid(e.to_string()))?;
        if cassette.format != CASSETTE_FORMAT {
            return Err(invalid(format!("format {}; this Lucid reads format {CASSETTE_FORMAT}", cassette.format)));
        }
        if cassette.case != case || cassette.repeat != repeat {
            return Err(invalid(format!(
                "it holds case `{}` attempt {}, not case `{case}` attempt {repeat} (two case names share a file name?)",
                cassette.case, cassette.repeat
            )));
        }
        Ok(cassette)
    }

    /// Writes the cassette into `dir` (created if missing).
    pub fn save(&self, dir: &Path) -> Result<PathBuf, CassetteError> {
        let path = file_for(dir, &self.case, self.repeat);
        let io = |source| CassetteError::Io { file: path.display().to_string(), source };
        std::fs::create_dir_all(dir).map_err(io)?;
        let text = serde_json::to_string_pretty(self).expect("a cassette is plain data");
        std::fs::write(&path, text + "\n").map_err(io)?;
        Ok(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cassette_round_trips_and_a_foreign_one_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let c = Cassette {
            format: CASSETTE_FORMAT,
            case: "Case A".into(),
            repeat: 0,
            exchanges: vec![Exchange {
                method: "POST".into(),
                path: "/chat/completions".into(),
                request: serde_json::json!({"model": "m"}),
                status: 200,
                content_type: Some("application/json".into()),
                response: "{}".into(),
            }],
        };
        c.save(dir.path()).unwrap();
        assert_eq!(Cassette::load(dir.path(), "Case A", 0).unwrap(), c);
        // "case a" makes the same file name: the file says whose it is.
        let e = Cassette::load(dir.path(), "case a", 0).unwrap_err();
        assert!(e.to_string().contains("not case `case a`"), "{e}");
        let e = Cassette::load(dir.path(), "Case A", 1).unwrap_err();
        assert!(matches!(e, CassetteError::Missing { .. }), "{e}");
        std::fs::write(file_for(dir.path(), "bad", 0), "{\"format\": 1}").unwrap();
        let e = Cassette::load(dir.path(), "bad", 0).unwrap_err();
        assert!(e.to_string().starts_with(&format!("{}", file_for(dir.path(), "bad", 0).display())), "{e}");
    }
}
