//! The load engine: one event loop per thread (mio, edge-triggered epoll), each owning its share
//! of the connections and its own [`ThreadStats`]. Threads share only a few atomics
//! ([`Shared`]): the requests left to claim (claimed in batches), the stop flag, the first
//! response's length, and padded progress counters. Nothing is sent between threads per
//! request.
//!
//! The loop ([`Worker`]) is split along its ideas: the [`schedule`](crate::schedule) says
//! which request goes next and when; a `connection` turns readiness into an outcome
//! (pending, connected, complete, failed with a cause, retry); the loop acts on outcomes, and
//! ab's accounting of them lives in [`ThreadStats`].
//!
//! `--http2` runs on the `multiplex` module instead (a task a connection on a tokio runtime a
//! thread, the protocol in [`crate::http2`]): the same plan, schedule, statistics and shared
//! state.
//!
//! A request costs one `write` and one `read` in the common case: the request bytes are built
//! once, the connection stays registered for both directions for its whole life, and a read
//! that returns less than the buffer means the socket is drained, so no read is spent to learn
//! `EAGAIN`.

mod connection;
mod flows;
mod multiplex;
mod opening;
mod shared;
mod transport;

use std::io;
use std::os::fd::{AsFd, AsRawFd};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use mio::unix::SourceFd;
use mio::{Events, Interest, Poll, Token};
use nix::sys::time::TimeSpec;
use nix::sys::timerfd::{ClockId, Expiration, TimerFd, TimerFlags, TimerSetTimeFlags};

use self::connection::{Connection, Outcome, Readiness};
pub use self::shared::{Abort, Kind, Log, Plan, Shared};
pub(crate) use self::shared::{Http2Plan, TlsPlan};
use self::shared::{os_message, thread_cpu};
use crate::flow::Progress;
use crate::schedule::{Claim, Schedule};
use crate::stats::{Completion, Failure, FlowCounts, LATE_AFTER_US, StepFailure, ThreadStats};

const READ_BUFFER: usize = 64 * 1024;
/// Longest time the loop sleeps without looking at the stop flag.
const MAX_POLL_WAIT: Duration = Duration::from_millis(50);
/// The token of the `--rate` timer; connections use their index.
const TIMER: Token = Token(usize::MAX);

/// Runs thread `index`'s share of the run, `n_connections` of its connections: HTTP/1 on this
/// module's mio loop, `--http2` on [`multiplex`]'s.
pub(crate) fn run_thread(
    index: usize,
    n_connections: usize,
    plan: Arc<Plan>,
    shared: Arc<Shared>,
) -> io::Result<ThreadStats> {
    if plan.http2.is_some() {
        return Ok(multiplex::run(index, n_connections, plan, shared));
    }
    Ok(Worker::new(index, n_connections, plan, shared)?.run())
}

/// One thread's event loop.
pub(crate) struct Worker {
    index: usize,
    plan: Arc<Plan>,
    shared: Arc<Shared>,
    poll: Poll,
    connections: Vec<Connection>,
    /// A `[flow]`: where each connection is in it, by the connection's index.
    flows: Vec<Progress>,
    buffer: Vec<u8>,
    stats: ThreadStats,
    /// Which request goes next, and when.
    schedule: Schedule,
    /// Connections with nothing to do, waiting for the schedule (`--rate`).
    /// With the instant each became free: a send due before then waited for the server, not
    /// for this loop.
    idle: Vec<(usize, Instant)>,
    /// `--rate`: wakes the loop at the next send time to the microsecond (epoll's own timeout
    /// counts whole milliseconds, which would add up to a millisecond to every corrected
    /// latency), and the send time it is set for.
    timer: Option<TimerFd>,
    timer_set_for: Option<Instant>,
    in_flight: usize,
    last_event: Instant,
    next_timeout_scan: Option<Instant>,
    completed_local: u64,
    failed_local: u64,
}

