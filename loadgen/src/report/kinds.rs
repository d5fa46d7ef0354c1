//! A mix's kinds in the extended section: one row a kind, and their sum.

use std::fmt::Write as _;

use super::RunInfo;
use crate::stats::Results;

/// A mix's table: each kind's weight, share of the requests, counts, rate and latency, and
/// their sum, which is the run's.
pub(super) fn table(w: &mut String, info: &RunInfo, results: &Results) {
    let seed = info
        .settings
        .request
        .mix
        .as_ref()
        .map_or(crate::mix::DEFAULT_SEED, |mix| mix.seed);
    let _ = writeln!(
        w,
        "Request kinds (a mix of {}, --seed {seed}; latency in microseconds)",
        results.kinds.len()
    );
    // Names read from a results file (`loadgen merge`) may be of any length and hold anything:
    // they are shown with their control characters escaped, and the column no wider than a
    // mix file's longest name (a width past 65,535 would end the report in a panic).
    let names: Vec<std::borrow::Cow<'_, str>> = results
        .kinds
        .iter()
        .map(|kind| host::printable(&kind.name))
        .collect();
    let width = names
        .iter()
        .map(|name| name.chars().count())
        .max()
        .unwrap_or(0)
        .clamp(4, crate::mix::MAX_NAME_CHARS);
    let paced = info.rate.is_some();
    let corrected_head = if paced { "  corr. p99" } else { "" };
    let _ = writeln!(
        w,
        "  {:<width$}  weight   share     length   complete     failed    non-2xx       req/s       p50       p99       max{corrected_head}",
        "kind"
    );
    let c = &results.counters;
    let ended = (c.complete + c.failed).max(1) as f64;
    let rate = |complete: u64| super::per_second(complete, results.time_taken);
    let mut weights = 0u64;
    for (kind, name) in results.kinds.iter().zip(&names) {
        let stats = &kind.stats;
        weights += u64::from(kind.weight);
        let (p50, p99, max) = if stats.complete > 0 {
            (
                stats.total.value_at_quantile(0.5).to_string(),
                stats.total.value_at_quantile(0.99).to_string(),
                stats.total.max().to_string(),
            )
        } else {
            ("-".to_owned(), "-".to_owned(), "-".to_owned())
        };
        let corrected = if paced && stats.complete > 0 {
            format!("  {:>9}", stats.corrected.value_at_quantile(0.99))
        } else if paced {
            format!("  {:>9}", "-")
        } else {
            String::new()
        };
        let _ = writeln!(
            w,
            "  {:<width$}  {:>6}  {:>5.1}%  {:>9}  {:>9}  {:>9}  {:>9}  {:>10.2}  {p50:>8}  {p99:>8}  {max:>8}{corrected}",
            name,
            kind.weight,
            (stats.complete + stats.failed) as f64 * 100.0 / ended,
            kind.document_length,
            stats.complete,
            stats.failed,
            stats.non_2xx,
            rate(stats.complete),
        );
    }
    let all = if c.complete + c.failed > 0 {
        100.0
    } else {
        0.0
    };
    let _ = writeln!(
        w,
        "  {:<width$}  {:>6}  {:>5.1}%  {:>9}  {:>9}  {:>9}  {:>9}  {:>10.2}",
        "all",
        weights,
        all,
        "",
        c.complete,
        c.failed,
        c.non_2xx,
        rate(c.complete),
    );
}
