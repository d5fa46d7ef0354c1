//! `loadgen merge`: one run from the `--json` files of runs made side by side: the shards of one
//! test (`--shard`), or clients on several machines against one server. Counts and histograms
//! add exactly (HDR histograms of one layout add bucket by bucket), so the merged percentiles
//! are those of one histogram of every request; the time is the union of the runs' wall-clock
//! intervals, and each run's per-second series sits at its own start.

use crate::json::{JsonReport, MergedRun};
use crate::pace::Rate;
use crate::report::RunInfo;
use crate::stats::{KindResults, KindStats, Results};

/// One run to merge: its file's name and what the file held.
#[derive(Debug, Clone)]
pub struct Run {
    pub path: String,
    pub report: JsonReport,
    pub results: Results,
}

/// Why runs cannot be merged; each names the file at fault.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MergeError {
    #[error("nothing to merge")]
    Empty,
    #[error("{path} is shard {index} again")]
    RepeatedShard { path: String, index: u32 },
    #[error("{path} is not a run of the same test as {first}: its {difference}")]
    OtherTest {
        path: String,
        first: String,
        difference: String,
    },
}

/// The merged run.
#[derive(Debug, Clone)]
pub struct Merged {
    /// The first run's description, with the concurrency, threads, rate and requests of all
    /// (and no shard: this is the whole).
    pub info: RunInfo,
    pub results: Results,
    /// The first start and the last end, on the wall clock.
    pub started_unix: f64,
    pub ended_unix: f64,
    /// How far the last run started after the first, in seconds.
    pub start_skew: f64,
    pub runs: Vec<MergedRun>,
    /// Of a sharded test: the shards that are not among the runs.
    pub missing_shards: Vec<u32>,
}

/// Merges `runs`, which must be runs of one test (same target, request and settings but for
/// the count of requests and the shard's index), no shard twice.
pub fn merge(runs: Vec<Run>) -> Result<Merged, MergeError> {
    let first = runs.first().ok_or(MergeError::Empty)?;
    let first_report = &first.report;
    let identity = first_report.run.settings.identity();
    let mut shards_seen: Vec<u32> = Vec::new();
    for run in &runs {
        let settings = &run.report.run.settings;
        if let Some(difference) = identity.difference(&settings.identity()) {
            return Err(MergeError::OtherTest {
                path: run.path.clone(),
                first: first.path.clone(),
                difference,
            });
        }
        if let Some(shard) = settings.load.shard {
            if shards_seen.contains(&shard.index) {
                return Err(MergeError::RepeatedShard {
                    path: run.path.clone(),
                    index: shard.index,
                });
            }
            shards_seen.push(shard.index);
        }
    }
    let ended = |run: &Run| run.report.started_unix + run.results.time_taken;
    let started_unix = runs
        .iter()
        .map(|run| run.report.started_unix)
        .fold(f64::INFINITY, f64::min);
    let ended_unix = runs.iter().map(ended).fold(f64::NEG_INFINITY, f64::max);
    let start_skew = runs
        .iter()
        .map(|run| run.report.started_unix - started_unix)
        .fold(0.0, f64::max);

    let mut results = Results::merge(Vec::new());
    results.server_software = first.results.server_software.clone();
    results.document_length = first.results.document_length;
    results.tls = first.results.tls.clone();
    // One mix (the identity holds it): the first run's kinds, their figures summed below.
    results.kinds = first
        .results
        .kinds
        .iter()
        .map(|kind| KindResults {
            stats: KindStats::default(),
            ..kind.clone()
        })
        .collect();
    let mut info = first_report.run.clone();
    let (mut concurrency, mut n_threads, mut rate) = (0, 0, None::<Rate>);
    let mut n_requests = Some(0u64);
    for run in &runs {
        let offset = (run.report.started_unix - started_unix) as usize;
        results.absorb_at(&run.results, offset);
        concurrency += run.report.run.concurrency;
        n_threads += run.report.run.n_threads;
        if let Some(share) = run.report.run.rate {
            rate = Some(rate.map_or(share, |sum| sum.plus(share)));
        }
        let share = run.report.run.settings.load.share();
        n_requests = n_requests.zip(share.n_requests).map(|(a, b)| a + b);
    }
    results.time_taken = ended_unix - started_unix;
    info.concurrency = concurrency;
    info.n_threads = n_threads;
    info.rate = rate;
    let missing_shards = match first_report.run.settings.load.shard {
        Some(shard) => (0..shard.count)
            .filter(|index| !shards_seen.contains(index))
            .collect(),
        None => Vec::new(),
    };
    let load = &mut info.settings.load;
    load.n_requests = n_requests;
    load.concurrency = u32::try_from(concurrency).unwrap_or(u32::MAX);
    load.rate = rate;
    load.shard = None;
    let runs = runs
        .iter()
        .map(|run| MergedRun {
            path: run.path.clone(),
            hostname: run.report.machine.hostname.clone(),
            shard: run.report.run.settings.load.shard,
            started_unix: run.report.started_unix,
            ended_unix: ended(run),
        })
        .collect();
    Ok(Merged {
        info,
        results,
        started_unix,
        ended_unix,
        start_skew,
        runs,
        missing_shards,
    })
}
