//! A report as one static HTML file: its CSS, script, charts (inline SVG) and data inlined,
//! so it opens anywhere with no network.

use std::fmt::Write as _;

use super::table::{percent, seconds, thousands};
use super::{Attempt, CaseReport, Report, Status};

const CSS: &str = include_str!("assets/report.css");
const JS: &str = include_str!("assets/report.js");
/// Runs first: whatever the page tries to load from outside itself is refused by its
/// Content-Security-Policy, and named in `<html data-blocked>` (the browser test reads it).
const WATCH: &str = "document.addEventListener('securitypolicyviolation',function(e){\
    var d=document.documentElement.dataset;d.blocked=(d.blocked?d.blocked+' ':'')+(e.blockedURI||e.violatedDirective);});";

/// The longest reason shown in the cases table (the transcript has it whole).
const REASON_CHARS: usize = 240;

impl Report {
    /// The report as one static HTML page with everything inlined (no CDN, font or other
    /// request): a header with the run's scores, a chart of each judge's pass rate and one
    /// of the cases' durations (inline SVG), and the cases table, filtered by a text box
    /// and a "failed only" switch and sorted by a click on a column's head. A click on a
    /// case opens its transcript: inputs, expected output, each attempt's verdicts, tool
    /// calls, output and HTTP exchanges (a streamed response shown as its events), built
    /// by the page's script from the report's JSON only when opened. `#case=N` in the
    /// address opens case `N` (from 0).
    ///
    /// Everything from the data is escaped: a model's output shows as text, and the
    /// report's JSON, embedded for the transcripts, cannot close its `<script>` tag. The
    /// page's Content-Security-Policy refuses any outside load, and names what it refused
    /// in `<html data-blocked>`. A 1,000-case report with two exchanges per attempt is
    /// about 1.5 MB.
    ///
    /// ```
    /// use lucid_eval::report::{Attempt, CaseReport, Report, Status};
    /// let mut report = Report::new("sums");
    /// let mut case = CaseReport::new("two plus two", serde_json::json!("What is 2 + 2?"));
    /// let mut attempt = Attempt::new(0, Status::Done);
    /// attempt.output = Some(serde_json::json!("<script>alert(1)</script>"));
    /// case.attempts.push(attempt);
    /// report.cases.push(case);
    /// report.summarise();
    /// let html = report.to_html();
    /// assert!(html.starts_with("<!DOCTYPE html>"));
    /// assert!(html.contains("two plus two"));
    /// assert!(!html.contains("<script>alert(1)"));
    /// ```
    pub fn to_html(&self) -> String {
        let mut out = String::with_capacity(64 * 1024);
        let title = format!("{}: Lucid eval report", self.dataset);
        let _ = write!(
            out,
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
             <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\
             <title>{}</title><style>{CSS}</style><script>{WATCH}</script></head><body>\n",
            esc(&title)
        );
        self.header(&mut out);
        out.push_str("<section class=\"charts\">");
        let _ = write!(out, "<figure><figcaption>Pass rate per judge</figcaption>{}</figure>", self.judge_chart());
        let _ = write!(out, "<figure><figcaption>Time per case</figcaption>{}</figure>", self.duration_chart());
        out.push_str("</section>\n");
        self.cases_table(&mut out);
        let _ = write!(
            out,
            "<footer>Lucid eval report, format {}. Click a case for its transcript.</footer>\n\
             <script type=\"application/json\" id=\"report-data\">{}</script>\n<script>{JS}</script>\n</body></html>\n",
            self.format,
            script_json(self)
        );
        out
    }

