//! The command lines: ab's one-letter options, with ab's getopt habits (grouped flags `-kq`,
//! attached values `-n100`, options before the URL), plus loadgen's own long options, which
//! never shadow an ab flag; and `loadgen merge`'s, read by the same [`words`]. ab's letters are
//! mapped to typed [`Options`] here and nowhere else.

pub mod flags;
mod long;
mod merge;
mod mixes;
mod values;

use std::path::PathBuf;
use std::time::Duration;

use tls::client::{self as tls_client, ClientTls, Versions};

use crate::mix::Part;
use crate::options::{
    Checks, Display, Header, JsonOut, Load, Options, Output, RequestOptions, Target,
};
use crate::url::{Authority, Scheme, Url};

pub use self::merge::{MERGE_USAGE, MergeOptions, parse_merge};
use self::values::{ab_seconds, atoi, json_out, weighted_body};

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
    fn usage(message: impl Into<String>) -> UsageError {
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

/// What an ab command line asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum Invocation {
    Run(Box<Options>),
    /// `-h`.
    Help,
    /// `-V`.
    Version,
}

/// One word of a command line, as getopt sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Word {
    /// A letter that takes no value.
    Flag(u8),
    /// A letter and its value (attached or the next argument).
    Letter(u8, String),
    /// `--name value`, `--name=value`, or a long flag (no value).
    Long(String, Option<String>),
    Positional(String),
}

/// What a command line's letters and long options are.
struct Grammar {
    /// A letter's kind: `Some(true)` takes a value, `Some(false)` takes none, `None` is unknown.
    letter: fn(u8) -> Option<bool>,
    /// A long option that takes no value (any other takes one, and is checked by name later).
    long_flag: fn(&str) -> bool,
    /// ab's habit: the first positional argument ends the options.
    positional_ends_options: bool,
    /// Refuses a letter the grammar does not know.
    unknown_letter: fn(u8) -> UsageError,
}

/// ab's options (the apr_getopt string of ab 2.4 built with TLS) and loadgen's, from the one
/// table of them.
const AB: Grammar = Grammar {
    letter: |letter| flags::letter(letter).map(|flag| flag.value.is_some()),
    long_flag: |name| flags::long(name).is_some_and(|flag| flag.value.is_none()),
    positional_ends_options: true,
    unknown_letter: |letter| {
        UsageError::usage(format!("ab: illegal option -- {}", char::from(letter)))
    },
};
/// ab's `MAX_CONCURRENCY` in the 2.4.71 build.
const MAX_CONCURRENCY: u32 = 200_000;

/// Splits `args` into words by `grammar`.
fn words(args: &[String], grammar: &Grammar) -> Result<Vec<Word>, UsageError> {
    let mut words = Vec::new();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        if let Some(long) = arg.strip_prefix("--").filter(|long| !long.is_empty()) {
            let (name, inline) = match long.split_once('=') {
                Some((name, value)) => (name, Some(value.to_owned())),
                None => (long, None),
            };
            let value = if (grammar.long_flag)(name) {
                None
            } else {
                Some(match inline {
                    Some(value) => value,
                    None => args.next().cloned().ok_or_else(|| {
                        UsageError::usage(format!("loadgen: option --{name} requires an argument"))
                    })?,
                })
            };
            words.push(Word::Long(name.to_owned(), value));
            continue;
        }
        let Some(letters) = arg.strip_prefix('-').filter(|rest| !rest.is_empty()) else {
            words.push(Word::Positional(arg.clone()));
            if grammar.positional_ends_options {
                // Like ab, options must come before the URL: what follows is positional.
                words.extend(args.by_ref().cloned().map(Word::Positional));
            }
            continue;
        };
        for (at, letter) in letters.bytes().enumerate() {
            let takes_value = (grammar.letter)(letter);
            if takes_value == Some(false) {
                words.push(Word::Flag(letter));
            } else if takes_value == Some(true) {
                let value = match &letters[at + 1..] {
                    "" => args.next().cloned().ok_or_else(|| {
                        UsageError::usage(format!(
                            "ab: option requires an argument -- {}",
                            char::from(letter)
                        ))
                    })?,
                    attached => attached.to_owned(),
                };
                words.push(Word::Letter(letter, value));
                break;
            } else {
                return Err((grammar.unknown_letter)(letter));
            }
        }
    }
    Ok(words)
}

