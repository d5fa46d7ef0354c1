//! What a run is asked to do, in typed groups: where requests go ([`Target`]), how much load
//! and when ([`Load`]), what each request is ([`RequestOptions`]), what a right answer is
//! ([`Checks`]) and what the run prints and writes ([`Output`], [`Display`]). The command line
//! fills them once; the plan, the request bytes, the report and the JSON file read the same
//! values, and [`TestIdentity`] says which of them make two runs parts of one test.

use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};
/// The TLS options are the tls crate's, which makes the client configuration from them.
pub use tls::client::{ClientTls, Verify, Versions};

use crate::pace::Rate;
use crate::shard::{Shard, Share};
use crate::url::{Authority, Scheme, Url};
use host::duration::{optional_seconds, seconds};

/// A whole command line.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    pub target: Target,
    pub load: Load,
    pub request: RequestOptions,
    pub checks: Checks,
    pub output: Output,
}

/// Where requests go and through what.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Target {
    pub url: Url,
    /// `-X host:port`.
    pub proxy: Option<Authority>,
    /// `-B`: a local address or name to connect from.
    pub bind_address: Option<String>,
    /// `-b`: the TCP send and receive buffers, in bytes.
    pub socket_buffer: Option<u32>,
    /// `-Z`, `-f`, `-I`, `-E`, `--verify`, `--cacert`, `--tls-resume`: how an `https://` URL
    /// is spoken to (unused for `http://`).
    #[serde(default)]
    pub tls: ClientTls,
}

impl Target {
    /// The name a TLS connection verifies the certificate against and sends as SNI: as ab,
    /// a `-H Host:` header's value, else the URL's host (without a port: ab sends one, which
    /// servers refuse as an illegal parameter).
    pub fn tls_name(&self, headers: &[Header]) -> String {
        let host = headers
            .iter()
            .rev()
            .find(|header| header.name.trim().eq_ignore_ascii_case("host"))
            .map(|header| header.raw_value.trim())
            .unwrap_or(&self.url.host);
        match Authority::parse(host, 0) {
            Ok(authority) => authority.host,
            Err(_) => host.to_owned(),
        }
    }

    /// What ab prints as "TLS Server Name": the name sent as SNI, which no IP address is.
    pub fn sni(&self, headers: &[Header]) -> Option<String> {
        let name = self.tls_name(headers);
        (self.url.scheme == Scheme::Https
            && self.tls.sni
            && name.parse::<std::net::IpAddr>().is_err())
        .then_some(name)
    }
}

/// How many requests, on how many connections, at what pace, for how long. These are the
/// whole test's figures: with `--shard` this process runs [`Load::share`] of them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Load {
    /// `-n`; `None` with `-t` or `--duration` alone means no cap (ab would cap at 50,000).
    pub n_requests: Option<u64>,
    /// `-c`.
    pub concurrency: u32,
    /// `-t`.
    #[serde(with = "optional_seconds")]
    pub ab_time_limit: Option<Duration>,
    /// `--duration`.
    #[serde(with = "optional_seconds")]
    pub duration: Option<Duration>,
    /// `--warmup`.
    #[serde(with = "optional_seconds")]
    pub warmup: Option<Duration>,
    /// `--rate`: requests per second of the whole test (open loop), fixed or a ramp.
    pub rate: Option<Rate>,
    /// `--threads`: event loops; `None` means one per core.
    pub n_threads: Option<usize>,
    /// `--streams` (with `--http2`): requests a connection carries at once; `None` is one.
    #[serde(default)]
    pub streams: Option<u32>,
    /// `--shard I/N`, as asked.
    pub shard: Option<Shard>,
    /// `--start-at`: the wall-clock time of the first request. The JSON holds it as
    /// `start_at_unix` beside the settings.
    #[serde(skip)]
    pub start_at: Option<SystemTime>,
}

