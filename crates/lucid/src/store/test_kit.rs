//! The conformance suite every [`SessionStore`] in this crate passes, for stores written
//! outside it (feature `test-kit`).
//!
//! ```no_run
//! # async fn demo() {
//! // In a test of your own store:
//! let store = std::sync::Arc::new(lucid::store::InMemoryStore::new(100));
//! lucid::store::test_kit::suite(store).await; // panics, naming the store, on the first failure
//! # }
//! ```
//!
//! The suite expects an empty store: it creates the sessions `s1`, `s2` and `s3`.

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;

use super::SessionStore;
use crate::history::validate;
use crate::message::{AssistantMessage, Message, Reasoning, ToolCall};

/// The messages of one complete turn `i`: a user question, an assistant tool call with
/// reasoning (signature and verbatim blocks), its result (an error for even `i`), and a
/// non-ASCII answer — everything a store must give back exactly.
pub fn turn(i: usize) -> Vec<Message> {
    vec![
        Message::user(format!("question {i}")),
        Message::Assistant(AssistantMessage {
            content: String::new(),
            tool_calls: vec![ToolCall::new(format!("c{i}"), "add", json!({"a": i, "b": 1}))],
            reasoning: Some(Reasoning {
                text: "think".into(),
                signature: Some("sig".into()),
                blocks: vec![json!({"type": "thinking", "thinking": "think", "signature": "s"})],
            }),
        }),
        Message::tool_result(format!("c{i}"), "add", (i + 1).to_string(), i.is_multiple_of(2)),
        Message::assistant(format!("answer {i} — ünïcode ✓")),
    ]
}

/// Runs the shared behaviour against `store` and panics on the first difference: missing
/// sessions, create (idempotent, metadata kept), metadata merged key by key, append and load in order with counts and
/// titles, replace, listing most recent first with limit and offset, turn locks (a second
/// lock refused with [`crate::store::StoreError::Busy`], per session, free again after unlock or
/// after [`SessionStore::break_lock`]),
/// and delete.
pub async fn suite(store: Arc<dyn SessionStore>) {
    let kind = store.kind();
    assert!(store.load("nope").await.unwrap().is_none(), "{kind}");
    assert!(store.append("nope", &turn(0)).await.is_err(), "{kind}: appending to a missing session fails");

    let info = store.create("s1", json!({"user": "ada"})).await.unwrap();
    assert_eq!((info.id.as_str(), info.message_count, info.title.as_deref()), ("s1", 0, None));
    assert_eq!(info.metadata, json!({"user": "ada"}));
    let again = store.create("s1", json!({"other": true})).await.unwrap();
    assert_eq!(again.metadata, json!({"user": "ada"}), "{kind}: create leaves an existing session alone");

    assert!(store.merge_metadata("nope", json!({"a": 1})).await.is_err(), "{kind}: metadata of a missing session");
    store.merge_metadata("s1", json!({"summaries": [{"text": "ünïcode ✓"}], "tag": "x"})).await.unwrap();
    store.merge_metadata("s1", json!({"tag": null})).await.unwrap();
    let info = store.load("s1").await.unwrap().unwrap().info;
    assert_eq!(
        info.metadata,
        json!({"user": "ada", "summaries": [{"text": "ünïcode ✓"}]}),
        "{kind}: merge_metadata sets and removes top-level keys, keeping the others"
    );

    store.append("s1", &turn(0)).await.unwrap();
    store.append("s1", &turn(1)).await.unwrap();
    let s = store.load("s1").await.unwrap().unwrap();
    let want: Vec<Message> = turn(0).into_iter().chain(turn(1)).collect();
    assert_eq!(s.messages, want, "{kind}: messages round-trip in order");
    assert_eq!(s.info.message_count, 8);
    assert_eq!(s.info.title.as_deref(), Some("question 0"));
    assert!(s.info.updated_at >= s.info.created_at);
    assert!(validate(&s.messages).is_ok());

    store.replace("s1", &turn(7)).await.unwrap();
    let s = store.load("s1").await.unwrap().unwrap();
    assert_eq!((s.messages.clone(), s.info.message_count), (turn(7), 4), "{kind}: replace");
    store.append("s1", &turn(8)).await.unwrap();
    assert_eq!(store.load("s1").await.unwrap().unwrap().messages.len(), 8, "{kind}: append after replace");

    for id in ["s2", "s3"] {
        store.create(id, json!({})).await.unwrap();
        tokio::time::sleep(Duration::from_millis(3)).await;
        store.append(id, &turn(2)).await.unwrap();
    }
    let ids: Vec<String> = store.list(10, 0).await.unwrap().into_iter().map(|i| i.id).collect();
    assert_eq!(ids, ["s3", "s2", "s1"], "{kind}: most recently updated first");
    let page: Vec<String> = store.list(1, 1).await.unwrap().into_iter().map(|i| i.id).collect();
    assert_eq!(page, ["s2"], "{kind}: limit and offset");

    let lock = store.lock("s1", Duration::from_secs(60)).await.unwrap();
    match store.lock("s1", Duration::from_secs(60)).await {
        Err(crate::store::StoreError::Busy { id, .. }) => assert_eq!(id, "s1"),
        other => panic!("{kind}: a second turn must be refused, got {other:?}"),
    }
    store.lock("s2", Duration::from_secs(60)).await.expect("locks are per session");
    store.unlock(&lock).await.unwrap();
    let relock = store.lock("s1", Duration::from_secs(60)).await.unwrap();
    store.unlock(&relock).await.unwrap();

    let _held = store.lock("s1", Duration::from_secs(60)).await.unwrap();
    assert!(store.break_lock("s1").await.unwrap(), "{kind}: break_lock removes a held lock");
    assert!(!store.break_lock("s1").await.unwrap(), "{kind}: break_lock reports there was none");
    let taken = store.lock("s1", Duration::from_secs(60)).await.expect("a broken lock can be taken at once");
    store.unlock(&taken).await.unwrap();

    assert!(store.delete("s3").await.unwrap());
    assert!(!store.delete("s3").await.unwrap());
    assert!(store.load("s3").await.unwrap().is_none());
    assert_eq!(store.list(10, 0).await.unwrap().len(), 2);
}

