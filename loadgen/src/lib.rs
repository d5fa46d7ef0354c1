//! loadgen: an ApacheBench-compatible HTTP/1.x load generator. It knows nothing about SOAP.
//!
//! # Map
//! - [`cli`]: ab's command line (and loadgen's long options) into [`cli::Settings`].
//! - [`shard`]: `--shard`: a test's shares of `-n` and `-c`.
//! - [`request`]: the request bytes, built once.
//! - [`http`]: a sans-IO response parser (Content-Length, chunked, close-delimited).
//! - [`engine`]: one mio event loop per thread acting on its connections' outcomes; a
//!   connection turns readiness into an outcome and counts nothing; the plan and shared state.
//! - [`schedule`]: which request a thread sends next and when (claims, warm-up, time limit,
//!   `--rate`); no IO, no clock, unit-tested with made-up instants.
//! - [`stats`]: samples, counters and histograms; ab's accounting of each outcome
//!   ([`stats::ThreadStats::count_complete`]) and ab's arithmetic ([`stats::Table`]).
//! - [`report`]: ab's text and HTML reports, `-e`, `-g`, and loadgen's extended section.
//! - [`json`]: `--json` files (or `--json -` on stdout) and reading them back.
//! - [`merge`](mod@merge): `loadgen merge`: runs of one test added up on the wall clock, exactly.
//! - [`clock`]: `--start-at`'s forms, and times as reports print them.
//! - [`load`]: the load and nothing else: a plan from the settings, [`load::execute`] to
//!   [`stats::Results`]; no printing, files, signals or limits.
//! - [`cell`]: one cell of `loadgen suite`, run in-process through [`load`].
//!
//! [`run`] is ab's front end around [`load`]: banner, progress, Ctrl-C, report and files;
//! [`merge()`] is `loadgen merge`'s, around [`merge::merge`].

pub mod cell;
pub mod cli;
pub mod clock;
pub mod engine;
pub mod http;
pub mod json;
pub mod load;
pub mod merge;
pub mod report;
pub mod request;
pub mod schedule;
pub mod shard;
pub mod stats;

use std::io::{IsTerminal, Write as _};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{Context as _, bail};

use crate::cli::Settings;
use crate::engine::Shared;
use crate::report::{Display, RunInfo};
use crate::stats::{MAX_SAMPLES, Results, Table};

/// ab's exit code after Ctrl-C.
const INTERRUPTED_EXIT_CODE: i32 = 1;

