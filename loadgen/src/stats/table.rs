//! ab's arithmetic over a run: the Connection Times table, the percentile list and `-e`'s rows,
//! exactly from every sample or to three significant digits from the histograms.

use hdrhistogram::Histogram;
use host::median::median;

use super::{Histograms, Sample};

/// One row of ab's Connection Times table, in µs (the report rounds to ms as ab).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Row {
    pub min: u64,
    /// ab's integer mean.
    pub mean: u64,
    /// The sample standard deviation.
    pub sd: f64,
    pub median: u64,
    pub max: u64,
}

/// ab's Connection Times table, percentiles and `-e` rows.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    pub connect: Row,
    pub processing: Row,
    pub waiting: Row,
    pub total: Row,
    /// The total times for ab's percentile list, in µs.
    pub percentiles: Vec<(u32, u64)>,
    /// The total time at 0%, 1%, ..., 100%, in µs (`-e`).
    pub csv: Vec<u64>,
    /// Whether the figures come from the histograms (merged or very long runs) rather than from
    /// every sample.
    pub from_histograms: bool,
}

/// ab's percentile list.
pub const PERCENTILES: [u32; 9] = [50, 66, 75, 80, 90, 95, 98, 99, 100];

impl Table {
    /// ab's arithmetic over every sample. Sorts `samples` by total time, as ab leaves them
    /// for `-g`.
    pub fn from_samples(samples: &mut [Sample]) -> Table {
        let done = samples.len();
        assert!(done > 0, "a table needs at least one sample");
        let mut values: Vec<u64> = Vec::with_capacity(done);
        let row = |values: &mut Vec<u64>, value: fn(&Sample) -> u64| {
            values.clear();
            values.extend(samples.iter().map(value));
            row_of(values)
        };
        let connect = row(&mut values, |sample| u64::from(sample.connect_us));
        let processing = row(&mut values, |sample| {
            u64::from(sample.total_us.saturating_sub(sample.connect_us))
        });
        let waiting = row(&mut values, |sample| u64::from(sample.wait_us));
        // Sorted by total time, as ab leaves them for -g; the totals come out sorted with them.
        samples.sort_unstable_by_key(|sample| sample.total_us);
        values.clear();
        values.extend(samples.iter().map(|sample| u64::from(sample.total_us)));
        let total_row = row_of_sorted(&values);
        let total = |index: usize| u64::from(samples[index.min(done - 1)].total_us);
        let percentiles = PERCENTILES
            .iter()
            .map(|&p| {
                let value = if p >= 100 {
                    total(done - 1)
                } else {
                    total(done * p as usize / 100)
                };
                (p, value)
            })
            .collect();
        let csv = (0..=100usize)
            .map(|i| match i {
                0 => total(0),
                100 => total(done - 1),
                // ab's index, kept in bounds (ab reads past the end for tiny runs).
                _ => total((0.5 + done as f64 * i as f64 / 100.0) as usize),
            })
            .collect();
        Table {
            connect,
            processing,
            waiting,
            total: total_row,
            percentiles,
            csv,
            from_histograms: false,
        }
    }

    /// The same figures from histograms: exact to three significant digits.
    pub fn from_histograms(histograms: &Histograms) -> Table {
        let row = |histogram: &Histogram<u64>| Row {
            min: histogram.min(),
            mean: histogram.mean() as u64,
            sd: histogram.stdev(),
            median: histogram.value_at_quantile(0.5),
            max: histogram.max(),
        };
        let total = &histograms.total;
        Table {
            connect: row(&histograms.connect),
            processing: row(&histograms.processing),
            waiting: row(&histograms.waiting),
            total: row(total),
            percentiles: PERCENTILES
                .iter()
                .map(|&p| (p, total.value_at_quantile(f64::from(p) / 100.0)))
                .collect(),
            csv: (0..=100)
                .map(|i| total.value_at_quantile(f64::from(i) / 100.0))
                .collect(),
            from_histograms: true,
        }
    }
}

/// The row of values in any order: only the median needs order, and selecting it is linear
/// where sorting is not. Only the total column is sorted (for -g and the percentiles).
fn row_of(values: &mut [u64]) -> Row {
    let done = values.len();
    let (lower, &mut middle, _) = values.select_nth_unstable(done / 2);
    let median = if done.is_multiple_of(2) {
        // The other middle value is the largest of the lower half.
        lower
            .iter()
            .copied()
            .max()
            .unwrap_or(middle)
            .midpoint(middle)
    } else {
        middle
    };
    row_with_median(values, median)
}

fn row_of_sorted(sorted: &[u64]) -> Row {
    row_with_median(sorted, median(sorted).unwrap_or(0))
}

/// min, ab's integer mean, the sample sd around it, and max of the values, with their median.
fn row_with_median(values: &[u64], median: u64) -> Row {
    let done = values.len();
    let sum: u64 = values.iter().sum();
    let mean = sum / done as u64;
    let sd = if done > 1 {
        let squares: f64 = values
            .iter()
            .map(|&value| {
                let delta = value as f64 - mean as f64;
                delta * delta
            })
            .sum();
        (squares / (done - 1) as f64).sqrt()
    } else {
        0.0
    };
    Row {
        min: values.iter().copied().min().unwrap_or(0),
        mean,
        sd,
        median,
        max: values.iter().copied().max().unwrap_or(0),
    }
}

/// ab's `ap_round_ms`: µs to whole ms, rounding half up.
pub fn round_ms(us: u64) -> u64 {
    (us + 500) / 1000
}
