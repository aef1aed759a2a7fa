//! Images and documents through the real binary against the strict mock's image scenario
//! (`lucid_mock::images`, which checks every part the way the APIs do): `lucid run
//! --attach` (repeatable, kinds read from the bytes), `--input` requests with
//! attachments, a model that cannot take images refused before sending, sessions that
//! keep and export attachments, and `/attach` in `lucid chat`.

mod common;

use std::process::Output;
use std::time::Duration;

use common::{lucid_command, text};
use lucid_mock::MockServer;
use lucid_mock::images::image_handler;
use serde_json::{Value, json};

const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01";
const PDF: &[u8] = b"%PDF-1.4\n1 0 obj << /Type /Page >> endobj\n%%EOF\n";

fn dir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("lucid-attach-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

async fn lucid(args: Vec<String>, stdin: Option<String>, env: Vec<(&'static str, String)>) -> Output {
    tokio::task::spawn_blocking(move || {
        let mut cmd = lucid_command();
        cmd.args(&args).env("PATH", std::env::var("PATH").unwrap_or_default()).env("HOME", std::env::temp_dir());
        for (k, v) in env {
            cmd.env(k, v);
        }
        match stdin {
            None => cmd.output().unwrap(),
            Some(input) => {
                use std::io::Write;
                let mut child = cmd
                    .stdin(std::process::Stdio::piped())
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .unwrap();
                child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
                child.wait_with_output().unwrap()
            }
        }
    })
    .await
    .unwrap()
}

fn args(server: &MockServer, rest: &[&str]) -> Vec<String> {
    let mut a = vec!["run".to_string(), "--base-url".into(), server.url(), "-m".into(), "m".into()];
    a.extend(rest.iter().map(|s| s.to_string()));
    a
}

#[tokio::test(flavor = "multi_thread")]
async fn run_attach_sends_parts_sniffed_from_content_and_sessions_keep_them() {
    let server = MockServer::start(image_handler()).await;
    let d = dir("run");
    // Misleading names: the kind comes from the bytes.
    let shot = d.join("shot.dat");
    std::fs::write(&shot, PNG).unwrap();
    let report = d.join("report.txt");
    std::fs::write(&report, PDF).unwrap();
    let db = d.join("s.db").display().to_string();
    let out = lucid(
        args(
            &server,
            &[
                "--attach",
                &shot.display().to_string(),
                "--attach",
                &report.display().to_string(),
                "--session",
                "look",
                "--store",
                &db,
                "What is in these?",
            ],
        ),
        None,
        vec![],
    )
    .await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout).trim(),
        format!("I see: image/png ({} bytes), application/pdf ({} bytes).", PNG.len(), PDF.len())
    );
    let sent = server.requests()[0].json();
    let content = &sent["messages"].as_array().unwrap().last().unwrap()["content"];
    assert_eq!(content[0], json!({"type": "text", "text": "What is in these?"}));
    assert_eq!(content[2]["file"]["filename"], "report.txt");

    // The session kept them: the JSON export carries the bytes, the Markdown one links files.
    let js = lucid(
        vec![
            "sessions".into(),
            "--store".into(),
            db.clone(),
            "export".into(),
            "look".into(),
            "--format".into(),
            "json".into(),
        ],
        None,
        vec![],
    )
    .await;
    let v: Value = serde_json::from_slice(&js.stdout).unwrap();
    assert_eq!(v["messages"][0]["parts"][1]["media_type"], "image/png");
    assert_eq!(v["messages"][0]["parts"][1]["data"], "iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB");
    let files = d.join("files");
    let md = lucid(
        vec![
            "sessions".into(),
            "--store".into(),
            db.clone(),
            "export".into(),
            "look".into(),
            "--attachments".into(),
            files.display().to_string(),
        ],
        None,
        vec![],
    )
    .await;
    let md = text(&md.stdout);
    assert!(md.contains("- attached [[image shot.dat: image/png, 24 bytes]]("), "{md}");
    let extracted: Vec<_> = std::fs::read_dir(&files).unwrap().flatten().map(|e| e.path()).collect();
    assert_eq!(extracted.len(), 2);
    assert!(extracted.iter().any(|p| std::fs::read(p).unwrap() == PNG));

    // A second run of the session sends the stored image again, from the store.
    let again = lucid(args(&server, &["--session", "look", "--store", &db, "And now?"]), None, vec![]).await;
    assert_eq!(again.status.code(), Some(0), "stderr: {}", text(&again.stderr));
    assert!(text(&again.stdout).contains("image/png (24 bytes)"), "{}", text(&again.stdout));
}

