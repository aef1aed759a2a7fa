//! Workflows: every shape, against a local scripted model server where a model answers.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use lucid::Agent;
use lucid::model::OpenAiCompatible;
use lucid_mock::{MockServer, Reply, text_completion};
use lucid_orchestrate::workflow::{Condition, Step, Workflow, WorkflowError, WorkflowEvent};
use serde_json::{Value, json};

fn agent(server: &MockServer) -> Agent {
    Agent::builder(Arc::new(OpenAiCompatible::new(&server.url(), None, "m").unwrap())).build()
}

fn text(s: &str) -> Reply {
    Reply::json(200, &text_completion(s))
}

#[tokio::test]
async fn a_sequence_feeds_each_agent_prompt_from_earlier_outputs() {
    let server = MockServer::start(|req| {
        let prompt = req.last_user();
        if prompt.starts_with("Outline") { text("1. nests 2. diet") } else { text(&format!("DRAFT from <{prompt}>")) }
    })
    .await;
    let writer = agent(&server);
    let flow = Workflow::new("brief")
        .input("topic")
        .step(Step::agent("outline", &writer, "Outline {{ input.topic }}"))
        .step(Step::agent("draft", &writer, "Write from: {{outline}}"));
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&events);
    let run = flow.run_with_events(json!({"topic": "owls"}), move |e| sink.lock().unwrap().push(e)).await.unwrap();
    assert_eq!(run.outputs["outline"], json!("1. nests 2. diet"));
    assert_eq!(run.output, json!("DRAFT from <Write from: 1. nests 2. diet>"));
    assert_eq!(server.requests()[0].last_user(), "Outline owls");
    assert_eq!(run.steps.iter().map(|s| s.step.as_str()).collect::<Vec<_>>(), ["outline", "draft"]);
    assert_eq!(run.usage.input_tokens, 40, "both agent steps' usage is summed");
    let names: Vec<String> = events
        .lock()
        .unwrap()
        .iter()
        .map(|e| match e {
            WorkflowEvent::StepStarted { step, attempt } => format!("start {step} {attempt}"),
            WorkflowEvent::StepFinished { step, .. } => format!("done {step}"),
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(names, ["start outline 1", "done outline", "start draft 1", "done draft"]);
}

#[tokio::test]
async fn a_fan_out_runs_its_branches_at_once_and_joins_their_outputs() {
    // Both agent requests are held until the other has arrived: the join only completes if
    // they were in flight together.
    let gate = Arc::new(tokio::sync::Barrier::new(2));
    let server = MockServer::start(move |req| {
        let prompt = req.last_user();
        text(&format!("facts about {}", prompt.trim_start_matches("Research "))).behind(&gate, Duration::from_secs(10))
    })
    .await;
    let researcher = agent(&server);
    let flow = Workflow::new("fan")
        .step(Step::parallel(
            "research",
            vec![
                Step::agent("history", &researcher, "Research history"),
                Step::agent("today", &researcher, "Research today"),
                Step::func("count", |_| async { Ok(json!(2)) }),
            ],
        ))
        .step(Step::func("summary", |i| async move {
            let r = i.get("research").cloned().unwrap_or_default();
            Ok(json!(format!("{} + {}", r["history"].as_str().unwrap_or("?"), r["today"].as_str().unwrap_or("?"))))
        }));
    let run = flow.run(Value::Null).await.unwrap();
    assert_eq!(
        run.outputs["research"],
        json!({"history": "facts about history", "today": "facts about today", "count": 2})
    );
    assert_eq!(run.output, json!("facts about history + facts about today"));
    assert_eq!(run.outputs["today"], json!("facts about today"), "children's outputs are kept by name too");
}

#[tokio::test]
async fn a_branch_follows_the_condition_on_a_model_answer() {
    let server = MockServer::start(|req| {
        if req.last_user().contains("refund") { text("Category: BILLING") } else { text("Category: other") }
    })
    .await;
    let classifier = agent(&server);
    let flow = |prompt: &str| {
        Workflow::new("triage").step(Step::agent("class", &classifier, prompt.to_string())).step(Step::branch(
            "route",
            Condition::contains("class", "billing"),
            vec![Step::value("team", json!("billing"))],
            vec![Step::value("team", json!("support"))],
        ))
    };
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&events);
    let run = flow("I want a refund").run_with_events(json!({}), move |e| sink.lock().unwrap().push(e)).await.unwrap();
    assert_eq!(run.output, json!("billing"));
    assert!(events.lock().unwrap().contains(&WorkflowEvent::BranchTaken { step: "route".into(), then: true }));
    let run = flow("My screen is black").run(json!({})).await.unwrap();
    assert_eq!(run.output, json!("support"));
}

