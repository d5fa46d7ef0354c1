//! The command line: ab's one-letter options, with ab's getopt habits (grouped flags `-kq`,
//! attached values `-n100`, options before the URL), plus loadgen's own long options, which
//! never shadow an ab flag. ab's letters are mapped to full names here and nowhere else.

use std::time::{Duration, SystemTime};

use crate::shard::split;
pub use crate::shard::{Shard, WholeTest};

/// ab exits with EINVAL for usage errors; so does loadgen.
pub const USAGE_EXIT_CODE: i32 = 22;

/// A command line that cannot be run, with the message ab (or loadgen) prints for it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct UsageError {
    pub message: String,
    /// The exit code: 22 for usage errors, as ab; 1 for the few value errors ab exits 1 on.
    pub exit_code: i32,
}

impl UsageError {
    pub(crate) fn usage(message: impl Into<String>) -> UsageError {
        UsageError {
            message: message.into(),
            exit_code: USAGE_EXIT_CODE,
        }
    }

    fn value(message: impl Into<String>) -> UsageError {
        UsageError {
            message: message.into(),
            exit_code: 1,
        }
    }
}

/// Where requests go, from the URL argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub host: String,
    pub port: u16,
    /// Everything from the first `/`, query included, as ab's "Document Path".
    pub path: String,
}

/// What a body-carrying option asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BodyFile {
    /// `-p` posts, `-u` puts.
    pub method: String,
    pub path: String,
}

/// Everything the command line says, in full names.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    pub target: Target,
    /// `-n`; `None` with `-t` alone means no cap on the count (ab would cap at 50,000).
    pub n_requests: Option<u64>,
    /// `-c`.
    pub concurrency: u32,
    /// `-t`.
    pub time_limit: Option<Duration>,
    /// `-s`: ab's stall timeout, 30 s by default.
    pub stall_timeout: Duration,
    /// `-b`.
    pub socket_buffer_size: Option<u32>,
    /// `-B`.
    pub bind_address: Option<String>,
    /// `-p` / `-u`.
    pub body_file: Option<BodyFile>,
    /// `-T`, `text/plain` by default as ab.
    pub content_type: String,
    /// `-v`.
    pub verbosity: u32,
    /// `-w`, also implied by `-x`, `-y`, `-z`.
    pub html: bool,
    /// `-x`, `-y`, `-z`.
    pub table_attributes: Option<String>,
    pub row_attributes: Option<String>,
    pub cell_attributes: Option<String>,
    /// `-i`: HEAD.
    pub head: bool,
    /// `-C`: ab keeps only the last one.
    pub cookie: Option<String>,
    /// `-H`, in order.
    pub headers: Vec<String>,
    /// `-A` and `-P`: `user:password`.
    pub basic_auth: Option<String>,
    pub proxy_auth: Option<String>,
    /// `-X`: `host:port`.
    pub proxy: Option<String>,
    /// `-V`, `-h`: print and exit.
    pub show_version: bool,
    pub show_help: bool,
    /// `-k`.
    pub keep_alive: bool,
    /// `-d`, `-S`, `-q`, `-l`, `-r`.
    pub no_percentile_table: bool,
    pub no_confidence_estimators: bool,
    pub quiet: bool,
    pub variable_length: bool,
    pub continue_on_receive_errors: bool,
    /// `-g`, `-e`.
    pub gnuplot_file: Option<String>,
    pub csv_file: Option<String>,
    /// `-m`, or the method implied by `-p`, `-u`, `-i`; GET otherwise.
    pub method: String,
    /// `--threads N`: event loops; `None` means one per core.
    pub n_threads: Option<usize>,
    /// `--rate R`: requests per second across all threads (open loop).
    pub rate: Option<f64>,
    /// `--duration D`, `--warmup D`, `--timeout D`.
    pub duration: Option<Duration>,
    pub warmup: Option<Duration>,
    pub request_timeout: Option<Duration>,
    /// `--json FILE`.
    pub json_file: Option<String>,
    /// `--expect-status`, `--expect-body`, `--reject-body`.
    pub expect_status: Option<u16>,
    pub expect_body: Option<String>,
    pub reject_body: Option<String>,
    /// `--http1.0`: exactly ab's request bytes; HTTP/1.1 otherwise.
    pub http10: bool,
    /// `--shard I/N`: `n_requests` and `concurrency` above are then this shard's share, and
    /// this holds the whole test.
    pub whole: Option<WholeTest>,
    /// `--start-at`: the wall-clock time of the first request, connections opened before it.
    pub start_at: Option<SystemTime>,
}

