//! A response's body: a pooled buffer ([`Body`]) that hyper writes, in an [`Answer`] that hyper
//! polls for it.
//!
//! Over HTTP/2 an answer is written after the service has returned, as the client's windows
//! allow, and the watchdog follows it (`watchdog::AnswerProgress`). An answer of more than one DATA
//! frame ([`HOLD_OPEN_PAST`]) keeps its stream open until h2 has taken its body whole, so that a
//! stream whose answer has not moved for the write timeout can be reset (RST_STREAM CANCEL)
//! while the others on the connection go on. Its end then travels in an empty DATA frame, most
//! often in a write of its own: for one-frame answers that cost 5 to 13% more server CPU a
//! request (EchoStruct-20, EchoVoid; docs/results/h2-write-timeout.md), so they end in their
//! one frame, and one that does not move ends with its connection, once nothing on it moves.

use std::cell::Cell;
use std::rc::Rc;
use std::task::{Context, Poll};

use hyper::body::{Frame, SizeHint};

use crate::watchdog::{AnswerProgress, ConnectionState};

/// Answers longer than this (HTTP/2's smallest maximum frame size, so more than one DATA frame)
/// keep their stream open until they are taken whole; see the module's text.
const HOLD_OPEN_PAST: usize = 16 * 1024;

/// A response's body as hyper takes it: one [`Body`] in one frame, as `http_body_util::Full`
/// gives it; over HTTP/2 with a write timeout, then the stream's end once the body has been
/// taken whole ([`Answer::watch`]).
#[derive(Debug)]
pub struct Answer {
    body: Option<Body>,
    /// HTTP/2: the end of the stream waits for this answer's progress.
    end: Option<Rc<AnswerProgress>>,
}

impl Answer {
    pub(crate) fn new(body: Body) -> Answer {
        Answer {
            body: Some(body).filter(|body| !body.bytes.is_empty()),
            end: None,
        }
    }

    /// HTTP/2: lets `state`'s watchdog follow the writing of this answer, which outlives the
    /// service's call; with `may_hold` (a write timeout is on), an answer of more than one
    /// frame keeps its stream open until it is taken whole, so that the watchdog can reset it.
    pub(crate) fn watch(&mut self, state: &Rc<ConnectionState>, may_hold: bool) {
        if let Some(body) = &mut self.body {
            let progress = state.answer_queued();
            if may_hold && body.bytes.len() > HOLD_OPEN_PAST {
                self.end = Some(Rc::clone(&progress));
            }
            body.progress = Some(progress);
        }
    }
}

impl hyper::body::Body for Answer {
    type Data = Body;
    type Error = h2::Error;

    fn poll_frame(
        self: std::pin::Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Body>, h2::Error>>> {
        let this = self.get_mut();
        if let Some(body) = this.body.take() {
            return Poll::Ready(Some(Ok(Frame::data(body))));
        }
        let Some(progress) = &this.end else {
            return Poll::Ready(None);
        };
        let written = std::task::ready!(progress.poll_end(cx));
        this.end = None;
        Poll::Ready(if written {
            None
        } else {
            // hyper resets the stream with the reason it finds in the error.
            Some(Err(h2::Error::from(h2::Reason::CANCEL)))
        })
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_none() && self.end.is_none()
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::with_exact(self.body.as_ref().map_or(0, |body| body.bytes.len() as u64))
    }
}

/// A response body: a buffer that goes back to its thread's pool when hyper has written it, so
/// that answering a request allocates nothing for the response. Every response is written
/// anew into a cleared buffer; only the memory is reused.
pub struct Body {
    bytes: Vec<u8>,
    /// How much of `bytes` hyper has taken.
    at: usize,
    /// HTTP/2: told of each frame taken, and of the end.
    progress: Option<Rc<AnswerProgress>>,
}

/// Buffers kept per thread: enough for a worker's connections' responses in flight.
const POOL_SIZE: usize = 256;
/// Larger buffers (from a rare huge response) are freed rather than kept.
const POOL_MAX_CAPACITY: usize = 256 * 1024;

/// What a worker has served, for the summary at shutdown: thread-local, so that counting costs
/// no atomic operation.
#[derive(Debug, Default)]
pub(crate) struct Tally {
    /// Requests whose head was read whole.
    pub(crate) requests: Cell<u64>,
    /// Answers dropped before all of their body was written: the connection closed or was
    /// cut off first.
    pub(crate) cut: Cell<u64>,
}

thread_local! {
    pub(crate) static TALLY: Tally = Tally::default();
    static POOL: std::cell::RefCell<Vec<Vec<u8>>> = const { std::cell::RefCell::new(Vec::new()) };
}

impl Body {
    /// An empty buffer, from the pool when it has one.
    pub(crate) fn buffer() -> Vec<u8> {
        POOL.with(|pool| pool.borrow_mut().pop())
            .unwrap_or_default()
    }
}

impl std::fmt::Debug for Body {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Body")
            .field("len", &self.bytes.len())
            .field("at", &self.at)
            .field("watched", &self.progress.is_some())
            .finish()
    }
}

impl From<Vec<u8>> for Body {
    fn from(bytes: Vec<u8>) -> Body {
        Body {
            bytes,
            at: 0,
            progress: None,
        }
    }
}

impl Drop for Body {
    fn drop(&mut self) {
        if let Some(progress) = self.progress.take() {
            progress.end();
        }
        if self.at < self.bytes.len() {
            let _ = TALLY.try_with(|tally| tally.cut.set(tally.cut.get() + 1));
        }
        let mut bytes = std::mem::take(&mut self.bytes);
        if bytes.capacity() == 0 || bytes.capacity() > POOL_MAX_CAPACITY {
            return;
        }
        bytes.clear();
        let _ = POOL.try_with(|pool| {
            let mut pool = pool.borrow_mut();
            if pool.len() < POOL_SIZE {
                pool.push(bytes);
            }
        });
    }
}

impl bytes::Buf for Body {
    fn remaining(&self) -> usize {
        self.bytes.len() - self.at
    }

    fn chunk(&self) -> &[u8] {
        &self.bytes[self.at..]
    }

    fn advance(&mut self, n: usize) {
        assert!(
            n <= self.remaining(),
            "advanced past the end of a response body"
        );
        self.at += n;
        if let Some(progress) = &self.progress {
            progress.moved();
            if self.at == self.bytes.len() {
                progress.end();
                self.progress = None;
            }
        }
    }
}
