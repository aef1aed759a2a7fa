//! Sessions kept across runs: persisted, repaired, kept within the context window, summarised.

use super::*;

#[tokio::test(flavor = "multi_thread")]
async fn sessions_persist_and_the_sessions_command_shows_them() {
    let server = MockServer::start(|_| Reply::json(200, &text_completion("Noted."))).await;
    let dir = std::env::temp_dir().join(format!("lucid-cli-sessions-{}", std::process::id()));
    let db = dir.join("s.db").display().to_string();
    for prompt in ["Remember: my cat is Tom.", "What is my cat's name?"] {
        let out = run_on(&server, &["--session", "pets", "--store", &db, prompt]).await;
        assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    }
    let second = server.requests()[1].json();
    assert_eq!(second["messages"][0]["content"], "Remember: my cat is Tom.", "the second run continues the first");
    let list = lucid(&["sessions", "--store", &db, "list"]);
    assert!(text(&list.stdout).contains("pets") && text(&list.stdout).contains("4 msgs"), "{}", text(&list.stdout));
    let md = lucid(&["sessions", "--store", &db, "export", "pets", "--format", "markdown"]);
    assert!(text(&md.stdout).starts_with("# Remember: my cat is Tom."), "{}", text(&md.stdout));
    let js = lucid(&["sessions", "--store", &db, "export", "pets", "--format", "json"]);
    let v: Value = serde_json::from_slice(&js.stdout).unwrap();
    assert_eq!(v["messages"].as_array().unwrap().len(), 4);
    assert_eq!(lucid(&["sessions", "--store", &db, "delete", "pets"]).status.code(), Some(0));
    let gone = lucid(&["sessions", "--store", &db, "show", "pets"]);
    assert_eq!(gone.status.code(), Some(2));
    std::fs::remove_dir_all(dir).ok();
}

