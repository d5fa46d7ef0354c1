//! The reports: ab's text block (same lines, labels, order and number formats as ab 2.4), ab's
//! HTML table (`-w`), the `-e` CSV and `-g` gnuplot files, and loadgen's extended section
//! (HDR percentiles, the latency from the scheduled send time, status codes, failure causes).

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use crate::options::{Display, RunSettings};
use crate::pace::Rate;
use crate::stats::{Results, Row, Sample, Table, round_ms};
use crate::url::Url;

mod flows;
mod kinds;

/// What the report says about the run: the settings it was given, and what this process ran
/// of them; kept in the JSON file so that `merge` can print the same report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunInfo {
    pub settings: RunSettings,
    /// The connections, event loops and rate of this run: a shard's share of the settings', or
    /// the sum of a merge's runs.
    pub concurrency: u64,
    pub n_threads: usize,
    pub rate: Option<Rate>,
}

impl RunInfo {
    fn url(&self) -> &Url {
        &self.settings.target.url
    }

    /// The TLS server name the connections sent, for ab's "TLS Server Name".
    fn sni(&self) -> Option<String> {
        let settings = &self.settings;
        settings.target.sni(&settings.request.headers)
    }

    /// `-p` / `-u`.
    fn send_body(&self) -> bool {
        self.settings.request.body_file.is_some()
    }
}

/// The three banner lines and a blank one, where ab names itself.
pub fn banner(html: bool) -> String {
    let version = env!("CARGO_PKG_VERSION");
    if html {
        format!(
            "<p>\n This is loadgen, Version {version} <i>&lt;ApacheBench 2.3 compatible&gt;</i><br>\n \
             An ab-compatible load generator of the wstest project<br>\n \
             Report format after ApacheBench, Licensed to The Apache Software Foundation<br>\n</p>\n<p>\n"
        )
    } else {
        format!(
            "This is loadgen, Version {version} <ApacheBench 2.3 compatible>\n\
             An ab-compatible load generator of the wstest project\n\
             Report format after ApacheBench, Licensed to The Apache Software Foundation\n\n"
        )
    }
}

/// ab's "Benchmarking host (be patient)" line, up to where progress begins.
pub fn benchmarking_line(info: &RunInfo, progress_lines: bool) -> String {
    let through = match &info.settings.target.proxy {
        Some(proxy) => format!("[through {proxy}] "),
        None => String::new(),
    };
    let tail = if progress_lines { "\n" } else { "..." };
    format!(
        "Benchmarking {} {through}(be patient){tail}",
        info.url().host
    )
}

/// ab's transfer rates, in KiB/s: received, sent, total.
fn transfer_rates(results: &Results) -> (f64, f64, f64) {
    let c = &results.counters;
    let per_second = |bytes: u64| bytes as f64 / 1024.0 / results.time_taken;
    (
        per_second(c.bytes_received),
        per_second(c.bytes_sent),
        per_second(c.bytes_received + c.bytes_sent),
    )
}

