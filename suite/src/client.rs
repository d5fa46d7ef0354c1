//! What a load client is to the suite: [`LoadClient`] runs one cell and returns its figures.
//! loadgen's own client (in-process, through its library) is in the module `loadgen_client`;
//! ApacheBench, as a child process whose report is parsed, is [`AbClient`].

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use anyhow::{Context as _, bail};
use serde::{Deserialize, Serialize};

/// One timed run: a post file against one URL at one concurrency.
#[derive(Debug, Clone)]
pub struct CellSpec {
    pub url: loadgen::url::Url,
    pub body_file: PathBuf,
    pub content_type: String,
    /// Header lines, `Name: value`.
    pub headers: Vec<String>,
    pub concurrency: u32,
    pub duration: Duration,
    pub warmup: Duration,
    /// A response without this text is a failure.
    pub expect_body: Option<String>,
    /// A response with this text is a failure.
    pub reject_body: Option<String>,
    /// A mix: loadgen's `--mix` file, which holds each part's request and checks (the fields
    /// above are then the first part's, and unused).
    pub mix_file: Option<PathBuf>,
    /// `https://`: the CA that signed the server's certificate, for a client that verifies it
    /// (loadgen; ab verifies nothing).
    pub cacert: Option<PathBuf>,
    /// HTTP/2 (loadgen's `--http2`) with this many streams a connection (`--streams`; with
    /// one, `-c` means what it means over HTTP/1.1); `None`: HTTP/1.1.
    pub http2: Option<u32>,
    /// Answers may differ in length (`-l`, ab's and loadgen's): a gzipped answer that holds
    /// the time does.
    pub variable_length: bool,
}

impl CellSpec {
    /// The request as ab's options say it, which loadgen's are too: `-p FILE -T TYPE -H ...`;
    /// a mix as loadgen's `--mix FILE`.
    pub fn request_args(&self) -> Vec<String> {
        if let Some(file) = &self.mix_file {
            let mut args = vec!["--mix".to_owned(), file.display().to_string()];
            if self.variable_length {
                args.push("-l".to_owned());
            }
            return args;
        }
        let mut args = vec![
            "-p".to_owned(),
            self.body_file.display().to_string(),
            "-T".to_owned(),
            self.content_type.clone(),
        ];
        for header in &self.headers {
            args.push("-H".to_owned());
            args.push(header.clone());
        }
        if self.variable_length {
            args.push("-l".to_owned());
        }
        args
    }
}

/// The figures of one run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CellFigures {
    pub requests_per_second: f64,
    pub complete: u64,
    pub failed: u64,
    pub non_2xx: u64,
    /// Latency percentiles in milliseconds.
    pub p50_ms: f64,
    pub p99_ms: f64,
    /// Everything the client reported: loadgen's `--json` document (histograms included), or
    /// ab's figures and its report's text.
    pub document: serde_json::Value,
    /// The measured phase on the wall clock (seconds since the epoch, from and to): what the
    /// resources are cut to, so that a warm-up costs nothing.
    #[serde(default)]
    pub measured_unix: Option<(f64, f64)>,
    /// The client's CPU over the measured phase, when the client runs apart and measures it
    /// itself (ab: getrusage of its process).
    #[serde(default)]
    pub client_cpu_s: Option<f64>,
    /// What the target and the client spent over the measured phase (the matrix's sampler).
    #[serde(default)]
    pub resources: Option<Resources>,
}

/// What one run cost: the target's process tree and the client.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Resources {
    /// User and system CPU of the target's process tree; `None` for a target whose process the
    /// suite does not know (a `--target` without `--target-pid`).
    pub server_cpu_s: Option<f64>,
    /// The largest resident memory of the target's tree sampled in the run.
    pub peak_rss_kb: Option<u64>,
    /// The client's CPU (loadgen's in this process, or ab's).
    pub client_cpu_s: Option<f64>,
}

/// A load client the suite can drive.
pub trait LoadClient {
    /// The name in tables and charts (`loadgen`, `ab`).
    fn name(&self) -> &str;
    /// Its version, for the results file.
    fn version(&self) -> String;
    /// Runs the cell: warm-up, then `duration` of measured load.
    fn run(&self, cell: &CellSpec) -> anyhow::Result<CellFigures>;
    /// Whether it runs a mix's cells (`--mix`).
    fn mixes(&self) -> bool {
        false
    }
}

/// ApacheBench, run as `ab -k -c N -t SECONDS -n LIMIT -p FILE -T TYPE -H ...` with its report
/// parsed. ab has no warm-up, so a first run of the warm-up's length is thrown away.
#[derive(Debug, Clone)]
pub struct AbClient {
    pub program: String,
}

