//! One redaction for every surface: a provider key the model repeats (in a tool call's
//! arguments, through a tool's output, and in its answer cut between two streamed pieces),
//! or a client sends (in a session's metadata, a run's input), reaches no client and no
//! stored row — the stored responses of `/v1/responses` included.

mod common;

use common::{Api, body_text, parse_sse, start};
use lucid::prelude::*;
use lucid_mock::{
    MockServer, RecordedRequest, Reply, text_completion, text_stream, tool_call_completion, tool_call_stream,
};
use serde_json::{Value, json};

const KEY: &str = "sk-provider-repeated-0123456789abcdef";

/// Says the text back.
#[tool]
async fn echo(
    /// what to say
    text: String,
) -> Result<String, ToolError> {
    Ok(text)
}

/// A model that calls `echo` with the key, then answers with it, the key cut between
/// two streamed pieces.
fn repeats_the_key(req: &RecordedRequest) -> Reply {
    let body = req.json();
    let stream = body["stream"] == true;
    let called = body["messages"].as_array().is_some_and(|m| m.iter().any(|m| m["role"] == "tool"));
    let arguments = json!({"text": format!("the key is {KEY}")}).to_string();
    let call = [("call_1", "echo", arguments.as_str())];
    match (called, stream) {
        (false, true) => Reply::sse(&tool_call_stream(&call)),
        (false, false) => Reply::json(200, &tool_call_completion(&call)),
        (true, true) => Reply::sse(&text_stream(&["Your key: ", &KEY[..9], &KEY[9..20], &KEY[20..], " as asked."])),
        (true, false) => Reply::json(200, &text_completion(&format!("Your key: {KEY} as asked."))),
    }
}

async fn server(name: &str) -> (Api, MockServer) {
    let mock = MockServer::start(repeats_the_key).await;
    let model = lucid::model::OpenAiCompatible::new(&format!("{}/v1", mock.url()), Some(KEY.into()), "mock").unwrap();
    let agent = Agent::builder(model).tool(echo).build();
    (start(name, agent, |c| c).await, mock)
}

/// Every file of the server's SQLite database (the WAL included), as text.
fn stored(api: &Api) -> String {
    let mut all = String::new();
    for entry in std::fs::read_dir(&api.dir.0).unwrap() {
        let path = entry.unwrap().path();
        if path.file_name().unwrap().to_string_lossy().starts_with("serve.db") {
            all.push_str(&String::from_utf8_lossy(&std::fs::read(&path).unwrap()));
        }
    }
    all
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_the_model_repeats_reaches_no_client_and_no_stored_row() {
    let (api, mock) = server("redaction").await;
    let mut seen: Vec<(String, String)> = Vec::new();

    // A run answered whole, then the run again and its events replayed; the client itself
    // sends the key too, in the session's metadata and the run's input.
    let (status, session) = api.post("/v1/sessions", json!({"agent": "default", "metadata": {"note": KEY}})).await;
    assert_eq!((status, session["metadata"]["note"].as_str()), (201, Some("***")), "{session}");
    let id = session["id"].as_str().unwrap().to_string();
    let input = format!("What is my key? Not {KEY}?");
    let (status, run) = api.post(&format!("/v1/sessions/{id}/runs"), json!({"input": input})).await;
    assert_eq!((status, run["status"].as_str()), (200, Some("completed")), "{run}");
    assert_eq!(run["result"]["content"], "Your key: *** as asked.", "redacted, the rest kept: {run}");
    assert_eq!(run["result"]["tool_calls"][0]["output"], "the key is ***", "{run}");
    let run_id = run["id"].as_str().unwrap().to_string();
    seen.push(("run".into(), run.to_string()));
    seen.push(("GET run".into(), api.get_text(&format!("/v1/runs/{run_id}")).await));
    seen.push(("events replay".into(), api.get_text(&format!("/v1/runs/{run_id}/events")).await));
    seen.push(("session".into(), api.get_text(&format!("/v1/sessions/{id}")).await));

    // A streamed run: the key is cut between text pieces.
    let id = api.session().await;
    let streamed = body_text(
        api.req(reqwest::Method::POST, &format!("/v1/sessions/{id}/runs"))
            .json(&json!({"input": "And again?", "stream": true})),
    )
    .await;
    let events = parse_sse(&streamed);
    let text: String = events
        .iter()
        .filter(|e| e.event.as_deref() == Some("text_delta"))
        .map(|e| serde_json::from_str::<Value>(&e.data).unwrap()["text"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(text, "Your key: *** as asked.", "{streamed}");
    let completed = events.iter().find(|e| e.event.as_deref() == Some("completed")).expect("a completed event");
    assert!(completed.data.contains("Your key: *** as asked."), "{}", completed.data);
    seen.push(("stream".into(), streamed));

    // The OpenAI facade, whole and streamed.
    let ask = json!({"model": "default", "messages": [{"role": "user", "content": "Key?"}]});
    let (status, facade) = api.post("/v1/chat/completions", ask.clone()).await;
    assert_eq!(status, 200, "{facade}");
    assert_eq!(facade["choices"][0]["message"]["content"], "Your key: *** as asked.");
    seen.push(("chat.completion".into(), facade.to_string()));
    let mut streamed = ask;
    streamed["stream"] = json!(true);
    let chunks = api.req(reqwest::Method::POST, "/v1/chat/completions").json(&streamed).send().await.unwrap();
    seen.push(("chat.completion.chunk".into(), chunks.text().await.unwrap()));

    // The Responses facade, whole and streamed, both stored (the conversation with them).
    let ask = json!({"model": "default", "input": "Key?", "store": true});
    let (status, response) = api.post("/v1/responses", ask.clone()).await;
    assert_eq!(status, 200, "{response}");
    assert_eq!(response["output"][0]["content"][0]["text"], "Your key: *** as asked.");
    let id = response["id"].as_str().unwrap();
    seen.push(("response".into(), response.to_string()));
    seen.push(("GET response".into(), api.get_text(&format!("/v1/responses/{id}")).await));
    let mut streamed = ask;
    streamed["stream"] = json!(true);
    let events = api.req(reqwest::Method::POST, "/v1/responses").json(&streamed).send().await.unwrap();
    let events = events.text().await.unwrap();
    assert!(events.contains("Your key: *** as asked."), "{events}");
    seen.push(("response events".into(), events));

    seen.push(("database".into(), stored(&api)));
    assert!(stored(&api).contains("Your key: *** as asked."), "the stored rows hold the redacted answer");
    for (what, text) in &seen {
        assert!(!text.contains(KEY), "the key is in the {what}: {text}");
        for part in [&KEY[..20], &KEY[9..]] {
            assert!(!text.contains(part), "part of the key is in the {what}: {text}");
        }
    }
    let sent = mock.requests();
    assert!(
        sent.iter().all(|r| r.header("authorization") == Some(&format!("Bearer {KEY}"))),
        "the key was the model's"
    );
}
