//! Every option of ab's command line and of loadgen's own, written once: how it is spelled, the
//! name of its value, its help in the usage text, and (for the long ones) its words in
//! GUIDE.md's table. The getopt grammar, `loadgen -h` and GUIDE.md's table of long options all
//! come from [`FLAGS`]; a test holds GUIDE.md to [`guide_table`] and `xtask`'s help snapshot
//! holds the usage text.

/// How an option is spelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spelling {
    /// ab's one letter (`-n`).
    Letter(u8),
    /// loadgen's long name (`--rate`), never an ab letter.
    Long(&'static str),
}

use Spelling::{Letter, Long};

/// One option.
#[derive(Debug, Clone, Copy)]
pub struct Flag {
    pub spelling: Spelling,
    /// Its value's name in the usage text (`requests`); `None` for an option that takes none.
    pub value: Option<&'static str>,
    /// Its help in the usage text, lines joined by `\n`.
    pub help: &'static str,
    /// GUIDE.md's words for a long option; empty for ab's letters, which GUIDE.md names as ab's.
    pub guide: &'static str,
}

impl Flag {
    /// `-n requests`, `--rate A..B`.
    pub fn synopsis(&self) -> String {
        let name = match self.spelling {
            Letter(letter) => format!("-{}", char::from(letter)),
            Long(name) => format!("--{name}"),
        };
        match self.value {
            Some(value) => format!("{name} {value}"),
            None => name,
        }
    }
}

