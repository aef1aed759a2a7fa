//! What a running turn needs from the person at the keyboard (a permission, answers to
//! `ask_user` questions): asked through the screen task, never written by the tool itself,
//! so prompts never interleave with the streamed answer.

use futures::FutureExt;
use futures::future::BoxFuture;
use lucid::ToolCall;
use lucid::tool::Interviewer;
use lucid::tool::permission::{Approval, Approver, Rule};
use tokio::sync::mpsc::UnboundedSender;
use tokio::sync::oneshot;

use super::style::Style;
use super::terminal::{Input, Reader};
use crate::display::safe;

/// Something a running turn needs from the person at the keyboard.
pub(super) enum UiRequest {
    /// A call to approve, with the rule that asks (`None`: the tool's permission).
    Approve {
        call: ToolCall,
        rule: Option<String>,
        reply: oneshot::Sender<Approval>,
    },
    Ask {
        questions: Vec<String>,
        reply: oneshot::Sender<Option<Vec<String>>>,
    },
}

/// Asks permissions through the screen task.
pub(super) struct UiApprover(pub(super) UnboundedSender<UiRequest>);

impl Approver for UiApprover {
    fn approve<'a>(&'a self, call: &'a ToolCall) -> BoxFuture<'a, Approval> {
        self.approve_asked(call, None)
    }

    fn approve_asked<'a>(&'a self, call: &'a ToolCall, rule: Option<&'a Rule>) -> BoxFuture<'a, Approval> {
        async move {
            let (reply, rx) = oneshot::channel();
            let rule = rule.map(|r| r.to_string());
            if self.0.send(UiRequest::Approve { call: call.clone(), rule, reply }).is_err() {
                return Approval::No;
            }
            rx.await.unwrap_or(Approval::No)
        }
        .boxed()
    }
}

/// Asks `ask_user` questions through the screen task.
pub(super) struct UiInterviewer(pub(super) UnboundedSender<UiRequest>);

impl Interviewer for UiInterviewer {
    fn ask<'a>(&'a self, questions: &'a [String]) -> BoxFuture<'a, Option<Vec<String>>> {
        async move {
            let (reply, rx) = oneshot::channel();
            self.0.send(UiRequest::Ask { questions: questions.to_vec(), reply }).ok()?;
            rx.await.ok().flatten()
        }
        .boxed()
    }
}

/// Answers a request from a running turn at the keyboard.
pub(super) async fn answer(req: UiRequest, reader: &Reader, style: Style) {
    match req {
        UiRequest::Approve { call, rule, reply } => {
            // The parsed arguments, every character shown as what it is: raw text from a
            // model could hide the real call behind escape sequences.
            let Some(shown) = approval_text(&call.arguments) else {
                println!(
                    "{} {} {}",
                    style.bold("?"),
                    style.cyan(&safe(&call.name)),
                    style.red("sent arguments that are not valid JSON; refused without asking")
                );
                let _ = reply.send(Approval::No);
                return;
            };
            let why = match &rule {
                Some(r) => format!("asks by the rule {}", safe(r)),
                None => "asks by its permission".to_string(),
            };
            println!(
                "{} {} {}\n{shown}",
                style.bold("?"),
                style.cyan(&safe(&call.name)),
                style.dim(&format!("({why})"))
            );
            let approval = loop {
                match reader.read("allow? [y]es / [n]o / [a]lways: ", false).await {
                    Input::Line(l) => match l.trim().to_lowercase().as_str() {
                        "y" | "yes" => break Approval::Yes,
                        "n" | "no" | "" => break Approval::No,
                        "a" | "always" => break Approval::Always,
                        _ => continue,
                    },
                    Input::Interrupted | Input::Eof => break Approval::No,
                }
            };
            if approval == Approval::Always {
                // What "always" remembers: a rule of the call's shape, never the whole tool
                // when its arguments make a narrower one.
                let remembered = match Rule::always(&call) {
                    Some(r) if r.is_whole_tool() => {
                        format!("(allowed from now on: every call of {})", safe(r.pattern()))
                    }
                    Some(r) => format!("(allowed from now on: {})", safe(&r.to_string())),
                    None => "(allowed this once: these arguments make no rule)".to_string(),
                };
                println!("{}", style.dim(&remembered));
            }
            let _ = reply.send(approval);
        }
        UiRequest::Ask { questions, reply } => {
            println!("{}", style.bold("The agent asks:"));
            let mut answers = Vec::new();
            for q in &questions {
                println!("  {} {}", style.cyan("?"), safe(q));
                match reader.read("  answer> ", false).await {
                    Input::Line(l) => answers.push(l),
                    Input::Interrupted | Input::Eof => {
                        let _ = reply.send(None);
                        return;
                    }
                }
            }
            let _ = reply.send(Some(answers));
        }
    }
}

/// The most characters of arguments an approval prompt shows.
const APPROVAL_SHOWN: usize = 4000;

/// The arguments of a call awaiting approval as the user should read them: parsed and
/// pretty-printed, made [`safe`], cut (saying so) past [`APPROVAL_SHOWN`] characters; `None`
/// when they are not JSON, which is never asked about.
fn approval_text(arguments: &str) -> Option<String> {
    let parsed: serde_json::Value = serde_json::from_str(arguments).ok()?;
    let pretty = serde_json::to_string_pretty(&parsed).ok()?;
    let shown = safe(&pretty);
    let total = shown.chars().count();
    let mut text: String = shown.chars().take(APPROVAL_SHOWN).collect();
    if total > APPROVAL_SHOWN {
        text.push_str(&format!("\n… ({} more characters not shown)", total - APPROVAL_SHOWN));
    }
    Some(text.lines().map(|l| format!("  {l}")).collect::<Vec<_>>().join("\n"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn approvals_show_parsed_arguments_and_refuse_unparsable_ones() {
        // JSON escapes stay escapes when printed again; a raw C1 control is made visible.
        let shown = super::approval_text(r#"{"path": "a\u001b[2K"}"#).unwrap();
        assert_eq!(shown, "  {\n    \"path\": \"a\\u001b[2K\"\n  }");
        let shown = super::approval_text("{\"path\": \"x\u{9b}\"}").unwrap();
        assert_eq!(shown, "  {\n    \"path\": \"x\\u{9b}\"\n  }");
        assert!(super::approval_text(r#"{"path": "x"#).is_none());
        assert!(super::approval_text("\u{1b}[2Kok").is_none());
        let long = format!("{{\"content\": \"{}\"}}", "a".repeat(10_000));
        assert!(super::approval_text(&long).unwrap().contains("more characters not shown"));
    }
}
