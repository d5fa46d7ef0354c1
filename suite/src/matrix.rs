//! The matrix: every case checked on every target, then every cell (test x concurrency x
//! target x client) timed `repeat` times. The cells are listed once, each holding what it runs
//! and what it found, so that nothing pairs a run with its result but the cell itself. Every
//! repeat goes through the whole list, so drift on a shared machine falls on every target
//! alike.

use std::io::{IsTerminal as _, Write as _};
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail};
use host::median::median;
use host::process::{Sampler, Scope, usage_between};
use serde::{Deserialize, Serialize};

use crate::check;
use crate::client::{CellFigures, CellSpec, LoadClient, Resources};
use crate::knee::{Knee, Objective, Search};
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
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Summary {
    pub requests_per_second: f64,
    pub requests_per_second_min: f64,
    pub requests_per_second_max: f64,
    pub p50_ms: f64,
    pub p99_ms: f64,
    /// Failed and non-2xx requests over all runs (0 for a clean cell).
    pub failed: u64,
    pub non_2xx: u64,
    /// The target's CPU over a run's measured phase, seconds (median of the runs); `None`
    /// where its process is not known.
    #[serde(default)]
    pub server_cpu_s: Option<f64>,
    /// Requests answered per second of the target's CPU (median of the runs' own ratios).
    #[serde(default)]
    pub requests_per_cpu_second: Option<f64>,
    /// The target's largest resident memory in any run, kB.
    #[serde(default)]
    pub peak_rss_kb: Option<u64>,
    /// The client's CPU per request, µs (median of the runs): near a core's worth per request
    /// rate, the client may be the limit.
    #[serde(default)]
    pub client_cpu_us_per_request: Option<f64>,
    /// `--slo`: the highest rate with every objective met, and every step tried.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_rate_at_slo: Option<Knee>,
    /// Some run's client said it may have been the limit (loadgen's `client_saturation`).
    #[serde(default)]
    pub client_saturated: bool,
}

impl Summary {
    fn of(runs: &[CellFigures]) -> Option<Summary> {
        if runs.is_empty() {
            return None;
        }
        let sorted = |values: &mut dyn Iterator<Item = f64>| {
            let mut values: Vec<f64> = values.collect();
            values.sort_by(f64::total_cmp);
            values
        };
        let tps = sorted(&mut runs.iter().map(|run| run.requests_per_second));
        let p50 = sorted(&mut runs.iter().map(|run| run.p50_ms));
        let p99 = sorted(&mut runs.iter().map(|run| run.p99_ms));
        let resources = runs.iter().filter_map(|run| Some((run, run.resources?)));
        let server_cpu = sorted(&mut resources.clone().filter_map(|(_, r)| r.server_cpu_s));
        let per_cpu = sorted(&mut resources.clone().filter_map(|(run, r)| {
            let cpu = r.server_cpu_s.filter(|cpu| *cpu > 0.0)?;
            Some(run.complete as f64 / cpu)
        }));
        let client_us = sorted(&mut resources.clone().filter_map(|(run, r)| {
            (run.complete > 0).then(|| r.client_cpu_s.map(|cpu| cpu * 1e6 / run.complete as f64))?
        }));
        Some(Summary {
            requests_per_second: median(&tps)?,
            requests_per_second_min: tps[0],
            requests_per_second_max: tps[tps.len() - 1],
            p50_ms: median(&p50)?,
            p99_ms: median(&p99)?,
            failed: runs.iter().map(|run| run.failed).sum(),
            non_2xx: runs.iter().map(|run| run.non_2xx).sum(),
            server_cpu_s: median(&server_cpu),
            requests_per_cpu_second: median(&per_cpu),
            peak_rss_kb: resources.filter_map(|(_, r)| r.peak_rss_kb).max(),
            client_cpu_us_per_request: median(&client_us),
            max_rate_at_slo: None,
            client_saturated: runs
                .iter()
                .any(|run| run.document["client_saturation"]["saturated"] == true),
        })
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
    /// `--slo`: after the timed runs, the knee of each test and target (loadgen's cells at the
    /// first concurrency).
    pub objectives: &'a [Objective],
    /// `--http2` and `--streams`: loadgen speaks HTTP/2, this many streams a connection.
    pub http2: Option<u32>,
}

/// One cell: what it runs, and its result so far.
struct Cell<'a> {
    case: &'a Case,
    target: usize,
    client: &'a dyn LoadClient,
    result: CellResult,
}