#[tokio::test]
async fn a_loop_repeats_until_its_condition_and_stops_at_its_bound() {
    let reviews = Arc::new(AtomicUsize::new(0));
    let seen = Arc::clone(&reviews);
    let server = MockServer::start(move |req| {
        let prompt = req.last_user();
        if prompt.starts_with("Review") {
            let n = seen.fetch_add(1, Ordering::SeqCst);
            text(if n == 2 { "APPROVED" } else { "needs work" })
        } else {
            text(&format!("draft v{}", prompt.trim_start_matches("Draft v")))
        }
    })
    .await;
    let writer = agent(&server);
    let body = || {
        vec![
            Step::agent("text", &writer, "Draft v{{ refine.iteration }}"),
            Step::agent("review", &writer, "Review {{ text }}"),
        ]
    };
    let flow =
        Workflow::new("refine").step(Step::repeat("refine", body(), Condition::contains("review", "approved"), 5));
    let run = flow.run(json!({})).await.unwrap();
    assert_eq!(reviews.load(Ordering::SeqCst), 3, "the loop ended at the first approval");
    assert_eq!(run.outputs["text"], json!("draft v3"));
    assert_eq!(run.output, json!("APPROVED"));

    reviews.store(0, Ordering::SeqCst);
    let bounded =
        Workflow::new("refine").step(Step::repeat("refine", body(), Condition::contains("review", "approved"), 2));
    let run = bounded.run(json!({})).await.unwrap();
    assert_eq!(reviews.load(Ordering::SeqCst), 2, "the bound stopped it");
    assert_eq!(run.output, json!("needs work"), "the last iteration's output stands");
}

