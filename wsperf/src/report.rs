//! The results as rows, and the rows as text, CSV, JSON, Markdown or LaTeX.

use std::fmt::Write as _;

use serde::Serialize;

use crate::codec::{Implementation, Mode};
use crate::document::Document;
use crate::measure::Sample;

/// One document, implementation and mode.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Row {
    pub(crate) document: String,
    /// `EchoStruct request`, `GetOrder response`.
    pub(crate) kind: String,
    pub(crate) implementation: &'static str,
    pub(crate) mode: &'static str,
    /// The bytes read or written: the document itself for decoding with an XML binding, else
    /// this implementation's encoding of it.
    pub(crate) bytes: usize,
    /// The elements of the XML document: the same data whatever the encoding.
    pub(crate) elements: usize,
    /// `None` when the implementation got the document wrong (see `error`).
    pub(crate) time: Option<Sample>,
    pub(crate) error: Option<String>,
    /// This row's time per document over `streaming`'s on the same document and mode.
    pub(crate) vs_streaming: Option<f64>,
}

impl Row {
    /// The row of `implementation` on `document` in `mode`: timed, or `error` saying why not.
    pub(crate) fn new(
        document: &Document,
        implementation: Implementation,
        mode: Mode,
        bytes: usize,
        time: Option<Sample>,
        error: Option<String>,
    ) -> Row {
        Row {
            document: document.name.clone(),
            kind: document.kind.to_string(),
            implementation: implementation.name(),
            mode: mode.name(),
            bytes,
            elements: document.n_elements,
            time,
            error,
            vs_streaming: None,
        }
    }

    pub(crate) fn mb_per_s(&self) -> Option<f64> {
        self.time.map(|t| self.bytes as f64 / t.median_ns * 1e3)
    }

    pub(crate) fn docs_per_s(&self) -> Option<f64> {
        self.time.map(|t| 1e9 / t.median_ns)
    }

    pub(crate) fn elements_per_s(&self) -> Option<f64> {
        self.time.map(|t| self.elements as f64 * 1e9 / t.median_ns)
    }
}

/// Sets each row's ratio to `streaming` on the same document and mode.
pub(crate) fn set_ratios(rows: &mut [Row]) {
    let baselines: Vec<(String, &'static str, f64)> = rows
        .iter()
        .filter(|row| row.implementation == "streaming")
        .filter_map(|row| Some((row.document.clone(), row.mode, row.time?.median_ns)))
        .collect();
    for row in rows.iter_mut() {
        row.vs_streaming = baselines
            .iter()
            .find(|(document, mode, _)| *document == row.document && *mode == row.mode)
            .and_then(|(_, _, base)| Some(row.time?.median_ns / base));
    }
}

/// The output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    // Aligned columns for a terminal; `text` is its old name. (A doc comment here would turn
    // `--help` into the long form.)
    #[value(alias = "text")]
    Table,
    Csv,
    Json,
    Markdown,
    Latex,
}

/// A table of strings, rendered in any format but JSON.
pub(crate) struct Table {
    pub(crate) header: Vec<String>,
    pub(crate) rows: Vec<Vec<String>>,
    /// Right-aligned columns (the numbers).
    pub(crate) right: Vec<bool>,
}

impl Table {
    pub(crate) fn render(&self, format: Format, out: &mut String) {
        match format {
            Format::Table => self.text(out),
            Format::Csv => {
                for row in std::iter::once(&self.header).chain(&self.rows) {
                    let cells: Vec<String> = row.iter().map(|cell| csv_cell(cell)).collect();
                    out.push_str(&cells.join(","));
                    out.push('\n');
                }
            }
            Format::Markdown => {
                let line = |cells: &[String]| format!("| {} |\n", cells.join(" | "));
                out.push_str(&line(&self.header));
                let rules: Vec<String> = self
                    .right
                    .iter()
                    .map(|&right| if right { "---:" } else { ":---" }.to_owned())
                    .collect();
                out.push_str(&line(&rules));
                for row in &self.rows {
                    out.push_str(&line(row));
                }
            }
            Format::Latex => {
                let spec: String = self
                    .right
                    .iter()
                    .map(|&r| if r { 'r' } else { 'l' })
                    .collect();
                let line = |cells: &[String]| {
                    let cells: Vec<String> = cells.iter().map(|cell| latex_cell(cell)).collect();
                    format!("{} \\\\\n", cells.join(" & "))
                };
                let _ = writeln!(out, "\\begin{{tabular}}{{{spec}}}\n\\hline");
                out.push_str(&line(&self.header));
                out.push_str("\\hline\n");
                for row in &self.rows {
                    out.push_str(&line(row));
                }
                out.push_str("\\hline\n\\end{tabular}\n");
            }
            Format::Json => unreachable!("JSON is written from the rows themselves"),
        }
    }

