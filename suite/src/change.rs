//! What a comparison with a baseline found: each cell's change in requests per second and in
//! p99 with a confidence interval (module `shift`: why a rank interval and not a bootstrap) and
//! a verdict, and the cells in one run only. Stored in results.json, so that `--redraw` shows
//! it again; module `baseline` reads the earlier run and makes it.

mod shift;

use std::fmt::Write as _;

use host::median::median;
use serde::{Deserialize, Serialize};

pub use crate::change::shift::{AIMED_CONFIDENCE, LOWEST_CONFIDENCE, Shift};
use crate::matrix::CellResult;

/// How the interval is found, for the reader of the results.
pub const METHOD: &str = "Hodges-Lehmann shift of the runs' logarithms, with the distribution-free interval of the Mann-Whitney statistic's exact distribution";

/// What identifies a cell across runs.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct CellKey {
    pub test: String,
    pub concurrency: u32,
    pub target: String,
    pub client: String,
}

impl CellKey {
    pub(crate) fn of(cell: &CellResult) -> CellKey {
        CellKey {
            test: cell.test.clone(),
            concurrency: cell.concurrency,
            target: cell.target.clone(),
            client: cell.client.clone(),
        }
    }

    /// `EchoVoid c=30 wstest (loadgen)`.
    pub fn describe(&self) -> String {
        format!(
            "{} c={} {} ({})",
            self.test, self.concurrency, self.target, self.client
        )
    }
}

/// This run against a baseline: stored in results.json, so that `--redraw` shows it again.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Comparison {
    /// The baseline's folder, its date and its command line.
    pub dir: String,
    pub date: String,
    pub command_line: Vec<String>,
    pub method: String,
    /// The cells measured cleanly in both runs.
    pub cells: Vec<CellChange>,
    /// Cells of this run with no clean counterpart in the baseline (absent, wrong or failed
    /// there or here), and the baseline's cells absent here.
    pub only_here: Vec<CellKey>,
    pub only_in_baseline: Vec<CellKey>,
    /// Settings that differ between the two runs.
    pub notes: Vec<String>,
}

/// One cell's change.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CellChange {
    #[serde(flatten)]
    pub key: CellKey,
    pub requests_per_second: Change,
    pub p99_ms: Change,
}

/// Which way a figure went, with the confidence of its interval.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// More requests a second, or a lower p99.
    Faster,
    Slower,
    /// The interval holds no change.
    WithinNoise,
    /// Too few runs on one side for an interval of [`LOWEST_CONFIDENCE`] (three a side give
    /// 90%).
    TooFewRuns,
}

impl Verdict {
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Faster => "faster",
            Verdict::Slower => "slower",
            Verdict::WithinNoise => "within noise",
            Verdict::TooFewRuns => "too few runs",
        }
    }
}

/// The change of one figure of a cell.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Change {
    /// The medians of the baseline's runs and of this run's.
    pub baseline_median: f64,
    pub median: f64,
    /// `median / baseline_median - 1`.
    pub median_change: f64,
    /// The shift's estimate and interval, as fractions; `None` with too few runs.
    pub shift: Option<ShiftFigures>,
    pub verdict: Verdict,
    pub runs: (usize, usize),
}

/// [`Shift`] as stored.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ShiftFigures {
    pub estimate: f64,
    pub low: f64,
    pub high: f64,
    pub confidence: f64,
}

impl Change {
    /// The change from the `baseline` runs to the `current` ones; `higher_is_faster` for
    /// requests per second, not for latency.
    pub fn between(baseline: &[f64], current: &[f64], higher_is_faster: bool) -> Option<Change> {
        let sorted = |values: &[f64]| {
            let mut values = values.to_vec();
            values.sort_by(f64::total_cmp);
            values
        };
        let baseline_median = median(&sorted(baseline))?;
        let current_median = median(&sorted(current))?;
        let shift = Shift::between(baseline, current);
        let verdict = match shift {
            None => Verdict::TooFewRuns,
            Some(shift) if shift.up() == higher_is_faster && (shift.up() || shift.down()) => {
                Verdict::Faster
            }
            Some(shift) if shift.up() || shift.down() => Verdict::Slower,
            Some(_) => Verdict::WithinNoise,
        };
        Some(Change {
            baseline_median,
            median: current_median,
            median_change: if baseline_median > 0.0 {
                current_median / baseline_median - 1.0
            } else {
                0.0
            },
            shift: shift.map(|shift| ShiftFigures {
                estimate: shift.estimate,
                low: shift.low,
                high: shift.high,
                confidence: shift.confidence,
            }),
            verdict,
            runs: (baseline.len(), current.len()),
        })
    }

