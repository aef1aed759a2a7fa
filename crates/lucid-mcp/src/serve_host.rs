//! A served tool call's host: what the tool reports and asks goes to the connected MCP
//! client (progress and log notifications, sampling and elicitation requests), and what
//! it attached comes back as MCP content.
#![allow(deprecated, reason = "sampling and logging are deprecated upstream (SEP-2577) but still part of 2025-11-25")]

use std::sync::Arc;

use futures::FutureExt;
use futures::future::BoxFuture;
use rmcp::model::{
    ClientResult, ContentBlock, CreateMessageRequestParams, ElicitRequest, ElicitRequestParams, ElicitationAction,
    ElicitationSchema, ProgressNotificationParam, ProgressToken, ResourceContents, SamplingMessage, ServerRequest,
};
use rmcp::{Peer, RoleServer};
use serde_json::Value;

use super::serve_log::Level;
use lucid::content::{MediaSource, Part};
use lucid::tool::{Elicited, Sampling, ToolError, ToolHost};

/// The host of one `tools/call`.
pub(super) struct ServeHost {
    pub peer: Peer<RoleServer>,
    /// The request's `_meta.progressToken`: progress is sent only when there is one.
    pub progress: Option<ProgressToken>,
    /// The session's log level.
    pub level: Arc<Level>,
}

impl ToolHost for ServeHost {
    fn progress<'a>(&'a self, done: f64, total: Option<f64>, message: Option<&'a str>) -> BoxFuture<'a, ()> {
        async move {
            let Some(token) = &self.progress else { return };
            let mut param = ProgressNotificationParam::new(token.clone(), done);
            (param.total, param.message) = (total, message.map(str::to_string));
            if let Err(e) = self.peer.notify_progress(param).await {
                tracing::debug!(error = %e, "could not send progress to the MCP client");
            }
        }
        .boxed()
    }

    fn log<'a>(&'a self, level: tracing::Level, data: &'a Value) -> BoxFuture<'a, ()> {
        self.level.tool(&self.peer, level, data.clone()).boxed()
    }

    fn sample(&self, request: Sampling) -> BoxFuture<'_, Result<String, ToolError>> {
        async move {
            if self.peer.peer_info().is_none_or(|i| i.capabilities.sampling.is_none()) {
                return Err(ToolError::new("the MCP client did not declare sampling: it cannot answer a prompt"));
            }
            let mut params =
                CreateMessageRequestParams::new(vec![SamplingMessage::user_text(request.prompt)], request.max_tokens);
            params.system_prompt = request.system;
            let answer = self.peer.create_message(params).await.map_err(|e| refused("sampling", e))?;
            let text: Vec<&str> =
                answer.message.content.iter().filter_map(|c| Some(c.as_text()?.text.as_str())).collect();
            Ok(text.join("\n"))
        }
        .boxed()
    }

    fn elicit(&self, message: String, schema: Value) -> BoxFuture<'_, Result<Elicited, ToolError>> {
        async move {
            if self.peer.peer_info().is_none_or(|i| i.capabilities.elicitation.is_none()) {
                return Err(ToolError::new("the MCP client did not declare elicitation: it cannot ask its user"));
            }
            let requested_schema: ElicitationSchema = serde_json::from_value(schema)
                .map_err(|e| ToolError::new(format!("not a schema MCP elicitation takes: {e}")))?;
            let params = ElicitRequestParams::FormElicitationParams { meta: None, message, requested_schema };
            let answer = self
                .peer
                .send_request(ServerRequest::ElicitRequest(ElicitRequest::new(params)))
                .await
                .map_err(|e| refused("elicitation", e))?;
            let ClientResult::ElicitResult(answer) = answer else {
                return Err(ToolError::new("the MCP client answered elicitation with something else"));
            };
            Ok(match answer.action {
                ElicitationAction::Accept => match answer.content {
                    Some(Value::Object(content)) => Elicited::Accept(content),
                    _ => Elicited::Accept(Default::default()),
                },
                ElicitationAction::Decline => Elicited::Decline,
                _ => Elicited::Cancel,
            })
        }
        .boxed()
    }
}

