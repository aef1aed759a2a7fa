//! Verdicts identical to pydantic-evals' on the same cases: `tests/parity/cases.yaml` is read
//! by pydantic-evals (PyPI, pinned by `.ci/python-evals/requirements.lock`; the venv's
//! python in `LUCID_TEST_PYDANTIC_EVALS`) through `tests/parity/evaluate.py`, and by
//! lucid-eval here; each judges every case with its own judges (`EqualsExpected`, `Equals`,
//! `Contains`, `IsInstance`, `MaxDuration`, `LLMJudge` on a scripted model giving the same
//! grades), and the verdicts, the reasons pydantic-evals gives, and the LLM judge's
//! prompts and answer schema must be the same.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use lucid::Message;
use lucid::model::{ChatModel, ResponseFormat, ScriptedModel};
use lucid_eval::{Answer, Dataset, Judge, JudgeEnv, Spent, Verdict};
use lucid_mock::real_part;
use serde_json::Value;

fn parity_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/parity")
}

/// What pydantic-evals said of each case.
fn pydantic_verdicts(python: &str) -> Vec<Value> {
    let dir = parity_dir();
    let out = std::process::Command::new(python)
        .arg(dir.join("evaluate.py"))
        .arg(dir.join("cases.yaml"))
        .output()
        .expect("the parity script runs");
    assert!(out.status.success(), "evaluate.py failed: {}", String::from_utf8_lossy(&out.stderr));
    match serde_json::from_slice(&out.stdout) {
        Ok(Value::Array(cases)) => cases,
        other => panic!("evaluate.py printed no list of cases: {other:?}"),
    }
}

/// One judge's verdict and, for an LLM judge, the requests its model was sent.
struct Judged {
    verdict: Verdict,
    sent: Vec<lucid::model::SeenRequest>,
}

/// What lucid-eval says of each case: per case, its judges' verdicts in order.
async fn lucid_verdicts(dataset: &Dataset) -> Vec<(String, Vec<Judged>)> {
    let mut all = Vec::new();
    for (case, name) in dataset.cases.iter().zip(dataset.case_names()) {
        let meta = case.metadata.clone().unwrap_or_default();
        let output = meta.get("output").cloned().unwrap_or_default();
        let seconds = meta.get("duration").and_then(Value::as_f64).expect("each case says its duration");
        let spent = Spent { duration: Duration::from_secs_f64(seconds), ..Default::default() };
        let answer = Answer::new(&output)
            .inputs(Some(&case.inputs))
            .expected(case.expected_output.as_ref())
            .metadata(case.metadata.as_ref())
            .spent(spent);
        let mut judged = Vec::new();
        for judge in case.evaluators.iter().chain(&dataset.evaluators) {
            let model = match meta.get("grading") {
                Some(grade) => ScriptedModel::named("scripted").text(grade.to_string()),
                None => ScriptedModel::new(),
            };
            let lent = model.clone();
            let models = move |_: Option<&str>| -> Result<Arc<dyn ChatModel>, String> { Ok(Arc::new(lent.clone())) };
            let env = JudgeEnv::new(&models);
            let verdict = Judge::judge(judge, &answer, &env).await.expect("every judge judges");
            if let Some(verdict) = verdict {
                judged.push(Judged { verdict, sent: model.requests() });
            }
        }
        all.push((name, judged));
    }
    all
}

