//! One MCP server looked at by hand: `lucid mcp show` (tools, resources, templates,
//! prompts), `lucid mcp call`, `lucid mcp read`, `lucid mcp prompt`. A question the server
//! asks during a call (elicitation) is asked on stdin by [`StdinElicitor`]. Everything a
//! server sent is printed with its control characters neutralised.

use std::collections::BTreeMap;

#[cfg(feature = "mcp")]
use anyhow::Context;
#[cfg(not(feature = "mcp"))]
use anyhow::bail;

use super::ServerConfig;
#[cfg(feature = "mcp")]
use crate::display::safe;
#[cfg(feature = "mcp")]
use lucid_mcp::{ElicitFuture, Elicitation, Elicited, Elicitor, McpClient, McpServer};

/// Starts `target`: a configured server's name, else an http(s) URL.
#[cfg(feature = "mcp")]
async fn connect(all: &BTreeMap<String, ServerConfig>, target: &str) -> anyhow::Result<McpClient> {
    let server = match all.get(target) {
        Some(s) => super::to_server(target, s)?,
        None if target.starts_with("http://") || target.starts_with("https://") => {
            match super::login::token_path(target).filter(|p| p.exists()) {
                Some(path) => McpServer::http(target).oauth(path),
                None => McpServer::http(target),
            }
        }
        None => anyhow::bail!("no MCP server named {target} (and it is not an http(s) URL)"),
    };
    Ok(server.prefix(false).elicitation(StdinElicitor).reauthorize(super::login::open_browser).connect().await?)
}

/// A JSON object given on the command line (absent: `{}`).
#[cfg(feature = "mcp")]
fn object(arguments: Option<&str>) -> anyhow::Result<serde_json::Map<String, serde_json::Value>> {
    match arguments {
        None => Ok(serde_json::Map::new()),
        Some(text) => match serde_json::from_str(text).context("the arguments are not JSON")? {
            serde_json::Value::Object(map) => Ok(map),
            _ => anyhow::bail!("the arguments must be a JSON object"),
        },
    }
}

/// `lucid mcp show SERVER [--json]`.
#[cfg(feature = "mcp")]
pub async fn show(all: &BTreeMap<String, ServerConfig>, target: &str, json: bool) -> anyhow::Result<i32> {
    let client = connect(all, target).await?;
    let (resources, templates, prompts) =
        (client.resources().await?, client.resource_templates().await?, client.prompts().await?);
    if json {
        let report = serde_json::json!({"name": client.name(), "protocol_version": client.protocol_version(),
            "tools": client.remote_tools(), "resources": resources, "resource_templates": templates, "prompts": prompts});
        println!("{report}");
        return Ok(0);
    }
    println!("{} — MCP {}", safe(client.name()), safe(&client.protocol_version().unwrap_or_default()));
    let first_line = |d: Option<&str>| d.unwrap_or("").lines().next().unwrap_or("").to_string();
    println!("tools:");
    for t in client.remote_tools() {
        println!("  {:<40} {}", safe(&t.name), safe(&first_line(t.description.as_deref())));
    }
    println!("resources:");
    for r in &resources {
        println!("  {:<40} {}", safe(&r.uri), safe(&first_line(r.description.as_deref().or(Some(&r.name)))));
    }
    for t in &templates {
        println!("  {:<40} {}", safe(&t.uri_template), safe(&first_line(t.description.as_deref().or(Some(&t.name)))));
    }
    println!("prompts:");
    for p in &prompts {
        let args: Vec<String> = p
            .arguments
            .iter()
            .flatten()
            .map(|a| if a.required == Some(true) { a.name.clone() } else { format!("[{}]", a.name) })
            .collect();
        println!(
            "  {:<40} {}",
            safe(&format!("{} {}", p.name, args.join(" "))),
            safe(&first_line(p.description.as_deref()))
        );
    }
    Ok(0)
}

/// `lucid mcp call SERVER TOOL [ARGS]`: the result's text on stdout; 1 when it is an error.
#[cfg(feature = "mcp")]
pub async fn call(
    all: &BTreeMap<String, ServerConfig>,
    target: &str,
    tool: &str,
    arguments: Option<&str>,
) -> anyhow::Result<i32> {
    let args = object(arguments)?;
    let client = connect(all, target).await?;
    let Some(tool) = client.tools().into_iter().find(|t| t.spec().name() == tool) else {
        anyhow::bail!("the MCP server {} offers no tool named {tool}", client.name());
    };
    let mut registry = lucid::tool::ToolRegistry::new();
    let name = tool.spec().name().to_string();
    registry.add_arc(tool);
    let call = lucid::ToolCall::new("call", name, serde_json::Value::Object(args));
    let outcome = registry.execute(&call, lucid::tool::ToolContext::default(), None).await;
    println!("{}", safe(&outcome.content));
    Ok(i32::from(outcome.is_error))
}

