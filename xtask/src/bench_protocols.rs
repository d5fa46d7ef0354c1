//! `cargo xtask bench-protocols`: what TLS and HTTP/2 cost wstest-server against what they cost
//! the HTTP ceiling (the same hyper and rustls, no XML work). Each round runs the suite with
//! both servers over HTTP/1.1, HTTP/1.1 over TLS, h2c and h2 over TLS back to back (every other
//! round in reverse order), so that the protocols share the machine's moments; per test and
//! protocol it gives the ratio of requests per second and each server's CPU per request, and
//! the CPU a protocol adds to a request over plain HTTP/1.1 for each, as medians of the rounds'
//! own differences.
//!
//! Why not the ratios alone: a protocol's cost that both servers pay alike raises the ratio of
//! a server slower than its ceiling (it is added to both sides of the fraction), so equal costs
//! do not leave the ratio where it was. The added CPU per request says whether ours costs more.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context as _;
use suite::output::SuiteResults;

use crate::bench_server::IN_FLIGHT;
use crate::workspace::{self, append_result, median_of};

/// wstest-server against the ceiling over each protocol.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Measured time per server, test, protocol and round.
    #[arg(long, default_value = "3s", value_parser = host::duration::parse)]
    duration: Duration,
    /// Rounds.
    #[arg(long, default_value_t = 3)]
    rounds: u32,
    /// Tests to measure, comma-separated (default: every case of the manifest).
    #[arg(long, value_delimiter = ',')]
    tests: Vec<String>,
    /// HTTP/2 streams a connection (30 / M connections, so that 30 requests are in flight as
    /// over HTTP/1.1 with 30 connections).
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=30))]
    streams: u32,
    /// Where the table is appended (default: docs/results/tls-h2.md).
    #[arg(short = 'o', long, value_name = "FILE")]
    output: Option<PathBuf>,
}

/// The protocols, in a round's order: (name, the suite's options).
const PROTOCOLS: [(&str, &[&str]); 4] = [
    ("HTTP/1.1", &[]),
    ("TLS", &["--tls"]),
    ("h2c", &["--http2"]),
    ("h2 over TLS", &["--tls", "--http2"]),
];

/// One run of one server: requests per second and CPU µs per request.
#[derive(Debug, Clone, Copy)]
struct Figure {
    rps: f64,
    cpu_us: f64,
}

