//! A report as JUnit XML, the form CI systems read (GitLab, Jenkins, GitHub's test
//! reporters), in the de-facto schema Jenkins and Maven Surefire document.

use std::time::Duration;

use quick_junit::{NonSuccessKind, Property, TestCase, TestCaseStatus, TestSuite};

use super::{Attempt, CaseReport, Report, Status};

impl Report {
    /// The report as JUnit XML: one `<testsuite>` named after the dataset inside
    /// `<testsuites>`, with the run's scores as `<properties>`, and one `<testcase>` per
    /// attempt (named `case #repeat` when cases ran more than once).
    ///
    /// A failed verdict is a `<failure type="judge">` whose body has every failed verdict's
    /// reason (Jenkins keeps one failure per test case); an attempt that errored, went over
    /// its budget or no longer matched its cassette is an `<error>`; one cancelled or never
    /// run is `<skipped>`. The agent's output goes to `<system-out>`. Characters XML cannot
    /// carry (control characters, U+FFFE, U+FFFF) are dropped from every text.
    ///
    /// ```
    /// use lucid_eval::Verdict;
    /// use lucid_eval::report::{Attempt, CaseReport, Report, Status};
    /// let mut report = Report::new("sums");
    /// let mut case = CaseReport::new("two plus two", serde_json::json!("What is 2 + 2?"));
    /// let mut attempt = Attempt::new(0, Status::Done);
    /// attempt.verdicts.push(Verdict::new("EqualsExpected", false).reason("expected 4, got 5"));
    /// case.attempts.push(attempt);
    /// report.cases.push(case);
    /// report.summarise();
    /// let xml = report.to_junit();
    /// assert!(xml.contains(r#"<testsuite name="sums" tests="1" skipped="0" errors="0" failures="1""#));
    /// assert!(xml.contains("EqualsExpected: expected 4, got 5"));
    /// ```
    pub fn to_junit(&self) -> String {
        let mut suite = TestSuite::new(xml_text(&self.dataset));
        if let Some(at) = chrono::DateTime::from_timestamp_millis(i64::try_from(self.started_ms).unwrap_or(i64::MAX)) {
            suite.set_timestamp(at.fixed_offset());
        }
        suite.set_time(Duration::from_millis(self.duration_ms));
        suite.add_properties(properties(self));
        for case in &self.cases {
            for attempt in &case.attempts {
                suite.add_test_case(test_case(self, case, attempt));
            }
        }
        let mut junit = quick_junit::Report::new(xml_text(&self.dataset));
        junit.set_time(Duration::from_millis(self.duration_ms));
        junit.add_test_suite(suite);
        // Written to memory: the writer cannot fail, and every text is valid UTF-8.
        junit.to_string().expect("JUnit XML is written to memory")
    }
}

/// The run's scores and settings, as the suite's properties.
fn properties(report: &Report) -> Vec<Property> {
    let s = &report.summary;
    let mut props = vec![
        Property::new("pass_rate", format!("{:.4}", s.pass_rate)),
        Property::new("pass_at_k", format!("{:.4}", s.pass_at_k)),
        Property::new("repeats", report.repeats.to_string()),
        Property::new("cases", s.cases.to_string()),
        Property::new("finished", s.finished.to_string()),
        Property::new("passed", s.passed.to_string()),
        Property::new("flaky", s.flaky.to_string()),
        Property::new("tokens", s.tokens.to_string()),
        Property::new("interrupted", report.interrupted.to_string()),
    ];
    if let Some(cost) = s.cost_usd {
        props.push(Property::new("cost_usd", format!("{cost:.6}")));
    }
    for (key, value) in [("agent", &report.agent), ("model", &report.model), ("mode", &report.mode)] {
        if let Some(value) = value {
            props.push(Property::new(key, xml_text(value)));
        }
    }
    for (name, judge) in &s.judges {
        props.push(Property::new(xml_text(&format!("judge {name} pass_rate")), format!("{:.4}", judge.pass_rate)));
        if let Some(score) = judge.mean_score {
            props.push(Property::new(xml_text(&format!("judge {name} mean_score")), format!("{score:.4}")));
        }
    }
    props
}

fn test_case(report: &Report, case: &CaseReport, attempt: &Attempt) -> TestCase {
    let name = if report.repeats > 1 || case.attempts.len() > 1 {
        format!("{} #{}", case.name, attempt.repeat)
    } else {
        case.name.clone()
    };
    let mut test = TestCase::new(xml_text(&name), status(attempt));
    test.set_classname(xml_text(&report.dataset));
    test.set_time(Duration::from_millis(attempt.duration_ms));
    if let Some(output) = &attempt.output {
        let text = match output {
            serde_json::Value::String(s) => s.clone(),
            other => serde_json::to_string_pretty(other).unwrap_or_default(),
        };
        test.set_system_out(xml_text(&text));
    }
    test
}

