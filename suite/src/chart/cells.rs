//! The report's charts of one test at one concurrency, drawn into strings for `index.html`:
//! each cell's latency percentile spectrum (from its runs' HDR histograms added together, on
//! HdrHistogram's log axis of 1/(1-percentile); ab's whole-millisecond table where ab ran it)
//! and each run's requests in each second of its measured phase.

use anyhow::Context as _;
use plotters::prelude::*;

use crate::client::CellFigures;
use crate::matrix::CellResult;
use crate::output::SuiteResults;

const SIZE: (u32, u32) = (1000, 420);

/// The deepest percentile the spectrum's axis goes to: 99.999%.
const DEEPEST: f64 = 1e5;

/// A line's points.
type Points = Vec<(f64, f64)>;

/// A series: its name and colour, and the cell it draws.
struct Series<'a> {
    name: String,
    colour: RGBAColor,
    cell: &'a CellResult,
}

fn series<'a>(results: &'a SuiteResults, test: &str, concurrency: u32) -> Vec<Series<'a>> {
    let mut series = Vec::new();
    for (target_idx, target) in results.targets.iter().enumerate() {
        for (client_idx, client) in results.clients.iter().enumerate() {
            let Some(cell) = results.cell(test, concurrency, &target.name, &client.name) else {
                continue;
            };
            let base = charts::colour(target_idx);
            series.push(Series {
                name: results.column_title(&target.name, &client.name),
                colour: if client_idx == 0 {
                    base.to_rgba()
                } else {
                    base.mix(0.45)
                },
                cell,
            });
        }
    }
    series
}

/// The spectrum of a histogram of µs: (1/(1-q), ms) points, evenly spaced on the log axis up
/// to the deepest percentile its count resolves, then its maximum.
fn histogram_spectrum(histogram: &hdrhistogram::Histogram<u64>) -> Vec<(f64, f64)> {
    if histogram.is_empty() {
        return Vec::new();
    }
    let deepest = (histogram.len() as f64).clamp(1.0, DEEPEST);
    let steps = 60;
    let mut points: Vec<(f64, f64)> = (0..=steps)
        .map(|step| {
            let x = deepest.powf(f64::from(step) / f64::from(steps));
            let quantile = 1.0 - 1.0 / x;
            (x, histogram.value_at_quantile(quantile) as f64 / 1000.0)
        })
        .collect();
    points.push((deepest, histogram.max() as f64 / 1000.0));
    points
}

/// ab's percentile table (whole ms, 50% to 100%) as spectrum points; 100%, the longest
/// request, at the deepest percentile its count resolves.
fn ab_spectrum(run: &CellFigures) -> Vec<(f64, f64)> {
    let Some(report) = run.document["report"].as_str() else {
        return Vec::new();
    };
    let mut points = Vec::new();
    for line in report.lines() {
        let mut words = line.split_whitespace();
        let (Some(pct), Some(ms)) = (words.next(), words.next()) else {
            continue;
        };
        let (Some(pct), Ok(ms)) = (
            pct.strip_suffix('%')
                .and_then(|pct| pct.parse::<f64>().ok()),
            ms.parse::<f64>(),
        ) else {
            continue;
        };
        let x = if pct >= 100.0 {
            run.complete.max(1) as f64
        } else {
            1.0 / (1.0 - pct / 100.0)
        };
        points.push((x.clamp(1.0, DEEPEST), ms));
    }
    points
}

/// A cell's spectrum: its runs' histograms added (loadgen), or its median run's table (ab).
fn cell_spectrum(cell: &CellResult) -> Vec<(f64, f64)> {
    let mut total: Option<hdrhistogram::Histogram<u64>> = None;
    for run in &cell.runs {
        let Some(encoded) = run.document["histograms"]["total"].as_str() else {
            continue;
        };
        let Ok(histogram) = loadgen::json::decode("total", encoded) else {
            continue;
        };
        match &mut total {
            // Both come from loadgen's histograms of one range, so adding cannot fail.
            Some(total) => drop(total.add(&histogram)),
            None => total = Some(histogram),
        }
    }
    if let Some(total) = total {
        return histogram_spectrum(&total);
    }
    let mut runs: Vec<&CellFigures> = cell.runs.iter().collect();
    runs.sort_by(|a, b| a.requests_per_second.total_cmp(&b.requests_per_second));
    runs.get(runs.len() / 2)
        .map(|run| ab_spectrum(run))
        .unwrap_or_default()
}

/// `99.9%` for a position 1/(1-q) of the spectrum's axis.
fn percentile_label(x: f64) -> String {
    let pct = (1.0 - 1.0 / x) * 100.0;
    let digits = (x.log10().round() as usize).saturating_sub(2);
    format!("{pct:.digits$}%")
}

