//! `index.html`: the run as one self-contained page, to open in a browser. Everything is
//! inline (styles, the sorting script, every chart as a data: image) and a content security
//! policy forbids fetching anything, so the page can be mailed or archived as one file.
//! The page reads fully without JavaScript; the script only sorts the table.
//!
//! It holds the table (ours highlighted, wrong cells with their reason, each cell's change
//! when there is a baseline), every chart of the folder, and per test and concurrency the
//! cells' latency spectra and per-second series with each cell's runs, its command line and
//! where it ran.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::Context as _;
use base64::Engine as _;

use crate::change::{Change, Comparison, Verdict};
use crate::chart;
use crate::client::CellFigures;
use crate::matrix::CellResult;
use crate::output::SuiteResults;

const STYLE: &str = include_str!("report/style.css");
const SCRIPT: &str = include_str!("report/sort.js");

/// Writes `dir/index.html`, inlining the charts `chart_files` (written into `dir` already).
pub(crate) fn write(
    results: &SuiteResults,
    dir: &Path,
    chart_files: &[String],
) -> anyhow::Result<()> {
    let page = page(results, dir, chart_files)?;
    let path = dir.join("index.html");
    std::fs::write(&path, page).with_context(|| format!("writing {}", path.display()))
}

fn page(results: &SuiteResults, dir: &Path, chart_files: &[String]) -> anyhow::Result<String> {
    let mut out = String::with_capacity(1 << 20);
    let (heading, details) = results.title_lines();
    let _ = write!(
        out,
        r#"<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<title>WSTest results, {date}</title>
<style>
{STYLE}</style>
</head>
<body>
<header>
<h1>{heading}</h1>
<p>{details}</p>
"#,
        date = esc(&results.date),
        heading = esc(&heading),
        details = esc(&details),
    );
    facts(&mut out, results);
    out.push_str(
        "</header>\n<nav aria-label=\"Sections\"><ul><li><a href=\"#table\">Table</a></li>",
    );
    if results.baseline.is_some() {
        out.push_str("<li><a href=\"#changes\">Changes against the baseline</a></li>");
    }
    out.push_str("<li><a href=\"#charts\">Charts</a></li><li><a href=\"#tests\">Each test</a></li><li><a href=\"#versions\">Versions</a></li></ul></nav>\n<main>\n");
    table(&mut out, results);
    if let Some(comparison) = &results.baseline {
        changes(&mut out, comparison, dir, chart_files)?;
    }
    out.push_str("<section id=\"charts\">\n<h2>Charts</h2>\n");
    for file in chart_files.iter().filter(|file| *file != "changes.svg") {
        let svg = std::fs::read(dir.join(file))
            .with_context(|| format!("reading {}", dir.join(file).display()))?;
        figure(&mut out, &svg, &chart_alt(file), file);
    }
    out.push_str("</section>\n");
    tests(&mut out, results)?;
    versions(&mut out, results);
    let _ = write!(
        out,
        "</main>\n<script>\n{SCRIPT}</script>\n</body>\n</html>\n"
    );
    Ok(out)
}

/// The run's facts: when, where, how placed and how long, and the command that repeats it.
fn facts(out: &mut String, results: &SuiteResults) {
    let machine = &results.machine;
    let placement = results.placement_text();
    out.push_str("<dl class=\"facts\">\n");
    let mut fact = |name: &str, value: &str| {
        let _ = writeln!(out, "<dt>{}</dt><dd>{}</dd>", esc(name), value);
    };
    fact("Date", &esc(&results.date));
    fact(
        "Machine",
        &esc(&format!(
            "{}: {} cores, {}, {} {} {}",
            machine.hostname, machine.cores, machine.cpu, machine.os, machine.kernel, machine.arch
        )),
    );
    fact("Placement", &esc(&placement));
    fact(
        "Cells",
        &esc(&format!(
            "{} s each after {} s warm-up, {} run{} of each, interleaved",
            results.duration_s,
            results.warmup_s,
            results.repeat,
            if results.repeat == 1 { "" } else { "s" }
        )),
    );
    fact(
        "Command",
        &format!(
            "<code>{}</code>",
            esc(&shell_line(&command_words(&results.command_line)))
        ),
    );
    out.push_str("</dl>\n");
}

