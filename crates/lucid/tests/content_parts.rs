//! Images, documents and audio in the conversation: the message model stays compatible
//! with stored text-only sessions, and every codec writes parts in its provider's
//! documented shape (snapshotted with sorted keys), tool results with images included.

mod common;

use lucid::content::{Media, PartKind};
use lucid::model::presets::Preset;
use lucid::model::{ChatOptions, ChatRequest, anthropic, gemini, openai, openai_responses};
use lucid::{AssistantMessage, Message, Part, ToolCall, ToolResult};
use serde_json::{Value, json};

macro_rules! snapshot {
    ($($t:tt)*) => {
        insta::with_settings!({ sort_maps => true }, { insta::assert_json_snapshot!($($t)*) })
    };
}

/// A 1×1 PNG's first bytes (enough for sniffing and for the snapshots to stay short).
const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
const PDF: &[u8] = b"%PDF-1.4\n%\xe2\xe3\n";

fn conversation() -> Vec<Message> {
    vec![
        Message::system("You look at pictures."),
        Message::user_parts(vec![
            Part::text("What is in this image, and what does the report say?"),
            Part::image_bytes("image/png", PNG.to_vec()),
            Part::Document(Media::bytes("application/pdf", PDF.to_vec()).named("report.pdf")),
        ]),
        Message::Assistant(AssistantMessage {
            tool_calls: vec![ToolCall::new("call_s", "screenshot", json!({}))],
            ..Default::default()
        }),
        Message::Tool(ToolResult::with_parts(
            "call_s",
            "screenshot",
            vec![Part::text("Captured the screen."), Part::image_bytes("image/png", PNG.to_vec())],
        )),
        Message::user_parts(vec![Part::text("And this one?"), Part::image_url("https://example.com/cat.jpg")]),
    ]
}

fn openai_body(preset: &str) -> Value {
    let p = Preset::find(preset).unwrap();
    let msgs = conversation();
    openai::encode(&ChatRequest::new(&msgs, &[], &ChatOptions::default()), &p.default_model, &p.quirks, false)
}

#[test]
fn text_only_messages_serialize_and_load_as_before() {
    let m = Message::user("hi");
    assert_eq!(serde_json::to_value(&m).unwrap(), json!({"role": "user", "content": "hi"}));
    let old: Message = serde_json::from_value(json!({"role": "user", "content": "hi"})).unwrap();
    assert_eq!(old, m);
    let t = Message::tool_result("c1", "add", "5", false);
    assert_eq!(
        serde_json::to_value(&t).unwrap(),
        json!({"role": "tool", "call_id": "c1", "name": "add", "content": "5", "is_error": false})
    );
    let old: Message =
        serde_json::from_value(json!({"role": "tool", "call_id": "c1", "name": "add", "content": "5"})).unwrap();
    assert_eq!(old, t);
}

#[test]
fn messages_with_parts_round_trip_through_json() {
    for m in conversation() {
        let v = serde_json::to_value(&m).unwrap();
        let back: Message = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(back, m, "{v}");
    }
    let v = serde_json::to_value(&conversation()[1]).unwrap();
    assert_eq!(v["content"], "What is in this image, and what does the report say?", "the text stays readable");
    assert_eq!(v["parts"][1], json!({"type": "image", "media_type": "image/png", "data": "iVBORw0KGgoAAAANSUhEUg=="}));
    assert_eq!(v["parts"][2]["name"], "report.pdf");
    let bad = serde_json::from_value::<Part>(json!({"type": "image", "media_type": "image/png"}));
    assert!(bad.unwrap_err().to_string().contains("exactly one of `data` and `url`"));
}

#[test]
fn kinds_are_sniffed_from_content_not_the_name() {
    let kind = |b: &[u8], name: &str| Part::from_file_bytes(b.to_vec(), Some(name)).map(|p| p.kind());
    assert_eq!(kind(PNG, "photo.pdf"), Some(PartKind::Image));
    assert_eq!(kind(PDF, "x.png"), Some(PartKind::Pdf));
    assert_eq!(kind(b"\xff\xd8\xff\xe0\0\x10JFIF", "a"), Some(PartKind::Image));
    assert_eq!(kind(b"GIF89a\x01\0", "a"), Some(PartKind::Image));
    assert_eq!(kind(b"RIFF\0\0\0\0WEBPVP8 ", "a"), Some(PartKind::Image));
    assert_eq!(kind(b"RIFF\0\0\0\0WAVEfmt ", "a"), Some(PartKind::Audio));
    assert_eq!(kind(b"ID3\x04\0", "a"), Some(PartKind::Audio));
    assert_eq!(kind(b"just some notes\n", "a.jpg"), Some(PartKind::TextDocument));
    assert_eq!(kind(b"\0\x01\x02\xfe\xff", "blob"), None);
    assert_eq!(kind(b"\0\x01\x02", "blob"), None, "valid UTF-8 with NUL bytes is no text");
}