#[tokio::test]
async fn verdicts_match_pydantic_evals() {
    let Some(python) = real_part("LUCID_TEST_PYDANTIC_EVALS", ".ci/run installs pydantic-evals and sets it") else {
        return;
    };
    let dataset = Dataset::from_file(parity_dir().join("cases.yaml")).unwrap();
    assert!(dataset.cases.len() >= 25, "{} cases", dataset.cases.len());
    let theirs = pydantic_verdicts(&python);
    let ours = lucid_verdicts(&dataset).await;
    assert_eq!(theirs.len(), ours.len(), "the same cases");
    let (mut compared, mut prompts) = (0, 0);
    for (their_case, (name, our_verdicts)) in theirs.iter().zip(&ours) {
        assert_eq!(their_case["case"], name.as_str());
        let their_verdicts = their_case["verdicts"].as_array().unwrap();
        let said = |v: &[Judged]| v.iter().map(|j| (j.verdict.judge.clone(), j.verdict.passed)).collect::<Vec<_>>();
        assert_eq!(
            their_verdicts.len(),
            our_verdicts.len(),
            "{name}: pydantic-evals {their_verdicts:?}, lucid {:?}",
            said(our_verdicts)
        );
        for (their, our) in their_verdicts.iter().zip(our_verdicts) {
            let v = &our.verdict;
            let at = format!("{name}: {} ({their})", v.judge);
            assert_eq!(their["judge"], v.judge.as_str(), "{at}");
            assert_eq!(their["passed"], v.passed, "{at}: {v:?}");
            // Where pydantic-evals gives a reason, it is the same; where it gives none,
            // lucid-eval may say more (why a duration failed).
            if let Some(reason) = their["reason"].as_str() {
                assert_eq!(v.reason.as_deref(), Some(reason), "{at}");
            }
            if v.judge == "LLMJudge" {
                assert_eq!(their["score"].as_f64(), v.score, "{at}");
                let [sent] = our.sent.as_slice() else { panic!("{at}: one model call, not {}", our.sent.len()) };
                let [their_call] = their["prompts"].as_array().unwrap().as_slice() else {
                    panic!("{at}: pydantic-evals made one call")
                };
                let (system, user) = match sent.messages.as_slice() {
                    [Message::System { content }, user @ Message::User { .. }] => (content.as_str(), user.text()),
                    other => panic!("{at}: sent {other:?}"),
                };
                assert_eq!(their_call["system"], system, "{at}: the system prompt");
                assert_eq!(their_call["user"], user, "{at}: the user prompt");
                let Some(ResponseFormat::JsonSchema { schema, .. }) = &sent.options.response_format else {
                    panic!("{at}: no schema asked for")
                };
                for key in ["properties", "required", "type"] {
                    assert_eq!(their_call["schema"][key], schema[key], "{at}: the answer's schema, `{key}`");
                }
                prompts += 1;
            }
            compared += 1;
        }
    }
    eprintln!("{compared} verdicts on {} cases the same as pydantic-evals', {prompts} LLM judge prompts", ours.len());
    assert!(compared >= 60 && prompts >= 5, "{compared} verdicts, {prompts} prompts");
}

/// A dataset pydantic-evals writes (`Dataset.to_file`: its schema comment, `report_evaluators`,
/// a `timedelta` as ISO 8601) reads as the same cases and judges.
#[test]
fn a_dataset_pydantic_evals_writes_reads_the_same() {
    let Some(python) = real_part("LUCID_TEST_PYDANTIC_EVALS", ".ci/run installs pydantic-evals and sets it") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("written.yaml");
    let script = r#"
import sys
from datetime import timedelta
from pydantic_evals import Case, Dataset
from pydantic_evals.evaluators import Contains, EqualsExpected, LLMJudge, MaxDuration
Dataset[str, str, dict](
    name="written",
    cases=[
        Case(name="a", inputs="What is 2 + 2?", expected_output="4", metadata={"level": 1},
             evaluators=[Contains(value="4")]),
        Case(name="b", inputs="Say hi", evaluators=[LLMJudge(rubric="It greets.", include_input=True)]),
    ],
    evaluators=[EqualsExpected(), MaxDuration(seconds=timedelta(seconds=1.5)), MaxDuration(seconds=2)],
).to_file(sys.argv[1])
"#;
    let out = std::process::Command::new(&python).arg("-c").arg(script).arg(&file).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&file).unwrap();
    let dataset = Dataset::from_file(&file).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(dataset.case_names(), ["a", "b"]);
    assert_eq!(dataset.cases[0].expected_output, Some(Value::String("4".into())));
    let judges: Vec<Value> = dataset.evaluators.iter().map(|j| serde_json::to_value(j).unwrap()).collect();
    assert_eq!(
        judges,
        [
            serde_json::json!("EqualsExpected"),
            serde_json::json!({"MaxDuration": {"seconds": 1.5}}),
            serde_json::json!({"MaxDuration": {"seconds": 2.0}})
        ],
        "{text}"
    );
    assert_eq!(dataset.cases[1].evaluators.len(), 1);
}