/// `lucid mcp read SERVER URI`.
#[cfg(feature = "mcp")]
pub async fn read(all: &BTreeMap<String, ServerConfig>, target: &str, uri: &str) -> anyhow::Result<i32> {
    let client = connect(all, target).await?;
    for contents in client.read_resource(uri).await?.contents {
        let c = serde_json::to_value(&contents).unwrap_or_default();
        let field = |k: &str| c.get(k).and_then(|v| v.as_str()).map(str::to_string);
        match (field("text"), field("blob")) {
            (Some(text), _) => println!("{}", safe(&text)),
            (None, blob) => println!(
                "[{} ({}, {} bytes as base64)]",
                safe(&field("uri").unwrap_or_default()),
                safe(&field("mimeType").unwrap_or_else(|| "binary".into())),
                blob.map_or(0, |b| b.len())
            ),
        }
    }
    Ok(0)
}

/// `lucid mcp prompt SERVER NAME [ARGS]`: each message as `role: text`.
#[cfg(feature = "mcp")]
pub async fn prompt(
    all: &BTreeMap<String, ServerConfig>,
    target: &str,
    name: &str,
    arguments: Option<&str>,
) -> anyhow::Result<i32> {
    let args = object(arguments)?;
    let client = connect(all, target).await?;
    for message in client.prompt(name, args).await?.messages {
        let role = serde_json::to_value(&message.role).unwrap_or_default();
        let text = match serde_json::to_value(&message.content).unwrap_or_default() {
            serde_json::Value::Object(c) if c.get("type").and_then(|t| t.as_str()) == Some("text") => {
                c.get("text").and_then(|t| t.as_str()).unwrap_or("").to_string()
            }
            serde_json::Value::Object(c) => {
                format!("[{}]", c.get("type").and_then(|t| t.as_str()).unwrap_or("content"))
            }
            _ => String::new(),
        };
        println!("{}: {}", safe(role.as_str().unwrap_or("?")), safe(&text));
    }
    Ok(0)
}

/// Asks a server's question on stdin: whether to answer (`y`, `n` declines, `c` cancels),
/// then one line per field of the requested form; an empty line keeps the field's default
/// (or leaves it out); end of input cancels.
#[cfg(feature = "mcp")]
pub struct StdinElicitor;

#[cfg(feature = "mcp")]
impl Elicitor for StdinElicitor {
    fn elicit(&self, question: Elicitation) -> ElicitFuture<'_> {
        Box::pin(async move {
            tokio::task::spawn_blocking(move || ask(&question, &mut std::io::stdin().lock(), &mut std::io::stderr()))
                .await
                .unwrap_or(Elicited::Cancel)
        })
    }
}

/// The questions of [`StdinElicitor`], read from `input`, written to `out`.
#[cfg(feature = "mcp")]
fn ask(question: &Elicitation, input: &mut impl std::io::BufRead, out: &mut impl std::io::Write) -> Elicited {
    let mut line = |prompt: String, out: &mut dyn std::io::Write| -> Option<String> {
        let _ = write!(out, "{prompt}");
        let _ = out.flush();
        let mut text = String::new();
        match input.read_line(&mut text) {
            Ok(0) | Err(_) => None,
            Ok(_) => Some(text.trim().to_string()),
        }
    };
    let _ = writeln!(out, "The MCP server {} asks: {}", safe(&question.server), safe(&question.message));
    match line("Answer? [Y/n/c] ".into(), out).as_deref() {
        None | Some("c" | "C") => return Elicited::Cancel,
        Some("n" | "N") => return Elicited::Decline,
        Some(_) => {}
    }
    let mut answer = serde_json::Map::new();
    let properties = question.schema.get("properties").and_then(|p| p.as_object()).cloned().unwrap_or_default();
    for (name, property) in properties {
        let kind = property.get("type").and_then(|t| t.as_str()).unwrap_or("string").to_string();
        let prompt = format!("  {}: ", field_prompt(&name, &property));
        let value = loop {
            let Some(text) = line(prompt.clone(), out) else { return Elicited::Cancel };
            if text.is_empty() {
                break None;
            }
            match parse(&kind, &text) {
                Some(v) => break Some(v),
                None => {
                    let _ = writeln!(out, "  not a {kind}; again");
                }
            }
        };
        if let Some(v) = value {
            answer.insert(name, v);
        }
    }
    Elicited::Accept(answer)
}

