//! `--baseline DIR`: this run's cells against those of an earlier `--out` folder, matched by
//! test, concurrency, target and client. Each matched cell gets the change in its median
//! requests per second and in its p99, each with a confidence interval from the repeats
//! (module `shift`: why a rank interval and not a bootstrap), and a verdict. Cells in only
//! one of the two runs are listed, never failed.

mod shift;

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};
use serde::{Deserialize, Serialize};

use loadgen::stats::median;

pub use crate::baseline::shift::{AIMED_CONFIDENCE, LOWEST_CONFIDENCE, Shift};
use crate::matrix::CellResult;
use crate::output::SuiteResults;

/// The exit code when `--fail-on-regression PCT` finds a cell slower by more than PCT with
/// confidence.
pub const REGRESSION_EXIT_CODE: i32 = 4;

/// How the interval is found, for the reader of the results.
pub const METHOD: &str = "Hodges-Lehmann shift of the runs' logarithms, with the distribution-free interval of the Mann-Whitney statistic's exact distribution";

/// An earlier run's results, read from the folder its `--out` wrote.
#[derive(Debug)]
pub struct Baseline {
    pub dir: PathBuf,
    pub results: SuiteResults,
}

impl Baseline {
    /// Reads `DIR/results.json`, saying what is wrong when the folder is not one `--out` wrote.
    pub fn read(dir: &Path) -> anyhow::Result<Baseline> {
        let path = dir.join("results.json");
        if !dir.is_dir() {
            bail!("--baseline {}: no such folder", dir.display());
        }
        let text = std::fs::read_to_string(&path).with_context(|| {
            format!(
                "--baseline {}: cannot read its results.json (the folder must be one that `loadgen suite --out` wrote)",
                dir.display()
            )
        })?;
        let results: SuiteResults = serde_json::from_str(&text).with_context(|| {
            format!(
                "--baseline {}: {} is not a suite's results.json",
                dir.display(),
                path.display()
            )
        })?;
        Ok(Baseline {
            dir: dir.to_path_buf(),
            results,
        })
    }

    /// Refuses a run that would share no cell with the baseline, before anything is measured,
    /// naming what each has; returns notes on settings that differ (they make the comparison
    /// one of those settings too).
    pub fn check_plan(
        &self,
        tests: &[String],
        concurrencies: &[u32],
        targets: &[String],
        clients: &[String],
        tls: bool,
        http2: bool,
    ) -> anyhow::Result<Vec<String>> {
        let base = &self.results;
        let planned: BTreeSet<CellKey> = tests
            .iter()
            .flat_map(|test| {
                concurrencies.iter().flat_map(move |&concurrency| {
                    targets.iter().flat_map(move |target| {
                        clients.iter().map(move |client| CellKey {
                            test: test.clone(),
                            concurrency,
                            target: target.clone(),
                            client: client.clone(),
                        })
                    })
                })
            })
            .collect();
        if keys(base).is_disjoint(&planned) {
            bail!(
                "--baseline {}: no cell in common with this run, which would measure {}; the baseline measured {}",
                self.dir.display(),
                describe(tests, concurrencies, targets, clients),
                describe(
                    &base.tests,
                    &base.concurrencies,
                    &base
                        .targets
                        .iter()
                        .map(|t| t.name.clone())
                        .collect::<Vec<_>>(),
                    &base
                        .clients
                        .iter()
                        .map(|c| c.name.clone())
                        .collect::<Vec<_>>(),
                ),
            );
        }
        let mut notes = Vec::new();
        let protocol = |tls: bool, http2: bool| match (tls, http2) {
            (false, false) => "HTTP/1.1",
            (true, false) => "HTTP/1.1 over TLS",
            (false, true) => "HTTP/2 (h2c)",
            (true, true) => "HTTP/2 over TLS",
        };
        if (base.tls, base.http2) != (tls, http2) {
            notes.push(format!(
                "the baseline was measured over {}, this run over {}: the changes include the protocol's",
                protocol(base.tls, base.http2),
                protocol(tls, http2)
            ));
        }
        Ok(notes)
    }

    /// Compares `current`'s cells with the baseline's.
    pub fn compare(&self, current: &SuiteResults, notes: Vec<String>) -> Comparison {
        let base = &self.results;
        let mut cells = Vec::new();
        let mut only_here = Vec::new();
        for cell in &current.cells {
            let key = CellKey::of(cell);
            match base.cell(&cell.test, cell.concurrency, &cell.target, &cell.client) {
                Some(before) => {
                    if let Some(change) = CellChange::between(before, cell) {
                        cells.push(change);
                    } else {
                        only_here.push(key);
                    }
                }
                None => only_here.push(key),
            }
        }
        let here = keys(current);
        let only_in_baseline = keys(base).difference(&here).cloned().collect();
        Comparison {
            dir: self.dir.display().to_string(),
            date: base.date.clone(),
            command_line: base.command_line.clone(),
            method: METHOD.to_owned(),
            cells,
            only_here,
            only_in_baseline,
            notes,
        }
    }
}

fn keys(results: &SuiteResults) -> BTreeSet<CellKey> {
    results.cells.iter().map(CellKey::of).collect()
}

fn describe(
    tests: &[String],
    concurrencies: &[u32],
    targets: &[String],
    clients: &[String],
) -> String {
    let list = |items: Vec<String>| items.join(", ");
    format!(
        "tests {} at c={} on {} with {}",
        list(tests.to_vec()),
        list(concurrencies.iter().map(u32::to_string).collect()),
        list(targets.to_vec()),
        list(clients.to_vec())
    )
}

/// What identifies a cell across runs.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct CellKey {
    pub test: String,
    pub concurrency: u32,
    pub target: String,
    pub client: String,
}

impl CellKey {
    fn of(cell: &CellResult) -> CellKey {
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
    fn between(before: &CellResult, now: &CellResult) -> Option<CellChange> {
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
