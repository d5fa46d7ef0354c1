//! wsperf: what each XML binding of the WSTest messages, and each other encoding of the same
//! data, costs in memory, apart from the network and HTTP.
//!
//! # Map
//! - [`Args`] and [`run`]: the command line and what it does.
//! - `document`: the documents measured (files, or the post files and our server's responses),
//!   each with the model our binding reads from it.
//! - `codec`: the implementations (four XML bindings, gzip, JSON, MessagePack, Avro, and the
//!   limits: a lexer pass that builds nothing, a memchr scan, a copy), checked against our
//!   model before they are timed.
//! - `measure`: warm-up, batches, median and spread.
//! - `report`: the rows in text, CSV, JSON, Markdown or LaTeX; the size table.
//! - `chart`: the SVG chart.
//! - `net`: `--net` and `wsperf relay`: the same rows across a TCP link, efxperf's way.

mod chart;
mod codec;
mod document;
mod measure;
mod net;
mod report;

use std::io::IsTerminal as _;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, bail};
use clap::Parser;

pub use codec::Mode;
use codec::{BINDINGS, ENCODINGS, Implementation};
use document::Document;
use encodings::AvroSchemas;
pub use measure::{Sample, Timing};
pub use net::relay;
pub use report::Format;
use report::Row;

/// Measures decoding and encoding of WSTest documents in memory, for each XML binding and each
/// other encoding of the same data, beside the limits (a lexer pass, a copy).
#[derive(Debug, Parser)]
#[command(
    version,
    about,
    args_conflicts_with_subcommands = true,
    propagate_version = true
)]
pub struct Args {
    #[command(subcommand)]
    pub command: Option<Command>,

    /// XML files, requests or responses; none: every post file and the response our server
    /// writes to it.
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,

    /// Time decoding (the default when no mode is named).
    #[arg(short = 'd', long)]
    pub decode: bool,

    /// Time encoding.
    #[arg(short = 'e', long)]
    pub encode: bool,

    /// Time encoding and then decoding what was written.
    #[arg(long)]
    pub round_trip: bool,

    /// The XML bindings, comma-separated (default: all).
    #[arg(long, value_delimiter = ',', value_parser = BINDINGS.map(|binding| binding.name()))]
    pub bindings: Vec<String>,

    /// The encodings, comma-separated; `xml` is every chosen binding (default: all).
    #[arg(long, value_delimiter = ',', value_parser = ENCODINGS)]
    pub encodings: Vec<String>,

    /// Leave out the limits (the tokens-only lexer passes, the scan and the copy).
    #[arg(long)]
    pub no_limits: bool,

    /// Warm up for at least this long (`200ms`, `1s`)…
    #[arg(long, value_name = "DURATION", default_value = "200ms", value_parser = warmup_duration)]
    pub warmup: Duration,

    /// …and with at least N calls.
    #[arg(long, value_name = "N", default_value_t = 100)]
    pub warmup_calls: u64,

    /// Measure at least N batches…
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub repeat: u64,

    /// …and for at least this long (`1s`, `500ms`; a bare number is milliseconds).
    #[arg(long, value_name = "DURATION", default_value = "1s", value_parser = host::duration::parse_millis)]
    pub time: Duration,

    /// The output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,

    /// Write the output to FILE rather than stdout.
    #[arg(short = 'o', long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Also draw the times as an SVG chart.
    #[arg(long, value_name = "FILE.svg")]
    pub chart: Option<PathBuf>,

    /// Print the size of each document in each encoding, and time nothing.
    #[arg(long)]
    pub sizes: bool,

    /// Write the response of every post file into DIR, and time nothing.
    #[arg(long, value_name = "DIR")]
    pub generate: Option<PathBuf>,

    /// Time across the network: each document encoded here, sent to the relay at HOST:PORT
    /// (`wsperf relay --addr ADDR` on the other host) and decoded there, or the reverse with
    /// -e; the time per document includes the transfer.
    #[arg(long, value_name = "HOST:PORT", conflicts_with_all = ["sizes", "generate"])]
    pub net: Option<String>,
}