/// ab 2.4's options (built with TLS) in its usage's order, then loadgen's. An option may have
/// two entries for two forms of its value (`--rate R`, `--rate A..B`).
pub const FLAGS: &[Flag] = &[
    Flag {
        spelling: Letter(b'n'),
        value: Some("requests"),
        help: "Number of requests to perform",
        guide: "",
    },
    Flag {
        spelling: Letter(b'c'),
        value: Some("concurrency"),
        help: "Number of multiple requests to make at a time",
        guide: "",
    },
    Flag {
        spelling: Letter(b't'),
        value: Some("timelimit"),
        help: "Seconds to max. to spend on benchmarking\n(no cap on the number of requests, unlike ab's 50000)",
        guide: "",
    },
    Flag {
        spelling: Letter(b's'),
        value: Some("timeout"),
        help: "Seconds to max. wait for each response\nDefault is 30 seconds",
        guide: "",
    },
    Flag {
        spelling: Letter(b'b'),
        value: Some("windowsize"),
        help: "Size of TCP send/receive buffer, in bytes",
        guide: "",
    },
    Flag {
        spelling: Letter(b'B'),
        value: Some("address"),
        help: "Address to bind to when making outgoing connections",
        guide: "",
    },
    Flag {
        spelling: Letter(b'p'),
        value: Some("postfile"),
        help: "File containing data to POST. Remember also to set -T",
        guide: "",
    },
    Flag {
        spelling: Letter(b'u'),
        value: Some("putfile"),
        help: "File containing data to PUT. Remember also to set -T",
        guide: "",
    },
    Flag {
        spelling: Letter(b'T'),
        value: Some("content-type"),
        help: "Content-type header to use for POST/PUT data, eg.\n'application/x-www-form-urlencoded'\nDefault is 'text/plain'",
        guide: "",
    },
    Flag {
        spelling: Letter(b'v'),
        value: Some("verbosity"),
        help: "How much troubleshooting info to print",
        guide: "",
    },
    Flag {
        spelling: Letter(b'w'),
        value: None,
        help: "Print out results in HTML tables",
        guide: "",
    },
    Flag {
        spelling: Letter(b'i'),
        value: None,
        help: "Use HEAD instead of GET",
        guide: "",
    },
    Flag {
        spelling: Letter(b'x'),
        value: Some("attributes"),
        help: "String to insert as table attributes",
        guide: "",
    },
    Flag {
        spelling: Letter(b'y'),
        value: Some("attributes"),
        help: "String to insert as tr attributes",
        guide: "",
    },
    Flag {
        spelling: Letter(b'z'),
        value: Some("attributes"),
        help: "String to insert as td or th attributes",
        guide: "",
    },
    Flag {
        spelling: Letter(b'C'),
        value: Some("attribute"),
        help: "Add cookie, eg. 'Apache=1234'. (repeatable)",
        guide: "",
    },
    Flag {
        spelling: Letter(b'H'),
        value: Some("attribute"),
        help: "Add Arbitrary header line, eg. 'Accept-Encoding: gzip'\nInserted after all normal header lines. (repeatable)",
        guide: "",
    },
    Flag {
        spelling: Letter(b'A'),
        value: Some("attribute"),
        help: "Add Basic WWW Authentication, the attributes\nare a colon separated username and password.",
        guide: "",
    },
    Flag {
        spelling: Letter(b'P'),
        value: Some("attribute"),
        help: "Add Basic Proxy Authentication, the attributes\nare a colon separated username and password.",
        guide: "",
    },
    Flag {
        spelling: Letter(b'X'),
        value: Some("proxy:port"),
        help: "Proxyserver and port number to use",
        guide: "",
    },
    Flag {
        spelling: Letter(b'V'),
        value: None,
        help: "Print version number and exit",
        guide: "",
    },
    Flag {
        spelling: Letter(b'k'),
        value: None,
        help: "Use HTTP KeepAlive feature",
        guide: "",
    },
    Flag {
        spelling: Letter(b'd'),
        value: None,
        help: "Do not show percentiles served table.",
        guide: "",
    },
    Flag {
        spelling: Letter(b'S'),
        value: None,
        help: "Do not show confidence estimators and warnings.",
        guide: "",
    },
    Flag {
        spelling: Letter(b'q'),
        value: None,
        help: "Do not show progress when doing more than 150 requests",
        guide: "",
    },
    Flag {
        spelling: Letter(b'l'),
        value: None,
        help: "Accept variable document length (use this for dynamic pages)",
        guide: "",
    },
    Flag {
        spelling: Letter(b'g'),
        value: Some("filename"),
        help: "Output collected data to gnuplot format file.",
        guide: "",
    },
    Flag {
        spelling: Letter(b'e'),
        value: Some("filename"),
        help: "Output CSV file with percentages served",
        guide: "",
    },
    Flag {
        spelling: Letter(b'r'),
        value: None,
        help: "Don't exit on socket receive errors.",
        guide: "",
    },
    Flag {
        spelling: Letter(b'm'),
        value: Some("method"),
        help: "Method name",
        guide: "",
    },
    Flag {
        spelling: Letter(b'h'),
        value: None,
        help: "Display usage information (this message)",
        guide: "",
    },
    Flag {
        spelling: Letter(b'I'),
        value: None,
        help: "Disable TLS Server Name Indication (SNI) extension",
        guide: "",
    },
    Flag {
        spelling: Letter(b'Z'),
        value: Some("ciphersuite"),
        help: "Specify SSL/TLS cipher suite (OpenSSL's or IANA's names,\ncolon separated; rustls has the AEAD suites of TLS 1.2 and 1.3)",
        guide: "",
    },
    Flag {
        spelling: Letter(b'f'),
        value: Some("protocol"),
        help: "Specify SSL/TLS protocol\n(TLS1.2, TLS1.3 or ALL; SSL2, SSL3, TLS1 and TLS1.1 are refused)",
        guide: "",
    },
    Flag {
        spelling: Letter(b'E'),
        value: Some("certfile"),
        help: "Specify optional client certificate chain and private key",
        guide: "",
    },
    Flag {
        spelling: Long("threads"),
        value: Some("N"),
        help: "Event loops (cores) to run on; default: every core",
        guide: "event loops, one per thread, connections split across them (default: every core, at most `-c`)",
    },
    Flag {
        spelling: Long("rate"),
        value: Some("R"),
        help: "Open loop: R requests/second over all threads; latency\ncounted from each request's scheduled send time",
        guide: "open loop: R requests/second over all threads, each request at its scheduled time on the next free connection; latency from the scheduled time (coordinated omission corrected) beside the uncorrected figures, and a count of requests sent more than 1 ms late (and of those, how many waited for a free connection)",
    },
    Flag {
        spelling: Long("rate"),
        value: Some("A..B"),
        help: "Open loop rising (or falling) linearly from A to B\nrequests/second over --duration",
        guide: "open loop on a linear ramp from A to B requests/second over the measured phase (`--duration` or `-t`, required; the warm-up runs at A); with `--shard` the shards' send times still make the one ramp",
    },
    Flag {
        spelling: Long("duration"),
        value: Some("D"),
        help: "Run for D (30s, 500ms, 2m); with -n, whichever ends first",
        guide: "run for D (`30s`, `500ms`, `250us`, `2m`, `1h`, `1.5` seconds: the units of every duration of loadgen and its suite); with `-n`, whichever ends first",
    },
    Flag {
        spelling: Long("warmup"),
        value: Some("D"),
        help: "Send load for D first, without counting it",
        guide: "load for D first; requests that end in it are neither counted nor reported. With `--duration` or `-t`, no `-n` and no `--rate`, a request still in flight when the warm-up ends counts when it ends inside the measured phase, so that the rate is the requests that end in the phase whatever the latency (a server answering 10 requests a second to 30 connections would otherwise show 0 in a 3-s phase)",
    },
    Flag {
        spelling: Long("timeout"),
        value: Some("D"),
        help: "A request unanswered after D fails (the run goes on)",
        guide: "a request unanswered after D is a failure (the run goes on on a new connection)",
    },
    Flag {
        spelling: Long("json"),
        value: Some("FILE"),
        help: "Every figure, the histograms and a per-second series\n(FILE - : on stdout after the report, between marker lines)",
        guide: "every figure, the settings, the machine, a per-second series of requests and errors, and the HDR histograms; `--json -` prints it on stdout after the report between the lines `--- loadgen json begin ---` and `--- loadgen json end ---` (for a container's log)",
    },
    Flag {
        spelling: Long("series"),
        value: Some("FILE"),
        help: "The per-second series as CSV: requests, errors and, with\n--rate, the offered rate and the corrected p50 and p99",
        guide: "the per-second series as CSV: `second,requests,errors,offered_rate,corrected_p50_us,corrected_p99_us` (the last three with `--rate`)",
    },
    Flag {
        spelling: Long("metrics"),
        value: Some("ADDR"),
        help: "Prometheus text at http://ADDR/metrics while the run goes:\nrequests, failures and latency by kind, sent and offered",
        guide: "serve Prometheus text at `http://ADDR/metrics` (ADDR an address and port; port 0 picks one) while the run goes: `loadgen_responses_total` and `loadgen_failures_total` (the report's Complete and Failed requests; with a mix, by `kind`), `loadgen_request_duration_seconds` (a histogram of ab's Total time, 10 µs to 1 s, by kind), `loadgen_requests_sent_total` (warm-up included) and with `--rate` `loadgen_requests_offered_total` (the schedule's sends so far). Counted where the report counts, so the last scrape equals the report; stderr says `loadgen metrics listening on URL` first",
    },
    Flag {
        spelling: Long("metrics-hold"),
        value: Some("D"),
        help: "Keep --metrics up for D after the report (a last scrape)",
        guide: "keep the `--metrics` endpoint up for D after the report, so that a scraper's last scrape sees the final counts",
    },
    Flag {
        spelling: Long("prom-remote-write"),
        value: Some("URL"),
        help: "Push --metrics' counts to URL (Prometheus remote write)\nevery 5 s and at the end; http:// only",
        guide: "push the counts `--metrics` serves (the same series, with `job=\"loadgen\"`, `instance` the host name and, when sharded, `shard=\"I/N\"`) to URL by Prometheus remote write 1.0 (protobuf, snappy) every 5 s and once after the report, with or without `--metrics`; http:// only (a Prometheus with `--web.enable-remote-write-receiver`, or an agent beside loadgen); a push that fails is said on stderr once and counted at the end, and never stops the load; each push has 2 s from connecting to its answer (read to 64 KiB), so a receiver that hangs or drips delays the exit by at most about 4 s",
    },
    Flag {
        spelling: Long("expect-status"),
        value: Some("N"),
        help: "A response with another status is a failure",
        guide: "a response with another status is a failure",
    },
    Flag {
        spelling: Long("expect-body"),
        value: Some("TEXT"),
        help: "A response body without TEXT is a failure",
        guide: "a response whose body lacks TEXT is a failure",
    },
    Flag {
        spelling: Long("reject-body"),
        value: Some("TEXT"),
        help: "A response body with TEXT is a failure (e.g. 'Fault>')",
        guide: "a response whose body holds TEXT is a failure (`--reject-body 'Fault>'` catches SOAP faults)",
    },
    Flag {
        spelling: Long("check-xpath"),
        value: Some("EXPR"),
        help: "An answer failing EXPR is a failure, counted by EXPR: a path\n(//a/b[2], /text(), @x), count(), = != < > to 'text' or 1",
        guide: "an answer for which EXPR is false is a failure, counted under EXPR in the report, the JSON and `merge`; more than once, each its own check. EXPR is a subset of XPath 1.0: a path of steps from the document, each after `/` (a child) or `//` (a descendant), each a name or `*` with an optional position `[n]`, names matched by their local part (`soap:Body` and `Body` alike); ending in `/text()` (the element's own text) or `/@name` (an attribute); alone (something is selected), as `count(PATH)`, or compared with `=`, `!=`, `<`, `<=`, `>`, `>=` to `'text'` or a number, and `not(...)` of any of these; as XPath, a comparison holds when any selected node's value compares so. Each answer's body is kept (to 8 MiB; a longer answer fails) and read once it is whole, stopping as soon as the answer is decided. A bad EXPR is refused before the first request, naming the place in it (exit 2)",
    },
    Flag {
        spelling: Long("check-regex"),
        value: Some("RE"),
        help: "An answer whose body does not match RE is a failure",
        guide: "an answer whose body does not match the regular expression RE (Rust's `regex` syntax, unanchored; `(?s)` lets `.` match a newline) is a failure, counted under `regex RE`; more than once, each its own check; bodies kept as for `--check-xpath`",
    },
    Flag {
        spelling: Long("soap-faults"),
        value: None,
        help: "An answer that is a SOAP 1.1 or 1.2 Fault is a failure,\ncounted by its faultcode or Code/Value",
        guide: "an answer that is a SOAP Fault is a failure, counted by its code: SOAP 1.1's `faultcode` or 1.2's `Code/Value`, as the server wrote it (`Faults: soap:Client 12, soap:Server 3`), whatever the status; at most 32 codes are told apart, the rest counted as `(other codes)`",
    },
    Flag {
        spelling: Long("http1.0"),
        value: None,
        help: "Send exactly ab's HTTP/1.0 request (default: HTTP/1.1)",
        guide: "send exactly ab's request bytes (HTTP/1.0, ab's header order and User-Agent)",
    },
    Flag {
        spelling: Long("http2"),
        value: None,
        help: "HTTP/2: by ALPN over https://, with prior knowledge (h2c)\nover http://",
        guide: "HTTP/2 (loadgen's own sans-IO client, `loadgen::http2`, on a tokio runtime of each thread's own; the request's HPACK block is encoded once, and from each connection's second request on it is one byte a field): by ALPN `h2` over `https://`, with prior knowledge (h2c) over `http://`; the same request (its Host as `:authority`, no connection-specific fields), report, JSON, checks, `--rate`, `--shard` and merge; flow-control windows of 1 MiB a stream and 16 MiB a connection, so no answer waits for a WINDOW_UPDATE. A server that does not speak HTTP/2 ends the run at once, saying so. `Total transferred` counts each answer's head at the size HTTP/1.1 text would give it (HPACK's compressed size is not visible to the client)",
    },
    Flag {
        spelling: Long("streams"),
        value: Some("M"),
        help: "With --http2: requests each connection carries at once\n(h2load's -m); -c M connections make -c x M at a time",
        guide: "with `--http2`: requests each connection carries at once (h2load's `-m`); the report's Concurrency Level is `-c` × M",
    },
    Flag {
        spelling: Long("shard"),
        value: Some("I/N"),
        help: "Run share I (from 0) of the test split N ways: -n, -c and\n--rate's send times divided so that the shares add up",
        guide: "run share I (0 to N-1) of a test split N ways, one per process or machine: `-n` and `-c` divided so that the shares add up (remainders to the first shards; refused if a share of `-c` would be empty), and with `--rate R` every N-th of the whole test's send times from the I-th, so that the shards together send at one even R; the JSON records the share and the whole test",
    },
    Flag {
        spelling: Long("start-at"),
        value: Some("TIME"),
        help: "Connect, then send the first request at TIME: RFC 3339\n(2026-12-04T10:00:00Z), Unix seconds, or now+30s",
        guide: "open every connection, then send the first request at TIME: RFC 3339 with any offset (`2026-12-04T10:00:00Z`, `...+01:00`), Unix seconds (`1796378400`, fractions allowed) or `now+30s`; a time that has passed warns and starts at once; more than 1 h ahead is refused as a likely typo (a local time written as UTC); one value for all shards starts them together, within the machines' clock skew",
    },
    Flag {
        spelling: Long("mix"),
        value: Some("FILE"),
        help: "Several kinds of request by weight, a line each: weight name\nmethod path body [-T -H --expect-status --expect-body\n--reject-body --check-xpath --check-regex --save --save-regex],\nthen an optional [flow]; or -p FILE@W more than once",
        guide: "several kinds of request in one run, each in proportion to its weight, a line each: `WEIGHT NAME METHOD PATH BODY [options]` (PATH the URL's path or `-` for the URL's own; BODY a file relative to the mix file, or `-`; options any of `-T`, `-H`, `--expect-status`, `--expect-body`, `--reject-body`, `--check-xpath`, `--check-regex`, quoted as in a shell, after the command line's); a `[flow]` line ends the parts, and the steps after it, `NAME` or `NAME xN`, are sent by each connection in order, again and again, in place of the weights (each part's weight `-`; `--save NAME=PATH` and `--save-regex NAME=RE` on a part carry a value of its answers to the later steps' `{{NAME}}`: see the section on flows); `-p FILE@W` (or `-u`) more than once is a mix of bodies of the command line's request, named by their file. Request *i* of the run is of a kind fixed by `--seed` and *i*: every block of W requests (the weights' sum over their common divisor) holds each kind exactly as many times as its weight, so `-n` runs have exact shares (a timed run's are exact but for its last block and each thread's last claimed batch, partly unsent at the end). The report, the JSON and `merge` give each kind's counts, failures and latency beside the totals; each kind is checked against its own Document Length. Over `--http2` a mix's header blocks are sent without HPACK's dynamic table. At most 100 kinds, each named in 1 to 200 characters without control characters; the mix file at most 1 MiB and each body file at most 256 MiB, regular files only",
    },
    Flag {
        spelling: Long("seed"),
        value: Some("N"),
        help: "The mix's order and the templates' random values (default 1):\nthe same seed, the same requests",
        guide: "the order of a mix's kinds and the templates' random rows, `random` and `pick` (default 1): the same seed and `-n` send the same kinds and values in the same order",
    },
    Flag {
        spelling: Long("template"),
        value: None,
        help: "The URL's path, -H values and bodies are templates:\n{{NAME}} filled for each request ({{{{ writes {{)",
        guide: "the URL's path, the `-H` values and the bodies (a mix's too) are templates: each `{{NAME}}` is filled afresh for each request from a column of `--data` or a function: `{{seq}}` (the request's number in the test, 0, 1, 2, ... across threads and shards; warm-up requests from 10^15), `{{random LO HI}}` (an integer, both included), `{{uuid}}` (version 4, fresh in every run), `{{now}}` or `{{now +5m}}` (xsd:dateTime in UTC with milliseconds; s, m, h or d), `{{pick a|b|c}}`, `{{wsse-username-token USER PASSWORD [text]}}` (a WS-Security UsernameToken header with a fresh nonce and a PasswordDigest; `@COLUMN` for a column's value); `{{{{` writes a literal `{{`. Values go in as they are, unescaped. A placeholder nothing fills, or a value a head cannot carry, is refused before the first request, naming the file, line and name (exit 2). Not over `--http2` yet",
    },
    Flag {
        spelling: Long("data"),
        value: Some("FILE"),
        help: "Rows for the templates' {{COLUMN}}s: CSV with a header line,\nor JSON lines (.jsonl, .ndjson); implies --template",
        guide: "the rows a template's columns are filled from (implies `--template`): CSV with a header line naming the columns (RFC 4180 quoting; a byte order mark is passed over), or JSON lines when the name ends `.jsonl` or `.ndjson` (an object a line, the first line's keys the columns; strings as they are, numbers and booleans as written, null empty). Read whole before the run (at most 1 GiB; held as the values plus four bytes each); a row with the wrong number of fields, an empty file or a duplicate column is refused naming the line",
    },
    Flag {
        spelling: Long("data-order"),
        value: Some("ORDER"),
        help: "Which row a request takes: next (default), random\n(by --seed) or connection (a row a connection)",
        guide: "which row of `--data` a request takes: `next` (request *seq* takes row *seq* mod rows, every row in turn, round and round; with `-c 1` the server sees the file's order), `random` (drawn from `--seed` and the request's number), `connection` (a row a connection for the run, a user's identity; connections are numbered across threads and shards)",
    },
    Flag {
        spelling: Long("verify"),
        value: None,
        help: "Verify the server's TLS certificate against the system's\nroots (as ab, loadgen does not verify by default)",
        guide: "verify the server's TLS certificate against the system's roots; a refused certificate ends the run with the reason",
    },
    Flag {
        spelling: Long("cacert"),
        value: Some("FILE"),
        help: "Verify the server's TLS certificate against FILE's (PEM)",
        guide: "verify the server's TLS certificate against the CA certificates in FILE (PEM); a refused certificate ends the run with the reason",
    },
    Flag {
        spelling: Long("tls-resume"),
        value: None,
        help: "Resume TLS sessions on new connections (ab: every\nconnection a full handshake)",
        guide: "offer TLS session resumption on new connections (tickets, or session ids for TLS 1.2); ab resumes nothing, so without `-k` each request pays a full handshake unless this is given",
    },
    Flag {
        spelling: Long("tls-groups"),
        value: Some("LIST"),
        help: "Key exchange groups to offer, in order (default\nX25519MLKEM768:X25519:P-256:P-384; ab's OpenSSL 3.0: X25519)",
        guide: "the key exchange groups to offer, in order: `X25519MLKEM768`, `X25519`, `P-256`, `P-384` (the default, browsers' order); `--tls-groups X25519` makes the key exchange of ab's OpenSSL 3.0",
    },
];

