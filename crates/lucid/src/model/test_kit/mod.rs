//! The conformance suite every [`ChatModel`] and [`Codec`](super::Codec) in this crate
//! passes, for those written outside it (feature `test-kit`).
//!
//! The suite asks the model for the shared cases and checks what comes back: a plain text
//! answer; a tool call (id, name, JSON arguments) and the answer after its result; parallel
//! calls; an answer cut by the output limit; each of them streamed, with text deltas that
//! make up the content, call deltas that make up the arguments, and a last
//! [`StreamEvent::Done`] equal to the answer not streamed; usage as reported; finish
//! reasons normalized; a rate limit, a refused key and an exhausted quota as
//! [`ProviderError`](crate::ProviderError)s of the right kind and retryability, from `chat` and before the
//! first event of `chat_stream`; and a stream whose body ends before the provider said the
//! answer was complete as [`ModelError::StreamTruncated`].
//!
//! A model proves itself in one of two ways:
//!
//! - A codec goes through [`codec_suite`]: its author says how the provider writes each
//!   case on the wire ([`Wire`]), and the kit serves those bodies from a loopback HTTP
//!   server to an [`HttpModel`](super::HttpModel) with the codec. It also checks that the
//!   tool round trip went out in the request, and that the transport retries the rate
//!   limit but neither the refused key nor the exhausted quota.
//! - Any other model implements [`Scripted`] (it answers the next calls as a [`Case`] says,
//!   in its own terms) and runs [`suite`].
//!
//! ```no_run
//! # async fn demo() -> lucid::Result<()> {
//! use lucid::model::test_kit::{Answer, Failure, Wire, codec_suite, sse_data};
//! use serde_json::{Value, json};
//!
//! /// How a Chat-Completions-like provider writes the kit's cases.
//! struct MyWire;
//!
//! impl Wire for MyWire {
//!     fn answer(&self, answer: &Answer) -> Value {
//!         json!({"choices": [{"message": {"role": "assistant", "content": answer.text()}}]}) // and calls, finish, usage
//!     }
//!     fn stream(&self, answer: &Answer) -> Vec<String> {
//!         answer.text.iter().map(|t| sse_data(&json!({"choices": [{"delta": {"content": t}}]}))).collect()
//!     }
//!     fn failure(&self, failure: Failure) -> (u16, Value) {
//!         (failure.status(), json!({"error": {"message": "no"}}))
//!     }
//! }
//!
//! let model = lucid::model::OpenAiCompatible::new("http://unused", None, "my-model")?;
//! codec_suite(model, MyWire).await; // panics, naming the case, on the first difference
//! # Ok(()) }
//! ```

mod http;

use futures::StreamExt;
use serde_json::{Value, json};

pub use http::{Wire, codec_suite, sse_data, sse_event};

use super::{ChatModel, ChatOptions, ChatRequest, ChatResponse, StreamEvent};
use crate::message::{FinishReason, Message, ToolCall, Usage, is_minted};
use crate::model::ProviderErrorKind;
use crate::model::error::ModelError;
use crate::tool::ToolSpec;

/// A model whose answers a test can script: the way a [`ChatModel`] that is not an
/// [`HttpModel`](super::HttpModel) runs [`suite`].
pub trait Scripted: ChatModel {
    /// Makes every call from now on, until the next script, answer as `case` says.
    fn script(&self, case: Case);
    /// The last request as sent, when the model has one to show (an HTTP body): the suite
    /// then checks that the tool round trip went out in it. `None` (the default) skips
    /// that check.
    fn sent(&self) -> Option<String> {
        None
    }
}

/// What the next calls answer.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Case {
    /// This answer, whole (to `chat`).
    Answer(Answer),
    /// This answer, streamed (to `chat_stream`), the text in its pieces.
    Streamed(Answer),
    /// This error, to `chat` or before the first event of `chat_stream`.
    Failure(Failure),
    /// This answer streamed, but the body ends before the provider says it is complete.
    Truncated(Answer),
}

