//! The HTML report opened in headless Chromium (Debian's package, `LUCID_TEST_CHROMIUM`):
//! a screenshot shows the page, the DOM after its script ran has the cases table, the
//! charts and an opened transcript, and the page needs no network.

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use lucid_eval::Report;
use serde_json::{Value, json};

/// The longest Chromium may take to render the page before it is killed.
const CHROMIUM_TIMEOUT: Duration = Duration::from_secs(90);

/// Clicks the time column's head twice (longest first), then tries the "failed only"
/// switch and the filter box, then opens a case, writing what it saw on `<body>`.
const DRIVER: &str = r#"
(function () {
  var body = document.body.dataset, shown = document.getElementById('shown');
  var time = document.querySelectorAll('#cases th')[6];
  time.click();
  time.click();
  body.sorted = Array.prototype.map.call(document.querySelectorAll('#cases tbody tr.case'), function (r) { return r.dataset.case; }).join(',');
  var only = document.getElementById('failed-only');
  only.checked = true;
  only.dispatchEvent(new Event('change'));
  body.failedOnly = shown.textContent;
  only.checked = false;
  only.dispatchEvent(new Event('change'));
  var filter = document.getElementById('filter');
  filter.value = 'OVERLOADED';
  filter.dispatchEvent(new Event('input'));
  body.filtered = shown.textContent;
  document.querySelector('#cases tr.case[data-case="5"]').click();
  body.opened = document.querySelectorAll('tr.transcript').length;
})();
"#;

/// One attempt, as the report's JSON writes it.
fn attempt(i: usize, repeat: u32) -> Value {
    let sum = (2 * i).to_string();
    let (status, output, error, passed) = match (i % 8, repeat) {
        (3, _) => ("error", Value::Null, Some("the provider answered 500: overloaded"), false),
        (5, 1) => ("done", json!("I do not know."), None, false),
        (6, _) if i > 20 => ("not_run", Value::Null, Some("the run's budget was spent"), false),
        (7, _) => ("done", json!("<script>alert(1)</script> is not a number"), None, false),
        _ => ("done", json!(sum), None, true),
    };
    let mut verdicts = Vec::new();
    if status == "done" {
        let answer = output.as_str().unwrap_or_default();
        verdicts.push(json!({"judge": "EqualsExpected", "passed": passed,
            "reason": if passed { Value::Null } else { json!(format!("expected \"{sum}\", got {answer:?}")) }}));
        verdicts
            .push(json!({"judge": "ToolTrajectory", "passed": i % 8 != 7, "score": if i % 8 == 7 { 0.5 } else { 1.0 },
            "reason": if i % 8 == 7 { json!("missing call add({\"a\": 1})") } else { Value::Null }}));
        if i.is_multiple_of(2) {
            verdicts.push(json!({"judge": "Regex", "passed": passed, "reason": if passed { Value::Null } else { json!("no match for ^-?\\d+$") }}));
        }
    }
    let exchanges = if status == "done" {
        json!([
            {"method": "POST", "path": "/chat/completions", "status": 200, "content_type": "application/json",
             "request": {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": format!("What is {i} + {i}?")}],
                         "tools": [{"type": "function", "function": {"name": "add"}}]},
             "response": json!({"choices": [{"message": {"role": "assistant", "tool_calls": [{"id": "call_1", "type": "function",
                 "function": {"name": "add", "arguments": format!("{{\"a\":{i},\"b\":{i}}}")}}]}}]}).to_string()},
            {"method": "POST", "path": "/chat/completions", "status": 200, "content_type": "text/event-stream",
             "request": {"model": "gpt-4o-mini", "stream": true, "messages": [{"role": "tool", "content": sum}]},
             "response": format!("data: {}\n\ndata: {}\n\ndata: [DONE]\n\n",
                 json!({"choices": [{"delta": {"content": output}}]}), json!({"usage": {"total_tokens": 60}}))}
        ])
    } else {
        json!([])
    };
    json!({
        "repeat": repeat, "status": status, "passed": passed, "output": output, "error": error,
        "verdicts": verdicts, "calls": if status == "done" { json!([{"name": "add", "arguments": {"a": i, "b": i}}]) } else { json!([]) },
        "tokens": if status == "done" { 180 + 7 * i } else { 0 }, "model_calls": 2, "cost_usd": 0.00021,
        "duration_ms": if status == "done" { 400 + (i * 137) % 1800 } else { 0 },
        "exchanges": exchanges,
    })
}

