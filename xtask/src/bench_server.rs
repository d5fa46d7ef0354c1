//! `cargo xtask bench-server`: wstest-server against the HTTP ceiling (hyper answering canned
//! responses, no XML), as `loadgen suite` runs them: each server alone on the first core, loadgen
//! on the others, every answer checked first, the repeats interleaved so that a round measures
//! the ceiling and each build back to back. The ratio is taken within each round and the table
//! shows the median over the rounds, so that a burst of noise spoils a round, not the figure.
//! Then the server's resident memory with 1,000 keep-alive connections open. `--tls`: both
//! servers serve TLS (the suite's `--tls`), so the ratio is the server's over the ceiling's
//! over TLS.

use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use anyhow::{Context as _, bail};
use suite::output::{Protocol, SuiteResults};
use suite::placement::Placement;
use suite::target::{ServerTls, TargetSpec};

use crate::workspace::{self, append_result, median_of};

/// The server against the ceiling.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Measured time per server, test and round.
    #[arg(long, default_value = "5s", value_parser = host::duration::parse)]
    duration: Duration,
    /// Rounds per test.
    #[arg(long, default_value_t = 3)]
    rounds: u32,
    /// Tests to measure, comma-separated (default: every case of the manifest).
    #[arg(long, value_delimiter = ',')]
    tests: Vec<String>,
    /// Leave out the profile-guided build (scripts/pgo-build.sh).
    #[arg(long)]
    no_pgo: bool,
    /// Over TLS.
    #[arg(long)]
    tls: bool,
    /// Over HTTP/2 (the suite's `--http2`: h2c, or h2 with `--tls`).
    #[arg(long)]
    http2: bool,
    /// With --http2: streams a connection; the suite then opens 30 / M connections, so that
    /// 30 requests are in flight as over HTTP/1.1.
    #[arg(long, requires = "http2", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=30))]
    streams: u32,
    /// Where the table is appended (default: docs/results/bench-server.md).
    #[arg(short = 'o', long, value_name = "FILE")]
    output: Option<PathBuf>,
}

