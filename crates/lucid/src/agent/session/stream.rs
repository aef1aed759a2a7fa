//! The stream adapter: a streamed run is the loop itself, polled by its consumer, with
//! the events the loop emitted handed out in order and its result last, each redacted of
//! every registered secret on its way out ([`crate::redact`]).

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context as TaskContext, Poll};

use futures::Stream;

use crate::agent::{AgentEvent, AgentResult};
use crate::error::Result;
use crate::redact::{StreamRedactor, fix, redact_result};

pub(super) type DriveFuture<'a> = Pin<Box<dyn Future<Output = Result<AgentResult>> + Send + 'a>>;

/// The events a streamed run emitted and its stream has not handed out yet. The run and
/// its stream are polled by the same task, so a plain queue does (no channel, no wakers).
pub(super) type EventQueue = Mutex<VecDeque<AgentEvent>>;

/// Where a run's events go: nowhere for [`Session::run`](super::Session::run), so
/// nothing is built for them.
#[derive(Clone, Copy)]
pub(super) struct Events<'a>(pub Option<&'a Arc<EventQueue>>);

impl Events<'_> {
    /// Nobody listens.
    pub const NONE: Events<'static> = Events(None);

    /// The queue, for what emits later (a running tool's progress).
    pub fn queue(self) -> Option<Arc<EventQueue>> {
        self.0.cloned()
    }

    /// Builds and queues the event, only when somebody listens.
    pub fn emit(self, event: impl FnOnce() -> AgentEvent) {
        if let Some(queue) = self.0 {
            queue.lock().unwrap_or_else(PoisonError::into_inner).push_back(event());
        }
    }
}

/// Redacts what a streamed run reports, in place, but for text pieces (the stream
/// redactor's: [`StreamRedactor`]).
fn redact_event(e: &mut AgentEvent) {
    match e {
        AgentEvent::ToolCallStarted { arguments, .. } => {
            fix(arguments);
        }
        AgentEvent::ToolCallFinished { output, .. } => {
            fix(output);
        }
        AgentEvent::Fallback(s) => {
            fix(&mut s.error);
        }
        AgentEvent::ToolProgress { message: Some(m), .. } => {
            fix(m);
        }
        AgentEvent::ToolProgress { message: None, .. } => {}
        AgentEvent::Completed(r) => redact_result(r),
        AgentEvent::TextDelta(_) | AgentEvent::ReasoningDelta(_) | AgentEvent::Iteration(_) | AgentEvent::Error(_) => {}
    }
}

/// Polls the run and hands out the events it emitted, then its end. Dropping it drops
/// the run, which cancels the turn (see `Session::run_stream`).
pub(super) struct DriveStream<'a> {
    fut: Option<DriveFuture<'a>>,
    queue: Arc<EventQueue>,
    last: Option<AgentEvent>,
    /// Redacted events ready to hand out (text held back, then the event after it).
    ready: VecDeque<AgentEvent>,
    text: StreamRedactor,
    reasoning: StreamRedactor,
}

impl<'a> DriveStream<'a> {
    /// A stream over the run `start` builds, given the queue its events go to.
    pub fn new(start: impl FnOnce(Arc<EventQueue>) -> DriveFuture<'a>) -> Self {
        let queue = Arc::new(EventQueue::default());
        DriveStream {
            fut: Some(start(Arc::clone(&queue))),
            queue,
            last: None,
            ready: VecDeque::new(),
            text: StreamRedactor::default(),
            reasoning: StreamRedactor::default(),
        }
    }

    fn pop(&self) -> Option<AgentEvent> {
        self.queue.lock().unwrap_or_else(PoisonError::into_inner).pop_front()
    }

    /// Redacts the next event the run emitted into `ready`: a text piece goes through its
    /// stream redactor (the other kind's held text is handed out first), anything else
    /// comes after the text both held back.
    fn redact(&mut self, event: AgentEvent) {
        match event {
            AgentEvent::TextDelta(t) => {
                let held = self.reasoning.finish();
                self.hand_out(AgentEvent::ReasoningDelta(held));
                let safe = self.text.push(&t);
                self.hand_out(AgentEvent::TextDelta(safe));
            }
            AgentEvent::ReasoningDelta(t) => {
                let held = self.text.finish();
                self.hand_out(AgentEvent::TextDelta(held));
                let safe = self.reasoning.push(&t);
                self.hand_out(AgentEvent::ReasoningDelta(safe));
            }
            mut other => {
                let (reasoning, text) = (self.reasoning.finish(), self.text.finish());
                self.hand_out(AgentEvent::ReasoningDelta(reasoning));
                self.hand_out(AgentEvent::TextDelta(text));
                redact_event(&mut other);
                self.ready.push_back(other);
            }
        }
    }

    /// Queues a text piece unless it is empty.
    fn hand_out(&mut self, piece: AgentEvent) {
        if let AgentEvent::TextDelta(t) | AgentEvent::ReasoningDelta(t) = &piece
            && t.is_empty()
        {
            return;
        }
        self.ready.push_back(piece);
    }

    /// The next raw event: emitted by the run, or its end once it is over.
    fn next_raw(&mut self, cx: &mut TaskContext<'_>) -> Poll<Option<AgentEvent>> {
        loop {
            if let Some(ev) = self.pop() {
                return Poll::Ready(Some(ev));
            }
            let Some(fut) = self.fut.as_mut() else {
                return Poll::Ready(self.last.take());
            };
            match fut.as_mut().poll(cx) {
                Poll::Ready(result) => {
                    self.fut = None;
                    self.last = Some(match result {
                        Ok(r) => AgentEvent::Completed(r),
                        Err(e) => AgentEvent::Error(e),
                    });
                }
                Poll::Pending => {
                    if let Some(ev) = self.pop() {
                        return Poll::Ready(Some(ev));
                    }
                    return Poll::Pending;
                }
            }
        }
    }
}

impl Stream for DriveStream<'_> {
    type Item = AgentEvent;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Option<AgentEvent>> {
        loop {
            if let Some(ev) = self.ready.pop_front() {
                return Poll::Ready(Some(ev));
            }
            match self.next_raw(cx) {
                Poll::Ready(Some(ev)) => self.redact(ev),
                Poll::Ready(None) => {
                    // Nothing follows: whatever is still held back goes out as it is.
                    let (reasoning, text) = (self.reasoning.finish(), self.text.finish());
                    self.hand_out(AgentEvent::ReasoningDelta(reasoning));
                    self.hand_out(AgentEvent::TextDelta(text));
                    return Poll::Ready(self.ready.pop_front());
                }
                Poll::Pending => return Poll::Pending,
            }
        }
    }
}
