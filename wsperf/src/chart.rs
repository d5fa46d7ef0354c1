//! The SVG chart (`--chart`): time per document for each implementation, one panel per mode,
//! documents along the bottom, on a log scale so that a lexer pass and serde-xml-rs fit on one
//! axis.

use std::path::Path;

use anyhow::anyhow;
use plotters::prelude::*;

use crate::report::Row;

/// One colour per implementation, in the order the rows first name them: ours in blues, the
/// serde bindings in reds, the other encodings in greens and browns, the limits in greys.
fn colour(implementation: &str) -> RGBColor {
    match implementation {
        "streaming" => RGBColor(31, 84, 180),
        "streaming-quick-xml" => RGBColor(110, 160, 230),
        "serde-quick-xml" => RGBColor(214, 39, 40),
        "serde-xml-rs" => RGBColor(255, 140, 130),
        "xml-gzip" => RGBColor(140, 86, 75),
        "json" => RGBColor(44, 160, 44),
        "msgpack" => RGBColor(150, 210, 120),
        "avro" => RGBColor(188, 189, 34),
        "tokens-only-fast" => RGBColor(90, 90, 90),
        "tokens-only-quick-xml" => RGBColor(160, 160, 160),
        "scan" => RGBColor(60, 60, 60),
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
    let low = times_us.clone().fold(f64::INFINITY, f64::min) / 2.0;
    let high = times_us.fold(0.0, f64::max) * 2.0;

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
    top.titled(title, ("sans-serif", 22))
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
            .caption(format!("{mode}: time per document"), ("sans-serif", 18))
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
            .label_style(("sans-serif", 14))
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
                ("sans-serif", 14),
            ))
            .map_err(|e| fail(&e))?;
    }
    root.present().map_err(|e| fail(&e))?;
    Ok(())
}