    /// `-12.3% [-15.1, -9.0] slower`.
    pub fn text(&self) -> String {
        let mut text = format!("{:+.1}%", self.median_change * 100.0);
        if let Some(shift) = &self.shift {
            let _ = write!(
                text,
                " [{:+.1}, {:+.1}]",
                shift.low * 100.0,
                shift.high * 100.0
            );
        }
        let _ = write!(text, " {}", self.verdict.word());
        text
    }
}

impl CellChange {
    /// The change of a cell measured cleanly in both runs; `None` when either is wrong, has
    /// no runs, or failed some request.
    pub(crate) fn between(before: &CellResult, now: &CellResult) -> Option<CellChange> {
        let clean = |cell: &CellResult| {
            cell.wrong.is_none()
                && !cell.runs.is_empty()
                && cell.runs.iter().all(|run| run.failed + run.non_2xx == 0)
        };
        if !clean(before) || !clean(now) {
            return None;
        }
        let figures = |cell: &CellResult, get: fn(&crate::client::CellFigures) -> f64| {
            cell.runs.iter().map(get).collect::<Vec<f64>>()
        };
        Some(CellChange {
            key: CellKey::of(now),
            requests_per_second: Change::between(
                &figures(before, |run| run.requests_per_second),
                &figures(now, |run| run.requests_per_second),
                true,
            )?,
            p99_ms: Change::between(
                &figures(before, |run| run.p99_ms),
                &figures(now, |run| run.p99_ms),
                false,
            )?,
        })
    }

    /// Slower by more than `pct` percent with confidence: the whole interval of the change in
    /// requests per second lies below `-pct`%.
    pub fn regressed_by_more_than(&self, pct: f64) -> bool {
        self.requests_per_second
            .shift
            .is_some_and(|shift| shift.high < -pct / 100.0)
    }
}

impl Comparison {
    pub fn cell(
        &self,
        test: &str,
        concurrency: u32,
        target: &str,
        client: &str,
    ) -> Option<&CellChange> {
        self.cells.iter().find(|change| {
            change.key.test == test
                && change.key.concurrency == concurrency
                && change.key.target == target
                && change.key.client == client
        })
    }

    /// The lowest confidence of any cell's interval (they differ when the repeats do).
    pub fn confidence(&self) -> Option<f64> {
        self.cells
            .iter()
            .filter_map(|cell| cell.requests_per_second.shift.map(|shift| shift.confidence))
            .min_by(f64::total_cmp)
    }

    /// The lines under the table: the counts of each verdict, the cells in one run only, and
    /// the notes.
    pub fn summary(&self) -> String {
        let count = |verdict: Verdict| {
            self.cells
                .iter()
                .filter(|cell| cell.requests_per_second.verdict == verdict)
                .count()
        };
        let mut out = format!(
            "Against the baseline of {} ({}): {} faster, {} slower, {} within noise",
            self.date,
            self.dir,
            count(Verdict::Faster),
            count(Verdict::Slower),
            count(Verdict::WithinNoise),
        );
        if count(Verdict::TooFewRuns) > 0 {
            let _ = write!(
                out,
                ", {} with too few runs (--repeat 3 or more on both runs)",
                count(Verdict::TooFewRuns)
            );
        }
        match self.confidence() {
            Some(confidence) => {
                let _ = writeln!(
                    out,
                    " (requests per second; {:.0}% intervals, Hodges-Lehmann and Mann-Whitney)",
                    confidence * 100.0,
                );
            }
            None => out.push('\n'),
        }
        for (label, keys) in [
            ("only in this run", &self.only_here),
            ("only in the baseline", &self.only_in_baseline),
        ] {
            if !keys.is_empty() {
                let list: Vec<String> = keys.iter().map(CellKey::describe).collect();
                let _ = writeln!(out, "Cells {label} (not compared): {}", list.join("; "));
            }
        }
        for note in &self.notes {
            let _ = writeln!(out, "Note: {note}");
        }
        out
    }
}
