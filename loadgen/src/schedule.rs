//! Which request a thread sends next, and when: counted requests claimed in batches from the
//! run's shared counter (so exactly `-n` leave), the warm-up before the measured phase and the
//! time limit at its end, and `--rate`'s send times (from [`crate::pace`]). It does no IO and reads no clock: every
//! decision takes `now`, so the tests drive it with instants they make.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::pace::{Pace, Rate};
use crate::shard::Shard;

/// What the schedule needs of the run's settings.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Timing {
    /// `-n`: counted requests in all; `None` runs until the time limit.
    pub(crate) n_requests: Option<u64>,
    /// `-t` / `--duration`: the measured phase's length.
    pub(crate) time_limit: Option<Duration>,
    pub(crate) warmup: Duration,
    /// `--rate`, in requests per second over all threads (of all shards, when sharded).
    pub(crate) rate: Option<Rate>,
    pub(crate) n_threads: usize,
    /// `--shard I/N`; [`Shard::WHOLE`] for a test run whole.
    pub(crate) shard: Shard,
}

/// A request a thread may start: whether it counts, and its number in the run. Counted
/// requests are numbered 0, 1, 2, ... in the order the threads claim them from the shared
/// counter, so that the run's numbers are the same whatever thread sends which; a warm-up's
/// are numbered apart, thread by thread. A mix's kind is a function of the number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Claim {
    pub(crate) counted: bool,
    pub(crate) ordinal: u64,
}

/// One thread's schedule.
#[derive(Debug)]
pub(crate) struct Schedule {
    /// Counted requests claimed from the shared counter but not yet started, and the number
    /// of the next of them.
    budget: u64,
    next_ordinal: u64,
    /// The shared counter's first value: a claim that finds `c` left starts at `initial - c`.
    initial: u64,
    /// The warm-up's next number (this thread's own: index, index + threads, ...), and its step.
    warm_ordinal: u64,
    warm_step: u64,
    claim_batch: u64,
    /// The measured phase: from `measure_start` to `measure_end`.
    pub(crate) measure_start: Instant,
    pub(crate) measure_end: Option<Instant>,
    /// `--rate`: the whole test's send times, counted from `started`; this thread's next slot
    /// among them, the step to its following one, and the next slot's time.
    pace: Option<Pace>,
    started: Instant,
    next_slot: u64,
    slot_step: u64,
    next_send: Instant,
    /// No more requests will start.
    draining: bool,
    /// A timed closed-loop run: a request in flight when the warm-up ends counts if it ends
    /// inside the measured phase ([`Schedule::counts`]).
    counts_warm_up_ends: bool,
}

impl Schedule {
    /// Thread `index`'s schedule for a run that `started`.
    pub(crate) fn new(timing: Timing, index: usize, started: Instant) -> Schedule {
        let measure_start = started + timing.warmup;
        let n_threads = timing.n_threads.max(1);
        let claim_batch = match timing.n_requests {
            // Small batches near the end would be fairer, but 64 is a few microseconds of work.
            Some(n) => (n / (n_threads as u64 * 64)).clamp(1, 64),
            None => 64,
        };
        // The threads' schedules interleave: the whole test's sends are numbered 0, 1, 2, ...
        // and thread k of T takes k, k+T, k+2T, ... Sharded N ways, shard I takes every N-th of
        // those, starting at the I-th: its thread k takes I+Nk, I+Nk+NT, ..., so that the
        // shards' union is the one schedule of the whole test, fixed rate or ramp.
        let shard_index = u64::from(timing.shard.index);
        let n_shards = u64::from(timing.shard.count.max(1));
        let pace = timing
            .rate
            .map(|rate| Pace::new(rate, timing.warmup, timing.time_limit));
        let next_slot = shard_index + n_shards * index as u64;
        let next_send = match pace {
            Some(pace) => started + Duration::from_secs_f64(pace.time_of(next_slot as f64)),
            None => started,
        };
        Schedule {
            budget: 0,
            next_ordinal: 0,
            initial: timing.n_requests.unwrap_or(u64::MAX),
            warm_ordinal: index as u64,
            warm_step: n_threads as u64,
            claim_batch,
            measure_start,
            measure_end: timing.time_limit.map(|limit| measure_start + limit),
            pace,
            started,
            next_slot,
            slot_step: n_shards * n_threads as u64,
            next_send,
            draining: false,
            counts_warm_up_ends: timing.time_limit.is_some()
                && timing.n_requests.is_none()
                && timing.rate.is_none(),
        }
    }

