//! The `python` tool against the real CPython on `PATH`: state kept between calls, and a
//! runaway loop, a runaway allocation and a CPU hog each stopped by their limit with the
//! tool still usable after.

use lucid_mock::running;

use std::time::Duration;

use lucid::Tool;
use lucid_sandbox::Python;
use serde_json::json;

async fn call(tool: &Python, code: &str) -> Result<String, String> {
    tool.invoke(json!({ "code": code }), Default::default()).await.map_err(|e| e.to_string())
}

fn python() -> Python {
    Python::new().expect("python3 on PATH").timeout(Duration::from_secs(20)).memory(512 << 20)
}

#[tokio::test]
async fn variables_imports_and_files_survive_between_calls() {
    let py = python();
    let first = call(&py, "import math\nx = 40\nprint('set')\nopen('out.csv', 'w').write('a,b\\n')").await.unwrap();
    assert!(first.contains("[stdout]\nset") && first.contains("[files written]\nout.csv"), "{first}");
    let second = call(&py, "y = math.floor(math.sqrt(2) * 10)\nx + 2, y, open('out.csv').read()").await.unwrap();
    assert!(second.contains("[value]\n(42, 14, 'a,b\\n')"), "{second}");
    assert!(!second.contains("[files written]"), "nothing written this time: {second}");
    assert!(py.working_folder().join("out.csv").is_file());
    let raised = call(&py, "import sys\nprint('to err', file=sys.stderr)\n1 / 0").await.unwrap();
    assert!(raised.contains("[stderr]\nto err") && raised.contains("ZeroDivisionError: division by zero"), "{raised}");
    assert!(!raised.contains("driver"), "the driver's own frames are not shown: {raised}");
    assert!(call(&py, "x").await.unwrap().contains("[value]\n40"), "an error loses nothing");
}

#[tokio::test]
async fn output_is_capped_and_child_processes_are_captured_too() {
    let py = python().output_cap(1000);
    let out = call(&py, "import os\nprint('x' * 5000)\nos.system('echo from-a-child')\nNone").await.unwrap();
    assert!(out.contains("[cut: 4014 more bytes not shown]"), "{out}");
    let child = call(&python(), "import subprocess\nsubprocess.run(['echo', 'from-a-child'])\nNone").await.unwrap();
    assert_eq!(child, "[stdout]\nfrom-a-child");
}

#[tokio::test]
async fn a_runaway_loop_is_killed_by_the_timeout_and_the_next_call_starts_fresh() {
    let py = python().timeout(Duration::from_millis(1500));
    call(&py, "x = 1").await.unwrap();
    let err = call(&py, "while True: pass").await.unwrap_err();
    assert!(err.contains("did not finish within 1.5 s") && err.contains("state (variables, imports) is lost"), "{err}");
    let after = call(&py, "'x' in globals(), 6 * 7").await.unwrap();
    assert!(after.contains("[value]\n(False, 42)"), "{after}");
}

#[tokio::test]
async fn a_runaway_allocation_hits_the_memory_limit_and_the_interpreter_stays() {
    let py = python();
    call(&py, "keep = 'still here'").await.unwrap();
    let out = call(&py, "hoard = []\nwhile True:\n    hoard.append(bytearray(16 * 1024 * 1024))").await.unwrap();
    assert!(out.contains("MemoryError"), "{out}");
    let after = call(&py, "del hoard\nkeep").await.unwrap();
    assert!(after.contains("[value]\n'still here'"), "{after}");
}

#[tokio::test]
async fn a_cpu_hog_is_stopped_by_the_cpu_limit_then_a_fresh_interpreter_answers() {
    let py = python().cpu(Duration::from_secs(1));
    let err = call(&py, "while True: pass").await.unwrap_err();
    assert!(err.contains("CPU time limit") && err.contains("state (variables, imports) is lost"), "{err}");
    assert!(call(&py, "1 + 1").await.unwrap().contains("[value]\n2"));
    // The allowance is per call: a second call gets its own second.
    assert!(call(&py, "sum(range(1000))").await.unwrap().contains("[value]\n499500"));
}

#[tokio::test]
async fn there_is_no_network_or_the_result_says_so() {
    let py = python();
    let out = call(&py, "import socket\n[n for _, n in socket.if_nameindex()]").await.unwrap();
    if out.contains("note: this system does not let the interpreter run without network") {
        eprintln!("no user namespaces here: {out}");
    } else {
        assert!(out.contains("[value]\n['lo']"), "{out}");
        let refused = call(&py, "import socket\nsocket.create_connection(('1.1.1.1', 53), timeout=2)").await.unwrap();
        assert!(refused.contains("OSError") || refused.contains("unreachable"), "{refused}");
    }
}

#[tokio::test]
async fn dropping_the_tool_kills_what_the_interpreter_started() {
    let py = python();
    // Found by a marker in its command line: in the sandbox's PID namespace the pid the
    // code sees is not the one this process sees.
    let marker = format!("{}.{}", 300 + std::process::id() % 1000, fastrand::u32(..1_000_000));
    let out = call(&py, &format!("import subprocess\nsubprocess.Popen(['sleep', '{marker}']).pid")).await.unwrap();
    assert!(out.starts_with("[value]"), "{out}");
    let folder = py.working_folder().to_path_buf();
    assert!(folder.is_dir());
    for _ in 0..50 {
        if running(&marker) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(running(&marker), "the child was started");
    drop(py);
    for _ in 0..50 {
        if !running(&marker) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(!running(&marker), "sleep {marker} outlived the tool");
    assert!(!folder.exists(), "the temporary working folder goes with the tool");
}
