//! Sessions and runs: a task, bad input, a lost stream resumed, questions, cancels, the OpenAI facade.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_runs_a_task_keeps_its_messages_and_is_counted() {
    let api = start("basic", bench_handler(), |c| c).await;
    let id = api.session().await;
    let (status, run) = api.post(&format!("/v1/sessions/{id}/runs"), json!({"input": "What is 2 + 3?"})).await;
    assert_eq!(status, 200, "{run}");
    assert_eq!(run["status"], "completed", "{run}");
    assert_eq!(run["result"]["content"], "The answer is 5.");
    assert_eq!(run["result"]["tool_calls"][0]["output"], "5");
    let (_, again) = api.get(&format!("/v1/runs/{}", run["id"].as_str().unwrap())).await;
    assert_eq!((again["status"].as_str(), again["session_id"].as_str()), (Some("completed"), Some(id.as_str())));

    let (status, session) = api.get(&format!("/v1/sessions/{id}")).await;
    assert_eq!(status, 200);
    let roles: Vec<&str> =
        session["messages"].as_array().unwrap().iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["user", "assistant", "tool", "assistant"]);
    assert_eq!(session["metadata"]["user"], "u1");

    let second = api.session().await;
    let (_, page) = api.get("/v1/sessions?limit=1").await;
    assert_eq!((page["data"].as_array().unwrap().len(), page["has_more"].as_bool()), (1, Some(true)));
    let (_, rest) = api.get("/v1/sessions?limit=1&offset=1").await;
    assert_eq!(rest["has_more"], false);
    let listed = [page["data"][0]["id"].as_str().unwrap(), rest["data"][0]["id"].as_str().unwrap()];
    assert!(listed.contains(&id.as_str()) && listed.contains(&second.as_str()), "{listed:?}");

    let resp = api.req(reqwest::Method::DELETE, &format!("/v1/sessions/{second}")).send().await.unwrap();
    assert_eq!(resp.status().as_u16(), 204);
    assert_eq!(api.get(&format!("/v1/sessions/{second}")).await.0, 404);

    let (status, health) = api.get("/healthz").await;
    assert_eq!((status, health["status"].as_str()), (200, Some("ok")));
    assert_eq!(api.get("/readyz").await.0, 200);
    let metrics = api.req(reqwest::Method::GET, "/metrics").send().await.unwrap().text().await.unwrap();
    for line in [
        "lucid_runs_total{status=\"completed\"} 1",
        "lucid_model_calls_total 2",
        "lucid_tool_calls_total{outcome=\"ok\"} 1",
    ] {
        assert!(metrics.lines().any(|l| l == line), "{line} missing from:\n{metrics}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_gets_its_status_and_loses_nothing() {
    let gate = Arc::new(tokio::sync::Barrier::new(3));
    let api = start("bad-input", gated(&gate), |c| c.max_runs_per_tenant(2).body_limit(4096)).await;
    let id = api.session().await;
    let runs = format!("/v1/sessions/{id}/runs");

    // Labelled JSON (without keys an unlabelled body is a 415, see tests/edge.rs).
    let json_body =
        |body: String| api.req(reqwest::Method::POST, &runs).header("content-type", "application/json").body(body);
    let resp = json_body("{\"input\": ".into()).send().await.unwrap();
    assert_eq!(resp.status().as_u16(), 400);
    assert_eq!(error_code(&resp.json().await.unwrap()), "invalid_json");
    let resp = json_body(format!("{{\"input\": \"{}\"}}", "x".repeat(5000))).send().await.unwrap();
    assert_eq!(resp.status().as_u16(), 413);
    assert_eq!(error_code(&resp.json().await.unwrap()), "body_too_large");
    let (status, body) = api.post(&runs, json!({"input": 3})).await;
    assert_eq!(
        (status, body["error"]["message"].as_str()),
        (400, Some("`input`: must be a string or a list of content parts, not a number"))
    );
    let (status, body) = api.post(&runs, json!({"input": "hi", "temperature": 2})).await;
    assert_eq!(status, 400);
    assert!(body["error"]["message"].as_str().unwrap().starts_with("`temperature`: unknown field"), "{body}");
    let (status, body) = api.post("/v1/sessions", json!({"agent": "nobody"})).await;
    assert_eq!(status, 400);
    assert!(body["error"]["message"].as_str().unwrap().starts_with("`agent`: no agent `nobody`"), "{body}");
    assert_eq!(body["error"]["type"], "invalid_request_error");
    let (status, body) = api.post("/v1/sessions/sess_nope/runs", json!({"input": "hi"})).await;
    assert_eq!((status, error_code(&body)), (404, "not_found"));
    assert_eq!(api.get("/v1/runs/run_nope").await.0, 404);
    let (status, body) = api.get("/v1/sessions?limit=many").await;
    assert_eq!(
        (status, body["error"]["message"].as_str()),
        (400, Some("`limit`: must be a whole number from 0 to 100"))
    );

    // A run held at the gate; a second run of the same session is refused.
    let first = api
        .req(reqwest::Method::POST, &runs)
        .json(&json!({"input": "What is 2 + 3?", "stream": true}))
        .send()
        .await
        .unwrap();
    assert_eq!(first.status().as_u16(), 200);
    let run_id = first.headers()["lucid-run-id"].to_str().unwrap().to_string();
    let (status, body) = api.post(&runs, json!({"input": "And 4 + 5?"})).await;
    assert_eq!((status, error_code(&body)), (409, "session_busy"));
    let resp = api.req(reqwest::Method::DELETE, &format!("/v1/sessions/{id}")).send().await.unwrap();
    assert_eq!(resp.status().as_u16(), 409, "a session with a run going is not deleted");
    // The tenant's second slot goes to another session's run; a third is one too many.
    let other = api.session().await;
    let second = api
        .req(reqwest::Method::POST, &format!("/v1/sessions/{other}/runs"))
        .json(&json!({"input": "What is 2 + 3?", "stream": true}))
        .send()
        .await
        .unwrap();
    assert_eq!(second.status().as_u16(), 200);
    let third_session = api.session().await;
    let resp = api
        .req(reqwest::Method::POST, &format!("/v1/sessions/{third_session}/runs"))
        .json(&json!({"input": "hi"}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 429);
    assert_eq!(resp.headers()["retry-after"], "1");
    assert_eq!(error_code(&resp.json().await.unwrap()), "too_many_runs");

    // Both held requests pass the gate with the test's own; each run finishes whole.
    let (a, b, ()) = tokio::join!(first.text(), second.text(), pass_gate(&api));
    for text in [a.unwrap(), b.unwrap()] {
        let events = parse_sse(&text);
        assert_eq!(events.last().unwrap().event.as_deref(), Some("completed"), "{text}");
    }
    let (_, run) = api.get(&format!("/v1/runs/{run_id}")).await;
    assert_eq!(run["status"], "completed");
    let (_, session) = api.get(&format!("/v1/sessions/{id}")).await;
    assert_eq!(session["messages"].as_array().unwrap().len(), 4, "only the accepted run's turn: {session}");
    assert_eq!(session["messages"][0]["content"], "What is 2 + 3?");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_lost_the_stream_resumes_after_its_last_event_id_and_sees_each_event_once() {
    // Slow chunks: the run is still going when the client comes back.
    let handler = |req: &RecordedRequest| {
        let body = String::from_utf8_lossy(&req.body).into_owned();
        let reply = if body.contains("\"role\":\"tool\"") {
            Reply::sse(&text_stream(&["The ", "answer ", "is ", "5."]))
        } else {
            Reply::sse(&tool_call_stream(&[("call_1", "add", r#"{"a": 2, "b": 3}"#)]))
        };
        reply.with_delay(Duration::from_millis(15))
    };
    let api = start("resume", handler, |c| c).await;
    let id = api.session().await;
    let resp = api
        .req(reqwest::Method::POST, &format!("/v1/sessions/{id}/runs"))
        .json(&json!({"input": "What is 2 + 3?", "stream": true}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.headers()["content-type"], "text/event-stream");
    let run_id = resp.headers()["lucid-run-id"].to_str().unwrap().to_string();
    // Read until the first two events arrived, then drop the connection.
    let mut seen = String::new();
    let mut resp = resp;
    while parse_sse(&seen).len() < 2 || !seen.ends_with("\n\n") {
        seen.push_str(&String::from_utf8_lossy(&resp.chunk().await.unwrap().unwrap()));
    }
    drop(resp);
    let before = parse_sse(&seen);
    let last = before.last().unwrap().id.unwrap();
    let rest = body_text(
        api.req(reqwest::Method::GET, &format!("/v1/runs/{run_id}/events")).header("Last-Event-ID", last.to_string()),
    )
    .await;
    let after = parse_sse(&rest);
    let all = parse_sse(&body_text(api.req(reqwest::Method::GET, &format!("/v1/runs/{run_id}/events"))).await);
    let joined: Vec<Sse> = before.into_iter().chain(after).collect();
    assert_eq!(joined, all, "every event once, in order");
    let ids: Vec<u64> = all.iter().map(|e| e.id.unwrap()).collect();
    assert_eq!(ids, (1..=all.len() as u64).collect::<Vec<_>>());
    let text: String = all
        .iter()
        .filter(|e| e.event.as_deref() == Some("text_delta"))
        .map(|e| serde_json::from_str::<Value>(&e.data).unwrap()["text"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(text, "The answer is 5.");
    let kinds: Vec<&str> = all.iter().filter_map(|e| e.event.as_deref()).filter(|k| *k != "text_delta").collect();
    assert_eq!(kinds, ["iteration", "tool_call_started", "tool_call_finished", "iteration", "completed"]);
    let (status, body) = api
        .req(reqwest::Method::GET, &format!("/v1/runs/{run_id}/events"))
        .header("Last-Event-ID", "soon")
        .send()
        .await
        .map(|r| r.status().as_u16())
        .map(|s| (s, ()))
        .unwrap();
    assert_eq!((status, body), (400, ()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_that_asks_the_user_waits_for_input_then_goes_on() {
    let handler = |req: &RecordedRequest| {
        let body = String::from_utf8_lossy(&req.body).into_owned();
        let reply = if body.contains("Paris") {
            text_stream(&["Paris it is."])
        } else {
            tool_call_stream(&[("call_q", "ask_user", r#"{"questions": ["Which city?"]}"#)])
        };
        Reply::sse(&reply)
    };
    let api = start("input", handler, |c| c).await;
    let id = api.session().await;
    let (_, run) = api.post(&format!("/v1/sessions/{id}/runs"), json!({"input": "Book a trip"})).await;
    assert_eq!(run["status"], "needs_input", "{run}");
    assert_eq!(run["result"]["questions"], json!(["Which city?"]));
    let run_id = run["id"].as_str().unwrap();
    let (status, body) = api.post(&format!("/v1/runs/{run_id}/input"), json!({})).await;
    assert_eq!((status, body["error"]["message"].as_str()), (400, Some("`input`: required")));
    let (status, done) = api.post(&format!("/v1/runs/{run_id}/input"), json!({"input": "Paris"})).await;
    assert_eq!(status, 200, "{done}");
    assert_eq!(
        (done["status"].as_str(), done["result"]["content"].as_str()),
        (Some("completed"), Some("Paris it is."))
    );
    let (status, body) = api.post(&format!("/v1/runs/{run_id}/input"), json!({"input": "again"})).await;
    assert_eq!((status, error_code(&body)), (409, "run_not_waiting"));
    let all = parse_sse(&body_text(api.req(reqwest::Method::GET, &format!("/v1/runs/{run_id}/events"))).await);
    let ids: Vec<u64> = all.iter().map(|e| e.id.unwrap()).collect();
    assert_eq!(ids, (1..=all.len() as u64).collect::<Vec<_>>(), "the numbering goes on after the answer");
    assert!(all.iter().any(|e| e.event.as_deref() == Some("needs_input")));
    assert_eq!(all.last().unwrap().event.as_deref(), Some("completed"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_run_stops_and_its_session_takes_the_next() {
    // The first model call would take minutes; the others answer at once.
    let calls = std::sync::atomic::AtomicUsize::new(0);
    let arrived = Arc::new(tokio::sync::Notify::new());
    let (inner, signal) = (bench_handler(), Arc::clone(&arrived));
    let handler = move |req: &RecordedRequest| match calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst) {
        0 => {
            signal.notify_one();
            Reply::sse(&text_stream(&["never"])).with_delay(Duration::from_secs(300))
        }
        _ => inner(req),
    };
    let api = start("cancel", handler, |c| c).await;
    let id = api.session().await;
    let stream = api
        .req(reqwest::Method::POST, &format!("/v1/sessions/{id}/runs"))
        .json(&json!({"input": "What is 2 + 3?", "stream": true}))
        .send()
        .await
        .unwrap();
    let run_id = stream.headers()["lucid-run-id"].to_str().unwrap().to_string();
    arrived.notified().await;
    let (status, run) = api.post(&format!("/v1/runs/{run_id}/cancel"), json!({})).await;
    assert_eq!((status, run["status"].as_str()), (200, Some("cancelled")), "{run}");
    let events = parse_sse(&stream.text().await.unwrap());
    assert_eq!(events.last().unwrap().event.as_deref(), Some("cancelled"));
    let (_, next) = api.post(&format!("/v1/sessions/{id}/runs"), json!({"input": "What is 2 + 3?"})).await;
    assert_eq!(next["status"], "completed", "{next}");
    let (_, session) = api.get(&format!("/v1/sessions/{id}")).await;
    let users = session["messages"].as_array().unwrap().iter().filter(|m| m["role"] == "user").count();
    assert_eq!(users, 2, "the cancelled turn's message stays, the history valid: {session}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_openai_facade_answers_streamed_and_not_with_usage() {
    let api = start("openai", bench_handler(), |c| c).await;
    let (_, models) = api.get("/v1/models").await;
    assert_eq!(models["data"][0]["id"], "default");
    assert_eq!(models["object"], "list");
    let ask = json!({"model": "default", "messages": [{"role": "user", "content": "What is 2 + 3?"}]});
    let (status, reply) = api.post("/v1/chat/completions", ask.clone()).await;
    assert_eq!(status, 200, "{reply}");
    assert_eq!(reply["object"], "chat.completion");
    assert_eq!(reply["choices"][0]["message"]["content"], "The answer is 5.");
    assert_eq!(reply["choices"][0]["finish_reason"], "stop");
    assert_eq!(reply["usage"], json!({"prompt_tokens": 50, "completion_tokens": 15, "total_tokens": 65}));

    let mut streamed = ask.clone();
    streamed["stream"] = json!(true);
    let text = body_text(api.req(reqwest::Method::POST, "/v1/chat/completions").json(&streamed)).await;
    let events = parse_sse(&text);
    assert_eq!(events.last().unwrap().data, "[DONE]");
    let chunks: Vec<Value> =
        events[..events.len() - 1].iter().map(|e| serde_json::from_str(&e.data).unwrap()).collect();
    assert!(chunks.iter().all(|c| c["object"] == "chat.completion.chunk"));
    let content: String = chunks.iter().filter_map(|c| c["choices"][0]["delta"]["content"].as_str()).collect();
    assert_eq!(content, "The answer is 5.");
    let last = chunks.last().unwrap();
    assert_eq!(last["choices"][0]["finish_reason"], "stop");
    assert_eq!(last["usage"]["total_tokens"], 65);

    let (status, body) = api.post("/v1/chat/completions", json!({"model": "gpt-9", "messages": []})).await;
    assert_eq!((status, error_code(&body)), (404, "model_not_found"));
    let tool = json!({"model": "default", "messages": [{"role": "tool", "content": "5"}]});
    let (status, body) = api.post("/v1/chat/completions", tool).await;
    assert_eq!(status, 400);
    // A `tool` message answers one of the client's tool calls: it must name one.
    assert!(body["error"]["message"].as_str().unwrap().starts_with("`messages[0].tool_call_id`"), "{body}");
}