impl Worker {
    /// A worker for thread `index`, with `n_connections` of the run's connections.
    pub(crate) fn new(
        index: usize,
        n_connections: usize,
        plan: Arc<Plan>,
        shared: Arc<Shared>,
    ) -> io::Result<Worker> {
        let now = shared.started;
        let schedule = plan.schedule(index, now);
        let sample_cap = plan.sample_cap / plan.n_threads;
        let poll = Poll::new()?;
        let timer = match plan.rate {
            Some(_) => {
                let timer = TimerFd::new(
                    ClockId::CLOCK_MONOTONIC,
                    TimerFlags::TFD_NONBLOCK | TimerFlags::TFD_CLOEXEC,
                )
                .map_err(io::Error::from)?;
                let fd = timer.as_fd().as_raw_fd();
                poll.registry()
                    .register(&mut SourceFd(&fd), TIMER, Interest::READABLE)?;
                Some(timer)
            }
            None => None,
        };
        Ok(Worker {
            index,
            poll,
            timer,
            timer_set_for: None,
            connections: (0..n_connections).map(|_| Connection::new(now)).collect(),
            flows: match &plan.flow {
                Some(flow) => (0..n_connections)
                    .map(|_| Progress::new(flow, now))
                    .collect(),
                None => Vec::new(),
            },
            buffer: vec![0; READ_BUFFER],
            stats: ThreadStats {
                flows: plan
                    .flow
                    .as_ref()
                    .map(|flow| FlowCounts::new(flow.steps.len())),
                ..ThreadStats::new(sample_cap).with_kinds(plan.mixed_kinds())
            },
            schedule,
            idle: Vec::new(),
            in_flight: 0,
            last_event: now,
            next_timeout_scan: None,
            completed_local: 0,
            failed_local: 0,
            plan,
            shared,
        })
    }

    /// Runs until the work is done, the time is up, or the run is stopped.
    pub(crate) fn run(mut self) -> ThreadStats {
        let mut events = Events::with_capacity(1024);
        if let Some(start) = self.plan.start_at {
            self.connect_ahead(start, &mut events);
        }
        let now = Instant::now();
        let cpu_at_start = thread_cpu();
        self.last_event = now;
        if self.plan.rate.is_some() {
            self.idle = (0..self.connections.len())
                .rev()
                .map(|index| (index, now))
                .collect();
            self.dispatch_scheduled(now);
            self.set_timer(now);
        } else {
            // Every connection opens at once (ab opens one and waits for its answer).
            for index in 0..self.connections.len() {
                if !self.next_request(index, now) {
                    break;
                }
            }
        }
        self.scan_timeouts_from(now);
        loop {
            if self.shared.stopped() || (self.schedule.draining() && self.in_flight == 0) {
                break;
            }
            let now = Instant::now();
            let timeout = self.poll_timeout(now);
            if let Err(error) = self.poll.poll(&mut events, Some(timeout)) {
                if error.kind() == io::ErrorKind::Interrupted {
                    continue;
                }
                self.shared.abort(
                    format!("apr_pollset_poll: {error}"),
                    error.raw_os_error().unwrap_or(1),
                );
                break;
            }
            let now = Instant::now();
            if events.is_empty() {
                if self.in_flight > 0 && now - self.last_event >= self.plan.checks.stall_timeout {
                    // ab's -s: nothing happened for that long. 70007 is APR_TIMEUP.
                    self.shared.abort(
                        "apr_pollset_poll: The timeout specified has expired (70007)".to_owned(),
                        70007 & 0xff,
                    );
                    break;
                }
            } else {
                self.last_event = now;
            }
            for event in events.iter() {
                if event.token() == TIMER {
                    // The expiry count is not read: mio registers the timer edge-triggered,
                    // so each expiry wakes epoll anew, and `timerfd_settime` resets the count.
                    self.timer_set_for = None;
                    continue;
                }
                let index = event.token().0;
                if let Some(connection) = self.connections.get_mut(index) {
                    let outcome =
                        connection.on_ready(readiness(event), &self.plan, &mut self.buffer);
                    self.act(index, outcome);
                }
            }
            let now = Instant::now();
            if let Some(end) = self.schedule.measure_end
                && now >= end
            {
                // In-flight requests at the end are not counted, as in ab and wrk.
                self.stats.last_activity_us = self
                    .stats
                    .last_activity_us
                    .max(self.micros_since_measure(end));
                break;
            }
            if self.plan.rate.is_some() {
                self.dispatch_scheduled(now);
                self.set_timer(now);
            }
            if let Some(scan) = self.next_timeout_scan
                && now >= scan
            {
                self.scan_timeouts_from(now);
            }
        }
        self.publish_progress();
        if let Some(flows) = &mut self.stats.flows {
            let under_way = self.flows.iter().filter(|p| p.under_way() && p.counted());
            flows.unfinished = under_way.count() as u64;
        }
        self.stats.counters.bytes_sent = self.connections.iter().map(|c| c.bytes_sent).sum();
        let wall = now.elapsed().as_secs_f64();
        if wall > 0.0 {
            self.stats.busy = ((thread_cpu() - cpu_at_start).as_secs_f64() / wall).min(1.0);
        }
        self.stats
    }

    fn poll_timeout(&self, now: Instant) -> Duration {
        let mut wake = now + MAX_POLL_WAIT;
        if let Some(scan) = self.next_timeout_scan {
            wake = wake.min(scan);
        }
        if let Some(end) = self.schedule.measure_end {
            wake = wake.min(end);
        }
        // The timer wakes the loop when it is set for the next send; else epoll's timeout does.
        if let Some(next_send) = self.schedule.next_send()
            && self.timer_set_for != Some(next_send)
            && !self.idle.is_empty()
        {
            wake = wake.min(next_send);
        }
        if self.in_flight > 0 {
            wake = wake.min(self.last_event + self.plan.checks.stall_timeout);
        }
        wake.saturating_duration_since(now)
    }

