//! The test runners' machine-readable reports, read into one [`TestResults`]: JUnit XML
//! (pytest's `--junitxml`, Maven Surefire, Gradle), libtest's JSON lines with cargo's
//! JSON messages, `go test -json`, and Jest's (and Vitest's) JSON report.

use serde::Serialize;
use serde_json::Value;

/// The longest failure message kept, in characters.
const MESSAGE_CAP: usize = 1500;

/// What a test run found.
#[derive(Debug, Default, Clone, PartialEq, Serialize)]
pub(crate) struct TestResults {
    pub passed: usize,
    pub failed: usize,
    pub skipped: usize,
    pub failures: Vec<Failure>,
    /// Errors that kept tests from running (compile errors, collection errors).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub build_errors: Vec<Failure>,
}

/// One failed test (or build error).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Failure {
    /// The test's full name (`module::test`, `tests/test_x.py::test_y`, `Class.method`).
    pub test: String,
    pub message: String,
    /// `file:line` where it failed, when the report says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
}

impl TestResults {
    /// Whether anything at all was read.
    pub fn is_empty(&self) -> bool {
        self.passed + self.failed + self.skipped == 0 && self.build_errors.is_empty()
    }

    fn absorb(&mut self, other: TestResults) {
        self.passed += other.passed;
        self.failed += other.failed;
        self.skipped += other.skipped;
        self.failures.extend(other.failures);
        self.build_errors.extend(other.build_errors);
    }
}

fn capped(s: &str) -> String {
    let s = s.trim();
    if s.chars().count() > MESSAGE_CAP {
        s.chars().take(MESSAGE_CAP).collect::<String>() + "…"
    } else {
        s.to_string()
    }
}

/// A JUnit XML report (any nesting of `testsuites`/`testsuite`/`testcase`).
pub(crate) fn junit(xml: &str) -> Result<TestResults, String> {
    let doc = roxmltree::Document::parse(xml).map_err(|e| format!("the JUnit report is not XML: {e}"))?;
    let mut out = TestResults::default();
    for case in doc.descendants().filter(|n| n.has_tag_name("testcase")) {
        let name = case.attribute("name").unwrap_or_default();
        let test = match case.attribute("classname").filter(|c| !c.is_empty()) {
            Some(c) => format!("{c}.{name}"),
            None => name.to_string(),
        };
        let failure =
            case.children().find(|c| c.is_element() && (c.has_tag_name("failure") || c.has_tag_name("error")));
        if let Some(f) = failure {
            out.failed += 1;
            let mut message = f.attribute("message").unwrap_or_default().to_string();
            let text: String = f.descendants().filter(|n| n.is_text()).filter_map(|n| n.text()).collect();
            if !text.trim().is_empty() {
                message = format!("{message}\n{}", text.trim());
            }
            let file = case.attribute("file");
            let class = case.attribute("classname").unwrap_or_default();
            let location = java_frame(&message, class)
                .or_else(|| location_in(&message, file))
                .or_else(|| file.map(|f| line_after(f, case.attribute("line"))));
            out.failures.push(Failure { test, message: capped(&message), location });
        } else if case.children().any(|c| c.has_tag_name("skipped")) {
            out.skipped += 1;
        } else {
            out.passed += 1;
        }
    }
    Ok(out)
}

/// The place of the frame of the test's own `class` in a JVM stack trace (`at
/// com.x.CalcTest.adds(CalcTest.java:12)`, `at app//com.x…` on newer JVMs), its file under
/// its package's folders: `com/x/CalcTest.java:12` (the report's own location is the bare
/// file name).
fn java_frame(text: &str, class: &str) -> Option<String> {
    if class.is_empty() {
        return None;
    }
    text.lines().find_map(|line| {
        let (method, place) = line.trim().strip_prefix("at ")?.split_once('(')?;
        let method = method.rsplit('/').next()?;
        let (frame_class, _) = method.rsplit_once('.')?;
        if frame_class.split('$').next()? != class {
            return None;
        }
        let (file, line) = place.trim_end_matches(')').split_once(':')?;
        if !line.chars().all(|c| c.is_ascii_digit()) || line.is_empty() {
            return None;
        }
        Some(match class.rsplit_once('.') {
            Some((package, _)) => format!("{}/{file}:{line}", package.replace('.', "/")),
            None => format!("{file}:{line}"),
        })
    })
}