/// ab's options that take a value (the apr_getopt string of ab 2.4 without its TLS options).
const WITH_VALUE: &[u8] = b"nctsbTpuvxyzCHPAgXeBm";
/// ab's options that take none.
const FLAGS: &[u8] = b"lrkVhwidSq";
/// ab's TLS options, refused with a clear message: loadgen speaks plain HTTP only.
const TLS_OPTIONS: &[u8] = b"IZfE";
/// ab's `MAX_CONCURRENCY` in the 2.4.71 build.
const MAX_CONCURRENCY: u32 = 200_000;

/// Parses the arguments after the program name.
pub fn parse(args: &[String]) -> Result<Settings, UsageError> {
    let mut settings = Settings::default_for(Target {
        host: String::new(),
        port: 80,
        path: String::new(),
    });
    let mut positional = Vec::new();
    let mut method_given = false;
    let mut count_given = false;
    let mut idx = 0;
    while idx < args.len() {
        let arg = &args[idx];
        idx += 1;
        if let Some(long) = arg.strip_prefix("--") {
            let (name, inline) = match long.split_once('=') {
                Some((name, value)) => (name, Some(value.to_owned())),
                None => (long, None),
            };
            if name == "http1.0" {
                settings.http10 = true;
                continue;
            }
            let value = match inline {
                Some(value) => value,
                None => {
                    let value = args.get(idx).cloned().ok_or_else(|| {
                        UsageError::usage(format!("loadgen: option --{name} requires an argument"))
                    })?;
                    idx += 1;
                    value
                }
            };
            apply_long(&mut settings, name, &value)?;
            continue;
        }
        let Some(letters) = arg.strip_prefix('-').filter(|rest| !rest.is_empty()) else {
            positional.push(arg.clone());
            // Like ab, options must come before the URL: anything after it is an error below.
            positional.extend(args[idx..].iter().cloned());
            break;
        };
        let bytes = letters.as_bytes();
        let mut at = 0;
        while at < bytes.len() {
            let letter = bytes[at];
            at += 1;
            if FLAGS.contains(&letter) {
                apply_flag(&mut settings, letter);
            } else if WITH_VALUE.contains(&letter) {
                let value = if at < bytes.len() {
                    let value = letters[at..].to_owned();
                    at = bytes.len();
                    value
                } else {
                    let value = args.get(idx).cloned().ok_or_else(|| {
                        UsageError::usage(format!(
                            "ab: option requires an argument -- {}",
                            char::from(letter)
                        ))
                    })?;
                    idx += 1;
                    value
                };
                count_given |= letter == b'n';
                count_given &= letter != b't';
                apply_value(&mut settings, letter, &value, &mut method_given)?;
            } else if TLS_OPTIONS.contains(&letter) {
                return Err(UsageError::usage(format!(
                    "loadgen: -{} is a TLS option, and loadgen does not support TLS (https)",
                    char::from(letter)
                )));
            } else {
                return Err(UsageError::usage(format!(
                    "ab: illegal option -- {}",
                    char::from(letter)
                )));
            }
        }
    }
    if settings.show_help || settings.show_version {
        return Ok(settings);
    }
    let [url] = positional.as_slice() else {
        return Err(UsageError::usage("ab: wrong number of arguments"));
    };
    settings.target = parse_url(url)?;
    if settings.duration.is_some() && !count_given && settings.time_limit.is_none() {
        // --duration alone runs for that long, however many requests it takes.
        settings.n_requests = None;
    }
    if settings.head && settings.body_file.is_some() {
        return Err(UsageError::usage("ab: Cannot mix HEAD with POST/PUT"));
    }
    if let Some(n_requests) = settings.n_requests
        && u64::from(settings.concurrency) > n_requests
    {
        return Err(UsageError::usage(
            "ab: Cannot use concurrency level greater than total number of requests",
        ));
    }
    if let Some(whole) = settings.whole {
        split(&mut settings, whole.shard)?;
    }
    Ok(settings)
}

