//! The files a run or a merge writes besides its report: `-e`, `-g`, `--json`, `--series`.

use std::path::Path;

use anyhow::Context as _;

use loadgen::json::{self, JsonReport, SecondRecord};
use loadgen::options::JsonOut;
use loadgen::report;
use loadgen::stats::{MAX_SAMPLES, Results, Table};

/// `-e`: ab's percentile CSV, when a request completed.
pub(super) fn write_csv(path: &Path, table: Option<&Table>) -> anyhow::Result<()> {
    let Some(table) = table else {
        return Ok(());
    };
    std::fs::write(path, report::csv(table))
        .with_context(|| format!("cannot write {}", path.display()))
}

/// `-g`: ab's gnuplot file of every request, times from `start_unix` (the measured phase's
/// start, in whole seconds since the epoch).
pub(super) fn write_gnuplot(path: &Path, results: &Results, start_unix: u64) -> anyhow::Result<()> {
    if (results.samples.len() as u64) < results.counters.complete {
        eprintln!(
            "loadgen: -g {}: the run outgrew the {MAX_SAMPLES} requests whose times are kept, so the file has no rows",
            path.display()
        );
    }
    let text = report::gnuplot(&results.samples, start_unix);
    std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
}

/// `--series`: the per-second series of the JSON as CSV, one row a second of the measured
/// phase; the columns of `--rate` are empty without it.
pub(super) fn write_series(path: &Path, seconds: &[SecondRecord]) -> anyhow::Result<()> {
    let mut text =
        String::from("second,requests,errors,offered_rate,corrected_p50_us,corrected_p99_us\n");
    let cell = |value: Option<String>| value.unwrap_or_default();
    for (index, second) in seconds.iter().enumerate() {
        text.push_str(&format!(
            "{index},{},{},{},{},{}\n",
            second.requests,
            second.errors,
            cell(second.offered_rate.map(|rate| format!("{rate:.1}"))),
            cell(second.corrected_p50_us.map(|us| us.to_string())),
            cell(second.corrected_p99_us.map(|us| us.to_string())),
        ));
    }
    std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
}

/// `--json`: `report` into its file, or with `-` onto stdout after the report, between marker
/// lines: how a run in a container without a volume hands its file over (`kubectl logs`).
pub(super) fn write_json(out: &JsonOut, report: &JsonReport) -> anyhow::Result<()> {
    let text = serde_json::to_string_pretty(report).context("cannot serialise the report")?;
    match out {
        JsonOut::Stdout => {
            host::outln!("{}\n{text}\n{}", json::STDOUT_BEGIN, json::STDOUT_END);
            Ok(())
        }
        JsonOut::File(path) => std::fs::write(path, text + "\n")
            .with_context(|| format!("cannot write {}", path.display())),
    }
}
