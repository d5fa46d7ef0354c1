//! A `[flow]` in the extended section: passes done and their rate, failed and unfinished,
//! their latency, and the failures at each step by cause.

use std::fmt::Write as _;

use super::QUANTILES;
use crate::stats::FlowCounts;

/// The section of `flows`, done at `rate` a second.
pub(super) fn section(w: &mut String, flows: &FlowCounts, rate: f64) {
    let failed = flows.failed();
    let ended = flows.complete + failed;
    let _ = writeln!(
        w,
        "Flows:                  {} done ({rate:.2} [#/sec]), {failed} failed ({:.1}% of those ended), {} unfinished at the end",
        flows.complete,
        failed as f64 * 100.0 / ended.max(1) as f64,
        flows.unfinished
    );
    if flows.complete > 0 {
        let latency = &flows.latency;
        let quantiles: Vec<String> = QUANTILES
            .iter()
            .map(|(label, quantile)| format!("{label} {}", latency.value_at_quantile(*quantile)))
            .chain([format!("max {}", latency.max())])
            .collect();
        let _ = writeln!(
            w,
            "Flow latency (microseconds, first request's start to last answer): {}",
            quantiles.join(", ")
        );
    }
    if failed == 0 {
        return;
    }
    let _ = writeln!(w, "Flow failures by step:");
    for (index, step) in flows.steps.iter().enumerate() {
        if step.total() == 0 {
            continue;
        }
        let _ = writeln!(
            w,
            "  {} {}: {} (answer {}, no answer {}, save {})",
            index + 1,
            host::printable(&step.name),
            step.total(),
            step.answer,
            step.no_answer,
            step.save
        );
    }
}