#[test]
fn chat_completions_parts_and_tool_images_in_a_following_user_message() {
    let b = openai_body("openai");
    let msgs = b["messages"].as_array().unwrap();
    let roles: Vec<&str> = msgs.iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["system", "user", "assistant", "tool", "user", "user"]);
    assert_eq!(msgs[1]["content"][1]["image_url"]["url"], "data:image/png;base64,iVBORw0KGgoAAAANSUhEUg==");
    assert_eq!(msgs[1]["content"][2]["type"], "file");
    assert_eq!(msgs[1]["content"][2]["file"]["filename"], "report.pdf");
    assert!(msgs[3]["content"].as_str().unwrap().contains("[image: image/png, 16 bytes] (attached below)"));
    assert_eq!(msgs[4]["content"][1]["type"], "image_url", "the tool's image follows the tool results");
    snapshot!(b);
}

#[test]
fn compatible_vision_servers_take_image_url_parts() {
    for preset in ["llamacpp", "vllm"] {
        let b = openai_body(preset);
        assert_eq!(b["messages"][1]["content"][1]["type"], "image_url", "{preset}");
        assert_eq!(
            b["messages"][5]["content"][1],
            json!({"type": "image_url", "image_url": {"url": "https://example.com/cat.jpg"}})
        );
    }
}

