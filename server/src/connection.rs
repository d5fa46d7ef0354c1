//! One connection from accept to close: plain HTTP/1.1, HTTP/2 with prior knowledge (h2c), or
//! either over TLS as ALPN chose.
//!
//! Plain HTTP/1.1: hyper gives a connection an 8 KB read buffer and an 8 KB write buffer when
//! it is first polled, and keeps them for as long as the connection lives. So a connection is
//! handed to hyper only once its client has sent a byte, and when it has waited a while for its
//! next request the watchdog sends it into hibernation: hyper lets go, dropping its buffers,
//! and the next request gets a new hyper connection on the same socket. An idle connection then
//! costs a task and a socket: about 2.7 KB, against 21 KB when hyper held it (10,000
//! connections, `cargo xtask check-connections`; RELIABILITY.md has the figures). For that the
//! task's future must stay small: each protocol's future is boxed when it starts.
//!
//! A plain connection's first bytes say whether it is HTTP/2: they are read (through the
//! watchdog, so the header timeout covers a client that stops half-way) until they differ from
//! HTTP/2's connection preface or hold all of it, and handed back to hyper before the rest.
//! HTTP/2 and TLS connections never hibernate: their state (HPACK tables, streams, the TLS
//! session) lives in the connection, not in the socket.
//!
//! TLS: the handshake must finish within `--tls-handshake-timeout` of the accept.
//!
//! Shutdown: a connection waiting for a first byte closes at once; one in hyper's hands
//! finishes the requests in flight (hyper's graceful shutdown: GOAWAY on HTTP/2) and closes;
//! the worker waits for all of them through [`Drain`].

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::{Pin, pin};
use std::rc::Rc;
use std::task::Poll;
use std::time::Duration;

use hyper::server::conn::{http1, http2};
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncReadExt as _, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::sync::{Notify, watch};
use tokio_rustls::TlsAcceptor;

use crate::config::Config;
use crate::frames::PREFACE;
use crate::metrics::{OpenConnection, Protocol};
use crate::service;
use crate::watchdog::{ConnectionState, WatchedIo};
use tls::ALPN_H2;

/// How long an HTTP/2 connection asked to go away by its watchdog has to write its GOAWAY.
const GOAWAY_WRITE: Duration = Duration::from_millis(100);

/// How long a closing connection reads and drops what its client still sends (see [`linger`]).
const LINGER: Duration = Duration::from_millis(500);

/// The protocol engines a worker's connections share.
pub(crate) struct Protocols {
    pub(crate) http1: http1::Builder,
    pub(crate) http2: http2::Builder<LocalExec>,
    pub(crate) tls: Option<TlsAcceptor>,
}

impl Protocols {
    pub(crate) fn new(config: &Config) -> Protocols {
        let mut http2 = http2::Builder::new(LocalExec);
        http2
            .max_concurrent_streams(config.max_streams)
            // hyper's default (16 KiB) would refuse SOAP requests with long headers that HTTP/1.1
            // takes; 64 KiB matches hyper's HTTP/1.1 head limit.
            .max_header_list_size(64 * 1024)
            // Windows big enough for the largest WSTest message in one round trip, so that
            // flow control never paces a benchmark; the client's own windows bound what the
            // server buffers for it.
            .initial_stream_window_size(1024 * 1024)
            .initial_connection_window_size(4 * 1024 * 1024);
        let mut http1 = http1::Builder::new();
        // A client may shut down its sending side once its request is out and then read the
        // answer (RFC 9112, 9.6). Without this hyper takes the end of input it finds while the
        // answer is still being made or written for an abandoned request and drops the answer:
        // a race the half-close test lost 7 times in 15 with both cores busy.
        http1.half_close(true);
        Protocols {
            http1,
            http2,
            tls: config.tls.clone().map(TlsAcceptor::from),
        }
    }
}

/// Runs hyper's HTTP/2 stream tasks on the worker's own thread (its services hold `Rc`s).
#[derive(Debug, Clone, Copy)]
pub(crate) struct LocalExec;

impl<F: Future + 'static> hyper::rt::Executor<F> for LocalExec {
    fn execute(&self, future: F) {
        tokio::task::spawn_local(future);
    }
}

