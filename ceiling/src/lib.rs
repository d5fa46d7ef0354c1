//! The HTTP ceiling for a WSTest server on this machine: hyper 1.x that reads each POST body whole
//! and answers with a canned response of the right operation and size, doing no XML work.
//! A real server's requests per second divided by this one's, measured in the same run on the
//! same cores, says how close the real server comes to the limit of its HTTP stack.
//!
//! # Map
//! - [`Args`]: the command line.
//! - [`CannedResponses`]: the response of every post file, computed once at start by the
//!   `wstest` core, and the choice of one for a request.
//! - [`run`]: a thread a core, each a current-thread tokio runtime accepting from the shared
//!   listener, a task per connection, hyper's defaults for HTTP/1.1 and HTTP/2 (h2c with prior
//!   knowledge, or by ALPN over TLS with `--tls-cert`).
//!
//! It is a separate binary, never a mode of `wstest-server`, so that nothing of the real server
//! (its routing, limits, pooled buffers or runtime layout) can leak into the yardstick.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::SystemTime;

use bytes::Bytes;
use http_body_util::{BodyExt as _, Full};
use hyper::body::Incoming;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use hyper_util::server::conn::auto;
use wstest::Operation;

/// The longest a TLS handshake may take, as wstest-server's default.
const HANDSHAKE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// ceiling: answers every POST with the canned WSTest response of its operation and size.
#[derive(Debug, clap::Parser)]
#[command(version, about, long_about = None)]
pub struct Args {
    /// Address to listen on; port 0 picks a free one (the listening line on stderr names it).
    #[arg(long, default_value = "127.0.0.1:8098")]
    pub addr: SocketAddr,
    /// Serving threads; 0 means one per core this process may use.
    #[arg(long = "threads", default_value_t = 0)]
    pub threads: usize,
    /// Serve TLS with this certificate chain (PEM), HTTP/2 or HTTP/1.1 by ALPN; needs
    /// --tls-key.
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    pub tls_cert: Option<std::path::PathBuf>,
    /// The private key (PEM) of --tls-cert.
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_key: Option<std::path::PathBuf>,
}

impl Args {
    /// The worker threads to run.
    pub fn n_threads(&self) -> usize {
        match self.threads {
            0 => std::thread::available_parallelism().map_or(1, usize::from),
            n => n,
        }
    }
}

/// The response of every post file, by operation and request body length.
#[derive(Debug, Clone)]
pub struct CannedResponses {
    /// (operation, request body length, response), in post-file order.
    responses: Vec<(Operation, usize, Bytes)>,
}

impl CannedResponses {
    /// Answers every post file once with the `wstest` core, dated now.
    pub fn from_post_files() -> CannedResponses {
        let unix_millis = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |elapsed| elapsed.as_millis() as i64);
        let now = wstest::DateTime { unix_millis };
        let responses = wstest::post_files::all()
            .into_iter()
            .map(|file| {
                let body = file.body();
                let mut out = Vec::new();
                wstest::respond(None, &body, now, &mut out)
                    .unwrap_or_else(|fault| panic!("{}: {fault}", file.name));
                (file.operation, body.len(), Bytes::from(out))
            })
            .collect();
        CannedResponses { responses }
    }

    /// The response for a request of `operation` (EchoVoid when the SOAPAction names none) whose
    /// body is `body_len` bytes: the post file's of the nearest length. A glance, not a parse.
    pub fn pick(&self, operation: Option<Operation>, body_len: usize) -> Bytes {
        let operation = operation.unwrap_or(Operation::EchoVoid);
        self.responses
            .iter()
            .filter(|(op, _, _)| *op == operation)
            .min_by_key(|(_, len, _)| len.abs_diff(body_len))
            .map(|(_, _, response)| response.clone())
            .unwrap_or_default()
    }
}

/// Serves the canned responses on `listener` with `n_threads` threads until the process is
/// killed, over TLS when `tls` is given.
///
/// Each thread runs a current-thread tokio runtime that accepts from the shared listener and
/// spawns its connections (and HTTP/2's stream tasks) locally: hyper's layout for a server
/// pinned to its cores. On tokio's multi-thread runtime, each HTTP/2 stream that finished woke
/// its connection into the scheduler's LIFO slot, which then wrote that one response: a
/// `writev` a response instead of one a batch, and half the requests per second of
/// wstest-server's HTTP/2 with 10 streams a connection (82-99k against 171-182k, EchoVoid,
/// one core, 2026-12-05), so the ceiling was no ceiling.
pub fn run(
    listener: std::net::TcpListener,
    n_threads: usize,
    tls: Option<Arc<rustls::ServerConfig>>,
) -> anyhow::Result<()> {
    let canned = Arc::new(CannedResponses::from_post_files());
    let acceptor = tls.map(tokio_rustls::TlsAcceptor::from);
    listener.set_nonblocking(true)?;
    let threads = (0..n_threads.max(1))
        .map(|_| {
            let listener = listener.try_clone()?;
            let canned = Arc::clone(&canned);
            let acceptor = acceptor.clone();
            Ok(std::thread::spawn(move || {
                serve(listener, &canned, acceptor)
            }))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    for thread in threads {
        thread
            .join()
            .map_err(|_| anyhow::anyhow!("a serving thread panicked"))??;
    }
    Ok(())
}

/// One thread's accept loop and connections.
fn serve(
    listener: std::net::TcpListener,
    canned: &Arc<CannedResponses>,
    acceptor: Option<tokio_rustls::TlsAcceptor>,
) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .build()?;
    let local = tokio::task::LocalSet::new();
    local.block_on(&runtime, async move {
        let listener = tokio::net::TcpListener::from_std(listener)?;
        loop {
            let (stream, _) = listener.accept().await?;
            stream.set_nodelay(true)?;
            let canned = Arc::clone(canned);
            let acceptor = acceptor.clone();
            tokio::task::spawn_local(async move {
                let service = hyper::service::service_fn(move |request| {
                    let canned = Arc::clone(&canned);
                    async move { Ok::<_, Infallible>(answer(&canned, request).await) }
                });
                // hyper-util's auto builder tells HTTP/2 from HTTP/1.1 by the first bytes, so
                // it serves h2c with prior knowledge and ALPN's choice alike, with hyper's
                // defaults for both. A connection's errors (a client that resets, say) end that
                // connection only.
                let http = auto::Builder::new(LocalExec);
                match acceptor {
                    None => {
                        let _ = http.serve_connection(TokioIo::new(stream), service).await;
                    }
                    Some(acceptor) => {
                        let Ok(Ok(stream)) =
                            tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(stream)).await
                        else {
                            return;
                        };
                        let _ = http.serve_connection(TokioIo::new(stream), service).await;
                    }
                }
            });
        }
    })
}

/// Runs hyper's HTTP/2 stream tasks on the connection's own thread.
#[derive(Debug, Clone, Copy)]
struct LocalExec;

impl<F: std::future::Future + 'static> hyper::rt::Executor<F> for LocalExec {
    fn execute(&self, future: F) {
        tokio::task::spawn_local(future);
    }
}

async fn answer(canned: &CannedResponses, request: Request<Incoming>) -> Response<Full<Bytes>> {
    let operation = request
        .headers()
        .get("soapaction")
        .and_then(|value| Operation::from_soap_action(value.as_bytes()).ok().flatten());
    let body_len = match request.into_body().collect().await {
        Ok(body) => body.to_bytes().len(),
        Err(_) => 0,
    };
    let mut response = Response::new(Full::new(canned.pick(operation, body_len)));
    response.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("text/xml; charset=utf-8"),
    );
    response
}
