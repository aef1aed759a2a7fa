//! `lucid serve` honours every MCP server's and tool's `permission` as `lucid run` does:
//! `deny` refuses, `ask` leaves the run waiting for an approval over HTTP, `allow` runs. The
//! MCP servers are real: `lucid mcp serve` over stdio, whose `write_file` leaves a file
//! behind when a call reaches it. And a tenant's `shell` gets none of the server's
//! environment: not its API keys, not the provider's key, not a database URL.

mod common;

use std::path::Path;
use std::process::Child;

use common::test_dir;
use lucid_mock::{
    MockServer, RecordedRequest, Reply, text_completion, text_stream, tool_call_completion, tool_call_stream,
};
use serde_json::{Value, json};

/// Calls the tool the user's message names (`SERVER__TOOL {json arguments}`), then says "done".
fn calls_what_it_is_told(req: &RecordedRequest) -> Reply {
    let body = req.json();
    let stream = body["stream"] == true;
    let last = body["messages"].as_array().and_then(|m| m.last().cloned()).unwrap_or(Value::Null);
    if last["role"] == "tool" {
        return if stream { Reply::sse(&text_stream(&["done"])) } else { Reply::json(200, &text_completion("done")) };
    }
    let said = last["content"].as_str().unwrap_or_default().to_string();
    let (tool, arguments) = said.split_once(' ').unwrap_or((&said, "{}"));
    let call = [("call_1", tool, arguments)];
    if stream { Reply::sse(&tool_call_stream(&call)) } else { Reply::json(200, &tool_call_completion(&call)) }
}

/// `lucid serve` in `dir` on a free loopback port; the process and its URL once it listens.
fn serve(dir: &Path) -> (Child, String) {
    serve_with(dir, &[])
}