    fn header(&self, out: &mut String) {
        let s = &self.summary;
        let _ = write!(out, "<header><h1>{}</h1><div class=\"meta\">", esc(&self.dataset));
        let mut meta = Vec::new();
        for (key, value) in [("agent", &self.agent), ("model", &self.model), ("mode", &self.mode)] {
            if let Some(value) = value {
                meta.push(format!("{key} <b>{}</b>", esc(value)));
            }
        }
        if let Some(at) = chrono::DateTime::from_timestamp_millis(i64::try_from(self.started_ms).unwrap_or(i64::MAX)) {
            meta.push(format!("started <b>{}</b>", at.format("%Y-%m-%d %H:%M:%S UTC")));
        }
        meta.push(format!("took <b>{}</b>", seconds(self.duration_ms)));
        meta.push(format!("<b>{}</b> attempt{} per case", self.repeats, if self.repeats == 1 { "" } else { "s" }));
        out.push_str(&meta.join(" · "));
        out.push_str("</div>");
        if self.interrupted {
            let _ = write!(
                out,
                "<p class=\"banner\">This run was interrupted: {} of {} cases did not finish.</p>",
                s.cases - s.finished.min(s.cases),
                s.cases
            );
        }
        out.push_str("<div class=\"cards\">");
        let mood = |rate: f64| {
            if rate >= 0.8 {
                "good"
            } else if rate >= 0.5 {
                "mid"
            } else {
                "bad"
            }
        };
        let cards = [
            ("pass rate", percent(s.pass_rate), mood(s.pass_rate)),
            (&*format!("pass@{}", self.repeats), percent(s.pass_at_k), mood(s.pass_at_k)),
            ("cases passed", format!("{} / {}", s.passed, s.finished), ""),
            ("flaky", s.flaky.to_string(), if s.flaky > 0 { "mid" } else { "" }),
            ("tokens", thousands(s.tokens), ""),
            ("cost", s.cost_usd.map_or("unknown".into(), |c| format!("${c:.4}")), ""),
            ("agent time", seconds(s.agent_ms), ""),
        ];
        for (key, value, class) in cards {
            let _ = write!(
                out,
                "<div class=\"card {class}\"><div class=\"k\">{}</div><div class=\"v\">{}</div></div>",
                esc(key),
                esc(&value)
            );
        }
        out.push_str("</div></header>\n");
    }

    /// Horizontal bars: each judge's pass rate.
    fn judge_chart(&self) -> String {
        let judges = &self.summary.judges;
        if judges.is_empty() {
            return "<p class=\"meta\">No verdicts.</p>".into();
        }
        let (row, label_w, bar_w) = (26.0, 150.0, 230.0);
        let height = row * judges.len() as f64 + 6.0;
        let mut svg = format!(
            "<svg class=\"chart judges\" viewBox=\"0 0 560 {height}\" role=\"img\" aria-label=\"Pass rate per judge\">"
        );
        for (i, (name, j)) in judges.iter().enumerate() {
            let y = i as f64 * row + 4.0;
            let w = bar_w * j.pass_rate.clamp(0.0, 1.0);
            let color = rate_color(j.pass_rate);
            let score = j.mean_score.map_or(String::new(), |m| format!(", score {m:.2}"));
            let _ = write!(
                svg,
                "<g><title>{}: {} of {} passed{score}</title>\
                 <text x=\"0\" y=\"{ty}\">{}</text>\
                 <rect class=\"track\" x=\"{label_w}\" y=\"{y}\" width=\"{bar_w}\" height=\"18\" rx=\"3\"/>\
                 <rect x=\"{label_w}\" y=\"{y}\" width=\"{w:.1}\" height=\"18\" rx=\"3\" fill=\"{color}\"/>\
                 <text x=\"{tx}\" y=\"{ty}\">{} ({}/{}){}</text></g>",
                esc(name),
                j.passed,
                j.verdicts,
                esc(&cut(name, 22)),
                percent(j.pass_rate),
                j.passed,
                j.verdicts,
                esc(&score),
                ty = y + 13.5,
                tx = label_w + bar_w + 8.0,
            );
        }
        svg.push_str("</svg>");
        svg
    }

