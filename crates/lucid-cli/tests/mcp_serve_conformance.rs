//! `lucid mcp serve` as an MCP server: the resources and prompts `[mcp.serve]` configures
//! (the real binary over stdio, read back with Lucid's own client), and the official MCP
//! conformance suite's server scenarios (`LUCID_TEST_MCP_DIR`, pinned by
//! `.ci/npm/package-lock.json`, installed by `.ci/run`).
//!
//! The suite calls fixtures by fixed names (`test_simple_text`, `test://static-text`,
//! `test_prompt_with_arguments`, …). They are given here, as a test configuration: the
//! resources and prompts as the `[mcp.serve]` catalog a user would write ([`FIXTURES`]),
//! the few tools as test-only tools written with Lucid's public tool API (attached parts,
//! [`ToolContext`]'s progress, log, sample and elicit); none of it is in the product. The suite cannot send a
//! bearer token, so it runs against the same server in-process, without one.
//!
//! By hand: `conformance server --url URL --scenario NAME`.

mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use common::text;
use futures::future::BoxFuture;
use lucid::content::Media;
use lucid::tool::{Elicited, Sampling, Tool, ToolContext, ToolRegistry, ToolSpec};
use lucid::{Part, ToolError, tool};
use serde_json::{Value, json};

/// The server scenarios `lucid mcp serve` passes: every one the suite says MCP 2025-11-25
/// requires (the image, audio, resource and mixed results, the progress and log
/// notifications and the questions to the client through the fixture tools'
/// `ToolContext`), and `json-schema-2020-12` and `server-sse-polling` besides.
const SERVER_SCENARIOS: &[&str] = &[
    "server-initialize",
    "ping",
    "logging-set-level",
    "completion-complete",
    "tools-list",
    "tools-call-simple-text",
    "tools-call-error",
    "json-schema-2020-12",
    "server-sse-polling",
    "server-sse-multiple-streams",
    "resources-list",
    "resources-read-text",
    "resources-read-binary",
    "resources-templates-read",
    "resources-subscribe",
    "resources-unsubscribe",
    "prompts-list",
    "prompts-get-simple",
    "prompts-get-with-args",
    "prompts-get-embedded-resource",
    "prompts-get-with-image",
    "dns-rebinding-protection",
    "tools-call-image",
    "tools-call-audio",
    "tools-call-embedded-resource",
    "tools-call-mixed-content",
    "tools-call-with-logging",
    "tools-call-with-progress",
    "tools-call-sampling",
    "tools-call-elicitation",
    "elicitation-sep1034-defaults",
    "elicitation-sep1330-enums",
];

/// The conformance fixtures' resources and prompts, as `[mcp.serve]` of a configuration
/// file says them (here without the `mcp.serve.` prefix, the table read on its own).
const FIXTURES: &str = r#"
[[resources]]
uri = "test://static-text"
name = "static-text"
description = "A static text resource for testing"
mime_type = "text/plain"
text = "This is the content of the static text resource."

[[resources]]
uri = "test://static-binary"
name = "static-binary"
description = "A static binary resource (image) for testing"
file = "pixel.png"

[[resources]]
uri = "test://watched-resource"
name = "watched-resource"
description = "A file-backed resource: subscribers hear of its changes"
file = "watched.txt"

[[resources]]
uri = "test://template/{id}/data"
name = "template"
description = "A resource template with parameter substitution"
mime_type = "application/json"
text = '{"id":"{id}","templateTest":true,"data":"Data for ID: {id}"}'
completions = { id = ["123", "124"] }

[[resources]]
uri = "test://{name}"
name = "any-test-resource"
description = "Any other test:// resource"
text = "Embedded resource content for testing."

[[prompts]]
name = "test_simple_prompt"
description = "A simple prompt without arguments"
messages = [{ text = "This is a simple prompt for testing." }]

[[prompts]]
name = "test_prompt_with_arguments"
description = "A prompt with required arguments"
arguments = [
    { name = "arg1", description = "First test argument", completions = ["paris", "park", "rome"] },
    { name = "arg2", description = "Second test argument" },
]
messages = [{ text = "Prompt with arguments: arg1='{arg1}', arg2='{arg2}'" }]