/// The error for a request to the client that failed.
fn refused(what: &str, e: rmcp::service::ServiceError) -> ToolError {
    match e {
        rmcp::service::ServiceError::McpError(e) => {
            ToolError::new(format!("the MCP client refused {what}: {}", e.message))
        }
        e => ToolError::new(format!("{what} failed: {e}")),
    }
}

/// A call's result as MCP content: its text (left out when empty and something was
/// attached), then each attached part in order: an image as image content, audio as
/// audio content, a document as an embedded resource (text for `text/*` and JSON media
/// that is UTF-8, else a base64 blob) whose URI is the part's name when that is a URI.
/// A part given by URL becomes a resource link.
pub(super) fn result_content(text: String, attached: Vec<Part>) -> Vec<ContentBlock> {
    let mut content = Vec::with_capacity(attached.len() + 1);
    if !text.is_empty() || attached.is_empty() {
        content.push(ContentBlock::text(text));
    }
    for (i, part) in attached.into_iter().enumerate() {
        let Some(media) = part.media() else {
            content.extend(part.as_text().map(ContentBlock::text));
            continue;
        };
        let uri = match &media.name {
            Some(name) if name.contains(':') => name.clone(),
            Some(name) => format!("attachment:///{name}"),
            None => format!("attachment:///{i}"),
        };
        let mime = media.media_type.clone();
        let bytes = match &media.source {
            MediaSource::Bytes(b) => b,
            MediaSource::Url(url) => {
                let mut link = rmcp::model::Resource::new(url.clone(), uri);
                link.mime_type = Some(mime);
                content.push(ContentBlock::resource_link(link));
                continue;
            }
            _ => {
                tracing::warn!(uri, "an attachment of a kind MCP cannot carry is left out");
                continue;
            }
        };
        content.push(match &part {
            Part::Image(_) => ContentBlock::image(media.base64(), mime),
            Part::Audio(_) => ContentBlock::audio(media.base64(), mime),
            _ => {
                let textual = mime.starts_with("text/") || mime.ends_with("json") || mime.ends_with("xml");
                let resource = match std::str::from_utf8(bytes) {
                    Ok(text) if textual => ResourceContents::TextResourceContents {
                        uri,
                        mime_type: Some(mime),
                        text: text.to_string(),
                        meta: None,
                    },
                    _ => ResourceContents::BlobResourceContents {
                        uri,
                        mime_type: Some(mime),
                        blob: media.base64(),
                        meta: None,
                    },
                };
                ContentBlock::resource(resource)
            }
        });
    }
    content
}

#[cfg(test)]
mod tests {
    use super::*;
    use lucid::content::Media;
    use serde_json::json;

    #[test]
    fn attached_parts_become_mcp_content_after_the_text() {
        let parts = vec![
            Part::image_bytes("image/png", vec![1u8, 2, 3]),
            Part::audio_bytes("audio/wav", vec![4u8]),
            Part::Document(Media::bytes("application/json", r#"{"a":1}"#).named("test://doc")),
            Part::pdf(vec![5u8]),
        ];
        let content = serde_json::to_value(result_content("see".into(), parts)).unwrap();
        assert_eq!(
            content,
            json!([
                {"type": "text", "text": "see"},
                {"type": "image", "data": "AQID", "mimeType": "image/png"},
                {"type": "audio", "data": "BA==", "mimeType": "audio/wav"},
                {"type": "resource", "resource": {"uri": "test://doc", "mimeType": "application/json", "text": "{\"a\":1}"}},
                {"type": "resource", "resource": {"uri": "attachment:///3", "mimeType": "application/pdf", "blob": "BQ=="}}
            ])
        );
        let only = serde_json::to_value(result_content(String::new(), vec![Part::image_bytes("image/png", vec![1u8])]));
        assert_eq!(only.unwrap()[0]["type"], "image", "no empty text before an attachment");
        let none = serde_json::to_value(result_content(String::new(), vec![])).unwrap();
        assert_eq!(none, json!([{"type": "text", "text": ""}]));
    }
}
