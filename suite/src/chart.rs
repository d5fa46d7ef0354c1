//! SVG charts of a suite run, drawn with plotters: requests per second per test grouped by
//! target, p50 and p99 latency per test and target, requests per second of server CPU per test
//! and target (when the targets' processes were known), requests per second against
//! concurrency when more than one concurrency was swept, and latency against offered rate
//! with each knee (`--slo`, in [`latency_rate`]).

pub(crate) mod cells;
pub(crate) mod changes;
mod latency_rate;

use std::path::Path;

use anyhow::Context as _;
use plotters::coord::combinators::{BindKeyPoints as _, WithKeyPoints};
use plotters::coord::ranged1d::ValueFormatter;
use plotters::coord::types::{RangedCoordf64, RangedCoordi32};
use plotters::prelude::*;

use charts::{Area, Scale};

use crate::output::SuiteResults;

pub(crate) const WIDTH: u32 = 1000;
/// The x axes are categorical: a test, or a concurrency, every this many units.
const SLOT: i32 = 1000;
const HEIGHT: u32 = 520;

/// Writes `tps.svg`, `latency.svg`, `efficiency.svg` when some target's cost was measured,
/// `latency-rate.svg` when knees were searched, and `tps-concurrency.svg` when more than one
/// concurrency was swept, into `dir`; returns their file names.
pub(crate) fn write_all(results: &SuiteResults, dir: &Path) -> anyhow::Result<Vec<String>> {
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
    let measured_cost = results.cells.iter().any(|cell| {
        cell.summary
            .as_ref()
            .is_some_and(|summary| summary.requests_per_cpu_second.is_some())
    });
    if measured_cost {
        let efficiency = dir.join("efficiency.svg");
        grouped_bars(results, concurrency, Metric::Efficiency, &efficiency)
            .with_context(|| format!("drawing {}", efficiency.display()))?;
        written.push("efficiency.svg".to_owned());
    }
    if latency_rate::any(results) {
        let knees = dir.join("latency-rate.svg");
        latency_rate::draw(results, &knees)
            .with_context(|| format!("drawing {}", knees.display()))?;
        written.push("latency-rate.svg".to_owned());
    }
    if let Some(comparison) = results.baseline.as_ref().filter(|c| !c.cells.is_empty()) {
        let changes = dir.join("changes.svg");
        changes::draw(results, comparison, &changes)
            .with_context(|| format!("drawing {}", changes.display()))?;
        written.push("changes.svg".to_owned());
    }
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
    /// Requests per second of the target's CPU.
    Efficiency,
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

/// A chart's frame in the workspace's style, with this run's description below it.
fn frame<'a>(
    path: &'a Path,
    title: &str,
    results: &SuiteResults,
) -> anyhow::Result<(Area<'a>, Area<'a>, Area<'a>)> {
    frame_on(SVGBackend::new(path, (WIDTH, HEIGHT)), title, results)
}

/// The same on any SVG backend (the report's charts are drawn into strings).
fn frame_on<'a>(
    backend: SVGBackend<'a>,
    title: &str,
    results: &SuiteResults,
) -> anyhow::Result<(Area<'a>, Area<'a>, Area<'a>)> {
    Ok(charts::frame(backend, title, &subtitle(results), 170)?)
}

