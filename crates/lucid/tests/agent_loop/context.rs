//! The context window: trimming keeps whole turns and the system prompt, a long conversation fits a small window, an over-length error trims harder once, and the catalogue's budgets.

use super::*;

#[tokio::test]
async fn trimming_keeps_whole_turns_and_the_system_prompt() {
    let server = MockServer::start(|_| ok(text_completion("fine"))).await;
    let agent = Agent::builder(model(&server, fast_retry())).system("sys").max_messages(4).build();
    let mut s = agent.session();
    for i in 0..5 {
        s.run(format!("turn {i}")).await.unwrap();
    }
    let last = server.requests().pop().unwrap().json();
    assert_eq!(roles(&last), ["system", "user", "assistant", "user"]);
    assert_eq!(last["messages"][1]["content"], "turn 3");
}

/// A server whose model holds `window` tokens (counted as 4 characters of message text
/// each) and answers OpenAI's real over-length 400 when a request exceeds it.
fn windowed_server(window: usize) -> impl Fn(&lucid_mock::RecordedRequest) -> Reply + Send + Sync + 'static {
    move |req| {
        let body = req.json();
        let messages = body["messages"].as_array().unwrap();
        let chars: usize = messages.iter().map(|m| m["content"].as_str().unwrap_or_default().len()).sum();
        let tokens = chars / 4;
        if tokens > window {
            return Reply::json(
                400,
                &json!({"error": {"message": format!("This model's maximum context length is {window} tokens. However, your messages resulted in {tokens} tokens. Please reduce the length of the messages."),
                        "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}}),
            );
        }
        let last = messages.last().unwrap()["content"].as_str().unwrap_or_default();
        let mut answer = text_completion(&format!("noted {}", &last[..last.len().min(12)]));
        // The usage a real server reports: the agent calibrates its estimate by it.
        answer["usage"] = json!({"prompt_tokens": tokens, "completion_tokens": 4, "total_tokens": tokens + 4});
        Reply::json(200, &answer)
    }
}

#[tokio::test]
async fn a_long_conversation_stays_within_a_small_window_and_is_never_stuck() {
    let server = MockServer::start(windowed_server(4_000)).await;
    let model = OpenAiCompatible::new(&server.url(), None, "local").unwrap();
    let agent = Agent::builder(model).context_window(4_000, 500).build();
    assert_eq!(agent.context_budget(), Some(3_500));
    let mut s = agent.session();
    for turn in 0..60 {
        // About 300 tokens each: the window holds about a dozen turns.
        let said = format!("turn {turn:03} {}", "lorem ipsum dolor sit amet ".repeat(44));
        let r = s.run(said).await.unwrap_or_else(|e| panic!("turn {turn}: {e}"));
        assert!(r.content.starts_with(&format!("noted turn {turn:03}")), "{}", r.content);
    }
    let refused = server.requests().len() - 60;
    assert_eq!(refused, 0, "no request went over the window");
    assert!(validate(s.messages()).is_ok());
}

#[tokio::test]
async fn an_over_length_error_trims_harder_and_tries_once_more() {
    // The model's real window is smaller than the agent was told.
    let server = MockServer::start(windowed_server(2_000)).await;
    let model = OpenAiCompatible::new(&server.url(), None, "local").unwrap();
    let agent = Agent::builder(model).context_window(16_000, 1_000).build();
    let mut s = agent.session();
    for turn in 0..12 {
        let said = format!("turn {turn:03} {}", "lorem ipsum dolor sit amet ".repeat(44));
        let r = s.run(said).await.unwrap_or_else(|e| panic!("turn {turn}: {e}"));
        assert!(r.content.starts_with(&format!("noted turn {turn:03}")), "{}", r.content);
        assert_eq!(r.iterations, 1, "the retry is not an iteration");
    }
    let reqs = server.requests();
    assert!(reqs.len() > 12 && reqs.len() < 24, "at most one retry per turn: {} requests", reqs.len());
    // A single turn larger than the window cannot be trimmed: a clear error, the session valid.
    let err = s.run("x".repeat(9_000)).await.unwrap_err();
    assert!(matches!(err.provider(), Some(e) if e.is_context_overflow()), "{err:?}");
    assert!(validate(s.messages()).is_ok());
}

#[test]
fn the_catalogue_gives_known_models_a_budget_and_leaves_unknown_ones_alone() {
    let known = OpenAiCompatible::new("http://127.0.0.1:9/v1", None, "gpt-4o-mini").unwrap();
    let agent = Agent::builder(known).tool(add).build();
    let budget = agent.context_budget().unwrap();
    assert!(budget < 128_000 - 16_384 && budget > 100_000, "{budget}");
    let unknown = OpenAiCompatible::new("http://127.0.0.1:9/v1", None, "my-finetune").unwrap();
    assert_eq!(Agent::builder(unknown).build().context_budget(), None);
}