/// How an attempt reads in JUnit: passed, failed (a judge said no), errored, or skipped.
fn status(attempt: &Attempt) -> TestCaseStatus {
    let why = attempt.error.as_deref().map(xml_text);
    match attempt.status {
        Status::Done if attempt.passed => TestCaseStatus::success(),
        Status::Done => {
            let failed: Vec<_> = attempt.verdicts.iter().filter(|v| !v.passed).collect();
            let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
            status.set_type("judge");
            if failed.is_empty() {
                status.set_message("the attempt did not pass");
            } else {
                let judges: Vec<&str> = failed.iter().map(|v| v.judge.as_str()).collect();
                status.set_message(xml_text(&format!("failed: {}", judges.join(", "))));
                let body: Vec<String> = failed
                    .iter()
                    .map(|v| format!("{}: {}", v.judge, v.reason.as_deref().unwrap_or("failed (no reason given)")))
                    .collect();
                status.set_description(xml_text(&body.join("\n")));
            }
            status
        }
        Status::Error | Status::OverBudget | Status::CassetteMismatch => {
            let mut status = TestCaseStatus::non_success(NonSuccessKind::Error);
            status.set_type(attempt.status.as_str());
            status.set_message(why.clone().unwrap_or_else(|| attempt.status.as_str().to_string()));
            if let Some(why) = why {
                status.set_description(why);
            }
            status
        }
        Status::Cancelled | Status::NotRun => {
            let mut status = TestCaseStatus::skipped();
            status.set_type(attempt.status.as_str());
            status.set_message(why.unwrap_or_else(|| attempt.status.as_str().to_string()));
            status
        }
    }
}