    /// One bar per case: its attempts' mean time, coloured by how the case went.
    fn duration_chart(&self) -> String {
        let n = self.cases.len();
        if n == 0 {
            return "<p class=\"meta\">No cases.</p>".into();
        }
        let times: Vec<u64> = self.cases.iter().map(mean_ms).collect();
        let max = times.iter().copied().max().unwrap_or(0).max(1);
        let (left, top, w, h) = (44.0, 8.0, 506.0, 120.0);
        let step = w / n as f64;
        let bar = (step * 0.8).max(step.min(1.0));
        let mut svg = format!(
            "<svg class=\"chart durations\" viewBox=\"0 0 560 {}\" role=\"img\" aria-label=\"Time per case\">\
             <text class=\"muted\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\
             <text class=\"muted\" x=\"{}\" y=\"{}\" text-anchor=\"end\">0</text>\
             <line x1=\"{left}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"currentColor\" stroke-opacity=\".25\"/>",
            h + top + 30.0,
            left - 6.0,
            top + 10.0,
            seconds(max),
            left - 6.0,
            top + h,
            top + h + 0.5,
            left + w,
            top + h + 0.5,
        );
        for (i, (case, ms)) in self.cases.iter().zip(&times).enumerate() {
            let bh = (h * *ms as f64 / max as f64).max(1.0);
            let _ = write!(
                svg,
                "<rect x=\"{:.2}\" y=\"{:.1}\" width=\"{bar:.2}\" height=\"{bh:.1}\" fill=\"{}\"><title>{}: {}</title></rect>",
                left + i as f64 * step,
                top + h - bh,
                case_color(case),
                esc(&cut(&case.name, 80)),
                seconds(*ms)
            );
        }
        let y = h + top + 22.0;
        let _ = write!(
            svg,
            "<text class=\"muted\" x=\"{left}\" y=\"{y}\">{n} cases, in order: their attempts' mean</text>"
        );
        let legend = [("passed", "#1f9d55"), ("flaky", "#d98b00"), ("failed", "#d64545"), ("not run", "#9aa0ad")];
        for (k, (label, color)) in legend.iter().enumerate() {
            let x = 300.0 + k as f64 * 64.0;
            let _ = write!(
                svg,
                "<rect x=\"{x}\" y=\"{}\" width=\"10\" height=\"10\" rx=\"2\" fill=\"{color}\"/>\
                 <text class=\"muted\" x=\"{}\" y=\"{y}\">{label}</text>",
                y - 9.5,
                x + 14.0
            );
        }
        svg.push_str("</svg>");
        svg
    }

    fn cases_table(&self, out: &mut String) {
        let _ = writeln!(
            out,
            "<section><h2>Cases</h2><div class=\"controls\">\
             <input id=\"filter\" type=\"search\" placeholder=\"Filter: name, tag, judge, reason\" aria-label=\"Filter cases\">\
             <label><input id=\"failed-only\" type=\"checkbox\"> failed only</label>\
             <span id=\"shown\">{n} of {n} cases</span></div>\
             <table id=\"cases\"><thead><tr><th class=\"sort\" title=\"Sort\">Case</th><th>Tags</th>\
             <th class=\"sort\" title=\"Sort by attempts passed\">Attempts</th><th class=\"sort\" title=\"Sort by verdicts failed\">Verdicts</th>\
             <th class=\"num sort\" title=\"Sort\">Tokens</th><th class=\"num sort\" title=\"Sort\">Cost</th>\
             <th class=\"num sort\" title=\"Sort\">Time</th></tr></thead><tbody>",
            n = self.cases.len()
        );
        for (i, case) in self.cases.iter().enumerate() {
            case_row(out, i, case);
        }
        out.push_str("</tbody></table></section>\n");
    }
}

