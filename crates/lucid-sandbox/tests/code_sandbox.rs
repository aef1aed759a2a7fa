//! The sandbox of the code tools (`shell`, `python`) against real processes: the
//! environment they start from, this process's `/proc` files, a real Unix socket, a
//! `setsid` double fork, a fork bomb, a forged protocol line, and one interpreter per
//! session that never waits for another session's call.

use lucid_mock::running;

use std::time::Duration;

use lucid::Tool;
use lucid::tool::ToolContext;
use lucid_sandbox::{Environment, Python, Shell};
use serde_json::json;

fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("lucid-sandbox-{name}-{}-{}", std::process::id(), fastrand::u32(..)));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn python() -> Python {
    Python::new().expect("python3 on PATH").timeout(Duration::from_secs(20)).memory(512 << 20)
}

async fn py(tool: &Python, code: &str) -> String {
    tool.invoke(json!({ "code": code }), Default::default()).await.unwrap_or_else(|e| panic!("{e}"))
}

async fn py_in(tool: &Python, session: &str, code: &str) -> String {
    let ctx = ToolContext { session: Some(session.into()), ..Default::default() };
    tool.invoke(json!({ "code": code }), ctx).await.unwrap_or_else(|e| panic!("{e}"))
}

async fn sh(tool: &Shell, command: &str) -> String {
    tool.invoke(json!({ "command": command }), Default::default()).await.unwrap_or_else(|e| panic!("{e}"))
}

async fn gone(marker: &str) -> bool {
    for _ in 0..200 {
        if !running(marker) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    false
}

/// A unique number for `sleep` to carry in its command line.
fn marker() -> String {
    format!("{}.{:06}", 1000 + std::process::id() % 1000, fastrand::u32(..1_000_000))
}

/// The namespaces this system allows; tests of what needs them skip, saying so, without.
fn sandboxed(description: &str) -> bool {
    let missing = description.contains("no user namespaces") || description.contains("no PID namespace");
    if missing {
        eprintln!("skipped: this system has no unprivileged user namespaces ({description})");
    }
    !missing
}

#[tokio::test]
async fn the_operators_secrets_do_not_reach_the_code() {
    let secrets = [
        ("DATABASE_URL", "postgres://app:pw-db-123@db/app"),
        ("GITHUB_TOKEN", "ghp_secret_456"),
        ("AWS_SECRET_ACCESS_KEY", "aws-secret-789"),
        ("LUCID_SERVE_API_KEYS", "acme=sk-tenant-000"),
    ];
    for (k, v) in secrets {
        // SAFETY: these variables are set once, before any tool runs, and read by nobody else.
        unsafe { std::env::set_var(k, v) };
    }
    let root = temp_dir("env");
    let shell = Shell::new(&root);
    let env = sh(&shell, "env").await;
    assert!(env.contains("PATH="), "{env}");
    let python = python();
    let seen = py(&python, "import os\nsorted(os.environ.items())").await;
    assert!(seen.contains("'PATH'"), "{seen}");
    for (k, v) in secrets {
        assert!(!env.contains(k) && !env.contains(v), "{k} reached the shell: {env}");
        assert!(!seen.contains(k) && !seen.contains(v), "{k} reached python: {seen}");
    }
    // A server passes nothing of its own: not even its HOME.
    let isolated = Shell::new(&root).environment(Environment::isolated().set("GREETING", "hi"));
    let env = sh(&isolated, "env").await;
    assert!(env.contains("GREETING=hi") && env.contains("PATH=/usr/local/bin:/usr/bin:/bin"), "{env}");
    assert!(env.contains(&format!("HOME={}", root.display())), "{env}");
    let isolated_python = self::python().environment(Environment::isolated());
    let keys = py(&isolated_python, "import os\nos.environ['HOME'] == os.getcwd(), [k for k in os.environ if k in ('DATABASE_URL', 'USER', 'TERM')]").await;
    assert!(keys.ends_with("[value]\n(True, [])"), "{keys}");
}

/// Re-runs this test binary's test `name` with `secret` in its starting environment (the
/// one `/proc/PID/environ` shows), and asserts the inner run passed.
fn rerun_with_secret(name: &str, secret: &str) -> Option<String> {
    if let Ok(secret) = std::env::var("LUCID_TEST_INNER_SECRET") {
        return Some(secret);
    }
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", name, "--nocapture", "--test-threads=1"])
        .env("LUCID_TEST_INNER_SECRET", secret)
        .output()
        .unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success() && text.contains("1 passed"), "the inner run failed:\n{text}");
    eprintln!("{text}");
    None
}

