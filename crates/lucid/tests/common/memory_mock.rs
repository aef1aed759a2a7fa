//! A mock model for the memory tests: a window that answers OpenAI's over-length 400, a
//! faithful summariser, and an answer that says whether the recalled memory holds the fact.

use std::sync::Arc;
use std::time::Duration;

use lucid::memory::{RECALL_HEADER, TOPIC_BREAK};
use lucid::model::OpenAiCompatible;
use lucid::model::http::HttpTransport;
use lucid::model::retry::RetryPolicy;
use lucid_mock::{MockServer, RecordedRequest, Reply, text_completion};
use serde_json::{Value, json};

pub const TOPICS: &[&str] = &[
    "roman republic senate consuls",
    "sourdough bread starter flour",
    "geostationary satellite orbit altitude",
    "jazz harmony tritone substitution",
    "rust lifetimes borrowing checker",
    "wetland birdwatching herons egrets",
    "competitive chess openings endgames",
    "balcony tomatoes watering pots",
];

pub const FACT: &str = "Remember this: my cat's name is Tom and he is a grey tabby.";

/// Whether a request is a summary call (its system prompt is the summariser's).
pub fn is_summary(body: &Value) -> bool {
    body["messages"][0]["content"].as_str().is_some_and(|s| s.contains("compress conversations"))
}

/// Tokens as the mock's model counts them: 4 characters of message text each.
pub fn tokens(body: &Value) -> usize {
    body["messages"].as_array().unwrap().iter().map(|m| m["content"].as_str().unwrap_or_default().len()).sum::<usize>()
        / 4
}

pub fn reply(text: &str, prompt_tokens: usize) -> Reply {
    let mut answer = text_completion(text);
    answer["usage"] =
        json!({"prompt_tokens": prompt_tokens, "completion_tokens": 4, "total_tokens": prompt_tokens + 4});
    Reply::json(200, &answer)
}

/// The user lines of a summary call's transcript.
pub fn said(body: &Value) -> Vec<String> {
    let transcript = body["messages"][1]["content"].as_str().unwrap_or_default();
    transcript.lines().filter_map(|l| l.strip_prefix("user: ")).map(str::to_string).collect()
}

/// A model with a `window`-token window answering OpenAI's real over-length 400, and a
/// faithful summariser that keeps what the user said; with `mark_topics` it puts a topic
/// break between lines about different topics, as the prompt asks.
pub fn server(window: usize, mark_topics: bool) -> impl Fn(&RecordedRequest) -> Reply + Send + Sync + 'static {
    move |req| {
        let body = req.json();
        let n = tokens(&body);
        if n > window {
            return Reply::json(
                400,
                &json!({"error": {"message": format!("This model's maximum context length is {window} tokens. However, your messages resulted in {n} tokens. Please reduce the length of the messages."),
                        "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}}),
            );
        }
        if is_summary(&body) {
            // Questions are not facts: a summary keeps what the user stated.
            let lines: Vec<String> = said(&body).into_iter().filter(|l| !l.contains('?')).collect();
            let mut out = String::new();
            for (i, l) in lines.iter().enumerate() {
                let topic = |s: &str| TOPICS.iter().position(|t| s.contains(t));
                if mark_topics && i > 0 && topic(l) != topic(&lines[i - 1]) {
                    out.push_str(&format!("\n{TOPIC_BREAK}\n"));
                }
                out.push_str(&format!("The user said: {l} "));
            }
            let out = if out.is_empty() { "The user only asked questions." } else { out.trim() };
            return reply(out, n);
        }
        let messages = body["messages"].as_array().unwrap();
        let last = messages.last().unwrap()["content"].as_str().unwrap_or_default();
        let recall = messages.iter().filter_map(|m| m["content"].as_str()).find(|c| c.starts_with(RECALL_HEADER));
        let answer = match recall {
            Some(r) if last.contains("cat's name") && r.contains("my cat's name is Tom") => "Your cat is Tom.".into(),
            _ => format!("noted {}", &last[..last.len().min(12)]),
        };
        reply(&answer, n)
    }
}

pub fn model(server: &MockServer) -> Arc<OpenAiCompatible> {
    no_retry_model(server, Duration::from_secs(30))
}

pub fn no_retry_model(server: &MockServer, timeout: Duration) -> Arc<OpenAiCompatible> {
    let transport = HttpTransport::builder()
        .retry(RetryPolicy { max_retries: 0, ..Default::default() })
        .request_timeout(timeout)
        .build()
        .unwrap();
    Arc::new(OpenAiCompatible::new(&server.url(), None, "local").unwrap().with_transport(transport))
}

/// Turn `i` of the scripted conversation: the fact first, then topics five turns each.
pub fn line(i: usize) -> String {
    if i == 1 {
        return FACT.into();
    }
    let topic = TOPICS[(i / 5) % TOPICS.len()];
    format!("{topic}: part {} of turn {i:03}", i % 5)
}
