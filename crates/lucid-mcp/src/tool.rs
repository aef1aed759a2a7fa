//! One MCP tool as a Lucid [`Tool`], and what its results read like to the model.

use futures::FutureExt;
use futures::future::BoxFuture;
use rmcp::model::{CallToolResult, ContentBlock, ResourceContents};
use serde_json::Value;

use super::client::McpClient;
use lucid::tool::{Tool, ToolContext, ToolError, ToolSpec};

/// A tool served by an MCP server. It goes through the agent's validation, permissions,
/// timeout, events and transcript like any other tool; calling it sends `tools/call`.
pub struct McpTool {
    spec: ToolSpec,
    /// The tool's name on its server (the spec's name may carry a prefix or a hash).
    remote: String,
    client: McpClient,
    /// The server's annotations say `idempotentHint: true`.
    idempotent: bool,
}

impl std::fmt::Debug for McpTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpTool").field("name", &self.spec.name()).field("server", &self.client.name()).finish()
    }
}

impl McpTool {
    pub(crate) fn new(spec: ToolSpec, remote: String, client: McpClient, idempotent: bool) -> Self {
        McpTool { spec, remote, client, idempotent }
    }

    /// The name of the server serving this tool.
    pub fn server(&self) -> &str {
        self.client.name()
    }

    /// The tool's name on its server.
    pub fn remote_name(&self) -> &str {
        &self.remote
    }
}

impl Tool for McpTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    /// What the server's annotations say (`idempotentHint`, false when absent).
    fn idempotent(&self) -> bool {
        self.idempotent
    }

    fn invoke<'a>(&'a self, args: Value, ctx: ToolContext) -> BoxFuture<'a, Result<String, ToolError>> {
        async move {
            let args = match args {
                Value::Object(map) => Some(map),
                Value::Null => None,
                other => return Err(ToolError::new(format!("the arguments must be a JSON object, not {other}"))),
            };
            let result = self.client.call(&self.remote, args, &ctx).await?;
            // The model reads at most the server's result cap (the message itself was
            // bounded by its message cap).
            let text = super::cap_result(result_text(&result), self.client.server().get_limits().max_result_bytes);
            if result.is_error == Some(true) {
                return Err(ToolError::new(text));
            }
            // Images, audio and binary resources reach the model as parts beside the text
            // (which names them), for a model that takes them.
            for part in result_parts(&result) {
                ctx.attachments.attach(part);
            }
            Ok(text)
        }
        .boxed()
    }
}

/// Whether a server's tool says it is idempotent: its annotations hold
/// `idempotentHint: true` (a hint the server vouches for; absent means no).
pub(crate) fn declared_idempotent(tool: &rmcp::model::Tool) -> bool {
    tool.annotations.as_ref().is_some_and(|a| a.idempotent_hint == Some(true))
}

/// The text the model reads for a `tools/call` result: `structuredContent` (as JSON) when
/// present, else the text blocks joined by newlines, with images, audio and resources
/// described (type, size, URI) rather than dropped.
///
/// ```
/// use rmcp::model::{CallToolResult, ContentBlock};
/// let r = CallToolResult::success(vec![ContentBlock::text("a"), ContentBlock::text("b")]);
/// assert_eq!(lucid_mcp::result_text(&r), "a\nb");
/// ```
pub fn result_text(result: &CallToolResult) -> String {
    if let Some(structured) = &result.structured_content {
        return structured.to_string();
    }
    let parts: Vec<String> = result.content.iter().map(describe).collect();
    parts.join("\n")
}

