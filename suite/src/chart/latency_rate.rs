//! `latency-rate.svg` (`--slo`): for each test a panel of corrected latency against offered
//! rate, from the knee search's fixed-rate steps: p99 as a solid line and p50 as a dashed one in
//! each target's colour, each objective as a grey horizontal line, and each target's knee as a
//! triangle on its objective's line.

use std::collections::BTreeMap;
use std::path::Path;

use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

use crate::knee::{Knee, Step};
use crate::output::SuiteResults;

/// The knees of `results`: (test, target, knee) for each loadgen cell that has one.
fn knees(results: &SuiteResults) -> Vec<(&str, &str, &Knee)> {
    results
        .cells
        .iter()
        .filter_map(|cell| {
            let knee = cell.summary.as_ref()?.max_rate_at_slo.as_ref()?;
            Some((cell.test.as_str(), cell.target.as_str(), knee))
        })
        .collect()
}

/// Whether the run searched any knee.
pub(crate) fn any(results: &SuiteResults) -> bool {
    !knees(results).is_empty()
}

/// A target's steps as one point per rate (of a rate run twice, the better run: the one the
/// search went by), sorted by rate: (rate, p50 ms, p99 ms).
fn points(steps: &[Step]) -> Vec<(f64, f64, f64)> {
    let mut by_rate: BTreeMap<u64, &Step> = BTreeMap::new();
    for step in steps {
        let key = step.offered_rate.round() as u64;
        let better = by_rate.get(&key).is_none_or(|kept| {
            (step.met, std::cmp::Reverse(step.p99_us)) > (kept.met, std::cmp::Reverse(kept.p99_us))
        });
        if better {
            by_rate.insert(key, step);
        }
    }
    by_rate
        .values()
        .map(|step| {
            (
                step.offered_rate,
                step.p50_us as f64 / 1000.0,
                step.p99_us as f64 / 1000.0,
            )
        })
        .collect()
}

pub(crate) fn draw(results: &SuiteResults, path: &Path) -> anyhow::Result<()> {
    let knees = knees(results);
    let tests: Vec<&str> = results
        .tests
        .iter()
        .map(String::as_str)
        .filter(|test| knees.iter().any(|(t, ..)| t == test))
        .collect();
    let targets: Vec<&str> = results.targets.iter().map(|t| t.name.as_str()).collect();
    let objectives = knees
        .first()
        .map(|(.., knee)| knee.objectives.clone())
        .unwrap_or_default();
    let objectives_text = knees
        .first()
        .map(|(.., knee)| knee.objectives_text())
        .unwrap_or_default();
    // One latency axis for every panel, so that panels compare; log scale, since an overloaded
    // step's latency is a thousand times a calm one's.
    let all: Vec<f64> = knees
        .iter()
        .flat_map(|(.., knee)| points(&knee.steps))
        .flat_map(|(_, p50, p99)| [p50, p99])
        .chain(objectives.iter().map(|o| o.limit_us as f64 / 1000.0))
        .filter(|ms| *ms > 0.0)
        .collect();
    let low = all.iter().copied().fold(f64::INFINITY, f64::min).max(0.001) / 1.5;
    let high = all.iter().copied().fold(0.0, f64::max).max(low * 10.0) * 1.5;

    let (root, plot, legend) = super::frame(
        path,
        &format!("WSTest latency against offered rate, and each knee at {objectives_text}"),
        results,
    )?;
    let font = charts::label_font();
    for (index, target) in targets.iter().enumerate() {
        let y = 40 + 22 * index as i32;
        legend.draw(&PathElement::new(
            vec![(8, y + 6), (26, y + 6)],
            charts::colour(index).stroke_width(3),
        ))?;
        legend.draw(&Text::new(target.to_string(), (32, y), font.clone()))?;
    }
    let notes = [
        "solid: corrected p99",
        "dashed: corrected p50",
        "grey: the objective",
        "triangle: the knee",
    ];
    for (index, note) in notes.iter().enumerate() {
        let y = 60 + 22 * (targets.len() + index) as i32;
        legend.draw(&Text::new(note.to_string(), (8, y), charts::note_font()))?;
    }
    let columns = tests.len().clamp(1, 4);
    let rows = tests.len().div_ceil(columns).max(1);
    let panels = plot.split_evenly((rows, columns));
    for (panel_index, (panel, test)) in panels.iter().zip(&tests).enumerate() {
        let of_test: Vec<(&str, &Knee)> = knees
            .iter()
            .filter(|(t, ..)| t == test)
            .map(|(_, target, knee)| (*target, *knee))
            .collect();
        let right = of_test
            .iter()
            .flat_map(|(_, knee)| knee.steps.iter().map(|step| step.offered_rate))
            .fold(0.0, f64::max)
            .max(1.0)
            * 1.08;
        let first_column = panel_index % columns == 0;
        let mut chart = ChartBuilder::on(panel)
            .caption(*test, charts::label_font())
            .margin(10)
            .x_label_area_size(40)
            .y_label_area_size(if first_column { 70 } else { 45 })
            .build_cartesian_2d::<RangedCoordf64, _>(
                (0.0..right).into(),
                (low..high).log_scale(),
            )?;
        chart
            .configure_mesh()
            .x_desc("offered requests per second")
            .y_desc(if first_column {
                "latency, ms (log)"
            } else {
                ""
            })
            .x_labels(4)
            .x_label_formatter(&|x| {
                if *x >= 1000.0 {
                    format!("{:.0}k", x / 1000.0)
                } else {
                    format!("{x:.0}")
                }
            })
            .y_label_formatter(&|y| format!("{y}"))
            .draw()?;
        for objective in &objectives {
            let limit = objective.limit_us as f64 / 1000.0;
            chart.draw_series(LineSeries::new(
                [(0.0, limit), (right, limit)],
                charts::GREY.stroke_width(1),
            ))?;
        }
        for (target, knee) in &of_test {
            let Some(index) = targets.iter().position(|t| t == target) else {
                continue;
            };
            let colour = charts::colour(index);
            let points = points(&knee.steps);
            chart.draw_series(LineSeries::new(
                points.iter().map(|&(rate, _, p99)| (rate, p99)),
                colour.stroke_width(2),
            ))?;
            chart.draw_series(
                points
                    .iter()
                    .map(|&(rate, _, p99)| Circle::new((rate, p99), 3, colour.filled())),
            )?;
            chart.draw_series(DashedLineSeries::new(
                points.iter().map(|&(rate, p50, _)| (rate, p50)),
                6,
                4,
                colour.stroke_width(1),
            ))?;
            if let (Some(rate), Some(objective)) = (knee.max_rate, knee.objectives.first()) {
                let limit = objective.limit_us as f64 / 1000.0;
                chart.draw_series(std::iter::once(TriangleMarker::new(
                    (rate, limit),
                    7,
                    colour.filled(),
                )))?;
            }
        }
    }
    root.present()?;
    Ok(())
}