/// 25 cases of two attempts: most pass, some fail, error, are flaky or were never run.
fn report() -> Report {
    let cases: Vec<Value> = (0..25)
        .map(|i| {
            json!({
                "name": if i == 7 { "adds <b>small</b> numbers & more".to_string() } else { format!("adds {i} to itself") },
                "tags": ["sums", if i % 2 == 0 { "even" } else { "odd" }],
                "inputs": format!("What is {i} + {i}?"),
                "expected_output": (2 * i).to_string(),
                "attempts": [attempt(i, 0), attempt(i, 1)],
            })
        })
        .collect();
    let value = json!({
        "format": lucid_eval::report::REPORT_FORMAT, "dataset": "sums", "agent": "calculator", "model": "openai:gpt-4o-mini",
        "mode": "replay", "started_ms": 1_790_000_000_000u64, "duration_ms": 21_400, "repeats": 2, "interrupted": true,
        "cases": cases, "summary": {"cases": 0, "finished": 0, "passed": 0, "pass_rate": 0.0, "pass_at_k": 0.0, "flaky": 0,
            "statuses": {}, "judges": {}, "tokens": 0, "cost_usd": null, "agent_ms": 0},
    });
    let mut report = Report::from_json(&value.to_string(), "fixture").expect("the fixture is a report");
    report.summarise();
    report
}

