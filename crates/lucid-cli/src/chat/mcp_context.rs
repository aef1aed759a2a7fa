//! MCP resources and prompts in `lucid chat`: `/resources` and `/prompts` list what the
//! running servers offer; `/resource SERVER URI [MESSAGE]` sends the resource's text as
//! context (with the message, if any); `/SERVER:PROMPT [NAME=VALUE …]` sends the prompt's
//! messages as the next user message. What a server returns is a third party's text: it is
//! capped ([`MAX_CONTEXT`]), shown cleaned of terminal controls, and sent as the user's
//! message (never as a system prompt).

use lucid_mcp::McpClient;
use serde_json::{Map, Value};

use super::Chat;
use crate::display::safe;

/// What the chat does after one of these commands.
pub enum Outcome {
    /// It showed something: read the next line.
    Shown,
    /// Send this as the next user message.
    Send(String),
}

/// The most bytes of one resource or prompt that reach the model.
const MAX_CONTEXT: usize = 64 * 1024;

/// The commands this module adds, with their help (listed by `/help`).
pub const COMMANDS: &[(&str, &str)] = &[
    ("/resources", "the MCP servers' resources and resource templates"),
    ("/resource", "send an MCP resource as context: /resource SERVER URI [MESSAGE]"),
    ("/prompts", "the MCP servers' prompts; run one with /SERVER:PROMPT [NAME=VALUE ...]"),
];

/// The running server named `name`.
fn server(chat: &Chat, name: &str) -> anyhow::Result<McpClient> {
    let clients = chat.mcp_servers.clients();
    let names: Vec<String> = clients.iter().map(|c| c.name().to_string()).collect();
    clients.into_iter().find(|c| c.name() == name).ok_or_else(|| {
        let running = if names.is_empty() { "none".to_string() } else { names.join(", ") };
        anyhow::anyhow!("no running MCP server named {name} (running: {running})")
    })
}

/// Runs `/resources`, `/resource`, `/prompts` or `/SERVER:PROMPT`; `None` when `name` is
/// none of them.
pub async fn run(chat: &mut Chat, name: &str, rest: &str) -> anyhow::Result<Option<Outcome>> {
    match name {
        "/resources" => list_resources(chat).await.map(Some),
        "/prompts" => list_prompts(chat).await.map(Some),
        "/resource" => {
            let mut words = rest.splitn(3, ' ');
            let (Some(server_name), Some(uri)) = (words.next().filter(|w| !w.is_empty()), words.next()) else {
                anyhow::bail!("usage: /resource SERVER URI [MESSAGE]");
            };
            let message = words.next().unwrap_or("").trim();
            let text = resource_text(&server(chat, server_name)?, uri).await?;
            let intro = format!("Resource {uri} from MCP server {server_name}:");
            let sent = if message.is_empty() {
                format!("{intro}\n\n{text}")
            } else {
                format!("{intro}\n\n{text}\n\n{message}")
            };
            println!(
                "{}",
                chat.style.dim(&format!("(attached {} from {}: {} bytes)", safe(uri), safe(server_name), text.len()))
            );
            Ok(Some(Outcome::Send(sent)))
        }
        _ => {
            let Some((server_name, prompt)) = name.strip_prefix('/').and_then(|n| n.split_once(':')) else {
                return Ok(None);
            };
            let client = server(chat, server_name)?;
            let text = prompt_text(&client, prompt, arguments(rest)?).await?;
            println!("{}", chat.style.dim(&format!("(prompt {} from {})", safe(prompt), safe(server_name))));
            Ok(Some(Outcome::Send(text)))
        }
    }
}

/// `NAME=VALUE` words (a value may be quoted with `"`), or a JSON object.
fn arguments(rest: &str) -> anyhow::Result<Map<String, Value>> {
    let rest = rest.trim();
    if rest.starts_with('{') {
        return match serde_json::from_str(rest)? {
            Value::Object(map) => Ok(map),
            _ => anyhow::bail!("the prompt's arguments: a JSON object or NAME=VALUE words"),
        };
    }
    let mut map = Map::new();
    let mut chars = rest.chars().peekable();
    while chars.peek().is_some() {
        let key: String = chars.by_ref().take_while(|c| *c != '=').collect();
        let key = key.trim();
        if key.is_empty() || key.contains(' ') {
            anyhow::bail!("the prompt's arguments are NAME=VALUE words (got `{key}`)");
        }
        let value: String = if chars.peek() == Some(&'"') {
            chars.next();
            let quoted: String = chars.by_ref().take_while(|c| *c != '"').collect();
            while chars.peek() == Some(&' ') {
                chars.next();
            }
            quoted
        } else {
            chars.by_ref().take_while(|c| *c != ' ').collect()
        };
        map.insert(key.to_string(), Value::String(value));
    }
    Ok(map)
}