/// A failure's place said from the project: a JVM frame's `com/x/CalcTest.java:12` becomes
/// the source file's path when it is in the Maven/Gradle layout of `module`.
fn under_module(location: String, module: &std::path::Path) -> String {
    let Some((path, line)) = location.rsplit_once(':') else { return location };
    let found = ["src/test/java", "src/main/java", "src/test/kotlin", "src/main/kotlin"]
        .iter()
        .map(|root| module.join(root).join(path))
        .find(|f| f.is_file());
    match found {
        Some(f) => format!("{}:{line}", f.display()),
        None => location,
    }
}

/// `file:line` from a JUnit `file` and `line` (0-based in pytest's xunit1 report).
fn line_after(file: &str, line: Option<&str>) -> String {
    match line.and_then(|l| l.parse::<usize>().ok()) {
        Some(n) => format!("{file}:{}", n + 1),
        None => file.to_string(),
    }
}

/// The last `path:line` a failure's text names in a source file (pytest's
/// `tests/test_x.py:7: AssertionError`, Java's `(Calc.java:12)`), preferring `file`.
fn location_in(text: &str, file: Option<&str>) -> Option<String> {
    let mut found = Vec::new();
    for token in text.split(|c: char| c.is_whitespace() || c == '(' || c == ')') {
        let mut parts = token.trim_end_matches(':').splitn(3, ':');
        let (Some(path), Some(line)) = (parts.next(), parts.next()) else { continue };
        let source = [".py", ".java", ".kt", ".js", ".ts", ".tsx", ".jsx", ".mjs", ".go", ".rs"]
            .iter()
            .any(|ext| path.ends_with(ext));
        if source && !line.is_empty() && line.chars().all(|c| c.is_ascii_digit()) {
            found.push(format!("{path}:{line}"));
        }
    }
    let wanted = file.and_then(|f| found.iter().rev().find(|l| l.starts_with(f)).cloned());
    wanted.or_else(|| found.into_iter().rev().find(|l| !l.contains("site-packages") && !l.contains("node_modules")))
}

/// cargo's JSON messages (`--message-format json`) interleaved with libtest's JSON
/// events (`--format json`), as `cargo test` prints them on standard output.
pub(crate) fn cargo_libtest(stdout: &str) -> TestResults {
    let mut out = TestResults::default();
    for line in stdout.lines() {
        let Ok(v) = serde_json::from_str::<Value>(line.trim()) else { continue };
        if v["reason"] == "compiler-message" && v["message"]["level"] == "error" {
            let m = &v["message"];
            let span = m["spans"].as_array().and_then(|s| s.iter().find(|s| s["is_primary"] == true));
            let location = span.map(|s| format!("{}:{}", s["file_name"].as_str().unwrap_or("?"), s["line_start"]));
            let message = m["rendered"].as_str().or(m["message"].as_str()).unwrap_or("").to_string();
            let target = v["target"]["name"].as_str().unwrap_or("build");
            out.build_errors.push(Failure { test: target.to_string(), message: capped(&message), location });
            continue;
        }
        if v["type"] != "test" {
            continue;
        }
        let name = v["name"].as_str().unwrap_or("").to_string();
        match v["event"].as_str() {
            Some("ok") => out.passed += 1,
            Some("ignored") => out.skipped += 1,
            Some("failed") | Some("timeout") => {
                out.failed += 1;
                let text = v["stdout"].as_str().or(v["message"].as_str()).unwrap_or("");
                let (message, location) = panic_message(text);
                out.failures.push(Failure { test: name, message, location });
            }
            _ => {}
        }
    }
    out
}

/// A Rust panic's message and `file:line:col` from a failed test's captured output
/// (`thread 'x' panicked at src/lib.rs:5:24:\nmessage`), without the backtrace.
fn panic_message(text: &str) -> (String, Option<String>) {
    let Some(at) = text.find("panicked at ") else { return (capped(text), None) };
    let rest = &text[at + "panicked at ".len()..];
    let (head, body) = rest.split_once('\n').unwrap_or((rest, ""));
    let location = head.trim_end_matches(':').to_string();
    let message: Vec<&str> =
        body.lines().take_while(|l| !l.starts_with("stack backtrace:") && !l.starts_with("note: run with")).collect();
    let before = text[..at].trim();
    let mut message = message.join("\n");
    if let Some(printed) = before.rsplit_once("\nthread ").map(|(p, _)| p).filter(|p| !p.trim().is_empty()) {
        message = format!("{message}\n[output]\n{}", printed.trim());
    }
    (capped(&message), Some(location))
}