#[test]
fn chat_completions_audio_is_input_audio() {
    let msgs = [Message::user_parts(vec![Part::text("Transcribe."), Part::audio_bytes("audio/wav", b"RIFF".to_vec())])];
    let b = openai::encode(
        &ChatRequest::new(&msgs, &[], &ChatOptions::default()),
        "gpt-4o-audio-preview",
        &Preset::find("openai").unwrap().quirks,
        false,
    );
    assert_eq!(
        b["messages"][0]["content"][1],
        json!({"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}})
    );
}

#[test]
fn responses_parts_and_function_output_parts() {
    let msgs = conversation();
    let b = openai_responses::encode(&ChatRequest::new(&msgs, &[], &ChatOptions::default()), "gpt-4.1", false);
    let input = b["input"].as_array().unwrap();
    let user = input.iter().position(|i| i["role"] == "user").unwrap();
    assert_eq!(
        input[user]["content"][1],
        json!({"type": "input_image", "image_url": "data:image/png;base64,iVBORw0KGgoAAAANSUhEUg=="})
    );
    assert_eq!(input[user]["content"][2]["type"], "input_file");
    assert_eq!(input[user]["content"][2]["filename"], "report.pdf");
    let output = input.iter().find(|i| i["type"] == "function_call_output").unwrap();
    assert_eq!(output["output"][1]["type"], "input_image", "a function's output carries its image");
    snapshot!(b);
}

#[test]
fn anthropic_image_and_document_blocks_inside_tool_result_too() {
    let msgs = conversation();
    let b = anthropic::encode(&ChatRequest::new(&msgs, &[], &ChatOptions::default()), "claude-sonnet-4-5", false);
    let user = &b["messages"][0]["content"];
    assert_eq!(
        user[1],
        json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgoAAAANSUhEUg=="}})
    );
    assert_eq!(user[2]["type"], "document");
    assert_eq!(user[2]["source"]["media_type"], "application/pdf");
    let result = &b["messages"][2]["content"][0];
    assert_eq!(result["type"], "tool_result");
    assert_eq!(result["content"][1]["type"], "image");
    assert_eq!(b["messages"][2]["content"][2]["source"], json!({"type": "url", "url": "https://example.com/cat.jpg"}));
    snapshot!(b);
}

#[test]
fn anthropic_plain_text_document_is_a_text_source() {
    let msgs = [Message::user_parts(vec![
        Part::text_document("line one", Some("notes.txt".into())),
        Part::text("Summarise."),
    ])];
    let b = anthropic::encode(&ChatRequest::new(&msgs, &[], &ChatOptions::default()), "claude-sonnet-4-5", false);
    assert_eq!(
        b["messages"][0]["content"][0],
        json!({"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "line one"}, "title": "notes.txt"})
    );
}

#[test]
fn gemini_inline_data_and_file_data() {
    let msgs = conversation();
    let b = gemini::encode(&ChatRequest::new(&msgs, &[], &ChatOptions::default()));
    let parts = &b["contents"][0]["parts"];
    assert_eq!(parts[1], json!({"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgoAAAANSUhEUg=="}}));
    assert_eq!(parts[2]["inlineData"]["mimeType"], "application/pdf");
    let tool_turn = &b["contents"][2]["parts"];
    assert!(tool_turn[0].get("functionResponse").is_some());
    assert_eq!(tool_turn[1]["inlineData"]["mimeType"], "image/png", "the tool's image follows its response");
    assert_eq!(tool_turn[3], json!({"fileData": {"mimeType": "image/jpeg", "fileUri": "https://example.com/cat.jpg"}}));
    snapshot!(b);
}

/// Zhipu's recorded vision request (a text part and a JPEG data URL) is read back into
/// parts and written again exactly as recorded.
#[test]
fn recorded_vision_request_decodes_to_parts_and_encodes_back() {
    let Some(root) = common::fixtures_dir() else { return };
    let case = root.join("openai-compatible/zhipu/text_vision_cached_tokens.request.json");
    let recorded: Value = serde_json::from_slice(&std::fs::read(case).unwrap()).unwrap();
    let content = recorded["messages"][0]["content"].as_array().unwrap();
    let parts: Vec<Part> = content.iter().map(|p| openai::decode_content_part(p).unwrap()).collect();
    assert_eq!(parts[1].kind(), PartKind::Image);
    assert_eq!(parts[1].media().unwrap().media_type, "image/jpeg");
    let msgs = [Message::user_parts(parts)];
    let p = Preset::find("zhipu").unwrap();
    let b = openai::encode(&ChatRequest::new(&msgs, &[], &ChatOptions::default()), "glm-4.6v", &p.quirks, false);
    assert_eq!(b["messages"], recorded["messages"]);
}

#[test]
fn facade_part_decoders_refuse_what_they_cannot_keep() {
    let e = openai::decode_content_part(&json!({"type": "image_url", "image_url": {"url": "file:///etc/passwd"}}));
    assert!(e.unwrap_err().contains("http(s)"));
    let e = openai_responses::decode_input_part(&json!({"type": "input_file", "file_id": "file-1"}));
    assert!(e.unwrap_err().contains("file ids are not kept"));
    let f = openai_responses::decode_input_part(
        &json!({"type": "input_file", "filename": "a.pdf", "file_data": "data:application/pdf;base64,JVBERg=="}),
    );
    assert_eq!(f.unwrap().kind(), PartKind::Pdf);
}

/// A part the catalogue says the model cannot take fails before anything is sent (the
/// server here would answer anything), naming the model and the kind; declaring the
/// capability for the model lets the same request through.
#[tokio::test]
async fn a_part_the_model_cannot_take_fails_before_sending() {
    use lucid::model::catalogue::Capabilities;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let hits = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = hits.clone();
    tokio::spawn(async move {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        while let Ok((mut s, _)) = listener.accept().await {
            counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let mut buf = vec![0u8; 1 << 16];
            let _ = s.read(&mut buf).await;
            let body = r#"{"choices":[{"index":0,"message":{"role":"assistant","content":"a cat"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1}}"#;
            let _ = s
                .write_all(format!("HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}", body.len()).as_bytes())
                .await;
        }
    });
    let base = format!("http://{addr}/v1");
    let msgs = [Message::user_parts(vec![Part::text("What is it?"), Part::image_bytes("image/png", PNG.to_vec())])];
    let options = ChatOptions::default();
    let text_only = Preset::find("deepseek").unwrap().client().key("k").base_url(&base).build().unwrap();
    let err = text_only.chat(ChatRequest::new(&msgs, &[], &options)).await.unwrap_err();
    let shown = err.to_string();
    assert!(shown.contains("deepseek-chat") && shown.contains("image"), "{shown}");
    assert_eq!(hits.load(std::sync::atomic::Ordering::SeqCst), 0, "nothing was sent");

    let declared = Preset::find("deepseek")
        .unwrap()
        .client()
        .key("k")
        .base_url(&base)
        .accepts(Capabilities::IMAGE)
        .build()
        .unwrap();
    let answer = declared.chat(ChatRequest::new(&msgs, &[], &options)).await.unwrap();
    assert_eq!(answer.message.content, "a cat");
    assert_eq!(hits.load(std::sync::atomic::Ordering::SeqCst), 1);
}

fn png_of(w: u32, h: u32) -> Vec<u8> {
    let mut png = PNG.to_vec();
    png.extend_from_slice(&w.to_be_bytes());
    png.extend_from_slice(&h.to_be_bytes());
    png
}

#[test]
fn the_budget_counts_images_documents_and_audio() {
    use lucid::tokens::{Heuristic, estimate_message, part_tokens};
    let text = Message::user("What is it?");
    let with_image =
        Message::user_parts(vec![Part::text("What is it?"), Part::image_bytes("image/png", png_of(1024, 1024))]);
    assert_eq!(estimate_message(&with_image) - estimate_message(&text), 1399, "Anthropic's w·h/750 beats OpenAI's 765");
    // A small image: OpenAI's one tile (255) is more than Anthropic's 100·100/750.
    assert_eq!(part_tokens(&Heuristic, &Part::image_bytes("image/png", png_of(100, 100))), 255);
    // A 4000×3000 photo: fitted to 1568×1176 for Anthropic (2459), OpenAI 6 tiles (1105).
    assert_eq!(part_tokens(&Heuristic, &Part::image_bytes("image/png", png_of(4000, 3000))), 2459);
    let gif = b"GIF89a\x40\x01\xc8\x00".to_vec(); // 320×200
    assert_eq!(part_tokens(&Heuristic, &Part::image_bytes("image/gif", gif)), 255);
    let pdf = b"%PDF-1.4 /Type /Pages /Type /Page x /Type/Page y".to_vec();
    assert_eq!(part_tokens(&Heuristic, &Part::pdf(pdf)), 6_000, "two pages");
    let mut wav = b"RIFF\0\0\0\0WAVEfmt ".to_vec();
    wav.resize(44, 0);
    wav[28..32].copy_from_slice(&16_000u32.to_le_bytes());
    wav.extend(std::iter::repeat_n(0u8, 32_000));
    assert_eq!(part_tokens(&Heuristic, &Part::audio_bytes("audio/wav", wav)), 64, "two seconds at 32 a second");
}

/// Trimming elides an old tool result whole, images included: never half a part, and
/// never an elided text beside an image still sent.
#[test]
fn trimming_drops_a_tool_results_parts_whole() {
    use lucid::context::{Context, ContextLimits};
    let mut c = Context::new(None);
    for m in conversation().into_iter().skip(1).take(3) {
        c.push(m);
    }
    c.push(Message::assistant("It is a screenshot."));
    c.push(Message::user("Thanks."));
    let before = c.estimated_tokens();
    c.trim(&ContextLimits { max_messages: None, max_tokens: Some(before - 1) });
    let tool = c.messages().iter().find_map(|m| if let Message::Tool(r) = m { Some(r.clone()) } else { None });
    let r = tool.expect("eliding the old output was enough: the turn stays");
    assert_eq!(r.content, lucid::context::ELIDED_OUTPUT);
    assert!(r.parts.is_empty(), "{r:?}");
    assert!(c.estimated_tokens() < before);
}

/// A tool's attached image goes to a model that takes images as a part of its result,
/// and is described (never sent) to one that does not.
#[tokio::test]
async fn a_tools_image_reaches_a_seeing_model_and_is_described_to_a_blind_one() {
    use lucid::model::catalogue::Capabilities;
    use lucid::tool::{Tool, ToolContext, ToolError, ToolSpec};
    use lucid_mock::{MockServer, Reply, text_completion, tool_call_completion};

    struct Screenshot(ToolSpec);
    impl Tool for Screenshot {
        fn spec(&self) -> &ToolSpec {
            &self.0
        }
        fn invoke<'a>(
            &'a self,
            _: Value,
            ctx: ToolContext,
        ) -> futures::future::BoxFuture<'a, Result<String, ToolError>> {
            ctx.attachments.attach(Part::image_bytes("image/png", PNG.to_vec()));
            Box::pin(async { Ok("Captured the screen.".to_string()) })
        }
    }
    for (accepts, sees) in [(Capabilities::IMAGE, true), (Capabilities::TEXT, false)] {
        let server = MockServer::sequence(vec![
            Reply::json(200, &tool_call_completion(&[("call_s", "screenshot", "{}")])),
            Reply::json(200, &text_completion("A login form.")),
        ])
        .await;
        let model = Preset::find("vllm")
            .unwrap()
            .client()
            .model("m")
            .base_url(server.url() + "/v1")
            .accepts(accepts)
            .build()
            .unwrap();
        let spec =
            ToolSpec::new("screenshot", "Takes a screenshot.", json!({"type": "object", "properties": {}})).unwrap();
        let agent = lucid::Agent::builder(model).tool(Screenshot(spec)).build();
        let r = agent.run("What is on the screen?").await.unwrap();
        assert_eq!(r.content, "A login form.");
        let second = server.requests()[1].json();
        let msgs = second["messages"].as_array().unwrap();
        let tool = msgs.iter().find(|m| m["role"] == "tool").unwrap();
        let after = msgs.last().unwrap();
        if sees {
            assert_eq!(after["role"], "user", "{second}");
            assert_eq!(after["content"][1]["type"], "image_url");
        } else {
            assert_eq!(after["role"], "tool", "no image follows for a model that cannot see: {second}");
            assert!(tool["content"].as_str().unwrap().contains("not shown: this model takes no image input"), "{tool}");
        }
    }
}
