//! The timeouts of a connection, kept by a task beside it rather than by per-request timers.
//!
//! The connection's socket counts its reads and notes when a write could not proceed; its
//! service marks when a request's head is complete, when its body has been read, and when it
//! has been answered. Every quarter of the shortest timeout, the watchdog looks:
//! - idle: between requests, nothing was read for `idle`;
//! - header: the first bytes of a request arrived more than `header` ago and its head is still
//!   not complete;
//! - body: a request's head was complete more than `body` ago and its body is still not read;
//! - write: a write has been waiting for the client to read for more than `write`.
//!
//! Any of them ends the connection. So the request path only bumps counters; no timer is
//! allocated, armed or cancelled per request, which hyper's own header timer does.
//!
//! The watchdog also sends a plain HTTP/1.1 connection that has waited a whole tick for its next
//! request into hibernation: hyper lets go of it and of its buffers, and `connection` serves the
//! next request with a new hyper connection on the same socket.
//!
//! On HTTP/2 (`multiplexed`) each limit has the same meaning, read from the frames:
//! - header: a frame other than DATA (a header block with its CONTINUATIONs, a SETTINGS, a
//!   PING...) or the connection preface has begun to arrive and is not whole after `header`
//!   ([`frames::FrameTracker`]); WINDOW_UPDATEs from a client reading an answer are whole
//!   frames, so a slow reader is never held to it;
//! - body: per stream, kept by the service;
//! - write: an answer that has not moved for `write` (its stream's window shut) has its stream
//!   reset (answer.rs); when no answer on the connection has moved for `write` (the
//!   windows shut, or the socket not drained), the connection ends;
//! - idle: no stream open, no answer left to write, no frame part-way, and no bytes moved for
//!   `idle`.
//!
//! An HTTP/2 connection past a limit is asked to go away ([`ConnectionState::ended`]): GOAWAY,
//! then a close once it is written, within [`GOAWAY_GRACE`].

use std::cell::{Cell, RefCell};
use std::pin::Pin;
use std::rc::{Rc, Weak};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::Notify;
use tokio::time::Instant;

use crate::frames::FrameTracker;

/// How long an HTTP/2 connection past a limit has to write its GOAWAY and close, before its
/// task is ended.
pub(crate) const GOAWAY_GRACE: Duration = Duration::from_secs(1);

/// The limits a watchdog keeps; `None` turns one off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Timeouts {
    pub(crate) header: Option<Duration>,
    pub(crate) body: Option<Duration>,
    pub(crate) write: Option<Duration>,
    pub(crate) idle: Option<Duration>,
}

impl Timeouts {
    fn shortest(&self) -> Option<Duration> {
        [self.header, self.body, self.write, self.idle]
            .into_iter()
            .flatten()
            .min()
    }

    /// Whether any timeout is on, and so whether a connection needs a watchdog at all.
    pub(crate) fn any(&self) -> bool {
        self.shortest().is_some()
    }
}

/// What the watchdog knows of one connection. The instants are milliseconds since `born` plus
/// one, with zero for "not now", so that each fits a `Cell<u64>`.
pub(crate) struct ConnectionState {
    born: Instant,
    /// Reads that brought data.
    n_reads: Cell<u64>,
    /// Between requests: the next byte read starts a request head.
    waiting: Cell<bool>,
    /// When the pending request's first bytes arrived.
    head_started: Cell<u64>,
    /// When the head of the request whose body is being read was complete.
    body_started: Cell<u64>,
    /// Since when a write has been refused because the client does not read.
    write_blocked: Cell<u64>,
    /// Writes that sent data.
    n_writes: Cell<u64>,
    /// The watchdog asked hyper to let go of this idle connection (see `connection`).
    hibernating: Cell<bool>,
    /// Who to wake when hyper waits for the next request, so that the watchdog can end its wait.
    idle_reader: Cell<Option<Waker>>,
    /// Plain HTTP/1.1 may hibernate; TLS and HTTP/2 keep their state in the connection.
    may_hibernate: Cell<bool>,
    /// HTTP/2: requests overlap, `active` of them at once.
    multiplexed: Cell<bool>,
    active: Cell<u32>,
    /// HTTP/2: answers handed to hyper with bytes still to write, and how often any of them
    /// moved (a frame of it taken to be written).
    answers_unsent: Cell<u32>,
    answer_moves: Cell<u64>,
    /// HTTP/2, with a write timeout: the answers being written, for the watchdog to reset one
    /// that does not move; swept of ended ones when it doubles ([`ConnectionState::answer_queued`]).
    answers: RefCell<Vec<Weak<AnswerProgress>>>,
    sweep_at: Cell<usize>,
    /// HTTP/2: the watchdog asks the connection to go away.
    end: Notify,
}