#[tokio::test]
async fn a_failing_step_is_retried_then_succeeds() {
    let tries = Arc::new(AtomicUsize::new(0));
    let t = Arc::clone(&tries);
    let flaky = Step::func("fetch", move |input| {
        let n = t.fetch_add(1, Ordering::SeqCst);
        async move { if n == 0 { Err("upstream said 503".to_string()) } else { Ok(json!({"attempt": input.attempt})) } }
    })
    .retries(2)
    .retry_delay(Duration::from_millis(1));
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&events);
    let run =
        Workflow::new("w").step(flaky).run_with_events(json!({}), move |e| sink.lock().unwrap().push(e)).await.unwrap();
    assert_eq!(run.output, json!({"attempt": 2}));
    assert_eq!(run.steps[0].attempts, 2);
    let events = events.lock().unwrap().clone();
    assert!(
        matches!(&events[1], WorkflowEvent::StepFailed { attempt: 1, will_retry: true, error, .. } if error.contains("upstream said 503"))
    );
    assert!(matches!(&events[3], WorkflowEvent::StepFinished { attempt: 2, .. }));

    let always = Step::func("fetch", |_| async { Err::<Value, _>("down".to_string()) }).retries(1);
    match Workflow::new("w").step(always).run(json!({})).await.unwrap_err() {
        WorkflowError::StepFailed { step, attempts, message, .. } => {
            assert_eq!((step.as_str(), attempts, message.as_str()), ("fetch", 2, "down"));
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test(start_paused = true)]
async fn a_step_that_outlives_its_timeout_fails_after_its_retries() {
    let tries = Arc::new(AtomicUsize::new(0));
    let t = Arc::clone(&tries);
    let slow = Step::func("slow", move |_| {
        t.fetch_add(1, Ordering::SeqCst);
        async {
            tokio::time::sleep(Duration::from_secs(60)).await;
            Ok(json!("late"))
        }
    })
    .timeout(Duration::from_secs(2))
    .retries(1);
    let err = Workflow::new("w").step(slow).run(json!({})).await.unwrap_err();
    assert!(matches!(err, WorkflowError::StepTimedOut { attempts: 2, .. }), "{err:?}");
    assert_eq!(err.to_string(), "step `slow` did not finish within 2.0 s (2 attempt(s))");
    assert_eq!(tries.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn tool_steps_take_templated_arguments_and_agent_steps_can_be_structured() {
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Score {
        score: i64,
    }
    let server = MockServer::sequence(vec![text("nope"), text("{\"score\": 7}")]).await;
    let judge = agent(&server);
    let flow = Workflow::new("calc")
        .input_default("n", json!(6))
        .step(Step::agent("judge", &judge, "Score it").output::<Score>())
        .step(Step::tool(
            "sum",
            Arc::new(lucid_tools::calculator),
            json!({"expression": "{{ input.n }} * {{ judge.score }}"}),
        ));
    let run = flow.run(json!({})).await.unwrap();
    assert_eq!(run.outputs["judge"], json!({"score": 7}), "the invalid first answer was corrected");
    assert_eq!(run.output, json!(42));
    let bad = Workflow::new("calc").step(Step::tool(
        "sum",
        Arc::new(lucid_tools::calculator),
        json!({"expression": "1 / 0"}),
    ));
    assert!(bad.run(json!({})).await.unwrap_err().to_string().contains("step `sum` failed"));
}

#[tokio::test]
async fn inputs_names_and_templates_are_checked_with_clear_errors() {
    let flow = Workflow::new("w").input("topic").step(Step::value("a", json!(1)));
    assert_eq!(
        flow.run(json!({})).await.unwrap_err().to_string(),
        "the workflow needs the input `topic` (give it in the run's input, or a default in the workflow)"
    );
    let dup =
        Workflow::new("w").step(Step::value("a", json!(1))).step(Step::parallel("p", vec![Step::value("a", json!(2))]));
    assert_eq!(dup.run(json!({})).await.unwrap_err().to_string(), "invalid workflow: two steps are named `a`");
    let sides = Workflow::new("w").step(Step::branch(
        "b",
        Condition::truthy("input.x"),
        vec![Step::value("out", json!(1))],
        vec![Step::value("out", json!(2))],
    ));
    assert_eq!(sides.run(json!({"x": true})).await.unwrap().output, json!(1), "the two sides may share names");
    let server = MockServer::sequence(vec![]).await;
    let missing = Workflow::new("w").step(Step::agent("a", &agent(&server), "About {{ nothing.here }}"));
    let err = missing.run(json!({})).await.unwrap_err().to_string();
    assert!(err.contains("refers to `nothing.here`, which is not set"), "{err}");
    assert!(server.requests().is_empty(), "no model call with a broken prompt");
}

#[tokio::test]
async fn foreach_runs_its_body_per_item_some_at_a_time_and_lists_the_outputs_in_order() {
    // Three agent requests held until all three have arrived: the step completes only if
    // its concurrency lets them be in flight together.
    let gate = Arc::new(tokio::sync::Barrier::new(3));
    let server = MockServer::start(move |req| {
        let prompt = req.last_user();
        text(&format!("tests for {prompt}")).behind(&gate, Duration::from_secs(10))
    })
    .await;
    let writer = agent(&server);
    let flow = Workflow::new("per_file")
        .step(Step::func("targets", |_| async { Ok(json!(r#"["a.rs", "b.rs", "c.rs"]"#)) }))
        .step(
            Step::foreach("each", "targets", vec![Step::agent("write", &writer, "{{ each.item }} #{{ each.index }}")])
                .concurrency(3),
        );
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&events);
    let run = flow.run_with_events(Value::Null, move |e| sink.lock().unwrap().push(e)).await.unwrap();
    assert_eq!(run.output, json!(["tests for a.rs #0", "tests for b.rs #1", "tests for c.rs #2"]));
    assert!(!run.outputs.contains_key("write"), "each item's body outputs are in the list only");
    let items: Vec<usize> = events
        .lock()
        .unwrap()
        .iter()
        .filter_map(|e| match e {
            WorkflowEvent::ForEachItem { index, .. } => Some(*index),
            _ => None,
        })
        .collect();
    assert_eq!(items.len(), 3);

    // One at a time unless told otherwise: never two bodies running together.
    let running = Arc::new(AtomicUsize::new(0));
    let most = Arc::new(AtomicUsize::new(0));
    let (r, m) = (Arc::clone(&running), Arc::clone(&most));
    let body = Step::func("work", move |i| {
        let (r, m) = (Arc::clone(&r), Arc::clone(&m));
        async move {
            let now = r.fetch_add(1, Ordering::SeqCst) + 1;
            m.fetch_max(now, Ordering::SeqCst);
            tokio::task::yield_now().await;
            r.fetch_sub(1, Ordering::SeqCst);
            Ok(json!(i.get("each.item").and_then(Value::as_i64).unwrap_or(0) * 10))
        }
    });
    let flow = Workflow::new("serial").input("n").step(Step::foreach("each", "input.n", vec![body]));
    assert_eq!(flow.run(json!({"n": [1, 2, 3, 4]})).await.unwrap().output, json!([10, 20, 30, 40]));
    assert_eq!(most.load(Ordering::SeqCst), 1);
    assert_eq!(flow.run(json!({"n": []})).await.unwrap().output, json!([]));
}

#[tokio::test]
async fn foreach_over_something_not_a_list_or_with_a_failing_item_fails_the_step() {
    let flow = Workflow::new("w").input("n").step(Step::foreach("each", "input.n", vec![Step::value("v", json!(1))]));
    let err = flow.run(json!({"n": 3})).await.unwrap_err().to_string();
    assert!(err.contains("step `each` failed") && err.contains("`input.n` is not a list"), "{err}");
    let err = flow.run(json!({"n": "not json"})).await.unwrap_err().to_string();
    assert!(err.contains("`input.n` is a text, not a list"), "{err}");
    let failing = Workflow::new("w").input("n").step(Step::foreach(
        "each",
        "input.n",
        vec![Step::func("check", |i| async move {
            match i.get("each.item") {
                Some(Value::String(s)) if s == "bad" => Err("bad item".to_string()),
                other => Ok(other.cloned().unwrap_or_default()),
            }
        })],
    ));
    let err = failing.run(json!({"n": ["ok", "bad"]})).await.unwrap_err().to_string();
    assert!(err.contains("step `check` failed") && err.contains("bad item"), "{err}");
}

#[cfg(feature = "files")]
mod files {
    use super::*;
    use lucid::tool::ToolRegistry;
    use lucid_orchestrate::workflow::WorkflowFile;

    const TOML: &str = r#"
name = "brief"

[inputs.topic]
description = "what about"

[inputs.parts]
default = 2

[agents.writer]
system = "You write."

[[steps]]
name = "outline"
agent = "writer"
prompt = "Outline {{ input.topic }} in {{ input.parts }} parts"
retries = 1

[[steps]]
name = "both"
parallel = [
  { name = "area", tool = "calculator", args = { expression = "{{ input.parts }} * 10" } },
  { name = "note", value = "fixed" },
]

[[steps]]
name = "check"
[steps.branch]
if = { path = "both.area", equals = 20 }
then = [{ name = "verdict", value = "twenty" }]
else = [{ name = "verdict", value = "other" }]
"#;

    fn tools() -> ToolRegistry {
        let mut t = ToolRegistry::new();
        t.add(lucid_tools::calculator);
        t
    }

    #[tokio::test]
    async fn a_toml_workflow_runs_with_the_default_model() {
        let server = MockServer::start(|req| text(&format!("outline of <{}>", req.last_user()))).await;
        let url = server.url();
        let file = WorkflowFile::parse_toml(TOML).unwrap();
        let models = move |spec: Option<&str>| -> lucid::Result<Arc<dyn lucid::model::ChatModel>> {
            assert_eq!(spec, None, "the file names no model");
            Ok(Arc::new(OpenAiCompatible::new(&url, None, "m")?))
        };
        let flow = file.build(&models, &tools()).unwrap();
        let run = flow.run(json!({"topic": "owls"})).await.unwrap();
        assert_eq!(run.outputs["outline"], json!("outline of <Outline owls in 2 parts>"));
        assert_eq!(run.outputs["both"], json!({"area": 20, "note": "fixed"}));
        assert_eq!(run.output, json!("twenty"));
        assert_eq!(server.requests()[0].json()["messages"][0]["content"], "You write.");
    }

    #[tokio::test]
    async fn a_toml_foreach_calls_a_tool_per_item_of_an_input() {
        let toml = r#"
name = "doubles"
[inputs.numbers]

[[steps]]
name = "each"
[steps.foreach]
over = "input.numbers"
concurrency = 2
steps = [{ name = "double", tool = "calculator", args = { expression = "{{ each.item }} * 2" } }]
"#;
        let flow = WorkflowFile::parse_toml(toml).unwrap().build(&|_| unreachable!(), &tools()).unwrap();
        assert_eq!(flow.run(json!({"numbers": [1, 5, 7]})).await.unwrap().output, json!([2, 10, 14]));
    }

    #[tokio::test]
    async fn a_yaml_loop_and_file_errors() {
        let yaml = "
name: counter
steps:
  - name: count
    loop:
      max: 4
      until: { path: count.iteration, equals: 3 }
      steps:
        - name: n
          tool: calculator
          args: { expression: '{{ count.iteration }} * 2' }
";
        let flow = WorkflowFile::parse_yaml(yaml).unwrap().build(&|_| unreachable!(), &tools()).unwrap();
        assert_eq!(flow.run(json!({})).await.unwrap().output, json!(6));

        let unknown_tool = "name: x\nsteps:\n  - name: a\n    tool: shell\n";
        let err = WorkflowFile::parse_yaml(unknown_tool).unwrap().build(&|_| unreachable!(), &tools()).unwrap_err();
        assert_eq!(err.to_string(), "invalid workflow: unknown tool `shell` (available: calculator)");
        let two_kinds = "name: x\nsteps:\n  - name: a\n    value: 1\n    tool: calculator\n";
        let err = WorkflowFile::parse_yaml(two_kinds).unwrap().build(&|_| unreachable!(), &tools()).unwrap_err();
        assert!(err.to_string().contains("must have exactly one of"), "{err}");
        let zero = "name: x\nsteps:\n  - name: a\n    foreach: { over: input.n, concurrency: 0, steps: [] }\n";
        let err = WorkflowFile::parse_yaml(zero).unwrap().build(&|_| unreachable!(), &tools()).unwrap_err();
        assert!(err.to_string().contains("`concurrency` must be at least 1"), "{err}");
        let typo = "name: x\nsteps:\n  - name: a\n    valeu: 1\n";
        assert!(WorkflowFile::parse_yaml(typo).unwrap_err().to_string().contains("unknown field `valeu`"));
    }
}
