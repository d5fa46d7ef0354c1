//! wstest-server: a thin hyper shell around the sans-IO `wstest` crate.
//!
//! # Map
//! - [`config`]: the command line and the [`Config`] it yields.
//! - [`service`]: one HTTP request in, one response out: routing, limits, SOAP dispatch.
//! - [`answer`]: a response's body: a pooled buffer, and over HTTP/2 how its writing goes.
//! - `connection`: one connection from accept to close: the TLS handshake, HTTP/2 or HTTP/1.1,
//!   hyper only while it has a request to read or answer, hibernation in between (plain
//!   HTTP/1.1), and the drain at shutdown.
//! - `watchdog`: the header, body, write and idle timeouts of a connection, and when it
//!   hibernates.
//! - `frames`: where an HTTP/2 client's bytes stand between frames, for the header timeout.
//! - [`metrics`]: `--metrics`: counts per worker, and the Prometheus text of them.
//! - this file: the listener, one event loop per thread, and graceful shutdown.
//!
//! Each worker thread runs its own current-thread tokio runtime and accepts on its own clone of
//! the listening socket, so a connection lives on one thread from accept to close with no
//! cross-thread hand-offs.

pub mod answer;
pub mod config;
mod connection;
mod frames;
pub mod metrics;
pub mod service;
mod watchdog;

use std::future::Future;
use std::net::SocketAddr;
use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use tokio::sync::{Semaphore, watch};

pub use config::{BindingChoice, Config};
use connection::Drain;
use watchdog::{ConnectionState, Timeouts, watchdog};

/// Binds a listening socket the way a benchmark server wants it: address reuse, a deep backlog,
/// and TCP_NODELAY (inherited by every accepted connection on Linux).
pub fn bind(addr: SocketAddr) -> anyhow::Result<std::net::TcpListener> {
    let socket = socket2::Socket::new(
        socket2::Domain::for_address(addr),
        socket2::Type::STREAM,
        Some(socket2::Protocol::TCP),
    )?;
    socket.set_reuse_address(true)?;
    socket.set_tcp_nodelay(true)?;
    socket.bind(&addr.into())?;
    socket.listen(4096)?;
    socket.set_nonblocking(true)?;
    Ok(socket.into())
}

/// Resolves on SIGINT or SIGTERM.
///
/// The handlers are installed on the first poll, which [`run`] makes before it accepts anything.
/// Should that fail, the server says so and waits for nothing: the signals then stop it at once,
/// without draining, which beats stopping it the moment it starts.
pub async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match (
            signal(SignalKind::interrupt()),
            signal(SignalKind::terminate()),
        ) {
            (Ok(mut interrupt), Ok(mut terminate)) => {
                tokio::select! {
                    _ = interrupt.recv() => {}
                    _ = terminate.recv() => {}
                }
            }
            (Err(error), _) | (_, Err(error)) => {
                eprintln!(
                    "wstest-server: cannot catch SIGINT and SIGTERM ({error}); they will stop the server without finishing the requests in flight"
                );
                std::future::pending::<()>().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}

/// What a run served, summed over its workers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Served {
    /// Requests whose head was read.
    pub requests: u64,
    /// Answers not written whole: their connection closed, was reset or was cut off first,
    /// or the drain deadline passed.
    pub cut: u64,
}

impl std::fmt::Display for Served {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} requests read, {} answers cut off before they were written whole",
            self.requests, self.cut
        )
    }
}