impl ConnectionState {
    /// The state of a new connection; `may_hibernate` for plain HTTP/1.1.
    pub(crate) fn new(may_hibernate: bool) -> ConnectionState {
        ConnectionState {
            may_hibernate: Cell::new(may_hibernate),
            multiplexed: Cell::new(false),
            active: Cell::new(0),
            answers_unsent: Cell::new(0),
            answer_moves: Cell::new(0),
            answers: RefCell::new(Vec::new()),
            sweep_at: Cell::new(64),
            end: Notify::new(),
            born: Instant::now(),
            n_reads: Cell::new(0),
            waiting: Cell::new(true),
            head_started: Cell::new(0),
            body_started: Cell::new(0),
            write_blocked: Cell::new(0),
            n_writes: Cell::new(0),
            hibernating: Cell::new(false),
            idle_reader: Cell::new(None),
        }
    }

    fn stamp(&self) -> u64 {
        self.born.elapsed().as_millis() as u64 + 1
    }

    fn instant(&self, stamp: u64) -> Option<Instant> {
        (stamp != 0).then(|| self.born + Duration::from_millis(stamp - 1))
    }

    fn on_read(&self) {
        self.n_reads.set(self.n_reads.get() + 1);
        // Bytes read between requests, or after the request's body is in (read ahead, as a
        // pipelining client sends them), start the next request's head: its header timeout
        // runs, and the connection is not idle. (HTTP/2 reads the frames instead:
        // `on_frames`.)
        let between_requests = self.waiting.get() || self.body_started.get() == 0;
        if !self.multiplexed.get() && between_requests && self.head_started.get() == 0 {
            self.head_started.set(self.stamp());
        }
    }

    /// HTTP/2: whether, after what was just read, a frame other than DATA (or a header block,
    /// or the preface) is part-way, which the header timeout holds to its limit.
    fn on_frames(&self, part_way: bool) {
        match (part_way, self.head_started.get()) {
            (true, 0) => self.head_started.set(self.stamp()),
            (false, since) if since != 0 => self.head_started.set(0),
            _ => {}
        }
    }

    /// Waiting for the next request, with none of it read and no answer left to write.
    fn is_idle(&self) -> bool {
        self.waiting.get() && self.head_started.get() == 0 && self.answers_unsent.get() == 0
    }

    /// Ends hyper's wait for the next request: its next read sees the end of the stream, and
    /// hyper closes its side without closing the socket (see [`WatchedIo`]).
    fn hibernate(&self) {
        self.hibernating.set(true);
        if let Some(waker) = self.idle_reader.take() {
            waker.wake();
        }
    }

    /// After hyper has let go: whether it was for hibernation, which this ends.
    pub(crate) fn wake_from_hibernation(&self) -> bool {
        self.idle_reader.set(None);
        self.hibernating.replace(false)
    }

    fn on_write(&self, blocked: bool) {
        if !blocked {
            self.n_writes.set(self.n_writes.get() + 1);
        }
        match (blocked, self.write_blocked.get()) {
            (true, 0) => self.write_blocked.set(self.stamp()),
            (false, since) if since != 0 => self.write_blocked.set(0),
            _ => {}
        }
    }

    /// The connection speaks HTTP/2: it never hibernates, and its streams' body timeouts are
    /// the service's.
    pub(crate) fn set_multiplexed(&self) {
        self.multiplexed.set(true);
        self.may_hibernate.set(false);
    }

