//! The load engine: one event loop per thread (mio, edge-triggered epoll), each owning its share
//! of the connections and its own [`ThreadStats`]. Threads share only a few atomics: the
//! requests left to claim (claimed in batches), the stop flag, the first response's length, and
//! padded progress counters. Nothing is sent between threads per request.
//!
//! A request costs one `write` and one `read` in the common case: the request bytes are built
//! once, the connection stays registered for both directions for its whole life, and a read
//! that returns less than the buffer means the socket is drained, so no read is spent to learn
//! `EAGAIN`.

use std::io::{self, Read, Write};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use std::os::fd::{AsFd, AsRawFd};

use mio::net::TcpStream;
use mio::unix::SourceFd;
use mio::{Events, Interest, Poll, Token};
use nix::sys::time::TimeSpec;
use nix::sys::timerfd::{ClockId, Expiration, TimerFd, TimerFlags, TimerSetTimeFlags};
use socket2::{Domain, Protocol, Socket, Type};

use crate::http::{BodyChecks, Feed, ResponseParser};
use crate::request::Request;
use crate::schedule::{Schedule, Timing};
use crate::stats::{LATE_AFTER_US, Sample, ThreadStats};

/// The read buffer of a connection.
const READ_BUFFER: usize = 64 * 1024;
/// Longest time the loop sleeps without looking at the stop flag.
const MAX_POLL_WAIT: Duration = Duration::from_millis(50);
/// ab gives up after this many connect failures (in a row, here).
const MAX_CONNECT_FAILURES: u64 = 10;
/// Linux's EINPROGRESS: a non-blocking connect under way.
const EINPROGRESS: i32 = 115;
/// The token of the `--rate` timer; connections use their index.
const TIMER: Token = Token(usize::MAX);

/// What every thread needs to know, fixed for the run.
#[derive(Debug)]
pub struct Plan {
    pub request: Request,
    pub addr: SocketAddr,
    pub bind: Option<SocketAddr>,
    pub socket_buffer: Option<u32>,
    pub keep_alive: bool,
    /// `-n`: counted requests in all; `None` runs until the time limit.
    pub n_requests: Option<u64>,
    /// `-t` / `--duration`: length of the measured phase.
    pub time_limit: Option<Duration>,
    pub warmup: Duration,
    /// `--rate`, in requests per second over all threads.
    pub rate: Option<f64>,
    pub request_timeout: Option<Duration>,
    /// `-s`: the run ends if nothing happens for this long while requests are out.
    pub stall_timeout: Duration,
    /// `-r`.
    pub continue_on_receive_errors: bool,
    /// `-l`.
    pub variable_length: bool,
    pub expect_status: Option<u16>,
    pub checks: BodyChecks,
    pub verbosity: u32,
    pub n_threads: usize,
    pub concurrency: usize,
    pub sample_cap: usize,
}

/// Why a run ended early, with ab's message and exit code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Abort {
    pub message: String,
    pub exit_code: i32,
}

/// A counter on a cache line of its own, so threads never contend for progress.
#[derive(Debug, Default)]
#[repr(align(128))]
pub struct Padded(pub AtomicU64);

/// The little the threads share.
#[derive(Debug)]
pub struct Shared {
    /// Counted requests not yet claimed by a thread (`-n`).
    pub(crate) remaining: AtomicU64,
    /// Ctrl-C, an abort, or the end of the measured phase.
    pub stop: AtomicBool,
    pub abort: Mutex<Option<Abort>>,
    /// The first response's body length (`u64::MAX` until there is one): ab's Document Length,
    /// against which every later response is a Length failure or not.
    pub document_length: AtomicU64,
    pub server_software: Mutex<Option<Vec<u8>>>,
    connect_failures_in_a_row: AtomicU64,
    /// Per thread: complete requests and failures so far, for the progress lines.
    pub completed: Vec<Padded>,
    pub failed: Vec<Padded>,
    /// When the run began; the measured phase starts after the warm-up.
    pub started: Instant,
}

