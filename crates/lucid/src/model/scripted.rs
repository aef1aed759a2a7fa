//! [`ScriptedModel`]: a model that answers from a script, for testing an agent, its tools,
//! a workflow or an approval flow without a network, a key or a server. Each call takes the
//! next answer (text, tool calls, or a provider's error); every request is kept, so a test
//! reads what the model was sent: the messages, the tools offered, the options.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};

use futures::future::BoxFuture;
use serde_json::Value;

use super::{ChatModel, ChatOptions, ChatRequest, ChatResponse, EventStream, ModelError, Result, StreamEvent};
use crate::message::{AssistantMessage, FinishReason, Message, ToolCall, Usage};
use crate::model::ProviderError;

/// A model that answers from a script and keeps every request it was sent. Clones share
/// the script and the record, so a test keeps one clone and gives the other to the agent.
///
/// ```
/// use lucid::model::ScriptedModel;
/// use lucid::{Agent, ToolError};
/// use serde_json::json;
///
/// /// Adds two numbers.
/// #[lucid::tool]
/// async fn add(a: i64, b: i64) -> Result<i64, ToolError> {
///     Ok(a + b)
/// }
///
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let model = ScriptedModel::new().call("add", json!({"a": 2, "b": 3})).text("2 + 3 = 5");
/// let agent = Agent::builder(model.clone()).tool(add).build();
/// assert_eq!(agent.run("What is 2 + 3?").await?.content, "2 + 3 = 5");
///
/// let sent = model.requests();
/// assert_eq!(sent.len(), 2);
/// assert_eq!(sent[0].tools, ["add"]);
/// assert_eq!(sent[1].tool_results()[0].1, "5");
/// # Ok::<(), lucid::Error>(()) }).unwrap();
/// ```
#[derive(Clone, Default)]
pub struct ScriptedModel {
    inner: Arc<Inner>,
}

#[derive(Default)]
struct Inner {
    name: Option<String>,
    steps: Mutex<VecDeque<Step>>,
    otherwise: Mutex<Option<AssistantMessage>>,
    seen: Mutex<Vec<SeenRequest>>,
    calls_minted: Mutex<usize>,
}

enum Step {
    Answer(AssistantMessage, Option<Usage>),
    Fail(ProviderError),
}

/// One request a [`ScriptedModel`] was sent.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SeenRequest {
    /// The conversation, system prompt first.
    pub messages: Vec<Message>,
    /// The names of the tools offered.
    pub tools: Vec<String>,
    /// The call's options.
    pub options: ChatOptions,
}

impl SeenRequest {
    /// The tool results the request carried, as `(call id, content)`.
    pub fn tool_results(&self) -> Vec<(String, String)> {
        self.messages
            .iter()
            .filter_map(|m| match m {
                Message::Tool(t) => Some((t.call_id.clone(), t.content.clone())),
                _ => None,
            })
            .collect()
    }

    /// The text of the last user message.
    pub fn last_user_text(&self) -> Option<String> {
        self.messages.iter().rev().find(|m| matches!(m, Message::User { .. })).map(|m| m.text().to_string())
    }
}

impl std::fmt::Debug for ScriptedModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScriptedModel")
            .field("answers_left", &self.remaining())
            .field("requests", &lock(&self.inner.seen).len())
            .finish()
    }
}

