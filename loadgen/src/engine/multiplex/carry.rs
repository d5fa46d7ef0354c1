//! One open connection's life: requests into [`Client`], its bytes to the socket, the socket's
//! bytes back through it, and each stream's end counted. One task does it all, writing and
//! reading in one poll, so a read that completes several streams refills them and sends the
//! new requests in one write.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::ops::ControlFlow;
use std::pin::Pin;
use std::rc::Rc;
use std::sync::Arc;
use std::task::Poll;
use std::time::Instant;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use super::open::refusal;
use super::{CONNECTION_WINDOW, Inbox, Job, Loop, STREAM_WINDOW, micros};
use crate::http::ResponseParser;
use crate::http2::client::Windows;
use crate::http2::frame::code;
use crate::http2::{Client, Event, Http2Error};
use crate::stats::{Completion, Failure, Sample};

/// The read buffer of a connection: a few responses of 100 items.
const READ_BUFFER: usize = 64 * 1024;

/// How many times a request the server refused unprocessed is sent again before it counts as
/// failed: a server that refuses everything must not keep a run going for ever.
const MAX_ATTEMPTS: u8 = 3;

/// A request the server refused without processing it (above a GOAWAY's last stream, or
/// reset with REFUSED_STREAM), which RFC 9113 (8.7) lets a client send again, or one handed
/// to a connection that ended before sending it: it goes on the next stream free, here or on
/// the next connection, its latency still counted from `start`.
#[derive(Debug)]
pub(super) struct Refused {
    job: Job,
    start: Instant,
    attempts: u8,
}

impl Refused {
    /// A request handed to a connection that ended before sending it.
    pub(super) fn unsent(job: Job, now: Instant) -> Refused {
        Refused {
            job,
            start: now,
            attempts: 0,
        }
    }

    pub(super) fn into_job(self) -> Job {
        self.job
    }
}

/// Opens a stream for `flight`, sending its kind's request.
fn open(client: &mut Client<InFlight>, flight: InFlight) {
    let kind = flight.job.kind;
    client.open_kind(flight, kind);
}

/// A request in flight on a stream.
#[derive(Debug)]
struct InFlight {
    job: Job,
    start: Instant,
    attempts: u8,
    /// When its connection was ready (ab's Connect time ends there).
    connected: Instant,
    /// When it was handed to the socket, and when its head came.
    written: Instant,
    first_byte: Instant,
    parser: ResponseParser,
}

/// What woke the connection.
enum Wake {
    Read(usize),
    Failed,
    /// `--rate` gave it work, or the work ended.
    Inbox,
    /// A request's `--timeout` passed.
    Timer,
}

/// Carries requests on `io` until the work ends or the connection does: first those the
/// server refused before (`refused`, where this connection's refusals go too), then new ones.
/// `first` is the request that opened it, due since `start`.
pub(super) async fn carry<IO>(
    state: &Loop,
    io: IO,
    inbox: &Rc<Inbox>,
    refused: &RefCell<VecDeque<Refused>>,
    first: Option<(Job, Instant)>,
) where
    IO: AsyncRead + AsyncWrite + Unpin,
{
    let Some(h2) = state.plan.http2.as_ref() else {
        return;
    };
    state.shared.connected();
    let windows = Windows {
        stream: STREAM_WINDOW,
        connection: CONNECTION_WINDOW,
    };
    let mut carrier = Carrier {
        state,
        io,
        inbox,
        refused,
        client: Client::new(Arc::clone(&h2.requests), windows),
        max_streams: h2.streams,
        paced: state.schedule.borrow().paced(),
        buffer: vec![0u8; READ_BUFFER],
        written: 0,
        flushing: false,
        timer: state
            .plan
            .checks
            .request_timeout
            .map(|_| Box::pin(tokio::time::sleep_until(tokio::time::Instant::now()))),
        answered: false,
        error: None,
        no_streams: false,
    };
    if let Some((job, start)) = first {
        let flight = state.in_flight(job, start, Instant::now(), 1);
        open(&mut carrier.client, flight);
    }
    loop {
        let capacity = carrier.fill(Instant::now());
        if carrier.finished() {
            return;
        }
        carrier.arm_timer();
        let wake = std::future::poll_fn(|cx| carrier.poll_wake(cx, capacity)).await;
        match wake {
            Wake::Read(0) | Wake::Failed => break,
            Wake::Read(n) => {
                if carrier.receive(n).await.is_break() {
                    break;
                }
            }
            Wake::Inbox => {}
            Wake::Timer => carrier.expire(Instant::now()),
        }
    }
    carrier.end();
}

/// One connection's state while [`carry`] runs it.
struct Carrier<'a, IO> {
    state: &'a Loop,
    io: IO,
    inbox: &'a Rc<Inbox>,
    refused: &'a RefCell<VecDeque<Refused>>,
    client: Client<InFlight>,
    /// `--streams`.
    max_streams: usize,
    /// `--rate`: work comes through the inbox.
    paced: bool,
    buffer: Vec<u8>,
    /// How much of the client's output the socket has taken.
    written: usize,
    flushing: bool,
    /// `--timeout`: set to the earliest stream's deadline.
    timer: Option<Pin<Box<tokio::time::Sleep>>>,
    /// The server answered something on this connection.
    answered: bool,
    error: Option<Http2Error>,
    /// The server's SETTINGS allowed no stream at all.
    no_streams: bool,
}

