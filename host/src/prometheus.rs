//! Prometheus text (exposition format 0.0.4), as wstest-server's and loadgen's `--metrics ADDR`
//! serve it: families of series (their HELP and TYPE lines, labels escaped), a latency
//! histogram on one set of buckets as series, and the small HTTP endpoint that answers `GET /metrics` from a thread of its own.

use std::collections::VecDeque;
use std::fmt::Write as _;
use std::io::{Read as _, Write as _};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The latency histograms' upper bounds, seconds: 10 µs to 1 s.
pub const LATENCY_BUCKETS_S: [f64; 16] = [
    0.000_01, 0.000_025, 0.000_05, 0.000_1, 0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025,
    0.05, 0.1, 0.25, 0.5, 1.0,
];

/// Slots a latency histogram counts into: one per bucket, then the ones past the last.
pub const LATENCY_SLOTS: usize = LATENCY_BUCKETS_S.len() + 1;

/// The slot of a latency of `seconds`.
pub fn latency_slot(seconds: f64) -> usize {
    LATENCY_BUCKETS_S
        .iter()
        .position(|bound| seconds <= *bound)
        .unwrap_or(LATENCY_BUCKETS_S.len())
}

/// A metric family's HELP and TYPE lines.
pub fn family(out: &mut String, name: &str, kind: &str, help: &str) {
    let _ = writeln!(out, "# HELP {name} {help}");
    let _ = writeln!(out, "# TYPE {name} {kind}");
}

/// A metric family: its name, type and help, and its series.
#[derive(Debug, Clone)]
pub struct Family {
    pub name: &'static str,
    pub kind: &'static str,
    pub help: &'static str,
    pub series: Vec<Series>,
}

impl Family {
    /// A family of one unlabelled series.
    pub fn single(
        name: &'static str,
        kind: &'static str,
        help: &'static str,
        value: f64,
    ) -> Family {
        Family {
            name,
            kind,
            help,
            series: vec![Series::new(name, Vec::new(), value)],
        }
    }

    /// Its HELP and TYPE lines and a line a series.
    pub fn write_text(&self, out: &mut String) {
        family(out, self.name, self.kind, self.help);
        for series in &self.series {
            series.write_text(out);
        }
    }
}

/// One series: its name (a histogram's with `_bucket`, `_sum` or `_count`), labels and value.
#[derive(Debug, Clone)]
pub struct Series {
    pub name: String,
    pub labels: Vec<(String, String)>,
    pub value: f64,
}

impl Series {
    pub fn new(name: &str, labels: Vec<(String, String)>, value: f64) -> Series {
        Series {
            name: name.to_owned(),
            labels,
            value,
        }
    }

    /// `name{label="value",...} value`, the values escaped.
    pub fn write_text(&self, out: &mut String) {
        let _ = write!(out, "{}", self.name);
        if !self.labels.is_empty() {
            let labels: Vec<String> = self
                .labels
                .iter()
                .map(|(name, value)| format!("{name}=\"{}\"", escape(value)))
                .collect();
            let _ = write!(out, "{{{}}}", labels.join(","));
        }
        let _ = writeln!(out, " {}", self.value);
    }
}

