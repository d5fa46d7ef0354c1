//! The change between two small sets of repeats of one cell, with a confidence interval that
//! stays honest at three runs a side: the Hodges-Lehmann shift (the median of every pairwise
//! difference) and its distribution-free interval, read off the exact distribution of the
//! Mann-Whitney statistic.
//!
//! Why not a bootstrap: with three runs a side a resample can only draw ten distinct medians,
//! and percentile intervals from so few values cover far less often than they claim. The rank
//! interval's coverage is exact for any continuous distribution of the runs, given only that
//! the two sides differ by a shift. The shift is taken on logarithms, so a change is a ratio:
//! 10% slower means the same at 100,000 and at 1,000 requests a second.

/// The confidence aimed at; with too few runs for it, the highest the runs allow, down to
/// [`LOWEST_CONFIDENCE`].
pub const AIMED_CONFIDENCE: f64 = 0.95;

/// Below this the interval says too little to call anything: three runs a side give 90%,
/// two a side only 67%.
pub const LOWEST_CONFIDENCE: f64 = 0.90;

/// How the current runs differ from the baseline's, as fractions (`-0.12` is 12% lower).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Shift {
    /// The Hodges-Lehmann estimate: the median of the pairwise ratios, less one.
    pub estimate: f64,
    /// The interval's ends.
    pub low: f64,
    pub high: f64,
    /// Its coverage: the exact probability, under no change, that it holds the true shift.
    pub confidence: f64,
}

impl Shift {
    /// The shift from `baseline` to `current` (positive values, in any order), or `None` when
    /// the runs are too few for [`LOWEST_CONFIDENCE`] (or some value is not positive).
    pub fn between(baseline: &[f64], current: &[f64]) -> Option<Shift> {
        if baseline
            .iter()
            .chain(current)
            .any(|value| !(*value > 0.0 && value.is_finite()))
        {
            return None;
        }
        let (m, n) = (baseline.len(), current.len());
        let rank = interval_rank(m, n)?;
        let mut differences: Vec<f64> = baseline
            .iter()
            .flat_map(|base| current.iter().map(move |now| now.ln() - base.ln()))
            .collect();
        differences.sort_by(f64::total_cmp);
        let estimate = host::median::median(&differences)?;
        let low = differences[rank.k - 1];
        let high = differences[differences.len() - rank.k];
        Some(Shift {
            estimate: estimate.exp_m1(),
            low: low.exp_m1(),
            high: high.exp_m1(),
            confidence: rank.confidence,
        })
    }

    /// The whole interval lies above zero.
    pub fn up(&self) -> bool {
        self.low > 0.0
    }

    /// The whole interval lies below zero.
    pub fn down(&self) -> bool {
        self.high < 0.0
    }
}

/// Which order statistics of the pairwise differences bound the interval: the `k`-th from
/// each end.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Rank {
    k: usize,
    confidence: f64,
}

/// The largest `k` whose interval still covers [`AIMED_CONFIDENCE`], or the first one when
/// none does but it covers [`LOWEST_CONFIDENCE`]: the interval `[d(k), d(mn+1-k)]` misses the
/// shift with probability `2 P(U < k)`, `U` being the Mann-Whitney statistic under no change.
fn interval_rank(m: usize, n: usize) -> Option<Rank> {
    if m == 0 || n == 0 {
        return None;
    }
    let counts = mann_whitney_counts(m, n);
    let total: f64 = counts.iter().sum();
    let mut below = 0.0;
    let mut best = None;
    // P(U < k) for k = 1, 2, ...; the interval must keep at least its two ends apart.
    for k in 1..=(m * n).div_ceil(2) {
        below += counts[k - 1];
        let confidence = 1.0 - 2.0 * below / total;
        if confidence < AIMED_CONFIDENCE {
            if k == 1 && confidence >= LOWEST_CONFIDENCE {
                best = Some(Rank { k, confidence });
            }
            break;
        }
        best = Some(Rank { k, confidence });
    }
    best
}

/// How many of the `C(m+n, m)` orderings of two samples give each value of the Mann-Whitney
/// statistic `U` (0 to `mn`): the coefficients of the Gaussian binomial, by the recurrence on
/// which sample holds the largest value.
fn mann_whitney_counts(m: usize, n: usize) -> Vec<f64> {
    // table[i][j][u]: orderings of i and j values with U = u.
    let mut table = vec![vec![Vec::new(); n + 1]; m + 1];
    for i in 0..=m {
        for j in 0..=n {
            let mut counts = vec![0.0; i * j + 1];
            if i == 0 || j == 0 {
                counts[0] = 1.0;
            } else {
                // The largest is one of the first sample's: it is above all j of the second.
                for (u, count) in table[i - 1][j].iter().enumerate() {
                    counts[u + j] += count;
                }
                // ... or one of the second's, above none of the first's.
                for (u, count) in table[i][j - 1].iter().enumerate() {
                    counts[u] += count;
                }
            }
            table[i][j] = counts;
        }
    }
    std::mem::take(&mut table[m][n])
}