/// Serves WSTest on `listener` with `config.n_threads` event loops until `shutdown` resolves,
/// then stops accepting, lets in-flight requests finish (up to `config.shutdown_grace`), and
/// returns what was served.
///
/// Blocks the calling thread, which only waits for `shutdown`.
pub fn run(
    listener: std::net::TcpListener,
    config: Config,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<Served> {
    listener.set_nonblocking(true)?;
    allow_connections(config.max_connections);
    // Before any request: an Avro body's declared counts reserve no more than the body limit.
    encodings::format::limit_avro_allocations(config.max_body);
    // Everything that takes a file descriptor of the server's own (the runtimes' epoll and
    // event descriptors, the signal pipe) is taken before any worker accepts: once they do, a
    // flood of connections can take every descriptor left, and a runtime built after that fails
    // and takes the whole server down with it (seen under `ulimit -n 40` on a busy machine).
    let control = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("building the signal runtime")?;
    let mut shutdown = std::pin::pin!(shutdown);
    let stopped_early = control.block_on(std::future::poll_fn(|cx| {
        std::task::Poll::Ready(shutdown.as_mut().poll(cx).is_ready())
    }));
    let loops = (0..config.n_threads)
        .map(|_| {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .context("building a worker runtime")?;
            let listener = listener
                .try_clone()
                .context("cloning the listening socket")?;
            anyhow::Ok((runtime, listener))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    drop(listener);
    let (stop_tx, stop_rx) = watch::channel(false);
    let config = Arc::new(config);
    // One count of connections for all workers: a permit per connection, taken before accept,
    // so that past the limit new connections wait in the kernel's accept queue.
    let connections = Arc::new(Semaphore::new(config.max_connections));
    // Every worker says when it has closed its listening socket; then this thread says that the
    // server accepts no more. (A worker that failed early says nothing, but its sender is gone.)
    let (closed_tx, closed_rx) = std::sync::mpsc::channel::<()>();
    let mut workers = Vec::with_capacity(config.n_threads);
    for (worker_idx, (runtime, listener)) in loops.into_iter().enumerate() {
        let config = Arc::clone(&config);
        let stop_rx = stop_rx.clone();
        let connections = Arc::clone(&connections);
        let listener_closed = closed_tx.clone();
        let worker = std::thread::Builder::new()
            .name(format!("wstest-worker-{worker_idx}"))
            .spawn(move || {
                worker(
                    worker_idx,
                    runtime,
                    listener,
                    config,
                    connections,
                    listener_closed,
                    stop_rx,
                )
            })
            .context("starting a worker thread")?;
        workers.push(worker);
    }
    if !stopped_early {
        control.block_on(shutdown);
    }
    let _ = stop_tx.send(true);
    drop(closed_tx);
    while closed_rx.recv().is_ok() {}
    eprintln!(
        "wstest-server: stopping: no new connections; finishing the requests in flight (at most {:?})",
        config.shutdown_grace
    );
    let mut served = Served::default();
    for worker in workers {
        match worker.join() {
            Ok(result) => {
                let worker = result?;
                served.requests += worker.requests;
                served.cut += worker.cut;
            }
            Err(_) => anyhow::bail!("a worker thread panicked"),
        }
    }
    Ok(served)
}

/// Raises the open-file limit so that `max_connections` connections fit, and says so when it
/// cannot.
fn allow_connections(max_connections: usize) {
    if let Err(limit) = host::raise_open_file_limit(max_connections as u64 + 64) {
        eprintln!(
            "wstest-server: --max-connections {max_connections} {limit}; connections past it wait until others close"
        );
    }
}

/// One worker: a current-thread runtime accepting and serving connections until told to stop.
fn worker(
    worker_idx: usize,
    runtime: tokio::runtime::Runtime,
    listener: std::net::TcpListener,
    config: Arc<Config>,
    connections: Arc<Semaphore>,
    listener_closed: std::sync::mpsc::Sender<()>,
    mut stop_rx: watch::Receiver<bool>,
) -> anyhow::Result<Served> {
    // Connections never leave their thread, so their tasks are local: their state is shared with
    // `Rc` and `Cell`, without atomic operations on the request path.
    let local = tokio::task::LocalSet::new();
    runtime.block_on(local.run_until(async move {
        let mut config = Config::clone(&config);
        config.metrics = config.metrics.map(|metrics| metrics.for_worker(worker_idx));
        let config = Rc::new(config);
        let listener = tokio::net::TcpListener::from_std(listener)?;
        let drain = Rc::new(Drain::default());
        // No hyper timer: the connection watchdog enforces the timeouts, which spares every
        // request the allocation and arming of a header timer.
        let protocols = Rc::new(connection::Protocols::new(&config));
        let timeouts = Timeouts {
            header: config.header_timeout,
            body: config.body_timeout,
            write: config.write_timeout,
            idle: config.idle_timeout,
        };
        loop {
            let permit = tokio::select! {
                permit = Arc::clone(&connections).acquire_owned() => permit?,
                _ = stop_rx.changed() => break,
            };
            let accepted = tokio::select! {
                accepted = listener.accept() => accepted,
                _ = stop_rx.changed() => break,
            };
            // Running out of file descriptors or a connection reset before accept must not end
            // the server: wait a moment and accept again.
            let Ok((stream, _)) = accepted else {
                drop(permit);
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            };
            let state = Rc::new(ConnectionState::new(config.tls.is_none()));
            let serving = connection::serve(
                stream,
                Rc::clone(&protocols),
                Rc::clone(&config),
                Rc::clone(&state),
                stop_rx.clone(),
            );
            let open = drain.open();
            let task = tokio::task::spawn_local(async move {
                serving.await;
                drop((permit, open));
            });
            if timeouts.any() {
                // A task of its own, so that no timer is polled or armed per request.
                let abort = task.abort_handle();
                tokio::task::spawn_local(async move {
                    tokio::select! {
                        _ = watchdog(state, timeouts) => abort.abort(),
                        _ = task => {}
                    }
                });
            }
        }
        drop(listener);
        drop(listener_closed);
        tokio::select! {
            _ = drain.all_closed() => {}
            _ = tokio::time::sleep(config.shutdown_grace) => {}
        }
        anyhow::Ok(())
    }))?;
    // Past the deadline, what is still open is dropped with the runtime, and its answers counted.
    drop(local);
    drop(runtime);
    Ok(answer::TALLY.with(|tally| Served {
        requests: tally.requests.get(),
        cut: tally.cut.get(),
    }))
}
