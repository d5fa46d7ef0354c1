//! One connection of an event loop: its socket (plain or TLS, through a [`Transport`]), the
//! request out on it, and the IO that turns readiness into an [`Outcome`] for the loop to act
//! on. A connection counts nothing and knows nothing of the other connections, the schedule or
//! the statistics; what a complete or failed request means for those is the loop's business.

use std::io;
use std::time::Instant;

use mio::net::TcpStream;
use mio::{Interest, Registry, Token};
use socket2::{Domain, Protocol, Socket, Type};

use super::Plan;
use super::transport::{HandshakeError, Received, Transport};
use crate::http::{Feed, ResponseParser};
use crate::stats::{Failure, Sample};
use crate::template::Fill;

/// Linux's EINPROGRESS: a non-blocking connect under way.
const EINPROGRESS: i32 = 115;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// No request out; the stream, if any, may be reused.
    Idle,
    Connecting,
    /// TLS: the handshake is under way.
    Handshaking,
    Writing,
    Reading,
}

/// What an event reported for a connection.
#[derive(Debug, Clone, Copy)]
pub(super) struct Readiness {
    pub(super) readable: bool,
    pub(super) read_closed: bool,
    pub(super) writable: bool,
    pub(super) error: bool,
}

/// What a connection's IO came to.
#[derive(Debug)]
pub(super) enum Outcome {
    /// Nothing to act on: the request is still out, or the event was not for this phase.
    Pending,
    /// The connect (and any TLS handshake) finished: the request goes out next
    /// ([`Connection::send`]).
    Connected,
    /// The TLS handshake failed for a reason no retry mends (no common protocol or cipher, a
    /// refused certificate, a server that does not speak TLS).
    HandshakeFailed(rustls::Error),
    /// The whole response arrived, at this instant.
    Complete(Instant),
    /// The request ended without a response.
    Failed(Failure, Option<io::Error>),
    /// The server had closed the kept-alive connection this request went out on, before
    /// answering any of it: ab sends it again on a new connection, and so does the loop.
    Retry,
    /// The server closed an idle kept-alive connection: drop it, the next request reconnects.
    Closed,
}

#[derive(Debug)]
pub(super) struct Connection {
    stream: Option<Transport>,
    phase: Phase,
    pub(super) parser: ResponseParser,
    /// The checks' buffers, for judging its answers.
    pub(super) judging: crate::check::Scratch,
    /// The stream has carried a response before this request.
    reused: bool,
    /// Whether this request counts (it started after the warm-up), and its kind.
    pub(super) counted: bool,
    pub(super) kind: usize,
    start: Instant,
    connected: Instant,
    written_at: Instant,
    first_byte: Option<Instant>,
    /// `--rate`: when the request should have left.
    intended: Instant,
    written: usize,
    /// Bytes read for this request, head included.
    pub(super) bytes_in: u64,
    /// Request bytes written whole by counted requests on this connection, all run long
    /// (ab's Total body sent); the loop adds them up at the end.
    pub(super) bytes_sent: u64,
    deadline: Option<Instant>,
    /// `--template`: whether this request is `rendered` (its kind has templates), and the
    /// body's rendering on the way; both buffers kept from request to request, so rendering
    /// allocates nothing once they have grown.
    templated: bool,
    rendered: Vec<u8>,
    scratch: Vec<u8>,
}

impl Connection {
    pub(super) fn new(now: Instant) -> Connection {
        Connection {
            stream: None,
            phase: Phase::Idle,
            parser: ResponseParser::new(),
            judging: crate::check::Scratch::default(),
            reused: false,
            counted: false,
            kind: 0,
            start: now,
            connected: now,
            written_at: now,
            first_byte: None,
            intended: now,
            written: 0,
            bytes_in: 0,
            bytes_sent: 0,
            deadline: None,
            templated: false,
            rendered: Vec::new(),
            scratch: Vec::new(),
        }
    }