impl<IO: AsyncRead + AsyncWrite + Unpin> Carrier<'_, IO> {
    /// Opens streams up to the capacity (the refused first, then claimed or handed work) and,
    /// under `--rate`, offers the idle slots; returns the capacity.
    fn fill(&mut self, now: Instant) -> usize {
        let state = self.state;
        let client = &mut self.client;
        let capacity = self.max_streams.min(client.peer_max_streams());
        while client.open_streams() < capacity && client.can_open() {
            let again = self.refused.borrow_mut().pop_front();
            if let Some(again) = again {
                let flight = state.in_flight(again.job, again.start, now, again.attempts + 1);
                open(client, flight);
                continue;
            }
            let job = if self.paced {
                self.inbox.jobs.borrow_mut().pop_front()
            } else {
                state.claim(now)
            };
            let Some(job) = job else {
                break;
            };
            open(client, state.in_flight(job, now, now, 1));
        }
        if self.paced && !state.done.get() && !client.exhausted() {
            let inbox = self.inbox;
            let busy = client.open_streams() + inbox.jobs.borrow().len() + inbox.offered.get();
            for _ in busy..capacity {
                state.offer(inbox, now);
            }
        }
        capacity
    }

    /// Nothing in flight, and nothing more for this connection to carry.
    fn finished(&self) -> bool {
        let state = self.state;
        let refusals = !self.refused.borrow().is_empty();
        self.client.open_streams() == 0
            && (self.client.exhausted()
                || state.shared.stopped()
                || (state.done.get() && !refusals))
    }

    /// `--timeout`: the timer set to the earliest deadline of the streams in flight.
    fn arm_timer(&mut self) {
        if let (Some(timer), Some(timeout)) =
            (&mut self.timer, self.state.plan.checks.request_timeout)
        {
            let earliest = self.client.streams().map(|(_, flight)| flight.start).min();
            if let Some(earliest) = earliest {
                timer.as_mut().reset((earliest + timeout).into());
            }
        }
    }

    /// Writes what the client has to send, and waits for bytes to read, work to take, or a
    /// deadline: writing and reading in one poll, so that a read that completes several
    /// streams refills them and their requests go in one write.
    fn poll_wake(&mut self, cx: &mut std::task::Context<'_>, capacity: usize) -> Poll<Wake> {
        let out = self.client.output();
        while self.written < out.len() {
            match Pin::new(&mut self.io).poll_write(cx, &out[self.written..]) {
                Poll::Ready(Ok(0)) => {
                    return Poll::Ready(Wake::Failed);
                }
                Poll::Ready(Ok(n)) => self.written += n,
                Poll::Ready(Err(_)) => return Poll::Ready(Wake::Failed),
                Poll::Pending => break,
            }
        }
        if self.written > 0 && self.written == out.len() {
            out.clear();
            self.written = 0;
            self.flushing = true;
        }
        if self.flushing {
            match Pin::new(&mut self.io).poll_flush(cx) {
                Poll::Ready(Ok(())) => self.flushing = false,
                Poll::Ready(Err(_)) => return Poll::Ready(Wake::Failed),
                Poll::Pending => {}
            }
        }
        let mut read = ReadBuf::new(&mut self.buffer);
        match Pin::new(&mut self.io).poll_read(cx, &mut read) {
            Poll::Ready(Ok(())) => return Poll::Ready(Wake::Read(read.filled().len())),
            Poll::Ready(Err(_)) => return Poll::Ready(Wake::Failed),
            Poll::Pending => {}
        }
        let state = self.state;
        if self.paced {
            // A job is only worth waking for when a stream can take it (else it waits in
            // the inbox, and waking for it would spin); the end of the work only when
            // nothing is in flight.
            let idle_at_end = state.done.get() && self.client.open_streams() == 0;
            let can_take = !state.done.get()
                && self.client.can_open()
                && self.client.open_streams() < capacity;
            if idle_at_end || (can_take && self.inbox.poll_job(cx.waker())) {
                return Poll::Ready(Wake::Inbox);
            }
        }
        if let Some(timer) = &mut self.timer
            && self.client.open_streams() > 0
            && timer.as_mut().poll(cx).is_ready()
        {
            return Poll::Ready(Wake::Timer);
        }
        Poll::Pending
    }

    /// `n` bytes read: each stream's head, data, end or reset acted on. Breaks when the
    /// connection must end (a protocol error, said by a GOAWAY if the socket takes it at once;
    /// or a server that allows no stream).
    async fn receive(&mut self, n: usize) -> ControlFlow<()> {
        let now = Instant::now();
        let state = self.state;
        let plan = &state.plan;
        state.last_event.set(now);
        let refused = self.refused;
        let answered = &mut self.answered;
        let received = self.client.receive(&self.buffer[..n], |event| match event {
            Event::Head {
                user,
                status,
                head_len,
                server,
            } => {
                *answered = true;
                user.first_byte = now;
                user.parser.framed_head(status, head_len, server);
            }
            Event::Data { user, data } => {
                let checks = &plan.kinds[user.job.kind].body_checks;
                user.parser.framed_data(data, checks)
            }
            Event::End(flight) => state.complete(flight, now),
            Event::Reset { user, code } => {
                if code == code::REFUSED_STREAM && user.attempts < MAX_ATTEMPTS {
                    refused.borrow_mut().push_back(Refused {
                        job: user.job,
                        start: user.start,
                        attempts: user.attempts,
                    });
                } else {
                    state.fail(user.job, Failure::Receive);
                }
            }
        });
        if let Err(failure) = received {
            self.error = Some(failure);
            let out = self.client.output();
            let (io, written) = (&mut self.io, self.written);
            let _ = std::future::poll_fn(|cx| {
                Poll::Ready(Pin::new(&mut *io).poll_write(cx, &out[written..]))
            })
            .await;
            return ControlFlow::Break(());
        }
        if self.client.peer_max_streams() == 0 && self.client.open_streams() == 0 {
            // Nothing can be sent here until the server raises its limit, which it need never
            // do: the connection is given up (a new one may allow streams).
            self.no_streams = true;
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    }

    /// `--timeout` passed for some streams: each fails and is cancelled.
    fn expire(&mut self, now: Instant) {
        let Some(timeout) = self.state.plan.checks.request_timeout else {
            return;
        };
        let expired: Vec<u32> = self
            .client
            .streams()
            .filter(|(_, flight)| flight.start + timeout <= now)
            .map(|(id, _)| id)
            .collect();
        for id in expired {
            if let Some(flight) = self.client.cancel(id) {
                self.state.fail(flight.job, Failure::Timeout);
            }
        }
    }

    /// The connection ended: what was in flight failed with it, and a server that never
    /// answered says why where it can.
    fn end(mut self) {
        let state = self.state;
        if !self.answered {
            if self.no_streams {
                state.shared.abort(
                    "--http2: the server allows no streams (its SETTINGS_MAX_CONCURRENT_STREAMS is 0), so it takes no request".to_owned(),
                    1,
                );
            } else if let Some(why) = refusal(
                self.error.as_ref(),
                self.client.goaway(),
                self.client.heard_from(),
            ) {
                state.h2_refused(&why);
            }
        }
        let left: Vec<InFlight> = self.client.take_streams().collect();
        for flight in left {
            state.fail(flight.job, Failure::Receive);
        }
    }
}

