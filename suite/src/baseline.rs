//! `--baseline DIR`: this run's cells against those of an earlier `--out` folder, matched by
//! test, concurrency, target and client, into a [`Comparison`] (module `change`): each matched
//! cell's change with a confidence interval and a verdict. Cells in only one of the two runs
//! are listed, never failed.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};

use crate::change::{CellChange, CellKey, Comparison, METHOD};
use crate::output::{Protocol, SuiteResults};

/// The exit code when `--fail-on-regression PCT` finds a cell slower by more than PCT with
/// confidence.
pub const REGRESSION_EXIT_CODE: i32 = 4;

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
        protocol: Protocol,
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
        if base.protocol != protocol {
            notes.push(format!(
                "the baseline was measured over {}, this run over {protocol}: the changes include the protocol's",
                base.protocol
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