impl Matrix<'_> {
    /// Checks every case on every target (wrong answers are noted on stderr), then times the
    /// cells. A target that cannot be reached, or stops answering, ends the suite with an error.
    pub fn run(&self, targets: &mut [Target]) -> anyhow::Result<Vec<CellResult>> {
        let mut cells = self.cells(targets)?;
        let n_timed = cells
            .iter()
            .filter(|cell| cell.result.wrong.is_none())
            .count()
            * self.repeat as usize;
        let mut progress = Progress::new(n_timed, self.warmup + self.duration);
        for _ in 0..self.repeat {
            for cell in cells.iter_mut().filter(|cell| cell.result.wrong.is_none()) {
                let target = &mut targets[cell.target];
                let key = &cell.result;
                progress.show(&key.target, &key.client, &key.test, key.concurrency);
                let figures = self.time(cell, target)?;
                progress.timed(&cell.result, figures.requests_per_second);
                cell.result.runs.push(figures);
            }
        }
        progress.finish();
        for cell in &mut cells {
            cell.result.summary = Summary::of(&cell.result.runs);
        }
        if !self.objectives.is_empty() {
            self.find_knees(&mut cells, targets)?;
        }
        Ok(cells.into_iter().map(|cell| cell.result).collect())
    }

    /// `--slo`: each right loadgen cell at the first concurrency gains its knee.
    fn find_knees(&self, cells: &mut [Cell<'_>], targets: &mut [Target]) -> anyhow::Result<()> {
        let first_concurrency = self.concurrencies.first().copied();
        for cell in cells.iter_mut().filter(|cell| {
            cell.result.wrong.is_none()
                && cell.result.client == "loadgen"
                && Some(cell.result.concurrency) == first_concurrency
        }) {
            let Some(summary) = &mut cell.result.summary else {
                continue;
            };
            let target = &mut targets[cell.target];
            eprintln!(
                "searching the knee of {} on {} ({})",
                cell.case.test,
                target.name,
                self.objectives
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            let spec = self.spec(cell.case, target, cell.result.concurrency);
            let search = Search {
                cell: &spec,
                objectives: self.objectives,
                closed_loop_rate: summary.requests_per_second,
            };
            let knee = search.run();
            let patience = if knee.is_err() {
                Duration::from_secs(1)
            } else {
                Duration::ZERO
            };
            if let Some(status) = target.exited_within(patience) {
                bail!(
                    "target {} exited ({status}) during the knee search of {}",
                    target.name,
                    cell.case.test
                );
            }
            summary.max_rate_at_slo = Some(knee.with_context(|| {
                format!("the knee search of {} on {}", cell.case.test, target.name)
            })?);
        }
        Ok(())
    }

    /// The request of `case` at `concurrency` against `target`, with the matrix's timing.
    fn spec(&self, case: &Case, target: &Target, concurrency: u32) -> CellSpec {
        CellSpec {
            url: target.url.clone(),
            body_file: case.body_file.clone(),
            content_type: case.content_type.clone(),
            headers: case.headers.clone(),
            concurrency,
            duration: self.duration,
            warmup: self.warmup,
            expect_body: case.expect_body.clone(),
            reject_body: case.reject_body.clone(),
            mix_file: case.mix.as_ref().and_then(|mix| mix.file.clone()),
            cacert: target.ca.clone(),
            http2: self.http2,
            variable_length: case.variable_length,
        }
    }

    /// Every cell, in the order of the table (test, concurrency, target, client), each with its
    /// target's verdict on its case.
    fn cells<'a>(&'a self, targets: &[Target]) -> anyhow::Result<Vec<Cell<'a>>> {
        let mut verdicts = Vec::with_capacity(targets.len());
        for target in targets {
            let mut per_case = Vec::with_capacity(self.cases.len());
            for case in self.cases {
                let verdict = check::verdict(target, case).with_context(|| {
                    format!("target {} does not answer at {}", target.name, target.url)
                })?;
                if let Some(reason) = &verdict {
                    eprintln!("{} is wrong on {}: {reason}", target.name, case.test);
                }
                per_case.push(verdict);
            }
            verdicts.push(per_case);
        }
        let mut cells = Vec::new();
        for (case_idx, case) in self.cases.iter().enumerate() {
            for &concurrency in self.concurrencies {
                for (target_idx, target) in targets.iter().enumerate() {
                    // ab sends one request again and again: a mix is loadgen's.
                    for &client in self
                        .clients
                        .iter()
                        .filter(|c| case.mix.is_none() || c.mixes())
                    {
                        cells.push(Cell {
                            case,
                            target: target_idx,
                            client,
                            result: CellResult {
                                test: case.test.clone(),
                                concurrency,
                                target: target.name.clone(),
                                client: client.name().to_owned(),
                                wrong: verdicts[target_idx][case_idx].clone(),
                                summary: None,
                                runs: Vec::new(),
                            },
                        });
                    }
                }
            }
        }
        Ok(cells)
    }

    /// One run of `cell` against `target`; an error when the target exited or answered nothing.
    fn time(&self, cell: &Cell<'_>, target: &mut Target) -> anyhow::Result<CellFigures> {
        let (case, client) = (cell.case, cell.client);
        let concurrency = cell.result.concurrency;
        let spec = self.spec(case, target, concurrency);
        // The target's tree and this process (where loadgen runs) are read all through the
        // run; what they spent is cut to the client's measured phase afterwards.
        let server =
            match target.pid() {
                Some(pid) => Some(Sampler::start(pid, Scope::Tree).with_context(|| {
                    format!("target {} (pid {pid}) is not running", target.name)
                })?),
                None => None,
            };
        // `NAME+nginx`: the terminator's tree counts with the stack's.
        let terminator = target
            .terminator_pid()
            .and_then(|pid| Sampler::start(pid, Scope::Tree).ok());
        let this = Sampler::start(std::process::id(), Scope::Process).ok();
        let outcome = client.run(&spec);
        let (server, this) = (server.map(Sampler::stop), this.map(Sampler::stop));
        let terminator = terminator.map(Sampler::stop);
        // A client that failed may have seen the server die before the stack's own process
        // (a shell, `timeout`) is seen to exit: give it a moment to, so that the error says so.
        let patience = if outcome.is_err() {
            Duration::from_secs(1)
        } else {
            Duration::ZERO
        };
        if let Some(status) = target.exited_within(patience) {
            bail!(
                "target {} exited ({status}) during {} (c={concurrency}, {})",
                target.name,
                case.test,
                client.name()
            );
        }
        let mut figures = outcome.with_context(|| {
            format!(
                "{} on {} ({}, c={concurrency}) with {}",
                case.test,
                target.name,
                target.url,
                client.name()
            )
        })?;
        figures.resources = figures.measured_unix.map(|(from, to)| {
            let usage = |readings: &Option<Vec<host::process::Reading>>| {
                usage_between(readings.as_deref()?, from, to)
            };
            let server = match (usage(&server), usage(&terminator)) {
                (Some(server), Some(nginx)) => Some(host::process::Usage {
                    cpu_s: server.cpu_s + nginx.cpu_s,
                    // Each tree's peak, added: at most what both held at once.
                    peak_rss_kb: server.peak_rss_kb + nginx.peak_rss_kb,
                }),
                (server, _) => server,
            };
            Resources {
                server_cpu_s: server.map(|usage| usage.cpu_s),
                peak_rss_kb: server.map(|usage| usage.peak_rss_kb),
                client_cpu_s: figures
                    .client_cpu_s
                    .or_else(|| usage(&this).map(|usage| usage.cpu_s)),
            }
        });
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
        Ok(figures)
    }
}