/// Runs the benchmark `settings` describe, prints the report, and returns the exit code.
pub fn run(settings: &Settings, command_line: &[String]) -> anyhow::Result<i32> {
    if settings.show_version {
        print!("{}", report::banner(false));
        return Ok(0);
    }
    if settings.show_help {
        eprint!("{}", cli::usage("loadgen"));
        return Ok(cli::USAGE_EXIT_CODE);
    }
    raise_open_file_limit(settings.concurrency as usize);
    let (plan, info) = load::plan_of(settings)?;
    let display = Display {
        html: settings.html,
        table_attributes: settings.table_attributes.clone().unwrap_or_default(),
        row_attributes: settings.row_attributes.clone().unwrap_or_default(),
        cell_attributes: settings
            .cell_attributes
            .clone()
            .unwrap_or_else(|| "bgcolor=white".to_owned()),
        confidence: !settings.no_confidence_estimators,
        percentiles: !settings.no_percentile_table,
    };
    // ab prints a progress line every tenth of the run (at least every 100 requests), on
    // stderr, when the run has more than 150 requests and -q is not given. A run bounded by
    // time alone has no count to divide (ab's 50,000 would mean a line every 5,000 requests
    // for as long as it ran, since loadgen does not stop there), so its tenths are of the time.
    let heartbeat = if settings.quiet {
        None
    } else {
        match (settings.n_requests, settings.time_limit()) {
            (Some(requests), _) => {
                (requests > 150).then(|| Heartbeat::Requests((requests / 10).max(100)))
            }
            (None, Some(limit)) => Some(Heartbeat::Time(limit / 10)),
            (None, None) => None,
        }
    };

    let start_wall = announce_start(settings, &plan);
    let mut stdout = std::io::stdout().lock();
    if display.html {
        write!(stdout, "{}", report::banner(true))?;
    } else {
        write!(stdout, "{}", report::banner(false))?;
        write!(
            stdout,
            "{}",
            report::benchmarking_line(&info, heartbeat.is_some())
        )?;
    }
    if settings.verbosity >= 2 {
        let head = String::from_utf8_lossy(&plan.request.bytes[..plan.request.head_len]);
        write!(
            stdout,
            "INFO: {} header == \n---\n{head}\n---\n",
            settings.method
        )?;
    }
    stdout.flush()?;
    drop(stdout);

    let interrupted = Arc::new(AtomicBool::new(false));
    signal_hook::flag::register(signal_hook::consts::SIGINT, Arc::clone(&interrupted))
        .context("cannot catch Ctrl-C")?;

    let started_wall = start_wall.unwrap_or_else(SystemTime::now);
    let start = plan.start_at.unwrap_or_else(Instant::now);
    let mut progress = Progress::new(heartbeat, start + plan.warmup);
    let outcome = load::execute(&plan, &interrupted, &mut |shared| progress.update(shared))?;
    progress.finish(outcome.results.counters.complete);
    let interrupted = outcome.stopped;
    let abort = outcome.abort;
    let mut results = outcome.results;
    if let Some(abort) = &abort {
        eprintln!("{}", abort.message);
        if results.counters.complete > 0 {
            println!("Total of {} requests completed", results.counters.complete);
        }
    }
    let table = table_of(&mut results);
    let mut out = if display.html {
        report::ab_html(&info, &results, table.as_ref(), &display)
    } else {
        report::ab_text(&info, &results, table.as_ref(), &display)
    };
    if !display.html {
        out.push_str(&report::extended(&info, &results, table.as_ref()));
    }
    print!("{out}");
    std::io::stdout().flush()?;

    let measure_start = started_wall
        .checked_add(plan.warmup)
        .unwrap_or(started_wall);
    let files = Files {
        settings,
        command_line,
        info: &info,
        measure_start,
    };
    files.write(&results, table.as_ref())?;
    Ok(match abort {
        Some(abort) => abort.exit_code,
        None if interrupted => INTERRUPTED_EXIT_CODE,
        None => 0,
    })
}

/// `--start-at`: says when the run starts, or that the time has passed and it starts now.
/// Returns the wall-clock start, if it is ahead.
fn announce_start(settings: &Settings, plan: &engine::Plan) -> Option<SystemTime> {
    let now = SystemTime::now();
    let at = settings.start_at?;
    if plan.start_at.is_some() {
        let ahead = at.duration_since(now).unwrap_or_default();
        eprintln!(
            "loadgen: connecting, then starting at {} (in {})",
            clock::rfc3339(at),
            clock::seconds(ahead)
        );
        Some(at)
    } else {
        let late = now.duration_since(at).unwrap_or_default();
        eprintln!(
            "loadgen: warning: --start-at {} passed {} ago; starting now",
            clock::rfc3339(at),
            clock::seconds(late)
        );
        None
    }
}

/// The files a run writes besides its report: `-e`, `-g`, `--json`.
struct Files<'a> {
    settings: &'a Settings,
    command_line: &'a [String],
    info: &'a RunInfo,
    /// Wall-clock start of the measured phase.
    measure_start: SystemTime,
}

impl Files<'_> {
    fn write(&self, results: &Results, table: Option<&Table>) -> anyhow::Result<()> {
        let settings = self.settings;
        let start = self
            .measure_start
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        if let Some(path) = &settings.csv_file
            && let Some(table) = table
        {
            std::fs::write(path, report::csv(table))
                .with_context(|| format!("cannot write {path}"))?;
        }
        if let Some(path) = &settings.gnuplot_file {
            if (results.samples.len() as u64) < results.counters.complete {
                eprintln!(
                    "loadgen: -g {path}: the run outgrew the {MAX_SAMPLES} requests whose times are kept, so the file has no rows"
                );
            }
            let text = report::gnuplot(&results.samples, start.as_secs());
            std::fs::write(path, text).with_context(|| format!("cannot write {path}"))?;
        }
        if let Some(path) = &settings.json_file {
            let context = json::Context {
                command_line: self.command_line,
                settings: json::RunSettings::of(settings),
                started_unix: start.as_secs_f64(),
                start_at_unix: settings.start_at.map(clock::unix_seconds),
                info: self.info,
            };
            write_json(path, &json::build(&context, results, table))?;
        }
        Ok(())
    }
}

