//! `--metrics ADDR`: what the server is doing, as Prometheus text at `GET /metrics` on a port of
//! its own: requests by protocol, responses by status (a SOAP fault is a 500), the time each
//! request took to answer (from its head read to its answer made, not written) as a histogram,
//! and the connections and requests open now by protocol.
//!
//! Each worker counts into a slot of its own (relaxed atomic adds on a cache line no other
//! worker writes), so counting costs a request no lock and no shared line; a scrape adds the
//! slots up. Off by default: without `--metrics` nothing is counted and no clock is read.

use std::fmt::Write as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering::Relaxed};
use std::time::Instant;

use host::prometheus::{self, LATENCY_SLOTS, family};

/// A connection's or request's protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Protocol {
    Http1 = 0,
    H2 = 1,
}

const PROTOCOLS: [(Protocol, &str); 2] = [(Protocol::Http1, "http1"), (Protocol::H2, "h2")];

/// The statuses counted one by one; any other lands in the last slot.
const STATUSES: usize = 600;

/// One worker's counts.
#[repr(align(128))]
struct Slot {
    requests: [AtomicU64; 2],
    in_flight: [AtomicI64; 2],
    connections: [AtomicI64; 2],
    responses: [AtomicU64; STATUSES],
    /// One per bucket, then the ones past the last.
    latency: [AtomicU64; LATENCY_SLOTS],
    latency_sum_ns: AtomicU64,
}

impl Slot {
    fn new() -> Slot {
        Slot {
            requests: Default::default(),
            in_flight: Default::default(),
            connections: Default::default(),
            responses: std::array::from_fn(|_| AtomicU64::new(0)),
            latency: std::array::from_fn(|_| AtomicU64::new(0)),
            latency_sum_ns: AtomicU64::new(0),
        }
    }
}

/// Every worker's counts.
pub struct Registry {
    slots: Vec<Slot>,
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Registry({} slots)", self.slots.len())
    }
}

impl Registry {
    /// A registry of `n_workers` slots.
    pub fn new(n_workers: usize) -> Arc<Registry> {
        Arc::new(Registry {
            slots: (0..n_workers.max(1)).map(|_| Slot::new()).collect(),
        })
    }

    /// The Prometheus text of every count, the workers' slots added.
    pub fn render(&self) -> String {
        let sum = |get: &dyn Fn(&Slot) -> u64| self.slots.iter().map(get).sum::<u64>();
        let gauge = |get: &dyn Fn(&Slot) -> i64| self.slots.iter().map(get).sum::<i64>();
        let mut out = String::new();
        let by_protocol = |out: &mut String, name: &str, value: &dyn Fn(usize) -> String| {
            for (protocol, label) in PROTOCOLS {
                let _ = writeln!(
                    out,
                    "{name}{{protocol=\"{label}\"}} {}",
                    value(protocol as usize)
                );
            }
        };
        family(
            &mut out,
            "wstest_requests_total",
            "counter",
            "Requests whose head was read, by protocol.",
        );
        by_protocol(&mut out, "wstest_requests_total", &|p| {
            sum(&|slot| slot.requests[p].load(Relaxed)).to_string()
        });
        family(
            &mut out,
            "wstest_responses_total",
            "counter",
            "Answers made, by HTTP status.",
        );
        for code in 0..STATUSES {
            let n = sum(&|slot| slot.responses[code].load(Relaxed));
            if n > 0 {
                let label = if code == STATUSES - 1 {
                    "other".to_owned()
                } else {
                    code.to_string()
                };
                let _ = writeln!(out, "wstest_responses_total{{code=\"{label}\"}} {n}");
            }
        }
        family(
            &mut out,
            "wstest_faults_total",
            "counter",
            "SOAP faults answered (status 500).",
        );
        let faults = sum(&|slot| slot.responses[500].load(Relaxed));
        let _ = writeln!(out, "wstest_faults_total {faults}");
        let histogram = "wstest_request_duration_seconds";
        family(
            &mut out,
            histogram,
            "histogram",
            "From a request's head read to its answer made.",
        );
        let slots: Vec<u64> = (0..LATENCY_SLOTS)
            .map(|idx| sum(&|slot| slot.latency[idx].load(Relaxed)))
            .collect();
        let sum_s = sum(&|slot| slot.latency_sum_ns.load(Relaxed)) as f64 / 1e9;
        for series in prometheus::histogram_series(histogram, &[], &slots, sum_s) {
            series.write_text(&mut out);
        }
        family(
            &mut out,
            "wstest_connections_open",
            "gauge",
            "Connections open now, by protocol (once it is known).",
        );
        by_protocol(&mut out, "wstest_connections_open", &|p| {
            gauge(&|slot| slot.connections[p].load(Relaxed)).to_string()
        });
        family(
            &mut out,
            "wstest_requests_in_flight",
            "gauge",
            "Requests read and not yet answered, by protocol (HTTP/2: streams).",
        );
        by_protocol(&mut out, "wstest_requests_in_flight", &|p| {
            gauge(&|slot| slot.in_flight[p].load(Relaxed)).to_string()
        });
        out
    }
}