/// `go test -json` events.
pub(crate) fn go_test(stdout: &str) -> TestResults {
    let mut out = TestResults::default();
    let mut output: std::collections::HashMap<(String, String), String> = Default::default();
    let mut build_output = String::new();
    for line in stdout.lines() {
        let Ok(v) = serde_json::from_str::<Value>(line.trim()) else { continue };
        let action = v["Action"].as_str().unwrap_or("");
        let package = v["Package"].as_str().unwrap_or("").to_string();
        let Some(test) = v["Test"].as_str() else {
            match action {
                "build-output" => build_output.push_str(v["Output"].as_str().unwrap_or("")),
                "build-fail" | "fail" if !build_output.is_empty() || v["FailedBuild"].is_string() => {
                    let message = std::mem::take(&mut build_output);
                    let location = location_in(&message, None);
                    out.build_errors.push(Failure { test: package, message: capped(&message), location });
                }
                _ => {}
            }
            continue;
        };
        let key = (package.clone(), test.to_string());
        match action {
            "output" => output.entry(key).or_default().push_str(v["Output"].as_str().unwrap_or("")),
            "pass" => out.passed += 1,
            "skip" => out.skipped += 1,
            "fail" => {
                out.failed += 1;
                let text = output.remove(&key).unwrap_or_default();
                let message: Vec<&str> = text
                    .lines()
                    .filter(|l| !l.trim_start().starts_with("=== ") && !l.trim_start().starts_with("--- FAIL"))
                    .collect();
                let message = message.join("\n");
                let location = location_in(&message, None);
                out.failures.push(Failure { test: format!("{package}.{test}"), message: capped(&message), location });
            }
            _ => {}
        }
    }
    out
}

