//! What a run measured: per-thread statistics, filled on the hot path without locks, merged at
//! the end into [`Results`], and ab's arithmetic over them ([`Table`], in `stats/table.rs`).
//!
//! Every request leaves a 16-byte [`Sample`] (ab's four figures in µs), so ab's table, `-e` and
//! `-g` come out exactly as ab computes them, and HDR histograms, which keep their size however
//! long the run is, give the extended percentiles and survive in the JSON file for `merge`.

use std::collections::BTreeMap;

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};
use tls::client::Negotiated;

use crate::http::Response;

mod checks;
mod flows;
mod saturation;
mod table;
pub use checks::{CheckCounts, CheckFailures, MAX_FAULT_CODES, OTHER_CODES};
pub use flows::{FlowCounts, StepFailure, StepFailures};
pub use saturation::Saturation;
pub use table::{PERCENTILES, Row, Table, round_ms};

/// The longest latency the histograms hold, in µs (an hour); longer ones are clamped.
const MAX_LATENCY_US: u64 = 3_600_000_000;
/// Samples kept across all threads at most (256 MiB): past it ab's table comes from the
/// histograms, so a long `--duration` run cannot eat the machine.
pub const MAX_SAMPLES: usize = 16 << 20;

/// One request, as ab records it: all in µs but the start, in whole seconds from the start of
/// the run (`-g` prints seconds only). Sixteen bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Sample {
    pub start_s: u32,
    /// TCP connect, 0 on a reused connection.
    pub connect_us: u32,
    /// From the request written to the first byte of the response.
    pub wait_us: u32,
    /// From the start (connect or reuse) to the last byte.
    pub total_us: u32,
}

/// The counters of a run, named after ab's report lines.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counters {
    /// Complete requests: responses read to their end.
    pub complete: u64,
    /// Failed requests: every category below but Non-2xx and late sends.
    pub failed: u64,
    pub connect_errors: u64,
    pub receive_errors: u64,
    pub length_errors: u64,
    pub exceptions: u64,
    pub write_errors: u64,
    /// `--timeout` expired.
    pub timeouts: u64,
    /// `--expect-status` not met.
    pub status_mismatches: u64,
    /// `--expect-body` missing or `--reject-body` present.
    pub body_mismatches: u64,
    /// Answers that failed a `--check-xpath` or `--check-regex`, and SOAP faults
    /// (`--soap-faults`).
    #[serde(default)]
    pub check_failures: u64,
    #[serde(default)]
    pub faults: u64,
    pub non_2xx: u64,
    pub keep_alive_requests: u64,
    /// Total transferred: every byte read, heads included.
    pub bytes_received: u64,
    /// HTML transferred: bodies only.
    pub body_bytes_received: u64,
    /// Total body sent: request bytes written, heads included (ab's `totalposted`).
    pub bytes_sent: u64,
    /// `--rate`: requests sent more than [`LATE_AFTER_US`] after their scheduled time...
    pub late: u64,
    /// ... of which so late with a connection free since their time: the client was behind,
    /// where the others waited for the server to free a connection.
    #[serde(default)]
    pub late_client: u64,
    /// TLS handshakes made, and how many of them resumed a session (`--tls-resume`).
    #[serde(default)]
    pub tls_handshakes: u64,
    #[serde(default)]
    pub tls_resumed: u64,
}

/// A request counts as late when it leaves this long after its scheduled time.
pub const LATE_AFTER_US: u64 = 1_000;

impl Counters {
    fn add(&mut self, other: &Counters) {
        self.complete += other.complete;
        self.failed += other.failed;
        self.connect_errors += other.connect_errors;
        self.receive_errors += other.receive_errors;
        self.length_errors += other.length_errors;
        self.exceptions += other.exceptions;
        self.write_errors += other.write_errors;
        self.timeouts += other.timeouts;
        self.status_mismatches += other.status_mismatches;
        self.body_mismatches += other.body_mismatches;
        self.check_failures += other.check_failures;
        self.faults += other.faults;
        self.non_2xx += other.non_2xx;
        self.keep_alive_requests += other.keep_alive_requests;
        self.bytes_received += other.bytes_received;
        self.body_bytes_received += other.body_bytes_received;
        self.bytes_sent += other.bytes_sent;
        self.late += other.late;
        self.late_client += other.late_client;
        self.tls_handshakes += other.tls_handshakes;
        self.tls_resumed += other.tls_resumed;
    }
}

