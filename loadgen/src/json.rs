//! `--json FILE`: every figure of the report, the settings, the machine, a per-second series,
//! and the HDR histograms (HdrHistogram's V2 encoding, base64), so that `loadgen merge` can add
//! runs from several machines into one report.

use std::collections::BTreeMap;

use base64::Engine as _;
use hdrhistogram::Histogram;
use hdrhistogram::serialization::{Deserializer, Serializer as _, V2Serializer};
use serde::{Deserialize, Serialize};

use host::Machine;
use tls::client::Negotiated;

use crate::pace::Pace;
use crate::report::{QUANTILES, RunInfo, per_second};
use crate::shard::Shard;
use crate::stats::{
    CheckCounts, CheckFailures, Counters, FlowCounts, Histograms, KindResults, KindStats, Results,
    Row, Saturation, Second, StepFailures, Table, round_ms,
};

/// The file's version: a reader refuses files of another. Format 2 keeps the typed settings
/// inside `run`.
pub const FORMAT: u32 = 2;

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
    /// The settings, and what this process ran of them.
    pub run: RunInfo,
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
    /// Each second of the measured phase.
    pub seconds: Vec<SecondRecord>,
    /// Whether the client may have limited the run, and the figures that say so.
    #[serde(default)]
    pub client_saturation: ClientSaturation,
    pub histograms: EncodedHistograms,
    /// A mix's kinds, in the mix's order, each with its own figures (none for a run of one
    /// request): their counts add up to `counters`'.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub kinds: Vec<KindRecord>,
    /// `--check-xpath` and `--check-regex`: each check's failures, in the order given.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub checks: Vec<CheckFailures>,
    /// `--soap-faults`: the faults by code.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub faults: BTreeMap<String, u64>,
    /// A mix's `[flow]`: its passes, their latency and their failures by step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flows: Option<FlowRecord>,
    /// Of `loadgen merge --json`: the runs merged.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub merged: Vec<MergedRun>,
}

/// One second of the measured phase: what completed and failed in it; under `--rate`, the
/// rate the schedule offered in it and the corrected p50 and p99 of its responses.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SecondRecord {
    pub requests: u64,
    pub errors: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offered_rate: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub corrected_p50_us: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub corrected_p99_us: Option<u64>,
    /// The second's corrected latencies (V2, base64), for `loadgen merge`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub corrected: Option<String>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct ClientSaturation {
    pub saturated: bool,
    #[serde(flatten)]
    pub figures: Saturation,
}

/// The per-second series of a run: `info`'s rate (a shard's share, or a merge's sum) gives the
/// offered rate of each second of the measured phase. A time limit ends the series at its last
/// second: the few responses that land just after it are in no second's rate.
pub fn second_records(info: &RunInfo, seconds: &[Second]) -> Vec<SecondRecord> {
    let load = &info.settings.load;
    let warmup = load.warmup.unwrap_or_default();
    let pace = info
        .rate
        .map(|rate| Pace::new(rate, warmup, load.time_limit()));
    let start = warmup.as_secs_f64();
    let n_seconds = load.time_limit().map_or(seconds.len(), |limit| {
        (limit.as_secs_f64().ceil() as usize).min(seconds.len())
    });
    seconds[..n_seconds]
        .iter()
        .enumerate()
        .map(|(index, second)| {
            let at = start + index as f64;
            SecondRecord {
                requests: second.requests,
                errors: second.errors,
                offered_rate: pace.map(|pace| pace.count_until(at + 1.0) - pace.count_until(at)),
                corrected_p50_us: second.corrected.as_ref().map(|h| h.value_at_quantile(0.5)),
                corrected_p99_us: second.corrected.as_ref().map(|h| h.value_at_quantile(0.99)),
                corrected: second.corrected.as_ref().map(encode),
            }
        })
        .collect()
}

/// One kind of a mix: its counts, its rate, its latency (µs) and its histograms (V2, base64,
/// for `loadgen merge`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KindRecord {
    pub name: String,
    pub weight: u32,
    pub complete: u64,
    pub failed: u64,
    pub non_2xx: u64,
    pub body_bytes_received: u64,
    pub document_length: u64,
    pub requests_per_second: f64,
    pub latency_us: BTreeMap<String, u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub corrected_latency_us: Option<BTreeMap<String, u64>>,
    pub total: String,
    pub corrected: String,
}

/// A flow's passes: done (and their rate), failed by step and cause, unfinished at the end,
/// and the latency of those done (µs; the histogram V2, base64, for `loadgen merge`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FlowRecord {
    pub complete: u64,
    pub failed: u64,
    pub unfinished: u64,
    pub flows_per_second: f64,
    pub latency_us: BTreeMap<String, u64>,
    pub steps: Vec<StepFailures>,
    pub latency: String,
}

impl FlowRecord {
    fn of(flows: &FlowCounts, time_taken: f64) -> FlowRecord {
        FlowRecord {
            complete: flows.complete,
            failed: flows.failed(),
            unfinished: flows.unfinished,
            flows_per_second: per_second(flows.complete, time_taken),
            latency_us: quantiles(&flows.latency),
            steps: flows.steps.clone(),
            latency: encode(&flows.latency),
        }
    }

