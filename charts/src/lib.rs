//! The one style of the workspace's SVG charts (the suite's and wsperf's), so that a reader
//! who has learnt one chart reads the others: one palette, one set of fonts, one rule for when
//! a value axis is logarithmic, and one frame (title above, the run's description below, a
//! legend panel beside the plot so that it covers nothing).
//!
//! # Map
//! - [`PALETTE`], [`MORE`], [`colour`], [`GREY`]: colours that stay apart in print and (the
//!   first eight) for common colour blindness.
//! - [`title_font`], [`label_font`], [`note_font`]: the three text sizes.
//! - [`Scale`]: linear or logarithmic, chosen from the values alike for every chart.
//! - [`frame`]: the picture, its plot area and its legend panel.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::FontDesc;

/// Okabe and Ito's eight colours, distinct for the common kinds of colour blindness.
pub const PALETTE: [RGBColor; 8] = [
    RGBColor(0, 114, 178),
    RGBColor(230, 159, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(86, 180, 233),
    RGBColor(213, 94, 0),
    RGBColor(240, 228, 66),
    RGBColor(0, 0, 0),
];

/// The grey of notes, footers and limits that are not series of their own.
pub const GREY: RGBColor = RGBColor(110, 110, 110);

/// Series past the palette's eight: distinct from it and from each other (a comparison of
/// every stack has nine), though not all safe for colour blindness.
pub const MORE: [RGBColor; 4] = [
    RGBColor(140, 86, 75),
    RGBColor(150, 150, 150),
    RGBColor(23, 100, 60),
    RGBColor(120, 60, 160),
];

/// The colour of the `index`-th series: the palette's, then [`MORE`], then round again.
pub fn colour(index: usize) -> RGBColor {
    let all = PALETTE.len() + MORE.len();
    match index % all {
        at if at < PALETTE.len() => PALETTE[at],
        at => MORE[at - PALETTE.len()],
    }
}

const FAMILY: &str = "sans-serif";

/// A chart's title.
pub fn title_font() -> FontDesc<'static> {
    (FAMILY, 18).into_font()
}

/// Axis labels, legends and panel captions.
pub fn label_font() -> FontDesc<'static> {
    (FAMILY, 13).into_font()
}

/// Small notes on the plot (a `wrong` cell, say).
pub fn note_font() -> FontDesc<'static> {
    (FAMILY, 10).into_font()
}

/// How a value axis is drawn.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scale {
    /// From 0 to `top`.
    Linear { top: f64 },
    /// From `floor` (a power of ten at or below the smallest value) to `top`.
    Log { floor: f64, top: f64 },
}

/// Values that span more than this many times are drawn on a log scale: across stacks or
/// implementations the fastest is tens to hundreds of times the slowest, and on a linear axis
/// the slow ones vanish.
pub const LOG_SPAN: f64 = 50.0;

impl Scale {
    /// The scale for `values` (zeros and negatives are left out of the span): log when the
    /// positive ones span more than [`LOG_SPAN`], with head room above the largest.
    pub fn of(values: impl IntoIterator<Item = f64>) -> Scale {
        let (mut smallest, mut largest) = (f64::INFINITY, 0.0f64);
        for value in values.into_iter().filter(|value| *value > 0.0) {
            smallest = smallest.min(value);
            largest = largest.max(value);
        }
        let largest = largest.max(1e-9);
        if smallest.is_finite() && largest / smallest > LOG_SPAN {
            Scale::Log {
                floor: 10f64.powf(smallest.log10().floor()),
                top: largest * 1.6,
            }
        } else {
            Scale::Linear {
                top: largest * 1.12,
            }
        }
    }

    /// The bottom of the axis.
    pub fn floor(self) -> f64 {
        match self {
            Scale::Linear { .. } => 0.0,
            Scale::Log { floor, .. } => floor,
        }
    }

    /// `, log scale` for an axis description, or nothing.
    pub fn note(self) -> &'static str {
        match self {
            Scale::Linear { .. } => "",
            Scale::Log { .. } => ", log scale",
        }
    }
}

/// An area of an SVG picture.
pub type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

/// A chart's frame on `backend` (a file's, or a string's for a page that inlines it): the
/// whole picture (to present at the end) on white, with `title` above and `footer` (the run's
/// date, machine and settings) below; the area to plot in; and a panel of `legend_width` on
/// the right for the legend.
pub fn frame<'a>(
    backend: SVGBackend<'a>,
    title: &str,
    footer: &str,
    legend_width: u32,
) -> Result<(Area<'a>, Area<'a>, Area<'a>), DrawingAreaErrorKind<std::io::Error>> {
    let size = backend.get_size();
    let root = backend.into_drawing_area();
    root.fill(&WHITE)?;
    let titled = root.titled(title, title_font())?;
    let (body, foot) = titled.split_vertically(size.1 - 50);
    foot.draw(&Text::new(
        footer.to_owned(),
        (10, 10),
        label_font().color(&RGBColor(90, 90, 90)),
    ))?;
    let (plot, legend) = body.split_horizontally(size.0 - legend_width);
    Ok((root, plot, legend))
}