/// ab's results block, from the two blank lines to the percentile table.
pub fn ab_text(
    info: &RunInfo,
    results: &Results,
    table: Option<&Table>,
    display: &Display,
) -> String {
    let mut out = String::with_capacity(2048);
    let c = &results.counters;
    let t = results.time_taken;
    let w = &mut out;
    let _ = write!(w, "\n\n");
    let _ = writeln!(w, "Server Software:        {}", results.server_software);
    let _ = writeln!(w, "Server Hostname:        {}", info.url().host);
    let _ = writeln!(w, "Server Port:            {}", info.url().port);
    if let Some(tls) = &results.tls {
        let _ = writeln!(w, "SSL/TLS Protocol:       {}", tls.ab_protocol());
        if let Some(key) = &tls.temp_key {
            let _ = writeln!(w, "Server Temp Key:        {key}");
        }
    }
    if let Some(name) = info.sni() {
        let _ = writeln!(w, "TLS Server Name:        {name}");
    }
    let _ = writeln!(w);
    let _ = writeln!(w, "Document Path:          {}", info.url().path);
    if info.settings.checks.variable_length {
        let _ = writeln!(w, "Document Length:        Variable");
    } else {
        let _ = writeln!(
            w,
            "Document Length:        {} bytes{}",
            results.document_length,
            mix_note(results)
        );
    }
    let _ = writeln!(w);
    let _ = writeln!(w, "Concurrency Level:      {}", info.concurrency);
    let _ = writeln!(w, "Time taken for tests:   {t:.3} seconds");
    let _ = writeln!(w, "Complete requests:      {}", c.complete);
    let _ = writeln!(w, "Failed requests:        {}", c.failed);
    if c.failed > 0 {
        let _ = writeln!(
            w,
            "   (Connect: {}, Receive: {}, Length: {}, Exceptions: {})",
            c.connect_errors, c.receive_errors, c.length_errors, c.exceptions
        );
    }
    if c.write_errors > 0 {
        let _ = writeln!(w, "Write errors:           {}", c.write_errors);
    }
    if c.non_2xx > 0 {
        let _ = writeln!(w, "Non-2xx responses:      {}", c.non_2xx);
    }
    if info.settings.request.keep_alive {
        let _ = writeln!(w, "Keep-Alive requests:    {}", c.keep_alive_requests);
    }
    let _ = writeln!(w, "Total transferred:      {} bytes", c.bytes_received);
    if info.send_body() {
        let _ = writeln!(w, "Total body sent:        {}", c.bytes_sent);
    }
    let _ = writeln!(w, "HTML transferred:       {} bytes", c.body_bytes_received);
    if t > 0.0 && c.complete > 0 {
        let done = c.complete as f64;
        let _ = writeln!(w, "Requests per second:    {:.2} [#/sec] (mean)", done / t);
        let _ = writeln!(
            w,
            "Time per request:       {:.3} [ms] (mean)",
            info.concurrency as f64 * t * 1000.0 / done
        );
        let _ = writeln!(
            w,
            "Time per request:       {:.3} [ms] (mean, across all concurrent requests)",
            t * 1000.0 / done
        );
        let (received, sent, total) = transfer_rates(results);
        let _ = writeln!(
            w,
            "Transfer rate:          {received:.2} [Kbytes/sec] received"
        );
        if info.send_body() {
            let _ = writeln!(w, "                        {sent:.2} kb/s sent");
            let _ = writeln!(w, "                        {total:.2} kb/s total");
        }
    }
    let Some(table) = table else {
        return out;
    };
    let w = &mut out;
    let _ = write!(w, "\nConnection Times (ms)\n");
    let rows = [
        ("Connect:    ", &table.connect),
        ("Processing: ", &table.processing),
        ("Waiting:    ", &table.waiting),
        ("Total:      ", &table.total),
    ];
    if display.confidence {
        let _ = writeln!(w, "              min  mean[+/-sd] median   max");
        for (label, row) in rows {
            let _ = writeln!(
                w,
                "{label}{:5} {:4} {:5.1} {:6} {:7}",
                round_ms(row.min),
                round_ms(row.mean),
                row.sd / 1000.0,
                round_ms(row.median),
                round_ms(row.max)
            );
        }
        let whats = [
            "the initial connection time",
            "the processing time",
            "the waiting time",
            "the total time",
        ];
        for (what, (_, row)) in whats.iter().zip(rows) {
            out.push_str(&sanity_warning(what, row));
        }
    } else {
        let _ = writeln!(w, "              min   avg   max");
        for (label, row) in rows {
            // ab's format has no space before max; kept, so that parsers of ab's output work.
            let _ = writeln!(
                w,
                "{label}{:5} {:5}{:5}",
                round_ms(row.min),
                round_ms(row.mean),
                round_ms(row.max)
            );
        }
    }
    if display.percentiles && c.complete > 1 {
        let w = &mut out;
        let _ = write!(
            w,
            "\nPercentage of the requests served within a certain time (ms)\n"
        );
        for &(percent, value) in &table.percentiles {
            if percent >= 100 {
                let _ = writeln!(w, " 100%  {:5} (longest request)", round_ms(value));
            } else {
                let _ = writeln!(w, "  {percent}%  {:5}", round_ms(value));
            }
        }
    }
    out
}

