//! Messages as stored: one JSON document per message, the same in every store.

use crate::error::{Error, Result};
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
    serde_json::to_string(m).map_err(|e| Error::Store { store: "encode", message: e.to_string() })
}

/// A stored message back; `store` names the store in the error.
pub fn decode_message(store: &'static str, body: &str) -> Result<Message> {
    serde_json::from_str(body)
        .map_err(|e| Error::Store { store, message: format!("a stored message is unreadable: {e}") })
}