    /// Whether requests overlap on this connection (HTTP/2).
    pub(crate) fn multiplexed(&self) -> bool {
        self.multiplexed.get()
    }

    /// A request's head is complete: it reached the service, which reads its body next.
    pub(crate) fn request_started(&self) {
        self.active.set(self.active.get() + 1);
        self.waiting.set(false);
        // On HTTP/2 the next stream's header block may already be part-way.
        if !self.multiplexed.get() {
            self.head_started.set(0);
            self.body_started.set(self.stamp());
        }
    }

    /// The request's body has been read (or refused).
    pub(crate) fn body_read(&self) {
        self.body_started.set(0);
    }

    /// HTTP/2: an answer was handed to hyper, to be written as the client's windows allow.
    pub(crate) fn answer_queued(self: &Rc<Self>) -> Rc<AnswerProgress> {
        if self.answers_unsent.get() == 0 {
            // The write timeout counts from here for the first answer in a quiet connection.
            self.answer_moved();
        }
        self.answers_unsent.set(self.answers_unsent.get() + 1);
        let progress = Rc::new(AnswerProgress::new(Rc::clone(self)));
        let mut answers = self.answers.borrow_mut();
        // An ended answer's memory goes once no list holds it: sweeping when the list has
        // doubled keeps it within twice the answers in flight, at a constant cost an answer.
        if answers.len() >= self.sweep_at.get() {
            answers.retain(|answer| answer.upgrade().is_some_and(|answer| answer.is_live()));
            self.sweep_at.set((2 * answers.len()).max(64));
        }
        answers.push(Rc::downgrade(&progress));
        progress
    }

    /// HTTP/2: resets the streams whose answers have not moved for `limit` (each then ends
    /// with RST_STREAM CANCEL, the connection serving the others).
    fn cut_stalled_answers(&self, now: Instant, limit: Duration) {
        let answers = self.answers.borrow();
        for answer in answers.iter().filter_map(Weak::upgrade) {
            answer.check(now, limit);
        }
    }

    /// HTTP/2: a frame of an answer was taken to be written.
    pub(crate) fn answer_moved(&self) {
        self.answer_moves.set(self.answer_moves.get() + 1);
    }

    /// HTTP/2: an answer was written whole, or dropped.
    pub(crate) fn answer_ended(&self) {
        self.answers_unsent
            .set(self.answers_unsent.get().saturating_sub(1));
    }

    /// Resolves when the watchdog asks this HTTP/2 connection to go away.
    pub(crate) async fn ended(&self) {
        self.end.notified().await;
    }

    /// The service has answered; what is read next belongs to the next request.
    pub(crate) fn request_done(&self) {
        self.active.set(self.active.get().saturating_sub(1));
        self.body_started.set(0);
        self.waiting.set(self.active.get() == 0);
    }
}

/// HTTP/2: how the writing of one answer goes, shared by its body (which h2 takes frames of),
/// its `Answer` (which ends the stream when it is taken whole) and the connection's
/// watchdog (which resets the stream when it has not moved for the write timeout).
pub(crate) struct AnswerProgress {
    state: Rc<ConnectionState>,
    /// Frames of the body taken to be written.
    moves: Cell<u64>,
    /// Taken whole, or dropped.
    ended: Cell<bool>,
    /// The watchdog gave up on it.
    cut: Cell<bool>,
    /// The stream's end, waiting for `ended` or `cut`.
    waiter: Cell<Option<Waker>>,
    /// The watchdog's: `moves` when it last looked, and since when it has not changed.
    seen: Cell<u64>,
    quiet_since: Cell<Option<Instant>>,
}

impl std::fmt::Debug for AnswerProgress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AnswerProgress")
            .field("moves", &self.moves.get())
            .field("ended", &self.ended.get())
            .field("cut", &self.cut.get())
            .finish()
    }
}

