//! SVG charts of a suite run, drawn with plotters: requests per second per test grouped by
//! target, p50 and p99 latency per test and target, and requests per second against
//! concurrency when more than one concurrency was swept.

use std::path::Path;

use anyhow::Context as _;
use plotters::coord::combinators::BindKeyPoints as _;
use plotters::prelude::*;

use crate::output::SuiteResults;

const WIDTH: u32 = 1000;
/// The x axes are categorical: a test, or a concurrency, every this many units.
const SLOT: i32 = 1000;
const HEIGHT: u32 = 520;

/// Distinct colours that stay apart in print and for common colour blindness (Okabe-Ito).
const PALETTE: [RGBColor; 8] = [
    RGBColor(0, 114, 178),
    RGBColor(230, 159, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(86, 180, 233),
    RGBColor(213, 94, 0),
    RGBColor(240, 228, 66),
    RGBColor(0, 0, 0),
];

/// Writes `tps.svg`, `latency.svg` and, when more than one concurrency was swept,
/// `tps-concurrency.svg` into `dir`; returns their file names.
pub fn write_all(results: &SuiteResults, dir: &Path) -> anyhow::Result<Vec<String>> {
    let mut written = Vec::new();
    let concurrency = chart_concurrency(results);
    let tps = dir.join("tps.svg");
    grouped_bars(results, concurrency, Metric::Tps, &tps)
        .with_context(|| format!("drawing {}", tps.display()))?;
    written.push("tps.svg".to_owned());
    let latency = dir.join("latency.svg");
    grouped_bars(results, concurrency, Metric::Latency, &latency)
        .with_context(|| format!("drawing {}", latency.display()))?;
    written.push("latency.svg".to_owned());
    if results.concurrencies.len() > 1 {
        let sweep = dir.join("tps-concurrency.svg");
        concurrency_lines(results, &sweep)
            .with_context(|| format!("drawing {}", sweep.display()))?;
        written.push("tps-concurrency.svg".to_owned());
    }
    Ok(written)
}

/// The concurrency the per-test charts show: 30 (WSTest's) when it was run, else the first.
fn chart_concurrency(results: &SuiteResults) -> u32 {
    if results.concurrencies.contains(&30) {
        30
    } else {
        results.concurrencies[0]
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Metric {
    Tps,
    Latency,
}

fn subtitle(results: &SuiteResults) -> String {
    format!(
        "{}, {} ({} cores), {} s per cell, median of {}",
        results.date,
        results.machine.hostname,
        results.machine.cores,
        results.duration_s,
        results.repeat
    )
}

fn series_name(results: &SuiteResults, target: &str, client: &str) -> String {
    if results.clients.len() > 1 {
        format!("{target} ({client})")
    } else {
        target.to_owned()
    }
}

/// Bars per test, one per target (and client): requests per second with its min-max
/// whisker, or p99 latency (light) with p50 (dark) in front.
fn grouped_bars(
    results: &SuiteResults,
    concurrency: u32,
    metric: Metric,
    path: &Path,
) -> anyhow::Result<()> {
    let columns = results.columns();
    let n_tests = results.tests.len();
    let value = |test: &str, target: &str, client: &str| -> Option<(f64, f64, f64)> {
        let cell = results.cell(test, concurrency, target, client)?;
        let summary = cell.summary.as_ref()?;
        Some(match metric {
            Metric::Tps => (
                summary.requests_per_second,
                summary.requests_per_second_min,
                summary.requests_per_second_max,
            ),
            Metric::Latency => (summary.p99_ms, summary.p50_ms, summary.p99_ms),
        })
    };
    let top = results
        .tests
        .iter()
        .flat_map(|test| {
            columns
                .iter()
                .filter_map(move |(target, client)| value(test, target, client))
        })
        .map(|(_, _, high)| high)
        .fold(0.0, f64::max)
        .max(1e-9)
        * 1.12;
    let root = SVGBackend::new(path, (WIDTH, HEIGHT)).into_drawing_area();
    root.fill(&WHITE)?;
    let (title, y_desc) = match metric {
        Metric::Tps => (
            format!("WSTest requests per second by test, c={concurrency} (higher is better)"),
            "requests per second",
        ),
        Metric::Latency => (
            format!(
                "WSTest latency by test, c={concurrency}: p50 (dark) and p99 (light), lower is better"
            ),
            "latency (ms)",
        ),
    };
    let root = root.titled(&title, ("sans-serif", 20))?;
    let (body, footer) = root.split_vertically(HEIGHT - 50);
    footer.draw(&Text::new(
        subtitle(results),
        (10, 10),
        ("sans-serif", 13).into_font().color(&RGBColor(90, 90, 90)),
    ))?;
    let centres: Vec<i32> = (0..n_tests as i32)
        .map(|idx| idx * SLOT + SLOT / 2)
        .collect();
    let mut chart = ChartBuilder::on(&body)
        .margin(10)
        .x_label_area_size(30)
        .y_label_area_size(80)
        .build_cartesian_2d(
            (0..n_tests as i32 * SLOT).with_key_points(centres),
            0.0..top,
        )?;
    let tests = results.tests.clone();
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_label_formatter(&|x| tests.get((*x / SLOT) as usize).cloned().unwrap_or_default())
        .x_label_style(("sans-serif", 13))
        .y_desc(y_desc)
        .y_label_formatter(&|y| match metric {
            Metric::Tps => format!("{y:.0}"),
            Metric::Latency => format!("{y:.2}"),
        })
        .draw()?;
    let n_series = columns.len().max(1) as i32;
    let bar_width = SLOT * 8 / 10 / n_series;
    for (series_idx, (target, client)) in columns.iter().enumerate() {
        let colour = PALETTE[series_idx % PALETTE.len()];
        let left =
            |test_idx: usize| test_idx as i32 * SLOT + SLOT / 10 + series_idx as i32 * bar_width;
        let bars: Vec<(usize, (f64, f64, f64))> = results
            .tests
            .iter()
            .enumerate()
            .filter_map(|(idx, test)| value(test, target, client).map(|v| (idx, v)))
            .collect();
        let mut main_bars = Vec::new();
        let mut extras: Vec<PathElement<(i32, f64)>> = Vec::new();
        let mut fronts = Vec::new();
        for &(idx, (height, low, high)) in &bars {
            let (x0, x1) = (left(idx), left(idx) + bar_width * 9 / 10);
            match metric {
                Metric::Tps => {
                    main_bars.push(Rectangle::new([(x0, 0.0), (x1, height)], colour.filled()));
                    let mid = (x0 + x1) / 2;
                    extras.push(PathElement::new(
                        vec![(mid, low), (mid, high)],
                        BLACK.stroke_width(1),
                    ));
                    for y in [low, high] {
                        extras.push(PathElement::new(
                            vec![(mid - bar_width / 5, y), (mid + bar_width / 5, y)],
                            BLACK.stroke_width(1),
                        ));
                    }
                }
                Metric::Latency => {
                    main_bars.push(Rectangle::new(
                        [(x0, 0.0), (x1, height)],
                        colour.mix(0.35).filled(),
                    ));
                    fronts.push(Rectangle::new([(x0, 0.0), (x1, low)], colour.filled()));
                }
            }
        }
        chart
            .draw_series(main_bars)?
            .label(series_name(results, target, client))
            .legend(move |(x, y)| Rectangle::new([(x, y - 6), (x + 14, y + 6)], colour.filled()));
        chart.draw_series(fronts)?;
        chart.draw_series(extras)?;
        // A wrong cell gets the word in place of a bar.
        for (idx, test) in results.tests.iter().enumerate() {
            if results
                .cell(test, concurrency, target, client)
                .is_some_and(|cell| cell.wrong.is_some())
            {
                chart.draw_series(std::iter::once(Text::new(
                    "wrong",
                    (left(idx), top * 0.02),
                    ("sans-serif", 11).into_font().color(&RED),
                )))?;
            }
        }
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 13))
        .draw()?;
    root.present()?;
    Ok(())
}

/// Requests per second against concurrency (evenly spaced, in the order swept): a panel per
/// target (and client), a line per test, the same colour for a test in every panel.
fn concurrency_lines(results: &SuiteResults, path: &Path) -> anyhow::Result<()> {
    let columns = results.columns();
    let points_of = |test: &str, target: &str, client: &str| -> Vec<(i32, f64)> {
        results
            .concurrencies
            .iter()
            .enumerate()
            .filter_map(|(idx, &concurrency)| {
                let summary = results.cell(test, concurrency, target, client)?.summary?;
                Some((idx as i32 * SLOT, summary.requests_per_second))
            })
            .collect()
    };
    let top = columns
        .iter()
        .flat_map(|(target, client)| {
            results
                .tests
                .iter()
                .flat_map(move |test| points_of(test, target, client))
        })
        .map(|(_, y)| y)
        .fold(0.0, f64::max)
        .max(1e-9)
        * 1.12;
    let root = SVGBackend::new(path, (WIDTH, HEIGHT)).into_drawing_area();
    root.fill(&WHITE)?;
    let root = root.titled(
        "WSTest requests per second against concurrency",
        ("sans-serif", 20),
    )?;
    let (body, footer) = root.split_vertically(HEIGHT - 50);
    footer.draw(&Text::new(
        subtitle(results),
        (10, 10),
        ("sans-serif", 13).into_font().color(&RGBColor(90, 90, 90)),
    ))?;
    let n = results.concurrencies.len() as i32;
    let panels = body.split_evenly((1, columns.len().max(1)));
    for (panel_idx, (panel, (target, client))) in panels.iter().zip(&columns).enumerate() {
        let key_points: Vec<i32> = (0..n).map(|idx| idx * SLOT).collect();
        let mut chart = ChartBuilder::on(panel)
            .caption(series_name(results, target, client), ("sans-serif", 15))
            .margin(10)
            .x_label_area_size(40)
            .y_label_area_size(if panel_idx == 0 { 80 } else { 50 })
            .build_cartesian_2d(
                (-SLOT / 3..(n - 1) * SLOT + SLOT / 3).with_key_points(key_points),
                0.0..top,
            )?;
        let concurrencies = results.concurrencies.clone();
        chart
            .configure_mesh()
            .x_desc("concurrent connections")
            .y_desc(if panel_idx == 0 {
                "requests per second"
            } else {
                ""
            })
            .x_label_formatter(&|x| {
                concurrencies
                    .get((*x / SLOT) as usize)
                    .map(u32::to_string)
                    .unwrap_or_default()
            })
            .y_label_formatter(&|y| format!("{y:.0}"))
            .draw()?;
        for (test_idx, test) in results.tests.iter().enumerate() {
            let colour = PALETTE[test_idx % PALETTE.len()];
            let points = points_of(test, target, client);
            chart
                .draw_series(LineSeries::new(
                    points.iter().copied(),
                    colour.stroke_width(2),
                ))?
                .label(test.clone())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 16, y)], colour.stroke_width(2))
                });
            chart.draw_series(
                points
                    .iter()
                    .map(|&point| Circle::new(point, 4, colour.filled())),
            )?;
        }
        if panel_idx + 1 == columns.len() {
            chart
                .configure_series_labels()
                .position(SeriesLabelPosition::LowerRight)
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK)
                .label_font(("sans-serif", 12))
                .draw()?;
        }
    }
    root.present()?;
    Ok(())
}