/// Attachments (an image in a user message, the same image and a PDF in a tool result)
/// come back byte for byte, in two sessions sharing the image; deleting one leaves the
/// other whole. Creates the sessions `a1` and `a2` and deletes `a1`.
pub async fn attachments(store: Arc<dyn SessionStore>) {
    use crate::content::{Media, Part};
    use crate::message::ToolResult;
    let kind = store.kind();
    let image = Part::image_bytes("image/png", b"\x89PNG\r\n\x1a\n-an-image-".to_vec());
    let pdf = Part::Document(Media::bytes("application/pdf", b"%PDF-1.4 doc".to_vec()).named("a.pdf"));
    let messages = vec![
        Message::user_parts(vec![Part::text("what is this?"), image.clone()]),
        Message::Assistant(AssistantMessage {
            tool_calls: vec![ToolCall::new("c1", "look", json!({}))],
            ..Default::default()
        }),
        Message::Tool(ToolResult::with_parts("c1", "look", vec![Part::text("seen"), image.clone(), pdf])),
        Message::assistant("a picture"),
        Message::user_parts(vec![Part::text("and this URL?"), Part::image_url("https://example.com/a.png")]),
    ];
    for id in ["a1", "a2"] {
        store.create(id, json!({})).await.unwrap();
        store.append(id, &messages).await.unwrap();
    }
    assert_eq!(store.load("a1").await.unwrap().unwrap().messages, messages, "{kind}: attachments come back");
    assert!(store.delete("a1").await.unwrap());
    assert_eq!(store.load("a2").await.unwrap().unwrap().messages, messages, "{kind}: a shared attachment stays");
    store.replace("a2", &messages[..2]).await.unwrap();
    assert_eq!(store.load("a2").await.unwrap().unwrap().messages, &messages[..2], "{kind}: replace keeps attachments");
}