impl Load {
    /// How long the measured phase may last: `-t` or `--duration`, the shorter if both.
    pub fn time_limit(&self) -> Option<Duration> {
        match (self.ab_time_limit, self.duration) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// This process's part of the test: all of it, or its shard's share.
    pub fn share(&self) -> Share {
        Share::of(
            self.shard.unwrap_or(Shard::WHOLE),
            self.n_requests,
            self.concurrency,
            self.rate,
        )
    }
}

/// What each request is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RequestOptions {
    /// `-m`, or the method `-p`, `-u` or `-i` implies; GET otherwise.
    #[serde(with = "method")]
    pub method: http::Method,
    /// `-p` / `-u`: the file whose bytes are the body.
    pub body_file: Option<PathBuf>,
    /// `-T`, `text/plain` by default as ab.
    pub content_type: String,
    /// `-H`, in order.
    pub headers: Vec<Header>,
    /// `-C`: ab keeps only the last one.
    pub cookie: Option<String>,
    /// `-A` and `-P`: `user:password`.
    pub basic_auth: Option<String>,
    pub proxy_auth: Option<String>,
    /// `-k`.
    pub keep_alive: bool,
    /// `--http1.0`: exactly ab's request bytes; HTTP/1.1 otherwise.
    pub http10: bool,
    /// `--http2`: HTTP/2, by ALPN over TLS, with prior knowledge (h2c) on plain TCP.
    #[serde(default)]
    pub http2: bool,
    /// `--mix FILE` or `-p FILE@W` more than once: the kinds of request, by weight, each
    /// the request above but for what its part sets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mix: Option<Mix>,
    /// `--template`, `--data FILE`, `--data-order`: the path, header values and bodies are
    /// templates, filled for each request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub templating: Option<Templating>,
}

/// What fills a templated run's placeholders (see [`crate::template`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Templating {
    /// `--data FILE`: the rows of the columns a template names.
    pub data: Option<PathBuf>,
    /// `--data-order`: which row a request takes.
    #[serde(default)]
    pub order: crate::template::DataOrder,
    /// `--seed`: the random rows, `random` and `pick` (1 by default).
    pub seed: u64,
}

/// `--mix FILE` or `-p FILE@W` more than once: the kinds of request of a run, and the seed
/// of their order (read, checked and ordered by the `mix` module).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mix {
    pub seed: u64,
    pub parts: Vec<Part>,
    /// A `[flow]`: the parts in the order each connection sends them, again and again, in
    /// place of the weights' order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flow: Option<Flow>,
}

/// The steps of a flow, each a part sent `times` times in a row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Flow {
    pub steps: Vec<FlowStep>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlowStep {
    /// Its part's index in [`Mix::parts`].
    pub part: usize,
    pub times: u32,
}

/// `--save NAME=PATH` or `--save-regex NAME=RE` on a mix's line: a value taken from each of
/// the part's answers into the connection's variables, for the flow's later steps'
/// templates (`{{NAME}}`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Save {
    pub name: String,
    pub from: SaveFrom,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum SaveFrom {
    /// A path of `--check-xpath`'s subset: the first selected node's value.
    Path(String),
    /// A regular expression: its first group's match, or the whole match without a group.
    Regex(String),
}

/// One kind of request in a mix. What it leaves unset is the command line's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Part {
    /// Its name in the report (`EchoStruct-20`).
    pub name: String,
    pub weight: u32,
    #[serde(with = "method")]
    pub method: http::Method,
    /// The URL's path; `None` is the command line's URL.
    pub path: Option<String>,
    pub body_file: Option<PathBuf>,
    /// `-T`.
    pub content_type: Option<String>,
    /// `-H`, after the command line's.
    pub headers: Vec<Header>,
    #[serde(with = "status")]
    pub expect_status: Option<http::StatusCode>,
    pub expect_body: Option<String>,
    pub reject_body: Option<String>,
    /// `--check-xpath`, `--check-regex`: the part's own, after the command line's.
    #[serde(default)]
    pub check_xpath: Vec<String>,
    #[serde(default)]
    pub check_regex: Vec<String>,
    /// `--save`, `--save-regex`: what its answers give the flow's later steps.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub saves: Vec<Save>,
}

