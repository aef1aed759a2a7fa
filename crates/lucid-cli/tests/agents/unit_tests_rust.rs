//! The unit-tests agent on Rust projects: write, run, repair, target by target.

use super::*;

/// The shipped `unit-tests` agent on one file of a small Rust project, the model scripted:
/// it outlines the target, writes a failing test file without asking, runs it with the
/// real `cargo test`, repairs it from the failure `run_tests` reports, and runs it again;
/// the report counts one repair.
#[cfg(all(feature = "code-outline", feature = "test-tools"))]
#[tokio::test(flavor = "multi_thread")]
async fn the_unit_tests_agent_writes_runs_and_repairs_tests_of_a_rust_file() {
    let dir = rust_sample("agents-unit-tests", &["a"]);
    let server = MockServer::start(unit_test_script).await;
    std::fs::write(dir.join("config.toml"), "tool_env = [\"RUSTUP_HOME\", \"CARGO_HOME\"]\n").unwrap();
    let vars = toolchain_vars();
    let vars: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let url = server.url();
    let args = mock_run(&url, &["--config", "config.toml", "--agent", "unit-tests", "--trust", "--json", "src/a.rs"]);
    let out = run_in(&dir, &args, &vars).await;
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    // Without cargo-llvm-cov or rustc's LLVM tools, coverage is not measured: the goal
    // is not judged reached (exit 1), and the error names what to install.
    let measured = report["coverage_error"].is_null();
    if !measured {
        let said = report["coverage_error"].as_str().unwrap();
        assert!(said.contains("cargo install cargo-llvm-cov"), "{report}");
        assert!(text(&out.stderr).contains(&format!("lucid: coverage not measured: {said}")), "{}", text(&out.stderr));
    }
    let expected = if measured { 0 } else { 1 };
    assert_eq!(out.status.code(), Some(expected), "stderr: {}", text(&out.stderr));
    let target = &report["targets"][0];
    assert_eq!(target["target"], "src/a.rs", "{report}");
    assert_eq!(
        (target["repairs"].as_u64(), target["passing"].as_u64(), target["failing"].as_u64()),
        (Some(1), Some(1), Some(0)),
        "{report}"
    );
    assert_eq!(target["test_files"], json!(["tests/a.rs"]), "{report}");
    assert_eq!(report["stopped"], "no target left", "{report}");
    assert_eq!(std::fs::read_to_string(dir.join("tests/a.rs")).unwrap(), test_file("a", 2));

    let requests = server.requests();
    let first = requests[0].json();
    assert!(
        offered(&first).contains(&"run_tests".to_string()) && offered(&first).contains(&"code_outline".to_string())
    );
    let tool_answer = |i: usize| -> Value {
        let body = requests[i].json();
        let last = body["messages"].as_array().unwrap().last().unwrap().clone();
        assert_eq!(last["role"], "tool", "{body}");
        serde_json::from_str(last["content"].as_str().unwrap()).unwrap_or(last["content"].clone())
    };
    let outline = tool_answer(1);
    assert_eq!(outline["symbols"][0]["name"], "f", "{outline}");
    let first_run = tool_answer(3);
    assert_eq!(
        (first_run["failed"].as_u64(), first_run["failures"][0]["test"].as_str()),
        (Some(1), Some("adds_one")),
        "{first_run}"
    );
    let second_run = tool_answer(5);
    assert_eq!(
        (second_run["status"].as_str(), second_run["passed"].as_u64()),
        (Some("passed"), Some(1)),
        "{second_run}"
    );

    // With no repair left, a second run of the tests is refused and the model told why.
    let out = run_in(&dir, &[&args[..10], &["--max-repairs", "0", "src/a.rs"]].concat(), &vars).await;
    assert_eq!(out.status.code(), Some(expected), "stderr: {}", text(&out.stderr));
    let refused = server.requests().iter().rev().find_map(|r| {
        let last = r.json()["messages"].as_array().unwrap().last().cloned().unwrap();
        last["content"].as_str().filter(|c| c.contains("repairs of this target are spent")).map(str::to_string)
    });
    assert!(refused.is_some(), "the model reads that its repairs are spent");
    std::fs::remove_dir_all(dir).ok();
}

