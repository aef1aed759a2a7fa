//! What a turn shows as it runs: the streamed answer and reasoning, tool calls and their
//! results, the model's and the planner's checklists, and the notes of the footer (cached tokens, how full
//! the context window is).

use std::io::Write;

use lucid::{AgentEvent, Session};

use super::style::Style;
use crate::display::{safe, truncate};

/// What the turn printed so far.
pub(super) struct Screen {
    style: Style,
    /// Calls started but not shown yet: `(name, arguments)`.
    pending: Vec<(String, String)>,
    at_line_start: bool,
    in_reasoning: bool,
}

impl Screen {
    /// A screen for one turn, at the start of a line.
    pub(super) fn new(style: Style) -> Screen {
        Screen { style, pending: Vec::new(), at_line_start: true, in_reasoning: false }
    }

    fn out(&mut self, s: &str) {
        let mut o = std::io::stdout().lock();
        let _ = o.write_all(s.as_bytes());
        let _ = o.flush();
        if !s.is_empty() {
            self.at_line_start = s.ends_with('\n');
        }
    }

    pub(super) fn end_line(&mut self) {
        if !self.at_line_start {
            self.out("\n");
        }
    }

    pub(super) fn show(&mut self, ev: AgentEvent, show_reasoning: bool) {
        match ev {
            AgentEvent::ReasoningDelta(t) if show_reasoning => {
                self.in_reasoning = true;
                let s = self.style.dim(&safe(&t));
                self.out(&s);
            }
            AgentEvent::TextDelta(t) => {
                if self.in_reasoning {
                    self.in_reasoning = false;
                    self.end_line();
                }
                self.flush_calls();
                self.out(&safe(&t));
            }
            AgentEvent::ToolCallStarted { name, arguments, .. } => self.pending.push((name, arguments)),
            AgentEvent::ToolCallFinished { name, output, is_error: false, .. } if name == crate::checklist::NAME => {
                // The model's checklist, shown whole: its boxes, not the note to the model.
                self.flush_calls();
                let lines: Vec<&str> = output.lines().filter(|l| l.starts_with(['☐', '☑'])).collect();
                let list: String = lines.iter().map(|l| format!("  {}\n", safe(l))).collect();
                self.out(&list);
            }
            AgentEvent::ToolCallFinished { name, output, is_error, duration, .. } => {
                self.flush_calls();
                let ms = duration.as_secs_f64() * 1000.0;
                let line = if is_error {
                    format!(
                        "  {} {} failed · {ms:.1} ms · {}\n",
                        self.style.red("✗"),
                        safe(&name),
                        truncate(&output, 200)
                    )
                } else {
                    format!(
                        "  {} {} · {ms:.1} ms · {}\n",
                        self.style.green("✓"),
                        safe(&name),
                        self.style.dim(&truncate(&output, 200))
                    )
                };
                self.out(&line);
            }
            AgentEvent::Fallback(s) => {
                self.end_line();
                let line = format!("{} failed ({}); switching to {}", s.from, truncate(&s.error, 200), s.to);
                self.out(&format!("  {} {}\n", self.style.red("↷"), self.style.dim(&safe(&line))));
            }
            _ => {}
        }
    }

    /// Shows the calls gathered so far: one line, or a group for parallel calls.
    pub(super) fn flush_calls(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        self.end_line();
        let calls = std::mem::take(&mut self.pending);
        let mut s = String::new();
        if calls.len() > 1 {
            s.push_str(&self.style.dim(&format!("⚙ {} tool calls at once:\n", calls.len())));
        }
        for (name, args) in calls {
            let args = serde_json::from_str::<serde_json::Value>(&args).map(|v| v.to_string()).unwrap_or(args);
            s.push_str(&format!("⚙ {} {}\n", self.style.cyan(&safe(&name)), truncate(&args, 160)));
        }
        self.out(&s);
    }
}

/// One planner event as a line of the checklist.
pub(super) fn show_plan_event(style: Style, event: lucid_orchestrate::planner::PlanEvent) {
    use lucid_orchestrate::planner::PlanEvent;
    match event {
        PlanEvent::Planned { revision, plan } => {
            let title = if revision == 0 { "Plan:".to_string() } else { format!("Plan, revision {revision}:") };
            println!("{}", style.bold(&title));
            for s in &plan.steps {
                println!("  ☐ {} {}", style.cyan(&safe(&s.id)), safe(&s.task));
            }
        }
        PlanEvent::StepStarted { id, .. } => println!("{}", style.dim(&format!("  … {}", safe(&id)))),
        PlanEvent::StepFinished { id, success: true, result, duration } => println!(
            "  ☑ {} {}",
            style.cyan(&safe(&id)),
            style.dim(&format!("{:.1}s: {}", duration.as_secs_f64(), truncate(&result, 120)))
        ),
        PlanEvent::StepFinished { id, success: false, result, .. } => {
            println!("  ☒ {} {}", style.cyan(&safe(&id)), style.red(&format!("failed: {}", truncate(&result, 120))))
        }
        PlanEvent::Replanning { failed, .. } => {
            println!("{}", style.dim(&format!("(re-planning after `{}` failed)", safe(&failed))))
        }
        PlanEvent::Synthesizing => println!("{}", style.dim("(writing the answer)")),
        _ => {}
    }
}

/// How full the context window is, as the next request would send it: " │ ctx 41% of
/// 128k" (the estimate scaled by the provider's reported usage); empty when the window is
/// unknown.
pub(super) fn context_note(session: &Session) -> String {
    let Some(window) = session.agent().context_window() else { return String::new() };
    let used = session.context().estimated_tokens() as f64 * session.token_calibration();
    let pct = (100.0 * used / f64::from(window.context_window.max(1))).round();
    format!(" │ ctx {pct}% of {}", thousands(window.context_window))
}

/// A token count as people say it: `128k`, `8.2k`, `1M`, `900`.
fn thousands(n: u32) -> String {
    match n {
        0..1_000 => n.to_string(),
        1_000..10_000 => format!("{:.1}k", f64::from(n) / 1000.0),
        10_000..1_000_000 => format!("{}k", (f64::from(n) / 1000.0).round()),
        _ => format!("{:.1}M", f64::from(n) / 1_000_000.0).replace(".0M", "M"),
    }
}

/// ` (N cached)` when the provider served part of the prompt from its cache (read from
/// it, or, for Anthropic, also written to it); nothing otherwise.
pub(super) fn cached_note(u: &lucid::Usage) -> String {
    let read = u.cached_input_tokens + u.cache_read_input_tokens;
    match (read, u.cache_creation_input_tokens) {
        (0, 0) => String::new(),
        (read, 0) => format!(" ({read} cached)"),
        (read, written) => format!(" ({read} cached, {written} written to cache)"),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn windows_are_shown_as_people_say_them() {
        let shown: Vec<String> = [900, 8_192, 128_000, 200_000, 1_048_576, 2_000_000].map(super::thousands).to_vec();
        assert_eq!(shown, ["900", "8.2k", "128k", "200k", "1M", "2M"]);
    }

    #[test]
    fn the_footer_notes_cached_tokens_only_when_there_are_some() {
        let mut u = lucid::Usage { input_tokens: 100, output_tokens: 5, ..Default::default() };
        assert_eq!(super::cached_note(&u), "");
        u.cached_input_tokens = 64;
        assert_eq!(super::cached_note(&u), " (64 cached)");
        u = lucid::Usage { cache_read_input_tokens: 1800, cache_creation_input_tokens: 40, ..u };
        assert_eq!(super::cached_note(&u), " (1864 cached, 40 written to cache)");
    }
}
