//! `--metrics ADDR` and `--prom-remote-write URL`: the run as Prometheus text, or as a remote
//! write request, while it goes: each kind's complete and failed
//! requests and its latency histogram (ab's Total time), requests sent and, under `--rate`,
//! offered by the schedule. The counts are the report's, taken where the report's are (so
//! the last scrape equals the report), into a slot per thread (relaxed adds on cache lines
//! no other thread writes); a scrape adds the slots up. Without `--metrics` there is no
//! `Live` and nothing is counted. The endpoint and the pushes are the caller's
//! (`host::prometheus::serve`, the binary's front end): the library opens no listening socket
//! and sends nothing of these.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Instant;

use host::prometheus::{self, LATENCY_SLOTS};
pub use host::prometheus::{Family, Series};

use crate::pace::Pace;

/// What `--rate`'s schedule offers: its sends until a time limit or `-n` ends them.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Offered {
    pub(crate) pace: Pace,
    /// The time limit's end, in seconds from the run's start (warm-up included).
    pub(crate) end_s: Option<f64>,
    /// `-n` (this process's share) with the warm-up's sends on top: the most it offers.
    pub(crate) most: Option<u64>,
}

impl Offered {
    /// Sends offered in the first `t` seconds.
    fn until(&self, t: f64) -> u64 {
        let t = self.end_s.map_or(t, |end| t.min(end));
        let count = self.pace.count_until(t).floor() as u64;
        self.most.map_or(count, |most| count.min(most))
    }
}

/// One kind's counts in one thread.
#[repr(align(128))]
struct KindSlot {
    complete: AtomicU64,
    failed: AtomicU64,
    latency: [AtomicU64; LATENCY_SLOTS],
    latency_sum_us: AtomicU64,
}

/// A count read from a kind's slot.
type Count = dyn Fn(&KindSlot) -> u64;

/// One thread's counts.
#[repr(align(128))]
struct Slot {
    sent: AtomicU64,
    kinds: Vec<KindSlot>,
}

/// Every thread's counts, and what the offered rate needs.
pub struct Live {
    /// The kinds' names: a mix's, or none (one kind, no label).
    names: Vec<String>,
    slots: Vec<Slot>,
    /// `--rate` (this process's share): the schedule, counted from the run's start.
    offered: Option<Offered>,
    started: OnceLock<Instant>,
}

impl std::fmt::Debug for Live {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Live({} threads)", self.slots.len())
    }
}

impl Live {
    /// Counts for `n_threads` threads and `n_kinds` kinds (named by `names` when a mix).
    pub(crate) fn new(
        n_threads: usize,
        n_kinds: usize,
        names: Vec<String>,
        offered: Option<Offered>,
    ) -> Live {
        let slot = || Slot {
            sent: AtomicU64::new(0),
            kinds: (0..n_kinds.max(1))
                .map(|_| KindSlot {
                    complete: AtomicU64::new(0),
                    failed: AtomicU64::new(0),
                    latency: std::array::from_fn(|_| AtomicU64::new(0)),
                    latency_sum_us: AtomicU64::new(0),
                })
                .collect(),
        };
        Live {
            names,
            slots: (0..n_threads.max(1)).map(|_| slot()).collect(),
            offered,
            started: OnceLock::new(),
        }
    }

    /// The run started at `at` (the warm-up's start), whence the schedule counts.
    pub(crate) fn start(&self, at: Instant) {
        let _ = self.started.set(at);
    }

    /// Thread `thread` started a request (warm-up included).
    pub(crate) fn sent(&self, thread: usize) {
        self.slots[thread].sent.fetch_add(1, Relaxed);
    }

    /// A counted response of `kind` in `total_us`; `failed` by a check.
    pub(crate) fn complete(&self, thread: usize, kind: usize, total_us: u32, failed: bool) {
        let slot = &self.slots[thread].kinds[kind];
        slot.complete.fetch_add(1, Relaxed);
        if failed {
            slot.failed.fetch_add(1, Relaxed);
        }
        let seconds = f64::from(total_us) / 1e6;
        slot.latency[prometheus::latency_slot(seconds)].fetch_add(1, Relaxed);
        slot.latency_sum_us.fetch_add(u64::from(total_us), Relaxed);
    }

    /// A counted request of `kind` that ended without a response.
    pub(crate) fn failed(&self, thread: usize, kind: usize) {
        self.slots[thread].kinds[kind].failed.fetch_add(1, Relaxed);
    }