[[prompts]]
name = "test_prompt_with_embedded_resource"
description = "A prompt that includes an embedded resource"
arguments = [{ name = "resourceUri", description = "URI of the resource to embed" }]
messages = [{ resource = "{resourceUri}" }, { text = "Please process the embedded resource above." }]

[[prompts]]
name = "test_prompt_with_image"
description = "A prompt that includes image content"
messages = [{ image = "pixel.png" }, { role = "user", text = "Please analyze the image above." }]
"#;

/// A 1×1 red PNG.
const PIXEL: &str = "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63fccfc0f01f00050502005fc8f1d20000000049454e44ae426082";

fn pixel() -> Vec<u8> {
    (0..PIXEL.len()).step_by(2).map(|i| u8::from_str_radix(&PIXEL[i..i + 2], 16).unwrap()).collect()
}

/// A folder with the fixtures' files.
fn fixture_dir(name: &str) -> PathBuf {
    let dir = common::test_dir(name);
    std::fs::write(dir.join("pixel.png"), pixel()).unwrap();
    std::fs::write(dir.join("watched.txt"), "Watched resource content").unwrap();
    dir
}

/// A test-only tool answering a fixed text (or failing with it), with a given schema.
struct Fixed {
    spec: ToolSpec,
    answer: Result<String, String>,
}

impl Tool for Fixed {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn invoke<'a>(&'a self, _args: Value, _ctx: ToolContext) -> BoxFuture<'a, Result<String, ToolError>> {
        Box::pin(async move { self.answer.clone().map_err(ToolError::new) })
    }
}

/// The suite's fixture tools that return text.
fn fixture_tools() -> ToolRegistry {
    let empty = json!({"type": "object", "properties": {}});
    let fixed = |name: &str, description: &str, schema: Value, answer| {
        Arc::new(Fixed { spec: ToolSpec::new(name, description, schema).unwrap(), answer }) as Arc<dyn Tool>
    };
    let mut tools = ToolRegistry::new();
    tools.add_arc(fixed(
        "test_simple_text",
        "Tests simple text content response",
        empty.clone(),
        Ok("This is a simple text response for testing.".into()),
    ));
    tools.add_arc(fixed(
        "test_error_handling",
        "Tests error response handling",
        empty,
        Err("This tool intentionally returns an error for testing".into()),
    ));
    tools.add_arc(fixed(
        "json_schema_2020_12_tool",
        "Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)",
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "$defs": {"address": {"type": "object", "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
            "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}},
            "additionalProperties": false
        }),
        Ok("called".into()),
    ));
    tools.add(test_image_content);
    tools.add(test_audio_content);
    tools.add(test_embedded_resource);
    tools.add(test_multiple_content_types);
    tools.add(test_tool_with_logging);
    tools.add(test_tool_with_progress);
    tools.add(test_sampling);
    tools.add(test_elicitation);
    tools.add(test_elicitation_sep1034_defaults);
    tools.add(test_elicitation_sep1330_enums);
    tools
}

/// A short WAV: 8 kHz, 8-bit mono, four samples of silence.
fn wav() -> Vec<u8> {
    let mut w = b"RIFF".to_vec();
    w.extend(40u32.to_le_bytes());
    w.extend(b"WAVEfmt ");
    w.extend(16u32.to_le_bytes());
    w.extend([1, 0, 1, 0]); // PCM, one channel
    w.extend(8000u32.to_le_bytes());
    w.extend(8000u32.to_le_bytes());
    w.extend([1, 0, 8, 0]); // block align 1, 8 bits
    w.extend(b"data");
    w.extend(4u32.to_le_bytes());
    w.extend([128; 4]);
    w
}

/// Tests image content response
#[tool]
async fn test_image_content(ctx: ToolContext) -> String {
    ctx.attachments.attach(Part::image_bytes("image/png", pixel()));
    String::new()
}

/// Tests audio content response
#[tool]
async fn test_audio_content(ctx: ToolContext) -> String {
    ctx.attachments.attach(Part::audio_bytes("audio/wav", wav()));
    String::new()
}

/// Tests embedded resource content response
#[tool]
async fn test_embedded_resource(ctx: ToolContext) -> String {
    let text = "This is an embedded resource content.";
    ctx.attachments.attach(Part::text_document(text, Some("test://embedded-resource".into())));
    String::new()
}

