//! The schedule driven by made-up instants: exact counts across threads, the warm-up and the
//! time limit, and `--rate`'s send times interleaving into one even schedule.

use std::sync::atomic::AtomicU64;
use std::time::{Duration, Instant};

use super::{Schedule, Timing};
use crate::pace::{Pace, Rate};
use crate::shard::Shard;

fn timing(n_requests: Option<u64>, rate: Option<f64>, n_threads: usize) -> Timing {
    Timing {
        n_requests,
        time_limit: None,
        warmup: Duration::ZERO,
        rate: rate.map(Rate::Fixed),
        n_threads,
        shard: Shard::WHOLE,
    }
}

#[test]
fn threads_claim_exactly_n_between_them() {
    // (n, threads)
    for (n, n_threads) in [
        (0, 1),
        (1, 1),
        (7, 3),
        (1000, 4),
        (64 * 4 * 5 + 3, 4),
        (100_000, 2),
    ] {
        let remaining = AtomicU64::new(n);
        let start = Instant::now();
        let mut schedules: Vec<Schedule> = (0..n_threads)
            .map(|idx| Schedule::new(timing(Some(n), None, n_threads), idx, start))
            .collect();
        let mut ordinals = Vec::new();
        // Round robin, as threads would interleave, until every thread has drained.
        while schedules.iter().any(|schedule| !schedule.draining()) {
            for schedule in &mut schedules {
                match schedule.claim(start, &remaining, false) {
                    Some(claim) if claim.counted => ordinals.push(claim.ordinal),
                    Some(_) => panic!("no warm-up was set"),
                    None => assert!(schedule.draining()),
                }
            }
        }
        // Each of the run's numbers once: a mix's shares depend on it.
        ordinals.sort_unstable();
        assert_eq!(
            ordinals,
            (0..n).collect::<Vec<_>>(),
            "n {n}, {n_threads} threads"
        );
    }
}

/// A closed-loop run of a 1-s warm-up and then 2 timed seconds, on one thread.
fn timed() -> Timing {
    Timing {
        n_requests: None,
        time_limit: Some(Duration::from_secs(2)),
        warmup: Duration::from_secs(1),
        rate: None,
        n_threads: 1,
        shard: Shard::WHOLE,
    }
}

#[test]
fn the_warm_up_claims_nothing_and_the_time_limit_ends_the_claims() {
    let start = Instant::now();
    let timing = timed();
    let remaining = AtomicU64::new(u64::MAX);
    let mut schedule = Schedule::new(timing, 0, start);
    let at = |millis| start + Duration::from_millis(millis);
    // (instant, expected claim)
    let cases = [
        (at(0), Some(false)),
        (at(999), Some(false)),
        (at(1000), Some(true)),
        (at(2999), Some(true)),
        (at(3000), None),
        // Once drained, it stays drained.
        (at(1500), None),
    ];
    for (now, expected) in cases {
        assert_eq!(
            schedule
                .claim(now, &remaining, false)
                .map(|claim| claim.counted),
            expected,
            "{now:?}"
        );
    }
    // The warm-up took nothing from the counter; two counted claims took a batch.
    assert_eq!(
        remaining.load(std::sync::atomic::Ordering::Relaxed),
        u64::MAX - 64
    );
}

#[test]
fn a_request_of_the_warm_up_counts_when_it_ends_in_a_timed_closed_loop_phase() {
    let start = Instant::now();
    let at = |millis| start + Duration::from_millis(millis);
    let timed = timed();
    let exact = Timing {
        n_requests: Some(100),
        ..timed
    };
    let paced = Timing {
        rate: Some(Rate::Fixed(100.0)),
        ..timed
    };
    // (the run's timing, counted when it started, when it ends, counts)
    let cases = [
        (timed, true, at(1500), true),
        (timed, false, at(500), false),
        (timed, false, at(1000), true),
        (timed, false, at(2999), true),
        (timed, false, at(3000), false),
        // -n keeps its exact count, --rate its offered schedule.
        (exact, false, at(1500), false),
        (exact, true, at(1500), true),
        (paced, false, at(1500), false),
        (paced, true, at(1500), true),
    ];
    for (timing, counted, now, expected) in cases {
        let schedule = Schedule::new(timing, 0, start);
        assert_eq!(
            schedule.counts(counted, now),
            expected,
            "{timing:?}, counted {counted}, at {:?}",
            now - start
        );
    }
}