/// How a form field is asked: `name (type, one of […], default …) description`, shown safe.
#[cfg(feature = "mcp")]
pub(super) fn field_prompt(name: &str, property: &serde_json::Value) -> String {
    let kind = property.get("type").and_then(|t| t.as_str()).unwrap_or("string");
    let hint = match (property.get("enum"), property.get("default")) {
        (Some(e), Some(d)) => format!(" one of {e}, default {d}"),
        (Some(e), None) => format!(" one of {e}"),
        (None, Some(d)) => format!(" default {d}"),
        (None, None) => String::new(),
    };
    let about = property.get("description").or(property.get("title")).and_then(|t| t.as_str()).unwrap_or("");
    format!("{} ({kind}{}) {}", safe(name), safe(&hint), safe(about)).trim_end().to_string()
}

/// A field's value typed as the schema says.
#[cfg(feature = "mcp")]
pub(super) fn parse(kind: &str, text: &str) -> Option<serde_json::Value> {
    match kind {
        "integer" => text.parse::<i64>().ok().map(Into::into),
        "number" => text.parse::<f64>().ok().map(Into::into),
        "boolean" => match text.to_ascii_lowercase().as_str() {
            "y" | "yes" | "true" => Some(true.into()),
            "n" | "no" | "false" => Some(false.into()),
            _ => None,
        },
        "array" => Some(text.split(',').map(|item| serde_json::Value::from(item.trim())).collect()),
        _ => Some(text.into()),
    }
}

/// `lucid mcp show` without MCP support.
#[cfg(not(feature = "mcp"))]
pub async fn show(_all: &BTreeMap<String, ServerConfig>, _target: &str, _json: bool) -> anyhow::Result<i32> {
    bail!("{}", super::NO_MCP)
}

/// `lucid mcp call` without MCP support.
#[cfg(not(feature = "mcp"))]
pub async fn call(_: &BTreeMap<String, ServerConfig>, _: &str, _: &str, _: Option<&str>) -> anyhow::Result<i32> {
    bail!("{}", super::NO_MCP)
}

/// `lucid mcp read` without MCP support.
#[cfg(not(feature = "mcp"))]
pub async fn read(_all: &BTreeMap<String, ServerConfig>, _target: &str, _uri: &str) -> anyhow::Result<i32> {
    bail!("{}", super::NO_MCP)
}

/// `lucid mcp prompt` without MCP support.
#[cfg(not(feature = "mcp"))]
pub async fn prompt(_: &BTreeMap<String, ServerConfig>, _: &str, _: &str, _: Option<&str>) -> anyhow::Result<i32> {
    bail!("{}", super::NO_MCP)
}

#[cfg(all(test, feature = "mcp"))]
mod tests {
    use super::*;

    fn question() -> Elicitation {
        let schema = serde_json::json!({"type": "object", "properties": {
            "age": {"type": "integer", "default": 30}, "name": {"type": "string"}}});
        Elicitation::new("srv", "Who?", schema)
    }

    #[test]
    fn stdin_answers_typed_fields_and_leaves_empty_ones_to_their_defaults() {
        let mut out = Vec::new();
        let answer = ask(&question(), &mut "y\nforty\n41\n\n".as_bytes(), &mut out);
        let Elicited::Accept(map) = answer else { panic!("{answer:?}") };
        assert_eq!(serde_json::Value::Object(map), serde_json::json!({"age": 41}));
        assert!(String::from_utf8(out).unwrap().contains("not a integer; again"));
        assert_eq!(ask(&question(), &mut "n\n".as_bytes(), &mut Vec::new()), Elicited::Decline);
        assert_eq!(ask(&question(), &mut "y\n".as_bytes(), &mut Vec::new()), Elicited::Cancel);
        assert_eq!(parse("array", "a, b"), Some(serde_json::json!(["a", "b"])));
        assert_eq!(parse("boolean", "maybe"), None);
    }
}