/// Requests and errors in one second of the run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Second {
    pub requests: u64,
    pub errors: u64,
    /// `--rate`: the corrected latencies of the second's responses (see [`second_histogram`]).
    pub corrected: Option<Histogram<u64>>,
}

/// A second's histogram of corrected latencies: two significant digits (a percentile to 1%)
/// up to a minute, so that an hour's series on two threads stays near 50 MB; longer latencies
/// are clamped.
pub fn second_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, 60_000_000, 2).expect("the bounds are valid")
}

/// The four latency series of ab's table, plus the latency from the scheduled send time.
#[derive(Debug, Clone)]
pub struct Histograms {
    pub connect: Histogram<u64>,
    pub processing: Histogram<u64>,
    pub waiting: Histogram<u64>,
    pub total: Histogram<u64>,
    /// `--rate` only: from the intended send time (coordinated omission corrected).
    pub corrected: Histogram<u64>,
}

pub(crate) fn histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, MAX_LATENCY_US, 3).expect("the bounds are valid")
}

impl Default for Histograms {
    fn default() -> Self {
        Histograms {
            connect: histogram(),
            processing: histogram(),
            waiting: histogram(),
            total: histogram(),
            corrected: histogram(),
        }
    }
}

impl Histograms {
    fn add(&mut self, other: &Histograms) {
        // Both sides have the same bounds, so adding cannot fail.
        let _ = self.connect.add(&other.connect);
        let _ = self.processing.add(&other.processing);
        let _ = self.waiting.add(&other.waiting);
        let _ = self.total.add(&other.total);
        let _ = self.corrected.add(&other.corrected);
    }
}

/// One kind of request's figures in a mix: ab's main counts and the total latency, for its
/// requests alone. The kinds' counts add up to the run's.
#[derive(Debug, Clone)]
pub struct KindStats {
    pub complete: u64,
    /// Failed requests of the kind: the same categories as [`Counters::failed`].
    pub failed: u64,
    pub non_2xx: u64,
    /// Bodies read, as ab's HTML transferred.
    pub body_bytes_received: u64,
    /// ab's Total time of each complete response, µs.
    pub total: Histogram<u64>,
    /// `--rate`: the latency from the scheduled send time.
    pub corrected: Histogram<u64>,
}

impl Default for KindStats {
    fn default() -> Self {
        KindStats {
            complete: 0,
            failed: 0,
            non_2xx: 0,
            body_bytes_received: 0,
            total: histogram(),
            corrected: histogram(),
        }
    }
}

impl KindStats {
    pub fn add(&mut self, other: &KindStats) {
        self.complete += other.complete;
        self.failed += other.failed;
        self.non_2xx += other.non_2xx;
        self.body_bytes_received += other.body_bytes_received;
        // Both have the bounds of `histogram`, so adding cannot fail.
        let _ = self.total.add(&other.total);
        let _ = self.corrected.add(&other.corrected);
    }
}

/// A kind of a mix, with its figures over the whole run.
#[derive(Debug, Clone)]
pub struct KindResults {
    /// The part's name, and its weight in the mix.
    pub name: String,
    pub weight: u32,
    /// The kind's first response's body length, against which its others are judged.
    pub document_length: u64,
    pub stats: KindStats,
}

/// How a request ended without a response, by ab's categories.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    Connect,
    Receive,
    Write,
    Timeout,
    /// A response that was not HTTP, or bytes after it that no request asked for.
    Exception,
}

/// A complete response, with what ab's accounting needs to judge it.
#[derive(Debug, Clone, Copy)]
pub struct Completion<'a> {
    pub response: &'a Response,
    /// Every byte read for it, head included.
    pub bytes_in: u64,
    /// The connection stays open for the next request.
    pub kept_alive: bool,
    /// ab's Document Length, which every response must have; `None` under `-l`.
    pub document_length: Option<u64>,
    /// `--expect-status`.
    pub expect_status: Option<u16>,
    pub sample: Sample,
    /// `--rate` only: the latency from the scheduled send time.
    pub corrected_us: Option<u64>,
    /// When it completed, in µs from the start of the measured phase.
    pub at_us: u64,
    /// Its kind, in a mix.
    pub kind: usize,
    /// What `--check-xpath`, `--check-regex` and `--soap-faults` made of it.
    pub verdict: &'a crate::check::Verdict,
}