impl AnswerProgress {
    pub(crate) fn new(state: Rc<ConnectionState>) -> AnswerProgress {
        AnswerProgress {
            state,
            moves: Cell::new(0),
            ended: Cell::new(false),
            cut: Cell::new(false),
            waiter: Cell::new(None),
            seen: Cell::new(0),
            quiet_since: Cell::new(None),
        }
    }

    pub(crate) fn moved(&self) {
        self.moves.set(self.moves.get() + 1);
        self.state.answer_moved();
    }

    pub(crate) fn end(&self) {
        if !self.ended.replace(true) {
            self.state.answer_ended();
            if let Some(waiter) = self.waiter.take() {
                waiter.wake();
            }
        }
    }

    /// Ready(true) once the body is taken whole, Ready(false) when the watchdog cut it.
    pub(crate) fn poll_end(&self, cx: &mut Context<'_>) -> Poll<bool> {
        if self.cut.get() {
            Poll::Ready(false)
        } else if self.ended.get() {
            Poll::Ready(true)
        } else {
            self.waiter.set(Some(cx.waker().clone()));
            Poll::Pending
        }
    }

    /// The watchdog's look at `now`: whether the answer has gone without moving for `limit`,
    /// in which case its stream is reset.
    pub(crate) fn check(&self, now: Instant, limit: Duration) -> bool {
        if self.ended.get() || self.cut.get() {
            return false;
        }
        let moves = self.moves.get();
        match self.quiet_since.get() {
            Some(since) if moves == self.seen.get() => {
                if now - since < limit {
                    return false;
                }
                self.cut.set(true);
                if let Some(waiter) = self.waiter.take() {
                    waiter.wake();
                }
                true
            }
            _ => {
                self.seen.set(moves);
                self.quiet_since.set(Some(now));
                false
            }
        }
    }

    pub(crate) fn is_live(&self) -> bool {
        !self.ended.get() && !self.cut.get()
    }
}

/// The longest the watchdog sleeps: it also sends idle connections into hibernation, which
/// should not wait for long timeouts. 10,000 connections cost 5,000 wake-ups a second.
const MAX_TICK: Duration = Duration::from_secs(2);

/// Resolves when the connection has overrun one of its timeouts; an HTTP/2 connection has
/// then been asked to go away, and been given [`GOAWAY_GRACE`] to do it. On the way, a
/// connection idle for a whole tick, with nothing read or written, hibernates.
pub(crate) async fn watchdog(state: Rc<ConnectionState>, timeouts: Timeouts) {
    overrun(&state, timeouts).await;
    if state.multiplexed() {
        state.end.notify_one();
        tokio::time::sleep(GOAWAY_GRACE).await;
    }
}

async fn overrun(state: &ConnectionState, timeouts: Timeouts) {
    let tick = (timeouts.shortest().unwrap_or(Duration::MAX) / 4)
        .clamp(Duration::from_millis(5), MAX_TICK);
    let mut seen = (state.n_reads.get(), state.n_writes.get());
    let mut quiet_since = Instant::now();
    let mut answers_seen = state.answer_moves.get();
    let mut answers_quiet_since = quiet_since;
    loop {
        tokio::time::sleep(tick).await;
        let now = Instant::now();
        let activity = (state.n_reads.get(), state.n_writes.get());
        if activity != seen {
            seen = activity;
            quiet_since = now;
        }
        if let Some(limit) = timeouts.write {
            state.cut_stalled_answers(now, limit);
        }
        // HTTP/2: since when no answer has moved while some wait to be written.
        let moves = state.answer_moves.get();
        if moves != answers_seen || state.answers_unsent.get() == 0 {
            answers_seen = moves;
            answers_quiet_since = now;
        }
        let overran = |limit: Option<Duration>, since: Option<Instant>| {
            limit
                .zip(since)
                .is_some_and(|(limit, since)| now - since >= limit)
        };
        // A response being written or computed is not idleness: only a connection waiting for
        // its next request can be idle.
        let idle = state.is_idle();
        if overran(timeouts.idle, idle.then_some(quiet_since))
            || overran(timeouts.header, state.instant(state.head_started.get()))
            || overran(timeouts.body, state.instant(state.body_started.get()))
            || overran(timeouts.write, state.instant(state.write_blocked.get()))
            || overran(
                timeouts.write,
                (state.answers_unsent.get() > 0).then_some(answers_quiet_since),
            )
        {
            return;
        }
        if idle
            && now - quiet_since >= tick
            && state.write_blocked.get() == 0
            && !state.hibernating.get()
            && state.may_hibernate.get()
        {
            state.hibernate();
        }
    }
}