/// The most requests an ab run may make: ab keeps a record per request, so `-n` is sized from
/// the duration at a rate no single ab process reaches here (200,000 a second).
fn ab_request_limit(duration: Duration) -> u64 {
    ((duration.as_secs_f64() * 200_000.0) as u64).max(1_000)
}

impl AbClient {
    fn args(&self, cell: &CellSpec, duration: Duration) -> Vec<String> {
        let mut args = vec![
            "-k".to_owned(),
            "-c".to_owned(),
            cell.concurrency.to_string(),
            // -t first: ab's -t sets -n to 50,000, and the -n after it overrides that.
            "-t".to_owned(),
            format!("{}", duration.as_secs_f64().max(0.001)),
            "-n".to_owned(),
            ab_request_limit(duration).to_string(),
        ];
        args.extend(cell.request_args());
        args.push(cell.url.to_string());
        args
    }

    fn run_ab(&self, args: &[String]) -> anyhow::Result<String> {
        let output = Command::new(&self.program)
            .args(args)
            .output()
            .with_context(|| format!("running {} (Debian package apache2-utils)", self.program))?;
        let report = String::from_utf8_lossy(&output.stdout).into_owned();
        if !output.status.success() {
            bail!(
                "{} {} failed: {}{}",
                self.program,
                args.join(" "),
                String::from_utf8_lossy(&output.stderr).trim(),
                report
            );
        }
        Ok(report)
    }
}

impl LoadClient for AbClient {
    fn name(&self) -> &str {
        "ab"
    }

    fn version(&self) -> String {
        Command::new(&self.program)
            .arg("-V")
            .output()
            .ok()
            .and_then(|output| {
                String::from_utf8_lossy(&output.stdout)
                    .lines()
                    .next()
                    .map(str::to_owned)
            })
            .unwrap_or_else(|| "unknown".to_owned())
    }

    fn run(&self, cell: &CellSpec) -> anyhow::Result<CellFigures> {
        if !cell.warmup.is_zero() {
            self.run_ab(&self.args(cell, cell.warmup))?;
        }
        let args = self.args(cell, cell.duration);
        let (cpu_before, from) = (children_cpu_s(), host::process::unix_now());
        let report = self.run_ab(&args)?;
        let (cpu_after, to) = (children_cpu_s(), host::process::unix_now());
        let mut figures =
            parse_ab_report(&report).with_context(|| format!("reading ab's report:\n{report}"))?;
        figures.document["command_line"] = serde_json::json!(args);
        figures.measured_unix = Some((from, to));
        figures.client_cpu_s = cpu_before.zip(cpu_after).map(|(a, b)| b - a);
        Ok(figures)
    }
}

/// The figures of ab's report. Bodies are not checked by ab: the suite's correctness check
/// has done that before any cell is timed.
pub fn parse_ab_report(report: &str) -> anyhow::Result<CellFigures> {
    let field = |label: &str| {
        report
            .lines()
            .find_map(|line| line.strip_prefix(label))
            .and_then(|rest| rest.split_whitespace().next())
    };
    let number = |label: &str| -> anyhow::Result<f64> {
        field(label)
            .with_context(|| format!("no {label:?} line"))?
            .parse()
            .with_context(|| format!("{label:?} is not a number"))
    };
    // The percentile table: "  50%     12" in milliseconds.
    let percentile = |pct: &str| -> anyhow::Result<f64> {
        report
            .lines()
            .find_map(|line| line.trim_start().strip_prefix(pct))
            .and_then(|rest| rest.split_whitespace().next())
            .with_context(|| format!("no {pct} line"))?
            .parse()
            .with_context(|| format!("the {pct} line is not a number"))
    };
    let requests_per_second = number("Requests per second:")?;
    let complete = number("Complete requests:")? as u64;
    let failed = number("Failed requests:")? as u64;
    let non_2xx = field("Non-2xx responses:").map_or(Ok(0.0), |value| value.parse())? as u64;
    let (p50_ms, p99_ms) = (percentile("50%")?, percentile("99%")?);
    Ok(CellFigures {
        requests_per_second,
        complete,
        failed,
        non_2xx,
        p50_ms,
        p99_ms,
        document: serde_json::json!({
            "requests_per_second": requests_per_second,
            "complete": complete,
            "failed": failed,
            "non_2xx": non_2xx,
            "p50_ms": p50_ms,
            "p99_ms": p99_ms,
            "report": report,
        }),
        measured_unix: None,
        client_cpu_s: None,
        resources: None,
    })
}

/// User and system CPU of the children this process has reaped, seconds.
fn children_cpu_s() -> Option<f64> {
    host::process::children_cpu().map(|(user, system)| (user + system).as_secs_f64())
}