/// [`serve`], with these variables in the server's environment.
fn serve_with(dir: &Path, env: &[(&str, &str)]) -> (Child, String) {
    let mut cmd = common::lucid_command();
    cmd.args(["serve", "--listen", "127.0.0.1:0", "--store", "serve.db", "--config", "config.toml"])
        .current_dir(dir)
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", dir)
        .envs(env.iter().copied());
    let (child, url, _) = common::until_listening(&mut cmd);
    (child, url)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_refuses_denied_mcp_tools_waits_for_approval_of_asked_ones_and_runs_allowed_ones() {
    let mock = MockServer::start(calls_what_it_is_told).await;
    let dir = test_dir("serve-mcp-permissions");
    let work = dir.join("work");
    std::fs::create_dir_all(&work).unwrap();
    let lucid = env!("CARGO_BIN_EXE_lucid");
    // Three servers, each `lucid mcp serve` writing into `work`: one denied whole, one
    // asked (the default), one whose `write_file` alone is allowed while the rest asks.
    let server = |extra: &str| {
        format!(
            "command = {lucid:?}\nargs = [\"mcp\", \"serve\", \"--tools\", \"write_file,calculator\"]\n\
             cwd = {work:?}\nenv = {{ HOME = {work:?} }}\n{extra}\n"
        )
    };
    let config = format!(
        "base_url = \"{}/v1\"\nmodel = \"mock-model\"\ntools = []\n\
         [mcp.servers.denied]\n{}[mcp.servers.asked]\n{}[mcp.servers.mixed]\n{}",
        mock.url(),
        server("permission = \"deny\""),
        server(""),
        server("permission = \"ask\"\ntools = { write_file = \"allow\", calculator = \"deny\" }"),
    );
    std::fs::write(dir.join("config.toml"), config).unwrap();
    let (child, url) = tokio::task::block_in_place(|| serve(&dir));
    let _guard = Kill(child);
    let http = lucid::model::http::reqwest_client_builder().build().unwrap();

    let run = |input: String| {
        let (http, url) = (http.clone(), url.clone());
        async move {
            let session: Value = http
                .post(format!("{url}/v1/sessions"))
                .json(&json!({"agent": "default"}))
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            let id = session["id"].as_str().unwrap();
            let run: Value = http
                .post(format!("{url}/v1/sessions/{id}/runs"))
                .json(&json!({"input": input}))
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            if run["status"] == "needs_approval" {
                return run;
            }
            assert_eq!(run["status"], "completed", "{run}");
            run["result"]["tool_calls"][0].clone()
        }
    };
    let write =
        |server: &str, file: &str| format!("{server}__write_file {}", json!({"path": file, "content": "reached"}));

    let call = run(write("denied", "denied.txt")).await;
    assert_eq!(call["is_error"], true, "{call}");
    assert!(call["output"].as_str().unwrap().contains("permission policy: deny"), "{call}");
    // `ask` waits for an approval; denied, the call never reaches its server.
    let waiting = run(write("asked", "asked.txt")).await;
    assert_eq!(waiting["status"], "needs_approval", "{waiting}");
    let pending = &waiting["pending_approvals"];
    assert_eq!(pending[0]["tool"], "asked__write_file", "{waiting}");
    let denied: Value = http
        .post(format!("{url}/v1/runs/{}/approvals", waiting["id"].as_str().unwrap()))
        .json(&json!({"call_id": pending[0]["call_id"], "decision": "deny", "message": "Not that file."}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(denied["status"], "completed", "{denied}");
    let call = &denied["result"]["tool_calls"][0];
    assert_eq!((call["is_error"].as_bool(), call["output"].as_str()), (Some(true), Some("Not that file.")), "{denied}");
    let call = run(format!("mixed__calculator {}", json!({"expression": "2+3"}))).await;
    assert!(call["output"].as_str().unwrap().contains("permission policy: deny"), "a tool's own permission: {call}");
    let call = run(write("mixed", "allowed.txt")).await;
    assert_eq!(call["is_error"], false, "{call}");

    assert_eq!(std::fs::read_to_string(work.join("allowed.txt")).unwrap(), "reached", "the allowed call ran");
    for refused in ["denied.txt", "asked.txt"] {
        assert!(!work.join(refused).exists(), "{refused}: a refused call reached its server");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tenants_shell_gets_none_of_the_servers_environment() {
    let mock = MockServer::start(calls_what_it_is_told).await;
    let dir = test_dir("serve-tool-env");
    let config = format!(
        "base_url = \"{}/v1\"\nmodel = \"mock-model\"\ntools = [\"shell\"]\n[permissions]\nshell = \"allow\"\n",
        mock.url()
    );
    std::fs::write(dir.join("config.toml"), config).unwrap();
    let (tenant_key, other_key) = ("tenant-one-key-0123456789", "tenant-two-key-9876543210");
    let keys = format!("one:{tenant_key},two:{other_key}");
    let secrets = [
        ("LUCID_SERVE_API_KEYS", keys.as_str()),
        ("OPENAI_API_KEY", "sk-provider-secret-in-the-servers-env"),
        ("DATABASE_URL", "postgres://admin:hunter2-db-secret@db/prod"),
        ("GITHUB_TOKEN", "ghp_token-in-the-servers-env"),
        ("LUCID_TEST_SENTINEL", "sentinel-in-the-servers-env"),
    ];
    let (child, url) = tokio::task::block_in_place(|| serve_with(&dir, &secrets));
    let _guard = Kill(child);
    let http = lucid::model::http::reqwest_client_builder().build().unwrap();
    let auth = format!("Bearer {tenant_key}");
    let session: Value = http
        .post(format!("{url}/v1/sessions"))
        .header("Authorization", &auth)
        .json(&json!({"agent": "default"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let id = session["id"].as_str().unwrap();
    // The whole environment, and every visible process's through /proc (the parent's
    // included), reversed so that no redaction of a known secret could hide a leak.
    let command =
        "{ env; for f in /proc/$PPID/environ /proc/[0-9]*/environ; do tr '\\0' '\\n' < $f; done; } 2>&1 | rev";
    let run: Value = http
        .post(format!("{url}/v1/sessions/{id}/runs"))
        .header("Authorization", &auth)
        .json(&json!({"input": format!("shell {}", json!({"command": command}))}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(run["status"], "completed", "{run}");
    let call = &run["result"]["tool_calls"][0];
    assert_eq!(call["name"], "shell", "{run}");
    let output = call["output"].as_str().unwrap();
    assert!(output.contains(&"PATH=".chars().rev().collect::<String>()), "the command ran: {output}");
    for (name, value) in secrets {
        for secret in [name.to_string(), value.to_string()] {
            let reversed: String = secret.chars().rev().collect();
            assert!(!output.contains(&reversed), "{secret} reached the tool:\n{output}");
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// Kills `lucid serve` (and so its MCP servers) when the test ends, passed or not.
struct Kill(Child);

impl Drop for Kill {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