    /// Every series' value now, by family.
    pub fn families(&self) -> Vec<Family> {
        let n_kinds = self.slots.first().map_or(0, |slot| slot.kinds.len());
        let sum = |get: &dyn Fn(&KindSlot) -> u64, kind: usize| {
            self.slots
                .iter()
                .map(|slot| get(&slot.kinds[kind]))
                .sum::<u64>()
        };
        let labels = |kind: usize| match self.names.get(kind) {
            Some(name) => vec![("kind".to_owned(), name.clone())],
            None => Vec::new(),
        };
        let counters: [(&'static str, &'static str, &Count); 2] = [
            (
                "loadgen_responses_total",
                "Complete responses counted (ab's Complete requests), by kind.",
                &|slot| slot.complete.load(Relaxed),
            ),
            (
                "loadgen_failures_total",
                "Failed requests counted (ab's Failed requests), by kind.",
                &|slot| slot.failed.load(Relaxed),
            ),
        ];
        let mut families: Vec<Family> = counters
            .into_iter()
            .map(|(name, help, get)| Family {
                name,
                kind: "counter",
                help,
                series: (0..n_kinds)
                    .map(|kind| Series::new(name, labels(kind), sum(get, kind) as f64))
                    .collect(),
            })
            .collect();
        let name = "loadgen_request_duration_seconds";
        let mut series = Vec::new();
        for kind in 0..n_kinds {
            let slots: Vec<u64> = (0..LATENCY_SLOTS)
                .map(|idx| sum(&|slot| slot.latency[idx].load(Relaxed), kind))
                .collect();
            let sum_s = sum(&|slot| slot.latency_sum_us.load(Relaxed), kind) as f64 / 1e6;
            series.extend(prometheus::histogram_series(
                name,
                &labels(kind),
                &slots,
                sum_s,
            ));
        }
        families.push(Family {
            name,
            kind: "histogram",
            help: "ab's Total time of each complete response counted, by kind.",
            series,
        });
        let sent: u64 = self.slots.iter().map(|slot| slot.sent.load(Relaxed)).sum();
        families.push(Family::single(
            "loadgen_requests_sent_total",
            "counter",
            "Requests started, the warm-up's included.",
            sent as f64,
        ));
        if let Some(offered) = self.offered {
            let count = self
                .started
                .get()
                .map_or(0, |started| offered.until(started.elapsed().as_secs_f64()));
            families.push(Family::single(
                "loadgen_requests_offered_total",
                "counter",
                "Requests --rate's schedule has offered so far, the warm-up's included.",
                count as f64,
            ));
        }
        families
    }

    /// The Prometheus text of the counts so far.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for family in self.families() {
            family.write_text(&mut out);
        }
        out
    }

    /// The counts so far as a remote-write request (Prometheus remote write 1.0: a protobuf
    /// `WriteRequest`, not yet snappy-compressed), each series with `labels` added and one
    /// sample at `timestamp_ms`.
    pub fn write_request(&self, labels: &[(String, String)], timestamp_ms: i64) -> Vec<u8> {
        let mut request = Vec::new();
        for family in self.families() {
            for series in family.series {
                let mut all: Vec<(String, String)> = vec![("__name__".to_owned(), series.name)];
                all.extend(labels.iter().cloned());
                all.extend(series.labels);
                // The protocol wants a series' labels sorted by name.
                all.sort();
                let mut timeseries = Vec::new();
                for (name, value) in &all {
                    let mut label = Vec::new();
                    protobuf::bytes(&mut label, 1, name.as_bytes());
                    protobuf::bytes(&mut label, 2, value.as_bytes());
                    protobuf::bytes(&mut timeseries, 1, &label);
                }
                let mut sample = Vec::new();
                protobuf::double(&mut sample, 1, series.value);
                protobuf::varint_field(&mut sample, 2, timestamp_ms as u64);
                protobuf::bytes(&mut timeseries, 2, &sample);
                protobuf::bytes(&mut request, 1, &timeseries);
            }
        }
        request
    }
}

/// The three protobuf encodings a `WriteRequest` needs, by hand: a dependency and a code
/// generator for four small messages would cost more than these lines.
mod protobuf {
    pub(super) fn varint(out: &mut Vec<u8>, mut value: u64) {
        while value >= 0x80 {
            out.push((value as u8) | 0x80);
            value >>= 7;
        }
        out.push(value as u8);
    }

    /// A length-delimited field (a string, bytes or an embedded message).
    pub(super) fn bytes(out: &mut Vec<u8>, field: u32, bytes: &[u8]) {
        varint(out, u64::from(field << 3 | 2));
        varint(out, bytes.len() as u64);
        out.extend_from_slice(bytes);
    }

    pub(super) fn double(out: &mut Vec<u8>, field: u32, value: f64) {
        varint(out, u64::from(field << 3 | 1));
        out.extend_from_slice(&value.to_le_bytes());
    }

    pub(super) fn varint_field(out: &mut Vec<u8>, field: u32, value: u64) {
        varint(out, u64::from(field << 3));
        varint(out, value);
    }
}