/// A worker's handle on its slot (`Config::metrics`); `run` gives each worker its own.
#[derive(Debug, Clone)]
pub struct Metrics {
    registry: Arc<Registry>,
    slot: usize,
}

impl Metrics {
    pub fn new(registry: Arc<Registry>) -> Metrics {
        Metrics { registry, slot: 0 }
    }

    /// The same registry, counted into worker `idx`'s slot.
    pub(crate) fn for_worker(&self, idx: usize) -> Metrics {
        Metrics {
            registry: Arc::clone(&self.registry),
            slot: idx % self.registry.slots.len(),
        }
    }

    /// The registry every worker counts into.
    pub fn registry(&self) -> Arc<Registry> {
        Arc::clone(&self.registry)
    }

    fn slot(&self) -> &Slot {
        &self.registry.slots[self.slot]
    }

    /// A request's head is read: counted, and the clock read.
    pub(crate) fn request_started(&self, protocol: Protocol) -> Instant {
        let slot = self.slot();
        slot.requests[protocol as usize].fetch_add(1, Relaxed);
        slot.in_flight[protocol as usize].fetch_add(1, Relaxed);
        Instant::now()
    }

    /// Its answer is made, with `status`.
    pub(crate) fn request_done(&self, protocol: Protocol, status: u16, started: Instant) {
        let slot = self.slot();
        slot.in_flight[protocol as usize].fetch_sub(1, Relaxed);
        slot.responses[usize::from(status).min(STATUSES - 1)].fetch_add(1, Relaxed);
        let took = started.elapsed();
        slot.latency[prometheus::latency_slot(took.as_secs_f64())].fetch_add(1, Relaxed);
        slot.latency_sum_ns
            .fetch_add(u64::try_from(took.as_nanos()).unwrap_or(u64::MAX), Relaxed);
    }

    /// A connection now known to speak `protocol`, counted open until the guard drops.
    pub(crate) fn connection(&self, protocol: Protocol) -> OpenConnection {
        self.slot().connections[protocol as usize].fetch_add(1, Relaxed);
        OpenConnection {
            metrics: self.clone(),
            protocol,
        }
    }
}

/// Counts a connection open while it lives.
#[derive(Debug)]
pub(crate) struct OpenConnection {
    metrics: Metrics,
    protocol: Protocol,
}

impl Drop for OpenConnection {
    fn drop(&mut self) {
        self.metrics.slot().connections[self.protocol as usize].fetch_sub(1, Relaxed);
    }
}

/// Serves `GET /metrics` on `listener` from a thread of its own (`host::prometheus::serve`).
pub fn serve(listener: std::net::TcpListener, registry: Arc<Registry>) -> std::io::Result<()> {
    prometheus::serve(
        listener,
        "wstest-metrics",
        Arc::new(move || registry.render()),
    )
}
