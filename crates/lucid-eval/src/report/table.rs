//! A report, and a comparison, as plain-text tables for a terminal.

use std::fmt::Write as _;

use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use super::{CaseReport, Comparison, Report, Status};

/// The width [`Report::to_table`] fits its table in.
pub const TABLE_WIDTH: usize = 100;

const GREEN: &str = "\x1b[32m";
const RED: &str = "\x1b[31m";
const YELLOW: &str = "\x1b[33m";
const BOLD: &str = "\x1b[1m";
const DIM: &str = "\x1b[2m";
const RESET: &str = "\x1b[0m";

impl Report {
    /// The report as a table of [`TABLE_WIDTH`] columns: one row per case (its name,
    /// attempts passed over attempts, how they ended, the judges that failed, tokens and
    /// time), then the totals, and a line saying so when the run was interrupted. `color`
    /// adds ANSI colours (green passed, red failed, yellow flaky).
    ///
    /// ```
    /// use lucid_eval::report::{Attempt, CaseReport, Report, Status};
    /// let mut report = Report::new("sums");
    /// let mut case = CaseReport::new("two plus two", serde_json::json!("What is 2 + 2?"));
    /// let mut attempt = Attempt::new(0, Status::Done);
    /// attempt.passed = true;
    /// case.attempts.push(attempt);
    /// report.cases.push(case);
    /// report.summarise();
    /// let table = report.to_table(false);
    /// assert!(table.lines().any(|l| l.starts_with("two plus two") && l.contains("1/1")));
    /// assert!(table.contains("pass rate 100.0% (1 of 1 cases)"));
    /// ```
    pub fn to_table(&self, color: bool) -> String {
        self.to_table_width(color, TABLE_WIDTH)
    }

    /// [`Report::to_table`] fitted in `width` columns (a terminal's): long case names and
    /// judge lists are cut with `…`.
    ///
    /// ```
    /// use lucid_eval::report::{Attempt, CaseReport, Report, Status};
    /// let mut report = Report::new("d");
    /// let mut case = CaseReport::new("a".repeat(200), serde_json::Value::Null);
    /// case.attempts.push(Attempt::new(0, Status::Error));
    /// report.cases.push(case);
    /// report.summarise();
    /// let table = report.to_table_width(false, 60);
    /// assert!(table.lines().take(2).all(|l| l.chars().count() <= 60), "{table}");
    /// assert!(table.contains("a…"));
    /// ```
    pub fn to_table_width(&self, color: bool, width: usize) -> String {
        let paint = |code: &'static str, text: String| if color { format!("{code}{text}{RESET}") } else { text };
        let rows: Vec<Row> = self.cases.iter().map(Row::of).collect();
        let header = Row {
            name: "case".into(),
            passed: "passed".into(),
            status: "status".into(),
            judges: "failed judges".into(),
            tokens: "tokens".into(),
            time: "time".into(),
            mood: Mood::Plain,
        };
        let widest = |f: fn(&Row) -> &str| rows.iter().chain([&header]).map(|r| f(r).width()).max().unwrap_or(0);
        let mut name_w = widest(|r| &r.name);
        let passed_w = widest(|r| &r.passed);
        let status_w = widest(|r| &r.status);
        let mut judges_w = widest(|r| &r.judges);
        let tokens_w = widest(|r| &r.tokens);
        let time_w = widest(|r| &r.time);
        // Five gaps of two spaces; the name gives way first, then the judges.
        let fixed = passed_w + status_w + tokens_w + time_w + 10;
        let over = (fixed + name_w + judges_w).saturating_sub(width);
        let from_name = over.min(name_w.saturating_sub(12));
        name_w -= from_name;
        judges_w -= (over - from_name).min(judges_w.saturating_sub(13));

        let mut out = String::new();
        let line = |r: &Row| {
            format!(
                "{}  {}  {}  {}  {}  {}",
                pad(&fit(&r.name, name_w), name_w),
                pad(&r.passed, passed_w),
                pad(&r.status, status_w),
                pad(&fit(&r.judges, judges_w), judges_w),
                pad_left(&r.tokens, tokens_w),
                pad_left(&r.time, time_w),
            )
        };
        let _ = writeln!(out, "{}", paint(BOLD, line(&header).trim_end().to_string()));
        for row in &rows {
            let text = line(row).trim_end().to_string();
            let text = match row.mood {
                Mood::Passed => paint(GREEN, text),
                Mood::Failed => paint(RED, text),
                Mood::Flaky => paint(YELLOW, text),
                Mood::Plain => paint(DIM, text),
            };
            let _ = writeln!(out, "{text}");
        }
        let s = &self.summary;
        let _ = writeln!(out);
        let _ = writeln!(
            out,
            "{}: pass rate {} ({} of {} cases), pass@{} {}, flaky {}",
            self.dataset,
            percent(s.pass_rate),
            s.passed,
            s.finished,
            self.repeats,
            percent(s.pass_at_k),
            s.flaky
        );
        let cost = s.cost_usd.map_or("unknown".to_string(), |c| format!("${c:.4}"));
        let _ = writeln!(
            out,
            "tokens {}, cost {cost}, duration {} (agents {})",
            thousands(s.tokens),
            seconds(self.duration_ms),
            seconds(s.agent_ms)
        );
        if self.interrupted {
            let unfinished = s.cases - s.finished;
            let text = format!("interrupted: {unfinished} of {} cases did not finish", s.cases);
            let _ = writeln!(out, "{}", paint(YELLOW, text));
        }
        out
    }
}

