//! Help, configuration, completions, the tool flags (`--python`, `--db`) and quiet ends.

use super::*;

#[test]
fn help_and_providers_list() {
    let out = lucid(&["run", "--help"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stdout).contains("--max-iterations"));
    let out = lucid(&["providers"]);
    let list = text(&out.stdout);
    for p in [
        "openai",
        "anthropic",
        "gemini",
        "zhipu",
        "qwen",
        "deepseek",
        "ollama",
        "vllm",
        "llamacpp",
        "openrouter",
        "groq",
    ] {
        assert!(list.contains(p), "{p} missing");
    }
}

#[test]
fn config_init_writes_a_starter_that_config_show_resolves_with_profiles_and_masked_keys() {
    let dir = std::env::temp_dir().join(format!("lucid-cli-config-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("config.toml");
    let f = file.to_string_lossy().to_string();
    let out = lucid(&["config", "init", "--config", &f]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(std::fs::read_to_string(&file).unwrap().contains("[permissions]"));
    let again = lucid(&["config", "init", "--config", &f]);
    assert_eq!(again.status.code(), Some(2));
    assert!(text(&again.stderr).contains("exists; pass --force"));

    std::fs::write(
        &file,
        "provider = \"openai\"\nmodel = \"gpt-4o-mini\"\nsystem = \"Be brief.\"\n\
         [permissions]\nshell = \"deny\"\n\
         [providers.deepseek]\nkey_env = \"MY_DS_KEY\"\n\
         [profiles.ds]\nprovider = \"deepseek\"\nmodel = \"deepseek-chat\"\ntemperature = 0.1\n",
    )
    .unwrap();
    let out = lucid_command()
        .args(["config", "show", "--config", &f, "--profile", "ds"])
        .env("HOME", &dir)
        .env("MY_DS_KEY", "sk-deepseek-secret-1234")
        .output()
        .unwrap();
    let shown = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(shown.contains("provider = \"deepseek\""), "{shown}");
    assert!(shown.contains("model = \"deepseek-chat\""), "{shown}");
    assert!(shown.contains("api_key = \"sk-…1234\"  # from MY_DS_KEY"), "{shown}");
    assert!(!shown.contains("secret"), "the key is masked");
    assert!(shown.contains("system = \"Be brief.\""), "{shown}");
    assert!(shown.contains("shell = \"deny\"") && shown.contains("write_file = \"ask\""), "{shown}");
    assert!(shown.contains("temperature = 0.1") && shown.contains("max_tokens = (the server's default)"), "{shown}");
    // Both commands' default tools: chat's and run's differ.
    assert!(shown.contains("\"read_file\"") && shown.contains("  # lucid chat"), "{shown}");
    assert!(shown.contains("# lucid run: tools = [\"calculator\", \"current_time\", \"ask_user\"]"), "{shown}");
    // Flags override the file.
    let out = lucid_command()
        .args(["config", "show", "--config", &f, "--provider", "ollama", "--model", "llama3.2"])
        .env("HOME", &dir)
        .output()
        .unwrap();
    let shown = text(&out.stdout);
    assert!(shown.contains("provider = \"ollama\"") && shown.contains("model = \"llama3.2\""), "{shown}");
    let bad = lucid(&["config", "show", "--config", &f, "--profile", "nope"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(text(&bad.stderr).contains("no profile `nope`"), "{}", text(&bad.stderr));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_tools_help_lists_every_built_in_tool_of_the_catalogue() {
    for sub in ["run", "chat"] {
        let help = text(&lucid(&[sub, "--help"]).stdout);
        for t in lucid::tool::catalogue::Catalogue::new()
            .with(lucid_tools::TOOLS)
            .with(lucid_sandbox::TOOLS)
            .with(lucid_code::TOOLS)
            .with(lucid_sql::TOOLS)
            .iter()
        {
            assert!(
                help.contains(t.name) && help.contains(t.summary),
                "`lucid {sub} --help` lacks {}:\n{help}",
                t.name
            );
        }
    }
}

#[test]
fn completions_and_every_help_come_from_one_definition() {
    for shell in ["bash", "zsh", "fish"] {
        let out = lucid(&["completions", shell]);
        assert_eq!(out.status.code(), Some(0));
        let script = text(&out.stdout);
        for sub in ["chat", "run", "workflow", "sessions", "config", "completions"] {
            assert!(script.contains(sub), "{shell} completion lacks {sub}");
        }
    }
    for sub in ["chat", "run", "workflow", "sessions", "config", "completions", "providers"] {
        let out = lucid(&[sub, "--help"]);
        assert_eq!(out.status.code(), Some(0), "{sub} --help");
        assert!(text(&out.stdout).contains("Usage: lucid"), "{sub}");
    }
    assert!(text(&lucid(&["chat", "--help"]).stdout).contains("--session"));
}

#[test]
fn every_printing_subcommand_ends_quietly_when_its_reader_is_gone() {
    use std::os::unix::process::ExitStatusExt;
    let dir = test_dir("pipe");
    let store = dir.join("p.db").display().to_string();
    for args in [
        vec!["providers"],
        vec!["config", "show"],
        vec!["completions", "bash"],
        vec!["--help"],
        vec!["run", "--help"],
        vec!["sessions", "--store", &store, "list"],
    ] {
        // The reading end is closed before the command starts: its first print fails.
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = lucid_command()
            .args(&args)
            .current_dir(&dir)
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", &dir)
            .stdout(writer)
            .stderr(std::process::Stdio::piped())
            .output()
            .unwrap();
        let stderr = text(&out.stderr);
        assert!(!stderr.contains("panicked") && !stderr.contains("Broken pipe"), "{args:?}: {stderr}");
        assert!(
            out.status.success() || out.status.signal() == Some(libc::SIGPIPE),
            "{args:?}: {:?} {stderr}",
            out.status
        );
    }
    std::fs::remove_dir_all(dir).ok();
}

#[tokio::test(flavor = "multi_thread")]
async fn the_python_tool_computes_across_calls_and_a_missing_interpreter_stops_at_startup() {
    let dir = test_dir("python");
    std::fs::write(dir.join("lucid.toml"), "[permissions]\npython = \"allow\"\n").unwrap();
    let server = MockServer::sequence(vec![
        Reply::json(200, &tool_call_completion(&[("c1", "python", r#"{"code":"import math\nr = math.sqrt(2)"}"#)])),
        Reply::json(200, &tool_call_completion(&[("c2", "python", r#"{"code":"round(r, 4)"}"#)])),
        Reply::json(200, &text_completion("About 1.4142.")),
    ])
    .await;
    let url = server.url();
    let args =
        ["--config", "lucid.toml", "run", "--base-url", &url, "-m", "m", "--tools", "python", "--json", "sqrt 2"];
    let out = run_in(&dir, &args, &[]).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["tool_calls"][1]["output"], "[value]\n1.4142", "{v}");

    std::fs::write(dir.join("lucid.toml"), "python = \"no-such-python-3\"\n").unwrap();
    let out = run_in(&dir, &args, &[]).await;
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("`no-such-python-3` was not found on PATH"), "{err}");
    assert_eq!(server.requests().len(), 3, "no model call is made with a tool missing");
    std::fs::remove_dir_all(dir).ok();
}

#[tokio::test(flavor = "multi_thread")]
async fn db_gives_the_model_the_sql_tools_on_a_read_only_database() {
    let dir = test_dir("sql");
    rusqlite::Connection::open(dir.join("shop.db"))
        .unwrap()
        .execute_batch(
            "CREATE TABLE item (name TEXT, price REAL); INSERT INTO item VALUES ('tea', 3.5), ('cake', 4.0);",
        )
        .unwrap();
    let server = MockServer::sequence(vec![
        Reply::json(
            200,
            &tool_call_completion(&[("c1", "sql_query", r#"{"sql":"SELECT name FROM item WHERE price > 3.9"}"#)]),
        ),
        Reply::json(200, &tool_call_completion(&[("c2", "sql_query", r#"{"sql":"DELETE FROM item"}"#)])),
        Reply::json(200, &text_completion("Cake.")),
    ])
    .await;
    let url = server.url();
    let args = ["run", "--base-url", &url, "-m", "m", "--db", "shop.db", "--json", "what costs more than 3.9?"];
    let out = run_in(&dir, &args, &[]).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["tool_calls"][0]["output"], "| name |\n| --- |\n| cake |\n\n1 row", "{v}");
    assert_eq!(v["tool_calls"][1]["is_error"], true, "{v}");
    let tools: Vec<String> = server.requests()[0].json()["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(tools, ["calculator", "current_time", "ask_user", "sql_query", "sql_schema"]);
    let count: i64 = rusqlite::Connection::open(dir.join("shop.db"))
        .unwrap()
        .query_row("SELECT count(*) FROM item", [], |r| r.get(0))
        .unwrap();
    assert_eq!(count, 2, "the DELETE was refused");

    let out = run_in(&dir, &["run", "--base-url", &url, "-m", "m", "--tools", "sql_query", "hi"], &[]).await;
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("`sql_query` needs a database: pass --db"), "{}", text(&out.stderr));
    let out = run_in(&dir, &["run", "--base-url", &url, "-m", "m", "--db", "missing.db", "hi"], &[]).await;
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("no SQLite database at missing.db"), "{}", text(&out.stderr));
    std::fs::remove_dir_all(dir).ok();
}