/// One answer of the shared cases.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Answer {
    /// The text in the pieces a stream sends it in (empty for calls alone).
    pub text: Vec<String>,
    /// The calls, with their ids, names and JSON arguments.
    pub tool_calls: Vec<ToolCall>,
    /// The finish reason, normalized; a provider writes it its own way (`end_turn`,
    /// `MAX_TOKENS`, …), and one that has no reason of its own for calls (Gemini's
    /// `STOP`) writes the one it sends.
    pub finish: FinishReason,
    /// The usage the provider reports.
    pub usage: Usage,
}

impl Answer {
    /// The whole text.
    ///
    /// ```
    /// use lucid::model::test_kit::Answer;
    /// assert_eq!(Answer::plain_text().text(), "Hello, wörld ✓");
    /// ```
    pub fn text(&self) -> String {
        self.text.concat()
    }

    /// The plain text case.
    pub fn plain_text() -> Answer {
        Answer::new(&["Hello", ", wörld", " ✓"], vec![], FinishReason::Stop, (12, 5))
    }

    /// The answer after the tool result.
    pub fn after_tool() -> Answer {
        Answer::new(&["2 + 3 ", "= 5."], vec![], FinishReason::Stop, (40, 6))
    }

    /// One call: `add {"a": 2, "b": 3}` with id `call_kit_1`.
    pub fn tool_call() -> Answer {
        let call = ToolCall::new("call_kit_1", "add", json!({"a": 2, "b": 3}));
        Answer::new(&[], vec![call], FinishReason::ToolCalls, (30, 9))
    }

    /// Two calls in one answer: `add` (`call_kit_2`) and `lookup {"city": "Zürich"}`
    /// (`call_kit_3`).
    pub fn parallel_calls() -> Answer {
        let calls = vec![
            ToolCall::new("call_kit_2", "add", json!({"a": 20, "b": 22})),
            ToolCall::new("call_kit_3", "lookup", json!({"city": "Zürich", "days": [1, 2]})),
        ];
        Answer::new(&[], calls, FinishReason::ToolCalls, (31, 17))
    }

    /// Text cut by the output limit.
    pub fn cut_by_limit() -> Answer {
        Answer::new(&["Once upon", " a"], vec![], FinishReason::Length, (8, 3))
    }

    fn new(text: &[&str], tool_calls: Vec<ToolCall>, finish: FinishReason, (input, output): (u64, u64)) -> Answer {
        let usage = Usage { input_tokens: input, output_tokens: output, ..Default::default() };
        Answer { text: text.iter().map(|t| t.to_string()).collect(), tool_calls, finish, usage }
    }
}

/// An error case: the provider refuses the call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Failure {
    /// Too many requests right now (a 429 that asks for no wait): retryable.
    RateLimited,
    /// The key is refused (401): not retryable.
    Authentication,
    /// The account's money or quota ran out, as the provider says it (OpenAI's 429
    /// `insufficient_quota`, Anthropic's `billing_error`, …): never retried.
    QuotaExhausted,
}

impl Failure {
    /// Every error case.
    pub const ALL: [Failure; 3] = [Failure::RateLimited, Failure::Authentication, Failure::QuotaExhausted];

    /// The HTTP status most providers answer with (a provider may use another for
    /// [`Failure::QuotaExhausted`]).
    pub fn status(self) -> u16 {
        match self {
            Failure::RateLimited | Failure::QuotaExhausted => 429,
            Failure::Authentication => 401,
        }
    }

    /// The kind the error must be decoded as.
    pub fn kind(self) -> ProviderErrorKind {
        match self {
            Failure::RateLimited => ProviderErrorKind::RateLimited,
            Failure::Authentication => ProviderErrorKind::Authentication,
            Failure::QuotaExhausted => ProviderErrorKind::QuotaExhausted,
        }
    }

    /// Whether retrying may help.
    pub fn retryable(self) -> bool {
        self == Failure::RateLimited
    }
}

/// The tools the suite offers: `add(a, b)` and `lookup(city, days)`.
pub fn tools() -> Vec<ToolSpec> {
    let add = json!({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                     "required": ["a", "b"]});
    let lookup = json!({"type": "object", "properties": {"city": {"type": "string"},
                        "days": {"type": "array", "items": {"type": "integer"}}}, "required": ["city"]});
    vec![
        ToolSpec::new("add", "Adds two integers.", add).expect("a valid name"),
        ToolSpec::new("lookup", "The weather of a city.", lookup).expect("a valid name"),
    ]
}

