//! `cargo xtask bench-scale`: how ours and the ceiling scale with server cores. For each count
//! N of 1, 2, 4, ... while loadgen keeps at least as many cores as the server (2N <= the
//! machine's cores), it runs `loadgen suite` with both servers on cores 0..N (each runs an
//! event loop per core it may use) and loadgen on the rest, 30 connections a server core, and
//! reports per N requests a second, requests per server CPU-second, the ratio to the ceiling,
//! and the speed-up over one core. On a machine too small for a second step it measures N = 1
//! and says which counts a bigger one would measure.

use std::path::PathBuf;
use std::time::Duration;

use suite::output::SuiteResults;

use crate::workspace::{self, append_result};

/// Ours and the ceiling on 1, 2, 4, ... server cores.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Measured time per server, test, core count and round.
    #[arg(long, default_value = "5s", value_parser = host::duration::parse)]
    duration: Duration,
    /// Rounds per cell.
    #[arg(long, default_value_t = 3)]
    rounds: u32,
    /// Tests to measure, comma-separated.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "EchoVoid,EchoStruct-20,EchoStruct-100,GetOrder-100"
    )]
    tests: Vec<String>,
    /// Where the table is appended (default: docs/results/bench-scale.md).
    #[arg(short = 'o', long, value_name = "FILE")]
    output: Option<PathBuf>,
}

/// Connections a server core gets: as many as the one-core comparison's.
const CONNECTIONS_PER_CORE: u32 = 30;

/// The server core counts a machine of `cores` measures: powers of two while the client keeps
/// at least as many cores as the server (loadgen spends about as much CPU a request as our
/// server on the small tests, so fewer client cores would measure the client).
fn core_counts(cores: usize) -> Vec<usize> {
    std::iter::successors(Some(1_usize), |n| n.checked_mul(2))
        .take_while(|n| 2 * n <= cores)
        .collect()
}

pub(crate) fn run(args: &Args) -> anyhow::Result<()> {
    // Before anything pins this process, which narrows the cores it sees.
    let stamp = workspace::stamp();
    let cores = host::Machine::this().cores;
    if cores < 2 {
        anyhow::bail!("bench-scale needs 2 cores at least: the server's and loadgen's");
    }
    let counts = core_counts(cores);
    let release = workspace::build_release(&["server", "ceiling"])?;
    if counts.len() == 1 {
        eprintln!(
            "bench-scale: {cores} cores measure 1 server core only; a machine of 8 would \
             measure {:?}, of 64 {:?} (servers on cores 0..N, loadgen on the rest)",
            core_counts(8),
            core_counts(64)
        );
    }
    let mut rows = Vec::new();
    for &n in &counts {
        eprintln!("bench-scale: {n} server core(s), loadgen on {}", cores - n);
        let dir =
            std::env::temp_dir().join(format!("xtask-bench-scale-{}-{n}", std::process::id()));
        let concurrency = CONNECTIONS_PER_CORE * n as u32;
        let suite_args: Vec<String> = vec![
            "--stack".into(),
            "ceiling".into(),
            "--stack".into(),
            "wstest".into(),
            "--server-bin".into(),
            release.join("wstest-server").display().to_string(),
            "--server-cpus".into(),
            cpu_range(0, n),
            "--client-cpus".into(),
            cpu_range(n, cores),
            "--tests".into(),
            args.tests.join(","),
            format!("--concurrency={concurrency}"),
            format!("--duration={}s", args.duration.as_secs_f64()),
            "--warmup=1s".into(),
            format!("--repeat={}", args.rounds),
            "--resources".into(),
            "--format=csv".into(),
            "--out".into(),
            dir.display().to_string(),
        ];
        let results = workspace::suite_results(&suite_args, &dir)?;
        let _ = std::fs::remove_dir_all(&dir);
        rows.push((n, concurrency, results));
    }
    append_result(
        "bench-scale.md",
        args.output.as_deref(),
        &table(&stamp, args, &rows),
    )
}

/// `A-B` for cores `from..to`, as `--server-cpus` takes it.
fn cpu_range(from: usize, to: usize) -> String {
    if to - from == 1 {
        from.to_string()
    } else {
        format!("{from}-{}", to - 1)
    }
}

/// Per test and core count: both servers' medians, the ratio, and the speed-up over one core.
fn table(stamp: &str, args: &Args, rows: &[(usize, u32, SuiteResults)]) -> String {
    let mut out = format!(
        "\n## {stamp}, {} s per cell, median of {} rounds\n\nCommand: `cargo xtask bench-scale --duration {}s --rounds {} --tests {}` (servers on cores 0..N, loadgen on the others, {CONNECTIONS_PER_CORE} connections a server core)\n\n| test | server cores | ceiling req/s | wstest req/s | ratio | ceiling req/CPU-s | wstest req/CPU-s | wstest speed-up over 1 core |\n|---|---:|---:|---:|---:|---:|---:|---:|\n",
        args.duration.as_secs_f64(),
        args.rounds,
        args.duration.as_secs_f64(),
        args.rounds,
        args.tests.join(","),
    );
    for test in &args.tests {
        let mut one_core = None;
        for (n, concurrency, results) in rows {
            // The suite's medians over the rounds.
            let figure = |target: &str, per_cpu: bool| -> f64 {
                let summary = results
                    .cell(test, *concurrency, target, "loadgen")
                    .and_then(|cell| cell.summary.as_ref());
                match summary {
                    Some(summary) if per_cpu => summary.requests_per_cpu_second.unwrap_or(0.0),
                    Some(summary) => summary.requests_per_second,
                    None => 0.0,
                }
            };
            let (ceiling, ours) = (figure("ceiling", false), figure("wstest", false));
            let speed_up = *one_core.get_or_insert(ours);
            out.push_str(&format!(
                "| {test} | {n} | {ceiling:.0} | {ours:.0} | {:.2} | {:.0} | {:.0} | {:.2} |\n",
                ratio(ours, ceiling),
                figure("ceiling", true),
                figure("wstest", true),
                ratio(ours, speed_up),
            ));
        }
    }
    out
}

fn ratio(a: f64, b: f64) -> f64 {
    if b > 0.0 { a / b } else { 0.0 }
}

#[cfg(test)]
mod tests {
    /// The counts each machine measures, and the placements they make.
    #[test]
    fn core_counts_leave_the_client_as_many_cores() {
        let cases: &[(usize, &[usize])] = &[
            (2, &[1]),
            (3, &[1]),
            (4, &[1, 2]),
            (8, &[1, 2, 4]),
            (12, &[1, 2, 4]),
            (64, &[1, 2, 4, 8, 16, 32]),
        ];
        for (cores, expected) in cases {
            assert_eq!(super::core_counts(*cores), *expected, "{cores} cores");
        }
        assert_eq!(super::cpu_range(0, 1), "0");
        assert_eq!(super::cpu_range(0, 4), "0-3");
        assert_eq!(super::cpu_range(4, 8), "4-7");
    }
}