/// The largest request body file read (`-p`, `-u`, a mix's part): a regular file of at most
/// this many bytes, so that a device or a FIFO named by mistake cannot fill memory or hang.
pub const MAX_BODY_FILE: u64 = 256 << 20;

/// A header line of `-H`: its name, and its value as written after the colon (leading space
/// included), so that the bytes sent are the bytes given, as ab sends them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    pub name: String,
    pub raw_value: String,
}

impl Header {
    /// `Name: value`; refused without a colon, with a name that is not an HTTP token, or with
    /// a control character in the value (see [`crate::field::check_field`]).
    pub fn parse(line: &str) -> Result<Header, String> {
        let (name, raw_value) = line
            .split_once(':')
            .ok_or_else(|| "expected Name: value".to_owned())?;
        crate::field::check_field(name, raw_value)?;
        Ok(Header {
            name: name.to_owned(),
            raw_value: raw_value.to_owned(),
        })
    }

    /// The line as given.
    pub fn line(&self) -> String {
        format!("{}:{}", self.name, self.raw_value)
    }
}

/// What a right answer is, and how long to wait for one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Checks {
    /// `--expect-status`.
    #[serde(with = "status")]
    pub expect_status: Option<http::StatusCode>,
    /// `--expect-body`, `--reject-body`.
    pub expect_body: Option<String>,
    pub reject_body: Option<String>,
    /// `--check-xpath`, `--check-regex` (each answer must pass every one), `--soap-faults`.
    #[serde(default)]
    pub check_xpath: Vec<String>,
    #[serde(default)]
    pub check_regex: Vec<String>,
    #[serde(default)]
    pub soap_faults: bool,
    /// `-l`: bodies may vary in length.
    pub variable_length: bool,
    /// `-r`: a receive error does not end the run.
    pub continue_on_receive_errors: bool,
    /// `--timeout`: a request unanswered this long fails.
    #[serde(with = "optional_seconds")]
    pub request_timeout: Option<Duration>,
    /// `-s`: ab's stall timeout, 30 s by default.
    #[serde(with = "seconds")]
    pub stall_timeout: Duration,
}

impl Options {
    /// What a results file keeps of these options.
    pub fn settings(&self) -> RunSettings {
        RunSettings {
            target: self.target.clone(),
            load: self.load.clone(),
            request: self.request.clone(),
            checks: self.checks.clone(),
        }
    }
}

/// The options a results file keeps (all but what the run prints and writes): enough to
/// repeat the run, and to tell whether two runs are parts of one test.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunSettings {
    pub target: Target,
    pub load: Load,
    pub request: RequestOptions,
    pub checks: Checks,
}

impl RunSettings {
    /// What makes the run part of a test.
    pub fn identity(&self) -> TestIdentity {
        let load = &self.load;
        TestIdentity {
            url: self.target.url.clone(),
            proxy: self.target.proxy.clone(),
            tls: self.target.tls.clone(),
            request: self.request.clone(),
            checks: self.checks.clone(),
            time_limit: load.time_limit(),
            warmup: load.warmup,
            whole: load
                .shard
                .map(|shard| (shard.count, load.n_requests, load.concurrency, load.rate)),
        }
    }
}

/// What the run prints and writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Output {
    /// `-v`.
    pub verbosity: u32,
    /// `-q`.
    pub quiet: bool,
    /// `-w`, `-x`, `-y`, `-z`, `-S`, `-d`.
    pub display: Display,
    /// `-g`, `-e`.
    pub gnuplot_file: Option<PathBuf>,
    pub csv_file: Option<PathBuf>,
    /// `--json FILE` or `--json -`.
    pub json: Option<JsonOut>,
    /// `--series FILE`: the per-second series as CSV.
    pub series_file: Option<PathBuf>,
    /// `--metrics ADDR`: Prometheus text at `GET /metrics` while the run goes, and for
    /// `--metrics-hold` after it.
    pub metrics: Option<std::net::SocketAddr>,
    pub metrics_hold: Option<Duration>,
    /// `--prom-remote-write URL`: the same counts pushed there every few seconds and at the end.
    pub remote_write: Option<Url>,
}