impl Comparison {
    /// The comparison as a table: each score with its baseline, its current value and
    /// the change, `REGRESSION` beside those that fell more than the threshold; then the
    /// cases newly failing and newly passing.
    ///
    /// ```
    /// use lucid_eval::report::{Attempt, CaseReport, Report, Status, compare};
    /// let run = |passed: bool| {
    ///     let mut r = Report::new("d");
    ///     let mut case = CaseReport::new("c", serde_json::Value::Null);
    ///     let mut attempt = Attempt::new(0, Status::Done);
    ///     attempt.passed = passed;
    ///     case.attempts.push(attempt);
    ///     r.cases.push(case);
    ///     r.summarise();
    ///     r
    /// };
    /// let table = compare(&run(false), &run(true), 0.05).to_table();
    /// assert!(table.lines().any(|l| l.starts_with("pass_rate") && l.contains("100.0%") && l.ends_with("REGRESSION")));
    /// assert!(table.contains("newly failing (1):\n  c"));
    /// ```
    pub fn to_table(&self) -> String {
        let cells: Vec<[String; 4]> = self
            .metrics
            .iter()
            .map(|m| {
                let score = m.metric.ends_with("mean_score");
                let show = |v: f64| if score { format!("{v:.3}") } else { percent(v) };
                let change = m.current - m.baseline;
                let change = if score { format!("{change:+.3}") } else { format!("{:+.1} pts", change * 100.0) };
                [m.metric.clone(), show(m.baseline), show(m.current), change]
            })
            .collect();
        let head = ["metric".to_string(), "baseline".into(), "current".into(), "change".into()];
        let w: Vec<usize> =
            (0..4).map(|i| cells.iter().chain([&head]).map(|c| c[i].width()).max().unwrap_or(0)).collect();
        let mut out = String::new();
        let row = |c: &[String; 4]| {
            format!(
                "{}  {}  {}  {}",
                pad(&c[0], w[0]),
                pad_left(&c[1], w[1]),
                pad_left(&c[2], w[2]),
                pad_left(&c[3], w[3])
            )
        };
        let _ = writeln!(out, "{}", row(&head));
        for (cells, m) in cells.iter().zip(&self.metrics) {
            let marker = if m.regression { "  REGRESSION" } else { "" };
            let _ = writeln!(out, "{}{marker}", row(cells));
        }
        let _ = writeln!(out);
        let fell = self.metrics.iter().filter(|m| m.regression).count();
        if fell == 0 {
            let _ = writeln!(out, "no score fell more than {}", points(self.threshold));
        } else {
            let _ = writeln!(out, "{fell} score(s) fell more than {}: a regression", points(self.threshold));
        }
        for (title, cases) in [("newly failing", &self.newly_failing), ("newly passing", &self.newly_passing)] {
            if !cases.is_empty() {
                let _ = writeln!(out, "{title} ({}):", cases.len());
                for case in cases {
                    let _ = writeln!(out, "  {case}");
                }
            }
        }
        out
    }
}

#[derive(Clone, Copy)]
enum Mood {
    Passed,
    Failed,
    Flaky,
    Plain,
}