/// The result the suite answers the call `add` with; the round trip check looks for it.
pub const TOOL_RESULT: &str = "5 (kit result ✓)";

/// Runs the shared cases against `model` and panics, naming the case and the provider, on
/// the first difference.
pub async fn suite(model: &dyn Scripted) {
    let who = model.provider().to_string();
    let (tools, options) = (tools(), ChatOptions::default());
    let question = vec![Message::system("Answer briefly."), Message::user("What is 2 + 3? Use the tools.")];
    let ask = ChatRequest::new(&question, &tools, &options);

    for (case, answer) in [
        ("plain text", Answer::plain_text()),
        ("a tool call", Answer::tool_call()),
        ("parallel calls", Answer::parallel_calls()),
        ("an answer cut by the output limit", Answer::cut_by_limit()),
    ] {
        let whole = chat(model, ask, Case::Answer(answer.clone()), &who, case).await;
        agrees(&whole, &answer, &who, case);
        let streamed = stream(model, ask, Case::Streamed(answer.clone()), &who, case).await;
        agrees(&streamed, &answer, &who, &format!("{case}, streamed"));
        assert_eq!(
            without_minted_ids(streamed),
            without_minted_ids(whole),
            "{who}, {case}: streamed differs from whole"
        );
    }

    let first = chat(model, ask, Case::Answer(Answer::tool_call()), &who, "a tool call").await;
    let call = first.message.tool_calls[0].clone();
    let mut history = question.clone();
    history.push(Message::Assistant(first.message));
    history.push(Message::tool_result(call.id.clone(), call.name.clone(), TOOL_RESULT, false));
    let case = "the answer after a tool result";
    let answer = Answer::after_tool();
    let last =
        chat(model, ChatRequest::new(&history, &tools, &options), Case::Answer(answer.clone()), &who, case).await;
    agrees(&last, &answer, &who, case);
    if let Some(sent) = model.sent() {
        assert!(sent.contains(TOOL_RESULT), "{who}, {case}: the request does not carry the tool result: {sent}");
        assert!(sent.contains("lookup"), "{who}, {case}: the request does not carry the tools: {sent}");
        if !is_minted(&call.id) {
            assert!(sent.contains(&call.id), "{who}, {case}: the request does not carry the call id: {sent}");
        }
    }

    for failure in Failure::ALL {
        model.script(Case::Failure(failure));
        let case = format!("{failure:?}");
        failed(model.chat(ask).await.err(), failure, &who, &case);
        failed(model.chat_stream(ask).await.err(), failure, &who, &format!("{case}, streamed"));
    }

    model.script(Case::Truncated(Answer::plain_text()));
    let mut events = match model.chat_stream(ask).await {
        Ok(events) => events,
        Err(e) => panic!("{who}, a truncated stream: the stream did not begin: {e}"),
    };
    let mut text = String::new();
    loop {
        match events.next().await {
            Some(Ok(StreamEvent::TextDelta(t))) => text.push_str(&t),
            Some(Ok(StreamEvent::Done(r))) => panic!("{who}, a truncated stream: reported complete: {r:?}"),
            Some(Ok(_)) => {}
            Some(Err(ModelError::StreamTruncated { .. })) => break,
            Some(Err(e)) => panic!("{who}, a truncated stream: expected ModelError::StreamTruncated, got {e:?}"),
            None => panic!("{who}, a truncated stream: ended with no error"),
        }
    }
    assert!(Answer::plain_text().text().starts_with(&text), "{who}, a truncated stream: text {text:?}");
    assert!(events.next().await.is_none(), "{who}, a truncated stream: events after the error");
}

async fn chat(model: &dyn Scripted, request: ChatRequest<'_>, case: Case, who: &str, name: &str) -> ChatResponse {
    model.script(case);
    model.chat(request).await.unwrap_or_else(|e| panic!("{who}, {name}: {e}"))
}