impl Settings {
    /// How long the measured phase may last: `-t` or `--duration`, the shorter if both.
    pub fn time_limit(&self) -> Option<Duration> {
        match (self.time_limit, self.duration) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn default_for(target: Target) -> Settings {
        Settings {
            target,
            n_requests: Some(1),
            concurrency: 1,
            time_limit: None,
            stall_timeout: Duration::from_secs(30),
            socket_buffer_size: None,
            bind_address: None,
            body_file: None,
            content_type: "text/plain".to_owned(),
            verbosity: 0,
            html: false,
            table_attributes: None,
            row_attributes: None,
            cell_attributes: None,
            head: false,
            cookie: None,
            headers: Vec::new(),
            basic_auth: None,
            proxy_auth: None,
            proxy: None,
            show_version: false,
            show_help: false,
            keep_alive: false,
            no_percentile_table: false,
            no_confidence_estimators: false,
            quiet: false,
            variable_length: false,
            continue_on_receive_errors: false,
            gnuplot_file: None,
            csv_file: None,
            method: "GET".to_owned(),
            n_threads: None,
            rate: None,
            duration: None,
            warmup: None,
            request_timeout: None,
            json_file: None,
            expect_status: None,
            expect_body: None,
            reject_body: None,
            http10: false,
            whole: None,
            start_at: None,
        }
    }
}

fn apply_flag(settings: &mut Settings, letter: u8) {
    match letter {
        b'l' => settings.variable_length = true,
        b'r' => settings.continue_on_receive_errors = true,
        b'k' => settings.keep_alive = true,
        b'V' => settings.show_version = true,
        b'h' => settings.show_help = true,
        b'w' => settings.html = true,
        b'i' => {
            settings.head = true;
            settings.method = "HEAD".to_owned();
        }
        b'd' => settings.no_percentile_table = true,
        b'S' => settings.no_confidence_estimators = true,
        b'q' => settings.quiet = true,
        _ => unreachable!("FLAGS lists only these letters"),
    }
}

fn apply_value(
    settings: &mut Settings,
    letter: u8,
    value: &str,
    method_given: &mut bool,
) -> Result<(), UsageError> {
    match letter {
        b'n' => {
            let n = atoi(value);
            if n <= 0 {
                return Err(UsageError::value("Invalid number of requests"));
            }
            settings.n_requests = Some(n as u64);
        }
        b'c' => {
            let n = atoi(value);
            if !(1..=i64::from(MAX_CONCURRENCY)).contains(&n) {
                return Err(UsageError::usage(format!(
                    "ab: Invalid Concurrency [Range 0..{MAX_CONCURRENCY}]"
                )));
            }
            settings.concurrency = n as u32;
        }
        // ab sets the count to 50,000 here, so that a later -n caps the run and an earlier one
        // is forgotten. loadgen forgets an earlier -n too, but sets no cap of its own.
        b't' => {
            settings.time_limit = Some(seconds(value, "-t")?);
            settings.n_requests = None;
        }
        b's' => settings.stall_timeout = seconds(value, "-s")?,
        b'b' => settings.socket_buffer_size = Some(atoi(value).max(0) as u32),
        b'B' => settings.bind_address = Some(value.to_owned()),
        b'p' | b'u' => {
            if *method_given {
                return Err(UsageError::usage(
                    "ab: Cannot mix POST/PUT with other methods",
                ));
            }
            let method = if letter == b'p' { "POST" } else { "PUT" };
            settings.method = method.to_owned();
            settings.body_file = Some(BodyFile {
                method: method.to_owned(),
                path: value.to_owned(),
            });
        }
        b'T' => settings.content_type = value.to_owned(),
        b'v' => settings.verbosity = atoi(value).max(0) as u32,
        b'x' | b'y' | b'z' => {
            settings.html = true;
            let slot = match letter {
                b'x' => &mut settings.table_attributes,
                b'y' => &mut settings.row_attributes,
                _ => &mut settings.cell_attributes,
            };
            *slot = Some(value.to_owned());
        }
        b'C' => settings.cookie = Some(value.to_owned()),
        b'H' => settings.headers.push(value.to_owned()),
        b'A' => settings.basic_auth = Some(value.trim_start().to_owned()),
        b'P' => settings.proxy_auth = Some(value.trim_start().to_owned()),
        b'X' => settings.proxy = Some(value.to_owned()),
        b'g' => settings.gnuplot_file = Some(value.to_owned()),
        b'e' => settings.csv_file = Some(value.to_owned()),
        b'm' => {
            settings.method = value.to_owned();
            // ab refuses -p/-u after -m, but takes -m after -p (a PATCH with a body).
            *method_given = settings.body_file.is_none();
        }
        _ => unreachable!("WITH_VALUE lists only these letters"),
    }
    Ok(())
}

fn apply_long(settings: &mut Settings, name: &str, value: &str) -> Result<(), UsageError> {
    let bad = |what: &str| UsageError::usage(format!("loadgen: --{name} {value:?}: {what}"));
    match name {
        "threads" => {
            let n: usize = value
                .parse()
                .map_err(|_| bad("expected a number of threads"))?;
            if n == 0 {
                return Err(bad("expected at least one thread"));
            }
            settings.n_threads = Some(n);
        }
        "rate" => {
            let rate: f64 = value
                .parse()
                .map_err(|_| bad("expected requests per second"))?;
            if !(rate.is_finite() && rate > 0.0) {
                return Err(bad("expected a positive rate"));
            }
            settings.rate = Some(rate);
        }
        "duration" => {
            settings.duration = Some(parse_duration(value).ok_or_else(|| bad(DURATION_FORMS))?)
        }
        "warmup" => {
            settings.warmup = Some(parse_duration(value).ok_or_else(|| bad(DURATION_FORMS))?)
        }
        "timeout" => {
            settings.request_timeout =
                Some(parse_duration(value).ok_or_else(|| bad(DURATION_FORMS))?);
        }
        "json" => settings.json_file = Some(value.to_owned()),
        "expect-status" => {
            let status: u16 = value
                .parse()
                .map_err(|_| bad("expected an HTTP status code"))?;
            if !(100..=999).contains(&status) {
                return Err(bad("expected an HTTP status code"));
            }
            settings.expect_status = Some(status);
        }
        "expect-body" => settings.expect_body = Some(value.to_owned()),
        "reject-body" => settings.reject_body = Some(value.to_owned()),
        "shard" => {
            let shard = value
                .split_once('/')
                .and_then(|(index, count)| Some((index.parse().ok()?, count.parse().ok()?)))
                .map(|(index, count)| Shard { index, count })
                .filter(|shard| shard.index < shard.count)
                .ok_or_else(|| bad("expected I/N with 0 <= I < N, such as 0/3"))?;
            // Split once the whole command line is read (see `split`).
            settings.whole = Some(WholeTest {
                shard,
                n_requests: None,
                concurrency: 0,
                rate: None,
            });
        }
        "start-at" => {
            let at = crate::clock::parse_start_at(value, SystemTime::now())
                .map_err(|error| bad(&error.to_string()))?;
            settings.start_at = Some(at);
        }
        _ => {
            return Err(UsageError::usage(format!(
                "loadgen: unknown option --{name}"
            )));
        }
    }
    Ok(())
}

const DURATION_FORMS: &str = "expected a duration such as 30s, 500ms, 2m or 1.5 (seconds)";

/// `30s`, `500ms`, `2m`, `1h`, or plain seconds (`1.5`).
pub fn parse_duration(text: &str) -> Option<Duration> {
    let (number, scale) = if let Some(number) = text.strip_suffix("ms") {
        (number, 0.001)
    } else if let Some(number) = text.strip_suffix('s') {
        (number, 1.0)
    } else if let Some(number) = text.strip_suffix('m') {
        (number, 60.0)
    } else if let Some(number) = text.strip_suffix('h') {
        (number, 3600.0)
    } else {
        (text, 1.0)
    };
    let value: f64 = number.parse().ok()?;
    let secs = value * scale;
    (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs))
}