pub(crate) fn run(args: &Args) -> anyhow::Result<()> {
    let stamp = workspace::stamp();
    let release = workspace::build_release(&["server", "ceiling"])?;
    let dir = std::env::temp_dir().join(format!("xtask-bench-protocols-{}", std::process::id()));
    // figures[protocol][round]: the suite's results.
    let mut figures: Vec<Vec<SuiteResults>> = PROTOCOLS.iter().map(|_| Vec::new()).collect();
    for round in 0..args.rounds {
        let mut order: Vec<usize> = (0..PROTOCOLS.len()).collect();
        if round % 2 == 1 {
            order.reverse();
        }
        for index in order {
            let (name, options) = PROTOCOLS[index];
            eprintln!(
                "bench-protocols: round {} of {}, {name}",
                round + 1,
                args.rounds
            );
            let http2 = options.contains(&"--http2");
            let connections = if http2 {
                (IN_FLIGHT / args.streams).max(1)
            } else {
                IN_FLIGHT
            };
            let mut suite_args: Vec<String> = [
                "--stack", "ceiling", "--stack", "wstest", "--warmup", "1s", "--repeat", "1",
                "--format", "csv",
            ]
            .map(str::to_owned)
            .to_vec();
            suite_args.extend(options.iter().map(|option| (*option).to_owned()));
            if http2 {
                suite_args.push(format!("--streams={}", args.streams));
            }
            suite_args.extend([
                format!("--concurrency={connections}"),
                format!("--duration={}s", args.duration.as_secs_f64()),
                "--out".to_owned(),
                dir.display().to_string(),
                "--server-bin".to_owned(),
                release.join("wstest-server").display().to_string(),
            ]);
            if !args.tests.is_empty() {
                suite_args.extend(["--tests".to_owned(), args.tests.join(",")]);
            }
            figures[index].push(workspace::suite_results(&suite_args, &dir)?);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    append_result(
        "tls-h2.md",
        args.output.as_deref(),
        &table(&stamp, &figures, args)?,
    )
}

/// A server's figure for `test` in one round's results.
fn figure(results: &SuiteResults, test: &str, target: &str) -> anyhow::Result<Figure> {
    let cell = results
        .cells
        .iter()
        .find(|cell| cell.test == test && cell.target == target)
        .with_context(|| format!("no {test} cell for {target}"))?;
    let run = cell
        .runs
        .first()
        .with_context(|| format!("{test} on {target}: no run"))?;
    let cpu_s = run
        .resources
        .as_ref()
        .and_then(|resources| resources.server_cpu_s)
        .with_context(|| format!("{test} on {target}: no server CPU"))?;
    Ok(Figure {
        rps: run.requests_per_second,
        cpu_us: cpu_s * 1e6 / run.complete.max(1) as f64,
    })
}

fn table(stamp: &str, figures: &[Vec<SuiteResults>], args: &Args) -> anyhow::Result<String> {
    let mut out = format!(
        "\n## {stamp}, {} s per cell, median of {} rounds, protocols interleaved\n\nCommand: `cargo xtask bench-protocols --duration {}s --rounds {}{}` (loadgen suite: servers on cpu 0, loadgen on the others, 30 requests in flight: -c 30 over HTTP/1.1, -c {} --streams {} over HTTP/2)\n\nratio: wstest-server's req/s ÷ the ceiling's; µs: each server's CPU per request; added: the CPU per request the protocol adds over HTTP/1.1 (wstest-server's / the ceiling's, median of the rounds' differences).\n\n| test | protocol | ratio | wstest-server µs | ceiling µs | added µs, ours / ceiling's |\n|---|---|---:|---:|---:|---:|\n",
        args.duration.as_secs_f64(),
        args.rounds,
        args.duration.as_secs_f64(),
        args.rounds,
        if args.tests.is_empty() {
            String::new()
        } else {
            format!(" --tests {}", args.tests.join(","))
        },
        (IN_FLIGHT / args.streams).max(1),
        args.streams,
    );
    let tests = figures[0]
        .first()
        .map(|results| results.tests.clone())
        .unwrap_or_default();
    for test in &tests {
        // by_protocol[protocol][round] = (ours, ceiling)
        let mut by_protocol: Vec<Vec<(Figure, Figure)>> = Vec::new();
        for rounds in figures {
            by_protocol.push(
                rounds
                    .iter()
                    .map(|results| {
                        Ok((
                            figure(results, test, "wstest")?,
                            figure(results, test, "ceiling")?,
                        ))
                    })
                    .collect::<anyhow::Result<_>>()?,
            );
        }
        for (index, (name, _)) in PROTOCOLS.iter().enumerate() {
            let rounds = &by_protocol[index];
            let ratio = median_of(
                rounds
                    .iter()
                    .map(|(ours, ceiling)| ours.rps / ceiling.rps)
                    .collect(),
            );
            let ours_us = median_of(rounds.iter().map(|(ours, _)| ours.cpu_us).collect());
            let ceiling_us = median_of(rounds.iter().map(|(_, ceiling)| ceiling.cpu_us).collect());
            let added = if index == 0 {
                "-".to_owned()
            } else {
                let plain = &by_protocol[0];
                let added = |pick: fn(&(Figure, Figure)) -> f64| {
                    median_of(
                        rounds
                            .iter()
                            .zip(plain)
                            .map(|(here, base)| pick(here) - pick(base))
                            .collect(),
                    )
                };
                format!(
                    "{:+.2} / {:+.2}",
                    added(|(ours, _)| ours.cpu_us),
                    added(|(_, ceiling)| ceiling.cpu_us)
                )
            };
            out.push_str(&format!(
                "| {test} | {name} | {ratio:.2} | {ours_us:.2} | {ceiling_us:.2} | {added} |\n"
            ));
        }
    }
    Ok(out)
}