    fn micros_since_measure(&self, at: Instant) -> u64 {
        at.saturating_duration_since(self.schedule.measure_start)
            .as_micros() as u64
    }

    /// Claims the next request, if any is left; a request in the warm-up claims nothing.
    fn claim(&mut self, now: Instant) -> Option<Claim> {
        let stopped = self.shared.stopped();
        self.schedule.claim(now, &self.shared.remaining, stopped)
    }

    /// Starts the next request on connection `index` at once (closed loop). False when there
    /// is no more work.
    fn next_request(&mut self, index: usize, now: Instant) -> bool {
        let Some(claim) = self.claim(now) else {
            self.close(index);
            return false;
        };
        self.start_request(index, claim, now, now);
        true
    }

    /// `--rate`: sends every request whose time has come on the idle connections.
    fn dispatch_scheduled(&mut self, now: Instant) {
        while self.schedule.send_due(now) {
            let Some((index, free_since)) = self.idle.pop() else {
                // Every connection is busy: the request waits, and its latency counts from
                // its scheduled time all the same.
                return;
            };
            let Some(claim) = self.claim(now) else {
                self.idle.push((index, free_since));
                return;
            };
            let intended = self.schedule.advance();
            if claim.counted && (now - intended).as_micros() as u64 > LATE_AFTER_US {
                self.stats.counters.late += 1;
                // Late with a connection free since its time: this loop was behind.
                if (now - intended.max(free_since)).as_micros() as u64 > LATE_AFTER_US {
                    self.stats.counters.late_client += 1;
                }
            }
            self.start_request(index, claim, intended, now);
        }
    }

    /// `--rate`: sets the timer for the next send when a connection is free to make it.
    fn set_timer(&mut self, now: Instant) {
        let Some(timer) = &self.timer else {
            return;
        };
        let Some(next_send) = self.schedule.next_send() else {
            return;
        };
        if self.idle.is_empty() || self.timer_set_for == Some(next_send) {
            return;
        }
        // A zero time would disarm the timer: at least a nanosecond.
        let wait = next_send
            .saturating_duration_since(now)
            .max(Duration::from_nanos(1));
        let result = timer.set(
            Expiration::OneShot(TimeSpec::from_duration(wait)),
            TimerSetTimeFlags::empty(),
        );
        // Should the timer fail, epoll's millisecond timeout still paces the run.
        self.timer_set_for = result.is_ok().then_some(next_send);
    }

    /// A connection finished its request: the next one goes now (closed loop) or waits for
    /// its time (`--rate`).
    fn after_request(&mut self, index: usize, now: Instant) {
        if self.schedule.paced() {
            self.idle.push((index, now));
            self.dispatch_scheduled(now);
        } else {
            self.next_request(index, now);
        }
    }

    fn start_request(&mut self, index: usize, claim: Claim, intended: Instant, now: Instant) {
        self.in_flight += 1;
        if let Some(live) = &self.plan.live {
            live.sent(self.index);
        }
        let (kind, variables) = match (&self.plan.flow, self.flows.get_mut(index)) {
            (Some(flow), Some(progress)) => (
                progress.next_kind(flow, claim.counted, now),
                progress.variables.as_slice(),
            ),
            _ => (self.plan.kind_of(claim.ordinal), &[][..]),
        };
        let capture_server = self.shared.awaiting_first_response(kind);
        let fill = self.plan.fill(claim, self.index, index);
        let request = (claim.counted, kind, fill, variables);
        let connection = &mut self.connections[index];
        let outcome = if connection.start(&self.plan, request, intended, now, capture_server) {
            connection.send(&self.plan)
        } else {
            connection.connect(&self.plan, self.poll.registry(), Token(index))
        };
        self.act(index, outcome);
    }

    /// Acts on what connection `index`'s IO came to.
    fn act(&mut self, index: usize, outcome: Outcome) {
        match outcome {
            Outcome::Pending => {}
            Outcome::Connected => {
                self.shared.connected();
                self.handshake_done(index);
                let outcome = self.connections[index].send(&self.plan);
                self.act(index, outcome);
            }
            Outcome::HandshakeFailed(error) => {
                self.handshake_failed(index, &error);
                self.fail(index, Failure::Connect, None);
            }
            Outcome::Complete(at) => self.complete(index, at),
            Outcome::Failed(failure, error) => {
                if failure == Failure::Receive
                    && !self.plan.checks.continue_on_receive_errors
                    && let Some(error) = &error
                {
                    // ab's default: a receive error ends the run (-r keeps going).
                    self.shared.abort(
                        format!("apr_socket_recv: {}", os_message(error)),
                        error.raw_os_error().unwrap_or(1),
                    );
                }
                self.fail(index, failure, error.as_ref());
            }
            Outcome::Retry => {
                let connection = &mut self.connections[index];
                connection.restart(self.poll.registry());
                let outcome = connection.connect(&self.plan, self.poll.registry(), Token(index));
                self.act(index, outcome);
            }
            Outcome::Closed => self.close(index),
        }
    }

