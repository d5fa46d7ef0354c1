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

use crate::check::{AnswerChecks, Scratch, Verdict};
use crate::http::BodyChecks;
use crate::live::Live;
use crate::mix::Picker;
use crate::options::Checks;
use crate::pace::Rate;
use crate::request::Request;
use crate::schedule::{Schedule, Timing};
use crate::shard::Shard;

/// ab gives up after this many connect failures (in a row, here).
const MAX_CONNECT_FAILURES: u64 = 10;

/// Where ab's `-v` lines go: ab's front end prints them on stdout, as ab does; the library
/// itself prints nothing, and a caller that gives no sink gets none.
#[derive(Clone, Default)]
pub struct Log(Option<Sink>);

/// What a [`Log`] hands each line to.
type Sink = Arc<dyn Fn(std::fmt::Arguments<'_>) + Send + Sync>;

impl Log {
    /// A sink that calls `write` with each line (without its newline).
    pub fn to(write: impl Fn(std::fmt::Arguments<'_>) + Send + Sync + 'static) -> Log {
        Log(Some(Arc::new(write)))
    }

    pub(crate) fn line(&self, line: std::fmt::Arguments<'_>) {
        if let Some(write) = &self.0 {
            write(line);
        }
    }
}

impl std::fmt::Debug for Log {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "Log(sink)"
        } else {
            "Log(none)"
        })
    }
}

/// One kind of request of a run: a run has one, a mix one a part.
#[derive(Debug)]
pub struct Kind {
    /// The part's name (empty for a run of one request) and weight.
    pub name: String,
    pub weight: u32,
    pub request: Request,
    /// `--template`: the request's templates, when its values change from one request to
    /// the next; `request`'s bytes are not sent then.
    pub(crate) template: Option<crate::template::RequestTemplate>,
    /// `--http2`: the request's HPACK blocks and body.
    pub(crate) http2: Option<crate::http2::Request>,
    /// What a right answer to it is: the run's checks, or the part's.
    pub(crate) body_checks: BodyChecks,
    /// Its checks among [`Plan::answer_checks`], a bit each.
    pub(crate) checks: u64,
    /// A flow's part: the values its answers give the later steps.
    pub(crate) saves: Vec<crate::flow::Saver>,
    pub(crate) expect_status: Option<u16>,
}

/// What every thread needs to know, fixed for the run.
#[derive(Debug)]
pub struct Plan {
    /// The kinds of request: one, or a mix's parts in the mix's order.
    pub kinds: Vec<Kind>,
    /// A mix's order: which kind request `i` of the run is.
    pub(crate) picker: Option<Picker>,
    /// A mix's `[flow]`: each connection sends its steps in order, in place of `picker`'s.
    pub(crate) flow: Option<crate::flow::FlowPlan>,
    /// `--template`: what fills the kinds' templates, and which row each request takes.
    pub(crate) filler: Option<crate::template::Filler>,
    /// `--metrics`: the counts a scrape reads while the run goes.
    pub live: Option<Arc<Live>>,
    pub(crate) addr: SocketAddr,
    /// `https://`: how each connection speaks TLS.
    pub(crate) tls: Option<TlsPlan>,
    /// `--http2`: the request as HTTP/2 sends it, and the streams a connection carries.
    pub(crate) http2: Option<Http2Plan>,
    pub(crate) bind: Option<SocketAddr>,
    pub(crate) socket_buffer: Option<u32>,
    pub(crate) keep_alive: bool,
    /// `-n`: counted requests in all; `None` runs until the time limit.
    pub(crate) n_requests: Option<u64>,
    /// `-t` / `--duration`: length of the measured phase.
    pub(crate) time_limit: Option<Duration>,
    pub warmup: Duration,
    /// `--rate` of the whole test (all threads of all shards), in requests per second.
    pub(crate) rate: Option<Rate>,
    /// `--shard I/N`; [`Shard::WHOLE`] for a test run whole.
    pub(crate) shard: Shard,
    /// `--start-at`, when still ahead: the connections open first, and the first request
    /// leaves at this instant.
    pub start_at: Option<Instant>,
    /// What a right answer is, and how long to wait for one (each kind's body and status
    /// checks are in [`Kind`]).
    pub(crate) checks: Checks,
    /// `--check-xpath`, `--check-regex`, `--soap-faults`: every kind's, each kind with its bits.
    pub answer_checks: AnswerChecks,
    pub(crate) verbosity: u32,
    /// Where the `-v` lines go.
    pub(crate) log: Log,
    pub(crate) n_threads: usize,
    pub(crate) concurrency: usize,
    pub(crate) sample_cap: usize,
}

impl Plan {
    /// What the checks make of the answer to a request of `kind` that `parser` has read
    /// whole; nothing to judge (and nothing allocated) for a kind without checks.
    pub(crate) fn judge(
        &self,
        kind: usize,
        parser: &crate::http::ResponseParser,
        scratch: &mut Scratch,
    ) -> Verdict {
        let kind = &self.kinds[kind];
        // A body kept for a flow's saves alone has nothing to judge.
        if !self.answer_checks.reads_bodies(kind.checks) {
            return Verdict::default();
        }
        let whole = !parser.response().body_cut;
        (self.answer_checks).judge(kind.checks, parser.kept_body(), whole, scratch)
    }