/// ab's check that the mean and median agree, in whole ms against the sd.
fn sanity_warning(what: &str, row: &Row) -> String {
    let distance = (round_ms(row.mean) as f64 - round_ms(row.median) as f64).abs();
    let sd = row.sd / 1000.0;
    if distance > 2.0 * sd {
        format!(
            "ERROR: The median and mean for {what} are more than twice the standard\n       deviation apart. These results are NOT reliable.\n"
        )
    } else if distance > sd {
        format!(
            "WARNING: The median and mean for {what} are not within a normal deviation\n        These results are probably not that reliable.\n"
        )
    } else {
        String::new()
    }
}

/// ab's `-w` output: one table, ab's fields.
pub fn ab_html(
    info: &RunInfo,
    results: &Results,
    table: Option<&Table>,
    display: &Display,
) -> String {
    let c = &results.counters;
    let t = results.time_taken;
    let (tr, td) = (&display.row_attributes, &display.cell_attributes);
    let mut out = format!("\n\n<table {}>\n", display.table_attributes);
    let w = &mut out;
    let row = |w: &mut String, label: &str, value: String| {
        let _ = writeln!(
            w,
            "<tr {tr}><th colspan=2 {td}>{label}:</th><td colspan=2 {td}>{value}</td></tr>"
        );
    };
    row(w, "Server Software", html_escape(&results.server_software));
    row(w, "Server Hostname", html_escape(&info.url().host));
    row(w, "Server Port", info.url().port.to_string());
    row(w, "Document Path", html_escape(&info.url().path));
    if info.settings.checks.variable_length {
        row(w, "Document Length", "Variable".to_owned());
    } else {
        row(
            w,
            "Document Length",
            html_escape(&format!(
                "{} bytes{}",
                results.document_length,
                mix_note(results)
            )),
        );
    }
    row(w, "Concurrency Level", info.concurrency.to_string());
    row(w, "Time taken for tests", format!("{t:.3} seconds"));
    row(w, "Complete requests", c.complete.to_string());
    row(w, "Failed requests", c.failed.to_string());
    if c.failed > 0 {
        // ab's HTML breakdown has no Receive count.
        let _ = writeln!(
            w,
            "<tr {tr}><td colspan=4 {td} >   (Connect: {}, Length: {}, Exceptions: {})</td></tr>",
            c.connect_errors, c.length_errors, c.exceptions
        );
    }
    if c.non_2xx > 0 {
        row(w, "Non-2xx responses", c.non_2xx.to_string());
    }
    if info.settings.request.keep_alive {
        row(w, "Keep-Alive requests", c.keep_alive_requests.to_string());
    }
    row(
        w,
        "Total transferred",
        format!("{} bytes", c.bytes_received),
    );
    if info.send_body() {
        row(w, "Total body sent", c.bytes_sent.to_string());
    }
    row(
        w,
        "HTML transferred",
        format!("{} bytes", c.body_bytes_received),
    );
    if t > 0.0 {
        row(
            w,
            "Requests per second",
            format!("{:.2}", c.complete as f64 / t),
        );
        let (received, sent, total) = transfer_rates(results);
        row(w, "Transfer rate", format!("{received:.2} kb/s received"));
        if info.send_body() {
            let _ = writeln!(
                w,
                "<tr {tr}><td colspan=2 {td}>&nbsp;</td><td colspan=2 {td}>{sent:.2} kb/s sent</td></tr>"
            );
            let _ = writeln!(
                w,
                "<tr {tr}><td colspan=2 {td}>&nbsp;</td><td colspan=2 {td}>{total:.2} kb/s total</td></tr>"
            );
        }
    }
    if let Some(table) = table {
        let _ = writeln!(
            w,
            "<tr {tr}><th {td} colspan=4>Connection Times (ms)</th></tr>"
        );
        let _ = writeln!(
            w,
            "<tr {tr}><th {td}>&nbsp;</th> <th {td}>min</th>   <th {td}>avg</th>   <th {td}>max</th></tr>"
        );
        for (label, row) in [
            ("Connect:", &table.connect),
            ("Processing:", &table.processing),
            ("Total:", &table.total),
        ] {
            let _ = writeln!(
                w,
                "<tr {tr}><th {td}>{label}</th><td {td}>{:5}</td><td {td}>{:5}</td><td {td}>{:5}</td></tr>",
                round_ms(row.min),
                round_ms(row.mean),
                round_ms(row.max)
            );
        }
    }
    out.push_str("</table>\n");
    out
}