impl Shared {
    pub fn new(plan: &Plan, started: Instant) -> Shared {
        Shared {
            remaining: AtomicU64::new(plan.n_requests.unwrap_or(u64::MAX)),
            stop: AtomicBool::new(false),
            abort: Mutex::new(None),
            document_length: AtomicU64::new(u64::MAX),
            server_software: Mutex::new(None),
            connect_failures_in_a_row: AtomicU64::new(0),
            completed: (0..plan.n_threads).map(|_| Padded::default()).collect(),
            failed: (0..plan.n_threads).map(|_| Padded::default()).collect(),
            started,
        }
    }

    pub fn abort(&self, message: String, exit_code: i32) {
        let mut abort = self
            .abort
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        abort.get_or_insert(Abort { message, exit_code });
        self.stop.store(true, Ordering::Relaxed);
    }

    pub fn total_completed(&self) -> u64 {
        self.completed
            .iter()
            .map(|c| c.0.load(Ordering::Relaxed))
            .sum()
    }

    pub fn total_failed(&self) -> u64 {
        self.failed
            .iter()
            .map(|c| c.0.load(Ordering::Relaxed))
            .sum()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// No request out; the stream, if any, may be reused.
    Idle,
    Connecting,
    Writing,
    Reading,
}

#[derive(Debug)]
struct Connection {
    stream: Option<TcpStream>,
    phase: Phase,
    parser: ResponseParser,
    /// The stream has carried a response before this request.
    reused: bool,
    /// Whether this request counts (it started after the warm-up).
    counted: bool,
    start: Instant,
    connected: Instant,
    written_at: Instant,
    first_byte: Option<Instant>,
    /// `--rate`: when the request should have left.
    intended: Instant,
    written: usize,
    bytes_in: u64,
    deadline: Option<Instant>,
}

impl Connection {
    fn new(now: Instant) -> Connection {
        Connection {
            stream: None,
            phase: Phase::Idle,
            parser: ResponseParser::new(),
            reused: false,
            counted: false,
            start: now,
            connected: now,
            written_at: now,
            first_byte: None,
            intended: now,
            written: 0,
            bytes_in: 0,
            deadline: None,
        }
    }
}

/// What an event reported for a connection.
#[derive(Debug, Clone, Copy)]
struct Readiness {
    readable: bool,
    read_closed: bool,
    writable: bool,
    error: bool,
}

/// How a request ended other than with a complete response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Failure {
    Connect,
    Receive,
    Write,
    Timeout,
    Exception,
}