/// A lock that a panicking test thread left poisoned still holds the script.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl ScriptedModel {
    /// An empty script: add answers with [`text`](Self::text), [`call`](Self::call)…
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty script under the model name `name` (default `scripted`).
    pub fn named(name: impl Into<String>) -> Self {
        ScriptedModel { inner: Arc::new(Inner { name: Some(name.into()), ..Inner::default() }) }
    }

    fn push(self, step: Step) -> Self {
        lock(&self.inner.steps).push_back(step);
        self
    }

    /// The next answer is `text`.
    pub fn text(self, text: impl Into<String>) -> Self {
        self.answer(AssistantMessage { content: text.into(), ..Default::default() })
    }

    /// The next answer calls the tool `name` with `arguments` (its call id minted:
    /// `call_1`, `call_2`… across the script).
    pub fn call(self, name: impl Into<String>, arguments: Value) -> Self {
        self.calls([(name.into(), arguments)])
    }

    /// The next answer calls several tools at once, in order.
    pub fn calls<N: Into<String>>(self, calls: impl IntoIterator<Item = (N, Value)>) -> Self {
        let tool_calls = calls
            .into_iter()
            .map(|(name, arguments)| {
                let mut minted = lock(&self.inner.calls_minted);
                *minted += 1;
                ToolCall::new(format!("call_{minted}"), name, arguments)
            })
            .collect();
        self.answer(AssistantMessage { tool_calls, ..Default::default() })
    }

    /// The next answer is `message` as it is (text, calls with ids of your own, reasoning).
    pub fn answer(self, message: AssistantMessage) -> Self {
        self.push(Step::Answer(message, None))
    }

    /// The next answers are `messages`, in order (each as [`answer`](Self::answer) takes it).
    ///
    /// ```
    /// use lucid::message::AssistantMessage;
    /// let model = lucid::model::ScriptedModel::new().answers([AssistantMessage::text("a"), AssistantMessage::text("b")]);
    /// assert_eq!(model.remaining(), 2);
    /// ```
    pub fn answers(self, messages: impl IntoIterator<Item = AssistantMessage>) -> Self {
        messages.into_iter().fold(self, ScriptedModel::answer)
    }

    /// The answer scripted last reports `usage` (for testing budgets, prices and the
    /// context's calibration); without it an answer reports none.
    ///
    /// ```
    /// use lucid::message::Usage;
    /// let usage = Usage { input_tokens: 1200, output_tokens: 30, ..Default::default() };
    /// let model = lucid::model::ScriptedModel::new().text("ok").usage(usage);
    /// # assert_eq!(model.remaining(), 1);
    /// ```
    pub fn usage(self, usage: Usage) -> Self {
        if let Some(Step::Answer(_, reported)) = lock(&self.inner.steps).back_mut() {
            *reported = Some(usage);
        }
        self
    }

    /// The next call fails with the provider's `error` (a 429, a 500, a quota): for
    /// testing retries, backup models and what a run keeps when its model fails.
    pub fn fail(self, error: ProviderError) -> Self {
        self.push(Step::Fail(error))
    }

    /// The answer to every call once the script is over; without it such a call fails
    /// with an error saying the script is over.
    pub fn otherwise(self, message: AssistantMessage) -> Self {
        *lock(&self.inner.otherwise) = Some(message);
        self
    }

    /// The requests sent so far, in order.
    pub fn requests(&self) -> Vec<SeenRequest> {
        lock(&self.inner.seen).clone()
    }

    /// The tool results the last request carried, as `(call id, content)`; none before the
    /// first request.
    ///
    /// ```
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// /// Adds two numbers.
    /// #[lucid::tool]
    /// async fn add(a: i64, b: i64) -> Result<i64, lucid::ToolError> {
    ///     Ok(a + b)
    /// }
    /// let model = lucid::model::ScriptedModel::new().call("add", serde_json::json!({"a": 2, "b": 3})).text("5");
    /// assert!(model.last_tool_results().is_empty());
    /// lucid::Agent::builder(model.clone()).tool(add).build().run("2 + 3?").await?;
    /// assert_eq!(model.last_tool_results(), [("call_1".to_string(), "5".to_string())]);
    /// # Ok::<(), lucid::Error>(()) }).unwrap();
    /// ```
    pub fn last_tool_results(&self) -> Vec<(String, String)> {
        lock(&self.inner.seen).last().map(SeenRequest::tool_results).unwrap_or_default()
    }

    /// How many scripted answers are left.
    pub fn remaining(&self) -> usize {
        lock(&self.inner.steps).len()
    }

    fn next(&self, request: &ChatRequest<'_>) -> Result<ChatResponse> {
        lock(&self.inner.seen).push(SeenRequest {
            messages: request.messages.to_vec(),
            tools: request.tools.iter().map(|t| t.name().to_string()).collect(),
            options: request.options.clone(),
        });
        let step = lock(&self.inner.steps).pop_front();
        let (message, usage) = match step {
            Some(Step::Answer(message, usage)) => (message, usage),
            Some(Step::Fail(error)) => return Err(ModelError::Provider(error)),
            None => match lock(&self.inner.otherwise).clone() {
                Some(message) => (message, None),
                None => {
                    let calls = lock(&self.inner.seen).len();
                    return Err(ModelError::Config(format!(
                        "the scripted model's script is over: call {calls} has no answer (add one, or `otherwise`)"
                    )));
                }
            },
        };
        let finish = if message.tool_calls.is_empty() { FinishReason::Stop } else { FinishReason::ToolCalls };
        Ok(ChatResponse {
            message,
            finish_reason: Some(finish),
            usage,
            model: Some(self.model_name().to_string()),
            ..Default::default()
        })
    }
}