/// Runs Chromium headless on `url` with `args`, killed (its process group) past the
/// timeout; returns its standard output.
fn chromium(bin: &str, profile: &Path, args: &[&str], url: &str) -> String {
    use std::os::unix::process::CommandExt as _;
    let mut child = Command::new(bin)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"])
        .arg("--disable-extensions")
        .args(["--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-pings"])
        // No name resolves, and no proxy is reached: the page has no network.
        .arg("--host-resolver-rules=MAP * ~NOTFOUND")
        .arg("--proxy-server=http://127.0.0.1:9")
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(url)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .expect("chromium starts");
    let mut stdout = child.stdout.take().expect("piped");
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stdout.read_to_string(&mut text);
        text
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("chromium's status") {
            break status;
        }
        if started.elapsed() > CHROMIUM_TIMEOUT {
            // Its renderer and GPU processes share its process group.
            let _ = Command::new("kill").args(["-KILL", "--", &format!("-{}", child.id())]).status();
            let _ = child.wait();
            panic!("chromium did not finish in {CHROMIUM_TIMEOUT:?}: killed");
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let mut err = String::new();
    if let Some(mut stderr) = child.stderr.take() {
        let _ = stderr.read_to_string(&mut err);
    }
    assert!(status.success(), "chromium failed ({status}): {err}");
    reader.join().expect("stdout read")
}

/// A PNG's width and height, from its header.
fn png_size(bytes: &[u8]) -> Option<(u32, u32)> {
    if bytes.len() < 24 || &bytes[..8] != b"\x89PNG\r\n\x1a\n" || &bytes[12..16] != b"IHDR" {
        return None;
    }
    let word = |at: usize| bytes.get(at..at + 4).and_then(|b| b.try_into().ok()).map(u32::from_be_bytes);
    Some((word(16)?, word(20)?))
}

#[test]
fn the_html_report_renders_offline_in_headless_chromium() {
    let Some(bin) = lucid_mock::real_part("LUCID_TEST_CHROMIUM", ".ci/run installs Debian's chromium and sets it")
    else {
        return;
    };
    let report = report();
    assert_eq!(report.summary.cases, 25);
    let html = report.to_html();
    let dir = tempfile::tempdir().expect("a temp dir");
    let page = dir.path().join("report.html");
    std::fs::write(&page, &html).expect("the page is written");
    let url = format!("file://{}", page.display());

    // The screenshot: a real PNG of the window's size, with more than a blank page in it.
    // `LUCID_HTML_SCREENSHOT=/some/shot.png` keeps the screenshot, and the page beside it.
    let kept = std::env::var_os("LUCID_HTML_SCREENSHOT").map(PathBuf::from);
    let shot = kept.clone().unwrap_or_else(|| dir.path().join("report.png"));
    if let Some(kept) = &kept {
        std::fs::write(kept.with_extension("html"), &html).expect("the page is kept");
    }
    let screenshot = format!("--screenshot={}", shot.display());
    let args = [screenshot.as_str(), "--window-size=1280,2000", "--hide-scrollbars"];
    chromium(&bin, &dir.path().join("profile-1"), &args, &url);
    let png = std::fs::read(&shot).expect("chromium wrote the screenshot");
    assert_eq!(png_size(&png), Some((1280, 2000)), "not the PNG asked for");
    assert!(png.len() > 40_000, "a near-empty screenshot: {} bytes", png.len());
    eprintln!("screenshot: {} ({} bytes)", shot.display(), png.len());

    // The DOM after the script ran, with the eighth case's transcript opened by the address.
    let dom = chromium(
        &bin,
        &dir.path().join("profile-2"),
        &["--dump-dom", "--virtual-time-budget=5000"],
        &format!("{url}#case=7"),
    );
    assert!(dom.contains("data-ready=\"true\""), "the page's script did not run: {dom}");
    assert_eq!(dom.matches("<tr class=\"case").count(), 25, "the cases table");
    assert!(dom.contains("<svg class=\"chart judges\""), "the judges' chart");
    assert!(dom.contains("<svg class=\"chart durations\""), "the durations chart");
    assert!(dom.contains("<span id=\"shown\">25 of 25 cases</span>"), "the filter's count");
    let transcript = dom.find("<tr class=\"transcript\">").map(|at| &dom[at..]).expect("the opened transcript");
    let transcript = &transcript[..transcript.find("</tr>").unwrap_or(transcript.len())];
    assert!(transcript.contains("&lt;script&gt;alert(1)&lt;/script&gt; is not a number"), "{transcript}");
    assert!(!dom.contains("<script>alert(1)"), "a model's output became markup");
    assert!(transcript.contains("Response: 3 events"), "the stream as its events: {transcript}");
    assert!(transcript.contains("1. POST /chat/completions → 200 (application/json)"), "{transcript}");
    assert!(transcript.contains("\"tool_calls\": ["), "the response pretty-printed: {transcript}");
    assert!(transcript.contains("missing call add"), "the verdicts' reasons: {transcript}");
    assert!(transcript.contains("add({\n  \"a\": 7,"), "the tool calls: {transcript}");
    assert!(html.contains("adds &lt;b&gt;small&lt;/b&gt; numbers &amp; more"));
    // The controls, driven by a script of the test's added to a copy of the page.
    let driven = dir.path().join("driven.html");
    std::fs::write(&driven, html.replace("</body>", &format!("<script>{DRIVER}</script></body>"))).expect("written");
    let dom = chromium(&bin, &dir.path().join("profile-3"), &["--dump-dom"], &format!("file://{}", driven.display()));
    let body = dom.find("<body").map_or("", |at| &dom[at..]);
    let body = &body[..body.find('>').map_or(0, |end| end + 1)];
    let mut by_time: Vec<usize> = (0..25).collect();
    let ms = |i: usize| report.cases[i].attempts.iter().map(|a| a.duration_ms).sum::<u64>();
    by_time.sort_by_key(|&i| (std::cmp::Reverse(ms(i)), i));
    let by_time: Vec<String> = by_time.iter().map(usize::to_string).collect();
    assert!(
        dom.contains(&format!("data-sorted=\"{}\"", by_time.join(","))),
        "sorted by time, longest first: {body} against {by_time:?}"
    );
    let failed = report.cases.iter().filter(|c| !c.unfinished() && !c.passed_all()).count();
    assert!(dom.contains(&format!("data-failed-only=\"{failed} of 25 cases\"")), "failed only: {body}");
    assert!(dom.contains("data-filtered=\"3 of 25 cases\""), "filtered by a reason's word: {body}");
    assert!(dom.contains("data-opened=\"1\""), "a click opens the transcript: {body}");

    // The page's policy refuses every outside load and names it in `data-blocked`.
    assert!(dom.contains("Content-Security-Policy"), "the policy");
    assert!(!dom.contains("data-blocked"), "the page reached outside itself: {}", &dom[..dom.len().min(400)]);
}
