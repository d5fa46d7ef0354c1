//! `loadgen [ab's options] URL`: ab's front end around [`loadgen::load`]. Each step is a
//! function: announce, print the head of the report, load, print the report, write the files.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use anyhow::Context as _;
use tls::client::Verify;

use super::files;
use super::progress::{Heartbeat, Progress};
use super::remote_write::Pusher;
use loadgen::load::Plan;
use loadgen::load::{self, Outcome};
use loadgen::options::Options;
use loadgen::report::{self, RunInfo};
use loadgen::stats::{Results, Table};
use loadgen::url::Scheme;
use loadgen::{clock, json};

/// ab's exit code after Ctrl-C.
const INTERRUPTED_EXIT_CODE: i32 = 1;

/// Runs the benchmark `options` describe (`command_line` is what the JSON file records),
/// prints ab's report, writes the files asked for, and returns the exit code.
pub(crate) fn run(options: &Options, command_line: &[String]) -> anyhow::Result<i32> {
    super::allow_connections(options.load.share().concurrency);
    // ab prints its -v lines on stdout, among the report's.
    let log = load::Log::to(|line| host::outln!("{line}"));
    let (plan, info) = load::plan_of(options, log)?;
    serve_metrics(options, &plan)?;
    let pusher = Pusher::start(options, plan.live.as_ref());
    let heartbeat = Heartbeat::of(options);
    announce_unverified(options);
    let start_wall = announce_start(options, &plan);
    print_head(options, &plan, &info, heartbeat.is_some());

    let interrupted = Arc::new(AtomicBool::new(false));
    signal_hook::flag::register(signal_hook::consts::SIGINT, Arc::clone(&interrupted))
        .context("cannot catch Ctrl-C")?;
    let started_wall = start_wall.unwrap_or_else(SystemTime::now);
    let start = plan.start_at.unwrap_or_else(Instant::now);
    let mut progress = Progress::new(heartbeat, start + plan.warmup);
    let outcome = load::execute(&plan, &interrupted, &mut |shared| progress.update(shared))?;
    progress.finish(outcome.results.counters.complete);

    let Outcome {
        mut results,
        abort,
        stopped,
    } = outcome;
    if let Some(abort) = &abort {
        eprintln!("{}", abort.message);
        if results.counters.complete > 0 {
            host::outln!("Total of {} requests completed", results.counters.complete);
        }
    }
    let table = results.table();
    print_report(options, &info, &results, table.as_ref())?;
    let measure_start = started_wall
        .checked_add(plan.warmup)
        .unwrap_or(started_wall);
    write_files(
        options,
        command_line,
        &info,
        measure_start,
        &results,
        table.as_ref(),
    )?;
    if let Some(pusher) = pusher {
        pusher.finish();
    }
    if let Some(hold) = options.output.metrics_hold {
        // The endpoint's thread serves on while this one waits: a last scrape.
        std::thread::sleep(hold);
    }
    Ok(match abort {
        Some(abort) => abort.exit_code,
        None if stopped => INTERRUPTED_EXIT_CODE,
        None => 0,
    })
}

/// `--metrics ADDR`: the endpoint, from a thread of its own, announced on stderr.
fn serve_metrics(options: &Options, plan: &Plan) -> anyhow::Result<()> {
    let (Some(addr), Some(live)) = (options.output.metrics, &plan.live) else {
        return Ok(());
    };
    let listener = std::net::TcpListener::bind(addr)
        .with_context(|| format!("listening for --metrics on {addr}"))?;
    let bound = listener.local_addr()?;
    let live = Arc::clone(live);
    host::prometheus::serve(listener, "loadgen-metrics", Arc::new(move || live.render()))
        .context("starting the metrics thread")?;
    eprintln!(
        "{}",
        host::listening::line("loadgen metrics", format_args!("http://{bound}/metrics"))
    );
    Ok(())
}

/// `https://` without `--verify`: says on stderr, once, that the certificate is taken on
/// trust, as ab takes it (stdout stays ab's report).
fn announce_unverified(options: &Options) {
    let target = &options.target;
    if target.url.scheme == Scheme::Https && target.tls.verify == Verify::Off {
        eprintln!(
            "loadgen: the server's TLS certificate is not verified (as with ab); --verify or --cacert FILE checks it"
        );
    }
}

/// `--start-at`: says when the run starts, or that the time has passed and it starts now.
/// Returns the wall-clock start, if it is ahead.
fn announce_start(options: &Options, plan: &Plan) -> Option<SystemTime> {
    let now = SystemTime::now();
    let at = options.load.start_at?;
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

/// ab's banner and `Benchmarking` line, and with `-v 2` the request's head.
fn print_head(options: &Options, plan: &Plan, info: &RunInfo, progress_lines: bool) {
    // Through `host::out!`: a reader gone after the banner's first line (`| head -1`) ends
    // loadgen with 141, as any later write would.
    if options.output.display.html {
        host::out!("{}", report::banner(true));
    } else {
        host::out!("{}", report::banner(false));
        host::out!("{}", report::benchmarking_line(info, progress_lines));
    }
    if options.output.verbosity >= 2 {
        // ab's one request; a mix's kinds each in turn.
        for kind in &plan.kinds {
            let request = &kind.request;
            let head = String::from_utf8_lossy(&request.bytes[..request.head_len]);
            let method = head.split(' ').next().unwrap_or_default();
            host::out!("INFO: {method} header == \n---\n{head}\n---\n");
        }
    }
    host::flush_stdout();
}

/// ab's report, in text with loadgen's section after it, or ab's HTML.
fn print_report(
    options: &Options,
    info: &RunInfo,
    results: &Results,
    table: Option<&Table>,
) -> anyhow::Result<()> {
    let display = &options.output.display;
    let out = if display.html {
        report::ab_html(info, results, table, display)
    } else {
        let mut out = report::ab_text(info, results, table, display);
        out.push_str(&report::extended(info, results, table));
        out
    };
    host::out!("{out}");
    host::flush_stdout();
    Ok(())
}

/// `-e`, `-g` and `--json`; `measure_start` is the wall-clock start of the measured phase.
fn write_files(
    options: &Options,
    command_line: &[String],
    info: &RunInfo,
    measure_start: SystemTime,
    results: &Results,
    table: Option<&Table>,
) -> anyhow::Result<()> {
    let output = &options.output;
    let start = measure_start.duration_since(UNIX_EPOCH).unwrap_or_default();
    if let Some(path) = &output.csv_file {
        files::write_csv(path, table)?;
    }
    if let Some(path) = &output.gnuplot_file {
        files::write_gnuplot(path, results, start.as_secs())?;
    }
    if let Some(out) = &output.json {
        let context = json::Context {
            command_line,
            started_unix: start.as_secs_f64(),
            start_at_unix: options.load.start_at.map(clock::unix_seconds),
            info,
        };
        files::write_json(out, &json::build(&context, results, table))?;
    }
    if let Some(path) = &output.series_file {
        files::write_series(path, &json::second_records(info, &results.seconds))?;
    }
    Ok(())
}
