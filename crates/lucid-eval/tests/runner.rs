//! The runner end to end: an agent on a provider (lucid-mock's server, as a real one is
//! reached: over HTTP), recorded through a cassette and replayed offline; repeats,
//! concurrency, budgets, cancellation and mismatches.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use futures::FutureExt;
use futures::future::BoxFuture;
use lucid::agent::budget::Limits;
use lucid::model::{OpenAiCompatible, ScriptedModel};
use lucid::{Agent, ToolError};
use lucid_eval::cassette::{CassetteServer, Mode};
use lucid_eval::report::Status;
use lucid_eval::run::{AgentSubject, Outcome, Runner, Subject, Trial};
use lucid_eval::{Dataset, Report};
use lucid_mock::{MockServer, RecordedRequest, Reply, text_reply, tool_call_reply};
use serde_json::json;
use tokio_util::sync::CancellationToken;

const KEY: &str = "sk-test-secret-never-on-tape";

/// The weather in a city.
#[lucid::tool]
async fn weather(city: String) -> Result<String, ToolError> {
    Ok(format!("sunny in {city}"))
}

/// A provider that adds numbers and looks up the weather with the agent's tool.
fn provider(req: &RecordedRequest) -> Reply {
    let body = req.json();
    let stream = body["stream"].as_bool().unwrap_or(false);
    let last = body["messages"].as_array().and_then(|m| m.last()).cloned().unwrap_or_default();
    if last["role"] == "tool" {
        return text_reply(stream, &format!("It is {}.", last["content"].as_str().unwrap_or_default()));
    }
    let question = req.last_user();
    if let Some(city) = question.strip_prefix("The weather in ") {
        let args = json!({"city": city.trim_end_matches('?')}).to_string();
        return tool_call_reply(stream, &[("call_1", "weather", &args)]);
    }
    let sum: Option<i64> = question
        .strip_prefix("What is ")
        .and_then(|q| q.trim_end_matches('?').split_once(" + "))
        .and_then(|(a, b)| Some(a.trim().parse::<i64>().ok()? + b.trim().parse::<i64>().ok()?));
    text_reply(stream, &sum.map_or("I do not know.".to_string(), |s| s.to_string()))
}

const DATASET: &str = r#"
name: mock
cases:
  - {name: small, inputs: "What is 2 + 2?", expected_output: "4"}
  - {name: large, inputs: "What is 1200 + 34?", expected_output: "1234"}
  - {name: negative, inputs: "What is -5 + 3?", expected_output: "-2"}
  - {name: unknown, inputs: "What is a + b?", expected_output: "I do not know."}
  - name: paris
    inputs: The weather in Paris?
    evaluators:
      - Contains: sunny in Paris
      - ToolTrajectory: {calls: [{name: weather, arguments: {city: Paris}}]}
  - name: oslo
    inputs: The weather in Oslo?
    evaluators:
      - ToolTrajectory: {calls: [{name: weather, arguments: {city: Oslo}}]}
evaluators: [EqualsExpected]
"#;

fn agent_on(url: &str, system: &str) -> Result<lucid::AgentBuilder, String> {
    let model = OpenAiCompatible::new(url, Some(KEY.to_string()), "mock-model").map_err(|e| e.to_string())?;
    Ok(Agent::builder(Arc::new(model)).system(system).tool(weather))
}

fn through_tape(system: &'static str) -> impl Fn(&Trial<'_>) -> Result<lucid::AgentBuilder, String> + Send + Sync {
    move |trial| agent_on(trial.base_url.as_deref().ok_or("no cassette")?, system)
}