impl Loop {
    fn in_flight(&self, job: Job, start: Instant, connected: Instant, attempts: u8) -> InFlight {
        let mut parser = ResponseParser::new();
        let head_method = self.plan.kinds[job.kind].request.head_method;
        parser.start(head_method, self.shared.awaiting_first_response(job.kind));
        InFlight {
            job,
            start,
            attempts,
            connected,
            written: connected,
            first_byte: connected,
            parser,
        }
    }

    /// A stream's response is complete: counted as the HTTP/1 loop counts one.
    fn complete(&self, mut flight: InFlight, now: Instant) {
        let plan = &self.plan;
        let kind = &plan.kinds[flight.job.kind];
        flight.parser.framed_end(&kind.body_checks);
        self.last_event.set(now);
        let response = *flight.parser.response();
        let document_length =
            self.shared
                .document_length(flight.job.kind, response.body_len, || {
                    flight.parser.take_server()
                });
        if self.schedule.borrow().counts(flight.job.counted, now) {
            let measure_start = self.schedule.borrow().measure_start;
            let start = flight.start;
            let sample = Sample {
                start_s: start.saturating_duration_since(measure_start).as_secs() as u32,
                connect_us: micros(flight.connected - start),
                wait_us: micros(flight.first_byte.saturating_duration_since(flight.written)),
                total_us: micros(now - start),
            };
            let completion = Completion {
                response: &response,
                bytes_in: response.head_len + response.body_len,
                kept_alive: true,
                document_length: (!plan.checks.variable_length).then_some(document_length),
                expect_status: kind.expect_status,
                sample,
                corrected_us: plan
                    .rate
                    .map(|_| (now - flight.job.intended.min(start)).as_micros() as u64),
                at_us: now.saturating_duration_since(measure_start).as_micros() as u64,
                kind: flight.job.kind,
                verdict: &plan.judge(
                    flight.job.kind,
                    &flight.parser,
                    &mut self.scratch.borrow_mut(),
                ),
            };
            let total_us = completion.sample.total_us;
            let mut stats = self.stats.borrow_mut();
            let failed = stats.count_complete(completion);
            if failed {
                self.failed.set(self.failed.get() + 1);
            }
            if let Some(live) = &plan.live {
                live.complete(self.index, flight.job.kind, total_us, failed);
            }
            // The request's size as HTTP/1.1 text, for ab's "Total body sent".
            stats.counters.bytes_sent += kind.request.bytes.len() as u64;
            drop(stats);
            self.completed.set(self.completed.get() + 1);
            self.publish();
        }
    }
}
