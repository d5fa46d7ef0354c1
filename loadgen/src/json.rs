//! `--json FILE`: every figure of the report, the settings, the machine, a per-second series,
//! and the HDR histograms (HdrHistogram's V2 encoding, base64), so that `loadgen merge` can add
//! runs from several machines into one report.

use std::collections::BTreeMap;

use base64::Engine as _;
use hdrhistogram::Histogram;
use hdrhistogram::serialization::{Deserializer, Serializer as _, V2Serializer};
use serde::{Deserialize, Serialize};

use crate::report::{QUANTILES, RunInfo};
use crate::stats::{Counters, Histograms, Results, Row, Second, Table, round_ms};

/// The file's version: a reader refuses files of another.
pub const FORMAT: u32 = 1;

/// `--json -`: the lines before and after the JSON on standard output.
pub const STDOUT_BEGIN: &str = "--- loadgen json begin ---";
pub const STDOUT_END: &str = "--- loadgen json end ---";

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct JsonReport {
    pub format: u32,
    pub tool: String,
    pub version: String,
    pub command_line: Vec<String>,
    /// Seconds since the Unix epoch when the measured phase began (after `--warmup`).
    pub started_unix: f64,
    /// ... and when it ended: `started_unix` plus the time taken.
    #[serde(default)]
    pub ended_unix: f64,
    /// `--start-at` as given, in seconds since the Unix epoch.
    #[serde(default)]
    pub start_at_unix: Option<f64>,
    pub machine: Machine,
    pub run: RunInfo,
    pub settings: RunSettings,
    pub summary: Summary,
    pub counters: Counters,
    /// ab's table in ms, as printed.
    pub connection_times_ms: BTreeMap<String, RowMs>,
    /// ab's percentile table, ms.
    pub percentiles_ms: BTreeMap<String, u64>,
    /// The extended section: p50 ... p99.99 and max, µs.
    pub latency_us: BTreeMap<String, u64>,
    /// `--rate`: the same from the scheduled send times.
    pub corrected_latency_us: Option<BTreeMap<String, u64>>,
    pub status_codes: BTreeMap<u16, u64>,
    pub seconds: Vec<Second>,
    pub histograms: EncodedHistograms,
    /// Of `loadgen merge --json`: the runs merged.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub merged: Vec<crate::merge::MergedRun>,
}

/// The settings of the run that the report's lines do not show.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct RunSettings {
    pub n_requests: Option<u64>,
    pub time_limit_s: Option<f64>,
    pub warmup_s: Option<f64>,
    pub request_timeout_s: Option<f64>,
    pub stall_timeout_s: f64,
    pub http10: bool,
    pub body_file: Option<String>,
    pub content_type: String,
    pub headers: Vec<String>,
    pub expect_status: Option<u16>,
    pub expect_body: Option<String>,
    pub reject_body: Option<String>,
    /// `--shard`: which share this was, and the whole test it is a share of.
    #[serde(default)]
    pub whole: Option<crate::cli::WholeTest>,
}