/// The options as they are read, before they are checked as a whole.
struct Draft {
    target: Target,
    load: Load,
    request: RequestOptions,
    checks: Checks,
    output: Output,
    /// `-n` was given after the last `-t` (ab's order rules).
    count_given: bool,
    /// `-m` was given before any `-p`/`-u`.
    method_given: bool,
    /// `-i`.
    head: bool,
    /// `-p FILE@W` / `-u FILE@W`: the parts of a mix, in order.
    weighted: Vec<Part>,
    /// `--mix FILE`, `--seed N`.
    mix_file: Option<PathBuf>,
    seed: Option<u64>,
    /// `--template`, `--data FILE`, `--data-order`.
    template: bool,
    data_file: Option<PathBuf>,
    data_order: Option<crate::template::DataOrder>,
    /// The first TLS option given, which an `http://` URL cannot use.
    tls_option: Option<String>,
    help: bool,
    version: bool,
}

/// Parses ab's command line (the arguments after the program name).
pub fn parse(args: &[String]) -> Result<Invocation, UsageError> {
    let mut draft = Draft::new();
    let mut positional = Vec::new();
    for word in words(args, &AB)? {
        match word {
            Word::Flag(letter) => draft.flag(letter),
            Word::Letter(letter, value) => draft.letter(letter, &value)?,
            Word::Long(name, value) => draft.long(&name, value.as_deref())?,
            Word::Positional(arg) => positional.push(arg),
        }
    }
    // With both, the version wins.
    if draft.version {
        return Ok(Invocation::Version);
    }
    if draft.help {
        return Ok(Invocation::Help);
    }
    let [url] = positional.as_slice() else {
        return Err(UsageError::usage("ab: wrong number of arguments"));
    };
    draft.target.url =
        Url::parse(url).map_err(|error| UsageError::usage(format!("ab: {error}")))?;
    draft
        .finish()
        .map(|options| Invocation::Run(Box::new(options)))
}

impl Draft {
    fn new() -> Draft {
        Draft {
            target: Target {
                url: Url {
                    scheme: Scheme::Http,
                    host: String::new(),
                    port: 80,
                    path: String::new(),
                },
                proxy: None,
                bind_address: None,
                socket_buffer: None,
                tls: ClientTls::default(),
            },
            load: Load {
                n_requests: Some(1),
                concurrency: 1,
                ab_time_limit: None,
                duration: None,
                warmup: None,
                rate: None,
                n_threads: None,
                streams: None,
                shard: None,
                start_at: None,
            },
            request: RequestOptions {
                method: http::Method::GET,
                body_file: None,
                content_type: "text/plain".to_owned(),
                headers: Vec::new(),
                cookie: None,
                basic_auth: None,
                proxy_auth: None,
                keep_alive: false,
                http10: false,
                http2: false,
                mix: None,
                templating: None,
            },
            checks: Checks {
                expect_status: None,
                expect_body: None,
                reject_body: None,
                check_xpath: Vec::new(),
                check_regex: Vec::new(),
                soap_faults: false,
                variable_length: false,
                continue_on_receive_errors: false,
                request_timeout: None,
                stall_timeout: Duration::from_secs(30),
            },
            output: Output {
                verbosity: 0,
                quiet: false,
                display: Display::default(),
                gnuplot_file: None,
                csv_file: None,
                json: None,
                series_file: None,
                metrics: None,
                metrics_hold: None,
                remote_write: None,
            },
            count_given: false,
            method_given: false,
            head: false,
            weighted: Vec::new(),
            mix_file: None,
            seed: None,
            template: false,
            data_file: None,
            data_order: None,
            tls_option: None,
            help: false,
            version: false,
        }
    }