/// One thread's event loop.
pub struct Worker {
    index: usize,
    plan: Arc<Plan>,
    shared: Arc<Shared>,
    poll: Poll,
    connections: Vec<Connection>,
    buffer: Vec<u8>,
    stats: ThreadStats,
    /// Which request goes next, and when.
    schedule: Schedule,
    /// Connections with nothing to do, waiting for the schedule (`--rate`).
    idle: Vec<usize>,
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
    pub fn new(
        index: usize,
        n_connections: usize,
        plan: Arc<Plan>,
        shared: Arc<Shared>,
    ) -> io::Result<Worker> {
        let now = shared.started;
        let schedule = Schedule::new(
            Timing {
                n_requests: plan.n_requests,
                time_limit: plan.time_limit,
                warmup: plan.warmup,
                rate: plan.rate,
                n_threads: plan.n_threads,
            },
            index,
            now,
        );
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
            buffer: vec![0; READ_BUFFER],
            stats: ThreadStats::new(sample_cap),
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
    pub fn run(mut self) -> ThreadStats {
        let mut events = Events::with_capacity(1024);
        let now = Instant::now();
        self.last_event = now;
        if self.plan.rate.is_some() {
            self.idle = (0..self.connections.len()).rev().collect();
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
            if self.shared.stop.load(Ordering::Relaxed)
                || (self.schedule.draining() && self.in_flight == 0)
            {
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
                if self.in_flight > 0 && now - self.last_event >= self.plan.stall_timeout {
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
                    if let Some(timer) = &self.timer {
                        // Clears the expiry; EAGAIN when there was none is fine.
                        let _ = timer.wait();
                    }
                    self.timer_set_for = None;
                    continue;
                }
                let index = event.token().0;
                let readiness = Readiness {
                    readable: event.is_readable() || event.is_read_closed(),
                    read_closed: event.is_read_closed(),
                    writable: event.is_writable(),
                    error: event.is_error(),
                };
                self.on_event(index, readiness);
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
            wake = wake.min(self.last_event + self.plan.stall_timeout);
        }
        wake.saturating_duration_since(now)
    }

    fn micros_since_measure(&self, at: Instant) -> u64 {
        at.saturating_duration_since(self.schedule.measure_start)
            .as_micros() as u64
    }

    /// Claims the next request, if any is left; a request in the warm-up claims nothing.
    fn claim(&mut self, now: Instant) -> Option<bool> {
        let stopped = self.shared.stop.load(Ordering::Relaxed);
        self.schedule.claim(now, &self.shared.remaining, stopped)
    }

    /// Starts the next request on connection `index` at once (closed loop). False when there
    /// is no more work.
    fn next_request(&mut self, index: usize, now: Instant) -> bool {
        let Some(counted) = self.claim(now) else {
            self.drop_stream(index);
            return false;
        };
        self.start_request(index, counted, now, now);
        true
    }

    /// `--rate`: sends every request whose time has come on the idle connections.
    fn dispatch_scheduled(&mut self, now: Instant) {
        while self.schedule.send_due(now) {
            let Some(index) = self.idle.pop() else {
                // Every connection is busy: the request waits, and its latency counts from
                // its scheduled time all the same.
                return;
            };
            let Some(counted) = self.claim(now) else {
                self.idle.push(index);
                return;
            };
            let intended = self.schedule.advance();
            if counted && (now - intended).as_micros() as u64 > LATE_AFTER_US {
                self.stats.counters.late += 1;
            }
            self.start_request(index, counted, intended, now);
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
            self.idle.push(index);
            self.dispatch_scheduled(now);
        } else {
            self.next_request(index, now);
        }
    }

    fn start_request(&mut self, index: usize, counted: bool, intended: Instant, now: Instant) {
        self.in_flight += 1;
        let capture_server = self.shared.document_length.load(Ordering::Relaxed) == u64::MAX;
        let plan = &self.plan;
        let connection = &mut self.connections[index];
        connection.counted = counted;
        connection.intended = intended;
        connection.start = now;
        connection.first_byte = None;
        connection.written = 0;
        connection.bytes_in = 0;
        connection.deadline = plan.request_timeout.map(|timeout| now + timeout);
        connection
            .parser
            .start(plan.request.head_method, capture_server);
        if connection.stream.is_some() {
            connection.reused = true;
            connection.connected = now;
            connection.phase = Phase::Writing;
            self.write(index);
        } else {
            connection.reused = false;
            self.connect(index);
        }
    }

    fn connect(&mut self, index: usize) {
        match self.open_stream() {
            Ok((mut stream, connected)) => {
                if let Err(error) = self.poll.registry().register(
                    &mut stream,
                    Token(index),
                    Interest::READABLE | Interest::WRITABLE,
                ) {
                    self.fail(index, Failure::Connect, Some(&error));
                    return;
                }
                let connection = &mut self.connections[index];
                connection.stream = Some(stream);
                if connected {
                    self.on_connected(index);
                } else {
                    connection.phase = Phase::Connecting;
                }
            }
            Err(error) => self.fail(index, Failure::Connect, Some(&error)),
        }
    }

    fn open_stream(&self) -> io::Result<(TcpStream, bool)> {
        let plan = &self.plan;
        let socket = Socket::new(
            Domain::for_address(plan.addr),
            Type::STREAM,
            Some(Protocol::TCP),
        )?;
        socket.set_nonblocking(true)?;
        // Requests are written whole, so Nagle would only add delay.
        socket.set_tcp_nodelay(true)?;
        if let Some(size) = plan.socket_buffer {
            socket.set_send_buffer_size(size as usize)?;
            socket.set_recv_buffer_size(size as usize)?;
        }
        if let Some(bind) = plan.bind {
            socket.bind(&bind.into())?;
        }
        let connected = match socket.connect(&plan.addr.into()) {
            Ok(()) => true,
            Err(error)
                if error.raw_os_error() == Some(EINPROGRESS)
                    || error.kind() == io::ErrorKind::WouldBlock =>
            {
                false
            }
            Err(error) => return Err(error),
        };
        Ok((TcpStream::from_std(socket.into()), connected))
    }

    fn on_connected(&mut self, index: usize) {
        self.shared
            .connect_failures_in_a_row
            .store(0, Ordering::Relaxed);
        let connection = &mut self.connections[index];
        connection.connected = Instant::now();
        connection.phase = Phase::Writing;
        self.write(index);
    }

    fn on_event(&mut self, index: usize, readiness: Readiness) {
        let Readiness {
            readable,
            read_closed,
            writable,
            error,
        } = readiness;
        let Some(connection) = self.connections.get(index) else {
            return;
        };
        match connection.phase {
            Phase::Connecting => {
                if !(writable || error || readable) {
                    return;
                }
                let stream = connection
                    .stream
                    .as_ref()
                    .expect("a connecting connection has a stream");
                match stream.take_error() {
                    Ok(Some(error)) | Err(error) => {
                        self.fail(index, Failure::Connect, Some(&error))
                    }
                    Ok(None) => match stream.peer_addr() {
                        Ok(_) => self.on_connected(index),
                        Err(error) if error.kind() == io::ErrorKind::NotConnected => {}
                        Err(error) => self.fail(index, Failure::Connect, Some(&error)),
                    },
                }
            }
            Phase::Writing => {
                if writable || error {
                    self.write(index);
                }
                // A server may answer before it has read the whole request.
                if readable && self.connections[index].phase != Phase::Idle {
                    self.read(index, read_closed);
                }
            }
            Phase::Reading => {
                if readable || error {
                    self.read(index, read_closed || error);
                }
            }
            Phase::Idle => {
                if readable || error {
                    // The server closed a kept-alive connection between requests: drop it,
                    // the next request reconnects.
                    self.drop_stream(index);
                }
            }
        }
    }

    fn write(&mut self, index: usize) {
        let plan = &self.plan;
        let bytes = &plan.request.bytes;
        loop {
            let connection = &mut self.connections[index];
            let Some(stream) = connection.stream.as_mut() else {
                return;
            };
            match stream.write(&bytes[connection.written..]) {
                Ok(n) => {
                    connection.written += n;
                    if connection.written == bytes.len() {
                        connection.written_at = Instant::now();
                        connection.phase = Phase::Reading;
                        if connection.counted {
                            self.stats.counters.bytes_sent += bytes.len() as u64;
                        }
                        return;
                    }
                }
                Err(error) if error.kind() == io::ErrorKind::WouldBlock => return,
                Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                Err(error) => {
                    if connection.reused && connection.written == 0 {
                        // The server closed the kept-alive connection as we reused it: retry
                        // on a new one, as ab does.
                        self.retry_on_new_connection(index);
                    } else {
                        self.fail(index, Failure::Write, Some(&error));
                    }
                    return;
                }
            }
        }
    }

    fn retry_on_new_connection(&mut self, index: usize) {
        self.drop_stream(index);
        let connection = &mut self.connections[index];
        connection.start = Instant::now();
        connection.written = 0;
        connection.bytes_in = 0;
        connection.first_byte = None;
        connection.reused = false;
        self.connect(index);
    }

    /// Reads what has arrived. `closed`: the event said the peer closed, which edge-triggered
    /// readiness reports once, so the reads go on to the end of the stream.
    fn read(&mut self, index: usize, closed: bool) {
        loop {
            let connection = &mut self.connections[index];
            let Some(stream) = connection.stream.as_mut() else {
                return;
            };
            match stream.read(&mut self.buffer) {
                Ok(0) => {
                    self.on_close(index);
                    return;
                }
                Ok(n) => {
                    let now = Instant::now();
                    if connection.first_byte.is_none() {
                        connection.first_byte = Some(now);
                        if self.plan.verbosity >= 2 {
                            println!(
                                "LOG: header received:\n{}\n",
                                String::from_utf8_lossy(&self.buffer[..n])
                            );
                        }
                    }
                    connection.bytes_in += n as u64;
                    match connection.parser.feed(&self.buffer[..n], &self.plan.checks) {
                        Ok(Feed::NeedMore) => {
                            if n < self.buffer.len() && !closed {
                                // Drained: with edge-triggered readiness, more data brings a
                                // new event, so no read is spent to learn EAGAIN.
                                return;
                            }
                        }
                        Ok(Feed::Complete { consumed }) => {
                            if consumed < n {
                                // Bytes after the response that no request asked for.
                                self.fail(index, Failure::Exception, None);
                            } else {
                                self.complete(index, now);
                            }
                            return;
                        }
                        Err(_) => {
                            self.fail(index, Failure::Exception, None);
                            return;
                        }
                    }
                }
                Err(error) if error.kind() == io::ErrorKind::WouldBlock => return,
                Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                Err(error) => {
                    let connection = &self.connections[index];
                    if connection.reused && !connection.parser.started() {
                        self.retry_on_new_connection(index);
                    } else if self.plan.continue_on_receive_errors {
                        self.fail(index, Failure::Receive, Some(&error));
                    } else {
                        // ab's default: a receive error ends the run (-r keeps going).
                        self.shared.abort(
                            format!("apr_socket_recv: {}", os_message(&error)),
                            error.raw_os_error().unwrap_or(1),
                        );
                        self.fail(index, Failure::Receive, Some(&error));
                    }
                    return;
                }
            }
        }
    }

    /// The server closed the connection while a request was out.
    fn on_close(&mut self, index: usize) {
        let now = Instant::now();
        let connection = &mut self.connections[index];
        if let Some(_response) = connection.parser.finish_at_close(&self.plan.checks) {
            // A body delimited by the close.
            self.complete(index, now);
            return;
        }
        if connection.reused && !connection.parser.started() {
            // A kept-alive connection the server had closed: ab retries silently.
            self.retry_on_new_connection(index);
            return;
        }
        // The response stopped short.
        self.fail(index, Failure::Receive, None);
    }

    fn complete(&mut self, index: usize, now: Instant) {
        self.in_flight -= 1;
        let plan = &self.plan;
        let (variable_length, expect_status) = (plan.variable_length, plan.expect_status);
        let connection = &mut self.connections[index];
        let response = *connection.parser.response();
        let keep = plan.keep_alive && response.keep_alive;
        let counted = connection.counted;
        // ab's Document Length: the first response's body length.
        let document_length = match self.shared.document_length.compare_exchange(
            u64::MAX,
            response.body_len,
            Ordering::Relaxed,
            Ordering::Relaxed,
        ) {
            Ok(_) => {
                let server = connection.parser.take_server();
                *self
                    .shared
                    .server_software
                    .lock()
                    .unwrap_or_else(|poisoned| poisoned.into_inner()) = server;
                response.body_len
            }
            Err(first) => first,
        };
        if plan.verbosity >= 3 {
            println!("LOG: Response code = {}", response.status);
        }
        if plan.verbosity >= 2 && !(200..300).contains(&response.status) {
            println!("WARNING: Response code not 2xx ({})", response.status);
        }
        let sample = Sample {
            start_s: connection
                .start
                .saturating_duration_since(self.schedule.measure_start)
                .as_secs() as u32,
            connect_us: micros(connection.connected - connection.start),
            wait_us: connection.first_byte.map_or(0, |first| {
                micros(first.saturating_duration_since(connection.written_at))
            }),
            total_us: micros(now - connection.start),
        };
        let corrected_us = plan
            .rate
            .map(|_| (now - connection.intended.min(connection.start)).as_micros() as u64);
        let bytes_in = connection.bytes_in;
        if keep {
            connection.phase = Phase::Idle;
        } else {
            self.drop_stream(index);
        }
        if counted {
            let since = self.micros_since_measure(now);
            let stats = &mut self.stats;
            let counters = &mut stats.counters;
            counters.complete += 1;
            counters.bytes_received += bytes_in;
            counters.body_bytes_received += response.body_len;
            if keep {
                counters.keep_alive_requests += 1;
            }
            let mut failed = false;
            if !variable_length && response.body_len != document_length {
                counters.length_errors += 1;
                failed = true;
            }
            if !(200..300).contains(&response.status) {
                counters.non_2xx += 1;
            }
            if expect_status.is_some_and(|status| status != response.status) {
                counters.status_mismatches += 1;
                failed = true;
            }
            if !response.expected_found || response.rejected_found {
                counters.body_mismatches += 1;
                failed = true;
            }
            if failed {
                counters.failed += 1;
                self.failed_local += 1;
            }
            stats.status(response.status);
            stats.record(sample, corrected_us);
            stats.second((since / 1_000_000) as usize, failed);
            stats.last_activity_us = stats.last_activity_us.max(since);
            self.completed_local += 1;
            self.publish_progress();
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
        self.drop_stream(index);
        let now = Instant::now();
        if failure == Failure::Connect {
            let in_a_row = self
                .shared
                .connect_failures_in_a_row
                .fetch_add(1, Ordering::Relaxed)
                + 1;
            if in_a_row > MAX_CONNECT_FAILURES {
                let (message, code) = match error {
                    Some(error) => (os_message(error), error.raw_os_error().unwrap_or(1)),
                    None => ("connection failed".to_owned(), 1),
                };
                self.shared.abort(
                    format!(
                        "\nTest aborted after {MAX_CONNECT_FAILURES} failures\n\napr_socket_connect(): {message}"
                    ),
                    code,
                );
            }
        }
        if self.connections[index].counted {
            let counters = &mut self.stats.counters;
            counters.failed += 1;
            match failure {
                Failure::Connect => counters.connect_errors += 1,
                Failure::Receive => counters.receive_errors += 1,
                Failure::Write => counters.write_errors += 1,
                Failure::Timeout => counters.timeouts += 1,
                Failure::Exception => counters.exceptions += 1,
            }
            let since = self.micros_since_measure(now);
            self.stats.second((since / 1_000_000) as usize, true);
            self.stats.last_activity_us = self.stats.last_activity_us.max(since);
            self.failed_local += 1;
            self.publish_progress();
        }
        if self.shared.stop.load(Ordering::Relaxed) {
            self.schedule.drain();
            return;
        }
        self.after_request(index, now);
    }

    fn drop_stream(&mut self, index: usize) {
        let connection = &mut self.connections[index];
        if let Some(mut stream) = connection.stream.take() {
            let _ = self.poll.registry().deregister(&mut stream);
        }
        connection.phase = Phase::Idle;
        connection.deadline = None;
    }

    /// `--timeout`: fails the requests that have run too long, and plans the next look.
    fn scan_timeouts_from(&mut self, now: Instant) {
        let Some(timeout) = self.plan.request_timeout else {
            return;
        };
        for index in 0..self.connections.len() {
            let connection = &self.connections[index];
            if connection.phase != Phase::Idle
                && connection.deadline.is_some_and(|deadline| now >= deadline)
            {
                self.fail(index, Failure::Timeout, None);
            }
        }
        // A tenth of the timeout (at least 1 ms): late by at most that much.
        let tick = (timeout / 10).max(Duration::from_millis(1));
        self.next_timeout_scan = Some(now + tick);
    }
}

fn micros(duration: Duration) -> u32 {
    duration.as_micros().min(u128::from(u32::MAX)) as u32
}

/// ab's form of an OS error: `Connection refused (111)`.
fn os_message(error: &io::Error) -> String {
    let text = error.to_string();
    // std writes "Connection refused (os error 111)".
    match (text.find(" (os error "), error.raw_os_error()) {
        (Some(at), Some(code)) => format!("{} ({code})", &text[..at]),
        _ => text,
    }
}