/// The option spelled `letter`.
pub fn letter(letter: u8) -> Option<&'static Flag> {
    FLAGS.iter().find(|flag| flag.spelling == Letter(letter))
}

/// The long option `name`.
pub fn long(name: &str) -> Option<&'static Flag> {
    FLAGS
        .iter()
        .find(|flag| matches!(flag.spelling, Long(long) if long == name))
}

/// The usage text's lines for ab's letters (`long` false) or loadgen's long options: the
/// synopsis, then the help from a fixed column, its further lines under it.
pub fn usage_lines(long: bool) -> String {
    let column = if long { 20 } else { 16 };
    let mut text = String::new();
    for flag in FLAGS
        .iter()
        .filter(|flag| matches!(flag.spelling, Long(_)) == long)
    {
        for (i, help) in flag.help.lines().enumerate() {
            let synopsis = if i == 0 {
                flag.synopsis()
            } else {
                String::new()
            };
            text.push_str(&format!("    {synopsis:column$}{help}\n"));
        }
    }
    text
}

/// GUIDE.md's table of long options, a row each.
pub fn guide_table() -> String {
    let mut text = String::from("| option | meaning |\n|---|---|\n");
    for flag in FLAGS.iter().filter(|flag| matches!(flag.spelling, Long(_))) {
        text.push_str(&format!("| `{}` | {} |\n", flag.synopsis(), flag.guide));
    }
    text
}
