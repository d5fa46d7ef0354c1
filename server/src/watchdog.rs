//! The timeouts of a connection, kept by a task beside it rather than by per-request timers.
//!
//! The connection's socket counts its reads, and its service marks when a request starts and
//! ends. Every quarter of the shorter timeout, the watchdog looks:
//! - idle: nothing was read for `idle_timeout`;
//! - header: the first bytes of a request arrived more than `header_timeout` ago and its head is
//!   still not complete.
//!
//!
//!
//! Either ends the connection. So the request path only bumps counters; no timer is allocated,
//! armed or cancelled per request, which hyper's own header timer does.

use std::cell::Cell;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::time::Instant;

/// What the watchdog knows of one connection.
#[derive(Debug)]
pub(crate) struct ConnectionState {
    born: Instant,
    /// Reads that brought data.
    n_reads: Cell<u64>,
    /// Between requests: the next byte read starts a request head.
    waiting: Cell<bool>,
    /// When the pending request's first bytes arrived, in milliseconds since `born`, plus one;
    /// zero when no head is pending.
    head_started: Cell<u64>,
}

impl ConnectionState {
    pub(crate) fn new() -> ConnectionState {
        ConnectionState {
            born: Instant::now(),
            n_reads: Cell::new(0),
            waiting: Cell::new(true),
            head_started: Cell::new(0),
        }
    }

    fn on_read(&self) {
        self.n_reads.set(self.n_reads.get() + 1);
        if self.waiting.get() && self.head_started.get() == 0 {
            let millis = self.born.elapsed().as_millis() as u64;
            self.head_started.set(millis + 1);
        }
    }

    /// A request's head is complete: it reached the service.
    pub(crate) fn request_started(&self) {
        self.waiting.set(false);
        self.head_started.set(0);
    }

    /// The service has answered; what is read next belongs to the next request.
    pub(crate) fn request_done(&self) {
        self.waiting.set(true);
    }
}

/// Resolves when the connection has overrun one of its timeouts.
pub(crate) async fn watchdog(
    state: Rc<ConnectionState>,
    header_timeout: Option<Duration>,
    idle_timeout: Option<Duration>,
) {
    let shortest = header_timeout
        .into_iter()
        .chain(idle_timeout)
        .min()
        .unwrap_or(Duration::MAX);
    let tick = (shortest / 4).max(Duration::from_millis(5));
    let mut seen_reads = state.n_reads.get();
    let mut quiet_since = Instant::now();
    loop {
        tokio::time::sleep(tick).await;
        let now = Instant::now();
        let n_reads = state.n_reads.get();
        if n_reads != seen_reads {
            seen_reads = n_reads;
            quiet_since = now;
        }
        if idle_timeout.is_some_and(|idle| now - quiet_since >= idle) {
            return;
        }
        let head_started = state.head_started.get();
        if let Some(header) = header_timeout
            && head_started != 0
        {
            let started = state.born + Duration::from_millis(head_started - 1);
            if now - started >= header {
                return;
            }
        }
    }
}

/// A TCP stream that tells its [`ConnectionState`] about every read that brought data.
pub(crate) struct WatchedIo {
    inner: TcpStream,
    state: Rc<ConnectionState>,
}

impl WatchedIo {
    pub(crate) fn new(inner: TcpStream, state: Rc<ConnectionState>) -> WatchedIo {
        WatchedIo { inner, state }
    }
}

impl AsyncRead for WatchedIo {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let result = Pin::new(&mut self.inner).poll_read(cx, buf);
        if buf.filled().len() > before {
            self.state.on_read();
        }
        result
    }
}

impl AsyncWrite for WatchedIo {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}
