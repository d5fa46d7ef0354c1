//! The matrix: every case checked on every target, then every cell (test x concurrency x
//! target x client) timed `repeat` times. The repeats are the outer loop and the targets the
//! inner one, so drift on a shared machine falls on every target alike.

use std::io::{IsTerminal as _, Write as _};
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail};
use serde::{Deserialize, Serialize};

use crate::check;
use crate::client::{CellFigures, CellSpec, LoadClient};
use crate::manifest::Case;
use crate::target::Target;

/// One cell's runs and what the table shows of them.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CellResult {
    pub test: String,
    pub concurrency: u32,
    pub target: String,
    pub client: String,
    /// Why the target's answer to this test was wrong; a wrong cell is not timed or ranked.
    pub wrong: Option<String>,
    pub summary: Option<Summary>,
    pub runs: Vec<CellFigures>,
}

/// The median and spread of a cell's runs.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct Summary {
    pub requests_per_second: f64,
    pub requests_per_second_min: f64,
    pub requests_per_second_max: f64,
    pub p50_ms: f64,
    pub p99_ms: f64,
    /// Failed and non-2xx requests over all runs (0 for a clean cell).
    pub failed: u64,
    pub non_2xx: u64,
}

impl Summary {
    fn of(runs: &[CellFigures]) -> Option<Summary> {
        if runs.is_empty() {
            return None;
        }
        let tps: Vec<f64> = runs.iter().map(|run| run.requests_per_second).collect();
        Some(Summary {
            requests_per_second: median(tps.clone()),
            requests_per_second_min: tps.iter().copied().fold(f64::INFINITY, f64::min),
            requests_per_second_max: tps.iter().copied().fold(0.0, f64::max),
            p50_ms: median(runs.iter().map(|run| run.p50_ms).collect()),
            p99_ms: median(runs.iter().map(|run| run.p99_ms).collect()),
            failed: runs.iter().map(|run| run.failed).sum(),
            non_2xx: runs.iter().map(|run| run.non_2xx).sum(),
        })
    }
}

/// The median; the mean of the middle two for an even count.
pub fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    match n {
        0 => 0.0,
        _ if n % 2 == 1 => values[n / 2],
        _ => (values[n / 2 - 1] + values[n / 2]) / 2.0,
    }
}

/// What the matrix is made of.
pub struct Matrix<'a> {
    pub cases: &'a [Case],
    pub concurrencies: &'a [u32],
    pub clients: &'a [&'a dyn LoadClient],
    pub duration: Duration,
    pub warmup: Duration,
    pub repeat: u32,
}

impl Matrix<'_> {
    /// Checks every case on every target (wrong answers are noted on stderr), then times the
    /// cells. A target that cannot be reached, or stops answering, ends the suite with an error.
    pub fn run(&self, targets: &mut [Target]) -> anyhow::Result<Vec<CellResult>> {
        let mut wrong: Vec<Vec<Option<String>>> = Vec::new();
        for target in targets.iter() {
            let mut per_case = Vec::new();
            for case in self.cases {
                let answer = check::post(&target.url, case).with_context(|| {
                    format!("target {} does not answer at {}", target.name, target.url)
                })?;
                let verdict = check::judge(case, &answer);
                if let Some(reason) = &verdict {
                    eprintln!("{} is wrong on {}: {reason}", target.name, case.test);
                }
                per_case.push(verdict);
            }
            wrong.push(per_case);
        }
        let mut cells = Vec::new();
        for (case_idx, case) in self.cases.iter().enumerate() {
            for &concurrency in self.concurrencies {
                for (target_idx, target) in targets.iter().enumerate() {
                    for client in self.clients {
                        cells.push(CellResult {
                            test: case.test.clone(),
                            concurrency,
                            target: target.name.clone(),
                            client: client.name().to_owned(),
                            wrong: wrong[target_idx][case_idx].clone(),
                            summary: None,
                            runs: Vec::new(),
                        });
                    }
                }
            }
        }
        let n_timed =
            cells.iter().filter(|cell| cell.wrong.is_none()).count() * self.repeat as usize;
        let mut progress = Progress::new(n_timed);
        for _ in 0..self.repeat {
            let mut cell_idx = 0;
            for case in self.cases {
                for &concurrency in self.concurrencies {
                    for target in targets.iter_mut() {
                        for client in self.clients {
                            let cell = &mut cells[cell_idx];
                            cell_idx += 1;
                            if cell.wrong.is_some() {
                                continue;
                            }
                            progress.show(&cell.target, client.name(), &case.test, concurrency);
                            let spec = CellSpec {
                                url: target.url.clone(),
                                body_file: case.body_file.clone(),
                                content_type: case.content_type.clone(),
                                headers: case.headers.clone(),
                                concurrency,
                                duration: self.duration,
                                warmup: self.warmup,
                                expect_body: case.expect_body.clone(),
                                reject_body: case.reject_body.clone(),
                            };
                            let figures = client.run(&spec).with_context(|| {
                                format!(
                                    "{} on {} ({}, c={concurrency}) with {}",
                                    case.test,
                                    target.name,
                                    target.url,
                                    client.name()
                                )
                            })?;
                            if let Some(status) = target.exited() {
                                bail!(
                                    "target {} exited ({status}) during {}",
                                    target.name,
                                    case.test
                                );
                            }
                            if figures.complete == 0 && figures.failed == 0 {
                                eprintln!(
                                    "{} on {} (c={concurrency}, {}): no request completed within the cell; a longer --duration would measure it",
                                    case.test,
                                    target.name,
                                    client.name()
                                );
                            } else if figures.complete == 0 {
                                bail!(
                                    "target {} answered no request of {} (c={concurrency}, {}): is it down?",
                                    target.name,
                                    case.test,
                                    client.name()
                                );
                            }
                            if figures.failed > 0 || figures.non_2xx > 0 {
                                eprintln!(
                                    "{} on {} with {}: {} failed, {} non-2xx of {} requests",
                                    case.test,
                                    target.name,
                                    client.name(),
                                    figures.failed,
                                    figures.non_2xx,
                                    figures.complete
                                );
                            }
                            cell.runs.push(figures);
                        }
                    }
                }
            }
        }
        progress.finish();
        for cell in &mut cells {
            cell.summary = Summary::of(&cell.runs);
        }
        Ok(cells)
    }
}

/// `cell 3 of 24: wstest, loadgen, EchoList-20, c=30, 12 s` on a terminal; nothing on a pipe.
struct Progress {
    n_cells: usize,
    done: usize,
    started: Instant,
    live: bool,
}

impl Progress {
    fn new(n_cells: usize) -> Progress {
        Progress {
            n_cells,
            done: 0,
            started: Instant::now(),
            live: std::io::stderr().is_terminal(),
        }
    }

    fn show(&mut self, target: &str, client: &str, test: &str, concurrency: u32) {
        self.done += 1;
        if self.live {
            let _ = write!(
                std::io::stderr(),
                "\r\x1b[2Kcell {} of {}: {target}, {client}, {test}, c={concurrency}, {:.0} s",
                self.done,
                self.n_cells,
                self.started.elapsed().as_secs_f64()
            );
        }
    }

    fn finish(&self) {
        if self.live {
            let _ = write!(std::io::stderr(), "\r\x1b[2K");
        }
    }
}