/// One case's cells.
struct Row {
    name: String,
    passed: String,
    status: String,
    judges: String,
    tokens: String,
    time: String,
    mood: Mood,
}

impl Row {
    fn of(case: &CaseReport) -> Row {
        let passed = case.attempts.iter().filter(|a| a.passed).count();
        let mut statuses: Vec<Status> = Vec::new();
        for a in &case.attempts {
            if !statuses.contains(&a.status) {
                statuses.push(a.status);
            }
        }
        let mut judges: Vec<&str> = Vec::new();
        for v in case.attempts.iter().flat_map(|a| &a.verdicts).filter(|v| !v.passed) {
            if !judges.contains(&v.judge.as_str()) {
                judges.push(&v.judge);
            }
        }
        let mood = if case.unfinished() {
            Mood::Plain
        } else if case.passed_all() {
            Mood::Passed
        } else if case.flaky() {
            Mood::Flaky
        } else {
            Mood::Failed
        };
        let tokens: u64 = case.attempts.iter().map(|a| a.tokens).sum();
        let ms: u64 = case.attempts.iter().map(|a| a.duration_ms).sum();
        Row {
            name: one_line(&case.name),
            passed: format!("{passed}/{}", case.attempts.len()),
            status: statuses.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(","),
            judges: if judges.is_empty() { "-".into() } else { one_line(&judges.join(", ")) },
            tokens: thousands(tokens),
            time: seconds(ms),
            mood,
        }
    }
}

/// `text` on one line, with no control characters (a name could move the cursor).
fn one_line(text: &str) -> String {
    text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect()
}

/// `text` cut to `width` columns, ending in `…` when cut.
fn fit(text: &str, width: usize) -> String {
    if text.width() <= width {
        return text.to_string();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = c.width().unwrap_or(0);
        if used + w + 1 > width {
            break;
        }
        out.push(c);
        used += w;
    }
    out.push('…');
    out
}

fn pad(text: &str, width: usize) -> String {
    format!("{text}{}", " ".repeat(width.saturating_sub(text.width())))
}

fn pad_left(text: &str, width: usize) -> String {
    format!("{}{text}", " ".repeat(width.saturating_sub(text.width())))
}

pub(super) fn percent(rate: f64) -> String {
    format!("{:.1}%", rate * 100.0)
}

fn points(rate: f64) -> String {
    format!("{:.1} points", rate * 100.0)
}