impl RunSettings {
    pub fn of(settings: &crate::cli::Settings) -> RunSettings {
        let seconds = |d: Option<std::time::Duration>| d.map(|d| d.as_secs_f64());
        RunSettings {
            n_requests: settings.n_requests,
            time_limit_s: seconds(settings.time_limit()),
            warmup_s: seconds(settings.warmup),
            request_timeout_s: seconds(settings.request_timeout),
            stall_timeout_s: settings.stall_timeout.as_secs_f64(),
            http10: settings.http10,
            body_file: settings.body_file.as_ref().map(|file| file.path.clone()),
            content_type: settings.content_type.clone(),
            headers: settings.headers.clone(),
            expect_status: settings.expect_status,
            expect_body: settings.expect_body.clone(),
            reject_body: settings.reject_body.clone(),
            whole: settings.whole,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Machine {
    pub hostname: String,
    pub cores: usize,
    pub os: String,
    pub arch: String,
}

impl Machine {
    pub fn this() -> Machine {
        Machine {
            hostname: std::fs::read_to_string("/proc/sys/kernel/hostname")
                .map(|name| name.trim().to_owned())
                .unwrap_or_default(),
            cores: std::thread::available_parallelism().map_or(1, usize::from),
            os: std::env::consts::OS.to_owned(),
            arch: std::env::consts::ARCH.to_owned(),
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Summary {
    pub server_software: String,
    pub document_length: u64,
    pub time_taken_s: f64,
    pub requests_per_second: f64,
    pub time_per_request_ms: f64,
    pub time_per_request_all_ms: f64,
    pub transfer_rate_kbytes_per_s: f64,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct RowMs {
    pub min: u64,
    pub mean: u64,
    pub sd: f64,
    pub median: u64,
    pub max: u64,
}

impl From<&Row> for RowMs {
    fn from(row: &Row) -> RowMs {
        RowMs {
            min: round_ms(row.min),
            mean: round_ms(row.mean),
            sd: (row.sd / 100.0).round() / 10.0,
            median: round_ms(row.median),
            max: round_ms(row.max),
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EncodedHistograms {
    pub connect: String,
    pub processing: String,
    pub waiting: String,
    pub total: String,
    pub corrected: String,
}

/// Why a JSON file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("not a loadgen JSON file: {0}")]
    Json(#[from] serde_json::Error),
    #[error("loadgen JSON format {found}, but this loadgen reads format {FORMAT}")]
    Format { found: u32 },
    #[error("histogram {name}: {message}")]
    Histogram { name: &'static str, message: String },
}

pub struct Context<'a> {
    pub command_line: &'a [String],
    pub settings: RunSettings,
    pub started_unix: f64,
    pub start_at_unix: Option<f64>,
    pub info: &'a RunInfo,
}

pub fn build(context: &Context<'_>, results: &Results, table: Option<&Table>) -> JsonReport {
    let c = &results.counters;
    let t = results.time_taken;
    let per = |value: f64| {
        if t > 0.0 && c.complete > 0 {
            value
        } else {
            0.0
        }
    };
    let done = c.complete.max(1) as f64;
    let quantiles = |histogram: &Histogram<u64>| {
        let mut map: BTreeMap<String, u64> = QUANTILES
            .iter()
            .map(|(label, quantile)| (label.to_string(), histogram.value_at_quantile(*quantile)))
            .collect();
        map.insert("max".to_owned(), histogram.max());
        map
    };
    let mut connection_times_ms = BTreeMap::new();
    let mut percentiles_ms = BTreeMap::new();
    if let Some(table) = table {
        for (name, row) in [
            ("connect", &table.connect),
            ("processing", &table.processing),
            ("waiting", &table.waiting),
            ("total", &table.total),
        ] {
            connection_times_ms.insert(name.to_owned(), RowMs::from(row));
        }
        for (percent, us) in &table.percentiles {
            percentiles_ms.insert(percent.to_string(), round_ms(*us));
        }
    }
    let h = &results.histograms;
    JsonReport {
        format: FORMAT,
        tool: "loadgen".to_owned(),
        version: env!("CARGO_PKG_VERSION").to_owned(),
        command_line: context.command_line.to_vec(),
        started_unix: context.started_unix,
        ended_unix: context.started_unix + t,
        start_at_unix: context.start_at_unix,
        machine: Machine::this(),
        run: context.info.clone(),
        settings: context.settings.clone(),
        summary: Summary {
            server_software: results.server_software.clone(),
            document_length: results.document_length,
            time_taken_s: t,
            requests_per_second: per(c.complete as f64 / t),
            time_per_request_ms: per(context.info.concurrency as f64 * t * 1000.0 / done),
            time_per_request_all_ms: per(t * 1000.0 / done),
            transfer_rate_kbytes_per_s: per(c.bytes_received as f64 / 1024.0 / t),
        },
        counters: *c,
        connection_times_ms,
        percentiles_ms,
        latency_us: quantiles(&h.total),
        corrected_latency_us: context.info.rate.map(|_| quantiles(&h.corrected)),
        status_codes: results.status_codes.clone(),
        seconds: results.seconds.clone(),
        histograms: EncodedHistograms {
            connect: encode(&h.connect),
            processing: encode(&h.processing),
            waiting: encode(&h.waiting),
            total: encode(&h.total),
            corrected: encode(&h.corrected),
        },
        merged: Vec::new(),
    }
}

fn encode(histogram: &Histogram<u64>) -> String {
    let mut bytes = Vec::new();
    V2Serializer::new()
        .serialize(histogram, &mut bytes)
        .expect("serialising into a Vec cannot fail");
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn decode(name: &'static str, text: &str) -> Result<Histogram<u64>, ReadError> {
    let error = |message: String| ReadError::Histogram { name, message };
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(text)
        .map_err(|e| error(e.to_string()))?;
    Deserializer::new()
        .deserialize(&mut bytes.as_slice())
        .map_err(|e| error(format!("{e:?}")))
}

/// What makes two runs parts of one test: the target, the request and every setting but the
/// count of requests (a shard's share) and the shard's index. Runs to be merged must agree on
/// it; the answer names the first thing in which `other` differs from `report`.
pub fn differs_from(report: &JsonReport, other: &JsonReport) -> Option<String> {
    fn test_of(report: &JsonReport) -> serde_json::Value {
        let mut settings = serde_json::to_value(&report.settings).unwrap_or_default();
        if let Some(settings) = settings.as_object_mut() {
            settings.remove("n_requests");
            if let Some(shard) = settings
                .get_mut("whole")
                .and_then(|whole| whole.get_mut("shard"))
                .and_then(|shard| shard.as_object_mut())
            {
                shard.remove("index");
            }
        }
        let run = &report.run;
        serde_json::json!({
            "target": format!("{}:{}{}", run.hostname, run.port, run.path),
            "method": run.method,
            "keep_alive": run.keep_alive,
            "variable_length": run.variable_length,
            "settings": settings,
        })
    }
    let (a, b) = (test_of(report), test_of(other));
    let (a, b) = (a.as_object()?, b.as_object()?);
    let settings = |v: &serde_json::Map<String, serde_json::Value>| {
        v["settings"].as_object().cloned().unwrap_or_default()
    };
    let (sa, sb) = (settings(a), settings(b));
    let top = a
        .iter()
        .filter(|(key, _)| *key != "settings")
        .map(|(key, value)| (key.clone(), value, &b[key]));
    let nested = sa.iter().map(|(key, value)| {
        let other = sb.get(key).unwrap_or(&serde_json::Value::Null);
        (key.clone(), value, other)
    });
    top.chain(nested)
        .find(|(_, x, y)| x != y)
        .map(|(key, x, y)| format!("{key} is {y}, not {x}"))
}

/// Reads a file written by `--json`, back into results to merge; or the output of a run with
/// `--json -` (a container's log), of which it reads what is between the marker lines.
pub fn read(text: &str) -> Result<(JsonReport, Results), ReadError> {
    let text = text
        .split_once(STDOUT_BEGIN)
        .and_then(|(_, rest)| rest.split_once(STDOUT_END))
        .map_or(text, |(json, _)| json);
    let report: JsonReport = serde_json::from_str(text)?;
    if report.format != FORMAT {
        return Err(ReadError::Format {
            found: report.format,
        });
    }
    let encoded = &report.histograms;
    let histograms = Histograms {
        connect: decode("connect", &encoded.connect)?,
        processing: decode("processing", &encoded.processing)?,
        waiting: decode("waiting", &encoded.waiting)?,
        total: decode("total", &encoded.total)?,
        corrected: decode("corrected", &encoded.corrected)?,
    };
    let results = Results {
        counters: report.counters,
        samples: Vec::new(),
        histograms,
        status_codes: report.status_codes.clone(),
        seconds: report.seconds.clone(),
        time_taken: report.summary.time_taken_s,
        server_software: report.summary.server_software.clone(),
        document_length: report.summary.document_length,
    };
    Ok((report, results))
}
