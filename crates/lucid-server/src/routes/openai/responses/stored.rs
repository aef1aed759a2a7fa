//! Responses kept with `store: true`: each is a conversation in the server's session
//! store (SQLite or PostgreSQL, the database the sessions use) under the response's id,
//! its messages the whole conversation up to and with the response, its metadata the
//! tenant it belongs to and the response object as it was answered. Another tenant's id
//! is not found, like an id that never was. An `item_reference` in a request's input
//! names an item of one of them (as clients send the items of stored responses back).

use std::collections::HashMap;

use axum::http::StatusCode;
use lucid::Message;
use serde_json::{Value, json};

use crate::{ApiError, AppState, Tenant};

/// The metadata key a stored response keeps its tenant and object under.
const KEY: &str = "lucid_response";

/// A stored response: the object answered, and the conversation to continue from.
pub struct Stored {
    pub response: Value,
    pub messages: Vec<Message>,
}

/// The tenant's stored response `id`, or 404.
pub async fn load(server: &AppState, tenant: &Tenant, id: &str) -> Result<Stored, ApiError> {
    let not_found = || ApiError::not_found("response", id);
    if !id.starts_with("resp_") {
        return Err(not_found());
    }
    let session = server.store.load(id).await?.ok_or_else(not_found)?;
    let kept = &session.info.metadata[KEY];
    if kept["tenant"].as_str() != Some(tenant.0.as_str()) {
        return Err(not_found());
    }
    Ok(Stored { response: kept["response"].clone(), messages: session.messages })
}

/// Keeps `response` (its `id` the key) with the conversation `messages` for `tenant`,
/// within the tenant's quota of stored bytes, and counts them in it (the server's
/// `serve_responses` table) until it is deleted.
pub async fn save(server: &AppState, tenant: &Tenant, response: &Value, messages: &[Message]) -> Result<(), ApiError> {
    let id = response["id"].as_str().unwrap_or_default();
    let history: Vec<Message> = messages.iter().filter(|m| !matches!(m, Message::System { .. })).cloned().collect();
    let metadata = json!({KEY: {"tenant": tenant.0, "response": response}});
    let bytes = metadata.to_string().len() + serde_json::to_string(&history).map_or(0, |s| s.len());
    crate::routes::shared::within_quotas(server, tenant, false, bytes as u64).await?;
    // Counted first: a response the store then fails to keep is over-counted, never free.
    server.db.insert_response(&tenant.0, id, bytes as i64, crate::now_ms()).await?;
    server.store.create(id, metadata).await?;
    server.store.append(id, &history).await?;
    Ok(())
}

/// Deletes the tenant's stored response `id`; 404 when it has none.
pub async fn delete(server: &AppState, tenant: &Tenant, id: &str) -> Result<(), ApiError> {
    load(server, tenant, id).await?;
    server.store.delete(id).await?;
    server.db.delete_response(&tenant.0, id).await?;
    Ok(())
}

/// Replaces each `item_reference` of `body`'s `input` with the item it names: the message
/// of one of the tenant's stored responses (a response's message item is `msg_` and the
/// tail of the response's id). A reference to anything else is a 400 saying why: the
/// items of a response not stored are kept nowhere.
///
/// The input as expanded is held to the body's limit: the bytes each reference adds are
/// counted before the item is copied, and past the limit the request is a 413 naming
/// `input` (so a small body repeating one reference to a large stored answer costs
/// nothing). Each stored response is read once per request, however often it is named.
pub async fn resolve_references(
    server: &AppState,
    tenant: &Tenant,
    body: &mut crate::body::JsonObject,
) -> Result<(), ApiError> {
    let limit = server.body_limit;
    let mut size = json_len(&body.0);
    let Some(Value::Array(items)) = body.0.get_mut("input") else { return Ok(()) };
    // The `output` of each stored response named so far (`None`: not the tenant's).
    let mut outputs: HashMap<String, Option<Value>> = HashMap::new();
    for (i, item) in items.iter_mut().enumerate() {
        if item["type"] != "item_reference" {
            continue;
        }
        let field = format!("input[{i}].id");
        let id = item["id"].as_str().ok_or_else(|| ApiError::invalid(&field, "required"))?.to_string();
        let found = match id.strip_prefix("msg_") {
            Some(tail) => {
                let response = format!("resp_{tail}");
                if !outputs.contains_key(&response) {
                    let output = match load(server, tenant, &response).await {
                        Ok(mut kept) => Some(kept.response["output"].take()),
                        Err(e) if e.status == StatusCode::NOT_FOUND => None,
                        Err(e) => return Err(e),
                    };
                    outputs.insert(response.clone(), output);
                }
                outputs[&response].as_ref().and_then(|o| o.as_array()).and_then(|o| o.iter().find(|x| x["id"] == *id))
            }
            None => None,
        };
        let found = found.ok_or_else(|| {
            ApiError::invalid(
                &field,
                &format!(
                    "no stored item `{id}`: this server keeps a response's items only when it is created with \
                     `store: true` (OpenAI keeps them unless told `store: false`); send `store: true`, or send the \
                     items themselves (the AI SDK does with providerOptions.openai.store = false); an operator can store by default as OpenAI \
                     does (`lucid serve --responses-store`)"
                ),
            )
        })?;
        size = (size + json_len(found)).saturating_sub(json_len(&*item));
        if size > limit {
            return Err(ApiError {
                message: format!(
                    "`input`: with its item_references expanded, the body is over the limit of {limit} bytes \
                     (passed at `input[{i}]`)"
                ),
                param: Some("input".into()),
                ..ApiError::too_large(limit)
            });
        }
        *item = found.clone();
    }
    Ok(())
}

/// The bytes of `v` as compact JSON, counted without writing them anywhere.
fn json_len(v: &impl serde::Serialize) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    // Writing a `Value` to a writer that cannot fail cannot fail.
    let _ = serde_json::to_writer(&mut count, v);
    count.0
}