/// wsperf's commands besides its measurement.
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// The far side of wsperf --net: decodes what it is sent and encodes what it is asked for,
    /// for every binding and encoding wsperf has.
    Relay(RelayArgs),
}

/// `wsperf relay`: the far side of `--net`.
#[derive(Debug, clap::Args)]
pub struct RelayArgs {
    /// Address to listen on; port 0 picks a free one (the listening line on stderr names it).
    #[arg(long, alias = "listen", default_value = "127.0.0.1:7300")]
    pub addr: String,
}

/// `--warmup`: a duration whose bare number once counted calls, so one is refused rather than
/// read in the new sense.
fn warmup_duration(text: &str) -> Result<Duration, host::duration::DurationError> {
    host::duration::parse_bare(
        text,
        host::duration::Bare::Refused("the number of warm-up calls is --warmup-calls"),
    )
}

impl Args {
    pub fn timing(&self) -> Timing {
        Timing {
            warmup_calls: self.warmup_calls,
            warmup: self.warmup,
            repeat: self.repeat,
            time: self.time,
        }
    }

    pub fn modes(&self) -> Vec<Mode> {
        let chosen = [
            (self.decode, Mode::Decode),
            (self.encode, Mode::Encode),
            (self.round_trip, Mode::RoundTrip),
        ];
        let modes: Vec<Mode> = chosen
            .iter()
            .filter(|(on, _)| *on)
            .map(|&(_, mode)| mode)
            .collect();
        if modes.is_empty() {
            vec![Mode::Decode]
        } else {
            modes
        }
    }

    /// The implementations, in the order the rows show them.
    fn implementations(&self) -> Vec<Implementation> {
        let encoding =
            |name: &str| self.encodings.is_empty() || self.encodings.iter().any(|e| e == name);
        codec::all_implementations()
            .into_iter()
            .filter(|implementation| match implementation {
                Implementation::Xml(binding) => {
                    encoding("xml")
                        && (self.bindings.is_empty()
                            || self.bindings.iter().any(|b| b == binding.name()))
                }
                limit if limit.is_limit() => !self.no_limits,
                other => encoding(other.name()),
            })
            .collect()
    }
}

/// What a run found beyond its report: how many rows an implementation got wrong (it misread
/// a document, or wrote one that does not read back as ours), each shown as `wrong: why`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Outcome {
    /// Rows whose implementation failed its check before timing.
    pub wrong_rows: usize,
}