/// Tests response with multiple content types (text, image, resource)
#[tool]
async fn test_multiple_content_types(ctx: ToolContext) -> String {
    ctx.attachments.attach(Part::image_bytes("image/png", pixel()));
    let data =
        Media::bytes("application/json", r#"{"test":"data","value":123}"#).named("test://mixed-content-resource");
    ctx.attachments.attach(Part::Document(data));
    "Multiple content types test:".into()
}

/// Tests tool that emits log messages during execution
#[tool]
async fn test_tool_with_logging(ctx: ToolContext) -> String {
    let pause = || tokio::time::sleep(std::time::Duration::from_millis(50));
    ctx.log(tracing::Level::INFO, "Tool execution started").await;
    pause().await;
    ctx.log(tracing::Level::INFO, "Tool processing data").await;
    pause().await;
    ctx.log(tracing::Level::INFO, "Tool execution completed").await;
    "Tool with logging executed successfully".into()
}

/// Tests tool that reports progress notifications
#[tool]
async fn test_tool_with_progress(ctx: ToolContext) -> String {
    for done in [0.0, 50.0, 100.0] {
        ctx.progress(done, Some(100.0), None).await;
        if done < 100.0 {
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    }
    "Tool with progress executed successfully".into()
}

/// Tests server-initiated sampling (LLM completion request)
#[tool]
async fn test_sampling(
    ctx: ToolContext,
    /// The prompt to send to the LLM
    prompt: String,
) -> Result<String, ToolError> {
    Ok(format!("LLM response: {}", ctx.sample(Sampling::new(prompt, 100)).await?))
}

/// How an answer reads in the fixtures' results.
fn answered(answer: Elicited) -> String {
    match answer {
        Elicited::Accept(content) => format!("action=accept, content={}", Value::Object(content)),
        Elicited::Decline => "action=decline, content={}".into(),
        _ => "action=cancel, content={}".into(),
    }
}

/// Tests server-initiated elicitation (user input request)
#[tool]
async fn test_elicitation(
    ctx: ToolContext,
    /// The message to show the user
    message: String,
) -> Result<String, ToolError> {
    let schema = json!({"type": "object", "properties": {
        "username": {"type": "string", "description": "User's response"},
        "email": {"type": "string", "description": "User's email address"}
    }, "required": ["username", "email"]});
    Ok(format!("User response: {}", answered(ctx.elicit(message, schema).await?)))
}

/// Tests elicitation with default values per SEP-1034
#[tool]
async fn test_elicitation_sep1034_defaults(ctx: ToolContext) -> Result<String, ToolError> {
    let schema = json!({"type": "object", "properties": {
        "name": {"type": "string", "description": "User name", "default": "John Doe"},
        "age": {"type": "integer", "description": "User age", "default": 30},
        "score": {"type": "number", "description": "User score", "default": 95.5},
        "status": {"type": "string", "description": "User status", "enum": ["active", "inactive", "pending"], "default": "active"},
        "verified": {"type": "boolean", "description": "Verification status", "default": true}
    }});
    let answer = ctx.elicit("Please review and update the form fields with defaults", schema).await?;
    Ok(format!("Elicitation completed: {}", answered(answer)))
}

/// Tests elicitation with enum schema improvements per SEP-1330
#[tool]
async fn test_elicitation_sep1330_enums(ctx: ToolContext) -> Result<String, ToolError> {
    let titled = |items: &[(&str, &str)]| -> Vec<Value> {
        items.iter().map(|(value, title)| json!({"const": value, "title": title})).collect()
    };
    let schema = json!({"type": "object", "properties": {
        "untitledSingle": {"type": "string", "description": "Choose an option", "enum": ["option1", "option2", "option3"]},
        "titledSingle": {"type": "string", "description": "Choose a titled option",
            "oneOf": titled(&[("value1", "First Option"), ("value2", "Second Option"), ("value3", "Third Option")])},
        "legacyEnum": {"type": "string", "description": "Choose a legacy option", "enum": ["opt1", "opt2", "opt3"],
            "enumNames": ["Option One", "Option Two", "Option Three"]},
        "untitledMulti": {"type": "array", "description": "Choose multiple options",
            "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
        "titledMulti": {"type": "array", "description": "Choose multiple titled options",
            "items": {"anyOf": titled(&[("value1", "First Choice"), ("value2", "Second Choice"), ("value3", "Third Choice")])}}
    }});
    let answer = ctx.elicit("Please select options from the enum fields", schema).await?;
    Ok(format!("Elicitation completed: {}", answered(answer)))
}

fn catalog(dir: &Path) -> lucid_mcp::Catalog {
    let mut catalog: lucid_mcp::Catalog = toml::from_str(FIXTURES).unwrap();
    catalog.check().unwrap();
    catalog.base = dir.to_path_buf();
    catalog
}

/// Runs one scenario of the suite against `url`; its report.
async fn scenario(npm: &Path, url: &str, name: &str) -> (bool, String) {
    let out = common::conformance(npm)
        .args(["server", "--url", url, "--scenario", name])
        .env("NO_COLOR", "1")
        .kill_on_drop(true)
        .output()
        .await
        .unwrap();
    let report = text(&out.stdout) + &text(&out.stderr);
    (report.contains(" 0 failed") && !report.contains("FAILURE"), report)
}

#[tokio::test(flavor = "multi_thread")]
async fn mcp_serve_passes_the_conformance_suites_server_scenarios() {
    let Some(npm) = common::real_part("LUCID_TEST_MCP_DIR", ".ci/run installs the npm MCP servers and sets it") else {
        return;
    };
    let npm = PathBuf::from(npm);
    let dir = fixture_dir("mcp-serve-conformance");
    let server = lucid_mcp::ToolServer::new(fixture_tools(), None).catalog(catalog(&dir));
    let stop = tokio_util::sync::CancellationToken::new();
    let (tx, rx) = tokio::sync::oneshot::channel();
    let options = lucid_mcp::HttpOptions::without_token();
    tokio::spawn(lucid_mcp::serve_http(server, "127.0.0.1:0".parse().unwrap(), options, stop.clone(), move |a| {
        let _ = tx.send(a);
    }));
    let url = format!("http://{}/mcp", rx.await.unwrap());
    for name in SERVER_SCENARIOS {
        let (passed, report) = scenario(&npm, &url, name).await;
        assert!(passed, "{name}: {report}");
    }
    // Every scenario the newest revision requires is among them.
    let required = common::required_scenarios(&npm, "server").await;
    let missing: Vec<&String> = required.iter().filter(|n| !SERVER_SCENARIOS.contains(&n.as_str())).collect();
    assert!(missing.is_empty(), "required by {} but not passed: {missing:?}", common::MCP_REVISION);
    let passed = required.iter().filter(|n| SERVER_SCENARIOS.contains(&n.as_str())).count();
    eprintln!("required server scenarios of {}: {passed} of {} passed", common::MCP_REVISION, required.len());
    stop.cancel();
}

/// The real `lucid mcp serve` over stdio with `[mcp.serve]` in its configuration file,
/// read back with Lucid's client: listed resources and templates, text, binary (base64)
/// and templated reads, prompts with their arguments filled in, an image read from a file
/// relative to the configuration file, completions, and errors naming what is unknown.
#[tokio::test(flavor = "multi_thread")]
async fn mcp_serve_offers_the_resources_and_prompts_its_configuration_lists() {
    let dir = fixture_dir("mcp-serve-catalog");
    let config = config_with_fixtures(&dir);
    let client = lucid_mcp::McpServer::stdio(
        env!("CARGO_BIN_EXE_lucid"),
        [
            "--config".to_string(),
            config.display().to_string(),
            "mcp".into(),
            "serve".into(),
            "--tools".into(),
            "calculator".into(),
        ],
    )
    .name("lucid")
    .cwd(&dir)
    .connect()
    .await
    .expect("lucid mcp serve starts");

    let resources = serde_json::to_value(client.resources().await.unwrap()).unwrap();
    let uris: Vec<&str> = resources.as_array().unwrap().iter().map(|r| r["uri"].as_str().unwrap()).collect();
    assert_eq!(uris, ["test://static-text", "test://static-binary", "test://watched-resource"]);
    let templates = serde_json::to_value(client.resource_templates().await.unwrap()).unwrap();
    assert_eq!(templates[0]["uriTemplate"], "test://template/{id}/data");

    let read = |uri: &'static str| {
        let client = &client;
        async move { serde_json::to_value(client.read_resource(uri).await.unwrap()).unwrap()["contents"][0].clone() }
    };
    let text_resource = read("test://static-text").await;
    assert_eq!(text_resource["text"], "This is the content of the static text resource.");
    assert_eq!(text_resource["mimeType"], "text/plain");
    let binary = read("test://static-binary").await;
    assert_eq!(binary["mimeType"], "image/png");
    assert_eq!(
        binary["blob"],
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
    );
    let templated = read("test://template/42/data").await;
    let data: Value = serde_json::from_str(templated["text"].as_str().unwrap()).unwrap();
    assert_eq!(data, json!({"id": "42", "templateTest": true, "data": "Data for ID: 42"}));
    let watched = read("test://watched-resource").await;
    assert_eq!(watched["text"], "Watched resource content");
    let unknown = client.read_resource("other://nothing").await.unwrap_err().to_string();
    assert!(unknown.contains("no resource `other://nothing`"), "{unknown}");

    let prompts = serde_json::to_value(client.prompts().await.unwrap()).unwrap();
    assert_eq!(prompts.as_array().unwrap().len(), 4);
    let with_args = prompts.as_array().unwrap().iter().find(|p| p["name"] == "test_prompt_with_arguments").unwrap();
    assert_eq!(
        with_args["arguments"][0],
        json!({"name": "arg1", "description": "First test argument", "required": true})
    );
    let args = |pairs: &[(&str, &str)]| pairs.iter().map(|(k, v)| (k.to_string(), json!(v))).collect();
    let got = client.prompt("test_prompt_with_arguments", args(&[("arg1", "a"), ("arg2", "b")])).await.unwrap();
    let got = serde_json::to_value(got).unwrap();
    assert_eq!(got["messages"][0]["content"]["text"], "Prompt with arguments: arg1='a', arg2='b'");
    let missing = client.prompt("test_prompt_with_arguments", args(&[("arg1", "a")])).await.unwrap_err().to_string();
    assert!(missing.contains("needs the argument `arg2`"), "{missing}");
    let image = serde_json::to_value(client.prompt("test_prompt_with_image", args(&[])).await.unwrap()).unwrap();
    assert_eq!(image["messages"][0]["content"]["type"], "image");
    assert_eq!(image["messages"][0]["content"]["mimeType"], "image/png");
    let embedded = client.prompt("test_prompt_with_embedded_resource", args(&[("resourceUri", "test://static-text")]));
    let embedded = serde_json::to_value(embedded.await.unwrap()).unwrap();
    assert_eq!(
        embedded["messages"][0]["content"]["resource"]["text"],
        "This is the content of the static text resource."
    );
}

/// A configuration file in `dir/conf` whose `[mcp.serve]` is [`FIXTURES`], the fixture
/// files beside it (relative paths are read from the configuration file's folder).
fn config_with_fixtures(dir: &Path) -> PathBuf {
    let config_dir = dir.join("conf");
    std::fs::create_dir_all(&config_dir).unwrap();
    std::fs::rename(dir.join("pixel.png"), config_dir.join("pixel.png")).unwrap();
    std::fs::rename(dir.join("watched.txt"), config_dir.join("watched.txt")).unwrap();
    let fixtures =
        FIXTURES.replace("[[resources]]", "[[mcp.serve.resources]]").replace("[[prompts]]", "[[mcp.serve.prompts]]");
    let config = config_dir.join("config.toml");
    std::fs::write(&config, fixtures).unwrap();
    config
}

/// `lucid mcp serve` over stdio, spoken to line by line: `completion/complete` offers the
/// configured values that start with what was typed, for a prompt's argument and for a
/// template's variable; once the client sets a log level, a failed call arrives as an
/// `error` log message (and not before); a subscribed file-backed resource's change is
/// announced with `notifications/resources/updated`, and an unknown URI is refused.
#[tokio::test(flavor = "multi_thread")]
async fn mcp_serve_completes_arguments_and_logs_failed_calls_at_the_clients_level() {
    use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _};
    let dir = fixture_dir("mcp-serve-complete");
    let config = config_with_fixtures(&dir);
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_lucid"))
        .arg("--config")
        .arg(&config)
        .args(["mcp", "serve", "--tools", "read_file"])
        .current_dir(&dir)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let mut send = async |message: Value| {
        stdin.write_all(format!("{message}\n").as_bytes()).await.unwrap();
        stdin.flush().await.unwrap();
    };
    // The lines up to the answer to request `id`.
    async fn until_answer(lines: &mut tokio::io::Lines<impl tokio::io::AsyncBufRead + Unpin>, id: u32) -> Vec<Value> {
        let mut seen = Vec::new();
        loop {
            let line = tokio::time::timeout(std::time::Duration::from_secs(60), lines.next_line())
                .await
                .expect("an answer within a minute")
                .unwrap()
                .expect("lucid mcp serve is still running");
            let message: Value = serde_json::from_str(&line).unwrap();
            let done = message["id"] == id;
            seen.push(message);
            if done {
                return seen;
            }
        }
    }
    send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}))
    .await;
    let init = until_answer(&mut lines, 1).await.pop().unwrap();
    let caps = &init["result"]["capabilities"];
    assert!(caps["completions"].is_object() && caps["logging"].is_object(), "{init}");
    assert_eq!(caps["resources"]["subscribe"], true, "{init}");
    assert!(caps["prompts"].is_object(), "{init}");
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;

    send(json!({"jsonrpc": "2.0", "id": 2, "method": "completion/complete", "params": {
        "ref": {"type": "ref/prompt", "name": "test_prompt_with_arguments"}, "argument": {"name": "arg1", "value": "pa"}}}))
    .await;
    let answer = until_answer(&mut lines, 2).await.pop().unwrap();
    assert_eq!(answer["result"]["completion"]["values"], json!(["paris", "park"]), "{answer}");
    send(json!({"jsonrpc": "2.0", "id": 3, "method": "completion/complete", "params": {
        "ref": {"type": "ref/resource", "uri": "test://template/{id}/data"}, "argument": {"name": "id", "value": "12"}}}))
    .await;
    let answer = until_answer(&mut lines, 3).await.pop().unwrap();
    assert_eq!(answer["result"]["completion"]["values"], json!(["123", "124"]), "{answer}");

    let failing = |id: u32| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "read_file", "arguments": {"path": "no-such-file.txt"}}})
    };
    send(failing(4)).await;
    let quiet = until_answer(&mut lines, 4).await;
    assert_eq!(quiet.len(), 1, "no level set, nothing logged: {quiet:?}");
    assert_eq!(quiet[0]["result"]["isError"], true, "{quiet:?}");
    send(json!({"jsonrpc": "2.0", "id": 5, "method": "logging/setLevel", "params": {"level": "warning"}})).await;
    assert_eq!(until_answer(&mut lines, 5).await.pop().unwrap()["result"], json!({}));
    send(failing(6)).await;
    let logged = until_answer(&mut lines, 6).await;
    let log = logged.iter().find(|m| m["method"] == "notifications/message").unwrap_or_else(|| panic!("{logged:?}"));
    assert_eq!(log["params"]["level"], "error");
    assert!(log["params"]["data"].as_str().unwrap().starts_with("tool `read_file` failed"), "{log}");

    // A subscribed file-backed resource: its change is announced.
    send(json!({"jsonrpc": "2.0", "id": 7, "method": "resources/subscribe", "params": {"uri": "test://watched-resource"}}))
        .await;
    assert_eq!(until_answer(&mut lines, 7).await.pop().unwrap()["result"], json!({}));
    send(json!({"jsonrpc": "2.0", "id": 8, "method": "resources/subscribe", "params": {"uri": "test://nothing/here/at/all"}}))
        .await;
    let refused = until_answer(&mut lines, 8).await.pop().unwrap();
    assert!(refused["error"]["message"].as_str().unwrap().contains("no resource"), "{refused}");
    std::fs::write(config.parent().unwrap().join("watched.txt"), "Changed content").unwrap();
    let updated = loop {
        let line = tokio::time::timeout(std::time::Duration::from_secs(60), lines.next_line())
            .await
            .expect("the change announced within a minute")
            .unwrap()
            .unwrap();
        let message: Value = serde_json::from_str(&line).unwrap();
        if message["method"] == "notifications/resources/updated" {
            break message;
        }
    };
    assert_eq!(updated["params"]["uri"], "test://watched-resource");
}