    fn complete(&mut self, index: usize, now: Instant) {
        self.in_flight -= 1;
        let plan = &self.plan;
        let connection = &mut self.connections[index];
        let response = *connection.parser.response();
        let kind = connection.kind;
        let document_length = self
            .shared
            .document_length(kind, response.body_len, || connection.parser.take_server());
        if plan.verbosity >= 3 {
            plan.log
                .line(format_args!("LOG: Response code = {}", response.status));
        }
        if plan.verbosity >= 2 && !(200..300).contains(&response.status) {
            plan.log.line(format_args!(
                "WARNING: Response code not 2xx ({})",
                response.status
            ));
        }
        let kept_alive = plan.keep_alive && response.keep_alive;
        let counts = self.schedule.counts(connection.counted, now);
        // A flow's step is judged even in the warm-up: its pass goes on only when it is right.
        if counts || plan.flow.is_some() {
            let measure_start = self.schedule.measure_start;
            let completion = Completion {
                response: &response,
                bytes_in: connection.bytes_in,
                kept_alive,
                document_length: (!plan.checks.variable_length).then_some(document_length),
                expect_status: plan.kinds[kind].expect_status,
                sample: connection.sample(now, measure_start),
                corrected_us: plan.rate.map(|_| connection.corrected_us(now)),
                at_us: now.saturating_duration_since(measure_start).as_micros() as u64,
                kind,
                verdict: &plan.judge(kind, &connection.parser, &mut connection.judging),
            };
            let failed = if counts {
                let total_us = completion.sample.total_us;
                let failed = self.stats.count_complete(completion);
                self.failed_local += u64::from(failed);
                if let Some(live) = &plan.live {
                    live.complete(self.index, kind, total_us, failed);
                }
                self.completed_local += 1;
                self.publish_progress();
                failed
            } else {
                completion.failed()
            };
            if plan.flow.is_some() {
                self.step_answered(index, failed, now);
            }
        }
        if kept_alive {
            self.connections[index].keep();
        } else {
            self.close(index);
        }
        self.after_request(index, now);
    }

    fn publish_progress(&self) {
        self.shared.completed[self.index]
            .0
            .store(self.completed_local, Ordering::Relaxed);
        self.shared.failed[self.index]
            .0
            .store(self.failed_local, Ordering::Relaxed);
    }

    /// A request that ended without a response: count it, drop the connection, go on.
    fn fail(&mut self, index: usize, failure: Failure, error: Option<&io::Error>) {
        self.in_flight -= 1;
        self.close(index);
        let now = Instant::now();
        self.step_failed(index, StepFailure::NoAnswer, now);
        if failure == Failure::Connect {
            self.shared.connect_failed(error);
        }
        if self.schedule.counts(self.connections[index].counted, now) {
            let at_us = self.micros_since_measure(now);
            let kind = self.connections[index].kind;
            self.stats.count_failure(failure, at_us, kind);
            if let Some(live) = &self.plan.live {
                live.failed(self.index, kind);
            }
            self.failed_local += 1;
            self.publish_progress();
        }
        if self.shared.stopped() {
            self.schedule.drain();
            return;
        }
        self.after_request(index, now);
    }

    fn close(&mut self, index: usize) {
        self.connections[index].close(self.poll.registry());
    }

    /// `--timeout`: fails the requests that have run too long, and plans the next look.
    fn scan_timeouts_from(&mut self, now: Instant) {
        let Some(timeout) = self.plan.checks.request_timeout else {
            return;
        };
        for index in 0..self.connections.len() {
            if self.connections[index].expired(now) {
                self.fail(index, Failure::Timeout, None);
            }
        }
        // A tenth of the timeout (at least 1 ms): late by at most that much.
        let tick = (timeout / 10).max(Duration::from_millis(1));
        self.next_timeout_scan = Some(now + tick);
    }
}

/// What an event says of a connection's socket.
fn readiness(event: &mio::event::Event) -> Readiness {
    Readiness {
        readable: event.is_readable() || event.is_read_closed(),
        read_closed: event.is_read_closed(),
        writable: event.is_writable(),
        error: event.is_error(),
    }
}