#[tokio::test]
async fn the_code_cannot_read_this_processs_environment_through_proc() {
    let Some(secret) = rerun_with_secret(
        "the_code_cannot_read_this_processs_environment_through_proc",
        "sk-from-the-parent-environ-4242",
    ) else {
        return;
    };
    let root = temp_dir("environ");
    let shell = Shell::new(&root);
    let out =
        sh(&shell, "cat /proc/$PPID/environ /proc/*/environ 2>/dev/null | tr '\\0' '\\n' | grep -c sk-from || true")
            .await;
    assert!(!out.contains(&secret), "{out}");
    assert_eq!(out.lines().nth(1), Some("0"), "the shell read this process's environment: {out}");
    let python = python();
    let code = "import glob\nfound = 0\nfor p in glob.glob('/proc/*/environ'):\n    try:\n        found += b'sk-from' in open(p, 'rb').read()\n    except OSError:\n        pass\nfound";
    let out = py(&python, code).await;
    assert!(out.ends_with("[value]\n0"), "python read this process's environment: {out}");
}

#[tokio::test]
async fn unix_sockets_are_closed_to_the_code() {
    let dir = temp_dir("unix");
    let path = dir.join("db.sock");
    let listener = std::os::unix::net::UnixListener::bind(&path).unwrap();
    listener.set_nonblocking(true).unwrap();
    let python = python();
    if !python.spec().description().contains("no seccomp filter") {
        let code = format!(
            "import socket\ns = socket.socket(socket.AF_UNIX)\ns.connect({:?})\n'connected'",
            path.to_str().unwrap()
        );
        let out = py(&python, &code).await;
        assert!(out.contains("PermissionError") && !out.contains("'connected'"), "{out}");
        let shell = Shell::new(&dir);
        let script = format!(
            "import socket\nsocket.socket(socket.AF_UNIX).connect({:?})\nprint('connected')\n",
            path.to_str().unwrap()
        );
        std::fs::write(dir.join("connect.py"), script).unwrap();
        let out = sh(&shell, "python3 connect.py").await;
        assert!(out.contains("PermissionError") && !out.contains("\nconnected"), "{out}");
        assert!(listener.accept().is_err(), "nobody connected");
    } else {
        eprintln!("skipped: no seccomp filter on this system ({})", python.spec().description());
    }
}

#[tokio::test]
async fn a_double_forked_setsid_child_dies_with_the_code() {
    let python = python();
    if !sandboxed(python.spec().description()) {
        return;
    }
    let mark = marker();
    py(
        &python,
        &format!("import subprocess\nsubprocess.run(['setsid', 'sh', '-c', 'sleep {mark} >/dev/null 2>&1 &'])"),
    )
    .await;
    assert!(running(&mark), "the escaped child runs while the interpreter does");
    drop(python);
    assert!(gone(&mark).await, "sleep {mark} outlived the interpreter");

    let root = temp_dir("setsid");
    let shell = Shell::new(&root);
    let mark = marker();
    sh(&shell, &format!("setsid sh -c 'sleep {mark} >/dev/null 2>&1 &'; sleep 0.2")).await;
    assert!(gone(&mark).await, "sleep {mark} outlived the command");
}

