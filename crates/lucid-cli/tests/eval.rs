//! `lucid eval`: the smoke eval (24 cases, evals/smoke) replayed from its cassettes with no
//! network and no key, its JSON and JUnit reports, and the regression gate; a malformed
//! dataset; a request that no longer matches its cassette.

mod common;

use std::path::{Path, PathBuf};

use common::{run_in, test_dir, text};
use lucid_eval::Report;

fn smoke() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../evals/smoke").canonicalize().unwrap()
}

/// The flags the cassettes were recorded with (evals/smoke/record.sh): the requests must
/// be the same to match.
fn smoke_args(smoke: &Path) -> Vec<String> {
    let system = std::fs::read_to_string(smoke.join("system.txt")).unwrap();
    smoke_args_with(smoke, system.trim_end())
}

/// [`smoke_args`] with another system prompt.
fn smoke_args_with(smoke: &Path, system: &str) -> Vec<String> {
    let s = |p: &str| smoke.join(p).display().to_string();
    [
        "eval",
        "run",
        &s("dataset.yaml"),
        "--provider",
        "llamacpp",
        "--model",
        "qwen2.5-coder-1.5b-instruct",
        "--system",
        system,
        "--tools",
        "calculator",
        "--max-iterations",
        "4",
        "--temperature",
        "0",
        "--max-tokens",
        "200",
        "--replay",
        &s("cassettes"),
    ]
    .map(String::from)
    .to_vec()
}