/// The text of a content block or resource contents (binary parts described).
fn describe(part: &Value) -> String {
    let s = |k: &str| part.get(k).and_then(Value::as_str);
    if let Some(text) = s("text") {
        return text.to_string();
    }
    if let Some(resource) = part.get("resource") {
        return describe(resource);
    }
    let kind = s("type").unwrap_or("binary");
    let size = s("blob").or(s("data")).map_or(0, str::len);
    format!("[{kind} {} ({}, {size} bytes as base64)]", s("uri").unwrap_or(""), s("mimeType").unwrap_or("unknown type"))
}

/// The text of resource `uri` of `client`, capped.
async fn resource_text(client: &McpClient, uri: &str) -> anyhow::Result<String> {
    let read = serde_json::to_value(client.read_resource(uri).await?)?;
    let parts: Vec<String> = read["contents"].as_array().into_iter().flatten().map(describe).collect();
    Ok(lucid_mcp::cap_result(parts.join("\n\n"), MAX_CONTEXT))
}

/// The text of prompt `name` with `args`: its messages in order (an assistant's marked).
async fn prompt_text(client: &McpClient, name: &str, args: Map<String, Value>) -> anyhow::Result<String> {
    let got = serde_json::to_value(client.prompt(name, args).await?)?;
    let parts: Vec<String> = got["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|m| {
            let text = describe(&m["content"]);
            if m["role"] == "assistant" { format!("(assistant) {text}") } else { text }
        })
        .collect();
    Ok(lucid_mcp::cap_result(parts.join("\n\n"), MAX_CONTEXT))
}

/// `/resources`.
async fn list_resources(chat: &Chat) -> anyhow::Result<Outcome> {
    let style = chat.style;
    let clients = chat.mcp_servers.clients();
    if clients.is_empty() {
        println!("(no MCP servers are running)");
    }
    for client in clients {
        println!("  {}", style.cyan(client.name()));
        let resources = serde_json::to_value(client.resources().await?)?;
        let templates = serde_json::to_value(client.resource_templates().await?)?;
        let listed = resources.as_array().into_iter().flatten().chain(templates.as_array().into_iter().flatten());
        let mut any = false;
        for r in listed {
            any = true;
            let uri = r["uri"].as_str().or(r["uriTemplate"].as_str()).unwrap_or("");
            let about = r["description"].as_str().or(r["name"].as_str()).unwrap_or("");
            println!("    {} {}", safe(uri), style.dim(&safe(about)));
        }
        if !any {
            println!("    {}", style.dim("(no resources)"));
        }
    }
    Ok(Outcome::Shown)
}

/// `/prompts`.
async fn list_prompts(chat: &Chat) -> anyhow::Result<Outcome> {
    let style = chat.style;
    let clients = chat.mcp_servers.clients();
    if clients.is_empty() {
        println!("(no MCP servers are running)");
    }
    for client in clients {
        let prompts = serde_json::to_value(client.prompts().await?)?;
        for p in prompts.as_array().into_iter().flatten() {
            let args: Vec<String> = p["arguments"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|a| {
                    let name = a["name"].as_str().unwrap_or("?");
                    if a["required"] == true { format!("{name}=…") } else { format!("[{name}=…]") }
                })
                .collect();
            let command = format!("/{}:{}", client.name(), p["name"].as_str().unwrap_or("?"));
            let about = p["description"].as_str().unwrap_or("");
            println!("  {} {} {}", style.cyan(&safe(&command)), safe(&args.join(" ")), style.dim(&safe(about)));
        }
    }
    Ok(Outcome::Shown)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompt_arguments_are_name_value_words_quoted_values_or_json() {
        let args = arguments(r#"city=Paris note="two words" empty="#).unwrap();
        assert_eq!(Value::Object(args), serde_json::json!({"city": "Paris", "note": "two words", "empty": ""}));
        assert_eq!(Value::Object(arguments(r#"{"n": 3}"#).unwrap()), serde_json::json!({"n": 3}));
        assert!(arguments("just words").is_err());
        assert!(arguments("").unwrap().is_empty());
    }

    #[test]
    fn binary_parts_are_described_not_sent() {
        let image = serde_json::json!({"type": "image", "data": "AAAA", "mimeType": "image/png"});
        assert_eq!(describe(&image), "[image  (image/png, 4 bytes as base64)]");
        let embedded = serde_json::json!({"type": "resource", "resource": {"uri": "a://b", "text": "inside"}});
        assert_eq!(describe(&embedded), "inside");
    }
}