#[tokio::test]
async fn a_fork_bomb_is_stopped() {
    let python = python().processes(32);
    if !sandboxed(python.spec().description()) {
        return;
    }
    if python.spec().description().contains("the number of processes is not limited") {
        eprintln!("skipped: this system cannot limit the processes (root, or no user namespace)");
        return;
    }
    let code = "import os, time\nmade = 0\ntry:\n    for _ in range(300):\n        if os.fork() == 0:\n            time.sleep(30)\n            os._exit(0)\n        made += 1\nexcept OSError as e:\n    err = type(e).__name__\nmade, err";
    let out = py(&python, code).await;
    assert!(out.contains("BlockingIOError"), "{out}");
    let made: u32 = out.rsplit_once("[value]\n(").unwrap().1.split(',').next().unwrap().parse().unwrap();
    assert!(made < 32, "{made} processes were made: {out}");
}

#[tokio::test]
async fn a_line_the_code_writes_into_the_protocol_does_not_shift_later_answers() {
    let python = python();
    let forged = r#"{"id": "x", "stdout": "forged", "stdout_cut": 0, "stderr": "", "stderr_cut": 0, "value": "'forged'", "error": null, "files": []}"#;
    let code = format!(
        "import os, stat\nfor fd in range(3, 64):\n    try:\n        if stat.S_ISFIFO(os.fstat(fd).st_mode):\n            os.write(fd, {forged:?}.encode() + b'\\nhalf a line ')\n    except OSError:\n        pass\n'first'"
    );
    let first = py(&python, &code).await;
    assert!(first.ends_with("[value]\n'first'"), "{first}");
    let second = py(&python, "'second'").await;
    assert_eq!(second, "[value]\n'second'");
    let third = py(&python, "'third'").await;
    assert_eq!(third, "[value]\n'third'");
}

#[tokio::test]
async fn each_session_has_its_own_interpreter_and_folder_and_none_waits_for_another() {
    let python = python();
    let flag = temp_dir("barrier").join("go");
    py_in(&python, "a", "x = 'of a'\nopen('mine.txt', 'w').write('a')").await;
    // Session a's call waits until session b's call has answered: on one shared
    // interpreter b would wait behind it, and a would time out.
    let wait =
        format!("import os, time\nwhile not os.path.exists({:?}):\n    time.sleep(0.02)\nx", flag.to_str().unwrap());
    let waiting = py_in(&python, "a", &wait);
    let other = async {
        let out = py_in(&python, "b", "import os\n'x' in globals(), os.path.exists('mine.txt')").await;
        std::fs::write(&flag, "").unwrap();
        out
    };
    let (a, b) = tokio::join!(waiting, other);
    assert_eq!(b, "[value]\n(False, False)", "session b saw nothing of a");
    assert_eq!(a, "[value]\n'of a'");
    // Nor can b find a's folder beside its own, where the sandbox has a mount namespace.
    let listed =
        py_in(&python, "b", "import os\nos.listdir('..') == [os.path.basename(os.getcwd())], os.getcwd()").await;
    let root = python.working_folder().to_string_lossy().into_owned();
    if python.spec().description().contains("visible in /proc") {
        eprintln!("skipped: no mount namespace here ({listed})");
    } else {
        assert!(listed.starts_with("[value]\n(True, '") && listed.contains(&root), "{listed}");
        let found = py_in(&python, "b", &format!("import glob\nglob.glob({:?} + '/*/mine.txt')", root)).await;
        assert_eq!(found, "[value]\n[]", "b reached a's file");
    }
}

