//! Budgets and cost through the agent's loop against a local server: each limit stops the
//! run before the model call that would pass it, with its own stop reason and the spend
//! reported; a model without a price costs "unknown", never zero.

use std::sync::Arc;

use lucid::agent::budget::{Budget, Limits};
use lucid::model::OpenAiCompatible;
use lucid::model::prices::Price;
use lucid::store::InMemoryStore;
use lucid::{Agent, AgentBuilder, StopReason};
use lucid_mock::{MockServer, RecordedRequest, Reply, text_completion, tool_call_completion};

/// Always asks for the calculator (30 prompt + 10 answer tokens a call), unless the last
/// message says `stop`.
fn looping(req: &RecordedRequest) -> Reply {
    let body = req.json();
    let last = body["messages"].as_array().and_then(|m| m.last().cloned()).unwrap_or_default();
    if last["content"].as_str().is_some_and(|c| c.contains("stop")) {
        return Reply::json(200, &text_completion("stopped"));
    }
    Reply::json(200, &tool_call_completion(&[("c", "calculator", r#"{"expression": "1+1"}"#)]))
}

fn agent(server: &MockServer) -> AgentBuilder {
    Agent::builder(Arc::new(OpenAiCompatible::new(&server.url(), None, "m").unwrap()))
        .tool(lucid_tools::calculator)
        .max_iterations(50)
}

#[tokio::test]
async fn max_model_calls_stops_the_run_before_the_next_call() {
    let server = MockServer::start(looping).await;
    let budget = Budget::default().run(Limits::default().max_model_calls(2));
    let r = agent(&server).budget(budget).build().run("go").await.unwrap();
    assert_eq!(r.stop_reason, StopReason::BudgetExceeded);
    assert_eq!((r.iterations, server.requests().len()), (2, 2));
    assert_eq!(r.usage.input_tokens + r.usage.output_tokens, 80);
    let why = r.stop_message.unwrap();
    assert!(why.contains("the run's max_model_calls (2) is reached"), "{why}");
    assert!(why.contains("80 tokens in 2 model calls"), "{why}");
    assert_eq!(r.cost_usd, None, "the model `m` has no price: unknown, not zero");
}

/// The number after `before` in `text`.
fn number_after(text: &str, before: &str) -> f64 {
    let at = text.find(before).unwrap_or_else(|| panic!("no `{before}` in {text}")) + before.len();
    let digits: String = text[at..].chars().take_while(|c| c.is_ascii_digit() || *c == '.').collect();
    digits.trim_end_matches('.').parse().unwrap()
}

#[tokio::test]
async fn max_total_tokens_counts_the_next_prompt() {
    let server = MockServer::start(looping).await;
    let budget = Budget::default().run(Limits::default().max_total_tokens(300));
    let r = agent(&server).budget(budget).build().run("go").await.unwrap();
    assert_eq!(r.stop_reason, StopReason::BudgetExceeded);
    assert!(r.iterations >= 2, "{}", r.iterations);
    assert_eq!(server.requests().len(), r.iterations, "the call that would pass was not made");
    let spent = r.usage.input_tokens + r.usage.output_tokens;
    assert_eq!(spent, 40 * r.iterations as u64);
    assert!(spent <= 300);
    let why = r.stop_message.unwrap();
    assert!(why.contains("the run's max_total_tokens (300) would be passed by the next model call"), "{why}");
    let next = number_after(&why, "its prompt is about ");
    assert!(spent as f64 + next > 300.0, "{why}");
    assert!(why.contains(&format!("{spent} tokens in {} model calls", r.iterations)), "{why}");
}

#[tokio::test]
async fn max_cost_stops_before_the_call_that_would_pass_it_and_reports_the_cost() {
    let server = MockServer::start(looping).await;
    // $1000 per million prompt tokens, answers free: each call costs $0.03.
    let budget = Budget::default().run(Limits::default().max_cost(0.25));
    let r = agent(&server).price("m", Price::new(1000.0, 0.0)).budget(budget).build().run("go").await.unwrap();
    assert_eq!(r.stop_reason, StopReason::BudgetExceeded);
    let cost = r.cost_usd.unwrap();
    assert!((cost - 0.03 * r.iterations as f64).abs() < 1e-9, "{cost}");
    assert!(cost <= 0.25 && r.iterations >= 2, "{cost} in {} calls", r.iterations);
    assert_eq!(server.requests().len(), r.iterations);
    let why = r.stop_message.unwrap();
    assert!(why.contains("the run's max_cost ($0.2500) would be passed"), "{why}");
    assert!(why.contains(&format!("spent ${cost:.4}")), "{why}");
    let next = number_after(&why, "its prompt alone is about $");
    assert!(cost + next > 0.25, "{why}");
}

#[tokio::test]
async fn a_cost_limit_without_a_price_makes_no_call() {
    let server = MockServer::start(looping).await;
    let budget = Budget::default().run(Limits::default().max_cost(1.0));
    let r = agent(&server).budget(budget).build().run("go").await.unwrap();
    assert_eq!(r.stop_reason, StopReason::BudgetExceeded);
    assert_eq!(server.requests().len(), 0);
    assert!(r.stop_message.unwrap().contains("the price of the model is unknown"));
}

#[tokio::test]
async fn a_session_budget_holds_across_turns_and_processes() {
    let server = MockServer::start(looping).await;
    let store = Arc::new(InMemoryStore::new(10));
    let budget = Budget::default().session(Limits::default().max_model_calls(3));
    let make = || agent(&server).price("m", Price::new(1.0, 2.0)).store(store.clone()).budget(budget).build();
    // Turn 1: a tool call and the answer, 2 calls.
    let mut first = make().session_with_id("s").await.unwrap();
    let r = first.run("stop").await.unwrap();
    assert_eq!((r.stop_reason, r.iterations), (StopReason::Completed, 1));
    assert_eq!(r.cost_usd, Some((20.0 * 1.0 + 5.0 * 2.0) / 1e6));
    let r = first.run("go").await.unwrap();
    assert_eq!((r.stop_reason, r.iterations), (StopReason::BudgetExceeded, 2));
    // Another agent (another process) loads the session: its spend comes with it.
    let mut again = make().session_with_id("s").await.unwrap();
    assert_eq!(again.spent().model_calls, 3);
    let before = server.requests().len();
    let r = again.run("stop").await.unwrap();
    assert_eq!((r.stop_reason, r.iterations), (StopReason::BudgetExceeded, 0));
    assert_eq!(server.requests().len(), before, "no call made");
    assert!(r.stop_message.unwrap().contains("the session's max_model_calls (3) is reached"));
}