/// After a mix's Document Length (its first kind's): where the others are.
fn mix_note(results: &Results) -> String {
    match results.kinds.first() {
        Some(first) if results.kinds.len() > 1 => {
            format!(
                " ({}; each kind's in Request kinds)",
                host::printable(&first.name)
            )
        }
        _ => String::new(),
    }
}

fn html_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// loadgen's own section after ab's block: HDR percentiles, rate figures, status codes and
/// every failure cause.
pub fn extended(info: &RunInfo, results: &Results, table: Option<&Table>) -> String {
    let mut out = String::new();
    let w = &mut out;
    let c = &results.counters;
    let total = &results.histograms.total;
    let _ = write!(w, "\nLatency (microseconds; loadgen, HDR histogram)\n");
    if c.complete == 0 {
        let _ = writeln!(w, "  no complete requests");
    } else if info.rate.is_some() {
        let corrected = &results.histograms.corrected;
        let _ = writeln!(w, "            corrected  uncorrected");
        for (label, quantile) in QUANTILES {
            let _ = writeln!(
                w,
                "  {label:<8}{:>11}  {:>11}",
                corrected.value_at_quantile(quantile),
                total.value_at_quantile(quantile)
            );
        }
        let _ = writeln!(
            w,
            "  {:<8}{:>11}  {:>11}",
            "max",
            corrected.max(),
            total.max()
        );
        let _ = writeln!(
            w,
            "  corrected: from each request's scheduled send time (coordinated omission corrected)"
        );
    } else {
        for (label, quantile) in QUANTILES {
            let _ = writeln!(w, "  {label:<8}{:>11}", total.value_at_quantile(quantile));
        }
        let _ = writeln!(w, "  {:<8}{:>11}", "max", total.max());
    }
    if !results.kinds.is_empty() {
        kinds::table(w, info, results);
    }
    if let Some(flows) = &results.flows {
        flows::section(w, flows, per_second(flows.complete, results.time_taken));
    }
    if let Some(rate) = info.rate {
        let achieved = per_second(c.complete, results.time_taken);
        let shape = if rate.is_ramp() {
            " (a linear ramp)"
        } else {
            ""
        };
        let _ = writeln!(
            w,
            "Target rate:            {rate} [#/sec]{shape}; achieved {achieved:.2} [#/sec]"
        );
        let _ = writeln!(
            w,
            "Requests sent late:     {} (more than 1 ms after their scheduled time; {} waited for a free connection)",
            c.late,
            c.late - c.late_client.min(c.late)
        );
    }
    // A run with no answer says nothing of the client's pace.
    if let Some(line) = results.saturation(info.rate.is_some()).line()
        && c.complete > 0
    {
        let _ = writeln!(w, "{line}");
    }
    if c.tls_handshakes > 0 {
        let how = if info.settings.target.tls.resume {
            "--tls-resume"
        } else {
            "none offered: each connection a full handshake, as with ab; --tls-resume offers them"
        };
        let _ = writeln!(
            w,
            "TLS handshakes:         {} ({} resumed sessions; {how})",
            c.tls_handshakes, c.tls_resumed
        );
    }
    let _ = writeln!(w, "Status codes:");
    if results.status_codes.is_empty() {
        let _ = writeln!(w, "  none");
    }
    for (status, count) in &results.status_codes {
        let _ = writeln!(w, "  [{status}] {count} responses");
    }
    let _ = write!(
        w,
        "Failures by cause:      connect {}, receive {}, length {}, exceptions {}, write {}, timeout {}, status {}, body {}",
        c.connect_errors,
        c.receive_errors,
        c.length_errors,
        c.exceptions,
        c.write_errors,
        c.timeouts,
        c.status_mismatches,
        c.body_mismatches
    );
    if !results.checks.checks.is_empty() {
        let _ = write!(w, ", checks {}", c.check_failures);
    }
    if info.settings.checks.soap_faults {
        let _ = write!(w, ", faults {}", c.faults);
    }
    let _ = writeln!(w);
    checks(w, results, info.settings.checks.soap_faults);
    if table.is_some_and(|table| table.from_histograms) {
        let _ = writeln!(
            w,
            "Note: the connection times above come from HDR histograms (three significant digits), not from every sample."
        );
    }
    out
}