pub(crate) fn run(args: &Args) -> anyhow::Result<()> {
    // Before anything pins this process, which narrows the cores it sees.
    let stamp = workspace::stamp();
    let release = workspace::build_release(&["server", "ceiling"])?;
    let placement = Placement::choose(None, None, false)?;
    let tls = args
        .tls
        .then(|| ServerTls::throwaway(&workspace::root()))
        .transpose()?;
    let mut targets = Vec::new();
    if !args.no_pgo {
        let output = Command::new(workspace::root().join("scripts/pgo-build.sh"))
            .output()
            .context("running scripts/pgo-build.sh")?;
        if !output.status.success() {
            bail!(
                "scripts/pgo-build.sh failed: {}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
        let program = PathBuf::from(
            String::from_utf8_lossy(&output.stdout)
                .lines()
                .last()
                .unwrap_or("")
                .trim(),
        );
        let spec = TargetSpec::Binary {
            name: "pgo".to_owned(),
            program,
            args: Vec::new(),
        };
        targets.push(workspace::start_server(
            &spec,
            placement.as_ref(),
            tls.as_ref(),
        )?);
    }
    let dir = std::env::temp_dir().join(format!("xtask-bench-server-{}", std::process::id()));
    let mut suite_args: Vec<String> = [
        "--stack", "ceiling", "--stack", "wstest", "--warmup", "1s", "--format", "csv",
    ]
    .map(str::to_owned)
    .to_vec();
    suite_args.extend([
        "--duration".to_owned(),
        format!("{}s", args.duration.as_secs_f64()),
        "--repeat".to_owned(),
        args.rounds.to_string(),
        "--out".to_owned(),
        dir.display().to_string(),
        "--server-bin".to_owned(),
        release.join("wstest-server").display().to_string(),
    ]);
    for target in &targets {
        suite_args.extend([
            "--target".to_owned(),
            format!("{}={}", target.name, target.url),
        ]);
    }
    if !args.tests.is_empty() {
        suite_args.extend(["--tests".to_owned(), args.tests.join(",")]);
    }
    if args.tls {
        suite_args.push("--tls".to_owned());
    }
    if args.http2 {
        suite_args.push("--http2".to_owned());
        suite_args.push(format!("--streams={}", args.streams));
    }
    suite_args.push(format!("--concurrency={}", connections(args)));
    let results = workspace::suite_results(&suite_args, &dir)?;
    let _ = std::fs::remove_dir_all(&dir);
    let mut table = table(&stamp, &results, args, !targets.is_empty());
    drop(targets);
    table.push_str(&memory_line(placement.as_ref())?);
    append_result("bench-server.md", args.output.as_deref(), &table)
}

/// The connections each cell opens: 30 requests in flight in all.
fn connections(args: &Args) -> u32 {
    (IN_FLIGHT / args.streams).max(1)
}

/// Requests in flight in every cell, whatever the protocol.
pub(crate) const IN_FLIGHT: u32 = 30;

/// The Markdown table: per test the medians of requests per second and of the per-round ratios.
fn table(stamp: &str, results: &SuiteResults, args: &Args, pgo: bool) -> String {
    let runs = |test: &str, target: &str| -> Vec<f64> {
        results
            .cell(test, connections(args), target, "loadgen")
            .map(|cell| {
                cell.runs
                    .iter()
                    .map(|run| run.requests_per_second)
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut out = format!(
        "\n## {}, {} s per cell, median of {} rounds{}\n\nCommand: `cargo xtask bench-server --duration {}s --rounds {}{}{}{}{}` (loadgen suite: servers on cpu 0, loadgen -c {} on the others)\n\n| test | ceiling req/s | wstest-server req/s | ratio |{} ratios per round |\n|---|---:|---:|---:|{}---|\n",
        stamp,
        args.duration.as_secs_f64(),
        args.rounds,
        if results.protocol == Protocol::default() {
            String::new()
        } else {
            format!(", {}", results.protocol)
        },
        args.duration.as_secs_f64(),
        args.rounds,
        if args.tls { " --tls" } else { "" },
        match (args.http2, args.streams) {
            (false, _) => String::new(),
            (true, 1) => " --http2".to_owned(),
            (true, streams) => format!(" --http2 --streams {streams}"),
        },
        if args.tests.is_empty() {
            String::new()
        } else {
            format!(" --tests {}", args.tests.join(","))
        },
        if pgo { "" } else { " --no-pgo" },
        match args.streams {
            1 => connections(args).to_string(),
            streams => format!("{} --streams {streams}", connections(args)),
        },
        if pgo { " PGO req/s | PGO ratio |" } else { "" },
        if pgo { "---:|---:|" } else { "" },
    );
    for test in &results.tests {
        let ceiling = runs(test, "ceiling");
        let plain = runs(test, "wstest");
        let ratios = |server: &[f64]| -> Vec<f64> {
            server.iter().zip(&ceiling).map(|(s, c)| s / c).collect()
        };
        let plain_ratios = ratios(&plain);
        let mut row = format!(
            "| {test} | {:.0} | {:.0} | {:.2} |",
            median_of(ceiling.clone()),
            median_of(plain.clone()),
            median_of(plain_ratios.clone())
        );
        let mut per_round: Vec<String> = plain_ratios.iter().map(|r| format!("{r:.2}")).collect();
        if pgo {
            let optimised = runs(test, "pgo");
            let pgo_ratios = ratios(&optimised);
            row.push_str(&format!(
                " {:.0} | {:.2} |",
                median_of(optimised.clone()),
                median_of(pgo_ratios.clone())
            ));
            per_round = per_round
                .iter()
                .zip(&pgo_ratios)
                .map(|(plain, pgo)| format!("{plain} / {pgo:.2}"))
                .collect();
        }
        row.push_str(&format!(" {} |\n", per_round.join(", ")));
        out.push_str(&row);
    }
    out
}

/// wstest-server's resident memory with 1,000 keep-alive connections open, each served a
/// GetOrder-100 first.
fn memory_line(placement: Option<&Placement>) -> anyhow::Result<String> {
    const CONNECTIONS: usize = 1000;
    let manifest = workspace::root().join("post_files/manifest.toml");
    let case = suite::manifest::select(
        suite::manifest::read(&manifest)?,
        &["GetOrder-100".to_owned()],
    )?
    .remove(0);
    let spec = TargetSpec::Binary {
        name: "wstest".to_owned(),
        program: workspace::root().join("target/release/wstest-server"),
        args: Vec::new(),
    };
    let target = workspace::start_server(&spec, placement, None)?;
    let body = std::fs::read(&case.body_file)?;
    let mut request = format!(
        "POST {} HTTP/1.1\r\nHost: {}\r\nContent-Type: {}\r\nContent-Length: {}\r\n",
        target.url.path,
        target.url.host_field(),
        case.content_type,
        body.len()
    )
    .into_bytes();
    for header in &case.headers {
        request.extend_from_slice(header.as_bytes());
        request.extend_from_slice(b"\r\n");
    }
    request.extend_from_slice(b"\r\n");
    request.extend_from_slice(&body);
    let mut streams = Vec::with_capacity(CONNECTIONS);
    for _ in 0..CONNECTIONS {
        let mut stream = TcpStream::connect((target.url.host.as_str(), target.url.port))?;
        stream.write_all(&request)?;
        streams.push(stream);
    }
    for stream in &mut streams {
        let (response, _) = loadgen::http::read_whole(stream, false, 64 << 20)?;
        if response.status != 200 {
            bail!("GetOrder-100 answered {}", response.status);
        }
    }
    let pid = target.pid().context("the server's pid")?;
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    let rss_kb: u64 = status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
        .context("no VmRSS")?;
    let mut probe = [0u8; 1];
    for stream in &mut streams {
        // Each connection is still open (no close was read).
        stream.set_nonblocking(true)?;
        if let Ok(0) = stream.read(&mut probe) {
            bail!("a keep-alive connection was closed");
        }
    }
    Ok(format!(
        "\nwstest-server resident memory with {CONNECTIONS} open keep-alive connections, each served a GetOrder-100: {} MB ({rss_kb} kB)\n",
        rss_kb / 1024
    ))
}