    /// Readies a new request (whether it counts, its kind, and what fills its templates:
    /// its number and row, and a flow's saved values) that started at `now` (and, under
    /// `--rate`, was due at `intended`). Returns whether it can go out on the open stream; if
    /// not, [`connect`] comes next.
    ///
    /// [`connect`]: Connection::connect
    pub(super) fn start(
        &mut self,
        plan: &Plan,
        (counted, kind, fill, variables): (bool, usize, Option<Fill>, &[Vec<u8>]),
        intended: Instant,
        now: Instant,
        capture_server: bool,
    ) -> bool {
        self.counted = counted;
        self.kind = kind;
        self.templated = match (&plan.kinds[kind].template, &plan.filler, fill) {
            (Some(template), Some(filler), Some(fill)) => {
                template.render(
                    fill,
                    &filler.values(variables),
                    &mut self.scratch,
                    &mut self.rendered,
                );
                true
            }
            _ => false,
        };
        self.intended = intended;
        self.start = now;
        self.first_byte = None;
        self.written = 0;
        self.bytes_in = 0;
        self.deadline = plan.checks.request_timeout.map(|timeout| now + timeout);
        self.parser
            .start(plan.kinds[kind].request.head_method, capture_server);
        self.reused = self.stream.is_some();
        if self.reused {
            self.connected = now;
            self.phase = Phase::Writing;
        }
        self.reused
    }

    /// The same request again on a new connection, from now ([`Outcome::Retry`]).
    pub(super) fn restart(&mut self, registry: &Registry) {
        self.close(registry);
        self.start = Instant::now();
        self.written = 0;
        self.bytes_in = 0;
        self.first_byte = None;
        self.reused = false;
    }

    /// Opens a non-blocking connection to the plan's address, registered under `token`.
    pub(super) fn connect(&mut self, plan: &Plan, registry: &Registry, token: Token) -> Outcome {
        let (mut tcp, connected) = match open_stream(plan) {
            Ok(opened) => opened,
            Err(error) => return Outcome::Failed(Failure::Connect, Some(error)),
        };
        if let Err(error) =
            registry.register(&mut tcp, token, Interest::READABLE | Interest::WRITABLE)
        {
            return Outcome::Failed(Failure::Connect, Some(error));
        }
        let transport = match &plan.tls {
            Some(tls) => match Transport::tls(tcp, &tls.config, &tls.server_name) {
                Ok(transport) => transport,
                Err(error) => return Outcome::HandshakeFailed(error),
            },
            None => Transport::Plain(tcp),
        };
        self.stream = Some(transport);
        self.phase = Phase::Connecting;
        if connected {
            self.handshake()
        } else {
            Outcome::Pending
        }
    }

    /// After the TCP connect: the TLS handshake, if any, as far as the socket allows.
    fn handshake(&mut self) -> Outcome {
        let Some(stream) = self.stream.as_mut() else {
            return Outcome::Pending;
        };
        self.phase = Phase::Handshaking;
        match stream.handshake() {
            Ok(true) => Outcome::Connected,
            Ok(false) => Outcome::Pending,
            Err(HandshakeError::Io(error)) => Outcome::Failed(Failure::Connect, Some(error)),
            Err(HandshakeError::Tls(error)) => Outcome::HandshakeFailed(error),
        }
    }

    /// What the stream's TLS handshake agreed, and whether it resumed a session.
    pub(super) fn negotiated(&self) -> Option<(tls::client::Negotiated, bool)> {
        self.stream.as_ref()?.negotiated()
    }

    /// Whether the stream is TLS.
    pub(super) fn is_tls(&self) -> bool {
        self.stream.as_ref().is_some_and(Transport::is_tls)
    }

    /// Deregisters and closes the stream, if any; the connection is idle.
    pub(super) fn close(&mut self, registry: &Registry) {
        if let Some(mut stream) = self.stream.take() {
            stream.shutdown();
            let _ = registry.deregister(stream.tcp());
        }
        self.phase = Phase::Idle;
        self.deadline = None;
    }