    fn counts(&self) -> Result<FlowCounts, ReadError> {
        Ok(FlowCounts {
            complete: self.complete,
            unfinished: self.unfinished,
            steps: self.steps.clone(),
            latency: decode("the flows' latency", &self.latency)?,
        })
    }
}

/// Where and when one of the runs of a merge ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MergedRun {
    pub path: String,
    pub hostname: String,
    /// `--shard`, for a shard.
    pub shard: Option<Shard>,
    pub started_unix: f64,
    pub ended_unix: f64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Summary {
    pub server_software: String,
    pub document_length: u64,
    /// `https://`: what the first TLS handshake agreed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls: Option<Negotiated>,
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
        summary: Summary {
            server_software: results.server_software.clone(),
            document_length: results.document_length,
            tls: results.tls.clone(),
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
        seconds: second_records(context.info, &results.seconds),
        client_saturation: {
            let figures = results.saturation(context.info.rate.is_some());
            ClientSaturation {
                saturated: figures.saturated(),
                figures,
            }
        },
        histograms: EncodedHistograms {
            connect: encode(&h.connect),
            processing: encode(&h.processing),
            waiting: encode(&h.waiting),
            total: encode(&h.total),
            corrected: encode(&h.corrected),
        },
        checks: results.checks.checks.clone(),
        faults: results.checks.faults.clone(),
        flows: (results.flows.as_ref()).map(|flows| FlowRecord::of(flows, t)),
        kinds: results
            .kinds
            .iter()
            .map(|kind| {
                let stats = &kind.stats;
                KindRecord {
                    name: kind.name.clone(),
                    weight: kind.weight,
                    complete: stats.complete,
                    failed: stats.failed,
                    non_2xx: stats.non_2xx,
                    body_bytes_received: stats.body_bytes_received,
                    document_length: kind.document_length,
                    requests_per_second: per_second(stats.complete, t),
                    latency_us: quantiles(&stats.total),
                    corrected_latency_us: context.info.rate.map(|_| quantiles(&stats.corrected)),
                    total: encode(&stats.total),
                    corrected: encode(&stats.corrected),
                }
            })
            .collect(),
        merged: Vec::new(),
    }
}

/// A histogram's p50 ... p99.99 and max, by label.
fn quantiles(histogram: &Histogram<u64>) -> BTreeMap<String, u64> {
    let mut map: BTreeMap<String, u64> = QUANTILES
        .iter()
        .map(|(label, quantile)| (label.to_string(), histogram.value_at_quantile(*quantile)))
        .collect();
    map.insert("max".to_owned(), histogram.max());
    map
}

fn encode(histogram: &Histogram<u64>) -> String {
    let mut bytes = Vec::new();
    V2Serializer::new()
        .serialize(histogram, &mut bytes)
        .expect("serialising into a Vec cannot fail");
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// One histogram as `--json` writes it (HdrHistogram's V2, base64); `name` says which in an
/// error.
pub fn decode(name: &'static str, text: &str) -> Result<Histogram<u64>, ReadError> {
    let error = |message: String| ReadError::Histogram { name, message };
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(text)
        .map_err(|e| error(e.to_string()))?;
    Deserializer::new()
        .deserialize(&mut bytes.as_slice())
        .map_err(|e| error(format!("{e:?}")))
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
    let seconds = report
        .seconds
        .iter()
        .map(|second| {
            Ok(Second {
                requests: second.requests,
                errors: second.errors,
                corrected: match &second.corrected {
                    Some(text) => Some(decode("a second's corrected", text)?),
                    None => None,
                },
            })
        })
        .collect::<Result<Vec<_>, ReadError>>()?;
    let kinds = report
        .kinds
        .iter()
        .map(|kind| {
            Ok(KindResults {
                name: kind.name.clone(),
                weight: kind.weight,
                document_length: kind.document_length,
                stats: KindStats {
                    complete: kind.complete,
                    failed: kind.failed,
                    non_2xx: kind.non_2xx,
                    body_bytes_received: kind.body_bytes_received,
                    total: decode("a kind's total", &kind.total)?,
                    corrected: decode("a kind's corrected", &kind.corrected)?,
                },
            })
        })
        .collect::<Result<Vec<_>, ReadError>>()?;
    let results = Results {
        counters: report.counters,
        samples: Vec::new(),
        histograms,
        status_codes: report.status_codes.clone(),
        seconds,
        busiest_thread: report.client_saturation.figures.busiest_thread,
        time_taken: report.summary.time_taken_s,
        server_software: report.summary.server_software.clone(),
        document_length: report.summary.document_length,
        tls: report.summary.tls.clone(),
        kinds,
        checks: CheckCounts {
            checks: report.checks.clone(),
            faults: report.faults.clone(),
        },
        flows: match &report.flows {
            Some(flows) => Some(flows.counts()?),
            None => None,
        },
    };
    Ok((report, results))
}
