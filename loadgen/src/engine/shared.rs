//! What the event loops of one run share: the plan, fixed for the run, and the few atomics
//! they touch (requests left to claim, the stop flag, ab's Document Length, connect failures
//! in a row, progress counters on cache lines of their own). Nothing here is touched per
//! request but a relaxed load or two.

use std::io;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use rustls::ClientConfig;
use rustls::pki_types::ServerName;
use tls::client::Negotiated;

use crate::http::BodyChecks;
use crate::options::Checks;
use crate::pace::Rate;
use crate::request::Request;
use crate::schedule::{Schedule, Timing};
use crate::shard::Shard;

/// ab gives up after this many connect failures (in a row, here).
const MAX_CONNECT_FAILURES: u64 = 10;

/// What every thread needs to know, fixed for the run.
#[derive(Debug)]
pub struct Plan {
    pub request: Request,
    pub addr: SocketAddr,
    /// `https://`: how each connection speaks TLS.
    pub tls: Option<TlsPlan>,
    /// `--http2`: the request as HTTP/2 sends it, and the streams a connection carries.
    pub http2: Option<Http2Plan>,
    pub bind: Option<SocketAddr>,
    pub socket_buffer: Option<u32>,
    pub keep_alive: bool,
    /// `-n`: counted requests in all; `None` runs until the time limit.
    pub n_requests: Option<u64>,
    /// `-t` / `--duration`: length of the measured phase.
    pub time_limit: Option<Duration>,
    pub warmup: Duration,
    /// `--rate` of the whole test (all threads of all shards), in requests per second.
    pub rate: Option<Rate>,
    /// `--shard I/N`; [`Shard::WHOLE`] for a test run whole.
    pub shard: Shard,
    /// `--start-at`, when still ahead: the connections open first, and the first request
    /// leaves at this instant.
    pub start_at: Option<Instant>,
    /// What a right answer is, and how long to wait for one.
    pub checks: Checks,
    /// `checks`' body texts, ready to search for.
    pub body_checks: BodyChecks,
    pub verbosity: u32,
    pub n_threads: usize,
    pub concurrency: usize,
    pub sample_cap: usize,
}

impl Plan {
    /// Thread `index`'s schedule, from `started`: the plan's timing, whichever loop runs it.
    pub(crate) fn schedule(&self, index: usize, started: Instant) -> Schedule {
        Schedule::new(
            Timing {
                n_requests: self.n_requests,
                time_limit: self.time_limit,
                warmup: self.warmup,
                rate: self.rate,
                n_threads: self.n_threads,
                shard: self.shard,
            },
            index,
            started,
        )
    }
}

/// What every TLS connection of a run is made from.
#[derive(Debug)]
pub struct TlsPlan {
    pub config: Arc<ClientConfig>,
    /// The name the certificate is checked against, and the SNI when it is a DNS name.
    pub server_name: ServerName<'static>,
}

/// The request of an `--http2` run, built once.
#[derive(Debug)]
pub struct Http2Plan {
    /// The header block (encoded once) and the body every stream sends.
    pub request: Arc<crate::http2::Request>,
    /// `--streams`: requests a connection carries at once.
    pub streams: usize,
    /// Whether the response will have no body (HEAD).
    pub head_method: bool,
    /// The request's size as HTTP/1.1 text, for ab's "Total body sent".
    pub sent_len: u64,
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
    /// What the first TLS handshake agreed, for ab's TLS lines.
    pub negotiated: OnceLock<Negotiated>,
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
            negotiated: OnceLock::new(),
            connect_failures_in_a_row: AtomicU64::new(0),
            completed: (0..plan.n_threads).map(|_| Padded::default()).collect(),
            failed: (0..plan.n_threads).map(|_| Padded::default()).collect(),
            started,
        }
    }

    /// Ends the run with ab's `message` and `exit_code`; the first abort wins.
    pub fn abort(&self, message: String, exit_code: i32) {
        let mut abort = self
            .abort
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        abort.get_or_insert(Abort { message, exit_code });
        self.stop.store(true, Ordering::Relaxed);
    }

    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Whether the first response is still to come, so its `Server` header is worth keeping.
    pub(crate) fn awaiting_first_response(&self) -> bool {
        self.document_length.load(Ordering::Relaxed) == u64::MAX
    }

    /// ab's Document Length: the first response's body length, which the first response to
    /// arrive sets (with its `Server` header, from `take_server`).
    pub(crate) fn document_length(
        &self,
        body_len: u64,
        take_server: impl FnOnce() -> Option<Vec<u8>>,
    ) -> u64 {
        match self.document_length.compare_exchange(
            u64::MAX,
            body_len,
            Ordering::Relaxed,
            Ordering::Relaxed,
        ) {
            Ok(_) => {
                *self
                    .server_software
                    .lock()
                    .unwrap_or_else(|poisoned| poisoned.into_inner()) = take_server();
                body_len
            }
            Err(first) => first,
        }
    }

    /// A connect succeeded: the count of failures in a row starts again.
    pub(crate) fn connected(&self) {
        self.connect_failures_in_a_row.store(0, Ordering::Relaxed);
    }

    /// A connect failed; past ab's limit of failures in a row, the run aborts as ab's does.
    pub(crate) fn connect_failed(&self, error: Option<&io::Error>) {
        let in_a_row = self
            .connect_failures_in_a_row
            .fetch_add(1, Ordering::Relaxed)
            + 1;
        if in_a_row > MAX_CONNECT_FAILURES {
            let (message, code) = match error {
                Some(error) => (os_message(error), error.raw_os_error().unwrap_or(1)),
                None => ("connection failed".to_owned(), 1),
            };
            self.abort(
                format!(
                    "\nTest aborted after {MAX_CONNECT_FAILURES} failures\n\napr_socket_connect(): {message}"
                ),
                code,
            );
        }
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

/// ab's form of an OS error: `Connection refused (111)`.
pub(crate) fn os_message(error: &io::Error) -> String {
    let text = error.to_string();
    // std writes "Connection refused (os error 111)".
    match (text.find(" (os error "), error.raw_os_error()) {
        (Some(at), Some(code)) => format!("{} ({code})", &text[..at]),
        _ => text,
    }
}