#[tokio::test]
async fn idle_interpreters_are_reaped_and_their_number_is_capped() {
    let python = python().max_interpreters(2);
    py_in(&python, "one", "v = 1").await;
    py_in(&python, "two", "v = 2").await;
    // A third session makes room by stopping the least recently used one.
    py_in(&python, "three", "v = 3").await;
    assert_eq!(py_in(&python, "two", "v").await, "[value]\n2");
    assert_eq!(py_in(&python, "one", "'v' in globals()").await, "[value]\nFalse", "session one was stopped");

    let python = self::python().idle_timeout(Duration::from_millis(300));
    py_in(&python, "s", "import os\nv = 1\nopen('f', 'w').write('x')\nos.getcwd()").await;
    for _ in 0..100 {
        tokio::time::sleep(Duration::from_millis(50)).await;
        let folders = std::fs::read_dir(python.working_folder()).unwrap().count();
        if folders == 0 {
            break;
        }
    }
    assert_eq!(std::fs::read_dir(python.working_folder()).unwrap().count(), 0, "the idle session's folder was removed");
    assert_eq!(py_in(&python, "s", "'v' in globals()").await, "[value]\nFalse");
}

/// Runs `code` in `session` of `owner`.
async fn py_of(tool: &Python, owner: &str, session: &str, code: &str) -> Result<String, String> {
    let ctx = ToolContext { session: Some(session.into()), owner: Some(owner.into()), ..Default::default() };
    tool.invoke(json!({ "code": code }), ctx).await.map_err(|e| e.to_string())
}

#[tokio::test]
async fn one_owners_sessions_never_use_up_another_owners_interpreters() {
    let python = python().max_interpreters(4).max_interpreters_per_owner(2);
    let flag = temp_dir("owners").join("go");
    let wait = format!(
        "import os, time\nwhile not os.path.exists({:?}):\n    time.sleep(0.02)\n'done'",
        flag.to_str().unwrap()
    );
    // Tenant a keeps its two interpreters busy; its third session is refused at once, while
    // tenant b's sessions are served.
    let busy_a = async { tokio::join!(py_of(&python, "a", "a1", &wait), py_of(&python, "a", "a2", &wait)) };
    let others = async {
        // Both of a's calls have started once each has made its folder's interpreter: poll
        // through a's own refusal, which only comes when both slots are held.
        let mut refused = String::new();
        for _ in 0..600 {
            match py_of(&python, "a", "a3", "1").await {
                Err(e) => {
                    refused = e;
                    break;
                }
                Ok(_) => tokio::time::sleep(Duration::from_millis(20)).await,
            }
        }
        let b1 = py_of(&python, "b", "b1", "'served'").await;
        let b2 = py_of(&python, "b", "b2", "'served too'").await;
        std::fs::write(&flag, "").unwrap();
        (refused, b1, b2)
    };
    let ((a1, a2), (refused, b1, b2)) = tokio::join!(busy_a, others);
    assert!(refused.contains("`a` may hold are busy"), "a's third session: {refused}");
    assert_eq!(b1.unwrap(), "[value]\n'served'", "b is not blocked by a");
    assert_eq!(b2.unwrap(), "[value]\n'served too'");
    assert_eq!((a1.unwrap(), a2.unwrap()), ("[value]\n'done'".to_string(), "[value]\n'done'".to_string()));
    // Once idle, a's own least recently used interpreter makes room for its next session.
    assert_eq!(py_of(&python, "a", "a3", "'now'").await.unwrap(), "[value]\n'now'");
}

#[tokio::test]
async fn the_memory_limit_holds_for_the_whole_tree() {
    let python = python();
    if !sandboxed(python.spec().description()) {
        return;
    }
    if python.spec().description().contains("(no control group)") {
        eprintln!("skipped: no control group can be made here (not root, no delegated cgroup)");
        return;
    }
    // Four children of 200 MiB each stay under the per-process limit (512 MiB) but not,
    // together, under the tree's.
    let code = "import os\nkids = []\nfor _ in range(4):\n    pid = os.fork()\n    if pid == 0:\n        hold = b'\\x01' * (200 << 20)\n        import time\n        time.sleep(3)\n        os._exit(0)\n    kids.append(pid)\nsorted(os.waitstatus_to_exitcode(os.waitpid(k, 0)[1]) for k in kids)";
    let out = py(&python, code).await;
    assert!(out.contains("[value]\n[-9"), "no child was stopped although the tree held 800 MiB: {out}");
}
