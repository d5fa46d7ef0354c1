//! `--shard I/N`: one test split N ways, one share a process or machine. The shares of `-n`
//! and `-c` add up to the whole exactly; `--rate`'s send times are interleaved by the schedule,
//! which reads the shard from the plan. It uses only [`crate::pace`].

use serde::{Deserialize, Serialize};

use crate::pace::Rate;

/// `--shard I/N`: share `index` of a test split `count` ways.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

impl Shard {
    /// A test run whole, as one share of one.
    pub const WHOLE: Shard = Shard { index: 0, count: 1 };

    /// `I/N` with `0 <= I < N`.
    pub fn parse(text: &str) -> Option<Shard> {
        let (index, count) = text.split_once('/')?;
        let shard = Shard {
            index: index.parse().ok()?,
            count: count.parse().ok()?,
        };
        (shard.index < shard.count).then_some(shard)
    }

    /// This shard's part of `total`: an equal share, the remainder going one each to the first
    /// shards, so that the shares add up to `total` exactly.
    pub fn part(self, total: u64) -> u64 {
        let count = u64::from(self.count);
        total / count + u64::from(u64::from(self.index) < total % count)
    }
}

/// What one process runs of a test: its shard's part of `-n` and `-c`, and its part of the
/// rate (it sends every N-th of the whole test's send times).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Share {
    pub shard: Shard,
    pub n_requests: Option<u64>,
    /// May be 0 when `-c` is smaller than the number of shards: [`Share::of`]'s callers refuse
    /// such a split.
    pub concurrency: u32,
    /// Requests per second this process sends.
    pub rate: Option<Rate>,
}

impl Share {
    /// `shard`'s share of a test of `n_requests` on `concurrency` connections at `rate`.
    pub fn of(
        shard: Shard,
        n_requests: Option<u64>,
        concurrency: u32,
        rate: Option<Rate>,
    ) -> Share {
        Share {
            shard,
            n_requests: n_requests.map(|n| shard.part(n)),
            concurrency: u32::try_from(shard.part(u64::from(concurrency)))
                .expect("a part is at most the whole"),
            rate: rate.map(|rate| rate.scaled(1.0 / f64::from(shard.count))),
        }
    }
}
