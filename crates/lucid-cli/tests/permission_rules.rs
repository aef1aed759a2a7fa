//! Permission rules by argument in `lucid run`: from the configuration file and the
//! `--allow`/`--ask`/`--deny` flags, with the real `shell` tool.

mod common;

use common::{mock_run, run_in, test_dir, text};
use lucid_mock::{MockServer, Reply, text_completion, tool_call_completion};
use serde_json::{Value, json};

fn shell_call(i: usize, command: &str) -> Reply {
    let args = json!({ "command": command }).to_string();
    Reply::json(200, &tool_call_completion(&[(&format!("c{i}"), "shell", args.as_str())]))
}

#[tokio::test]
async fn run_allows_cargo_test_by_rule_and_refuses_everything_else() {
    let dir = test_dir("rules-run");
    let commands = ["cargo test --help", "cargo test --help && touch pwned", "touch pwned", "rm -rf src", "git push"];
    let mut replies: Vec<Reply> = commands.iter().enumerate().map(|(i, c)| shell_call(i, c)).collect();
    replies.push(Reply::json(200, &text_completion("done")));
    let server = MockServer::sequence(replies).await;
    // `cargo` in the shell finds its toolchain though HOME is the test's folder.
    let home = std::env::var("HOME").unwrap_or_default();
    let rustup = std::env::var("RUSTUP_HOME").unwrap_or_else(|_| format!("{home}/.rustup"));
    let cargo = std::env::var("CARGO_HOME").unwrap_or_else(|_| format!("{home}/.cargo"));
    let toolchain = std::env::var("RUSTUP_TOOLCHAIN").unwrap_or_default();
    let vars =
        [("RUSTUP_HOME", rustup.as_str()), ("CARGO_HOME", cargo.as_str()), ("RUSTUP_TOOLCHAIN", toolchain.as_str())];
    std::fs::write(
        dir.join("rules.toml"),
        "allow = [\"shell(cargo test*)\"]\ndeny = [\"shell(rm *)\"]\n\
         tool_env = [\"RUSTUP_HOME\", \"CARGO_HOME\", \"RUSTUP_TOOLCHAIN\"]\n",
    )
    .unwrap();
    let url = server.url();
    let args = mock_run(
        &url,
        &[
            "--tools",
            "shell",
            "--config",
            "rules.toml",
            "--ask",
            "shell(git push:*)",
            "--json",
            "--max-iterations",
            "10",
            "test it",
        ],
    );
    let out = run_in(&dir, &args, &vars).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let outputs: Vec<&str> =
        v["tool_calls"].as_array().unwrap().iter().map(|c| c["output"].as_str().unwrap()).collect();
    assert!(outputs[0].starts_with("exit code 0") && outputs[0].contains("cargo test"), "{}", outputs[0]);
    for refused in &outputs[1..3] {
        assert!(refused.contains("needs the user's approval (permission policy: ask)"), "{refused}");
    }
    assert!(outputs[3].contains("not allowed here (permission rule: deny shell(rm *))"), "{}", outputs[3]);
    assert!(
        outputs[4].contains("needs the user's approval (permission rule: ask shell(git push:*))"),
        "{}",
        outputs[4]
    );
    assert!(!dir.join("pwned").exists());

    // `lucid config show` prints the rules and the budget.
    std::fs::write(
        dir.join("show.toml"),
        "deny = [\"shell(rm *)\"]\nallow = [\"shell(cargo test*)\"]\nmax_cost = 2.0\n",
    )
    .unwrap();
    let out = run_in(&dir, &["config", "show", "--config", "show.toml"], &[]).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let shown = text(&out.stdout);
    assert!(
        shown.contains("deny = [\"shell(rm *)\"]") && shown.contains("allow = [\"shell(cargo test*)\"]"),
        "{shown}"
    );
    assert!(shown.contains("max_cost = 2\n") && shown.contains("max_model_calls = (none)"), "{shown}");

    // A rule that cannot be read is the configuration's to fix: exit code 2, naming it.
    let out = run_in(&dir, &["run", "--base-url", &url, "-m", "m", "--deny", "sql_query(everything)", "hi"], &[]).await;
    assert_eq!(out.status.code(), Some(2), "stderr: {}", text(&out.stderr));
    assert!(text(&out.stderr).contains("permission rule `sql_query(everything)`"), "{}", text(&out.stderr));
    std::fs::remove_dir_all(dir).ok();
}

#[tokio::test]
async fn rules_see_commands_inside_shell_constructs_and_paths_through_links() {
    let dir = test_dir("rules-constructs");
    std::fs::create_dir_all(dir.join("secrets")).unwrap();
    std::fs::write(dir.join("secrets/key"), "hunter2").unwrap();
    std::fs::write(dir.join("victim"), "x").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink("secrets", dir.join("ok")).unwrap();
    let commands = [
        "{ rm -f victim; }",
        "if true; then rm -f victim; fi",
        "for f in victim; do rm -f $f; done",
        "! rm -f victim",
        "sh -c 'rm -f victim'",
        "if true; then git push --force; fi",
    ];
    let mut replies: Vec<Reply> = commands.iter().enumerate().map(|(i, c)| shell_call(i, c)).collect();
    let read = json!({ "path": "ok/key" }).to_string();
    replies.push(Reply::json(200, &tool_call_completion(&[("r", "read_file", read.as_str())])));
    replies.push(Reply::json(200, &text_completion("done")));
    let server = MockServer::sequence(replies).await;
    let url = server.url();
    let args = mock_run(
        &url,
        &[
            "--tools",
            "shell,read_file",
            "--deny",
            "shell(rm *)",
            "--ask",
            "shell(git push:*)",
            "--deny",
            "read_file(secrets/**)",
            "--json",
            "--max-iterations",
            "10",
            "go",
        ],
    );
    let out = run_in(&dir, &args, &[]).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let outputs: Vec<&str> =
        v["tool_calls"].as_array().unwrap().iter().map(|c| c["output"].as_str().unwrap()).collect();
    for (command, output) in commands.iter().zip(&outputs).take(5) {
        assert!(output.contains("not allowed here (permission rule: deny shell(rm *))"), "{command}: {output}");
    }
    assert!(
        outputs[5].contains("needs the user's approval (permission rule: ask shell(git push:*))"),
        "{}",
        outputs[5]
    );
    #[cfg(unix)]
    assert!(outputs[6].contains("permission rule: deny read_file(secrets/**)"), "{}", outputs[6]);
    assert!(!outputs.iter().any(|o| o.contains("hunter2")));
    assert!(dir.join("victim").exists(), "no construct deleted the file");
    std::fs::remove_dir_all(dir).ok();
}