/// The images, audio and binary resources (images and PDFs) of a `tools/call` result as
/// content parts; blocks whose base64 does not decode are left to their description.
///
/// ```
/// use rmcp::model::{CallToolResult, ContentBlock};
/// let r = CallToolResult::success(vec![ContentBlock::text("shot"), ContentBlock::image("iVBORw0KGgo=", "image/png")]);
/// let parts = lucid_mcp::result_parts(&r);
/// assert_eq!(parts, vec![lucid::Part::image_bytes("image/png", b"\x89PNG\r\n\x1a\n".to_vec())]);
/// ```
pub fn result_parts(result: &CallToolResult) -> Vec<lucid::content::Part> {
    use lucid::content::{Media, Part};
    let media = |mime: &str, data: &str| Media::from_data_url(&format!("data:{mime};base64,{data}"));
    result
        .content
        .iter()
        .filter_map(|block| match block {
            ContentBlock::Image(i) => media(&i.mime_type, &i.data).map(Part::Image),
            ContentBlock::Audio(a) => media(&a.mime_type, &a.data).map(Part::Audio),
            ContentBlock::Resource(r) => match &r.resource {
                ResourceContents::BlobResourceContents { uri, mime_type: Some(mime), blob, .. }
                    if mime.starts_with("image/") || mime == "application/pdf" =>
                {
                    let name = uri.rsplit('/').next().map(str::to_string);
                    let m = media(mime, blob)?;
                    Some(if mime.starts_with("image/") { Part::Image(m) } else { Part::Document(Media { name, ..m }) })
                }
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// The size of base64 data once decoded, in bytes.
fn decoded_len(base64: &str) -> usize {
    let padding = base64.bytes().rev().take_while(|&b| b == b'=').count();
    (base64.len() / 4 * 3).saturating_sub(padding)
}

fn describe(block: &ContentBlock) -> String {
    match block {
        ContentBlock::Text(t) => t.text.clone(),
        ContentBlock::Image(i) => format!("[image: {}, {} bytes]", i.mime_type, decoded_len(&i.data)),
        ContentBlock::Audio(a) => format!("[audio: {}, {} bytes]", a.mime_type, decoded_len(&a.data)),
        ContentBlock::Resource(r) => match &r.resource {
            ResourceContents::TextResourceContents { uri, mime_type, text, .. } => {
                format!("[resource {uri} ({})]\n{text}", mime_type.as_deref().unwrap_or("text"))
            }
            ResourceContents::BlobResourceContents { uri, mime_type, blob, .. } => format!(
                "[resource {uri}: {}, {} bytes]",
                mime_type.as_deref().unwrap_or("application/octet-stream"),
                decoded_len(blob)
            ),
            other => format!("[resource: {}]", serde_json::to_string(other).unwrap_or_default()),
        },
        ContentBlock::ResourceLink(link) => {
            let mut s = format!("[resource link: {} ({})", link.uri, link.name);
            if let Some(mime) = &link.mime_type {
                s.push_str(&format!(", {mime}"));
            }
            if let Some(d) = &link.description {
                s.push_str(&format!(": {d}"));
            }
            s.push(']');
            s
        }
        other => format!("[content: {}]", serde_json::to_string(other).unwrap_or_default()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(v: Value) -> CallToolResult {
        serde_json::from_value(v).expect("a valid CallToolResult")
    }

    #[test]
    fn structured_content_is_preferred_over_text() {
        let r = parse(json!({"content": [{"type": "text", "text": "{\"t\": 1}"}], "structuredContent": {"t": 1}}));
        assert_eq!(result_text(&r), r#"{"t":1}"#);
    }

    #[test]
    fn images_and_resources_are_described() {
        let r = parse(json!({"content": [
            {"type": "text", "text": "here"},
            {"type": "image", "data": "AAAA", "mimeType": "image/png"},
            {"type": "resource", "resource": {"uri": "file:///a.txt", "mimeType": "text/plain", "text": "hi"}},
            {"type": "resource_link", "uri": "file:///b", "name": "b"}
        ]}));
        assert_eq!(
            result_text(&r),
            "here\n[image: image/png, 3 bytes]\n[resource file:///a.txt (text/plain)]\nhi\n[resource link: file:///b (b)]"
        );
    }

    #[test]
    fn idempotent_only_when_the_annotations_say_so() {
        let tool = |annotations: Value| -> rmcp::model::Tool {
            let mut t = json!({"name": "t", "inputSchema": {"type": "object"}});
            if !annotations.is_null() {
                t["annotations"] = annotations;
            }
            serde_json::from_value(t).expect("a valid tool")
        };
        assert!(declared_idempotent(&tool(json!({"idempotentHint": true}))));
        assert!(!declared_idempotent(&tool(json!({"idempotentHint": false}))));
        assert!(!declared_idempotent(&tool(json!({"readOnlyHint": true}))));
        assert!(!declared_idempotent(&tool(Value::Null)));
    }

    #[test]
    fn decoded_length_counts_padding() {
        assert_eq!(decoded_len("YQ=="), 1);
        assert_eq!(decoded_len("YWI="), 2);
        assert_eq!(decoded_len("YWJj"), 3);
    }
}