/// The results table: a row per test and concurrency, a column per target and client.
fn table(out: &mut String, results: &SuiteResults) {
    out.push_str("<section id=\"table\">\n<h2>Requests per second</h2>\n<div class=\"scroll\">\n<table id=\"results\">\n");
    let _ = writeln!(
        out,
        "<caption>Median of {} runs, [min-max] below it, then p50 and p99 latency{}. Our server's column is shaded; a wrong cell says why.</caption>",
        results.repeat,
        if results.baseline.is_some() {
            ", then the change against the baseline"
        } else {
            ""
        }
    );
    out.push_str("<thead><tr><th scope=\"col\" class=\"test\">test</th><th scope=\"col\">c</th>");
    let columns = results.columns();
    for (target, client) in &columns {
        let _ = write!(
            out,
            "<th scope=\"col\"{}>{}</th>",
            ours_class(target),
            esc(&results.column_title(target, client))
        );
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for test in &results.tests {
        for &concurrency in &results.concurrencies {
            let _ = write!(
                out,
                "<tr><th scope=\"row\"><a href=\"#{}\">{}</a></th><td data-v=\"{concurrency}\">{concurrency}</td>",
                anchor(&[test, &concurrency.to_string()]),
                esc(test)
            );
            for (target, client) in &columns {
                let cell = results.cell(test, concurrency, target, client);
                cell_html(out, results, cell, target);
            }
            out.push_str("</tr>\n");
        }
    }
    out.push_str("</tbody>\n</table>\n</div>\n");
    if let Some(comparison) = &results.baseline {
        let _ = writeln!(
            out,
            "<p>{}</p>",
            esc(&comparison.summary()).replace('\n', "<br>\n")
        );
    }
    out.push_str("</section>\n");
}

fn cell_html(out: &mut String, results: &SuiteResults, cell: Option<&CellResult>, target: &str) {
    let class = ours_class(target);
    let Some(cell) = cell else {
        let _ = write!(out, "<td{class} data-v=\"-1\">-</td>");
        return;
    };
    if let Some(reason) = &cell.wrong {
        let _ = write!(
            out,
            "<td class=\"wrong\" data-v=\"-1\"><span class=\"figure\">wrong</span><span class=\"reason\">{}</span></td>",
            esc(reason)
        );
        return;
    }
    let Some(summary) = &cell.summary else {
        let _ = write!(out, "<td{class} data-v=\"-1\">-</td>");
        return;
    };
    let _ = write!(
        out,
        "<td{class} data-v=\"{:.1}\"><span class=\"figure\">{}</span><span class=\"sub\">[{}-{}]</span><span class=\"sub\">p50 {:.2} · p99 {:.2} ms</span>",
        summary.requests_per_second,
        thousands(summary.requests_per_second),
        thousands(summary.requests_per_second_min),
        thousands(summary.requests_per_second_max),
        summary.p50_ms,
        summary.p99_ms
    );
    if let Some(per_cpu) = summary.requests_per_cpu_second {
        let memory = summary
            .peak_rss_kb
            .map_or_else(String::new, |kb| format!(" · {} MB", kb.div_ceil(1024)));
        let _ = write!(
            out,
            "<span class=\"sub\">server {:.1} µs a request ({}/cpu-s){memory}</span>",
            1e6 / per_cpu.max(f64::MIN_POSITIVE),
            thousands(per_cpu)
        );
    }
    let failed = summary.failed + summary.non_2xx;
    if failed > 0 {
        let _ = write!(out, "<span class=\"sub slower\">{failed} failed</span>");
    }
    if summary.client_saturated {
        out.push_str("<span class=\"sub\">client saturated</span>");
    }
    if let Some(knee) = &summary.max_rate_at_slo {
        let _ = write!(
            out,
            "<span class=\"sub\">knee {}</span>",
            esc(&knee.short())
        );
    }
    if let Some(change) = results
        .baseline
        .as_ref()
        .and_then(|c| c.cell(&cell.test, cell.concurrency, &cell.target, &cell.client))
    {
        badge(out, &change.requests_per_second);
    }
    out.push_str("</td>");
}

/// A change's text, coloured by its verdict.
fn badge(out: &mut String, change: &Change) {
    let class = match change.verdict {
        Verdict::Faster => " faster",
        Verdict::Slower => " slower",
        Verdict::WithinNoise | Verdict::TooFewRuns => "",
    };
    let _ = write!(
        out,
        "<span class=\"badge{class}\">{}</span>",
        esc(&change.text())
    );
}

/// The section of changes against the baseline: a table of every compared cell and the chart.
fn changes(
    out: &mut String,
    comparison: &Comparison,
    dir: &Path,
    chart_files: &[String],
) -> anyhow::Result<()> {
    let _ = writeln!(
        out,
        "<section id=\"changes\">\n<h2>Changes against the baseline</h2>\n<p>Baseline: {} of {}, <code>{}</code>. Intervals: {}.</p>",
        esc(&comparison.dir),
        esc(&comparison.date),
        esc(&shell_line(&command_words(&comparison.command_line))),
        esc(&comparison.method)
    );
    out.push_str("<div class=\"scroll\"><table>\n<thead><tr><th scope=\"col\" class=\"test\">test</th><th scope=\"col\">c</th><th scope=\"col\" class=\"test\">target</th><th scope=\"col\" class=\"test\">client</th><th scope=\"col\">baseline req/s</th><th scope=\"col\">req/s</th><th scope=\"col\">change, interval</th><th scope=\"col\">p99 change, interval</th><th scope=\"col\">confidence</th></tr></thead>\n<tbody>\n");
    for cell in &comparison.cells {
        let rps = &cell.requests_per_second;
        let _ = write!(
            out,
            "<tr><th scope=\"row\">{}</th><td>{}</td><td class=\"test\">{}</td><td class=\"test\">{}</td><td>{}</td><td>{}</td><td>",
            esc(&cell.key.test),
            cell.key.concurrency,
            esc(&cell.key.target),
            esc(&cell.key.client),
            thousands(rps.baseline_median),
            thousands(rps.median),
        );
        badge(out, rps);
        out.push_str("</td><td>");
        badge(out, &cell.p99_ms);
        let _ = writeln!(
            out,
            "</td><td>{}</td></tr>",
            rps.shift.map_or_else(
                || "-".to_owned(),
                |s| format!("{:.0}%", s.confidence * 100.0)
            )
        );
    }
    out.push_str("</tbody></table></div>\n");
    if chart_files.iter().any(|file| file == "changes.svg") {
        let svg = std::fs::read(dir.join("changes.svg")).context("reading changes.svg")?;
        figure(out, &svg, &chart_alt("changes.svg"), "changes.svg");
    }
    out.push_str("</section>\n");
    Ok(())
}

/// Per test and concurrency: the spectrum and per-second charts, then a panel per cell.
fn tests(out: &mut String, results: &SuiteResults) -> anyhow::Result<()> {
    out.push_str("<section id=\"tests\">\n<h2>Each test</h2>\n");
    for test in &results.tests {
        for &concurrency in &results.concurrencies {
            let _ = writeln!(
                out,
                "<section id=\"{}\">\n<h3>{}, c={concurrency}</h3>",
                anchor(&[test, &concurrency.to_string()]),
                esc(test)
            );
            let spectrum = chart::cells::spectrum(results, test, concurrency)?;
            figure(
                out,
                spectrum.as_bytes(),
                &format!(
                    "{test} at c={concurrency}: each target's latency at each percentile, from 0% to the deepest its requests resolve, on a log axis"
                ),
                "Latency by percentile, every run of a cell together",
            );
            let seconds = chart::cells::seconds(results, test, concurrency)?;
            figure(
                out,
                seconds.as_bytes(),
                &format!(
                    "{test} at c={concurrency}: requests completed in each second of each run, a line per run"
                ),
                "Requests in each second, a line per run",
            );
            for (target, client) in results.columns() {
                if let Some(cell) = results.cell(test, concurrency, &target, &client) {
                    cell_details(out, results, cell);
                }
            }
            out.push_str("</section>\n");
        }
    }
    out.push_str("</section>\n");
    Ok(())
}

/// A cell's panel: its runs, the command line of its client, where it ran.
fn cell_details(out: &mut String, results: &SuiteResults, cell: &CellResult) {
    let name = results.column_title(&cell.target, &cell.client);
    let headline = match (&cell.wrong, &cell.summary) {
        (Some(_), _) => "wrong".to_owned(),
        (None, Some(summary)) => format!("{} requests/s", thousands(summary.requests_per_second)),
        (None, None) => "not run".to_owned(),
    };
    let _ = writeln!(
        out,
        "<details id=\"{}\"><summary>{}: {}</summary>",
        anchor(&[
            &cell.test,
            &cell.concurrency.to_string(),
            &cell.target,
            &cell.client
        ]),
        esc(&name),
        esc(&headline)
    );
    if let Some(reason) = &cell.wrong {
        let _ = writeln!(out, "<p>Wrong answer, not timed: {}</p>", esc(reason));
    }
    if !cell.runs.is_empty() {
        out.push_str("<div class=\"scroll\"><table><thead><tr><th scope=\"col\">run</th><th scope=\"col\">req/s</th><th scope=\"col\">p50 ms</th><th scope=\"col\">p99 ms</th><th scope=\"col\">requests</th><th scope=\"col\">failed</th><th scope=\"col\">server CPU s</th><th scope=\"col\">server peak MB</th><th scope=\"col\">client µs/req</th></tr></thead><tbody>\n");
        for (idx, run) in cell.runs.iter().enumerate() {
            run_row(out, idx + 1, run);
        }
        out.push_str("</tbody></table></div>\n");
    }
    if let Some(run) = cell.runs.first() {
        let words: Vec<String> = run.document["command_line"]
            .as_array()
            .map(|words| {
                words
                    .iter()
                    .filter_map(|word| word.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        if !words.is_empty() {
            let program = if cell.client == "loadgen" {
                "loadgen"
            } else {
                "ab"
            };
            let mut line = vec![program.to_owned()];
            line.extend(words);
            let _ = writeln!(
                out,
                "<p>Each run, as a command (the URL was the target's in this run):</p><pre>{}</pre>",
                esc(&shell_line(&line))
            );
        }
        let client_machine = &run.document["machine"];
        if let Some(cores) = client_machine["cores"].as_u64() {
            let _ = writeln!(
                out,
                "<p>Client: {} core{} of {}.</p>",
                cores,
                if cores == 1 { "" } else { "s" },
                esc(client_machine["hostname"].as_str().unwrap_or("?"))
            );
        }
    }
    let placement = results.placement_text();
    let _ = writeln!(
        out,
        "<p>Machine: {} ({} cores, {}); {}.</p>",
        esc(&results.machine.hostname),
        results.machine.cores,
        esc(&results.machine.cpu),
        esc(&placement)
    );
    if let Some(change) = results
        .baseline
        .as_ref()
        .and_then(|c| c.cell(&cell.test, cell.concurrency, &cell.target, &cell.client))
    {
        out.push_str("<p>Against the baseline: requests per second ");
        badge(out, &change.requests_per_second);
        out.push_str(" p99 ");
        badge(out, &change.p99_ms);
        out.push_str("</p>\n");
    }
    out.push_str("</details>\n");
}

fn run_row(out: &mut String, number: usize, run: &CellFigures) {
    let resources = run.resources;
    let optional = |value: Option<String>| value.unwrap_or_else(|| "n/a".to_owned());
    let _ = writeln!(
        out,
        "<tr><td>{number}</td><td>{}</td><td>{:.3}</td><td>{:.3}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
        thousands(run.requests_per_second),
        run.p50_ms,
        run.p99_ms,
        thousands(run.complete as f64),
        run.failed + run.non_2xx,
        optional(
            resources
                .and_then(|r| r.server_cpu_s)
                .map(|cpu| format!("{cpu:.3}"))
        ),
        optional(
            resources
                .and_then(|r| r.peak_rss_kb)
                .map(|kb| kb.div_ceil(1024).to_string())
        ),
        optional(
            resources
                .and_then(|r| r.client_cpu_s)
                .filter(|_| run.complete > 0)
                .map(|cpu| format!("{:.2}", cpu * 1e6 / run.complete as f64))
        ),
    );
}

fn versions(out: &mut String, results: &SuiteResults) {
    out.push_str("<section id=\"versions\">\n<h2>Versions</h2>\n<ul>\n");
    for target in &results.targets {
        let _ = writeln!(
            out,
            "<li>{}{}: {}</li>",
            esc(&target.name),
            target
                .url
                .as_ref()
                .map_or_else(String::new, |url| format!(" at <code>{}</code>", esc(url))),
            esc(&target.version)
        );
    }
    for client in &results.clients {
        let _ = writeln!(
            out,
            "<li>client {}: {}</li>",
            esc(&client.name),
            esc(&client.version)
        );
    }
    out.push_str("</ul>\n</section>\n");
}

/// A chart as an image inline, with its alternative text and caption.
fn figure(out: &mut String, svg: &[u8], alt: &str, caption: &str) {
    let _ = writeln!(
        out,
        "<figure><img class=\"chart\" alt=\"{}\" src=\"data:image/svg+xml;base64,{}\"><figcaption>{}</figcaption></figure>",
        esc(alt),
        base64::engine::general_purpose::STANDARD.encode(svg),
        esc(caption)
    );
}

/// What each of the folder's charts shows, for readers who cannot see it.
fn chart_alt(file: &str) -> String {
    match file {
        "tps.svg" => "Bars of requests per second for each test, a bar per target, with the spread of the runs as a whisker".to_owned(),
        "latency.svg" => "Bars of p50 and p99 latency for each test, a bar per target".to_owned(),
        "efficiency.svg" => "Bars of requests per second of server CPU for each test, a bar per target".to_owned(),
        "latency-rate.svg" => "Corrected latency against offered rate for each test, a line per target, with each knee marked".to_owned(),
        "tps-concurrency.svg" => "Requests per second against concurrency, a panel per target, a line per test".to_owned(),
        "changes.svg" => "The change in requests per second of each compared cell against the baseline, a bar with its confidence interval, coloured by verdict".to_owned(),
        other => format!("Chart {other}"),
    }
}

/// Our server's columns (`wstest`, and `wstest+nginx` behind a terminator) are shaded.
fn ours_class(target: &str) -> &'static str {
    if target == "wstest" || target.starts_with("wstest+") {
        " class=\"ours\""
    } else {
        ""
    }
}

/// An id from names: letters, digits and `-` only.
fn anchor(parts: &[&str]) -> String {
    let joined = parts.join("-");
    joined
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

/// `108,918`.
fn thousands(value: f64) -> String {
    let digits = format!("{:.0}", value.max(0.0));
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (idx, digit) in digits.chars().enumerate() {
        if idx > 0 && (digits.len() - idx) % 3 == 0 {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// A suite's command line as words: its first is `loadgen suite`, two words.
fn command_words(line: &[String]) -> Vec<String> {
    let mut words: Vec<String> = line
        .first()
        .map(|first| first.split_whitespace().map(str::to_owned).collect())
        .unwrap_or_default();
    words.extend(line.iter().skip(1).cloned());
    words
}

/// Words as a POSIX shell would read them back: plain words as they are, the others quoted.
fn shell_line(words: &[String]) -> String {
    words
        .iter()
        .map(|word| {
            let plain = !word.is_empty()
                && word
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./:=,@%+".contains(c));
            if plain {
                word.clone()
            } else {
                format!("'{}'", word.replace('\'', r"'\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Text for HTML, in elements and in quoted attributes.
fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}
