//! Budgets and cost in `lucid run`: each limit (flags, the configuration, a session's
//! over several runs) stops the run with exit code 3, `stop_reason: "budget_exceeded"`,
//! and the spend in the JSON; a model without a price costs `null` (unknown).

mod common;

use common::{mock_run, run_in, test_dir, text};
use lucid_mock::{MockServer, RecordedRequest, Reply, text_completion, tool_call_completion};
use serde_json::Value;

/// Asks for the calculator (30 prompt + 10 answer tokens) unless told to stop.
fn looping(req: &RecordedRequest) -> Reply {
    let body = req.json();
    let last = body["messages"].as_array().and_then(|m| m.last().cloned()).unwrap_or_default();
    if last["content"].as_str().is_some_and(|c| c.contains("stop")) {
        return Reply::json(200, &text_completion("stopped"));
    }
    Reply::json(200, &tool_call_completion(&[("c", "calculator", r#"{"expression": "1+1"}"#)]))
}

fn json_of(out: &std::process::Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out.stdout)))
}

#[tokio::test]
async fn each_run_limit_stops_the_run_with_the_spend_reported() {
    let dir = test_dir("budgets-run");
    let server = MockServer::start(looping).await;
    let url = server.url();
    let base =
        ["run", "--base-url", url.as_str(), "-m", "m", "--tools", "calculator", "--json", "--max-iterations", "40"];

    let out = run_in(&dir, &[&base[..], &["--max-model-calls", "2", "go"]].concat(), &[]).await;
    assert_eq!(out.status.code(), Some(3), "stderr: {}", text(&out.stderr));
    let v = json_of(&out);
    assert_eq!(v["stop_reason"], "budget_exceeded");
    assert_eq!(v["iterations"], 2);
    assert_eq!(v["usage"]["input_tokens"], 60);
    assert!(v["cost_usd"].is_null(), "the model `m` has no price: {v}");
    assert!(v["stop_message"].as_str().unwrap().contains("the run's max_model_calls (2) is reached"), "{v}");
    assert!(text(&out.stderr).contains("max_model_calls (2)"), "{}", text(&out.stderr));

    let before = server.requests().len();
    let out = run_in(&dir, &[&base[..], &["--max-total-tokens", "300", "go"]].concat(), &[]).await;
    assert_eq!(out.status.code(), Some(3), "stderr: {}", text(&out.stderr));
    let v = json_of(&out);
    assert_eq!(v["stop_reason"], "budget_exceeded");
    let calls = v["iterations"].as_u64().unwrap();
    assert_eq!(server.requests().len() - before, calls as usize, "no call past the limit");
    assert!(calls >= 2 && 40 * calls <= 300, "{v}");
    assert!(v["stop_message"].as_str().unwrap().contains("max_total_tokens (300) would be passed"), "{v}");

    // A cost limit with the model's price from the configuration: $1000 per million prompt
    // tokens, so each call costs $0.03.
    std::fs::write(dir.join("prices.toml"), "[prices.m]\ninput = 1000.0\noutput = 0.0\n").unwrap();
    let out = run_in(&dir, &[&base[..], &["--config", "prices.toml", "--max-cost", "0.25", "go"]].concat(), &[]).await;
    assert_eq!(out.status.code(), Some(3), "stderr: {}", text(&out.stderr));
    let v = json_of(&out);
    assert_eq!(v["stop_reason"], "budget_exceeded");
    let cost = v["cost_usd"].as_f64().unwrap();
    let calls = v["iterations"].as_f64().unwrap();
    assert!((cost - 0.03 * calls).abs() < 1e-9 && cost <= 0.25 && calls >= 1.0, "{v}");
    let why = v["stop_message"].as_str().unwrap();
    assert!(why.contains("max_cost ($0.2500) would be passed") && why.contains(&format!("spent ${cost:.4}")), "{v}");
    // The next call's prompt, as estimated, is what would have passed the limit.
    let at = why.find("its prompt alone is about $").unwrap() + "its prompt alone is about $".len();
    let next: f64 =
        why[at..].chars().take_while(|c| c.is_ascii_digit() || *c == '.').collect::<String>().parse().unwrap();
    assert!(cost + next > 0.25, "{why}");

    // Without a price, a cost limit makes no call at all.
    let before = server.requests().len();
    let out = run_in(&dir, &[&base[..], &["--max-cost", "1", "go"]].concat(), &[]).await;
    assert_eq!(out.status.code(), Some(3));
    assert!(json_of(&out)["stop_message"].as_str().unwrap().contains("price of the model is unknown"));
    assert_eq!(server.requests().len(), before);

    // A completed run reports its cost.
    let out = run_in(&dir, &[&base[..], &["--config", "prices.toml", "stop"]].concat(), &[]).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    assert_eq!(json_of(&out)["cost_usd"].as_f64(), Some(0.02));
    std::fs::remove_dir_all(dir).ok();
}

#[tokio::test]
async fn a_session_budget_from_the_configuration_holds_over_runs() {
    let dir = test_dir("budgets-session");
    let server = MockServer::start(looping).await;
    let url = server.url();
    std::fs::write(dir.join("c.toml"), "session_max_model_calls = 3\nmax_model_calls = 5\n").unwrap();
    let run = |prompt: &'static str| {
        let (dir, url) = (dir.clone(), url.clone());
        async move {
            let store = dir.join("s.db");
            let args = mock_run(
                &url,
                &[
                    "--tools",
                    "calculator",
                    "--json",
                    "--config",
                    "c.toml",
                    "--session",
                    "work",
                    "--store",
                    store.to_str().unwrap(),
                    prompt,
                ],
            );
            run_in(&dir, &args, &[]).await
        }
    };
    let out = run("stop").await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    // Two more calls, and the session's limit (3) is reached before the run's (5).
    let out = run("go").await;
    assert_eq!(out.status.code(), Some(3), "stderr: {}", text(&out.stderr));
    let v = json_of(&out);
    assert!(v["stop_message"].as_str().unwrap().contains("the session's max_model_calls (3) is reached"), "{v}");
    assert_eq!(v["iterations"], 2);
    // A third process: the session has spent its 3 calls.
    let before = server.requests().len();
    let out = run("stop").await;
    assert_eq!(out.status.code(), Some(3), "stderr: {}", text(&out.stderr));
    let v = json_of(&out);
    assert_eq!((v["stop_reason"].as_str(), v["iterations"].as_u64()), (Some("budget_exceeded"), Some(0)));
    assert!(v["stop_message"].as_str().unwrap().contains("spent an unknown cost, 105 tokens in 3 model calls"), "{v}");
    assert_eq!(server.requests().len(), before);
    // `lucid sessions show` reports the spend.
    let store = dir.join("s.db");
    let out = run_in(&dir, &["sessions", "--store", store.to_str().unwrap(), "show", "work"], &[]).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let shown = text(&out.stdout);
    assert!(shown.contains("Spent 105 tokens (80 in, 25 out) in 3 model calls, cost unknown."), "{shown}");
    std::fs::remove_dir_all(dir).ok();
}
