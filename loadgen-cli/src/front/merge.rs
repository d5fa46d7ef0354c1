//! `loadgen merge [--json FILE] [-e FILE] a.json b.json ...`: one report for runs made side by
//! side (the shards of one test, or several client machines against one server), in the
//! formats of a single run but `-g`, which needs each request's times that the files do not
//! keep.

use anyhow::Context as _;

use super::files;
use loadgen::cli::MergeOptions;
use loadgen::merge::{self, Merged, Run};
use loadgen::options::Display;
use loadgen::report;
use loadgen::{json, stats::Table};

/// Reads the runs `options` names, merges them, prints the report and writes the files.
/// Returns the exit code.
pub(crate) fn merge(options: &MergeOptions, command_line: &[String]) -> anyhow::Result<i32> {
    let mut runs = Vec::with_capacity(options.files.len());
    for path in &options.files {
        runs.push(read_run(&path.display().to_string())?);
    }
    let mut merged = merge::merge(runs)?;
    let table = merged.results.table();
    print_report(&merged, table.as_ref())?;
    if let Some(path) = &options.csv_file {
        files::write_csv(path, table.as_ref())?;
    }
    if let Some(out) = &options.json {
        let context = json::Context {
            command_line,
            started_unix: merged.started_unix,
            start_at_unix: None,
            info: &merged.info,
        };
        let mut report = json::build(&context, &merged.results, table.as_ref());
        report.merged = merged.runs;
        files::write_json(out, &report)?;
    }
    Ok(0)
}

/// One run's file (or a log holding a run's `--json -`).
fn read_run(path: &str) -> anyhow::Result<Run> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {path}"))?;
    let (report, results) = json::read(&text).with_context(|| format!("cannot read {path}"))?;
    Ok(Run {
        path: path.to_owned(),
        report,
        results,
    })
}

/// ab's report of the merged run, after lines naming the runs, the shards and the start skew.
fn print_report(merged: &Merged, table: Option<&Table>) -> anyhow::Result<()> {
    let paths: Vec<&str> = merged.runs.iter().map(|run| run.path.as_str()).collect();
    host::out!("{}", report::banner(false));
    host::outln!("Merged {} runs: {}", paths.len(), paths.join(", "));
    if let Some(count) = merged.runs.first().and_then(|run| Some(run.shard?.count)) {
        let mut shards: Vec<u32> = merged
            .runs
            .iter()
            .filter_map(|run| Some(run.shard?.index))
            .collect();
        shards.sort_unstable();
        host::out!("Shards:                 {} of {count}", list(&shards));
        if merged.missing_shards.is_empty() {
            host::outln!();
        } else {
            host::outln!(
                " (missing {}: this is not the whole test)",
                list(&merged.missing_shards)
            );
        }
    }
    host::outln!(
        "Start skew:             {:.3} ms between the first run's start and the last's",
        merged.start_skew * 1000.0
    );
    let display = Display::default();
    let mut out = report::ab_text(&merged.info, &merged.results, table, &display);
    out.push_str(&report::extended(&merged.info, &merged.results, table));
    host::out!("{out}");
    host::flush_stdout();
    Ok(())
}

fn list(indices: &[u32]) -> String {
    indices
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}