    /// The kind of request `ordinal` of the run.
    pub(crate) fn kind_of(&self, ordinal: u64) -> usize {
        self.picker
            .as_ref()
            .map_or(0, |picker| picker.kind(ordinal))
    }

    /// `--template`: the number and data row of `claim`, sent by thread `thread` on its
    /// connection `slot`.
    pub(crate) fn fill(
        &self,
        claim: crate::schedule::Claim,
        thread: usize,
        slot: usize,
    ) -> Option<crate::template::Fill> {
        let filler = self.filler.as_ref()?;
        Some(filler.fill(claim, thread, slot))
    }

    /// The kinds the statistics count each on its own: a mix's (none for one request).
    pub(crate) fn mixed_kinds(&self) -> usize {
        if self.picker.is_some() {
            self.kinds.len()
        } else {
            0
        }
    }

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
pub(crate) struct TlsPlan {
    pub(crate) config: Arc<ClientConfig>,
    /// The name the certificate is checked against, and the SNI when it is a DNS name.
    pub(crate) server_name: ServerName<'static>,
}

/// What an `--http2` run adds to the plan.
#[derive(Debug)]
pub(crate) struct Http2Plan {
    /// The kinds' header blocks (encoded once) and bodies, in the kinds' order.
    pub(crate) requests: Arc<[crate::http2::Request]>,
    /// `--streams`: requests a connection carries at once.
    pub(crate) streams: usize,
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
pub(crate) struct Padded(pub(crate) AtomicU64);

/// The little the threads share.
#[derive(Debug)]
pub struct Shared {
    /// Counted requests not yet claimed by a thread (`-n`).
    pub(crate) remaining: AtomicU64,
    /// Ctrl-C, an abort, or the end of the measured phase.
    pub(crate) stop: AtomicBool,
    pub(crate) abort: Mutex<Option<Abort>>,
    /// Each kind's first response's body length (`u64::MAX` until there is one): ab's
    /// Document Length, against which every later response of the kind is a Length failure
    /// or not.
    pub(crate) document_lengths: Vec<AtomicU64>,
    pub(crate) server_software: Mutex<Option<Vec<u8>>>,
    /// What the first TLS handshake agreed, for ab's TLS lines.
    pub(crate) negotiated: OnceLock<Negotiated>,
    connect_failures_in_a_row: AtomicU64,
    /// Per thread: complete requests and failures so far, for the progress lines.
    pub(crate) completed: Vec<Padded>,
    pub(crate) failed: Vec<Padded>,
    /// When the run began; the measured phase starts after the warm-up.
    pub(crate) started: Instant,
}

impl Shared {
    pub(crate) fn new(plan: &Plan, started: Instant) -> Shared {
        Shared {
            remaining: AtomicU64::new(plan.n_requests.unwrap_or(u64::MAX)),
            stop: AtomicBool::new(false),
            abort: Mutex::new(None),
            document_lengths: plan
                .kinds
                .iter()
                .map(|_| AtomicU64::new(u64::MAX))
                .collect(),
            server_software: Mutex::new(None),
            negotiated: OnceLock::new(),
            connect_failures_in_a_row: AtomicU64::new(0),
            completed: (0..plan.n_threads).map(|_| Padded::default()).collect(),
            failed: (0..plan.n_threads).map(|_| Padded::default()).collect(),
            started,
        }
    }

    /// Ends the run with ab's `message` and `exit_code`; the first abort wins.
    pub(crate) fn abort(&self, message: String, exit_code: i32) {
        let mut abort = self
            .abort
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        abort.get_or_insert(Abort { message, exit_code });
        self.stop.store(true, Ordering::Relaxed);
    }

    pub(crate) fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Whether the first response of `kind` is still to come, so its `Server` header is
    /// worth keeping.
    pub(crate) fn awaiting_first_response(&self, kind: usize) -> bool {
        self.document_lengths[kind].load(Ordering::Relaxed) == u64::MAX
    }

    /// ab's Document Length of `kind`: its first response's body length, which the first
    /// response of the kind to arrive sets (and the run's first its `Server` header, from
    /// `take_server`).
    pub(crate) fn document_length(
        &self,
        kind: usize,
        body_len: u64,
        take_server: impl FnOnce() -> Option<Vec<u8>>,
    ) -> u64 {
        match self.document_lengths[kind].compare_exchange(
            u64::MAX,
            body_len,
            Ordering::Relaxed,
            Ordering::Relaxed,
        ) {
            Ok(_) => {
                let mut server = self
                    .server_software
                    .lock()
                    .unwrap_or_else(|poisoned| poisoned.into_inner());
                if server.is_none() {
                    *server = take_server();
                }
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

/// The CPU time this thread has used (user and system), for its share of the run's time.
pub(super) fn thread_cpu() -> Duration {
    nix::time::clock_gettime(nix::time::ClockId::CLOCK_THREAD_CPUTIME_ID)
        .map_or(Duration::ZERO, |time| {
            Duration::new(time.tv_sec().max(0) as u64, time.tv_nsec().max(0) as u32)
        })
}