/// Does what `args` ask.
pub fn run(args: &Args) -> anyhow::Result<Outcome> {
    if let Some(dir) = &args.generate {
        for path in document::generate(dir)? {
            println!("{}", path.display());
        }
        return Ok(Outcome::default());
    }
    let documents = if args.files.is_empty() {
        document::post_files_and_responses()
    } else {
        args.files
            .iter()
            .map(|path| Document::read(path))
            .collect::<anyhow::Result<_>>()?
    };
    let implementations = args.implementations();
    if implementations.is_empty() {
        bail!("nothing to measure: the chosen encodings leave no implementation");
    }
    let avro = AvroSchemas::new();
    let mut outcome = Outcome::default();
    let output = if args.sizes {
        sizes(&documents, &implementations, &avro, args.format)?
    } else {
        let rows = match &args.net {
            Some(addr) => net::measure_all(
                addr,
                &documents,
                &implementations,
                &args.modes(),
                &args.timing(),
                &avro,
            )?,
            None => measure_all(
                &documents,
                &implementations,
                &args.modes(),
                &args.timing(),
                &avro,
            )?,
        };
        outcome.wrong_rows = rows.iter().filter(|row| row.error.is_some()).count();
        if let Some(path) = &args.chart {
            let mut title = chart_title();
            if let Some(addr) = &args.net {
                title = title.replace("in memory", &format!("across the network to {addr}"));
            }
            chart::draw(&rows, &title, path)?;
            eprintln!("wrote {}", path.display());
        }
        report::timings(&rows, args.format)
    };
    match &args.output {
        Some(path) => {
            std::fs::write(path, output)
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
        None => print!("{output}"),
    }
    Ok(outcome)
}

fn sizes(
    documents: &[Document],
    implementations: &[Implementation],
    avro: &AvroSchemas,
    format: Format,
) -> anyhow::Result<String> {
    let carriers: Vec<Implementation> = implementations
        .iter()
        .copied()
        .filter(|i| !i.is_limit())
        .collect();
    let mut bytes = Vec::new();
    for document in documents {
        let mut row = Vec::new();
        for &implementation in &carriers {
            let encoded = codec::encoding(implementation, document, avro)
                .with_context(|| format!("{}: {}", document.name, implementation.name()))?;
            row.push(encoded.len());
        }
        bytes.push(row);
    }
    let names: Vec<(String, String)> = documents
        .iter()
        .map(|d| (d.name.clone(), d.kind.to_string()))
        .collect();
    let columns: Vec<&str> = carriers.iter().map(|i| i.name()).collect();
    Ok(report::sizes(&names, &columns, &bytes, format))
}

/// Checks and times every document, mode and implementation, with a progress line on a
/// terminal, and elsewhere (a pipe, a log) a line as each document is done, so that a run of
/// minutes is seen to move.
fn measure_all(
    documents: &[Document],
    implementations: &[Implementation],
    modes: &[Mode],
    timing: &Timing,
    avro: &AvroSchemas,
) -> anyhow::Result<Vec<Row>> {
    let progress = std::io::stderr().is_terminal();
    let n_cells = documents.len() * modes.len() * implementations.len();
    let started = std::time::Instant::now();
    let mut rows = Vec::new();
    for (i_document, document) in documents.iter().enumerate() {
        let verdicts: Vec<Result<(), String>> = implementations
            .iter()
            .map(|&implementation| {
                codec::verify(implementation, document, avro).map_err(|error| {
                    let error = format!("{error:#}");
                    eprintln!(
                        "wsperf: {}: {}: {error}",
                        document.name,
                        implementation.name()
                    );
                    error
                })
            })
            .collect();
        for &mode in modes {
            for (&implementation, verdict) in implementations.iter().zip(&verdicts) {
                if progress {
                    eprint!(
                        "\r\x1b[K[{}/{n_cells}] {} {} {}",
                        rows.len() + 1,
                        document.name,
                        mode.name(),
                        implementation.name()
                    );
                }
                // A row that failed its check keeps its size where the input can still be made.
                let (time, bytes) = match verdict {
                    Ok(()) => match codec::measure(implementation, mode, document, avro, timing)
                        .with_context(|| format!("{}: {}", document.name, implementation.name()))?
                    {
                        Some((sample, bytes)) => (Some(sample), bytes),
                        None => continue,
                    },
                    Err(_) => {
                        let input = codec::input(implementation, mode, document, avro);
                        (None, input.map_or(0, |bytes| bytes.len()))
                    }
                };
                rows.push(Row::new(
                    document,
                    implementation,
                    mode,
                    bytes,
                    time,
                    verdict.clone().err(),
                ));
            }
        }
        if !progress {
            eprintln!(
                "wsperf: [{}/{}] {} measured, {} rows in {:.1} s",
                i_document + 1,
                documents.len(),
                document.name,
                rows.len(),
                started.elapsed().as_secs_f64()
            );
        }
    }
    if progress {
        eprint!("\r\x1b[K");
    }
    report::set_ratios(&mut rows);
    Ok(rows)
}

/// The chart's title: the machine's processor and today's date.
fn chart_title() -> String {
    let machine = host::Machine::this();
    let cpu = if machine.cpu.is_empty() {
        machine.arch
    } else {
        machine.cpu
    };
    let stamp = host::utc_minute();
    let date = stamp.split(' ').next().unwrap_or_default();
    format!("wsperf: WSTest bindings and encodings in memory, {cpu}, {date}")
}