/// Serves one connection until it closes, the watchdog aborts it, or `stop` turns true.
pub(crate) async fn serve(
    stream: TcpStream,
    protocols: Rc<Protocols>,
    config: Rc<Config>,
    state: Rc<ConnectionState>,
    mut stop: watch::Receiver<bool>,
) {
    // Each protocol's future is boxed, made only when that protocol runs: inline, the largest
    // (a TLS handshake, hyper's HTTP/2 connection) made every connection's task 5.3 KB from
    // its accept, waiting for a first byte that may not come for minutes.
    if protocols.tls.is_some() {
        return Box::pin(serve_tls(stream, &protocols, config, state, stop)).await;
    }
    let stream = Rc::new(RefCell::new(stream));
    let mut first = true;
    // `--metrics`: the connection counted open as its protocol, once that is known.
    let mut _open = None;
    loop {
        let spoke = tokio::select! {
            biased;
            _ = stop.changed() => return,
            spoke = first_byte(&stream) => spoke,
        };
        if !spoke {
            return;
        }
        let mut io = WatchedIo::new(Rc::clone(&stream), Rc::clone(&state));
        if first {
            let h2 = tokio::select! {
                biased;
                _ = stop.changed() => return,
                h2 = read_preface(&mut io) => h2,
            };
            match h2 {
                Some(true) => {
                    let _open = opened(&config, Protocol::H2);
                    return Box::pin(serve_h2(io, &protocols, config, state, stop)).await;
                }
                Some(false) => {
                    first = false;
                    _open = opened(&config, Protocol::Http1);
                }
                // The watchdog sent the connection into hibernation as its first byte came
                // (nothing was read): look again.
                None if state.wake_from_hibernation() => continue,
                None => return,
            }
        }
        if !Box::pin(serve_http1(
            io,
            &protocols,
            Rc::clone(&config),
            Rc::clone(&state),
            stop.clone(),
        ))
        .await
            || !state.wake_from_hibernation()
        {
            return;
        }
    }
}

/// A TLS connection: the handshake within its limit, then HTTP/1.1 or HTTP/2 as ALPN chose.
async fn serve_tls(
    stream: TcpStream,
    protocols: &Protocols,
    config: Rc<Config>,
    state: Rc<ConnectionState>,
    mut stop: watch::Receiver<bool>,
) {
    let Some(acceptor) = &protocols.tls else {
        return;
    };
    let handshake = acceptor.accept(stream);
    let tls = tokio::select! {
        biased;
        _ = stop.changed() => return,
        tls = within(config.tls_handshake_timeout, handshake) => tls,
    };
    let Some(Ok(tls)) = tls else {
        return;
    };
    let h2 = tls.get_ref().1.alpn_protocol() == Some(ALPN_H2);
    let _open = opened(&config, if h2 { Protocol::H2 } else { Protocol::Http1 });
    let io = WatchedIo::new(Rc::new(RefCell::new(tls)), Rc::clone(&state));
    if h2 {
        serve_h2(io, protocols, config, state, stop).await;
    } else {
        serve_http1(io, protocols, config, state, stop).await;
    }
}

/// With `--metrics`, the connection counted open as `protocol` until the guard drops.
fn opened(config: &Config, protocol: Protocol) -> Option<OpenConnection> {
    config
        .metrics
        .as_ref()
        .map(|metrics| metrics.connection(protocol))
}

/// `future`, cut off after `limit` (`None` when it was).
async fn within<T>(
    limit: Option<std::time::Duration>,
    future: impl Future<Output = T>,
) -> Option<T> {
    match limit {
        Some(limit) => tokio::time::timeout(limit, future).await.ok(),
        None => Some(future.await),
    }
}

/// Reads a plain connection's first bytes: whether they are HTTP/2's preface (`None` when the
/// client closed first). What was read is handed back to hyper by `io`.
async fn read_preface<S: AsyncRead + AsyncWrite + Unpin>(io: &mut WatchedIo<S>) -> Option<bool> {
    let mut head = [0u8; 24];
    let mut n = 0;
    while n < head.len() {
        match io.read(&mut head[n..]).await {
            Ok(0) | Err(_) => return None,
            Ok(read) => n += read,
        }
        if head[..n] != PREFACE[..n] {
            break;
        }
    }
    io.unread(&head[..n]);
    Some(n == PREFACE.len() && head == *PREFACE)
}

/// Serves HTTP/1.1 until hyper lets go: false when the connection is done with, true when it
/// let go of an idle connection (hibernation).
async fn serve_http1<S: AsyncRead + AsyncWrite + Unpin + 'static>(
    io: WatchedIo<S>,
    protocols: &Protocols,
    config: Rc<Config>,
    state: Rc<ConnectionState>,
    mut stop: watch::Receiver<bool>,
) -> bool {
    let service = service::service(config, state);
    let mut connection = pin!(protocols.http1.serve_connection(TokioIo::new(io), service));
    tokio::select! {
        biased;
        _ = connection.as_mut() => true,
        _ = stop.changed() => {
            connection.as_mut().graceful_shutdown();
            let _ = connection.await;
            false
        }
    }
}