/// The project's targets one after another, by real line coverage (instrumented `cargo
/// test`, llvm-cov): each target in a new conversation that carries only the summary of
/// those before, until `--coverage 60` is reached — before the third file.
#[cfg(all(feature = "code-outline", feature = "test-tools"))]
#[tokio::test(flavor = "multi_thread")]
async fn the_unit_tests_agent_goes_target_by_target_until_the_coverage_goal() {
    let Some(bin) = common::real_part("LUCID_TEST_LLVM_BIN", ".ci/run sets it to the llvm-cov of rustc's LLVM") else {
        return;
    };
    let dir = rust_sample("agents-unit-tests-goal", &["a", "b", "c"]);
    let server = MockServer::start(unit_test_script).await;
    let command = format!(
        "export RUSTFLAGS='-C instrument-coverage' LLVM_PROFILE_FILE={{scratch}}/p-%p-%m.profraw CARGO_TARGET_DIR={{scratch}}/t; \
         cargo test --tests -q > /dev/null 2>&1; \
         {bin}/llvm-profdata merge -sparse {{scratch}}/*.profraw -o {{scratch}}/all.profdata && \
         objs=$(find {{scratch}}/t/debug/deps -maxdepth 1 -type f -perm -u+x | sed 's/^/-object /') && \
         {bin}/llvm-cov export --format=text --instr-profile={{scratch}}/all.profdata $objs --sources src > {{scratch}}/cov.json"
    );
    let config = format!(
        "tool_env = [\"RUSTUP_HOME\", \"CARGO_HOME\"]\n[tests]\ncoverage_command = {command:?}\ncoverage_report = \"{{scratch}}/cov.json\"\n"
    );
    std::fs::write(dir.join("config.toml"), config).unwrap();
    let vars = toolchain_vars();
    let vars: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let url = server.url();
    let args =
        mock_run(&url, &["--config", "config.toml", "--agent", "unit-tests", "--trust", "--json", "--coverage", "60"]);
    let out = run_in(&dir, &args, &vars).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["stopped"], "coverage goal reached (66.7% ≥ 60%)", "{report}");
    let done: Vec<&str> = report["targets"].as_array().unwrap().iter().map(|t| t["target"].as_str().unwrap()).collect();
    assert_eq!(done, ["src/a.rs", "src/b.rs"], "{report}");
    assert_eq!(
        (report["coverage_before"].as_f64(), report["coverage_after"].as_f64()),
        (Some(0.0), Some(66.7)),
        "{report}"
    );
    for (t, repairs) in report["targets"].as_array().unwrap().iter().zip([1, 0]) {
        assert_eq!((t["coverage_before"].as_f64(), t["coverage_after"].as_f64()), (Some(0.0), Some(100.0)), "{t}");
        assert_eq!((t["repairs"].as_u64(), t["passing"].as_u64()), (Some(repairs), Some(1)), "{t}");
    }
    assert!(!dir.join("tests/c.rs").exists());

    // The second target's conversation starts with only the system prompt and a prompt
    // carrying the first target's summary.
    let b_starts = server
        .requests()
        .iter()
        .map(|r| r.json())
        .find(|b| {
            b["messages"]
                .as_array()
                .unwrap()
                .iter()
                .any(|m| m["content"].as_str().is_some_and(|c| c.contains("Target: src/b.rs")))
        })
        .unwrap();
    let messages = b_starts["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 2, "{b_starts}");
    let prompt = messages[1]["content"].as_str().unwrap();
    assert!(
        prompt.contains("- src/a.rs: tests in tests/a.rs, 1 passing, 1 repairs, coverage 0.0% -> 100.0%"),
        "{prompt}"
    );
    assert!(prompt.contains("lines no test runs"), "{prompt}");
    std::fs::remove_dir_all(dir).ok();
}
