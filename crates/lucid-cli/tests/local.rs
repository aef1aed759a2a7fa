//! `lucid run` with the in-process model (crate `lucid-local`) on a real GGUF (Qwen2.5-Coder-0.5B-Instruct
//! Q4_K_M, assembled by `.ci/gguf.sh`; `LUCID_TEST_GGUF`): the calculator is called with
//! arguments that match its schema, and its answer is printed. Greedy decoding, small
//! output and iteration limits: the test checks the protocol, not the small model's wisdom.

mod common;

use common::{real_part, run_in, test_dir, text};
use serde_json::Value;

#[tokio::test(flavor = "multi_thread")]
async fn run_with_a_model_file_calls_the_calculator_with_valid_arguments_and_prints_its_answer() {
    let Some(gguf) = real_part("LUCID_TEST_GGUF", "the path of a Qwen2.5 instruct GGUF; .ci/gguf.sh prints one") else {
        return;
    };
    let dir = test_dir("local-model-file");
    let task = "What is 23 * 19? Use the calculator.";
    let out = run_in(
        &dir,
        &[
            "run",
            "--model-file",
            &gguf,
            "--tools",
            "calculator",
            "--max-tokens",
            "48",
            "--max-iterations",
            "2",
            "--json",
            task,
        ],
        &[],
    )
    .await;
    let stdout = text(&out.stdout);
    let answer: Value = serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("not one JSON object ({e}): {stdout}\nstderr: {}", text(&out.stderr)));
    let model = answer["model"].as_str().unwrap_or_default();
    assert!(model.starts_with("local:") && model.contains("qwen2.5-coder-0.5b-instruct-q4_k_m"), "{answer}");
    let call = &answer["tool_calls"][0];
    assert_eq!(call["name"], "calculator", "{answer}");
    let expression = call["arguments"]["expression"].as_str().unwrap_or_else(|| panic!("no expression: {call}"));
    assert_eq!(expression.replace(' ', ""), "23*19", "{call}");
    assert_eq!(call["output"], "437", "the calculator's answer is printed: {answer}");
    assert!(answer["usage"]["input_tokens"].as_u64().unwrap() > 0, "{answer}");

    let kv = std::fs::read_dir(dir.join(".cache/lucid/kv")).map(|d| d.count()).unwrap_or(0);
    assert_eq!(kv, 1, "the fixed prefix (system prompt, tools) is saved for the next run");

    // The same file named as `--model local:FILE`, the same agent: the next run loads the
    // prefix instead of computing it.
    let spec = format!("local:{gguf}");
    let args = [
        "run",
        "--model",
        &spec,
        "--tools",
        "calculator",
        "--max-tokens",
        "2",
        "--max-iterations",
        "1",
        "--json",
        "Hi",
    ];
    let out = run_in(&dir, &args, &[]).await;
    let answer: Value = serde_json::from_str(text(&out.stdout).trim())
        .unwrap_or_else(|e| panic!("--provider local ({e}): {}{}", text(&out.stdout), text(&out.stderr)));
    let model = answer["model"].as_str().unwrap_or_default();
    assert!(model.starts_with("local:") && model.contains("qwen2.5-coder-0.5b-instruct-q4_k_m"), "{answer}");
    assert!(answer["usage"]["output_tokens"].as_u64().unwrap() <= 2, "--max-tokens reaches the engine: {answer}");
    assert!(
        answer["usage"]["cached_input_tokens"].as_u64().unwrap_or(0) > 100,
        "one call in a new process: its prefix was loaded from disk: {answer}"
    );
    std::fs::create_dir_all(dir.join(".config/lucid")).unwrap();
    std::fs::write(dir.join(".config/lucid/config.toml"), format!("provider = \"local\"\nmodel_file = \"{gguf}\"\n"))
        .unwrap();
    let out = run_in(&dir, &["config", "show"], &[]).await;
    let shown = text(&out.stdout);
    assert!(shown.contains("provider = \"local\"") && shown.contains(&gguf), "{shown}{}", text(&out.stderr));
}