/// Streams the scripted answer and checks the events against the answer they end with.
async fn stream(model: &dyn Scripted, request: ChatRequest<'_>, case: Case, who: &str, name: &str) -> ChatResponse {
    model.script(case);
    let mut events = model.chat_stream(request).await.unwrap_or_else(|e| panic!("{who}, {name}, streamed: {e}"));
    let (mut text, mut started, mut arguments) = (String::new(), Vec::new(), Vec::<String>::new());
    let done = loop {
        match events.next().await {
            Some(Ok(StreamEvent::TextDelta(t))) => text.push_str(&t),
            Some(Ok(StreamEvent::ToolCallStarted { index, id, name })) => started.push((index, id, name)),
            Some(Ok(StreamEvent::ToolCallDelta { index, arguments: part })) => {
                arguments.resize(arguments.len().max(index + 1), String::new());
                arguments[index].push_str(&part);
            }
            Some(Ok(StreamEvent::ReasoningDelta(_) | StreamEvent::Fallback(_))) => {}
            Some(Ok(StreamEvent::Done(r))) => break r,
            Some(Err(e)) => panic!("{who}, {name}, streamed: {e}"),
            None => panic!("{who}, {name}, streamed: the stream ended without Done"),
        }
    };
    assert!(events.next().await.is_none(), "{who}, {name}, streamed: events after Done");
    assert_eq!(text, done.message.content, "{who}, {name}, streamed: the text deltas do not make up the content");
    let calls: Vec<(usize, String, String)> =
        done.message.tool_calls.iter().enumerate().map(|(i, c)| (i, c.id.clone(), c.name.clone())).collect();
    assert_eq!(started, calls, "{who}, {name}, streamed: one ToolCallStarted per call, in order");
    for (i, c) in done.message.tool_calls.iter().enumerate() {
        let sent = arguments.get(i).map_or(Value::Null, |a| serde_json::from_str(a).unwrap_or(Value::Null));
        assert_eq!(Some(sent), c.parse_arguments().ok(), "{who}, {name}, streamed: the deltas of call {i}");
    }
    done
}

/// Checks a response against the answer scripted.
fn agrees(r: &ChatResponse, want: &Answer, who: &str, case: &str) {
    assert_eq!(r.message.content, want.text(), "{who}, {case}: text");
    assert_eq!(r.message.tool_calls.len(), want.tool_calls.len(), "{who}, {case}: calls {:?}", r.message.tool_calls);
    for (got, want) in r.message.tool_calls.iter().zip(&want.tool_calls) {
        assert!(got.id == want.id || is_minted(&got.id), "{who}, {case}: call id {} for {}", got.id, want.id);
        assert_eq!(got.name, want.name, "{who}, {case}: call name");
        let args = got.parse_arguments().unwrap_or_else(|e| panic!("{who}, {case}: arguments {}: {e}", got.arguments));
        assert_eq!(Some(args), want.parse_arguments().ok(), "{who}, {case}: arguments of {}", got.name);
    }
    let ids: std::collections::HashSet<&str> = r.message.tool_calls.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids.len(), r.message.tool_calls.len(), "{who}, {case}: call ids repeat");
    assert_eq!(r.finish_reason, Some(want.finish), "{who}, {case}: finish reason (sent as {:?})", r.raw_finish_reason);
    assert_eq!(r.usage, Some(want.usage), "{who}, {case}: usage");
    assert_eq!(r.incomplete_tool_calls().count(), 0, "{who}, {case}: calls reported incomplete");
}

fn failed(error: Option<ModelError>, want: Failure, who: &str, case: &str) {
    match error {
        Some(ModelError::Provider(p)) => {
            assert_eq!((p.kind, p.retryable), (want.kind(), want.retryable()), "{who}, {case}: {p:?}");
        }
        Some(other) => panic!("{who}, {case}: expected a ProviderError, got {other:?}"),
        None => panic!("{who}, {case}: the call succeeded"),
    }
}

/// The response with the ids Lucid minted blanked: two calls mint different ones.
fn without_minted_ids(mut r: ChatResponse) -> ChatResponse {
    for c in r.message.tool_calls.iter_mut().filter(|c| is_minted(&c.id)) {
        c.id.clear();
    }
    r
}
