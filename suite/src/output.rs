//! What a suite run reports: [`SuiteResults`] (every figure, as `results.json`) and its table
//! as text, Markdown, CSV or JSON.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use host::Machine;

use crate::change::Comparison;
use crate::matrix::CellResult;

/// What the table shows beside requests per second.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Show {
    /// p50 and p99 latency.
    pub latency: bool,
    /// Requests per server CPU-second, the server's peak memory, the client's CPU per request.
    pub resources: bool,
}
use crate::placement::Placement;

/// What a run loaded its targets over.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Protocol {
    /// `--tls`: every target was measured over TLS.
    #[serde(default)]
    pub tls: bool,
    /// `--http2`: loadgen loaded every target over HTTP/2.
    #[serde(default)]
    pub http2: bool,
    /// `--streams`: the requests each HTTP/2 connection carried at once (1 over HTTP/1.1, and
    /// in results written before the option).
    #[serde(default = "one_stream")]
    pub streams: u32,
}

fn one_stream() -> u32 {
    1
}

impl Default for Protocol {
    /// Plain HTTP/1.1.
    fn default() -> Protocol {
        Protocol {
            tls: false,
            http2: false,
            streams: 1,
        }
    }
}

impl std::fmt::Display for Protocol {
    /// `HTTP/1.1`, `HTTP/1.1 over TLS`, `HTTP/2 (h2c)`, `HTTP/2 over TLS`, then the streams a
    /// connection when more than one.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match (self.tls, self.http2) {
            (false, false) => "HTTP/1.1",
            (true, false) => "HTTP/1.1 over TLS",
            (false, true) => "HTTP/2 (h2c)",
            (true, true) => "HTTP/2 over TLS",
        })?;
        if self.streams > 1 {
            write!(f, ", {} streams a connection", self.streams)?;
        }
        Ok(())
    }
}

/// Everything a run found, with what is needed to repeat it.
#[derive(Debug, Serialize, Deserialize)]
pub struct SuiteResults {
    pub format: u32,
    pub command_line: Vec<String>,
    /// `2026-12-03 07:30 UTC`.
    pub date: String,
    pub machine: Machine,
    pub placement: Option<Placement>,
    pub duration_s: f64,
    pub warmup_s: f64,
    pub repeat: u32,
    pub targets: Vec<Described>,
    pub clients: Vec<Described>,
    pub tests: Vec<String>,
    pub concurrencies: Vec<u32>,
    /// `--tls`, `--http2`, `--streams` (as fields of their own in results.json).
    #[serde(flatten)]
    pub protocol: Protocol,
    pub cells: Vec<CellResult>,
    /// `--baseline`: every cell's change against an earlier run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<Comparison>,
}

/// A target or a client: its name, where it is, its version.
#[derive(Debug, Serialize, Deserialize)]
pub struct Described {
    pub name: String,
    pub url: Option<String>,
    pub version: String,
}

impl SuiteResults {
    /// The columns of the table: each target with each client.
    pub fn columns(&self) -> Vec<(String, String)> {
        let mut columns = Vec::new();
        for target in &self.targets {
            for client in &self.clients {
                columns.push((target.name.clone(), client.name.clone()));
            }
        }
        columns
    }

    pub fn cell(
        &self,
        test: &str,
        concurrency: u32,
        target: &str,
        client: &str,
    ) -> Option<&CellResult> {
        self.cells.iter().find(|cell| {
            cell.test == test
                && cell.concurrency == concurrency
                && cell.target == target
                && cell.client == client
        })
    }

    /// A column's (and a chart series') name: the target, with the client when there are two.
    pub(crate) fn column_title(&self, target: &str, client: &str) -> String {
        if self.clients.len() > 1 {
            format!("{target} ({client})")
        } else {
            target.to_owned()
        }
    }

    /// Where the servers and clients ran: `servers on cpu 0, clients on cpu 1`, or `no pinning`.
    pub(crate) fn placement_text(&self) -> String {
        self.placement
            .as_ref()
            .map_or_else(|| "no pinning".to_owned(), Placement::describe)
    }

    /// One line on what was measured and how.
    pub fn title(&self) -> String {
        let clients: Vec<&str> = self
            .clients
            .iter()
            .map(|client| client.name.as_str())
            .collect();
        let placement = self.placement_text();
        format!(
            "WSTest requests per second, median of {} [min-max]\n{} on {} ({} cores; {placement}); {} s per cell after {} s warm-up; client {}{}",
            self.repeat,
            self.date,
            self.machine.hostname,
            self.machine.cores,
            self.duration_s,
            self.warmup_s,
            clients.join(", "),
            if self.protocol == Protocol::default() {
                String::new()
            } else {
                format!("; {}", self.protocol)
            }
        )
    }