#[test]
fn a_stop_ends_the_claims() {
    let start = Instant::now();
    let remaining = AtomicU64::new(10);
    let mut schedule = Schedule::new(timing(Some(10), None, 1), 0, start);
    assert_eq!(schedule.claim(start, &remaining, true), None);
    assert!(
        !schedule.draining(),
        "a stop is the run's, not the schedule's"
    );
    schedule.drain();
    assert_eq!(schedule.claim(start, &remaining, false), None);
}

#[test]
fn paced_threads_interleave_into_one_even_schedule() {
    // (rate, threads)
    for (rate, n_threads) in [(100.0, 1), (1000.0, 3), (250.0, 4)] {
        let start = Instant::now();
        let mut sends = Vec::new();
        for idx in 0..n_threads {
            let mut schedule = Schedule::new(timing(None, Some(rate), n_threads), idx, start);
            assert!(schedule.paced());
            // Ask a second from now: everything up to then is due, in order.
            let now = start + Duration::from_secs(1);
            while schedule.send_due(now) {
                sends.push(schedule.advance());
            }
            assert!(schedule.next_send().is_some_and(|next| next > now));
        }
        sends.sort();
        assert_eq!(
            sends.len(),
            rate as usize + 1,
            "rate {rate}, {n_threads} threads"
        );
        let expected = Duration::from_secs_f64(1.0 / rate);
        for (idx, pair) in sends.windows(2).enumerate() {
            let gap = pair[1] - pair[0];
            let off = gap.abs_diff(expected);
            assert!(
                off < Duration::from_micros(1),
                "rate {rate}, {n_threads} threads: gap {idx} is {gap:?}, not {expected:?}"
            );
        }
    }
}

#[test]
fn an_unpaced_schedule_has_no_send_times() {
    let start = Instant::now();
    let schedule = Schedule::new(timing(Some(5), None, 2), 1, start);
    assert!(!schedule.paced());
    assert_eq!(schedule.next_send(), None);
    assert!(!schedule.send_due(start + Duration::from_secs(5)));
}

/// A ramp, sharded N ways with T threads each: the union of every shard's send times is the
/// whole test's ramp, send k at the time its pace gives, none missing or repeated.
#[test]
fn shards_of_a_ramp_make_the_one_ramp() {
    let rate = Rate::Ramp {
        from: 1000.0,
        to: 20000.0,
    };
    let warmup = Duration::from_millis(500);
    let time_limit = Duration::from_secs(4);
    let pace = Pace::new(rate, warmup, Some(time_limit));
    for (n_shards, n_threads) in [(1, 1), (1, 3), (3, 2), (4, 1)] {
        let start = Instant::now();
        let per_thread = 3000 / (n_shards * n_threads as u32) as usize;
        let mut times: Vec<Duration> = Vec::new();
        for shard in 0..n_shards {
            for thread in 0..n_threads {
                let timing = Timing {
                    time_limit: Some(time_limit),
                    warmup,
                    rate: Some(rate),
                    shard: Shard {
                        index: shard,
                        count: n_shards,
                    },
                    ..timing(None, None, n_threads)
                };
                let mut schedule = Schedule::new(timing, thread, start);
                for _ in 0..per_thread {
                    times.push(schedule.advance() - start);
                }
            }
        }
        times.sort();
        for (k, time) in times.iter().enumerate() {
            let expected = pace.time_of(k as f64);
            assert!(
                (time.as_secs_f64() - expected).abs() < 1e-6,
                "{n_shards} shards of {n_threads} threads: send {k} at {time:?}, not {expected} s"
            );
        }
    }
}

/// Sharded N ways, with T threads each, the union of every shard's send times is the one even
/// schedule of the whole test: k/R for k = 0, 1, 2, ... with none missing or repeated.
#[test]
fn shards_send_times_make_one_even_schedule() {
    for (rate, n_shards, n_threads) in [(100.0, 1, 1), (1000.0, 3, 2), (250.0, 4, 3), (7.0, 5, 1)] {
        let start = Instant::now();
        let per_thread = 20;
        let mut times: Vec<Duration> = Vec::new();
        for shard in 0..n_shards {
            for thread in 0..n_threads {
                let timing = Timing {
                    shard: Shard {
                        index: shard,
                        count: n_shards,
                    },
                    ..timing(None, Some(rate), n_threads)
                };
                let mut schedule = Schedule::new(timing, thread, start);
                for _ in 0..per_thread {
                    times.push(schedule.advance() - start);
                }
            }
        }
        times.sort();
        for (k, time) in times.iter().enumerate() {
            let expected = k as f64 / rate;
            assert!(
                (time.as_secs_f64() - expected).abs() < 1e-6,
                "rate {rate}, {n_shards} shards of {n_threads} threads: send {k} at {time:?}, not {expected} s"
            );
        }
    }
}
