//! `--shard I/N`: one test split N ways, one share a process or machine. The shares of `-n`
//! and `-c` add up to the whole exactly; `--rate`'s send times are interleaved by the
//! schedule ([`crate::schedule`]), which reads the shard from the plan.

use crate::cli::{Settings, UsageError};

/// `--shard I/N`: this process runs share `index` of a test split `count` ways.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

impl Shard {
    /// A test run whole, as one share of one.
    pub const WHOLE: Shard = Shard { index: 0, count: 1 };

    /// This shard's part of `total`: an equal share, the remainder going one each to the first
    /// shards, so that the shares add up to `total` exactly.
    pub fn share(self, total: u64) -> u64 {
        let count = u64::from(self.count);
        total / count + u64::from(u64::from(self.index) < total % count)
    }
}

/// A sharded run's whole test, as the command line gave it before the split.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct WholeTest {
    pub shard: Shard,
    pub n_requests: Option<u64>,
    pub concurrency: u32,
    /// `--rate` of the whole test; the shard sends every `count`-th of its send times.
    pub rate: Option<f64>,
}

/// Makes `settings` the share of `shard`: its part of `-n` and `-c` (refused when a share of
/// `-c` would be empty), with the whole test kept beside them.
pub(crate) fn split(settings: &mut Settings, shard: Shard) -> Result<(), UsageError> {
    let concurrency = u32::try_from(shard.share(u64::from(settings.concurrency)))
        .expect("a share is at most the whole");
    if concurrency == 0 {
        return Err(UsageError::usage(format!(
            "loadgen: -c {} cannot be split into {} shards: each needs a connection",
            settings.concurrency, shard.count
        )));
    }
    // -n is at least -c (checked above, as ab does), so no share of -n is empty either.
    let n_requests = settings.n_requests.map(|n| shard.share(n));
    settings.whole = Some(WholeTest {
        shard,
        n_requests: settings.n_requests,
        concurrency: settings.concurrency,
        rate: settings.rate,
    });
    settings.n_requests = n_requests;
    settings.concurrency = concurrency;
    Ok(())
}