/// One thread's statistics: owned by its event loop, merged once at the end.
#[derive(Debug, Default)]
pub struct ThreadStats {
    pub counters: Counters,
    pub samples: Vec<Sample>,
    /// Whether samples were dropped past [`MAX_SAMPLES`].
    pub samples_truncated: bool,
    pub sample_cap: usize,
    pub histograms: Histograms,
    pub status_codes: BTreeMap<u16, u64>,
    pub seconds: Vec<Second>,
    /// µs from the start of the measured phase to the last completion or write.
    pub last_activity_us: u64,
    /// The share of the thread's time its event loop spent on the CPU, 0 to 1.
    pub busy: f64,
    /// A mix's kinds, each on its own (empty for a run of one request).
    pub kinds: Vec<KindStats>,
    pub checks: CheckCounts,
    /// A mix's `[flow]`: its passes.
    pub flows: Option<FlowCounts>,
}

impl Completion<'_> {
    /// The length differs from ab's Document Length.
    fn wrong_length(&self) -> bool {
        self.document_length
            .is_some_and(|length| length != self.response.body_len)
    }

    fn wrong_status(&self) -> bool {
        self.expect_status
            .is_some_and(|status| status != self.response.status)
    }

    fn wrong_body(&self) -> bool {
        !self.response.expected_found || self.response.rejected_found
    }

    fn failed_checks(&self) -> bool {
        self.verdict.failed != 0 || self.verdict.fault.is_some()
    }

    /// Whether the answer counts as failed: a wrong length, status or body, a check or a
    /// fault (a non-2xx status alone is not a failure, as in ab).
    pub fn failed(&self) -> bool {
        self.wrong_length() || self.wrong_status() || self.wrong_body() || self.failed_checks()
    }
}

impl ThreadStats {
    pub fn new(sample_cap: usize) -> ThreadStats {
        ThreadStats {
            samples: Vec::with_capacity(sample_cap.min(1 << 20)),
            sample_cap,
            ..ThreadStats::default()
        }
    }

    /// The same, counting a mix's `n_kinds` kinds each on its own too.
    pub fn with_kinds(mut self, n_kinds: usize) -> ThreadStats {
        // Not `vec![..; n]`, which makes one (two histograms) even for none.
        self.kinds = (0..n_kinds).map(|_| KindStats::default()).collect();
        self
    }

    /// ab's accounting of a complete response: the counters, the status, the times and its
    /// second of the run. Returns whether it counts as failed (a wrong length, status or body;
    /// a non-2xx status alone is not a failure, as in ab).
    pub fn count_complete(&mut self, completion: Completion) -> bool {
        let failed = completion.failed();
        let Completion {
            response,
            bytes_in,
            kept_alive,
            sample,
            corrected_us,
            at_us,
            kind,
            verdict,
            ..
        } = completion;
        let counters = &mut self.counters;
        counters.complete += 1;
        counters.bytes_received += bytes_in;
        counters.body_bytes_received += response.body_len;
        if kept_alive {
            counters.keep_alive_requests += 1;
        }
        counters.length_errors += u64::from(completion.wrong_length());
        if !(200..300).contains(&response.status) {
            counters.non_2xx += 1;
        }
        counters.status_mismatches += u64::from(completion.wrong_status());
        counters.body_mismatches += u64::from(completion.wrong_body());
        if verdict.judged != 0 || verdict.fault.is_some() {
            self.checks.count(counters, verdict);
        }
        if failed {
            counters.failed += 1;
        }
        if let Some(kind) = self.kinds.get_mut(kind) {
            kind.complete += 1;
            kind.failed += u64::from(failed);
            kind.non_2xx += u64::from(!(200..300).contains(&response.status));
            kind.body_bytes_received += response.body_len;
            kind.total.saturating_record(u64::from(sample.total_us));
            if let Some(corrected_us) = corrected_us {
                kind.corrected.saturating_record(corrected_us);
            }
        }
        self.status(response.status);
        self.record(sample, corrected_us);
        self.at(at_us, failed, corrected_us);
        failed
    }