    /// The title's two lines: what the figures are, and when, where and how they were measured.
    pub fn title_lines(&self) -> (String, String) {
        let title = self.title();
        match title.split_once('\n') {
            Some((heading, details)) => (heading.to_owned(), details.to_owned()),
            None => (title, String::new()),
        }
    }

    /// The text of one cell: `68029 [66011-70123]`, with `latency` ` p50 0.41 p99 1.20 ms`, and
    /// with `resources` ` server 14.1 us 14 MB client 8.1 us` (server and client CPU a
    /// request, side by side, so that a cell bound by its client shows it).
    fn cell_text(&self, cell: Option<&CellResult>, show: Show) -> String {
        let Some(cell) = cell else {
            return "-".to_owned();
        };
        if cell.wrong.is_some() {
            return "wrong".to_owned();
        }
        let Some(summary) = &cell.summary else {
            return "-".to_owned();
        };
        let mut text = format!(
            "{:.0} [{:.0}-{:.0}]",
            summary.requests_per_second,
            summary.requests_per_second_min,
            summary.requests_per_second_max
        );
        if show.latency {
            let _ = write!(
                text,
                " p50 {:.2} p99 {:.2} ms",
                summary.p50_ms, summary.p99_ms
            );
        }
        if show.resources {
            let server = summary
                .requests_per_cpu_second
                .filter(|rate| *rate > 0.0)
                .map_or_else(|| "n/a".to_owned(), |rate| format!("{:.1} us", 1e6 / rate));
            let memory = summary.peak_rss_kb.map_or_else(
                || "n/a".to_owned(),
                |kb| format!("{} MB", kb.div_ceil(1024)),
            );
            let client = summary
                .client_cpu_us_per_request
                .map_or_else(|| "n/a".to_owned(), |us| format!("{us:.1} us"));
            let _ = write!(text, " server {server} {memory} client {client}");
        }
        if summary.failed + summary.non_2xx > 0 {
            let _ = write!(text, " ({} failed)", summary.failed + summary.non_2xx);
        }
        if summary.client_saturated {
            text.push_str(" (client saturated)");
        }
        if let Some(knee) = &summary.max_rate_at_slo {
            let _ = write!(text, " knee {}", knee.short());
        }
        if let Some(change) = self.baseline.as_ref().and_then(|comparison| {
            comparison.cell(&cell.test, cell.concurrency, &cell.target, &cell.client)
        }) {
            let _ = write!(text, " change {}", change.requests_per_second.text());
        }
        text
    }

    /// The rows: a test and a concurrency, then one text per column.
    fn rows(&self, show: Show) -> Vec<(String, u32, Vec<String>)> {
        let mut rows = Vec::new();
        for test in &self.tests {
            for &concurrency in &self.concurrencies {
                let texts = self
                    .columns()
                    .iter()
                    .map(|(target, client)| {
                        self.cell_text(self.cell(test, concurrency, target, client), show)
                    })
                    .collect();
                rows.push((test.clone(), concurrency, texts));
            }
        }
        rows
    }

    /// The table, aligned for a terminal.
    pub fn text(&self, show: Show) -> String {
        let headers: Vec<String> = self
            .columns()
            .iter()
            .map(|(target, client)| self.column_title(target, client))
            .collect();
        let rows = self.rows(show);
        let test_width = rows.iter().map(|row| row.0.len()).max().unwrap_or(4).max(4);
        let widths: Vec<usize> = headers
            .iter()
            .enumerate()
            .map(|(idx, header)| {
                rows.iter()
                    .map(|row| row.2[idx].len())
                    .max()
                    .unwrap_or(0)
                    .max(header.len())
            })
            .collect();
        let mut out = format!("{}\n\n", self.title());
        let _ = write!(out, "{:test_width$}  {:>5}", "test", "c");
        for (header, width) in headers.iter().zip(&widths) {
            let _ = write!(out, "  {header:>width$}");
        }
        out.push('\n');
        for (test, concurrency, texts) in rows {
            let _ = write!(out, "{test:test_width$}  {concurrency:>5}");
            for (text, width) in texts.iter().zip(&widths) {
                let _ = write!(out, "  {text:>width$}");
            }
            out.push('\n');
        }
        if let Some(comparison) = &self.baseline {
            out.push('\n');
            out.push_str(&comparison.summary());
        }
        out
    }