/// ab's `-t` and `-s` take whole or fractional seconds.
fn seconds(value: &str, flag: &str) -> Result<Duration, UsageError> {
    match value.trim().parse::<f64>() {
        Ok(secs) if secs.is_finite() && secs > 0.0 => Ok(Duration::from_secs_f64(secs)),
        _ => Err(UsageError::usage(format!(
            "ab: {flag} expects a number of seconds, not {value:?}"
        ))),
    }
}

/// C's `atoi`, as ab reads numbers: leading digits count, the rest is ignored, garbage is 0.
fn atoi(text: &str) -> i64 {
    let text = text.trim_start();
    let (negative, digits) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let value = digits
        .bytes()
        .take_while(u8::is_ascii_digit)
        .fold(0i64, |value, digit| {
            value
                .saturating_mul(10)
                .saturating_add(i64::from(digit - b'0'))
        });
    if negative { -value } else { value }
}

/// `[http://]host[:port]/path`: the scheme is optional and the path required, as in ab.
pub fn parse_url(url: &str) -> Result<Target, UsageError> {
    if url.starts_with("https://") {
        return Err(UsageError::usage(
            "loadgen: https:// URLs are not supported: loadgen speaks plain HTTP only",
        ));
    }
    let rest = url.strip_prefix("http://").unwrap_or(url);
    let invalid = || UsageError::usage("ab: invalid URL");
    let slash = rest.find('/').ok_or_else(invalid)?;
    let (authority, path) = rest.split_at(slash);
    let (host, port) = if let Some(bracketed) = authority.strip_prefix('[') {
        let (host, after) = bracketed.split_once(']').ok_or_else(invalid)?;
        if host.contains('%') {
            return Err(invalid());
        }
        let port = match after {
            "" => 80,
            _ => after
                .strip_prefix(':')
                .and_then(|port| port.parse().ok())
                .ok_or_else(invalid)?,
        };
        (host.to_owned(), port)
    } else {
        match authority.rsplit_once(':') {
            Some((host, port)) => (host.to_owned(), port.parse().map_err(|_| invalid())?),
            None => (authority.to_owned(), 80),
        }
    };
    if host.is_empty() {
        return Err(invalid());
    }
    Ok(Target {
        host,
        port,
        path: path.to_owned(),
    })
}