/// SIGKILL in the middle of turns, many times over: every reload is a valid history made of
/// whole turns, and no completed turn is lost.
#[tokio::test(flavor = "multi_thread")]
async fn a_process_killed_mid_turn_never_leaves_a_broken_session() {
    let server = MockServer::start(|req| {
        let body = req.json();
        let last_is_tool = body["messages"].as_array().and_then(|m| m.last()).is_some_and(|m| m["role"] == "tool");
        let reply = if last_is_tool {
            Reply::sse(&lucid_mock::text_stream(&["The", " answer", " is", " 2."]))
        } else {
            Reply::sse(&lucid_mock::tool_call_stream(&[("c1", "calculator", r#"{"expression":"1+1"}"#)]))
        };
        reply.with_delay(std::time::Duration::from_millis(2))
    })
    .await;
    let dir = std::env::temp_dir().join(format!("lucid-cli-kill-{}", std::process::id()));
    let db = dir.join("k.db").display().to_string();
    // Every turn stays in the store: no summaries replace the oldest.
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("config.toml");
    std::fs::write(&config, "[memory]\nenabled = false\n").unwrap();
    let config = config.display().to_string();
    let mut completed = 0;
    let mut seed = 0x9e37_79b9_u32;
    for i in 0..30 {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        let wait_ms = u64::from(seed % 160);
        let mut child = lucid_command()
            .args(["--config", &config, "run", "--base-url", &server.url(), "-m", "m", "--session", "k"])
            .args(["--store", &db, "--stream"])
            .arg(format!("turn {i}"))
            .env("HOME", std::env::temp_dir())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        tokio::time::sleep(std::time::Duration::from_millis(wait_ms)).await;
        let finished = child.try_wait().unwrap().is_some_and(|s| s.success());
        if finished {
            completed += 1;
        } else {
            child.kill().unwrap();
            child.wait().unwrap();
        }
    }
    let store = lucid_sqlite::SqliteStore::open(dir.join("k.db")).unwrap();
    use lucid::store::SessionStore;
    let stored = store.load("k").await.unwrap().map(|s| s.messages).unwrap_or_default();
    assert!(lucid::history::validate(&stored).is_ok(), "{:?}", lucid::history::validate(&stored));
    assert_eq!(stored.len() % 4, 0, "only whole turns are stored");
    assert!(stored.len() / 4 >= completed, "{} turns stored, {completed} completed", stored.len() / 4);
    // The killed processes' locks do not block the next turn.
    let out = run_on(&server, &["--config", &config, "--session", "k", "--store", &db, "--stream", "last"]).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let after = store.load("k").await.unwrap().unwrap().messages;
    assert!(lucid::history::validate(&after).is_ok());
    assert_eq!(after.len(), stored.len() + 4, "the last, uninterrupted turn is stored whole after the others");
    eprintln!("{completed} of 30 runs completed before the kill; {} turns stored", stored.len() / 4);
    std::fs::remove_dir_all(dir).ok();
}

#[tokio::test]
async fn sessions_repair_rebuilds_a_session_with_an_unreadable_message() {
    use lucid::store::SessionStore;
    let dir = std::env::temp_dir().join(format!("lucid-cli-repair-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("r.db");
    let store = lucid_sqlite::SqliteStore::open(&db).unwrap();
    store.create("hurt", json!({})).await.unwrap();
    let call = lucid::ToolCall::new("c1", "calculator", json!({"expression": "1+1"}));
    store
        .append(
            "hurt",
            &[
                lucid::Message::user("what is 1+1?"),
                lucid::Message::Assistant(lucid::AssistantMessage { tool_calls: vec![call], ..Default::default() }),
                lucid::Message::tool_result("c1", "calculator", "2", false),
                lucid::Message::assistant("2"),
            ],
        )
        .await
        .unwrap();
    // The assistant's call is corrupted on disk, and the count with it.
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute("UPDATE messages SET body = 'not json' WHERE session_id = 'hurt' AND seq = 1", []).unwrap();
    conn.execute("UPDATE sessions SET message_count = -3 WHERE id = 'hurt'", []).unwrap();
    let db_arg = db.display().to_string();
    let show = run(vec!["sessions".into(), "--store".into(), db_arg.clone(), "show".into(), "hurt".into()]).await;
    assert_eq!(show.status.code(), Some(1));
    assert!(text(&show.stderr).contains("session `hurt`: stored message 2 is unreadable"), "{}", text(&show.stderr));

    let fixed = run(vec!["sessions".into(), "--store".into(), db_arg.clone(), "repair".into(), "hurt".into()]).await;
    assert_eq!(fixed.status.code(), Some(0), "stderr: {}", text(&fixed.stderr));
    let said = text(&fixed.stdout);
    assert!(said.contains("2 messages kept; 1 unreadable dropped (at 2); 1 orphaned"), "{said}");
    let s = store.load("hurt").await.unwrap().unwrap();
    assert_eq!(s.messages, [lucid::Message::user("what is 1+1?"), lucid::Message::assistant("2")]);
    assert_eq!(s.info.message_count, 2);
    assert!(lucid::history::validate(&s.messages).is_ok());
    std::fs::remove_dir_all(dir).ok();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_session_is_kept_within_the_context_window_given() {
    // The summariser keeps what the user said; the model answers "ok".
    let server = MockServer::start(|req| {
        let body = req.json();
        let messages = body["messages"].as_array().unwrap();
        if messages[0]["content"].as_str().unwrap_or_default().contains("compress conversations") {
            let said = messages[1]["content"].as_str().unwrap_or_default();
            return Reply::json(200, &text_completion(&format!("SUMMARY of {}", &said[..said.len().min(12)])));
        }
        Reply::json(200, &text_completion("ok"))
    })
    .await;
    let dir = test_dir("window");
    let url = server.url();
    let db = dir.join("s.db").display().to_string();
    let first = format!("FIRST {}", "a".repeat(2400));
    let second = format!("SECOND {}", "b".repeat(2400));
    let off = dir.join("off.toml");
    std::fs::write(&off, "[memory]\nenabled = false\n").unwrap();
    let off = off.display().to_string();
    for (session, config) in [("w", None), ("t", Some(off.as_str()))] {
        for prompt in [&first, &second] {
            let mut args = config.map_or(vec![], |c| vec!["--config", c]);
            args.extend(mock_run(&url, &["--tools", "none", "--store", &db, "--session", session]));
            args.extend(["--context-window", "1000", prompt.as_str()]);
            let out = run_in(&dir, &args, &[]).await;
            assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        }
    }
    let sent: Vec<String> = server.requests().iter().map(|r| r.json().to_string()).collect();
    // With the memory (the default): the first turn is summarised out of the window, and
    // the summary is pinned to the second turn's request and kept with the session.
    assert_eq!(sent.len(), 5, "two turns, one summary call, then two turns without memory");
    assert!(sent[1].contains("compress conversations") && sent[1].contains("FIRST"), "{:.300}", sent[1]);
    assert!(sent[2].contains("SECOND") && !sent[2].contains("FIRST a") && sent[2].contains("SUMMARY of user: FIRST"));
    let show = text(&run_in(&dir, &["sessions", "--store", &db, "show", "w"], &[]).await.stdout);
    assert!(show.contains("## Summaries of earlier turns") && show.contains("SUMMARY of user: FIRST"), "{show}");
    assert!(!show.contains("## User\n\nFIRST"), "the summarised turn left the stored window: {show}");
    // Without it, the older turn is trimmed from the request, and the store keeps both.
    assert!(sent[4].contains("SECOND") && !sent[4].contains("FIRST"), "the older turn left the request");
    let show = run_in(&dir, &["sessions", "--store", &db, "show", "t"], &[]).await;
    assert!(text(&show.stdout).contains("FIRST"), "{}", text(&show.stdout));
    std::fs::remove_dir_all(dir).ok();
}

/// `lucid run --session` has the layered memory with the provider's embeddings: OpenAI's
/// `/embeddings` (its documented response shape) finds the summary a question is about.
#[tokio::test(flavor = "multi_thread")]
async fn run_session_summarises_and_recalls_with_the_providers_embeddings() {
    fn vector(text: &str) -> Vec<f32> {
        // One dimension per known word: texts about the same thing are near.
        let words = ["cat", "tom", "tabby", "bread", "flour", "chess", "opening", "orbit"];
        let lower = text.to_lowercase();
        words.iter().map(|w| if lower.contains(w) { 1.0 } else { 0.0 }).chain([0.1]).collect()
    }
    let server = MockServer::start(|req| {
        let body = req.json();
        if req.path.ends_with("/embeddings") {
            let data: Vec<Value> = body["input"]
                .as_array()
                .unwrap()
                .iter()
                .enumerate()
                .map(|(i, t)| json!({"object": "embedding", "index": i, "embedding": vector(t.as_str().unwrap())}))
                .collect();
            return Reply::json(
                200,
                &json!({"object": "list", "data": data, "model": body["model"], "usage": {"prompt_tokens": 8, "total_tokens": 8}}),
            );
        }
        let messages = body["messages"].as_array().unwrap();
        if messages[0]["content"].as_str().unwrap_or_default().contains("compress conversations") {
            let said = messages[1]["content"].as_str().unwrap_or_default();
            let user: Vec<&str> = said.lines().filter_map(|l| l.strip_prefix("user: ")).collect();
            return Reply::json(200, &text_completion(&format!("The user said: {}", user.join(" "))));
        }
        let recall = messages.iter().filter_map(|m| m["content"].as_str()).find(|c| c.starts_with("Relevant earlier"));
        Reply::json(200, &text_completion(recall.unwrap_or("ok")))
    })
    .await;
    let dir = test_dir("memory-embeddings");
    let config = dir.join("config.toml");
    std::fs::write(&config, "[memory]\nshort_term_capacity = 4\nrecall_top_k = 1\n").unwrap();
    let (url, db, config) = (server.url(), dir.join("m.db").display().to_string(), config.display().to_string());
    let turns = [
        "My cat is called Tom, a grey tabby.",
        "Bread needs flour and water.",
        "A chess opening controls the centre.",
        "A geostationary orbit is high.",
        "What is my cat called?",
    ];
    let mut last = String::new();
    for said in turns {
        let args = [
            "--config",
            &config,
            "run",
            "--provider",
            "openai",
            "--api",
            "chat",
            "--base-url",
            &url,
            "-m",
            "gpt-4o-mini",
        ];
        let mut args = args.to_vec();
        args.extend(["--tools", "none", "--store", &db, "--session", "m", said]);
        let out = run_in(&dir, &args, &[("OPENAI_API_KEY", "sk-test")]).await;
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        last = text(&out.stdout);
    }
    let embeddings: Vec<Value> =
        server.requests().iter().filter(|r| r.path.ends_with("/embeddings")).map(|r| r.json()).collect();
    assert!(!embeddings.is_empty(), "the provider's endpoint was used");
    assert!(embeddings.iter().all(|b| b["model"] == "text-embedding-3-small"), "{embeddings:?}");
    assert!(last.contains("The user said: My cat is called Tom"), "the cat's summary is recalled: {last}");
    assert!(!last.contains("flour"), "only the most relevant one (recall_top_k = 1): {last}");
    std::fs::remove_dir_all(dir).ok();
}