    /// The table in Markdown, with the title and the versions below it.
    pub fn markdown(&self, show: Show) -> String {
        let mut out = format!("{}\n\n| test | c |", self.title());
        for (target, client) in self.columns() {
            let _ = write!(out, " {} |", self.column_title(&target, &client));
        }
        out.push_str("\n|---|---:|");
        for _ in self.columns() {
            out.push_str("---:|");
        }
        out.push('\n');
        for (test, concurrency, texts) in self.rows(show) {
            let _ = write!(out, "| {test} | {concurrency} |");
            for text in texts {
                let _ = write!(out, " {text} |");
            }
            out.push('\n');
        }
        out.push('\n');
        if let Some(comparison) = &self.baseline {
            for line in comparison.summary().lines() {
                let _ = writeln!(out, "{line}  ");
            }
            out.push('\n');
        }
        for target in &self.targets {
            let _ = writeln!(out, "- {}: {}", target.name, target.version);
        }
        for client in &self.clients {
            let _ = writeln!(out, "- client {}: {}", client.name, client.version);
        }
        let _ = writeln!(out, "\nCommand: `{}`", self.command_line.join(" "));
        out
    }

    /// One line per cell.
    pub fn csv(&self) -> String {
        let mut out = String::from(
            "test,concurrency,target,client,status,requests_per_second,min,max,p50_ms,p99_ms,failed,non_2xx,runs,server_cpu_s,requests_per_cpu_second,peak_rss_kb,client_cpu_us_per_request,client_saturated,slo,max_rate_at_slo,slo_bracketed,slo_client_limited,rps_change,rps_change_low,rps_change_high,rps_verdict,p99_change,p99_verdict\n",
        );
        for cell in &self.cells {
            let _ = write!(
                out,
                "{},{},{},{},",
                cell.test, cell.concurrency, cell.target, cell.client
            );
            match (&cell.wrong, &cell.summary) {
                (Some(_), _) | (None, None) => {
                    let status = if cell.wrong.is_some() {
                        "wrong"
                    } else {
                        "none"
                    };
                    let _ = write!(out, "{status},,,,,,,,{},,,,,,,,,", cell.runs.len());
                }
                (None, Some(s)) => {
                    let optional = |value: Option<f64>, digits: usize| {
                        value.map_or_else(String::new, |value| format!("{value:.digits$}"))
                    };
                    let knee = s.max_rate_at_slo.as_ref();
                    let _ = write!(
                        out,
                        "ok,{:.1},{:.1},{:.1},{:.3},{:.3},{},{},{},{},{},{},{},{},{},{},{},{}",
                        s.requests_per_second,
                        s.requests_per_second_min,
                        s.requests_per_second_max,
                        s.p50_ms,
                        s.p99_ms,
                        s.failed,
                        s.non_2xx,
                        cell.runs.len(),
                        optional(s.server_cpu_s, 3),
                        optional(s.requests_per_cpu_second, 0),
                        s.peak_rss_kb.map_or_else(String::new, |kb| kb.to_string()),
                        optional(s.client_cpu_us_per_request, 2),
                        s.client_saturated,
                        knee.map_or_else(String::new, |knee| format!(
                            "\"{}\"",
                            knee.objectives_text()
                        )),
                        optional(knee.and_then(|knee| knee.max_rate), 1),
                        knee.map_or_else(String::new, |knee| knee.bracketed.to_string()),
                        knee.map_or_else(String::new, |knee| knee.client_limited.to_string()),
                    );
                }
            }
            let change = self.baseline.as_ref().and_then(|comparison| {
                comparison.cell(&cell.test, cell.concurrency, &cell.target, &cell.client)
            });
            match change {
                Some(change) => {
                    let rps = &change.requests_per_second;
                    let (low, high) = rps.shift.map_or_else(
                        || (String::new(), String::new()),
                        |shift| (format!("{:.4}", shift.low), format!("{:.4}", shift.high)),
                    );
                    let _ = writeln!(
                        out,
                        ",{:.4},{low},{high},{},{:.4},{}",
                        rps.median_change,
                        rps.verdict.word(),
                        change.p99_ms.median_change,
                        change.p99_ms.verdict.word()
                    );
                }
                None => out.push_str(",,,,,,\n"),
            }
        }
        out
    }
}
