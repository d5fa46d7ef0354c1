//! `changes.svg` (`--baseline`): each compared cell's change in requests per second against
//! the baseline, as a horizontal bar from zero to the change of the medians with its
//! confidence interval as a whisker, coloured by the verdict (faster, slower, within noise).

use std::path::Path;

use plotters::coord::combinators::BindKeyPoints as _;
use plotters::prelude::*;

use crate::change::{Comparison, Verdict};
use crate::output::SuiteResults;

/// Pixels per compared cell.
const ROW: u32 = 26;
const SLOT: i32 = 1000;

fn verdict_colour(verdict: Verdict) -> RGBColor {
    match verdict {
        Verdict::Faster => charts::PALETTE[2],
        Verdict::Slower => charts::PALETTE[5],
        Verdict::WithinNoise | Verdict::TooFewRuns => charts::GREY,
    }
}

pub(crate) fn draw(
    results: &SuiteResults,
    comparison: &Comparison,
    path: &Path,
) -> anyhow::Result<()> {
    let cells = &comparison.cells;
    let n = cells.len().max(1) as i32;
    let label = |idx: usize| {
        cells.get(idx).map_or_else(String::new, |cell| {
            let concurrency = if results.concurrencies.len() > 1 {
                format!(" c={}", cell.key.concurrency)
            } else {
                String::new()
            };
            format!(
                "{}{concurrency} {}",
                cell.key.test,
                results.column_title(&cell.key.target, &cell.key.client)
            )
        })
    };
    let extent = cells
        .iter()
        .flat_map(|cell| {
            let rps = &cell.requests_per_second;
            let (low, high) = rps
                .shift
                .map_or((0.0, 0.0), |shift| (shift.low, shift.high));
            [rps.median_change, low, high]
        })
        .map(f64::abs)
        .fold(0.05, f64::max)
        * 100.0
        * 1.15;
    let height = 130 + ROW * n as u32;
    let confidence = comparison
        .confidence()
        .map_or_else(String::new, |confidence| {
            format!(", {:.0}% intervals", confidence * 100.0)
        });
    let title = format!(
        "Change in requests per second against the baseline of {}{confidence}",
        comparison.date
    );
    let (root, plot, legend) = super::frame_on(
        SVGBackend::new(path, (super::WIDTH, height)),
        &title,
        results,
    )?;
    let font = charts::label_font();
    for (idx, verdict) in [Verdict::Faster, Verdict::Slower, Verdict::WithinNoise]
        .into_iter()
        .enumerate()
    {
        let y = 40 + 22 * idx as i32;
        legend.draw(&Rectangle::new(
            [(8, y), (24, y + 12)],
            verdict_colour(verdict).filled(),
        ))?;
        legend.draw(&Text::new(verdict.word(), (30, y), font.clone()))?;
    }
    let centres: Vec<i32> = (0..n).map(|idx| idx * SLOT + SLOT / 2).collect();
    let mut chart = ChartBuilder::on(&plot)
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(230)
        .build_cartesian_2d(-extent..extent, (0..n * SLOT).with_key_points(centres))?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .x_desc("change of the median, % (whisker: confidence interval; right is faster)")
        .x_label_formatter(&|x| format!("{x:+.0}%"))
        .y_label_formatter(&|y| label((*y / SLOT) as usize))
        .y_label_style(charts::label_font())
        .draw()?;
    chart.draw_series(std::iter::once(PathElement::new(
        vec![(0.0, 0), (0.0, n * SLOT)],
        BLACK.stroke_width(1),
    )))?;
    for (idx, cell) in cells.iter().enumerate() {
        let rps = &cell.requests_per_second;
        let (y0, y1) = (
            idx as i32 * SLOT + SLOT / 5,
            idx as i32 * SLOT + SLOT * 4 / 5,
        );
        chart.draw_series(std::iter::once(Rectangle::new(
            [(0.0, y0), (rps.median_change * 100.0, y1)],
            verdict_colour(rps.verdict).filled(),
        )))?;
        if let Some(shift) = rps.shift {
            let mid = (y0 + y1) / 2;
            chart.draw_series(std::iter::once(PathElement::new(
                vec![(shift.low * 100.0, mid), (shift.high * 100.0, mid)],
                BLACK.stroke_width(2),
            )))?;
            for end in [shift.low, shift.high] {
                chart.draw_series(std::iter::once(PathElement::new(
                    vec![(end * 100.0, mid - SLOT / 6), (end * 100.0, mid + SLOT / 6)],
                    BLACK.stroke_width(2),
                )))?;
            }
        }
    }
    root.present()?;
    Ok(())
}
