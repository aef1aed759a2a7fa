//! A server's (or a tool's) elicitation asked the way `ask_user` is: through the chat's
//! interviewer, one question to accept, then one per field of the requested form.

use std::sync::Arc;

use lucid::tool::Interviewer;
use lucid_mcp::{ElicitFuture, Elicitation, Elicited, Elicitor};

use crate::display::safe;

/// Asks a server's question through an [`Interviewer`] (chat's prompt): the first answer
/// says whether to answer (`n` declines, `c` cancels); each field's answer is typed as the
/// schema says, an empty (or mistyped) one left to the field's default. An interviewer
/// that cannot ask cancels. `.1` names who asks: `"MCP server"` for a server's
/// question, `"tool"` for a tool's ([`lucid::AgentBuilder::elicitor`]).
pub struct InterviewElicitor(pub Arc<dyn Interviewer>, pub &'static str);

impl Elicitor for InterviewElicitor {
    fn elicit(&self, question: Elicitation) -> ElicitFuture<'_> {
        Box::pin(async move {
            let properties = question.schema.get("properties").and_then(|p| p.as_object()).cloned().unwrap_or_default();
            let mut questions = vec![format!(
                "The {} {} asks: {} — answer it? [Y/n/c]",
                self.1,
                safe(&question.server),
                safe(&question.message)
            )];
            for (name, property) in &properties {
                questions.push(super::inspect::field_prompt(name, property));
            }
            let Some(answers) = self.0.ask(&questions).await else { return Elicited::Cancel };
            match answers.first().map(|a| a.trim().to_ascii_lowercase()).as_deref() {
                Some("n" | "no") => return Elicited::Decline,
                Some("c" | "cancel") | None => return Elicited::Cancel,
                Some(_) => {}
            }
            let mut content = serde_json::Map::new();
            for ((name, property), answer) in properties.iter().zip(answers.iter().skip(1)) {
                let kind = property.get("type").and_then(|t| t.as_str()).unwrap_or("string");
                if answer.trim().is_empty() {
                    continue;
                }
                match super::inspect::parse(kind, answer.trim()) {
                    Some(v) => {
                        content.insert(name.clone(), v);
                    }
                    None => tracing::warn!(field = %name, "not a {kind}; left to its default"),
                }
            }
            Elicited::Accept(content)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::FutureExt;
    use futures::future::BoxFuture;

    struct Scripted(Vec<String>);

    impl Interviewer for Scripted {
        fn ask<'a>(&'a self, questions: &'a [String]) -> BoxFuture<'a, Option<Vec<String>>> {
            assert!(questions[0].contains("asks: Who?") && questions[1].contains("age (integer default 30)"));
            assert!(questions[0].starts_with("The MCP server srv asks") || questions[0].starts_with("The tool t asks"));
            async move { Some(self.0.clone()) }.boxed()
        }
    }

    fn ask(answers: &[&str]) -> Elicited {
        let schema = serde_json::json!({"type": "object", "properties": {
            "age": {"type": "integer", "default": 30}, "name": {"type": "string"}}});
        let elicitor =
            InterviewElicitor(Arc::new(Scripted(answers.iter().map(|a| a.to_string()).collect())), "MCP server");
        futures::executor::block_on(elicitor.elicit(Elicitation::new("srv", "Who?", schema)))
    }

    #[test]
    fn chat_answers_are_typed_and_empty_ones_left_to_defaults() {
        let Elicited::Accept(map) = ask(&["", "", "Ada"]) else { panic!() };
        assert_eq!(serde_json::Value::Object(map), serde_json::json!({"name": "Ada"}));
        let Elicited::Accept(map) = ask(&["y", "forty", "Ada"]) else { panic!() };
        assert_eq!(serde_json::Value::Object(map), serde_json::json!({"name": "Ada"}));
        assert_eq!(ask(&["n", "", ""]), Elicited::Decline);
        assert_eq!(ask(&["c", "", ""]), Elicited::Cancel);
    }

    #[test]
    fn a_tools_question_names_the_tool() {
        let schema = serde_json::json!({"type": "object", "properties": {"age": {"type": "integer", "default": 30}}});
        let elicitor = InterviewElicitor(Arc::new(Scripted(vec!["y".into(), "41".into()])), "tool");
        let answer = futures::executor::block_on(elicitor.elicit(Elicitation::new("t", "Who?", schema)));
        let Elicited::Accept(map) = answer else { panic!("{answer:?}") };
        assert_eq!(serde_json::Value::Object(map), serde_json::json!({"age": 41}));
    }
}
