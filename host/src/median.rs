//! The one median of the workspace: loadgen's tables, the suite's cells, wsperf's batches and
//! xtask's benchmarks all take it.

/// A value whose median may fall between two of them.
pub trait Midpoint: Copy {
    /// Halfway from `self` to `other`; integers round down, as ab's arithmetic does.
    fn midpoint(self, other: Self) -> Self;
}

impl Midpoint for u64 {
    fn midpoint(self, other: u64) -> u64 {
        u64::midpoint(self, other)
    }
}

impl Midpoint for f64 {
    fn midpoint(self, other: f64) -> f64 {
        f64::midpoint(self, other)
    }
}

/// The median of sorted values, `None` for none: the middle one, or halfway between the middle
/// two of an even count. (ab averages the middle two when the count is odd, which is
/// backwards.)
pub fn median<T: Midpoint>(sorted: &[T]) -> Option<T> {
    let n = sorted.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(sorted[n / 2]),
        _ => Some(sorted[n / 2 - 1].midpoint(sorted[n / 2])),
    }
}

/// The median of `values` in any order, `None` for none.
pub fn median_of(mut values: Vec<f64>) -> Option<f64> {
    values.sort_by(f64::total_cmp);
    median(&values)
}
