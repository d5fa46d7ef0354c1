//! loadgen as the suite's load client: a cell becomes the command line a user would type
//! (`-q -k -c N -p FILE -T TYPE -H ... --duration D --warmup W`), which loadgen's own parser
//! reads and its library runs in this process, so the suite's figures are a direct run's
//! figures.

use std::sync::atomic::AtomicBool;

use anyhow::{Context as _, bail};
use loadgen::cli::{self, Invocation};
use loadgen::report::RunInfo;
use loadgen::stats::Results;
use loadgen::{json, load};

use crate::client::{CellFigures, CellSpec, LoadClient};

/// loadgen, run in this process.
#[derive(Debug, Default)]
pub struct Loadgen;

/// The command line of a direct loadgen run of `cell`.
pub fn command_line(cell: &CellSpec) -> Vec<String> {
    let mut args = vec![
        "-q".to_owned(),
        "-k".to_owned(),
        "-c".to_owned(),
        cell.concurrency.to_string(),
    ];
    args.extend(cell.request_args());
    args.push(format!("--duration={}s", cell.duration.as_secs_f64()));
    if !cell.warmup.is_zero() {
        args.push(format!("--warmup={}s", cell.warmup.as_secs_f64()));
    }
    // A mix file holds each part's checks.
    if cell.mix_file.is_none() {
        if let Some(text) = &cell.expect_body {
            args.push(format!("--expect-body={text}"));
        }
        if let Some(text) = &cell.reject_body {
            args.push(format!("--reject-body={text}"));
        }
    }
    if let Some(streams) = cell.http2 {
        args.push("--http2".to_owned());
        if streams > 1 {
            args.push(format!("--streams={streams}"));
        }
    }
    if let Some(ca) = &cell.cacert {
        args.push(format!("--cacert={}", ca.display()));
    }
    args.push(cell.url.to_string());
    args
}

/// What a run in this process measured.
pub(crate) struct Run {
    pub(crate) results: Results,
    pub(crate) info: RunInfo,
    /// The measured phase's start, in seconds since the epoch.
    pub(crate) started_unix: f64,
}

/// Runs loadgen's command line `args` in this process, as `loadgen ARGS` would.
pub(crate) fn run(args: &[String]) -> anyhow::Result<Run> {
    let options = match cli::parse(args).map_err(|error| anyhow::anyhow!("{error}"))? {
        Invocation::Run(options) => options,
        other => bail!("a cell's command line asked for {other:?}"),
    };
    if let Err(limit) = loadgen::load::allow_connections(options.load.concurrency) {
        eprintln!("loadgen suite: -c {} {limit}", options.load.concurrency);
    }
    let (plan, info) = load::plan_of(&options, load::Log::default())?;
    let started_unix = host::process::unix_now() + plan.warmup.as_secs_f64();
    let outcome = load::execute(&plan, &AtomicBool::new(false), &mut |_| {})?;
    if let Some(abort) = &outcome.abort {
        bail!("{}", abort.message.trim());
    }
    Ok(Run {
        results: outcome.results,
        info,
        started_unix,
    })
}

impl LoadClient for Loadgen {
    fn name(&self) -> &str {
        "loadgen"
    }

    fn mixes(&self) -> bool {
        true
    }

    fn version(&self) -> String {
        format!("loadgen {}", env!("CARGO_PKG_VERSION"))
    }

    fn run(&self, cell: &CellSpec) -> anyhow::Result<CellFigures> {
        let args = command_line(cell);
        let Run {
            mut results,
            info,
            started_unix,
        } = run(&args)?;
        let table = results.table();
        let context = json::Context {
            command_line: &args,
            started_unix,
            start_at_unix: None,
            info: &info,
        };
        let report = json::build(&context, &results, table.as_ref());
        let percentile_ms =
            |quantile: f64| results.histograms.total.value_at_quantile(quantile) as f64 / 1000.0;
        let counters = &results.counters;
        Ok(CellFigures {
            requests_per_second: report.summary.requests_per_second,
            complete: counters.complete,
            failed: counters.failed,
            non_2xx: counters.non_2xx,
            p50_ms: percentile_ms(0.50),
            p99_ms: percentile_ms(0.99),
            measured_unix: Some((report.started_unix, report.ended_unix)),
            client_cpu_s: None,
            resources: None,
            document: serde_json::to_value(&report).context("serialising the run")?,
        })
    }
}