/// The spectrum chart of `test` at `concurrency`: a line per cell.
pub(crate) fn spectrum(
    results: &SuiteResults,
    test: &str,
    concurrency: u32,
) -> anyhow::Result<String> {
    let series: Vec<(Series, Vec<(f64, f64)>)> = series(results, test, concurrency)
        .into_iter()
        .map(|series| {
            let points = cell_spectrum(series.cell);
            (series, points)
        })
        .collect();
    let all = || series.iter().flat_map(|(_, points)| points.iter());
    let deepest = all().map(|point| point.0).fold(10.0, f64::max);
    let top = all().map(|point| point.1).fold(0.01, f64::max) * 1.12;
    let mut svg = String::new();
    {
        let (root, plot, legend) = super::frame_on(
            SVGBackend::with_string(&mut svg, SIZE),
            &format!("{test}, c={concurrency}: latency by percentile (lower is better)"),
            results,
        )?;
        draw_legend(&legend, series.iter().map(|(series, _)| series))?;
        let x_axis = (1.0..deepest * 1.05).log_scale().with_key_points(
            (0..=deepest.log10().ceil() as i32)
                .map(|power| 10f64.powi(power))
                .collect::<Vec<_>>(),
        );
        // Linear, as HdrHistogram plots it: the tail's height is the point of the chart.
        let mut chart = ChartBuilder::on(&plot)
            .margin(10)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(x_axis, 0.0..top)?;
        chart
            .configure_mesh()
            .x_desc("percentile (log scale of 1/(1-p))")
            .y_desc("latency (ms)")
            .x_label_formatter(&|x| percentile_label(*x))
            .y_label_formatter(&|y| format!("{y:.2}"))
            .draw()?;
        for (series, points) in &series {
            chart.draw_series(LineSeries::new(
                points.iter().copied(),
                series.colour.stroke_width(2),
            ))?;
        }
        root.present().context("drawing the spectrum")?;
    }
    Ok(svg)
}

/// The per-second chart of `test` at `concurrency`: a line per run of each cell, in the
/// cell's colour, requests completed in each second of the measured phase.
pub(crate) fn seconds(
    results: &SuiteResults,
    test: &str,
    concurrency: u32,
) -> anyhow::Result<String> {
    let series = series(results, test, concurrency);
    let runs_of = |cell: &CellResult| -> Vec<Points> {
        cell.runs
            .iter()
            .map(|run| {
                run.document["seconds"]
                    .as_array()
                    .map(|seconds| {
                        seconds
                            .iter()
                            .enumerate()
                            .filter_map(|(idx, second)| {
                                Some((idx as f64 + 1.0, second["requests"].as_f64()?))
                            })
                            .collect()
                    })
                    .unwrap_or_default()
            })
            .collect()
    };
    let lines: Vec<(&Series, Vec<Points>)> = series
        .iter()
        .map(|series| (series, runs_of(series.cell)))
        .collect();
    let points = || lines.iter().flat_map(|(_, runs)| runs.iter().flatten());
    let last = points().map(|point| point.0).fold(1.0, f64::max);
    let top = points().map(|point| point.1).fold(1.0, f64::max) * 1.12;
    let mut svg = String::new();
    {
        let (root, plot, legend) = super::frame_on(
            SVGBackend::with_string(&mut svg, SIZE),
            &format!("{test}, c={concurrency}: requests in each second of each run"),
            results,
        )?;
        draw_legend(&legend, series.iter())?;
        let mut chart = ChartBuilder::on(&plot)
            .margin(10)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(0.5..last + 0.5, 0.0..top)?;
        chart
            .configure_mesh()
            .x_desc("second of the measured phase")
            .y_desc("requests")
            .x_labels(last.min(20.0) as usize + 1)
            .x_label_formatter(&|x| format!("{x:.0}"))
            .y_label_formatter(&|y| format!("{y:.0}"))
            .draw()?;
        for (series, runs) in &lines {
            for run in runs {
                chart.draw_series(LineSeries::new(
                    run.iter().copied(),
                    series.colour.stroke_width(2),
                ))?;
                chart.draw_series(
                    run.iter()
                        .map(|&point| Circle::new(point, 3, series.colour.filled())),
                )?;
            }
        }
        root.present().context("drawing the series")?;
    }
    Ok(svg)
}

fn draw_legend<'a>(
    area: &charts::Area<'_>,
    series: impl Iterator<Item = &'a Series<'a>>,
) -> anyhow::Result<()> {
    let font = charts::label_font();
    for (idx, series) in series.enumerate() {
        let y = 40 + 22 * idx as i32;
        area.draw(&PathElement::new(
            vec![(8, y + 6), (26, y + 6)],
            series.colour.stroke_width(3),
        ))?;
        area.draw(&Text::new(series.name.clone(), (32, y), font.clone()))?;
    }
    Ok(())
}
