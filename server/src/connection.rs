//! One connection from accept to close.
//!
//! hyper gives a connection an 8 KB read buffer and an 8 KB write buffer when it is first
//! polled, and keeps them for as long as the connection lives. So a connection is handed to
//! hyper only once its client has sent a byte, and when it has waited a while for its next
//! request the watchdog sends it into hibernation: hyper lets go, dropping its buffers, and the
//! next request gets a new hyper connection on the same socket. An idle connection then costs a
//! task and a socket: about 3.5 KB, against 21 KB when hyper held it (10,000 connections,
//! `scripts/connections.sh`; RELIABILITY.md has the figures).
//!
//! Shutdown: a connection waiting for a first byte closes at once; one in hyper's hands
//! finishes the request in flight (hyper's graceful shutdown) and closes; the worker waits for
//! all of them through [`Drain`].

use std::cell::{Cell, RefCell};
use std::pin::pin;
use std::rc::Rc;
use std::task::Poll;

use hyper::server::conn::http1;
use hyper_util::rt::TokioIo;
use tokio::io::ReadBuf;
use tokio::net::TcpStream;
use tokio::sync::{Notify, watch};

use crate::config::Config;
use crate::service;
use crate::watchdog::{ConnectionState, WatchedIo};

/// Serves one connection until it closes, the watchdog aborts it, or `stop` turns true.
pub(crate) async fn serve(
    stream: TcpStream,
    http: Rc<http1::Builder>,
    config: Rc<Config>,
    state: Rc<ConnectionState>,
    mut stop: watch::Receiver<bool>,
) {
    let stream = Rc::new(RefCell::new(stream));
    loop {
        let spoke = tokio::select! {
            biased;
            _ = stop.changed() => return,
            spoke = first_byte(&stream) => spoke,
        };
        if !spoke {
            return;
        }
        let io = TokioIo::new(WatchedIo::new(Rc::clone(&stream), Rc::clone(&state)));
        let service = service::service(Rc::clone(&config), Rc::clone(&state));
        let mut connection = pin!(http.serve_connection(io, service));
        tokio::select! {
            biased;
            _ = connection.as_mut() => {}
            _ = stop.changed() => {
                connection.as_mut().graceful_shutdown();
                let _ = connection.await;
                return;
            }
        }
        if !state.wake_from_hibernation() {
            return;
        }
    }
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