fn outcomes(report: &Report) -> Vec<(String, Vec<bool>)> {
    report.cases.iter().map(|c| (c.name.clone(), c.attempts.iter().map(|a| a.passed).collect())).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_recorded_run_replays_offline_with_the_same_verdicts_and_no_key_on_tape() {
    let dataset = Dataset::from_yaml(DATASET, "mock.yaml").unwrap();
    let tapes = tempfile::tempdir().unwrap();
    let mock = MockServer::start(provider).await;
    let recorder =
        Arc::new(CassetteServer::start(Mode::Record { dir: tapes.path().into(), upstream: mock.url() }).await.unwrap());
    let subject = AgentSubject::new(through_tape("You answer briefly."));
    let recorded = Runner::new().repeats(2).concurrency(3).cassette(recorder).run(&dataset, &subject).await;
    assert_eq!(recorded.summary.passed, 6, "{:#?}", recorded.cases);
    assert_eq!(recorded.mode.as_deref(), Some("record"));
    assert_eq!(std::fs::read_dir(tapes.path()).unwrap().count(), 12);
    let paris = &recorded.cases[4].attempts[0];
    assert_eq!(paris.exchanges.len(), 2, "a tool call and the answer");
    assert_eq!(paris.calls.len(), 1);
    for entry in std::fs::read_dir(tapes.path()).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        assert!(!text.contains(KEY) && !text.to_lowercase().contains("authorization"), "{text}");
    }
    let requests_while_recording = mock.requests().len();
    drop(mock);

    let player = Arc::new(CassetteServer::start(Mode::Replay { dir: tapes.path().into() }).await.unwrap());
    let replayed = Runner::new().repeats(2).concurrency(3).cassette(player).run(&dataset, &subject).await;
    assert_eq!(replayed.mode.as_deref(), Some("replay"));
    assert_eq!(outcomes(&replayed), outcomes(&recorded));
    assert_eq!(replayed.summary.judges, recorded.summary.judges);
    for (now, then) in replayed.cases.iter().zip(&recorded.cases) {
        for (a, b) in now.attempts.iter().zip(&then.attempts) {
            assert_eq!((&a.output, &a.exchanges, &a.calls), (&b.output, &b.exchanges, &b.calls));
        }
    }
    assert_eq!(requests_while_recording, 16);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_that_changed_or_a_missing_cassette_is_reported_per_case() {
    let dataset = Dataset::from_yaml(DATASET, "mock.yaml").unwrap();
    let tapes = tempfile::tempdir().unwrap();
    let mock = MockServer::start(provider).await;
    let recorder =
        Arc::new(CassetteServer::start(Mode::Record { dir: tapes.path().into(), upstream: mock.url() }).await.unwrap());
    Runner::new().cassette(recorder).run(&dataset, &AgentSubject::new(through_tape("Be brief."))).await;
    std::fs::remove_file(lucid_eval::cassette::file_for(tapes.path(), "oslo", 0)).unwrap();

    let player = Arc::new(CassetteServer::start(Mode::Replay { dir: tapes.path().into() }).await.unwrap());
    let report = Runner::new().cassette(player).run(&dataset, &AgentSubject::new(through_tape("Be thorough."))).await;
    let statuses: Vec<Status> = report.cases.iter().map(|c| c.attempts[0].status).collect();
    assert_eq!(statuses, [Status::CassetteMismatch; 6]);
    let why = report.cases[0].attempts[0].error.as_deref().unwrap();
    assert_eq!(
        why,
        "request 1 to /chat/completions differs from the cassette's at /messages/0/content: recorded \"Be brief.\", now \"Be thorough.\""
    );
    assert!(report.cases[5].attempts[0].error.as_deref().unwrap().contains("record it first"));
    assert_eq!(report.summary.pass_rate, 0.0);
}

/// Answers after `delay`, with `tokens` spent; "hang" never answers.
struct Slow {
    started: AtomicUsize,
}

impl Subject for Slow {
    fn run<'a>(&'a self, trial: &'a Trial<'a>) -> BoxFuture<'a, Result<Outcome, String>> {
        self.started.fetch_add(1, Ordering::SeqCst);
        async move {
            match trial.case.inputs.as_str() {
                Some("hang") => futures::future::pending().await,
                Some("fail") => Err("the agent fell over".to_string()),
                Some(other) => {
                    // Flaky on purpose: the second attempt of "flaky" answers wrong.
                    let out = if other == "flaky" && trial.repeat == 1 { "no" } else { "yes" };
                    Ok(Outcome::answer(out).spent(100, 1, Some(0.0)))
                }
                None => Err("no input".into()),
            }
        }
        .boxed()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hanging_case_is_stopped_at_its_time_budget_and_flakiness_is_counted() {
    let dataset = Dataset::from_yaml(
        "cases: [{name: a, inputs: ok}, {name: h, inputs: hang}, {name: f, inputs: flaky}, {name: e, inputs: fail}]\nevaluators: [{Equals: yes}]",
        "d.yaml",
    )
    .unwrap();
    let subject = Slow { started: AtomicUsize::new(0) };
    let report =
        Runner::new().repeats(2).concurrency(4).case_time(Duration::from_millis(200)).run(&dataset, &subject).await;
    let status = |i: usize| report.cases[i].attempts.iter().map(|a| a.status).collect::<Vec<_>>();
    assert_eq!(status(0), [Status::Done, Status::Done]);
    assert_eq!(status(1), [Status::OverBudget, Status::OverBudget]);
    assert!(report.cases[1].attempts[0].error.as_deref().unwrap().contains("the case's time budget"));
    assert_eq!(status(3), [Status::Error, Status::Error]);
    assert_eq!(report.cases[3].attempts[0].error.as_deref(), Some("the agent fell over"));
    let s = &report.summary;
    assert_eq!((s.finished, s.passed, s.flaky), (4, 1, 1));
    assert_eq!(s.pass_at_k, 0.5);
    assert!(!report.interrupted);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spent_run_budget_or_a_cancellation_keeps_what_finished() {
    let cases: Vec<String> = (0..6).map(|i| format!("{{name: c{i}, inputs: ok}}")).collect();
    let dataset =
        Dataset::from_yaml(&format!("cases: [{}]\nevaluators: [{{Equals: yes}}]", cases.join(", ")), "d.yaml").unwrap();

    let subject = Slow { started: AtomicUsize::new(0) };
    let report = Runner::new().run_limits(Limits::default().max_model_calls(2)).run(&dataset, &subject).await;
    let statuses: Vec<Status> = report.cases.iter().map(|c| c.attempts[0].status).collect();
    assert_eq!(statuses, [Status::Done, Status::Done, Status::NotRun, Status::NotRun, Status::NotRun, Status::NotRun]);
    assert_eq!(report.cases[2].attempts[0].error.as_deref(), Some("the run's budget was spent"));
    assert_eq!(subject.started.load(Ordering::SeqCst), 2);
    assert!(report.interrupted);
    assert_eq!((report.summary.finished, report.summary.passed), (2, 2));

    let cancel = CancellationToken::new();
    let on_progress = cancel.clone();
    let subject = Slow { started: AtomicUsize::new(0) };
    let report = Runner::new()
        .cancel_on(cancel)
        .on_progress(move |p| {
            if p.done == 3 {
                on_progress.cancel();
            }
        })
        .run(&dataset, &subject)
        .await;
    let done = report.cases.iter().filter(|c| c.attempts[0].status == Status::Done).count();
    assert_eq!(done, 3);
    assert!(report.interrupted);
    assert_eq!(report.summary.finished, 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_over_its_token_budget_is_stopped_and_scored_so() {
    let usage = lucid::Usage { input_tokens: 900, output_tokens: 200, ..Default::default() };
    let dataset = Dataset::from_yaml(
        "cases: [{name: w, inputs: The weather in Rome?}]\nevaluators: [{Contains: sunny}]",
        "d.yaml",
    )
    .unwrap();
    let subject = AgentSubject::new(move |_| {
        let model = ScriptedModel::new().call("weather", json!({"city": "Rome"})).usage(usage).text("sunny");
        Ok(Agent::builder(model).tool(weather))
    });
    let report = Runner::new().case_limits(Limits::default().max_total_tokens(1000)).run(&dataset, &subject).await;
    let a = &report.cases[0].attempts[0];
    assert_eq!(a.status, Status::OverBudget, "{a:?}");
    assert!(
        a.error.as_deref().unwrap().contains("1,100 tokens") || a.error.as_deref().unwrap().contains("tokens"),
        "{a:?}"
    );
    assert_eq!(a.tokens, 1100);
    assert!(!a.passed);
    // Without the budget the same agent passes.
    let report = Runner::new().run(&dataset, &subject).await;
    assert!(report.cases[0].attempts[0].passed, "{:?}", report.cases[0].attempts[0]);
}

/// A judge written in Rust that panics on "boom", blocks its thread forever on "block",
/// and otherwise passes answers that say "yes".
struct Moody;

impl lucid_eval::Judge for Moody {
    fn name(&self) -> String {
        "Moody".into()
    }

    fn judge<'a>(
        &'a self,
        answer: &'a lucid_eval::Answer<'a>,
        _env: &'a lucid_eval::JudgeEnv<'a>,
    ) -> BoxFuture<'a, Result<Option<lucid_eval::Verdict>, lucid_eval::JudgeError>> {
        async move {
            match answer.inputs.and_then(|i| i.as_str()) {
                Some("boom") => panic!("the judge fell over"),
                // Blocks its thread without ever yielding: only a thread of its own saves the run.
                Some("block") => loop {
                    std::thread::sleep(Duration::from_secs(3600));
                },
                _ => Ok(Some(lucid_eval::Verdict::new("Moody", answer.output == "yes"))),
            }
        }
        .boxed()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_judge_that_panics_or_hangs_fails_its_verdict_and_the_run_goes_on() {
    let dataset = Dataset::from_yaml(
        "cases: [{name: fine, inputs: ok}, {name: panics, inputs: boom}, {name: hangs, inputs: block}, {name: after, inputs: ok}]\nevaluators: [{Equals: yes}]",
        "d.yaml",
    )
    .unwrap();
    // "boom" and "block" are not special to the subject: it answers "yes" to them.
    struct Yes;
    impl Subject for Yes {
        fn run<'a>(&'a self, _: &'a Trial<'a>) -> BoxFuture<'a, Result<Outcome, String>> {
            async { Ok(Outcome::answer("yes")) }.boxed()
        }
    }
    let report = Runner::new().judge(Moody).judge_time(Duration::from_millis(300)).run(&dataset, &Yes).await;
    let verdict = |i: usize| report.cases[i].attempts[0].verdicts.last().cloned().unwrap();
    assert!(verdict(0).passed && verdict(3).passed);
    assert_eq!(verdict(1).reason.as_deref(), Some("the judge panicked: the judge fell over"));
    assert_eq!(verdict(2).reason.as_deref(), Some("the judge did not answer within 300 ms"));
    assert!(!verdict(2).passed);
    assert_eq!(report.summary.judges["Equals"].passed, 4, "the dataset's judges still judged every case");
    assert_eq!((report.summary.finished, report.summary.passed), (4, 2));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_conversation_and_attachments_reach_the_model() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("note.txt"), "The code word is heron.").unwrap();
    let file = dir.path().join("chat.yaml");
    std::fs::write(
        &file,
        "cases:\n  - name: recall\n    inputs:\n      - {role: user, content: My name is Ann.}\n      - {role: assistant, content: Hello Ann.}\n      - {role: user, content: What is my name and the code word?}\n    attachments: [note.txt]\n    evaluators: [{Contains: Ann}]\n",
    )
    .unwrap();
    let dataset = Dataset::from_file(&file).unwrap();
    let model = ScriptedModel::new().text("You are Ann; the word is heron.");
    let seen = model.clone();
    let subject = AgentSubject::new(move |_| Ok(Agent::builder(model.clone())));
    let report = Runner::new().run(&dataset, &subject).await;
    assert!(report.cases[0].attempts[0].passed, "{:?}", report.cases[0].attempts[0]);
    let sent = &seen.requests()[0].messages;
    let texts: Vec<String> = sent.iter().map(|m| format!("{m:?}")).collect();
    assert_eq!(sent.len(), 3, "the history and the last message: {texts:?}");
    assert!(texts[0].contains("My name is Ann.") && texts[1].contains("Hello Ann."), "{texts:?}");
    assert!(texts[2].contains("What is my name") && texts[2].contains("note.txt"), "{texts:?}");
    // A file the dataset names that is not there: refused when the file is read, naming
    // the field; a dataset made in code finds out at the attempt.
    let missing = "cases:\n  - name: missing file\n    inputs: Read it.\n    attachments: [nowhere.pdf]\n";
    std::fs::write(&file, missing).unwrap();
    let e = Dataset::from_file(&file).unwrap_err();
    assert_eq!(e.field.as_deref(), Some("cases[0].attachments[0]"), "{e}");
    assert!(e.message.contains("nowhere.pdf"), "{e}");
    let report = Runner::new().run(&Dataset::from_yaml(missing, "d.yaml").unwrap(), &subject).await;
    let missing = &report.cases[0].attempts[0];
    assert_eq!(missing.status, Status::Error);
    assert!(missing.error.as_deref().unwrap().contains("nowhere.pdf"), "{missing:?}");
}