/// The usage text, ab's with loadgen's long options after it.
pub fn usage(program: &str) -> String {
    format!(
        "Usage: {program} [options] [http://]hostname[:port]/path
       {program} merge [--json FILE] [-e FILE] FILE.json [FILE.json ...]
Options are:
    -n requests     Number of requests to perform
    -c concurrency  Number of multiple requests to make at a time
    -t timelimit    Seconds to max. to spend on benchmarking
                    (no cap on the number of requests, unlike ab's 50000)
    -s timeout      Seconds to max. wait for each response
                    Default is 30 seconds
    -b windowsize   Size of TCP send/receive buffer, in bytes
    -B address      Address to bind to when making outgoing connections
    -p postfile     File containing data to POST. Remember also to set -T
    -u putfile      File containing data to PUT. Remember also to set -T
    -T content-type Content-type header to use for POST/PUT data, eg.
                    'application/x-www-form-urlencoded'
                    Default is 'text/plain'
    -v verbosity    How much troubleshooting info to print
    -w              Print out results in HTML tables
    -i              Use HEAD instead of GET
    -x attributes   String to insert as table attributes
    -y attributes   String to insert as tr attributes
    -z attributes   String to insert as td or th attributes
    -C attribute    Add cookie, eg. 'Apache=1234'. (repeatable)
    -H attribute    Add Arbitrary header line, eg. 'Accept-Encoding: gzip'
                    Inserted after all normal header lines. (repeatable)
    -A attribute    Add Basic WWW Authentication, the attributes
                    are a colon separated username and password.
    -P attribute    Add Basic Proxy Authentication, the attributes
                    are a colon separated username and password.
    -X proxy:port   Proxyserver and port number to use
    -V              Print version number and exit
    -k              Use HTTP KeepAlive feature
    -d              Do not show percentiles served table.
    -S              Do not show confidence estimators and warnings.
    -q              Do not show progress when doing more than 150 requests
    -l              Accept variable document length (use this for dynamic pages)
    -g filename     Output collected data to gnuplot format file.
    -e filename     Output CSV file with percentages served
    -r              Don't exit on socket receive errors.
    -m method       Method name
    -h              Display usage information (this message)
loadgen's own options (long only, so that no ab flag is shadowed):
    --threads N         Event loops (cores) to run on; default: every core
    --rate R            Open loop: R requests/second over all threads; latency
                        counted from each request's scheduled send time
    --duration D        Run for D (30s, 500ms, 2m); with -n, whichever ends first
    --warmup D          Send load for D first, without counting it
    --timeout D         A request unanswered after D fails (the run goes on)
    --json FILE         Every figure, the histograms and a per-second series
                        (FILE - : on stdout after the report, between marker lines)
    --expect-status N   A response with another status is a failure
    --expect-body TEXT  A response body without TEXT is a failure
    --reject-body TEXT  A response body with TEXT is a failure (e.g. 'Fault>')
    --http1.0           Send exactly ab's HTTP/1.0 request (default: HTTP/1.1)
    --shard I/N         Run share I (from 0) of the test split N ways: -n, -c and
                        --rate's send times divided so that the shares add up
    --start-at TIME     Connect, then send the first request at TIME: RFC 3339
                        (2026-12-04T10:00:00Z), Unix seconds, or now+30s
"
    )
}