    /// The checks that need the whole command line.
    fn finish(mut self) -> Result<Options, UsageError> {
        let load = &mut self.load;
        if load.duration.is_some() && !self.count_given && load.ab_time_limit.is_none() {
            // --duration alone runs for that long, however many requests it takes.
            load.n_requests = None;
        }
        if self.head && self.request.body_file.is_some() {
            return Err(UsageError::usage("ab: Cannot mix HEAD with POST/PUT"));
        }
        if let Some(n_requests) = load.n_requests
            && u64::from(load.concurrency) > n_requests
        {
            return Err(UsageError::usage(
                "ab: Cannot use concurrency level greater than total number of requests",
            ));
        }
        if let Some(rate) = load.rate
            && rate.is_ramp()
            && load.time_limit().is_none()
        {
            return Err(UsageError::usage(format!(
                "loadgen: --rate {rate} is a ramp, which runs over the measured phase: give its length with --duration or -t"
            )));
        }
        if let Some(option) = &self.tls_option
            && self.target.url.scheme != Scheme::Https
        {
            return Err(UsageError::usage(format!(
                "loadgen: {option} is a TLS option, for an https:// URL"
            )));
        }
        if self.output.metrics_hold.is_some() && self.output.metrics.is_none() {
            return Err(UsageError::usage(
                "loadgen: --metrics-hold keeps the --metrics endpoint up: give --metrics ADDR",
            ));
        }
        if self.request.http2 && self.request.http10 {
            return Err(UsageError::usage(
                "loadgen: --http2 and --http1.0 ask for two protocols",
            ));
        }
        if self.request.http2 && self.target.proxy.is_some() {
            return Err(UsageError::usage(
                "loadgen: --http2 with -X: loadgen sends HTTP/2 to the server itself, not through a proxy",
            ));
        }
        if load.streams.is_some() && !self.request.http2 {
            return Err(UsageError::usage(
                "loadgen: --streams is for --http2 (HTTP/1.1 carries one request at a time)",
            ));
        }
        if self.target.url.scheme == Scheme::Https && self.target.proxy.is_some() {
            return Err(UsageError::usage(
                "loadgen: -X with an https:// URL: loadgen does not tunnel TLS through a proxy",
            ));
        }
        self.request.mix = self.mix()?;
        self.request.templating = self.templating()?;
        let load = &mut self.load;
        if let Some(shard) = load.shard
            && load.share().concurrency == 0
        {
            return Err(UsageError::usage(format!(
                "loadgen: -c {} cannot be split into {} shards: each needs a connection",
                load.concurrency, shard.count
            )));
        }
        Ok(Options {
            target: self.target,
            load: self.load,
            request: self.request,
            checks: self.checks,
            output: self.output,
        })
    }

    fn flag(&mut self, letter: u8) {
        let display = &mut self.output.display;
        match letter {
            b'l' => self.checks.variable_length = true,
            b'r' => self.checks.continue_on_receive_errors = true,
            b'k' => self.request.keep_alive = true,
            b'V' => self.version = true,
            b'h' => self.help = true,
            b'w' => display.html = true,
            b'i' => {
                self.head = true;
                self.request.method = http::Method::HEAD;
            }
            b'd' => display.percentiles = false,
            b'S' => display.confidence = false,
            b'q' => self.output.quiet = true,
            b'I' => {
                self.tls_option.get_or_insert_with(|| "-I".to_owned());
                self.target.tls.sni = false;
            }
            _ => unreachable!("the grammar's flags are these letters"),
        }
    }