/// `1234567` as `1,234,567`.
pub(super) fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Milliseconds as `850ms`, `12.3s` or `2m05s`.
pub(super) fn seconds(ms: u64) -> String {
    match ms {
        0..1000 => format!("{ms}ms"),
        1000..60_000 => format!("{:.1}s", ms as f64 / 1000.0),
        _ => format!("{}m{:02}s", ms / 60_000, (ms % 60_000) / 1000),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::Verdict;
    use crate::report::{Attempt, compare};

    fn attempt(repeat: u32, status: Status, failed: &[&str]) -> Attempt {
        let mut a = Attempt::new(repeat, status);
        let verdict = |judge: &str, passed| Verdict::new(judge, passed);
        if status == Status::Done {
            a.verdicts.push(verdict("Equals", !failed.contains(&"Equals")));
            a.verdicts.extend(failed.iter().filter(|j| **j != "Equals").map(|j| verdict(j, false)));
        }
        a.passed = status == Status::Done && failed.is_empty();
        a.tokens = 1200;
        a.duration_ms = 1500;
        a
    }

    fn report() -> Report {
        let mut r = Report::new("mock");
        r.repeats = 2;
        let case = |name: &str, attempts: Vec<Attempt>| {
            let mut c = CaseReport::new(name, serde_json::Value::Null);
            c.attempts = attempts;
            c
        };
        r.cases = vec![
            case("steady", vec![attempt(0, Status::Done, &[]), attempt(1, Status::Done, &[])]),
            case("flaky", vec![attempt(0, Status::Done, &["Equals"]), attempt(1, Status::Done, &[])]),
            case("broken", vec![attempt(0, Status::Error, &[]), attempt(1, Status::OverBudget, &[])]),
            case(
                "a case whose name is very long indeed, much longer than any terminal column should hold",
                vec![attempt(0, Status::Done, &["Contains", "Regex"]), attempt(1, Status::Done, &["Contains"])],
            ),
            case("skipped\nnext line", vec![Attempt::new(0, Status::NotRun), Attempt::new(1, Status::NotRun)]),
        ];
        r.duration_ms = 65_000;
        r.interrupted = true;
        r.summarise();
        r
    }

    #[test]
    fn a_row_per_case_then_the_totals_and_the_interruption() {
        let table = report().to_table(false);
        let lines: Vec<&str> = table.lines().collect();
        assert!(lines[0].starts_with("case") && lines[0].contains("failed judges"), "{table}");
        let row = |name: &str| lines.iter().find(|l| l.starts_with(name)).copied().unwrap_or_default();
        assert!(row("steady ").contains(" 2/2 ") && row("steady ").contains(" done "), "{table}");
        assert!(row("flaky ").contains(" 1/2 ") && row("flaky ").contains("Equals"), "{table}");
        assert!(row("broken ").contains("error,over_budget"), "{table}");
        assert!(row("broken ").ends_with("2,400  3.0s"), "{table}");
        assert!(row("a case whose").contains("Contains, Regex"), "{table}");
        assert!(row("skipped next line").contains("not_run"), "a name cannot break a row: {table}");
        assert!(lines.iter().take(6).all(|l| l.width() <= TABLE_WIDTH), "{table}");
        assert!(table.contains("mock: pass rate 25.0% (1 of 4 cases), pass@2 50.0%, flaky 1"), "{table}");
        assert!(table.contains("tokens 9,600, cost $0.0000, duration 1m05s (agents 12.0s)"), "{table}");
        assert!(table.contains("interrupted: 1 of 5 cases did not finish"), "{table}");
        assert!(!table.contains('\x1b'));
    }

    #[test]
    fn a_narrow_terminal_cuts_names_and_colour_marks_rows() {
        let table = report().to_table_width(true, 70);
        let plain = |l: &str| {
            l.replace(GREEN, "")
                .replace(RED, "")
                .replace(YELLOW, "")
                .replace(DIM, "")
                .replace(BOLD, "")
                .replace(RESET, "")
        };
        for line in table.lines().take(6) {
            assert!(plain(line).width() <= 70, "{line:?}");
        }
        assert!(table.contains("a case who"), "{table}");
        assert!(table.contains('…'), "{table}");
        assert!(table.lines().any(|l| l.starts_with(GREEN) && l.contains("steady")), "{table}");
        assert!(table.lines().any(|l| l.starts_with(RED) && l.contains("broken")), "{table}");
        assert!(table.lines().any(|l| l.starts_with(YELLOW) && l.contains("flaky")), "{table}");
    }

    #[test]
    fn the_comparison_marks_regressions_and_lists_changed_cases() {
        let base = report();
        let mut now = report();
        now.cases[0].attempts[1] = attempt(1, Status::Done, &["Equals"]);
        now.cases[2].attempts = vec![attempt(0, Status::Done, &[]), attempt(1, Status::Done, &[])];
        now.summarise();
        let c = compare(&now, &base, 0.05);
        let table = c.to_table();
        let lines: Vec<&str> = table.lines().collect();
        assert!(lines[0].starts_with("metric") && lines[0].contains("baseline"), "{table}");
        let pass_rate = lines.iter().find(|l| l.starts_with("pass_rate")).copied().unwrap_or_default();
        assert!(pass_rate.contains("25.0%") && pass_rate.contains("+0.0 pts"), "{table}");
        assert!(!pass_rate.ends_with("REGRESSION"), "{table}");
        let equals = lines.iter().find(|l| l.starts_with("judge Equals pass_rate")).copied().unwrap_or_default();
        assert!(equals.contains("-8.3 pts") && equals.ends_with("REGRESSION"), "{table}");
        assert!(table.contains("1 score(s) fell more than 5.0 points: a regression"), "{table}");
        assert!(table.contains("newly failing (1):\n  steady\n"), "{table}");
        assert!(table.contains("newly passing (1):\n  broken\n"), "{table}");
        let same = compare(&base, &base, 0.05).to_table();
        assert!(same.contains("no score fell more than 5.0 points") && !same.contains("newly"), "{same}");
    }

    #[test]
    fn numbers_read_as_people_write_them() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(seconds(850), "850ms");
        assert_eq!(seconds(12_345), "12.3s");
        assert_eq!(seconds(125_000), "2m05s");
    }
}
