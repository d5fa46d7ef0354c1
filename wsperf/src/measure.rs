//! Timing as the classic binding benchmarks do it: a warm-up of at least N runs and a
//! duration, then batches of many calls timed with one clock read each, until there are at
//! least `repeat` batches and `time` milliseconds; the median batch gives the time per call, the
//! fastest and slowest batches its spread.

use std::time::{Duration, Instant};

use serde::Serialize;

/// The longest batch: short enough that a run of the default second holds a hundred of them,
/// which makes the median and the spread mean something on a noisy machine.
const MAX_BATCH: Duration = Duration::from_millis(10);

/// The timing options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timing {
    /// At least this long a warm-up…
    pub warmup: Duration,
    /// …and at least this many calls in it.
    pub warmup_calls: u64,
    /// At least this many measured batches…
    pub repeat: u64,
    /// …and at least this long in all.
    pub time: Duration,
}

/// The time per call of one measurement, in nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Sample {
    /// The median batch's time per call.
    pub median_ns: f64,
    /// The fastest batch's.
    pub min_ns: f64,
    /// The slowest batch's.
    pub max_ns: f64,
    pub n_batches: u64,
    pub n_calls: u64,
}

impl Timing {
    /// Times `call`.
    pub fn measure(&self, mut call: impl FnMut()) -> Sample {
        let warmup_started = Instant::now();
        let mut n_warmup = 0u64;
        while n_warmup < self.warmup_calls || warmup_started.elapsed() < self.warmup {
            call();
            n_warmup += 1;
        }
        let per_call = if n_warmup > 0 {
            warmup_started.elapsed() / n_warmup.try_into().unwrap_or(u32::MAX)
        } else {
            let started = Instant::now();
            call();
            started.elapsed()
        };
        let batch_time =
            (self.time / self.repeat.max(1).try_into().unwrap_or(u32::MAX)).min(MAX_BATCH);
        let batch_size = (batch_time.as_nanos() / per_call.as_nanos().max(1)).max(1) as u64;

        let mut per_call_ns = Vec::new();
        let started = Instant::now();
        while (per_call_ns.len() as u64) < self.repeat.max(1) || started.elapsed() < self.time {
            let batch_started = Instant::now();
            for _ in 0..batch_size {
                call();
            }
            per_call_ns.push(batch_started.elapsed().as_nanos() as f64 / batch_size as f64);
        }
        per_call_ns.sort_by(f64::total_cmp);
        Sample {
            median_ns: host::median::median(&per_call_ns).unwrap_or_default(),
            min_ns: per_call_ns[0],
            max_ns: per_call_ns[per_call_ns.len() - 1],
            n_batches: per_call_ns.len() as u64,
            n_calls: per_call_ns.len() as u64 * batch_size,
        }
    }
}
