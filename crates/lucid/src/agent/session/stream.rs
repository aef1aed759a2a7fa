//! The stream adapter: a streamed run is the loop itself, polled by its consumer, with
//! the events the loop emitted handed out in order and its result last.

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context as TaskContext, Poll};

use futures::Stream;

use crate::agent::{AgentEvent, AgentResult};
use crate::error::Result;

pub(super) type DriveFuture<'a> = Pin<Box<dyn Future<Output = Result<AgentResult>> + Send + 'a>>;

/// The events a streamed run emitted and its stream has not handed out yet. The run and
/// its stream are polled by the same task, so a plain queue does (no channel, no wakers).
pub(super) type EventQueue = Mutex<VecDeque<AgentEvent>>;

/// Where a run's events go: nowhere for [`Session::run`](super::Session::run), so
/// nothing is built for them.
#[derive(Clone, Copy)]
pub(super) struct Events<'a>(pub Option<&'a EventQueue>);

impl Events<'_> {
    /// Nobody listens.
    pub const NONE: Events<'static> = Events(None);

    /// Builds and queues the event, only when somebody listens.
    pub fn emit(self, event: impl FnOnce() -> AgentEvent) {
        if let Some(queue) = self.0 {
            queue.lock().unwrap_or_else(PoisonError::into_inner).push_back(event());
        }
    }
}

/// Polls the run and hands out the events it emitted, then its end. Dropping it drops
/// the run, which cancels the turn (see `Session::run_stream`).
pub(super) struct DriveStream<'a> {
    fut: Option<DriveFuture<'a>>,
    queue: Arc<EventQueue>,
    last: Option<AgentEvent>,
}

impl<'a> DriveStream<'a> {
    /// A stream over the run `start` builds, given the queue its events go to.
    pub fn new(start: impl FnOnce(Arc<EventQueue>) -> DriveFuture<'a>) -> Self {
        let queue = Arc::new(EventQueue::default());
        DriveStream { fut: Some(start(Arc::clone(&queue))), queue, last: None }
    }

    fn pop(&self) -> Option<AgentEvent> {
        self.queue.lock().unwrap_or_else(PoisonError::into_inner).pop_front()
    }
}

impl Stream for DriveStream<'_> {
    type Item = AgentEvent;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Option<AgentEvent>> {
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