/// Serves HTTP/2 until the connection closes.
async fn serve_h2<S: AsyncRead + AsyncWrite + Unpin + 'static>(
    io: WatchedIo<S>,
    protocols: &Protocols,
    config: Rc<Config>,
    state: Rc<ConnectionState>,
    mut stop: watch::Receiver<bool>,
) {
    state.set_multiplexed();
    let mut io = io;
    io.follow_frames();
    let socket = io.socket();
    let watched = Rc::clone(&state);
    let service = service::service(config, state);
    let mut connection = pin!(protocols.http2.serve_connection(TokioIo::new(io), service));
    let mut ended = pin!(watched.ended());
    tokio::select! {
        biased;
        _ = connection.as_mut() => {}
        _ = stop.changed() => {
            connection.as_mut().graceful_shutdown();
            let _ = connection.await;
        }
        // Past a timeout: GOAWAY, written if the socket takes it, then the close.
        _ = ended.as_mut() => {
            connection.as_mut().graceful_shutdown();
            let _ = tokio::time::timeout(GOAWAY_WRITE, connection).await;
        }
    }
    linger(&socket).await;
}

/// Closes the sending side, then reads and drops what the client still sends until it closes
/// too, or for [`LINGER`] at most. Closing a socket with unread bytes makes the kernel reset
/// the connection, and the reset destroys what the client had not read yet: the GOAWAY that
/// says why its connection ends, once seen lost that way on a client flooding empty DATA
/// frames.
async fn linger<S: AsyncRead + AsyncWrite + Unpin>(socket: &RefCell<S>) {
    let _ = std::future::poll_fn(|cx| Pin::new(&mut *socket.borrow_mut()).poll_shutdown(cx)).await;
    let mut sink = vec![0u8; 4096];
    let drain = async {
        loop {
            let read = std::future::poll_fn(|cx| {
                let mut buf = ReadBuf::new(&mut sink);
                Pin::new(&mut *socket.borrow_mut())
                    .poll_read(cx, &mut buf)
                    .map_ok(|()| buf.filled().len())
            })
            .await;
            if !matches!(read, Ok(n) if n > 0) {
                return;
            }
        }
    };
    let _ = tokio::time::timeout(LINGER, drain).await;
}

/// Waits until the client has sent something (true) or closed (false), reading nothing.
async fn first_byte(stream: &RefCell<TcpStream>) -> bool {
    let mut byte = [0u8; 1];
    std::future::poll_fn(|cx| {
        let mut buf = ReadBuf::new(&mut byte);
        match stream.borrow().poll_peek(cx, &mut buf) {
            Poll::Ready(Ok(n)) => Poll::Ready(n > 0),
            Poll::Ready(Err(_)) => Poll::Ready(false),
            Poll::Pending => Poll::Pending,
        }
    })
    .await
}

/// The connections of one worker still open, so that shutdown can wait for them.
#[derive(Debug, Default)]
pub(crate) struct Drain {
    n_open: Cell<usize>,
    closed: Notify,
}

/// Held by a connection's task: its drop counts the connection closed.
#[derive(Debug)]
pub(crate) struct Open(Rc<Drain>);

impl Drain {
    pub(crate) fn open(self: &Rc<Drain>) -> Open {
        self.n_open.set(self.n_open.get() + 1);
        Open(Rc::clone(self))
    }

    /// Resolves when every connection has closed.
    pub(crate) async fn all_closed(&self) {
        while self.n_open.get() > 0 {
            self.closed.notified().await;
        }
    }
}

impl Drop for Open {
    fn drop(&mut self) {
        self.0.n_open.set(self.0.n_open.get() - 1);
        self.0.closed.notify_one();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A connection's task is allocated at its accept and kept while it waits for a first byte,
    /// so its size is what each idle connection costs before the kernel's share. Inline, the TLS
    /// handshake and hyper's HTTP/2 connection made it 5,328 bytes (13.8 KB a hibernated
    /// connection, against the 8 KB limit; docs/results/connections.md).
    #[test]
    fn a_connection_task_waiting_for_its_first_byte_is_small() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let _client = TcpStream::connect(listener.local_addr().unwrap())
                .await
                .unwrap();
            let (stream, _) = listener.accept().await.unwrap();
            let config = Rc::new(Config::default());
            let protocols = Rc::new(Protocols::new(&config));
            let (_stop, stop) = watch::channel(false);
            let state = Rc::new(ConnectionState::new(true));
            let task = serve(stream, protocols, config, state, stop);
            let size = std::mem::size_of_val(&task);
            assert!(size <= 1024, "a connection's task is {size} bytes");
        });
    }
}