    /// ab's accounting of a request of `kind` that ended without a response, `at_us` into
    /// the measured phase.
    pub fn count_failure(&mut self, failure: Failure, at_us: u64, kind: usize) {
        if let Some(kind) = self.kinds.get_mut(kind) {
            kind.failed += 1;
        }
        let counters = &mut self.counters;
        counters.failed += 1;
        match failure {
            Failure::Connect => counters.connect_errors += 1,
            Failure::Receive => counters.receive_errors += 1,
            Failure::Write => counters.write_errors += 1,
            Failure::Timeout => counters.timeouts += 1,
            Failure::Exception => counters.exceptions += 1,
        }
        self.at(at_us, true, None);
    }

    /// A request or an error `at_us` into the measured phase: its second, and the last
    /// activity the run's time is taken to.
    fn at(&mut self, at_us: u64, error: bool, corrected_us: Option<u64>) {
        self.second((at_us / 1_000_000) as usize, error, corrected_us);
        self.last_activity_us = self.last_activity_us.max(at_us);
    }

    /// Records a complete response's times; `corrected_us` is the latency from the scheduled
    /// send time, under `--rate` only (in a closed loop it would equal the total).
    pub fn record(&mut self, sample: Sample, corrected_us: Option<u64>) {
        let histograms = &mut self.histograms;
        histograms
            .connect
            .saturating_record(u64::from(sample.connect_us));
        histograms.processing.saturating_record(u64::from(
            sample.total_us - sample.connect_us.min(sample.total_us),
        ));
        histograms
            .waiting
            .saturating_record(u64::from(sample.wait_us));
        histograms
            .total
            .saturating_record(u64::from(sample.total_us));
        if let Some(corrected_us) = corrected_us {
            histograms.corrected.saturating_record(corrected_us);
        }
        if self.samples.len() < self.sample_cap {
            self.samples.push(sample);
        } else {
            self.samples_truncated = true;
        }
    }

    pub fn status(&mut self, status: u16) {
        *self.status_codes.entry(status).or_insert(0) += 1;
    }

    /// Counts a request or an error in second `second` of the run, and its corrected latency.
    pub fn second(&mut self, second: usize, error: bool, corrected_us: Option<u64>) {
        if self.seconds.len() <= second {
            self.seconds.resize(second + 1, Second::default());
        }
        let slot = &mut self.seconds[second];
        if error {
            slot.errors += 1;
        } else {
            slot.requests += 1;
        }
        if let Some(corrected_us) = corrected_us {
            slot.corrected
                .get_or_insert_with(second_histogram)
                .saturating_record(corrected_us);
        }
    }
}

/// Everything a report needs, merged over threads (or over machines, by `merge`).
#[derive(Debug, Clone)]
pub struct Results {
    pub counters: Counters,
    /// Empty when the run came from JSON files or outgrew [`MAX_SAMPLES`].
    pub samples: Vec<Sample>,
    pub histograms: Histograms,
    pub status_codes: BTreeMap<u16, u64>,
    pub seconds: Vec<Second>,
    /// The busiest event loop's share of its time on the CPU, 0 to 1 (of any machine's, after
    /// a merge).
    pub busiest_thread: f64,
    /// ab's "Time taken for tests", in seconds.
    pub time_taken: f64,
    /// The first response's `Server` header and body length.
    pub server_software: String,
    pub document_length: u64,
    /// What the first TLS handshake agreed (`https://` only).
    pub tls: Option<Negotiated>,
    /// A mix's kinds, in the mix's order (empty for a run of one request).
    pub kinds: Vec<KindResults>,
    pub checks: CheckCounts,
    /// A mix's `[flow]`: its passes.
    pub flows: Option<FlowCounts>,
}

impl Results {
    /// ab's table: exact from every sample when they were all kept, else from the histograms;
    /// `None` when no request completed.
    pub fn table(&mut self) -> Option<Table> {
        if self.counters.complete == 0 {
            return None;
        }
        if self.samples.len() as u64 == self.counters.complete {
            Some(Table::from_samples(&mut self.samples))
        } else {
            Some(Table::from_histograms(&self.histograms))
        }
    }

