//! The SVG chart (`--chart`): time per document for each implementation, one panel per mode,
//! documents along the bottom, on a log scale so that a lexer pass and serde-xml-rs fit on one
//! axis.

use std::path::Path;

use anyhow::anyhow;
use charts::Scale;
use plotters::prelude::*;

use crate::report::Row;

/// One colour per implementation from the workspace's palette: ours in blues, the serde
/// bindings in vermilion and pink, the other encodings in green, orange, yellow and sky blue,
/// the limits in greys.
fn colour(implementation: &str) -> RGBColor {
    let light = |index: usize| {
        let RGBColor(r, g, b) = charts::colour(index);
        let lighten = |c: u8| c + (255 - c) / 2;
        RGBColor(lighten(r), lighten(g), lighten(b))
    };
    match implementation {
        "streaming" => charts::colour(0),
        "streaming-quick-xml" => light(0),
        "serde-quick-xml" => charts::colour(5),
        "serde-xml-rs" => charts::colour(3),
        "xml-gzip" => charts::colour(1),
        "json" => charts::colour(2),
        "msgpack" => charts::colour(4),
        "avro" => charts::colour(6),
        "tokens-only-fast" => RGBColor(60, 60, 60),
        "tokens-only-quick-xml" => charts::GREY,
        "scan" => RGBColor(160, 160, 160),
        _ => RGBColor(210, 210, 210),
    }
}

/// Draws `rows` to an SVG file at `path`; `title` names the machine and date.
pub(crate) fn draw(rows: &[Row], title: &str, path: &Path) -> anyhow::Result<()> {
    let mut documents: Vec<&str> = Vec::new();
    let mut implementations: Vec<&str> = Vec::new();
    let mut modes: Vec<&str> = Vec::new();
    for row in rows.iter().filter(|row| row.time.is_some()) {
        for (list, name) in [
            (&mut documents, row.document.as_str()),
            (&mut implementations, row.implementation),
            (&mut modes, row.mode),
        ] {
            if !list.contains(&name) {
                list.push(name);
            }
        }
    }
    if documents.is_empty() {
        return Err(anyhow!(
            "nothing was measured, so there is no chart to draw"
        ));
    }
    let times_us = rows
        .iter()
        .filter_map(|row| Some(row.time?.median_ns / 1e3));
    // The shared rule: a lexer pass and serde-xml-rs differ a hundredfold, so this is log.
    let (low, high) = match Scale::of(times_us) {
        Scale::Log { floor, top } => (floor, top),
        Scale::Linear { top } => (top / 1e3, top),
    };

    let bar_width = 12;
    let width = (documents.len() * (implementations.len() * bar_width + 30) + 220).max(900) as u32;
    let panel_height = 420;
    let per_line = ((width as usize - 40) / 190).max(1);
    let legend_height = 16 + 18 * implementations.len().div_ceil(per_line) as u32;
    let height = 60 + panel_height * modes.len() as u32 + legend_height;
    let path_text = path.display().to_string();
    let root = SVGBackend::new(path, (width, height)).into_drawing_area();
    let fail = |error: &dyn std::fmt::Display| anyhow!("{path_text}: {error}");
    root.fill(&WHITE).map_err(|e| fail(&e))?;
    let (top, body) = root.split_vertically(60);
    top.titled(title, charts::title_font())
        .map_err(|e| fail(&e))?;
    let (panels_area, legend_area) = body.split_vertically(panel_height * modes.len() as u32);
    let panels = panels_area.split_evenly((modes.len(), 1));

    for (panel, mode) in panels.iter().zip(&modes) {
        // Only the implementations timed in this mode get a slot (the limits have no encoding).
        let in_mode: Vec<&str> = implementations
            .iter()
            .copied()
            .filter(|name| {
                rows.iter()
                    .any(|row| row.mode == *mode && row.implementation == *name)
            })
            .collect();
        let slot = 0.8 / in_mode.len().max(1) as f64;
        let mut chart = ChartBuilder::on(panel)
            .caption(format!("{mode}: time per document"), charts::label_font())
            .margin(10)
            .x_label_area_size(36)
            .y_label_area_size(80)
            .build_cartesian_2d(-0.5..documents.len() as f64 - 0.5, (low..high).log_scale())
            .map_err(|e| fail(&e))?;
        let names = documents.clone();
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(documents.len())
            .x_label_formatter(&|x| {
                let index = x.round();
                if (x - index).abs() < 1e-6 && index >= 0.0 {
                    names
                        .get(index as usize)
                        .map(|name| {
                            let file = name.rsplit('/').next().unwrap_or(name);
                            file.trim_end_matches(".xml").to_owned()
                        })
                        .unwrap_or_default()
                } else {
                    String::new()
                }
            })
            .y_desc("µs per document (log scale)")
            .y_label_formatter(&|y| format!("{y}"))
            .label_style(charts::label_font())
            .draw()
            .map_err(|e| fail(&e))?;
        for (k, implementation) in in_mode.iter().enumerate() {
            let bars = rows
                .iter()
                .filter(|row| row.mode == *mode && row.implementation == *implementation);
            let colour = colour(implementation);
            chart
                .draw_series(bars.filter_map(|row| {
                    let index = documents.iter().position(|d| *d == row.document)? as f64;
                    let x0 = index - 0.4 + k as f64 * slot;
                    Some(Rectangle::new(
                        [(x0, low), (x0 + slot * 0.9, row.time?.median_ns / 1e3)],
                        colour.filled(),
                    ))
                }))
                .map_err(|e| fail(&e))?;
        }
    }

    // The legend: one swatch and name per implementation, in rows across the bottom.
    for (k, implementation) in implementations.iter().enumerate() {
        let x = 40 + (k % per_line) as i32 * 190;
        let y = 8 + (k / per_line) as i32 * 18;
        legend_area
            .draw(&Rectangle::new(
                [(x, y), (x + 14, y + 12)],
                colour(implementation).filled(),
            ))
            .map_err(|e| fail(&e))?;
        legend_area
            .draw(&Text::new(
                implementation.to_string(),
                (x + 20, y),
                charts::label_font(),
            ))
            .map_err(|e| fail(&e))?;
    }
    root.present().map_err(|e| fail(&e))?;
    Ok(())
}
