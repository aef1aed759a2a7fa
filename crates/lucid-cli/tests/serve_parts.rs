//! `lucid serve`'s OpenAI facades take images and files from the official Python SDK:
//! Chat Completions `image_url` parts and Responses `input_image`/`input_file` parts reach
//! the model (the strict mock's image scenario checks them) as the model's own parts.

mod common;

use std::process::Command;

use common::{real_part, test_dir, text};
use lucid_mock::MockServer;
use lucid_mock::images::image_handler;
use serde_json::Value;

const SCRIPT: &str = r#"
import base64, json, sys
from openai import OpenAI, BadRequestError
url, key = sys.argv[1], sys.argv[2]
c = OpenAI(base_url=url + "/v1", api_key=key)
png = base64.b64encode(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01").decode()
pdf = base64.b64encode(b"%PDF-1.4\n%%EOF\n").decode()
out = {}
r = c.chat.completions.create(model="default", messages=[{"role": "user", "content": [
    {"type": "text", "text": "What is this?"},
    {"type": "image_url", "image_url": {"url": "data:image/png;base64," + png}}]}])
out["chat"] = r.choices[0].message.content
r = c.responses.create(model="default", input=[{"role": "user", "content": [
    {"type": "input_text", "text": "And these?"},
    {"type": "input_image", "image_url": "data:image/png;base64," + png},
    {"type": "input_file", "filename": "a.pdf", "file_data": "data:application/pdf;base64," + pdf}]}])
out["responses"] = r.output_text
try:
    c.responses.create(model="default", input=[{"role": "user", "content": [
        {"type": "input_file", "file_id": "file-123"}]}])
    out["file_id"] = "accepted"
except BadRequestError as e:
    out["file_id"] = [e.status_code, e.body.get("message") if isinstance(e.body, dict) else str(e.body)]
print(json.dumps(out))
"#;

#[tokio::test(flavor = "multi_thread")]
async fn the_openai_sdk_sends_images_and_files_through_both_facades() {
    let Some(python) = real_part("LUCID_TEST_OPENAI_PYTHON", ".ci/run installs PyPI's openai in a venv and sets it")
    else {
        return;
    };
    let mock = MockServer::start(image_handler()).await;
    let dir = test_dir("serve-parts");
    let config = dir.join("config.toml");
    std::fs::write(
        &config,
        format!("base_url = \"{}/v1\"\nmodel = \"mock-model\"\ncontext_window = 8192\ntools = []\n", mock.url()),
    )
    .unwrap();
    let (mut child, url) = serve(&dir, &config, &[]);
    let out = tokio::task::spawn_blocking(move || {
        Command::new(python).args(["-c", SCRIPT, &url, "acme-key-0123456789"]).output().unwrap()
    })
    .await
    .unwrap();
    let _ = child.kill();
    let _ = child.wait();
    assert!(out.status.success(), "the SDK script failed:\n{}", text(&out.stderr));
    let got: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(got["chat"], "I see: image/png (24 bytes).", "{got}");
    assert_eq!(got["responses"], "I see: image/png (24 bytes), application/pdf (15 bytes).", "{got}");
    assert_eq!(got["file_id"][0], 400, "{got}");
    assert!(got["file_id"][1].as_str().unwrap_or_default().contains("file ids are not kept"), "{got}");
    let sent = mock.requests();
    let user = &sent[0].json()["messages"];
    let last = user.as_array().unwrap().last().unwrap();
    assert_eq!(last["content"][1]["type"], "image_url", "the model got the image as a part: {last}");
}

/// `lucid serve` with `config` (and `extra` flags): the server, its URL.
fn serve(dir: &std::path::Path, config: &std::path::Path, extra: &[&str]) -> (std::process::Child, String) {
    let mut cmd = common::lucid_command();
    cmd.args(["serve", "--listen", "127.0.0.1:0", "--store"])
        .arg(dir.join("serve.db"))
        .arg("--config")
        .arg(config)
        .args(extra)
        .current_dir(dir)
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", dir)
        .env("LUCID_SERVE_API_KEYS", "acme:acme-key-0123456789");
    let (child, url, _) = tokio::task::block_in_place(|| common::until_listening(&mut cmd));
    (child, url)
}

/// A screenshot-sized image (1.5 MiB, 2 MiB in base64) passes `[serve] max_body_mib = 3`
/// and reaches the model whole; `--max-body-mib 1` (the default) refuses the same body
/// with 413, and a limit past 64 MiB is a configuration error naming it.
#[tokio::test(flavor = "multi_thread")]
async fn the_body_limit_is_set_by_the_configuration_or_the_flag() {
    let mock = MockServer::start(image_handler()).await;
    let dir = test_dir("serve-body-limit");
    let config = dir.join("config.toml");
    std::fs::write(
        &config,
        format!(
            "base_url = \"{}/v1\"\nmodel = \"mock-model\"\ncontext_window = 8192\ntools = []\n\n[serve]\nmax_body_mib = 3\n",
            mock.url()
        ),
    )
    .unwrap();
    let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01".to_vec();
    png.resize(1536 * 1024, 0);
    let data = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, &png);
    let body = serde_json::json!({"model": "default", "messages": [{"role": "user", "content": [
        {"type": "text", "text": "What is this?"},
        {"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{data}")}}]}]});
    let post = |url: String| {
        let body = body.clone();
        async move {
            let r = lucid::model::http::reqwest_client_builder()
                .build()
                .unwrap()
                .post(format!("{url}/v1/chat/completions"))
                .bearer_auth("acme-key-0123456789")
                .json(&body)
                .send()
                .await
                .unwrap();
            (r.status().as_u16(), r.text().await.unwrap())
        }
    };
    let (mut child, url) = serve(&dir, &config, &[]);
    let (status, answer) = post(url).await;
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(status, 200, "{answer}");
    assert!(answer.contains(&format!("I see: image/png ({} bytes)", png.len())), "{answer}");
    let (mut child, url) = serve(&dir, &config, &["--max-body-mib", "1"]);
    let (status, answer) = post(url).await;
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(status, 413, "{answer}");
    std::fs::write(&config, "[serve]\nmax_body_mib = 65\n").unwrap();
    let out = common::run_in(
        &dir,
        &["serve", "--listen", "127.0.0.1:0", "--config", config.to_str().unwrap()],
        &[("LUCID_SERVE_API_KEYS", "acme:acme-key-0123456789")],
    )
    .await;
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("max_body_mib must be from 1 to 64, not 65"), "{}", text(&out.stderr));
}