    pub fn merge(threads: Vec<ThreadStats>) -> Results {
        let mut counters = Counters::default();
        let mut histograms = Histograms::default();
        let mut status_codes = BTreeMap::new();
        let mut seconds: Vec<Second> = Vec::new();
        let mut truncated = false;
        let total_samples = threads.iter().map(|thread| thread.samples.len()).sum();
        let mut samples = Vec::with_capacity(total_samples);
        let mut last_activity_us = 0;
        let mut busiest_thread = 0.0f64;
        let mut kinds: Vec<KindStats> = Vec::new();
        let mut checks = CheckCounts::default();
        let mut flows: Option<FlowCounts> = None;
        for thread in threads {
            checks.add(&thread.checks);
            if let Some(theirs) = &thread.flows {
                flows.get_or_insert_with(|| FlowCounts::new(0)).add(theirs);
            }
            if kinds.len() < thread.kinds.len() {
                kinds.resize_with(thread.kinds.len(), KindStats::default);
            }
            for (sum, kind) in kinds.iter_mut().zip(&thread.kinds) {
                sum.add(kind);
            }
            busiest_thread = busiest_thread.max(thread.busy);
            counters.add(&thread.counters);
            histograms.add(&thread.histograms);
            for (status, count) in thread.status_codes {
                *status_codes.entry(status).or_insert(0) += count;
            }
            add_seconds(&mut seconds, &thread.seconds, 0);
            truncated |= thread.samples_truncated;
            samples.extend_from_slice(&thread.samples);
            last_activity_us = last_activity_us.max(thread.last_activity_us);
        }
        if truncated {
            samples = Vec::new();
        }
        Results {
            counters,
            samples,
            histograms,
            status_codes,
            seconds,
            busiest_thread,
            time_taken: last_activity_us as f64 / 1e6,
            server_software: String::new(),
            document_length: 0,
            tls: None,
            kinds: kinds
                .into_iter()
                .map(|stats| KindResults {
                    name: String::new(),
                    weight: 0,
                    document_length: 0,
                    stats,
                })
                .collect(),
            checks,
            flows,
        }
    }

    /// Adds `other`'s counts, histograms and statuses, and its per-second series shifted by
    /// `offset` seconds (its start after this run's, on the wall clock). The caller sets the
    /// merged time.
    pub fn absorb_at(&mut self, other: &Results, offset: usize) {
        self.counters.add(&other.counters);
        self.histograms.add(&other.histograms);
        for (status, count) in &other.status_codes {
            *self.status_codes.entry(*status).or_insert(0) += count;
        }
        add_seconds(&mut self.seconds, &other.seconds, offset);
        self.busiest_thread = self.busiest_thread.max(other.busiest_thread);
        self.samples.clear();
        // One test's runs have one mix: its kinds, in one order.
        for (kind, theirs) in self.kinds.iter_mut().zip(&other.kinds) {
            kind.stats.add(&theirs.stats);
        }
        self.checks.add(&other.checks);
        if let Some(theirs) = &other.flows {
            (self.flows.get_or_insert_with(|| FlowCounts::new(0))).add(theirs);
        }
    }

    /// Whether the client may have set the pace rather than the server; `paced` for `--rate`.
    pub fn saturation(&self, paced: bool) -> Saturation {
        let c = &self.counters;
        let started = (c.complete + c.failed).max(1);
        Saturation {
            late_fraction: paced.then(|| c.late_client as f64 / started as f64),
            busiest_thread: self.busiest_thread,
        }
    }
}

fn add_seconds(into: &mut Vec<Second>, from: &[Second], offset: usize) {
    if into.len() < from.len() + offset {
        into.resize(from.len() + offset, Second::default());
    }
    for (slot, second) in into[offset..].iter_mut().zip(from) {
        slot.requests += second.requests;
        slot.errors += second.errors;
        if let Some(corrected) = &second.corrected {
            // Both have the bounds of second_histogram, so adding cannot fail.
            let _ = slot
                .corrected
                .get_or_insert_with(second_histogram)
                .add(corrected);
        }
    }
}
