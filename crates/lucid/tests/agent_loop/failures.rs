//! What fails outside the tools: 429s, quotas, 5xx and retries, a cut or malformed stream, an unreachable server, arguments cut by max_tokens; each a clear error with the history still valid.

use super::*;

#[tokio::test]
async fn rate_limit_429_is_retried_after_the_wait_the_server_asks() {
    let limited = Reply::json(
        429,
        &json!({"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}}),
    )
    .with_header("retry-after-ms", "300");
    let server = MockServer::sequence(vec![limited, ok(text_completion("hi"))]).await;
    let mut s = agent(&server).session();
    let started = Instant::now();
    let r = s.run("hello").await.unwrap();
    assert_eq!(r.content, "hi");
    assert!(started.elapsed() >= Duration::from_millis(300), "the Retry-After wait was not honoured");
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn exhausted_quota_429_is_not_retried() {
    let quota = Reply::json(
        429,
        &json!({"error": {"message": "You exceeded your current quota", "type": "insufficient_quota", "code": "insufficient_quota"}}),
    );
    let server = MockServer::sequence(vec![quota, ok(text_completion("never"))]).await;
    let mut s = agent(&server).session();
    let err = s.run("hello").await.unwrap_err();
    match &err {
        Error::Model(ModelError::Provider(p)) => {
            assert_eq!(p.kind, ProviderErrorKind::QuotaExhausted);
            assert!(!p.retryable);
        }
        other => panic!("expected a provider error, got {other:?}"),
    }
    assert!(err.to_string().contains("429 insufficient_quota: You exceeded your current quota"), "{err}");
    assert_eq!(server.requests().len(), 1);
    assert!(validate(s.messages()).is_ok());
}

#[tokio::test]
async fn server_error_503_is_retried_then_succeeds() {
    let server = MockServer::sequence(vec![
        Reply::json(503, &json!({"error": {"message": "overloaded", "type": "server_error"}})),
        Reply::json(502, &json!({"error": "bad gateway"})),
        ok(text_completion("back")),
    ])
    .await;
    let r = agent(&server).session().run("hello").await.unwrap();
    assert_eq!(r.content, "back");
    assert_eq!(server.requests().len(), 3);
}

#[tokio::test]
async fn retries_stop_at_the_limit_with_the_providers_message() {
    let err503 = || Reply::json(503, &json!({"error": {"message": "still overloaded", "type": "server_error"}}));
    let server = MockServer::sequence(vec![err503(), err503(), err503(), err503(), err503()]).await;
    let err = agent(&server).session().run("hello").await.unwrap_err();
    assert!(err.to_string().contains("still overloaded"));
    assert_eq!(server.requests().len(), 4, "one try and three retries");
}

#[tokio::test]
async fn a_stream_cut_mid_answer_is_a_clear_error_and_the_history_stays_valid() {
    let server = MockServer::sequence(vec![
        Reply::sse(&tool_call_stream(&[("c1", "add", r#"{"a":2,"b":3}"#)])),
        Reply::sse(&text_stream(&["The answer", " is", " 5."])).cut_after(2).with_delay(Duration::from_millis(20)),
    ])
    .await;
    let mut s = agent(&server).session();
    let mut events = s.run_stream("2+3");
    let mut last = None;
    while let Some(ev) = events.next().await {
        last = Some(ev);
    }
    drop(events);
    match last {
        Some(AgentEvent::Error(e)) => assert!(matches!(e, Error::Model(ModelError::StreamTruncated { .. })), "{e}"),
        other => panic!("expected an error event, got {other:?}"),
    }
    assert!(validate(s.messages()).is_ok());
    assert_eq!(s.messages().len(), 4, "system, user, assistant call, tool result, nothing half-written");
    assert_eq!(server.requests().len(), 2, "a stream is never retried after its first token");
}

#[tokio::test]
async fn network_failure_is_a_clear_error() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let m = OpenAiCompatible::new(&format!("http://127.0.0.1:{port}/v1"), None, "m")
        .unwrap()
        .with_transport(HttpTransport::builder().retry(RetryPolicy::none()).build().unwrap());
    let mut s = Agent::builder(Arc::new(m)).build().session();
    let err = s.run("hello").await.unwrap_err();
    assert!(matches!(err, Error::Model(ModelError::Network { retryable: true, .. })), "{err:?}");
    assert!(
        err.to_string().starts_with(&format!("could not reach openai at http://127.0.0.1:{port}/v1/chat/completions")),
        "{err}"
    );
    assert!(validate(s.messages()).is_ok());
}

#[tokio::test]
async fn arguments_cut_by_max_tokens_end_the_turn_naming_the_limit() {
    let mut cut = tool_call_completion(&[("c1", "add", r#"{"a": 2, "b"#)]);
    cut["choices"][0]["finish_reason"] = json!("length");
    let server = MockServer::sequence(vec![ok(cut), ok(text_completion("sorry"))]).await;
    let mut s = agent(&server).session();
    let r = s.run("2+3").await.unwrap();
    // Not executed, and the model is not asked again (it would hit the same limit).
    assert_eq!(r.stop_reason, StopReason::OutputLimit);
    assert_eq!(server.requests().len(), 1);
    assert_eq!(r.tool_calls[0].output, None);
    let why = r.stop_message.as_deref().unwrap();
    assert!(why.contains("`add`") && why.contains("output token limit") && why.contains("max_tokens"), "{why}");
    // The history stays valid: the cut call is answered "not executed".
    assert!(validate(s.messages()).is_ok());
    let Some(Message::Tool(t)) = s.messages().last() else { panic!("{:?}", s.messages()) };
    assert!(t.is_error && t.content.contains("cut off by the output token limit"));
}

#[tokio::test]
async fn a_malformed_body_is_a_decode_error_and_the_history_stays_valid() {
    let garbage =
        Reply::Body { status: 200, headers: vec![], content_type: "application/json", body: "{\"choices\": [".into() };
    let server =
        MockServer::sequence(vec![ok(tool_call_completion(&[("c1", "add", r#"{"a":1,"b":1}"#)])), garbage]).await;
    let mut s = agent(&server).session();
    let err = s.run("1+1").await.unwrap_err();
    assert!(matches!(err, Error::Model(ModelError::Decode { .. })), "{err:?}");
    assert!(err.to_string().contains("could not decode"), "{err}");
    assert!(validate(s.messages()).is_ok());
    assert_eq!(s.messages().len(), 4, "the completed tool round is kept");
}

#[tokio::test]
async fn an_error_inside_a_200_stream_is_reported_with_its_message() {
    let server = MockServer::sequence(vec![Reply::sse(&[
        json!({"choices": [{"index": 0, "delta": {"content": "Hel"}}]}),
        json!({"error": {"message": "The server had an error while processing your request.", "type": "server_error"}}),
    ])])
    .await;
    let mut s = agent(&server).session();
    let events: Vec<AgentEvent> = s.run_stream("hi").collect().await;
    match events.last() {
        Some(AgentEvent::Error(Error::Model(ModelError::Provider(p)))) => {
            assert!(p.mid_stream && p.retryable);
            assert_eq!(p.message, "The server had an error while processing your request.");
        }
        other => panic!("expected a provider error, got {other:?}"),
    }
    assert!(validate(s.messages()).is_ok());
}
