//! `NotesMemory`: a conversation memory written outside the library, as a hook, with the
//! public API only. Before each turn, when the window holds too many messages or tokens,
//! its oldest whole turns leave it, summarised in one call of the agent's model into a
//! note kept with the session ([`HookState`]); then the notes sharing the most words with
//! the user's message are pinned after the system prompt for this turn. A summary that
//! fails costs only the note: the turns leave the window anyway.

use futures::future::BoxFuture;
use lucid::context::Context;
use lucid::hooks::{Hook, HookContext, HookState, TurnStart};
use lucid::memory::RECALL_HEADER;
use lucid::model::{ChatModel, ChatOptions, ChatRequest};
use lucid::tokens::TokenCounter;
use lucid::{Message, Usage};

/// Where the notes are kept in the session's hook state.
pub const NOTES_KEY: &str = "notes_memory";

const SUMMARISER: &str = "You compress conversations for long-term memory. Summarize what the user stated \
     (facts, names, preferences, decisions) in a few sentences; leave out questions and small talk.";

/// See the module docs.
#[derive(Debug, Clone)]
pub struct NotesMemory {
    /// The window's most messages before old turns leave it.
    pub max_messages: usize,
    /// The share of the window's token budget the history may fill before old turns leave.
    pub share: f64,
    /// Notes pinned per turn.
    pub recall: usize,
    /// Notes kept; the oldest go first.
    pub capacity: usize,
}

impl Default for NotesMemory {
    fn default() -> Self {
        NotesMemory { max_messages: 20, share: 0.8, recall: 3, capacity: 100 }
    }
}

/// The notes a session keeps.
pub fn notes(state: &HookState) -> Vec<String> {
    state.get(NOTES_KEY).unwrap_or_default()
}

impl Hook for NotesMemory {
    fn before_turn<'a>(&'a self, _cx: &'a HookContext<'a>, turn: &'a mut TurnStart<'_>) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            let budget = turn.window_budget.unwrap_or(4000) as f64 * self.share;
            let mut kept = notes(turn.state);
            let size = |c: &Context| c.count_tokens(turn.counter) as f64 * turn.calibration;
            if turn.context.len() > self.max_messages || size(turn.context) > budget {
                let old = self.oldest_turns(turn.context, turn.counter, turn.calibration, budget);
                if !old.is_empty() {
                    turn.rewritten = true;
                    match summarise(turn.model, &old).await {
                        Ok((note, used)) => {
                            turn.usage += used;
                            kept.push(note);
                            let over = kept.len().saturating_sub(self.capacity);
                            kept.drain(..over);
                            if let Err(e) = turn.state.set(NOTES_KEY, &kept) {
                                tracing::warn!(error = %e, "the notes cannot be kept");
                            }
                        }
                        Err(e) => tracing::warn!(error = %e, "no note made; the old turns left the window"),
                    }
                }
            }
            turn.context.set_recall(recall(&kept, turn.prompt, self.recall));
        })
    }
}

impl NotesMemory {
    /// Takes the oldest whole turns (never the current one) out of the window until it is
    /// back to half of both limits.
    fn oldest_turns(
        &self,
        context: &mut Context,
        counter: &dyn TokenCounter,
        calibration: f64,
        budget: f64,
    ) -> Vec<Message> {
        let starts = context.turn_starts();
        let (Some(&first), Some(&current)) = (starts.first(), starts.last()) else { return Vec::new() };
        let total = context.messages().len();
        let mut cut = first;
        for &start in &starts[1..] {
            cut = start;
            let rest: usize = context.messages()[start..].iter().map(|m| counter.count(m.text())).sum();
            if total - start <= self.max_messages / 2 && rest as f64 * calibration <= budget / 2.0 || start == current {
                break;
            }
        }
        context.drain_front(cut - first)
    }
}

/// One summary call: the note and what it used.
async fn summarise(model: &dyn ChatModel, old: &[Message]) -> lucid::Result<(String, Usage)> {
    let transcript: String = old
        .iter()
        .filter_map(|m| match m {
            Message::User { .. } => Some(format!("user: {}\n", m.text())),
            Message::Assistant(a) if !a.content.is_empty() => Some(format!("assistant: {}\n", a.content)),
            _ => None,
        })
        .collect();
    let messages = [Message::system(SUMMARISER), Message::user(transcript)];
    let options = ChatOptions { max_tokens: Some(300), ..Default::default() };
    let answer = model.chat(ChatRequest::new(&messages, &[], &options)).await?;
    Ok((answer.message.content.trim().to_string(), answer.usage.unwrap_or_default()))
}

/// The recall message: the `n` notes sharing the most words with `prompt`, newest first
/// on a tie; `None` without notes.
fn recall(notes: &[String], prompt: &str, n: usize) -> Option<String> {
    let words = |s: &str| -> std::collections::BTreeSet<String> {
        s.split(|c: char| !c.is_alphanumeric() && c != '\'').filter(|w| w.len() > 2).map(str::to_lowercase).collect()
    };
    let asked = words(prompt);
    let mut scored: Vec<(usize, usize, &String)> =
        notes.iter().enumerate().map(|(i, note)| (words(note).intersection(&asked).count(), i, note)).collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)));
    let chosen: Vec<String> = scored.iter().take(n).map(|(_, _, note)| format!("- {note}")).collect();
    (!chosen.is_empty()).then(|| format!("{RECALL_HEADER}\n{}", chosen.join("\n")))
}