    /// A connect (or its TLS handshake) is under way.
    pub(super) fn connecting(&self) -> bool {
        matches!(self.phase, Phase::Connecting | Phase::Handshaking)
    }

    /// The response was complete (or the connect done, ahead of the first request) and the
    /// stream may carry the next request.
    pub(super) fn keep(&mut self) {
        self.phase = Phase::Idle;
    }

    /// `--timeout`: a request is out and its time is up.
    pub(super) fn expired(&self, now: Instant) -> bool {
        self.phase != Phase::Idle && self.deadline.is_some_and(|deadline| now >= deadline)
    }

    /// ab's figures for the request that completed at `now`; `start_s` counts from
    /// `measure_start`.
    pub(super) fn sample(&self, now: Instant, measure_start: Instant) -> Sample {
        Sample {
            start_s: self
                .start
                .saturating_duration_since(measure_start)
                .as_secs() as u32,
            connect_us: micros(self.connected - self.start),
            wait_us: self.first_byte.map_or(0, |first| {
                micros(first.saturating_duration_since(self.written_at))
            }),
            total_us: micros(now - self.start),
        }
    }

    /// `--rate`: the latency from when the request should have left (coordinated omission
    /// corrected), or from when it did if it left early.
    pub(super) fn corrected_us(&self, now: Instant) -> u64 {
        (now - self.intended.min(self.start)).as_micros() as u64
    }

    /// Acts on an event: finishes a connect, writes, reads, or notices a close.
    pub(super) fn on_ready(
        &mut self,
        readiness: Readiness,
        plan: &Plan,
        buffer: &mut [u8],
    ) -> Outcome {
        let Readiness {
            readable,
            read_closed,
            writable,
            error,
        } = readiness;
        match self.phase {
            Phase::Connecting => {
                if !(writable || error || readable) {
                    return Outcome::Pending;
                }
                let stream = self
                    .stream
                    .as_mut()
                    .expect("a connecting connection has a stream")
                    .tcp();
                match stream.take_error() {
                    Ok(Some(error)) | Err(error) => Outcome::Failed(Failure::Connect, Some(error)),
                    Ok(None) => match stream.peer_addr() {
                        Ok(_) => self.handshake(),
                        Err(error) if error.kind() == io::ErrorKind::NotConnected => {
                            Outcome::Pending
                        }
                        Err(error) => Outcome::Failed(Failure::Connect, Some(error)),
                    },
                }
            }
            Phase::Handshaking => {
                if readable || writable || error {
                    return self.handshake();
                }
                Outcome::Pending
            }
            Phase::Writing => {
                if writable || error {
                    let outcome = self.write(plan);
                    if !matches!(outcome, Outcome::Pending) {
                        return outcome;
                    }
                }
                // A server may answer before it has read the whole request.
                if readable {
                    return self.read(read_closed, plan, buffer);
                }
                Outcome::Pending
            }
            Phase::Reading => {
                if readable || error {
                    return self.read(read_closed || error, plan, buffer);
                }
                Outcome::Pending
            }
            Phase::Idle => {
                if error {
                    return Outcome::Closed;
                }
                if readable {
                    // The server closed a kept-alive connection between requests, or (TLS)
                    // sent a session ticket.
                    let open = self
                        .stream
                        .as_mut()
                        .is_some_and(|stream| stream.still_open_when_readable(buffer));
                    if !open {
                        return Outcome::Closed;
                    }
                }
                Outcome::Pending
            }
        }
    }

    /// After [`Outcome::Connected`], or on a reused stream: writes the request.
    pub(super) fn send(&mut self, plan: &Plan) -> Outcome {
        if !self.reused {
            self.connected = Instant::now();
        }
        self.phase = Phase::Writing;
        self.write(plan)
    }