fn case_row(out: &mut String, i: usize, case: &CaseReport) {
    let failed = !case.unfinished() && !case.passed_all();
    let _ = write!(
        out,
        "<tr class=\"case\" data-case=\"{i}\" data-failed=\"{}\" tabindex=\"0\"><td class=\"name\">{}</td><td class=\"tags\">",
        u8::from(failed),
        esc(&case.name)
    );
    for tag in &case.tags {
        let _ = write!(out, "<span class=\"tag\">{}</span>", esc(tag));
    }
    let passed = case.attempts.iter().filter(|a| a.passed).count();
    let _ = write!(out, "</td><td class=\"attempts\" data-sort=\"{passed}\">");
    for a in &case.attempts {
        let (class, mark) = pill(a);
        let _ = write!(
            out,
            "<span class=\"pill {class}\" title=\"attempt #{} {}\">{mark}</span>",
            a.repeat,
            a.status.as_str()
        );
    }
    let failed_verdicts = case.attempts.iter().flat_map(|a| &a.verdicts).filter(|v| !v.passed).count();
    let unfinished = case.attempts.iter().filter(|a| a.status != Status::Done).count();
    let _ = write!(out, "</td><td data-sort=\"{}\">", failed_verdicts + unfinished);
    // Each judge once, with its verdicts over the attempts; the failed ones' reasons below.
    let mut judges: Vec<(&str, usize, usize)> = Vec::new();
    for v in case.attempts.iter().flat_map(|a| &a.verdicts) {
        match judges.iter_mut().find(|(name, _, _)| *name == v.judge) {
            Some(j) => {
                j.1 += usize::from(v.passed);
                j.2 += 1;
            }
            None => judges.push((&v.judge, usize::from(v.passed), 1)),
        }
    }
    for (name, passed, total) in &judges {
        let (class, mark) = if passed == total { ("pass", '\u{2713}') } else { ("fail", '\u{2717}') };
        let count = if *total > 1 { format!(" {passed}/{total}") } else { String::new() };
        let _ = write!(out, "<span class=\"judge {class}\">{mark} {}{count}</span>", esc(name));
    }
    let mut reasons: Vec<String> = Vec::new();
    for a in &case.attempts {
        let text = match (&a.error, a.status) {
            (Some(e), _) => Some((e.as_str(), "error")),
            (None, Status::Done) => None,
            (None, status) => Some((status.as_str(), "error")),
        };
        if let Some((text, class)) = text {
            let line = format!("<div class=\"reason {class}\">{}</div>", esc(&cut(text, REASON_CHARS)));
            if !reasons.contains(&line) {
                reasons.push(line);
            }
        }
        for v in a.verdicts.iter().filter(|v| !v.passed) {
            let why = v.reason.as_deref().unwrap_or("failed");
            let line = format!("<div class=\"reason\">{}: {}</div>", esc(&v.judge), esc(&cut(why, REASON_CHARS)));
            if !reasons.contains(&line) {
                reasons.push(line);
            }
        }
    }
    out.push_str(&reasons.concat());
    let tokens: u64 = case.attempts.iter().map(|a| a.tokens).sum();
    let cost = case.attempts.iter().try_fold(0.0, |sum, a| a.cost_usd.map(|c| sum + c));
    let ms: u64 = case.attempts.iter().map(|a| a.duration_ms).sum();
    let _ = writeln!(
        out,
        "</td><td class=\"num\" data-sort=\"{tokens}\">{}</td><td class=\"num\" data-sort=\"{}\">{}</td>\
         <td class=\"num\" data-sort=\"{ms}\">{}</td></tr>",
        thousands(tokens),
        cost.unwrap_or(-1.0),
        cost.map_or("?".into(), |c| format!("${c:.4}")),
        seconds(ms)
    );
}

/// An attempt's mark in the table: its class and symbol.
fn pill(a: &Attempt) -> (&'static str, &'static str) {
    match a.status {
        Status::Done if a.passed => ("pass", "\u{2713}"),
        Status::Done => ("fail", "\u{2717}"),
        Status::Error => ("error", "error"),
        Status::OverBudget => ("error", "budget"),
        Status::CassetteMismatch => ("error", "cassette"),
        Status::Cancelled => ("skip", "cancelled"),
        Status::NotRun => ("skip", "not run"),
    }
}