/// Writes `report` to the file `path`, or with `-` to stdout after the report, between marker
/// lines: how a run in a container without a volume hands its file over (`kubectl logs`).
fn write_json(path: &str, report: &json::JsonReport) -> anyhow::Result<()> {
    let text = serde_json::to_string_pretty(report).context("cannot serialise the report")?;
    if path == "-" {
        println!("{}\n{text}\n{}", json::STDOUT_BEGIN, json::STDOUT_END);
        Ok(())
    } else {
        std::fs::write(path, text + "\n").with_context(|| format!("cannot write {path}"))
    }
}

/// ab's table: exact from every sample when they were all kept, else from the histograms.
pub(crate) fn table_of(results: &mut Results) -> Option<Table> {
    if results.counters.complete == 0 {
        return None;
    }
    if results.samples.len() as u64 == results.counters.complete {
        Some(Table::from_samples(&mut results.samples))
    } else {
        Some(Table::from_histograms(&results.histograms))
    }
}

/// `loadgen merge [--json FILE] [-e FILE] a.json b.json ...`: one report for runs made side by
/// side (the shards of one test, or several client machines against one server), in the
/// formats of a single run but `-g`, which needs each request's times and the files keep only
/// histograms.
pub fn merge(args: &[String]) -> anyhow::Result<i32> {
    const USAGE: &str = "usage: loadgen merge [--json FILE] [-e FILE] FILE.json [FILE.json ...]";
    let command_line: Vec<String> = std::iter::once("merge".to_owned())
        .chain(args.iter().cloned())
        .collect();
    let (mut json_file, mut csv_file, mut paths) = (None, None, Vec::new());
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--json" | "-e" => {
                let value = args
                    .next()
                    .with_context(|| format!("{arg} needs a file; {USAGE}"))?;
                let slot = if arg == "-e" {
                    &mut csv_file
                } else {
                    &mut json_file
                };
                *slot = Some(value.clone());
            }
            "-g" => bail!(
                "-g needs each request's times, and --json files keep histograms only (-e and --json work)"
            ),
            option if option.starts_with('-') && option.len() > 1 => {
                bail!("unknown option {option}; {USAGE}")
            }
            path => paths.push(path.to_owned()),
        }
    }
    if paths.is_empty() {
        bail!("{USAGE}");
    }
    let mut runs = Vec::with_capacity(paths.len());
    for path in &paths {
        let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {path}"))?;
        let (report, results) = json::read(&text).with_context(|| format!("cannot read {path}"))?;
        runs.push(merge::Run {
            path: path.clone(),
            report,
            results,
        });
    }
    let mut merged = merge::merge(runs)?;
    let table = table_of(&mut merged.results);
    let display = Display {
        confidence: true,
        percentiles: true,
        ..Display::default()
    };
    print!("{}", report::banner(false));
    println!("Merged {} runs: {}", paths.len(), paths.join(", "));
    if let Some(count) = merged.runs.first().and_then(|run| Some(run.shard?.count)) {
        let mut shards: Vec<u32> = merged
            .runs
            .iter()
            .filter_map(|run| Some(run.shard?.index))
            .collect();
        shards.sort_unstable();
        let list = |indices: &[u32]| {
            indices
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        };
        print!("Shards:                 {} of {count}", list(&shards));
        if merged.missing_shards.is_empty() {
            println!();
        } else {
            println!(
                " (missing {}: this is not the whole test)",
                list(&merged.missing_shards)
            );
        }
    }
    println!(
        "Start skew:             {:.3} ms between the first run's start and the last's",
        merged.start_skew * 1000.0
    );
    let mut out = report::ab_text(&merged.info, &merged.results, table.as_ref(), &display);
    out.push_str(&report::extended(
        &merged.info,
        &merged.results,
        table.as_ref(),
    ));
    print!("{out}");
    std::io::stdout().flush()?;
    if let Some(path) = &csv_file
        && let Some(table) = &table
    {
        std::fs::write(path, report::csv(table)).with_context(|| format!("cannot write {path}"))?;
    }
    if let Some(path) = &json_file {
        let context = json::Context {
            command_line: &command_line,
            settings: merged.settings.clone(),
            started_unix: merged.started_unix,
            start_at_unix: None,
            info: &merged.info,
        };
        let mut report = json::build(&context, &merged.results, table.as_ref());
        report.merged = merged.runs;
        write_json(path, &report)?;
    }
    Ok(0)
}