    fn text(&self, out: &mut String) {
        let n_columns = self.header.len();
        let widths: Vec<usize> = (0..n_columns)
            .map(|column| {
                std::iter::once(&self.header)
                    .chain(&self.rows)
                    .map(|row| row[column].chars().count())
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        for row in std::iter::once(&self.header).chain(&self.rows) {
            let mut line = String::new();
            for (column, cell) in row.iter().enumerate() {
                let width = widths[column];
                if column > 0 {
                    line.push_str("  ");
                }
                if self.right[column] {
                    let _ = write!(line, "{cell:>width$}");
                } else {
                    let _ = write!(line, "{cell:<width$}");
                }
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
    }
}

fn csv_cell(cell: &str) -> String {
    if cell.contains([',', '"', '\n']) {
        format!("\"{}\"", cell.replace('"', "\"\""))
    } else {
        cell.to_owned()
    }
}

fn latex_cell(cell: &str) -> String {
    let mut escaped = String::with_capacity(cell.len());
    for c in cell.chars() {
        match c {
            '&' | '%' | '$' | '#' | '_' | '{' | '}' => {
                escaped.push('\\');
                escaped.push(c);
            }
            'µ' => escaped.push_str("$\\mu$"),
            '×' => escaped.push_str("$\\times$"),
            '–' => escaped.push_str("--"),
            _ => escaped.push(c),
        }
    }
    escaped
}

/// Renders the timing rows: for text, one table per document and mode under a title; for the
/// other formats one table, with the document and mode as columns (CSV gives raw nanoseconds).
pub(crate) fn timings(rows: &[Row], format: Format) -> String {
    let mut out = String::new();
    if format == Format::Json {
        return serde_json::to_string_pretty(rows).expect("rows serialize") + "\n";
    }
    let numbers = [
        "bytes",
        "time/doc",
        "spread",
        "MB/s",
        "docs/s",
        "elements/s",
        "× streaming",
    ];
    if format == Format::Table {
        let mut start = 0;
        while start < rows.len() {
            let first = &rows[start];
            let end = start
                + rows[start..]
                    .iter()
                    .take_while(|row| row.document == first.document && row.mode == first.mode)
                    .count();
            let _ = writeln!(
                out,
                "{}{}: {}, {} elements; {}",
                if start > 0 { "\n" } else { "" },
                first.document,
                first.kind,
                first.elements,
                first.mode
            );
            let mut header = vec!["implementation".to_owned()];
            header.extend(numbers.iter().map(|&name| name.to_owned()));
            let table = Table {
                header,
                rows: rows[start..end]
                    .iter()
                    .map(|row| human_cells(row, false))
                    .collect(),
                right: std::iter::once(false).chain([true; 7]).collect(),
            };
            table.text(&mut out);
            start = end;
        }
        return out;
    }
    let raw = format == Format::Csv;
    let mut header: Vec<String> = ["document", "kind", "mode", "implementation"]
        .map(str::to_owned)
        .to_vec();
    if raw {
        header.extend(
            [
                "bytes",
                "elements",
                "median_ns",
                "min_ns",
                "max_ns",
                "mb_per_s",
                "docs_per_s",
                "elements_per_s",
                "vs_streaming",
                "error",
            ]
            .map(str::to_owned),
        );
    } else {
        header.extend(numbers.iter().map(|&name| name.to_owned()));
    }
    let table = Table {
        right: (0..header.len()).map(|column| column >= 4).collect(),
        header,
        rows: rows
            .iter()
            .map(|row| {
                let mut cells = vec![row.document.clone(), row.kind.clone(), row.mode.to_owned()];
                if raw {
                    cells.push(row.implementation.to_owned());
                    cells.extend(raw_cells(row));
                } else {
                    cells.extend(human_cells(row, true));
                }
                cells
            })
            .collect(),
    };
    table.render(format, &mut out);
    out
}

fn human_cells(row: &Row, ascii_spread: bool) -> Vec<String> {
    let mut cells = vec![row.implementation.to_owned(), row.bytes.to_string()];
    match (row.time, &row.error) {
        (Some(time), _) => {
            let dash = if ascii_spread { "-" } else { "–" };
            cells.push(duration(time.median_ns));
            cells.push(format!(
                "{}{dash}{}",
                duration(time.min_ns),
                duration(time.max_ns)
            ));
            cells.push(format!("{:.0}", row.mb_per_s().unwrap_or_default()));
            cells.push(si(row.docs_per_s().unwrap_or_default()));
            cells.push(si(row.elements_per_s().unwrap_or_default()));
            cells.push(
                row.vs_streaming
                    .map_or_else(String::new, |ratio| format!("{ratio:.2}")),
            );
        }
        (None, error) => {
            cells.push(format!("wrong: {}", error.as_deref().unwrap_or("?")));
            cells.extend(std::iter::repeat_n(String::new(), 5));
        }
    }
    cells
}

fn raw_cells(row: &Row) -> Vec<String> {
    let number = |value: Option<f64>| value.map_or_else(String::new, |v| format!("{v:.1}"));
    let mut cells = vec![row.bytes.to_string(), row.elements.to_string()];
    cells.push(number(row.time.map(|t| t.median_ns)));
    cells.push(number(row.time.map(|t| t.min_ns)));
    cells.push(number(row.time.map(|t| t.max_ns)));
    cells.push(number(row.mb_per_s()));
    cells.push(number(row.docs_per_s()));
    cells.push(number(row.elements_per_s()));
    cells.push(
        row.vs_streaming
            .map_or_else(String::new, |ratio| format!("{ratio:.3}")),
    );
    cells.push(row.error.clone().unwrap_or_default());
    cells
}

/// A time in ns, µs or ms, three significant digits.
pub(crate) fn duration(ns: f64) -> String {
    let (value, unit) = if ns < 1e3 {
        (ns, "ns")
    } else if ns < 1e6 {
        (ns / 1e3, "µs")
    } else {
        (ns / 1e6, "ms")
    };
    let decimals = if value < 10.0 {
        2
    } else if value < 100.0 {
        1
    } else {
        0
    };
    format!("{value:.decimals$} {unit}")
}

/// A rate with k or M.
fn si(value: f64) -> String {
    if value >= 1e6 {
        format!("{:.1}M", value / 1e6)
    } else if value >= 1e3 {
        format!("{:.1}k", value / 1e3)
    } else {
        format!("{value:.0}")
    }
}

/// The size table: bytes per document (rows) and encoding (columns).
pub(crate) fn sizes(
    documents: &[(String, String)],
    implementations: &[&str],
    bytes: &[Vec<usize>],
    format: Format,
) -> String {
    if format == Format::Json {
        let table: Vec<serde_json::Value> = documents
            .iter()
            .zip(bytes)
            .map(|((document, kind), sizes)| {
                let sizes: serde_json::Map<String, serde_json::Value> = implementations
                    .iter()
                    .zip(sizes)
                    .map(|(name, &size)| ((*name).to_owned(), size.into()))
                    .collect();
                serde_json::json!({"document": document, "kind": kind, "bytes": sizes})
            })
            .collect();
        return serde_json::to_string_pretty(&table).expect("sizes serialize") + "\n";
    }
    let mut header = vec!["document".to_owned(), "kind".to_owned()];
    header.extend(implementations.iter().map(|&name| name.to_owned()));
    let table = Table {
        right: (0..header.len()).map(|column| column >= 2).collect(),
        header,
        rows: documents
            .iter()
            .zip(bytes)
            .map(|((document, kind), sizes)| {
                let mut cells = vec![document.clone(), kind.clone()];
                cells.extend(sizes.iter().map(usize::to_string));
                cells
            })
            .collect(),
    };
    let mut out = String::new();
    table.render(format, &mut out);
    out
}
