//! The command line of `loadgen suite`.

use std::path::PathBuf;
use std::time::Duration;

/// loadgen suite: runs the WSTest matrix (test x concurrency x target x client) from a
/// manifest, checks every answer first, and reports requests per second per test and target.
#[derive(Debug, Clone, clap::Parser)]
#[command(
    name = "loadgen suite",
    version,
    about,
    long_about = None,
    after_help = "Your own service: `loadgen suite cases --wsdl URL|FILE --out DIR` writes post files and a manifest from its WSDL, for --manifest (loadgen suite cases --help)."
)]
pub(crate) struct Args {
    /// The manifest of cases (default: post_files/manifest.toml of the workspace loadgen was
    /// built in, or of the current folder).
    #[arg(long)]
    pub(crate) manifest: Option<PathBuf>,
    /// Tests to run, by name, comma-separated (default: every case of the manifest).
    #[arg(long, value_delimiter = ',')]
    pub(crate) tests: Vec<String>,
    /// Connection counts to sweep, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "30")]
    pub(crate) concurrency: Vec<u32>,
    /// Measured time per cell (`5s`, `200ms`, `2m`, `1.5`).
    #[arg(long, default_value = "5s", value_parser = host::duration::parse)]
    pub(crate) duration: Duration,
    /// Warm-up per cell, not counted.
    #[arg(long, default_value = "1s", value_parser = host::duration::parse)]
    pub(crate) warmup: Duration,
    /// Runs of each cell; the table shows the median and the min-max spread.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) repeat: u32,
    /// Load clients, comma-separated.
    #[arg(long = "client", value_delimiter = ',', default_value = "loadgen")]
    pub(crate) clients: Vec<ClientName>,
    /// Latency objectives (`p99<=5ms`; p50, p90, p99 or p99.9, in ms or us; repeatable or
    /// comma-separated): after the timed cells, find for each test and target the highest
    /// offered rate with every objective met and no failure (loadgen's cells only).
    #[arg(long = "slo", value_name = "OBJECTIVE", value_delimiter = ',', value_parser = crate::knee::Objective::parse)]
    pub(crate) objectives: Vec<crate::knee::Objective>,
    /// A running server to measure, NAME=URL (repeatable).
    #[arg(long = "target", value_name = "NAME=URL")]
    pub(crate) targets: Vec<String>,
    /// The process of a --target's server, NAME=PID (repeatable): its CPU and memory are then
    /// measured as those of servers the suite starts.
    #[arg(long = "target-pid", value_name = "NAME=PID")]
    pub(crate) target_pids: Vec<String>,
    /// Show each cell's cost beside its rate: requests per server CPU-second, the server's peak
    /// memory, and the client's CPU per request (results.json and CSV always have them).
    #[arg(long)]
    pub(crate) resources: bool,
    /// A server the suite starts and stops (repeatable): `wstest` (ours), `ceiling` (the HTTP
    /// ceiling), or a folder of scripts/stacks/ (gsoap, java-jaxws, mono-asmx, ...: its
    /// README lists them). With no --target and no --stack: wstest.
    #[arg(long = "stack", value_name = "NAME")]
    pub(crate) stacks: Vec<String>,
    /// The wstest-server binary (default: the one beside loadgen).
    #[arg(long)]
    pub(crate) server_bin: Option<PathBuf>,
    /// Where the stacks' folders are (default: scripts/stacks beside the manifest's folder).
    #[arg(long)]
    pub(crate) stacks_dir: Option<PathBuf>,
    /// Cores for the servers the suite starts, e.g. `0` or `0-1` (default: the first core).
    #[arg(long)]
    pub(crate) server_cpus: Option<String>,
    /// Cores for the load clients (default: the other cores).
    #[arg(long)]
    pub(crate) client_cpus: Option<String>,
    /// Serve and load over TLS (HTTP/1.1): the servers the suite starts serve a throwaway
    /// certificate that scripts/certs.sh makes in target/certs, and loadgen verifies it
    /// against that CA. A stack that serves plain HTTP only gets nginx in front of it
    /// (named NAME+nginx in the table).
    #[arg(long)]
    pub(crate) tls: bool,
    /// Load over HTTP/2 (loadgen's --http2, by default one stream a connection, so that a
    /// concurrency is as many requests at a time as over HTTP/1.1): h2 by ALPN with --tls, h2c with
    /// prior knowledge without. ab speaks no HTTP/2.
    #[arg(long)]
    pub(crate) http2: bool,
    /// With --http2: the requests each connection carries at once (loadgen's --streams,
    /// h2load's -m); a cell's concurrency is then its connections, and it has concurrency ×
    /// M requests in flight.
    #[arg(long, requires = "http2", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub(crate) streams: u32,
    /// Pin nothing.
    #[arg(long)]
    pub(crate) no_pin: bool,
    /// Show p50 and p99 latency beside requests per second.
    #[arg(long)]
    pub(crate) latency: bool,
    /// The format on stdout.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub(crate) format: Format,
    /// Write results.json, results.md and SVG charts into this folder.
    #[arg(long)]
    pub(crate) out: Option<PathBuf>,
    /// Compare with an earlier run: the folder its --out wrote. Each cell of the same test,
    /// concurrency, target and client gets the change in its median requests per second and
    /// p99, a confidence interval from the repeats, and a verdict (faster, slower, within
    /// noise), in the table, the report and results.json.
    #[arg(long, value_name = "DIR")]
    pub(crate) baseline: Option<PathBuf>,
    /// With --baseline: exit with 4 when some cell is slower by more than PCT percent with
    /// confidence (its whole interval below -PCT%). Cells in only one run are listed, not
    /// failed.
    #[arg(long, value_name = "PCT", requires = "baseline", value_parser = percent)]
    pub(crate) fail_on_regression: Option<f64>,
    /// Measure nothing: redraw the charts and results.md of a folder that --out wrote, from its
    /// results.json.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["out", "targets", "stacks", "baseline"])]
    pub(crate) redraw: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Format {
    Table,
    Markdown,
    Csv,
    Json,
}

/// A percentage from 0 up: `10`, `2.5`.
fn percent(text: &str) -> Result<f64, String> {
    match text.trim_end_matches('%').parse::<f64>() {
        Ok(value) if value.is_finite() && value >= 0.0 => Ok(value),
        _ => Err(format!(
            "{text:?} is not a percentage (a number from 0 up, e.g. 10)"
        )),
    }
}

/// A load client the suite can run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ClientName {
    /// loadgen's engine, in-process.
    Loadgen,
    /// ApacheBench, as a process.
    Ab,
}