/// `text` without the characters XML 1.0 cannot carry, even escaped: control characters
/// other than tab, line feed and carriage return, and U+FFFE and U+FFFF. Escape is kept
/// for `quick-junit`, which removes whole ANSI sequences (colours) and then the escapes.
fn xml_text(text: &str) -> String {
    text.chars()
        .filter(|&c| {
            matches!(c, '\t' | '\n' | '\r' | '\u{1b}' | ' '..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::Verdict;

    fn verdict(judge: &str, passed: bool, reason: Option<&str>) -> Verdict {
        let v = Verdict::new(judge, passed);
        match reason {
            Some(r) => v.reason(r),
            None => v,
        }
    }

    fn report() -> Report {
        let mut r = Report::new("math & <more>");
        r.repeats = 2;
        r.model = Some("openai:\"gpt\"".into());
        let mut good = CaseReport::new("good", serde_json::Value::Null);
        let mut bad = CaseReport::new("bad \"one\" <b>", serde_json::Value::Null);
        let mut broken = CaseReport::new("broken", serde_json::Value::Null);
        for repeat in 0..2 {
            let mut ok = Attempt::new(repeat, Status::Done);
            ok.passed = true;
            ok.verdicts = vec![verdict("Equals", true, None)];
            ok.duration_ms = 1500;
            ok.output = Some("4".into());
            good.attempts.push(ok);
            let mut no = Attempt::new(repeat, Status::Done);
            no.verdicts = vec![
                verdict("Equals", false, Some("expected \"4\" & got <5>")),
                verdict("Contains", true, None),
                verdict("Regex", false, Some("no match for ^\\d+$")),
            ];
            no.output = Some("<script>alert(1)</script> \u{1b}[31mred\u{1b}[0m \u{0}\u{7}\u{FFFE}\u{FFFF} ok".into());
            bad.attempts.push(no);
        }
        let mut err = Attempt::new(0, Status::CassetteMismatch);
        err.error = Some("request 1 differs at /messages/0: \"a\" < \"b\"\u{3}".into());
        broken.attempts.push(err);
        let mut budget = Attempt::new(1, Status::OverBudget);
        budget.error = Some("over the case's token budget".into());
        broken.attempts.push(budget);
        let mut never = CaseReport::new("never", serde_json::Value::Null);
        for repeat in 0..2 {
            let mut a = Attempt::new(repeat, Status::NotRun);
            a.error = Some("the run's budget was spent".into());
            never.attempts.push(a);
        }
        r.cases = vec![good, bad, broken, never];
        r.duration_ms = 12_345;
        r.summarise();
        r
    }

    #[test]
    fn the_xml_parses_with_the_counts_messages_and_properties_of_the_run() {
        let r = report();
        let xml = r.to_junit();
        let doc = roxmltree::Document::parse(&xml).expect("well-formed XML");
        let root = doc.root_element();
        assert_eq!(root.tag_name().name(), "testsuites");
        let suites: Vec<_> = root.children().filter(|n| n.has_tag_name("testsuite")).collect();
        assert_eq!(suites.len(), 1);
        let suite = suites[0];
        assert_eq!(suite.attribute("name"), Some("math & <more>"));
        assert_eq!(suite.attribute("tests"), Some("8"));
        assert_eq!(suite.attribute("failures"), Some("2"));
        assert_eq!(suite.attribute("errors"), Some("2"));
        assert_eq!(suite.attribute("skipped"), Some("2"));
        assert_eq!(suite.attribute("time"), Some("12.345"));
        assert!(suite.attribute("timestamp").is_some_and(|t| t.starts_with("20")), "{xml}");
        let props: Vec<(&str, &str)> = suite
            .descendants()
            .filter(|n| n.has_tag_name("property"))
            .map(|p| (p.attribute("name").unwrap_or(""), p.attribute("value").unwrap_or("")))
            .collect();
        assert!(props.contains(&("pass_rate", "0.3333")), "{props:?}");
        assert!(props.contains(&("pass_at_k", "0.3333")), "{props:?}");
        assert!(props.contains(&("model", "openai:\"gpt\"")), "{props:?}");
        assert!(props.contains(&("judge Equals pass_rate", "0.5000")), "{props:?}");

        let cases: Vec<_> = suite.children().filter(|n| n.has_tag_name("testcase")).collect();
        let names: Vec<&str> = cases.iter().filter_map(|c| c.attribute("name")).collect();
        assert_eq!(
            names,
            [
                "good #0",
                "good #1",
                "bad \"one\" <b> #0",
                "bad \"one\" <b> #1",
                "broken #0",
                "broken #1",
                "never #0",
                "never #1"
            ]
        );
        assert!(cases.iter().all(|c| c.attribute("classname") == Some("math & <more>")));
        assert_eq!(cases[0].attribute("time"), Some("1.500"));
        assert!(cases[0].children().all(|n| !n.has_tag_name("failure")));

        let failure = cases[2].children().find(|n| n.has_tag_name("failure")).expect("a failure");
        assert_eq!(failure.attribute("type"), Some("judge"));
        assert_eq!(failure.attribute("message"), Some("failed: Equals, Regex"));
        assert_eq!(failure.text(), Some("Equals: expected \"4\" & got <5>\nRegex: no match for ^\\d+$"));
        let out = cases[2].children().find(|n| n.has_tag_name("system-out")).and_then(|n| n.text());
        assert_eq!(out, Some("<script>alert(1)</script> red  ok"));

        let error = cases[4].children().find(|n| n.has_tag_name("error")).expect("an error");
        assert_eq!(error.attribute("type"), Some("cassette_mismatch"));
        assert_eq!(error.attribute("message"), Some("request 1 differs at /messages/0: \"a\" < \"b\""));
        let error = cases[5].children().find(|n| n.has_tag_name("error")).expect("an error");
        assert_eq!(error.attribute("type"), Some("over_budget"));
        let skipped = cases[6].children().find(|n| n.has_tag_name("skipped")).expect("skipped");
        assert_eq!(skipped.attribute("message"), Some("the run's budget was spent"));
    }

    #[test]
    fn one_attempt_per_case_keeps_the_case_name_and_no_output_leaves_no_system_out() {
        let mut r = Report::new("d");
        let mut case = CaseReport::new("only", serde_json::Value::Null);
        case.attempts.push(Attempt::new(0, Status::Cancelled));
        r.cases.push(case);
        r.summarise();
        let xml = r.to_junit();
        let doc = roxmltree::Document::parse(&xml).expect("well-formed XML");
        let case = doc.descendants().find(|n| n.has_tag_name("testcase")).expect("a test case");
        assert_eq!(case.attribute("name"), Some("only"));
        let skipped = case.children().find(|n| n.has_tag_name("skipped")).expect("skipped");
        assert_eq!(skipped.attribute("message"), Some("cancelled"));
        assert!(!xml.contains("system-out"));
    }

    #[test]
    fn xml_text_keeps_what_xml_can_carry() {
        assert_eq!(
            xml_text("a\tb\nc\rd \u{0}\u{8}\u{b}\u{1f}\u{FFFE}\u{FFFF}é😀\u{FFFD}\u{1b}"),
            "a\tb\nc\rd é😀\u{FFFD}\u{1b}"
        );
    }
}