/// Bars per test: requests per second with its min-max whisker, a colour per target and a
/// lighter shade of it for the second client; or, for the first client only (ab reports whole
/// milliseconds), p99 latency (light) with p50 (dark) in front. The value axis is logarithmic
/// when the values span more than fifty times, as they do across stacks.
fn grouped_bars(
    results: &SuiteResults,
    concurrency: u32,
    metric: Metric,
    path: &Path,
) -> anyhow::Result<()> {
    let clients: Vec<&str> = match metric {
        Metric::Tps | Metric::Efficiency => {
            results.clients.iter().map(|c| c.name.as_str()).collect()
        }
        Metric::Latency => results
            .clients
            .iter()
            .take(1)
            .map(|c| c.name.as_str())
            .collect(),
    };
    let mut bars = Vec::new();
    for (test_idx, test) in results.tests.iter().enumerate() {
        for (target_idx, target) in results.targets.iter().enumerate() {
            for (client_idx, client) in clients.iter().enumerate() {
                let cell = results.cell(test, concurrency, &target.name, client);
                let slot = target_idx * clients.len() + client_idx;
                let value = cell
                    .and_then(|cell| cell.summary.as_ref())
                    .and_then(|summary| match metric {
                        Metric::Tps => Some((
                            summary.requests_per_second,
                            summary.requests_per_second_min,
                            summary.requests_per_second_max,
                        )),
                        Metric::Latency => Some((summary.p99_ms, summary.p50_ms, summary.p99_ms)),
                        Metric::Efficiency => summary
                            .requests_per_cpu_second
                            .map(|rate| (rate, rate, rate)),
                    });
                let wrong = cell.is_some_and(|cell| cell.wrong.is_some());
                bars.push(Bar {
                    test_idx,
                    target_idx,
                    client_idx,
                    slot,
                    value,
                    wrong,
                });
            }
        }
    }
    let scale = Scale::of(
        bars.iter()
            .filter_map(|bar| bar.value)
            .flat_map(|(value, low, high)| [value, low, high]),
    );
    let client_note = match (metric, clients.len()) {
        (Metric::Tps | Metric::Efficiency, 2) => {
            format!(", {} dark, {} light", clients[0], clients[1])
        }
        (Metric::Latency, _) => format!(", {}", clients[0]),
        _ => String::new(),
    };
    let (title, y_desc) = match metric {
        Metric::Tps => (
            format!(
                "WSTest requests per second by test, c={concurrency}{client_note} (higher is better)"
            ),
            "requests per second",
        ),
        Metric::Latency => (
            format!(
                "WSTest latency by test, c={concurrency}{client_note}: p50 dark, p99 light (lower is better)"
            ),
            "latency (ms)",
        ),
        Metric::Efficiency => (
            format!(
                "WSTest requests per second of server CPU by test, c={concurrency}{client_note} (higher is better)"
            ),
            "requests per server CPU-second",
        ),
    };
    let y_desc = format!("{y_desc}{}", scale.note());
    let (root, plot, legend) = frame_on(
        SVGBackend::new(path, (bars_width(&results.tests), HEIGHT)),
        &title,
        results,
    )?;
    draw_legend(&legend, results, &clients, metric)?;
    let layout = BarLayout {
        results,
        bars: &bars,
        n_slots: results.targets.len() * clients.len(),
        metric,
        y_desc: &y_desc,
    };
    match scale {
        Scale::Log { floor, top } => {
            let y: LogCoord<f64> = (floor..top).log_scale().into();
            let chart = bar_chart(&plot, results.tests.len(), y)?;
            layout.draw(chart, floor)
        }
        Scale::Linear { top } => {
            let y: RangedCoordf64 = (0.0..top).into();
            let chart = bar_chart(&plot, results.tests.len(), y)?;
            layout.draw(chart, 0.0)
        }
    }?;
    root.present()?;
    Ok(())
}

/// One bar: a test's value for a target and client.
struct Bar {
    test_idx: usize,
    target_idx: usize,
    client_idx: usize,
    /// Its place within the test's group.
    slot: usize,
    /// (height, low, high): for requests per second the median and the whisker's ends; for
    /// latency p99, p50, p99.
    value: Option<(f64, f64, f64)>,
    wrong: bool,
}

/// The bar charts' width: [`WIDTH`], or wider when the tests' names (about 7 px a character)
/// would not fit side by side under their groups, as ten encoded cases would not.
fn bars_width(tests: &[String]) -> u32 {
    let longest = tests
        .iter()
        .map(|test| test.chars().count())
        .max()
        .unwrap_or(0) as u32;
    let needed = 170 + 90 + tests.len() as u32 * (longest * 7 + 16);
    WIDTH.max(needed)
}

type BarChart<'a, Y> =
    ChartContext<'a, SVGBackend<'a>, Cartesian2d<WithKeyPoints<RangedCoordi32>, Y>>;

fn bar_chart<'a, Y: Ranged<ValueType = f64>>(
    area: &Area<'a>,
    n_tests: usize,
    y: Y,
) -> anyhow::Result<BarChart<'a, Y>> {
    let centres: Vec<i32> = (0..n_tests as i32)
        .map(|idx| idx * SLOT + SLOT / 2)
        .collect();
    Ok(ChartBuilder::on(area)
        .margin(10)
        .x_label_area_size(30)
        .y_label_area_size(80)
        .build_cartesian_2d((0..n_tests as i32 * SLOT).with_key_points(centres), y)?)
}

struct BarLayout<'a> {
    results: &'a SuiteResults,
    bars: &'a [Bar],
    n_slots: usize,
    metric: Metric,
    y_desc: &'a str,
}

