//! `raw-bench`: the `lucid-bench` task done by hand with reqwest and serde_json — the
//! floor Lucid's overhead is measured against. Same arguments, same JSON line
//! (`"client": "raw-reqwest"`).

use std::time::Instant;

use anyhow::{Context, bail};
use lucid_bench::{BenchArgs, Mode, PROMPT, SYSTEM, TaskOutcome, bench};
use serde_json::{Value, json};

fn tools() -> Value {
    json!([{"type": "function", "function": {
        "name": "add", "description": "Adds two integers.",
        "parameters": {"type": "object", "properties": {
            "a": {"type": "integer", "description": "first operand"},
            "b": {"type": "integer", "description": "second operand"}},
            "required": ["a", "b"], "additionalProperties": false}}}])
}

struct Call {
    id: String,
    name: String,
    arguments: String,
}

async fn post(client: &reqwest::Client, url: &str, body: &Value) -> anyhow::Result<reqwest::Response> {
    let resp = client.post(url).bearer_auth("sk-mock").json(body).send().await?;
    if !resp.status().is_success() {
        bail!("HTTP {}", resp.status());
    }
    Ok(resp)
}

/// One call without streaming: (text, tool calls).
async fn call_json(client: &reqwest::Client, url: &str, body: &Value) -> anyhow::Result<(String, Vec<Call>)> {
    let v: Value = post(client, url, body).await?.json().await?;
    let msg = &v["choices"][0]["message"];
    let calls = msg["tool_calls"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|c| Call {
                    id: c["id"].as_str().unwrap_or_default().to_string(),
                    name: c["function"]["name"].as_str().unwrap_or_default().to_string(),
                    arguments: c["function"]["arguments"].as_str().unwrap_or_default().to_string(),
                })
                .collect()
        })
        .unwrap_or_default();
    Ok((msg["content"].as_str().unwrap_or_default().to_string(), calls))
}

/// One streamed call: (text, tool calls, time of the first text).
async fn call_sse(
    client: &reqwest::Client,
    url: &str,
    body: &Value,
    started: Instant,
) -> anyhow::Result<(String, Vec<Call>, Option<std::time::Duration>)> {
    let mut resp = post(client, url, body).await?;
    let mut buf: Vec<u8> = Vec::new();
    let (mut text, mut calls, mut ttft) = (String::new(), Vec::<Call>::new(), None);
    while let Some(chunk) = resp.chunk().await? {
        buf.extend_from_slice(&chunk);
        while let Some(end) = buf.windows(2).position(|w| w == b"\n\n") {
            let event: Vec<u8> = buf.drain(..end + 2).collect();
            let line = std::str::from_utf8(&event)?.trim();
            let Some(data) = line.strip_prefix("data: ") else {
                continue;
            };
            if data == "[DONE]" {
                return Ok((text, calls, ttft));
            }
            let v: Value = serde_json::from_str(data)?;
            let delta = &v["choices"][0]["delta"];
            if let Some(t) = delta["content"].as_str().filter(|t| !t.is_empty()) {
                ttft.get_or_insert_with(|| started.elapsed());
                text.push_str(t);
            }
            for c in delta["tool_calls"].as_array().into_iter().flatten() {
                let i = c["index"].as_u64().unwrap_or(0) as usize;
                if i >= calls.len() {
                    calls.push(Call {
                        id: c["id"].as_str().unwrap_or_default().to_string(),
                        name: c["function"]["name"].as_str().unwrap_or_default().to_string(),
                        arguments: String::new(),
                    });
                }
                calls[i].arguments.push_str(c["function"]["arguments"].as_str().unwrap_or_default());
            }
        }
    }
    bail!("the stream ended without [DONE]")
}

async fn task(client: reqwest::Client, url: String, tools: Value, mode: Mode) -> anyhow::Result<TaskOutcome> {
    let started = Instant::now();
    let stream = mode == Mode::Stream;
    let mut messages = vec![json!({"role": "system", "content": SYSTEM}), json!({"role": "user", "content": PROMPT})];
    let mut body = json!({"model": "gpt-4o-mini", "messages": messages, "tools": tools});
    if stream {
        body["stream"] = json!(true);
        body["stream_options"] = json!({"include_usage": true});
    }
    let (_, calls, _) = if stream {
        call_sse(&client, &url, &body, started).await?
    } else {
        call_json(&client, &url, &body).await.map(|(t, c)| (t, c, None))?
    };
    let call = calls.first().context("the model did not call the tool")?;
    if call.name != "add" {
        bail!("unexpected tool {}", call.name);
    }
    let args: Value = serde_json::from_str(&call.arguments)?;
    let sum = args["a"].as_i64().context("a")? + args["b"].as_i64().context("b")?;
    messages.push(json!({"role": "assistant", "content": null, "tool_calls": [
        {"id": call.id, "type": "function", "function": {"name": call.name, "arguments": call.arguments}}]}));
    messages.push(json!({"role": "tool", "tool_call_id": call.id, "content": sum.to_string()}));
    body["messages"] = Value::Array(messages);
    let (text, _, ttft) = if stream {
        call_sse(&client, &url, &body, started).await?
    } else {
        call_json(&client, &url, &body).await.map(|(t, c)| (t, c, None))?
    };
    Ok(TaskOutcome { answer: text, ttft })
}

fn main() -> anyhow::Result<()> {
    let process_start = Instant::now();
    lucid_bench::init_logging();
    let args = BenchArgs::parse(std::env::args())?;
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    runtime.block_on(async move {
        // The settings of Lucid's default transport (`lucid::model::http::HttpTransport`):
        // a production client sets timeouts, and each adds a timer to every exchange, so
        // the floor must pay for them too for the comparison to be like for like.
        // reqwest is built without a TLS crypto provider (as in Lucid): ring, installed
        // directly so that this client owes nothing to Lucid.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let client = reqwest::Client::builder()
            .connect_timeout(std::time::Duration::from_secs(10))
            .timeout(std::time::Duration::from_secs(600))
            .read_timeout(std::time::Duration::from_secs(120))
            .user_agent("raw-bench")
            .build()?;
        let url = format!("{}/chat/completions", args.base_url.trim_end_matches('/'));
        let tools = tools();
        let mode = args.mode;
        bench("raw-reqwest", "reqwest 0.13", &args, process_start, move || {
            task(client.clone(), url.clone(), tools.clone(), mode)
        })
        .await
    })
}