/// Jest's `--json` report (Vitest's `--reporter=json` has the same shape).
pub(crate) fn jest_json(text: &str) -> Result<TestResults, String> {
    let v: Value =
        serde_json::from_str(text).map_err(|e| format!("the Jest/Vitest JSON report does not parse: {e}"))?;
    let mut out = TestResults::default();
    for file in v["testResults"].as_array().into_iter().flatten() {
        let path = file["name"].as_str().unwrap_or("").to_string();
        let assertions = file["assertionResults"].as_array().map(Vec::as_slice).unwrap_or_default();
        if assertions.is_empty() && file["status"] == "failed" {
            // The file itself failed (a syntax error, a missing import).
            let message = file["message"].as_str().unwrap_or("").to_string();
            out.build_errors.push(Failure {
                test: path.clone(),
                location: location_in(&message, Some(&path)),
                message: capped(&message),
            });
        }
        for a in assertions {
            match a["status"].as_str() {
                Some("passed") => out.passed += 1,
                Some("failed") => {
                    out.failed += 1;
                    let messages: Vec<&str> =
                        a["failureMessages"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
                    // The runner's own stack frames say nothing about the test.
                    let joined = messages.join("\n");
                    let kept: Vec<&str> = joined.lines().filter(|l| !l.contains("/node_modules/")).collect();
                    let message = kept.join("\n");
                    let location = location_in(&message, Some(&path))
                        .or_else(|| a["location"]["line"].as_u64().map(|l| format!("{path}:{l}")));
                    let name = a["fullName"].as_str().or(a["title"].as_str()).unwrap_or("").to_string();
                    out.failures.push(Failure { test: name, message: capped(&message), location });
                }
                Some(_) => out.skipped += 1,
                None => {}
            }
        }
    }
    Ok(out)
}

/// Every JUnit report among `files`, added up.
pub(crate) fn junit_files(files: &[std::path::PathBuf]) -> Result<TestResults, String> {
    let mut out = TestResults::default();
    for f in files {
        let text = std::fs::read_to_string(f).map_err(|e| format!("cannot read {}: {e}", f.display()))?;
        let mut read = junit(&text).map_err(|e| format!("{}: {e}", f.display()))?;
        // The report's module: the nearest folder above it with a `src`, looked for once.
        if let Some(module) = f.ancestors().skip(1).find(|d| d.join("src").is_dir()) {
            for failure in &mut read.failures {
                failure.location = failure.location.take().map(|l| under_module(l, module));
            }
        }
        out.absorb(read);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn junit_counts_failures_errors_and_skips() {
        let xml = r#"<?xml version="1.0"?><testsuites><testsuite name="s">
            <testcase classname="t.Calc" name="adds"/>
            <testcase classname="t.Calc" name="fails"><failure message="expected 3 but was 4" type="AssertionError">at t.Calc.fails(CalcTest.java:12)</failure></testcase>
            <testcase classname="t.Calc" name="skips"><skipped/></testcase>
            <testcase classname="t.Calc" name="breaks"><error message="boom"/></testcase>
        </testsuite></testsuites>"#;
        let r = junit(xml).unwrap();
        assert_eq!((r.passed, r.failed, r.skipped), (1, 2, 1));
        assert_eq!(r.failures[0].test, "t.Calc.fails");
        assert!(r.failures[0].message.starts_with("expected 3 but was 4"));
        assert_eq!(r.failures[0].location.as_deref(), Some("t/CalcTest.java:12"));
        assert_eq!(r.failures[1].message, "boom");
        assert!(junit("<testsuite><testcase").is_err());
    }

    #[test]
    fn a_jvm_failure_is_placed_at_its_test_classs_source_file_in_the_module() {
        let dir = std::env::temp_dir().join(format!("lucid-junit-module-{}", std::process::id()));
        let source = dir.join("app/src/test/java/com/x/CalcTest.java");
        std::fs::create_dir_all(source.parent().unwrap()).unwrap();
        std::fs::write(&source, "class CalcTest {}").unwrap();
        let report = dir.join("app/target/surefire-reports/TEST-com.x.CalcTest.xml");
        std::fs::create_dir_all(report.parent().unwrap()).unwrap();
        // Frames of JUnit's own classes first, the test's (with the class loader's prefix) after.
        let trace = "org.opentest4j.AssertionFailedError: expected: &lt;4&gt; but was: &lt;3&gt;\n\
            \tat org.junit.jupiter.api.AssertionUtils.fail(AssertionUtils.java:55)\n\
            \tat app//com.x.CalcTest$Nested.adds(CalcTest.java:16)\n";
        let xml = format!(
            r#"<testsuite><testcase classname="com.x.CalcTest" name="adds"><failure>{trace}</failure></testcase>
               <testcase classname="com.x.Other" name="gone"><failure>at com.x.Other.gone(Other.java:3)</failure></testcase></testsuite>"#
        );
        std::fs::write(&report, xml).unwrap();
        let r = junit_files(std::slice::from_ref(&report)).unwrap();
        let places: Vec<_> = r.failures.iter().map(|f| f.location.clone().unwrap()).collect();
        // Found in the module: its path; not found (no such file): the package path.
        assert_eq!(places, [format!("{}:16", source.display()), "com/x/Other.java:3".to_string()]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn libtest_events_and_compile_errors() {
        let out = concat!(
            r#"{"reason":"compiler-message","target":{"name":"calc"},"message":{"level":"error","message":"mismatched types","rendered":"error[E0308]: mismatched types","spans":[{"is_primary":true,"file_name":"src/lib.rs","line_start":3}]}}"#,
            "\n",
            r#"{ "type": "test", "name": "tests::ok", "event": "ok" }"#,
            "\n",
            r#"{ "type": "test", "name": "tests::bad", "event": "failed", "stdout": "hello\n\nthread 'tests::bad' (1) panicked at src/lib.rs:5:24:\nassertion failed: math\nstack backtrace:\n   0: x\n" }"#,
            "\n"
        );
        let r = cargo_libtest(out);
        assert_eq!((r.passed, r.failed, r.skipped), (1, 1, 0));
        assert_eq!(r.failures[0].location.as_deref(), Some("src/lib.rs:5:24"));
        assert_eq!(r.failures[0].message, "assertion failed: math\n[output]\nhello");
        assert_eq!(r.build_errors[0].location.as_deref(), Some("src/lib.rs:3"));
    }
}