/// How to print: ab's display options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Display {
    /// `-w`, with `-x`, `-y`, `-z`.
    pub html: bool,
    pub table_attributes: String,
    pub row_attributes: String,
    pub cell_attributes: String,
    /// Not `-S`.
    pub confidence: bool,
    /// Not `-d`.
    pub percentiles: bool,
}

impl Default for Display {
    /// ab's: text, with the confidence estimators and the percentile table.
    fn default() -> Display {
        Display {
            html: false,
            table_attributes: String::new(),
            row_attributes: String::new(),
            cell_attributes: "bgcolor=white".to_owned(),
            confidence: true,
            percentiles: true,
        }
    }
}

/// Where `--json` goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JsonOut {
    /// `--json -`: on stdout after the report, between marker lines.
    Stdout,
    File(PathBuf),
}

/// What makes two runs parts of one test, so that `loadgen merge` may add them: the target,
/// the request, the checks and the timing; and of a shard, the whole test. Not the count of
/// requests a run made, its connections or threads (machines side by side may differ), nor
/// which shard it was.
#[derive(Debug, Clone, PartialEq)]
pub struct TestIdentity {
    pub url: Url,
    pub proxy: Option<Authority>,
    pub tls: ClientTls,
    pub request: RequestOptions,
    pub checks: Checks,
    pub time_limit: Option<Duration>,
    pub warmup: Option<Duration>,
    /// Of a shard: the number of shards and the whole test's `-n`, `-c` and `--rate`.
    pub whole: Option<(u32, Option<u64>, u32, Option<Rate>)>,
}

impl TestIdentity {
    /// The first thing in which `other` differs from `self`, named, or `None` if they are
    /// one test.
    pub fn difference(&self, other: &TestIdentity) -> Option<String> {
        if self == other {
            return None;
        }
        macro_rules! first_differing {
            ($($field:ident).+) => {
                if self.$($field).+ != other.$($field).+ {
                    return Some(format!(
                        "{} is {:?}, not {:?}",
                        stringify!($($field).+),
                        other.$($field).+,
                        self.$($field).+
                    ));
                }
            };
        }
        first_differing!(url);
        first_differing!(proxy);
        first_differing!(tls);
        first_differing!(request.method);
        first_differing!(request.body_file);
        first_differing!(request.content_type);
        first_differing!(request.headers);
        first_differing!(request.cookie);
        first_differing!(request.basic_auth);
        first_differing!(request.proxy_auth);
        first_differing!(request.keep_alive);
        first_differing!(request.http10);
        first_differing!(request.http2);
        first_differing!(request.mix);
        first_differing!(request.templating);
        first_differing!(checks.expect_status);
        first_differing!(checks.expect_body);
        first_differing!(checks.reject_body);
        first_differing!(checks.check_xpath);
        first_differing!(checks.check_regex);
        first_differing!(checks.soap_faults);
        first_differing!(checks.variable_length);
        first_differing!(checks.continue_on_receive_errors);
        first_differing!(checks.request_timeout);
        first_differing!(checks.stall_timeout);
        first_differing!(time_limit);
        first_differing!(warmup);
        first_differing!(whole);
        Some("settings differ".to_owned())
    }
}

/// Serde for an HTTP method, as its name.
mod method {
    use serde::{Deserialize as _, Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(
        method: &http::Method,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(method.as_str())
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<http::Method, D::Error> {
        let name = String::deserialize(deserializer)?;
        http::Method::from_bytes(name.as_bytes()).map_err(serde::de::Error::custom)
    }
}

/// Serde for an optional status code, as its number.
mod status {
    use serde::{Deserialize as _, Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(
        status: &Option<http::StatusCode>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        match status {
            Some(status) => serializer.serialize_some(&status.as_u16()),
            None => serializer.serialize_none(),
        }
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<http::StatusCode>, D::Error> {
        Option::<u16>::deserialize(deserializer)?
            .map(|code| http::StatusCode::from_u16(code).map_err(serde::de::Error::custom))
            .transpose()
    }
}