/// Raises the soft limit of open files as far as `concurrency` connections need (the default
/// 1024 would fail -c 2000 with "Too many open files"); says so when it cannot.
pub fn raise_open_file_limit(concurrency: usize) {
    let files_needed = concurrency as u64 + 64;
    match rlimit::increase_nofile_limit(files_needed) {
        Ok(limit) if limit < files_needed => eprintln!(
            "loadgen: -c {concurrency} needs about {files_needed} open files, but the limit is {limit} (ulimit -n)"
        ),
        _ => {}
    }
}

/// How often ab's `Completed N requests` line comes.
#[derive(Debug, Clone, Copy)]
enum Heartbeat {
    /// Every this many requests.
    Requests(u64),
    /// Every this long, ten times in a run bounded by time.
    Time(Duration),
}

/// ab's `Completed N requests` lines, and on a terminal a live line of rate and errors.
struct Progress {
    heartbeat: Option<Heartbeat>,
    /// The requests (Heartbeat::Requests) or tenths (Heartbeat::Time) reported so far.
    printed: u64,
    live: bool,
    measure_start: Instant,
}

impl Progress {
    fn new(heartbeat: Option<Heartbeat>, measure_start: Instant) -> Progress {
        Progress {
            heartbeat,
            printed: 0,
            live: heartbeat.is_some() && std::io::stderr().is_terminal(),
            measure_start,
        }
    }

    fn update(&mut self, shared: &Shared) {
        let Some(heartbeat) = self.heartbeat else {
            return;
        };
        let done = shared.total_completed();
        let elapsed = Instant::now().saturating_duration_since(self.measure_start);
        let mut stderr = std::io::stderr().lock();
        if self.live {
            let _ = write!(stderr, "\r\x1b[2K");
        }
        match heartbeat {
            Heartbeat::Requests(every) => {
                while self.printed + every <= done {
                    self.printed += every;
                    let _ = writeln!(stderr, "Completed {} requests", self.printed);
                }
            }
            Heartbeat::Time(every) => {
                // One line per tenth, also for tenths that passed while this thread waited for
                // a core: a run always prints ten, however loaded the machine.
                let tenths = (elapsed.as_nanos() / every.as_nanos().max(1)).min(10) as u64;
                while self.printed < tenths {
                    self.printed += 1;
                    let _ = writeln!(stderr, "Completed {done} requests");
                }
            }
        }
        if self.live {
            let secs = elapsed.as_secs_f64();
            let rate = if secs > 0.0 { done as f64 / secs } else { 0.0 };
            let _ = write!(
                stderr,
                "{secs:7.1} s  {done} requests  {rate:.0}/s  {} errors",
                shared.total_failed()
            );
        }
        let _ = stderr.flush();
    }

    fn finish(&mut self, done: u64) {
        let mut stderr = std::io::stderr().lock();
        if self.live {
            let _ = write!(stderr, "\r\x1b[2K");
        }
        if self.heartbeat.is_some() {
            let _ = writeln!(stderr, "Finished {done} requests");
        } else {
            drop(stderr);
            println!("..done");
            let _ = std::io::stdout().flush();
        }
    }
}
