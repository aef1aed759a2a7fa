//! Messages as stored: one JSON document per message, the same in every store.

use super::error::{Result, StoreError};
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
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub(crate) fn checked_count(store: &'static str, info: &mut super::SessionInfo, messages: &[Message]) {
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