/// A label value as the text format writes it.
fn escape(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// One histogram's series: `slots` (per [`latency_slot`], not cumulative) as cumulative
/// buckets, the sum in seconds and the count, each with `labels` (and the buckets with `le`).
pub fn histogram_series(
    name: &str,
    labels: &[(String, String)],
    slots: &[u64],
    sum_s: f64,
) -> Vec<Series> {
    let bounds = LATENCY_BUCKETS_S
        .iter()
        .map(f64::to_string)
        .chain(["+Inf".to_owned()]);
    let mut series = Vec::with_capacity(slots.len() + 2);
    let mut cumulative = 0;
    for (count, bound) in slots.iter().zip(bounds) {
        cumulative += count;
        let mut bucket = labels.to_vec();
        bucket.push(("le".to_owned(), bound));
        series.push(Series::new(
            &format!("{name}_bucket"),
            bucket,
            cumulative as f64,
        ));
    }
    series.push(Series::new(&format!("{name}_sum"), labels.to_vec(), sum_s));
    series.push(Series::new(
        &format!("{name}_count"),
        labels.to_vec(),
        cumulative as f64,
    ));
    series
}

/// What a scrape answers: the text made at that moment.
pub type Render = Arc<dyn Fn() -> String + Send + Sync>;

/// The most scrape connections served at once. A newcomer past it closes the oldest, so that
/// idle or dripping connections, however many, cannot keep a scraper out: it is answered as
/// soon as its head is in.
pub const MAX_SCRAPE_CONNECTIONS: usize = 32;
/// How long a connection has for its request head, and then for its answer to be taken.
pub const SCRAPE_DEADLINE: Duration = Duration::from_secs(2);
/// The largest request head read.
const MAX_HEAD: usize = 8192;

/// The connections being served, oldest first: each with a handle to close it by.
type Open = Arc<Mutex<VecDeque<(u64, std::net::TcpStream)>>>;

/// Serves `GET /metrics` on `listener` from a thread named `name`, each connection on a thread
/// of its own (at most [`MAX_SCRAPE_CONNECTIONS`], the oldest closed for a newcomer), each given
/// [`SCRAPE_DEADLINE`] for its head and its answer; any other request gets 404.
pub fn serve(listener: std::net::TcpListener, name: &str, render: Render) -> std::io::Result<()> {
    listener.set_nonblocking(false)?;
    let open: Open = Arc::default();
    let thread_name = name.to_owned();
    std::thread::Builder::new()
        .name(name.to_owned())
        .spawn(move || {
            let mut next_id = 0u64;
            for stream in listener.incoming() {
                let Ok(stream) = stream else {
                    // Out of descriptors, say: others close in time.
                    std::thread::sleep(Duration::from_millis(10));
                    continue;
                };
                next_id += 1;
                let id = next_id;
                let Ok(handle) = stream.try_clone() else {
                    continue;
                };
                {
                    let mut open = lock(&open);
                    if open.len() >= MAX_SCRAPE_CONNECTIONS
                        && let Some((_, oldest)) = open.pop_front()
                    {
                        let _ = oldest.shutdown(std::net::Shutdown::Both);
                    }
                    open.push_back((id, handle));
                }
                let (render, open_list) = (Arc::clone(&render), Arc::clone(&open));
                let spawned = std::thread::Builder::new()
                    .name(format!("{thread_name}-scrape"))
                    .stack_size(64 << 10)
                    .spawn(move || {
                        answer(stream, &render);
                        lock(&open_list).retain(|(open_id, _)| *open_id != id);
                    });
                if spawned.is_err() {
                    lock(&open).retain(|(open_id, _)| *open_id != id);
                }
            }
        })?;
    Ok(())
}

fn lock(open: &Open) -> std::sync::MutexGuard<'_, VecDeque<(u64, std::net::TcpStream)>> {
    open.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Reads one request head within the deadline and answers it.
fn answer(mut stream: std::net::TcpStream, render: &Render) {
    let deadline = Instant::now() + SCRAPE_DEADLINE;
    let mut head = Vec::new();
    let mut buffer = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < MAX_HEAD {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() || stream.set_read_timeout(Some(left)).is_err() {
            return;
        }
        match stream.read(&mut buffer) {
            Ok(0) | Err(_) => return,
            Ok(n) => head.extend_from_slice(&buffer[..n]),
        }
    }
    let line = head.split(|&b| b == b'\r').next().unwrap_or_default();
    let (status, body) = if line.starts_with(b"GET /metrics ") || line.starts_with(b"GET /metrics?")
    {
        ("200 OK", render())
    } else {
        (
            "404 Not Found",
            "the metrics are at GET /metrics\n".to_owned(),
        )
    };
    let _ = stream.set_write_timeout(Some(SCRAPE_DEADLINE));
    let _ = stream.write_all(
        format!(
            "HTTP/1.1 {status}\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .as_bytes(),
    );
}