/// `--check-xpath`, `--check-regex` and `--soap-faults`: each check's failures, and the
/// faults by code, as shares of the complete answers.
fn checks(w: &mut String, results: &Results, soap_faults: bool) {
    let complete = results.counters.complete;
    let share = |count: u64| count as f64 * 100.0 / complete.max(1) as f64;
    if !results.checks.checks.is_empty() {
        let _ = writeln!(w, "Check failures:");
    }
    for check in &results.checks.checks {
        let _ = writeln!(
            w,
            "  {}: {} of {} answers ({:.1}%)",
            host::printable(&check.name),
            check.failed,
            check.judged,
            check.failed as f64 * 100.0 / check.judged.max(1) as f64
        );
    }
    if soap_faults {
        let faults = results.counters.faults;
        let codes: Vec<String> = (results.checks.faults.iter())
            .map(|(code, count)| format!("{} {count}", host::printable(code)))
            .collect();
        let codes = if codes.is_empty() {
            "none".to_owned()
        } else {
            codes.join(", ")
        };
        let _ = writeln!(
            w,
            "Faults:                 {codes} ({faults} of {complete} answers, {:.1}%)",
            share(faults)
        );
    }
}

/// `count` a second over `seconds`; 0 for a run that took no time.
pub(crate) fn per_second(count: u64, seconds: f64) -> f64 {
    if seconds > 0.0 {
        count as f64 / seconds
    } else {
        0.0
    }
}

/// The percentiles of the extended section.
pub const QUANTILES: [(&str, f64); 5] = [
    ("p50", 0.5),
    ("p90", 0.9),
    ("p99", 0.99),
    ("p99.9", 0.999),
    ("p99.99", 0.9999),
];

/// ab's `-e` file: the total time at every whole percentage.
pub fn csv(table: &Table) -> String {
    let mut out = String::from("Percentage served,Time in ms\n");
    for (percent, us) in table.csv.iter().enumerate() {
        let _ = writeln!(out, "{percent},{:.3}", *us as f64 / 1000.0);
    }
    out
}

/// ab's `-g` file: one row per request, sorted by total time as ab leaves them.
/// `run_start_unix` is the wall-clock start of the measured phase, in seconds.
pub fn gnuplot(samples: &[Sample], run_start_unix: u64) -> String {
    let mut out = String::with_capacity(64 * samples.len() + 64);
    out.push_str("starttime\tseconds\tctime\tdtime\tttime\twait\n");
    for sample in samples {
        let seconds = run_start_unix + u64::from(sample.start_s);
        let connect = u64::from(sample.connect_us);
        let total = u64::from(sample.total_us);
        let _ = writeln!(
            out,
            "{}\t{seconds}\t{}\t{}\t{}\t{}",
            crate::clock::ctime(seconds),
            round_ms(connect),
            round_ms(total.saturating_sub(connect)),
            round_ms(total),
            round_ms(u64::from(sample.wait_us))
        );
    }
    out
}