    /// Claims the next request from `remaining` (the run's counted requests not yet claimed):
    /// a counted one, or one in the warm-up (which claims nothing); `None` when no more will
    /// start (`stopped`, the time is up, or none are left).
    pub(crate) fn claim(
        &mut self,
        now: Instant,
        remaining: &AtomicU64,
        stopped: bool,
    ) -> Option<Claim> {
        if self.draining || stopped {
            return None;
        }
        if now < self.measure_start {
            let ordinal = self.warm_ordinal;
            self.warm_ordinal = self.warm_ordinal.wrapping_add(self.warm_step);
            return Some(Claim {
                counted: false,
                ordinal,
            });
        }
        if let Some(end) = self.measure_end
            && now >= end
        {
            self.draining = true;
            return None;
        }
        if self.budget > 0 {
            return Some(self.counted());
        }
        let mut current = remaining.load(Ordering::Relaxed);
        loop {
            if current == 0 {
                self.draining = true;
                return None;
            }
            let take = current.min(self.claim_batch);
            match remaining.compare_exchange_weak(
                current,
                current - take,
                Ordering::Relaxed,
                Ordering::Relaxed,
            ) {
                Ok(_) => {
                    self.budget = take;
                    self.next_ordinal = self.initial - current;
                    return Some(self.counted());
                }
                Err(actual) => current = actual,
            }
        }
    }

    /// The next counted request of the batch in hand.
    fn counted(&mut self) -> Claim {
        self.budget -= 1;
        let ordinal = self.next_ordinal;
        self.next_ordinal += 1;
        Claim {
            counted: true,
            ordinal,
        }
    }

    /// Whether a request that ends (answered or failed) at `now` counts, `counted` being what
    /// [`Schedule::claim`] said when it started. In a timed closed-loop run, a request still in
    /// flight when the warm-up ended counts too, when it ends inside the measured phase: the
    /// rate is then the requests that end in the phase, whatever the latency. Counting only
    /// those that start in it counts nothing where a request takes longer than the phase (a
    /// server answering 10 requests a second to 30 connections takes 3 s a request, so a 3-s
    /// phase after a warm-up saw no request both start and end), where ab, which has no
    /// warm-up, counts the 30 that end. `-n` runs keep their exact count, and `--rate` runs
    /// their offered schedule, so both count by start only.
    pub(crate) fn counts(&self, counted: bool, now: Instant) -> bool {
        counted
            || (self.counts_warm_up_ends
                && now >= self.measure_start
                && self.measure_end.is_none_or(|end| now < end))
    }

    /// No more requests will start.
    pub(crate) fn draining(&self) -> bool {
        self.draining
    }

    /// Starts no more requests.
    pub(crate) fn drain(&mut self) {
        self.draining = true;
    }

    /// Whether the run is paced (`--rate`).
    pub(crate) fn paced(&self) -> bool {
        self.pace.is_some()
    }

    /// `--rate`: the next send time, while requests still start.
    pub(crate) fn next_send(&self) -> Option<Instant> {
        (self.pace.is_some() && !self.draining).then_some(self.next_send)
    }

    /// `--rate`: whether a send is due at `now`.
    pub(crate) fn send_due(&self, now: Instant) -> bool {
        self.next_send().is_some_and(|at| at <= now)
    }

    /// `--rate`: takes the due send time (the request's intended start) and moves to the next.
    pub(crate) fn advance(&mut self) -> Instant {
        let intended = self.next_send;
        if let Some(pace) = self.pace {
            self.next_slot += self.slot_step;
            self.next_send =
                self.started + Duration::from_secs_f64(pace.time_of(self.next_slot as f64));
        }
        intended
    }
}

#[cfg(test)]
mod tests;