/// A stream (TCP, or TLS over it) that tells its [`ConnectionState`] about every read that
/// brought data and every write, and that ends hyper's wait for a request when the connection
/// hibernates. The stream is shared with the connection's task, which keeps it when hyper lets
/// go. Bytes read to tell HTTP/2 from HTTP/1.1 are handed back ([`WatchedIo::unread`]) before
/// the stream's own.
pub(crate) struct WatchedIo<S> {
    inner: Rc<RefCell<S>>,
    state: Rc<ConnectionState>,
    unread: Vec<u8>,
    /// HTTP/2: the frame boundaries of what the client sent, for the header timeout.
    frames: Option<Box<FrameTracker>>,
}

impl<S> WatchedIo<S> {
    pub(crate) fn new(inner: Rc<RefCell<S>>, state: Rc<ConnectionState>) -> WatchedIo<S> {
        WatchedIo {
            inner,
            state,
            unread: Vec::new(),
            frames: None,
        }
    }

    /// The stream under this one, which outlives hyper's hold on it.
    pub(crate) fn socket(&self) -> Rc<RefCell<S>> {
        Rc::clone(&self.inner)
    }

    /// HTTP/2: follows the frames read from here on (the preface first, as `unread` has it or
    /// the client sends it), so that the header timeout holds a part-way frame.
    pub(crate) fn follow_frames(&mut self) {
        self.frames = Some(Box::default());
    }

    /// `bytes` are read again before anything else.
    pub(crate) fn unread(&mut self, bytes: &[u8]) {
        self.unread.splice(0..0, bytes.iter().copied());
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> AsyncRead for WatchedIo<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = &mut *self;
        let before = buf.filled().len();
        if !this.unread.is_empty() {
            let n = this.unread.len().min(buf.remaining());
            buf.put_slice(&this.unread[..n]);
            this.unread.drain(..n);
            if let Some(frames) = &mut this.frames {
                frames.read(&buf.filled()[before..]);
                this.state.on_frames(frames.head_part_way());
            }
            return Poll::Ready(Ok(()));
        }
        let state = &this.state;
        if state.hibernating.get() && state.is_idle() {
            // The end of the stream, as hyper sees it; the socket stays open.
            return Poll::Ready(Ok(()));
        }
        let result = Pin::new(&mut *this.inner.borrow_mut()).poll_read(cx, buf);
        if buf.filled().len() > before {
            state.on_read();
            if let Some(frames) = &mut this.frames {
                frames.read(&buf.filled()[before..]);
                state.on_frames(frames.head_part_way());
            }
        } else if result.is_pending() && state.is_idle() {
            // One waker clone per request, and none when the same task waits again.
            let waker = state.idle_reader.take();
            state.idle_reader.set(Some(match waker {
                Some(waker) if waker.will_wake(cx.waker()) => waker,
                _ => cx.waker().clone(),
            }));
        }
        result
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> AsyncWrite for WatchedIo<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let result = Pin::new(&mut *self.inner.borrow_mut()).poll_write(cx, buf);
        self.state.on_write(result.is_pending());
        result
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        let result = Pin::new(&mut *self.inner.borrow_mut()).poll_write_vectored(cx, bufs);
        self.state.on_write(result.is_pending());
        result
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.borrow().is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut *self.inner.borrow_mut()).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        if self.state.hibernating.get() {
            // hyper is letting go of an idle connection, not closing it.
            return Poll::Ready(Ok(()));
        }
        Pin::new(&mut *self.inner.borrow_mut()).poll_shutdown(cx)
    }
}