impl BarLayout<'_> {
    fn draw<Y>(&self, mut chart: BarChart<'_, Y>, floor: f64) -> anyhow::Result<()>
    where
        Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
    {
        let tests = self.results.tests.clone();
        let metric = self.metric;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_label_formatter(&|x| tests.get((*x / SLOT) as usize).cloned().unwrap_or_default())
            .x_label_style(charts::label_font())
            .y_desc(self.y_desc)
            .y_label_formatter(&|y| match metric {
                Metric::Tps | Metric::Efficiency => format!("{y:.0}"),
                Metric::Latency => format!("{y:.2}"),
            })
            .draw()?;
        let bar_width = SLOT * 8 / 10 / self.n_slots.max(1) as i32;
        for bar in self.bars {
            let x0 = bar.test_idx as i32 * SLOT + SLOT / 10 + bar.slot as i32 * bar_width;
            let x1 = x0 + bar_width * 9 / 10;
            let base = charts::colour(bar.target_idx);
            let colour = if bar.client_idx == 0 {
                base.to_rgba()
            } else {
                base.mix(0.45)
            };
            let Some((height, low, high)) = bar.value else {
                if bar.wrong {
                    chart.draw_series(std::iter::once(Text::new(
                        "wrong",
                        (x0, floor.max(f64::MIN_POSITIVE) * 1.05),
                        charts::note_font().color(&RED),
                    )))?;
                }
                continue;
            };
            match self.metric {
                Metric::Tps | Metric::Efficiency => {
                    chart.draw_series(std::iter::once(Rectangle::new(
                        [(x0, floor), (x1, height)],
                        colour.filled(),
                    )))?;
                    let mid = (x0 + x1) / 2;
                    let whisker = vec![(mid, low), (mid, high)];
                    chart.draw_series(std::iter::once(PathElement::new(
                        whisker,
                        BLACK.stroke_width(1),
                    )))?;
                }
                Metric::Latency => {
                    chart.draw_series(std::iter::once(Rectangle::new(
                        [(x0, floor), (x1, height)],
                        base.mix(0.35).filled(),
                    )))?;
                    chart.draw_series(std::iter::once(Rectangle::new(
                        [(x0, floor), (x1, low)],
                        base.filled(),
                    )))?;
                }
            }
        }
        Ok(())
    }
}

/// The legend in a panel of its own beside the plot, so that it covers no bar.
fn draw_legend(
    area: &Area<'_>,
    results: &SuiteResults,
    clients: &[&str],
    metric: Metric,
) -> anyhow::Result<()> {
    let font = charts::label_font();
    let mut y = 40;
    for (idx, target) in results.targets.iter().enumerate() {
        let colour = charts::colour(idx);
        area.draw(&Rectangle::new([(8, y), (24, y + 12)], colour.filled()))?;
        area.draw(&Text::new(target.name.clone(), (30, y), font.clone()))?;
        y += 22;
    }
    if metric != Metric::Latency && clients.len() == 2 {
        y += 10;
        let grey = charts::GREY;
        for (idx, client) in clients.iter().enumerate() {
            let colour = if idx == 0 {
                grey.to_rgba()
            } else {
                grey.mix(0.45)
            };
            area.draw(&Rectangle::new([(8, y), (24, y + 12)], colour.filled()))?;
            area.draw(&Text::new(
                format!("client {client}"),
                (30, y),
                font.clone(),
            ))?;
            y += 22;
        }
    }
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
                let summary = results
                    .cell(test, concurrency, target, client)?
                    .summary
                    .as_ref()?;
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
    let (root, plot, legend) = frame(
        path,
        "WSTest requests per second against concurrency",
        results,
    )?;
    let n = results.concurrencies.len() as i32;
    let font = charts::label_font();
    for (test_idx, test) in results.tests.iter().enumerate() {
        let colour = charts::colour(test_idx);
        let y = 40 + 22 * test_idx as i32;
        legend.draw(&PathElement::new(
            vec![(8, y + 6), (26, y + 6)],
            colour.stroke_width(3),
        ))?;
        legend.draw(&Text::new(test.clone(), (32, y), font.clone()))?;
    }
    let panels = plot.split_evenly((1, columns.len().max(1)));
    for (panel_idx, (panel, (target, client))) in panels.iter().zip(&columns).enumerate() {
        let key_points: Vec<i32> = (0..n).map(|idx| idx * SLOT).collect();
        let mut chart = ChartBuilder::on(panel)
            .caption(results.column_title(target, client), charts::label_font())
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
            let colour = charts::colour(test_idx);
            let points = points_of(test, target, client);
            chart.draw_series(LineSeries::new(
                points.iter().copied(),
                colour.stroke_width(2),
            ))?;
            chart.draw_series(
                points
                    .iter()
                    .map(|&point| Circle::new(point, 4, colour.filled())),
            )?;
        }
    }
    root.present()?;
    Ok(())
}