    fn write(&mut self, plan: &Plan) -> Outcome {
        let bytes = match self.templated {
            true => &self.rendered,
            false => &plan.kinds[self.kind].request.bytes,
        };
        loop {
            let Some(stream) = self.stream.as_mut() else {
                return Outcome::Pending;
            };
            let step = if self.written == bytes.len() {
                // All taken: for TLS, the last records may still wait for the socket.
                stream.flush().map(|()| 0)
            } else {
                stream.write(&bytes[self.written..])
            };
            match step {
                Ok(n) => {
                    self.written += n;
                    if self.written == bytes.len() && n == 0 {
                        self.written_at = Instant::now();
                        self.phase = Phase::Reading;
                        if self.counted {
                            self.bytes_sent += bytes.len() as u64;
                        }
                        return Outcome::Pending;
                    }
                }
                Err(error) if error.kind() == io::ErrorKind::WouldBlock => return Outcome::Pending,
                Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                Err(error) => {
                    return if self.reused && self.written == 0 {
                        // The server closed the kept-alive connection as we reused it.
                        Outcome::Retry
                    } else {
                        Outcome::Failed(Failure::Write, Some(error))
                    };
                }
            }
        }
    }

    /// Reads what has arrived. `closed`: the event said the peer closed, which edge-triggered
    /// readiness reports once, so the reads go on to the end of the stream.
    fn read(&mut self, closed: bool, plan: &Plan, buffer: &mut [u8]) -> Outcome {
        loop {
            let Some(stream) = self.stream.as_mut() else {
                return Outcome::Pending;
            };
            match stream.read(buffer) {
                Ok(Received::End) => return self.at_close(plan),
                Ok(Received::Data { n, drained }) => {
                    let now = Instant::now();
                    if self.first_byte.is_none() {
                        self.first_byte = Some(now);
                        if plan.verbosity >= 2 {
                            plan.log.line(format_args!(
                                "LOG: header received:\n{}\n",
                                String::from_utf8_lossy(&buffer[..n])
                            ));
                        }
                    }
                    self.bytes_in += n as u64;
                    match self
                        .parser
                        .feed(&buffer[..n], &plan.kinds[self.kind].body_checks)
                    {
                        Ok(Feed::NeedMore) => {
                            if drained && !closed {
                                // Drained: with edge-triggered readiness, more data brings a
                                // new event, so no read is spent to learn EAGAIN.
                                return Outcome::Pending;
                            }
                        }
                        // Bytes after the response that no request asked for.
                        Ok(Feed::Complete { consumed }) if consumed < n => {
                            return Outcome::Failed(Failure::Exception, None);
                        }
                        Ok(Feed::Complete { .. }) => return Outcome::Complete(now),
                        Err(_) => return Outcome::Failed(Failure::Exception, None),
                    }
                }
                Err(error) if error.kind() == io::ErrorKind::WouldBlock => return Outcome::Pending,
                Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                Err(error) => {
                    return if self.reused && !self.parser.started() {
                        Outcome::Retry
                    } else {
                        Outcome::Failed(Failure::Receive, Some(error))
                    };
                }
            }
        }
    }

    /// The server closed the connection while a request was out.
    fn at_close(&mut self, plan: &Plan) -> Outcome {
        if self
            .parser
            .finish_at_close(&plan.kinds[self.kind].body_checks)
            .is_some()
        {
            // A body delimited by the close.
            return Outcome::Complete(Instant::now());
        }
        if self.reused && !self.parser.started() {
            // A kept-alive connection the server had closed: ab retries silently.
            return Outcome::Retry;
        }
        // The response stopped short.
        Outcome::Failed(Failure::Receive, None)
    }
}

fn open_stream(plan: &Plan) -> io::Result<(TcpStream, bool)> {
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

fn micros(duration: std::time::Duration) -> u32 {
    duration.as_micros().min(u128::from(u32::MAX)) as u32
}