    fn letter(&mut self, letter: u8, value: &str) -> Result<(), UsageError> {
        self.count_given |= letter == b'n';
        self.count_given &= letter != b't';
        match letter {
            b'n' => {
                let n = atoi(value);
                if n <= 0 {
                    return Err(UsageError::value("Invalid number of requests"));
                }
                self.load.n_requests = Some(n as u64);
            }
            b'c' => {
                let n = atoi(value);
                if !(1..=i64::from(MAX_CONCURRENCY)).contains(&n) {
                    return Err(UsageError::usage(format!(
                        "ab: Invalid Concurrency [Range 0..{MAX_CONCURRENCY}]"
                    )));
                }
                self.load.concurrency = n as u32;
            }
            // ab sets the count to 50,000 here, so that a later -n caps the run and an earlier
            // one is forgotten. loadgen forgets an earlier -n too, but sets no cap of its own.
            b't' => {
                self.load.ab_time_limit = Some(ab_seconds(value, "-t")?);
                self.load.n_requests = None;
            }
            b's' => self.checks.stall_timeout = ab_seconds(value, "-s")?,
            b'b' => self.target.socket_buffer = Some(atoi(value).max(0) as u32),
            b'B' => self.target.bind_address = Some(value.to_owned()),
            b'p' | b'u' => {
                if self.method_given {
                    return Err(UsageError::usage(
                        "ab: Cannot mix POST/PUT with other methods",
                    ));
                }
                self.request.method = if letter == b'p' {
                    http::Method::POST
                } else {
                    http::Method::PUT
                };
                match weighted_body(value) {
                    Some((file, weight)) => self.weighted.push(Part::weighted_body(
                        self.request.method.clone(),
                        file,
                        weight,
                    )),
                    None => self.request.body_file = Some(PathBuf::from(value)),
                }
            }
            b'T' => {
                crate::field::check_field("Content-type", value)
                    .map_err(|why| UsageError::usage(format!("loadgen: -T: {why}")))?;
                self.request.content_type = value.to_owned();
            }
            b'v' => self.output.verbosity = atoi(value).max(0) as u32,
            b'x' | b'y' | b'z' => {
                let display = &mut self.output.display;
                display.html = true;
                let slot = match letter {
                    b'x' => &mut display.table_attributes,
                    b'y' => &mut display.row_attributes,
                    _ => &mut display.cell_attributes,
                };
                *slot = value.to_owned();
            }
            b'C' => {
                crate::field::check_field("Cookie", value)
                    .map_err(|why| UsageError::usage(format!("loadgen: -C: {why}")))?;
                self.request.cookie = Some(value.to_owned());
            }
            b'H' => self.request.headers.push(
                Header::parse(value)
                    .map_err(|why| UsageError::usage(format!("loadgen: -H {value:?}: {why}")))?,
            ),
            b'A' => self.request.basic_auth = Some(value.trim_start().to_owned()),
            b'P' => self.request.proxy_auth = Some(value.trim_start().to_owned()),
            b'X' => {
                self.target.proxy = Some(Authority::parse(value, 80).map_err(|_| {
                    UsageError::usage(format!("loadgen: -X {value:?}: expected host:port"))
                })?);
            }
            b'g' => self.output.gnuplot_file = Some(PathBuf::from(value)),
            b'e' => self.output.csv_file = Some(PathBuf::from(value)),
            b'm' => {
                self.request.method = http::Method::from_bytes(value.as_bytes()).map_err(|_| {
                    UsageError::usage(format!("loadgen: -m {value:?}: not an HTTP method"))
                })?;
                // ab refuses -p/-u after -m, but takes -m after -p (a PATCH with a body).
                self.method_given = self.request.body_file.is_none();
            }
            b'Z' | b'f' | b'E' => {
                self.tls_option
                    .get_or_insert_with(|| format!("-{}", char::from(letter)));
                let tls = &mut self.target.tls;
                let refused = |error: tls_client::NameError| {
                    UsageError::usage(format!("loadgen: -{}: {error}", char::from(letter)))
                };
                match letter {
                    b'Z' => {
                        tls.cipher_suites = tls_client::parse_cipher_list(value).map_err(refused)?
                    }
                    b'f' => tls.versions = Versions::parse(value).map_err(refused)?,
                    _ => tls.client_cert = Some(PathBuf::from(value)),
                }
            }
            _ => unreachable!("the grammar's valued letters are these"),
        }
        Ok(())
    }
}
