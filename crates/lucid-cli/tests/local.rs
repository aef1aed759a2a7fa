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

/// The README's task end to end with the 0.5B model (issue 42): left alone it calls the
/// calculator again with its own answer until the iterations run out. A call made for
/// nothing is not run (`RepeatedCalls`, on for the in-process model), the next step is
/// prose only, and the answer comes within three model calls.
#[tokio::test(flavor = "multi_thread")]
async fn the_readme_task_is_answered_within_three_model_calls() {
    let Some(gguf) = real_part("LUCID_TEST_GGUF", "the path of a Qwen2.5 instruct GGUF; .ci/gguf.sh prints one") else {
        return;
    };
    let dir = test_dir("local-readme-task");
    let args = [
        "run",
        "--model-file",
        &gguf,
        "--tools",
        "calculator",
        "--max-tokens",
        "100",
        "--max-iterations",
        "6",
        "--json",
        "What is 23 * 19? Use the calculator.",
    ];
    let out = run_in(&dir, &args, &[]).await;
    let stdout = text(&out.stdout);
    let answer: Value = serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("not one JSON object ({e}): {stdout}\nstderr: {}", text(&out.stderr)));
    assert_eq!(out.status.code(), Some(0), "{answer}");
    assert!(answer["content"].as_str().unwrap_or_default().contains("437"), "{answer}");
    assert!(answer["iterations"].as_u64().unwrap() <= 3, "at most three model calls: {answer}");
    let ran = answer["tool_calls"].as_array().unwrap().iter().filter(|c| c["output"] == "437").count();
    assert_eq!(ran, 1, "the calculator ran once: {answer}");
}

/// On an x86-64 CPU without the instructions llama.cpp was compiled for (Lucid builds
/// x86-64-v3), the engine is refused with the missing instructions named and a way out,
/// before anything calls into llama.cpp: not a SIGILL, and no default model downloaded.
/// The CPU is QEMU's user-mode emulator posing as an Ivy Bridge (AVX and F16C, no AVX2,
/// FMA or BMI2), `LUCID_TEST_QEMU_X86` (Debian's qemu-user; `.ci/run` installs it).
#[cfg(target_arch = "x86_64")]
#[tokio::test(flavor = "multi_thread")]
async fn a_cpu_without_avx2_is_told_what_is_missing_and_what_to_use_instead() {
    let Some(qemu) = real_part("LUCID_TEST_QEMU_X86", "the path of qemu-x86_64 (Debian's qemu-user)") else {
        return;
    };
    let Some(gguf) = real_part("LUCID_TEST_GGUF", "the path of a Qwen2.5 instruct GGUF; .ci/gguf.sh prints one") else {
        return;
    };
    let dir = test_dir("local-old-cpu");
    let under_qemu = |args: &[&str]| {
        let mut cmd = std::process::Command::new(&qemu);
        cmd.args(["-cpu", "IvyBridge", env!("CARGO_BIN_EXE_lucid")])
            .args(args)
            .current_dir(&dir)
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", &dir)
            .env("HF_HOME", dir.join("hf"))
            // Nothing listens there: a download attempt would fail with another message.
            .env("HF_ENDPOINT", "http://127.0.0.1:9");
        if let Some(file) = std::env::var_os("LLVM_PROFILE_FILE") {
            cmd.env("LLVM_PROFILE_FILE", file);
        }
        cmd.output().expect("run qemu-x86_64")
    };
    let missing = "this CPU lacks AVX2, FMA, BMI2, which the embedded llama.cpp engine was compiled to use \
                   (it needs SSE4.2, AVX, AVX2, FMA, F16C, BMI2";

    let out = under_qemu(&["run", "--model-file", &gguf, "hi"]);
    let err = text(&out.stderr);
    assert!(out.status.code().is_some(), "killed by a signal (SIGILL?): {:?}\n{err}", out.status);
    assert_ne!(out.status.code(), Some(0), "{err}");
    assert!(err.contains(missing), "{err}");
    assert!(err.contains("OPENAI_API_KEY") && err.contains("--base-url http://HOST:PORT/v1"), "{err}");

    // No key, no server: the default would be the local model; it is not downloaded.
    let out = under_qemu(&["run", "hi"]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("no model provider found, and the in-process model cannot run here"), "{err}");
    assert!(err.contains(missing) && err.contains("OPENAI_API_KEY"), "{err}");
    assert!(!err.contains("downloading") && !dir.join("hf/hub").exists(), "{err}");
}