#[tokio::test(flavor = "multi_thread")]
async fn input_requests_carry_attachments_by_path_or_base64() {
    let server = MockServer::start(image_handler()).await;
    let d = dir("input");
    let shot = d.join("shot.png");
    std::fs::write(&shot, PNG).unwrap();
    let request = json!({"text": "Compare them.", "attachments": [
        {"path": shot.display().to_string()},
        {"data": "JVBERi0xLjQK", "name": "tiny.pdf"}
    ]});
    let out = lucid(args(&server, &["--input", "-"]), Some(request.to_string()), vec![]).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["content"], "I see: image/png (24 bytes), application/pdf (9 bytes).");

    let bad = json!({"text": "x", "attachments": [{"data": "AAEC"}]});
    let out = lucid(args(&server, &["--input", "-"]), Some(bad.to_string()), vec![]).await;
    assert_eq!(out.status.code(), Some(2));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["error"]["field"], "attachments[0].mediaType", "{v}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_model_that_cannot_see_is_refused_before_sending_and_junk_is_not_attached() {
    let server = MockServer::start(image_handler()).await;
    let d = dir("refuse");
    let shot = d.join("shot.png");
    std::fs::write(&shot, PNG).unwrap();
    let out = lucid(
        vec![
            "run".into(),
            "--provider".into(),
            "deepseek".into(),
            "--base-url".into(),
            server.url(),
            "-m".into(),
            "deepseek-chat".into(),
            "--attach".into(),
            shot.display().to_string(),
            "What is it?".into(),
        ],
        None,
        vec![("DEEPSEEK_API_KEY", "k".into())],
    )
    .await;
    assert_ne!(out.status.code(), Some(0));
    let err = text(&out.stderr);
    assert!(err.contains("deepseek-chat") && err.contains("does not take image input"), "{err}");
    assert!(server.requests().is_empty(), "nothing was sent");

    // Declared in the configuration, the same model may see.
    let config = d.join("config.toml");
    std::fs::write(&config, "[providers.deepseek]\naccepts = \"image\"\n").unwrap();
    let out = lucid(
        vec![
            "--config".into(),
            config.display().to_string(),
            "run".into(),
            "--provider".into(),
            "deepseek".into(),
            "--base-url".into(),
            server.url(),
            "-m".into(),
            "deepseek-chat".into(),
            "--attach".into(),
            shot.display().to_string(),
            "What is it?".into(),
        ],
        None,
        vec![("DEEPSEEK_API_KEY", "k".into())],
    )
    .await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    assert_eq!(text(&out.stdout).trim(), "I see: image/png (24 bytes).");

    let junk = d.join("junk.png");
    std::fs::write(&junk, [0u8, 159, 146, 150, 255]).unwrap();
    let out = lucid(args(&server, &["--attach", &junk.display().to_string(), "x"]), None, vec![]).await;
    assert_ne!(out.status.code(), Some(0));
    assert!(text(&out.stderr).contains("neither an image"), "{}", text(&out.stderr));
}

#[tokio::test(flavor = "multi_thread")]
async fn chat_attach_sends_the_file_with_the_next_message() {
    let server = MockServer::start(image_handler()).await;
    let url = server.url();
    let d = dir("chat");
    std::fs::write(d.join("shot.png"), PNG).unwrap();
    let dd = d.clone();
    tokio::task::spawn_blocking(move || {
        let mut cmd = lucid_command();
        cmd.args(["chat", "--base-url", &url, "-m", "m"])
            .arg("--store")
            .arg(dd.join("sessions.db"))
            .current_dir(&dd)
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", &dd)
            .env("TERM", "xterm")
            .env("NO_COLOR", "1");
        let mut p = expectrl::Session::spawn(cmd).expect("spawn lucid chat");
        p.set_expect_timeout(Some(Duration::from_secs(20)));
        p.expect("> ").unwrap();
        p.send_line("/attach shot.png").unwrap();
        p.expect("(attached [image shot.png: image/png, 24 bytes]: it goes with your next message)").unwrap();
        p.expect("> ").unwrap();
        p.send_line("What is this?").unwrap();
        p.expect("I see: image/png (24 bytes).").unwrap();
        p.expect("> ").unwrap();
        // A pasted path of an image is attached too.
        p.send_line(format!("'{}'", dd.join("shot.png").display())).unwrap();
        p.expect("(attached [image shot.png").unwrap();
        p.expect("> ").unwrap();
        p.send_line("/exit").unwrap();
    })
    .await
    .unwrap();
    let last = server.requests().last().unwrap().json();
    let user = last["messages"].as_array().unwrap().iter().rev().find(|m| m["role"] == "user").unwrap().clone();
    assert_eq!(user["content"][1]["type"], "image_url");
}