impl ChatModel for ScriptedModel {
    fn provider(&self) -> &str {
        "scripted"
    }

    fn model_name(&self) -> &str {
        self.inner.name.as_deref().unwrap_or("scripted")
    }

    fn chat<'a>(&'a self, request: ChatRequest<'a>) -> BoxFuture<'a, Result<ChatResponse>> {
        let answer = self.next(&request);
        Box::pin(async move { answer })
    }

    /// The answer streamed as a provider streams it: its text, each call's start and
    /// arguments, then the whole answer.
    fn chat_stream<'a>(&'a self, request: ChatRequest<'a>) -> BoxFuture<'a, Result<EventStream<'a>>> {
        let answer = self.next(&request);
        Box::pin(async move {
            let response = answer?;
            let mut events = Vec::new();
            if !response.message.content.is_empty() {
                events.push(Ok(StreamEvent::TextDelta(response.message.content.clone())));
            }
            for (index, call) in response.message.tool_calls.iter().enumerate() {
                events.push(Ok(StreamEvent::ToolCallStarted { index, id: call.id.clone(), name: call.name.clone() }));
                events.push(Ok(StreamEvent::ToolCallDelta { index, arguments: call.arguments.clone() }));
            }
            events.push(Ok(StreamEvent::Done(response)));
            Ok(Box::pin(futures::stream::iter(events)) as EventStream<'a>)
        })
    }
}

#[cfg(test)]
mod tests {
    use futures::StreamExt;

    use super::*;

    #[tokio::test]
    async fn answers_in_order_fails_where_told_and_says_when_the_script_is_over() {
        let model = ScriptedModel::named("tester")
            .text("one")
            .usage(Usage { input_tokens: 10, output_tokens: 2, ..Default::default() })
            .fail(ProviderError::new("openai", Some(429), "slow down"))
            .calls([("a", serde_json::json!({})), ("b", serde_json::json!({"x": 1}))]);
        let options = ChatOptions { temperature: Some(0.5), ..Default::default() };
        let request = || ChatRequest::new(&[], &[], &options);
        let first = model.chat(request()).await.unwrap();
        assert_eq!((first.message.content.as_str(), first.usage.map(|u| u.input_tokens)), ("one", Some(10)));
        let err = model.chat(request()).await.unwrap_err();
        assert!(matches!(&err, ModelError::Provider(p) if p.status == Some(429)), "{err}");
        let mut stream = model.chat_stream(request()).await.unwrap();
        let mut kinds = Vec::new();
        while let Some(event) = stream.next().await {
            kinds.push(match event.unwrap() {
                StreamEvent::ToolCallStarted { id, .. } => id,
                StreamEvent::ToolCallDelta { arguments, .. } => arguments,
                StreamEvent::Done(r) => format!("done {:?} {:?}", r.finish_reason, r.model),
                other => format!("{other:?}"),
            });
        }
        drop(stream);
        assert_eq!(kinds, ["call_1", "{}", "call_2", "{\"x\":1}", "done Some(ToolCalls) Some(\"tester\")"]);
        let over = model.chat(request()).await.unwrap_err().to_string();
        assert!(over.contains("script is over: call 4"), "{over}");
        assert_eq!(model.requests().len(), 4);
        assert_eq!(model.requests()[0].options.temperature, Some(0.5));
        let model = model.otherwise(AssistantMessage { content: "again".into(), ..Default::default() });
        assert_eq!(model.chat(request()).await.unwrap().message.content, "again");
        assert_eq!(model.remaining(), 0);
    }

    #[tokio::test]
    async fn a_scripted_rate_limit_sends_an_agent_to_its_backup_model() {
        let primary = ScriptedModel::named("primary").fail(ProviderError::new("openai", Some(429), "slow down"));
        let backup = ScriptedModel::named("backup").text("from the backup");
        let model = super::super::Fallback::new(primary.clone()).backup(backup.clone());
        let result = crate::Agent::builder(model).build().run("hi").await.unwrap();
        assert_eq!(result.content, "from the backup");
        assert_eq!((primary.requests().len(), backup.requests().len()), (1, 1));
        assert_eq!(backup.requests()[0].last_user_text().as_deref(), Some("hi"), "the same history");
    }
}