async fn lucid(dir: &Path, args: &[String]) -> std::process::Output {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    run_in(dir, &args, &[]).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_smoke_eval_replays_offline_as_recorded_and_gates_on_its_baseline() {
    let dir = test_dir("eval-smoke");
    let smoke = smoke();
    let (json, junit) = (dir.join("report.json"), dir.join("report.xml"));
    let mut args = smoke_args(&smoke);
    args.extend(["--json", &json.display().to_string(), "--junit", &junit.display().to_string()].map(String::from));
    args.extend(["--baseline", &smoke.join("baseline.json").display().to_string()].map(String::from));
    let out = lucid(&dir, &args).await;
    assert_eq!(out.status.code(), Some(0), "{}\n{}", text(&out.stdout), text(&out.stderr));

    let report = Report::from_file(&json).unwrap();
    let baseline = Report::from_file(&smoke.join("baseline.json")).unwrap();
    assert!(report.cases.len() >= 20);
    assert_eq!(report.mode.as_deref(), Some("replay"));
    assert_eq!(report.summary.statuses.get("cassette_mismatch"), None, "{}", text(&out.stdout));
    // The replay gives what the recorded run gave: answers, tool calls, verdicts.
    for (now, then) in report.cases.iter().zip(&baseline.cases) {
        assert_eq!(now.name, then.name);
        for (a, b) in now.attempts.iter().zip(&then.attempts) {
            assert_eq!(
                (&a.output, &a.calls, &a.verdicts, a.status),
                (&b.output, &b.calls, &b.verdicts, b.status),
                "{}",
                now.name
            );
        }
    }
    assert_eq!(report.summary.passed, baseline.summary.passed);

    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(xml.starts_with("<?xml"), "{xml}");
    assert!(xml.contains(&format!("tests=\"{}\"", report.cases.len())), "{xml}");
    let failing = report.cases.iter().filter(|c| !c.passed_all()).count();
    assert_eq!(xml.matches("<testcase").count(), report.cases.len());
    assert_eq!(xml.matches("<failure").count() + xml.matches("<error").count(), failing, "{xml}");

    // A better baseline: every case passing. This run falls short of it: the gate fails.
    let mut better = baseline.clone();
    for case in &mut better.cases {
        for a in &mut case.attempts {
            a.passed = true;
            for v in &mut a.verdicts {
                v.passed = true;
            }
        }
    }
    better.summarise();
    let better_file = dir.join("better.json");
    better.write(&better_file).unwrap();
    let compare = |baseline: &Path, threshold: &str| {
        ["eval", "compare", &json.display().to_string(), &baseline.display().to_string(), "--threshold", threshold]
            .map(String::from)
            .to_vec()
    };
    let out = lucid(&dir, &compare(&better_file, "0.05")).await;
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    assert!(text(&out.stdout).contains("pass_rate"), "{}", text(&out.stdout));
    // A threshold above every fall passes; the same report against itself passes.
    let gap = report.summary.judges.values().map(|j| 1.0 - j.pass_rate).fold(1.0 - report.summary.pass_at_k, f64::max);
    let out = lucid(&dir, &compare(&better_file, &format!("{}", gap + 0.01))).await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    let out = lucid(&dir, &compare(&json, "0")).await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    // `run --baseline` gates the same way.
    let mut gated = smoke_args(&smoke);
    gated.extend(["--baseline", &better_file.display().to_string(), "--threshold", "0.05"].map(String::from));
    let out = lucid(&dir, &gated).await;
    assert_eq!(out.status.code(), Some(1), "{}\n{}", text(&out.stdout), text(&out.stderr));
    assert!(text(&out.stderr).contains("a score fell more than 0.05"), "{}", text(&out.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_that_changed_fails_its_case_saying_where() {
    let dir = test_dir("eval-mismatch");
    let smoke = smoke();
    let json = dir.join("report.json");
    let mut args = smoke_args_with(&smoke, "You are terse.");
    args.extend(["--tag", "knowledge", "--json", &json.display().to_string()].map(String::from));
    let out = lucid(&dir, &args).await;
    assert_eq!(out.status.code(), Some(0), "{}\n{}", text(&out.stdout), text(&out.stderr));
    let report = Report::from_file(&json).unwrap();
    assert_eq!(report.cases.len(), 6);
    for case in &report.cases {
        let a = &case.attempts[0];
        assert_eq!(a.status, lucid_eval::report::Status::CassetteMismatch, "{}", case.name);
        assert!(a.error.as_deref().unwrap().contains("differs from the cassette's at /messages/0"), "{:?}", a.error);
    }
    assert_eq!(report.summary.pass_rate, 0.0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_malformed_dataset_names_its_file_line_and_field() {
    let dir = test_dir("eval-malformed");
    std::fs::write(dir.join("bad.yaml"), "cases:\n  - name: a\n    inputs: x\n    expected: y\n").unwrap();
    let out =
        lucid(&dir, &["eval", "run", "bad.yaml", "--provider", "llamacpp", "--model", "m"].map(String::from)).await;
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(err.contains("bad.yaml:4:") && err.contains("cases[0].expected"), "{err}");
    let out = lucid(&dir, &["eval", "report", "bad.yaml"].map(String::from)).await;
    assert_ne!(out.status.code(), Some(0));
    assert!(text(&out.stderr).contains("not JSON"), "{}", text(&out.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_llm_judge_without_a_model_grades_with_the_agents_own_and_its_reason_is_kept() {
    use lucid_mock::{MockServer, Reply, text_completion};
    let model = MockServer::sequence(vec![
        Reply::json(200, &text_completion("Paris")),
        Reply::json(200, &text_completion(r#"{"reason": "It names Paris.", "pass": true, "score": 1.0}"#)),
    ])
    .await;
    let dir = test_dir("eval-llm-judge");
    std::fs::write(
        dir.join("judged.yaml"),
        "cases:\n  - {name: capital, inputs: Capital of France?}\nevaluators:\n  - LLMJudge: {rubric: The answer names the capital of France.}\n",
    )
    .unwrap();
    let json = dir.join("report.json");
    let args = [
        "eval",
        "run",
        "judged.yaml",
        "--base-url",
        &model.url(),
        "-m",
        "mock-model",
        "--json",
        &json.display().to_string(),
    ];
    let out = lucid(&dir, &args.map(String::from)).await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report = Report::from_file(&json).unwrap();
    let verdict = &report.cases[0].attempts[0].verdicts[0];
    assert_eq!((verdict.judge.as_str(), verdict.passed), ("LLMJudge", true), "{verdict:?}");
    assert_eq!(verdict.reason.as_deref(), Some("It names Paris."));
    assert!(verdict.tokens.is_some(), "{verdict:?}");
    let judged = &model.requests()[1].json();
    assert!(judged["messages"].to_string().contains("The answer names the capital of France."), "{judged}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A case's project and database: each attempt works in a fresh copy (the agent's tools
/// and a `Command` judge there), the dataset's own files stay as they were, and a case runs
/// the agent it configures.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_attempt_works_in_its_own_copy_of_the_cases_project_and_database() {
    use lucid_mock::{MockServer, Reply, text_completion, tool_call_completion};
    let write = r#"{"path": "notes.txt", "content": "written"}"#;
    let count = r#"{"sql": "SELECT count(*) AS n FROM t"}"#;
    let model = MockServer::sequence(vec![
        Reply::json(200, &tool_call_completion(&[("c1", "write_file", write)])),
        Reply::json(200, &text_completion("done")),
        Reply::json(200, &tool_call_completion(&[("c2", "write_file", write)])),
        Reply::json(200, &text_completion("done")),
        Reply::json(200, &tool_call_completion(&[("c3", "sql_query", count)])),
        Reply::json(200, &text_completion("3")),
        Reply::json(200, &tool_call_completion(&[("c4", "sql_query", count)])),
        Reply::json(200, &text_completion("3")),
    ])
    .await;
    let dir = test_dir("eval-project");
    std::fs::create_dir_all(dir.join("cases/proj")).unwrap();
    std::fs::write(dir.join("cases/proj/main.py"), "print('hi')\n").unwrap();
    let db = rusqlite::Connection::open(dir.join("cases/app.db")).unwrap();
    db.execute_batch("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1), (2), (3);").unwrap();
    drop(db);
    // The judge passes only in a folder holding the project's file and the note the
    // agent wrote, and nothing else: a copy shared between attempts would hold more.
    std::fs::write(
        dir.join("cases/d.yaml"),
        r#"cases:
  - name: writes
    inputs: Write the note.
    project: proj
    agent: {tools: [write_file], system: You write notes.}
    evaluators:
      - Command: {run: "test \"$(cat notes.txt)\" = written && test -f main.py && test \"$(ls -A | wc -l)\" -eq 2"}
  - name: counts
    inputs: How many rows has t?
    database: app.db
    agent: {tools: [sql_query]}
    expected_output: "3"
    evaluators: [EqualsExpected, {Command: {run: "test -f app.db"}}]
"#,
    )
    .unwrap();
    let json = dir.join("report.json");
    let args = [
        "eval",
        "run",
        "cases/d.yaml",
        "--base-url",
        &model.url(),
        "-m",
        "mock-model",
        "--allow",
        "write_file",
        "--repeats",
        "2",
        "--json",
        &json.display().to_string(),
    ]
    .map(String::from);
    let out = lucid(&dir, &args).await;
    let report = Report::from_file(&json).unwrap_or_else(|e| panic!("{e}\n{}", text(&out.stderr)));
    // Both attempts at each case passed: the second found no note of the first's.
    for case in &report.cases {
        assert_eq!(case.attempts.len(), 2);
        for a in &case.attempts {
            assert!(a.passed, "{}: {a:?}\n{}", case.name, text(&out.stderr));
        }
    }
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // The case's agent: its own system prompt and only its tool; the database's rows
    // reached the model from the attempt's copy.
    let requests = model.requests();
    let first = requests[0].json();
    assert_eq!(first["messages"][0]["content"], "You write notes.", "{first}");
    let tools: Vec<&str> =
        first["tools"].as_array().unwrap().iter().filter_map(|t| t["function"]["name"].as_str()).collect();
    assert_eq!(tools, ["write_file"]);
    let rows = requests[5].json()["messages"].to_string();
    assert!(rows.contains("| 3"), "{rows}");
    // The dataset's project is as it was.
    assert!(!dir.join("cases/proj/notes.txt").exists());
    let _ = std::fs::remove_dir_all(&dir);
}