fn mean_ms(case: &CaseReport) -> u64 {
    let n = case.attempts.len().max(1) as u64;
    case.attempts.iter().map(|a| a.duration_ms).sum::<u64>() / n
}

fn case_color(case: &CaseReport) -> &'static str {
    if case.unfinished() {
        "#9aa0ad"
    } else if case.passed_all() {
        "#1f9d55"
    } else if case.flaky() {
        "#d98b00"
    } else {
        "#d64545"
    }
}

fn rate_color(rate: f64) -> &'static str {
    if rate >= 0.8 {
        "#1f9d55"
    } else if rate >= 0.5 {
        "#d98b00"
    } else {
        "#d64545"
    }
}

/// `text` cut to `chars` characters, ending in `…` when cut.
fn cut(text: &str, chars: usize) -> String {
    match text.char_indices().nth(chars) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_string(),
    }
}

/// `text` escaped for HTML text and attribute values.
fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The report as JSON that can sit inside `<script>`: `<`, `>` and `&` (only ever inside
/// JSON strings) written as `\u` escapes, so no `</script>` or `<!--` appears, and the
/// line and paragraph separators escaped too.
fn script_json(report: &Report) -> String {
    let json = serde_json::to_string(report).expect("a report is plain data");
    let mut out = String::with_capacity(json.len() + json.len() / 50);
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cassette::Exchange;
    use crate::judge::Verdict;
    use serde_json::json;

    fn exchange(stream: bool) -> Exchange {
        let response = if stream {
            "data: {\"choices\":[{\"delta\":{\"content\":\"<b>4</b>\"}}]}\n\ndata: [DONE]\n\n".to_string()
        } else {
            json!({"choices": [{"message": {"content": "4"}}]}).to_string()
        };
        Exchange {
            method: "POST".into(),
            path: "/chat/completions".into(),
            request: json!({"model": "m", "messages": [{"role": "user", "content": "</script><script>alert(3)</script>"}]}),
            status: 200,
            content_type: Some(if stream { "text/event-stream" } else { "application/json" }.into()),
            response,
        }
    }

    /// `n` cases, one in three failing, each attempt with two exchanges.
    fn report(n: usize) -> Report {
        let mut r = Report::new("math <&> \"quotes\"");
        r.model = Some("openai:gpt-4o-mini".into());
        r.mode = Some("replay".into());
        for i in 0..n {
            let mut case = CaseReport::new(format!("case {i}"), json!(format!("What is {i} + {i}?")));
            case.tags = vec!["sums".into(), format!("group-{}", i % 4)];
            case.expected_output = Some(json!((2 * i).to_string()));
            let mut a = Attempt::new(0, Status::Done);
            a.passed = i % 3 != 0;
            a.output = Some(json!(if a.passed { (2 * i).to_string() } else { "I do not know.".into() }));
            let v = Verdict::new("EqualsExpected", a.passed);
            a.verdicts =
                vec![if a.passed { v } else { v.reason(format!("expected \"{}\", got \"I do not know.\"", 2 * i)) }];
            a.tokens = 120 + i as u64;
            a.model_calls = 2;
            a.cost_usd = Some(0.0001);
            a.duration_ms = 300 + (i as u64 * 37) % 900;
            a.exchanges = vec![exchange(false), exchange(true)];
            case.attempts.push(a);
            r.cases.push(case);
        }
        r.summarise();
        r
    }

    fn hostile() -> Report {
        let mut r = report(3);
        let case = &mut r.cases[1];
        case.name = "<img src=x onerror=alert(1)>".into();
        case.tags.push("\"><script>alert(4)</script>".into());
        let a = &mut case.attempts[0];
        a.output = Some(json!("<script>alert(1)</script>"));
        a.passed = false;
        a.verdicts[0].passed = false;
        a.verdicts[0].judge = "<svg onload=alert(5)>".into();
        a.verdicts[0].reason = Some("</script><script>alert(2)</script><!--".into());
        r.summarise();
        r
    }

    /// The JSON inside `<script id="report-data">`.
    fn embedded(html: &str) -> &str {
        let start = html.find("id=\"report-data\">").map(|i| i + "id=\"report-data\">".len()).unwrap_or(0);
        let end = html[start..].find("</script>").map_or(html.len(), |e| start + e);
        &html[start..end]
    }

    #[test]
    fn what_the_model_wrote_is_text_and_the_data_cannot_close_its_script() {
        let r = hostile();
        let html = r.to_html();
        for raw in ["<script>alert", "<img src=x", "<svg onload", "\"><script", "</script><script>alert", "<!--"] {
            assert!(!html.contains(raw), "{raw} came out raw");
        }
        assert!(html.contains("&lt;img src=x onerror=alert(1)&gt;"));
        assert!(html.contains("&lt;/script&gt;&lt;script&gt;alert(2)&lt;/script&gt;"));
        assert_eq!(html.matches("<script").count(), 3, "the watch, the data and the page's script");
        assert_eq!(html.matches("</script>").count(), 3);
        let back: Report = serde_json::from_str(embedded(&html)).expect("the embedded data is the report");
        assert_eq!(back, r);
    }

    #[test]
    fn the_page_asks_for_nothing_outside_itself() {
        let html = report(30).to_html();
        let outside = regex::Regex::new(r#"(?i)<[a-z][^<>]*\s(src|href|action|srcset)\s*="#).expect("a valid regex");
        assert!(!outside.is_match(&html), "{:?}", outside.find(&html));
        for needle in ["http://", "https://", "@import", "url(", "//cdn"] {
            assert!(!html.contains(needle), "{needle}");
        }
        assert!(html.contains("Content-Security-Policy\" content=\"default-src 'none'"));
    }

    #[test]
    fn the_header_charts_and_table_show_the_run() {
        let r = report(25);
        let html = r.to_html();
        assert!(html.contains("<h1>math &lt;&amp;&gt; &quot;quotes&quot;</h1>"));
        assert!(html.contains("model <b>openai:gpt-4o-mini</b>") && html.contains("mode <b>replay</b>"));
        assert!(html.contains("<div class=\"k\">pass rate</div><div class=\"v\">64.0%</div>"), "16 of 25");
        assert_eq!(html.matches("<tr class=\"case\"").count(), 25);
        assert_eq!(html.matches("data-failed=\"1\"").count(), 9);
        let durations = &html[html.find("class=\"chart durations\"").unwrap_or(0)..];
        let durations = &durations[..durations.find("</svg>").unwrap_or(0)];
        assert_eq!(durations.matches("<rect").count(), 25 + 4, "a bar per case, and the legend");
        assert!(html.contains("EqualsExpected: 16 of 25 passed"));
        assert!(html.contains(
            "<div class=\"reason\">EqualsExpected: expected &quot;0&quot;, got &quot;I do not know.&quot;</div>"
        ));
        assert!(!html.contains("This run was interrupted"));
        let mut cut = r.clone();
        cut.interrupted = true;
        cut.cases[24].attempts[0] = Attempt::new(0, Status::NotRun);
        cut.summarise();
        assert!(cut.to_html().contains("This run was interrupted: 1 of 25 cases did not finish."));
    }

    #[test]
    fn an_empty_run_still_renders() {
        let mut r = Report::new("empty");
        r.summarise();
        let html = r.to_html();
        assert!(html.contains("No verdicts.") && html.contains("No cases.") && html.contains("0 of 0 cases"));
        assert!(html.ends_with("</body></html>\n"));
    }

    #[test]
    fn a_thousand_cases_make_a_file_of_a_few_megabytes() {
        let html = report(1000).to_html();
        // Measured: see the crate's report; most of it is the exchanges' JSON.
        eprintln!("a 1,000-case report with 2 exchanges per case: {} bytes", html.len());
        assert!(html.len() < 4_000_000, "{} bytes", html.len());
    }
}