/// `cell 3 of 24: wstest, loadgen, EchoList-20, c=30, 12 s` on a terminal, rewritten in place
/// as each cell starts; through a pipe (a CI log, `nohup`, a pod's log), how long the cells will
/// take, then a line as each ends with its rate, so that a log shows the run going on.
struct Progress {
    n_cells: usize,
    done: usize,
    started: Instant,
    live: bool,
}

impl Progress {
    /// The progress of `n_cells` timed cells of `each` (warm-up and measured phase) at least.
    fn new(n_cells: usize, each: Duration) -> Progress {
        let live = std::io::stderr().is_terminal();
        if !live && n_cells > 0 {
            let least = (each.as_secs_f64() * n_cells as f64).round() as u64;
            eprintln!(
                "timing {n_cells} cells of {:.0} s each: at least {} min {} s",
                each.as_secs_f64(),
                least / 60,
                least % 60
            );
        }
        Progress {
            n_cells,
            done: 0,
            started: Instant::now(),
            live,
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

    /// Through a pipe, the cell that just ended and its rate.
    fn timed(&self, cell: &CellResult, requests_per_second: f64) {
        if !self.live {
            eprintln!(
                "cell {} of {}: {}, {}, {}, c={}, {:.0} s, {requests_per_second:.0} req/s",
                self.done,
                self.n_cells,
                cell.target,
                cell.client,
                cell.test,
                cell.concurrency,
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
